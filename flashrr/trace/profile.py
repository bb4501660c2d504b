"""The read-disturb profile of a block trace.

Read disturb hits the physical blocks whose pages are read most.  The device
preconditions the logical space in LPN order, so where a trace's logical
reads cluster, how soon they come back, and how they arrive decide which
blocks become read-hot and when.  :func:`trace_profile` measures that:

1. read counts per page, per block-sized region (``block_pages`` consecutive
   LPNs) and per ``region_bytes`` region: units touched, the share of all
   page reads taken by the busiest 1% and 10% of touched units and by the
   single busiest, the Gini coefficient, the largest and the mean count; the
   same for writes;
2. temporal locality of the page reads: LRU stack distances, reuse times,
   read-after-write gaps, the share of re-reads and the hit ratio of a
   read-only LRU page cache;
3. the arrival process: inter-arrival gaps, idle periods and bursts;
4. sequential runs per operation and request sizes per operation.

A request of ``size`` bytes at byte ``offset`` touches the pages ``offset //
page`` .. ``(offset + size - 1) // page``; every page it touches is one page
access (a read of three pages is three page reads).  Accesses are in trace
order, and within a request in increasing page order.

Quantiles (``p10``, ``p50``, ``p90``, ``p99``) are values of the sample: the
p-quantile is the smallest sample value x with at least a fraction p of the
sample <= x (p read as a decimal, so the p90 of 30 values is the 27th
smallest).

The whole trace is held in memory (a :class:`~flashrr.trace.source.TraceSource`
is read with ``to_trace()``), plus about 50 bytes per page access at the
peak: fine up to a few tens of millions of requests.  Time grows as n log n
in the page accesses; docs/traces.md ("Read-disturb profile") gives
measured figures.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil

import numpy as np

from .core import Trace
from .locality import (burst_lengths, gini, idle_periods, lru_hit_ratios, region_counts, sequential_runs,
                       stack_distances_from_previous, top_share)
from .profile_text import summary_text
from .source import TraceSource

__all__ = ["trace_profile", "TraceProfile", "SampleSummary", "CountDistribution", "UnitCounts", "ReuseProfile",
           "ArrivalProfile", "OpSequential", "OpSizes", "ByOp", "ProfileSamples", "DEFAULT_IDLE_THRESHOLD_NS",
           "DEFAULT_CACHE_PAGES", "DEFAULT_REGION_BYTES", "QUANTILES", "COMMON_SIZES"]

#: Gaps between arrivals longer than this are idle periods, ns (1 ms).  A
#: fixed threshold keeps the profiles of different traces comparable.  1 ms
#: is long enough for the device to finish the previous request's flash work
#: (a program takes 0.35 ms on the default timing) and then move one page in
#: the background (a page read, two transfers and a program: about 0.45 ms),
#: the smallest unit of work a scheme that relocates hot data in idle time
#: (PhasedRR, docs/phasedrr.md) can use.
DEFAULT_IDLE_THRESHOLD_NS = 1_000_000

#: Page-cache sizes (pages) whose read-only LRU hit ratio is reported.
DEFAULT_CACHE_PAGES = (1024, 8192, 65536)

#: Size of the coarse read-count region, bytes.
DEFAULT_REGION_BYTES = 2 * 1024 * 1024

#: The quantiles of every :class:`SampleSummary`, as (key, fraction).
QUANTILES = (("p10", "0.1"), ("p50", "0.5"), ("p90", "0.9"), ("p99", "0.99"))

#: How many of the most common request sizes are listed per operation.
COMMON_SIZES = 8


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

def _py(value):
    """A NumPy scalar as the Python int/float it holds (JSON-able)."""
    return value.item() if hasattr(value, "item") else value


@dataclass(frozen=True)
class SampleSummary:
    """Summary of a sample (its unit is in the name of the field holding it).

    ``count`` is the sample size; ``mean``, ``p10`` .. ``p99`` (see the module
    docstring) and ``max`` are None for an empty sample."""

    count: int
    mean: float | None
    p10: float | None
    p50: float | None
    p90: float | None
    p99: float | None
    max: float | None

    @classmethod
    def of(cls, sample) -> "SampleSummary":
        x = np.asarray(sample)
        n = int(x.size)
        if not n:
            return cls(0, None, None, None, None, None, None)
        ranks = [_rank(q, n) for _, q in QUANTILES]
        part = np.partition(x, sorted(set(ranks)))
        qs = [_py(part[k]) for k in ranks]
        return cls(n, float(x.mean()), *qs, _py(x.max()))

    @classmethod
    def of_counts(cls, values, counts) -> "SampleSummary":
        """The summary of a sample given as distinct sorted ``values`` and how
        many times each occurs."""
        v = np.asarray(values)
        c = np.asarray(counts, dtype=np.int64)
        n = int(c.sum())
        if not n:
            return cls(0, None, None, None, None, None, None)
        cum = np.cumsum(c)
        qs = [_py(v[int(np.searchsorted(cum, _rank(q, n) + 1))]) for _, q in QUANTILES]
        return cls(n, float((v.astype(np.float64) * c).sum() / n), *qs, _py(v[-1]))

    def to_dict(self) -> dict:
        return {"count": self.count, "mean": self.mean, **{k: getattr(self, k) for k, _ in QUANTILES},
                "max": self.max}


def _rank(q: str, n: int) -> int:
    """0-based index in the sorted sample of size n of the q-quantile."""
    return max(1, ceil(Fraction(q) * n)) - 1


@dataclass(frozen=True)
class CountDistribution:
    """Access counts over units of ``unit_pages`` consecutive pages (unit u
    holds pages ``u * unit_pages`` .. ``(u + 1) * unit_pages - 1``).

    * ``touched``: units with at least one access.
    * ``total``: page accesses (the sum of the counts).
    * ``max``, ``mean``: largest count, and ``total / touched``.
    * ``gini``: :func:`~flashrr.trace.locality.gini` of the touched units' counts.
    * ``top_1pct_share``, ``top_10pct_share``, ``top_1_share``: share of
      ``total`` taken by the busiest 1% and 10% of the touched units (rounded
      up to whole units, :func:`~flashrr.trace.locality.top_share`) and by the
      single busiest unit.

    Every value is 0 when there are no accesses."""

    unit_pages: int
    touched: int
    total: int
    max: int
    mean: float
    gini: float
    top_1pct_share: float
    top_10pct_share: float
    top_1_share: float

    @classmethod
    def of(cls, counts: np.ndarray, unit_pages: int) -> "CountDistribution":
        n = int(counts.size)
        if not n:
            return cls(unit_pages, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0)
        total = int(counts.sum())
        busiest = int(counts.max())
        return cls(unit_pages, n, total, busiest, total / n, gini(counts), top_share(counts, 0.01),
                   top_share(counts, 0.1), busiest / total if total else 0.0)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class UnitCounts:
    """Count distributions per page, per block-sized region and per region."""

    page: CountDistribution
    block: CountDistribution
    region: CountDistribution

    def to_dict(self) -> dict:
        return {"page": self.page.to_dict(), "block": self.block.to_dict(), "region": self.region.to_dict()}


@dataclass(frozen=True)
class ReuseProfile:
    """Temporal locality of the page reads.

    * ``rereads``: page reads of a page read before; ``reread_share`` their
      share of all page reads.
    * ``stack_distance_pages``: over the re-reads, the LRU stack distance:
      distinct other pages read since the previous read of the same page.
    * ``reuse_time_ns``: over the re-reads, the time since the previous read
      of the same page.
    * ``read_after_write_ns``: for every page write followed by a read of the
      page before the page is written again, the time from the write to that
      first read.
    * ``lru_hit_ratio``: ``(cache_pages, hit_ratio)`` pairs: the hit ratio of
      a read-only LRU page cache of that many pages (it sees every page read
      and nothing else; a read hits when its stack distance is below the
      capacity, so a first read always misses).
    """

    rereads: int
    reread_share: float
    stack_distance_pages: SampleSummary
    reuse_time_ns: SampleSummary
    read_after_write_ns: SampleSummary
    lru_hit_ratio: tuple

    def to_dict(self) -> dict:
        return {"rereads": self.rereads, "reread_share": self.reread_share,
                "stack_distance_pages": self.stack_distance_pages.to_dict(),
                "reuse_time_ns": self.reuse_time_ns.to_dict(),
                "read_after_write_ns": self.read_after_write_ns.to_dict(),
                "lru_hit_ratio": [{"cache_pages": c, "hit_ratio": h} for c, h in self.lru_hit_ratio]}


@dataclass(frozen=True)
class ArrivalProfile:
    """The arrival process.

    * ``interarrival_ns``: gaps between consecutive arrivals (n - 1 of them);
      ``interarrival_cv`` their standard deviation over their mean (None with
      fewer than two requests or a zero mean).
    * ``idle_threshold_ns``: a gap longer than this is an idle period.
    * ``idle_periods``, ``idle_period_ns``: how many, and their lengths (the
      whole gap).
    * ``idle_time_share``: idle periods' total length over the trace's
      duration (0 for a zero duration).
    * ``burst_requests``: requests in each burst (the runs of arrivals
      between idle periods; there is one burst more than idle periods).
    """

    interarrival_ns: SampleSummary
    interarrival_cv: float | None
    idle_threshold_ns: int
    idle_periods: int
    idle_period_ns: SampleSummary
    idle_time_share: float
    burst_requests: SampleSummary

    def to_dict(self) -> dict:
        return {"interarrival_ns": self.interarrival_ns.to_dict(), "interarrival_cv": self.interarrival_cv,
                "idle_threshold_ns": self.idle_threshold_ns, "idle_periods": self.idle_periods,
                "idle_period_ns": self.idle_period_ns.to_dict(), "idle_time_share": self.idle_time_share,
                "burst_requests": self.burst_requests.to_dict()}


@dataclass(frozen=True)
class OpSequential:
    """Sequential runs of one operation (see
    :func:`~flashrr.trace.locality.sequential_runs`): its ``requests``, the
    number of ``runs``, the share of its requests that continue a run
    (``(requests - runs) / requests``) and the run lengths in requests."""

    requests: int
    runs: int
    continue_share: float
    run_requests: SampleSummary

    def to_dict(self) -> dict:
        return {"requests": self.requests, "runs": self.runs, "continue_share": self.continue_share,
                "run_requests": self.run_requests.to_dict()}


@dataclass(frozen=True)
class OpSizes:
    """Request sizes of one operation: their summary in bytes and the
    :data:`COMMON_SIZES` most common sizes as ``(size_bytes, share of the
    operation's requests)``, most common first (ties: smaller size first)."""

    size_bytes: SampleSummary
    common_sizes: tuple

    def to_dict(self) -> dict:
        return {"size_bytes": self.size_bytes.to_dict(),
                "common_sizes": [{"size_bytes": s, "share": f} for s, f in self.common_sizes]}


@dataclass(frozen=True)
class ByOp:
    """A record for the reads and one for the writes."""

    read: object
    write: object

    def to_dict(self) -> dict:
        return {"read": self.read.to_dict(), "write": self.write.to_dict()}


@dataclass(frozen=True)
class ProfileSamples:
    """The per-unit and per-access arrays behind a profile (for plots; not in
    ``to_dict``).  Counts are in touched-unit order (increasing page or
    region); per-access arrays in trace order.

    * ``page_read_counts``, ``block_read_counts``, ``region_read_counts``,
      ``page_write_counts``, ``block_write_counts``, ``region_write_counts``.
    * ``stack_distances``: per page read, in pages (-1 for a first read).
    * ``reuse_time_ns``, ``read_after_write_ns``: as in :class:`ReuseProfile`.
    * ``interarrival_ns``, ``idle_period_ns``, ``burst_requests``.
    * ``read_size_bytes``, ``write_size_bytes``: per request.
    * ``read_run_requests``, ``write_run_requests``: per run.
    """

    page_read_counts: np.ndarray
    block_read_counts: np.ndarray
    region_read_counts: np.ndarray
    page_write_counts: np.ndarray
    block_write_counts: np.ndarray
    region_write_counts: np.ndarray
    stack_distances: np.ndarray
    reuse_time_ns: np.ndarray
    read_after_write_ns: np.ndarray
    interarrival_ns: np.ndarray
    idle_period_ns: np.ndarray
    burst_requests: np.ndarray
    read_size_bytes: np.ndarray
    write_size_bytes: np.ndarray
    read_run_requests: np.ndarray
    write_run_requests: np.ndarray


@dataclass(frozen=True)
class TraceProfile:
    """The read-disturb profile of one trace (see the module docstring).

    Parameters: ``page_size_bytes``, ``block_pages`` (pages per block-sized
    region), ``region_bytes`` (bytes per coarse region), ``cache_pages``.
    Totals: ``requests``, ``reads``, ``writes``, ``page_reads``,
    ``page_writes`` (page accesses), ``duration_ns`` (arrival of the last
    request).  Sections: ``read_counts``, ``write_counts`` (:class:`UnitCounts`),
    ``reuse`` (:class:`ReuseProfile`), ``arrivals`` (:class:`ArrivalProfile`),
    ``sequential`` (:class:`ByOp` of :class:`OpSequential`; ``continue_share``
    is over all requests), ``sizes`` (:class:`ByOp` of :class:`OpSizes`).
    ``samples`` holds the arrays for plots.
    """

    trace: str
    page_size_bytes: int
    block_pages: int
    region_bytes: int
    cache_pages: tuple
    requests: int
    reads: int
    writes: int
    page_reads: int
    page_writes: int
    duration_ns: int
    read_counts: UnitCounts
    write_counts: UnitCounts
    reuse: ReuseProfile
    arrivals: ArrivalProfile
    sequential: ByOp
    continue_share: float
    sizes: ByOp
    samples: ProfileSamples = field(repr=False, compare=False)

    @property
    def region_pages(self) -> int:
        return self.region_bytes // self.page_size_bytes

    def to_dict(self) -> dict:
        """The profile as plain JSON-able values; the keys are listed in
        docs/traces.md ("Read-disturb profile")."""
        return {
            "trace": self.trace, "page_size_bytes": self.page_size_bytes, "block_pages": self.block_pages,
            "region_bytes": self.region_bytes, "region_pages": self.region_pages,
            "idle_threshold_ns": self.arrivals.idle_threshold_ns, "cache_pages": list(self.cache_pages),
            "requests": self.requests, "reads": self.reads, "writes": self.writes, "page_reads": self.page_reads,
            "page_writes": self.page_writes, "duration_ns": self.duration_ns,
            "read_counts": self.read_counts.to_dict(), "write_counts": self.write_counts.to_dict(),
            "reuse": self.reuse.to_dict(), "arrivals": self.arrivals.to_dict(),
            "sequential": {"continue_share": self.continue_share, **self.sequential.to_dict()},
            "sizes": self.sizes.to_dict(),
        }

    def summary(self) -> str:
        """The profile as text (what ``flashrr trace profile`` prints)."""
        return summary_text(self)


# ---------------------------------------------------------------------------
# Computation
# ---------------------------------------------------------------------------

def _check_positive(value, name: str, unit: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}: expected a positive integer ({unit}), got {value!r}")
    return int(value)


def _materialise(trace_or_source) -> Trace:
    if isinstance(trace_or_source, Trace):
        return trace_or_source
    if isinstance(trace_or_source, TraceSource):
        return trace_or_source.to_trace()
    if isinstance(trace_or_source, str) or hasattr(trace_or_source, "__fspath__"):
        from .pipeline import open_trace_spec

        return open_trace_spec(trace_or_source)[0].to_trace()
    raise TypeError(f"trace_profile: expected a Trace, a TraceSource or a trace spec, "
                    f"got {type(trace_or_source).__name__}")


def trace_profile(trace_or_source, page_size_bytes: int = 8192, block_pages: int = 1024,
                  region_bytes: int = DEFAULT_REGION_BYTES, idle_threshold_ns: int = DEFAULT_IDLE_THRESHOLD_NS,
                  cache_pages=DEFAULT_CACHE_PAGES) -> TraceProfile:
    """The read-disturb profile of a trace (see the module docstring).

    * ``trace_or_source``: a :class:`Trace`, a
      :class:`~flashrr.trace.source.TraceSource` or a trace spec (a file or
      ``synth:PRESET`` with a pipeline); it is held in memory whole.
    * ``page_size_bytes``: bytes per page (the device's page size).
    * ``block_pages``: pages per block-sized region (the device's pages per
      block).
    * ``region_bytes``: bytes per coarse region, a multiple of the page size.
    * ``idle_threshold_ns``: gaps longer than this are idle periods (ns,
      default :data:`DEFAULT_IDLE_THRESHOLD_NS`, whose docstring says why).
    * ``cache_pages``: capacities (pages) of the read-only LRU page caches
      whose hit ratios are reported.

    Raises ValueError naming the parameter for a bad value.
    """
    page = _check_positive(page_size_bytes, "page_size_bytes", "bytes")
    block_pages = _check_positive(block_pages, "block_pages", "pages")
    region_bytes = _check_positive(region_bytes, "region_bytes", "bytes")
    if region_bytes % page:
        raise ValueError(f"region_bytes: expected a multiple of page_size_bytes ({page}), got {region_bytes}")
    if isinstance(idle_threshold_ns, bool) or not isinstance(idle_threshold_ns, (int, np.integer)) \
            or idle_threshold_ns < 0:
        raise ValueError(f"idle_threshold_ns: expected an integer >= 0 (ns), got {idle_threshold_ns!r}")
    try:
        caps = tuple(_check_positive(c, "cache_pages", "pages") for c in cache_pages)
    except TypeError:
        raise ValueError(f"cache_pages: expected a sequence of positive integers (pages), "
                         f"got {cache_pages!r}") from None
    region_pages = region_bytes // page
    tr = _materialise(trace_or_source)
    t, w = tr.time_ns, tr.is_write
    first, last = tr.offset // page, (tr.offset + tr.size - 1) // page

    pages = _page_accesses(t, first, last, w)
    read_counts = _unit_counts(pages.read_pages, pages.read_counts, block_pages, region_pages)
    write_counts = _unit_counts(pages.write_pages, pages.write_counts, block_pages, region_pages)
    dist = pages.stack_distances
    n_page_reads = int(dist.size)
    rereads = int(np.count_nonzero(dist >= 0))
    reuse = ReuseProfile(rereads, rereads / n_page_reads if n_page_reads else 0.0,
                         SampleSummary.of(dist[dist >= 0]), SampleSummary.of(pages.reuse_time_ns),
                         SampleSummary.of(pages.read_after_write_ns),
                         tuple(zip(caps, (float(h) for h in lru_hit_ratios(dist, caps)))))

    gaps = np.diff(t)
    idle = idle_periods(t, int(idle_threshold_ns))
    bursts = burst_lengths(t, int(idle_threshold_ns))
    gap_mean = float(gaps.mean()) if gaps.size else 0.0
    arrivals = ArrivalProfile(SampleSummary.of(gaps), float(gaps.std()) / gap_mean if gap_mean > 0 else None,
                              int(idle_threshold_ns), int(idle.size), SampleSummary.of(idle),
                              float(idle.sum()) / tr.duration_ns if tr.duration_ns else 0.0,
                              SampleSummary.of(bursts))

    runs = sequential_runs(tr.offset, tr.size, w)
    seq = ByOp(_op_sequential(runs.read_lengths), _op_sequential(runs.write_lengths))
    read_sizes, write_sizes = tr.size[~w], tr.size[w]

    samples = ProfileSamples(
        pages.read_counts, read_counts[1], read_counts[2], pages.write_counts, write_counts[1], write_counts[2],
        dist, pages.reuse_time_ns, pages.read_after_write_ns, gaps, idle, bursts, read_sizes, write_sizes,
        runs.read_lengths, runs.write_lengths)
    n = len(tr)
    return TraceProfile(
        trace=tr.name, page_size_bytes=page, block_pages=block_pages, region_bytes=region_bytes, cache_pages=caps,
        requests=n, reads=tr.n_reads, writes=tr.n_writes, page_reads=n_page_reads,
        page_writes=int(pages.write_counts.sum()), duration_ns=tr.duration_ns,
        read_counts=UnitCounts(*(CountDistribution.of(c, u)
                                 for c, u in zip(read_counts, (1, block_pages, region_pages)))),
        write_counts=UnitCounts(*(CountDistribution.of(c, u)
                                  for c, u in zip(write_counts, (1, block_pages, region_pages)))),
        reuse=reuse, arrivals=arrivals, sequential=seq,
        continue_share=float(np.count_nonzero(runs.continues)) / n if n else 0.0,
        sizes=ByOp(_op_sizes(read_sizes), _op_sizes(write_sizes)), samples=samples)


def _op_sequential(lengths: np.ndarray) -> OpSequential:
    requests = int(lengths.sum())
    return OpSequential(requests, int(lengths.size), (requests - lengths.size) / requests if requests else 0.0,
                        SampleSummary.of(lengths))


def _op_sizes(sizes: np.ndarray) -> OpSizes:
    values, counts = _tally(sizes)
    n = int(counts.sum())
    top = np.lexsort((values, -counts))[:COMMON_SIZES]
    return OpSizes(SampleSummary.of_counts(values, counts),
                   tuple((int(values[i]), int(counts[i]) / n) for i in top))


def _tally(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``x`` (increasing) and how often each occurs: a
    ``bincount`` over a compact range, a sort otherwise."""
    if not x.size:
        return np.zeros(0, x.dtype), np.zeros(0, np.int64)
    lo, hi = int(x.min()), int(x.max())
    if hi - lo < 4 * x.size + (1 << 20):
        counts = np.bincount(x - lo)
        values = np.flatnonzero(counts)
        return values + lo, counts[values]
    return np.unique(x, return_counts=True)


def _unit_counts(pages: np.ndarray, counts: np.ndarray, block_pages: int, region_pages: int) -> tuple:
    """Counts per page, per block-sized region and per region (touched units,
    in increasing order), from per-page counts."""
    return (counts, region_counts(pages, counts, block_pages)[1], region_counts(pages, counts, region_pages)[1])


@dataclass(frozen=True)
class _PageAccesses:
    read_pages: np.ndarray       # distinct pages read, increasing
    read_counts: np.ndarray      # page reads of each
    write_pages: np.ndarray
    write_counts: np.ndarray
    stack_distances: np.ndarray  # per page read, trace order
    reuse_time_ns: np.ndarray    # per re-read, trace order
    read_after_write_ns: np.ndarray  # per first read after a write, by page


def _page_accesses(t: np.ndarray, first: np.ndarray, last: np.ndarray, w: np.ndarray) -> _PageAccesses:
    """Everything that needs the page accesses, from one sort of them by
    (page, position in trace order)."""
    empty = np.zeros(0, np.int64)
    n_pages = last - first + 1
    n = int(n_pages.sum())
    if not n:
        return _PageAccesses(empty, empty, empty, empty, empty, empty, empty)
    starts = np.cumsum(n_pages)
    starts -= n_pages                             # position of each request's first page access
    page = np.repeat(first - starts, n_pages)
    del starts
    page += np.arange(n, dtype=np.int64)          # page of every access, in trace order
    acc_write = np.repeat(w, n_pages)
    page_sorted, pos, write_sorted = _sort_accesses(page, acc_write)
    del page
    same_page = page_sorted[1:] == page_sorted[:-1]

    # a read whose previous access to the page (in trace order) is a write: the first read after that write
    raw = same_page & write_sorted[:-1] & ~write_sorted[1:]
    acc_time = np.repeat(t, n_pages)
    raw_gap = acc_time[pos[1:][raw]] - acc_time[pos[:-1][raw]]
    del same_page, raw, acc_time

    is_read = ~write_sorted
    read_pages, read_counts = _runs(page_sorted[is_read])
    write_pages, write_counts = _runs(page_sorted[write_sorted])

    # previous read of the same page, as indices into the sequence of page reads
    read_index = np.cumsum(~acc_write, dtype=np.int64)
    read_index -= 1                               # position among all accesses -> index among the page reads
    r_idx = read_index[pos[is_read]]
    del read_index, pos, acc_write
    r_page = page_sorted[is_read]
    del page_sorted, write_sorted, is_read
    same = r_page[1:] == r_page[:-1]
    del r_page
    prev = np.full(r_idx.size, -1, np.int64)
    prev[r_idx[1:][same]] = r_idx[:-1][same]
    del r_idx, same
    dist = stack_distances_from_previous(prev)
    reads = ~w
    read_time = np.repeat(t[reads], n_pages[reads])
    re = np.flatnonzero(prev >= 0)
    reuse = read_time[re] - read_time[prev[re]]
    return _PageAccesses(read_pages, read_counts, write_pages, write_counts, dist, reuse, raw_gap)


def _sort_accesses(page: np.ndarray, is_write: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(page_sorted, position, write_sorted)``: the accesses ordered by
    (page, position), from one sort of the bit fields ``key | position |
    is_write`` (pages made dense first when the fields would not fit 62 bits)."""
    n = page.size
    shift = (2 * n).bit_length()  # bits of 2 * position + is_write
    lo, hi = int(page.min()), int(page.max())
    if (hi - lo + 1) << shift < 1 << 62:
        comp, values = page - lo, None
    else:
        values, comp = np.unique(page, return_inverse=True)
        comp = comp.reshape(-1).astype(np.int64)
    comp <<= shift
    comp |= np.arange(0, 2 * n, 2, dtype=np.int64)
    comp |= is_write
    comp.sort()  # values are distinct, so any sort gives the (page, position) order
    write_sorted = (comp & 1).astype(bool)
    pos = comp & ((1 << shift) - 1)
    pos >>= 1
    comp >>= shift
    page_sorted = comp + lo if values is None else values[comp]
    return page_sorted, pos, write_sorted


def _runs(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of a sorted array and how often each occurs."""
    if not sorted_keys.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    return sorted_keys[starts], np.diff(np.append(starts, sorted_keys.size)).astype(np.int64)
