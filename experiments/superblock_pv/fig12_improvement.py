"""Superblock PV paper, Fig. 12: extra program and erase latency of Random, Sequential, Optimal, QSTR-MED and STR-MED, ours next to the paper's.

Evaluates the assembly methods this figure needs on the calibrated PV model
(24 dies, P/E 0..3000 step 200; ``--quick``: 4 dies, 3 P/E points) and writes
OUT/fig12_improvement.png, .pdf and .csv.  Usage::

    python experiments/superblock_pv/fig12_improvement.py [--quick] [--dies N] [--seed S] [--out DIR]

``flashrr reproduce superblock-pv`` makes every table and figure and the claims.
"""
from flashrr.reproduce.superblock_pv import figure_main

if __name__ == "__main__":
    figure_main("fig12")
