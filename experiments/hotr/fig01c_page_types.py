"""HotR paper (DATE 2019), Fig. 1(c): read-intensive, write-intensive and mixed pages of each trace.

Calibrates the traces' time scale (or reuses OUT/calibration.csv), runs or reuses
from OUT/store the sweeps this figure needs, then writes OUT/fig01c_page_types.png, .pdf
and .csv.  Usage::

    python experiments/hotr/fig01c_page_types.py [--quick] [--jobs J] [--out DIR]

``flashrr reproduce hotr`` makes this figure together with all the others.
"""
from flashrr.reproduce.hotr import figure_main

if __name__ == "__main__":
    figure_main("fig01c")
