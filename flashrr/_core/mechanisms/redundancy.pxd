# Die-level redundancy against read/write interference (the HotR paper's
# baselines): Rails (mirrored halves with time-sliced read and write roles) and
# TTFlash (4+1 rotated parity, reads of a busy die rebuilt from its stripe).
# Twin: redundancy_py.py.  docs/hotr.md gives the model.

from libc.stdint cimport int32_t, int64_t
cimport cython

from ..roles cimport Mechanism, counts_list
from ..device.ftl cimport Ftl
from ..device.sched cimport Scheduler

cdef enum:
    RED_RAILS = 1
    RED_TTFLASH = 2
    RED_OPTIMAL = 3                    # HotR Fig. 1(b)'s "Optimal": reads never wait for programs

cdef enum:
    # own counters (ctr), in the order of the registry line's names (mechanisms/__init__.py)
    RD_REDIRECTED = 0                  # read requests / pages served other than by their die's read
    RD_REDIRECTED_PAGES
    RD_RECONSTRUCTED
    RD_RECON_READS
    RD_PARITY_READS
    RD_PARITY_PROGS
    RD_RAILS_BUF_HITS
    RD_MIRROR_PROGS
    RD_N_COUNTERS


@cython.final
cdef class Redundancy(Mechanism):
    # roles (roles.pxd): read redirector (redirect), write path (write, reserve);
    # static_placement() gives Rails' and TTFlash's user-page placer
    # ---- configuration (policy.redundancy_spec())
    cdef int32_t mode                  # RED_RAILS / RED_TTFLASH / RED_OPTIMAL
    cdef int32_t n_data                # Rails: dies of a half (half A = dies 0..n_data-1, B = the rest)
    cdef int32_t n_groups              # TTFlash: groups of 5 dies
    cdef int64_t period                # Rails: role period (ns)
    cdef int32_t k, N, S, k_shift, N_shift
    cdef int64_t t_read, t_prog, t_dram
    cdef int32_t* comp_die             # [n_lanes*k] (borrowed)
    cdef int32_t* die_chan             # [n_dies]
    cdef Scheduler sched
    cdef Ftl ftl
    cdef int64_t* cnt                  # engine counters (borrowed): the pages it programs
    cdef int64_t ctr[RD_N_COUNTERS]    # own counters, RD_*
    cdef object _keep
    cdef int64_t t_xfer
    cdef int64_t* rd_free              # [n_dies] Optimal: busy-until of each die's read-only timeline
    # ---- Rails
    cdef int64_t cur_p                 # current period
    cdef int32_t* stamp                # [logical] period + 1 of the LPN's last host write, 0 never
    cdef int32_t* fifo                 # LPNs written in the current period (each once)
    cdef int64_t n_fifo, fifo_cap
    # flush programs waiting for their die (background work): per-die FIFOs linked through f_next
    cdef int32_t* f_lpn
    cdef int32_t* f_next
    cdef int64_t* f_ready
    cdef int64_t n_f, f_cap, f_left      # items stored, capacity, items not booked yet
    cdef int32_t* f_head               # [n_dies] first item, -1 none
    cdef int32_t* f_tail               # [n_dies]
    cdef int64_t prev_t                # arrival of the previous request (the scheduler's previous horizon)
    cdef int32_t* wbuf                 # the LPNs of the write being booked (write path)
    cdef int32_t wbuf_cap

    cdef int32_t die_of(self, int64_t ppn) noexcept nogil
    cdef bint blocked(self, int32_t die, int64_t t) noexcept nogil
    cdef int64_t read1(self, int32_t die, int64_t t) except -1 nogil
    # Rails
    cdef int switch(self, int64_t t) except -1 nogil
    cdef int flush_push(self, int32_t die, int32_t lpn, int64_t ready) except -1 nogil
    cdef int drain(self, int64_t t, bint force) except -1 nogil
    cdef bint writes_to_a(self) noexcept nogil
    cdef int stamp_writes(self, int64_t lpn0, int64_t lpn1) except -1 nogil
    cdef int64_t program_b(self, int64_t lpn0, int64_t lpn1, int64_t t) except -1 nogil
    # TTFlash
    cdef int64_t stripe_reads(self, int64_t lpn, int32_t w, int64_t t) except -1 nogil
    cdef int64_t parity_program(self, int64_t stripe, int64_t t) except -1 nogil
