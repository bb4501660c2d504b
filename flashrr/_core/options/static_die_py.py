"""Static die placement (twin of ``static_die.pyx``): with
``page_placement.placement = "static_die"`` LPN ``l`` is written on die
``l mod n_dies``, dealt over that die's lanes one superpage per lane; with
``"static_lane"`` it goes to lane ``(l / k) mod n_lanes`` (MQSim's static CWDP
allocation when ``k = 1``).  The
redundancy schemes use ``l mod n_data`` (Rails: the first half of the dies) or
the TTFlash stripe layout (``raid5_data_die``)."""
from __future__ import annotations

import numpy as np

from ..layout import Layout, lanes_by_die
from ..roles_py import Mechanism

PLACE_MOD, PLACE_RAID5, PLACE_LANE = 0, 1, 2


def raid5_parity_pos(stripe: int, n_groups: int) -> int:
    """Position (0..4) of the stripe's parity page inside its group of 5 dies."""
    return (stripe // n_groups) % 5


def raid5_data_die(lpn: int, n_groups: int) -> int:
    """Die of data LPN ``lpn``: stripe ``s = lpn // 4`` lives on group ``s mod G`` (dies
    5g..5g+4); its 4 data pages take the positions after the parity's, in order."""
    s = lpn >> 2
    return 5 * (s % n_groups) + (raid5_parity_pos(s, n_groups) + 1 + (lpn & 3)) % 5


def raid5_parity_die(stripe: int, n_groups: int) -> int:
    return 5 * (stripe % n_groups) + raid5_parity_pos(stripe, n_groups)


def ppn_die(layout: Layout, ppn: int) -> int:
    """The die holding physical page ``ppn`` (ids as in layout.py)."""
    L = layout
    blk = ppn // L.pages_per_block
    return int(L.comp_die[(blk // L.k // L.sb_per_lane) * L.k + blk % L.k])


def program_blocked(sched, die: int, t: int) -> bool:
    """HotR's conflict test: a program on ``die`` ends after ``t``, or one is queued there."""
    return bool(sched.die_prog_end[die] > t or sched.die_q_progs[die] > 0)


class StaticDie(Mechanism):
    places_fill = True

    def __init__(self, ctx, mode: int = PLACE_MOD, n_data: int = 0):
        super().__init__()
        layout = ctx.layout
        self.ftl = ctx.ftl
        self.table = lanes_by_die(layout) if mode != PLACE_LANE else np.zeros((layout.n_dies, 1), np.int32)
        self.lanes_per_die, self.n_lanes = self.table.shape[1], layout.n_lanes
        self.mode, self.n_data, self.n_groups = mode, n_data or layout.n_dies, layout.n_dies // 5
        self.k = layout.k
        self.rot = [0] * layout.n_dies

    def state(self) -> dict:
        """Each die's next lane, for a snapshot (the placement fills the device)."""
        return {"rot": np.array(self.rot, dtype=np.int32)}

    def restore(self, state: dict) -> None:
        rot = state.get("rot")
        if rot is None or rot.shape != (len(self.rot),):
            raise ValueError(f"static_placement.rot: expected {len(self.rot)} dies")
        self.rot = [int(v) for v in rot]

    def die_for(self, lpn: int) -> int:
        if self.mode == PLACE_RAID5:
            return raid5_data_die(lpn, self.n_groups)
        return lpn % self.n_data

    def lane_for(self, lpn: int) -> int:
        """The lane that takes the next user page of ``lpn``."""
        if self.mode == PLACE_LANE:
            return (lpn // self.k) % self.n_lanes
        d = self.die_for(lpn)
        return int(self.table[d, self.rot[d]])

    def written(self, lpn: int, ftl, lane: int) -> None:
        """After a user page of ``lpn`` went to ``lane``: the die moves to its next lane
        once the lane's superpage is complete."""
        if self.mode != PLACE_LANE and ftl.uf_wp[lane] % self.k == 0:
            d = self.die_for(lpn)
            self.rot[d] = (self.rot[d] + 1) % self.lanes_per_die

    def user_page(self, lpn: int) -> int:
        """The user-page placer: the lane the placement gives ``lpn`` writes it."""
        lane = self.ftl.user_lane = self.lane_for(lpn)
        ppn = self.ftl.user_slot()
        self.written(lpn, self.ftl, lane)
        return ppn
