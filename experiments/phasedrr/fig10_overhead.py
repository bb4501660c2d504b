"""PhasedRR paper (MSST 2024), Fig. 10: PhasedRR's peak working-set memory and modelled time overhead.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig10_overhead.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig10_overhead.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig10")
