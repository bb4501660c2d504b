# cython: language_level=3
"""Held user writes under gc.write_stall (compiled; twin ``held_writes_py.py``)."""
from libc.stdlib cimport free
from libc.string cimport memmove

from ..device.sched cimport _grow


cdef class HeldWrites:
    def __init__(self):
        self.cap = 16
        self.pages = <HeldPage*>_grow(NULL, sizeof(HeldPage) * self.cap)
        self.req_cap = 16
        self.reqs = <HeldReq*>_grow(NULL, sizeof(HeldReq) * self.req_cap)
        self.n = self.n_req = self.open_reqs = 0

    def __dealloc__(self):
        free(self.pages)
        free(self.reqs)

    cdef int32_t new_req(self, int64_t t, int64_t done, int32_t left) except -1 nogil:
        if self.open_reqs == 0:
            self.n_req = 0
        if self.n_req == self.req_cap:
            self.req_cap *= 2
            self.reqs = <HeldReq*>_grow(self.reqs, sizeof(HeldReq) * self.req_cap)
        self.reqs[self.n_req].t = t
        self.reqs[self.n_req].done = done
        self.reqs[self.n_req].left = left
        self.n_req += 1
        self.open_reqs += 1
        return self.n_req - 1

    cdef int hold(self, int64_t ppn, int32_t lane, int32_t req) except -1 nogil:
        if self.n == self.cap:
            self.cap *= 2
            self.pages = <HeldPage*>_grow(self.pages, sizeof(HeldPage) * self.cap)
        self.pages[self.n].ppn = ppn
        self.pages[self.n].lane = lane
        self.pages[self.n].req = req
        self.n += 1
        return 0

    cdef HeldPage take(self, int32_t i) noexcept nogil:
        cdef HeldPage p = self.pages[i]
        self.n -= 1
        memmove(&self.pages[i], &self.pages[i + 1], sizeof(HeldPage) * (self.n - i))
        return p

    cdef bint page_booked(self, int32_t req, int64_t end) noexcept nogil:
        cdef HeldReq* r = &self.reqs[req]
        if end > r.done:
            r.done = end
        r.left -= 1
        if r.left == 0:
            self.open_reqs -= 1
            return True
        return False
