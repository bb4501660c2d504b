"""The HotR paper's headline claims (guide §5), checked against a reproduction.

Two kinds of rows:

* relative changes ``x / ref - 1`` in %, per trace, aggregated over traces as
  the paper words them (``mean``, or ``min`` for "up to" a reduction): Figs. 5,
  7, 8 and 9;
* shares in % (blocked and redirected reads, conflicts avoided, mixed pages),
  averaged over traces.

``holds`` uses :func:`flashrr.reproduce.claims.holds` (``lower``: < 0,
``higher``: > 0, ``below``: under the paper's bound); ``magnitude`` compares a
change's size with the paper's.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce.claims import CLAIM_COLUMNS as COLUMNS
from ...reproduce.claims import change_row, claims_head, claims_markdown, reduce_changes, value_row
from .figures import cost_latency, degradation, page_classes, speedups, tail_table
from .stated import CHANGES



def _table(runs, kind: str) -> pd.DataFrame:
    if kind == "rt":
        return runs.table("io_latency_mean_ns")
    if kind == "rt_slc":
        return runs.table("io_latency_mean_ns", group="flash", flash="slc")
    if kind == "clp":
        return cost_latency(runs)
    if kind == "p99":
        return tail_table(runs).pivot_table(index="trace", columns="scheme", values="p99", sort=False)
    return speedups(runs).pivot_table(index="trace", columns="flash", values="speedup", sort=False)


def _shares(runs) -> list:
    """Share rows: (figure, text, paper %, ours %, expect, aggregate, n)."""
    rows = []
    blocked = runs.table("blocked_share", schemes=["Baseline"])
    if not blocked.empty:
        b = 100 * blocked["Baseline"]
        rows.append(("fig01b", "reads blocked by programs in Baseline (time scale calibrated to it)", 33.0,
                     float(b.mean()), "higher", "mean", len(b)))
        rows.append(("fig01b", "reads blocked in Baseline, largest trace", 55.9, float(b.max()), "higher", "max",
                     len(b)))
    try:
        deg = 100 * degradation(runs)
    except ValueError:
        deg = pd.DataFrame()
    if not deg.empty:
        for col, how in (("vs_optimal", "(RT_b - RT_opt) / RT_opt"), ("vs_baseline", "(RT_b - RT_opt) / RT_b")):
            rows.append(("fig01b", f"Baseline degradation vs Optimal, {how}", 42.8, float(deg[col].mean()),
                         "higher", "mean", len(deg)))
            rows.append(("fig01b", f"Baseline degradation vs Optimal, {how}, largest", 74.6, float(deg[col].max()),
                         "higher", "max", len(deg)))
    red = runs.table("redirected_share", schemes=["HotR"])
    if not red.empty:
        r = 100 * red["HotR"]
        rows.append(("fig06", "reads redirected to the staging space by HotR", 17.8, float(r.mean()), "higher",
                     "mean", len(r)))
        hb = runs.table("blocked_reads", schemes=["HotR"])["HotR"]
        hr = runs.table("redirected_reads", schemes=["HotR"])["HotR"]
        avoid = 100 * (hr / hb.where(hb > 0)).dropna()
        rows.append(("sec4b", "conflicted reads avoided by HotR (redirected / blocked, HotR run)", 63.0,
                     float(avoid.mean()) if len(avoid) else np.nan, "higher", "mean", len(avoid)))
    rails = runs.table("redirected_share", schemes=["Rails"])
    if not rails.empty and not blocked.empty:
        more = 100 * (rails["Rails"] - blocked["Baseline"])
        rows.append(("fig06", "Rails redirects more reads than Baseline blocks (difference, points)", np.nan,
                     float(more.mean()), "higher", "mean", len(more)))
    pc = page_classes(runs)
    rows.append(("fig01c", "mixed pages (share of touched pages)", 9.6, float(100 * pc["MIX"].mean()), "below",
                 "mean", len(pc)))
    return rows


def claims(runs) -> pd.DataFrame:
    rows = []
    cache: dict = {}
    for c in CHANGES:
        try:
            t = cache[c.metric] if c.metric in cache else cache.setdefault(c.metric, _table(runs, c.metric))
        except ValueError:
            t = pd.DataFrame()
        if t.empty or c.scheme not in t.columns or c.ref not in t.columns:
            rel = pd.Series(dtype=float)
        else:
            rel = (100.0 * (t[c.scheme] / t[c.ref].where(t[c.ref] != 0) - 1.0)).dropna()
        rows.append(change_row(c.figure, c.text, c.metric, f"{c.agg} over traces", c.paper_pct,
                               reduce_changes(rel, c.agg), c.expect, len(rel)))
    for fig, text, paper, value, expect, agg, n in _shares(runs):
        rows.append(value_row(fig, text, "share", f"{agg} over traces", paper, value, "%", expect, n=n,
                              sized=expect != "below"))
    return pd.DataFrame(rows, columns=COLUMNS)


def to_markdown(table: pd.DataFrame, runs=None) -> str:
    context = None
    if runs is not None:
        p = runs.plan
        scales = ", ".join(f"{t} x{f:g}" for t, f in runs.scales.items())
        context = (f"Traces: {', '.join(p.traces)} (synthetic Table III presets); requests per trace: "
                   f"{p.n_requests or 'Table III count'}; time scales (calibrated so Baseline blocks "
                   f"{100 * p.target_blocked:g}% of reads on the first {p.calibration_requests} requests): {scales}.")
    return claims_markdown(table, claims_head(
        "HotR (DATE 2019)", context, "`% change` rows are `x / ref - 1` per trace, aggregated over traces; `%` rows "
        "are shares. Cost-latency product = cost factor (Baseline 1.00, HotR 1.10, Rails 2.00, TTFlash 1.25) x "
        "response time / Baseline's."))
