"""A paper's figures: :class:`Figure` (an id's drawing function, written as PNG,
PDF and CSV), :func:`make_figures`, and the drawings several papers share: bars
normalised to a reference scheme (:func:`bar_figure`) and the CDF of the slowest
1% of response times (:func:`tail_cdf_figure`).

A figure whose data is missing raises :class:`FigureDataError` naming the figure
and what it lacked; it is never drawn empty.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from . import plots
from .trace_specs import REAL_GROUP


class FigureDataError(ValueError):
    """A figure cannot be drawn because the runs hold no data for it."""


def need(ok, figure: str, what: str) -> None:
    """Raise :class:`FigureDataError` naming ``figure`` and ``what`` it lacks unless ``ok``."""
    if not ok:
        raise FigureDataError(f"{figure}: cannot be drawn: {what}")


def overload_flags(df: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """Whether any run of ``df`` (tidy runs with ``trace`` and ``scheme``) behind each
    cell of ``like`` (traces x schemes) was overloaded
    (:func:`~flashrr.reproduce.plots.overloaded`); False where no run carries
    ``die_idle_fraction_min``."""
    flags = pd.DataFrame(False, index=like.index, columns=like.columns)
    if df.empty or "die_idle_fraction_min" not in df.columns:
        return flags
    hit = df.assign(over=plots.overloaded(df["die_idle_fraction_min"]))
    hit = hit.pivot_table(index="trace", columns="scheme", values="over", aggfunc="max", sort=False)
    return hit.reindex_like(flags).fillna(False).astype(bool)


def overload_table(runs, group: str, device: str | None, table: pd.DataFrame) -> pd.DataFrame:
    """:func:`overload_flags` of the runs of ``group`` on ``device`` behind ``table``."""
    df = runs.frame(group)
    if device is not None and not df.empty:
        df = df[df["device"] == device]
    return overload_flags(df, table)


def normalized(runs, group: str, metric: str, device: str | None, ref: str, schemes, with_real: bool = False):
    """(table normalised to the ``ref`` column, ``ref``'s absolute values, long
    data with ``normalized`` and ``overloaded``) of ``metric`` as traces x
    ``schemes``; ``with_real`` appends the rows of group :data:`REAL_GROUP` (the
    real samples), if it ran."""
    t = runs.table(group, metric, device, schemes)
    need(not t.empty and ref in t.columns, f"{metric} of group {group!r}",
         f"no {metric} runs of {ref} on device {device!r} (is group {group!r} in the runs?)")
    over = overload_table(runs, group, device, t)
    if with_real:
        real = runs.table(REAL_GROUP, metric, device, schemes)
        if not real.empty:
            real = real.reindex(columns=t.columns)
            t = pd.concat([t, real])
            over = pd.concat([over, overload_table(runs, REAL_GROUP, device, real)])
    norm = t.div(t[ref].where(t[ref] != 0), axis=0)
    long = t.reset_index().melt(id_vars="trace", var_name="scheme", value_name=metric)
    long["normalized"] = norm.reset_index().melt(id_vars="trace", value_name="n")["n"].to_numpy()
    long["overloaded"] = over.reset_index().melt(id_vars="trace", value_name="o")["o"].to_numpy()
    return norm, t[ref], long


def bar_flags(long: pd.DataFrame, norm: pd.DataFrame) -> pd.DataFrame:
    """The ``overloaded`` column of :func:`normalized`'s long data as a table like ``norm``."""
    return long.pivot_table(index="trace", columns="scheme", values="overloaded", aggfunc="max",
                            sort=False).reindex_like(norm).fillna(False).astype(bool)


def paper_marks(claims, figure: str, ref: str, metric: str | None = None) -> dict:
    """``{scheme: 1 + paper change / 100}``: the paper's mean change against ``ref``
    of every :class:`~flashrr.reproduce.claims.Claim` of ``figure`` (and ``metric``,
    when given) that states one as a change (a mean over traces, not a bound), on
    the scale of bars normalised to ``ref``."""
    return {c.scheme: 1.0 + c.paper_pct / 100.0 for c in claims
            if c.figure == figure and c.ref == ref and c.agg == "mean" and np.isfinite(c.paper_pct)
            and c.expect in ("lower", "higher", "parity")
            and (metric is None or c.metric == metric)}


def with_paper(long: pd.DataFrame, marks: dict | None) -> pd.DataFrame:
    """``long`` data (a ``scheme`` column) with the paper's value of each scheme, NaN where it gives none."""
    return long.assign(paper_normalized=long["scheme"].map(marks or {}).astype(float))


def bar_figure(runs, group, device, metrics, ylabels, ref, schemes, titles=None, scale=None, with_real=False,
               marks=None):
    """One panel of bars normalised to ``ref`` per metric (reference's absolute
    value under each trace, divided by ``scale[i]`` if given); data in long form
    with columns trace, scheme, value, normalized, overloaded, paper_normalized,
    metric, device.  ``with_real``: the real samples' bars follow the traces'
    (:func:`normalized`).  ``marks``: metric -> :func:`paper_marks`."""
    tables = [normalized(runs, group, metric, device, ref, schemes, with_real) for metric in metrics]
    fig, axes = plots.figure(ncols=1, nrows=len(metrics), width_in=8.0)
    frames = []
    for i, (metric, ylabel, (norm, absolute, long)) in enumerate(zip(metrics, ylabels, tables)):
        shown = absolute / scale[i] if scale else absolute
        paper = (marks or {}).get(metric)
        plots.normalized_bars(axes[i, 0], norm, ref, shown, ylabel=ylabel, title=(titles or [""] * len(metrics))[i],
                              overload=bar_flags(long, norm), paper=paper)
        frames.append(with_paper(long, paper).assign(metric=metric, device=device).rename(columns={metric: "value"}))
    return fig, pd.concat(frames, ignore_index=True)


def tail_cdf(hist: np.ndarray, from_q: float = 0.99) -> tuple[np.ndarray, np.ndarray]:
    """(latency ns, CDF) of the slowest ``1 - from_q`` of a latency histogram."""
    from .._core.layout import hist_bucket_bounds

    nz = np.flatnonzero(hist)
    if nz.size == 0:
        return np.zeros(0), np.zeros(0)
    _, hi = hist_bucket_bounds(nz)
    cdf = np.cumsum(hist[nz]) / hist.sum()
    keep = cdf >= from_q
    first = max(int(np.argmax(keep)) - 1, 0)
    return (hi[first:] - 1).astype(float), cdf[first:]


def tail_cdf_figure(runs, rows: pd.DataFrame, traces, schemes, fid: str):
    """One panel per trace: the CDF of the slowest 1% of I/O response times (x
    in ms) of each scheme of ``schemes``, from the kept ``hist`` of the runs
    ``rows``; data columns trace, scheme, latency_ns, cdf."""
    by_trace: dict = {}
    data = []
    for _, r in rows.iterrows():
        h = runs.artifacts(r["key"]).get("hist")
        if h is None:
            continue
        x, y = tail_cdf(np.asarray(h["io"]))
        by_trace.setdefault(r["trace"], {})[r["scheme"]] = (x / 1e6, y)
        data += [{"trace": r["trace"], "scheme": r["scheme"], "latency_ns": a, "cdf": b} for a, b in zip(x, y)]
    shown = [t for t in traces if t in by_trace]
    need(shown, fid, "no latency histograms in the 'main' runs")
    fig, axes = plots.panel_grid(len(shown))
    for ax, trace in zip(axes, shown):
        series = {s: by_trace[trace][s] for s in schemes if s in by_trace[trace]}
        plots.lines(ax, series, xlabel="response time (ms)", ylabel="CDF", title=trace, step=True)
        ax.set_ylim(0.99, 1.0005)
    axes[0].legend(fontsize=5, frameon=False)
    return fig, pd.DataFrame(data, columns=["trace", "scheme", "latency_ns", "cdf"])


@dataclass(frozen=True)
class Figure:
    """A paper figure: ``fn(data)`` returns ``(matplotlib figure, data DataFrame)``;
    ``groups`` names the experiment groups it needs."""

    stem: str
    title: str
    groups: tuple
    fn: Callable

    def make(self, runs, out) -> list:
        """Draw the figure and write its PNG, PDF and CSV into ``out``; returns the paths."""
        fig, data = self.fn(runs)
        fig.suptitle(self.title, fontsize=9)
        paths = plots.save(fig, out, self.stem)
        csv = Path(out) / f"{self.stem}.csv"
        data.to_csv(csv, index=False)
        return paths + [csv]


def make_figures(figures: dict, wanted, runs, out, timings: dict, not_drawn: dict | None = None) -> dict:
    """Make every figure id of ``wanted`` found in ``figures``; its wall time (s)
    goes to ``timings[f"{id}_s"]``.  Returns ``{id: [paths]}``.  A figure whose
    data is missing (:class:`FigureDataError`) is left out, with its reason in
    ``not_drawn[id]`` when ``not_drawn`` is given, and otherwise raises."""
    written = {}
    for fid in wanted:
        if fid in figures:
            t1 = time.perf_counter()
            try:
                written[fid] = figures[fid].make(runs, out)
            except FigureDataError as e:
                if not_drawn is None:
                    raise
                not_drawn[fid] = str(e)
                for old in Path(out).glob(f"{figures[fid].stem}.*"):  # no stale drawing of an earlier run
                    old.unlink()
            timings[f"{fid}_s"] = round(time.perf_counter() - t1, 2)
    return written

