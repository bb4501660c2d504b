# The compiled engine: the request loop over the layers below.  Its twin is
# engine_py.py; docs/model.md describes the model.
#   device/      the layers every run has: sched (dies, channels, queues), ftl
#                (mapping, frontiers), cache (DRAM LRU), reclaim (read counts, GC,
#                RR, migrations, the background loop), block_mix
#   options/     chosen by config: pv_timing, static_die, held_writes (gc.write_stall)
#   mechanisms/  chosen by policy, each a roles.Mechanism in the engine's role slots
# All times are int64 ns; ids follow layout.py.

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
cimport cython

from .device.cache cimport Cache
from .device.errors cimport ErrorState
from .device.ftl cimport Ftl
from .device.reclaim cimport Reclaim
from .device.sched cimport Scheduler
from .mechanisms.page_counters cimport PageCounters
from .options.held_writes cimport HeldWrites
from .options.pv_timing cimport PVTiming
from .roles cimport Host, Mechanism


@cython.final
cdef class CompiledEngine(Host):
    cdef readonly Scheduler sched      # readonly: tests reach the layers from Python
    cdef Ftl ftl
    cdef Cache cache
    cdef Reclaim rc
    cdef PageCounters page_counters
    cdef ErrorState em                 # error model (error_model.enabled; None when off)
    cdef bint em_on, em_retry          # em is set; and its retry steps replace the table's
    cdef readonly PVTiming pv          # process variation: per-block latencies (process_variation.pv_model)
    cdef bint pv_on
    # ---- role slots (roles.pxd; filled by assembly.build from the policy's mechanisms)
    cdef Mechanism readers             # head of the read-observer chain (None: none)
    cdef Mechanism requesters          # head of the request-observer chain
    cdef Mechanism writers             # head of the write-observer chain
    cdef Mechanism redirector          # read redirector (None: every read goes to its FTL copy)
    cdef Mechanism placer              # user-page placer (None: the FTL's user frontier)
    cdef Mechanism write_path          # write path without the cache (None: plain writes)
    cdef object slots                  # what assembly.build returned (tests reach the mechanisms)
    cdef object __weakref__            # the reclaim layer calls back through a weak reference (no cycle)
    cdef HeldWrites held               # gc.write_stall: pages waiting for their lane's erase (None when off)
    cdef bint stall_on
    cdef bint read_prio                # timing.read_priority: user writes wait for their dies' reads
    # ---- configuration (copied from Layout)
    cdef int32_t k, N, S, n_dies, cache_cap, n_steps
    cdef int32_t k_shift, N_shift      # log2 of k / N when a power of two, else -1 (divide instead)
    cdef int64_t t_read, t_prog, t_dram, t_retry
    cdef bint rr_enabled, check, read_allocate, ack_insert
    cdef int32_t* comp_die             # [n_lanes*k] die of component c of lane l
    cdef int32_t* comp_chan            # [n_lanes*k] channel of component c of lane l
    cdef int32_t* comp_plane           # [n_lanes*k] plane index within its die
    cdef int32_t* blk_comp             # [n_blocks] lane * k + component of every physical block
    # ---- per-request scratch (sized by the largest request)
    cdef int32_t* buf_lpn              # misses / pages to write
    cdef int32_t* buf_ppn              # their ppns
    cdef int32_t* buf_loc              # where each is read (its old place while a move is pending)
    cdef int64_t* buf_extra            # read-retry time of each (ns)
    cdef int64_t* buf_em               # error model on: (ppn, retry steps) of each read, before redirection
    cdef int64_t* buf_end              # when each written page's program ends (ns)
    cdef int32_t* buf_evict            # dirty pages evicted by this request
    cdef int32_t* buf_pending          # superblocks due for RR
    cdef int32_t* tx_die               # multi-plane transactions of this request
    cdef int32_t* tx_off
    cdef uint64_t* tx_mask
    cdef int32_t* tx_chan
    cdef int32_t* tx_n
    cdef int64_t* tx_extra
    cdef int32_t buf_cap
    # ---- outputs
    cdef int64_t* cnt                  # counters, C_* in common.pxd
    cdef int64_t* hist                 # [3*HIST_BUCKETS] read, write, io
    cdef int64_t last_arrival
    # ---- Python side
    cdef object arrays, hooks, layout
    cdef int64_t layout_page_size      # bytes per page (set by run)
    cdef int64_t n_filled              # LPNs written by the precondition fill (must stay mapped)

    cdef int32_t _group(self, int32_t n) noexcept nogil                     # buf_loc -> multi-plane tx_*
    cdef void _record(self, int32_t h, int64_t lat) noexcept nogil          # latency into the histograms
    cdef int64_t _user_page(self, int32_t lpn, int64_t t) except -1 nogil  # map lpn to the next user slot
    cdef int32_t _map_pages(self, int32_t* lpns, int32_t n, int64_t t) except -1 nogil  # map, group into tx_*
    cdef int64_t _program_pages(self, int32_t* lpns, int32_t n, int64_t t, int32_t cause) except -2 nogil
    cdef int32_t _queue_programs(self, int32_t ntx, int64_t t, int64_t done, int32_t n_held) except -1 nogil
    cdef int _take_writes(self) except -1 nogil                            # record the writes sched completed
    cdef int64_t _model_extra(self, int64_t blk, int64_t t, int32_t i) except -1 nogil  # retry ns, model on
    cdef int _read(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil
    cdef int _write(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil
    cdef int64_t _stall_write(self, int64_t t, int64_t lpn0, int64_t lpn1) except -2 nogil  # -1: held
    cdef int _release(self, int32_t lane, int64_t e) except -1 nogil      # book the lane's held pages at e
    cdef int _erase_events(self, int64_t t, bint collect) except -1 nogil  # erase ends by t, earliest first
    cdef int _run_loop(self, const int64_t* tns, const int64_t* off, const int64_t* size, const uint8_t* wr,
                       int64_t n, int32_t repeat) except -1 nogil
