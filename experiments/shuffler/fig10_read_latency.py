"""Shuffler paper (TOS 2026), Fig. 10: average read latency, normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig10_read_latency.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig10_read_latency.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig10")
