"""Cocktail paper (TCAD 2023), Fig. 9: Cocktail's RR count for a fixed RR share 1/n of each mixed block.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig09_rr_vs_share.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig09_rr_vs_share.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig09")
