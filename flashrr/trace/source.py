"""Trace sources: a trace delivered in chunks of requests, never held whole.

A :class:`TraceSource` yields its requests in order as a sequence of
:class:`~flashrr.trace.core.Trace` chunks (``chunks(chunk_requests)``); times
never decrease from one chunk to the next, and the first request of the whole
source arrives at 0 ns.  ``info()`` gives the totals a replay needs before it
starts (request count, duration, highest byte touched), from metadata where
the source has it and from one streaming pass otherwise.

* :class:`MemorySource` serves an in-memory :class:`Trace`.
* The parse cache of a trace file (:class:`flashrr.trace.cache.CachedTrace`)
  reads Parquet row groups.
* The stages of :mod:`flashrr.trace.stages` transform another source chunk by
  chunk (subsets, fold, read amplification, time scaling, repeat).

Chunk sizes are a memory/overhead trade-off only: every consumer in flashrr
gives the same result whatever the chunk size.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .core import Trace, TraceError

__all__ = ["TraceSource", "MemorySource", "SourceInfo", "DEFAULT_CHUNK_REQUESTS", "default_chunk_requests",
           "check_chunk_requests", "concat_chunks"]

#: Requests per chunk when none is given (about 6 MB of columns per chunk).
DEFAULT_CHUNK_REQUESTS = 1 << 18

#: Environment variable that overrides :data:`DEFAULT_CHUNK_REQUESTS`.
CHUNK_ENV = "FLASHRR_CHUNK_REQUESTS"


def check_chunk_requests(value) -> int:
    """``value`` as a positive number of requests per chunk, else TraceError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise TraceError(f"chunk_requests: expected a positive integer (requests per chunk), got {value!r}")
    return int(value)


def default_chunk_requests() -> int:
    """Requests per chunk: ``$FLASHRR_CHUNK_REQUESTS`` if set, else :data:`DEFAULT_CHUNK_REQUESTS`."""
    raw = os.environ.get(CHUNK_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_CHUNK_REQUESTS
    try:
        return check_chunk_requests(int(raw))
    except ValueError:
        raise TraceError(f"${CHUNK_ENV}: expected a positive integer (requests per chunk), got {raw!r}") from None


@dataclass(frozen=True)
class SourceInfo:
    """Totals of a source.

    * ``n_requests``, ``n_writes``: request counts.
    * ``duration_ns``: arrival time of the last request (0 when empty).
    * ``min_offset``: lowest byte offset (0 when empty).
    * ``max_end_byte``: highest byte touched, ``max(offset + size - 1)``
      (-1 when empty).
    """

    n_requests: int
    n_writes: int
    duration_ns: int
    min_offset: int
    max_end_byte: int

    @property
    def n_reads(self) -> int:
        return self.n_requests - self.n_writes

    def max_lpn(self, page_size_bytes: int) -> int:
        """Highest logical page touched at ``page_size_bytes`` per page (-1 when empty)."""
        return self.max_end_byte // page_size_bytes if self.n_requests else -1

    def to_dict(self) -> dict:
        return {"n_requests": self.n_requests, "n_writes": self.n_writes, "duration_ns": self.duration_ns,
                "min_offset": self.min_offset, "max_end_byte": self.max_end_byte}

    @classmethod
    def of_trace(cls, trace: Trace) -> "SourceInfo":
        if not len(trace):
            return EMPTY_INFO
        return cls(len(trace), trace.n_writes, trace.duration_ns, int(trace.offset.min()),
                   int((trace.offset + trace.size - 1).max()))


EMPTY_INFO = SourceInfo(0, 0, 0, 0, -1)


class TraceSource:
    """A trace read in chunks (see the module docstring).  Subclasses define
    :meth:`chunks` and may override :meth:`_compute_info` when they know the
    totals without a pass."""

    name: str = "trace"

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        raise NotImplementedError

    def info(self) -> SourceInfo:
        """Totals of the source (computed once, then remembered)."""
        cached = getattr(self, "_info", None)
        if cached is None:
            cached = self._compute_info()
            self._info = cached
        return cached

    def _compute_info(self) -> SourceInfo:
        return scan_info(self.chunks())

    def __len__(self) -> int:
        return self.info().n_requests

    def to_trace(self) -> Trace:
        """The whole source as one in-memory Trace (holds every request)."""
        return concat_chunks(list(self.chunks()), self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def scan_info(chunks) -> SourceInfo:
    """The totals of a stream of chunks, in one pass."""
    n = n_writes = 0
    last = 0
    lo, hi = None, -1
    for c in chunks:
        if not len(c):
            continue
        n += len(c)
        n_writes += c.n_writes
        last = int(c.time_ns[-1])
        c_lo = int(c.offset.min())
        lo = c_lo if lo is None else min(lo, c_lo)
        hi = max(hi, int((c.offset + c.size - 1).max()))
    return SourceInfo(n, n_writes, last, lo or 0, hi) if n else EMPTY_INFO


def concat_chunks(chunks: list, name: str) -> Trace:
    """Chunks (Traces in time order) joined into one Trace named ``name``."""
    cols = {c: np.concatenate([getattr(ch, c) for ch in chunks]) if chunks else np.zeros(0, np.int64)
            for c in ("time_ns", "offset", "size")}
    w = np.concatenate([ch.is_write for ch in chunks]) if chunks else np.zeros(0, bool)
    return Trace(cols["time_ns"], cols["offset"], cols["size"], w, name=name, rebase=False)


class MemorySource(TraceSource):
    """An in-memory :class:`Trace` served in slices."""

    def __init__(self, trace: Trace):
        if not isinstance(trace, Trace):
            raise TraceError(f"MemorySource needs a Trace, got {type(trace).__name__}")
        self.trace = trace
        self.name = trace.name

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        step = check_chunk_requests(chunk_requests) if chunk_requests is not None else default_chunk_requests()
        t = self.trace
        if len(t) <= step:
            if len(t):
                yield t
            return
        for start in range(0, len(t), step):
            s = np.s_[start:start + step]
            yield Trace(t.time_ns[s], t.offset[s], t.size[s], t.is_write[s], name=t.name, rebase=False)

    def _compute_info(self) -> SourceInfo:
        return SourceInfo.of_trace(self.trace)

    def to_trace(self) -> Trace:
        return self.trace
