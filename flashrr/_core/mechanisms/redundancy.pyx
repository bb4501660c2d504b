# cython: language_level=3
"""Die-level redundancy (compiled; twin ``redundancy_py.py``): the two
baselines of the HotR paper.  Both need no data cache and static placement
(placement.pxd); the extra dies come from the policy's device config.

**Rails** (``RED_RAILS``): dies ``0..n_data-1`` are half A, the rest half B;
LPN ``l`` has a copy on die ``l mod n_data`` of each half.  Period
``p = t // period``: half A takes the writes in even periods, half B in odd
ones; the other half serves the reads.

* A host write in period ``p`` programs the write half's copy; the request
  completes when that program does.  The LPN is stamped with ``p`` and queued
  (once per period) for the other half.
* A read of an LPN written in the current period is served by the write buffer
  (``t_dram``); otherwise it reads the read half's copy.
* At the first request of a new period, the previous period's LPNs are
  programmed on the new write half (the old read half), from that request's
  arrival (``rails`` flush).
* Half A is the FTL's (mapped when written, GC'd as usual); half B is timing
  only: its programs and reads are booked on its dies, but it has no mapping
  and no GC.  A write in a B-period maps the page on A at once and books its A
  program at the flush.

**TTFlash** (``RED_TTFLASH``): ``5 G`` dies in ``G`` groups of 5; stripe
``s = l // 4`` lives on group ``s mod G`` with its parity at position
``(s // G) mod 5`` and its 4 data pages after it (placement.pxd).

* A read whose die is blocked (a program ending after the arrival or one
  queued; the HotR conflict test) is rebuilt: the 3 other data pages and the
  parity page are read on their dies (each booked normally, so they may wait),
  and the page is done at the latest of the 4.
* A write of ``w`` pages of one stripe: ``w = 4`` programs 4 data pages and the
  parity; ``w = 1`` first reads the old data page and the old parity
  (read-modify-write); ``w = 2, 3`` first reads the ``4 - w`` untouched data
  pages (reconstruct-write); the programs start when those reads end.  Parity
  pages are timing only (no mapping, no GC).

**Optimal** (``RED_OPTIMAL``, HotR Fig. 1(b)): a read page whose die is blocked
by a program is read on that die's own read timeline (``rd_free``, booked only
by such reads), as if the program were suspended for free: read + transfer from
``max(t, rd_free)``.  Unblocked pages and writes are as in Baseline.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memset

import numpy as np
cimport numpy as cnp

from ..device.common cimport *
from ..device.ftl cimport Ftl
from ..options.static_die cimport PLACE_MOD, PLACE_RAID5, StaticDie, keep_read, ppn_die, program_blocked, raid5_data_die, raid5_parity_die
from ..device.sched cimport Scheduler
from ..roles cimport Host

from ..buffers import owned_array
from ..layout import die_channels

cnp.import_array()


cdef class Redundancy:
    def __init__(self, ctx, spec):
        """``spec``: (mode, period_ns): mode 1 Rails, 2 TTFlash, 0 Optimal."""
        cdef Scheduler sched = ctx.sched
        cdef Ftl ftl = ctx.ftl
        layout, counters, comp_die = ctx.layout, ctx.counters, ctx.comp_die
        cdef cnp.ndarray a
        L = layout
        self.sched, self.ftl = sched, ftl
        mode, period = spec
        self.mode, self.period = int(mode), int(period)
        self.n_data = L.n_dies // 2
        self.n_groups = L.n_dies // 5
        self.k, self.N, self.S = L.k, L.pages_per_block, L.sb_per_lane
        self.k_shift = self.k.bit_length() - 1 if self.k & (self.k - 1) == 0 else -1
        self.N_shift = self.N.bit_length() - 1 if self.N & (self.N - 1) == 0 else -1
        self.t_read, self.t_prog, self.t_dram = L.t_read_ns, L.t_program_ns, L.t_dram_ns
        self.t_xfer = L.t_xfer_page_ns
        self._keep = keep = {"counters": counters, "comp_die": comp_die}
        a = counters; self.cnt = <int64_t*>a.data
        self.reset_counters()
        a = comp_die; self.comp_die = <int32_t*>a.data
        a = keep["die_chan"] = die_channels(L); self.die_chan = <int32_t*>a.data
        a = owned_array(keep, "rd_free", L.n_dies, np.int64); self.rd_free = <int64_t*>a.data
        rails = self.mode == RED_RAILS
        a = owned_array(keep, "stamp", L.logical_pages if rails else 0, np.int32); self.stamp = <int32_t*>a.data
        self.fifo_cap = 64
        self.fifo = <int32_t*>realloc(NULL, sizeof(int32_t) * self.fifo_cap)
        self.f_cap = 64
        self.f_lpn = <int32_t*>realloc(NULL, sizeof(int32_t) * self.f_cap)
        self.f_next = <int32_t*>realloc(NULL, sizeof(int32_t) * self.f_cap)
        self.f_ready = <int64_t*>realloc(NULL, sizeof(int64_t) * self.f_cap)
        if self.fifo == NULL or self.f_lpn == NULL or self.f_next == NULL or self.f_ready == NULL:
            raise MemoryError("flashrr redundancy: out of memory")
        a = owned_array(keep, "f_head", L.n_dies, np.int32, -1); self.f_head = <int32_t*>a.data
        a = owned_array(keep, "f_tail", L.n_dies, np.int32, -1); self.f_tail = <int32_t*>a.data

    def __dealloc__(self):
        free(self.fifo); free(self.f_lpn); free(self.f_next); free(self.f_ready); free(self.wbuf)

    cdef int reserve(self, int32_t n) except -1:
        """Room for the LPNs of a write of n pages."""
        cdef int32_t* p
        if n > self.wbuf_cap:
            p = <int32_t*>realloc(self.wbuf, n * sizeof(int32_t))
            if p == NULL:
                raise MemoryError()
            self.wbuf, self.wbuf_cap = p, n
        return 0

    cdef int64_t write(self, Host host, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil:
        """The write path: a host write of LPNs lpn0..lpn1 under Optimal (as in Baseline),
        Rails (to half A in its write period, else mapped now and programmed on half B,
        with A's copy at the flush) or TTFlash (one stripe at a time: the old data or
        parity it needs read first, then its data pages and its parity); returns the end."""
        cdef int32_t n, i
        cdef int64_t lpn, last, ready, done = t
        if self.mode == RED_OPTIMAL:
            n = <int32_t>(lpn1 - lpn0 + 1)
            for i in range(n):
                self.wbuf[i] = <int32_t>(lpn0 + i)
            return host.program_user_pages(self.wbuf, n, t)
        if self.mode == RED_RAILS:
            self.switch(t)
            self.stamp_writes(lpn0, lpn1)
            n = <int32_t>(lpn1 - lpn0 + 1)
            for i in range(n):
                self.wbuf[i] = <int32_t>(lpn0 + i)
            if self.writes_to_a():
                return host.program_user_pages(self.wbuf, n, t)
            for i in range(n):
                host.map_user_page(self.wbuf[i], t)
            return self.program_b(lpn0, lpn1, t)
        lpn = lpn0
        while lpn <= lpn1:
            last = lpn | 3
            if last > lpn1:
                last = lpn1
            n = <int32_t>(last - lpn + 1)
            ready = self.stripe_reads(lpn, n, t)
            for i in range(n):
                self.wbuf[i] = <int32_t>(lpn + i)
            done = imax(done, host.program_user_pages(self.wbuf, n, ready))
            done = imax(done, self.parity_program(lpn >> 2, ready))
            lpn = last + 1
        return done

    def static_placement(self, ctx):
        """Rails and TTFlash place user pages by their own layout (Rails: LPN mod the
        first half of the dies; TTFlash: the stripe member's die); Optimal has none."""
        if self.mode == RED_OPTIMAL:
            return None
        rails = self.mode == RED_RAILS
        return StaticDie(ctx, PLACE_MOD if rails else PLACE_RAID5, ctx.layout.n_dies // 2 if rails else 0)

    def array(self, name):
        return self._keep[name]

    def counter_values(self):
        return counts_list(self.ctr, RD_N_COUNTERS)

    def reset_counters(self):
        memset(self.ctr, 0, sizeof(self.ctr))

    cdef int32_t die_of(self, int64_t ppn) noexcept nogil:
        return ppn_die(ppn, self.comp_die, self.N_shift, self.N, self.k_shift, self.k, self.S)

    cdef bint blocked(self, int32_t die, int64_t t) noexcept nogil:
        return program_blocked(self.sched, die, t)

    cdef int64_t read1(self, int32_t die, int64_t t) except -1 nogil:
        """One page read (sense + transfer) on ``die`` from ``t``; returns its end."""
        return self.sched.user_op(die, self.die_chan[die], PH_READ, 1, t, self.t_read, CAUSE_USER)

    cdef int32_t redirect(self, int32_t* lpns, int32_t* ppns, int32_t* locs, int64_t* extras, int32_t nm,
                         int64_t t) except -1 nogil:
        """Serve the pages that do not go to their FTL copy (Rails: buffer and half B;
        TTFlash: rebuilt), compacting the others to the front; returns how many remain."""
        cdef int32_t i, j = 0, lpn, die, m
        cdef int64_t end, s, l2
        cdef bint redirected = False
        self.redirect_end = 0
        self.redirect_blocked = False
        if self.mode == RED_RAILS:
            self.switch(t)
        for i in range(nm):
            lpn = lpns[i]
            if self.mode == RED_RAILS:
                if self.stamp[lpn] == self.cur_p + 1:
                    self.redirect_end = imax(self.redirect_end, t + self.t_dram)
                    self.ctr[RD_RAILS_BUF_HITS] += 1
                    continue
                if (self.cur_p & 1) == 0:                      # half A takes the writes: read half B
                    die = self.n_data + lpn % self.n_data
                    if self.blocked(die, t):
                        self.redirect_blocked = True
                    self.redirect_end = imax(self.redirect_end, self.read1(die, t))
                    self.ctr[RD_REDIRECTED_PAGES] += 1
                    redirected = True
                    continue
            elif self.mode == RED_OPTIMAL:
                die = self.die_of(locs[i])
                if self.blocked(die, t):
                    end = imax(t, self.rd_free[die]) + self.t_read + self.t_xfer
                    self.rd_free[die] = end
                    self.redirect_end = imax(self.redirect_end, end)
                    self.ctr[RD_REDIRECTED_PAGES] += 1
                    self.redirect_blocked = True
                    redirected = True
                    continue
            else:
                die = self.die_of(locs[i])
                if self.blocked(die, t):
                    s = lpn >> 2
                    for m in range(4):
                        l2 = 4 * s + m
                        if l2 != lpn:
                            end = self.read1(raid5_data_die(l2, self.n_groups), t)
                            self.redirect_end = imax(self.redirect_end, end)
                    self.redirect_end = imax(self.redirect_end, self.read1(raid5_parity_die(s, self.n_groups), t))
                    self.ctr[RD_RECON_READS] += 4
                    self.ctr[RD_RECONSTRUCTED] += 1
                    self.redirect_blocked = True
                    redirected = True
                    continue
            keep_read(lpns, ppns, locs, extras, j, i)
            j += 1
        if redirected:
            self.ctr[RD_REDIRECTED] += 1
        return j

    # ------------------------------------------------------------------ Rails
    cdef bint writes_to_a(self) noexcept nogil:
        return (self.cur_p & 1) == 0

    cdef int switch(self, int64_t t) except -1 nogil:
        """At a request's arrival ``t``: periods that ended by ``t`` queue their LPNs for the
        next write half (what the old write half still owes is booked at once); then the
        queued flush programs that can start by ``t`` are booked."""
        cdef int64_t i, h = self.sched.horizon
        cdef int32_t lpn, die
        self.sched.horizon = self.prev_t                    # book from the previous arrival on, as run_bg does
        while self.cur_p < t // self.period:
            self.cur_p += 1
            if self.f_left:
                self.drain(t, True)
            for i in range(self.n_fifo):
                lpn = self.fifo[i]
                if (self.cur_p & 1) == 0:                      # new write half A: its FTL copy
                    die = self.die_of(self.ftl.lmap[2 * lpn])
                else:
                    die = self.n_data + lpn % self.n_data
                self.flush_push(die, lpn, t)
            self.n_fifo = 0
        if self.f_left:
            self.drain(t, False)
        self.sched.horizon = h
        self.prev_t = t
        return 0

    cdef int flush_push(self, int32_t die, int32_t lpn, int64_t ready) except -1 nogil:
        cdef int64_t j
        if self.f_left == 0:
            self.n_f = 0                                   # nothing queued: reuse the storage
        if self.n_f == self.f_cap:
            self.f_cap *= 2
            self.f_lpn = <int32_t*>realloc(self.f_lpn, sizeof(int32_t) * self.f_cap)
            self.f_next = <int32_t*>realloc(self.f_next, sizeof(int32_t) * self.f_cap)
            self.f_ready = <int64_t*>realloc(self.f_ready, sizeof(int64_t) * self.f_cap)
            if self.f_lpn == NULL or self.f_next == NULL or self.f_ready == NULL:
                with gil:
                    raise MemoryError("flashrr redundancy: out of memory")
        j = self.n_f
        self.n_f += 1
        self.f_lpn[j] = lpn
        self.f_ready[j] = ready
        self.f_next[j] = -1
        if self.f_head[die] < 0:
            self.f_head[die] = <int32_t>j
        else:
            self.f_next[self.f_tail[die]] = <int32_t>j
        self.f_tail[die] = <int32_t>j
        self.f_left += 1
        return 0

    cdef int drain(self, int64_t t, bint force) except -1 nogil:
        """Book each die's queued flush programs, in order, while they can start by ``t``
        (every one of them if ``force``)."""
        cdef int32_t d, j
        cdef int64_t ready
        for d in range(self.sched.n_dies):
            j = self.f_head[d]
            while j >= 0:
                ready = imax(self.f_ready[j], self.prev_t)
                if not force and imax(ready, self.sched.die_free[d]) > t:
                    break
                self.sched.op(d, self.die_chan[d], PH_PROG, 1, ready, self.t_prog, CAUSE_FLUSH)
                self.ctr[RD_MIRROR_PROGS] += 1
                self.cnt[C_PROGRAMMED] += 1
                self.f_left -= 1
                j = self.f_next[j]
            self.f_head[d] = j
        return 0

    cdef int stamp_writes(self, int64_t lpn0, int64_t lpn1) except -1 nogil:
        cdef int64_t lpn
        for lpn in range(lpn0, lpn1 + 1):
            if self.stamp[lpn] != self.cur_p + 1:
                self.stamp[lpn] = <int32_t>(self.cur_p + 1)
                if self.n_fifo == self.fifo_cap:
                    self.fifo_cap *= 2
                    self.fifo = <int32_t*>realloc(self.fifo, sizeof(int32_t) * self.fifo_cap)
                    if self.fifo == NULL:
                        with gil:
                            raise MemoryError("flashrr redundancy: out of memory")
                self.fifo[self.n_fifo] = <int32_t>lpn
                self.n_fifo += 1
        return 0

    cdef int64_t program_b(self, int64_t lpn0, int64_t lpn1, int64_t t) except -1 nogil:
        """Program lpn0..lpn1 on half B from ``t``; returns the latest end."""
        cdef int64_t lpn, end = t
        cdef int32_t die
        for lpn in range(lpn0, lpn1 + 1):
            die = self.n_data + <int32_t>(lpn % self.n_data)
            end = imax(end, self.sched.user_op(die, self.die_chan[die], PH_PROG, 1, t, self.t_prog, CAUSE_USER))
        self.ctr[RD_MIRROR_PROGS] += lpn1 - lpn0 + 1
        self.cnt[C_PROGRAMMED] += lpn1 - lpn0 + 1
        return end

    # ------------------------------------------------------------------ TTFlash
    cdef int64_t stripe_reads(self, int64_t lpn, int32_t w, int64_t t) except -1 nogil:
        """Reads a write of ``w`` pages from ``lpn`` (one stripe) needs first; returns when
        its programs may start."""
        cdef int64_t s = lpn >> 2, l2, ready = t
        cdef int32_t m
        if w == 4:
            return t
        if w == 1:                                         # read-modify-write: old data and old parity
            ready = imax(ready, self.read1(raid5_data_die(lpn, self.n_groups), t))
            ready = imax(ready, self.read1(raid5_parity_die(s, self.n_groups), t))
            self.ctr[RD_PARITY_READS] += 2
            return ready
        for m in range(4):                                 # reconstruct-write: the untouched data pages
            l2 = 4 * s + m
            if l2 < lpn or l2 >= lpn + w:
                ready = imax(ready, self.read1(raid5_data_die(l2, self.n_groups), t))
        self.ctr[RD_PARITY_READS] += 4 - w
        return ready

    cdef int64_t parity_program(self, int64_t stripe, int64_t t) except -1 nogil:
        cdef int32_t die = raid5_parity_die(stripe, self.n_groups)
        self.ctr[RD_PARITY_PROGS] += 1
        self.cnt[C_PROGRAMMED] += 1
        return self.sched.user_op(die, self.die_chan[die], PH_PROG, 1, t, self.t_prog, CAUSE_USER)
