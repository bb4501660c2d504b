"""The figures of the HotR paper, from the tidy runs of :mod:`flashrr.papers.hotr.plan`.

Each figure function takes a :class:`~flashrr.papers.hotr.plan.Runs` and returns
``(matplotlib figure, data DataFrame)``.  Response time is the mean over all
I/Os (``io_latency_mean_ns``), as in the paper.  A figure whose data is missing
raises :class:`FigureDataError`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce import plots
from ...reproduce.figures import Figure, need, overload_flags, paper_marks, with_paper
from ...result import hist_percentile
from .plan import FLASH, GROUPS, SCHEMES
from .stated import CHANGES

ALL = list(SCHEMES.values())
PERCENTILES = (95, 97, 98, 99, 99.5)
RI_WI_FRACTION = 0.9  # a page is read- (write-) intensive when >= 90% of its accesses are reads (writes)


OFF_SCALE = 2.5  # normalised bars above this are cut and labelled with their value (TTFlash)


def _clip(ax, table: pd.DataFrame, cap: float = OFF_SCALE) -> None:
    """Cut the y axis at ``cap`` and print the value of every bar above it (bar layout of
    :func:`plots.normalized_bars`)."""
    vals = table.to_numpy(dtype=float)
    if ax.get_yscale() == "log" or not np.isfinite(vals).any() or np.nanmax(vals) <= cap:
        return
    ax.set_ylim(0, cap)
    width = 0.8 / max(table.shape[1], 1)
    for i in range(table.shape[1]):
        for j in range(table.shape[0]):
            v = vals[j, i]
            if np.isfinite(v) and v > cap:
                ax.text(j - 0.4 + width * (i + 0.5), cap * 0.86, f"{v:.3g}", rotation=90, ha="center", va="top",
                        fontsize=6)


def _long(t: pd.DataFrame, name: str, over: pd.DataFrame | None = None, marks: dict | None = None) -> pd.DataFrame:
    long = t.reset_index().melt(id_vars="trace", var_name="scheme", value_name=name)
    if over is not None:
        long["overloaded"] = over.reindex_like(t).reset_index().melt(id_vars="trace")["value"].to_numpy()
    return long if marks is None else with_paper(long, marks)


def _overloaded(runs, like: pd.DataFrame, group: str = "main", flash: str = "tlc") -> pd.DataFrame:
    """Which runs of ``group`` on ``flash`` behind ``like`` (traces x schemes) were overloaded."""
    df = runs.frame(group)
    return overload_flags(df[df["flash"] == flash] if not df.empty else df, like)


def _marks(fid: str, metric: str) -> dict:
    return paper_marks(CHANGES, fid, "Baseline", metric)


def response_time(runs) -> pd.DataFrame:
    """Mean I/O response time normalised to Baseline, traces x schemes."""
    t = runs.table("io_latency_mean_ns")
    need(not t.empty and "Baseline" in t.columns, "fig05", "no main runs with Baseline")
    return t.div(t["Baseline"], axis=0)


def cost_latency(runs) -> pd.DataFrame:
    """Cost-latency product (§IV.B): cost factor x normalised response time."""
    cost = runs.table("cost")
    return response_time(runs) * cost.reindex_like(response_time(runs))


def tail_table(runs) -> pd.DataFrame:
    """I/O latency (ns) at each of :data:`PERCENTILES`, one row per (trace, scheme)."""
    df = runs.frame("main")
    need(not df.empty and runs.store is not None, "fig08", "no main runs in a results store")
    rows = []
    for _, r in df.iterrows():
        h = runs.artifacts(r["key"]).get("hist")
        if h is None:
            continue
        io = np.asarray(h["io"])
        rows.append({"trace": r["trace"], "scheme": r["scheme"],
                     **{f"p{q:g}": hist_percentile(io, q / 100) for q in PERCENTILES}})
    need(rows, "fig08", "no latency histograms kept in the main runs")
    return pd.DataFrame(rows)


def speedups(runs) -> pd.DataFrame:
    """HotR's speedup over Baseline (RT_baseline / RT_HotR) per trace and flash type, and
    whether the Baseline or HotR run behind it was overloaded."""
    every = pd.concat([runs.frame(g) for g in GROUPS], ignore_index=True)
    rows = []
    for flash in FLASH:
        t = runs.table("io_latency_mean_ns", group="all", flash=flash, schemes=["Baseline", "HotR"])
        if t.empty or "HotR" not in t.columns:
            continue
        over = overload_flags(every[every["flash"] == flash], t).any(axis=1)
        for trace, r in t.iterrows():
            rows.append({"trace": trace, "flash": flash, "speedup": r["Baseline"] / r["HotR"],
                         "overloaded": bool(over[trace])})
    need(rows, "fig09", "no Baseline and HotR runs on the flash-type devices")
    return pd.DataFrame(rows)


def page_classes(runs) -> pd.DataFrame:
    """Per trace: shares of pages that are read-intensive (RI), write-intensive (WI) or
    mixed (MIX), by their accesses in the trace (Fig. 1(c); ``>= 90%`` counts as
    intensive), and the shares of reads / writes that hit RI / WI pages."""
    from ...simulate import resolve_source
    from .policies import request_pages

    rows = []
    for name in runs.plan.traces:
        src = resolve_source(runs.plan.trace_spec(name), runs.plan.config())
        reads, writes = [], []
        for c in src.chunks():
            wr = np.asarray(c.is_write, dtype=bool)
            pages, n = request_pages(c.offset, c.size, 4096)
            is_w = np.repeat(wr, n)
            reads.append(pages[~is_w])
            writes.append(pages[is_w])
        r, w = np.concatenate(reads), np.concatenate(writes)
        top = int(max(r.max(initial=0), w.max(initial=0))) + 1
        nr, nw = np.bincount(r, minlength=top), np.bincount(w, minlength=top)
        tot = nr + nw
        touched = tot > 0
        ri = touched & (nr >= RI_WI_FRACTION * tot)
        wi = touched & (nw >= RI_WI_FRACTION * tot)
        mix = touched & ~ri & ~wi
        n = touched.sum()
        rows.append({"trace": name, "RI": ri.sum() / n, "WI": wi.sum() / n, "MIX": mix.sum() / n,
                     "reads_on_RI": nr[ri].sum() / max(1, nr.sum()), "writes_on_WI": nw[wi].sum() / max(1, nw.sum())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ figures


def degradation(runs) -> pd.DataFrame:
    """Baseline's response time against Optimal's (Fig. 1(b)), both ways the paper's "degradation"
    can be read: ``(RT_b - RT_opt) / RT_opt`` and ``(RT_b - RT_opt) / RT_b``."""
    t = runs.table("io_latency_mean_ns", group="all", schemes=["Baseline", "Optimal"])
    need(not t.empty and {"Baseline", "Optimal"} <= set(t.columns), "fig01b", "no Baseline and Optimal runs")
    gap = t["Baseline"] - t["Optimal"]
    return pd.DataFrame({"vs_optimal": gap / t["Optimal"], "vs_baseline": gap / t["Baseline"]})


def fig01b(runs):
    t = runs.table("blocked_share", schemes=["Baseline"])
    need(not t.empty, "fig01b", "no Baseline runs")
    deg = degradation(runs)
    fig, axes = plots.figure(ncols=2, width_in=9.0)
    plots.normalized_bars(axes[0, 0], t.rename(columns={"Baseline": "Blocked"}), None, ylabel="reads blocked",
                          title="Baseline (TLC), time-scaled traces", percent=True)
    plots.normalized_bars(axes[0, 1], deg.rename(columns={"vs_optimal": "(RT_b-RT_opt)/RT_opt",
                                                          "vs_baseline": "(RT_b-RT_opt)/RT_b"}), None,
                          ylabel="degradation vs Optimal", percent=True)
    data = _long(t, "blocked_share").assign(scale_time=lambda d: d["trace"].map(runs.scales))
    return fig, data.merge(deg.reset_index(), on="trace")


def fig01c(runs):
    pc = page_classes(runs)
    fig, axes = plots.figure(width_in=6.0)
    ax = axes[0, 0]
    bottom = np.zeros(len(pc))
    for i, cls in enumerate(("RI", "WI", "MIX")):
        color, hatch = plots.style(cls, i)
        ax.bar(pc["trace"], pc[cls], bottom=bottom, label=cls, color=color, hatch=hatch, edgecolor="black",
               linewidth=0.4)
        bottom += pc[cls].to_numpy()
    ax.set_ylabel("share of pages", fontsize=8)
    ax.legend(fontsize=6, ncol=3, frameon=False)
    return fig, pc


def fig05(runs):
    norm = response_time(runs)
    over, marks = _overloaded(runs, norm), _marks("fig05", "rt")
    fig, axes = plots.figure(width_in=7.0)
    plots.normalized_bars(axes[0, 0], norm, "Baseline", runs.table("io_latency_mean_ns")["Baseline"],
                          ylabel="response time (norm.; Baseline ns)", overload=over, paper=marks)
    _clip(axes[0, 0], norm)
    return fig, _long(norm, "normalized_response_time", over, marks)


def fig06(runs):
    blocked = runs.table("blocked_share", schemes=["Baseline"])
    red = runs.table("redirected_share", schemes=["Rails", "HotR"])
    need(not blocked.empty and not red.empty, "fig06", "no Baseline, Rails or HotR runs")
    over = _overloaded(runs, pd.concat([blocked, red], axis=1)).rename(columns={"Baseline": "Blocked"})
    t = pd.concat([blocked.rename(columns={"Baseline": "Blocked"}), red], axis=1)
    fig, axes = plots.figure(width_in=7.0)
    plots.normalized_bars(axes[0, 0], t, None, ylabel="share of reads", percent=True, overload=over)
    return fig, _long(t, "share_of_reads", over)


def fig07(runs):
    clp = cost_latency(runs)
    over, marks = _overloaded(runs, clp), _marks("fig07", "clp")
    fig, axes = plots.figure(width_in=7.0)
    plots.normalized_bars(axes[0, 0], clp, "Baseline", None, ylabel="cost-latency product (norm.)", overload=over,
                          paper=marks)
    _clip(axes[0, 0], clp)
    return fig, _long(clp, "cost_latency_product", over, marks)


def fig08(runs):
    tails = tail_table(runs)
    traces = [t for t in runs.plan.traces if t in set(tails["trace"])]
    fig, axes = plots.panel_grid(len(traces), ncols=4, width_in=10.0, height_in=2.4)
    for ax, trace in zip(axes, traces):
        sub = tails[tails["trace"] == trace].set_index("scheme")
        series = {s: (list(PERCENTILES), [sub.loc[s, f"p{q:g}"] / 1e6 for q in PERCENTILES])
                  for s in ALL if s in sub.index}
        plots.lines(ax, series, xlabel="percentile", ylabel="I/O latency (ms)", title=trace)
        ax.set_yscale("log")
    axes[0].legend(fontsize=5, frameon=False)
    return fig, tails


def fig09(runs):
    sp = speedups(runs)
    fig, axes = plots.figure(width_in=6.0)
    ax = axes[0, 0]
    order = [f for f in FLASH if f in set(sp["flash"])]
    series = {}
    for trace in runs.plan.traces:
        sub = sp[sp["trace"] == trace].set_index("flash").reindex(order)
        series[trace] = (list(range(len(order))), sub["speedup"].to_numpy())
    plots.lines(ax, series, xlabel="flash type", ylabel="HotR speedup over Baseline")
    hot = sp[sp["overloaded"]]
    if len(hot):
        ax.plot([order.index(f) for f in hot["flash"]], hot["speedup"], "o", markersize=9, fillstyle="none",
                color=plots.OVERLOAD_EDGE, label=f"overloaded: a die busy > {plots.BUSY_LIMIT:.0%}\n"
                "(every flash type replays the trace at TLC's calibrated time scale)")
        for f, v, trace in zip(hot["flash"], hot["speedup"], hot["trace"]):
            ax.annotate(f"{trace}: overloaded", (order.index(f), v), textcoords="offset points", xytext=(-6, 0),
                        ha="right", va="center", fontsize=6, color=plots.OVERLOAD_EDGE)
    if plots.wide_span(sp["speedup"]):
        plots.log_axis(ax, sp["speedup"], room=2.0)
    ax.set_xticks(range(len(order)), [f.upper() for f in order])
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.6)
    ax.legend(fontsize=6, frameon=False)
    return fig, sp


FIGURES = {
    "fig01b": Figure("fig01b_blocked_reads", "HotR Fig. 1(b): reads blocked by programs, and Baseline vs Optimal",
                     ("main", "optimal"), fig01b),
    "fig01c": Figure("fig01c_page_types", "HotR Fig. 1(c): read-, write-intensive and mixed pages", (), fig01c),
    "fig05": Figure("fig05_response_time", "HotR Fig. 5: average response time (normalised to Baseline)",
                    ("main",), fig05),
    "fig06": Figure("fig06_redirected_reads", "HotR Fig. 6: blocked (Baseline) and redirected reads", ("main",),
                    fig06),
    "fig07": Figure("fig07_cost_latency", "HotR Fig. 7: cost-latency product (normalised)", ("main",), fig07),
    "fig08": Figure("fig08_tail_latency", "HotR Fig. 8: tail I/O latency", ("main",), fig08),
    "fig09": Figure("fig09_flash_types", "HotR Fig. 9: HotR speedup from SLC to QLC", ("main", "flash"), fig09),
}
