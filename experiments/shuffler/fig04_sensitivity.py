"""Shuffler paper (TOS 2026), Fig. 4: Shuffler's RR count for several delta_F (delta_P = 0.1) and delta_P (delta_F = 0.3).

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig04_sensitivity.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig04_sensitivity.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig04")
