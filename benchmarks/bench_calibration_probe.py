"""Cocktail's arrival calibration of one trace with and without the bisection's probe.

``flashrr.reproduce.calibration.bisect_time_scale`` runs the end point its search would reach once
its first four steps move one way, and stops there when the target is still out of reach.  This
times :func:`flashrr.papers.cocktail.plan.calibrate` on one trace of the default plan at its
default length (``--multiple``: its multiple of Table II's repeat count, the default plan's
``lengths``), with ``probe_after=4`` and ``None`` in alternating rounds, in this process, and prints
for each the factor, the load, the Baseline runs and the wall time (s).  The two factors must be equal.

Run: ``python benchmarks/bench_calibration_probe.py [--trace systor1] [--multiple 7] [--rounds 1]``
(sys1: about 2.5 min a round on the project's 2-core machine).
"""
from __future__ import annotations

import argparse
import time
from dataclasses import replace
from functools import partial

from flashrr.papers.cocktail import plan as cocktail
from flashrr.reproduce.calibration import bisect_time_scale


def timed_calibration(trace: str, multiple: int, probe_after: int | None) -> tuple:
    """``(factor, load, Baseline runs, wall s)`` of ``trace``'s calibration with ``probe_after``."""
    plan = replace(cocktail.Plan(), traces=(trace,), replays=((trace, multiple),))
    runs = 0
    load = cocktail.baseline_load

    def counted(*a, **k):
        nonlocal runs
        runs += 1
        return load(*a, **k)

    cocktail.baseline_load, cocktail.bisect_time_scale = counted, partial(bisect_time_scale, probe_after=probe_after)
    try:
        t = time.perf_counter()
        factor, value = cocktail.calibrate(plan, trace)
        return factor, value, runs, time.perf_counter() - t
    finally:
        cocktail.baseline_load, cocktail.bisect_time_scale = load, bisect_time_scale


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="systor1")
    ap.add_argument("--multiple", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args(argv)
    for r in range(args.rounds):
        for probe in ((4, None) if r % 2 == 0 else (None, 4)):
            f, v, n, s = timed_calibration(args.trace, args.multiple, probe)
            print(f"round {r} probe_after={probe}: factor {f} load {v:.4f}, {n} Baseline runs, {s:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
