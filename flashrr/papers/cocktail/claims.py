"""The Cocktail paper's headline claims, checked against a reproduction.

flashrr's value is the relative change ``x / ref - 1`` in %, per trace, averaged
over the traces (the paper's figures are normalised per trace, so "by an average
of" reads as the mean of per-trace changes); the ratio of sums is given as a
second row for the three count claims.  The abstract's "compared with existing
schemes" numbers are the vs-Baseline column of §V, and are labelled so.  Both
readings of where GC pages go (A1) are checked: ``Cocktail`` (GC pages through
the pool) and ``Cocktail (GC separate)``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce.claims import CLAIM_COLUMNS as COLUMNS
from ...reproduce.claims import Claim, change_row, claims_head, claims_markdown, reduce_changes, value_row
from .plan import MAIN, READS_GROUP, SCHEMES, label


def _claims() -> list:
    c = []
    for scheme in ("Cocktail", SCHEMES["cocktail-separate"]):
        for fig, metric, name, vals in (
                ("fig10", "rr_count", "RR count", (-40.77, -36.06, -21.75)),
                ("fig13", "gc_count", "GC count", (-12.29, -16.21, -22.40)),
                ("fig14", "pages_moved_per_erase", "write amplification (pages moved per erase)",
                 (-49.57, -45.99, -29.93))):
            for ref, v in zip(("Baseline", "redFTL", "IPR"), vals):
                c.append(Claim(fig, f"{name}, {scheme} vs {ref}", metric, scheme, ref, v))
            c.append(Claim(fig, f"{name}, {scheme} vs Baseline (ratio of sums)", metric, scheme, "Baseline",
                           vals[0], agg="sum"))
        c.append(Claim("fig11", f"avg response time, {scheme} vs Baseline (abstract)", "io_latency_mean_ns",
                       scheme, "Baseline", -10.82))
        c.append(Claim("fig12", f"p99 response time, {scheme} vs Baseline (abstract)", "io_latency_p99_ns",
                       scheme, "Baseline", -5.40))
    return c


CLAIMS = _claims()


def relative_change(runs, claim: Claim) -> tuple:
    """(per-trace changes in %, ratio-of-sums change in %) of ``claim.scheme`` vs ``claim.ref``."""
    t = runs.table("main", claim.metric, schemes=[claim.scheme, claim.ref])
    if t.empty or claim.scheme not in t.columns or claim.ref not in t.columns:
        return pd.Series(dtype=float), np.nan
    t = t.dropna()
    ref = t[claim.ref].where(t[claim.ref] != 0)
    per = (100.0 * (t[claim.scheme] / ref - 1.0)).dropna()
    total = float(t[claim.ref].sum())
    return per, (100.0 * (float(t[claim.scheme].sum()) / total - 1.0) if total else np.nan)


def _special_rows(runs) -> list:
    rows = []
    ratio = runs.table("ratio", "rr_count")
    if not ratio.empty and "ratio=0.5" in ratio.columns:
        share = float(100.0 * (ratio["ratio=0.5"] <= ratio.min(axis=1)).mean())
        rows.append(value_row("fig08", "ratio 0.5 gives the fewest RRs (share of traces)", "rr_count",
                              "share of traces", np.nan, share, "% of traces", "most", bool(share > 50.0), len(ratio)))
    main = runs.table("main", "rr_count", schemes=MAIN)
    if not main.empty and "Cocktail" in main.columns:
        share = float(100.0 * (main["Cocktail"] <= main.drop(columns="Cocktail").min(axis=1)).mean())
        rows.append(value_row("fig10", "Cocktail has the fewest RRs of the four schemes (share of traces)",
                              "rr_count", "share of traces", 80.0, share, "% of traces", "most", bool(share > 50.0),
                              len(main)))
    return rows


def claims(runs) -> pd.DataFrame:
    """One row per claim: the paper's value, flashrr's and whether the direction holds."""
    rows = []
    for c in CLAIMS:
        per, of_sums = relative_change(runs, c)
        value = of_sums if c.agg == "sum" else reduce_changes(per)
        rows.append(change_row(c.figure, c.text, c.metric, "ratio of sums" if c.agg == "sum" else "mean over traces",
                               c.paper_pct, value, c.expect, len(per)))
    return pd.DataFrame(rows + _special_rows(runs), columns=COLUMNS)


#: the claims the read-count group reports: those that do not depend on arrival times
READ_COUNT_METRICS = ("rr_count", "gc_count", "pages_moved_per_erase")


def read_count_claims(runs) -> pd.DataFrame:
    """The count claims (:data:`READ_COUNT_METRICS`, each scheme against each reference, per-trace mean)
    on the read-count group's runs (``runs.frame("reads")``: ali206 at the paper's read count), in the
    claims table's columns; empty when the group did not run."""
    import copy

    frame = runs.frame(READS_GROUP)
    if frame.empty:
        return pd.DataFrame(columns=COLUMNS)
    reads = copy.copy(runs)
    reads.frames = {"main": frame}
    rows = []
    for c in CLAIMS:
        if c.metric in READ_COUNT_METRICS and c.agg != "sum":
            per, _ = relative_change(reads, c)
            rows.append(change_row(c.figure, c.text, c.metric, "mean over traces", c.paper_pct, reduce_changes(per),
                                   c.expect, len(per)))
    return pd.DataFrame(rows, columns=COLUMNS)


def _read_count_markdown(runs) -> list:
    table = read_count_claims(runs)
    if table.empty:
        return []
    plan = runs.plan
    lengths = ", ".join(f"{label(t)} {n:,} requests x {plan.plays_for(t, n)} plays" for t, n in plan.read_lengths)
    frame = runs.frame(READS_GROUP)
    base = frame[frame["scheme"] == "Baseline"]
    regime = "; ".join(f"{r.trace}: {r.rr_count:,.0f} RRs in {r.reads:,.0f} read requests "
                       f"({r.rr_count * 1e6 / r.reads:.1f} per million), {r.gc_count:,.0f} GCs"
                       for r in base.itertuples() if r.reads)
    holds = int(table["holds"].astype(str).eq("True").sum())
    lines = ["## Count claims at the paper's read count", "",
             f"Baseline's 28,507 RRs came from more than 2.8 billion read requests on ali206 (§IV-B). The group "
             f"plays the twin generated at the request count that gives the paper's RR count at the paper's read "
             f"count, both scaled to the plan's planes ({lengths}; read_lengths.csv), at the fixed arrival "
             f"factor. Baseline: {regime}. Direction holds for {holds} of {len(table)}.", "",
             "| claim | paper | flashrr | holds | magnitude |", "|---|---:|---:|---|---|"]
    for r in table.itertuples(index=False):
        v = "n/a" if not np.isfinite(r.flashrr_value) else f"{r.flashrr_value:+.2f}"
        lines.append(f"| {r.claim} | {r.paper_value:+.2f} | {v} | {r.holds} | {r.magnitude} |")
    return lines + [""]


def to_markdown(table: pd.DataFrame, runs=None) -> str:
    """The claims table as Markdown, with a header naming the plan of ``runs`` (with its calibrated
    arrival factors), when given."""
    plan = getattr(runs, "plan", None)
    context = []
    if plan is not None:
        context.append(f"Traces: {', '.join(plan.traces)}; requests generated per trace: {plan.n_requests:,} (then "
                       f"Table II's RAF and repeats{'' if plan.repeat is None else f', repeat {plan.repeat}'}); "
                       f"RAF copies: {plan.spacing}; seeds: {list(plan.seeds)}; device: {plan.device_fields()}.")
        if plan.replays:
            context.append("Multiples of Table II's repeat counts (lengths.csv: ali206's from Baseline's RR count, "
                           "the others the same requests after RAF and repeats): "
                           + ", ".join(f"{t} x{m}" for t, m in plan.replays) + ".")
        if plan.scales:
            others = (f"its mean read wait {plan.target_read_wait:g} of its unloaded read latency"
                      if plan.target_read_wait is not None else f"its busiest die busy {plan.target_busy:g} of the run")
            context.append(f"Arrival time factors (calibration.csv; Baseline's retry time half its mean response time "
                           f"on ali206, sys1 and sys2, {others} on the others): "
                           + ", ".join(f"{t} x{f:.4g}" for t, f in plan.scales) + ".")
    text = claims_markdown(table, claims_head("Cocktail (TCAD 2023)", context, DEFINITIONS))
    extra = _read_count_markdown(runs) if runs is not None and hasattr(runs, "frame") else []
    return text.rstrip("\n") + "\n\n" + "\n".join(extra) if extra else text


#: how the claims are read, with the paper's sentence behind each choice
DEFINITIONS = (
    "Values are relative changes `x / ref - 1` in %, per trace and averaged over traces unless the row says ratio "
    "of sums: the figures are normalised per trace and the text reduces them \"by an average of\" (abstract). "
    "RR count: Baseline's and each scheme's RRs (Fig. 10, \"normalized RR count\"). Write amplification: pages "
    "moved per erase, from \"the average number of transferred pages during erasure\" (§V-C). GC count: GC "
    "migrations (Fig. 13). Response time: the mean and p99 over all requests (§V-B).")
