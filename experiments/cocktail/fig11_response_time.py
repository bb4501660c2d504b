"""Cocktail paper (TCAD 2023), Fig. 11: average response time normalised to Baseline, with the read-retry part.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig11_response_time.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig11_response_time.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig11")
