"""A paper's claims on subsets of a default reproduction's traces: which traces should the quick plan run?

    python experiments/trace_subsets.py cocktail OUT ali206,sys1,msr_web ali206,nexus5,msr_web ...
    python experiments/trace_subsets.py shuffler OUT ali1,gen0 --size 2

OUT is a finished ``flashrr reproduce PAPER`` (the default plan) of Cocktail or Shuffler.  A quick
plan whose traces run as long as in the default plan has the default plan's per-trace changes, so
its claims are those of the default runs restricted to its traces.  For each comma-separated subset
(trace names as in ``runs.csv``'s ``trace`` column: Cocktail's labels ali206, sys1, ...; Shuffler's
ali0 ... gen1) this keeps the runs of those traces, computes the claims with the paper's own
``claims()`` and prints the summary counts (:func:`~flashrr.reproduce.report.claim_counts`); the
set of every trace the run has is printed first.  ``--size N`` adds every subset of N of them.
"""
from __future__ import annotations

import argparse
import itertools
from dataclasses import replace
from pathlib import Path

import pandas as pd

from flashrr.reproduce.report import claim_counts


def _paper(name: str):
    """``(claims, runs class, default plan, label)`` of a paper whose quick plan is a trace subset."""
    if name == "cocktail":
        from flashrr.papers.cocktail.claims import claims
        from flashrr.papers.cocktail.plan import CocktailRuns, Plan, label

        return claims, CocktailRuns, Plan(), label
    if name == "shuffler":
        from flashrr.papers.shuffler.claims import claims
        from flashrr.papers.shuffler.plan import Plan, Runs

        return claims, Runs, Plan(), str
    raise ValueError(f"paper: expected cocktail or shuffler, got {name!r}")


def subset_counts(paper: str, runs: pd.DataFrame, store: Path, labels: list) -> dict:
    """The summary counts of ``paper``'s claims on the rows of ``runs`` (``runs.csv``) whose trace is
    in ``labels``."""
    claims, runs_class, plan, label = _paper(paper)
    traces = tuple(t for t in plan.traces if label(t) in labels)
    kept = runs[runs["trace"].isin(labels)]
    frames = {g: df for g, df in kept.groupby("group")}
    return claim_counts(claims(runs_class(frames, store, replace(plan, traces=traces))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paper", choices=("cocktail", "shuffler"))
    ap.add_argument("out", type=Path)
    ap.add_argument("subsets", nargs="*")
    ap.add_argument("--size", type=int, default=0, help="also every subset of this many traces")
    args = ap.parse_args(argv)
    runs = pd.read_csv(args.out / "runs.csv")
    _, _, plan, label = _paper(args.paper)
    present = set(runs["trace"])
    everything = [label(t) for t in plan.traces if label(t) in present]
    subsets = [everything] + [s.split(",") for s in args.subsets]
    if args.size:
        subsets += [list(c) for c in itertools.combinations(everything, args.size)]
    for labels in subsets:
        c = subset_counts(args.paper, runs, args.out / "store", labels)
        print(f"{'+'.join(labels)}: direction holds {c['holds']} of {c['claims']}, "
              f"within half {c['within_half']} of {c['sized']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
