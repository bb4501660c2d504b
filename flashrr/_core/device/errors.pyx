# cython: language_level=3
"""Error-model state of the blocks (twin of ``errors_py.py``, whose docstring
describes the model): P/E cycles, first-program times, and the read counts the
tables the layout carries (``layout.error_tables``, built above the engine by
``flashrr.reliability.engine_tables``) give for each block's state.  A
read compares against them; the table is extended, with the GIL, when an erase
takes a block past the P/E counts it covers."""
from libc.stdint cimport INT32_MAX, INT64_MAX, INT64_MIN, int32_t, int64_t

import functools

import numpy as np
cimport numpy as cnp

from .retention import N_RET_BUCKETS, SUB as _SUB
from ..buffers import owned_array, restore_arrays, saved_arrays
from .errors_py import UNSET

cnp.import_array()

DEF SUB = 2                               # log2 of the retention buckets per power of two (retention.SUB)
assert _SUB == SUB


cdef inline int32_t _ret_bucket(int64_t q, int32_t n) noexcept nogil:
    """retention.ret_bucket: four buckets per power of two of q >= 0 quanta, capped at n - 1."""
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
        self.stride = 2 + self.S + 1 + (self.S + 1) % 2        # int32s: next_t, switch[0..S], even
        self.nt_stride = self.stride // 2
        a = arr("rec", n * self.stride, np.int32, INT32_MAX)
        a.view(np.int64)[::self.nt_stride] = INT64_MAX
        self.next_t = <int64_t*>a.data
        self.switch = <int32_t*>a.data + 2
        a = arr("mult", n, np.int32, 1); self.mult = <int32_t*>a.data
        a = arr("upper_ns", self.n_buckets, np.int64); a[:] = T.upper_ns; self.upper_ns = <int64_t*>a.data
        a = arr("ctr", self.S + 2, np.int64); self.ctr = <int64_t*>a.data
        self.pe_lo, self.pe_hi = T.initial_range()
        a = keep["tab"] = np.ascontiguousarray(T.rows(self.pe_lo, self.pe_hi), dtype=np.int32)
        self.tab = <int32_t*>a.data

    def set_untimed(self, bint on):
        """Preconditioning: the data written now is ``data_age_s`` old when the trace starts."""
        self.offset_ns = self.age_ns if on else 0

    def reset_counters(self):
        self._keep["ctr"][:] = 0

    def array(self, name):
        """One of the per-block arrays (``pe``, ``born``, ``mult``), for tests."""
        return self._keep[name]

    def state(self):
        """P/E counts, first-program times, looked-up read counts and the table rows, for a snapshot."""
        out = saved_arrays(self._keep, ("pe", "born", "rec", "mult", "tab"))
        out["pe_hi"] = self.pe_hi
        return out

    def restore(self, state):
        """Set the state :meth:`state` returned (same layout and tables)."""
        cdef cnp.ndarray a
        restore_arrays(self._keep, state, ("pe", "born", "rec", "mult"), "error_model")
        tab = state.get("tab")
        own = self._keep["tab"]
        if tab is None or tab.dtype != np.int32 or tab.ndim != own.ndim or tab.shape[1:] != own.shape[1:]:
            raise ValueError("error_model.tab: missing or not whole table rows")
        a = self._keep["tab"] = np.ascontiguousarray(tab, dtype=np.int32).copy()
        self.tab = <int32_t*>a.data
        self.pe_hi = int(state["pe_hi"])
        if (self.pe_hi - self.pe_lo) * self.n_buckets * self.W != tab.size:
            raise ValueError("error_model.pe_hi: does not match the table rows")

    cdef int first_program(self, int64_t blk, int64_t t) except -1 nogil:
        cdef int64_t m
        self.born[blk] = t - self.offset_ns
        if self.trigger_on:
            m = self.rr_threshold[blk] // self.thr0
            self.mult[blk] = <int32_t>(m if m > 1 else 1)
        return self.refresh(blk, t)

    cdef void erased(self, int64_t blk) noexcept nogil:
        self.pe[blk] += 1
        self.born[blk] = INT64_MIN
        self.next_t[blk * self.nt_stride] = INT64_MAX

    cdef int refresh(self, int64_t blk, int64_t t) except -1 nogil:
        cdef int64_t born = self.born[blk], age = t - born, up, thr
        cdef int32_t j, s
        cdef int32_t* row
        if age < 0:
            age = 0
        j = _ret_bucket(age // self.quantum_ns, self.n_buckets)
        if self.pe[blk] >= self.pe_hi:
            self.grow(self.pe[blk])
        row = self.tab + (<int64_t>(self.pe[blk] - self.pe_lo) * self.n_buckets + j) * self.W
        if self.trigger_on:
            thr = <int64_t>row[0] * self.mult[blk]
            self.rr_threshold[blk] = <int32_t>(thr if thr < INT32_MAX else INT32_MAX)
        if self.retry_on:
            for s in range(self.S + 1):
                self.switch[blk * self.stride + s] = row[1 + s]
        up = self.upper_ns[j]
        self.next_t[blk * self.nt_stride] = INT64_MAX if up > INT64_MAX - (born if born > 0 else 0) else born + up
        return 0

    cdef int grow(self, int32_t pe) except -1 with gil:
        cdef cnp.ndarray a
        T = self.T
        hi = T.grown(self.pe_lo, self.pe_hi, pe)
        a = self._keep["tab"] = np.ascontiguousarray(np.concatenate([self._keep["tab"], T.rows(self.pe_hi, hi)]),
                                                     dtype=np.int32)
        self.tab = <int32_t*>a.data
        self.pe_hi = hi
        return 0

    cdef int32_t steps(self, int64_t blk) noexcept nogil:
        return switch_steps(self.switch + blk * self.stride, self.S, self.block_reads[blk])

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
