"""Page, Page-8 and Page-64: RR that regroups pages by read counters (Shuffler §4.1).

*Page* keeps one read counter per page; *Page-N* one per N consecutive
logical pages.  At a superblock read reclaim it regroups the valid pages
across the *k* component blocks by historical read hotness, so that every
destination block is expected to serve about the same number of future reads.
It ignores superpage alignment: pages of one superpage may end up at
different offsets, which costs multi-plane transactions on later user reads.
The counters live in the SSD's DRAM and are taken from the data cache.

The regrouping (the paper gives only its goal) is a greedy, capacity-bounded
"largest first" partition:

1. each valid page gets a weight: its counter divided by the number of
   logical pages sharing that counter (every page of a group is assumed
   equally hot);
2. pages are sorted by weight, heaviest first (ties keep source order);
3. each page goes to the destination component with the smallest
   accumulated weight that still has room (ties: lowest component index);
   with ``v`` valid pages, every destination receives ``v // k`` or
   ``v // k + 1`` pages, so page counts stay equal within one.

Interpretations (each a parameter or documented):

* counters are the engine's per-LPN flash-read counts (cache hits do not
  count), accumulated over the whole run and never reset ("historical");
* ``counter_bytes`` (default 4): DRAM bytes per counter.  Shuffler's Fig. 16
  note, "Page has no cache left at 32 MB" on its 64 GiB device of 8 KiB
  pages, means 4-byte counters for **every physical page**
  (8 Mi pages x 4 B = 32 MiB); hence ``counter_scope="physical"`` (default)
  charges ``ceil(physical pages / N) * counter_bytes``; ``"logical"``
  charges only the host-visible pages;
* only RR migrations are regrouped; GC migrations keep component indices.
"""
from __future__ import annotations

import heapq
import time

import numpy as np

from ...policy import EngineState, Policy, register_policy

COUNTER_SCOPES = ("physical", "logical")


def balanced_assignment(weights, k: int) -> np.ndarray:
    """Destination component (``0..k-1``) of each item, greedy largest-first.

    ``weights``: non-negative expected reads of each item (any unit).  Items
    are taken heaviest first (stable), each to the component with the smallest
    accumulated weight that still has room; every component ends with
    ``len(weights) // k`` or one more item.
    """
    w = np.asarray(weights, dtype=np.float64)
    n = w.size
    dest = np.empty(n, dtype=np.int32)
    if n == 0:
        return dest
    order = np.argsort(-w, kind="stable")
    w_sorted = w[order]
    base, extra = divmod(n, k)
    counts = [0] * k
    used_extra = 0
    heap = [(0.0, c) for c in range(k)]  # (accumulated weight, component); already a heap
    n_pos = int(np.count_nonzero(w_sorted > 0))
    w_list = w_sorted[:n_pos].tolist()
    out = [0] * n_pos
    for i in range(n_pos):
        while True:
            s, c = heapq.heappop(heap)
            if counts[c] < base or (counts[c] == base and used_extra < extra):
                break
            # c is full for good: room only shrinks
        if counts[c] == base:
            used_extra += 1
        counts[c] += 1
        out[i] = c
        heapq.heappush(heap, (s + w_list[i], c))
    dest[order[:n_pos]] = out
    # weightless rest: the sums no longer change, so the greedy fills the
    # components one after another in (sum, index) order
    fill = []
    for s, c in sorted(heap):
        room = base - counts[c]
        if room >= 0 and used_extra < extra:
            room += 1
            used_extra += 1
        if room > 0:
            fill.append(np.full(room, c, dtype=np.int32))
    if n_pos < n:
        dest[order[n_pos:]] = np.concatenate(fill)[:n - n_pos]
    return dest


def page_weights(page_counters: np.ndarray, lpns, group: int, logical_pages: int) -> np.ndarray:
    """Expected reads per page: its group's counter / logical pages in that group."""
    lpns = np.asarray(lpns, dtype=np.int64)
    gid = lpns // group
    raw = page_counters[gid].astype(np.float64)
    if group == 1:
        return raw
    size = np.minimum(group, logical_pages - gid * group)
    return raw / size


@register_policy
class Page(Policy):
    """Page-level read counters; regroups pages by hotness at every RR.

    Parameters: ``counter_bytes`` (DRAM bytes per counter, default 4) and
    ``counter_scope`` (``"physical"``: one counter per physical page, as the
    paper's DRAM accounting implies; ``"logical"``: per logical page).
    Extra metrics: ``page_regroups`` (RRs regrouped),
    ``page_pages_relocated`` (pages moved to another component block) and
    ``policy_time_s`` (seconds in the policy's code).
    """

    name = "page"
    page_counter_group = 1
    place_kinds = ("rr",)

    def __init__(self, counter_bytes: int = 4, counter_scope: str = "physical"):
        super().__init__()
        if isinstance(counter_bytes, bool) or not isinstance(counter_bytes, (int, np.integer)) or counter_bytes < 0:
            raise ValueError(f"{self.name}: counter_bytes must be a non-negative integer, got {counter_bytes!r}")
        if counter_scope not in COUNTER_SCOPES:
            raise ValueError(f"{self.name}: counter_scope must be one of {COUNTER_SCOPES}, got {counter_scope!r}")
        self.counter_bytes = int(counter_bytes)
        self.counter_scope = counter_scope
        self.bind(None, 0)

    def params(self) -> dict:
        return {"counter_bytes": self.counter_bytes, "counter_scope": self.counter_scope}

    def bind(self, config, seed: int) -> None:
        self._regroups = 0
        self._relocated = 0
        self._time_s = 0.0

    def n_counters(self, config) -> int:
        """Counters kept in DRAM for device ``config``."""
        pages = config.geometry.n_pages if self.counter_scope == "physical" else config.logical_pages
        return -(-pages // self.page_counter_group)

    def metadata_bytes(self, config) -> int:
        """DRAM bytes of the counters (taken from the data cache)."""
        return self.n_counters(config) * self.counter_bytes

    def on_read_reclaim(self, state: EngineState, sb: int) -> str:
        return "regroup"

    def place_migration(self, state: EngineState, kind: str, sb: int, comps, offsets, lpns):
        if kind != "rr":
            return comps
        t0 = time.perf_counter()
        w = page_weights(state.page_counters, lpns, self.page_counter_group, state.layout.logical_pages)
        dest = balanced_assignment(w, state.layout.k)
        self._regroups += 1
        self._relocated += int(np.count_nonzero(dest != comps))
        self._time_s += time.perf_counter() - t0
        return dest

    def extra_metrics(self) -> dict:
        return {"page_regroups": self._regroups, "page_pages_relocated": self._relocated,
                "policy_time_s": self._time_s}


@register_policy
class Page8(Page):
    """Page-8: one read counter per 8 consecutive logical pages."""

    name = "page-8"
    page_counter_group = 8


@register_policy
class Page64(Page):
    """Page-64: one read counter per 64 consecutive logical pages."""

    name = "page-64"
    page_counter_group = 64
