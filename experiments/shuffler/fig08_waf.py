"""Shuffler paper (TOS 2026), Fig. 8: write amplification factor, normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig08_waf.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig08_waf.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig08")
