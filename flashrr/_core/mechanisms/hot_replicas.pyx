# cython: language_level=3
"""HotR hot-read replication (compiled; twin ``hot_replicas_py.py``).

Per flash-read page of a request (after the cache, before multi-plane grouping),
in page order:

* R-LRU: a page not in the list is inserted at the MRU end with count 1 (the
  LRU entry is evicted when the list holds ``n_max`` entries, dropping its
  replica); a page in the list gets count + 1 and moves to the MRU end.
* Conflict detection: the page's die is *blocked* when a program on it ends
  after the arrival ``t`` or a background program is queued on it (the
  engine's ``blocked_reads`` test), or, with ``erase_blocks``, when an erase
  on it ends after ``t``.
* A blocked page whose replica's program has ended (``e_ready <= t``) is read
  from the replica: one read plus one page transfer on the replica's die,
  queued behind that die's booked work.  Other pages are read where they are.
* A page read from its original place whose count reached ``thr`` and that has
  no replica is owed one, from when the request's reads end (``done``): one
  program (transfer + program).  The data are already in the controller, so no
  extra flash read; the request's latency does not include it.  Dedicated
  staging: the program is background work in a FIFO; at each read arrival
  ``t`` the queued programs that can start by ``t`` (on the staging die that is
  free first) are booked, so a redirected read never waits for a replica
  program that had not started when it arrived.  A page is *pending* (counts
  against the capacity, serves no read) until its program is booked.
  Over-provisioned staging: booked at once on the next data die round-robin.

Staging: ``n_stage`` dedicated dies, each on its own channel, outside the FTL
(busy-until timelines ``st_free``), or (``op_mode``) the data dies' spare
space: the replica goes to the next data die other than the original's, and
its program and reads are booked on that die through the scheduler.  The
staging space holds at most ``cap`` replicas.  The R-LRU may hold more
entries (``n_max`` >= ``cap``): a page owed a replica while ``cap`` are held
takes the place of the replica least recently read or made (a second list
over the replicated entries keeps that order); the entry that loses it keeps
its count and gets a new replica on its next read from the original place.
With ``staging_stop`` a full staging space refuses the page instead (it keeps
its entry and count, and is owed a replica again on its next such read).
With ``blocked_only`` only the pages whose die is blocked touch the R-LRU (and
so are counted, replicated and redirected); the others are read in place.
A host write of a page with a replica deletes its entry and frees the
replica; a page without a replica keeps its entry and count.
"""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memset

import functools

import numpy as np
cimport numpy as cnp

from ..device.common cimport *
from ..options.static_die cimport keep_read, ppn_die, program_blocked
from ..device.sched cimport Scheduler

from ..buffers import owned_array
from ..layout import die_channels

cnp.import_array()


cdef inline void _unlink(int32_t* prev, int32_t* nxt, int32_t* head, int32_t* tail, int32_t e) noexcept nogil:
    """Take slot ``e`` out of the doubly linked list (``prev``, ``nxt``, ``head``, ``tail``; -1 = none)."""
    cdef int32_t p = prev[e], n = nxt[e]
    if p >= 0:
        nxt[p] = n
    else:
        head[0] = n
    if n >= 0:
        prev[n] = p
    else:
        tail[0] = p


cdef inline void _push_front(int32_t* prev, int32_t* nxt, int32_t* head, int32_t* tail, int32_t e) noexcept nogil:
    """Put slot ``e`` at the head of the doubly linked list."""
    prev[e] = -1
    nxt[e] = head[0]
    if head[0] >= 0:
        prev[head[0]] = e
    else:
        tail[0] = e
    head[0] = e


cdef class HotReplicas:
    def __init__(self, ctx, spec):
        """``spec``: (hot_threshold, capacity_pages, staging_dies, op_mode,
        erase_blocks, rlru_entries, staging_stop, blocked_only) from the policy."""
        cdef Scheduler sched = ctx.sched
        layout, comp_die = ctx.layout, ctx.comp_die
        cdef cnp.ndarray a
        cdef int32_t i
        L = layout
        self.sched = sched
        thr, cap, n_stage, op_mode, erase_blocks, n_max, staging_stop, blocked_only = spec
        self.staging_stop, self.blocked_only = bool(staging_stop), bool(blocked_only)
        self.thr, self.cap, self.n_stage = int(thr), int(cap), int(n_stage)
        self.n_max = max(int(n_max), self.cap)
        self.op_mode, self.erase_blocks = bool(op_mode), bool(erase_blocks)
        self.k, self.N, self.S, self.n_dies = L.k, L.pages_per_block, L.sb_per_lane, L.n_dies
        self.k_shift = self.k.bit_length() - 1 if self.k & (self.k - 1) == 0 else -1
        self.N_shift = self.N.bit_length() - 1 if self.N & (self.N - 1) == 0 else -1
        self.t_read, self.t_prog, self.t_xfer = L.t_read_ns, L.t_program_ns, L.t_xfer_page_ns
        self._keep = keep = {"comp_die": comp_die}
        self.reset_counters()
        a = comp_die; self.comp_die = <int32_t*>a.data
        a = keep["die_chan"] = die_channels(L); self.die_chan = <int32_t*>a.data
        arr = functools.partial(owned_array, keep)
        a = arr("ent_of", L.logical_pages, np.int32); self.ent_of = <int32_t*>a.data
        n = self.n_max
        a = arr("e_lpn", n, np.int32, -1); self.e_lpn = <int32_t*>a.data
        a = arr("e_count", n, np.int32); self.e_count = <int32_t*>a.data
        a = arr("e_rep", n, np.int32, -1); self.e_rep = <int32_t*>a.data
        a = arr("e_ready", n, np.int64); self.e_ready = <int64_t*>a.data
        a = arr("e_gen", n, np.int64); self.e_gen = <int64_t*>a.data
        a = arr("e_prev", n, np.int32, -1); self.e_prev = <int32_t*>a.data
        a = arr("e_next", n, np.int32, -1); self.e_next = <int32_t*>a.data
        a = arr("r_prev", n, np.int32, -1); self.r_prev = <int32_t*>a.data
        a = arr("r_next", n, np.int32, -1); self.r_next = <int32_t*>a.data
        a = arr("free_ent", n, np.int32); self.free_ent = <int32_t*>a.data
        for i in range(n):
            self.free_ent[i] = n - 1 - i
        self.n_free = n
        self.head = self.tail = -1
        self.rhead = self.rtail = -1
        a = arr("st_free", self.n_stage, np.int64); self.st_free = <int64_t*>a.data
        self.bq_cap = 0
        self._bq_grow()
        self.pend_cap = 0
        self.reserve(64)

    def __dealloc__(self):
        free(self.bq_ent); free(self.bq_gen); free(self.bq_ready)

    def _bq_grow(self):
        """Double the replica-program ring (kept in order from index 0)."""
        cdef int64_t cap = max(64, 2 * self.bq_cap), i, j
        cdef int32_t* ent = <int32_t*>realloc(NULL, sizeof(int32_t) * cap)
        cdef int64_t* gen = <int64_t*>realloc(NULL, sizeof(int64_t) * cap)
        cdef int64_t* ready = <int64_t*>realloc(NULL, sizeof(int64_t) * cap)
        if ent == NULL or gen == NULL or ready == NULL:
            raise MemoryError("flashrr replicas: out of memory")
        for i in range(self.bq_len):
            j = (self.bq_head + i) % self.bq_cap
            ent[i] = self.bq_ent[j]
            gen[i] = self.bq_gen[j]
            ready[i] = self.bq_ready[j]
        free(self.bq_ent); free(self.bq_gen); free(self.bq_ready)
        self.bq_ent, self.bq_gen, self.bq_ready = ent, gen, ready
        self.bq_cap = cap
        self.bq_head = 0

    cdef int reserve(self, int32_t n) except -1:
        """Room for ``n`` owed replicas (the engine calls it when its request buffers grow)."""
        cdef cnp.ndarray a
        if n > self.pend_cap:
            self.pend_cap = n
            a = owned_array(self._keep, "pend_ent", n, np.int32); self.pend_ent = <int32_t*>a.data
            a = owned_array(self._keep, "pend_lpn", n, np.int32); self.pend_lpn = <int32_t*>a.data
            a = owned_array(self._keep, "pend_die", n, np.int32); self.pend_die = <int32_t*>a.data
        return 0

    def counter_values(self):
        return counts_list(self.ctr, HR_N_COUNTERS)

    def reset_counters(self):
        memset(self.ctr, 0, sizeof(self.ctr))

    def array(self, name):
        """A NumPy view of one of the feature's arrays (tests read e_rep, st_free, ...)."""
        return self._keep[name]

    def occupancy_now(self):
        return int(self.occupancy)

    # ------------------------------------------------------------------ list
    cdef int32_t die_of(self, int64_t ppn) noexcept nogil:
        return ppn_die(ppn, self.comp_die, self.N_shift, self.N, self.k_shift, self.k, self.S)

    cdef bint blocked(self, int32_t die, int64_t t) noexcept nogil:
        return program_blocked(self.sched, die, t) or (self.erase_blocks and self.sched.die_erase_end[die] > t)

    cdef void unlink(self, int32_t e) noexcept nogil:
        _unlink(self.e_prev, self.e_next, &self.head, &self.tail, e)

    cdef void push_mru(self, int32_t e) noexcept nogil:
        _push_front(self.e_prev, self.e_next, &self.head, &self.tail, e)

    cdef void r_unlink(self, int32_t e) noexcept nogil:
        _unlink(self.r_prev, self.r_next, &self.rhead, &self.rtail, e)

    cdef void r_push_mru(self, int32_t e) noexcept nogil:
        _push_front(self.r_prev, self.r_next, &self.rhead, &self.rtail, e)

    cdef void drop(self, int32_t e) noexcept nogil:
        """Remove entry ``e`` from the list; its replica (if any) is freed."""
        self.unlink(e)
        self.ent_of[self.e_lpn[e]] = 0
        if self.e_rep[e] != -1:                            # held or pending
            self.r_unlink(e)
            self.occupancy -= 1
            self.e_rep[e] = -1
        self.e_lpn[e] = -1
        self.free_ent[self.n_free] = e
        self.n_free += 1
        self.n_ent -= 1

    # ------------------------------------------------------------------ requests
    cdef int32_t redirect(self, int32_t* lpns, int32_t* ppns, int32_t* locs, int64_t* extras, int32_t nm,
                         int64_t t) except -1 nogil:
        """Update the R-LRU for the request's flash-read pages, read the blocked ones that
        have a finished replica from it, and compact the others to the front of the
        buffers; returns how many remain for the original dies."""
        cdef int32_t i, j = 0, e, lpn, die, rd, ch
        cdef int64_t end
        cdef bint redirected = False
        self.n_pend = 0
        self.redirect_end = 0
        self.redirect_blocked = False
        if self.bq_len:
            self.drain(t)
        for i in range(nm):
            lpn = lpns[i]
            die = self.die_of(locs[i])
            if self.blocked_only and not self.blocked(die, t):
                keep_read(lpns, ppns, locs, extras, j, i)
                j += 1
                continue
            e = self.ent_of[lpn] - 1
            if e >= 0:
                self.e_count[e] += 1
                self.unlink(e)
                self.push_mru(e)
                if self.e_rep[e] != -1:
                    self.r_unlink(e)
                    self.r_push_mru(e)
            else:
                if self.n_free == 0:
                    self.ctr[HR_RLRU_EVICT] += 1
                    self.drop(self.tail)
                self.n_free -= 1
                e = self.free_ent[self.n_free]
                self.e_lpn[e] = lpn
                self.e_gen[e] += 1                         # a new entry: queued programs of the slot's
                self.e_count[e] = 1                        # earlier entries no longer match it
                self.e_rep[e] = -1
                self.push_mru(e)
                self.ent_of[lpn] = e + 1
                self.n_ent += 1
            rd = self.e_rep[e]
            if rd >= 0 and self.e_ready[e] <= t and self.blocked(die, t):
                if self.op_mode:
                    end = self.sched.user_op(rd, self.die_chan[rd], PH_READ, 1, t, self.t_read, CAUSE_USER)
                else:
                    end = imax(t, self.st_free[rd])
                    self.ctr[HR_BUSY_STAGING] += self.t_read + self.t_xfer
                    end += self.t_read + self.t_xfer
                    self.st_free[rd] = end
                self.redirect_end = imax(self.redirect_end, end)
                self.ctr[HR_REDIRECTED_PAGES] += 1
                redirected = True
                continue
            if rd == -1 and self.e_count[e] >= self.thr:
                self.pend_ent[self.n_pend] = e
                self.pend_lpn[self.n_pend] = lpn
                self.pend_die[self.n_pend] = die
                self.n_pend += 1
            keep_read(lpns, ppns, locs, extras, j, i)
            j += 1
        if redirected:
            self.ctr[HR_REDIRECTED] += 1
            self.redirect_blocked = True
        return j

    cdef int reads_done(self, int64_t done) except -1 nogil:
        """Book the replica programs owed by this request, from ``done`` on; in a full
        staging space each takes the place of the replica least recently read or made,
        or (``staging_stop``) is refused."""
        cdef int32_t i, e, d, v
        cdef int64_t start, end
        for i in range(self.n_pend):
            e = self.pend_ent[i]
            if self.e_lpn[e] != self.pend_lpn[i] or self.e_rep[e] != -1:
                continue                                   # evicted (or replicated) since
            if self.occupancy == self.cap:
                if self.staging_stop:
                    self.ctr[HR_REPLICA_REFUSALS] += 1
                    continue
                v = self.rtail
                self.r_unlink(v)
                self.e_rep[v] = -1
                self.e_gen[v] += 1                         # a program still queued for it is stale
                self.occupancy -= 1
                self.ctr[HR_REPLICA_DROPS] += 1
            self.occupancy += 1
            self.r_push_mru(e)
            if self.occupancy > self.ctr[HR_STAGING_MAX]:
                self.ctr[HR_STAGING_MAX] = self.occupancy
            if self.op_mode:
                d = self.rep_next % self.n_dies
                if d == self.pend_die[i]:
                    d = (d + 1) % self.n_dies
                self.rep_next = d + 1
                end = self.sched.op(d, self.die_chan[d], PH_PROG, 1, done, self.t_prog, CAUSE_MOVE)
                self.e_rep[e] = d
                self.e_ready[e] = end
                self.ctr[HR_REPLICA_WRITES] += 1
            else:
                self.e_rep[e] = -2                         # pending: its program waits for a staging die
                self.bq_push(e, done)
        self.n_pend = 0
        return 0

    cdef int bq_push(self, int32_t e, int64_t ready) except -1 nogil:
        cdef int64_t j
        if self.bq_len == self.bq_cap:
            with gil:
                self._bq_grow()
        j = (self.bq_head + self.bq_len) % self.bq_cap
        self.bq_ent[j] = e
        self.bq_gen[j] = self.e_gen[e]
        self.bq_ready[j] = ready
        self.bq_len += 1
        return 0

    cdef int drain(self, int64_t t) except -1 nogil:
        """Book, in FIFO order, the queued replica programs that can start by ``t`` on the
        staging die free first; a program whose entry was dropped meanwhile is dropped, even
        when the slot now holds a new entry of the same page (the generation tells)."""
        cdef int32_t e, d, i
        cdef int64_t start, end
        while self.bq_len:
            e = self.bq_ent[self.bq_head]
            if self.e_gen[e] == self.bq_gen[self.bq_head] and self.e_rep[e] == -2:
                d = 0
                for i in range(1, self.n_stage):
                    if self.st_free[i] < self.st_free[d]:
                        d = i
                start = imax(self.bq_ready[self.bq_head], self.st_free[d])
                if start > t:
                    break
                end = start + self.t_xfer + self.t_prog
                self.st_free[d] = end
                self.ctr[HR_BUSY_STAGING] += end - start
                self.e_rep[e] = d
                self.e_ready[e] = end
                self.ctr[HR_REPLICA_WRITES] += 1
            self.bq_head = (self.bq_head + 1) % self.bq_cap
            self.bq_len -= 1
        return 0

    cdef void host_write(self, int64_t lpn0, int64_t lpn1) noexcept nogil:
        """A host write of lpn0..lpn1: a page with a replica loses its entry and replica."""
        cdef int64_t lpn
        cdef int32_t e
        for lpn in range(lpn0, lpn1 + 1):
            e = self.ent_of[lpn] - 1
            if e >= 0 and self.e_rep[e] != -1:
                self.drop(e)
                self.ctr[HR_REPLICA_INVALID] += 1
