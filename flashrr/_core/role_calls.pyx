# cython: language_level=3
"""Python entry points to a compiled mechanism's role methods.

The role methods of :class:`flashrr._core.roles.Mechanism` are ``cdef`` (the
engine calls them without the GIL), so Python cannot reach them on a compiled
mechanism.  This module exists so that tests and notebooks can: one ``def`` per
role method, taking the mechanism and plain ints or NumPy arrays, calling the
method and returning what it returns.  No logic of its own; the pure-Python
twin of a mechanism (``<module>_py.py``) has the same methods under the same
names, so a test can drive both twins with the same events.

Units as in roles.pxd: times (``t``, ``done``) in ns, ``ppn``/``lpn`` in pages,
``blk`` a global block index, ``reads``/``threshold`` block reads.
"""
from libc.stdint cimport int32_t, int64_t

import numpy as np
cimport numpy as cnp

from .roles cimport Host, Mechanism

cnp.import_array()


def page_read(Mechanism m, int64_t ppn, int64_t blk, int32_t reads, int32_t threshold, int64_t done):
    """Read observer: a flash read of ``ppn`` in ``blk``, whose count is ``reads`` after it."""
    return m.page_read(ppn, blk, reads, threshold, done)


def reads_done(Mechanism m, int64_t done):
    """Read observer: the request's flash reads end at ``done``."""
    return m.reads_done(done)


def arrival(Mechanism m, int64_t t):
    """Request observer: a host request arrives at ``t``."""
    return m.arrival(t)


def request_done(Mechanism m, int64_t done):
    """Request observer: a host request completes at ``done``."""
    return m.request_done(done)


def block_erased(Mechanism m, int64_t blk):
    """Erase observer: block ``blk`` was erased."""
    m.block_erased(blk)


def host_write(Mechanism m, int64_t lpn0, int64_t lpn1):
    """Write observer: a host write of LPNs ``lpn0..lpn1``."""
    m.host_write(lpn0, lpn1)


def redirect(Mechanism m, lpns, ppns, locs, extras, int64_t t):
    """Read redirector: the read at ``t`` of the flash pages ``lpns`` (stored at ``ppns``,
    read at ``locs``, with retry time ``extras`` in ns).  Returns the pages left for their
    own dies as ``(lpns, ppns, locs, extras)`` (copies, compacted as the method leaves
    them), then ``redirect_end`` (ns) and ``redirect_blocked``."""
    cdef cnp.ndarray[int32_t, ndim=1] a_l = np.array(lpns, dtype=np.int32)
    cdef cnp.ndarray[int32_t, ndim=1] a_p = np.array(ppns, dtype=np.int32)
    cdef cnp.ndarray[int32_t, ndim=1] a_w = np.array(locs, dtype=np.int32)
    cdef cnp.ndarray[int64_t, ndim=1] a_x = np.array(extras, dtype=np.int64)
    cdef int32_t n = <int32_t>len(a_l)
    if len(a_p) != n or len(a_w) != n or len(a_x) != n:
        raise ValueError("redirect: lpns, ppns, locs and extras must have one entry per page")
    n = m.redirect(<int32_t*>a_l.data, <int32_t*>a_p.data, <int32_t*>a_w.data, <int64_t*>a_x.data, n, t)
    return a_l[:n], a_p[:n], a_w[:n], a_x[:n], m.redirect_end, bool(m.redirect_blocked)


def user_page(Mechanism m, int32_t lpn):
    """User-page placer: the ppn the next user page (of ``lpn``) takes."""
    return m.user_page(lpn)


def victim_chosen(Mechanism m, int32_t victim):
    """Migration placer: ``victim`` (a superblock) was chosen for a migration."""
    m.victim_chosen(victim)


def places_migration(Mechanism m, bint is_rr):
    """Migration placer: whether it places this migration's pages."""
    return bool(m.places_migration(is_rr))


def plan_migration(Mechanism m, int32_t victim, bint is_rr, lpns):
    """Migration placer: plan the migration of the valid ``lpns`` of ``victim``."""
    cdef cnp.ndarray[int32_t, ndim=1] a = np.array(lpns, dtype=np.int32)
    return m.plan_migration(victim, is_rr, <const int32_t*>a.data, <int32_t>len(a))


def migration_order(Mechanism m, int32_t q):
    """Migration placer: the source index of the ``q``-th page to place."""
    return m.migration_order(q)


def migration_page(Mechanism m, int32_t lane, int32_t q, int32_t lpn, int32_t dest):
    """Migration placer: the ppn of page ``q``; -1: the GC/RR frontier (component ``dest``)."""
    return m.migration_page(lane, q, lpn, dest)


def migration_moved(Mechanism m, lpns):
    """Migration placer: the migration moved ``lpns``."""
    cdef cnp.ndarray[int32_t, ndim=1] a = np.array(lpns, dtype=np.int32)
    m.migration_moved(<const int32_t*>a.data, <int32_t>len(a))


def migration_done(Mechanism m, int32_t lane):
    """Migration placer: the migration on ``lane`` ended."""
    m.migration_done(lane)


def move_page_slot(Mechanism m, int32_t lane, int32_t lpn, int32_t src_blk):
    """Migration placer: the ppn a single move of ``lpn`` takes; -1: the GC/RR frontier."""
    return m.move_page_slot(lane, lpn, src_blk)


def write(Mechanism m, Host host, int64_t t, int64_t lpn0, int64_t lpn1):
    """Write path: a host write of ``lpn0..lpn1`` arriving at ``t`` through ``host`` (the
    compiled engine); returns its end (ns)."""
    return m.write(host, t, lpn0, lpn1)


def reserve(Mechanism m, int32_t n):
    """Room for ``n`` pages per request (the engine calls it as its buffers grow)."""
    return m.reserve(n)
