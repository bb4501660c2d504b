"""A paper's claims table: one row per claim with the paper's value, flashrr's,
whether flashrr's value points the paper's way (:func:`holds`) and how large it
is next to the paper's (:func:`magnitude`).

Tables have the columns :data:`CLAIM_COLUMNS`.  :class:`Claim` is a change claim
(``scheme`` against ``ref`` on one metric, in %); a paper's ``claims`` module
lists its claims and turns each into a row with :func:`change_row` or
:func:`value_row`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

PARITY_TOL_PCT = 1.0
CLAIM_COLUMNS = ["figure", "claim", "metric", "aggregate", "paper_value", "flashrr_value", "unit", "expected",
                 "holds", "magnitude", "n_traces"]


@dataclass(frozen=True)
class Claim:
    """The paper's change of ``metric``, ``scheme`` against ``ref``, in % (NaN when
    the paper states only a direction).  ``expect``: the rule of :func:`holds`;
    ``agg``: how per-trace changes are reduced (:func:`reduce_changes`, or a
    paper's own reading such as ``sum`` for a ratio of sums); ``group`` and
    ``device``: where the runs come from (a paper that has one place ignores them)."""

    figure: str
    text: str
    metric: str
    scheme: str
    ref: str
    paper_pct: float
    expect: str = "lower"
    agg: str = "mean"
    group: str = "main"
    device: str = ""


def holds(expect: str, value: float, paper: float) -> object:
    """Whether ``value`` points the paper's way: ``lower`` (< 0), ``higher`` (> 0),
    ``parity`` (within ±PARITY_TOL_PCT), ``below`` (< the paper's bound), ``zero``;
    ``"n/a"`` without a value."""
    if value is None or not np.isfinite(value):
        return "n/a"
    return {"lower": value < 0, "higher": value > 0, "parity": abs(value) <= PARITY_TOL_PCT,
            "below": value < paper, "zero": value == 0}[expect]


def magnitude(expect: str, value: float, paper: float, holds) -> str:
    """How flashrr's value compares in size with the paper's, for a claim whose
    direction holds: ``weaker`` (< half the paper's change), ``similar`` (half to
    twice), ``stronger`` (> twice); ``opposite`` when the direction fails; ``-``
    when the claim has no size (parity, bounds, counts) or no value."""
    if holds == "n/a":
        return "-"
    if expect not in ("lower", "higher") or not np.isfinite(paper) or paper == 0:
        return "-" if holds else "opposite" if expect in ("lower", "higher") else "-"
    if not holds:
        return "opposite"
    ratio = value / paper
    return "weaker" if ratio < 0.5 else "stronger" if ratio > 2 else "similar"


def value_row(figure: str, claim: str, metric: str, aggregate: str, paper: float, value: float, unit: str,
              expected: str = "-", ok: object = None, n: int = 0, sized: bool = False,
              n_key: str = "n_traces") -> dict:
    """A claims-table row (columns :data:`CLAIM_COLUMNS`, with the count under
    ``n_key``).  ``holds`` is ``ok`` when given (a paper-specific test, such as a
    share of traces above 50%); otherwise :func:`holds` of ``expected`` (one of
    its rules), or ``"-"`` when ``expected`` is ``"-"`` (a value reported without
    a direction to check).  ``magnitude`` is :func:`magnitude` for a ``sized``
    claim (a change whose size the paper states), else ``"-"``."""
    if ok is None:
        ok = "-" if expected == "-" else holds(expected, value, paper)
    return {"figure": figure, "claim": claim, "metric": metric, "aggregate": aggregate, "paper_value": paper,
            "flashrr_value": value, "unit": unit, "expected": expected, "holds": ok,
            "magnitude": magnitude(expected, value, paper, ok) if sized else "-", n_key: n}


def change_row(figure: str, claim: str, metric: str, aggregate: str, paper: float, value: float, expect: str,
               n_traces: int, n_key: str = "n_traces") -> dict:
    """A claims-table row for a relative change in % (``holds`` and ``magnitude`` filled in)."""
    return value_row(figure, claim, metric, aggregate, paper, value, "% change", expect, n=n_traces, sized=True,
                     n_key=n_key)


def reduce_changes(changes: pd.Series, how: str = "mean") -> float:
    """Per-trace changes reduced the way the paper words the claim (``mean``, ``min``
    for "up to" a reduction, ``max``), as a float; NaN when there are none."""
    return float(getattr(changes, how)()) if len(changes) else np.nan


def format_claim_values(paper: float, value: float, unit: str) -> tuple:
    """The paper's and flashrr's value of a claim as table text: signed for a
    ``% change``, blank / ``n/a`` when missing."""
    pct = unit == "% change"
    p = "" if not np.isfinite(paper) else f"{paper:+.3g}" if pct else f"{paper:g}"
    v = "n/a" if not np.isfinite(value) else f"{value:+.2f}" if pct else f"{value:.4g}"
    return p, v


def claims_head(title: str, context, method: str) -> list:
    """The lines above a paper's claims table in ``claims.md``: ``# <title>: paper
    claims vs flashrr``, then each paragraph of ``context`` (what was run; a str, a
    list of str, or None when the plan is unknown), then ``method`` (how the values
    were computed)."""
    paragraphs = [context] if isinstance(context, str) else list(context or [])
    head = [f"# {title}: paper claims vs flashrr", ""]
    for p in paragraphs + [method]:
        head += [p, ""]
    return head


def claims_markdown(table: pd.DataFrame, head: list) -> str:
    """The claims table as Markdown under the lines ``head`` (see :func:`claims_head`),
    with a count of the claims that hold; with an ``overloaded`` column (the runs
    whose busiest die was busy over 95%, :mod:`flashrr.reproduce.overload`), a
    last column naming them."""
    over = "overloaded" in table.columns
    lines = ["| figure | claim | paper | flashrr | unit | aggregate | holds | magnitude |"
             + (" overloaded runs |" if over else ""), "|---|---|---:|---:|---|---|---|---|" + ("---|" if over else "")]
    for r in table.itertuples(index=False):
        paper, mine = format_claim_values(r.paper_value, r.flashrr_value, r.unit)
        lines.append(f"| {r.figure} | {r.claim} | {paper} | {mine} | {r.unit} | {r.aggregate} | {r.holds} "
                     f"| {r.magnitude} |" + (f" {r.overloaded if isinstance(r.overloaded, str) else ''} |"
                                             if over else ""))
    n_yes = int((table["holds"] == True).sum())  # noqa: E712  (column holds bools and "n/a")
    n_similar = int(table["magnitude"].isin(["similar", "stronger"]).sum())
    return "\n".join(list(head) + lines + ["", f"Direction holds for {n_yes} of {len(table)} claims; for "
                                           f"{n_similar} the change is at least half the paper's.", ""])


def write_claims(table: pd.DataFrame, out, markdown: str) -> list:
    """Write ``claims.csv`` and ``claims.md`` (the text ``markdown``) into ``out``."""
    out = Path(out)
    table.to_csv(out / "claims.csv", index=False)
    (out / "claims.md").write_text(markdown)
    return [out / "claims.csv", out / "claims.md"]
