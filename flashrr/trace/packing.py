"""Packing a trace onto its own footprint: the pages it touches renumbered densely from 0.

A trace-driven simulator writes only the pages a trace touches before it replays it
(SSDsim's ``pre_process_page`` maps the pages the trace reads; MQSim preconditions the
trace's read, then written, addresses first), so a trace occupies its footprint, not
the span of its addresses.  :func:`pack` does the same to the addresses: the touched
pages, taken in address order, become pages ``0 .. footprint - 1``.

* The map is monotone, so the order of the pages, and with it every hot region of
  consecutive addresses, is kept; pages the trace never touches are squeezed out.
* A request's pages stay contiguous: every page between its first and last page is
  touched by the request itself, so the gap-free run it lies in maps to a gap-free run.
* The byte offset within a page is kept, and so is every request's size.
* Reads and writes of one page land on one packed page (the map depends on the page
  alone), so no read ever finds an address the trace did not write or read before.

:class:`PackMap` holds the touched pages as sorted, disjoint runs ``[start, end]``
(pages, inclusive), merged from the requests' page ranges chunk by chunk
(:meth:`PackMap.add`), so a streamed trace is packed in two passes and its map takes 24
bytes per run, never one entry per page.
"""
from __future__ import annotations

import numpy as np

from .core import Trace, TraceError

__all__ = ["PackMap", "pack", "request_pages"]


def request_pages(offset: np.ndarray, size: np.ndarray, page: int) -> tuple[np.ndarray, np.ndarray]:
    """``(first, last)``: the first and last page (inclusive) each request touches at ``page``
    bytes per page (int64 arrays)."""
    first = offset // page
    last = (offset + np.maximum(size, 1) - 1) // page
    return first, last


def _merge(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs ``[starts[i], ends[i]]`` (pages, inclusive) merged where they overlap or touch,
    sorted by start."""
    if not len(starts):
        return starts.astype(np.int64), ends.astype(np.int64)
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1] + 1
    heads = np.flatnonzero(new)
    tails = np.append(heads[1:] - 1, len(s) - 1)
    return s[heads].astype(np.int64), reach[tails].astype(np.int64)


class PackMap:
    """The touched pages of a trace at ``page_size_bytes`` per page, and the packed page of each.

    Fill it with :meth:`add` (any number of chunks, in any order), then map requests with
    :meth:`offsets`.  ``starts``/``ends``: the runs of touched pages (original page
    numbers, inclusive); ``base``: the packed page of each run's first page."""

    def __init__(self, page_size_bytes: int):
        if isinstance(page_size_bytes, bool) or int(page_size_bytes) < 1:
            raise TraceError(f"pack: page_size_bytes must be a positive integer, got {page_size_bytes!r}")
        self.page = int(page_size_bytes)
        self.starts = np.zeros(0, np.int64)
        self.ends = np.zeros(0, np.int64)
        self._base = None

    def add(self, offset: np.ndarray, size: np.ndarray) -> None:
        """Take the pages requests of ``offset``/``size`` (bytes) touch into the map."""
        if not len(offset):
            return
        first, last = request_pages(np.asarray(offset, np.int64), np.asarray(size, np.int64), self.page)
        first, last = _merge(first, last)  # a chunk's own runs first: few, so the merge with the map stays small
        self.starts, self.ends = _merge(np.concatenate([self.starts, first]), np.concatenate([self.ends, last]))
        self._base = None

    @property
    def base(self) -> np.ndarray:
        if self._base is None:
            lengths = self.ends - self.starts + 1
            self._base = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        return self._base

    @property
    def footprint_pages(self) -> int:
        """Pages the trace touches: the packed trace occupies pages ``0 .. footprint_pages - 1``."""
        return int((self.ends - self.starts + 1).sum())

    def pages(self, first: np.ndarray) -> np.ndarray:
        """The packed page of each original page of ``first`` (int64); TraceError for a page
        the map does not hold."""
        first = np.asarray(first, np.int64)
        run = np.searchsorted(self.starts, first, side="right") - 1
        bad = (run < 0) | (first > self.ends[np.maximum(run, 0)]) if len(self.starts) else np.ones(len(first), bool)
        if bad.any():
            i = int(np.argmax(bad))
            raise TraceError(f"pack: page {int(first[i])} was not in the trace's first pass (the trace changed "
                             "between its two passes)")
        return self.base[run] + (first - self.starts[run])

    def offsets(self, offset: np.ndarray) -> np.ndarray:
        """The packed byte offset of each request offset (the byte within its page kept)."""
        offset = np.asarray(offset, np.int64)
        return self.pages(offset // self.page) * self.page + offset % self.page

    def byte(self, b: int) -> int:
        """The packed position of touched byte ``b`` (the map is monotone, so it maps the
        lowest and the highest byte of a trace onto the packed trace's)."""
        return int(self.offsets(np.array([b], np.int64))[0])


def pack(trace: Trace, page_size_bytes: int) -> Trace:
    """``trace`` with its touched pages renumbered densely from 0 in address order (see the
    module docstring); times, sizes and operations unchanged."""
    if not isinstance(trace, Trace):
        raise TraceError(f"expected a Trace, got {type(trace).__name__}")
    m = PackMap(page_size_bytes)
    m.add(trace.offset, trace.size)
    return Trace(trace.time_ns, m.offsets(trace.offset), trace.size, trace.is_write, name=trace.name, rebase=False)
