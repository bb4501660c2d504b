"""Read exposure (twin of ``read_exposure.pyx``, which describes it): the run's
flash reads by the quarter of its RR threshold their block had reached."""
from __future__ import annotations

from ..roles_py import Mechanism


class ReadExposure(Mechanism):
    def __init__(self, ctx, spec):
        super().__init__()
        self.counts = [0, 0, 0, 0]

    def page_read(self, ppn: int, blk: int, reads: int, threshold: int, done: int) -> None:
        q = (4 * (reads - 1)) // threshold if threshold > 0 else 3
        self.counts[min(q, 3)] += 1

    def counter_values(self) -> list:
        return list(self.counts)

    def reset_counters(self) -> None:
        self.counts = [0, 0, 0, 0]
