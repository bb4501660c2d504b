"""PhasedRR paper (MSST 2024), Fig. 4: sensitivity of PhasedRR's I/O latency and RR page moves to Delta.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig04_delta_sensitivity.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig04_delta_sensitivity.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig04")
