# cython: language_level=3
"""Error-model state of the blocks (twin of ``errors_py.py``, whose docstring
describes the model): P/E cycles, first-program times, and the read counts the
tables of ``flashrr.reliability.engine_tables`` give for each block's state.  A
read compares against them; a new P/E value's row is computed with the GIL."""
from libc.stdint cimport INT32_MAX, INT64_MAX, INT64_MIN, int32_t, int64_t
from libc.string cimport memcpy

import functools

import numpy as np
cimport numpy as cnp

from ...reliability.engine_tables import N_RET_BUCKETS
from ..buffers import owned_array
from .errors_py import UNSET

cnp.import_array()

DEF SUB = 2                               # log2 of the retention buckets per power of two (engine_tables.SUB)


cdef inline int32_t _ret_bucket(int64_t q, int32_t n) noexcept nogil:
    """engine_tables.ret_bucket: four buckets per power of two of q >= 0 quanta, capped at n - 1."""
    cdef int32_t e = 0, j
    cdef int64_t v = q
    if q < (1 << SUB):
        return <int32_t>q
    while v > 1:
        v >>= 1
        e += 1
    j = ((e - SUB + 1) << SUB) + <int32_t>((q >> (e - SUB)) & ((1 << SUB) - 1))
    return j if j < n else n - 1


cdef class ErrorState:
    def __init__(self, layout, block_reads, rr_threshold):
        cdef cnp.ndarray a
        T = self.T = layout.error_tables
        n = layout.n_blocks
        self._keep = keep = {}
        arr = functools.partial(owned_array, keep)
        self.trigger_on = T.trigger_on
        self.retry_on = T.retry_on
        self.S = T.n_steps if T.retry_on else len(layout.retry_steps_ppm)  # the ladder's, else the table's
        self.W = T.n_steps + 2                    # a table row: trigger, switch[0 .. ladder steps]
        self.n_buckets = N_RET_BUCKETS
        self.thr0 = layout.rr_threshold_reads
        self.quantum_ns = T.quantum_ns
        self.age_ns = T.age_ns
        self.offset_ns = 0
        keep["block_reads"] = a = block_reads; self.block_reads = <int32_t*>a.data
        keep["rr_threshold"] = a = rr_threshold; self.rr_threshold = <int32_t*>a.data
        a = arr("pe", n, np.int32); a[:] = T.initial_pe; self.pe = <int32_t*>a.data
        a = arr("born", n, np.int64, UNSET); self.born = <int64_t*>a.data  # UNSET: nothing programmed since erase
        a = arr("next_t", n, np.int64, INT64_MAX); self.next_t = <int64_t*>a.data
        a = arr("mult", n, np.int32, 1); self.mult = <int32_t*>a.data
        a = arr("switch", n * (self.S + 1), np.int32, INT32_MAX); self.switch = <int32_t*>a.data
        a = arr("upper_ns", self.n_buckets, np.int64); a[:] = T.upper_ns; self.upper_ns = <int64_t*>a.data
        a = arr("ctr", self.S + 2, np.int64); self.ctr = <int64_t*>a.data
        a = keep["tab"] = np.zeros(16 * self.n_buckets * self.W, np.int32); self.tab = <int32_t*>a.data
        self.rows = {}

    def set_untimed(self, bint on):
        """Preconditioning: the data written now is ``data_age_s`` old when the trace starts."""
        self.offset_ns = self.age_ns if on else 0

    def reset_counters(self):
        self._keep["ctr"][:] = 0

    def array(self, name):
        return self._keep[name]

    cdef int programmed(self, int64_t blk, int64_t t) except -1 nogil:
        cdef int64_t m
        if self.born[blk] != INT64_MIN:           # UNSET
            return 0
        self.born[blk] = t - self.offset_ns
        if self.trigger_on:
            m = self.rr_threshold[blk] // self.thr0
            self.mult[blk] = <int32_t>(m if m > 1 else 1)
        return self.refresh(blk, t)

    cdef void erased(self, int64_t blk) noexcept nogil:
        self.pe[blk] += 1
        self.born[blk] = INT64_MIN
        self.next_t[blk] = INT64_MAX

    cdef int refresh(self, int64_t blk, int64_t t) except -1 nogil:
        cdef int64_t born = self.born[blk], age = t - born, up, thr
        cdef int32_t j, r, s
        cdef int32_t* row
        if age < 0:
            age = 0
        j = _ret_bucket(age // self.quantum_ns, self.n_buckets)
        r = self.row_of(self.pe[blk])
        row = self.tab + (<int64_t>r * self.n_buckets + j) * self.W
        if self.trigger_on:
            thr = <int64_t>row[0] * self.mult[blk]
            self.rr_threshold[blk] = <int32_t>(thr if thr < INT32_MAX else INT32_MAX)
        if self.retry_on:
            for s in range(self.S + 1):
                self.switch[blk * (self.S + 1) + s] = row[1 + s]
        up = self.upper_ns[j]
        self.next_t[blk] = INT64_MAX if up > INT64_MAX - (born if born > 0 else 0) else born + up
        return 0

    cdef int32_t row_of(self, int32_t pe) except -1 with gil:
        cdef cnp.ndarray a
        r = self.rows.get(pe)
        if r is not None:
            return r
        r = len(self.rows)
        size = self.n_buckets * self.W
        a = self._keep["tab"]
        if (r + 1) * size > a.shape[0]:                    # room for twice the rows
            a = self._keep["tab"] = np.concatenate([a, np.zeros_like(a)])
            self.tab = <int32_t*>a.data
        a[r * size:(r + 1) * size] = np.ascontiguousarray(self.T.row(pe), dtype=np.int32).ravel()
        self.rows[pe] = r
        return r

    cdef int32_t steps(self, int64_t blk) noexcept nogil:
        cdef int32_t c = 0, s
        cdef int32_t reads = self.block_reads[blk]
        cdef int32_t* sw = self.switch + blk * (self.S + 1)
        for s in range(self.S + 1):
            if reads >= sw[s]:
                c += 1
        return c

    cdef void count(self, int32_t c) noexcept nogil:
        if c > self.S:
            self.ctr[self.S + 1] += 1
            c = self.S
        self.ctr[c] += 1

    def touch(self, int64_t blk, int64_t t):
        """Python access for tests: look ``blk`` up again if its retention left its bucket by ``t``."""
        if t >= self.next_t[blk]:
            self.refresh(blk, t)

    def margin(self, blocks, int64_t t, reads):
        """RBER margin of the blocks holding data among ``blocks`` at ``t`` with ``reads``
        (``ErrorTables.margin``)."""
        blocks = np.asarray(blocks)
        born = self._keep["born"][blocks]
        has = born != UNSET
        return self.T.margin(self._keep["pe"][blocks][has], t - born[has], np.asarray(reads)[has])

    def results(self):
        c = self._keep["ctr"]
        return {"retry_steps": c[:self.S + 1].copy(), "uncorrectable_reads": int(c[self.S + 1])}
