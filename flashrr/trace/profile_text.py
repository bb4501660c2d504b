"""The text of a read-disturb profile (:func:`flashrr.trace.profile.trace_profile`):
tables of its read and write counts, reuse, arrivals, sequential runs and sizes, as
``flashrr trace profile`` prints them.  The figures are in
:mod:`flashrr.trace.profile_plots`."""
from __future__ import annotations


def _fmt_count(x) -> str:
    return "-" if x is None else f"{int(round(x)):,}"


def _fmt_pct(x) -> str:
    """A share as a percentage: one decimal, or two significant digits below 0.1%."""
    if x is None:
        return "-"
    return f"{100 * x:.1f}%" if x == 0 or abs(x) >= 0.001 else f"{100 * x:.2g}%"


def _fmt_real(x) -> str:
    return "-" if x is None else f"{x:,.2f}"


def _fmt_ns(x) -> str:
    """A duration in ns, in the largest unit that keeps it >= 1."""
    if x is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3), ("ns", 1)):
        if abs(x) >= scale or unit == "ns":
            v = x / scale
            return f"{v:,.0f} {unit}" if abs(v) >= 1000 else f"{v:.3g} {unit}"
    raise AssertionError("unreachable")


def _fmt_bytes(x) -> str:
    if x is None:
        return "-"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(x) >= scale:
            v = x / scale
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{x:.0f} B"


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    """Rows of cells, the first row a heading; first column left-aligned,
    the others right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(wd) if i == 0 else c.rjust(wd) for i, (c, wd) in enumerate(zip(r, widths)))
            .rstrip() for r in rows]


_SUMMARY_HEAD = ["", "count", "p10", "p50", "p90", "p99", "max"]


def _summary_row(label: str, s, fmt) -> list[str]:
    """A SampleSummary's count, quantiles (its fields named in the head) and maximum."""
    return [label, _fmt_count(s.count)] + [fmt(getattr(s, k)) for k in _SUMMARY_HEAD[2:-1]] + [fmt(s.max)]


def summary_text(p) -> str:
    """A :class:`~flashrr.trace.profile.TraceProfile` as text (what ``flashrr trace profile`` prints)."""
    lines = [f"{p.trace}: {p.requests:,} requests ({p.reads:,} reads, {p.writes:,} writes) over "
             f"{_fmt_ns(p.duration_ns)}; page {_fmt_bytes(p.page_size_bytes)}, block {p.block_pages:,} pages "
             f"({_fmt_bytes(p.block_pages * p.page_size_bytes)}), "
             f"region {_fmt_bytes(p.region_bytes)} ({p.region_pages:,} pages)"]
    units = (("page", "page"), ("block", f"block ({p.block_pages:,} p)"), ("region", f"region ({p.region_pages:,} p)"))
    rows = [["read counts", "touched", "page reads", "top 1%", "top 10%", "top 1", "Gini", "max", "mean"]]
    for key, label in units:
        c = getattr(p.read_counts, key)
        rows.append([label, _fmt_count(c.touched), _fmt_count(c.total), _fmt_pct(c.top_1pct_share),
                     _fmt_pct(c.top_10pct_share), _fmt_pct(c.top_1_share), f"{c.gini:.3f}", _fmt_count(c.max),
                     _fmt_real(c.mean)])
    lines += _table(rows, "")
    rows = [["write counts", "touched", "page writes", "top 10%", "Gini", "max", "mean"]]
    for key, label in units:
        c = getattr(p.write_counts, key)
        rows.append([label, _fmt_count(c.touched), _fmt_count(c.total), _fmt_pct(c.top_10pct_share),
                     f"{c.gini:.3f}", _fmt_count(c.max), _fmt_real(c.mean)])
    lines += _table(rows, "")
    r = p.reuse
    lines.append(f"page reads: {_fmt_pct(r.reread_share)} re-reads ({r.rereads:,} of {p.page_reads:,})")
    lines += _table([["reuse"] + _SUMMARY_HEAD[1:],
                     _summary_row("stack distance (pages)", r.stack_distance_pages, _fmt_count),
                     _summary_row("reuse time", r.reuse_time_ns, _fmt_ns),
                     _summary_row("read after write", r.read_after_write_ns, _fmt_ns)])
    lines.append("  read-only LRU page cache hit ratio: "
                 + ", ".join(f"{c:,} pages {_fmt_pct(h)}" for c, h in r.lru_hit_ratio))
    a = p.arrivals
    cv = "-" if a.interarrival_cv is None else f"{a.interarrival_cv:.2f}"
    lines.append(f"arrivals: mean gap {_fmt_ns(a.interarrival_ns.mean)}, CV {cv}; {a.idle_periods:,} idle "
                 f"periods (gaps > {_fmt_ns(a.idle_threshold_ns)}), {_fmt_pct(a.idle_time_share)} of the time")
    lines += _table([["arrivals"] + _SUMMARY_HEAD[1:],
                     _summary_row("inter-arrival gap", a.interarrival_ns, _fmt_ns),
                     _summary_row("idle period", a.idle_period_ns, _fmt_ns),
                     _summary_row("burst (requests)", a.burst_requests, _fmt_count)])
    lines.append(f"sequential: {_fmt_pct(p.continue_share)} of requests continue a run (reads "
                 f"{_fmt_pct(p.sequential.read.continue_share)}, writes {_fmt_pct(p.sequential.write.continue_share)})")
    lines += _table([["runs (requests)"] + _SUMMARY_HEAD[1:],
                     _summary_row("read runs", p.sequential.read.run_requests, _fmt_count),
                     _summary_row("write runs", p.sequential.write.run_requests, _fmt_count)])
    lines += _table([["sizes"] + _SUMMARY_HEAD[1:],
                     _summary_row("read", p.sizes.read.size_bytes, _fmt_bytes),
                     _summary_row("write", p.sizes.write.size_bytes, _fmt_bytes)])
    for op in ("read", "write"):
        common = getattr(p.sizes, op).common_sizes
        if common:
            lines.append(f"  most common {op} sizes: " + ", ".join(f"{_fmt_bytes(s)} {_fmt_pct(f)}" for s, f in common))
    return "\n".join(lines)
