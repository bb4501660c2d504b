"""Cocktail's two first calibrations, one after the other and side by side.

:func:`flashrr.papers.cocktail.plan.first_calibrations` finds ali206's length (Baseline runs until it
makes the paper's RR count) and the read-count group's request count (a bisection of Baseline runs),
which depend on no other calibration.  This times it on the default plan from an empty directory
with ``jobs=1`` (both in this process, one after the other) and ``jobs=2`` (one worker each), in
alternating rounds, with the snapshots a reproduction uses (``OUT/store/snapshots``), and prints
ali206's replays, the read-count group's request count and the wall time (s).  The two must find
the same values.

Run: ``python benchmarks/bench_first_calibrations.py [--rounds 1]`` (about 6 min a round on the
project's 2-core machine).
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from flashrr.papers.cocktail.plan import Plan, first_calibrations
from flashrr.reproduce.sweep_runs import snapshot_dir


def timed(jobs: int) -> tuple:
    """``(ali206's replays, read-count request counts, wall s)`` of the default plan's first calibrations."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        t = time.perf_counter()
        plan = first_calibrations(Plan(), out, progress=False, jobs=jobs, snapshot=snapshot_dir(out))
        return dict(plan.replays)["alibaba_206"], dict(plan.read_lengths), time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args(argv)
    for r in range(args.rounds):
        for jobs in ((2, 1) if r % 2 == 0 else (1, 2)):
            replays, reads, s = timed(jobs)
            print(f"round {r} jobs={jobs}: ali206 {replays} replays, read-count group {reads}, {s:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
