"""HotR paper (DATE 2019), Fig. 5: average response time of Baseline, Rails, TTFlash and HotR, normalised to Baseline.

Calibrates the traces' time scale (or reuses OUT/calibration.csv), runs or reuses
from OUT/store the sweeps this figure needs, then writes OUT/fig05_response_time.png, .pdf
and .csv.  Usage::

    python experiments/hotr/fig05_response_time.py [--quick] [--jobs J] [--out DIR]

``flashrr reproduce hotr`` makes this figure together with all the others.
"""
from flashrr.reproduce.hotr import figure_main

if __name__ == "__main__":
    figure_main("fig05")
