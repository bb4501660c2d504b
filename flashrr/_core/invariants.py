"""Errors of the engines and the mapping invariants both engines check.

This module is the one place both engines take their error types and the
invariant checker from, so neither engine's copy of the model hides in the other.
:func:`check_state` raises :class:`InvariantError` (never a bare ``assert``), so
it also works under ``python -O``.
"""
from __future__ import annotations

import numpy as np

from .layout import SB_FREE, Layout

# combinations the engines refuse (both engines raise EngineError with these)
STATIC_WITH_POLICY_PLACEMENT = ("page_placement.placement: a static placement cannot be combined with a policy that "
                                "places user pages itself (write pool or RR streams); use placement 'dynamic'")
STALL_WITH_EARLY_MOVES = ("gc.write_stall: a held write has no completion time when it arrives, and early-move "
                          "policies (RL-RR, Reallocation) need one; turn gc.write_stall off")
READ_PRIORITY_WITH_POLICY_WRITES = ("timing.read_priority: a queued write has no completion time when it arrives, "
                                    "which early-move policies (RL-RR, Reallocation) need, and policies with a "
                                    "write path of their own (Rails, TTFlash) book their programs on arrival; "
                                    "turn timing.read_priority off")


class EngineError(RuntimeError):
    """The simulated device cannot continue (for example, it ran out of space)."""


class InvariantError(EngineError):
    """A model invariant broke: the mapping or the valid counts are inconsistent, or data was lost."""


def check_requests(time_ns: np.ndarray, offset: np.ndarray, size: np.ndarray, page_size: int,
                   logical_pages: int, last_arrival: int) -> None:
    """Raise :class:`EngineError` unless every request (offset, size in bytes) lies in the
    logical space [0, logical_pages * page_size) with size >= 1, and arrival times (ns) do
    not decrease, from ``last_arrival`` (the engine's latest arrival) on.  Both engines'
    ``run`` call it: :func:`flashrr.simulate` checks traces before, but a caller driving an
    engine directly would otherwise write outside its mapping arrays, or replay time
    backwards."""
    if len(offset) == 0:
        return
    time_ns = np.asarray(time_ns, dtype=np.int64)
    back = np.flatnonzero(np.diff(time_ns, prepend=np.int64(last_arrival)) < 0)
    if back.size:
        i = int(back[0])
        raise EngineError(f"request {i}: arrival time {int(time_ns[i])} ns is before the previous arrival "
                          f"({int(time_ns[i - 1]) if i else int(last_arrival)} ns); times must not decrease")
    offset = np.asarray(offset, dtype=np.int64)
    size = np.asarray(size, dtype=np.int64)
    bad = (offset < 0) | (size < 1) | ((offset + size - 1) // page_size >= logical_pages)
    if bad.any():
        i = int(np.argmax(bad))
        raise EngineError(f"request {i}: offset {int(offset[i])} and size {int(size[i])} bytes must lie in the "
                          f"device's logical space [0, {logical_pages * page_size}) with size >= 1")


def check_precondition(fill_pages: int, warmup_lpns: np.ndarray, logical_pages: int) -> None:
    """Raise :class:`EngineError` unless 0 <= fill_pages <= logical_pages and every warm-up
    LPN lies in [0, logical_pages): both engines' ``precondition`` would otherwise write
    outside the mapping table."""
    if not 0 <= fill_pages <= logical_pages:
        raise EngineError(f"precondition: fill_pages must lie in [0, {logical_pages}] (the logical pages), "
                          f"got {fill_pages}")
    warm = np.asarray(warmup_lpns)
    bad = np.flatnonzero((warm < 0) | (warm >= logical_pages))
    if bad.size:
        raise EngineError(f"precondition: warm-up LPN {int(warm[bad[0]])} (entry {int(bad[0])}) is outside "
                          f"[0, {logical_pages})")


def unwritten_read(lpn: int) -> str:
    """The error of a read of a logical page that was never written (it has no flash page)."""
    return (f"read of LPN {int(lpn)}, which was never written: precondition the device past the trace's "
            f"highest LPN before replaying it (flashrr.simulate does this)")


def _require(ok, message: str) -> None:
    if not ok:
        raise InvariantError(f"invariant: {message}")


def check_state(L: Layout, l2p, p2l, sb_valid, sb_state, n_filled: int = 0) -> None:
    """Raise :class:`InvariantError` unless the mapping is a bijection onto valid
    pages, the per-superblock valid counts match, no free superblock holds valid
    pages, and no LPN below ``n_filled`` (the preconditioned pages) was lost."""
    lost = np.flatnonzero(l2p[:n_filled] < 0)
    _require(lost.size == 0, f"LPN {int(lost[0]) if lost.size else -1} was lost")
    mapped = np.flatnonzero(l2p >= 0)
    ppns = l2p[mapped]
    # a count per page, not np.unique: no sort (on a 1M-page device 5 ms against 240 ms, and
    # invariant mode checks after every migration)
    _require(ppns.size == 0 or int(np.bincount(ppns).max()) <= 1, "two LPNs map to the same physical page")
    _require(np.array_equal(p2l[ppns], mapped), "p2l does not invert l2p")
    _require(np.count_nonzero(p2l >= 0) == mapped.size, "a physical page is valid without a logical owner")
    per_sb = np.bincount(ppns // (L.pages_per_block * L.k), minlength=L.n_superblocks)
    _require(np.array_equal(per_sb, sb_valid), "superblock valid counts are wrong")
    _require(not np.any((sb_state == SB_FREE) & (sb_valid > 0)), "a free superblock holds valid pages")
