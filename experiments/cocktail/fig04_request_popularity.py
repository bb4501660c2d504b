"""Cocktail paper (TCAD 2023), Fig. 4: popularity of each request (same offset and size) in the ten Table II traces.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig04_request_popularity.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig04_request_popularity.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig04")
