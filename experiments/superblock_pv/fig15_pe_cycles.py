"""Superblock PV paper, Fig. 15: mean extra program and erase latency over P/E cycles (re-assembled at every point).

Evaluates the assembly methods this figure needs on the calibrated PV model
(24 dies, P/E 0..3000 step 200; ``--quick``: 4 dies, 3 P/E points) and writes
OUT/fig15_pe_cycles.png, .pdf and .csv.  Usage::

    python experiments/superblock_pv/fig15_pe_cycles.py [--quick] [--dies N] [--seed S] [--out DIR]

``flashrr reproduce superblock-pv`` makes every table and figure and the claims.
"""
from flashrr.reproduce.superblock_pv import figure_main

if __name__ == "__main__":
    figure_main("fig15")
