"""Assembly speed of every PV method on the paper's scale.

Generates the PV model's latencies for D dies (default 24; 4 planes x 400
blocks, 96 layers x 4 strings) at 0 P/E cycles, then prints for every
configuration of the paper's tables the wall time of the assembly (features
included, best of R runs, default 1), the time per superblock and the similarity
checks per superblock.  Generation time is printed separately.

Run: ``python benchmarks/bench_pv.py [DIES] [REPEATS]``.
"""
from __future__ import annotations

import sys
import time

from flashrr.pv import PVModel, assemble
from flashrr.pv.calibrate import CONFIGS


def main(dies: int = 24, repeats: int = 1) -> None:
    t0 = time.perf_counter()
    lat = PVModel(dies=dies, seed=0).latencies(0)
    print(f"model: {dies} dies x 4 planes x 400 blocks x 384 LWL generated in {time.perf_counter() - t0:.2f} s")
    n_sb = dies * lat.blocks
    print(f"{'configuration':14s} {'wall s':>8s} {'µs/SB':>9s} {'checks/SB':>10s}")
    for c in CONFIGS:
        best = float("inf")
        for _ in range(repeats):
            asm = assemble(c.method, lat, **c.kwargs)
            best = min(best, asm.wall_s)
        print(f"{c.label:14s} {best:8.3f} {1e6 * best / n_sb:9.1f} {asm.checks.mean():10.1f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
