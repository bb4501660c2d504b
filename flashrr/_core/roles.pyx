# cython: language_level=3
"""The base of every compiled mechanism (roles.pxd lists the roles); twin
``roles_py.py``.  Each method is a no-op here: a mechanism overrides the methods
of the roles it declares, and the engine calls only those of the slots it filled."""
from libc.stdint cimport int32_t, int64_t


cdef class Host:
    cdef int64_t program_user_pages(self, int32_t* lpns, int32_t n, int64_t t) except -2 nogil:
        return t

    cdef int64_t map_user_page(self, int32_t lpn, int64_t t) except -1 nogil:
        return 0


cdef class Mechanism:
    cdef int page_read(self, int64_t ppn, int64_t blk, int32_t reads, int32_t threshold,
                       int64_t done) except -1 nogil:
        return 0

    cdef int reads_done(self, int64_t done) except -1 nogil:
        return 0

    cdef int arrival(self, int64_t t) except -1 nogil:
        return 0

    cdef int request_done(self, int64_t done) except -1 nogil:
        return 0

    cdef void block_erased(self, int64_t blk) noexcept nogil:
        pass

    cdef void host_write(self, int64_t lpn0, int64_t lpn1) noexcept nogil:
        pass

    cdef int32_t redirect(self, int32_t* lpns, int32_t* ppns, int32_t* locs, int64_t* extras, int32_t n,
                          int64_t t) except -1 nogil:
        return n

    cdef int64_t user_page(self, int32_t lpn) except -1 nogil:
        return 0

    cdef void victim_chosen(self, int32_t victim) noexcept nogil:
        pass

    cdef bint places_migration(self, bint is_rr) noexcept nogil:
        return False

    cdef int plan_migration(self, int32_t victim, bint is_rr, const int32_t* lpns, int32_t n) except -1 nogil:
        return 0

    cdef int32_t migration_order(self, int32_t q) noexcept nogil:
        return q

    cdef int64_t migration_page(self, int32_t lane, int32_t q, int32_t lpn, int32_t dest) except -2 nogil:
        return -1

    cdef void migration_moved(self, const int32_t* lpns, int32_t n) noexcept nogil:
        pass

    cdef void migration_done(self, int32_t lane) noexcept nogil:
        pass

    cdef int64_t move_page_slot(self, int32_t lane, int32_t lpn, int32_t src_blk) except -2 nogil:
        return -1

    cdef int64_t write(self, Host host, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil:
        return t

    cdef int reserve(self, int32_t n) except -1:
        return 0

    cdef int chain_page_read(self, int64_t ppn, int64_t blk, int32_t reads, int32_t threshold,
                             int64_t done) except -1 nogil:
        self.page_read(ppn, blk, reads, threshold, done)
        if self.next_reader is not None:
            self.next_reader.chain_page_read(ppn, blk, reads, threshold, done)
        return 0

    cdef int chain_reads_done(self, int64_t done) except -1 nogil:
        self.reads_done(done)
        if self.next_reader is not None:
            self.next_reader.chain_reads_done(done)
        return 0

    cdef int chain_arrival(self, int64_t t) except -1 nogil:
        self.arrival(t)
        if self.next_request is not None:
            self.next_request.chain_arrival(t)
        return 0

    cdef int chain_request_done(self, int64_t done) except -1 nogil:
        self.request_done(done)
        if self.next_request is not None:
            self.next_request.chain_request_done(done)
        return 0

    cdef void chain_block_erased(self, int64_t blk) noexcept nogil:
        self.block_erased(blk)
        if self.next_eraser is not None:
            self.next_eraser.chain_block_erased(blk)

    cdef void chain_host_write(self, int64_t lpn0, int64_t lpn1) noexcept nogil:
        self.host_write(lpn0, lpn1)
        if self.next_writer is not None:
            self.next_writer.chain_host_write(lpn0, lpn1)

    def counter_values(self):
        """The values of the counters the registry entry names, in its order."""
        return []

    def reset_counters(self):
        """Zero those counters (the engine calls it after preconditioning)."""

    def link(self, role, Mechanism after):
        """Chain this mechanism after ``after`` in the observer role ``role`` (the
        engine builder's only way to set the links)."""
        if role == "read_observer":
            after.next_reader = self
        elif role == "request_observer":
            after.next_request = self
        elif role == "erase_observer":
            after.next_eraser = self
        elif role == "write_observer":
            after.next_writer = self
        else:
            raise ValueError(f"role {role!r} does not chain")
