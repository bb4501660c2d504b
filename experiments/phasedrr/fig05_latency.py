"""PhasedRR paper (MSST 2024), Fig. 5: average read and I/O latency of RL-RR, Reallocation and PhasedRR, normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig05_latency.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig05_latency.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig05")
