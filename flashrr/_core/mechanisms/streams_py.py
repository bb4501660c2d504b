"""RR destination streams for redFTL and IPR (twin of ``streams.pyx``; the rules
are in its docstring and in docs/cocktail.md)."""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from ..layout import SB_CLOSED, SB_OPEN_GC, Layout
from ..device.ftl_py import Ftl
from ..device_state import copied, json_array, json_value, set_copied
from ..roles_py import Mechanism
from . import counter_names

_NESTED = ("open", "live", "given", "cold_next")  # per lane, in a snapshot



class StreamMode(IntEnum):
    """Which pages go to which stream (streams.pxd's MODE_* constants)."""

    REDFTL = 1  # by read count against the victim's: redFTL
    IPR = 2  # above the mean of the victim's valid pages: IPR
    BUDGET = 3  # by remaining read budget: Reallocation's matching


MODE_REDFTL, MODE_IPR, MODE_BUDGET = StreamMode.REDFTL, StreamMode.IPR, StreamMode.BUDGET


class StreamSpec(NamedTuple):
    """One destination stream (>= 1): ``mult`` (its RR threshold multiplier),
    ``cap_pages`` (usable pages per block), ``n_open`` (open blocks) and ``max_live``
    (live blocks per lane, -1 no cap)."""

    mult: int
    cap_pages: int
    n_open: int
    max_live: int


class RRStreamsSpec(NamedTuple):
    """RR destination streams: ``mode`` (:class:`StreamMode`), ``count_max`` (page
    counter saturation) and ``streams`` (a :class:`StreamSpec` per stream 1..)."""

    mode: int
    count_max: int
    streams: tuple


class Streams(Mechanism):
    def __init__(self, ctx, spec):
        """``spec`` = ``(mode, count_max, ((mult, cap_pages, n_open, max_live), ...))``, or None."""
        super().__init__()
        page_counts, block_reads, rr_threshold = ctx.page_counts, ctx.block_reads, ctx.rr_threshold
        L = ctx.layout
        self.ftl = ctx.ftl
        self.reset_counters()
        self.N, self.S, self.thr0 = L.pages_per_block, L.sb_per_lane, L.rr_threshold_reads
        self.block_reads, self.rr_threshold, self.counts = block_reads, rr_threshold, page_counts
        self.mode, self.count_max, extra = spec
        self.streams = [(1, self.N, 1, -1)] + [tuple(x) for x in extra]  # (mult, cap_pages, n_open, max_live)
        self.blk_stream = np.zeros(L.n_blocks, dtype=np.int8)
        n = L.n_lanes
        self.open = [[[[-1, 0] for _ in range(st[2])] for st in self.streams] for _ in range(n)]  # [blk, wp]
        self.live = [[0] * len(self.streams) for _ in range(n)]
        self.given = [[[0] * st[2] for st in self.streams] for _ in range(n)]  # budget mode: weight placed per slot
        self.cold_next = [0] * n
        self.code: list = []
        self.perm: list = []

    def state(self) -> dict:
        """Each block's stream and the streams' open blocks, for a snapshot (the GC of
        preconditioning opens and erases stream blocks)."""
        out = copied(self, ("blk_stream",))
        out.update({name: json_array(getattr(self, name)) for name in _NESTED})
        return out

    def restore(self, state: dict) -> None:
        set_copied(self, state, ("blk_stream",), "rr_streams")
        values = {name: json_value(state, name, "rr_streams") for name in _NESTED}
        if any(len(v) != len(self.cold_next) for v in values.values()):
            raise ValueError(f"rr_streams.open: expected {len(self.cold_next)} lanes")
        for name, v in values.items():
            setattr(self, name, v)

    def counter_values(self) -> list:
        return list(self.ctr.values())

    def reset_counters(self) -> None:
        self.ctr = dict.fromkeys(counter_names("rr_streams"), 0)

    def count(self, lpn: int) -> int:
        return min(int(self.counts[lpn]), self.count_max)

    def plan(self, victim: int, is_rr: bool, lpns: list) -> None:
        """Destination slot ``(stream, slot)`` per page (None = stream 0) and the program order."""
        n = len(lpns)
        lane = victim // self.S
        s = int(self.blk_stream[victim])
        if s:  # a victim still open in its stream stops being a frontier
            for slot in self.open[lane][s]:
                if slot[0] == victim:
                    slot[0] = -1
        self.code = [None] * n
        self.perm = list(range(n))
        if not is_rr or n == 0:
            return
        counts = [self.count(l) for l in lpns]
        if self.mode == MODE_IPR:
            total = sum(counts)
            self.code = [(1, 0) if c * n > total else None for c in counts]
            return
        self.perm = sorted(range(n), key=lambda q: (-counts[q], q))
        if self.mode == MODE_BUDGET:
            budget, room = self.budgets(lane)
            fresh, cap = self.thr0 * self.streams[1][0], self.streams[1][1]
            for q in self.perm:
                best = self.pick(lane, counts[q], budget)
                self.code[q] = (1, best)
                budget[best] -= counts[q]
                room[best] -= 1
                if room[best] == 0:  # the block fills; a fresh one takes the slot
                    budget[best], room[best] = fresh, cap
            return
        s = 1 if int(self.blk_stream[victim]) == 0 else 2
        cap = self.streams[s][1]
        load, room = [], []
        for b, wp in self.open[lane][s]:
            load.append(int(self.block_reads[b]) if b >= 0 else 0)
            room.append(cap - wp if b >= 0 else cap)
        for q in self.perm:
            best = min(range(len(load)), key=lambda r: (load[r], r))
            self.code[q] = (s, best)
            load[best] += counts[q]
            room[best] -= 1
            if room[best] == 0:  # the block fills; a fresh one takes the slot
                load[best], room[best] = 0, cap
        return

    def budgets(self, lane: int) -> tuple:
        """Budget mode: (read budget left, free pages) of each open slot of stream 1."""
        mult, cap = self.streams[1][0], self.streams[1][1]
        budget, room = [], []
        for (b, wp), given in zip(self.open[lane][1], self.given[lane][1]):
            if b >= 0:
                budget.append(int(self.rr_threshold[b]) - int(self.block_reads[b]) - given)
                room.append(cap - wp)
            else:
                budget.append(self.thr0 * mult)
                room.append(cap)
        return budget, room

    def pick(self, lane: int, w: int, budget: list) -> int:
        """Budget mode: the slot a page of count ``w`` goes to (cold pages round-robin)."""
        if w <= 0:
            r = self.cold_next[lane]
            self.cold_next[lane] = (r + 1) % len(budget)
            return r
        return max(range(len(budget)), key=lambda r: (budget[r], -r))

    def place_one(self, lane: int, lpn: int, src_blk: int) -> int:
        """Budget mode: the new page of ``lpn`` moved early out of ``src_blk`` (closed first if
        it is still open in the stream)."""
        for slot in self.open[lane][1]:
            if slot[0] == src_blk:
                self.ftl.sb_state[src_blk] = SB_CLOSED
                slot[0] = -1
        budget, _ = self.budgets(lane)
        return self.slot_ppn(lane, (1, self.pick(lane, self.count(lpn), budget)), lpn)

    def slot_ppn(self, lane: int, code: tuple, lpn: int) -> int:
        s, r = code
        mult, cap, _, max_live = self.streams[s]
        slot = self.open[lane][s][r]
        ftl = self.ftl
        if slot[0] < 0:
            if max_live >= 0 and self.live[lane][s] >= max_live:
                self.ctr["stream_fallback_pages"] += 1
                return ftl.gc_slot(lane, 0)
            b = ftl.alloc(lane, True)
            ftl.sb_state[b] = SB_OPEN_GC
            self.rr_threshold[b] = self.thr0 * mult
            self.blk_stream[b] = s
            self.live[lane][s] += 1
            slot[0], slot[1] = b, 0
            self.given[lane][s][r] = 0
            self.ctr["stream_blocks"] += 1
        b, wp = slot
        ppn = b * self.N + wp
        slot[1] = wp + 1
        if self.mode == MODE_BUDGET:
            self.given[lane][s][r] += self.count(lpn)
        self.ctr["stream_pages"] += 1
        if wp + 1 == cap:
            ftl.sb_state[b] = SB_CLOSED
            slot[0] = -1
        return ppn

    def block_erased(self, blk: int) -> None:
        s = int(self.blk_stream[blk])
        if s:
            self.live[blk // self.S][s] -= 1
            self.blk_stream[blk] = 0

    def places_migration(self, is_rr: bool) -> bool:
        return True

    def plan_migration(self, victim: int, is_rr: bool, lpns: list) -> None:
        self.plan(victim, is_rr, lpns)

    def migration_order(self, n: int):
        return self.perm

    def migration_page(self, lane: int, q: int, lpn: int, dest: int) -> int:
        """Page q to its stream's block; -1 (stream 0): the GC/RR frontier."""
        return -1 if self.code[q] is None else self.slot_ppn(lane, self.code[q], lpn)

    def migration_moved(self, lpns: list) -> None:
        self.moved(lpns)

    def move_page_slot(self, lane: int, lpn: int, src_blk: int) -> int:
        """Reallocation's matching (MODE_BUDGET) places single moves too."""
        if self.mode != MODE_BUDGET:
            return -1
        ppn = self.place_one(lane, lpn, src_blk)
        self.moved([lpn])
        return ppn

    def user_page(self, lpn: int) -> int:
        """The user-page placer: a host write restarts the page's read count."""
        self.moved([lpn])
        return self.ftl.user_slot()

    def moved(self, lpns) -> None:
        for lpn in lpns:
            self.counts[lpn] = 0

    def array(self, name: str) -> np.ndarray:
        """The compiled engine's array form of the state (for tests): blk_stream, live ([lane, stream]
        flattened over 4 streams), open_blk / open_wp / given ([lane, stream, slot] over 4 x 8), cold_next."""
        if name == "blk_stream":
            return self.blk_stream
        n = len(self.live)
        if name == "cold_next":
            return np.array(self.cold_next, np.int32)
        if name == "live":
            out = np.zeros((n, 4), np.int32)
            for lane in range(n):
                out[lane, :len(self.live[lane])] = self.live[lane]
            return out.ravel()
        out = np.full((n, 4, 8), -1 if name == "open_blk" else 0, np.int64 if name == "given" else np.int32)
        for lane in range(n):
            for s, slots in enumerate(self.open[lane]):
                for r, (b, wp) in enumerate(slots):
                    out[lane, s, r] = {"open_blk": b, "open_wp": wp}.get(name, self.given[lane][s][r])
        return out.ravel()
