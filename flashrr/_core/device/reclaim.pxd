# Reclaim layer: read counts, read retry, GC, RR, migrations, and the loop
# that starts background work and policy idle moves in time order.
# Twin: reclaim_py.py.  docs/model.md sections 2, 4 and 5.

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
cimport cython

from .ftl cimport Ftl
from ..roles cimport Mechanism
from ..options.pv_timing cimport PVTiming
from .sched cimport EraseEv, Scheduler
from .block_mix cimport BlockMix
from .errors cimport ErrorState
from .event_log cimport EventLog
from .migration_txns cimport MigrationTxns


@cython.final
cdef class Reclaim:
    cdef Ftl ftl
    cdef Scheduler sched
    cdef int64_t* cnt                  # engine counters (borrowed)
    cdef object _keep                  # NumPy arrays that own the memory below
    # ---- configuration
    cdef int32_t k, N, S, n_dies, n_steps, sched_mode, gc_hard
    cdef int64_t t_read, t_prog, t_erase, t_retry, rr_thr0
    cdef int32_t* comp_die             # [n_lanes*k] die of component c of lane l
    cdef int32_t* comp_chan            # [n_lanes*k] channel of component c of lane l
    cdef int64_t* retry_steps          # [n_steps] retry thresholds, ppm of the RR threshold
    cdef int64_t* retry_extra          # [steps + 1] extra read time (ns) after 0..steps retries
    # ---- read disturb state
    cdef int32_t* block_reads          # [n_blocks] flash reads since erase
    cdef int32_t* block_erases         # [n_blocks] erases since the device was new (P/E cycles)
    cdef int32_t* rr_threshold         # [n_blocks] per-block RR threshold (policies may write)
    cdef bint in_mig                   # a migration is being decided
    cdef uint8_t* rr_touched           # [n_sb] a page was moved by RR logic since the last erase
    cdef Mechanism erasers             # head of the erase-observer chain (None: none)
    cdef bint untimed                  # precondition: decide, book nothing
    cdef PVTiming pv                   # per-block program/erase latencies (None: the timing's constants)
    cdef BlockMix mix                  # pages programmed per block by kind since its erase (all schemes)
    cdef int32_t* mix_user             # [n_blocks] its arrays: host pages, RR pages, GC pages
    cdef int32_t* mix_rr
    cdef int32_t* mix_gc
    cdef Mechanism mig                 # migration placer (roles.pxd; None: the GC/RR frontier takes every page)
    cdef ErrorState em                 # error-model state of the blocks (None: the model is off)
    cdef bint em_on, em_retry          # em is set; and read_retry.retry_model == "rber"
    # ---- policy hooks (Python, called only with the GIL) and the event records
    cdef object h_on_rr, h_place, h_choose, state_view, check_fn
    cdef bint place_rr, place_gc
    cdef bint aligned                  # gc.aligned_moves on a superblock of more than one block
    cdef EventLog rr_log, gc_log       # one record per RR / GC migration
    cdef int32_t cur_routine           # rr_log's index of the label of the RR routine under way
    cdef int32_t* cur_reads            # [k] block read counts of the victim when it was chosen
    cdef double cur_margin             # its RBER margin (an RR with the error model on; else NaN)
    # ---- migration scratch (sized for one superblock)
    cdef int32_t* m_comp               # source component of each valid page, source order
    cdef int32_t* m_off                # source offset
    cdef int32_t* m_lpn
    cdef int32_t* m_dest               # destination component
    cdef int32_t* m_order              # gc.aligned_moves: the order Ftl.gc_plan writes them in
    cdef int32_t* m_rows               # gc.aligned_moves: [2*N] Ftl.gc_plan's scratch
    cdef int64_t* m_newppn
    cdef int32_t* m_rowstamp           # [MAX_RANKED*N] last migration (rowstamp_serial) with a page bound for
    cdef int32_t rowstamp_serial       # (destination superblock, offset), the superblock by order of first use
    cdef uint64_t* m_rowmask           # [MAX_RANKED*N] components of the row's pages (where the stamp is current)
    cdef int64_t* m_rowsb              # [MAX_RANKED] the superblocks of those ranks ...
    cdef int32_t m_rownsb              # ... and how many
    cdef MigrationTxns tx              # the migration's transactions (reads, programs, erases) as booked

    cdef int64_t retries(self, int64_t blk) noexcept nogil                  # read retries at the block's count
    cdef int32_t die_of(self, int64_t ppn) noexcept nogil
    cdef int run_gc(self, int32_t lane, int64_t t) except -1 nogil          # one victim per allocation below threshold
    cdef int erase_event(self, int64_t t, EraseEv* ev, bint collect) except -2 nogil  # gc.free_pool = "erased"
    cdef int32_t gc_victim(self, int32_t lane, int64_t t) except -2 nogil
    cdef int call_place(self, bint is_rr, int32_t victim, int32_t n, int64_t t) except -1 with gil
    cdef int migrate(self, int32_t victim, bint is_rr, int64_t t) except -1 nogil   # decide; hand to the scheduler
    cdef int32_t _move_plain(self, int32_t victim, bint is_rr, int32_t n, bint fixed, bint rows, bint masks,
                            int64_t t) except -2 nogil
    cdef int32_t _open_job(self, bint is_rr, int32_t victim, int32_t lane, int64_t t) except -1 nogil
    cdef int schedule(self, bint is_rr, int32_t victim, int32_t lane, int64_t t, int32_t n_tx,
                      int32_t n_pages) except -1 nogil
    cdef int _book_one_die(self, bint is_rr, int32_t victim, int32_t lane, int64_t t, int32_t die,
                           int32_t n_reads, int64_t read_ns, int32_t n_progs) except -1 nogil
    cdef int read_reclaim(self, int32_t sb, int64_t t) except -1 nogil
    cdef int run_bg(self, int64_t until) except -1 nogil                   # start what can start before until
    cdef int idle_move(self, int32_t die, int64_t start) except -1 nogil
    cdef int move_page(self, int32_t die, int32_t lpn, int32_t src, int32_t dest, int64_t start,
                       int32_t cause) except -1 nogil                      # one page to the GC/RR frontier
