"""HotR paper (DATE 2019), Fig. 1(b): share of reads blocked by programs in Baseline (time-scaled traces).

Calibrates the traces' time scale (or reuses OUT/calibration.csv), runs or reuses
from OUT/store the sweeps this figure needs, then writes OUT/fig01b_blocked_reads.png, .pdf
and .csv.  Usage::

    python experiments/hotr/fig01b_blocked_reads.py [--quick] [--jobs J] [--out DIR]

``flashrr reproduce hotr`` makes this figure together with all the others.
"""
from flashrr.reproduce.hotr import figure_main

if __name__ == "__main__":
    figure_main("fig01b")
