"""Overloaded runs in a paper's claims table.

A run is overloaded when its busiest die is busy more than
:data:`~flashrr.reproduce.plots.BUSY_LIMIT` of the run (``1 -
die_idle_fraction_min``): its response times measure queueing, not the
scheme.  :func:`overloaded_runs` lists them from a reproduction's tidy runs;
:func:`mark_claims` adds the column :data:`COLUMN` to a claims table naming,
for each claim, the overloaded runs of the schemes the claim names (from the
groups its figure is drawn from, or every group when the claim's figure is not
a figure of the paper).  The claims' values are unchanged.
"""
from __future__ import annotations

import re

import pandas as pd

from .plots import overloaded

COLUMN = "overloaded"


def overloaded_runs(frames: dict) -> pd.DataFrame:
    """The overloaded runs of ``frames`` (group -> tidy runs with ``trace`` and
    ``scheme``): one row per group, trace and scheme, with ``busy`` (the largest
    busiest-die share over the seeds)."""
    rows = []
    for group, df in frames.items():
        if df.empty or "die_idle_fraction_min" not in df.columns:
            continue
        hit = df[overloaded(df["die_idle_fraction_min"])]
        for (trace, scheme), sub in hit.groupby(["trace", "scheme"], sort=False):
            rows.append({"group": group, "trace": trace, "scheme": scheme,
                         "busy": 1.0 - float(sub["die_idle_fraction_min"].min())})
    return pd.DataFrame(rows, columns=["group", "trace", "scheme", "busy"])


def schemes_named(text: str, schemes) -> set:
    """The schemes of ``schemes`` that ``text`` names as whole words, a longer name
    winning over a shorter one inside it (``Cocktail (GC separate)`` is not ``Cocktail``)."""
    taken: list = []
    found = set()
    for s in sorted(set(schemes), key=len, reverse=True):
        for m in re.finditer(r"(?<![\w-])" + re.escape(s) + r"(?![\w-])", text):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                taken.append(m.span())
                found.add(s)
    return found


def mark_claims(table: pd.DataFrame, runs: pd.DataFrame, figure_groups: dict) -> pd.DataFrame:
    """``table`` with :data:`COLUMN`: per claim, the overloaded runs (``scheme on trace``,
    with ``(group)`` outside group ``main``; ``; ``-separated, empty when none) of ``runs`` (:func:`overloaded_runs`) whose scheme
    the claim names, in the groups ``figure_groups[claim's figure]`` (all groups when
    the figure is not there)."""
    marks = []
    for r in table.itertuples(index=False):
        groups = figure_groups.get(r.figure)
        sub = runs if not groups else runs[runs["group"].isin(groups)]
        named = schemes_named(str(r.claim), sub["scheme"])
        hit = sub[sub["scheme"].isin(named)]
        marks.append("; ".join(dict.fromkeys(f"{s} on {t}" + ("" if g == "main" else f" ({g})")
                                             for g, s, t in zip(hit["group"], hit["scheme"], hit["trace"]))))
    return table.assign(**{COLUMN: marks})
