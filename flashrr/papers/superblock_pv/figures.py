"""Figures 6 and 12-15 of the superblock PV paper, from the pooled runs of
:mod:`flashrr.papers.superblock_pv.plan`.  Each figure function takes a
:class:`~flashrr.papers.superblock_pv.plan.Runs` and returns (figure, data);
latencies are µs per superblock."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...reproduce import palette, plots
from ...reproduce.figures import Figure
from .tables import TABLE5, paper_values

FIVE = list(TABLE5)  # Random, Sequential, Optimal (8), QSTR-MED (4), STR-MED (4)


def _figure(nrows=1, ncols=1, width_in=7.0, height_in=2.6):
    return plots.figure(ncols=ncols, nrows=nrows, width_in=width_in, height_in=height_in)


def _pe_means(runs, labels) -> pd.DataFrame:
    frames = [runs.per_sb(x).groupby("pe", as_index=False)[["extra_pgm_us", "extra_ers_us"]].mean().assign(label=x)
              for x in labels if x in runs.results]
    return pd.concat(frames, ignore_index=True)


def fig06(runs):
    """Random assembly: extra program (top) and erase (bottom) latency of every
    superblock at the first P/E point (x = superblock, all dies in turn), and
    the mean at every P/E point (right)."""
    sb = runs.per_sb("Random")
    first = sb[sb["pe"] == sb["pe"].min()].reset_index(drop=True)
    pe = _pe_means(runs, ["Random"])
    fig, axes = _figure(2, 2, width_in=9.0, height_in=2.4)
    x = np.arange(len(first))
    for row, (col, name) in enumerate((("extra_pgm_us", "extra PGM (µs)"), ("extra_ers_us", "extra ERS (µs)"))):
        ax = axes[row, 0]
        ax.plot(x, first[col], ".", markersize=1.2, color=palette.colour("Random"))
        ax.axhline(first[col].mean(), color=palette.SERIES_COLOURS[1], linewidth=0.8,
                   label=f"mean {first[col].mean():,.2f} (paper {paper_values('Random')['paper_' + col]:,.2f})")
        ax.set_xlabel("superblock (dies in turn)", fontsize=7)
        ax.set_ylabel(name, fontsize=7)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=6, frameon=False)
        plots.lines(axes[row, 1], {"Random": (pe["pe"], pe[col])}, xlabel="P/E cycles", ylabel=f"mean {name}")
    data = pd.concat([first.assign(kind="per_sb"), pe.assign(kind="pe_mean")], ignore_index=True)
    return fig, data


def fig12(runs):
    """Extra program and erase latency per superblock of Random, Sequential,
    Optimal, QSTR-MED and STR-MED: ours next to the paper's (Table V)."""
    imp = runs.improvements().set_index("label")
    rows = []
    for label in FIVE:
        if label in imp.index:
            p = paper_values(label)
            rows.append({"method": label, "extra_pgm_us": imp.loc[label, "extra_pgm_us"],
                         "paper_extra_pgm_us": p["paper_extra_pgm_us"],
                         "extra_ers_us": imp.loc[label, "extra_ers_us"], "paper_extra_ers_us": p["paper_extra_ers_us"],
                         "pgm_improvement_pct": imp.loc[label, "pgm_improvement_pct"],
                         "ers_improvement_pct": imp.loc[label, "ers_improvement_pct"]})
    data = pd.DataFrame(rows)
    fig, axes = _figure(1, 2, width_in=10.0, height_in=3.0)
    for ax, col, name in ((axes[0, 0], "extra_pgm_us", "extra PGM latency (µs)"),
                          (axes[0, 1], "extra_ers_us", "extra ERS latency (µs)")):
        t = data.set_index("method")[[col, f"paper_{col}"]].rename(columns={col: "flashrr", f"paper_{col}": "paper"})
        plots.normalized_bars(ax, t, None, None, ylabel=name, title=name.split(" (")[0] + " per superblock")
    return fig, data


def fig13(runs, bins: int = 60):
    """Distribution of the extra program latency per superblock (all superblocks)."""
    labels = [x for x in FIVE if x in runs.results]
    values = {x: runs.results[x]["per_sb"]["extra_pgm_us"] for x in labels}
    lo = min(v.min() for v in values.values())
    hi = max(v.max() for v in values.values())
    edges = np.linspace(lo, hi, bins + 1)
    fig, axes = _figure(width_in=7.0, height_in=3.0)
    rows = []
    for i, x in enumerate(labels):
        counts, _ = np.histogram(values[x], edges)
        axes[0, 0].step(edges[:-1], counts, where="post", label=x, color=plots.style(x, i)[0], linewidth=0.9)
        rows.append(pd.DataFrame({"label": x, "bin_lo_us": edges[:-1], "bin_hi_us": edges[1:], "superblocks": counts}))
    axes[0, 0].set_xlabel("extra PGM latency per superblock (µs)", fontsize=8)
    axes[0, 0].set_ylabel("superblocks", fontsize=8)
    axes[0, 0].tick_params(labelsize=7)
    axes[0, 0].legend(fontsize=7, frameon=False)
    return fig, pd.concat(rows, ignore_index=True)


def fig14(runs):
    """Every superblock of die 0 at the first P/E point, in assembly order:
    extra program (top) and erase (bottom) latency of STR-MED and QSTR-MED."""
    labels = [x for x in ("STR-MED (4)", "QSTR-MED (4)") if x in runs.results]
    frames = []
    for x in labels:
        sb = runs.per_sb(x)
        frames.append(sb[(sb["die"] == 0) & (sb["pe"] == sb["pe"].min())])
    data = pd.concat(frames, ignore_index=True)
    fig, axes = _figure(2, 1, width_in=8.0, height_in=2.4)
    for row, (col, name) in enumerate((("extra_pgm_us", "extra PGM (µs)"), ("extra_ers_us", "extra ERS (µs)"))):
        plots.lines(axes[row, 0], {x: (g["order"], g[col]) for x, g in data.groupby("label", sort=False)},
                    xlabel="superblock (assembly order)", ylabel=name)
        axes[row, 0].legend(fontsize=6, frameon=False)
    return fig, data


def fig15(runs):
    """Mean extra program (top) and erase (bottom) latency per superblock at
    every P/E point, re-assembled at each point."""
    data = _pe_means(runs, FIVE)
    fig, axes = _figure(2, 1, width_in=7.0, height_in=2.4)
    for row, (col, name) in enumerate((("extra_pgm_us", "extra PGM (µs)"), ("extra_ers_us", "extra ERS (µs)"))):
        plots.lines(axes[row, 0], {x: (g["pe"], g[col]) for x, g in data.groupby("label", sort=False)},
                    xlabel="P/E cycles", ylabel=name)
        axes[row, 0].set_ylim(bottom=0)
        axes[row, 0].legend(fontsize=6, frameon=False, ncol=5)
    return fig, data


FIGURES = {
    "fig06": Figure("fig06_random_extra", "Fig. 6: extra latency of Random assembly", ("Random",), fig06),
    "fig12": Figure("fig12_improvement", "Fig. 12: extra program and erase latency (ours vs paper)", tuple(FIVE),
                    fig12),
    "fig13": Figure("fig13_distribution", "Fig. 13: distribution of the extra program latency", tuple(FIVE), fig13),
    "fig14": Figure("fig14_all_superblocks", "Fig. 14: every superblock, STR-MED vs QSTR-MED",
                    ("STR-MED (4)", "QSTR-MED (4)"), fig14),
    "fig15": Figure("fig15_pe_cycles", "Fig. 15: extra latency over P/E cycles", tuple(FIVE), fig15),
}
