"""HotR paper (DATE 2019), Fig. 7: cost-latency product, normalised to Baseline.

Calibrates the traces' time scale (or reuses OUT/calibration.csv), runs or reuses
from OUT/store the sweeps this figure needs, then writes OUT/fig07_cost_latency.png, .pdf
and .csv.  Usage::

    python experiments/hotr/fig07_cost_latency.py [--quick] [--jobs J] [--out DIR]

``flashrr reproduce hotr`` makes this figure together with all the others.
"""
from flashrr.reproduce.hotr import figure_main

if __name__ == "__main__":
    figure_main("fig07")
