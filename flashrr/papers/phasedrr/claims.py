"""The PhasedRR paper's headline claims, checked against a reproduction.

A change claim compares PhasedRR with a counterpart on one metric: flashrr's
value is the per-trace relative change ``PhasedRR / X - 1`` in %, averaged over
the plan's traces ("on average", guide §5 [A18]; ``min`` for "up to").  The
abstract's and conclusion's "on average" numbers are means of the three
per-counterpart means, computed the same way here.  Other rows are values with
a bound (memory, time share), pooled accuracies (Σ hot / Σ identified over
traces) or qualitative statements turned into a share of traces.  ``holds`` and
``magnitude`` are as in :mod:`flashrr.reproduce.claims`; rows that report a
value without a direction to check have ``holds = "-"``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce.claims import CLAIM_COLUMNS as COLUMNS
from ...reproduce.claims import change_row, claims_head, claims_markdown, holds, reduce_changes, value_row
from ...reproduce.sweep_runs import relative_change
from .figures import ACCURACY_CLASSES, accuracy, overhead
from .plan import DEVICE, SCHEMES, WITH_OVERHEAD, WITHOUT_OVERHEAD
from .stated import CHANGE_CLAIMS, COUNTERPARTS

PAPER_ACCURACY = {"HTT": 91.4, "HTR": 68.1, "TPD": 59.2, "overall": 73.8}
PAPER_WS_KB = 80.0
PAPER_WS_SHARE_PCT = 0.11
PAPER_COUNTER_MB = 16.0
PAPER_TIME_SHARE_PCT = 0.05
PAPER_COUNTER_COST = (13.9, 62.4)
PAGE_BYTES = 8192  # the phasedrr preset's page (and cache line) size


def _main(runs) -> pd.DataFrame:
    df = runs.frame("main")
    return df[df["device"] == DEVICE] if not df.empty else df


def _changes(runs, metric: str, ref: str, exclude=()) -> pd.Series:
    traces = [t for t in runs.plan.traces if t not in exclude]
    return relative_change(_main(runs), metric, traces, "PhasedRR", ref)


def _change_rows(runs) -> list:
    rows = []
    for figure, name, metric, papers in CHANGE_CLAIMS:
        means = []
        for ref, paper in zip(COUNTERPARTS, papers):
            if not np.isfinite(paper):
                continue
            rel = _changes(runs, metric, ref)
            value = reduce_changes(rel)
            means.append((paper, value, len(rel)))
            rows.append(change_row(figure, f"{name}, PhasedRR vs {ref}", metric, "mean over traces", paper, value,
                                   "lower", len(rel)))
        if metric in ("read_latency_mean_ns", "io_latency_mean_ns", "erase_count"):
            paper = round(float(np.mean([m[0] for m in means])), 1)
            value = float(np.mean([m[1] for m in means]))
            where = {"read_latency_mean_ns": "§I, §V", "io_latency_mean_ns": "abstract", "erase_count": "§I"}[metric]
            rows.append(change_row(figure, f"{name} vs the three counterparts on average ({where})", metric,
                                   "mean of the three means", paper, value, "lower", min(m[2] for m in means)))
    rel = _changes(runs, "read_latency_mean_ns", "Baseline", exclude=("ws_1",))
    rows.append(change_row("fig05", "read latency, PhasedRR vs Baseline, without ws_1", "read_latency_mean_ns",
                           "mean over traces", -24.5, reduce_changes(rel), "lower", len(rel)))
    ups = [_changes(runs, "erase_count", ref) for ref in COUNTERPARTS]
    ups = pd.concat(ups) if any(len(u) for u in ups) else pd.Series(dtype=float)
    rows.append(change_row("fig08", "block erases, up to (§V)", "erase_count", "min over traces and counterparts",
                           -37.8, reduce_changes(ups, "min"), "lower",
                           len(set(ups.index)) if len(ups) else 0))
    for ref in ("RL-RR", "Reallocation"):
        rel = _changes(runs, "erases_gc", ref)
        rows.append(change_row("fig08", f"GC erases, PhasedRR fewer than {ref}", "erases_gc", "mean over traces",
                               np.nan, reduce_changes(rel), "lower", len(rel)))
    return rows


def _counter_cost_rows(runs) -> list:
    main, free = _main(runs), runs.frame("counters")
    if free.empty or main.empty:
        return []
    changes = []
    for scheme in ("RL-RR", "Reallocation"):
        both = pd.concat([main[main["scheme"] == scheme].assign(scheme=scheme + WITH_OVERHEAD),
                          free[free["scheme"] == scheme + WITHOUT_OVERHEAD]], ignore_index=True)
        changes.append(relative_change(both, "io_latency_mean_ns", runs.plan.traces, scheme + WITH_OVERHEAD,
                                       scheme + WITHOUT_OVERHEAD))
    ch = pd.concat(changes)
    if not len(ch):
        return []
    n = len(set(ch.index))
    return [change_row("fig02", "counters charged to DRAM cost I/O latency (smallest)", "io_latency_mean_ns",
                       "min over traces and schemes", PAPER_COUNTER_COST[0], float(ch.min()), "higher", n),
            change_row("fig02", "counters charged to DRAM cost I/O latency (largest)", "io_latency_mean_ns",
                       "max over traces and schemes", PAPER_COUNTER_COST[1], float(ch.max()), "higher", n)]


def _phasedrr_rows(runs) -> list:
    main = _main(runs)
    p = main[main["scheme"] == "PhasedRR"] if not main.empty else main
    if p.empty:
        return []
    rows = []
    acc = accuracy(p)
    n_tr = int((acc.groupby("trace")["identified"].sum() > 0).sum())
    pooled = acc.groupby("class", sort=False)[["identified", "hot"]].sum()
    for label, _, _ in ACCURACY_CLASSES:
        n, hot = pooled.loc[label, "identified"], pooled.loc[label, "hot"]
        rows.append(value_row("fig09", f"identification accuracy, {label}", f"ws_{label.lower()}_hot",
                              "pooled over traces", PAPER_ACCURACY[label], 100.0 * hot / n if n else np.nan, "%",
                              n=n_tr))
    n, hot = pooled["identified"].sum(), pooled["hot"].sum()
    rows.append(value_row("fig09", "identification accuracy, overall", "ws_*_hot", "pooled over traces",
                          PAPER_ACCURACY["overall"], 100.0 * hot / n if n else np.nan, "%", n=n_tr))
    by_class = [100.0 * pooled.loc[c, "hot"] / pooled.loc[c, "identified"] if pooled.loc[c, "identified"] else np.nan
                for c, _, _ in ACCURACY_CLASSES]
    ordered = bool(np.all(np.isfinite(by_class))) and by_class[0] >= by_class[1] >= by_class[2]
    rows.append(value_row("fig09", "accuracy ordered HTT >= HTR >= TPD", "ws_*_hot", "pooled over traces", np.nan,
                          np.nan, "order", "ordered", ordered if np.all(np.isfinite(by_class)) else "n/a", n_tr))
    per_trace = acc.groupby("trace")[["identified", "hot"]].sum()
    per_trace = per_trace[per_trace["identified"] > 0]
    if "web_0" in per_trace.index and len(per_trace) > 1:
        overall = per_trace["hot"] / per_trace["identified"]
        rows.append(value_row("fig09", "lowest accuracy on web_0", "ws_*_hot", "per trace", np.nan,
                              100.0 * float(overall["web_0"]), "% (web_0)", "lowest",
                              bool(overall["web_0"] <= overall.min()), len(per_trace)))
    ov = overhead(p)
    peak_kb = float(ov["ws_peak_kb"].max())
    rows.append(value_row("fig10", "peak working-set memory", "ws_peak_bytes", "max over traces", PAPER_WS_KB, peak_kb,
                          "KB", "below", n=len(ov)))
    base = main[main["scheme"] == "Baseline"]
    cache = float(base["cache_pages"].max()) * PAGE_BYTES if len(base) else np.nan  # DRAM without metadata
    share = 100.0 * float(ov["ws_peak_bytes"].max()) / cache if cache else np.nan
    rows.append(value_row("fig10", "peak working-set memory, share of DRAM", "ws_peak_bytes", "max over traces",
                          PAPER_WS_SHARE_PCT, share, "% of DRAM", "below",
                          holds("below", share, PAPER_WS_SHARE_PCT + 1e-9), len(ov)))
    t_share = float(ov["time_share_pct"].max())
    rows.append(value_row("fig10", "modelled time overhead, share of I/O time", "ws_classify_scans", "max over traces",
                          PAPER_TIME_SHARE_PCT, t_share, "%", "below", n=len(ov)))
    rl = main[main["scheme"] == "RL-RR"]
    if len(rl):
        mb = float(rl["policy_metadata_bytes"].max()) / (1 << 20)
        rows.append(value_row("§II", "page-counter memory (RL-RR, Reallocation)", "policy_metadata_bytes", "max",
                              PAPER_COUNTER_MB, mb, "MiB", n=int(rl["trace"].nunique())))
    return rows


def _share_rows(runs) -> list:
    rows = []
    rr = runs.table("main", "rr_episodes", DEVICE, list(SCHEMES.values()))
    if "Reallocation" in rr.columns and len(rr.columns) > 1:
        best = float((rr["Reallocation"] <= rr.drop(columns="Reallocation").min(axis=1)).mean() * 100)
        rows.append(value_row("fig06", "Reallocation has the fewest RR operations", "rr_episodes", "share of traces",
                              100.0, best, "% of traces", "most", best > 50, len(rr)))
    plan = runs.plan
    labels = [plan.delta_label(d) for d in plan.delta_values]
    lat = runs.table("sens", "io_latency_mean_ns", DEVICE, labels)
    default = plan.delta_label(plan.delta_reads)
    if default in lat.columns and len(lat.columns) > 1:
        best = float((lat[default] <= lat.min(axis=1)).mean() * 100)
        rows.append(value_row("fig04", f"default {default} gives the lowest I/O latency on most traces",
                              "io_latency_mean_ns", "share of traces", np.nan, best, "% of traces", "most", best > 50,
                              len(lat)))
    if "ws_1" in plan.traces:
        ws = _main(runs)
        ws = ws[ws["trace"] == "ws_1"] if not ws.empty else ws
        if len(ws):
            n = float(ws["rr_page_moves_all"].sum())
            rows.append(value_row("fig05", "ws_1 fits in the cache: no RR page move for any scheme",
                                  "rr_page_moves_all", "sum over schemes", 0.0, n, "pages", "zero", n=1))
    return rows


#: how the claims are read, with the paper's sentence behind each choice
DEFINITIONS = (
    "Change rows are `PhasedRR / X - 1` in % per trace, averaged over traces (Fig. 5 is normalised to Baseline per "
    "trace); `-` in holds: a value reported without a direction to check.  RR operations: blocks with at least one "
    "page moved by RR logic, early or at H (\"We define an RR operation as at least one data page of the RR block "
    "has been migrated to other available block\", §IV-C-2).  Erases: every erase, GC's and RR's (\"The metric of "
    "erase count induced by garbage collection (GC) and RR operations\", §IV-C-3).")


def claims(runs) -> pd.DataFrame:
    """One row per claim: the paper's value, flashrr's and whether the direction holds."""
    rows = _change_rows(runs) + _counter_cost_rows(runs) + _phasedrr_rows(runs) + _share_rows(runs)
    table = pd.DataFrame(rows, columns=COLUMNS)
    table.attrs["idle"] = idle_table(runs)  # written under the claims in claims.md
    return table


def idle_table(runs) -> pd.DataFrame:
    """Die idle fraction (mean over dies, mean over seeds) per trace x scheme of the main runs."""
    return runs.table("main", "die_idle_fraction_mean", DEVICE, list(SCHEMES.values()))


def to_markdown(table: pd.DataFrame, runs=None) -> str:
    """The claims table as Markdown, with a header on how it was computed (the plan of ``runs``, when
    given) and the runs' die idle fractions (``table.attrs["idle"]``, set by :func:`claims`)."""
    plan = getattr(runs, "plan", None)
    replays = None if plan is None else plan.repeat if plan.repeat is not None else \
        ", ".join(f"{t} {plan.replays_of(t)}" for t in plan.traces)
    context = None if plan is None else (
        f"Traces: {', '.join(plan.traces)}; requests per trace: {plan.n_requests or 'paper count'}; "
        f"replays: {replays}; seeds: {list(plan.seeds)}; RR threshold {plan.rr_threshold:,} reads, "
        f"Delta {plan.delta_reads}; trace parameters: {dict(plan.trace_params) or 'none'}.")
    head = claims_head("PhasedRR (MSST 2024)", context, DEFINITIONS)
    md = claims_markdown(table, head)
    idle = table.attrs.get("idle")
    if idle is not None and not idle.empty:
        lines = ["## Die idle fraction of every run (mean over dies)", "",
                 "| trace | " + " | ".join(idle.columns) + " |", "|---|" + "---:|" * len(idle.columns)]
        lines += [f"| {t} | " + " | ".join(f"{v:.3f}" for v in r) + " |" for t, r in idle.iterrows()]
        md += "\n" + "\n".join(lines) + "\n"
    return md
