# cython: language_level=3
"""Process-variation timing of the compiled engine (``process_variation.pv_model``):
per-block latencies, the multi-plane maximum, and QSTR-MED reassembly of free
superblocks.  Twin: ``pv_timing_py.py``; docs/superblock-pv.md section 6."""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport qsort

import functools

import numpy as np
cimport numpy as cnp

from ..device.common cimport *

from ..buffers import owned_array, restore_arrays, saved_arrays

cnp.import_array()


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil


cdef class PVTiming:
    def __init__(self, layout):
        cdef cnp.ndarray a
        L = layout
        T = L.pv
        self.k = L.k
        self.N = L.pages_per_block
        self.S = L.sb_per_lane
        self.W = T.n_lwl
        self.n_words = T.n_words
        self.window = T.window
        self.t_prog = L.t_program_ns
        self.dynamic = T.reassembly
        self._keep = keep = {}
        for name, arr, dt in (("lwl", T.lwl_of_page, np.int32), ("tprog", T.tprog_ns, np.int32),
                              ("tbers", T.tbers_ns, np.int64), ("phys", T.phys, np.int32),
                              ("comp_die", L.comp_die, np.int32), ("bsum", T.block_sum_ns, np.int64),
                              ("eigen", T.eigen, np.uint64)):
            keep[name] = np.array(arr, dtype=dt, copy=True)  # phys changes; the rest is copied for symmetry
        a = keep["lwl"]; self.lwl = <int32_t*>a.data
        a = keep["tprog"]; self.tprog = <int32_t*>a.data
        a = keep["tbers"]; self.tbers = <int64_t*>a.data
        a = keep["phys"]; self.phys = <int32_t*>a.data
        a = keep["comp_die"]; self.comp_die = <int32_t*>a.data
        a = keep["bsum"]; self.bsum = <int64_t*>a.data
        a = keep["eigen"]; self.eigen = <uint64_t*>a.data
        arr = functools.partial(owned_array, keep)
        owner = np.empty(len(T.phys), np.int32)
        owner[T.phys] = np.arange(len(T.phys), dtype=np.int32)
        keep["owner"] = owner
        a = owner; self.owner = <int32_t*>a.data
        a = arr("cand", self.S, np.int32); self.cand = <int32_t*>a.data
        a = arr("pool", self.k * self.S, np.int32); self.pool = <int32_t*>a.data
        a = arr("keys", 2 * self.S, np.int64); self.keys = <int64_t*>a.data
        a = arr("chosen", self.k, np.int32); self.chosen = <int32_t*>a.data

    def array(self, name):
        """A NumPy view of one of the arrays (phys, tprog, tbers, ...)."""
        return self._keep[name]

    def state(self):
        """The binding of slot blocks to PV blocks (reassembly changes it), for a snapshot."""
        return saved_arrays(self._keep, ("phys", "owner"))

    def restore(self, state):
        restore_arrays(self._keep, state, ("phys", "owner"), "pv")

    cdef void program_extra(self, const int32_t* ppns, int64_t* out, int32_t n) noexcept nogil:
        """out[i] = program latency of ppns[i] - t_program (ns): the engine's per-page
        extra, whose maximum over a transaction's pages it adds to t_program."""
        cdef int32_t i
        for i in range(n):
            out[i] = self.page_ns(ppns[i]) - self.t_prog

    cdef int64_t program_ns(self, int32_t sb, int32_t off, uint64_t cmask) noexcept nogil:
        """A multi-plane program of page ``off`` on the components in ``cmask`` of
        superblock ``sb``: its slowest plane's LWL latency (ns)."""
        cdef int32_t c, w = self.lwl[off]
        cdef int64_t m = 0, v
        for c in range(self.k):
            if (cmask >> c) & 1:
                v = self.tprog[<int64_t>self.phys[<int64_t>sb * self.k + c] * self.W + w]
                if v > m:
                    m = v
        return m

    cdef int64_t erase_ns(self, int32_t sb, int32_t die) noexcept nogil:
        """A multi-plane erase of superblock ``sb``'s blocks on ``die``: its slowest block (ns)."""
        cdef int32_t c, lane = sb // self.S
        cdef int64_t m = 0, v
        for c in range(self.k):
            if self.comp_die[lane * self.k + c] == die:
                v = self.tbers[self.phys[<int64_t>sb * self.k + c]]
                if v > m:
                    m = v
        return m

    cdef int reassemble(self, int32_t sb, int32_t n_free, bint slow) except -1 nogil:
        """Bind superblock ``sb`` (just allocated) to the blocks PV Check picks from the
        free pool: the PV blocks of ``sb`` and of the free superblocks ``cand[0:n_free]``.
        ``slow``: a slow superblock (GC/RR frontier), else a fast one (user frontier).
        The picked blocks swap bindings with ``sb``'s, so every binding stays a
        bijection and only free superblocks change."""
        cdef int32_t k = self.k, m = n_free + 1, c, i, j, a, q, g, cur, best, n_c, x
        cdef int64_t d, best_d, s, best_s
        cdef KeyIdx* ki = <KeyIdx*>self.keys
        cdef int32_t* pool
        cdef int32_t w
        for c in range(k):
            for i in range(m):
                j = sb if i == 0 else self.cand[i - 1]
                g = self.phys[<int64_t>j * k + c]
                ki[i].key = self.bsum[g]
                ki[i].idx = g
            qsort(ki, m, sizeof(KeyIdx), cmp_keyidx)
            pool = self.pool + c * self.S
            for i in range(m):
                pool[i] = <int32_t>ki[i].idx
        # anchor: the fastest head (fast) or the slowest tail (slow); ties: lower component
        a = 0
        best_s = self.bsum[self.pool[m - 1 if slow else 0]]
        for c in range(1, k):
            s = self.bsum[self.pool[c * self.S + (m - 1 if slow else 0)]]
            if (slow and s > best_s) or (not slow and s < best_s):
                a = c
                best_s = s
        self.chosen[a] = self.pool[a * self.S + (m - 1 if slow else 0)]
        n_c = self.window if self.window < m else m
        for q in range(k):
            if q == a:
                continue
            pool = self.pool + q * self.S
            best = -1
            best_d = 0
            for i in range(n_c):
                g = pool[m - 1 - i] if slow else pool[i]
                d = 0
                for w in range(self.n_words):
                    d += __builtin_popcountll(self.eigen[<int64_t>self.chosen[a] * self.n_words + w]
                                              ^ self.eigen[<int64_t>g * self.n_words + w])
                if best < 0 or d < best_d:
                    best = g
                    best_d = d
            self.chosen[q] = best
        for c in range(k):
            x = self.chosen[c]
            j = self.owner[x]
            cur = self.phys[<int64_t>sb * k + c]
            self.phys[j] = cur
            self.owner[cur] = j
            self.phys[<int64_t>sb * k + c] = x
            self.owner[x] = sb * k + c
        return 0
