"""The reference engine (twin of ``engine.pyx``): the request loop over the
layers.  Both engines are driven the same way::

    eng = ReferenceEngine(layout, hooks, seed)
    eng.precondition(fill_pages, warmup_lpns)
    eng.run(time_ns, offset, size, is_write, repeat)   # may be called again with later chunks
    eng.finish()
    raw = eng.results()          # counters, histograms, event lists, die busy time

``hooks`` is a :class:`flashrr._core.hooks.PolicyHooks`: the policy's rare-event
callbacks (or None where the policy keeps the default behaviour).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .counters import COUNTERS
from .invariants import EngineError, InvariantError, check_precondition, check_requests, unwritten_read
from .invariants import check_state
from .weak import weak_method
from .device_state import layer_states, restore_layers, state_layers
from .hooks import EngineState
from .layout import CAUSE_FLUSH, CAUSE_USER, HIST_BUCKETS, Layout, hist_bucket
from .device.cache_py import Cache
from .device.ftl_py import Ftl
from .device.errors_py import ErrorState
from .device.reclaim_py import Reclaim
from .device.sched_py import KIND_GC, KIND_RR, PH_PROG, PH_READ, Scheduler
from .mechanisms.page_counters_py import PageCounters
from .options.held_writes_py import HeldWrites
from .options.pv_timing_py import PVTiming
from . import assembly


class ReferenceEngine:
    """One simulated SSD.  All times are integer ns, all sizes pages unless named."""

    def __init__(self, layout: Layout, hooks, seed: int = 0, check: bool = False):
        L = self.L = layout
        self.hooks = hooks
        self.c = dict.fromkeys(COUNTERS, 0)
        self.hist = {kind: np.zeros(HIST_BUCKETS, dtype=np.int64) for kind in ("read", "write", "io")}
        self.sched = Scheduler(L, self.c)
        self.ftl = Ftl(L, self.sched, check)
        self.cache = Cache(L.cache_pages)
        self.rc = Reclaim(L, self.ftl, self.sched, self.c, hooks, weak_method(self, "state_view"),
                          weak_method(self, "check_invariants") if check else None)
        em = self.em = ErrorState(L, self.rc.block_reads, self.rc.rr_threshold) if L.error_tables else None
        self.rc.em = em
        self.page_counters = PageCounters(hooks.page_counter_group if hooks is not None else 0, L.logical_pages)
        self.pv = PVTiming(L) if L.pv is not None else None
        self.ftl.pv = self.rc.pv = self.pv
        if L.gc_reserve_frontier:  # as MQSim's block manager, which takes the GC frontier when it starts
            self.ftl.reserve_gc_frontiers()
        ctx = SimpleNamespace(layout=L, ftl=self.ftl, sched=self.sched, rc=self.rc, counters=self.c, comp_die=None,
                              block_reads=self.rc.block_reads, rr_threshold=self.rc.rr_threshold,
                              page_counters=self.page_counters, page_counts=self.page_counters.counts, seed=seed)
        s = self.slots = assembly.build(ctx, hooks, reference=True)
        self.readers, self.requesters, self.writers = s.readers, s.requesters, s.writers
        self.redirector, self.placer = s.redirector, s.placer
        self.rc.erasers = s.erasers
        self.write_path = s.write_path
        self.rc.mig = s.migration_placer
        self.held = HeldWrites() if L.gc_write_stall else None
        self.check = check
        self.n_filled = 0
        self.last_arrival = 0

    # ------------------------------------------------------------------ requests
    def _group(self, ppns: list, extras: list | None = None) -> list:
        """Greedy multi-plane grouping, in page order: a page joins the first earlier
        transaction on its die at the same page offset whose planes it does not use.
        Returns [(die, chan, n_pages, extra_ns, offset, plane_mask), ...] in creation order,
        where ``extra_ns`` is the largest of the pages' ``extras`` (0 without)."""
        L = self.L
        k, N = L.k, L.pages_per_block
        txns = []  # [die, off, plane_mask, chan, n, extra]
        for i, ppn in enumerate(ppns):
            blk, off = divmod(ppn, N)
            idx = (blk // k // L.sb_per_lane) * k + blk % k
            die, plane = int(L.comp_die[idx]), int(L.comp_plane_in_die[idx])
            extra = extras[i] if extras is not None else 0
            for tx in txns:
                if tx[0] == die and tx[1] == off and not (tx[2] >> plane) & 1:
                    tx[2] |= 1 << plane
                    tx[4] += 1
                    tx[5] = max(tx[5], extra)
                    break
            else:
                txns.append([die, off, 1 << plane, int(L.comp_chan[idx]), 1, extra])
        return [(tx[0], tx[3], tx[4], tx[5], tx[1], tx[2]) for tx in txns]

    def _record(self, kind: str, latency: int) -> None:
        b = hist_bucket(latency)
        self.hist[kind][b] += 1
        self.hist["io"][b] += 1
        self.c[kind + "_latency_sum_ns"] += latency

    def _user_page(self, lpn: int, t: int) -> int:
        """Map ``lpn`` to the next user-frontier page; a new frontier superblock may owe GC."""
        ftl = self.ftl
        ppn = ftl.user_slot() if self.placer is None else self.placer.user_page(lpn)
        lane = ftl.kick
        self.rc.mix.user[ppn // self.L.pages_per_block] += 1
        if self.em is not None:
            self.em.programmed(ppn // self.L.pages_per_block, t)
        if lane >= 0:
            ftl.kick = -1
            self.rc.run_gc(lane, t)
        ftl.remap(lpn, ppn)
        return ppn

    def _map_pages(self, lpns: list, t: int) -> list:
        """Map ``lpns`` to user-frontier pages at ``t``; returns their program transactions
        [(die, chan, n_pages, extra_ns)]."""
        ppns = []
        for lpn in lpns:
            ppn = self._user_page(lpn, t)
            if self.check:
                self.ftl.ppn_version[ppn] = self.ftl.version[lpn]
            ppns.append(ppn)
        self.c["flash_pages_programmed"] += len(ppns)
        # with process variation a transaction lasts as long as its slowest page
        extras = [self.pv.page_ns(p) - self.L.t_program_ns for p in ppns] if self.pv is not None else None
        return self._group(ppns, extras)

    def _program_pages(self, lpns: list, t: int, cause: int) -> list:
        """Write ``lpns`` through the user frontier at ``t``; returns when each page's
        program ends (ns), in order."""
        ends = []
        for die, chan, n, extra, _, _ in self._map_pages(lpns, t):
            end = self.sched.user_op(die, chan, PH_PROG, n, t, self.L.t_program_ns + extra, cause)
            ends.extend([end] * n)
            self.c["user_flash_transactions"] += 1
        return ends

    def _model_retry(self, blk: int, t: int) -> tuple:
        """Error model on: (retry time in ns, steps) of a user page read of ``blk`` at ``t``,
        after its state is looked up again if its retention left its bucket (steps
        ``S + 1``: uncorrectable, it took all ``S``)."""
        em = self.em
        em.touch(blk, t)
        c = em.steps(blk) if em.retry_on else self.rc.retries(blk)
        return int(self.L.retry_extra_ns[min(c, em.S)]), c

    def _read(self, t: int, lpn0: int, lpn1: int) -> None:
        L, c, ftl, sc, rc = self.L, self.c, self.ftl, self.sched, self.rc
        c["reads"] += 1
        misses = []
        for lpn in range(lpn0, lpn1 + 1):
            c["read_pages"] += 1
            if lpn in self.cache:
                self.cache.touch(lpn)
                c["cache_read_hits"] += 1
            else:
                misses.append(lpn)
        done = t + L.t_dram_ns
        if misses:
            ppns = [int(ftl.l2p[lpn]) for lpn in misses]
            for lpn, ppn in zip(misses, ppns):
                if ppn < 0:
                    raise EngineError(unwritten_read(lpn))
            if self.check:
                for lpn, ppn in zip(misses, ppns):
                    if ftl.ppn_version[ppn] != ftl.version[lpn]:
                        raise InvariantError(f"invariant: read of LPN {lpn} did not return its latest write")
            # a page whose move is not programmed yet is read where it was
            where = [sc.src_of.get(p, p) for p in ppns] if sc.src_of else ppns
            if self.em is None:
                extras = [int(L.retry_extra_ns[rc.retries(p // L.pages_per_block)]) for p in ppns]
            else:
                planned = [(p,) + self._model_retry(p // L.pages_per_block, t) for p in ppns]
                extras = [x for _, x, _ in planned]
            blocked = False
            if self.redirector is not None:
                misses, ppns, where, extras = self.redirector.redirect(misses, ppns, where, extras, t)
                done = max(done, self.redirector.redirect_end)
                blocked = self.redirector.redirect_blocked
            for die, chan, n, extra, off, pmask in self._group(where, extras):
                if sc.die_prog_end[die] > t or sc.die_q_progs[die] > 0:
                    blocked = True
                end = -1
                if L.join_reads:  # timing.join_reads: with a background read booked to start later
                    end = sc.join_read(die, chan, n, t, L.t_read_ns + extra, off, pmask)
                if end < 0:
                    end = sc.user_op(die, chan, PH_READ, n, t, L.t_read_ns + extra, CAUSE_USER)
                done = max(done, end)
                c["retry_time_ns"] += extra
                c["user_read_flash_ns"] += L.t_read_ns + extra
                c["user_flash_transactions"] += 1
            c["blocked_reads"] += blocked
            c["flash_read_pages"] += len(ppns)
            if self.em is not None:  # the retry steps of the reads that went to flash (a redirector keeps their order)
                j = 0
                for p, _, steps in planned:
                    if j < len(ppns) and ppns[j] == p:
                        self.em.count(steps)
                        j += 1
            pending = []
            for ppn in ppns:
                blk = ppn // L.pages_per_block
                rc.block_reads[blk] += 1
                m = self.readers
                while m is not None:
                    m.page_read(ppn, blk, int(rc.block_reads[blk]), int(rc.rr_threshold[blk]), done)
                    m = m.next_reader
                if L.rr_enabled and rc.block_reads[blk] >= rc.rr_threshold[blk]:
                    sb = blk // L.k
                    if sb not in pending:
                        pending.append(sb)
            m = self.readers
            while m is not None:
                m.reads_done(done)
                m = m.next_reader
            self.page_counters.on_flash_reads(misses)
            if L.cache_pages and L.read_allocate:
                evicted = []
                for lpn in misses:
                    self.cache.insert(lpn, False, evicted)
                if evicted:
                    ends = self._program_pages(evicted, t, CAUSE_FLUSH)
                    if L.write_ack_insert:
                        self.sched.destage(ends, t)
            for sb in pending:
                rc.read_reclaim(sb, done)
        self._record("read", done - t)
        m = self.requesters
        while m is not None:
            m.request_done(done)
            m = m.next_request

    def _write(self, t: int, lpn0: int, lpn1: int) -> None:
        L, c = self.L, self.c
        c["writes"] += 1
        n = lpn1 - lpn0 + 1
        if self.check:
            self.ftl.version[lpn0:lpn1 + 1] += 1
        c["write_pages"] += n
        c["host_pages_written"] += n
        m = self.writers
        while m is not None:
            m.host_write(lpn0, lpn1)
            m = m.next_writer
        done = t + L.t_dram_ns
        if L.cache_pages:
            flush = []
            for lpn in range(lpn0, lpn1 + 1):
                if lpn in self.cache:
                    self.cache.touch(lpn, dirty=True)
                    c["cache_write_hits"] += 1
                else:
                    self.cache.insert(lpn, True, flush)
            if flush:
                ends = self._program_pages(flush, t, CAUSE_FLUSH)
                if L.write_ack_insert:
                    room = self.sched.destage(ends, t)
                    if room > t:
                        c["write_stall_ns"] += room - t
                    done = max(done, room)
                else:
                    done = max(done, max(ends))
        elif self.write_path is not None:
            done = max(done, self.write_path.write(self, t, lpn0, lpn1))
        elif self.held is not None:
            done = self._stall_write(t, lpn0, lpn1)
            if done is None:  # some page waits for its lane's erase: recorded when it is booked
                return
        elif self.L.read_priority:  # its programs wait for the dies' reads: recorded when the last is booked
            self._queue_programs(self._map_pages(list(range(lpn0, lpn1 + 1)), t), t, done, 0)
            return
        else:
            done = max(done, max(self._program_pages(list(range(lpn0, lpn1 + 1)), t, CAUSE_USER)))
        self._record("write", done - t)
        m = self.requesters
        while m is not None:
            m.request_done(done)
            m = m.next_request

    def _queue_programs(self, txns: list, t: int, done: int, n_held: int) -> int:
        """timing.read_priority: queue the program transactions ``txns`` of a user write that
        arrived at ``t`` on their dies; ``done``: its completion so far (ns); ``n_held``: its
        pages held by gc.write_stall.  Returns the request's slot in the scheduler."""
        req = self.sched.write_req(t, done, len(txns) + n_held)
        for die, chan, n, extra, off, pmask in txns:
            self.sched.take_write(die, chan, n, t, self.L.t_program_ns + extra, req, off, pmask)
            self.c["user_flash_transactions"] += 1
        return req

    def _take_writes(self) -> None:
        """Record the latencies of the write requests the scheduler completed (read priority)."""
        for lat in self.sched.wdone:
            self._record("write", lat)
        self.sched.wdone.clear()

    def _stall_write(self, t: int, lpn0: int, lpn1: int):
        """gc.write_stall, no cache: map every page now; program now the pages whose lane
        may write, and hold the others until an erase of their lane.  Returns the
        request's completion, or None if a page is held."""
        L, ftl = self.L, self.ftl
        ppns = []
        for lpn in range(lpn0, lpn1 + 1):
            ppn = self._user_page(lpn, t)
            if self.check:
                ftl.ppn_version[ppn] = ftl.version[lpn]
            ppns.append(ppn)
        self.c["flash_pages_programmed"] += len(ppns)
        held, now = [], []
        for p in ppns:
            (held if ftl.writes_held(ftl.lane_of(p)) else now).append(p)
        done = t + L.t_dram_ns
        extras = [self.pv.page_ns(p) - L.t_program_ns for p in now] if self.pv is not None else None
        if L.read_priority:  # the pages that may write wait for their dies' reads, the others for an erase
            req = self._queue_programs(self._group(now, extras), t, done, len(held))
            for p in held:
                self.held.hold(p, ftl.lane_of(p), req)
            return None
        for die, chan, n, extra, _, _ in self._group(now, extras):
            done = max(done, self.sched.user_op(die, chan, PH_PROG, n, t, L.t_program_ns + extra, CAUSE_USER))
            self.c["user_flash_transactions"] += 1
        if not held:
            return done
        req = self.held.new_req(t, done, len(held))
        for p in held:
            self.held.hold(p, ftl.lane_of(p), req)
        return None

    def _release(self, lane: int, e: int) -> None:
        """Book, in arrival order, the held pages of ``lane`` ready at ``e`` (one program
        each); record a request's latency when its last page is booked.  Under
        timing.read_priority the programs join their dies' queues instead."""
        L, hw = self.L, self.held
        keep = []
        for ppn, ln, req in hw.pages:
            if ln != lane:
                keep.append((ppn, ln, req))
                continue
            extras = [self.pv.page_ns(ppn) - L.t_program_ns] if self.pv is not None else None
            (die, chan, _, extra, off, pmask), = self._group([ppn], extras)  # one page: one transaction
            if L.read_priority:  # it waits for its die's reads (or joins, join_writes)
                self.c["user_flash_transactions"] += 1
                self.c["write_stall_ns"] += e - self.sched.wreq[req][0]  # before its request may end
                self.sched.take_write(die, chan, 1, e, L.t_program_ns + extra, req, off, pmask)
                continue
            end = self.sched.user_op(die, chan, PH_PROG, 1, e, L.t_program_ns + extra, CAUSE_USER)
            self.c["user_flash_transactions"] += 1
            self.c["write_stall_ns"] += e - hw.reqs[req][0]
            if hw.page_booked(req, end):
                self._record("write", hw.reqs[req][1] - hw.reqs[req][0])
        hw.pages = keep

    def _erase_events(self, t: int, collect: bool) -> None:
        """gc.free_pool = "erased": every booked erase that ends by ``t``, earliest first
        (Reclaim.erase_event); with gc.write_stall the erase's lane writes its held pages
        at the erase's end once its pool is back at the threshold, or when no victim of
        the lane is left in flight.  Under "user-first" the victims decided here may start
        in the idle time before ``t``, and their erases may end by ``t`` in turn.  With
        ``collect`` false (after the trace) no victim is started: on a lane that cannot get
        back to its threshold, erase-started GC would otherwise never end."""
        ftl, sc = self.ftl, self.sched
        while True:
            decided = False
            while (r := self.rc.erase_event(t, collect)) is not None:
                d, lane, end = r
                decided = decided or d
                if self.held is not None and self.held.pages and not ftl.writes_held(lane):
                    self._release(lane, end)
            if not decided or not (sc.bg_pending or sc.idle_pending):
                return
            self.rc.run_bg(t)

    def program_user_pages(self, lpns: list, t: int) -> int:
        """Host for a write path: write ``lpns`` through the user frontier at ``t``;
        returns the latest end."""
        return max(self._program_pages(list(lpns), t, CAUSE_USER))

    def map_user_page(self, lpn: int, t: int) -> int:
        """Host for a write path: map ``lpn`` to the next user slot now; its program is
        booked by the write path later."""
        ppn = self._user_page(lpn, t)
        if self.check:
            self.ftl.ppn_version[ppn] = self.ftl.version[lpn]
        return ppn

    # ------------------------------------------------------------------ public
    def precondition(self, fill_pages: int, warmup_lpns: np.ndarray) -> None:
        """Sequentially write LPN 0..fill_pages-1, then the warm-up LPNs, untimed;
        then reset every counter and clock (the device state is kept).  With PV
        reassembly the fill keeps the static assembly; the warm-up reassembles."""
        check_precondition(fill_pages, warmup_lpns, self.L.logical_pages)
        self.n_filled = fill_pages
        self.rc.untimed = True
        if self.em is not None:
            self.em.set_untimed(True)
        dynamic = self.pv is not None and self.pv.dynamic
        if dynamic:  # the fill takes the static assembly: it stands for data written long ago
            self.pv.dynamic = False
        placer = self.placer
        if placer is not None and not placer.places_fill:  # the write pool starts empty at cap_min
            self.placer = None
        for lpn in range(fill_pages):
            self._user_page(lpn, 0)
        if dynamic:
            self.pv.dynamic = True
        for lpn in warmup_lpns:
            self._user_page(int(lpn), 0)
        self.rc.untimed = False
        if self.em is not None:
            self.em.set_untimed(False)
            self.em.reset_counters()
        self.placer = placer
        for name in COUNTERS:
            self.c[name] = 0
        assembly.reset_counters(self.slots)
        self.rc.gc_log.clear()
        self.rc.rr_log.clear()
        self.sched.reset()
        self.rc.block_reads[:] = 0

    def device_state(self, mechanisms: bool = False) -> dict:
        """The device state preconditioning leaves, by layer (flashrr/snapshot): taken
        right after :meth:`precondition`, and set by :meth:`restore_device_state`.
        ``mechanisms``: with the state of the policy's mechanisms (a policy whose hooks
        act during preconditioning)."""
        return layer_states(self._state_layers(mechanisms), {"n_filled": self.n_filled})

    def restore_device_state(self, state: dict, mechanisms: bool = False) -> None:
        """Stand in for :meth:`precondition` on a new engine: set the state
        :meth:`device_state` returned (ValueError names a layer's field that does not fit)."""
        self.n_filled = restore_layers(self._state_layers(mechanisms), state)["n_filled"]

    def _state_layers(self, mechanisms: bool) -> dict:
        placer = self.placer if self.placer is not None and self.placer.places_fill else None
        return state_layers({"ftl": self.ftl, "reclaim": self.rc, "error_model": self.em, "pv": self.pv,
                             "placer": placer}, self.slots.mechanisms if mechanisms else {})

    def run(self, time_ns, offset, size, is_write, repeat: int = 1) -> None:
        """Replay requests in order (may be called again with later chunks)."""
        ps = self.L.page_size_bytes
        sc = self.sched
        n = len(time_ns)
        if n == 0:
            return
        check_requests(time_ns, offset, size, ps, self.L.logical_pages, self.last_arrival)
        duration = int(time_ns[-1])
        period = duration + max(1, duration // max(1, n - 1))
        for r in range(repeat):
            shift = r * period
            for i in range(n):
                t = int(time_ns[i]) + shift
                if sc.bg_pending or sc.idle_pending or sc.uw_pending:
                    self.rc.run_bg(t)
                if sc.erase_evs:
                    self._erase_events(t, True)
                    if sc.uw_pending:  # held writes the erases let go (read priority)
                        self.rc.run_bg(t)
                if sc.wdone:
                    self._take_writes()
                m = self.requesters
                while m is not None:
                    m.arrival(t)
                    m = m.next_request
                sc.horizon = t
                self.last_arrival = t
                lpn0 = int(offset[i]) // ps
                lpn1 = (int(offset[i]) + int(size[i]) - 1) // ps
                self.c["requests"] += 1
                if is_write[i]:
                    self._write(t, lpn0, lpn1)
                else:
                    self._read(t, lpn0, lpn1)

    def finish(self) -> None:
        """End of the trace: count the background work still queued, then book it (idle
        moves are dropped), so every RR and GC has an erase time."""
        sc = self.sched
        self.c["bg_pending_at_end"] = sc.bg_pending
        for q in sc.iq:
            q.clear()
        sc.idle_pending = 0
        if sc.bg_pending or sc.uw_pending:
            self.rc.run_bg(((1 << 63) - 1) >> 1)  # INT64_MAX >> 1, as the compiled engine
        if self.held is not None and self.held.pages:  # let the held pages go: the erases that end after the trace
            self._erase_events(((1 << 63) - 1) >> 1, False)
            while self.held.pages:
                self._release(self.held.pages[0][1], self.last_arrival)
            if sc.uw_pending:
                self.rc.run_bg(((1 << 63) - 1) >> 1)
        self._take_writes()

    def push_idle_move(self, lpn: int, dest_comp: int, t: int) -> None:
        """Queue a page move of ``lpn`` to component ``dest_comp`` of its lane's GC/RR
        frontier, to run when the die holding it is idle (no queued work, and the move
        starts before the next arrival).  Decided when it runs: a move whose page was
        overwritten or moved meanwhile drops itself."""
        L = self.L
        src = int(self.ftl.l2p[lpn]) if 0 <= lpn < L.logical_pages else -1
        if src < 0 or not 0 <= dest_comp < L.k:
            raise EngineError(f"idle move of LPN {lpn} to component {dest_comp}: no such page or component")
        self.sched.push_idle(self.rc.die_of(src), lpn, src, dest_comp, t)

    def state_view(self, t: int):
        f = self.ftl
        return EngineState(
            layout=self.L, now_ns=t, block_reads=self.rc.block_reads, rr_threshold=self.rc.rr_threshold,
            sb_valid=f.sb_valid, sb_state=f.sb_state, l2p=f.l2p, p2l=f.p2l,
            page_counters=self.page_counters.view(), die_free_ns=self.sched.die_free,
            queue_idle_move=lambda lpn, comp: self.push_idle_move(int(lpn), int(comp), int(t)))

    def rr_times(self) -> np.ndarray:
        """The decision time (ns) of every RR so far, in the order decided (a copy)."""
        return np.asarray(self.rc.rr_log.columns(self.sched.erase_end[KIND_RR])["time_ns"])

    def results(self) -> dict:
        sc = self.sched
        end = max(self.last_arrival, int(sc.die_free.max()) if len(sc.die_free) else 0)
        return {"counters": dict(self.c), "hist": {k: v.copy() for k, v in self.hist.items()},
                "rr_events": self.rc.rr_log.columns(sc.erase_end[KIND_RR]),
                "gc_events": self.rc.gc_log.columns(sc.erase_end[KIND_GC]),
                "die_busy_ns": sc.die_busy.copy(), "end_ns": end, "block_erases": self.rc.block_erases.copy(),
                "mechanism_counters": assembly.counter_values(self.slots),
                "error_model": self.em.results() if self.em is not None else None}

    def mechanism(self, name: str):
        """The mechanism switched on under ``name`` (its registry hook, e.g.
        ``"working_sets"``), or None; tests read its state."""
        return self.slots.mechanisms.get(name)

    def error_state(self):
        """The error model's state of the blocks (errors_py.py), or None when it is off; tests read it."""
        return self.em

    def block_mix(self, name: str) -> np.ndarray:
        """Pages programmed per block since its erase: ``mix_user``, ``mix_rr`` or ``mix_gc``."""
        return self.rc.mix.array(name)

    def check_invariants(self) -> None:
        f = self.ftl
        check_state(self.L, f.l2p, f.p2l, f.sb_valid, f.sb_state, self.n_filled)
