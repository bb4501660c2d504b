"""Shuffler paper (TOS 2026), Fig. 12: read and write cache hit ratios.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig12_cache_hits.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig12_cache_hits.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig12")
