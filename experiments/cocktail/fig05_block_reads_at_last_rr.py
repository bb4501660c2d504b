"""Cocktail paper (TCAD 2023), Fig. 5: read counts of one plane's blocks at its last RR (Baseline, ali206).

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig05_block_reads_at_last_rr.png, .pdf and .csv.  Usage::

    python experiments/cocktail/fig05_block_reads_at_last_rr.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce cocktail`` makes this figure together with all the others.
"""
from flashrr.reproduce.cocktail import figure_main

if __name__ == "__main__":
    figure_main("fig05")
