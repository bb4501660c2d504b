"""PhasedRR paper (MSST 2024), Fig. 8: block erases by cause (GC, RR), normalised to Baseline's total.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig08_erases.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig08_erases.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig08")
