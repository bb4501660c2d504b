"""Plotting helpers for paper figures (matplotlib, headless).

The papers draw most results as grouped bars, one group per trace, normalised
to a reference scheme, with the reference's absolute value printed under each
trace name.  :func:`normalized_bars` draws that; the other helpers cover box
plots, floating range bars, line panels and CDF panels.  Every figure is saved
as PNG and PDF by :func:`save`.

Figures from :func:`figure` and :func:`panel_grid` use matplotlib's constrained
layout (:data:`LAYOUT`): it makes room for every axis label, tick label, title,
legend, colorbar and the figure's suptitle at draw time.  It cannot shrink a
label longer than its axes: keep y labels short (put the rest in the title).
``tests/test_figure_layout.py`` checks that no text leaves the canvas.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import palette  # noqa: E402

LAYOUT = "constrained"
"""The layout engine of every paper figure (see the module docstring)."""
SPAN_LIMIT = 20.0
"""Bars whose positive values span more than this factor are drawn on a log axis (:func:`wide_span`)."""
# a run whose busiest die is busy more than BUSY_LIMIT of the run is overloaded (:func:`overloaded`)
from ..regime_warning import BUSY_LIMIT  # noqa: E402
OVERLOAD_HATCH = "xxxx"
OVERLOAD_EDGE = "#b00000"
OVERLOAD_NOTE = f"hatched: overloaded (busiest die busy > {BUSY_LIMIT:.0%})"


def style(label: str, i: int = 0) -> tuple[str, str]:
    """Colour (:func:`flashrr.reproduce.palette.colour`) and hatch of a series label.
    Schemes are told apart by colour alone: a hatch marks an overloaded run."""
    return palette.colour(label, i), ""


def wide_span(values) -> bool:
    """Whether the positive finite ``values`` span more than :data:`SPAN_LIMIT` (largest / smallest)."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    return bool(v.size) and float(v.max()) > SPAN_LIMIT * float(v.min())


def overloaded(die_idle_fraction_min) -> np.ndarray:
    """Whether each run (its ``die_idle_fraction_min``) had a die busy more than :data:`BUSY_LIMIT`
    of the run; NaN (no value) is not overloaded."""
    idle = np.asarray(die_idle_fraction_min, dtype=float)
    return np.where(np.isfinite(idle), 1.0 - idle > BUSY_LIMIT, False)


def mark_overloaded(ax, x, heights, bottoms=None, width: float = 0.8) -> None:
    """Hatch the bars at ``x`` (of ``heights`` above ``bottoms``) and label them "overloaded"."""
    bottoms = np.zeros(len(x)) if bottoms is None else np.asarray(bottoms, dtype=float)
    for p, h, b in zip(x, heights, bottoms):
        ax.bar(p, h, width, bottom=b, fill=False, hatch=OVERLOAD_HATCH, edgecolor=OVERLOAD_EDGE, linewidth=0.6)
        ax.annotate("overloaded", (p, b + h), textcoords="offset points", xytext=(0, 2), rotation=90, ha="center",
                    va="bottom", fontsize=5, color=OVERLOAD_EDGE)


def log_axis(ax, values, room: float = 4.0) -> None:
    """Put ``ax``'s y axis on a log scale fitting the positive ``values`` (``room``: headroom factor
    above the largest, for the legend and labels)."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    ax.set_yscale("log")
    ax.set_ylim(float(v.min()) / 2, float(v.max()) * room)


def fmt_abs(v: float) -> str:
    """A compact absolute value for a tick label (``12.3K``, ``1.2M``, ``0.45``)."""
    if v is None or not np.isfinite(v):
        return "n/a"
    a = abs(v)
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if a >= div:
            return f"{v / div:.3g}{suf}"
    return f"{v:.3g}"


def figure(ncols: int = 1, nrows: int = 1, width_in: float = 7.0, height_in: float = 2.6, **kw):
    """A new figure with ``nrows x ncols`` axes (sizes in inches per row), in
    constrained layout unless ``layout=`` says otherwise."""
    kw.setdefault("layout", LAYOUT)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width_in, height_in * nrows), squeeze=False, **kw)
    return fig, axes


def normalized_bars(ax, table: pd.DataFrame, ref: str | None, absolute: pd.Series | None = None,
                    ylabel: str = "", title: str = "", missing: str = "n/a", percent: bool = False,
                    overload: pd.DataFrame | None = None, paper: dict | None = None) -> None:
    """Grouped bars: rows of ``table`` are traces, columns are series.

    Values are plotted as given (already normalised by the caller); ``ref``
    names the reference series (drawn with a dashed line at 1).  ``absolute``
    (indexed by trace) is printed under each trace name.  NaN bars are drawn as
    the text ``missing``.  ``percent`` shows the y axis in %.  Bars whose
    positive values span more than :data:`SPAN_LIMIT` go on a log axis.
    ``overload`` (bools, like ``table``) hatches the overloaded runs' bars;
    ``paper`` (series -> the paper's value on the same scale) is drawn as
    diamonds in a last group, "paper".
    """
    traces = list(table.index)
    series = list(table.columns)
    n = len(series)
    width = 0.8 / max(n, 1)
    x = np.arange(len(traces))
    log = wide_span(table.to_numpy(dtype=float))
    flags = (overload.reindex(index=table.index, columns=table.columns).fillna(False).astype(bool)
             if overload is not None else None)
    for i, s in enumerate(series):
        color, hatch = style(s, i)
        vals = table[s].to_numpy(dtype=float)
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, np.nan_to_num(vals), width, label=s, color=color, hatch=hatch, edgecolor="black", linewidth=0.4)
        if flags is not None and flags[s].any():
            hit = flags[s].to_numpy()
            mark_overloaded(ax, pos[hit], np.nan_to_num(vals[hit]), width=width)
        for p, v in zip(pos, vals):
            if not np.isfinite(v) or (log and v <= 0):
                ax.text(p, 0.02, missing if not np.isfinite(v) else "0", rotation=90, ha="center", va="bottom",
                        fontsize=6, transform=ax.get_xaxis_transform())
    shown = [v for v in (paper or {}).items() if v[0] in series and np.isfinite(v[1])]
    for s, v in shown:
        ax.plot(len(traces) - 0.4 + width * (series.index(s) + 0.5), v, "D", color=style(s)[0],
                markeredgecolor="black", markersize=5)
    if ref is not None:
        ax.axhline(1.0, color="black", linestyle="--", linewidth=0.6)
    labels = traces if absolute is None else [f"{t}\n({fmt_abs(absolute.get(t, np.nan))})" for t in traces]
    ticks = list(x) + ([len(traces)] if shown else [])
    ax.set_xticks(ticks, labels + (["paper\n(mean)"] if shown else []), fontsize=7)
    ax.set_ylabel(ylabel, fontsize=8)
    if percent:
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.tick_params(axis="y", labelsize=7)
    if title:
        ax.set_title(title, fontsize=9)
    finite = np.concatenate([table.to_numpy(dtype=float).ravel(), [v for _, v in shown]])
    finite = finite[np.isfinite(finite)]
    if log:
        log_axis(ax, finite)
    elif finite.size:
        ax.set_ylim(0, max(1.15, float(finite.max()) * 1.12) if ref is not None else float(finite.max()) * 1.15 or 1)
    handles, names = ax.get_legend_handles_labels()
    if flags is not None and flags.to_numpy().any():
        handles.append(matplotlib.patches.Patch(fill=False, hatch=OVERLOAD_HATCH, edgecolor=OVERLOAD_EDGE))
        names.append(OVERLOAD_NOTE)
    ax.legend(handles, names, fontsize=6, ncol=min(len(names), 5), loc="upper center", bbox_to_anchor=(0.5, 1.0),
              frameon=False, handlelength=1.2, columnspacing=0.8)
    ax.grid(axis="y", linewidth=0.3, alpha=0.5)


def stacked_bars(ax, parts: dict, absolute: pd.Series | None = None, ylabel: str = "", title: str = "",
                 overload: pd.DataFrame | None = None) -> None:
    """Grouped bars stacked from ``parts`` (``label -> traces x series table``, all
    with the same index and columns, stacked in the order given; the first part
    solid, later ones lighter).  ``absolute`` (by trace) is printed under each trace.
    Totals spanning more than :data:`SPAN_LIMIT` go on a log axis; ``overload``
    (bools, traces x series) hatches the overloaded runs' stacks."""
    tables = list(parts.values())
    traces, series = list(tables[0].index), list(tables[0].columns)
    width = 0.8 / max(len(series), 1)
    x = np.arange(len(traces))
    top = 0.0
    totals: dict = {}
    for i, s in enumerate(series):
        color, _ = style(s, i)
        pos = x - 0.4 + width * (i + 0.5)
        bottom = np.zeros(len(traces))
        for j, (part, t) in enumerate(parts.items()):
            vals = np.nan_to_num(t[s].to_numpy(dtype=float))
            ax.bar(pos, vals, width, bottom=bottom, color=color if j == 0 else palette.lighter(color),
                   edgecolor="black", linewidth=0.4, label=s if j == 0 else None)
            bottom = bottom + vals
            top = max(top, float(bottom.max()) if bottom.size else 0.0)
        totals[s] = bottom
        if overload is not None and s in overload.columns:
            hit = overload[s].reindex(traces).fillna(False).astype(bool).to_numpy()
            mark_overloaded(ax, pos[hit], bottom[hit], width=width)
    if wide_span(np.concatenate(list(totals.values()))):
        log_axis(ax, np.concatenate(list(totals.values())))
    else:
        ax.set_ylim(0, max(1.0, top) * 1.2)  # room for the legend above the bars
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.6)
    labels = traces if absolute is None else [f"{t}\n({fmt_abs(absolute.get(t, np.nan))})" for t in traces]
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    if title:
        ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6, ncol=len(series), loc="upper center", frameon=False)
    ax.grid(axis="y", linewidth=0.3, alpha=0.5)


def boxes(ax, stats: pd.DataFrame, threshold: float | None = None, ylabel: str = "", title: str = "") -> None:
    """Box per row of ``stats`` (index = labels; columns q05, q25, median, q75, q95):
    box = interquartile range, red line = median, whiskers = 5th/95th percentiles."""
    x = np.arange(len(stats))
    for i, (_, r) in enumerate(stats.iterrows()):
        ax.add_patch(matplotlib.patches.Rectangle((i - 0.3, r.q25), 0.6, max(r.q75 - r.q25, 1e-9),
                                                  facecolor="#f2d13d", edgecolor="black", linewidth=0.5))
        ax.plot([i - 0.3, i + 0.3], [r["median"], r["median"]], color="red", linewidth=1.2)
        ax.plot([i, i], [r.q05, r.q25], color="black", linewidth=0.5)
        ax.plot([i, i], [r.q75, r.q95], color="black", linewidth=0.5)
        for q in (r.q05, r.q95):
            ax.plot([i - 0.12, i + 0.12], [q, q], color="black", linewidth=0.5)
    if threshold is not None:
        ax.axhline(threshold, color="gray", linestyle="--", linewidth=0.6)
    ax.set_xlim(-0.6, len(stats) - 0.4)
    top = max(float(stats.q95.max()) if len(stats) else 0, threshold or 0)
    ax.set_ylim(0, top * 1.08 or 1)
    ax.set_xticks(x, list(stats.index), fontsize=7)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    if title:
        ax.set_title(title, fontsize=9)


def range_bars(ax, table: pd.DataFrame, ylabel: str = "", title: str = "", threshold: float | None = None) -> None:
    """Floating bars from ``lo`` to ``hi`` with a marker at ``mean``; ``table`` has
    columns trace, scheme, lo, mean, hi (one bar per trace and scheme).  Ends
    spanning more than :data:`SPAN_LIMIT` go on a log axis."""
    traces = list(dict.fromkeys(table["trace"]))
    schemes = list(dict.fromkeys(table["scheme"]))
    width = 0.8 / max(len(schemes), 1)
    for i, s in enumerate(schemes):
        color, hatch = style(s, i)
        sub = table[table["scheme"] == s].set_index("trace").reindex(traces)
        pos = np.arange(len(traces)) - 0.4 + width * (i + 0.5)
        ax.bar(pos, (sub["hi"] - sub["lo"]).to_numpy(float), width, bottom=sub["lo"].to_numpy(float), label=s,
               color=color, hatch=hatch, edgecolor="black", linewidth=0.4, alpha=0.85)
        ax.plot(pos, sub["mean"].to_numpy(float), "k_", markersize=6)
    if threshold is not None:
        ax.axhline(threshold, color="gray", linestyle="--", linewidth=0.6)
    ends = table[["lo", "hi"]].to_numpy(dtype=float)
    if wide_span(ends):
        log_axis(ax, np.append(ends, threshold or np.nan), room=3.0)
    else:
        ax.set_ylim(0, max(float(table["hi"].max()), threshold or 0) * 1.12)
    ax.set_xticks(np.arange(len(traces)), traces, fontsize=7)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=6, ncol=len(schemes), frameon=False, loc="upper center")
    if title:
        ax.set_title(title, fontsize=9)


def panel_grid(n: int, ncols: int = 5, width_in: float = 10.0, height_in: float = 2.0):
    """A grid with one small axes per item (unused axes hidden); returns (fig, flat axes)."""
    ncols = max(1, min(ncols, n))
    nrows = max(1, -(-n // ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(width_in * ncols / 5, 4.0), height_in * nrows),
                             squeeze=False, layout=LAYOUT)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def lines(ax, data: dict, xlabel: str = "", ylabel: str = "", title: str = "", step: bool = False) -> None:
    """One line per ``label -> (x, y)`` in ``data``."""
    for i, (label, (x, y)) in enumerate(data.items()):
        color, _ = style(label, i)
        if step:
            ax.step(x, y, where="post", label=label, color=color, linewidth=0.9)
        else:
            ax.plot(x, y, label=label, color=color, linewidth=0.9)
    ax.set_xlabel(xlabel, fontsize=7)
    ax.set_ylabel(ylabel, fontsize=7)
    ax.tick_params(labelsize=6)
    if title:
        ax.set_title(title, fontsize=8)


def save(fig, out_dir, stem: str) -> list[Path]:
    """Write ``stem.png`` and ``stem.pdf`` into ``out_dir``; close the figure.
    The figure keeps its own layout engine (constrained, from :func:`figure`)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.pdf"]
    fig.savefig(paths[0], dpi=150)
    fig.savefig(paths[1])
    plt.close(fig)
    return paths
