# Error-model state of the blocks: P/E cycles, when each block's data was first
# programmed, and the read counts the model's tables give for them (RR threshold,
# retry switch points).  Twin: errors_py.py.  docs/reliability.md, "In the engine".

from libc.stdint cimport INT64_MIN, int32_t, int64_t
cimport cython


@cython.final
cdef class ErrorState:
    cdef object T                      # flashrr.reliability.engine_tables.ErrorTables
    cdef object _keep                  # NumPy arrays that own the memory below
    cdef int32_t pe_lo, pe_hi          # P/E counts tab covers, [pe_lo, pe_hi)
    cdef bint trigger_on               # read_reclaim.trigger == "rber": write rr_threshold
    cdef bint retry_on                 # read_retry.retry_model == "rber": switch points
    cdef int32_t S                     # retry steps: the ladder's under "rber" retry, else the table's
    cdef int32_t W                     # int32 per (row, bucket): trigger, then switch[0..S]
    cdef int32_t n_buckets             # retention buckets per row
    cdef int64_t thr0                  # read_reclaim.rr_threshold_reads (reads)
    cdef int64_t quantum_ns            # retention bucket unit (ns)
    cdef int64_t offset_ns             # data_age_s (ns) while preconditioning, else 0
    cdef int64_t age_ns
    cdef int32_t* block_reads          # [n_blocks] borrowed from the reclaim layer
    cdef int32_t* rr_threshold         # [n_blocks] borrowed from the reclaim layer (written under "rber")
    cdef int32_t* pe                   # [n_blocks] P/E cycles: initial draw + erases
    cdef int64_t* born                 # [n_blocks] ns: first program since erase (UNSET: none)
    # next_t and switch live in one record per block, stride int32s apart, so that a read
    # loads one cache line for both: next_t[blk * nt_stride], switch + blk * stride
    cdef int32_t stride, nt_stride
    cdef int64_t* next_t               # ns: look the block's tables up again from here
    cdef int32_t* mult                 # [n_blocks] a policy's RR threshold multiplier at first program
    cdef int32_t* switch               # [S + 1] per block: reads from which a read needs > s steps
    cdef int64_t* upper_ns             # [n_buckets] retention (ns) at which each bucket ends
    cdef int32_t* tab                  # [(pe_hi - pe_lo) * n_buckets * W] ErrorTables.rows
    cdef int64_t* ctr                  # [S + 2] user page reads by steps 0..S, then uncorrectable reads

    cdef int first_program(self, int64_t blk, int64_t t) except -1 nogil # blk's first page since erase, at t
    cdef void erased(self, int64_t blk) noexcept nogil
    cdef int refresh(self, int64_t blk, int64_t t) except -1 nogil       # look blk's read counts up at t
    cdef inline int programmed(self, int64_t blk, int64_t t) except -1 nogil:
        """A page of blk is programmed at t (ns); the first since its erase starts its data's age."""
        if self.born[blk] == INT64_MIN:               # UNSET
            return self.first_program(blk, t)
        return 0
    cdef inline int touch(self, int64_t blk, int64_t t) except -1 nogil:
        """Look blk's read counts up again if its retention left its bucket by t (ns)."""
        if t >= self.next_t[blk * self.nt_stride]:
            return self.refresh(blk, t)
        return 0
    cdef int grow(self, int32_t pe) except -1 with gil                   # extend tab to cover pe
    cdef int32_t steps(self, int64_t blk) noexcept nogil                  # steps at its reads (S + 1: uncorrectable)


cdef inline int32_t switch_steps(const int32_t* sw, int32_t S, int32_t reads) noexcept nogil:
    """Retry steps of a read at ``reads`` block reads: how many of the S + 1 switch points
    sw[0..S] it has reached (S + 1: uncorrectable).  The points do not decrease (each
    step corrects more), so the count stops at the first one not reached."""
    cdef int32_t c = 0
    while c <= S and reads >= sw[c]:
        c += 1
    return c


cdef inline void count_steps(int64_t* ctr, int32_t S, int32_t c) noexcept nogil:
    """Count a user page read of c steps into ctr[0..S], and ctr[S + 1] if uncorrectable."""
    if c > S:
        ctr[S + 1] += 1
        c = S
    ctr[c] += 1
