# The transactions of one migration: reads, multi-plane programs and erases as the
# scheduler books them (part of the reclaim layer).  docs/model.md section 5.

from libc.stdint cimport int32_t, int64_t, uint64_t
cimport cython

from .ftl cimport Ftl
from ..options.pv_timing cimport PVTiming

cdef enum:
    MAX_RANKED = 8                     # destination superblocks a migration's program keys rank (more: raw ids)

cdef int32_t die_ranks(const int32_t* die, int32_t k, int32_t* rank) noexcept nogil   # each die's rank


@cython.final
cdef class MigrationTxns:
    cdef Ftl ftl
    cdef object _keep                  # NumPy arrays that own the memory below (and the reclaim layer's)
    cdef int32_t k, N
    cdef bint copyback                 # gc.copyback: a page moved within its die does not cross the channel
    cdef int64_t t_read, t_prog, t_erase
    cdef int32_t* comp_die             # the reclaim layer's arrays (borrowed): die and channel of component c
    cdef int32_t* comp_chan            # of lane l, extra read time after 0..steps retries,
    cdef int64_t* retry_extra
    cdef int32_t* m_comp               # the migration's pages: source component, offset, destination
    cdef int32_t* m_off                # component, new place
    cdef int32_t* m_dest
    cdef int64_t* m_newppn
    cdef int64_t* m_rowsb              # a one-die migration's program rows (Reclaim._move_plain)
    cdef int32_t* m_rowstamp
    cdef uint64_t* m_rowmask
    cdef int64_t* m_key                # (key, index) pairs for sorting programs, and the sort's scratch
    cdef int32_t* m_slot               # [MAX_RANKED*k*N] page index per (dest superblock rank, offset,
                                       # component), -1 empty: kept all -1 between migrations
    cdef int32_t* x_phase              # the migration's transactions, in booking order
    cdef int32_t* x_die
    cdef int32_t* x_chan
    cdef int32_t* x_xfer
    cdef int64_t* x_dur
    cdef int32_t* x_dsb
    cdef int32_t* x_off
    cdef uint64_t* x_cmask
    cdef int32_t* x_count              # transactions an entry stands for (runs)

    cdef int32_t reads(self, int32_t victim, int32_t n, int32_t nt, int32_t base, const int32_t* cdie,
                       const int64_t* cretry, const int32_t* drank) noexcept nogil  # one per (source row, die)
    cdef int64_t read_time(self, int32_t n, const int64_t* cretry, int32_t* n_rows) noexcept nogil
    cdef int32_t _source_row(self, int32_t q, int32_t n, const int64_t* cretry, int64_t* worst) noexcept nogil
    cdef int32_t read_runs(self, int32_t n, int32_t d, int32_t chan, const int64_t* cretry) noexcept nogil
    cdef int32_t progs_erases(self, int32_t victim, int32_t n, int32_t nt, int32_t base, const int32_t* drank,
                              int32_t n_ranks, PVTiming pv) noexcept nogil  # programs, then erases
    cdef int32_t _progs_direct(self, int32_t n, int32_t nt, int32_t nsb, const int64_t* sbs,
                               const int32_t* drank, int32_t n_ranks, int32_t base, PVTiming pv) noexcept nogil
    cdef int32_t _progs_sorted(self, int32_t n, int32_t nt, int32_t nsb, const int64_t* sbs,
                               const int32_t* drank, int32_t n_ranks, int32_t base, PVTiming pv) noexcept nogil
    cdef int _emit_prog(self, int32_t nt, int32_t base, int32_t first, int32_t xfer,
                        uint64_t cmask, PVTiming pv) noexcept nogil
    cdef int32_t prog_runs(self, int32_t nt, int32_t d, int32_t chan, int32_t nsb, int32_t serial) noexcept nogil
    cdef void emit(self, int32_t nt, int32_t phase, int32_t die, int32_t chan, int32_t xfer,
                   int64_t dur) noexcept nogil                           # transaction nt, a run of 1
