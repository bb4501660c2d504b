# cython: language_level=3
"""Static die placement (compiled; twin ``static_die_py.py``).

With ``page_placement.placement = "static_lane"`` LPN ``l`` goes to lane
``(l / k) mod n_lanes``, the lane the sequential fill gives it.  Lanes are
numbered channel-fastest, then chip, die and plane group, so with ``k = 1``
this is MQSim's static CWDP plane allocation (``allocate_plane_for_user_write``).

With ``page_placement.placement = "static_die"`` the user frontier writes LPN ``l``
on die ``l mod n_dies`` (``l mod n_data`` for the Rails half, the stripe member's
die for TTFlash: ``raid5_data_die`` in placement.pxd) (the MSR DiskSim SSD model's static striping of pages
over elements, stride one page) and deals that die's pages over its lanes
(planes) round-robin, one superpage per lane.  GC and RR move pages inside
their lane, so a page never leaves its die.
"""
import numpy as np
cimport numpy as cnp

from ..device.ftl cimport Ftl

from ..buffers import owned_array, restore_arrays, saved_arrays
from ..layout import lanes_by_die

cnp.import_array()


cdef class StaticDie:
    def __init__(self, ctx, int mode=PLACE_MOD, int n_data=0):
        """``ctx``: the engine's parts (assembly.py).  ``mode``: PLACE_MOD (die = lpn mod
        ``n_data``, default all dies), PLACE_RAID5, or PLACE_LANE (lane = (lpn / k) mod
        n_lanes; lanes may span dies)."""
        cdef cnp.ndarray a
        layout = ctx.layout
        self.ftl = ctx.ftl
        self.places_fill = True
        table = lanes_by_die(layout) if mode != PLACE_LANE else np.zeros((layout.n_dies, 1), np.int32)
        self.mode = mode
        self.n_lanes = layout.n_lanes
        self.n_data = n_data or layout.n_dies
        self.n_groups = layout.n_dies // 5
        self.lanes_per_die = table.shape[1]
        self.k = layout.k
        self._keep = keep = {}
        a = keep["die_lanes"] = np.ascontiguousarray(table.ravel(), dtype=np.int32)
        self.die_lanes = <int32_t*>a.data
        a = owned_array(keep, "rot", layout.n_dies, np.int32)
        self.rot = <int32_t*>a.data

    def state(self):
        """Each die's next lane, for a snapshot (the placement fills the device)."""
        return saved_arrays(self._keep, ("rot",))

    def restore(self, state):
        restore_arrays(self._keep, state, ("rot",), "static_placement")

    cdef int64_t user_page(self, int32_t lpn) except -1 nogil:
        """The user-page placer: the lane the placement gives ``lpn`` writes it."""
        cdef int32_t lane = self.lane_for(lpn)
        cdef int64_t ppn
        self.ftl.user_lane = lane
        ppn = self.ftl.user_slot()
        self.written(lpn, self.ftl, lane)
        return ppn
