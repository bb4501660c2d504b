"""``patrol``: Baseline plus a patrol scan (``flashrr/_core/mechanisms/patrol.pyx``),
the background scan production firmware runs: one superblock visit every
``scan_interval_ns`` of simulated time, in superblock order; a visited superblock
with a block at ``ahead`` of its RR threshold has all its valid pages moved in idle
time (on the idle queue PhasedRR's moves use), ahead of the trigger.  Under
``read_reclaim.trigger = "rber"`` the threshold is the error model's, so ``ahead``
is a margin on the block's predicted errors.  Combine it with a scheme:
``"shuffler+patrol"``.

Summary columns: ``patrol_visits``, ``patrol_queued_superblocks``,
``patrol_queued_pages``; the moves themselves count in ``idle_moves``."""
from __future__ import annotations

import math

from .._core.mechanism_entry import MechanismEntry
from ..policy import Policy, register_policy

PATROL = MechanismEntry("patrol_scan", "patrol", "PatrolScan", ("request_observer", "erase_observer"),
                        erase_resets_only=True, counters=("patrol_visits", "patrol_queued_superblocks", "patrol_queued_pages"))


@register_policy
class Patrol(Policy):
    """``scan_interval_ns``: simulated time between two superblock visits (ns, default
    10 ms: a lap of the shuffler device's 2,048 superblocks takes 20 s); ``ahead``: the
    share of a block's RR threshold at which its superblock is moved (default 0.8)."""

    name = "patrol"

    def __init__(self, scan_interval_ns: int = 10_000_000, ahead: float = 0.8):
        super().__init__()
        if isinstance(scan_interval_ns, bool) or not isinstance(scan_interval_ns, int) or scan_interval_ns < 1:
            raise ValueError(f"patrol: scan_interval_ns must be a positive integer (ns), got {scan_interval_ns!r}")
        if isinstance(ahead, bool) or not isinstance(ahead, (int, float)) or not (math.isfinite(ahead)
                                                                                and 0 < ahead <= 1):
            raise ValueError(f"patrol: ahead must be a number in (0, 1] (share of the RR threshold), got {ahead!r}")
        self.scan_interval_ns, self.ahead = scan_interval_ns, float(ahead)

    def params(self) -> dict:
        return {"scan_interval_ns": self.scan_interval_ns, "ahead": self.ahead}

    def mechanism_specs(self) -> dict:
        return {PATROL: (self.scan_interval_ns, int(round(self.ahead * 1_000_000)))}
