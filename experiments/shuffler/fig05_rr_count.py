"""Shuffler paper (TOS 2026), Fig. 5: RR count of Page, Page-8, Page-64 and Shuffler, normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig05_rr_count.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig05_rr_count.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig05")
