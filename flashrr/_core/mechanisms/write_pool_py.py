"""Cocktail's write pool (twin of ``write_pool.pyx``; the rules are in its docstring
and in docs/cocktail.md), and the per-block composition counters."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..layout import SB_CLOSED, SB_OPEN_GC, SB_OPEN_USER, SB_POOL, Layout
from ..device.ftl_py import Ftl
from ..device_state import json_array, json_value
from ..roles_py import Mechanism
from . import counter_names


class WritePoolSpec(NamedTuple):
    """Cocktail's write pool: capacity bounds ``cap_min``..``cap_max`` (blocks), Eq. 2's
    ``ratio_ppm`` (r x 10^6), ``n_fixed`` (0: n = the capacity), ``gc_internal`` (GC
    pages take Algorithm 2), ``reset_per_page`` (capacity reset check per internal page,
    else per migration) and ``key_reads`` (pick by read count instead of Eq. 2)."""

    cap_min: int
    cap_max: int
    ratio_ppm: int
    n_fixed: int
    gc_internal: bool
    reset_per_page: bool
    key_reads: bool

F_WR, F_RR = 0, 1


class WritePool(Mechanism):
    def __init__(self, ctx, spec):
        """``spec`` = ``(cap_min, cap_max, ratio_ppm, n_fixed, gc_internal, reset_per_page,
        key_reads)``."""
        super().__init__()
        block_reads, rr_threshold = ctx.block_reads, ctx.rr_threshold
        L = ctx.layout
        self.ftl = ctx.ftl
        self.reset_counters()
        self.N, self.n_lanes, self.S = L.pages_per_block, L.n_lanes, L.sb_per_lane
        self.block_reads, self.rr_threshold = block_reads, rr_threshold
        (self.cap_min, self.cap_max, self.ratio_ppm, self.n_fixed, self.gc_internal, self.reset_per_page,
         self.key_reads) = spec
        n = self.n_lanes
        self.pool = [[] for _ in range(n)]  # per lane: [block, next offset, flag] in insertion order
        self.cap = [self.cap_min] * n
        self.wfr = [[-1, 0] for _ in range(n)]  # internal frontier: block, next offset

    def state(self) -> dict:
        """The pools and internal frontiers, for a snapshot (the GC of preconditioning fills them)."""
        return {"pool": json_array(self.pool), "cap": json_array(self.cap), "wfr": json_array(self.wfr)}

    def restore(self, state: dict) -> None:
        pool, cap, wfr = (json_value(state, name, "write_pool") for name in ("pool", "cap", "wfr"))
        if not len(pool) == len(cap) == len(wfr) == self.n_lanes:
            raise ValueError(f"write_pool.pool: expected {self.n_lanes} lanes")
        self.pool, self.cap, self.wfr = pool, cap, wfr

    def counter_values(self) -> list:
        return list(self.ctr.values())

    def reset_counters(self) -> None:
        self.ctr = dict.fromkeys(counter_names("write_pool"), 0)

    # ------------------------------------------------------------------ pool entries
    def above(self, a: int, b: int) -> bool:
        """Eq. 2 factor of block ``a`` strictly above that of ``b``."""
        if self.key_reads:
            return int(self.block_reads[a]) > int(self.block_reads[b])
        r, N = self.ratio_ppm, self.N
        ta, tb = int(self.rr_threshold[a]), int(self.rr_threshold[b])
        na = r * int(self.block_reads[a]) * N + (1_000_000 - r) * int(self.ftl.sb_valid[a]) * ta
        nb = r * int(self.block_reads[b]) * N + (1_000_000 - r) * int(self.ftl.sb_valid[b]) * tb
        if ta == tb:
            return na > nb
        return float(na) * float(tb) > float(nb) * float(ta)

    def pick(self, lane: int, want, largest: bool) -> int:
        """Index of the entry flagged ``want`` (None: any) with the least (or largest) factor."""
        best = -1
        for j, (b, _, f) in enumerate(self.pool[lane]):
            if want is not None and f != want:
                continue
            if best < 0:
                best = j
                continue
            cur = self.pool[lane][best][0]
            if (self.above(b, cur) if largest else self.above(cur, b)):
                best = j
        return best

    def push(self, lane: int, b: int, i: int, f: int) -> None:
        self.pool[lane].append([b, i, f])
        self.ftl.sb_state[b] = SB_POOL

    def n_wr(self, lane: int) -> int:
        return sum(1 for e in self.pool[lane] if e[2] == F_WR)

    def write_entry(self, lane: int, j: int) -> int:
        """Program the next page of entry ``j``; a full entry closes and leaves the pool."""
        e = self.pool[lane][j]
        ppn = e[0] * self.N + e[1]
        e[1] += 1
        if e[1] == self.N:
            self.ftl.sb_state[e[0]] = SB_CLOSED
            self.pool[lane].pop(j)
        return ppn

    def share(self, lane: int) -> int:
        return self.n_fixed if self.n_fixed else self.cap[lane]

    # ------------------------------------------------------------------ Algorithm 1
    def victim_chosen(self, victim: int) -> None:
        self.on_victim(victim)

    def places_migration(self, is_rr: bool) -> bool:
        """Algorithm 2 takes RR pages, and GC pages when gc_internal."""
        return is_rr or self.gc_internal

    def migration_page(self, lane: int, q: int, lpn: int, dest: int) -> int:
        return self.internal_slot(lane)

    def migration_done(self, lane: int) -> None:
        if not self.reset_per_page:
            self.after_migration(lane)

    def user_page(self, lpn: int) -> int:
        """The user-page placer: Algorithm 1."""
        return self.user_slot()

    def user_slot(self) -> int:
        f, N, c = self.ftl, self.N, self.ctr
        lane = f.user_lane
        f.user_lane = (lane + 1) % self.n_lanes  # k = 1: every page completes a superpage
        if len(self.pool[lane]) > self.n_wr(lane):  # an entry prefilled with internal data
            c["user_pages_to_pool"] += 1
            return self.write_entry(lane, self.pick(lane, F_RR, False))
        if f.uf_sb[lane] < 0:
            sb = f.alloc(lane, False)
            f.sb_state[sb] = SB_OPEN_USER
            f.uf_sb[lane], f.uf_wp[lane] = sb, 0
            f.kick = lane
        sb, wp = f.uf_sb[lane], f.uf_wp[lane]
        ppn = sb * N + wp
        wp += 1
        f.uf_wp[lane] = wp
        if wp == N:
            f.sb_state[sb] = SB_CLOSED
            f.uf_sb[lane] = -1
            return ppn
        n = self.share(lane)
        if wp * n < N * (n - 1):
            return ppn
        pool = self.pool[lane]
        if len(pool) >= self.cap[lane] and self.cap[lane] < self.cap_max:
            self.cap[lane] += 1
            c["pool_cap_increments"] += 1
        if len(pool) < self.cap[lane]:
            self.push(lane, sb, wp, F_WR)
            f.uf_sb[lane] = -1
            c["pool_pushes_user"] += 1
            return ppn
        j = self.pick(lane, None, True)  # full pool at cap_max: all entries are WR here
        if j >= 0 and self.above(pool[j][0], sb):
            t, i, _ = pool.pop(j)
            self.push(lane, sb, wp, F_WR)
            f.uf_sb[lane], f.uf_wp[lane] = t, i
            f.sb_state[t] = SB_OPEN_USER
            c["pool_exchanges"] += 1
        return ppn

    # ------------------------------------------------------------------ Algorithm 2
    def internal_slot(self, lane: int) -> int:
        f, N, c = self.ftl, self.N, self.ctr
        if self.n_wr(lane) > 0:
            c["rr_pages_to_pool"] += 1
            ppn = self.write_entry(lane, self.pick(lane, F_WR, False))
        elif len(self.pool[lane]) < self.cap[lane]:
            wfr = self.wfr[lane]
            if wfr[0] < 0:
                sb = f.alloc(lane, True)
                f.sb_state[sb] = SB_OPEN_GC
                wfr[0], wfr[1] = sb, 0
            sb, i = wfr
            ppn = sb * N + i
            i += 1
            wfr[1] = i
            c["rr_pages_to_wfr"] += 1
            if i == N:
                f.sb_state[sb] = SB_CLOSED
                wfr[0] = -1
            elif i * self.share(lane) >= N:
                self.push(lane, sb, i, F_RR)
                wfr[0] = -1
                c["pool_pushes_rr"] += 1
        else:
            c["rr_pages_aggregated"] += 1
            ppn = self.write_entry(lane, self.pick(lane, None, False))
        if self.reset_per_page:
            self.after_migration(lane)
        return ppn

    def after_migration(self, lane: int) -> None:
        if len(self.pool[lane]) < self.cap_min and self.cap[lane] != self.cap_min:
            self.cap[lane] = self.cap_min
            self.ctr["pool_cap_resets"] += 1

    def on_victim(self, b: int) -> None:
        """RR victim ``b`` stops being a frontier or pool entry; its unwritten pages are lost."""
        lane, N, c = b // self.S, self.N, self.ctr
        wfr = self.wfr[lane]
        if wfr[0] == b:
            c["pool_pages_wasted"] += N - wfr[1]
            wfr[0] = -1
        if self.ftl.uf_sb[lane] == b:
            c["pool_pages_wasted"] += N - self.ftl.uf_wp[lane]
        for j, e in enumerate(self.pool[lane]):
            if e[0] == b:
                c["pool_pages_wasted"] += N - e[1]
                self.pool[lane].pop(j)
                break

    def array(self, name: str) -> np.ndarray:
        """The pool state in the compiled engine's array form (for tests)."""
        n, m = len(self.pool), self.cap_max
        if name == "pool_len":
            return np.array([len(p) for p in self.pool], dtype=np.int32)
        if name == "pool_cap":
            return np.array(self.cap, dtype=np.int32)
        if name in ("wfr_blk", "wfr_idx"):
            return np.array([w[0 if name == "wfr_blk" else 1] for w in self.wfr], dtype=np.int32)
        col = {"pool_blk": 0, "pool_idx": 1, "pool_flag": 2}[name]
        out = np.full(n * m, -1 if col == 0 else 0, dtype=np.int8 if col == 2 else np.int32)
        for lane, p in enumerate(self.pool):
            for j, e in enumerate(p):
                out[lane * m + j] = e[col]
        return out
