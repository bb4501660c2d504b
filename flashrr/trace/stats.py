"""Summary statistics of a block trace, as the papers' trace tables report them.

:func:`trace_stats` returns the columns of Shuffler's Table 2 (request count,
read ratio, average read size, hot ratio, footprint) plus PhasedRR's variant of
the hot ratio and a few companions.  Everything is computed at page
granularity: a request of ``size`` bytes at byte ``offset`` touches the logical
pages ``offset // page`` .. ``(offset + size - 1) // page`` inclusive.

The work is vectorised.  When the touched page range is compact, per-page
counts come from a difference array (``np.bincount`` of first pages minus that
of one-past-last pages, then ``np.cumsum``), which never expands requests into
pages; when it is sparse (huge offsets), every touched page is listed
(``np.repeat``) and counted with ``np.unique``.  A trace of two million requests
takes a fraction of a second.
"""
from __future__ import annotations

import numpy as np

from .core import Trace

__all__ = ["trace_stats", "STAT_KEYS"]

#: The keys of the dict returned by :func:`trace_stats`, in display order.
STAT_KEYS = (
    "requests",
    "read_ratio",
    "avg_read_size_bytes",
    "avg_write_size_bytes",
    "avg_request_size_bytes",
    "hot_ratio",
    "hot_ratio_4",
    "footprint_bytes",
    "duration_s",
)

# The difference-array path is used while the touched page range is at most this
# many times the number of touched pages (plus a fixed slack); beyond that,
# listing the pages and np.unique is cheaper in memory.
_DENSE_SPAN_FACTOR = 4
_DENSE_SPAN_SLACK = 1 << 20


def trace_stats(trace: Trace, page_size_bytes: int = 8192) -> dict:
    """Statistics of ``trace`` at a page size of ``page_size_bytes``.

    Returns a dict with the keys of :data:`STAT_KEYS`:

    * ``requests`` (int): number of requests.
    * ``read_ratio`` (float): reads / requests.
    * ``avg_read_size_bytes``, ``avg_write_size_bytes``,
      ``avg_request_size_bytes`` (float): mean request size in bytes over the
      reads, the writes, and all requests.
    * ``hot_ratio`` (float): among the distinct pages that are read, the
      fraction read at least twice (Shuffler's "Hot R").
    * ``hot_ratio_4`` (float): among the distinct pages that are read, the
      fraction read at least four times (PhasedRR's "Hot R": addresses
      "accessed not less than four times" over the read address space).
    * ``footprint_bytes`` (int): distinct pages touched by any request (read or
      write) times ``page_size_bytes``.
    * ``duration_s`` (float): arrival time of the last request, in seconds.

    A read touching a page counts once for that page, however many of its
    bytes it covers.  Writes do not count towards the hot ratios.  Every
    statistic of an empty trace (or every read statistic of a trace without
    reads) is 0.
    """
    if isinstance(page_size_bytes, bool) or not isinstance(page_size_bytes, (int, np.integer)) \
            or page_size_bytes <= 0:
        raise ValueError(f"trace_stats: page_size_bytes must be a positive integer (got {page_size_bytes!r})")
    page = int(page_size_bytes)
    n = len(trace)
    is_write = trace.is_write
    size = trace.size
    n_writes = int(np.count_nonzero(is_write))
    n_reads = n - n_writes
    out = dict.fromkeys(STAT_KEYS, 0.0)
    out["requests"] = n
    out["footprint_bytes"] = 0
    if n == 0:
        return out

    out["read_ratio"] = n_reads / n
    out["avg_request_size_bytes"] = float(size.mean())
    if n_reads:
        out["avg_read_size_bytes"] = float(size[~is_write].mean())
    if n_writes:
        out["avg_write_size_bytes"] = float(size[is_write].mean())
    out["duration_s"] = trace.duration_ns / 1e9

    first = trace.offset // page
    last = (trace.offset + size - 1) // page
    reads = ~is_write
    out["footprint_bytes"] = int(np.count_nonzero(_page_counts(first, last))) * page
    if n_reads:
        counts = _page_counts(first[reads], last[reads])
        counts = counts[counts > 0]
        out["hot_ratio"] = float(np.count_nonzero(counts >= 2) / counts.size)
        out["hot_ratio_4"] = float(np.count_nonzero(counts >= 4) / counts.size)
    return out


def _page_counts(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """How many of the requests ``first[i] .. last[i]`` (pages, inclusive) touch each page.

    The result lists every touched page once (in no particular order) and may
    also hold zeros for untouched pages inside the touched range.
    """
    if first.size == 0:
        return np.zeros(0, dtype=np.int64)
    lo = int(first.min())
    span = int(last.max()) - lo + 1
    n_pages = last - first + 1
    if span <= _DENSE_SPAN_FACTOR * int(n_pages.sum()) + _DENSE_SPAN_SLACK:
        # Compact range: +1 at each request's first page, -1 after its last page, running sum.
        delta = np.bincount(first - lo, minlength=span + 1) - np.bincount(last + 1 - lo, minlength=span + 1)
        return np.cumsum(delta[:span])
    # Sparse range (huge offsets): list every touched page and count the distinct ones.
    starts = np.cumsum(n_pages) - n_pages  # index of each request's first page in the list
    within = np.arange(int(n_pages.sum()), dtype=np.int64) - np.repeat(starts, n_pages)
    return np.unique(np.repeat(first, n_pages) + within, return_counts=True)[1]
