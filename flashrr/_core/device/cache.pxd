# Cache layer: the DRAM data cache, LRU over pages, write-back.
# Twin: cache_py.py.  The slot of each LPN lives in the FTL's
# interleaved lmap (lmap[2*lpn+1]), so a lookup costs one memory access.

from libc.stdint cimport int8_t, int32_t
cimport cython

from .common cimport *


ctypedef struct Slot:                  # one cached page; 16 bytes, so an LRU step touches one line
    int32_t prev                       # towards the head (most recent), -1 none
    int32_t next                       # towards the tail (least recent), -1 none
    int32_t lpn                        # -1 free
    int32_t dirty                      # 1: written since it came from flash


@cython.final
cdef class Cache:
    cdef int32_t cap                   # pages
    cdef int32_t* lmap                 # the FTL's lmap (borrowed): lmap[2*lpn+1] = slot or -1
    cdef Slot* slot                    # [cap]
    cdef int32_t head, tail, size
    cdef object _keep                  # NumPy arrays that own the memory above

    cdef inline void unlink(self, int32_t s) noexcept nogil:
        cdef int32_t p = self.slot[s].prev, q = self.slot[s].next
        if p >= 0:
            self.slot[p].next = q
        else:
            self.head = q
        if q >= 0:
            self.slot[q].prev = p
        else:
            self.tail = p
    cdef inline void push_head(self, int32_t s) noexcept nogil:
        self.slot[s].prev = -1
        self.slot[s].next = self.head
        if self.head >= 0:
            self.slot[self.head].prev = s
        self.head = s
        if self.tail < 0:
            self.tail = s
    cdef inline void touch(self, int32_t s) noexcept nogil:
        if self.head != s:
            self.unlink(s)
            self.push_head(s)
    cdef inline void mark_dirty(self, int32_t s) noexcept nogil:
        self.slot[s].dirty = 1
    cdef inline void prefetch_victims(self, int32_t n, const int32_t* p2l) noexcept nogil:
        """Prefetch what evicting the next 2n LRU victims touches (no effect on results):
        the mapping entries of victims n..2n-1, and for the dirty ones among victims 0..n-1,
        whose entries earlier calls brought in, the reverse-map entry of the page their
        write-back will invalidate."""
        cdef int32_t s = self.tail, i = 0, ppn
        while i < 2 * n and s >= 0:
            if i >= n:
                prefetch(&self.lmap[2 * self.slot[s].lpn])
            elif self.slot[s].dirty:
                ppn = self.lmap[2 * self.slot[s].lpn]
                if ppn >= 0:
                    prefetch(&p2l[ppn])
            s = self.slot[s].prev
            i += 1
    cdef inline int32_t insert(self, int32_t lpn, int8_t dirty, int32_t* evicted, int32_t n_ev) noexcept nogil:
        """Insert lpn as most recent; a dirty LRU victim is appended to evicted.  Returns the new n_ev."""
        cdef int32_t s
        if self.size >= self.cap:
            s = self.tail
            self.unlink(s)
            self.lmap[2 * self.slot[s].lpn + 1] = -1
            if self.slot[s].dirty:
                evicted[n_ev] = self.slot[s].lpn
                n_ev += 1
        else:
            s = self.size
            self.size += 1
        self.slot[s].lpn = lpn
        self.slot[s].dirty = dirty
        self.lmap[2 * lpn + 1] = s
        self.push_head(s)
        return n_ev
