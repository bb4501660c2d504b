"""Every claim of two `flashrr reproduce all` outputs side by side, per paper (Markdown).

    python experiments/claims_before_after.py OUT_A OUT_B [--labels synth,model]

For each paper directory present in both outputs, prints the two summary
counts of each (direction holds, within half the paper's change; the rules of
:func:`flashrr.reproduce.report.claim_counts`), then one row per claim: the
paper's value, each output's value and whether it holds, and ``*`` where the
claim's "within half" standing differs.  Claims are matched on figure and
claim text; a claim found in one output only is listed with ``-`` for the
other.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd

from flashrr.reproduce.report import PAPERS, WITHIN_FRACTION, claim_counts


def _within(row, side: str) -> bool:
    paper, ours = pd.to_numeric(row["paper_value"], errors="coerce"), pd.to_numeric(row[f"value_{side}"],
                                                                                     errors="coerce")
    sized = row["expected"] in ("lower", "higher") and math.isfinite(paper) and paper != 0
    return bool(sized and math.isfinite(ours) and abs(ours - paper) <= WITHIN_FRACTION * abs(paper))


def _fmt(v) -> str:
    x = pd.to_numeric(v, errors="coerce")
    if isinstance(x, float) and math.isnan(x):
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
    return f"{x:+.1f}" if abs(x) < 1e4 else f"{x:.3g}"


def compare(a: Path, b: Path, labels: tuple[str, str]) -> str:
    out = []
    totals = {labels[0]: [0, 0, 0, 0], labels[1]: [0, 0, 0, 0]}
    for paper in PAPERS:
        fa, fb = a / paper / "claims.csv", b / paper / "claims.csv"
        if not (fa.exists() and fb.exists()):
            continue
        ta, tb = pd.read_csv(fa), pd.read_csv(fb)
        ca, cb = claim_counts(ta), claim_counts(tb)
        for lab, c in zip(labels, (ca, cb)):
            totals[lab] = [t + c[k] for t, k in zip(totals[lab], ("holds", "claims", "within_half", "sized"))]
        out.append(f"### {paper}\n")
        out.append(f"Direction holds: {ca['holds']} of {ca['claims']} ({labels[0]}), {cb['holds']} of "
                   f"{cb['claims']} ({labels[1]}). Within half the paper's change: {ca['within_half']} of "
                   f"{ca['sized']} ({labels[0]}), {cb['within_half']} of {cb['sized']} ({labels[1]}).\n")
        keys = ["figure", "claim"]
        m = ta.merge(tb, on=keys, how="outer", suffixes=("_a", "_b"), sort=False)
        out.append(f"| figure | claim | paper | {labels[0]} | holds | {labels[1]} | holds | within half moved |")
        out.append("|---|---|---|---|---|---|---|---|")
        for _, r in m.iterrows():
            row = {"paper_value": r["paper_value_a"] if pd.notna(r.get("paper_value_a")) else r["paper_value_b"],
                   "expected": r["expected_a"] if pd.notna(r.get("expected_a")) else r["expected_b"],
                   "value_a": r.get("flashrr_value_a"), "value_b": r.get("flashrr_value_b")}
            moved = _within(row, "a") != _within(row, "b")
            out.append(f"| {r['figure']} | {r['claim']} | {_fmt(row['paper_value'])} | {_fmt(row['value_a'])} | "
                       f"{r.get('holds_a', '-')} | {_fmt(row['value_b'])} | {r.get('holds_b', '-')} | "
                       f"{'*' if moved else ''} |")
        out.append("")
    head = ["| workload | direction holds | within half |", "|---|---|---|"]
    for lab, (h, n, w, s) in totals.items():
        head.append(f"| {lab} | {h} of {n} | {w} of {s} |")
    return "\n".join(head + [""] + out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--labels", default="A,B", help="two comma-separated column labels")
    args = ap.parse_args(argv)
    labels = tuple(args.labels.split(","))
    if len(labels) != 2:
        ap.error(f"--labels: expected two comma-separated labels, got {args.labels!r}")
    for d in (args.a, args.b):
        if not d.is_dir():
            ap.error(f"{d}: expected a `flashrr reproduce all` output directory")
    print(compare(args.a, args.b, labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
