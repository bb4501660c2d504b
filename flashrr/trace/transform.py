"""Pure transformations of a :class:`Trace`; each returns a new Trace with the same name.

Each also works on any run of consecutive requests (the chunks of a streamed
trace, see :mod:`flashrr.trace.stages`): times are kept as they are, never
rebased, and the per-request work is in helpers the streaming stages share.

* :func:`repeat` — play the trace N times back to back (the papers repeat
  traces 128 times to trigger enough read reclaims).
* :func:`amplify_reads` — repeat every read RAF times (Cocktail's read
  amplification factor).
* :func:`scale_time` — multiply arrival times (compress or stretch the trace).
* :func:`fold` — map addresses onto a device's logical capacity.
* :func:`spread_ties` — spread requests that share a coarse timestamp over
  the tracer's time resolution.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .core import Trace, TraceError

__all__ = ["repeat", "amplify_reads", "scale_time", "fold", "repeat_period", "spread_ties"]

_INT64_MAX = int(np.iinfo(np.int64).max)


def _check_trace(trace) -> None:
    if not isinstance(trace, Trace):
        raise TraceError(f"expected a Trace, got {type(trace).__name__}")


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise TraceError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def repeat_period(n_requests: int, duration_ns: int, n: int = 1) -> int:
    """The shift in ns between copies when ``n_requests`` requests lasting
    ``duration_ns`` are played back to back: ``duration_ns`` plus the mean
    inter-arrival gap ``duration_ns // (n_requests - 1)`` (at least 1 ns).
    The engines use the same period for ``repeat``.  TraceError if ``n``
    copies overflow int64 ns."""
    period = duration_ns + max(1, duration_ns // max(1, n_requests - 1))
    if (n - 1) > (_INT64_MAX - duration_ns) // period:
        raise TraceError(f"repeating a trace of {duration_ns} ns {n} times overflows int64 ns")
    return period


def repeat(trace: Trace, n: int) -> Trace:
    """The trace played ``n`` times back to back.

    Copy ``r`` (0-based) is shifted by ``r * (duration_ns + gap_ns)``, where
    ``gap_ns`` is the trace's mean inter-arrival time (``duration_ns //
    (len - 1)``, at least 1 ns).  So copies never overlap, arrival times keep
    increasing from one copy to the next, and the gap between the last request
    of a copy and the first of the next is a typical inter-arrival gap.
    """
    _check_trace(trace)
    n = _positive_int(n, "repeat count n")
    m = len(trace)
    if m == 0 or n == 1:
        return Trace(trace.time_ns, trace.offset, trace.size, trace.is_write, name=trace.name, rebase=False)
    period = repeat_period(m, trace.duration_ns, n)
    shift = np.repeat(np.arange(n, dtype=np.int64) * period, m)
    return Trace(np.tile(trace.time_ns, n) + shift, np.tile(trace.offset, n), np.tile(trace.size, n),
                 np.tile(trace.is_write, n), name=trace.name, rebase=False)


AMPLIFY_SPACINGS = ("same", "spread")


def amplify_reads(trace: Trace, raf: int, spacing: str = "same", next_time_ns: int | None = None) -> Trace:
    """Every read repeated ``raf`` times in a row (Cocktail's read amplification
    factor); writes are kept once.  ``raf=1`` returns an equal trace.

    ``spacing="same"``: every copy arrives at the read's time.  ``"spread"``: copy
    ``j`` (0-based) arrives ``floor(j * gap / raf)`` ns after the read, where ``gap``
    (ns) is the time to the next request of the trace, or to ``next_time_ns`` for the
    trace's last request (0 when None), so the copies fill the gap evenly and stay
    before the next request."""
    _check_trace(trace)
    raf = _positive_int(raf, "read amplification factor raf")
    if spacing not in AMPLIFY_SPACINGS:
        raise TraceError(f"amplify_reads: spacing must be one of {list(AMPLIFY_SPACINGS)}, got {spacing!r}")
    counts = np.where(trace.is_write, 1, raf)
    times = np.repeat(trace.time_ns, counts)
    if spacing == "spread" and len(trace):
        t = trace.time_ns
        last = int(t[-1]) if next_time_ns is None else int(next_time_ns)
        if last < int(t[-1]):
            raise TraceError(f"amplify_reads: next_time_ns {last} is before the last request ({int(t[-1])} ns)")
        gap = np.diff(t, append=np.int64(last))
        first = np.cumsum(counts) - counts  # index of each request's first copy
        j = np.arange(len(times), dtype=np.int64) - np.repeat(first, counts)
        times = times + (j * np.repeat(gap, counts)) // raf
    return Trace(times, np.repeat(trace.offset, counts),
                 np.repeat(trace.size, counts), np.repeat(trace.is_write, counts), name=trace.name, rebase=False)


def scale_time(trace: Trace, factor: float) -> Trace:
    """Arrival times multiplied by ``factor`` (> 0) and rounded to the nearest
    ns (half to even); ``factor < 1`` compresses the trace (raises the load),
    ``factor > 1`` stretches it.  An integral factor is applied exactly; other
    factors go through float64, exact to the ns for times below 2**53 ns
    (about 104 days)."""
    _check_trace(trace)
    factor = check_time_factor(factor)
    new = scale_times(trace.time_ns, factor)
    return Trace(new, trace.offset, trace.size, trace.is_write, name=trace.name, rebase=False)


def check_time_factor(factor) -> float:
    """``factor`` if it is a finite number > 0, else TraceError."""
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not math.isfinite(factor) \
            or factor <= 0:
        raise TraceError(f"time scale factor must be a finite number > 0, got {factor!r}")
    return factor


def scale_times(t: np.ndarray, factor: float) -> np.ndarray:
    """Times ``t`` (int64 ns) times ``factor``, rounded as :func:`scale_time` says."""
    tmax = int(t.max()) if len(t) else 0
    if tmax * float(factor) >= 2.0 ** 63:
        raise TraceError(f"scaling {tmax} ns by {factor} overflows int64 ns")
    if float(factor).is_integer():
        return t * int(factor)
    return np.rint(t.astype(np.float64) * float(factor)).astype(np.int64)


def fold(trace: Trace, capacity_bytes: int, page_size_bytes: int) -> Trace:
    """Addresses folded onto a device of ``capacity_bytes`` (its logical
    capacity) with pages of ``page_size_bytes``.

    The device holds ``n_pages = capacity_bytes // page_size_bytes`` whole
    pages.  A request whose first page is ``p`` (``offset // page_size``)
    moves to page ``p % n_pages``, keeping its offset within the page and its
    size.  If the request would then run past the last page, it is shifted
    down to end exactly on the last page (it starts at page ``n_pages -
    span``, ``span`` being the pages it touches).  So every request ends up
    in ``[0, n_pages * page_size_bytes)``, a request that fits without folding
    is unchanged, and a request that does not straddle the end lands on the
    page given by its original first page alone.  A request longer than the
    capacity is an error.
    """
    _check_trace(trace)
    n_pages, page = fold_pages(capacity_bytes, page_size_bytes)
    return Trace(trace.time_ns, fold_offsets(trace.offset, trace.size, n_pages, page), trace.size, trace.is_write,
                 name=trace.name, rebase=False)


def fold_pages(capacity_bytes: int, page_size_bytes: int) -> tuple[int, int]:
    """``(n_pages, page_size_bytes)`` of a fold onto ``capacity_bytes``; TraceError if no whole page fits."""
    page = _positive_int(page_size_bytes, "page_size_bytes")
    cap = _positive_int(capacity_bytes, "capacity_bytes")
    n_pages = cap // page
    if n_pages < 1:
        raise TraceError(f"capacity_bytes={cap} holds no whole page of {page} bytes")
    return n_pages, page


def fold_offsets(offset: np.ndarray, size: np.ndarray, n_pages: int, page: int, first_index: int = 0) -> np.ndarray:
    """The folded byte offsets of requests (see :func:`fold`); ``first_index``
    is the index of ``offset[0]`` in its trace, for the error message."""
    first = offset // page
    within = offset % page
    span = (within + size + page - 1) // page
    if len(offset) and span.max() > n_pages:
        i = int(np.argmax(span > n_pages))
        raise TraceError(f"request {first_index + i} ({int(size[i])} bytes at offset {int(offset[i])}) touches "
                         f"{int(span[i])} pages, more than the {n_pages} pages of the capacity")
    start = first % n_pages
    start = np.where(start + span > n_pages, n_pages - span, start)
    return start * page + within


def spread_ties(trace: Trace, resolution_ns: int, next_time_ns: int | None = None) -> Trace:
    """Requests sharing one arrival time spread evenly over the tracer's time resolution.

    A tracer that writes whole seconds (Tencent CBS) gives every request of a
    second the same time, so a replay delivers them all at once.  Here the
    ``n`` requests of a group arriving at ``t`` (consecutive, in file order)
    arrive at ``t + k * span // n`` for ``k = 0 .. n - 1``, where ``span`` is
    ``resolution_ns`` or, if shorter, the gap to the next group's time (so
    times never decrease and a request never passes the next group).  The last
    group's next time is ``next_time_ns`` (None: none, ``span =
    resolution_ns``).  A trace whose times are all distinct is unchanged.
    """
    _check_trace(trace)
    resolution_ns = _positive_int(resolution_ns, "time resolution resolution_ns (ns)")
    return Trace(spread_tie_times(trace.time_ns, resolution_ns, next_time_ns), trace.offset, trace.size,
                 trace.is_write, name=trace.name, rebase=False)


def spread_tie_times(t: np.ndarray, resolution_ns: int, next_time_ns: int | None = None) -> np.ndarray:
    """The arrival times of :func:`spread_ties` (int64 ns) for the non-decreasing times ``t``."""
    t = np.asarray(t, dtype=np.int64)
    if not t.size:
        return t.copy()
    if next_time_ns is not None and next_time_ns < t[-1]:
        raise TraceError(f"spread_ties: next_time_ns {next_time_ns} is before the last request ({int(t[-1])} ns)")
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    counts = np.diff(np.r_[starts, t.size])
    group_t = t[starts]
    following = np.r_[group_t[1:], group_t[-1] + resolution_ns if next_time_ns is None else next_time_ns]
    span = np.minimum(following - group_t, resolution_ns)
    k = np.arange(t.size, dtype=np.int64) - np.repeat(starts, counts)
    return t + k * np.repeat(span, counts) // np.repeat(counts, counts)
