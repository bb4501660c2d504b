"""The pure-Python reference engine: the device model of docs/model.md, written
for clarity.  The compiled engine (``engine.pyx``) must give identical results;
the property tests check that on random small configs and traces.

Both engines are driven the same way::

    eng = ReferenceEngine(layout, hooks, seed)
    eng.precondition(fill_pages, warmup_lpns)
    eng.run(time_ns, offset, size, is_write, repeat)
    raw = eng.results()          # counters, histograms, event lists

``hooks`` is a :class:`flashrr.policy.PolicyHooks`: the policy's rare-event
callbacks (or None where the policy keeps the default behaviour).
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .invariants import EngineError, InvariantError, check_state  # noqa: F401  (re-exported for importers)
from .layout import (GC_OPEN_MAX, HIST_BUCKETS, PPM, SB_CLOSED, SB_FREE, SB_OPEN_GC, SB_OPEN_USER, SB_VICTIM,
                     Layout, hist_bucket)


COUNTERS = (
    "requests", "reads", "writes", "read_pages", "write_pages", "cache_read_hits", "cache_write_hits",
    "flash_read_pages", "rr_count", "rr_page_moves", "gc_count", "gc_page_moves", "erase_count",
    "host_pages_written", "flash_pages_programmed", "user_flash_transactions", "blocked_reads",
    "retry_time_ns", "read_latency_sum_ns", "write_latency_sum_ns",
)


class ReferenceEngine:
    """One simulated SSD.  All times are integer ns, all sizes pages unless named."""

    def __init__(self, layout: Layout, hooks, seed: int = 0, check: bool = False):
        L = self.L = layout
        k, S = L.k, L.sb_per_lane
        self.hooks = hooks
        self.l2p = np.full(L.logical_pages, -1, dtype=np.int32)
        self.p2l = np.full(L.n_pages, -1, dtype=np.int32)
        self.sb_valid = np.zeros(L.n_superblocks, dtype=np.int32)
        self.sb_state = np.zeros(L.n_superblocks, dtype=np.int8)
        self.block_reads = np.zeros(L.n_blocks, dtype=np.int32)
        self.rr_threshold = np.full(L.n_blocks, L.rr_threshold_reads, dtype=np.int32)
        g = hooks.page_counter_group if hooks is not None else 0
        self.counter_group = g
        self.page_counters = np.zeros((L.logical_pages + g - 1) // g if g else 0, dtype=np.int32)
        self.die_free = np.zeros(L.n_dies, dtype=np.int64)
        self.die_prog_end = np.zeros(L.n_dies, dtype=np.int64)
        self.chan_free = np.zeros(L.n_channels, dtype=np.int64)
        # free superblock rows per lane, FIFO (erased ones go to the back)
        self.free = [list(range(l * S, (l + 1) * S)) for l in range(L.n_lanes)]
        self.uf_sb = [-1] * L.n_lanes  # user frontier superblock per lane
        self.uf_wp = [0] * L.n_lanes  # next page index in it (off = wp // k, comp = wp % k)
        self.user_lane = 0
        self.gc_open = [[] for _ in range(L.n_lanes)]  # open GC/RR frontier superblocks, oldest first
        self.gc_pos = [[0] * k for _ in range(L.n_lanes)]  # per component: index into gc_open
        self.gc_off = [[0] * k for _ in range(L.n_lanes)]  # per component: next page offset there
        self.in_gc = False
        self.cache: OrderedDict[int, bool] = OrderedDict()  # lpn -> dirty; last = most recent
        self.c = dict.fromkeys(COUNTERS, 0)
        self.hist = {kind: np.zeros(HIST_BUCKETS, dtype=np.int64) for kind in ("read", "write", "io")}
        self.rr_events: list = []
        self.gc_events: list = []
        self.now = 0
        self.n_filled = 0
        # invariant mode: a version stamp per logical page and per physical page
        self.check = check
        self.version = np.zeros(L.logical_pages if check else 0, dtype=np.int64)
        self.ppn_version = np.zeros(L.n_pages if check else 0, dtype=np.int64)

    # ------------------------------------------------------------------ allocation
    def _alloc(self, lane: int) -> int:
        if not self.free[lane]:
            raise EngineError(
                f"lane {lane} has no free superblock left: the device has too little spare space for this "
                f"workload (raise gc.overprovisioning_ratio or shrink the footprint)")
        return self.free[lane].pop(0)

    def _user_slot(self, t: int) -> int:
        """Next user-frontier page (round-robin over lanes per superpage); returns a ppn."""
        L = self.L
        k, N = L.k, L.pages_per_block
        lane = self.user_lane
        if self.uf_sb[lane] < 0:
            sb = self._alloc(lane)
            self.sb_state[sb] = SB_OPEN_USER
            self.uf_sb[lane], self.uf_wp[lane] = sb, 0
            self._maybe_gc(lane, t)
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

    def _gc_slot(self, lane: int, c: int) -> int:
        """Next GC/RR-frontier page of component ``c`` in ``lane``; returns a ppn."""
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
                self._gc_close_front(lane, forced=True)
            else:
                sb = self._alloc(lane)
                self.sb_state[sb] = SB_OPEN_GC
                opened.append(sb)
        while opened and min(pos) > 0:
            self._gc_close_front(lane, forced=False)
        return ppn

    def _gc_close_front(self, lane: int, forced: bool) -> None:
        opened, pos, off = self.gc_open[lane], self.gc_pos[lane], self.gc_off[lane]
        self.sb_state[opened.pop(0)] = SB_CLOSED
        for c in range(self.L.k):
            if pos[c] == 0:
                off[c] = 0  # forced: its unwritten pages there stay unused
            else:
                pos[c] -= 1

    def _detach_frontier(self, sb: int) -> None:
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

    # ------------------------------------------------------------------ timing
    def _sched_read(self, die: int, chan: int, n_xfer: int, t: int, extra: int) -> int:
        L = self.L
        end = max(t, int(self.die_free[die])) + L.t_read_ns + extra
        if n_xfer:
            end = max(end, int(self.chan_free[chan])) + n_xfer * L.t_xfer_page_ns
            self.chan_free[chan] = end
        self.die_free[die] = end
        return end

    def _sched_program(self, die: int, chan: int, n_xfer: int, t: int) -> int:
        L = self.L
        start = max(t, int(self.die_free[die]))
        if n_xfer:
            start = max(start, int(self.chan_free[chan])) + n_xfer * L.t_xfer_page_ns
            self.chan_free[chan] = start
        end = start + L.t_program_ns
        self.die_free[die] = end
        self.die_prog_end[die] = end
        return end

    def _sched_erase(self, die: int, t: int) -> int:
        end = max(t, int(self.die_free[die])) + self.L.t_erase_ns
        self.die_free[die] = end
        return end

    def _retries(self, blk: int) -> int:
        r = int(self.block_reads[blk]) * PPM
        thr = int(self.rr_threshold[blk])
        n = 0
        for s in self.L.retry_steps_ppm:
            if r >= int(s) * thr:
                n += 1
        return n

    def _group(self, ppns: list) -> list:
        """Greedy multi-plane grouping, in page order: a page joins the first earlier
        transaction on its die at the same page offset whose planes it does not use.
        Returns [(die, chan, [ppn, ...]), ...] in creation order."""
        L = self.L
        k, N = L.k, L.pages_per_block
        txns = []  # [die, off, plane_mask, chan, pages]
        for ppn in ppns:
            blk, off = divmod(ppn, N)
            idx = (blk // k // L.sb_per_lane) * k + blk % k
            die, plane = int(L.comp_die[idx]), int(L.comp_plane_in_die[idx])
            for tx in txns:
                if tx[0] == die and tx[1] == off and not (tx[2] >> plane) & 1:
                    tx[2] |= 1 << plane
                    tx[4].append(ppn)
                    break
            else:
                txns.append([die, off, 1 << plane, int(L.comp_chan[idx]), [ppn]])
        return [(tx[0], tx[3], tx[4]) for tx in txns]

    # ------------------------------------------------------------------ cache
    def _cache_insert(self, lpn: int, dirty: bool, evicted_dirty: list) -> None:
        if len(self.cache) >= self.L.cache_pages:
            old, old_dirty = self.cache.popitem(last=False)
            if old_dirty:
                evicted_dirty.append(old)
        self.cache[lpn] = dirty

    # ------------------------------------------------------------------ flash writes
    def _program_pages(self, lpns: list, t: int, user: bool) -> int:
        """Write ``lpns`` through the user frontier at time ``t``; returns the last end time."""
        ppns = []
        for lpn in lpns:
            ppn = self._user_slot(t)
            self._remap(lpn, ppn)
            if self.check:
                self.ppn_version[ppn] = self.version[lpn]
            ppns.append(ppn)
        self.c["flash_pages_programmed"] += len(ppns)
        end = t
        for die, chan, pages in self._group(ppns):
            end = max(end, self._sched_program(die, chan, len(pages), t))
            if user:
                self.c["user_flash_transactions"] += 1
        return end

    def _remap(self, lpn: int, ppn: int) -> None:
        old = int(self.l2p[lpn])
        if old >= 0:
            self.p2l[old] = -1
            self.sb_valid[old // self.L.pages_per_block // self.L.k] -= 1
        self.l2p[lpn] = ppn
        self.p2l[ppn] = lpn
        self.sb_valid[ppn // self.L.pages_per_block // self.L.k] += 1

    # ------------------------------------------------------------------ GC and RR
    def _maybe_gc(self, lane: int, t: int) -> None:
        if self.in_gc:
            return
        self.in_gc = True
        try:
            L = self.L
            full = L.pages_per_superblock
            # at most one lane's worth of victims per trigger, so GC always ends
            for _ in range(L.sb_per_lane):
                if len(self.free[lane]) >= L.gc_threshold_sb:
                    break
                victim = self._gc_victim(lane, t)
                if victim < 0 or self.sb_valid[victim] >= full:
                    break  # nothing to gain; allocation fails later if space truly runs out
                self._migrate(victim, "gc", t, "greedy")
        finally:
            self.in_gc = False

    def _gc_victim(self, lane: int, t: int) -> int:
        L = self.L
        S = L.sb_per_lane
        states = self.sb_state[lane * S:(lane + 1) * S]
        if self.hooks is not None and self.hooks.choose_gc_victim is not None:
            cand = np.flatnonzero(states == SB_CLOSED) + lane * S
            if cand.size == 0:
                return -1
            v = int(self.hooks.choose_gc_victim(self.state_view(t), lane, cand, self.sb_valid[cand].copy()))
            if v not in set(cand.tolist()):
                raise EngineError(f"policy choose_gc_victim returned {v}, not a closed superblock of lane {lane}")
            return v
        best, best_valid = -1, None
        for r in range(S):
            sb = lane * S + r
            if self.sb_state[sb] == SB_CLOSED and (best < 0 or self.sb_valid[sb] < best_valid):
                best, best_valid = sb, int(self.sb_valid[sb])
        return best

    def _migrate(self, victim: int, kind: str, t: int, routine: str) -> None:
        """Move every valid page of ``victim`` to the GC/RR frontier and erase it, starting at ``t``."""
        L = self.L
        k, N, S = L.k, L.pages_per_block, L.sb_per_lane
        lane = victim // S
        self._detach_frontier(victim)
        self.sb_state[victim] = SB_VICTIM
        reads_at_trigger = self.block_reads[victim * k:(victim + 1) * k].copy()
        comps, offs, lpns = [], [], []
        for off in range(N):
            for c in range(k):
                lpn = int(self.p2l[(victim * k + c) * N + off])
                if lpn >= 0:
                    comps.append(c)
                    offs.append(off)
                    lpns.append(lpn)
        comps_a = np.array(comps, dtype=np.int32)
        dest = comps_a
        hooks = self.hooks
        if hooks is not None and hooks.place_migration is not None and kind in hooks.place_kinds and comps:
            dest = hooks.place_migration(self.state_view(t), kind, victim, comps_a,
                                         np.array(offs, dtype=np.int32), np.array(lpns, dtype=np.int32))
            dest = np.asarray(dest)
            if dest.shape != comps_a.shape or (dest.size and (dest.min() < 0 or dest.max() >= k)):
                raise EngineError(f"policy place_migration must return {len(comps)} component indices in "
                                  f"[0, {k}), got shape {dest.shape}")
            dest = dest.astype(np.int32)
        base = lane * k
        # reads: one transaction per (source row, die)
        i, n = 0, len(comps)
        while i < n:
            j = i
            while j < n and offs[j] == offs[i]:
                j += 1
            dies_seen = []
            for q in range(i, j):
                d = int(L.comp_die[base + comps[q]])
                if d not in dies_seen:
                    dies_seen.append(d)
            for d in dies_seen:
                extra, xfer, chan = 0, 0, 0
                for q in range(i, j):
                    if int(L.comp_die[base + comps[q]]) == d:
                        extra = max(extra, self._retries(victim * k + comps[q]))
                        chan = int(L.comp_chan[base + comps[q]])
                        if int(L.comp_die[base + int(dest[q])]) != d:
                            xfer += 1
                self._sched_read(d, chan, xfer, t, extra * L.t_retry_ns)
            i = j
        # writes: place in source order, then one program per (dest superblock, offset, die)
        new_ppns = np.empty(n, dtype=np.int64)
        for q in range(n):
            ppn = self._gc_slot(lane, int(dest[q]))
            if self.check:
                self.ppn_version[ppn] = self.ppn_version[self.l2p[lpns[q]]]
            self._remap(lpns[q], ppn)
            new_ppns[q] = ppn
        if n:
            dsb = new_ppns // N // k
            doff = new_ppns % N
            ddie = L.comp_die[base + dest]
            key = (dsb * N + doff) * L.n_dies + ddie
            order = np.argsort(key, kind="stable")
            q0 = 0
            while q0 < n:
                q1 = q0
                xfer = 0
                while q1 < n and key[order[q1]] == key[order[q0]]:
                    q = order[q1]
                    if int(L.comp_die[base + comps[q]]) != int(ddie[q]):
                        xfer += 1
                    q1 += 1
                d = int(ddie[order[q0]])
                self._sched_program(d, int(L.comp_chan[base + dest[order[q0]]]), xfer, t)
                q0 = q1
        self.c["flash_pages_programmed"] += n
        # erase: one multi-plane erase per die of the lane
        dies_seen = []
        for c in range(k):
            d = int(L.comp_die[base + c])
            if d not in dies_seen:
                dies_seen.append(d)
                self._sched_erase(d, t)
        self.block_reads[victim * k:(victim + 1) * k] = 0
        self.rr_threshold[victim * k:(victim + 1) * k] = L.rr_threshold_reads
        self.sb_state[victim] = SB_FREE
        self.free[lane].append(victim)
        if self.check:
            self.check_invariants()
        self.c["erase_count"] += k
        event = (t, victim, lane, reads_at_trigger, n, routine)
        if kind == "rr":
            self.c["rr_count"] += 1
            self.c["rr_page_moves"] += n
            self.rr_events.append(event)
        else:
            self.c["gc_count"] += 1
            self.c["gc_page_moves"] += n
            self.gc_events.append(event)

    def _read_reclaim(self, sb: int, t: int) -> None:
        L = self.L
        k = L.k
        blocks = slice(sb * k, (sb + 1) * k)
        if self.sb_state[sb] in (SB_FREE, SB_VICTIM) or not np.any(self.block_reads[blocks] >= self.rr_threshold[
                blocks]):
            return  # erased meanwhile (by GC or an earlier RR)
        routine = "default"
        if self.hooks is not None and self.hooks.on_read_reclaim is not None:
            routine = str(self.hooks.on_read_reclaim(self.state_view(t), sb) or "default")
        self._migrate(sb, "rr", t, routine)
        self._maybe_gc(sb // L.sb_per_lane, t)

    # ------------------------------------------------------------------ requests
    def _record(self, kind: str, latency: int) -> None:
        b = hist_bucket(latency)
        self.hist[kind][b] += 1
        self.hist["io"][b] += 1
        self.c[kind + "_latency_sum_ns"] += latency

    def _read(self, t: int, lpn0: int, lpn1: int) -> None:
        L = self.L
        c = self.c
        c["reads"] += 1
        misses = []
        for lpn in range(lpn0, lpn1 + 1):
            c["read_pages"] += 1
            if lpn in self.cache:
                self.cache.move_to_end(lpn)
                c["cache_read_hits"] += 1
            else:
                misses.append(lpn)
        done = t + L.t_dram_ns
        if misses:
            ppns = [int(self.l2p[lpn]) for lpn in misses]
            if self.check:
                for lpn, ppn in zip(misses, ppns):
                    if ppn < 0 or self.ppn_version[ppn] != self.version[lpn]:
                        raise EngineError(f"invariant: read of LPN {lpn} did not return its latest write")
            blocked = False
            for die, chan, pages in self._group(ppns):
                extra = max(self._retries(p // L.pages_per_block) for p in pages) * L.t_retry_ns
                if self.die_prog_end[die] > t:
                    blocked = True
                done = max(done, self._sched_read(die, chan, len(pages), t, extra))
                c["retry_time_ns"] += extra
                c["user_flash_transactions"] += 1
            c["blocked_reads"] += blocked
            c["flash_read_pages"] += len(ppns)
            pending = []
            for ppn in ppns:
                blk = ppn // L.pages_per_block
                self.block_reads[blk] += 1
                if L.rr_enabled and self.block_reads[blk] >= self.rr_threshold[blk]:
                    sb = blk // L.k
                    if sb not in pending:
                        pending.append(sb)
            if self.counter_group:
                for lpn in misses:
                    self.page_counters[lpn // self.counter_group] += 1
            if L.cache_pages and L.read_allocate:
                evicted = []
                for lpn in misses:
                    self._cache_insert(lpn, False, evicted)
                if evicted:
                    self._program_pages(evicted, t, user=True)
            for sb in pending:
                self._read_reclaim(sb, done)
        self._record("read", done - t)

    def _write(self, t: int, lpn0: int, lpn1: int) -> None:
        L = self.L
        c = self.c
        c["writes"] += 1
        n = lpn1 - lpn0 + 1
        if self.check:
            self.version[lpn0:lpn1 + 1] += 1
        c["write_pages"] += n
        c["host_pages_written"] += n
        if L.cache_pages:
            flush = []
            for lpn in range(lpn0, lpn1 + 1):
                if lpn in self.cache:
                    self.cache[lpn] = True
                    self.cache.move_to_end(lpn)
                    c["cache_write_hits"] += 1
                else:
                    self._cache_insert(lpn, True, flush)
        else:
            flush = list(range(lpn0, lpn1 + 1))
        done = t + L.t_dram_ns
        if flush:
            done = max(done, self._program_pages(flush, t, user=True))
        self._record("write", done - t)

    # ------------------------------------------------------------------ public
    def precondition(self, fill_pages: int, warmup_lpns: np.ndarray) -> None:
        """Sequentially write LPN 0..fill_pages-1, then the warm-up LPNs, untimed;
        then reset every counter and clock (the device state is kept)."""
        self.n_filled = fill_pages
        for lpn in range(fill_pages):
            self._remap(lpn, self._user_slot(0))
        for lpn in warmup_lpns:
            self._remap(int(lpn), self._user_slot(0))
        self.c = dict.fromkeys(COUNTERS, 0)
        self.gc_events.clear()
        self.rr_events.clear()
        self.die_free[:] = 0
        self.die_prog_end[:] = 0
        self.chan_free[:] = 0
        self.block_reads[:] = 0

    def run(self, time_ns, offset, size, is_write, repeat: int = 1) -> None:
        ps = self.L.page_size_bytes
        n = len(time_ns)
        if n == 0:
            return
        duration = int(time_ns[-1])
        period = duration + max(1, duration // max(1, n - 1))
        for r in range(repeat):
            shift = r * period
            for i in range(n):
                t = int(time_ns[i]) + shift
                self.now = t
                lpn0 = int(offset[i]) // ps
                lpn1 = (int(offset[i]) + int(size[i]) - 1) // ps
                self.c["requests"] += 1
                if is_write[i]:
                    self._write(t, lpn0, lpn1)
                else:
                    self._read(t, lpn0, lpn1)

    def state_view(self, t: int):
        from ..policy import EngineState

        return EngineState(
            layout=self.L, now_ns=t, block_reads=self.block_reads, rr_threshold=self.rr_threshold,
            sb_valid=self.sb_valid, sb_state=self.sb_state, l2p=self.l2p, p2l=self.p2l,
            page_counters=self.page_counters, die_free_ns=self.die_free)

    def results(self) -> dict:
        return {"counters": dict(self.c), "hist": {k: v.copy() for k, v in self.hist.items()},
                "rr_events": list(self.rr_events), "gc_events": list(self.gc_events)}

    # ------------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        check_state(self.L, self.l2p, self.p2l, self.sb_valid, self.sb_state, self.n_filled)

