"""Streaming versions of the trace subsets and transformations.

Each stage wraps another :class:`~flashrr.trace.source.TraceSource` and
transforms it chunk by chunk, so a pipeline over a trace file never holds the
whole trace.  ``Stage(source).to_trace()`` equals the in-memory function of
:mod:`flashrr.trace.transform` applied to ``source.to_trace()`` (the tests
check this for every stage and any chunk size).

* :class:`SpreadTies`: as :func:`~flashrr.trace.transform.spread_ties`, each
  chunk's last group of equal times held until the next time is read.
* :class:`TimeWindow`: requests arriving in ``[start_ns, start_ns + duration_ns)``,
  rebased so the first selected request arrives at 0.
* :class:`FirstRequests`: the first ``n`` requests.
* :class:`Pack`: as :func:`~flashrr.trace.packing.pack`, in two passes over
  the source (the first collects the touched pages).
* :class:`Fold`, :class:`AmplifyReads`, :class:`ScaleTime`, :class:`Repeat`:
  as :func:`~flashrr.trace.transform.fold`, ``amplify_reads``, ``scale_time``
  and ``repeat``.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from .core import Trace, TraceError
from .source import SourceInfo, TraceSource
from .transform import (AMPLIFY_SPACINGS, _positive_int, amplify_reads, check_time_factor, fold_offsets, fold_pages, repeat_period,
                        scale_times, spread_tie_times)

__all__ = ["SpreadTies", "TimeWindow", "FirstRequests", "Pack", "Fold", "AmplifyReads", "ScaleTime", "Repeat"]


class _Stage(TraceSource):
    def __init__(self, inner: TraceSource):
        if not isinstance(inner, TraceSource):
            raise TraceError(f"{type(self).__name__} needs a TraceSource, got {type(inner).__name__}")
        self.inner = inner
        self.name = inner.name


def _chunk(c: Trace, time_ns=None, offset=None) -> Trace:
    return Trace(c.time_ns if time_ns is None else time_ns, c.offset if offset is None else offset, c.size,
                 c.is_write, name=c.name, rebase=False)


class SpreadTies(_Stage):
    """Requests sharing an arrival time spread over ``resolution_ns`` (see
    :func:`flashrr.trace.transform.spread_ties`).  A chunk's last group of equal
    times waits for the next chunk, which tells its next time (or joins it)."""

    def __init__(self, inner: TraceSource, resolution_ns: int):
        super().__init__(inner)
        self.resolution_ns = _positive_int(resolution_ns, "time resolution resolution_ns (ns)")

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        held = None  # (time, offset, size, is_write) of the requests whose group may go on in the next chunk
        name = self.name
        for c in self.inner.chunks(chunk_requests):
            if not len(c):
                continue
            cols = (c.time_ns, c.offset, c.size, c.is_write)
            if held is not None:
                cols = tuple(np.concatenate([h, x]) for h, x in zip(held, cols))
            t, name = cols[0], c.name
            last = int(np.searchsorted(t, t[-1], side="left"))  # first request of the last group
            if last:
                yield Trace(spread_tie_times(t[:last], self.resolution_ns, int(t[last])), cols[1][:last],
                            cols[2][:last], cols[3][:last], name=name, rebase=False)
            held = tuple(x[last:] for x in cols)
        if held is not None:
            yield Trace(spread_tie_times(held[0], self.resolution_ns), held[1], held[2], held[3], name=name,
                        rebase=False)


class TimeWindow(_Stage):
    """Requests with ``start_ns <= time_ns < start_ns + duration_ns`` (times of
    the inner source, which starts at 0); ``duration_ns=None`` means to the
    end.  Times are rebased so the first selected request arrives at 0."""

    def __init__(self, inner: TraceSource, start_ns: int = 0, duration_ns: int | None = None):
        super().__init__(inner)
        self.start_ns = int(start_ns)
        self.end_ns = None if duration_ns is None else self.start_ns + int(duration_ns)

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        base = None
        for c in self.inner.chunks(chunk_requests):
            t = c.time_ns
            lo = int(np.searchsorted(t, self.start_ns, side="left"))
            hi = len(t) if self.end_ns is None else int(np.searchsorted(t, self.end_ns, side="left"))
            if hi > lo:
                if base is None:
                    base = int(t[lo])
                s = np.s_[lo:hi]
                yield Trace(t[s] - base, c.offset[s], c.size[s], c.is_write[s], name=c.name, rebase=False)
            if hi < len(t):
                return  # times only grow: nothing later is inside the window


class FirstRequests(_Stage):
    """The first ``n`` requests."""

    def __init__(self, inner: TraceSource, n: int):
        super().__init__(inner)
        self.n = _positive_int(n, "request count first")

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        left = self.n
        for c in self.inner.chunks(chunk_requests):
            if len(c) >= left:
                yield c if len(c) == left else Trace(c.time_ns[:left], c.offset[:left], c.size[:left],
                                                     c.is_write[:left], name=c.name, rebase=False)
                return
            left -= len(c)
            yield c


class Pack(_Stage):
    """The touched units of ``unit_pages`` pages renumbered densely from 0 (see
    :func:`flashrr.trace.packing.pack`).
    The first call of :meth:`chunks` or :meth:`info` reads the source once to collect its
    touched pages (:attr:`map`); chunks then read it again and map each request."""

    def __init__(self, inner: TraceSource, page_size_bytes: int, unit_pages: int = 1):
        super().__init__(inner)
        self.page = _positive_int(page_size_bytes, "page_size_bytes")
        self.unit = _positive_int(unit_pages, "unit_pages")
        self._map = None

    @property
    def map(self):
        if self._map is None:
            from .packing import PackMap

            m = PackMap(self.page, self.unit)
            for c in self.inner.chunks():
                m.add(c.offset, c.size)
            self._map = m
        return self._map

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        m = self.map
        for c in self.inner.chunks(chunk_requests):
            yield _chunk(c, offset=m.offsets(c.offset))

    def _compute_info(self) -> SourceInfo:
        i = self.inner.info()
        if not i.n_requests:
            return i
        m = self.map
        return SourceInfo(i.n_requests, i.n_writes, i.duration_ns, m.byte(i.min_offset), m.byte(i.max_end_byte))


class Fold(_Stage):
    """Addresses folded onto ``capacity_bytes`` with pages of ``page_size_bytes``
    (see :func:`flashrr.trace.transform.fold`)."""

    def __init__(self, inner: TraceSource, capacity_bytes: int, page_size_bytes: int):
        super().__init__(inner)
        self.n_pages, self.page = fold_pages(capacity_bytes, page_size_bytes)

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        done = 0
        for c in self.inner.chunks(chunk_requests):
            yield _chunk(c, offset=fold_offsets(c.offset, c.size, self.n_pages, self.page, done))
            done += len(c)


class AmplifyReads(_Stage):
    """Every read repeated ``raf`` times in a row (see :func:`flashrr.trace.transform.amplify_reads`);
    with ``spacing="spread"`` each chunk's last request waits for the next chunk's first arrival."""

    def __init__(self, inner: TraceSource, raf: int, spacing: str = "same"):
        super().__init__(inner)
        self.raf = _positive_int(raf, "read amplification factor raf")
        if spacing not in AMPLIFY_SPACINGS:
            raise TraceError(f"amplify_reads: spacing must be one of {list(AMPLIFY_SPACINGS)}, got {spacing!r}")
        self.spacing = spacing

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        if self.spacing == "same":
            for c in self.inner.chunks(chunk_requests):
                yield amplify_reads(c, self.raf)
            return
        held = None  # the previous chunk: its last request needs the next arrival
        for c in self.inner.chunks(chunk_requests):
            if not len(c):
                continue
            if held is not None:
                yield amplify_reads(held, self.raf, "spread", int(c.time_ns[0]))
            held = c
        if held is not None:
            yield amplify_reads(held, self.raf, "spread")

    def _compute_info(self) -> SourceInfo:
        i = self.inner.info()
        return SourceInfo(i.n_writes + self.raf * i.n_reads, i.n_writes, i.duration_ns, i.min_offset,
                          i.max_end_byte)


class ScaleTime(_Stage):
    """Arrival times multiplied by ``factor`` (see :func:`flashrr.trace.transform.scale_time`)."""

    def __init__(self, inner: TraceSource, factor: float):
        super().__init__(inner)
        self.factor = check_time_factor(factor)

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        self.info()  # fails on overflow before the first chunk
        for c in self.inner.chunks(chunk_requests):
            yield _chunk(c, time_ns=scale_times(c.time_ns, self.factor))

    def _compute_info(self) -> SourceInfo:
        i = self.inner.info()
        end = int(scale_times(np.array([i.duration_ns], dtype=np.int64), self.factor)[0])
        return SourceInfo(i.n_requests, i.n_writes, end, i.min_offset, i.max_end_byte)


class Repeat(_Stage):
    """The source played ``n`` times back to back (see :func:`flashrr.trace.transform.repeat`)."""

    def __init__(self, inner: TraceSource, n: int):
        super().__init__(inner)
        self.n = _positive_int(n, "repeat count n")

    def _period(self) -> int:
        i = self.inner.info()
        return repeat_period(i.n_requests, i.duration_ns, self.n) if i.n_requests else 0

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        period = self._period()
        for r in range(self.n):
            for c in self.inner.chunks(chunk_requests):
                yield _chunk(c, time_ns=c.time_ns + r * period) if r else c

    def _compute_info(self) -> SourceInfo:
        i = self.inner.info()
        if not i.n_requests:
            return i
        return SourceInfo(self.n * i.n_requests, self.n * i.n_writes, (self.n - 1) * self._period() + i.duration_ns,
                          i.min_offset, i.max_end_byte)
