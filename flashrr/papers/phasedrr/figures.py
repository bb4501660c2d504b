"""The figures of the PhasedRR paper (Figs. 2, 4-10), each from the tidy runs of
:mod:`flashrr.papers.phasedrr.plan`.

Every figure function takes a :class:`~flashrr.papers.phasedrr.plan.Runs` and
returns ``(matplotlib figure, data DataFrame)``; :meth:`Figure.make` writes
``figNN_<name>.png``, ``.pdf`` and ``.csv``.  Bars are normalised to Baseline
(Figs. 5-8), to the smallest Delta (Fig. 4) or to the same scheme without the
counter charge (Fig. 2), with the reference's absolute value under each trace
name.  Latencies are in ns in the data and in µs on the axes.

A figure whose data is missing raises
:class:`~flashrr.reproduce.figures.FigureDataError` naming the figure and what it
lacked; it is never skipped or drawn empty.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce import plots
from ...reproduce.figures import Figure, bar_figure, need, overload_table, paper_marks
from .plan import DEVICE, SCHEMES, WITH_OVERHEAD, WITHOUT_OVERHEAD
from .stated import PAPER_CHANGES

ALL = list(SCHEMES.values())
ARM_NS_PER_OP = 10.0
"""Modelled cost of one 64-bit word operation on the paper's ARM A7 at 800 MHz, ns [A20]."""
PAGES_PER_BLOCK = 256
ACCURACY_CLASSES = (("HTT", "ws_htt", "ws_htt_hot"), ("HTR", "ws_htr", "ws_htr_hot"), ("TPD", "ws_tpd", "ws_tpd_hot"))


def _bars(runs, fid, metrics, ylabels, titles=None, scale=None, with_real=False):
    marks = {m: paper_marks(PAPER_CHANGES, fid, "Baseline", m) for m in metrics}
    return bar_figure(runs, "main", DEVICE, metrics, ylabels, "Baseline", ALL, titles, scale, with_real, marks)


def fig02(runs):
    """Average I/O latency of RL-RR and Reallocation with their page counters
    charged to the DRAM cache (W-O) and without (W/o-O), normalised to W/o-O, on
    the read-intensive traces."""
    main, free = runs.frame("main"), runs.frame("counters")
    need(not free.empty, "fig02", "no runs of group 'counters' (RL-RR/Reallocation without the counter charge)")
    fig, axes = plots.figure(ncols=2, width_in=10.0, height_in=2.8)
    frames = []
    traces = list(dict.fromkeys(free["trace"]))
    for ax, scheme in zip(axes[0], ("RL-RR", "Reallocation")):
        with_o = main[main["scheme"] == scheme].assign(scheme=scheme + WITH_OVERHEAD)
        both = pd.concat([with_o, free[free["scheme"] == scheme + WITHOUT_OVERHEAD]], ignore_index=True)
        order = [scheme + WITHOUT_OVERHEAD, scheme + WITH_OVERHEAD]
        t = both.pivot_table(index="trace", columns="scheme", values="io_latency_mean_ns", aggfunc="mean")
        t = t.reindex(index=[x for x in traces if x in t.index], columns=[c for c in order if c in t.columns])
        need(len(t.columns) == 2, "fig02", f"{scheme} needs runs with and without the counter charge")
        ref = t[order[0]]
        norm = t.div(ref.where(ref != 0), axis=0)
        plots.normalized_bars(ax, norm, order[0], ref / 1e3, ylabel="I/O latency (norm. to W/o-O)",
                              title=f"{scheme} (W/o-O µs under names)")
        long = t.reset_index().melt(id_vars="trace", var_name="series", value_name="io_latency_mean_ns")
        long["normalized"] = norm.reset_index().melt(id_vars="trace")["value"].to_numpy()
        frames.append(long.assign(scheme=scheme))
    return fig, pd.concat(frames, ignore_index=True)


def fig04(runs):
    """Sensitivity to Delta: (a) average I/O latency, (b) RR page moves (idle +
    forced + mandatory), normalised to the smallest Delta."""
    plan = runs.plan
    labels = [plan.delta_label(d) for d in plan.delta_values]
    need(not runs.frame("sens").empty, "fig04", "no runs of group 'sens'")
    return bar_figure(runs, "sens", DEVICE, ["io_latency_mean_ns", "rr_page_moves_all"],
                      ["I/O latency (norm.)", "RR page moves (norm.)"], labels[0], labels,
                      [f"(a) avg I/O latency ({labels[0]}, µs under names)", f"(b) RR page moves ({labels[0]})"],
                      scale=[1e3, 1])


def fig05(runs):
    """Average read and I/O latency, normalised to Baseline; the real samples
    (group ``real``) follow the traces.  The claims use the traces only."""
    return _bars(runs, "fig05", ["read_latency_mean_ns", "io_latency_mean_ns"],
                 ["read latency (norm.)", "I/O latency (norm.)"],
                 ["(a) average read latency (Baseline µs under names)", "(b) average I/O latency (Baseline µs)"],
                 scale=[1e3, 1e3], with_real=True)


def fig06(runs):
    return _bars(runs, "fig06", ["rr_episodes"], ["RR operations (norm.)"],
                 ["blocks with at least one page moved by RR logic (Baseline count under names)"])


def fig07(runs):
    return _bars(runs, "fig07", ["rr_page_moves_all"], ["RR page moves (norm.)"],
                 ["idle + forced + mandatory RR page moves (Baseline count under names)"])


def fig08(runs):
    """Block erases by cause (GC below, RR on top), normalised to Baseline's total."""
    gc = runs.table("main", "erases_gc", DEVICE, ALL)
    rr = runs.table("main", "erases_rr", DEVICE, ALL)
    need(not gc.empty and "Baseline" in gc.columns, "fig08", "no Baseline runs in group 'main'")
    total = gc["Baseline"] + rr["Baseline"]
    ref = total.where(total != 0)
    fig, axes = plots.figure(width_in=8.0, height_in=3.0)
    over = overload_table(runs, "main", DEVICE, gc)
    plots.stacked_bars(axes[0, 0], {"GC": gc.div(ref, axis=0), "RR": rr.div(ref, axis=0)}, absolute=total,
                       ylabel="erases (norm. to Baseline total)",
                       title="dark: GC erases, light: RR erases (Baseline total under names)", overload=over)
    data = pd.concat([gc.reset_index().melt(id_vars="trace", var_name="scheme", value_name="erases_gc"),
                      rr.reset_index().melt(id_vars="trace", var_name="scheme", value_name="erases_rr")
                      .drop(columns=["trace", "scheme"])], axis=1)
    data["normalized_total"] = ((data["erases_gc"] + data["erases_rr"])
                                / data["trace"].map(ref).to_numpy())
    data["overloaded"] = over.reset_index().melt(id_vars="trace")["value"].to_numpy()
    return fig, data


def accuracy(df: pd.DataFrame) -> pd.DataFrame:
    """Identification accuracy (% truly hot among identified) per trace and class,
    from PhasedRR runs' ``ws_<cls>`` / ``ws_<cls>_hot`` counters (summed over seeds);
    NaN where nothing was identified."""
    rows = []
    for trace, sub in df.groupby("trace", sort=False):
        for label, n_col, hot_col in ACCURACY_CLASSES:
            n, hot = float(sub[n_col].sum()), float(sub[hot_col].sum())
            rows.append({"trace": trace, "class": label, "identified": n, "hot": hot,
                         "accuracy_pct": 100.0 * hot / n if n else np.nan})
    return pd.DataFrame(rows, columns=["trace", "class", "identified", "hot", "accuracy_pct"])


def _phasedrr_main(runs) -> pd.DataFrame:
    df = runs.frame("main")
    return df[df["scheme"] == "PhasedRR"] if not df.empty else df


def fig09(runs):
    """Identification accuracy of the hottest (HTT), hotter (HTR) and tepid (TPD) pages."""
    data = accuracy(_phasedrr_main(runs))
    need(len(data) and data["identified"].sum() > 0, "fig09", "PhasedRR identified no page on any trace")
    t = data.pivot(index="trace", columns="class", values="accuracy_pct") / 100.0
    t = t.reindex(index=[x for x in runs.plan.traces if x in t.index], columns=[c for c, _, _ in ACCURACY_CLASSES])
    fig, axes = plots.figure(width_in=8.0)
    plots.normalized_bars(axes[0, 0], t, None, None, ylabel="truly hot among identified", percent=True,
                          missing="none")
    return fig, data


def overhead(df: pd.DataFrame) -> pd.DataFrame:
    """PhasedRR's space and time per trace: peak working-set bytes, and a modelled
    scan time [A20] = classification scans x 3 sets x (pages per block / 64) word
    operations x :data:`ARM_NS_PER_OP`, in s and as % of the summed I/O response time."""
    d = df.groupby("trace", sort=False).agg(ws_peak_bytes=("ws_peak_bytes", "max"),
                                            ws_classify_scans=("ws_classify_scans", "mean"),
                                            io_latency_mean_ns=("io_latency_mean_ns", "mean"),
                                            reads=("reads", "mean"), writes=("writes", "mean")).reset_index()
    d["ws_peak_kb"] = d["ws_peak_bytes"] / 1000.0
    d["modelled_time_s"] = d["ws_classify_scans"] * 3 * (PAGES_PER_BLOCK / 64) * ARM_NS_PER_OP / 1e9
    total_s = d["io_latency_mean_ns"] * (d["reads"] + d["writes"]) / 1e9
    d["time_share_pct"] = 100.0 * d["modelled_time_s"] / total_s.where(total_s > 0)
    return d


def fig10(runs):
    """PhasedRR's overhead: (a) peak working-set memory (KB), (b) modelled time (s)."""
    p = _phasedrr_main(runs)
    need(len(p), "fig10", "no PhasedRR runs in group 'main'")
    data = overhead(p)
    data = data.set_index("trace").reindex([t for t in runs.plan.traces if t in set(data["trace"])]).reset_index()
    fig, axes = plots.figure(ncols=2, width_in=10.0, height_in=2.8)
    color = plots.style("PhasedRR")[0]
    x = np.arange(len(data))
    for ax, col, ylabel in ((axes[0, 0], "ws_peak_kb", "peak working-set memory (KB)"),
                            (axes[0, 1], "modelled_time_s", "modelled scan time (s)")):
        ax.bar(x, data[col], color=color, edgecolor="black", linewidth=0.4)
        ax.set_xticks(x, data["trace"], fontsize=7)
        ax.set_ylabel(ylabel, fontsize=8)
    for xi, (v, p) in enumerate(zip(data["modelled_time_s"], data["time_share_pct"])):
        axes[0, 1].text(xi, v, f"{p:.1e}%", ha="center", va="bottom", fontsize=6)
    axes[0, 0].set_title("(a) space", fontsize=9)
    axes[0, 1].set_title(f"(b) time (labels: share of I/O time; {ARM_NS_PER_OP:g} ns per word op)", fontsize=8)
    return fig, data


FIGURES = {
    "fig02": Figure("fig02_counter_cost", "Fig. 2: I/O latency with (W-O) and without (W/o-O) charging page "
                    "counters to DRAM", ("main", "counters"), fig02),
    "fig04": Figure("fig04_delta_sensitivity", "Fig. 4: sensitivity of PhasedRR to Delta", ("sens",), fig04),
    "fig05": Figure("fig05_latency", "Fig. 5: average read and I/O latency", ("main", "real"), fig05),
    "fig06": Figure("fig06_rr_operations", "Fig. 6: RR operations", ("main",), fig06),
    "fig07": Figure("fig07_rr_page_moves", "Fig. 7: RR page moves", ("main",), fig07),
    "fig08": Figure("fig08_erases", "Fig. 8: block erases (GC + RR)", ("main",), fig08),
    "fig09": Figure("fig09_accuracy", "Fig. 9: identification accuracy of PhasedRR", ("main",), fig09),
    "fig10": Figure("fig10_overhead", "Fig. 10: PhasedRR's space and time overhead", ("main",), fig10),
}
