"""The Shuffler paper's headline claims, checked against a reproduction.

A claim compares a scheme with a reference on one metric.  flashrr's value is
the relative change ``x / ref - 1`` in %, computed per trace and then
aggregated over traces the way the paper words it: ``mean`` ("reduces ... by
14.5%"), ``min`` ("up to 13.9%" for a reduction) or ``max`` ("rising by up to
14.9%").  ``holds`` says whether flashrr's value points the paper's way:

* ``lower``: the change is negative;
* ``higher``: the change is positive;
* ``parity``: the change is within ``PARITY_TOL_PCT`` (1%);
* ``below``: a share (%) below the paper's bound;
* ``zero``: a count that must be 0 (Page has no cache left at 32 MB).

``magnitude`` then says whether a change in the right direction is ``weaker``
than half the paper's, ``similar`` (half to twice) or ``stronger``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce import sweep_runs
from ...reproduce.claims import CLAIM_COLUMNS as COLUMNS
from ...reproduce.claims import (PARITY_TOL_PCT, Claim, change_row, claims_head, claims_markdown, reduce_changes,
                                 value_row)
from .plan import SCHEMES


def _claims() -> list:
    dev = {"device": "shuffler"}  # group "main": 4-block superblocks, 64 MB cache
    c = [Claim("fig05", "RR count, Shuffler vs Baseline", "rr_count", "Shuffler", "Baseline", -14.5, **dev),
         Claim("fig05", "RR count, Page vs Baseline", "rr_count", "Page", "Baseline", -7.8, **dev)]
    for ref, v in (("Baseline", -12.9), ("Page", -11.9), ("Page-8", -5.9), ("Page-64", -4.5)):
        c.append(Claim("fig10", f"read latency, Shuffler vs {ref}", "read_latency_mean_ns", "Shuffler", ref, v, **dev))
    c.append(Claim("fig08", "WAF, Shuffler vs Baseline (mean)", "waf", "Shuffler", "Baseline", -5.8, **dev))
    for ref in ("Baseline", "Page"):
        c.append(Claim("fig08", f"WAF, Shuffler vs {ref} (up to)", "waf", "Shuffler", ref, -13.9, agg="min", **dev))
    for ref, v in (("Baseline", -17.3), ("Page", -9.3), ("Page-8", -8.5), ("Page-64", -7.3)):
        c.append(Claim("fig13", f"p99.99 I/O latency, Shuffler vs {ref}", "io_latency_p9999_ns", "Shuffler", ref, v,
                       **dev))
    c.append(Claim("fig14", "user flash transactions, Shuffler vs Baseline (parity)", "user_flash_transactions",
                   "Shuffler", "Baseline", 0.0, "parity", **dev))
    c.append(Claim("fig14", "user flash transactions, Page vs Baseline (Page worst)", "user_flash_transactions",
                   "Page", "Baseline", np.nan, "higher", **dev))
    c.append(Claim("fig12", "read cache hit ratio, Baseline vs Shuffler (same)", "cache_read_hit_ratio", "Baseline",
                   "Shuffler", 0.0, "parity", **dev))
    for s, v in (("Page", -24.5), ("Page-8", -3.1)):
        c.append(Claim("fig12", f"read cache hit ratio, {s} vs Shuffler", "cache_read_hit_ratio", s, "Shuffler", v,
                       **dev))
    for metric, name, vals in (("rr_count", "RR count", (-9.1, -7.5, -2.9, -1.4)),
                               ("read_latency_mean_ns", "read latency", (-10.4, -8.4, -2.3, -1.2))):
        for ref, v in zip(("Baseline", "Page", "Page-8", "Page-64"), vals):
            c.append(Claim("fig15", f"32-block SB: {name}, Shuffler vs {ref}", metric, "Shuffler", ref, v,
                           group="sb32", device="shuffler-32"))
    # group "fig01": Baseline with block management against 4-block superblocks (Runs.management_frame)
    c.append(Claim("fig01", "read latency, superblock vs block management (more than 14.5% better)",
                   "read_latency_mean_ns", "Superblock", "Block", -14.5, group="fig01"))
    c.append(Claim("fig01", "WAF, superblock vs block management (up to +14.9%)", "waf", "Superblock", "Block", 14.9,
                   "higher", "max", group="fig01"))
    return c


CLAIMS = _claims()


def relative_change(runs, claim: Claim) -> pd.Series:
    """Per-trace ``x / ref - 1`` in % (traces where either is missing or ref is 0 are dropped)."""
    df = runs.management_frame() if claim.group == "fig01" else runs.frame(claim.group)
    if claim.device and not df.empty:
        df = df[df["device"] == claim.device]
    return sweep_runs.relative_change(df, claim.metric, runs.plan.traces, claim.scheme, claim.ref)


def _special_rows(runs) -> list:
    rows = []
    cache = runs.frame("cache")
    dev32 = "shuffler-32MB"
    if not cache.empty and dev32 in set(cache["device"]):
        page = cache[(cache["device"] == dev32) & (cache["policy_name"] == "page")]
        if len(page):
            rows.append(value_row("fig16", "Page has no data cache left with a 32 MB cache", "cache_pages", "max",
                                  0.0, float(page["cache_pages"].max()), "pages", "zero",
                                  n=int(page["trace"].nunique())))
    sb32 = runs.frame("sb32")
    if not sb32.empty:
        s = sb32[sb32["policy_name"] == "shuffler"]
        if len(s):
            total = s["io_latency_mean_ns"] * (s["reads"] + s["writes"]) / 1e9
            share = float((100 * s["policy_time_s"] / total.where(total > 0)).mean())
            rows.append(value_row("fig19", "time in Shuffler's code, share of total I/O response time (32-block SB)",
                                  "policy_time_s", "mean", 0.043, share, "%", "below", n=int(s["trace"].nunique())))
    main = runs.frame("main")
    if not main.empty:
        t = runs.table("main", "erase_count", "shuffler", list(SCHEMES.values()))
        if "Shuffler" in t.columns and len(t.columns) > 1:
            best = (t["Shuffler"] <= t.drop(columns="Shuffler").min(axis=1)).mean() * 100
            rows.append(value_row("fig09", "Shuffler has the fewest block erases on every trace", "erase_count",
                                  "share of traces", 100.0, float(best), "% of traces", "all", bool(best == 100.0),
                                  len(t)))
    return rows


def claims(runs) -> pd.DataFrame:
    """One row per claim: the paper's value, flashrr's and whether the direction holds."""
    rows = []
    for c in CLAIMS:
        rel = relative_change(runs, c)
        rows.append(change_row(c.figure, c.text, c.metric, f"{c.agg} over traces", c.paper_pct,
                               reduce_changes(rel, c.agg), c.expect, len(rel)))
    return pd.DataFrame(rows + _special_rows(runs), columns=COLUMNS)


def to_markdown(table: pd.DataFrame, runs=None) -> str:
    """The claims table as Markdown, with a header on how it was computed (the plan of ``runs``, when given)."""
    plan = getattr(runs, "plan", None)
    context = None if plan is None else (f"Traces: {', '.join(plan.traces)}; requests per trace: "
                                         f"{plan.n_requests or 'paper count'}; replays: {plan.repeat}; "
                                         f"seeds: {list(plan.seeds)}.")
    return claims_markdown(table, claims_head(
        "Shuffler (TOS 2026)", context, "Values are relative changes `x / ref - 1` in % per trace, aggregated over "
        f"traces as stated; `parity` holds within ±{PARITY_TOL_PCT:g}%."))
