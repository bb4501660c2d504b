# HotR hot-read replication: the R-LRU of recently read pages with read counts,
# replicas of hot pages in a staging space, and redirection of reads whose die
# is programming.  Twin: hot_replicas_py.py.  docs/hotr.md gives the model.

from libc.stdint cimport int32_t, int64_t
cimport cython

from ..roles cimport Mechanism, counts_list
from ..device.sched cimport Scheduler

cdef enum:
    # own counters (ctr), in the order of the registry line's names (mechanisms/__init__.py)
    HR_REDIRECTED = 0                  # read requests / pages served by a replica
    HR_REDIRECTED_PAGES
    HR_REPLICA_WRITES
    HR_REPLICA_INVALID
    HR_RLRU_EVICT
    HR_STAGING_MAX
    HR_BUSY_STAGING                    # ns
    HR_REPLICA_DROPS                   # replicas dropped to make room in a full staging space
    HR_REPLICA_REFUSALS                # pages owed a replica refused by a full staging space (staging_stop)
    HR_N_COUNTERS


@cython.final
cdef class HotReplicas(Mechanism):
    # roles (roles.pxd): read observer (reads_done: replica programs), write observer (host_write), read redirector (redirect, reserve)
    # ---- configuration (policy.replication_spec())
    cdef int32_t thr                   # read count (this read included) at which a page is replicated
    cdef int32_t cap                   # staging capacity (replicas, pages)
    cdef int32_t n_max                 # R-LRU entries (>= cap)
    cdef int32_t n_stage               # staging dies (dedicated mode)
    cdef bint op_mode                  # replicas in the data dies' spare space instead of staging dies
    cdef bint erase_blocks             # an erase in progress also makes a read "blocked"
    cdef bint staging_stop             # a full staging space refuses new replicas (else it gives one up)
    cdef bint blocked_only             # only reads whose die is blocked touch the R-LRU
    cdef int32_t k, N, S, n_dies, k_shift, N_shift
    cdef int64_t t_read, t_prog, t_xfer
    cdef int32_t* comp_die             # [n_lanes*k] (borrowed)
    cdef int32_t* die_chan             # [n_dies] channel of each data die
    cdef Scheduler sched
    cdef int64_t ctr[HR_N_COUNTERS]    # own counters, HR_*
    cdef object _keep
    # ---- R-LRU: a doubly linked list over entry slots, MRU at head
    cdef int32_t* ent_of               # [logical] entry + 1 of each LPN, 0 = not in the list
    cdef int32_t* e_lpn
    cdef int32_t* e_count              # reads of the page while in the list
    cdef int32_t* e_rep                # die holding the replica (staging die, or data die in op mode), -1 none,
                                       # -2 pending (its program waits for a staging die)
    cdef int64_t* e_ready              # when the replica's program ends (ns)
    cdef int64_t* e_gen                # allocations of the slot and replicas it lost so far: a queued replica
                                       # program is for one generation (an earlier entry's or replica's is stale)
    cdef int32_t* e_prev
    cdef int32_t* e_next
    cdef int32_t head, tail, n_ent, n_free
    cdef int32_t* free_ent             # [n_max] stack of unused slots
    # ---- the entries holding a replica (held or pending), in a second list, most recently read or
    # replicated at rhead: a full staging space drops the replica at rtail
    cdef int32_t* r_prev
    cdef int32_t* r_next
    cdef int32_t rhead, rtail
    cdef int32_t occupancy             # replicas held
    cdef int32_t rep_next              # round-robin pointer over replica dies
    cdef int64_t* st_free              # [n_stage] busy-until of each staging die (own channel each)
    # ---- dedicated mode: replica programs waiting for a staging die (FIFO ring; background work)
    cdef int32_t* bq_ent
    cdef int64_t* bq_gen                # generation of the entry each queued program is for
    cdef int64_t* bq_ready
    cdef int64_t bq_head, bq_len, bq_cap
    # ---- per request
    cdef int32_t* pend_ent             # entries owed a replica program once the request's reads end
    cdef int32_t* pend_lpn
    cdef int32_t* pend_die             # die the original was read on (op mode avoids it)
    cdef int32_t n_pend, pend_cap

    cdef int drain(self, int64_t t) except -1 nogil
    cdef int bq_push(self, int32_t e, int64_t ready) except -1 nogil
    cdef int32_t die_of(self, int64_t ppn) noexcept nogil
    cdef bint blocked(self, int32_t die, int64_t t) noexcept nogil
    cdef void unlink(self, int32_t e) noexcept nogil
    cdef void push_mru(self, int32_t e) noexcept nogil
    cdef void r_unlink(self, int32_t e) noexcept nogil
    cdef void r_push_mru(self, int32_t e) noexcept nogil
    cdef void drop(self, int32_t e) noexcept nogil
