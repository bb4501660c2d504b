"""PhasedRR working sets (twin of ``working_sets.pyx``; the model is described there and
in docs/phasedrr.md): three 1-bit-per-page working sets per candidate block, the
classes of Eqs. 1-3 and the phase logic of Algorithm 1."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..layout import CAUSE_RR, Layout
from ..roles_py import Mechanism
from . import counter_names


class WorkingSetsSpec(NamedTuple):
    """PhasedRR's working sets: ``delta_reads`` (block reads per unit), ``phase_mult``
    (WS I, WS II, WS III, Phase II, Phase III lengths in units of delta_reads) and
    ``max_blocks`` (candidate blocks tracked at once)."""

    delta_reads: int
    phase_mult: tuple
    max_blocks: int

WS_BITS = 7  # bits 1, 2, 4: WS I, II, III
QUEUED = 8  # the page was queued for a move in this block cycle
CLASS_KEYS = {3: "htt", 2: "htr", 1: "tpd"}


def sets_of(b: int) -> int:
    """How many of the three working sets hold a page with bits ``b``."""
    return (b & 1) + ((b >> 1) & 1) + ((b >> 2) & 1)


class WorkingSets(Mechanism):
    def __init__(self, ctx, spec):
        """``ctx``: the engine's parts (assembly.py); ``spec``: (delta, mult[5], max_slots)
        from the policy."""
        super().__init__()
        layout, ftl, sched, counters = ctx.layout, ctx.ftl, ctx.sched, ctx.counters
        self.rc = ctx.rc
        L = self.L = layout
        self.ftl, self.sched, self.c = ftl, sched, counters
        delta, mult, max_slots = spec
        self.delta, self.mult = int(delta), tuple(int(m) for m in mult)
        self.span = self.delta * sum(self.mult)
        self.max_slots = min(int(max_slots), L.n_blocks)
        self.bytes_per_block = 3 * ((L.pages_per_block + 7) // 8)
        N = L.pages_per_block
        self.slot_of = np.full(L.n_blocks, -1, dtype=np.int32)
        self.free_slots = list(range(self.max_slots - 1, -1, -1))
        self.in_use = 0
        self.bits = np.zeros((self.max_slots, N), dtype=np.uint8)
        self.stage = np.zeros(self.max_slots, dtype=np.int8)
        self.page_reads = np.zeros(L.n_pages, dtype=np.int32)
        self.due: list = []  # (block, sets a forced page is in)
        self.reset_counters()

    def counter_values(self) -> list:
        return list(self.ctr.values())

    def reset_counters(self) -> None:
        self.ctr = dict.fromkeys(counter_names("working_sets"), 0)

    def array(self, name: str) -> np.ndarray:
        return {"slot_of": self.slot_of, "bits": self.bits.reshape(-1), "page_reads": self.page_reads,
                "stage": self.stage}[name]

    def page_read(self, ppn: int, blk: int, c: int, thr: int, t: int) -> None:
        N, d = self.L.pages_per_block, self.delta
        self.page_reads[ppn] += 1
        s0 = thr - self.span
        if c < s0 or c >= thr:
            return
        slot = int(self.slot_of[blk])
        if slot == -2:
            return
        if slot < 0:
            if not self.free_slots:
                self.slot_of[blk] = -2
                self.ctr["ws_pool_full"] += 1
                return
            slot = self.free_slots.pop()
            self.slot_of[blk] = slot
            self.stage[slot] = 0
            self.in_use += 1
            self.ctr["ws_peak_bytes"] = max(self.ctr["ws_peak_bytes"], self.in_use * self.bytes_per_block)
        o = ppn - blk * N
        bp = self.bits[slot]
        m = self.mult
        t1 = s0 + m[0] * d
        t2 = t1 + m[1] * d
        t3 = t2 + m[2] * d
        t4 = t3 + m[3] * d
        if c < t1:
            bp[o] |= 1
        elif c < t2:
            bp[o] |= 2
        elif c < t3:
            bp[o] |= 4
            if bp[o] & (WS_BITS | QUEUED) == WS_BITS:  # identified as hottest now: judge it, then queue it
                self.classify(slot, blk, o)
                self.queue(ppn, blk, bp, o, t)
        else:
            if self.stage[slot] == 0:  # first read of Phase II: classify, force the hottest left
                self.stage[slot] = 1
                self.classify(slot, blk, -1)
                self.due.append((blk, 3))
            if c < t4:
                if sets_of(int(bp[o])) == 2:
                    self.queue(ppn, blk, bp, o, t)
            elif self.stage[slot] == 1:  # first read of Phase III: force the hotter left
                self.stage[slot] = 2
                self.due.append((blk, 2))
            elif sets_of(int(bp[o])) == 1:
                self.queue(ppn, blk, bp, o, t)

    def queue(self, ppn: int, blk: int, bp, o: int, t: int) -> None:
        L = self.L
        lpn = int(self.ftl.p2l[ppn])
        if bp[o] & QUEUED or lpn < 0:
            return
        bp[o] |= QUEUED
        k = L.k
        die = int(L.comp_die[(blk // k // L.sb_per_lane) * k + blk % k])
        self.sched.push_idle(die, lpn, ppn, blk % k, t)

    def classify(self, slot: int, blk: int, only: int) -> None:
        """Accuracy diagnostics (see working_sets.pyx): ``only >= 0`` judges that hottest page at
        its identification, ``only = -1`` the hotter and tepid pages at the end of WS III."""
        N = self.L.pages_per_block
        bp = self.bits[slot]
        pop = [o for o in range(N) if self.ftl.p2l[blk * N + o] >= 0 or bp[o] & 15 == 15]
        total = sum(int(self.page_reads[blk * N + o]) for o in pop)
        if only < 0:
            self.ctr["ws_classify_scans"] += 1
        for o in pop:
            s = sets_of(int(bp[o]))
            if s == 0 or (only >= 0 and o != only) or (only < 0 and s == 3):
                continue
            key = CLASS_KEYS[s]
            self.ctr["ws_" + key] += 1
            if int(self.page_reads[blk * N + o]) * len(pop) > total:
                self.ctr[f"ws_{key}_hot"] += 1

    def reads_done(self, done: int) -> None:
        """Book at ``done`` the forced moves recorded during this request: every page of
        a due class still in its block, keeping its component."""
        L, rc = self.L, self.rc
        for blk, want in self.due:
            for lpn, src in self.collect(blk, want):
                if int(self.ftl.l2p[lpn]) != src:  # moved by a GC this loop started
                    continue
                self.c["rr_forced_moves"] += 1
                rc.move_page(rc.die_of(src), lpn, src, (src // L.pages_per_block) % L.k, done, CAUSE_RR)
        self.due = []

    def collect(self, blk: int, want: int) -> list:
        """The (lpn, ppn) of every valid page of ``blk`` in ``want`` working sets."""
        N = self.L.pages_per_block
        slot = int(self.slot_of[blk])
        if slot < 0:  # erased meanwhile
            return []
        bp = self.bits[slot]
        out = []
        for o in range(N):
            lpn = int(self.ftl.p2l[blk * N + o])
            if lpn >= 0 and sets_of(int(bp[o])) == want:
                out.append((lpn, blk * N + o))
        return out

    def block_erased(self, blk: int) -> None:
        N = self.L.pages_per_block
        slot = int(self.slot_of[blk])
        if slot >= 0:
            self.bits[slot] = 0
            self.free_slots.append(slot)
            self.in_use -= 1
        self.slot_of[blk] = -1
        self.page_reads[blk * N:(blk + 1) * N] = 0
