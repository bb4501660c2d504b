"""Superblock PV paper, Table V: extra program and erase latency of the five evaluated methods.

Evaluates the assembly methods this table needs on the calibrated PV model
(24 dies, P/E 0..3000 step 200; ``--quick``: 4 dies, 3 P/E points) and writes
OUT/table5_extra_latency.csv and .md.  Usage::

    python experiments/superblock_pv/table5_extra_latency.py [--quick] [--dies N] [--seed S] [--out DIR]

``flashrr reproduce superblock-pv`` makes every table and figure and the claims.
"""
from flashrr.reproduce.superblock_pv import figure_main

if __name__ == "__main__":
    figure_main("table5")
