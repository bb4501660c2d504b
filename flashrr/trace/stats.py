"""Summary statistics of a block trace, as the papers' trace tables report them.

:func:`trace_stats` returns the columns of Shuffler's Table 2 (request count,
read ratio, average read size, hot ratio, footprint) plus PhasedRR's variant of
the hot ratio and a few companions.  Everything is computed at page
granularity: a request of ``size`` bytes at byte ``offset`` touches the logical
pages ``offset // page`` .. ``(offset + size - 1) // page`` inclusive.

The work is vectorised and goes chunk by chunk over a streamed trace.  Within
a chunk, when the touched page range is compact, per-page counts come from a
difference array (``np.bincount`` of first pages minus that
of one-past-last pages, then ``np.cumsum``), which never expands requests into
pages; when it is sparse (huge offsets), every touched page is listed
(``np.repeat``) and counted with ``np.unique``.  A trace of two million requests
takes a fraction of a second.
"""
from __future__ import annotations

import numpy as np

from .cache import CachedTrace
from .core import Trace
from .source import MemorySource, TraceSource

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
    "tied_ratio",
)

# The difference-array path is used while the touched page range is at most this
# many times the number of touched pages (plus a fixed slack); beyond that,
# listing the pages and np.unique is cheaper in memory.
_DENSE_SPAN_FACTOR = 4
_DENSE_SPAN_SLACK = 1 << 20


def trace_stats(trace, page_size_bytes: int = 8192, chunk_requests: int | None = None) -> dict:
    """Statistics of ``trace`` at a page size of ``page_size_bytes``.

    ``trace`` is a :class:`Trace` or a :class:`~flashrr.trace.source.TraceSource`
    (read in chunks of ``chunk_requests`` requests, so a trace file's
    statistics never need the whole trace in memory; the page tallies need one
    byte per page of the touched address range, or per touched page when the
    range is sparse).  The statistics of a trace file's parse cache are
    remembered next to it (``<cache>.stats.json``, per page size) while the
    cache is valid.  Returns a dict with the keys of :data:`STAT_KEYS`:

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
    * ``tied_ratio`` (float): the share of requests that arrive at the same time
      as the request before them; near 1 when the tracer wrote coarse times
      (Tencent CBS writes whole seconds), which a pipeline's
      ``time_resolution_s`` spreads.

    A read touching a page counts once for that page, however many of its
    bytes it covers.  Writes do not count towards the hot ratios.  Every
    statistic of an empty trace (or every read statistic of a trace without
    reads) is 0.
    """
    if isinstance(page_size_bytes, bool) or not isinstance(page_size_bytes, (int, np.integer)) \
            or page_size_bytes <= 0:
        raise ValueError(f"trace_stats: page_size_bytes must be a positive integer (got {page_size_bytes!r})")
    page = int(page_size_bytes)
    if isinstance(trace, Trace):
        source, chunk_requests = MemorySource(trace), max(1, len(trace))
    elif isinstance(trace, TraceSource):
        source = trace
    else:
        raise TypeError(f"trace_stats: expected a Trace or a TraceSource, got {type(trace).__name__}")
    memo = source if isinstance(source, CachedTrace) else None
    if memo is not None:
        known = memo.remembered_stats(page)
        if known is not None and set(known) == set(STAT_KEYS):
            return {k: known[k] for k in STAT_KEYS}
    out = _stats(source, page, chunk_requests)
    if memo is not None:
        memo.remember_stats(page, out)
    return out


def _stats(source: TraceSource, page: int, chunk_requests: int | None) -> dict:
    info = source.info()
    n = info.n_requests
    out = dict.fromkeys(STAT_KEYS, 0.0)
    out["requests"] = n
    out["footprint_bytes"] = 0
    if n == 0:
        return out
    lo, hi = info.min_offset // page, info.max_end_byte // page
    touched, read = _PageTally(1, lo, hi), _PageTally(4, lo, hi)
    read_bytes = write_bytes = tied = 0
    prev_time = None  # the previous chunk's last arrival
    for c in source.chunks(chunk_requests):
        t = c.time_ns
        if t.size:
            tied += int(np.count_nonzero(t[1:] == t[:-1])) + int(prev_time is not None and t[0] == prev_time)
            prev_time = t[-1]
        first = c.offset // page
        last = (c.offset + c.size - 1) // page
        reads = ~c.is_write
        touched.add(first, last)
        read.add(first[reads], last[reads])
        read_bytes += int(c.size[reads].sum())
        write_bytes += int(c.size[c.is_write].sum())
    n_writes, n_reads = info.n_writes, info.n_reads
    out["read_ratio"] = n_reads / n
    out["avg_request_size_bytes"] = (read_bytes + write_bytes) / n
    if n_reads:
        out["avg_read_size_bytes"] = read_bytes / n_reads
    if n_writes:
        out["avg_write_size_bytes"] = write_bytes / n_writes
    out["duration_s"] = info.duration_ns / 1e9
    out["tied_ratio"] = tied / n
    out["footprint_bytes"] = touched.distinct() * page
    if n_reads:
        counts = read.counts()
        out["hot_ratio"] = float(np.count_nonzero(counts >= 2) / counts.size)
        out["hot_ratio_4"] = float(np.count_nonzero(counts >= 4) / counts.size)
    return out


class _PageTally:
    """Per-page counts, saturated at ``cap``, over requests added chunk by chunk.

    Pages ``lo .. hi`` (inclusive) are counted in a dense uint8 array while the
    range has at most :data:`_DENSE_TALLY_PAGES` pages; otherwise the touched
    pages are kept as a sorted array with their counts, and chunks are merged
    into it in batches (memory then follows the number of touched pages)."""

    def __init__(self, cap: int, lo: int, hi: int):
        self.cap, self.lo = cap, lo
        self.dense = np.zeros(hi - lo + 1, np.uint8) if hi - lo + 1 <= _DENSE_TALLY_PAGES else None
        self.pages = np.zeros(0, np.int64)
        self.tally = np.zeros(0, np.int64)
        self.pending: list = []
        self.n_pending = 0

    def add(self, first: np.ndarray, last: np.ndarray) -> None:
        if not first.size:
            return
        pages, counts = _page_counts(first, last)
        if self.dense is not None:
            i = pages - self.lo
            self.dense[i] = np.minimum(self.dense[i] + np.minimum(counts, self.cap), self.cap)
            return
        self.pending.append((pages, counts))
        self.n_pending += pages.size
        if self.n_pending > max(self.pages.size, _MERGE_PAGES):
            self._merge()

    def _merge(self) -> None:
        if not self.pending:
            return
        allp = np.concatenate([self.pages] + [p for p, _ in self.pending])
        allc = np.concatenate([self.tally] + [c for _, c in self.pending])
        self.pages, inv = np.unique(allp, return_inverse=True)
        self.tally = np.minimum(np.bincount(inv, weights=allc).astype(np.int64), self.cap)
        self.pending, self.n_pending = [], 0

    def counts(self) -> np.ndarray:
        """The count of every touched page (saturated at ``cap``), in page order."""
        if self.dense is not None:
            return self.dense[self.dense > 0]
        self._merge()
        return self.tally

    def distinct(self) -> int:
        return int(self.counts().size)


_DENSE_TALLY_PAGES = 1 << 26  # 64 MiB of tally per kind at most
_MERGE_PAGES = 1 << 22


def _page_counts(first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(pages, counts)``: every page touched by the requests ``first[i] ..
    last[i]`` (pages, inclusive) once, in increasing order, and how many of the
    requests touch it."""
    lo = int(first.min())
    span = int(last.max()) - lo + 1
    n_pages = last - first + 1
    if span <= _DENSE_SPAN_FACTOR * int(n_pages.sum()) + _DENSE_SPAN_SLACK:
        # Compact range: +1 at each request's first page, -1 after its last page, running sum.
        delta = np.bincount(first - lo, minlength=span + 1) - np.bincount(last + 1 - lo, minlength=span + 1)
        counts = np.cumsum(delta[:span])
        nz = np.flatnonzero(counts)
        return nz + lo, counts[nz]
    # Sparse range (huge offsets): list every touched page and count the distinct ones.
    starts = np.cumsum(n_pages) - n_pages  # index of each request's first page in the list
    within = np.arange(int(n_pages.sum()), dtype=np.int64) - np.repeat(starts, n_pages)
    return np.unique(np.repeat(first, n_pages) + within, return_counts=True)
