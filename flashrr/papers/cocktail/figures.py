"""The figures of the Cocktail paper, each from the tidy runs of
:mod:`flashrr.papers.cocktail.plan` (or, Figs. 4 and 5, from the traces and one
extra run).  Every figure function takes a
:class:`~flashrr.papers.cocktail.plan.CocktailRuns` and returns ``(matplotlib
figure, data DataFrame)``.  Bars are normalised to Baseline with Baseline's
absolute value under each trace name, as in the paper.  A figure whose data is
missing raises :class:`FigureDataError` naming what it lacked.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce import palette, plots
from ...reproduce.figures import Figure, bar_flags, need, normalized, paper_marks, tail_cdf_figure, with_paper
from ...reproduce.trace_specs import workload_spec
from .claims import CLAIMS
from .plan import MAIN, SCHEMES, label, last_rr_snapshot

BARS = MAIN + [SCHEMES["cocktail-separate"]]


def _bars(runs, fid, metrics, ylabels, titles=None, extra=None, with_real=False):
    fig, axes = plots.figure(nrows=len(metrics), width_in=9.0)
    frames = []
    for i, (metric, ylabel) in enumerate(zip(metrics, ylabels)):
        norm, base, long = normalized(runs, "main", metric, None, "Baseline", BARS, with_real)
        marks = paper_marks(CLAIMS, fid, "Baseline", metric)
        plots.normalized_bars(axes[i, 0], norm, "Baseline", base, ylabel=ylabel, title=(titles or [""] * 9)[i],
                              overload=bar_flags(long, norm), paper=marks)
        if extra is not None:
            extra(axes[i, 0], metric, runs.table("main", metric, schemes=BARS), norm)
        frames.append(with_paper(long, marks).rename(columns={metric: "value"}).assign(metric=metric))
    return fig, pd.concat(frames, ignore_index=True)


def fig04(runs):
    """Popularity of each request id (same offset and size): occurrences, capped at a y
    maximum; ids above half the cap in red.  From the traces before RAF and repeats."""
    from ...simulate import resolve_trace

    plan = runs.plan
    cfg = plan.device_config()
    rows = []
    fig, axes = plots.panel_grid(len(plan.traces))
    for ax, trace in zip(axes, plan.traces):
        tr = resolve_trace(workload_spec(f"cocktail-{trace}", plan.n_requests, plan.trace_params, plan.workload,
                                         plan.regime.pipeline()), cfg)
        ids = pd.DataFrame({"o": tr.offset, "s": tr.size})
        counts = ids.groupby(["o", "s"], sort=False).size().to_numpy()  # in order of first appearance
        cap = max(1.0, float(np.percentile(counts, 99.9)))
        shown = np.minimum(counts, cap)
        hot = shown > cap / 2
        x = np.arange(len(counts))
        ax.scatter(x[~hot], shown[~hot], s=1, color=palette.SERIES_COLOURS[0])
        ax.scatter(x[hot], shown[hot], s=1, color=palette.SERIES_COLOURS[1])
        ax.set_title(label(trace), fontsize=7)
        ax.set_xlabel("request id", fontsize=6)
        ax.set_ylabel("occurrences", fontsize=6)
        rows.append({"trace": label(trace), "request_ids": len(counts), "requests": int(counts.sum()),
                     "y_cap": cap, "ids_above_half_cap": int(hot.sum()), "ids_below_half_cap": int((~hot).sum()),
                     "max_occurrences": int(counts.max())})
    return fig, pd.DataFrame(rows)


def fig05(runs):
    """Read counts of every block of one plane at its last RR (Baseline, ali206), capped at 10,000."""
    df = last_rr_snapshot(runs.plan, out=getattr(runs, "out", None))
    need(int(df["rr_count"].iloc[0]) > 0, "fig05", "Baseline triggered no RR on alibaba_206")
    S = len(df)
    side = int(np.ceil(np.sqrt(S)))
    grid = np.full(side * side, np.nan)
    reads = df["block_reads"].to_numpy(float)
    grid[:S] = np.where(df["valid_pages"] > 0, np.minimum(reads, 10_000), np.nan)
    fig, axes = plots.figure(width_in=5.0, height_in=4.0)
    im = axes[0, 0].imshow(grid.reshape(side, side), cmap="viridis", vmin=0, vmax=10_000)
    fig.colorbar(im, ax=axes[0, 0], label="block reads (capped at 10,000)")
    axes[0, 0].set_title(f"plane 0 at its last RR ({int(df['rr_count'].iloc[0])} RRs in the run)", fontsize=7)
    return fig, df


def _sweep_lines(runs, group, xs, key, xlabel, fid):
    t = runs.table(group, "rr_count")
    need(not t.empty, fid, f"no runs in group {group!r}")
    cols = [f"{key}={x:g}" for x in xs]
    t = t.reindex(columns=[c for c in cols if c in t.columns])
    fig, axes = plots.figure(width_in=7.0, height_in=3.0)
    ax = axes[0, 0]
    for i, (trace, row) in enumerate(t.iterrows()):
        ax.plot(range(len(t.columns)), row.to_numpy(float), marker="o", ms=3, label=trace,
                color=plots.style(trace, i)[0])
    ax.set_xticks(range(len(t.columns)), [c.split("=")[1] for c in t.columns])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("RR count")
    ax.set_yscale("symlog")
    ax.legend(fontsize=5, frameon=False, ncol=2)
    return fig, t.reset_index().melt(id_vars="trace", var_name="setting", value_name="rr_count")


def fig08(runs):
    return _sweep_lines(runs, "ratio", runs.plan.ratios, "ratio", "Eq. 2 ratio (read-count weight)", "fig08")


def fig09(runs):
    return _sweep_lines(runs, "share", runs.plan.shares, "n", "n (RR share of a mixed block = 1/n)", "fig09")


def fig10(runs):
    """RR count normalised to Baseline; the real samples (group ``real``) follow the
    traces.  The claims use the traces only."""
    return _bars(runs, "fig10", ["rr_count"], ["RR count (norm.; Baseline under names)"], with_real=True)


def fig11(runs):
    """Average response time of all I/Os, normalised to Baseline; the dark part of each bar is
    the average read-retry time per request (retry_time_ns / requests)."""
    main = runs.frame("main")
    need(not main.empty, "fig11", "no runs in group 'main'")
    main = main.assign(retry_per_request_ns=main["retry_time_ns"] / main["requests"].where(main["requests"] > 0))
    runs.frames["main"] = main
    retry = runs.table("main", "retry_per_request_ns", schemes=BARS)

    def dark(ax, metric, t, norm):
        width = 0.8 / max(1, len(norm.columns))
        for j, s in enumerate(norm.columns):
            frac = (retry[s] / t["Baseline"]).to_numpy(float)
            ax.bar(np.arange(len(norm)) - 0.4 + width * (j + 0.5), frac, width, color="black", alpha=0.45)

    fig, data = _bars(runs, "fig11", ["io_latency_mean_ns"], ["avg response time (norm.; Baseline ns)"], extra=dark)
    r = retry.reset_index().melt(id_vars="trace", var_name="scheme", value_name="value")
    return fig, pd.concat([data, r.assign(metric="retry_per_request_ns")], ignore_index=True)


def fig12(runs):
    """The slowest 1% of I/O response times: CDF from the 99th percentile up (x in ms)."""
    df = runs.frame("main")
    rows = df[df["scheme"].isin(MAIN)] if not df.empty else df
    return tail_cdf_figure(runs, rows, runs.labels, MAIN, "fig12")


def fig13(runs):
    return _bars(runs, "fig13", ["gc_count", "erase_count"], ["GC count (norm.)", "block erases (norm.)"],
                 titles=["(a) GC count (Baseline under names)", "(b) block erases, RR + GC (Baseline under names)"])


def fig14(runs):
    return _bars(runs, "fig14", ["pages_moved_per_erase", "waf"], ["pages moved per erase (norm.)", "WAF (norm.)"],
                 titles=["(a) the paper's write amplification: pages moved per erase",
                         "(b) WAF: flash pages programmed per host page"])


FIGURES = {
    "fig04": Figure("fig04_request_popularity", "Fig. 4: popularity of each request (offset, size)", (), fig04),
    "fig05": Figure("fig05_block_reads_at_last_rr", "Fig. 5: block read counts of one plane at the last RR "
                    "(Baseline, ali206)", (), fig05),
    "fig08": Figure("fig08_rr_vs_ratio", "Fig. 8: Cocktail's RR count vs the Eq. 2 ratio", ("ratio",), fig08),
    "fig09": Figure("fig09_rr_vs_share", "Fig. 9: Cocktail's RR count vs the RR share 1/n", ("share",), fig09),
    "fig10": Figure("fig10_rr_count", "Fig. 10: RR count normalised to Baseline", ("main", "real"), fig10),
    "fig11": Figure("fig11_response_time", "Fig. 11: average response time (dark: read-retry time)", ("main",),
                    fig11),
    "fig12": Figure("fig12_tail_latency", "Fig. 12: worst-case latency (99th-100th percentile)", ("main",), fig12),
    "fig13": Figure("fig13_gc_count", "Fig. 13: GC count and erases normalised to Baseline", ("main",), fig13),
    "fig14": Figure("fig14_write_amplification", "Fig. 14: write amplification normalised to Baseline", ("main",),
                    fig14),
}
