"""Superblock PV paper, Table II: STR-rank with windows 8, 6, 4 and 2.

Evaluates the assembly methods this table needs on the calibrated PV model
(24 dies, P/E 0..3000 step 200; ``--quick``: 4 dies, 3 P/E points) and writes
OUT/table2_str_rank_window.csv and .md.  Usage::

    python experiments/superblock_pv/table2_str_rank_window.py [--quick] [--dies N] [--seed S] [--out DIR]

``flashrr reproduce superblock-pv`` makes every table and figure and the claims.
"""
from flashrr.reproduce.superblock_pv import figure_main

if __name__ == "__main__":
    figure_main("table2")
