"""PhasedRR paper (MSST 2024), Fig. 7: RR page moves (idle + forced + mandatory), normalised to Baseline.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig07_rr_page_moves.png, .pdf and .csv.  Usage::

    python experiments/phasedrr/fig07_rr_page_moves.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce phasedrr`` makes this figure together with all the others.
"""
from flashrr.reproduce.phasedrr import figure_main

if __name__ == "__main__":
    figure_main("fig07")
