# cython: language_level=3
"""The compiled engine: the request loop over the device layers (sched, ftl,
cache, reclaim), the options the config chooses and the role slots the policy's
mechanisms fill (roles.pxd).  Same model, same order of operations and same
results as the twin ``engine_py.py`` (the tests hold both to identical
summaries, event tables and histograms).  The request loop runs without the
GIL; it takes the GIL only to call a policy hook at an RR or GC, to record an
event, or to raise.
"""
from types import SimpleNamespace

import numpy as np
cimport numpy as cnp
from libc.stdint cimport INT64_MAX, int8_t, int32_t, int64_t, uint8_t, uint64_t

from .device.common cimport *
from .device.errors cimport ErrorState, count_steps, switch_steps
from .device.sched cimport EraseEv
from .options.held_writes cimport HeldPage
from .options.pv_timing cimport PVTiming
from .roles cimport Mechanism
from .counters import COUNTERS
from .invariants import EngineError, InvariantError, check_precondition, check_requests, unwritten_read
from .layout import (CAUSES as _CAUSES, GC_OPEN_MAX as _GC_OPEN_MAX, HIST_BUCKETS as _HIST_BUCKETS,
                     HIST_SUB_BITS as _HIST_SUB_BITS, SCHED_CODES as _SCHED_CODES, SCHED_USER_FIRST as _USER_FIRST)
from .invariants import check_state
from .weak import weak_method
from .device_state import layer_states, restore_layers, state_layers
from .hooks import EngineState
from . import assembly

cnp.import_array()

DEF SUB_BITS = 7        # must equal layout.HIST_SUB_BITS
DEF NBUCKETS = 7424     # (64 - SUB_BITS + 1) << SUB_BITS
assert _GC_OPEN_MAX == GC_MAX and _HIST_SUB_BITS == SUB_BITS and _HIST_BUCKETS == NBUCKETS
assert len(COUNTERS) == N_COUNTERS and COUNTERS[C_WRITE_LAT] == "write_latency_sum_ns"
assert COUNTERS[C_BUSY_USER:C_BUSY_USER + len(_CAUSES)] == tuple(f"busy_{c}_ns" for c in _CAUSES)
assert COUNTERS[C_IDLE_DROPPED] == "idle_moves_dropped" and COUNTERS[C_ERASES_GC] == "erases_gc"
assert COUNTERS[C_RR_SECOND] == "rr_second_time" and COUNTERS[C_RR_VIC_GC] == "rr_victim_gc_pages"
assert COUNTERS[C_GC_AT_ERASE] == "gc_at_erase" and COUNTERS[C_READ_FLASH_NS] == "user_read_flash_ns"
assert len(COUNTERS) == N_COUNTERS
assert _SCHED_CODES == {"user-first": SCHED_USER_FIRST, "gc-first": SCHED_GC_FIRST, "fcfs": SCHED_FCFS}

DEF H_READ = 0
DEF H_WRITE = 1
DEF H_IO = 2
DEF PREFETCH_AHEAD = 16   # requests; the replay loop prefetches mapping entries this far ahead
DEF PREFETCH_VICTIMS = 3  # and those of this many LRU victims-to-be
DEF FINGER_AHEAD = 4      # requests; and the channel lines of a read's die this far ahead


cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil


cdef inline int32_t _bit_length(int64_t v) noexcept nogil:
    """Bits needed for v > 0 (one count-leading-zeros instruction)."""
    return 64 - __builtin_clzll(<unsigned long long>v)


cdef inline int32_t _bucket(int64_t v) noexcept nogil:
    cdef int32_t e
    if v < (1 << SUB_BITS):
        return <int32_t>v
    e = _bit_length(v) - 1
    return ((e - SUB_BITS + 1) << SUB_BITS) + <int32_t>((v >> (e - SUB_BITS)) & ((1 << SUB_BITS) - 1))


cdef class CompiledEngine:
    def __init__(self, layout, hooks, seed=0, check=False):
        cdef cnp.ndarray a
        L = self.layout = layout
        self.hooks = hooks
        self.k = L.k
        self.N = L.pages_per_block
        self.S = L.sb_per_lane
        self.n_dies = L.n_dies
        self.cache_cap = L.cache_pages
        self.t_read = L.t_read_ns
        self.t_prog = L.t_program_ns
        self.t_dram = L.t_dram_ns
        self.t_retry = L.t_retry_ns
        self.rr_enabled = L.rr_enabled
        self.read_allocate = L.read_allocate
        self.ack_insert = L.write_ack_insert
        self.check = bool(check)
        self.n_steps = len(L.retry_steps_ppm)
        # divisions by k and N sit on the per-page path; shifts replace them for powers of two
        self.k_shift = self.k.bit_length() - 1 if self.k & (self.k - 1) == 0 else -1
        self.N_shift = self.N.bit_length() - 1 if self.N & (self.N - 1) == 0 else -1
        A = self.arrays = {}
        # counters, then the carries of the sums kept by add_wide (common.pxd)
        a = A["counters"] = np.zeros(2 * N_COUNTERS, np.int64); self.cnt = <int64_t*>a.data
        a = A["hist"] = np.zeros(3 * NBUCKETS, np.int64); self.hist = <int64_t*>a.data
        a = A["comp_die"] = np.ascontiguousarray(L.comp_die, dtype=np.int32); self.comp_die = <int32_t*>a.data
        a = A["comp_chan"] = np.ascontiguousarray(L.comp_chan, dtype=np.int32); self.comp_chan = <int32_t*>a.data
        a = A["comp_plane"] = np.ascontiguousarray(L.comp_plane_in_die, dtype=np.int32)
        self.comp_plane = <int32_t*>a.data
        # component (lane * k + c) of every physical block: block b is component b % k of
        # superblock b // k, whose lane is (b // k) // S
        blocks = np.arange(L.n_lanes * self.S * self.k, dtype=np.int64)
        a = A["blk_comp"] = ((blocks // self.k // self.S) * self.k + blocks % self.k).astype(np.int32)
        self.blk_comp = <int32_t*>a.data
        self.sched = Scheduler(L, A["counters"], L.scheduler == _USER_FIRST)
        self.ftl = Ftl(L, self.sched, self.check)
        self.cache = Cache(L.cache_pages, self.ftl.array("lmap"))
        self.rc = Reclaim(L, self.ftl, self.sched, A["counters"], hooks, weak_method(self, "state_view"),
                          weak_method(self, "check_invariants") if self.check else None)
        self.em_on = L.error_tables is not None
        self.em_retry = self.em_on and L.error_tables.retry_on
        if self.em_on:
            self.em = ErrorState(L, self.rc.array("block_reads"), self.rc.array("rr_threshold"))
            self.rc.set_error_state(self.em)
        g = hooks.page_counter_group if hooks is not None else 0
        self.page_counters = PageCounters(g, L.logical_pages)
        self.pv_on = L.pv is not None
        if self.pv_on:
            self.pv = PVTiming(L)
            self.ftl.pv = self.pv
            self.rc.pv = self.pv
        if L.gc_reserve_frontier:  # as MQSim's block manager, which takes the GC frontier when it starts
            self.ftl.reserve_gc_frontiers()
        ctx = SimpleNamespace(layout=L, ftl=self.ftl, sched=self.sched, rc=self.rc, counters=A["counters"],
                              comp_die=A["comp_die"], block_reads=self.rc.array("block_reads"),
                              rr_threshold=self.rc.array("rr_threshold"), page_counters=self.page_counters,
                              page_counts=self.page_counters.view(), seed=seed)
        s = self.slots = assembly.build(ctx, hooks, reference=False)
        self.readers, self.requesters, self.writers = s.readers, s.requesters, s.writers
        self.redirector, self.placer = s.redirector, s.placer
        self.rc.erasers = s.erasers
        self.write_path = s.write_path
        self.rc.mig = s.migration_placer
        self.stall_on = L.gc_write_stall
        self.read_prio = L.read_priority
        self.held = HeldWrites() if self.stall_on else None
        self._alloc_request_buffers(64)
        self.last_arrival = 0

    def _alloc_request_buffers(self, int32_t cap):
        cdef cnp.ndarray a
        A = self.arrays
        self.buf_cap = cap
        a = A["buf_lpn"] = np.zeros(cap, np.int32); self.buf_lpn = <int32_t*>a.data
        a = A["buf_ppn"] = np.zeros(cap, np.int32); self.buf_ppn = <int32_t*>a.data
        a = A["buf_loc"] = np.zeros(cap, np.int32); self.buf_loc = <int32_t*>a.data
        a = A["buf_extra"] = np.zeros(cap, np.int64); self.buf_extra = <int64_t*>a.data
        a = A["buf_em"] = np.zeros(2 * cap, np.int64); self.buf_em = <int64_t*>a.data
        a = A["buf_end"] = np.zeros(cap, np.int64); self.buf_end = <int64_t*>a.data
        a = A["buf_evict"] = np.zeros(cap, np.int32); self.buf_evict = <int32_t*>a.data
        a = A["buf_pending"] = np.zeros(cap, np.int32); self.buf_pending = <int32_t*>a.data
        a = A["tx_die"] = np.zeros(cap, np.int32); self.tx_die = <int32_t*>a.data
        a = A["tx_off"] = np.zeros(cap, np.int32); self.tx_off = <int32_t*>a.data
        a = A["tx_mask"] = np.zeros(cap, np.uint64); self.tx_mask = <uint64_t*>a.data
        a = A["tx_chan"] = np.zeros(cap, np.int32); self.tx_chan = <int32_t*>a.data
        a = A["tx_n"] = np.zeros(cap, np.int32); self.tx_n = <int32_t*>a.data
        a = A["tx_extra"] = np.zeros(cap, np.int64); self.tx_extra = <int64_t*>a.data
        if self.redirector is not None:
            self.redirector.reserve(cap)
        if self.write_path is not None:
            self.write_path.reserve(cap)

    # ================================================================ requests
    cdef int32_t _group(self, int32_t n) noexcept nogil:
        """Greedy multi-plane grouping of buf_loc[0:n] (with buf_extra) into tx_*; returns the count."""
        cdef int32_t k = self.k, N = self.N
        cdef int32_t ntx = 0, i, j, die, plane, off, idx
        cdef int64_t ppn, blk, extra
        for i in range(n):
            ppn = self.buf_loc[i]
            blk = div_pow2(ppn, self.N_shift, N)
            off = <int32_t>(ppn - blk * N)
            idx = self.blk_comp[blk]
            die = self.comp_die[idx]
            plane = self.comp_plane[idx]
            extra = self.buf_extra[i]
            for j in range(ntx):
                if self.tx_die[j] == die and self.tx_off[j] == off and not ((self.tx_mask[j] >> plane) & 1):
                    self.tx_mask[j] |= (<uint64_t>1) << plane
                    self.tx_n[j] += 1
                    if extra > self.tx_extra[j]:
                        self.tx_extra[j] = extra
                    break
            else:
                self.tx_die[ntx] = die
                self.tx_off[ntx] = off
                self.tx_mask[ntx] = (<uint64_t>1) << plane
                self.tx_chan[ntx] = self.comp_chan[idx]
                self.tx_n[ntx] = 1
                self.tx_extra[ntx] = extra
                ntx += 1
        return ntx

    cdef void _record(self, int32_t h, int64_t lat) noexcept nogil:
        cdef int32_t b = _bucket(lat)
        self.hist[h * NBUCKETS + b] += 1
        self.hist[H_IO * NBUCKETS + b] += 1
        add_wide(self.cnt, C_READ_LAT if h == H_READ else C_WRITE_LAT, lat)

    cdef int64_t _user_page(self, int32_t lpn, int64_t t) except -1 nogil:
        cdef int32_t lane
        cdef int64_t ppn, blk
        cdef int32_t* mix_user = self.rc.mix_user
        if self.placer is None:
            ppn = self.ftl.user_slot()
        else:
            ppn = self.placer.user_page(lpn)
        blk = div_pow2(ppn, self.N_shift, self.N)
        mix_user[blk] += 1
        if self.em_on:
            self.em.programmed(blk, t)
        lane = self.ftl.kick
        if lane >= 0:  # the user frontier took a superblock: GC owes a victim if below the threshold
            self.ftl.kick = -1
            self.rc.run_gc(lane, t)
        self.ftl.remap(lpn, ppn)
        return ppn

    cdef int32_t _map_pages(self, int32_t* lpns, int32_t n, int64_t t) except -1 nogil:
        """Map lpns[0:n] to user-frontier pages at t and group them into the program
        transactions tx_*; returns their count."""
        cdef int32_t i
        cdef int64_t ppn
        for i in range(n):
            ppn = self._user_page(lpns[i], t)
            if self.check:
                self.ftl.ppn_version[ppn] = self.ftl.version[lpns[i]]
            self.buf_loc[i] = <int32_t>ppn
            self.buf_extra[i] = 0
        self.cnt[C_PROGRAMMED] += n
        if self.pv_on:  # per-page latency - t_prog; a transaction lasts as long as its slowest page
            self.pv.program_extra(self.buf_loc, self.buf_extra, n)
        return self._group(n)

    cdef int64_t _program_pages(self, int32_t* lpns, int32_t n, int64_t t, int32_t cause) except -2 nogil:
        """Write lpns[0:n] through the user frontier at t; buf_end[i] = when page i's
        program ends; returns the latest end."""
        cdef int32_t i, j, ntx = self._map_pages(lpns, n, t), p = 0
        cdef int64_t e, end = t
        for i in range(ntx):
            e = self.sched.user_op(self.tx_die[i], self.tx_chan[i], PH_PROG, self.tx_n[i], t,
                                   self.t_prog + self.tx_extra[i], cause)
            for j in range(self.tx_n[i]):
                self.buf_end[p] = e
                p += 1
            end = imax(end, e)
            self.cnt[C_USER_TXNS] += 1
        return end

    cdef int64_t _model_extra(self, int64_t blk, int64_t t, int32_t i) except -1 nogil:
        """Error model on: retry time (ns) of user page read i, of blk at t, after the
        block's state is looked up again if its retention left its bucket.  Its steps are
        counted now, or with a redirector kept in buf_em (with its ppn) and counted once
        the read is known to go to flash."""
        cdef int32_t c = 0, S = self.em.S
        self.em.touch(blk, t)
        if self.em_retry:
            c = switch_steps(self.em.switch + blk * self.em.stride, S, self.rc.block_reads[blk])
        elif self.n_steps:
            c = <int32_t>self.rc.retries(blk)
        if self.redirector is None:
            count_steps(self.em.ctr, S, c)
        else:
            self.buf_em[2 * i] = self.buf_ppn[i]
            self.buf_em[2 * i + 1] = c
        return self.rc.retry_extra[c if c <= S else S]

    cdef int _read(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil:
        cdef int32_t nm = 0, ntx, i, s, np_ = 0, n_ev = 0, nm0, j
        cdef int64_t lpn, done = t + self.t_dram, blk, ppn, end
        cdef int32_t sb
        cdef bint blocked = False, seen
        cdef int64_t hits = 0
        cdef int32_t* reads
        self.cnt[C_READS] += 1
        self.cnt[C_READ_PAGES] += lpn1 - lpn0 + 1
        for lpn in range(lpn0, lpn1 + 1):
            s = self.ftl.lmap[2 * lpn + 1]
            if s >= 0:
                self.cache.touch(s)
                hits += 1
            else:
                self.buf_lpn[nm] = <int32_t>lpn
                nm += 1
        self.cnt[C_CACHE_READ_HITS] += hits
        if nm:
            for i in range(nm):
                ppn = self.ftl.lmap[2 * self.buf_lpn[i]]
                if ppn < 0:
                    with gil:
                        raise EngineError(unwritten_read(self.buf_lpn[i]))
                self.buf_ppn[i] = <int32_t>ppn
                if self.check and self.ftl.ppn_version[ppn] != self.ftl.version[self.buf_lpn[i]]:
                    with gil:
                        raise InvariantError(f"invariant: read of LPN {self.buf_lpn[i]} did not return its latest write")
                # a page whose move is not programmed yet is read where it was
                self.buf_loc[i] = self.sched.src_of[ppn] if self.sched.n_src and self.sched.src_of[ppn] >= 0 else <int32_t>ppn
                if self.em_on:
                    self.buf_extra[i] = self._model_extra(div_pow2(ppn, self.N_shift, self.N), t, i)
                elif self.n_steps:
                    self.buf_extra[i] = self.rc.retry_extra[self.rc.retries(div_pow2(ppn, self.N_shift, self.N))]
                else:
                    self.buf_extra[i] = 0
            nm0 = nm
            if self.redirector is not None:
                nm = self.redirector.redirect(self.buf_lpn, self.buf_ppn, self.buf_loc, self.buf_extra, nm, t)
                done = imax(done, self.redirector.redirect_end)
                blocked = self.redirector.redirect_blocked
            ntx = self._group(nm)
            for i in range(ntx):
                if self.sched.die_prog_end[self.tx_die[i]] > t or self.sched.die_q_progs[self.tx_die[i]] > 0:
                    blocked = True
                end = -1
                if self.sched.jr_on:  # timing.join_reads: with a background read booked to start later
                    end = self.sched.join_read(self.tx_die[i], self.tx_chan[i], self.tx_n[i], t,
                                               self.t_read + self.tx_extra[i], self.tx_off[i], self.tx_mask[i])
                if end < 0:
                    end = self.sched.user_op(self.tx_die[i], self.tx_chan[i], PH_READ, self.tx_n[i], t,
                                             self.t_read + self.tx_extra[i], CAUSE_USER)
                done = imax(done, end)
                self.cnt[C_RETRY_NS] += self.tx_extra[i]
                self.cnt[C_READ_FLASH_NS] += self.t_read + self.tx_extra[i]
                self.cnt[C_USER_TXNS] += 1
            if blocked:
                self.cnt[C_BLOCKED] += 1
            self.cnt[C_FLASH_READ_PAGES] += nm
            if self.em_on and self.redirector is not None:  # the steps of the reads that went to flash
                j = 0                                             # (a redirector keeps their order)
                for i in range(nm0):
                    if j < nm and self.buf_ppn[j] == self.buf_em[2 * i]:
                        count_steps(self.em.ctr, self.em.S, <int32_t>self.buf_em[2 * i + 1])
                        j += 1
            reads = self.rc.block_reads
            for i in range(nm):
                blk = div_pow2(self.buf_ppn[i], self.N_shift, self.N)
                reads[blk] += 1
                if self.readers is not None:
                    self.readers.chain_page_read(self.buf_ppn[i], blk, reads[blk], self.rc.rr_threshold[blk], done)
                if self.rr_enabled and reads[blk] >= self.rc.rr_threshold[blk]:
                    sb = <int32_t>div_pow2(blk, self.k_shift, self.k)
                    seen = False
                    for s in range(np_):
                        if self.buf_pending[s] == sb:
                            seen = True
                            break
                    if not seen:
                        self.buf_pending[np_] = sb
                        np_ += 1
            if self.readers is not None:
                self.readers.chain_reads_done(done)
            self.page_counters.on_flash_reads(self.buf_lpn, nm)
            if self.cache_cap and self.read_allocate:
                for i in range(nm):
                    n_ev = self.cache.insert(self.buf_lpn[i], 0, self.buf_evict, n_ev)
                if n_ev:
                    self._program_pages(self.buf_evict, n_ev, t, CAUSE_FLUSH)
                    if self.ack_insert:
                        self.sched.destage(self.buf_end, n_ev, t)
            for i in range(np_):
                self.rc.read_reclaim(self.buf_pending[i], done)
        self._record(H_READ, done - t)
        if self.requesters is not None:
            self.requesters.chain_request_done(done)
        return 0

    cdef int _write(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil:
        cdef int32_t n = <int32_t>(lpn1 - lpn0 + 1), n_fl = 0, s, i
        cdef int64_t lpn, done = t + self.t_dram, room
        self.cnt[C_WRITES] += 1
        cdef int64_t* version = self.ftl.version
        if self.check:
            for lpn in range(lpn0, lpn1 + 1):
                version[lpn] += 1
        self.cnt[C_WRITE_PAGES] += n
        self.cnt[C_HOST_PAGES] += n
        if self.writers is not None:
            self.writers.chain_host_write(lpn0, lpn1)
        if self.cache_cap:
            for lpn in range(lpn0, lpn1 + 1):
                s = self.ftl.lmap[2 * lpn + 1]
                if s >= 0:
                    self.cache.mark_dirty(s)
                    self.cache.touch(s)
                    self.cnt[C_CACHE_WRITE_HITS] += 1
                else:
                    n_fl = self.cache.insert(<int32_t>lpn, 1, self.buf_lpn, n_fl)
            if n_fl:
                if self.ack_insert:
                    self._program_pages(self.buf_lpn, n_fl, t, CAUSE_FLUSH)
                    room = self.sched.destage(self.buf_end, n_fl, t)
                    if room > t:
                        add_wide(self.cnt, C_WRITE_STALL, room - t)
                    done = imax(done, room)
                else:
                    done = imax(done, self._program_pages(self.buf_lpn, n_fl, t, CAUSE_FLUSH))
        elif self.write_path is not None:
            done = imax(done, self.write_path.write(self, t, lpn0, lpn1))
        elif self.stall_on:
            done = self._stall_write(t, lpn0, lpn1)
            if done < 0:  # some page waits for its lane's erase: recorded when it is booked
                return 0
        else:
            for lpn in range(lpn0, lpn1 + 1):
                self.buf_lpn[n_fl] = <int32_t>lpn
                n_fl += 1
            if self.read_prio:  # its programs wait for the die's reads: recorded when the last is booked
                self._queue_programs(self._map_pages(self.buf_lpn, n_fl, t), t, done, 0)
                return 0
            done = imax(done, self._program_pages(self.buf_lpn, n_fl, t, CAUSE_USER))
        self._record(H_WRITE, done - t)
        if self.requesters is not None:
            self.requesters.chain_request_done(done)
        return 0

    cdef int32_t _queue_programs(self, int32_t ntx, int64_t t, int64_t done, int32_t n_held) except -1 nogil:
        """timing.read_priority: queue the program transactions tx_*[0:ntx] of a user write
        that arrived at t, on their dies; ``done``: its completion so far (ns); ``n_held``:
        its pages held by gc.write_stall.  Returns the request's slot in the scheduler."""
        cdef int32_t i, req = self.sched.write_req(t, done, ntx + n_held)
        for i in range(ntx):
            self.sched.take_write(self.tx_die[i], self.tx_chan[i], self.tx_n[i], t, self.t_prog + self.tx_extra[i],
                                  req, self.tx_off[i], self.tx_mask[i])
            self.cnt[C_USER_TXNS] += 1
        return req

    cdef int _take_writes(self) except -1 nogil:
        """Record the latencies of the write requests the scheduler completed (read priority)."""
        cdef int32_t i
        for i in range(self.sched.n_wdone):
            self._record(H_WRITE, self.sched.wdone[i])
        self.sched.n_wdone = 0
        return 0

    cdef int64_t _stall_write(self, int64_t t, int64_t lpn0, int64_t lpn1) except -2 nogil:
        """gc.write_stall, no cache: map every page now; program now the pages whose lane
        may write, and hold the others until an erase of their lane (a lane is short while
        its pool of erased superblocks is below the GC threshold with a victim in flight).
        Returns the request's completion, or -1 if a page is held."""
        cdef int32_t n = <int32_t>(lpn1 - lpn0 + 1), i, m = 0, n_hold = 0, req
        cdef int64_t ppn, done = t + self.t_dram
        for i in range(n):
            self.buf_lpn[i] = <int32_t>(lpn0 + i)
            ppn = self._user_page(self.buf_lpn[i], t)
            if self.check:
                self.ftl.ppn_version[ppn] = self.ftl.version[lpn0 + i]
            self.buf_ppn[i] = <int32_t>ppn
        self.cnt[C_PROGRAMMED] += n
        for i in range(n):                                 # after every page's GC decisions
            if self.ftl.writes_held(self.ftl.lane_of(self.buf_ppn[i])):
                self.buf_pending[n_hold] = i
                n_hold += 1
            else:
                self.buf_loc[m] = self.buf_ppn[i]
                self.buf_extra[m] = 0
                m += 1
        if self.read_prio:  # the pages that may write wait for their dies' reads, the others for an erase
            if m and self.pv_on:
                self.pv.program_extra(self.buf_loc, self.buf_extra, m)
            req = self._queue_programs(self._group(m), t, done, n_hold)
            for i in range(n_hold):
                ppn = self.buf_ppn[self.buf_pending[i]]
                self.held.hold(ppn, self.ftl.lane_of(ppn), req)
            return -1
        if m:
            if self.pv_on:
                self.pv.program_extra(self.buf_loc, self.buf_extra, m)
            for i in range(self._group(m)):
                done = imax(done, self.sched.user_op(self.tx_die[i], self.tx_chan[i], PH_PROG, self.tx_n[i], t,
                                                     self.t_prog + self.tx_extra[i], CAUSE_USER))
                self.cnt[C_USER_TXNS] += 1
        if n_hold == 0:
            return done
        req = self.held.new_req(t, done, n_hold)
        for i in range(n_hold):
            ppn = self.buf_ppn[self.buf_pending[i]]
            self.held.hold(ppn, self.ftl.lane_of(ppn), req)
        return -1

    cdef int _release(self, int32_t lane, int64_t e) except -1 nogil:
        """Book, in arrival order, the held pages of ``lane`` ready at ``e`` (one program
        each); record a request's latency when its last page is booked.  Under
        timing.read_priority the programs join their dies' queues instead."""
        cdef int32_t i = 0
        cdef int64_t end
        cdef HeldPage p
        while i < self.held.n:
            if self.held.pages[i].lane != lane:
                i += 1
                continue
            p = self.held.take(i)
            self.buf_loc[0] = <int32_t>p.ppn
            self.buf_extra[0] = 0
            if self.pv_on:
                self.pv.program_extra(self.buf_loc, self.buf_extra, 1)
            self._group(1)                                 # one page: one transaction, on its die
            if self.read_prio:                             # it waits for its die's reads (or joins, join_writes)
                self.cnt[C_USER_TXNS] += 1
                add_wide(self.cnt, C_WRITE_STALL, e - self.sched.wreq[p.req].t)  # before its request may end
                self.sched.take_write(self.tx_die[0], self.tx_chan[0], 1, e, self.t_prog + self.tx_extra[0], p.req,
                                      self.tx_off[0], self.tx_mask[0])
                continue
            end = self.sched.user_op(self.tx_die[0], self.tx_chan[0], PH_PROG, 1, e, self.t_prog + self.tx_extra[0],
                                     CAUSE_USER)
            self.cnt[C_USER_TXNS] += 1
            add_wide(self.cnt, C_WRITE_STALL, e - self.held.reqs[p.req].t)
            if self.held.page_booked(p.req, end):
                self._record(H_WRITE, self.held.reqs[p.req].done - self.held.reqs[p.req].t)
        return 0

    cdef int _erase_events(self, int64_t t, bint collect) except -1 nogil:
        """gc.free_pool = "erased": every booked erase that ends by ``t``, earliest first
        (Reclaim.erase_event).  With gc.write_stall, the erase's lane writes its held pages
        at the erase's end once its pool is back at the threshold, or when no victim of
        the lane is left in flight.  Under "user-first" the victims decided here may start
        in the idle time before ``t``, and their erases may end by ``t`` in turn.  With
        ``collect`` false (after the trace) no victim is started: on a lane that cannot get
        back to its threshold, erase-started GC would otherwise never end."""
        cdef EraseEv ev
        cdef int r
        cdef bint decided
        while True:
            decided = False
            while True:
                r = self.rc.erase_event(t, &ev, collect)
                if r < 0:
                    break
                decided = decided or r == 1
                if self.stall_on and self.held.n and not self.ftl.writes_held(ev.lane):
                    self._release(ev.lane, ev.end)
            if not decided or not (self.sched.bg_pending or self.sched.idle_pending):
                return 0
            self.rc.run_bg(t)

    cdef int64_t program_user_pages(self, int32_t* lpns, int32_t n, int64_t t) except -2 nogil:
        """Host for a write path: write lpns[0:n] through the user frontier at t."""
        return self._program_pages(lpns, n, t, CAUSE_USER)

    cdef int64_t map_user_page(self, int32_t lpn, int64_t t) except -1 nogil:
        """Host for a write path: map lpn to the next user slot now; its program is
        booked by the write path later."""
        cdef int64_t ppn = self._user_page(lpn, t)
        if self.check:
            self.ftl.ppn_version[ppn] = self.ftl.version[lpn]
        return ppn

    cdef int _run_loop(self, const int64_t* tns, const int64_t* off, const int64_t* size, const uint8_t* wr,
                       int64_t n, int32_t repeat) except -1 nogil:
        cdef int64_t duration = tns[n - 1]
        cdef int64_t period = duration + imax(1, duration // imax(1, n - 1))
        cdef int64_t ps = self.layout_page_size
        cdef int32_t ps_shift = -1                 # log2(ps) for a power of two: shifts, not divisions
        if ps & (ps - 1) == 0:
            while (<int64_t>1) << (ps_shift + 1) <= ps:
                ps_shift += 1
        cdef int64_t shift, t, lpn0, lpn1, i, j, ppn
        cdef int32_t r, c
        cdef int32_t* lmap = self.ftl.lmap
        cdef bint fingers = self.sched.gapfill
        for r in range(repeat):
            shift = r * period
            for i in range(n):
                # the mapping entries of a request PREFETCH_AHEAD ahead: their loads miss the
                # CPU cache on large footprints, and the trace says now which ones they are
                j = i + PREFETCH_AHEAD
                if j < n:
                    prefetch(&lmap[2 * div_pow2(off[j], ps_shift, ps)])
                    prefetch(&lmap[2 * div_pow2(off[j] + size[j] - 1, ps_shift, ps)])
                # a read FINGER_AHEAD requests ahead, whose mapping entry that prefetch has brought
                # in by now: the channel lines its die's transfer will search from
                j = i + FINGER_AHEAD
                if fingers and j < n and not wr[j]:
                    ppn = lmap[2 * div_pow2(off[j], ps_shift, ps)]
                    if ppn >= 0:
                        c = self.blk_comp[div_pow2(ppn, self.N_shift, self.N)]
                        self.sched.prefetch_finger(self.comp_die[c], self.comp_chan[c])
                if self.cache_cap:
                    self.cache.prefetch_victims(PREFETCH_VICTIMS, self.ftl.p2l)
                    if fingers:  # and the lines of the die the next write-back goes to
                        c = self.ftl.user_lane * self.k
                        self.sched.prefetch_finger(self.comp_die[c], self.comp_chan[c])
                t = tns[i] + shift
                if self.sched.bg_pending or self.sched.idle_pending or self.sched.uw_pending:
                    self.rc.run_bg(t)
                if self.sched.ev_min <= t:
                    self._erase_events(t, True)
                    if self.sched.uw_pending:  # held writes the erases let go (read priority)
                        self.rc.run_bg(t)
                if self.sched.n_wdone:
                    self._take_writes()
                if self.requesters is not None:
                    self.requesters.chain_arrival(t)
                self.sched.horizon = t
                self.last_arrival = t
                lpn0 = div_pow2(off[i], ps_shift, ps)
                lpn1 = div_pow2(off[i] + size[i] - 1, ps_shift, ps)
                self.cnt[C_REQUESTS] += 1
                if wr[i]:
                    self._write(t, lpn0, lpn1)
                else:
                    self._read(t, lpn0, lpn1)
        return 0

    # ================================================================ public (Python)
    def precondition(self, int64_t fill_pages, warmup_lpns):
        """Sequentially write LPN 0..fill_pages-1, then the warm-up LPNs, untimed; then
        reset every counter and clock (the device state is kept).  With PV reassembly
        the fill keeps the static assembly; the warm-up reassembles."""
        cdef int64_t lpn
        cdef cnp.ndarray w = np.ascontiguousarray(warmup_lpns, dtype=np.int64)
        cdef int64_t* wp = <int64_t*>w.data
        cdef int64_t i, nw = len(w)
        cdef bint dynamic = self.pv_on and self.pv.dynamic
        check_precondition(fill_pages, w, self.layout.logical_pages)
        self.n_filled = fill_pages
        self.rc.set_untimed(True)
        if self.em_on:
            self.em.set_untimed(True)
        if dynamic:  # the fill takes the static assembly: it stands for data written long ago
            self.pv.dynamic = False
        placer = self.placer
        if placer is not None and not self.placer.places_fill:  # the write pool starts empty at cap_min
            self.placer = None
        with nogil:
            for lpn in range(fill_pages):
                self._user_page(<int32_t>lpn, 0)
        if dynamic:
            self.pv.dynamic = True
        with nogil:
            for i in range(nw):
                self._user_page(<int32_t>wp[i], 0)
        self.rc.set_untimed(False)
        if self.em_on:
            self.em.set_untimed(False)
            self.em.reset_counters()
        self.placer = placer
        self.arrays["counters"][:] = 0
        assembly.reset_counters(self.slots)
        self.rc.clear_events()
        self.sched.reset()
        self.rc.array("block_reads")[:] = 0

    def device_state(self, mechanisms=False):
        """The device state preconditioning leaves, by layer (flashrr/snapshot): taken
        right after :meth:`precondition`, and set by :meth:`restore_device_state`.
        ``mechanisms``: with the state of the policy's mechanisms (a policy whose hooks
        act during preconditioning)."""
        return layer_states(self._state_layers(mechanisms), {"n_filled": self.n_filled})

    def restore_device_state(self, state, mechanisms=False):
        """Stand in for :meth:`precondition` on a new engine: set the state
        :meth:`device_state` returned (ValueError names a layer's field that does not fit)."""
        self.n_filled = restore_layers(self._state_layers(mechanisms), state)["n_filled"]

    def _state_layers(self, mechanisms):
        placer = self.placer if self.placer is not None and self.placer.places_fill else None
        return state_layers({"ftl": self.ftl, "reclaim": self.rc, "error_model": self.em if self.em_on else None,
                             "pv": self.pv if self.pv_on else None, "placer": placer},
                            self.slots.mechanisms if mechanisms else {})

    def run(self, time_ns, offset, size, is_write, int repeat=1):
        """Replay requests in order (may be called again with later chunks)."""
        cdef cnp.ndarray t = np.ascontiguousarray(time_ns, dtype=np.int64)
        cdef cnp.ndarray o = np.ascontiguousarray(offset, dtype=np.int64)
        cdef cnp.ndarray s = np.ascontiguousarray(size, dtype=np.int64)
        cdef cnp.ndarray w = np.ascontiguousarray(is_write, dtype=np.uint8)
        cdef int64_t n = len(t)
        if n == 0:
            return
        ps = self.layout.page_size_bytes
        check_requests(t, o, s, ps, self.layout.logical_pages, self.last_arrival)
        max_pages = int(((o + s - 1) // ps - o // ps).max()) + 1
        if max_pages > self.buf_cap:
            self._alloc_request_buffers(max_pages)
        self.layout_page_size = ps
        with nogil:
            self._run_loop(<int64_t*>t.data, <int64_t*>o.data, <int64_t*>s.data, <uint8_t*>w.data, n, repeat)

    def finish(self):
        """End of the trace: count the background work still queued, then book it (idle
        moves are dropped), so every RR and GC has an erase time."""
        cdef int32_t d
        self.cnt[C_BG_PENDING_END] = self.sched.bg_pending
        for d in range(self.n_dies):
            self.sched.iq_len[d] = 0
        self.sched.idle_pending = 0
        if self.sched.bg_pending or self.sched.uw_pending:
            with nogil:
                self.rc.run_bg(INT64_MAX >> 1)
        if self.stall_on and self.held.n:  # let the held pages go: the erases that end after the trace
            with nogil:
                self._erase_events(INT64_MAX >> 1, False)
                while self.held.n:
                    self._release(self.held.pages[0].lane, self.last_arrival)
                if self.sched.uw_pending:
                    self.rc.run_bg(INT64_MAX >> 1)
        with nogil:
            self._take_writes()

    def push_idle_move(self, lpn, dest_comp, t):
        """Queue a policy page move of ``lpn`` to component ``dest_comp`` of its lane's
        GC/RR frontier, for when its die is idle (see the reference twin)."""
        cdef int64_t src
        if not 0 <= lpn < self.layout.logical_pages or not 0 <= dest_comp < self.k:
            raise EngineError(f"idle move of LPN {lpn} to component {dest_comp}: no such page or component")
        src = self.ftl.lmap[2 * lpn]
        if src < 0:
            raise EngineError(f"idle move of LPN {lpn} to component {dest_comp}: no such page or component")
        self.sched.push_idle(self.rc.die_of(src), <int32_t>lpn, <int32_t>src, <int32_t>dest_comp, t)

    def state_view(self, t):
        L = self.layout
        f = self.ftl
        return EngineState(
            layout=L, now_ns=int(t), block_reads=self.rc.array("block_reads")[:L.n_blocks],
            rr_threshold=self.rc.array("rr_threshold")[:L.n_blocks],
            sb_valid=f.array("sb_valid")[:L.n_superblocks], sb_state=f.array("sb_state")[:L.n_superblocks],
            l2p=f.array("l2p")[:L.logical_pages], p2l=f.array("p2l")[:L.n_pages],
            page_counters=self.page_counters.view(), die_free_ns=self.sched.array("die_free")[:self.n_dies],
            queue_idle_move=lambda lpn, comp: self.push_idle_move(int(lpn), int(comp), int(t)))

    def rr_times(self):
        """The decision time (ns) of every RR so far, in the order decided (a copy)."""
        return np.asarray(self.rc.events(True, self.sched.erase_ends(KIND_RR))["time_ns"])

    def results(self):
        A = self.arrays
        c = A["counters"]
        counters = {name: int(c[i]) + (int(c[N_COUNTERS + i]) << 62) for i, name in enumerate(COUNTERS)}
        h = A["hist"]
        hist = {"read": h[:NBUCKETS].copy(), "write": h[NBUCKETS:2 * NBUCKETS].copy(),
                "io": h[2 * NBUCKETS:].copy()}
        die_free = self.sched.array("die_free")[:self.n_dies]
        end = max(int(self.last_arrival), int(die_free.max()) if self.n_dies else 0)
        return {"counters": counters, "hist": hist,
                "rr_events": self.rc.events(True, self.sched.erase_ends(KIND_RR)),
                "gc_events": self.rc.events(False, self.sched.erase_ends(KIND_GC)),
                "die_busy_ns": self.sched.array("die_busy")[:self.n_dies].copy(), "end_ns": end,
                "block_erases": self.rc.array("block_erases")[:self.layout.n_blocks].copy(),
                "mechanism_counters": assembly.counter_values(self.slots),
                "error_model": self.em.results() if self.em_on else None}

    def mechanism(self, name):
        """The mechanism switched on under ``name`` (its registry hook, e.g.
        ``"working_sets"``), or None; tests read its arrays."""
        return self.slots.mechanisms.get(name)

    def error_state(self):
        """The error model's state of the blocks (errors.pyx), or None when it is off; tests read it."""
        return self.em if self.em_on else None

    def block_mix(self, name):
        """Pages programmed per block since its erase: ``mix_user``, ``mix_rr`` or ``mix_gc``."""
        return self.rc.mix.array(name)

    def check_invariants(self):
        v = self.state_view(0)
        check_state(self.layout, v.l2p, v.p2l, v.sb_valid, v.sb_state, self.n_filled)
