"""HotR paper (DATE 2019), Fig. 9: HotR's speedup over Baseline from SLC to QLC.

Calibrates the traces' time scale (or reuses OUT/calibration.csv), runs or reuses
from OUT/store the sweeps this figure needs, then writes OUT/fig09_flash_types.png, .pdf
and .csv.  Usage::

    python experiments/hotr/fig09_flash_types.py [--quick] [--jobs J] [--out DIR]

``flashrr reproduce hotr`` makes this figure together with all the others.
"""
from flashrr.reproduce.hotr import figure_main

if __name__ == "__main__":
    figure_main("fig09")
