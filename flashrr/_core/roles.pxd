# The roles a compiled mechanism can fill.  Every mechanism is a subclass of
# Mechanism and overrides the methods of the roles it declares (its spec's
# ``roles``); the engine holds one slot per role and calls through this base
# type, so it never names a mechanism.  Twin: roles_py.py.  docs/policies.md
# ("Writing a compiled mechanism") lists the roles and their call points.
#
#   read observer      page_read() after every flash read of a page, reads_done()
#                      after a read request's flash reads; several chain (next_reader)
#   request observer   arrival() before, request_done() after every host request;
#                      several chain (next_request)
#   erase observer     block_erased() for every erased block; several chain (next_eraser)
#   write observer     host_write() for every host write request; several chain (next_writer)
#   read redirector    redirect(): may serve a read's pages elsewhere (exclusive)
#   user-page placer   user_page(): the ppn of the next user page (exclusive)
#   write path         write(): a host write that does not go through the data cache
#                      (exclusive); it programs through the engine's Host methods
#   migration placer   where the pages of RR and GC migrations and of single page moves
#                      go (exclusive): victim_chosen(), places_migration(),
#                      plan_migration(), migration_order(), migration_page(),
#                      migration_moved(), migration_done(), move_page_slot()
#
# All times are int64 ns.

from libc.stdint cimport int32_t, int64_t


cdef inline list counts_list(const int64_t* a, int n):
    """``[a[0], ..., a[n - 1]]``: a mechanism's own counters, for its ``counter_values()``."""
    cdef int i
    return [a[i] for i in range(n)]


cdef class Host:
    # What a write path may ask of the engine (the engine is a Host).
    cdef int64_t program_user_pages(self, int32_t* lpns, int32_t n, int64_t t) except -2 nogil  # latest end
    cdef int64_t map_user_page(self, int32_t lpn, int64_t t) except -1 nogil  # its ppn; programmed later


cdef class Mechanism:
    cdef Mechanism next_reader         # chains of the observer roles (None ends a chain)
    cdef Mechanism next_request
    cdef Mechanism next_eraser
    cdef Mechanism next_writer
    cdef int64_t redirect_end          # set by redirect(): when its own reads end (ns)
    cdef bint redirect_blocked         # set by redirect(): one of its reads waited behind a program
    cdef bint places_fill              # user-page placer: the precondition fill goes through it too

    cdef int page_read(self, int64_t ppn, int64_t blk, int32_t reads, int32_t threshold,
                       int64_t done) except -1 nogil
    cdef int reads_done(self, int64_t done) except -1 nogil
    cdef int arrival(self, int64_t t) except -1 nogil
    cdef int request_done(self, int64_t done) except -1 nogil
    cdef void block_erased(self, int64_t blk) noexcept nogil
    cdef void host_write(self, int64_t lpn0, int64_t lpn1) noexcept nogil
    cdef int32_t redirect(self, int32_t* lpns, int32_t* ppns, int32_t* locs, int64_t* extras, int32_t n,
                          int64_t t) except -1 nogil
    cdef int64_t user_page(self, int32_t lpn) except -1 nogil
    cdef void victim_chosen(self, int32_t victim) noexcept nogil          # every migration's victim
    cdef bint places_migration(self, bint is_rr) noexcept nogil           # False: the GC/RR frontier takes them
    cdef int plan_migration(self, int32_t victim, bint is_rr, const int32_t* lpns, int32_t n) except -1 nogil
    cdef int32_t migration_order(self, int32_t q) noexcept nogil          # the q-th page to place
    cdef int64_t migration_page(self, int32_t lane, int32_t q, int32_t lpn, int32_t dest) except -2 nogil  # -1: the frontier
    cdef void migration_moved(self, const int32_t* lpns, int32_t n) noexcept nogil  # after the victim's erase is decided
    cdef void migration_done(self, int32_t lane) noexcept nogil           # at the end of every migration
    cdef int64_t move_page_slot(self, int32_t lane, int32_t lpn, int32_t src_blk) except -2 nogil  # -1: the frontier
    cdef int64_t write(self, Host host, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil  # its end
    cdef int reserve(self, int32_t n) except -1                 # room for n pages per request (with the GIL)

    # The chain walkers the engine calls on the head of a chain (nogil code cannot hold
    # a reference to walk a list, so each link calls the next one).  Not inline: inlined
    # into the engine's loops they made _read, _write and _run_loop a third larger.
    cdef int chain_page_read(self, int64_t ppn, int64_t blk, int32_t reads, int32_t threshold,
                             int64_t done) except -1 nogil
    cdef int chain_reads_done(self, int64_t done) except -1 nogil
    cdef int chain_arrival(self, int64_t t) except -1 nogil
    cdef int chain_request_done(self, int64_t done) except -1 nogil
    cdef void chain_block_erased(self, int64_t blk) noexcept nogil
    cdef void chain_host_write(self, int64_t lpn0, int64_t lpn1) noexcept nogil
