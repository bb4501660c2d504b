"""PhasedRR paper (MSST 2024), Fig. 9: PhasedRR's identification accuracy of hottest, hotter and tepid pages.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig09_accuracy.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig09_accuracy.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig09")
