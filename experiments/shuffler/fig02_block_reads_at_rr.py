"""Shuffler paper (TOS 2026), Fig. 2: read counts of the component blocks of every superblock Baseline reclaims.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig02_block_reads_at_rr.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig02_block_reads_at_rr.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig02")
