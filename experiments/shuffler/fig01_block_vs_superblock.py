"""Shuffler paper (TOS 2026), Fig. 1: read latency and WAF of Baseline with block management (k = 1) vs 4-block superblocks.

Runs, or reuses from OUT/store, the sweeps this figure needs, then writes
OUT/fig01_block_vs_superblock.png, .pdf and .csv.  Usage::

    python experiments/shuffler/fig01_block_vs_superblock.py [--quick] [--repeat N] [--jobs J] [--out DIR]

``flashrr reproduce shuffler`` makes this figure together with all the others.
"""
from flashrr.reproduce.shuffler import figure_main

if __name__ == "__main__":
    figure_main("fig01")
