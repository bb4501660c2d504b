"""The figures of the Shuffler paper, each from the tidy runs of
:mod:`flashrr.papers.shuffler.plan`.

Every figure function takes a :class:`~flashrr.papers.shuffler.plan.Runs` and
returns ``(matplotlib figure, data DataFrame)``; :meth:`Figure.make` writes
``figNN_<name>.png``, ``.pdf`` and ``.csv``.  Bars are normalised to Baseline
(or to the first configuration, Fig. 4; to block management, Fig. 1) with the
reference's absolute value under each trace name, as in the paper.
Latencies are in ns in the data and in µs or ms on the axes (labelled).

A figure whose data is missing raises
:class:`~flashrr.reproduce.figures.FigureDataError` naming the figure and what
it lacked; it is never skipped or drawn empty.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce import plots
from ...reproduce.figures import (Figure, bar_figure, bar_flags, need, normalized, overload_table, paper_marks,
                                  tail_cdf_figure)
from ...reproduce.sweep_runs import pivot
from .claims import CLAIMS
from .plan import SCHEMES

ALL = list(SCHEMES.values())
THREE = ["Baseline", "Page", "Shuffler"]


def _marks(fid: str, ref: str, metric: str) -> dict:
    return paper_marks(CLAIMS, fid, ref, metric)


def _bar_figure(runs, fid, group, device, metrics, ylabels, ref="Baseline", schemes=ALL, titles=None):
    marks = {m: _marks(fid, ref, m) for m in metrics}
    return bar_figure(runs, group, device, metrics, ylabels, ref, schemes, titles, marks=marks)


# ------------------------------------------------------------------------------------------ figures


def fig01(runs):
    """Block vs superblock management (Baseline): (a) read latency normalised to
    block management, (b) WAF in % of 1.0."""
    both = runs.management_frame()
    order = ["Block", "Superblock"]
    lat = pivot(both, "read_latency_mean_ns", runs.plan.traces, order)
    waf = pivot(both, "waf", runs.plan.traces, order)
    need("Block" in lat.columns and "Superblock" in lat.columns, "fig01",
          "no Baseline runs of both block and superblock management (groups 'block' and 'main')")
    fig, axes = plots.figure(ncols=2, width_in=10.0, height_in=2.8)
    frames = []
    plots.normalized_bars(axes[0, 0], lat.div(lat["Block"], axis=0), "Block", lat["Block"] / 1e3,
                          ylabel="read latency (norm. to block)", title="(a) read latency (block, µs)",
                          paper=_marks("fig01", "Block", "read_latency_mean_ns"))
    plots.normalized_bars(axes[0, 1], waf, None, None, ylabel="WAF (100% = 1.0)", title="(b) WAF",
                          percent=True)
    for metric, t in (("read_latency_mean_ns", lat), ("waf", waf)):
        frames.append(t.reset_index().melt(id_vars="trace", var_name="scheme").assign(metric=metric))
    return fig, pd.concat(frames, ignore_index=True)


def _events(runs, group="main", device="shuffler", schemes=ALL):
    """All kept RR events of a group: one row per RR with trace, scheme and the
    component block read counts as a 2-D array column ``reads``."""
    df = runs.frame(group)
    rows = []
    if df.empty:
        return rows
    for _, r in df[df["device"] == device].iterrows():
        if r["scheme"] not in schemes:
            continue
        ev = runs.artifacts(r["key"]).get("rr_events")
        if ev is None or not len(ev):
            continue
        reads = np.array(ev["block_reads"].tolist(), dtype=np.int64)
        rows.append((r["trace"], r["scheme"], ev, reads))
    return rows


def fig02(runs):
    """Read counts of the component blocks of every superblock Baseline reclaims:
    box = interquartile range, red = median, whiskers = 5th/95th percentiles."""
    stats = []
    for trace, _, _, reads in _events(runs, schemes=["Baseline"]):
        v = reads.ravel()
        q = np.percentile(v, [5, 25, 50, 75, 95]) if v.size else [np.nan] * 5
        stats.append({"trace": trace, "n_rr": len(reads), "q05": q[0], "q25": q[1], "median": q[2], "q75": q[3],
                      "q95": q[4]})
    data = pd.DataFrame(stats, columns=["trace", "n_rr", "q05", "q25", "median", "q75", "q95"])
    need(len(data), "fig02", "Baseline reclaimed nothing on any trace (no RR events)")
    fig, axes = plots.figure(width_in=8.0, height_in=3.0)
    thr = _threshold(runs)
    plots.boxes(axes[0, 0], data.set_index("trace").dropna(), threshold=thr,
                ylabel="block read count at RR", title=f"RR threshold {thr:,} reads (dashed)")
    return fig, data


def _threshold(runs) -> int:
    from ...config import SimConfig

    cfg = SimConfig.preset("shuffler").replace(**dict(runs.plan.device_overrides))
    return cfg.read_reclaim.rr_threshold_reads


def fig04(runs):
    """Sensitivity of the RR count to delta_f (delta_p = 0.1) and delta_p
    (delta_f = 0.3), normalised to the first setting of each panel."""
    df = runs.frame("sens")
    plan = runs.plan
    panels = [("param_delta_p", 0.1, "param_delta_f", plan.delta_f_values, "dF", "(a) delta_F (delta_P = 0.1)"),
              ("param_delta_f", 0.3, "param_delta_p", plan.delta_p_values, "dP", "(b) delta_P (delta_F = 0.3)")]
    need(not df.empty, "fig04", "no runs of group 'sens'")
    tables = []
    for fixed, fval, axis, values, short, title in panels:
        sub = df[np.isclose(df[fixed], fval) & df[axis].isin(values)].copy()
        sub["scheme"] = [f"{short}={v:g}" for v in sub[axis]]
        labels = [f"{short}={v:g}" for v in values]
        t = sub.pivot_table(index="trace", columns="scheme", values="rr_count", aggfunc="mean", sort=False)
        t = t.reindex(index=[x for x in plan.traces if x in t.index], columns=[c for c in labels if c in t.columns])
        need(not t.empty, "fig04", f"no Shuffler runs with {fixed[6:]} = {fval:g} and {axis[6:]} in {list(values)}")
        tables.append((t, title))
    fig, axes = plots.figure(nrows=2, width_in=8.0)
    frames = []
    for i, (t, title) in enumerate(tables):
        first = t.columns[0]
        norm = t.div(t[first].where(t[first] != 0), axis=0)
        plots.normalized_bars(axes[i, 0], norm, first, t[first], ylabel="RR count (norm.)", title=title)
        long = t.reset_index().melt(id_vars="trace", var_name="setting", value_name="rr_count")
        long["normalized"] = norm.reset_index().melt(id_vars="trace")["value"].to_numpy()
        frames.append(long.assign(panel=title))
    return fig, pd.concat(frames, ignore_index=True)


def fig05(runs):
    return _bar_figure(runs, "fig05", "main", "shuffler", ["rr_count"], ["RR count (norm. to Baseline)"])


def fig06(runs, n_bins: int = 20):
    """Read imbalance (max - min component block reads at the RR trigger) against
    the RR sequence number, averaged over ``n_bins`` equal bins of Baseline's RRs."""
    by_trace: dict = {}
    rows = []
    for trace, scheme, ev, reads in _events(runs):
        if not len(reads):
            continue
        spread = reads.max(axis=1) - reads.min(axis=1)
        by_trace.setdefault(trace, {})[scheme] = spread
    need(by_trace, "fig06", "no scheme reclaimed anything on any trace (no RR events)")
    fig, axes = plots.panel_grid(len(by_trace))
    for ax, (trace, series) in zip(axes, by_trace.items()):
        n_ref = max(len(s) for s in series.values())
        width = max(1, -(-n_ref // n_bins))
        lines = {}
        for scheme in [s for s in ALL if s in series]:
            s = series[scheme]
            bins = np.arange(len(s)) // width
            mean = np.bincount(bins, weights=s) / np.bincount(bins)
            x = (np.arange(mean.size) + 0.5) * width
            lines[scheme] = (x, mean)
            rows += [{"trace": trace, "scheme": scheme, "rr_index_mid": float(a), "read_spread_mean": float(b)}
                     for a, b in zip(x, mean)]
        plots.lines(ax, lines, xlabel="RR operations", ylabel="max-min block reads", title=trace)
    axes[0].legend(fontsize=5, frameon=False)
    return fig, pd.DataFrame(rows, columns=["trace", "scheme", "rr_index_mid", "read_spread_mean"])


def fig07(runs):
    """Range of block read counts in reclaimed superblocks: mean over RRs of the
    lowest, average and highest component block read count."""
    rows = []
    for trace, scheme, _, reads in _events(runs, schemes=THREE):
        if len(reads):
            rows.append({"trace": trace, "scheme": scheme, "lo": reads.min(axis=1).mean(),
                         "mean": reads.mean(axis=1).mean(), "hi": reads.max(axis=1).mean(), "n_rr": len(reads)})
    data = pd.DataFrame(rows, columns=["trace", "scheme", "lo", "mean", "hi", "n_rr"])
    need(len(data), "fig07", "Baseline, Page and Shuffler reclaimed nothing on any trace (no RR events)")
    fig, axes = plots.figure(width_in=8.0, height_in=3.0)
    plots.range_bars(axes[0, 0], data, ylabel="block read count at RR", threshold=_threshold(runs),
                     title="bar: mean lowest..highest block; tick: mean block")
    return fig, data


def fig08(runs):
    return _bar_figure(runs, "fig08", "main", "shuffler", ["waf"], ["WAF (norm. to Baseline)"])


def fig09(runs):
    return _bar_figure(runs, "fig09", "main", "shuffler", ["erase_count"], ["block erases (norm.)"])


def fig10(runs):
    return _bar_figure(runs, "fig10", "main", "shuffler", ["read_latency_mean_ns"], ["read latency (norm.)"])


def fig11(runs):
    return _bar_figure(runs, "fig11", "main", "shuffler", ["write_latency_mean_ns"],
                       ["write latency (norm.; Baseline ns)"])


def _ratio_figure(runs, group, device_metric_titles):
    tables = []
    for device, metric, title in device_metric_titles:
        t = runs.table(group, metric, device, ALL)
        need(not t.empty, f"{metric} of group {group!r}", f"no runs on device {device!r}")
        cache = runs.table(group, "cache_pages", device, ALL)
        tables.append((device, metric, title, t.where(cache > 0)))  # no cache at all: no ratio (paper: no bar)
    fig, axes = plots.figure(nrows=len(device_metric_titles), width_in=8.0)
    frames = []
    for i, (device, metric, title, t) in enumerate(tables):
        over = overload_table(runs, group, device, t)
        plots.normalized_bars(axes[i, 0], t, None, None, ylabel="hit ratio", title=title, percent=True, overload=over)
        frames.append(t.reset_index().melt(id_vars="trace", var_name="scheme", value_name="value")
                      .assign(metric=metric, device=device,
                              overloaded=over.reset_index().melt(id_vars="trace")["value"].to_numpy()))
    return fig, pd.concat(frames, ignore_index=True)


def fig12(runs):
    return _ratio_figure(runs, "main", [("shuffler", "cache_read_hit_ratio", "(a) read hits"),
                                        ("shuffler", "cache_write_hit_ratio", "(b) write hits")])


def fig13(runs):
    """CDF of I/O response time for the slowest 1% of I/Os (x in ms)."""
    df = runs.frame("main")
    rows = df[df["device"] == "shuffler"] if not df.empty else df
    return tail_cdf_figure(runs, rows, runs.plan.traces, ALL, "fig13")


def fig14(runs):
    return _bar_figure(runs, "fig14", "main", "shuffler", ["user_flash_transactions"], ["flash transactions (norm.)"])


def fig15(runs):
    return _bar_figure(runs, "fig15", "sb32", "shuffler-32", ["rr_count", "read_latency_mean_ns"],
                       ["RR count (norm.)", "read latency (norm.)"],
                       titles=["(a) RR count (Baseline count under names)", "(b) read latency (Baseline ns)"])


def _cache_devices(runs):
    return [f"shuffler-{m}MB" for m in runs.plan.cache_sizes_mib]


def fig16(runs):
    return _ratio_figure(runs, "cache", [(d, "cache_read_hit_ratio", f"{d}: read hits (no bar = no cache left)")
                                         for d in _cache_devices(runs)])


def _cache_bars(runs, metric, ylabel):
    tables = [(d, *normalized(runs, "cache", metric, d, "Baseline", ALL)) for d in _cache_devices(runs)]
    fig, axes = plots.figure(nrows=len(tables), width_in=8.0)
    frames = []
    for i, (d, norm, absolute, long) in enumerate(tables):
        plots.normalized_bars(axes[i, 0], norm, "Baseline", absolute, ylabel=ylabel, title=d,
                              overload=bar_flags(long, norm))
        frames.append(long.assign(metric=metric, device=d).rename(columns={metric: "value"}))
    return fig, pd.concat(frames, ignore_index=True)


def fig17(runs):
    return _cache_bars(runs, "rr_count", "RR count (norm.)")


def fig18(runs):
    return _cache_bars(runs, "read_latency_mean_ns", "read latency (norm.; Baseline ns)")


def fig19(runs):
    """Time spent in Shuffler's code with 32-block superblocks (s), and its share
    of the total I/O response time (%), per trace."""
    df = runs.frame("sb32")
    cols = ["trace", "policy_time_s", "total_io_time_s", "share_pct", "shuffle_full", "shuffle_partial",
            "shuffle_none", "repeat"]
    need(not df.empty, "fig19", "no runs of group 'sb32'")
    s = df[df["policy_name"] == "shuffler"].copy()
    s["total_io_time_s"] = s["io_latency_mean_ns"] * (s["reads"] + s["writes"]) / 1e9
    s["share_pct"] = 100 * s["policy_time_s"] / s["total_io_time_s"].where(s["total_io_time_s"] > 0)
    data = s[cols].groupby("trace", sort=False).mean(numeric_only=True).reset_index()
    data = data.set_index("trace").reindex([t for t in runs.plan.traces if t in set(data["trace"])]).reset_index()
    need(len(data), "fig19", "no Shuffler runs in group 'sb32'")
    fig, axes = plots.figure(width_in=8.0)
    ax = axes[0, 0]
    x = np.arange(len(data))
    ax.bar(x, data["policy_time_s"], color=plots.style("Shuffler")[0], edgecolor="black", linewidth=0.4)
    for xi, (t, p) in enumerate(zip(data["policy_time_s"], data["share_pct"])):
        ax.text(xi, t, f"{p:.1e}%", ha="center", va="bottom", fontsize=6)
    ax.set_ylim(0, float(data["policy_time_s"].max()) * 1.18 or 1)
    ax.set_xticks(x, data["trace"], fontsize=7)
    ax.set_ylabel("time in Shuffler code (s)", fontsize=8)
    ax.set_title(f"labels: share of total I/O response time; {int(data['repeat'].iloc[0])} replays", fontsize=8)
    return fig, data


FIGURES = {
    "fig01": Figure("fig01_block_vs_superblock", "Fig. 1: block vs superblock management (Baseline)",
                    ("main", "block"), fig01),
    "fig02": Figure("fig02_block_reads_at_rr", "Fig. 2: component block read counts at superblock RR (Baseline)",
                    ("main",), fig02),
    "fig04": Figure("fig04_sensitivity", "Fig. 4: sensitivity of Shuffler's RR count to delta_F and delta_P",
                    ("sens",), fig04),
    "fig05": Figure("fig05_rr_count", "Fig. 5: RR count (Baseline value under names)", ("main",), fig05),
    "fig06": Figure("fig06_imbalance_vs_rr", "Fig. 6: read imbalance in reclaimed superblocks vs RR operations",
                    ("main",), fig06),
    "fig07": Figure("fig07_read_range", "Fig. 7: block read counts in reclaimed superblocks", ("main",), fig07),
    "fig08": Figure("fig08_waf", "Fig. 8: write amplification factor", ("main",), fig08),
    "fig09": Figure("fig09_erases", "Fig. 9: block erases", ("main",), fig09),
    "fig10": Figure("fig10_read_latency", "Fig. 10: average read latency (Baseline ns)", ("main",), fig10),
    "fig11": Figure("fig11_write_latency", "Fig. 11: average write latency (Baseline ns)", ("main",), fig11),
    "fig12": Figure("fig12_cache_hits", "Fig. 12: cache hit ratios", ("main",), fig12),
    "fig13": Figure("fig13_tail_cdf", "Fig. 13: CDF of the slowest 1% of I/O response times", ("main",), fig13),
    "fig14": Figure("fig14_flash_transactions", "Fig. 14: flash transactions caused by user I/O", ("main",), fig14),
    "fig15": Figure("fig15_sb32", "Fig. 15: 32-block superblocks", ("sb32",), fig15),
    "fig16": Figure("fig16_cache_hits_by_size", "Fig. 16: cache hit ratio, 32 MB and 128 MB caches", ("cache",),
                    fig16),
    "fig17": Figure("fig17_rr_by_cache", "Fig. 17: RR count, 32 MB and 128 MB caches", ("cache",), fig17),
    "fig18": Figure("fig18_read_latency_by_cache", "Fig. 18: read latency, 32 MB and 128 MB caches", ("cache",),
                    fig18),
    "fig19": Figure("fig19_shuffler_time", "Fig. 19: time spent in Shuffler's code (32-block superblocks)",
                    ("sb32",), fig19),
}
