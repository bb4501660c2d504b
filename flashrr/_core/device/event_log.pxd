# The RR and GC migrations of one run, one record each, kept column by column in C
# arrays (no Python object per record).  Twin: event_log_py.py.

from libc.stdint cimport int32_t, int64_t
cimport cython

cdef enum:
    RR_CODE = 0                        # the index of RR_ROUTINE in every log's names
    GC_CODE = 1                        # and of GC_ROUTINE


@cython.final
cdef class EventLog:
    cdef int32_t k                     # blocks per superblock: read counts per record
    cdef int64_t n, cap                # records held, and room for
    cdef int64_t* t                    # when the migration was decided (ns)
    cdef int32_t* victim               # its superblock
    cdef int32_t* lane
    cdef int32_t* reads                # [cap * k] the victim's block read counts when it was chosen
    cdef int32_t* moved                # valid pages moved
    cdef int32_t* routine              # index into names
    cdef int32_t* mix                  # [cap * 3] pages programmed into the victim since its erase:
                                       # by the host, by read reclaim, by GC
    cdef double* margin                # RBER margin (NaN: none)
    cdef list names                    # routine labels, by index
    cdef dict codes                    # label -> index

    cdef int32_t code(self, str name) except -1                 # the index of a routine label
    cdef int add(self, int64_t t, int32_t victim, int32_t lane, const int32_t* reads, int32_t moved,
                 int32_t routine, int64_t mu, int64_t mr, int64_t mg, double margin) except -1 nogil
