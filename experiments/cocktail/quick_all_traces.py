"""Cocktail's quick plan on all ten Table II traces on a smaller device: does it track the default plan?

    python experiments/cocktail/quick_all_traces.py OUT [--chips 1] [--jobs 2]

The quick plan (three ratios, three shares, the occupancy group on ali206, no read-count group) with
every trace of the default plan, on ``--chips`` chips of one channel (4 planes each, Table I's dies
and planes; the default plan has 2 chips, 8 planes).  Lengths and arrival factors are calibrated as
in any plan: ali206's RR target is the paper's 28,507 scaled to the planes, so fewer planes give
shorter runs.  Writes a full reproduction into OUT and prints the summary counts
(:func:`flashrr.reproduce.report.claim_counts`) and the wall time.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from flashrr.papers.cocktail.plan import TRACES
from flashrr.reproduce import paper_named
from flashrr.reproduce.report import claim_counts
from flashrr.reproduce.runner import reproduce


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--chips", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    paper = paper_named("cocktail")
    plan = paper.make_plan(quick=True, traces=TRACES, chips_per_channel=args.chips)
    print(f"{plan.planes()} planes; ali206's RR target {plan.rr_target('alibaba_206'):,}")
    t = time.perf_counter()
    reproduce(paper, args.out, plan=plan, jobs=args.jobs, progress=False)
    print(claim_counts(pd.read_csv(args.out / "claims.csv")), f"{time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
