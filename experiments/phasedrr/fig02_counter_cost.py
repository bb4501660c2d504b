"""PhasedRR paper (MSST 2024), Fig. 2: I/O latency of RL-RR and Reallocation with (W-O) and without (W/o-O) their page counters charged to the DRAM cache.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig02_counter_cost.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig02_counter_cost.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig02")
