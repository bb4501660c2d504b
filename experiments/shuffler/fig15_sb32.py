"""Shuffler paper (TOS 2026), Fig. 15: RR count and read latency with 32-block superblocks.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig15_sb32.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig15_sb32.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig15")
