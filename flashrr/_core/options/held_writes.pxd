# Write stall (gc.write_stall): a user page whose lane's pool of erased superblocks is
# below the GC threshold waits for the lane's next erase end (MQSim's
# Stop_servicing_writes).  Twin: held_writes_py.py.  The engine maps the page at
# arrival and keeps it here; it books the program when an erase lets the lane write
# again, and records the request's latency when its last held page is booked.

from libc.stdint cimport int32_t, int64_t
cimport cython


ctypedef struct HeldPage:
    int64_t ppn                        # where the page is mapped (its program is not booked)
    int32_t lane
    int32_t req                        # index into the request table


ctypedef struct HeldReq:
    int64_t t                          # arrival (ns)
    int64_t done                       # latest end of its booked pages so far (ns)
    int32_t left                       # its pages still held


@cython.final
cdef class HeldWrites:
    cdef HeldPage* pages               # FIFO, oldest first
    cdef int32_t n, cap
    cdef HeldReq* reqs                 # ids restart when no request is open
    cdef int32_t n_req, req_cap, open_reqs

    cdef int32_t new_req(self, int64_t t, int64_t done, int32_t left) except -1 nogil
    cdef int hold(self, int64_t ppn, int32_t lane, int32_t req) except -1 nogil
    cdef HeldPage take(self, int32_t i) noexcept nogil                # remove page i, keep the order
    cdef bint page_booked(self, int32_t req, int64_t end) noexcept nogil  # True: the request is complete
