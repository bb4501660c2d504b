"""Static die placement (twin of ``placement.pyx``): with
``superblock.placement = "static_die"`` LPN ``l`` is written on die
``l mod n_dies``, dealt over that die's lanes one superpage per lane."""
from __future__ import annotations

import numpy as np

from ..layout import Layout


def lanes_by_die(layout: Layout) -> np.ndarray:
    """``int32 [n_dies, lanes_per_die]``: the lanes of each die, in lane order.  The
    config guarantees every lane sits on one die (sb_dies = sb_chips = sb_channels = 1),
    so every die holds ``planes_per_die / sb_planes`` lanes."""
    k = layout.k
    lane_die = np.asarray(layout.comp_die, dtype=np.int64).reshape(layout.n_lanes, k)[:, 0]
    order = np.argsort(lane_die, kind="stable")
    return order.reshape(layout.n_dies, -1).astype(np.int32)


class StaticDie:
    def __init__(self, layout: Layout):
        self.table = lanes_by_die(layout)
        self.n_dies, self.lanes_per_die = self.table.shape
        self.k = layout.k
        self.rot = [0] * self.n_dies

    def lane_for(self, lpn: int) -> int:
        """The lane that takes the next user page of ``lpn``."""
        d = lpn % self.n_dies
        return int(self.table[d, self.rot[d]])

    def written(self, lpn: int, ftl, lane: int) -> None:
        """After a user page of ``lpn`` went to ``lane``: the die moves to its next lane
        once the lane's superpage is complete."""
        if ftl.uf_wp[lane] % self.k == 0:
            d = lpn % self.n_dies
            self.rot[d] = (self.rot[d] + 1) % self.lanes_per_die
