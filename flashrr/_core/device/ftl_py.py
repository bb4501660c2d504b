"""FTL layer (twin of ``ftl.pyx``): page mapping, free superblocks and the
write frontiers.  docs/model.md section 2 gives the rules.  Ids follow
layout.py: ``sb = lane * S + row``, ``blk = sb * k + c``, ``ppn = blk * N + off``."""
from __future__ import annotations

import numpy as np

from ..invariants import EngineError
from ..layout import GC_OPEN_MAX, SB_CLOSED, SB_OPEN_GC, SB_OPEN_USER, Layout
from .sched_py import Scheduler
from ..device_state import copied, pack_lists, set_copied, unpack_lists

#: gc.aligned_moves: how many unplaced victim rows past a misfit Ftl.gc_plan looks at for one that fits
ALIGN_LOOKAHEAD = 16

_ARRAYS = ("l2p", "p2l", "sb_valid", "sb_state", "version", "ppn_version")
_LISTS = ("uf_sb", "uf_wp", "gc_due", "unerased")
_NESTED = ("free", "gc_open", "gc_pos", "gc_off")


class Ftl:
    def __init__(self, layout: Layout, sched: Scheduler, check: bool):
        L = self.L = layout
        k, S = L.k, L.sb_per_lane
        self.sched = sched
        self.l2p = np.full(L.logical_pages, -1, dtype=np.int32)
        self.p2l = np.full(L.n_pages, -1, dtype=np.int32)
        self.sb_valid = np.zeros(L.n_superblocks, dtype=np.int32)
        self.sb_state = np.zeros(L.n_superblocks, dtype=np.int8)
        # free superblock rows per lane, FIFO (erased ones go to the back)
        self.free = [list(range(l * S, (l + 1) * S)) for l in range(L.n_lanes)]
        self.uf_sb = [-1] * L.n_lanes  # user frontier superblock per lane
        self.uf_wp = [0] * L.n_lanes  # next page index in it (off = wp // k, comp = wp % k)
        self.user_lane = 0
        self.gc_open = [[] for _ in range(L.n_lanes)]  # open GC/RR frontier superblocks, oldest first
        self.gc_pos = [[0] * k for _ in range(L.n_lanes)]  # per component: index into gc_open
        self.gc_off = [[0] * k for _ in range(L.n_lanes)]  # per component: next page offset there
        self.gc_due = [0] * L.n_lanes  # GC victims owed: allocations made below the GC threshold
        self.kick = -1  # lane whose user frontier just took a superblock
        # gc.free_pool = "erased": free superblocks whose erase has not ended, and the event each waits for
        self.unerased = [0] * L.n_lanes
        self.sb_tag: dict[int, int] = {}
        self.pv = None  # process variation (PVTiming), reassembles allocated superblocks; None when off
        # invariant mode: a version stamp per logical page and per physical page
        self.check = check
        self.version = np.zeros(L.logical_pages if check else 0, dtype=np.int64)
        self.ppn_version = np.zeros(L.n_pages if check else 0, dtype=np.int64)

    def state(self) -> dict:
        """Mapping, free pools and frontiers, for a snapshot (flashrr/snapshot)."""
        out = copied(self, _ARRAYS)
        for name in _LISTS:
            out[name] = np.array(getattr(self, name), dtype=np.int64)
        for name in _NESTED:
            out[name], out[name + "_lens"] = pack_lists(getattr(self, name))
        out["sb_tag"] = np.array(sorted(self.sb_tag.items()), dtype=np.int64).reshape(-1, 2)
        out["user_lane"] = self.user_lane
        return out

    def restore(self, state: dict) -> None:
        """Set the state :meth:`state` returned (same layout)."""
        set_copied(self, state, _ARRAYS, "ftl")
        n = self.L.n_lanes
        for name in _LISTS + _NESTED:
            if name not in state:
                raise ValueError(f"ftl.{name}: missing")
        for name in _LISTS:
            if state[name].shape != (n,):
                raise ValueError(f"ftl.{name}: expected {n} lanes, got shape {state[name].shape}")
            setattr(self, name, [int(v) for v in state[name]])
        for name in _NESTED:
            try:
                lists = unpack_lists(state[name], state.get(name + "_lens", np.zeros(0, np.int64)))
            except ValueError as e:
                raise ValueError(f"ftl.{name}: {e}") from None
            if len(lists) != n:
                raise ValueError(f"ftl.{name}: expected {n} lanes, got {len(lists)}")
            setattr(self, name, lists)
        self.sb_tag = {int(s): int(t) for s, t in state["sb_tag"]}
        self.user_lane = int(state["user_lane"])
        self.kick = -1

    def alloc(self, lane: int, gc: bool) -> int:
        """Pop the lane's oldest free superblock for the user (``gc`` False) or the GC/RR
        frontier; each allocation below the GC threshold owes one GC victim."""
        L = self.L
        if not self.free[lane]:
            raise EngineError(
                f"lane {lane} has no free superblock left: the device has too little spare space for this "
                f"workload (raise gc.overprovisioning_ratio or shrink the footprint)")
        sb = self.free[lane].pop(0)
        job = self.sched.sb_erase_job.get(sb)
        if job is not None:  # no superblock is reused before its erase is booked
            self.sched.force(job)
        if self.sb_tag.pop(sb, None) is not None:  # taken before its erase ended: no longer in the pool
            self.unerased[lane] -= 1
        if self.pv is not None and self.pv.dynamic:
            # PV reassembly: the pool is this superblock and every free one whose erase is booked
            self.pv.reassemble(sb, [s for s in self.free[lane] if s not in self.sched.sb_erase_job], gc)
        if self.below_gc(lane):
            self.gc_due[lane] += 1
        return sb

    def pool_size(self, lane: int) -> int:
        """Free superblocks the GC thresholds count (gc.free_pool = "erased": erased ones only)."""
        return len(self.free[lane]) - self.unerased[lane]

    def below_gc(self, lane: int) -> bool:
        return self.pool_size(lane) < self.L.gc_threshold_sb

    def writes_held(self, lane: int) -> bool:
        """gc.write_stall: the lane is below the GC threshold with a victim whose erase has not ended."""
        return self.below_gc(lane) and self.unerased[lane] > 0

    def lane_of(self, ppn: int) -> int:
        return ppn // self.L.pages_per_superblock // self.L.sb_per_lane

    def user_slot(self) -> int:
        """Next user-frontier page (round-robin over lanes per superpage); returns a ppn.
        Sets ``kick`` to the lane when it took a new superblock."""
        L = self.L
        k, N = L.k, L.pages_per_block
        lane = self.user_lane
        if self.uf_sb[lane] < 0:
            sb = self.alloc(lane, False)
            self.sb_state[sb] = SB_OPEN_USER
            self.uf_sb[lane], self.uf_wp[lane] = sb, 0
            self.kick = lane
        sb, wp = self.uf_sb[lane], self.uf_wp[lane]
        ppn = (sb * k + wp % k) * N + wp // k
        wp += 1
        self.uf_wp[lane] = wp
        if wp == k * N:
            self.sb_state[sb] = SB_CLOSED
            self.uf_sb[lane] = -1
        if wp % k == 0:
            self.user_lane = (lane + 1) % L.n_lanes
        return ppn

    def gc_slot(self, lane: int, c: int) -> int:
        """Next GC/RR-frontier page of component ``c`` in ``lane`` (of the column
        :meth:`spill_column` names when ``c`` is full in every open superblock and no more
        may open); returns a ppn."""
        L = self.L
        k, N = L.k, L.pages_per_block
        opened, pos, off = self.gc_open[lane], self.gc_pos[lane], self.gc_off[lane]
        while True:
            if pos[c] < len(opened):
                if off[c] < N:
                    ppn = (opened[pos[c]] * k + c) * N + off[c]
                    off[c] += 1
                    break
                pos[c] += 1
                off[c] = 0
            elif len(opened) == GC_OPEN_MAX:
                i = self.spill_column(lane)
                if i >= 0:
                    ppn = (opened[0] * k + i) * N + off[i]
                    off[i] += 1
                    break
                self.gc_close_front(lane)
            else:
                self.open_gc(lane)
        while opened and min(pos) > 0:
            self.gc_close_front(lane)
        return ppn

    def gc_row(self, lane: int, cols: list, fixed: bool) -> list:
        """gc.aligned_moves, an RR: make room in the lane's GC/RR frontier row for one source
        row whose pages want columns ``cols``; returns the columns to write them to (twin of
        the compiled FTL's).  The row is the lowest (superblock, offset) any column has not
        written; a column is free in it when it is there.  ``fixed``: every column of ``cols``
        must be free, and they stay; otherwise ``len(cols)`` free columns are needed
        (:func:`own_or_lowest`).  A row that falls short is skipped once in its free columns
        (a page each, left unwritten) when the next row would do; otherwise, and when
        ``fixed`` sends two pages to one column, ``cols`` come back as they are."""
        N = self.L.pages_per_block
        pos, off = self.gc_pos[lane], self.gc_off[lane]
        if fixed and len(set(cols)) < len(cols):
            return list(cols)
        keys = self.gc_keys(lane)
        row, free = lowest_row(keys)
        near = [c for c, key in enumerate(keys) if key <= row + 1]
        if not (set(cols) <= set(free) if fixed else len(free) >= len(cols)):
            if not (set(cols) <= set(near) if fixed else len(near) >= len(cols)):
                return list(cols)
            for c in free:                                   # skip the row in its free columns
                off[c] += 1
                if off[c] > N:
                    pos[c] += 1
                    off[c] -= N
            free = near
        return list(cols) if fixed else own_or_lowest(cols, free)

    def gc_plan(self, lane: int, offs: list, cols: list) -> tuple[list, list]:
        """gc.aligned_moves, pages the frontier places: (order, columns) in which gc_slot() is
        to write a victim's pages, grouped in rows by ``offs`` (source order) with their own
        columns ``cols`` (twin of the compiled FTL's).  Each frontier row takes the earliest of
        the next ALIGN_LOOKAHEAD unplaced victim rows that fits in its free columns, else the
        first unplaced row's first pages, as many as fit; a page keeps its column when that
        is free, the others take the lowest free ones.  No page is left unwritten."""
        keys = self.gc_keys(lane)
        rows = []                                            # [start, length] per victim row
        for q, o in enumerate(offs):
            if q == 0 or o != offs[q - 1]:
                rows.append([q, 0])
            rows[-1][1] += 1
        cols = list(cols)
        order = []
        while any(length for _, length in rows):
            _, free = lowest_row(keys)
            waiting = [r for r in rows if r[1]][:ALIGN_LOOKAHEAD]
            fits = [r for r in waiting if r[1] <= len(free)]
            row = fits[0] if fits else waiting[0]
            take = row[1] if fits else len(free)
            pages = range(row[0], row[0] + take)
            cols[row[0]:row[0] + take] = own_or_lowest(cols[row[0]:row[0] + take], free)
            for q in pages:
                keys[cols[q]] += 1
                order.append(q)
            row[0] += take
            row[1] -= take
        return order, cols

    def gc_keys(self, lane: int) -> list:
        """Each column's next page of the lane's GC/RR frontier as one number, pos * N + off."""
        N = self.L.pages_per_block
        return [p * N + o for p, o in zip(self.gc_pos[lane], self.gc_off[lane])]

    def spill_column(self, lane: int) -> int:
        """The column of the oldest open GC/RR superblock with the most unwritten pages
        (ties: the lowest index) among those still writing it, or -1: where a page goes
        when its own column is full in every open superblock (twin of the compiled FTL's)."""
        pos, off, N = self.gc_pos[lane], self.gc_off[lane], self.L.pages_per_block
        room = [c for c in range(self.L.k) if pos[c] == 0 and off[c] < N]
        return min(room, key=lambda c: (off[c], c)) if room else -1

    def open_gc(self, lane: int) -> None:
        """Open a new GC/RR frontier superblock in ``lane`` (after those open)."""
        sb = self.alloc(lane, True)
        self.sb_state[sb] = SB_OPEN_GC
        self.gc_open[lane].append(sb)

    def reserve_gc_frontiers(self) -> None:
        """gc.reserve_gc_frontier: open every lane's GC/RR frontier (the engine, when built)."""
        for lane in range(self.L.n_lanes):
            self.open_gc(lane)

    def gc_close_front(self, lane: int) -> None:
        """Close the oldest open GC superblock (every column of it written)."""
        opened, pos, off = self.gc_open[lane], self.gc_pos[lane], self.gc_off[lane]
        self.sb_state[opened.pop(0)] = SB_CLOSED
        for c in range(self.L.k):
            if pos[c] == 0:
                off[c] = 0
            else:
                pos[c] -= 1

    def detach_frontier(self, sb: int) -> None:
        """A victim that is still an open frontier stops being one."""
        L = self.L
        lane = sb // L.sb_per_lane
        if self.uf_sb[lane] == sb:
            self.uf_sb[lane] = -1
        opened = self.gc_open[lane]
        if sb in opened:
            j = opened.index(sb)
            opened.pop(j)
            pos, off = self.gc_pos[lane], self.gc_off[lane]
            for c in range(L.k):
                if pos[c] == j:
                    off[c] = 0
                elif pos[c] > j:
                    pos[c] -= 1

    def remap(self, lpn: int, ppn: int) -> None:
        """Point ``lpn`` at ``ppn``; the old page becomes invalid."""
        per_sb = self.L.pages_per_block * self.L.k
        old = int(self.l2p[lpn])
        if old >= 0:
            self.p2l[old] = -1
            self.sb_valid[old // per_sb] -= 1
        self.l2p[lpn] = ppn
        self.p2l[ppn] = lpn
        self.sb_valid[ppn // per_sb] += 1


def lowest_row(keys: list) -> tuple[int, list]:
    """The frontier row, the lowest of ``keys``, and its free columns, those there (twin of the
    compiled FTL's ``_lowest_row``)."""
    row = min(keys)
    return row, [c for c, key in enumerate(keys) if key == row]


def own_or_lowest(cols: list, free: list) -> list:
    """Columns for pages whose own are ``cols``, among ``free`` (at least as many): a page
    keeps its own when that is free and no page before it took it; the others take the
    lowest free columns left (twin of the compiled FTL's ``_own_or_lowest``)."""
    out, keep = [], set()
    for c in cols:
        mine = c in free and c not in keep
        out.append(c if mine else -1)
        if mine:
            keep.add(c)
    rest = iter(c for c in free if c not in keep)
    return [c if c >= 0 else next(rest) for c in out]
