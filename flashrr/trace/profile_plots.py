"""Figures of a read-disturb profile (:mod:`flashrr.trace.profile`).

:func:`plot_profile` writes one PNG and one PDF per figure into a directory:

* ``read_concentration``: for pages, block-sized regions and regions, the
  share of page reads taken by the busiest fraction of touched units (a
  Lorenz curve seen from the top; log x), and the CDF of the read count per
  unit (log x);
* ``write_concentration``: the same for page writes;
* ``stack_distance``: the hit ratio of a read-only LRU page cache against its
  size in pages, which is the CDF of the stack distance plus one over all
  page reads (log x), with the profile's cache sizes marked;
* ``reuse_time``: CDFs of the reuse time and of the read-after-write gap (log x);
* ``arrivals``: CDFs of the inter-arrival gaps and the idle periods (log x,
  the idle threshold marked), and of the burst lengths;
* ``sizes``: CDFs of the request size per operation (log x) and of the
  sequential run length per operation.

Figures are drawn on matplotlib's Agg canvas directly, so no display is
needed and pyplot's global state (and any backend a notebook chose) is left
alone.  A log axis cannot show 0: zero times and sizes are drawn at 1 (the
axis label says so).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["plot_profile", "FIGURES"]

#: The figures :func:`plot_profile` writes, by file stem.
FIGURES = ("read_concentration", "write_concentration", "stack_distance", "reuse_time", "arrivals", "sizes")

# Largest number of points drawn per curve; larger samples are drawn at evenly spaced ranks.
_MAX_POINTS = 1024
_UNIT_LABELS = ("page", "block", "region")
_NS_PER_S = 1e9


def plot_profile(profile, out_dir) -> list[Path]:
    """Write the figures of ``profile`` (a
    :class:`~flashrr.trace.profile.TraceProfile`) into ``out_dir`` (created if
    missing) as ``<figure>.png`` and ``<figure>.pdf``; returns the paths
    written, in the order of :data:`FIGURES`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, draw in zip(FIGURES, (_read_concentration, _write_concentration, _stack_distance, _reuse_time,
                                     _arrivals, _sizes)):
        fig = draw(profile)
        for ext in ("png", "pdf"):
            path = out / f"{stem}.{ext}"
            fig.savefig(path, dpi=120)
            written.append(path)
    return written


def _figure(n_panels: int, title: str):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # fixed margins: a layout engine would measure every tick label again at each save
    fig = Figure(figsize=(5.0 * n_panels, 3.8))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, n_panels, squeeze=False)[0]
    fig.subplots_adjust(left=0.13 / n_panels, right=1 - 0.03 / n_panels, bottom=0.14, top=0.9, wspace=0.25)
    fig.suptitle(title, fontsize=10)
    return fig, axes


def _ecdf(sample) -> tuple[np.ndarray, np.ndarray]:
    """``(x, F(x))`` of the empirical CDF, at up to :data:`_MAX_POINTS` ranks."""
    x = np.sort(np.asarray(sample))
    n = x.size
    idx = np.unique(np.linspace(0, n - 1, min(n, _MAX_POINTS)).round().astype(np.int64))
    return x[idx], (idx + 1) / n


def _no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what}", ha="center", va="center", transform=ax.transAxes)


def _cdf(ax, sample, label: str, scale: float = 1.0, floor: float | None = None) -> bool:
    """Draw the CDF of ``sample / scale`` (values below ``floor`` drawn at
    ``floor``); False when the sample is empty."""
    if not np.asarray(sample).size:
        return False
    x, f = _ecdf(sample)
    x = x / scale
    if floor is not None:
        x = np.maximum(x, floor)
    ax.step(x, f, where="post", label=label)
    return True


def _concentration(profile, counts_of, what: str, title: str):
    fig, (top, cdf) = _figure(2, title)
    any_data = False
    for unit, counts in zip(_UNIT_LABELS, counts_of(profile.samples)):
        if not counts.size or counts.sum() == 0:
            continue
        any_data = True
        desc = np.sort(counts)[::-1]
        share = np.cumsum(desc, dtype=np.float64) / desc.sum()
        idx = np.unique(np.geomspace(1, desc.size, min(desc.size, _MAX_POINTS)).round().astype(np.int64)) - 1
        label = _unit_label(profile, unit)
        top.plot((idx + 1) / desc.size, share[idx], label=label)
        _cdf(cdf, counts, label)
    for ax in (top, cdf):
        if not any_data:
            _no_data(ax, what)
            continue
        ax.set_xscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    top.set_xlabel("busiest fraction of touched units")
    top.set_ylabel(f"share of page {what}")
    cdf.set_xlabel(f"page {what} per unit")
    cdf.set_ylabel("CDF over touched units")
    return fig


def _unit_label(profile, unit: str) -> str:
    if unit == "page":
        return "page"
    pages = profile.block_pages if unit == "block" else profile.region_pages
    return f"{unit} ({pages:,} pages)"


def _read_concentration(profile):
    return _concentration(profile, lambda s: (s.page_read_counts, s.block_read_counts, s.region_read_counts),
                          "reads", f"{profile.trace}: where the page reads go")


def _write_concentration(profile):
    return _concentration(profile, lambda s: (s.page_write_counts, s.block_write_counts, s.region_write_counts),
                          "writes", f"{profile.trace}: where the page writes go")


def _stack_distance(profile):
    fig, (ax,) = _figure(1, f"{profile.trace}: read-only LRU page cache")
    d = profile.samples.stack_distances
    reuse = d[d >= 0]
    if not reuse.size:
        _no_data(ax, "re-reads")
        return fig
    # hit ratio at capacity C = share of page reads with distance < C: the CDF of distance + 1
    x, f = _ecdf(reuse + 1)
    ax.step(x, f * reuse.size / d.size, where="post", label="hit ratio")
    for k, (c, h) in enumerate(profile.reuse.lru_hit_ratio):
        ax.plot([c], [h], "os^vD"[k % 5], color=f"C{k + 1}", label=f"{c:,} pages: {100 * h:.1f}%")
    ax.axhline(profile.reuse.reread_share, color="grey", ls=":", label="re-read share (infinite cache)")
    ax.set_xscale("log")
    ax.set_xlabel("cache size (pages) = stack distance + 1")
    ax.set_ylabel("hit ratio over all page reads")
    ax.set_ylim(0, 1)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _reuse_time(profile):
    fig, (ax,) = _figure(1, f"{profile.trace}: time to the next read of a page")
    s = profile.samples
    drawn = _cdf(ax, s.reuse_time_ns, "reuse time (read to read)", _NS_PER_S, 1e-9)
    drawn |= _cdf(ax, s.read_after_write_ns, "read after write (write to first read)", _NS_PER_S, 1e-9)
    if not drawn:
        _no_data(ax, "re-reads")
        return fig
    ax.set_xscale("log")
    ax.set_xlabel("time (s; 0 drawn at 1 ns)")
    ax.set_ylabel("CDF")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _arrivals(profile):
    fig, (gaps, bursts) = _figure(2, f"{profile.trace}: arrivals")
    s = profile.samples
    drawn = _cdf(gaps, s.interarrival_ns, "inter-arrival gap", _NS_PER_S, 1e-9)
    drawn |= _cdf(gaps, s.idle_period_ns, "idle period", _NS_PER_S, 1e-9)
    if drawn:
        gaps.axvline(profile.arrivals.idle_threshold_ns / _NS_PER_S, color="grey", ls=":", label="idle threshold")
        gaps.set_xscale("log")
        gaps.legend(fontsize=8)
    else:
        _no_data(gaps, "gaps")
    gaps.set_xlabel("time (s; 0 drawn at 1 ns)")
    gaps.set_ylabel("CDF")
    if not _cdf(bursts, s.burst_requests, "burst"):
        _no_data(bursts, "requests")
    else:
        bursts.set_xscale("log")
    bursts.set_xlabel("requests per burst")
    bursts.set_ylabel("CDF over bursts")
    for ax in (gaps, bursts):
        ax.grid(True, alpha=0.3)
    return fig


def _sizes(profile):
    fig, (sizes, runs) = _figure(2, f"{profile.trace}: request sizes and sequential runs")
    s = profile.samples
    drawn = _cdf(sizes, s.read_size_bytes, "read", 1024)
    drawn |= _cdf(sizes, s.write_size_bytes, "write", 1024)
    if drawn:
        sizes.set_xscale("log", base=2)
        sizes.legend(fontsize=8)
    else:
        _no_data(sizes, "requests")
    sizes.set_xlabel("request size (KiB)")
    sizes.set_ylabel("CDF over requests")
    drawn = _cdf(runs, s.read_run_requests, "read")
    drawn |= _cdf(runs, s.write_run_requests, "write")
    if drawn:
        runs.set_xscale("log")
        runs.legend(fontsize=8)
    else:
        _no_data(runs, "requests")
    runs.set_xlabel("requests per sequential run")
    runs.set_ylabel("CDF over runs")
    for ax in (sizes, runs):
        ax.grid(True, alpha=0.3)
    return fig
