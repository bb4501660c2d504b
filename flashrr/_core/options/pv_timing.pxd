# Process-variation timing: per-block program/erase latencies and the binding of
# slot blocks to modelled physical blocks (superblock assembly).  Twin:
# pv_timing_py.py; flashrr/pv/engine_tables.py builds the tables and
# documents the ids (PV block g = (lane * k + c) * S + in-plane block).

from libc.stdint cimport int32_t, int64_t, uint64_t
cimport cython


@cython.final
cdef class PVTiming:
    cdef int32_t k, N, S, W, n_words, window
    cdef int64_t t_prog
    cdef bint dynamic                  # pv_reassembly: every allocation assembles a new superblock
    cdef object _keep                  # NumPy arrays that own the memory below
    cdef int32_t* lwl                  # [N] logical word line of each page offset
    cdef int32_t* tprog                # [n_pv * W] program latency (ns) of each (PV block, LWL)
    cdef int64_t* tbers                # [n_pv] erase latency (ns)
    cdef int32_t* phys                 # [n_blocks] slot block -> PV block
    cdef int32_t* owner                # [n_pv] PV block -> slot block
    cdef int32_t* comp_die             # [n_lanes * k] die of each component
    cdef int64_t* bsum                 # [n_pv] block program latency sum (ns)
    cdef uint64_t* eigen               # [n_pv * n_words] STR-MED eigen bits
    cdef int32_t* cand                 # [S] scratch: free superblocks offered to a reassembly (the FTL fills it)
    cdef int32_t* pool                 # [k * S] scratch: sorted free PV blocks per component
    cdef int64_t* keys                 # [2 * S] scratch: (block sum, PV block) pairs to sort
    cdef int32_t* chosen               # [k] scratch

    cdef inline int64_t page_ns(self, int64_t ppn) noexcept nogil:
        """Program latency (ns) of page ``ppn`` alone."""
        cdef int64_t blk = ppn // self.N
        return self.tprog[<int64_t>self.phys[blk] * self.W + self.lwl[ppn - blk * self.N]]
    cdef void program_extra(self, const int32_t* ppns, int64_t* out, int32_t n) noexcept nogil
    cdef int64_t program_ns(self, int32_t sb, int32_t off, uint64_t cmask) noexcept nogil
    cdef int64_t erase_ns(self, int32_t sb, int32_t die) noexcept nogil
    cdef int reassemble(self, int32_t sb, int32_t n_free, bint slow) except -1 nogil
