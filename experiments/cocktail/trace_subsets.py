"""Cocktail's claims on subsets of a default reproduction's traces: which three traces track the ten?

    python experiments/cocktail/trace_subsets.py OUT ali206,sys1,msr_web ali206,nexus5,msr_web ...

OUT is a finished ``flashrr reproduce cocktail`` (the default plan).  A quick trace runs as long as in
the default plan, so the quick plan's per-trace changes are the default plan's and its claims are those
of the default runs restricted to its traces.  For each comma-separated subset (trace labels as in
``runs.csv``: ali206, sys1, ...) this keeps the runs of those traces, computes the claims with the
paper's own :func:`~flashrr.papers.cocktail.claims.claims` and prints the summary counts
(:func:`~flashrr.reproduce.report.claim_counts`); the full set is printed first.
"""
from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import pandas as pd

from flashrr.papers.cocktail.claims import claims
from flashrr.papers.cocktail.plan import CocktailRuns, Plan, label
from flashrr.reproduce.report import claim_counts


def subset_counts(runs: pd.DataFrame, store: Path, labels: list) -> dict:
    """The summary counts of the claims on the rows of ``runs`` (``runs.csv``) whose trace is in ``labels``."""
    traces = tuple(t for t in Plan().traces if label(t) in labels)
    kept = runs[runs["trace"].isin(labels)]
    frames = {g: df for g, df in kept.groupby("group")}
    return claim_counts(claims(CocktailRuns(frames, store, replace(Plan(), traces=traces))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("subsets", nargs="*")
    args = ap.parse_args(argv)
    runs = pd.read_csv(args.out / "runs.csv")
    everything = [label(t) for t in Plan().traces]
    for labels in [everything] + [s.split(",") for s in args.subsets]:
        c = subset_counts(runs, args.out / "store", labels)
        print(f"{'+'.join(labels)}: direction holds {c['holds']} of {c['claims']}, "
              f"within half {c['within_half']} of {c['sized']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
