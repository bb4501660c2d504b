"""Shuffler paper (TOS 2026), Fig. 13: CDF of the slowest 1% of I/O response times.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig13_tail_cdf.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig13_tail_cdf.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig13")
