"""Shuffler paper (TOS 2026), Fig. 18: read latency with 32 MB and 128 MB caches.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig18_read_latency_by_cache.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig18_read_latency_by_cache.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig18")
