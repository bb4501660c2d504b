# Static die placement of user pages (superblock.placement = "static_die"):
# LPN l is always written on die l mod n_dies, rotating over that die's lanes.
# Twin: reference/placement.py.  docs/hotr.md gives the model.

from libc.stdint cimport int32_t, int64_t
cimport cython

from .ftl cimport Ftl


@cython.final
cdef class StaticDie:
    cdef int32_t n_dies, lanes_per_die, k
    cdef int32_t* die_lanes            # [n_dies*lanes_per_die] lanes of each die, in lane order
    cdef int32_t* rot                  # [n_dies] index of the die's lane that takes its next user page
    cdef object _keep

    cdef inline int32_t lane_for(self, int64_t lpn) noexcept nogil:
        """The lane that takes the next user page of ``lpn``."""
        cdef int32_t d = <int32_t>(lpn % self.n_dies)
        return self.die_lanes[d * self.lanes_per_die + self.rot[d]]
    cdef inline void written(self, int64_t lpn, Ftl ftl, int32_t lane) noexcept nogil:
        """After a user page of ``lpn`` went to ``lane``: the die moves to its next lane
        once the lane's superpage is complete."""
        cdef int32_t d
        if ftl.uf_wp[lane] % self.k == 0:
            d = <int32_t>(lpn % self.n_dies)
            self.rot[d] = (self.rot[d] + 1) % self.lanes_per_die
