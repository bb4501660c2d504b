"""Cocktail paper (TCAD 2023), Fig. 12: worst-case latency, the 99th to 100th percentile of response time.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig12_tail_latency.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig12_tail_latency.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig12")
