"""What the engine takes from a policy and what a policy's hooks see: the interface
between the engine and the policy layer above it (``flashrr/policy.py``).

:class:`PolicyHooks` is what a policy hands to an engine (``Policy.hooks()``): its
rare-event callables, its page-counter group and the specs of the compiled mechanisms
it switches on.  :class:`EngineState` is what such a callable is given: NumPy views of
the live engine arrays."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np


@dataclass
class EngineState:
    """What a hook sees.  Arrays are views of the engine's state (see
    :mod:`flashrr._core.layout` for the id scheme: ``blk = sb * k + c``)."""

    layout: Any
    now_ns: int
    block_reads: np.ndarray  # int32 [n_blocks]: flash reads since the block's last erase
    rr_threshold: np.ndarray  # int32 [n_blocks]: per-block RR threshold (writable)
    sb_valid: np.ndarray  # int32 [n_superblocks]: valid pages
    sb_state: np.ndarray  # int8 [n_superblocks]: 0 free, 1 user frontier, 2 GC frontier, 3 closed, 4 victim,
    #                      5 in Cocktail's write pool
    l2p: np.ndarray  # int32 [logical_pages]: physical page of each LPN (-1 unmapped)
    p2l: np.ndarray  # int32 [n_pages]: LPN stored in each physical page (-1 invalid/free)
    page_counters: np.ndarray  # int32 [groups]: flash reads per LPN group (empty if the feature is off)
    die_free_ns: np.ndarray  # int64 [n_dies]: time each die becomes idle (after its booked work)
    # queue_idle_move(lpn, dest_comp): move LPN to component dest_comp of its lane's GC/RR frontier when its
    # die is idle (no queued work, before the next arrival); dropped if the page is overwritten or moved first
    queue_idle_move: Any = None

    def superblock_block_reads(self, sb: int) -> np.ndarray:
        """Read counts of the k component blocks of superblock ``sb``."""
        k = self.layout.k
        return self.block_reads[sb * k:(sb + 1) * k]


@dataclass(frozen=True)
class PolicyHooks:
    """The callables the engine will invoke (None = compiled default)."""

    page_counter_group: int
    place_kinds: tuple
    on_read_reclaim: Optional[Callable]
    place_migration: Optional[Callable]
    choose_gc_victim: Optional[Callable]
    # the typed specs of the registry's mechanisms (flashrr/_core/mechanisms/<name>_py.py), None = off
    working_sets: Optional[tuple] = None  # WorkingSetsSpec (PhasedRR)
    early_moves: Optional[tuple] = None  # EarlyMovesSpec (RL-RR, Reallocation)
    replication: Optional[tuple] = None  # ReplicationSpec (HotR)
    redundancy: Optional[tuple] = None  # RedundancySpec (Rails, TTFlash, Optimal)
    write_pool: Optional[tuple] = None  # WritePoolSpec (Cocktail)
    rr_streams: Optional[tuple] = None  # RRStreamsSpec (redFTL, IPR, Reallocation)
    # any other registered mechanism: ((registry hook, spec), ...)  (flashrr/_core/mechanisms/__init__.py)
    mechanisms: tuple = ()
