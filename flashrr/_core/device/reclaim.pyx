# cython: language_level=3
"""Reclaim layer of the compiled engine: read counts and retry, greedy GC,
read reclaim, migrations, and the loop that starts background work in time
order.  Twin: ``reclaim_py.py``.  A migration changes the FTL when it is
decided; ``migration_txns.pyx`` writes its transactions and the scheduler books them."""
from libc.stdint cimport INT32_MAX, INT64_MAX, int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.math cimport NAN
from libc.string cimport memcpy, memset

import functools

import numpy as np
cimport numpy as cnp

from .common cimport *
from .sched cimport IdleMove, Txn
from .block_mix cimport BlockMix
from .event_log cimport EventLog, GC_CODE, RR_CODE
from .event_log import RR_ROUTINE
from .migration_txns cimport MAX_RANKED, MigrationTxns, die_ranks
from ..roles cimport Mechanism
from ..invariants import EngineError

from ..buffers import owned_array, restore_arrays, saved_arrays

cnp.import_array()

DEF PPM_C = 1000000
DEF MIG_PREFETCH = 32     # pages; mapping entries a migration keeps in flight ahead of its remap

cdef extern from *:
    """
    /* Greedy GC's victim among n superblocks: the index of the one in state `closed` with
       the fewest valid pages, the first of equals; -1 when none is.  The scan goes by
       blocks of 64 superblocks with no branch inside a block (a superblock in another
       state counts as UINT32_MAX: its count OR all ones), so the compiler vectorises it;
       it keeps the first block holding the least count, and then looks inside that one. */
    static inline int32_t flashrr_fewest_valid(const int8_t* state, const int32_t* valid, int32_t n,
                                               int8_t closed) {
        uint32_t lo = UINT32_MAX, m, key;
        int32_t at = -1, b, r, end;
        for (b = 0; b < n; b += 64) {
            end = b + 64 < n ? b + 64 : n;
            m = UINT32_MAX;
            for (r = b; r < end; r++) {
                key = (uint32_t)valid[r] | (uint32_t)-(int32_t)(state[r] != closed);
                m = key < m ? key : m;
            }
            if (m < lo) {
                lo = m;
                at = b;
            }
        }
        if (at < 0)
            return -1;
        for (r = at; ; r++)
            if (state[r] == closed && (uint32_t)valid[r] == lo)
                return r;
    }
    """
    int32_t fewest_valid "flashrr_fewest_valid"(const int8_t* state, const int32_t* valid, int32_t n,
                                                int8_t closed) noexcept nogil


cdef class Reclaim:
    def __init__(self, layout, Ftl ftl, Scheduler sched, counters, hooks, state_view, check_fn):
        """``state_view(t)`` builds the EngineState hooks see; ``check_fn()`` checks the
        FTL invariants (called after every migration in invariant mode, else None)."""
        cdef cnp.ndarray a
        L = layout
        self.ftl = ftl
        self.sched = sched
        self.k = L.k
        self.N = L.pages_per_block
        self.S = L.sb_per_lane
        self.n_dies = L.n_dies
        self.t_read = L.t_read_ns
        self.t_prog = L.t_program_ns
        self.t_erase = L.t_erase_ns
        self.t_retry = L.t_retry_ns
        self.rr_thr0 = L.rr_threshold_reads
        self.sched_mode = L.scheduler
        self.gc_hard = L.gc_hard_threshold_sb
        self.n_steps = len(L.retry_steps_ppm)
        self._keep = keep = {"counters": counters}
        a = counters; self.cnt = <int64_t*>a.data
        a = keep["comp_die"] = np.ascontiguousarray(L.comp_die, dtype=np.int32); self.comp_die = <int32_t*>a.data
        a = keep["comp_chan"] = np.ascontiguousarray(L.comp_chan, dtype=np.int32); self.comp_chan = <int32_t*>a.data

        arr = functools.partial(owned_array, keep)

        a = arr("retry_steps", self.n_steps, np.int64)
        a[:self.n_steps] = L.retry_steps_ppm
        self.retry_steps = <int64_t*>a.data
        a = arr("retry_extra", len(L.retry_extra_ns), np.int64)  # n_steps + 1, or the error model's ladder + 1
        a[:] = L.retry_extra_ns
        self.retry_extra = <int64_t*>a.data
        a = arr("block_reads", L.n_blocks, np.int32); self.block_reads = <int32_t*>a.data
        a = arr("block_erases", L.n_blocks, np.int32); self.block_erases = <int32_t*>a.data
        a = arr("rr_threshold", L.n_blocks, np.int32, self.rr_thr0); self.rr_threshold = <int32_t*>a.data
        a = arr("rr_touched", L.n_superblocks, np.uint8); self.rr_touched = <uint8_t*>a.data
        self.erasers = None
        self.pv = None
        self.mix = BlockMix(L.n_blocks)
        a = self.mix.array("mix_user"); self.mix_user = <int32_t*>a.data
        a = self.mix.array("mix_rr"); self.mix_rr = <int32_t*>a.data
        a = self.mix.array("mix_gc"); self.mix_gc = <int32_t*>a.data
        self.mig = None
        self.em = None
        self.em_on = False
        self.em_retry = False
        self.cur_margin = NAN
        self.cur_routine = RR_CODE
        a = arr("cur_reads", self.k, np.int32); self.cur_reads = <int32_t*>a.data
        kn = self.k * self.N
        a = arr("m_comp", kn, np.int32); self.m_comp = <int32_t*>a.data
        a = arr("m_off", kn, np.int32); self.m_off = <int32_t*>a.data
        a = arr("m_lpn", kn, np.int32); self.m_lpn = <int32_t*>a.data
        a = arr("m_dest", kn, np.int32); self.m_dest = <int32_t*>a.data
        a = arr("m_newppn", kn, np.int64); self.m_newppn = <int64_t*>a.data
        a = arr("m_order", kn if L.gc_aligned_moves and L.k > 1 else 0, np.int32); self.m_order = <int32_t*>a.data
        a = arr("m_rows", 2 * self.N if L.gc_aligned_moves and L.k > 1 else 0, np.int32); self.m_rows = <int32_t*>a.data
        a = arr("m_rowstamp", MAX_RANKED * self.N, np.int32); self.m_rowstamp = <int32_t*>a.data
        self.rowstamp_serial = 0
        a = arr("m_rowmask", MAX_RANKED * self.N, np.uint64); self.m_rowmask = <uint64_t*>a.data
        a = arr("m_rowsb", MAX_RANKED, np.int64); self.m_rowsb = <int64_t*>a.data
        self.m_rownsb = 0
        self.tx = MigrationTxns(L, ftl, keep)
        self.h_on_rr = hooks.on_read_reclaim if hooks is not None else None
        self.h_place = hooks.place_migration if hooks is not None else None
        self.h_choose = hooks.choose_gc_victim if hooks is not None else None
        kinds = hooks.place_kinds if hooks is not None else ()
        self.place_rr = self.h_place is not None and "rr" in kinds
        self.place_gc = self.h_place is not None and "gc" in kinds
        self.aligned = L.gc_aligned_moves and L.k > 1
        self.state_view = state_view
        self.check_fn = check_fn
        self.rr_log = EventLog(self.k)
        self.gc_log = EventLog(self.k)
        self.in_mig = False
        self.untimed = False

    def set_error_state(self, ErrorState em):
        """Switch the error model on: its state of the blocks (errors.pyx)."""
        self.em = em
        self.em_on = True
        self.em_retry = em.retry_on

    def array(self, name):
        """A NumPy view of one of this layer's arrays (block_reads, block_erases, rr_threshold)."""
        return self._keep[name]

    def state(self):
        """P/E counts, RR thresholds and block mixes, for a snapshot (the read counts are 0 then)."""
        out = saved_arrays(self._keep, ("block_erases", "rr_threshold", "rr_touched", "m_rowstamp"))
        out["rowstamp_serial"] = self.rowstamp_serial
        out.update(self.mix.state())
        return out

    def restore(self, state):
        """Set the state :meth:`state` returned (same layout)."""
        restore_arrays(self._keep, state, ("block_erases", "rr_threshold", "rr_touched", "m_rowstamp"), "reclaim")
        self.rowstamp_serial = int(state["rowstamp_serial"])
        self.mix.restore(state)

    def events(self, bint rr, erase_end):
        """The RR (``rr``) or GC records as columns (``EventLog.columns``), with each
        one's last erase end (ns)."""
        return (self.rr_log if rr else self.gc_log).columns(erase_end)

    def set_untimed(self, bint on):
        self.untimed = on

    def clear_events(self):
        self.rr_log.clear()
        self.gc_log.clear()

    cdef int64_t retries(self, int64_t blk) noexcept nogil:
        cdef int64_t r = <int64_t>self.block_reads[blk] * PPM_C
        cdef int64_t thr = self.rr_threshold[blk]
        cdef int64_t n = 0
        cdef int32_t i
        if self.em_retry:  # the steps of its state as last looked up; an uncorrectable read took them all
            i = self.em.steps(blk)
            return i if i <= self.em.S else self.em.S
        for i in range(self.n_steps):
            if r >= self.retry_steps[i] * thr:
                n += 1
        return n

    cdef int32_t die_of(self, int64_t ppn) noexcept nogil:
        cdef int64_t blk = self.ftl.div_N(ppn)
        cdef int64_t sbq = self.ftl.div_k(blk)
        return self.comp_die[(sbq // self.S) * self.k + (blk - sbq * self.k)]

    # ================================================================ GC
    cdef int run_gc(self, int32_t lane, int64_t t) except -1 nogil:
        cdef int32_t victim, n = 0
        cdef int32_t full = self.k * self.N
        if self.in_mig:
            return 0
        while (self.ftl.gc_due[lane] > 0 and n < self.S and self.ftl.below_gc(lane)
               and self.ftl.unerased[lane] < self.ftl.max_in_flight):
            victim = self.gc_victim(lane, t)
            if victim < 0 or self.ftl.sb_valid[victim] >= full:
                break
            self.ftl.gc_due[lane] = self.ftl.gc_due[lane] - 1
            self.migrate(victim, False, t)
            n += 1
        self.ftl.gc_due[lane] = 0
        return 0

    cdef int erase_event(self, int64_t t, EraseEv* ev, bint collect) except -2 nogil:
        """gc.free_pool = "erased": take the booked erase that ends first, if it ends by
        ``t`` (-1: none).  Its superblock joins its lane's pool; if ``collect`` and the lane
        is still below the GC threshold, with fewer than max_victims_in_flight victims whose
        erase has not ended, one more victim is decided at that erase's end, then the
        victims its own allocations owe (returns 1; else 0).  The engine loops over these
        (engine.pyx, _erase_events)."""
        cdef int32_t victim, full = self.k * self.N
        if not self.sched.pop_erase_ev(t, ev):
            return -1
        if self.ftl.sb_tag[ev.victim] == ev.tag:
            self.ftl.sb_tag[ev.victim] = 0
            self.ftl.unerased[ev.lane] = self.ftl.unerased[ev.lane] - 1
        if not collect or self.in_mig or not self.ftl.below_gc(ev.lane) or self.ftl.unerased[ev.lane] >= self.ftl.max_in_flight:
            return 0
        victim = self.gc_victim(ev.lane, ev.end)
        if victim < 0 or self.ftl.sb_valid[victim] >= full:
            return 0
        self.cnt[C_GC_AT_ERASE] += 1
        self.migrate(victim, False, ev.end)
        self.run_gc(ev.lane, ev.end)
        return 1

    cdef int32_t gc_victim(self, int32_t lane, int64_t t) except -2 nogil:
        cdef int32_t S = self.S, r
        if self.h_choose is not None:
            with gil:
                states = self.ftl.array("sb_state")[lane * S:(lane + 1) * S]
                cand = np.flatnonzero(states == S_CLOSED) + lane * S
                if cand.size == 0:
                    return -1
                v = int(self.h_choose(self.state_view(t), lane, cand, self.ftl.array("sb_valid")[cand].copy()))
                if v not in set(cand.tolist()):
                    raise EngineError(f"policy choose_gc_victim returned {v}, not a closed superblock of lane {lane}")
                return v
        r = fewest_valid(&self.ftl.sb_state[lane * S], &self.ftl.sb_valid[lane * S], S, S_CLOSED)
        return lane * S + r if r >= 0 else -1

    # ================================================================ migration
    cdef int call_place(self, bint is_rr, int32_t victim, int32_t n, int64_t t) except -1 with gil:
        A = self._keep
        comps = A["m_comp"][:n].copy()
        dest = self.h_place(self.state_view(t), "rr" if is_rr else "gc", victim, comps,
                            A["m_off"][:n].copy(), A["m_lpn"][:n].copy())
        dest = np.asarray(dest)
        if dest.shape != comps.shape or (dest.size and (dest.min() < 0 or dest.max() >= self.k)):
            raise EngineError(f"policy place_migration must return {n} component indices in "
                              f"[0, {self.k}), got shape {dest.shape}")
        A["m_dest"][:n] = dest
        return 0

    cdef int migrate(self, int32_t victim, bint is_rr, int64_t t) except -1 nogil:
        cdef int32_t k = self.k, N = self.N, S = self.S
        cdef int32_t lane = victim // S
        cdef int32_t base = lane * k
        cdef int32_t n = 0, nt = 0, off, c, lpn, q, qq
        cdef int64_t ppn
        cdef int64_t mu = 0, mr = 0, mg = 0, b
        cdef int32_t n_ranks
        cdef bint plain, placed, direct, one_die, runs
        cdef int32_t drank[64]
        cdef int32_t d = self.sched.group_dies[self.sched.group_first[lane]], n_reads = 0, n_progs = 0
        cdef int64_t read_ns = 0
        cdef int32_t cdie[64]
        cdef int64_t cretry[64]
        self.in_mig = True
        if self.mig is not None:
            self.mig.victim_chosen(victim)
        self.ftl.detach_frontier(victim)
        self.ftl.sb_state[victim] = S_VICTIM
        if self.em_on:
            for c in range(k):
                self.em.touch(<int64_t>victim * k + c, t)
        memcpy(self.cur_reads, &self.block_reads[victim * k], k * sizeof(int32_t))
        self.cur_margin = NAN
        if self.em_on and is_rr:
            with gil:
                m = self.em.margin(range(victim * k, (victim + 1) * k), t, self._keep["cur_reads"])
                self.cur_margin = NAN if m is None else m
        for off in range(N):
            for c in range(k):
                lpn = self.ftl.p2l[(<int64_t>victim * k + c) * N + off]
                if lpn >= 0:
                    self.m_comp[n] = c
                    self.m_off[n] = off
                    self.m_lpn[n] = lpn
                    self.m_dest[n] = c
                    n += 1
        placed = n and ((is_rr and self.place_rr) or (not is_rr and self.place_gc))
        if placed:
            self.call_place(is_rr, victim, n, t)
        # reads: one transaction per (source row, die); a component's die and retry steps are
        # the same on every row, so they are looked up once
        for c in range(k):
            cdie[c] = self.comp_die[base + c]
            cretry[c] = self.retries(<int64_t>victim * k + c)
        n_ranks = die_ranks(cdie, k, drank)
        plain = self.mig is None or not self.mig.places_migration(is_rr)
        # A one-die migration is booked at once and in order when nothing is queued on its die
        # (schedule()'s shortcut; "fcfs" never queues; "user-first" only when the lane's pool
        # is short once the victim is free, known at the end): its reads, programs and erase
        # then run back to back, so only their counts and total times matter, and no
        # transaction is written down.  Under "user-first" one that is queued after all goes
        # as runs of transactions (MigrationTxns.read_runs, prog_runs).  timing.join_writes
        # (join_reads) needs each program's (read's) offset when it is booked, and with
        # gc.copyback off every transaction moves data over the channel: the queue is then
        # taken every time.
        one_die = (plain and not placed and self.pv is None and not self.untimed
                   and self.sched.group_len[lane] == 1 and not self.sched.joins_on
                   and self.tx.copyback)
        runs = one_die and self.sched_mode == SCHED_USER_FIRST
        direct = one_die and (runs or self.sched.q_len[d] == 0)
        # writes in source order, then one program per (dest superblock, offset, die); the
        # reads are written down after the writes are placed, since a page the frontier
        # spills to another component (Ftl.gc_slot_full) may then cross to another die
        if not plain:
            self.mig.plan_migration(victim, is_rr, self.m_lpn, n)
        else:
            n_progs = self._move_plain(victim, is_rr, n, placed, direct, runs, t)
            if n_progs < 0:                                # too many destinations to count
                direct = runs = False
        for qq in range(0 if plain else n):
            # the remap below loads each page's mapping entry, a DRAM miss on large
            # footprints: keep MIG_PREFETCH of them in flight (all n at once overflow
            # the core's miss buffers and are dropped)
            if qq + MIG_PREFETCH < n:
                q = self.mig.migration_order(qq + MIG_PREFETCH)
                prefetch(&self.ftl.lmap[2 * self.m_lpn[q]])
            q = self.mig.migration_order(qq)               # not plain: the migration placer places every page
            ppn = self.mig.migration_page(lane, q, self.m_lpn[q], self.m_dest[q])
            if ppn < 0:
                ppn = self.ftl.gc_slot(lane, self.m_dest[q])
                self.m_dest[q] = self.ftl.comp_of(ppn)
            if is_rr:
                self.mix_rr[self.ftl.div_N(ppn)] += 1
            else:
                self.mix_gc[self.ftl.div_N(ppn)] += 1
            if self.em_on:
                self.em.programmed(self.ftl.div_N(ppn), t)
            if self.ftl.check:
                self.ftl.ppn_version[ppn] = self.ftl.ppn_version[self.ftl.lmap[2 * self.m_lpn[q]]]
            self.ftl.remap(self.m_lpn[q], ppn)
            self.m_newppn[q] = ppn
        if not direct:
            nt = self.tx.reads(victim, n, nt, base, cdie, cretry, drank)
            nt = self.tx.progs_erases(victim, n, nt, base, drank, n_ranks, self.pv)
        self.cnt[C_PROGRAMMED] += n
        for c in range(k):
            b = <int64_t>victim * k + c
            mu += self.mix_user[b]
            mr += self.mix_rr[b]
            mg += self.mix_gc[b]
            self.mix_user[b] = 0
            self.mix_rr[b] = 0
            self.mix_gc[b] = 0
            self.block_reads[victim * k + c] = 0
            self.block_erases[b] += 1
            self.rr_threshold[victim * k + c] = <int32_t>self.rr_thr0
            if self.em_on:
                self.em.erased(b)
            if self.erasers is not None:
                self.erasers.chain_block_erased(b)
        if self.mig is not None:
            self.mig.migration_moved(self.m_lpn, n)
        if is_rr or (self.rr_touched[victim] and n == 0):  # RR erased it, or RR moves emptied it
            self.cnt[C_ERASES_RR] += k
        else:
            self.cnt[C_ERASES_GC] += k
        if is_rr and n and not self.rr_touched[victim]:
            self.cnt[C_RR_EPISODES] += 1
        self.rr_touched[victim] = 0
        self.ftl.sb_state[victim] = S_FREE
        self.ftl.free_push(lane, victim)
        self.cnt[C_ERASES] += k
        if is_rr:
            self.cnt[C_RR_COUNT] += 1
            self.cnt[C_RR_MOVES] += n
            self.cnt[C_RR_VIC_USER] += mu
            self.cnt[C_RR_VIC_RR] += mr
            self.cnt[C_RR_VIC_GC] += mg
            if mr:
                self.cnt[C_RR_SECOND] += 1
        else:
            self.cnt[C_GC_COUNT] += 1
            self.cnt[C_GC_MOVES] += n
        if self.check_fn is not None:
            with gil:
                self.check_fn()
        if is_rr:
            self.rr_log.add(t, victim, lane, self.cur_reads, n, self.cur_routine, mu, mr, mg, self.cur_margin)
        else:
            self.gc_log.add(t, victim, lane, self.cur_reads, n, GC_CODE, mu, mr, mg, self.cur_margin)
        self.in_mig = False
        if self.mig is not None:
            self.mig.migration_done(lane)
        if runs and (self.sched.q_len[d] or self.ftl.pool_size(lane) >= self.gc_hard):
            # queued after all, as runs (reads, programs, then the erase)
            nt = self.tx.read_runs(n, d, self.comp_chan[base], cretry)
            nt = self.tx.prog_runs(nt, d, self.comp_chan[base], self.m_rownsb, self.rowstamp_serial)
            self.tx.emit(nt, PH_ERASE, d, 0, 0, self.t_erase)
            self.schedule(is_rr, victim, lane, t, nt + 1, n)
        elif direct:
            read_ns = self.tx.read_time(n, cretry, &n_reads)
            self._book_one_die(is_rr, victim, lane, t, d, n_reads, read_ns, n_progs)
        elif not self.untimed:
            self.schedule(is_rr, victim, lane, t, nt, n)
        return 0

    cdef int _book_one_die(self, bint is_rr, int32_t victim, int32_t lane, int64_t t, int32_t die,
                           int32_t n_reads, int64_t read_ns, int32_t n_progs) except -1 nogil:
        """schedule() of a one-die migration under "gc-first" with nothing queued on the die, or
        under "fcfs": its n_reads reads (read_ns in all), then n_progs programs, then the erase,
        each phase after the one before.  None moves data over the channel, so each operation
        after the first starts where the one before it ended, and one op() per phase books
        what one per transaction would."""
        cdef int32_t job = self._open_job(is_rr, victim, lane, t)
        cdef int32_t cause = CAUSE_RR if is_rr else CAUSE_GC
        cdef int64_t read_end = t, prog_end = t
        if n_reads:
            read_end = self.sched.op(die, 0, PH_READ, 0, t, read_ns, cause)
        if n_progs:
            prog_end = self.sched.op(die, 0, PH_PROG, 0, read_end, <int64_t>n_progs * self.t_prog, cause)
        self.sched.set_erase_end(job, self.sched.op(die, 0, PH_ERASE, 0, imax(read_end, prog_end), self.t_erase,
                                                    cause))
        return 0

    cdef int32_t _move_plain(self, int32_t victim, bint is_rr, int32_t n, bint fixed, bint rows, bint masks,
                            int64_t t) except -2 nogil:
        """Write migrated pages 0..n-1 to the GC/RR frontier, each to its m_dest component, in
        source order, and remap them (m_newppn); for migrations whose pages neither budget
        streams nor a write pool place.  Every page's place is known: the victim's.  With
        gc.aligned_moves the frontier keeps victim rows in its rows: an RR's in source order,
        each in one frontier row (Ftl.gc_row; ``fixed``: a policy chose the m_dest columns,
        which then stay), a GC's in the order and columns Ftl.gc_plan gives.  With
        ``rows``, returns how many distinct (destination superblock, offset) the pages went
        to (-1 past MAX_RANKED superblocks): a one-die migration's programs.  With ``masks``
        too, each row's components go to m_rowmask and the superblocks to m_rowsb, for
        MigrationTxns.prog_runs."""
        cdef int32_t lane = victim // self.S, q, qq, j, N = self.N, n_rows = 0, nsb = 0, rank = 0, serial = 0
        cdef bint planned
        cdef int64_t ppn, old, b, sb, last_sb = -1, slot, vbase = <int64_t>victim * self.k
        cdef int64_t* sbs = self.m_rowsb
        cdef int32_t* mix = self.mix_rr if is_rr else self.mix_gc
        cdef int32_t* stamp = self.m_rowstamp
        cdef uint64_t* rowmask = self.m_rowmask
        if rows:
            if self.rowstamp_serial == INT32_MAX:
                memset(stamp, 0, sizeof(int32_t) * MAX_RANKED * N)
                self.rowstamp_serial = 0
            self.rowstamp_serial += 1
            serial = self.rowstamp_serial
        planned = self.aligned and not is_rr and not fixed
        if planned:                                        # GC: the frontier's order and columns (Ftl.gc_plan)
            self.ftl.gc_plan(lane, self.m_off, self.m_dest, self.m_order, n, self.m_rows)
        for qq in range(n):
            if qq + MIG_PREFETCH < n:                      # the mapping entry each store will write
                prefetch(&self.ftl.lmap[2 * self.m_lpn[self.m_order[qq + MIG_PREFETCH] if planned
                                                       else qq + MIG_PREFETCH]])
            q = self.m_order[qq] if planned else qq
            if self.aligned and is_rr and (q == 0 or self.m_off[q] != self.m_off[q - 1]):
                j = 1                                      # RR: each victim row in one frontier row (Ftl.gc_row)
                while q + j < n and self.m_off[q + j] == self.m_off[q]:
                    j += 1
                self.ftl.gc_row(lane, &self.m_dest[q], j, fixed)
            ppn = self.ftl.gc_slot(lane, self.m_dest[q])
            b = self.ftl.div_N(ppn)
            self.m_dest[q] = self.ftl.comp_of_block(b)  # its own, unless spilled
            mix[b] += 1
            if self.em_on:
                self.em.programmed(b, t)
            old = (vbase + self.m_comp[q]) * N + self.m_off[q]
            if self.ftl.check:
                self.ftl.ppn_version[ppn] = self.ftl.ppn_version[old]
            self.ftl.move_mapped(self.m_lpn[q], old, ppn)
            self.m_newppn[q] = ppn
            if rows and n_rows >= 0:
                sb = self.ftl.div_k(b)
                if sb != last_sb:                          # its index among the superblocks met so far
                    last_sb = sb
                    rank = 0
                    while rank < nsb and sbs[rank] != sb:
                        rank += 1
                    if rank == nsb:
                        if nsb == MAX_RANKED:
                            n_rows = -1
                            continue
                        sbs[nsb] = sb
                        nsb += 1
                slot = <int64_t>rank * N + (ppn - b * N)
                if stamp[slot] != serial:
                    stamp[slot] = serial
                    n_rows += 1
                    if masks:
                        rowmask[slot] = (<uint64_t>1) << self.m_dest[q]
                elif masks:
                    rowmask[slot] |= (<uint64_t>1) << self.m_dest[q]
        self.m_rownsb = nsb
        self.ftl.sb_valid[victim] = self.ftl.sb_valid[victim] - n
        return n_rows

    cdef int32_t _open_job(self, bint is_rr, int32_t victim, int32_t lane, int64_t t) except -1 nogil:
        """A new scheduler job for the migration of victim decided at t; returns its id."""
        cdef int32_t job = self.sched.new_job(KIND_RR if is_rr else KIND_GC, lane, victim, t)
        if self.sched.ev_on:  # the victim is on the free list, but not in the pool until its erase ends
            self.ftl.sb_tag[victim] = self.sched.erase_tag(job)
            self.ftl.unerased[lane] = self.ftl.unerased[lane] + 1
        return job

    cdef int schedule(self, bint is_rr, int32_t victim, int32_t lane, int64_t t, int32_t n_tx,
                      int32_t n_pages) except -1 nogil:
        """Hand the migration's transactions (self.tx.x_*[0:n_tx]) to the scheduler: booked now ("fcfs";
        urgent on one idle die), queued and forced (urgent), or queued ("user-first").  Entry
        i stands for x_count[i] transactions; more than one (a run of a one-die migration) have
        no channel transfer and follow each other, so booked now they take one op()."""
        cdef int32_t job = self._open_job(is_rr, victim, lane, t), i, q, d, p
        cdef int32_t cause = CAUSE_RR if is_rr else CAUSE_GC
        cdef int64_t end, e, ready
        cdef int64_t phase_end[3]
        cdef bint urgent
        if self.sched_mode == SCHED_FCFS:  # book everything now, each at t, in creation order
            end = t
            for i in range(n_tx):
                e = self.sched.op(self.tx.x_die[i], self.tx.x_chan[i], self.tx.x_phase[i], self.tx.x_xfer[i],
                                  t, self.tx.x_dur[i] * self.tx.x_count[i], cause)
                if self.tx.x_phase[i] == PH_ERASE:
                    end = imax(end, e)
            self.sched.set_erase_end(job, end)
            return 0
        urgent = self.sched_mode != SCHED_USER_FIRST or self.ftl.pool_size(lane) < self.gc_hard
        d = self.sched.group_dies[self.sched.group_first[lane]]
        if urgent and self.sched.group_len[lane] == 1 and self.sched.q_len[d] == 0 and not self.sched.joins_on:
            # one die with nothing queued: booking in order with the phase barriers is exactly what
            # queueing and forcing would do, without the queue (the common gc-first case)
            phase_end[0] = t
            phase_end[1] = t
            phase_end[2] = t
            for i in range(n_tx):
                p = self.tx.x_phase[i]
                if p == PH_READ:
                    ready = t
                elif p == PH_PROG:
                    ready = phase_end[PH_READ]
                else:
                    ready = imax(phase_end[PH_READ], phase_end[PH_PROG])
                e = self.sched.op(d, self.tx.x_chan[i], p, self.tx.x_xfer[i], ready,
                                  self.tx.x_dur[i] * self.tx.x_count[i], cause)
                phase_end[p] = imax(phase_end[p], e)
            self.sched.set_erase_end(job, phase_end[PH_ERASE])
            return 0
        for i in range(n_tx):
            self.sched.queue(job, self.tx.x_phase[i], self.tx.x_die[i], self.tx.x_chan[i], self.tx.x_xfer[i],
                             self.tx.x_dur[i], self.tx.x_dsb[i], self.tx.x_off[i], self.tx.x_cmask[i],
                             self.tx.x_count[i])
        if not urgent:
            # reads of moved pages go to the old place until they are programmed
            for q in range(n_pages):
                self.sched.set_src(self.m_newppn[q],
                                   (<int64_t>victim * self.k + self.m_comp[q]) * self.N + self.m_off[q])
            return 0
        self.sched.force(job)  # "gc-first", or urgent: booked at once
        return 0

    cdef int read_reclaim(self, int32_t sb, int64_t t) except -1 nogil:
        cdef int32_t k = self.k, c
        cdef bint due = False
        if self.ftl.sb_state[sb] == S_FREE or self.ftl.sb_state[sb] == S_VICTIM:
            return 0
        for c in range(k):
            if self.block_reads[sb * k + c] >= self.rr_threshold[sb * k + c]:
                due = True
        if not due:
            return 0
        self.cur_routine = RR_CODE
        if self.h_on_rr is not None:
            with gil:
                self.cur_routine = self.rr_log.code(str(self.h_on_rr(self.state_view(t), sb) or RR_ROUTINE))
        self.migrate(sb, True, t)
        self.run_gc(sb // self.S, t)
        return 0

    # ================================================================ background loop
    cdef int run_bg(self, int64_t until) except -1 nogil:
        """Start, in time order, the queued work (user programs under timing.read_priority, which
        go before a die's background transactions; then idle moves on ties, then lower dies)
        that can start before ``until``.  The scheduler keeps each
        die's start from the last look (hs): it stays a lower bound, since a die's clock only
        moves on, until the die's queues change or a job finishes a phase, which mark it
        stale.  A tournament tree over the dies keeps the least (start, kind, die); only the
        stale dies are looked at again and replayed up the tree (a job's phase end marks
        them all).  The earliest bound is looked at again before it is taken."""
        cdef int32_t d, i, best, best_kind
        cdef int64_t s, best_s
        cdef Txn* head
        # every start is at or after the last scan's earliest, while no queue has changed
        if until <= self.sched.bg_next:
            return 0
        while True:
            if self.sched.hs_all_stale:
                for d in range(self.n_dies):
                    self.sched.hs[d] = self.sched.next_start(d)
                    self.sched.hs_stale[d] = 0
                self.sched.n_hs_stale = 0
                self.sched.hs_all_stale = False
                self.sched.hs_rebuild()
            elif self.sched.n_hs_stale:
                for i in range(self.sched.n_hs_stale):
                    d = self.sched.hs_stale_dies[i]
                    self.sched.hs[d] = self.sched.next_start(d)
                    self.sched.hs_stale[d] = 0
                    self.sched.hs_update(d)
                self.sched.n_hs_stale = 0
            best = self.sched.hs_tree[1]
            best_s = self.sched.hs[best]
            best_kind = self.sched.hs_kind[best]
            if best_s == INT64_MAX or best_s >= until:
                self.sched.bg_next = best_s
                return 0
            s = self.sched.next_start(best)                                 # the bound may have moved on
            if s != best_s:
                self.sched.hs[best] = s
                self.sched.hs_update(best)
                continue
            if best_kind == 0 and self.sched.uq_len[best]:                 # a user program (read priority)
                self.sched.book_write(best)
            elif best_kind == 0:
                head = &self.sched.q[best][self.sched.q_head[best]]
                if head.count > 1 and until - best_s > head.dur:  # a run, of which more than one fits:
                    self.sched.book_head(best, best_s, imin(until, self.sched.hs_others(best)))  # before the others
                else:
                    self.sched.book_head(best, best_s, until)
            else:
                self.idle_move(best, best_s)

    cdef int idle_move(self, int32_t die, int64_t start) except -1 nogil:
        cdef IdleMove m = self.sched.pop_idle(die)
        if self.ftl.lmap[2 * m.lpn] != m.src:
            self.cnt[C_IDLE_DROPPED] += 1
            return 0
        self.cnt[C_IDLE_MOVES] += 1
        self.move_page(die, m.lpn, m.src, m.dest, start, CAUSE_MOVE)
        return 0

    cdef int move_page(self, int32_t die, int32_t lpn, int32_t src, int32_t dest, int64_t start,
                       int32_t cause) except -1 nogil:
        """Move ``lpn`` from ``src`` (on ``die``) to component ``dest`` of its lane's GC/RR
        frontier (or where the migration placer puts it): read from ``start``,
        then program; the source superblock has had an RR move."""
        cdef int32_t k = self.k, N = self.N, lane, ddie, cross
        cdef int64_t ppn, extra, r_end
        lane = self.ftl.lane_of(src)
        if not self.rr_touched[src // N // k]:
            self.rr_touched[src // N // k] = 1
            self.cnt[C_RR_EPISODES] += 1
        self.in_mig = True
        ppn = -1 if self.mig is None else self.mig.move_page_slot(lane, lpn, src // N)
        if ppn < 0:
            ppn = self.ftl.gc_slot(lane, dest)
            dest = self.ftl.comp_of(ppn)
        self.in_mig = False
        if self.ftl.check:
            self.ftl.ppn_version[ppn] = self.ftl.ppn_version[src]
        self.ftl.remap(lpn, ppn)
        self.mix_rr[self.ftl.div_N(ppn)] += 1
        if self.em_on:
            self.em.programmed(self.ftl.div_N(ppn), start)
        self.cnt[C_PROGRAMMED] += 1
        ddie = self.die_of(ppn)
        cross = 1 if ddie != die or not self.tx.copyback else 0
        extra = self.retry_extra[self.retries(src // N)]
        r_end = self.sched.op(die, self.comp_chan[lane * k + (src // N) % k], PH_READ, cross, start,
                      self.t_read + extra, cause)
        self.sched.op(ddie, self.comp_chan[lane * k + dest], PH_PROG, cross, r_end,
                      self.t_prog if self.pv is None else self.pv.page_ns(ppn), cause)
        self.run_gc(lane, start)
        return 0
