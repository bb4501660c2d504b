# cython: language_level=3
"""The RR and GC migrations of one run, column by column in C arrays (compiled; twin
``event_log_py.py``).  A record is 44 + 4k bytes and no Python object, so a GC-bound run
of millions of migrations keeps its records in a few hundred MB."""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free
from libc.string cimport memcpy

import numpy as np

from .sched cimport _copied, _grow

GC_ROUTINE = "greedy"   # the routine label of every GC record
RR_ROUTINE = "default"  # an RR's label when the policy names none


cdef class EventLog:
    def __cinit__(self, int32_t k):
        self.k = k
        self.n = 0
        self.cap = 0
        self.names = [RR_ROUTINE, GC_ROUTINE]
        self.codes = {RR_ROUTINE: RR_CODE, GC_ROUTINE: GC_CODE}

    def __dealloc__(self):
        free(self.t); free(self.victim); free(self.lane); free(self.reads)
        free(self.moved); free(self.routine); free(self.mix); free(self.margin)

    cdef int32_t code(self, str name) except -1:
        c = self.codes.get(name)
        if c is None:
            c = self.codes[name] = len(self.names)
            self.names.append(name)
        return c

    cdef int add(self, int64_t t, int32_t victim, int32_t lane, const int32_t* reads, int32_t moved,
                 int32_t routine, int64_t mu, int64_t mr, int64_t mg, double margin) except -1 nogil:
        cdef int64_t i = self.n, cap
        if i == self.cap:
            cap = self.cap = 2 * self.cap if self.cap else 64
            self.t = <int64_t*>_grow(self.t, cap * sizeof(int64_t))
            self.victim = <int32_t*>_grow(self.victim, cap * sizeof(int32_t))
            self.lane = <int32_t*>_grow(self.lane, cap * sizeof(int32_t))
            self.reads = <int32_t*>_grow(self.reads, cap * self.k * sizeof(int32_t))
            self.moved = <int32_t*>_grow(self.moved, cap * sizeof(int32_t))
            self.routine = <int32_t*>_grow(self.routine, cap * sizeof(int32_t))
            self.mix = <int32_t*>_grow(self.mix, 3 * cap * sizeof(int32_t))
            self.margin = <double*>_grow(self.margin, cap * sizeof(double))
        self.t[i] = t
        self.victim[i] = victim
        self.lane[i] = lane
        memcpy(&self.reads[i * self.k], reads, self.k * sizeof(int32_t))
        self.moved[i] = moved
        self.routine[i] = routine
        self.mix[3 * i] = <int32_t>mu
        self.mix[3 * i + 1] = <int32_t>mr
        self.mix[3 * i + 2] = <int32_t>mg
        self.margin[i] = margin
        self.n = i + 1
        return 0

    def __len__(self):
        return self.n

    def clear(self):
        self.n = 0

    def columns(self, erase_end):
        """The records as ``{column: NumPy array}`` (``flashrr.result.EVENT_COLUMNS``, in
        the dtypes they are kept in: int32 but for the times; ``block_reads`` is
        ``(records, k)``), with ``erase_end`` (ns, one per record)."""
        cdef int64_t n = self.n, k = self.k
        mix = _copied(self.mix, 3 * n, np.int32).reshape(n, 3)
        return {"time_ns": _copied(self.t, n, np.int64), "superblock": _copied(self.victim, n, np.int32),
                "lane": _copied(self.lane, n, np.int32),
                "block_reads": _copied(self.reads, n * k, np.int32).reshape(n, k),
                "pages_moved": _copied(self.moved, n, np.int32),
                "routine": np.array(self.names, dtype=object)[_copied(self.routine, n, np.int32)],
                "erase_end_ns": np.asarray(erase_end, dtype=np.int64).reshape(n),
                "victim_user_pages": mix[:, 0], "victim_rr_pages": mix[:, 1], "victim_gc_pages": mix[:, 2],
                "rber_margin": _copied(self.margin, n, np.float64)}

