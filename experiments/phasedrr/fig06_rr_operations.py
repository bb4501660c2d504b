"""PhasedRR paper (MSST 2024), Fig. 6: RR operations (blocks with at least one page moved by RR logic), normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig06_rr_operations.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig06_rr_operations.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig06")
