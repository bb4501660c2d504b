"""Shuffler paper (TOS 2026), Fig. 6: read imbalance (max - min block reads) in reclaimed superblocks vs RR operations.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig06_imbalance_vs_rr.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig06_imbalance_vs_rr.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig06")
