# cython: language_level=3
"""The transactions of one migration (part of the reclaim layer, ``reclaim.pyx``).

Once a GC or RR migration is decided and its pages placed, :class:`MigrationTxns`
writes what the scheduler books: one read per (source row, die), at the row's
slowest page's retries; one multi-plane program per (destination superblock,
offset, die), in that order; one erase per die of the victim.  A one-die migration
queued under ``"user-first"`` goes as runs of equal neighbours instead (``x_count``).
The transactions land in the ``x_*`` arrays, which ``Reclaim.schedule`` hands to the
scheduler.  The twin computes the same transactions inside ``reclaim_py.py``."""
from libc.stdint cimport INT64_MAX, int32_t, int64_t, uint64_t
from libc.string cimport memcpy, memset

import functools

import numpy as np
cimport numpy as cnp

from .common cimport *
from ..buffers import owned_array

cnp.import_array()


cdef void _sort_keyidx(KeyIdx* a, KeyIdx* tmp, int32_t n) noexcept nogil:
    """Sort a[0:n] by (key, idx), keys >= 0, idx ascending on entry: an LSD radix sort
    on 11-bit digits of key - min(key) (stable, so equal keys keep their idx order),
    O(n) per digit; a migration's keys span about its page count, so one digit is usual."""
    cdef int64_t max_key = 0, min_key = INT64_MAX
    cdef int32_t i, shift = 0, d
    cdef int32_t count[2048]
    cdef KeyIdx* src = a
    cdef KeyIdx* dst = tmp
    cdef KeyIdx* sw
    for i in range(n):
        if a[i].key > max_key:
            max_key = a[i].key
        if a[i].key < min_key:
            min_key = a[i].key
    max_key -= min_key
    while shift == 0 or (max_key >> shift) > 0:
        memset(count, 0, sizeof(count))
        for i in range(n):
            count[((src[i].key - min_key) >> shift) & 2047] += 1
        d = 0
        for i in range(2048):
            d += count[i]
            count[i] = d - count[i]
        for i in range(n):
            d = ((src[i].key - min_key) >> shift) & 2047
            dst[count[d]] = src[i]
            count[d] += 1
        sw = src
        src = dst
        dst = sw
        shift += 11
    if src != a:
        memcpy(a, src, sizeof(KeyIdx) * n)

cdef int32_t _dest_superblocks(Ftl ftl, const int64_t* ppns, int32_t n, int64_t* sbs) noexcept nogil:
    """The distinct superblocks of ppns[0:n] into sbs, ascending; returns how many, or 0
    when there are more than MAX_RANKED (then keys use superblock ids as they are)."""
    cdef int32_t i, j, m = 0
    cdef int64_t sb, last = -1
    for i in range(n):
        sb = ftl.div_k(ftl.div_N(ppns[i]))
        if sb == last:
            continue
        last = sb
        for j in range(m):
            if sbs[j] == sb:
                break
        else:
            if m == MAX_RANKED:
                return 0
            j = m                                          # insertion into the sorted list
            while j > 0 and sbs[j - 1] > sb:
                sbs[j] = sbs[j - 1]
                j -= 1
            sbs[j] = sb
            m += 1
    return m

cdef inline int64_t _rank(const int64_t* sbs, int64_t sb) noexcept nogil:
    """Position of sb in sbs (it is there)."""
    cdef int32_t j = 0
    while sbs[j] != sb:
        j += 1
    return j

cdef int32_t die_ranks(const int32_t* die, int32_t k, int32_t* rank) noexcept nogil:
    """rank[c] = position of die[c] among the distinct values of die[0:k], ascending; returns
    how many there are.  Keys that carry a die's rank instead of its id keep their order
    and span fewer radix digits."""
    cdef int32_t seen[64]
    cdef int32_t m = 0, c, j, v
    for c in range(k):
        m = _add_unique(seen, m, die[c])
    for c in range(1, m):                                  # insertion sort of the few dies
        v = seen[c]
        j = c
        while j > 0 and seen[j - 1] > v:
            seen[j] = seen[j - 1]
            j -= 1
        seen[j] = v
    for c in range(k):
        j = 0
        while seen[j] != die[c]:
            j += 1
        rank[c] = j
    return m

cdef inline int32_t _add_unique(int32_t* seen, int32_t n, int32_t v) noexcept nogil:
    """Append v to seen[0:n] unless present (first-seen order); returns the new length."""
    cdef int32_t i
    for i in range(n):
        if seen[i] == v:
            return n
    seen[n] = v
    return n + 1


def sort_order(keys):
    """The order in which ``migrate`` books programs with these int64 keys (>= 0): by key,
    ties by position.  For tests of the radix sort."""
    cdef cnp.ndarray k = np.ascontiguousarray(keys, dtype=np.int64)
    cdef int32_t n = len(k), i
    cdef cnp.ndarray buf = np.zeros(4 * max(n, 1), np.int64)
    cdef KeyIdx* a = <KeyIdx*>buf.data
    for i in range(n):
        a[i].key = (<int64_t*>k.data)[i]
        a[i].idx = i
    _sort_keyidx(a, a + n, n)
    return [int(a[i].idx) for i in range(n)]


cdef class MigrationTxns:
    def __init__(self, layout, Ftl ftl, reclaim_arrays):
        """``reclaim_arrays``: the reclaim layer's arrays this one reads (``comp_die``,
        ``comp_chan``, ``retry_extra``, the migration's pages ``m_comp``, ``m_off``,
        ``m_dest``, ``m_newppn``, and the rows a one-die migration's programs fill,
        ``m_rowsb``, ``m_rowstamp``, ``m_rowmask``)."""
        cdef cnp.ndarray a
        L = layout
        self.ftl = ftl
        self.k = L.k
        self.N = L.pages_per_block
        self.copyback = L.gc_copyback
        self.t_read = L.t_read_ns
        self.t_prog = L.t_program_ns
        self.t_erase = L.t_erase_ns
        self._keep = keep = {"reclaim": reclaim_arrays}
        a = reclaim_arrays["comp_die"]; self.comp_die = <int32_t*>a.data
        a = reclaim_arrays["comp_chan"]; self.comp_chan = <int32_t*>a.data
        a = reclaim_arrays["retry_extra"]; self.retry_extra = <int64_t*>a.data
        a = reclaim_arrays["m_comp"]; self.m_comp = <int32_t*>a.data
        a = reclaim_arrays["m_off"]; self.m_off = <int32_t*>a.data
        a = reclaim_arrays["m_dest"]; self.m_dest = <int32_t*>a.data
        a = reclaim_arrays["m_newppn"]; self.m_newppn = <int64_t*>a.data
        a = reclaim_arrays["m_rowsb"]; self.m_rowsb = <int64_t*>a.data
        a = reclaim_arrays["m_rowstamp"]; self.m_rowstamp = <int32_t*>a.data
        a = reclaim_arrays["m_rowmask"]; self.m_rowmask = <uint64_t*>a.data
        arr = functools.partial(owned_array, keep)
        kn = self.k * self.N
        a = arr("m_key", 4 * kn, np.int64); self.m_key = <int64_t*>a.data   # pairs, then the sort's scratch
        a = arr("m_slot", MAX_RANKED * kn, np.int32, -1); self.m_slot = <int32_t*>a.data
        nx = 2 * kn + self.k + 1  # reads + programs + erases of one superblock at most
        a = arr("x_phase", nx, np.int32); self.x_phase = <int32_t*>a.data
        a = arr("x_die", nx, np.int32); self.x_die = <int32_t*>a.data
        a = arr("x_chan", nx, np.int32); self.x_chan = <int32_t*>a.data
        a = arr("x_xfer", nx, np.int32); self.x_xfer = <int32_t*>a.data
        a = arr("x_dur", nx, np.int64); self.x_dur = <int64_t*>a.data
        a = arr("x_dsb", nx, np.int32); self.x_dsb = <int32_t*>a.data
        a = arr("x_off", nx, np.int32); self.x_off = <int32_t*>a.data
        a = arr("x_cmask", nx, np.uint64); self.x_cmask = <uint64_t*>a.data
        a = arr("x_count", nx, np.int32); self.x_count = <int32_t*>a.data

    cdef int32_t reads(self, int32_t victim, int32_t n, int32_t nt, int32_t base, const int32_t* cdie,
                        const int64_t* cretry, const int32_t* drank) noexcept nogil:
        """The reads of migrated pages 0..n-1 (source order) as transactions nt, nt+1, ...: one
        per (source row, die), the dies of a row in the order its pages meet them; returns the
        new count.  A transaction takes its slowest page's retries, and counts its pages bound
        for another die (channel transfers).  A die's slots are its rank's (``drank``).  Each
        carries the victim superblock, the row's offset and its source components on the die
        (x_dsb, x_off, x_cmask: what timing.join_reads matches a user read against)."""
        cdef int32_t q = 0, c, r, nd, o, off
        cdef int32_t order[64]
        cdef int32_t r_xfer[64]
        cdef int32_t r_chan[64]
        cdef int32_t r_die[64]
        cdef int64_t r_extra[64]
        cdef uint64_t r_cmask[64]
        while q < n:
            off = self.m_off[q]
            nd = 0
            while q < n and self.m_off[q] == off:
                c = self.m_comp[q]
                r = drank[c]
                for o in range(nd):
                    if order[o] == r:
                        break
                else:
                    order[nd] = r
                    nd += 1
                    r_extra[r] = 0
                    r_xfer[r] = 0
                    r_cmask[r] = 0
                    r_die[r] = cdie[c]
                if cretry[c] > r_extra[r]:
                    r_extra[r] = cretry[c]
                r_chan[r] = self.comp_chan[base + c]
                r_cmask[r] |= (<uint64_t>1) << c
                if cdie[self.m_dest[q]] != cdie[c] or not self.copyback:
                    r_xfer[r] += 1
                q += 1
            for o in range(nd):
                r = order[o]
                self.emit(nt, PH_READ, r_die[r], r_chan[r], r_xfer[r], self.t_read + self.retry_extra[r_extra[r]])
                self.x_dsb[nt] = victim
                self.x_off[nt] = off
                self.x_cmask[nt] = r_cmask[r]
                nt += 1
        return nt

    cdef int64_t read_time(self, int32_t n, const int64_t* cretry, int32_t* n_rows) noexcept nogil:
        """Total time (ns) of the reads reads() would write for pages 0..n-1 of a one-die
        migration, one per source row with pages, at the slowest page's retries; the rows'
        count into n_rows."""
        cdef int32_t q = 0, rows = 0
        cdef int64_t worst, total = 0
        while q < n:
            q = self._source_row(q, n, cretry, &worst)
            total += self.t_read + self.retry_extra[worst]
            rows += 1
        n_rows[0] = rows
        return total

    cdef inline int32_t _source_row(self, int32_t q, int32_t n, const int64_t* cretry, int64_t* worst) noexcept nogil:
        """Pages q.. of migrated pages 0..n-1 that share page q's source row: their most retry
        steps into ``worst``; returns the first page past the row."""
        cdef int32_t off = self.m_off[q]
        worst[0] = 0
        while q < n and self.m_off[q] == off:
            if cretry[self.m_comp[q]] > worst[0]:
                worst[0] = cretry[self.m_comp[q]]
            q += 1
        return q

    cdef int32_t read_runs(self, int32_t n, int32_t d, int32_t chan, const int64_t* cretry) noexcept nogil:
        """The reads of a one-die migration's pages 0..n-1 as runs (transactions 0, 1, ...;
        x_count each): the transactions reads() would write, one per source row at its
        slowest page's retries, with neighbours of equal duration joined.  Returns the count."""
        cdef int32_t q = 0, nt = 0
        cdef int64_t worst, dur
        while q < n:
            q = self._source_row(q, n, cretry, &worst)
            dur = self.t_read + self.retry_extra[worst]
            if nt and self.x_dur[nt - 1] == dur:
                self.x_count[nt - 1] += 1
                continue
            self.emit(nt, PH_READ, d, chan, 0, dur)
            nt += 1
        return nt

    cdef int32_t progs_erases(self, int32_t victim, int32_t n, int32_t nt, int32_t base, const int32_t* drank,
                              int32_t n_ranks, PVTiming pv) noexcept nogil:
        """After the reads (transactions 0..nt-1), the programs of migrated pages 0..n-1 (placed:
        m_newppn) and the victim's erases as transactions nt, nt+1, ...; returns the new count.
        One program per (dest superblock, offset, die), in that order: by direct address when
        the pages land in few superblocks, one per (superblock, offset, component), else by
        sorting keys; then one erase per die of the victim."""
        cdef int64_t sbs[MAX_RANKED]
        cdef int32_t dies_seen[64]
        cdef int32_t nsb, c, nd = 0
        nsb = _dest_superblocks(self.ftl, self.m_newppn, n, sbs)
        c = self._progs_direct(n, nt, nsb, sbs, drank, n_ranks, base, pv) if nsb > 0 else -1
        nt = c if c >= 0 else self._progs_sorted(n, nt, nsb, sbs, drank, n_ranks, base, pv)
        for c in range(self.k):
            nd = _add_unique(dies_seen, nd, self.comp_die[base + c])
        for c in range(nd):
            self.emit(nt, PH_ERASE, dies_seen[c], 0, 0,
                          self.t_erase if pv is None else pv.erase_ns(victim, dies_seen[c]))
            nt += 1
        return nt

    cdef int32_t _progs_direct(self, int32_t n, int32_t nt, int32_t nsb, const int64_t* sbs,
                               const int32_t* drank, int32_t n_ranks, int32_t base, PVTiming pv) noexcept nogil:
        """The programs of migrated pages 0..n-1 as transactions nt, nt+1, ...; returns the new
        count, or -1 (nothing written) when two pages share a (superblock, offset, component).

        Each page goes to its slot (superblock rank, offset, component) of m_slot, with the
        components of a row ordered by die rank; a scan of the slots in order then meets the
        pages in the order of the sorted keys of _progs_sorted, and a die's pages of one row
        side by side.  O(n + the slots each superblock's pages span), where the sort costs
        two radix passes."""
        cdef int32_t k = self.k, N = self.N
        cdef int32_t cord[64]
        cdef int32_t q, r, c, p = 0, j, first, xfer, d, rank = 0
        cdef int64_t ppn, b, sb, last_sb = -1, slot, row
        cdef int64_t lo[MAX_RANKED]
        cdef int64_t hi[MAX_RANKED]
        cdef int32_t* tab = self.m_slot
        cdef int32_t* rowp
        cdef uint64_t cmask
        for r in range(n_ranks):                           # components by (die rank, index)
            for c in range(k):
                if drank[c] == r:
                    cord[c] = p
                    p += 1
        for r in range(nsb):                               # the slots each superblock's pages span
            lo[r] = INT64_MAX
            hi[r] = -1
        for q in range(n):
            ppn = self.m_newppn[q]
            b = self.ftl.div_N(ppn)
            sb = self.ftl.div_k(b)
            if sb != last_sb:
                last_sb = sb
                rank = <int32_t>_rank(sbs, sb)
            slot = (<int64_t>rank * N + (ppn - b * N)) * k + cord[self.m_dest[q]]
            if tab[slot] >= 0:                             # a placement put two pages there
                for r in range(nsb):
                    for slot in range(lo[r], hi[r] + 1):
                        tab[slot] = -1
                return -1
            tab[slot] = q
            if slot < lo[rank]:
                lo[rank] = slot
            if slot > hi[rank]:
                hi[rank] = slot
        for rank in range(nsb):
            if hi[rank] < 0:
                continue
            for row in range(lo[rank] // k, hi[rank] // k + 1):
                rowp = tab + row * k
                j = 0
                while j < k:
                    if rowp[j] < 0:
                        j += 1
                        continue
                    first = rowp[j]
                    r = drank[self.m_dest[first]]
                    d = self.comp_die[base + self.m_dest[first]]
                    xfer = 0
                    cmask = 0
                    while j < k:
                        q = rowp[j]
                        if q >= 0:
                            if drank[self.m_dest[q]] != r:
                                break
                            if self.comp_die[base + self.m_comp[q]] != d or not self.copyback:
                                xfer += 1
                            cmask |= (<uint64_t>1) << self.m_dest[q]
                            rowp[j] = -1
                        j += 1
                    self._emit_prog(nt, base, first, xfer, cmask, pv)
                    nt += 1
        return nt

    cdef int32_t _progs_sorted(self, int32_t n, int32_t nt, int32_t nsb, const int64_t* sbs,
                               const int32_t* drank, int32_t n_ranks, int32_t base, PVTiming pv) noexcept nogil:
        """As _progs_direct, by sorting (superblock, offset, die) keys: the superblock enters
        as its rank among the few this migration writes (nsb > 0), else as its id, and the
        die as its rank among the lane's, which shortens the radix sort."""
        cdef int32_t N = self.N, q, q0, q1, xfer, d
        cdef int64_t ppn, b, key, last_sb = -1, last_rank = -1
        cdef KeyIdx* ki = <KeyIdx*>self.m_key
        cdef uint64_t cmask
        for q in range(n):
            ppn = self.m_newppn[q]
            b = self.ftl.div_N(ppn)
            key = self.ftl.div_k(b)
            if nsb > 0:
                if key != last_sb:                         # runs of one superblock are the rule
                    last_sb = key
                    last_rank = _rank(sbs, key)
                key = last_rank
            ki[q].key = (key * N + (ppn - b * N)) * n_ranks + drank[self.m_dest[q]]
            ki[q].idx = q
        # the GC/RR frontier hands out pages in (superblock, offset) order, so the keys are
        # often sorted already
        for q in range(1, n):
            if cmp_keyidx(&ki[q - 1], &ki[q]) > 0:
                _sort_keyidx(ki, ki + self.N * self.k, n)
                break
        q0 = 0
        while q0 < n:
            q1 = q0
            xfer = 0
            cmask = 0
            key = ki[q0].key
            d = self.comp_die[base + self.m_dest[ki[q0].idx]]
            while q1 < n and ki[q1].key == key:
                q = <int32_t>ki[q1].idx
                if self.comp_die[base + self.m_comp[q]] != d or not self.copyback:
                    xfer += 1
                cmask |= (<uint64_t>1) << self.m_dest[q]
                q1 += 1
            self._emit_prog(nt, base, <int32_t>ki[q0].idx, xfer, cmask, pv)
            nt += 1
            q0 = q1
        return nt

    cdef int _emit_prog(self, int32_t nt, int32_t base, int32_t first, int32_t xfer,
                        uint64_t cmask, PVTiming pv) noexcept nogil:
        """Transaction nt: the multi-plane program of the pages in cmask, on the die and row
        of migrated page ``first``; xfer of them come from another die (a channel transfer)."""
        cdef int64_t ppn = self.m_newppn[first]
        cdef int64_t b = self.ftl.div_N(ppn)              # shifts, not divisions, for powers of two
        cdef int32_t dsb = <int32_t>self.ftl.div_k(b), off = <int32_t>(ppn - b * self.N)
        self.emit(nt, PH_PROG, self.comp_die[base + self.m_dest[first]], self.comp_chan[base + self.m_dest[first]],
                      xfer, self.t_prog if pv is None else pv.program_ns(dsb, off, cmask))
        self.x_dsb[nt] = dsb
        self.x_off[nt] = off
        self.x_cmask[nt] = cmask
        return 0

    cdef int32_t prog_runs(self, int32_t nt, int32_t d, int32_t chan, int32_t nsb, int32_t serial) noexcept nogil:
        """After transactions 0..nt-1, the programs of a one-die migration as runs, from the rows
        Reclaim._move_plain(masks) marked: the transactions _progs_direct() would write, one per
        (destination superblock, offset) in that order with its components, with neighbours
        of one superblock, consecutive offsets and equal components joined.  Returns the count."""
        cdef int32_t N = self.N, i, j, rank, off, first = nt
        cdef int32_t order[MAX_RANKED]
        cdef int64_t slot
        cdef uint64_t mask
        for i in range(nsb):                               # ranks by superblock id
            order[i] = i
            j = i
            while j > 0 and self.m_rowsb[order[j - 1]] > self.m_rowsb[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        for i in range(nsb):
            rank = order[i]
            for off in range(N):
                slot = <int64_t>rank * N + off
                if self.m_rowstamp[slot] != serial:
                    continue
                mask = self.m_rowmask[slot]
                if (nt > first and self.x_dsb[nt - 1] == self.m_rowsb[rank] and self.x_cmask[nt - 1] == mask
                        and self.x_off[nt - 1] + self.x_count[nt - 1] == off):
                    self.x_count[nt - 1] += 1
                    continue
                self.emit(nt, PH_PROG, d, chan, 0, self.t_prog)
                self.x_dsb[nt] = <int32_t>self.m_rowsb[rank]
                self.x_off[nt] = off
                self.x_cmask[nt] = mask
                nt += 1
        return nt

    cdef inline void emit(self, int32_t nt, int32_t phase, int32_t die, int32_t chan, int32_t xfer,
                              int64_t dur) noexcept nogil:
        """Transaction nt of the migration: one ``phase`` operation of ``dur`` ns on ``die``
        moving ``xfer`` pages over channel ``chan``; a run of 1 until a neighbour of a one-die
        migration joins it (read_runs, prog_runs)."""
        self.x_phase[nt] = phase
        self.x_die[nt] = die
        self.x_chan[nt] = chan
        self.x_xfer[nt] = xfer
        self.x_dur[nt] = dur
        self.x_count[nt] = 1
