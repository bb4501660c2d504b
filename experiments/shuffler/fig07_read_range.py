"""Shuffler paper (TOS 2026), Fig. 7: range and mean of block read counts in reclaimed superblocks (Baseline, Page, Shuffler).

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig07_read_range.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig07_read_range.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig07")
