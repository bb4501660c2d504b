"""HotR (Wu et al., DATE 2019): hot read data replication against read/write
interference.

The compiled mechanism (``flashrr/_core/mechanisms/hot_replicas.pyx``, twin
``hot_replicas_py.py``) does the per-read work; this class sets its
parameters and reports the capacity cost.  In short: every flash read updates
an LRU list of recently read pages with read counts (the R-LRU); a page read
from its original place whose count reaches ``hot_threshold`` gets a replica
in the staging space, programmed after the read completes (off the request's
critical path); a later read of it whose die is programming (or has a program
queued) is served by a finished replica; a host write drops the page's
replica.  docs/hotr.md lists every interpretation.

Parameters:

* ``hot_threshold`` (reads, default 2): the page's read count, this read
  included, at which it is replicated.  2 = on its first re-read while still
  in the list (the paper gives no number).
* ``hot_fraction`` (default 0.10, the paper's "10% hot read data pages"):
  staging capacity as a fraction of the distinct pages the trace reads
  (counted by a pre-pass over the trace).
* ``staging_pages``: the capacity in pages, overriding ``hot_fraction``.
* ``rlru_factor`` (default 10.0): R-LRU entries per staging page (at most one
  per logical page).  The paper's R-LRU holds the popular read pages and only
  a configured percentage of them can be migrated (§III.B: "not all popular
  read data pages are migrated"; §IV.B: 10%), so the list is longer than the
  staging space; 10 = 1 / 0.10 makes it as long as the read footprint.  The
  paper gives no length: this is a reading, and 1.0 (a list no longer than
  the staging space) the other one.
* ``staging_full`` (``"evict_lru"`` default, or ``"stop"``): what a page that
  becomes hot meets in a full staging space.  ``"evict_lru"``: it takes the
  place of the replica least recently read or made; ``"stop"``: it is not
  migrated (it keeps its R-LRU entry and count, and is refused again on its
  next read from the original place while the space stays full); replicas
  leave only when their entry leaves the R-LRU or their page is written.  The
  paper does not say which (§III.B: "Since the capacity of the staging space
  is limited, not all popular read data pages are migrated"): both are
  readings.
* ``rlru_track`` (``"all"`` default, or ``"blocked"``): which flash reads update
  the R-LRU and can make a replica.  The paper's hit/miss handling sits under
  "If a read request is blocked" (§III.C), while §III.B has the list hold "the
  most recently read data pages" and migrate them "in advance": ``"all"``
  counts every flash read (the guide's default), ``"blocked"`` only the reads
  whose die is blocked, so a page is first redirected on its third blocked read
  at ``hot_threshold`` 2.
* ``staging`` (``"dedicated"`` default, or ``"overprovision"``): replicas on
  ``staging_dies`` extra dies, each on its own channel, or in the data dies'
  spare space (timing only: the pages they take are not removed from GC's
  spare space).
* ``staging_dies`` (default 2 = 10% of the ``hotr`` preset's 20 data dies,
  which gives the paper's 1.10 capacity cost).
* ``erase_blocks`` (default False): an erase in progress also counts as a
  conflict.

Reported: ``redirected_reads`` (requests with at least one page served by a
replica), ``redirected_pages``, ``replica_writes``, ``replica_invalidations``,
``rlru_evictions``, ``staging_occupancy_max``, ``busy_staging_ns``,
``replica_drops`` (replicas given up to make room), ``replica_refusals`` (pages
a full staging space refused, ``staging_full="stop"``), and ``cost_factor``
(capacity relative to Baseline), ``staging_pages`` and ``rlru_entries``.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core.mechanisms.hot_replicas_py import ReplicationSpec
from ...policy import Policy, register_policy

STAGING_MODES = ("dedicated", "overprovision")
STAGING_FULL = ("evict_lru", "stop")
RLRU_TRACK = ("all", "blocked")
# Modelled DRAM per R-LRU entry: D-offset 4 + R-offset 4 + count 4 + two list links 8 bytes.
ENTRY_BYTES = 20


def request_pages(offset, size, page_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every page the requests (byte ``offset``, ``size``) touch, concatenated in request
    order, and the number of pages of each request."""
    off = np.asarray(offset, dtype=np.int64)
    lo = off // page_size
    n = (off + np.asarray(size, dtype=np.int64) - 1) // page_size - lo + 1
    # page j of the concatenation belongs to request r: lo[r] + (j - index of r's first page)
    return np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()), dtype=np.int64), n


def read_footprint_pages(source, page_size: int, logical_pages: int) -> int:
    """Distinct logical pages the read requests of ``source`` (a TraceSource) touch."""
    seen = np.zeros(max(1, int(logical_pages)), dtype=bool)
    for c in source.chunks():
        rd = ~np.asarray(c.is_write, dtype=bool)
        pages, _ = request_pages(np.asarray(c.offset)[rd], np.asarray(c.size)[rd], page_size)
        seen[pages[pages < len(seen)]] = True
    return int(seen.sum())


def _check_int(name, v, lo):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"hotr: {name} must be an integer >= {lo}, got {v!r}")


@register_policy
class HotR(Policy):
    """HotR: replicas of hot read pages in a staging space serve reads whose die is programming."""

    name = "hotr"

    def __init__(self, hot_threshold: int = 2, hot_fraction: float = 0.10, staging_pages: int | None = None,
                 staging: str = "dedicated", staging_dies: int = 2, erase_blocks: bool = False,
                 rlru_factor: float = 10.0, staging_full: str = "evict_lru", rlru_track: str = "all"):
        super().__init__()
        _check_int("hot_threshold", hot_threshold, 1)
        if isinstance(hot_fraction, bool) or not isinstance(hot_fraction, (int, float)) or not 0 < hot_fraction <= 1:
            raise ValueError(f"hotr: hot_fraction must be a number in (0, 1], got {hot_fraction!r}")
        if staging_pages is not None:
            _check_int("staging_pages", staging_pages, 1)
        if staging not in STAGING_MODES:
            raise ValueError(f"hotr: staging must be one of {STAGING_MODES}, got {staging!r}")
        _check_int("staging_dies", staging_dies, 1)
        if not isinstance(erase_blocks, bool):
            raise ValueError(f"hotr: erase_blocks must be True or False, got {erase_blocks!r}")
        if isinstance(rlru_factor, bool) or not isinstance(rlru_factor, (int, float)) or not 1 <= rlru_factor <= 1e6:
            raise ValueError(f"hotr: rlru_factor (R-LRU entries per staging page) must be a number in "
                             f"[1, 1e6], got {rlru_factor!r}")
        if staging_full not in STAGING_FULL:
            raise ValueError(f"hotr: staging_full must be one of {STAGING_FULL}, got {staging_full!r}")
        if rlru_track not in RLRU_TRACK:
            raise ValueError(f"hotr: rlru_track must be one of {RLRU_TRACK}, got {rlru_track!r}")
        self.hot_threshold, self.hot_fraction, self.staging_pages = int(hot_threshold), float(hot_fraction), \
            None if staging_pages is None else int(staging_pages)
        self.staging, self.staging_dies, self.erase_blocks = staging, int(staging_dies), erase_blocks
        self.rlru_factor, self.staging_full, self.rlru_track = float(rlru_factor), staging_full, rlru_track
        self._capacity = self.staging_pages
        self._logical_pages = None
        self._cost = 1.0

    def params(self) -> dict:
        return {"hot_threshold": self.hot_threshold, "hot_fraction": self.hot_fraction,
                "staging_pages": self.staging_pages, "staging": self.staging, "staging_dies": self.staging_dies,
                "erase_blocks": self.erase_blocks, "rlru_factor": self.rlru_factor,
                "staging_full": self.staging_full, "rlru_track": self.rlru_track}

    def bind(self, config, seed: int) -> None:
        self._capacity = self.staging_pages
        if config is None:
            return
        self._logical_pages = int(config.logical_pages)
        if self.staging == "dedicated":
            self._cost = 1.0 + self.staging_dies / config.geometry.n_dies
        self._config = config

    def bind_trace(self, source, config) -> None:
        """Size the staging space from the trace (``hot_fraction`` of its read footprint)."""
        if self.staging_pages is None:
            foot = read_footprint_pages(source, config.geometry.page_size_bytes, config.logical_pages)
            self._capacity = max(1, int(math.ceil(self.hot_fraction * foot)))
        if self.staging == "overprovision":
            self._cost = 1.0 + self._capacity / config.logical_pages

    def capacity(self) -> int:
        """Staging capacity of the current run (pages: replicas held at most)."""
        if self._capacity is None:
            raise ValueError("hotr: the staging capacity is known once the trace is bound (simulate does it); "
                             "give staging_pages to use the policy without a trace")
        return self._capacity

    def rlru_entries(self) -> int:
        """R-LRU length (entries): ``rlru_factor`` per staging page, at most one per logical
        page of the bound device, never fewer than the staging pages."""
        cap = self.capacity()
        n = int(math.ceil(self.rlru_factor * cap))
        if self._logical_pages is not None:
            n = min(n, self._logical_pages)
        return max(cap, n)

    def metadata_bytes(self, config) -> int:
        return self.rlru_entries() * ENTRY_BYTES if self._capacity is not None else 0

    def replication_spec(self):
        return ReplicationSpec(self.hot_threshold, self.capacity(), self.staging_dies,
                               self.staging == "overprovision", self.erase_blocks, self.rlru_entries(),
                               self.staging_full == "stop", self.rlru_track == "blocked")

    def extra_metrics(self) -> dict:
        return {"cost_factor": self._cost, "staging_pages": self.capacity(), "rlru_entries": self.rlru_entries()}
