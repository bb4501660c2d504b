"""Cocktail paper (TCAD 2023), Fig. 13: GC count and block erases, normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig13_gc_count.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig13_gc_count.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig13")
