"""Packing a trace onto its own footprint: the units of pages it touches renumbered densely from 0.

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

The unit is a page, or a run of ``unit_pages`` aligned pages: the touched units are
renumbered and every page keeps its place in its unit.  A device that places a page by
its address modulo a stripe (the component block of a superblock is ``lpn mod k``; a
static placement picks the die or lane from the address) keeps every page where the
unpacked trace had it when the unit is that stripe (:func:`stripe_pages`), so a trace
whose extents start on superpage boundaries still reads the same component blocks.

:class:`PackMap` holds the touched pages as sorted, disjoint runs ``[start, end]``
(pages, inclusive), merged from the requests' page ranges chunk by chunk
(:meth:`PackMap.add`), so a streamed trace is packed in two passes and its map takes 24
bytes per run, never one entry per page.
"""
from __future__ import annotations

import numpy as np

from .core import Trace, TraceError

__all__ = ["PackMap", "pack", "request_pages", "stripe_pages", "PACK_UNITS"]

#: the pipeline's ``pack`` values: a page, or the device's placement stripe (:func:`stripe_pages`)
PACK_UNITS = ("page", "stripe")


def stripe_pages(config) -> int:
    """The device's placement stripe in pages: the period of the addresses over which it places
    pages (``k`` under dynamic placement, whose component block is ``lpn mod k``; ``k x lanes``
    under ``static_lane``; ``k x dies`` under ``static_die``)."""
    placement = config.page_placement.placement
    if placement == "static_lane":
        return config.k * config.n_lanes
    if placement == "static_die":
        return config.k * config.geometry.n_dies
    return config.k


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
    """The touched units (``unit_pages`` aligned pages each) of a trace at ``page_size_bytes``
    per page, and the packed unit of each.

    Fill it with :meth:`add` (any number of chunks, in any order), then map requests with
    :meth:`offsets`.  ``starts``/``ends``: the runs of touched units (original unit
    numbers, inclusive); ``base``: the packed unit of each run's first unit."""

    def __init__(self, page_size_bytes: int, unit_pages: int = 1):
        for name, v in (("page_size_bytes", page_size_bytes), ("unit_pages", unit_pages)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or int(v) < 1:
                raise TraceError(f"pack: {name} must be a positive integer, got {v!r}")
        self.page = int(page_size_bytes)
        self.unit = int(unit_pages)
        self.starts = np.zeros(0, np.int64)
        self.ends = np.zeros(0, np.int64)
        self._base = None

    def add(self, offset: np.ndarray, size: np.ndarray) -> None:
        """Take the pages requests of ``offset``/``size`` (bytes) touch into the map."""
        if not len(offset):
            return
        first, last = request_pages(np.asarray(offset, np.int64), np.asarray(size, np.int64), self.page)
        first, last = _merge(first // self.unit, last // self.unit)  # a chunk's own runs first: few, so the merge with the map stays small
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
        """Pages of the touched units: the packed trace occupies pages ``0 .. footprint_pages - 1``."""
        return int((self.ends - self.starts + 1).sum()) * self.unit

    def pages(self, first: np.ndarray) -> np.ndarray:
        """The packed page of each original page of ``first`` (int64), its place in its unit kept;
        TraceError for a page the map does not hold."""
        first = np.asarray(first, np.int64)
        units = first // self.unit
        run = np.searchsorted(self.starts, units, side="right") - 1
        bad = (run < 0) | (units > self.ends[np.maximum(run, 0)]) if len(self.starts) else np.ones(len(first), bool)
        if bad.any():
            i = int(np.argmax(bad))
            raise TraceError(f"pack: page {int(first[i])} was not in the trace's first pass (the trace changed "
                             "between its two passes)")
        return (self.base[run] + (units - self.starts[run])) * self.unit + first % self.unit

    def offsets(self, offset: np.ndarray) -> np.ndarray:
        """The packed byte offset of each request offset (the byte within its page kept)."""
        offset = np.asarray(offset, np.int64)
        return self.pages(offset // self.page) * self.page + offset % self.page

    def byte(self, b: int) -> int:
        """The packed position of touched byte ``b`` (the map is monotone, so it maps the
        lowest and the highest byte of a trace onto the packed trace's)."""
        return int(self.offsets(np.array([b], np.int64))[0])


def pack(trace: Trace, page_size_bytes: int, unit_pages: int = 1) -> Trace:
    """``trace`` with its touched units of ``unit_pages`` pages renumbered densely from 0 in
    address order (see the module docstring); times, sizes and operations unchanged."""
    if not isinstance(trace, Trace):
        raise TraceError(f"expected a Trace, got {type(trace).__name__}")
    m = PackMap(page_size_bytes, unit_pages)
    m.add(trace.offset, trace.size)
    return Trace(trace.time_ns, m.offsets(trace.offset), trace.size, trace.is_write, name=trace.name, rebase=False)
