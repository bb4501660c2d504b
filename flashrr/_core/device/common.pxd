# Shared C definitions of the compiled engine's layers.  The Python twins of
# these numbers live in layout.py (states, causes, schedulers) and
# counters.py (the device counters' order); engine.pyx checks they agree at import.

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define FLASHRR_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define FLASHRR_PREFETCH(p) ((void)(p))
    #endif
    """
    # a hint to bring the cache line at p into the CPU cache; no effect on results
    void prefetch "FLASHRR_PREFETCH"(const void* p) noexcept nogil

cdef enum:
    # superblock states (layout.SB_*)
    S_FREE = 0
    S_OPEN_USER = 1
    S_OPEN_GC = 2
    S_CLOSED = 3
    S_VICTIM = 4

cdef enum:
    # phases of a migration job, in the order its transactions run
    PH_READ = 0
    PH_PROG = 1
    PH_ERASE = 2

cdef enum:
    # causes of flash busy time (layout.CAUSE_*)
    CAUSE_USER = 0
    CAUSE_FLUSH = 1
    CAUSE_GC = 2
    CAUSE_RR = 3
    CAUSE_MOVE = 4

cdef enum:
    # timing.scheduler (layout.SCHED_*)
    SCHED_USER_FIRST = 0
    SCHED_GC_FIRST = 1
    SCHED_FCFS = 2

cdef enum:
    # job kinds
    KIND_GC = 0
    KIND_RR = 1

cdef enum:
    # at most this many GC/RR frontier superblocks are open per lane (layout.GC_OPEN_MAX)
    GC_MAX = 2

cdef enum:
    # counter indices: the order of counters.COUNTERS (the device's; mechanisms keep their own)
    C_REQUESTS = 0
    C_READS
    C_WRITES
    C_READ_PAGES
    C_WRITE_PAGES
    C_CACHE_READ_HITS
    C_CACHE_WRITE_HITS
    C_FLASH_READ_PAGES
    C_RR_COUNT
    C_RR_MOVES
    C_GC_COUNT
    C_GC_MOVES
    C_ERASES
    C_HOST_PAGES
    C_PROGRAMMED
    C_USER_TXNS
    C_BLOCKED
    C_RETRY_NS
    C_READ_LAT
    C_WRITE_LAT
    C_BUSY_USER          # busy_<cause>_ns follow CAUSE_* order
    C_BUSY_FLUSH
    C_BUSY_GC
    C_BUSY_RR
    C_BUSY_MOVE
    C_USER_WAIT_BG
    C_WRITE_STALL
    C_BG_PENDING_END
    C_IDLE_MOVES
    C_IDLE_DROPPED
    C_RR_EPISODES        # read-reclaim accounting as PhasedRR counts it (docs/phasedrr.md)
    C_RR_FORCED
    C_ERASES_RR
    C_ERASES_GC
    C_RR_SECOND          # Cocktail's RR accounting: second-time RRs, RR victims' page composition
    C_RR_VIC_USER
    C_RR_VIC_RR
    C_RR_VIC_GC
    C_GC_AT_ERASE
    C_READ_FLASH_NS      # user reads' transaction time, t_read + retries (ns)
    N_COUNTERS


ctypedef struct KeyIdx:               # a sort key and the index it belongs to (qsort with cmp_keyidx)
    int64_t key
    int64_t idx


cdef inline int cmp_keyidx(const void* a, const void* b) noexcept nogil:
    """qsort order of KeyIdx: by key, ties by index."""
    cdef const KeyIdx* x = <const KeyIdx*>a
    cdef const KeyIdx* y = <const KeyIdx*>b
    if x.key != y.key:
        return -1 if x.key < y.key else 1
    if x.idx != y.idx:
        return -1 if x.idx < y.idx else 1
    return 0


cdef inline int64_t imax(int64_t a, int64_t b) noexcept nogil:
    return a if a > b else b


cdef inline int64_t imin(int64_t a, int64_t b) noexcept nogil:
    return a if a < b else b


cdef inline int64_t div_pow2(int64_t x, int32_t shift, int32_t d) noexcept nogil:
    """x // d, as a shift when d == 2**shift (shift >= 0); the layers keep shift = -1 otherwise."""
    return x >> shift if shift >= 0 else x // d


cdef inline void add_wide(int64_t* cnt, int i, int64_t v) noexcept nogil:
    """cnt[i] += v for a sum that can pass 2**63 in an overloaded run (latency and wait
    sums in ns): cnt[i] keeps the low 62 bits, cnt[N_COUNTERS + i] counts the carries, so
    the sum is cnt[i] + cnt[N_COUNTERS + i] * 2**62.  v must be >= 0."""
    cdef int64_t s = cnt[i] + v
    if s >= (<int64_t>1) << 62:
        cnt[N_COUNTERS + i] += s >> 62
        s &= ((<int64_t>1) << 62) - 1
    cnt[i] = s

