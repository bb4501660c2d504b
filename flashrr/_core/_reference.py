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

import heapq
from collections import OrderedDict, deque

import numpy as np

from .layout import (CAUSE_FLUSH, CAUSE_GC, CAUSE_MOVE, CAUSE_RR, CAUSE_USER, CAUSES, GC_OPEN_MAX, HIST_BUCKETS,
                     PPM, SB_CLOSED, SB_FREE, SB_OPEN_GC, SB_OPEN_USER, SB_VICTIM, SCHED_FCFS, SCHED_USER_FIRST,
                     Layout, hist_bucket)
from .counters import COUNTERS, EngineError
from .invariants import check_state


# phases of a background migration job, in the order its transactions run
PH_READ, PH_PROG, PH_ERASE = 0, 1, 2


class _Job:
    """One decided GC or RR migration whose transactions are not all booked yet.

    ``left[ph]`` counts its transactions of phase ``ph`` still queued; ``end[ph]`` is
    the latest end (ns) of those booked.  Programs wait for all of the job's
    reads, and erases for all of its programs (a barrier per phase)."""

    __slots__ = ("id", "kind", "event", "lane", "victim", "t0", "left", "end")

    def __init__(self, jid, kind, event, lane, victim, t0):
        self.id, self.kind, self.event, self.lane, self.victim, self.t0 = jid, kind, event, lane, victim, t0
        self.left = [0, 0, 0]
        self.end = [t0, t0, t0]


class _Txn:
    """One queued background flash transaction on one die (times in ns)."""

    __slots__ = ("job", "phase", "die", "chan", "n_xfer", "dur", "dsts")

    def __init__(self, job, phase, die, chan, n_xfer, dur, dsts=()):
        self.job, self.phase, self.die, self.chan, self.n_xfer, self.dur, self.dsts = (
            job, phase, die, chan, n_xfer, dur, dsts)


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
        # free superblock rows per lane, FIFO (erased ones go to the back)
        self.free = [list(range(l * S, (l + 1) * S)) for l in range(L.n_lanes)]
        self.uf_sb = [-1] * L.n_lanes  # user frontier superblock per lane
        self.uf_wp = [0] * L.n_lanes  # next page index in it (off = wp // k, comp = wp % k)
        self.user_lane = 0
        self.gc_open = [[] for _ in range(L.n_lanes)]  # open GC/RR frontier superblocks, oldest first
        self.gc_pos = [[0] * k for _ in range(L.n_lanes)]  # per component: index into gc_open
        self.gc_off = [[0] * k for _ in range(L.n_lanes)]  # per component: next page offset there
        self.gc_due = [0] * L.n_lanes  # GC victims owed: allocations made below the GC threshold
        self.in_mig = False  # a migration is being decided (allocations then only count GC as due)
        self.untimed = False  # precondition: FTL decisions only, no flash time
        self.cache: OrderedDict[int, bool] = OrderedDict()  # lpn -> dirty; last = most recent
        self.c = dict.fromkeys(COUNTERS, 0)
        self.hist = {kind: np.zeros(HIST_BUCKETS, dtype=np.int64) for kind in ("read", "write", "io")}
        self.rr_events: list = []
        self.gc_events: list = []
        self.erase_end = {"rr": [], "gc": []}  # per event: when its last erase ends (ns), -1 while pending
        self.now = 0
        self.n_filled = 0
        self._init_timing()
        # invariant mode: a version stamp per logical page and per physical page
        self.check = check
        self.version = np.zeros(L.logical_pages if check else 0, dtype=np.int64)
        self.ppn_version = np.zeros(L.n_pages if check else 0, dtype=np.int64)

    def _init_timing(self) -> None:
        """Clocks, channels, queues and the destage buffer, all empty at time 0."""
        L = self.L
        self.die_free = np.zeros(L.n_dies, dtype=np.int64)  # busy-until of every booked operation
        self.die_prog_end = np.zeros(L.n_dies, dtype=np.int64)  # end of the latest booked program
        self.user_free = np.zeros(L.n_dies, dtype=np.int64)  # end of the latest user or flush operation
        self.die_busy = np.zeros(L.n_dies, dtype=np.int64)  # booked operation time per die
        self.chan_free = np.zeros(L.n_channels, dtype=np.int64)  # "busy-until" channels
        self.chan_iv = [[] for _ in range(L.n_channels)]  # "gap-fill" channels: sorted busy [start, end)
        self.horizon = 0  # every booking from now on starts at or after this time
        self.bgq = [deque() for _ in range(L.n_dies)]  # background transactions per die, FIFO
        self.bg_pending = 0
        self.die_q_progs = np.zeros(L.n_dies, dtype=np.int64)  # queued (unbooked) programs per die
        self.idleq = [deque() for _ in range(L.n_dies)]  # policy page moves waiting for idle time
        self.idle_pending = 0
        self.next_job = 0
        self.sb_erase_job: dict[int, _Job] = {}  # superblock -> job whose erase is not booked yet
        self.src_of: dict[int, int] = {}  # destination ppn -> source ppn of a move not yet programmed
        self.destage: list = []  # min-heap of flush program ends (ns), one entry per page
        self.last_arrival = 0

    # ------------------------------------------------------------------ allocation
    def _alloc(self, lane: int) -> int:
        L = self.L
        if not self.free[lane]:
            raise EngineError(
                f"lane {lane} has no free superblock left: the device has too little spare space for this "
                f"workload (raise gc.overprovisioning_ratio or shrink the footprint)")
        sb = self.free[lane].pop(0)
        job = self.sb_erase_job.get(sb)
        if job is not None:  # no superblock is reused before its erase is booked
            self._force(job)
        if len(self.free[lane]) < L.gc_threshold_sb:
            self.gc_due[lane] += 1
        return sb

    def _user_slot(self, t: int) -> int:
        """Next user-frontier page (round-robin over lanes per superpage); returns a ppn."""
        L = self.L
        k, N = L.k, L.pages_per_block
        lane = self.user_lane
        if self.uf_sb[lane] < 0:
            sb = self._alloc(lane)
            self.sb_state[sb] = SB_OPEN_USER
            self.uf_sb[lane], self.uf_wp[lane] = sb, 0
            self._run_gc(lane, t)
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

    # ------------------------------------------------------------------ flash resources
    def _xfer(self, chan: int, t: int, n: int) -> int:
        """Move ``n`` pages over channel ``chan`` no earlier than ``t``; returns the end (ns)."""
        dur = n * self.L.t_xfer_page_ns
        if not self.L.channel_gapfill:
            end = max(t, int(self.chan_free[chan])) + dur
            self.chan_free[chan] = end
            return end
        if dur == 0:
            return t
        iv = self.chan_iv[chan]
        h = 0
        while h < len(iv) and iv[h][1] <= self.horizon:
            h += 1
        if h:
            del iv[:h]
        s, i = t, 0
        while i < len(iv):  # the first gap at or after t that is long enough
            a, b = iv[i]
            if b <= s:
                i += 1
                continue
            if a >= s + dur:
                break
            s = b
            i += 1
        e = s + dur
        if i > 0 and iv[i - 1][1] == s:
            iv[i - 1][1] = e
            if i < len(iv) and iv[i][0] == e:
                iv[i - 1][1] = iv[i][1]
                del iv[i]
        elif i < len(iv) and iv[i][0] == e:
            iv[i][0] = s
        else:
            iv.insert(i, [s, e])
        return e

    def _op(self, die: int, chan: int, phase: int, n_xfer: int, ready: int, dur: int, cause: int) -> int:
        """Book one flash transaction on ``die``, no earlier than ``ready``; returns its end (ns).

        A read senses for ``dur`` and then moves ``n_xfer`` pages out over the
        channel; a program moves its pages in first and then programs for
        ``dur``; an erase holds the die for ``dur``."""
        start = max(ready, int(self.die_free[die]))
        if phase == PH_READ:
            end = start + dur
            if n_xfer:
                end = self._xfer(chan, end, n_xfer)
        elif phase == PH_PROG:
            end = (self._xfer(chan, start, n_xfer) if n_xfer else start) + dur
            self.die_prog_end[die] = end
        else:
            end = start + dur
        self.die_free[die] = end
        self.die_busy[die] += end - start
        self.c["busy_" + CAUSES[cause] + "_ns"] += end - start
        return end

    def _user_op(self, die: int, chan: int, phase: int, n_xfer: int, t: int, dur: int, cause: int) -> int:
        """A user (or cache flush) transaction arriving at ``t``: booked at once, in arrival order."""
        if cause == CAUSE_USER:
            wait = int(self.die_free[die]) - max(t, int(self.user_free[die]))
            if wait > 0:
                self.c["user_wait_behind_bg_ns"] += wait
        end = self._op(die, chan, phase, n_xfer, t, dur, cause)
        self.user_free[die] = end
        return end

    def _retries(self, blk: int) -> int:
        r = int(self.block_reads[blk]) * PPM
        thr = int(self.rr_threshold[blk])
        n = 0
        for s in self.L.retry_steps_ppm:
            if r >= int(s) * thr:
                n += 1
        return n

    def _group(self, ppns: list, extras: list | None = None) -> list:
        """Greedy multi-plane grouping, in page order: a page joins the first earlier
        transaction on its die at the same page offset whose planes it does not use.
        Returns [(die, chan, [ppn, ...], extra_ns), ...] in creation order, where
        ``extra_ns`` is the largest of the pages' ``extras`` (0 without)."""
        L = self.L
        k, N = L.k, L.pages_per_block
        txns = []  # [die, off, plane_mask, chan, pages, extra]
        for i, ppn in enumerate(ppns):
            blk, off = divmod(ppn, N)
            idx = (blk // k // L.sb_per_lane) * k + blk % k
            die, plane = int(L.comp_die[idx]), int(L.comp_plane_in_die[idx])
            extra = extras[i] if extras is not None else 0
            for tx in txns:
                if tx[0] == die and tx[1] == off and not (tx[2] >> plane) & 1:
                    tx[2] |= 1 << plane
                    tx[4].append(ppn)
                    tx[5] = max(tx[5], extra)
                    break
            else:
                txns.append([die, off, 1 << plane, int(L.comp_chan[idx]), [ppn], extra])
        return [(tx[0], tx[3], tx[4], tx[5]) for tx in txns]

    # ------------------------------------------------------------------ background work
    def _ready(self, tx: _Txn):
        """When the queued transaction ``tx`` may start (ns), or None while it waits for
        transactions of its job that are not booked yet."""
        job = tx.job
        if tx.phase == PH_READ:
            return job.t0
        if tx.phase == PH_PROG:
            return job.end[PH_READ] if job.left[PH_READ] == 0 else None
        if job.left[PH_READ] or job.left[PH_PROG]:
            return None
        return max(job.end[PH_READ], job.end[PH_PROG])

    def _book_bg(self, tx: _Txn, start: int) -> None:
        """Book the queued transaction ``tx`` (popped from its die's queue) at ``start``."""
        job = tx.job
        cause = CAUSE_RR if job.kind == "rr" else CAUSE_GC
        end = self._op(tx.die, tx.chan, tx.phase, tx.n_xfer, start, tx.dur, cause)
        self.bg_pending -= 1
        if tx.phase == PH_PROG:
            self.die_q_progs[tx.die] -= 1
            for d in tx.dsts:
                self.src_of.pop(d, None)
        job.left[tx.phase] -= 1
        job.end[tx.phase] = max(job.end[tx.phase], end)
        if tx.phase == PH_ERASE and job.left[PH_ERASE] == 0:
            self.erase_end[job.kind][job.event] = end
            if self.sb_erase_job.get(job.victim) is job:
                del self.sb_erase_job[job.victim]

    def _run_bg(self, until: int | None, force: _Job | None = None) -> None:
        """Start background work in time order.

        Without ``force``: every queued transaction (and policy idle move) that can
        start before ``until`` starts, as under "user-first".  With ``force``: book
        the die group of ``force`` until its job is fully booked, whatever the
        time (urgent GC, a superblock about to be reused, or "gc-first")."""
        L = self.L
        dies = range(L.n_dies) if force is None else self._group_dies(force.lane)
        while True:
            best = None
            for d in dies:
                q = self.bgq[d]
                if q:
                    tx = q[0]
                    if force is not None and tx.job.id > force.id:
                        continue
                    r = self._ready(tx)
                    if r is None:
                        continue
                    key = (max(r, int(self.die_free[d])), 0, d)
                elif force is None and self.idleq[d]:
                    key = (max(self.idleq[d][0][3], int(self.die_free[d])), 1, d)
                else:
                    continue
                if best is None or key < best:
                    best = key
            if best is None:
                if force is not None:
                    raise EngineError(f"scheduler: job {force.id} cannot be booked (a dependency never ran)")
                return
            start, kind, d = best
            if force is None and start >= until:
                return
            if kind == 0:
                self._book_bg(self.bgq[d].popleft(), start)
                if force is not None and force.left[PH_ERASE] == 0:
                    return
            else:
                self._idle_move(d, start)

    def _group_dies(self, lane: int) -> list:
        """The dies of ``lane``; lanes that share a die share all of their dies."""
        L = self.L
        return sorted({int(d) for d in L.comp_die[lane * L.k:(lane + 1) * L.k]})

    def _force(self, job: _Job) -> None:
        if job.left[PH_ERASE] or job.left[PH_READ] or job.left[PH_PROG]:
            self._run_bg(None, force=job)

    def push_idle_move(self, lpn: int, dest_comp: int, t: int) -> None:
        """Queue a page move of ``lpn`` to component ``dest_comp`` of its lane's GC/RR
        frontier, to run when the die holding it is idle (no queued work, and the
        move starts before the next arrival).  Decided when it runs: a move whose
        page was overwritten or moved meanwhile drops itself."""
        src = int(self.l2p[lpn])
        if src < 0 or not 0 <= dest_comp < self.L.k:
            raise EngineError(f"idle move of LPN {lpn} to component {dest_comp}: no such page or component")
        die = self._die_of(src)
        self.idleq[die].append((int(lpn), src, int(dest_comp), int(t)))
        self.idle_pending += 1

    def _die_of(self, ppn: int) -> int:
        L = self.L
        blk = ppn // L.pages_per_block
        return int(L.comp_die[(blk // L.k // L.sb_per_lane) * L.k + blk % L.k])

    def _idle_move(self, die: int, start: int) -> None:
        L = self.L
        k, N, S = L.k, L.pages_per_block, L.sb_per_lane
        lpn, src, dest, _ = self.idleq[die].popleft()
        self.idle_pending -= 1
        if int(self.l2p[lpn]) != src:
            self.c["idle_moves_dropped"] += 1
            return
        lane = src // N // k // S
        self.in_mig = True
        ppn = self._gc_slot(lane, dest)
        self.in_mig = False
        if self.check:
            self.ppn_version[ppn] = self.ppn_version[src]
        self._remap(lpn, ppn)
        self.c["flash_pages_programmed"] += 1
        self.c["idle_moves"] += 1
        ddie = self._die_of(ppn)
        cross = 1 if ddie != die else 0
        src_chan = int(L.comp_chan[lane * k + (src // N) % k])
        extra = self._retries(src // N) * L.t_retry_ns
        r_end = self._op(die, src_chan, PH_READ, cross, start, L.t_read_ns + extra, CAUSE_MOVE)
        self._op(ddie, int(L.comp_chan[lane * k + dest]), PH_PROG, cross, r_end, L.t_program_ns, CAUSE_MOVE)
        self._run_gc(lane, start)

    # ------------------------------------------------------------------ cache
    def _cache_insert(self, lpn: int, dirty: bool, evicted_dirty: list) -> None:
        if len(self.cache) >= self.L.cache_pages:
            old, old_dirty = self.cache.popitem(last=False)
            if old_dirty:
                evicted_dirty.append(old)
        self.cache[lpn] = dirty

    # ------------------------------------------------------------------ flash writes
    def _program_pages(self, lpns: list, t: int, cause: int) -> list:
        """Write ``lpns`` through the user frontier at time ``t``; returns the end
        time (ns) of each page's program, in order."""
        ppns = []
        for lpn in lpns:
            ppn = self._user_slot(t)
            self._remap(lpn, ppn)
            if self.check:
                self.ppn_version[ppn] = self.version[lpn]
            ppns.append(ppn)
        self.c["flash_pages_programmed"] += len(ppns)
        ends = []
        for die, chan, pages, _ in self._group(ppns):
            end = self._user_op(die, chan, PH_PROG, len(pages), t, self.L.t_program_ns, cause)
            ends.extend([end] * len(pages))
            self.c["user_flash_transactions"] += 1
        return ends

    def _destage(self, ends: list, t: int) -> int:
        """Put flush programs ending at ``ends`` into the destage buffer at ``t``;
        returns when the buffer has room again (ns), ``t`` if it has."""
        heap = self.destage
        while heap and heap[0] <= t:
            heapq.heappop(heap)
        for e in ends:
            heapq.heappush(heap, e)
        ready = t
        while len(heap) > self.L.destage_pages:
            ready = max(ready, heapq.heappop(heap))
        return ready

    def _remap(self, lpn: int, ppn: int) -> None:
        old = int(self.l2p[lpn])
        if old >= 0:
            self.p2l[old] = -1
            self.sb_valid[old // self.L.pages_per_block // self.L.k] -= 1
        self.l2p[lpn] = ppn
        self.p2l[ppn] = lpn
        self.sb_valid[ppn // self.L.pages_per_block // self.L.k] += 1

    # ------------------------------------------------------------------ GC and RR
    def _run_gc(self, lane: int, t: int) -> None:
        """Collect one greedy victim per allocation made below the GC threshold."""
        if self.in_mig:
            return
        L = self.L
        full = L.pages_per_superblock
        n = 0
        while self.gc_due[lane] > 0 and n < L.sb_per_lane and len(self.free[lane]) < L.gc_threshold_sb:
            victim = self._gc_victim(lane, t)
            if victim < 0 or self.sb_valid[victim] >= full:
                break  # nothing to gain; allocation fails later if space truly runs out
            self.gc_due[lane] -= 1
            self._migrate(victim, "gc", t, "greedy")
            n += 1
        self.gc_due[lane] = 0

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
        """Decide the migration of every valid page of ``victim`` to the GC/RR frontier
        and its erase, at ``t``: the FTL changes now; its transactions are booked as the
        scheduler says."""
        L = self.L
        k, N, S = L.k, L.pages_per_block, L.sb_per_lane
        lane = victim // S
        self.in_mig = True
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
        txns = []  # (phase, die, chan, n_xfer, dur, dsts) in booking order
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
                txns.append((PH_READ, d, chan, xfer, L.t_read_ns + extra * L.t_retry_ns, ()))
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
                dsts = tuple(int(new_ppns[order[q]]) for q in range(q0, q1))
                txns.append((PH_PROG, d, int(L.comp_chan[base + dest[order[q0]]]), xfer, L.t_program_ns, dsts))
                q0 = q1
        self.c["flash_pages_programmed"] += n
        # erase: one multi-plane erase per die of the lane
        dies_seen = []
        for c in range(k):
            d = int(L.comp_die[base + c])
            if d not in dies_seen:
                dies_seen.append(d)
                txns.append((PH_ERASE, d, 0, 0, L.t_erase_ns, ()))
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
        self.in_mig = False
        if not self.untimed:
            self._schedule_job(kind, victim, lane, t, txns, dict(zip(new_ppns.tolist(), [
                int((victim * k + c) * N + o) for c, o in zip(comps, offs)])))

    def _schedule_job(self, kind: str, victim: int, lane: int, t: int, txns: list, moves: dict) -> None:
        """Hand a decided migration's transactions to the scheduler.  ``moves`` maps each
        destination ppn to its source ppn."""
        L = self.L
        ev = self.erase_end[kind]
        ev.append(-1)
        job = _Job(self.next_job, kind, len(ev) - 1, lane, victim, t)
        self.next_job += 1
        if L.scheduler == SCHED_FCFS:  # book everything now, each at t, in creation order
            cause = CAUSE_RR if kind == "rr" else CAUSE_GC
            end = t
            for phase, d, chan, xfer, dur, _ in txns:
                e = self._op(d, chan, phase, xfer, t, dur, cause)
                if phase == PH_ERASE:
                    end = max(end, e)
            ev[job.event] = end
            return
        for phase, d, chan, xfer, dur, dsts in txns:
            self.bgq[d].append(_Txn(job, phase, d, chan, xfer, dur, dsts))
            job.left[phase] += 1
            if phase == PH_PROG:
                self.die_q_progs[d] += 1
        self.bg_pending += len(txns)
        self.sb_erase_job[victim] = job
        if L.scheduler == SCHED_USER_FIRST and len(self.free[lane]) >= L.gc_hard_threshold_sb:
            # reads of moved pages go to the old place until they are programmed (follow earlier moves)
            self.src_of.update({d: self.src_of.get(s, s) for d, s in moves.items()})
            return
        self._force(job)  # "gc-first", or urgent: booked at once

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
        self._run_gc(sb // L.sb_per_lane, t)

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
            # a page whose move is not programmed yet is read where it was
            where = [self.src_of.get(p, p) for p in ppns] if self.src_of else ppns
            extras = [self._retries(p // L.pages_per_block) * L.t_retry_ns for p in ppns]
            blocked = False
            for die, chan, pages, extra in self._group(where, extras):
                if self.die_prog_end[die] > t or self.die_q_progs[die] > 0:
                    blocked = True
                done = max(done, self._user_op(die, chan, PH_READ, len(pages), t, L.t_read_ns + extra,
                                               CAUSE_USER))
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
                    ends = self._program_pages(evicted, t, CAUSE_FLUSH)
                    if L.write_ack_insert:
                        self._destage(ends, t)
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
        done = t + L.t_dram_ns
        if L.cache_pages:
            flush = []
            for lpn in range(lpn0, lpn1 + 1):
                if lpn in self.cache:
                    self.cache[lpn] = True
                    self.cache.move_to_end(lpn)
                    c["cache_write_hits"] += 1
                else:
                    self._cache_insert(lpn, True, flush)
            if flush:
                ends = self._program_pages(flush, t, CAUSE_FLUSH)
                if L.write_ack_insert:
                    room = self._destage(ends, t)
                    if room > t:
                        c["write_stall_ns"] += room - t
                    done = max(done, room)
                else:
                    done = max(done, max(ends))
        else:
            done = max(done, max(self._program_pages(list(range(lpn0, lpn1 + 1)), t, CAUSE_USER)))
        self._record("write", done - t)

    # ------------------------------------------------------------------ public
    def precondition(self, fill_pages: int, warmup_lpns: np.ndarray) -> None:
        """Sequentially write LPN 0..fill_pages-1, then the warm-up LPNs, untimed;
        then reset every counter and clock (the device state is kept)."""
        self.n_filled = fill_pages
        self.untimed = True
        for lpn in range(fill_pages):
            self._remap(lpn, self._user_slot(0))
        for lpn in warmup_lpns:
            self._remap(int(lpn), self._user_slot(0))
        self.untimed = False
        self.c = dict.fromkeys(COUNTERS, 0)
        self.gc_events.clear()
        self.rr_events.clear()
        self.erase_end = {"rr": [], "gc": []}
        self._init_timing()
        self.block_reads[:] = 0

    def run(self, time_ns, offset, size, is_write, repeat: int = 1) -> None:
        """Replay requests in order (may be called again with later chunks)."""
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
                if self.bg_pending or self.idle_pending:
                    self._run_bg(t)
                self.horizon = t
                self.last_arrival = t
                lpn0 = int(offset[i]) // ps
                lpn1 = (int(offset[i]) + int(size[i]) - 1) // ps
                self.c["requests"] += 1
                if is_write[i]:
                    self._write(t, lpn0, lpn1)
                else:
                    self._read(t, lpn0, lpn1)

    def finish(self) -> None:
        """End of the trace: count the background work still queued, then book it
        (idle moves are dropped), so every RR and GC has an erase time."""
        self.c["bg_pending_at_end"] = self.bg_pending
        for q in self.idleq:
            q.clear()
        self.idle_pending = 0
        if self.bg_pending:
            self._run_bg(1 << 62)

    def state_view(self, t: int):
        from ..policy import EngineState

        return EngineState(
            layout=self.L, now_ns=t, block_reads=self.block_reads, rr_threshold=self.rr_threshold,
            sb_valid=self.sb_valid, sb_state=self.sb_state, l2p=self.l2p, p2l=self.p2l,
            page_counters=self.page_counters, die_free_ns=self.die_free,
            queue_idle_move=lambda lpn, comp: self.push_idle_move(int(lpn), int(comp), t))

    def results(self) -> dict:
        end = max(self.last_arrival, int(self.die_free.max()) if len(self.die_free) else 0)
        return {"counters": dict(self.c), "hist": {k: v.copy() for k, v in self.hist.items()},
                "rr_events": [e + (x,) for e, x in zip(self.rr_events, self.erase_end["rr"])],
                "gc_events": [e + (x,) for e, x in zip(self.gc_events, self.erase_end["gc"])],
                "die_busy_ns": self.die_busy.copy(), "end_ns": end}

    # ------------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        check_state(self.L, self.l2p, self.p2l, self.sb_valid, self.sb_state, self.n_filled)
