"""Cocktail paper (TCAD 2023), Fig. 8: Cocktail's RR count for Eq. 2 ratios 1, 0.75, 0.5, 0.25, 0.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig08_rr_vs_ratio.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig08_rr_vs_ratio.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig08")
