"""Cocktail paper (TCAD 2023), Fig. 10: RR count of redFTL, IPR and Cocktail, normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig10_rr_count.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig10_rr_count.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig10")
