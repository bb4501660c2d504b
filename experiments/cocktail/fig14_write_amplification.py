"""Cocktail paper (TCAD 2023), Fig. 14: write amplification (pages moved per erase) and WAF, normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig14_write_amplification.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig14_write_amplification.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig14")
