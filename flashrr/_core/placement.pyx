# cython: language_level=3
"""Static die placement (compiled; twin ``reference/placement.py``).

With ``superblock.placement = "static_die"`` the user frontier writes LPN ``l``
on die ``l mod n_dies`` (the MSR DiskSim SSD model's static striping of pages
over elements, stride one page) and deals that die's pages over its lanes
(planes) round-robin, one superpage per lane.  GC and RR move pages inside
their lane, so a page never leaves its die.
"""
import numpy as np
cimport numpy as cnp

from .ftl cimport Ftl

from .buffers import owned_array
from .reference.placement import lanes_by_die

cnp.import_array()


cdef class StaticDie:
    def __init__(self, layout):
        cdef cnp.ndarray a
        table = lanes_by_die(layout)
        self.n_dies = table.shape[0]
        self.lanes_per_die = table.shape[1]
        self.k = layout.k
        self._keep = keep = {}
        a = keep["die_lanes"] = np.ascontiguousarray(table.ravel(), dtype=np.int32)
        self.die_lanes = <int32_t*>a.data
        a = owned_array(keep, "rot", self.n_dies, np.int32)
        self.rot = <int32_t*>a.data

