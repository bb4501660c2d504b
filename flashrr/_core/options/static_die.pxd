# Static placement of user pages (page_placement.placement = "static_die" or
# "static_lane", and the redundancy schemes of redundancy.pyx): LPN l is always
# written on one die, rotating over that die's lanes, or on one lane.
# Twin: static_die_py.py.  docs/hotr.md gives the model.

from libc.stdint cimport int32_t, int64_t
cimport cython

from ..device.common cimport div_pow2
from ..device.ftl cimport Ftl
from ..device.sched cimport Scheduler
from ..roles cimport Mechanism

cdef enum:
    # placement modes
    PLACE_MOD = 0                      # die = lpn mod n_data (n_data = n_dies, or the Rails half)
    PLACE_RAID5 = 1                    # TTFlash 4+1 stripes with rotated parity (raid5_data_die)
    PLACE_LANE = 2                     # lane = (lpn / k) mod n_lanes: MQSim's static CWDP allocation


cdef inline int32_t ppn_die(int64_t ppn, const int32_t* comp_die, int32_t N_shift, int32_t N, int32_t k_shift,
                            int32_t k, int32_t S) noexcept nogil:
    """The die holding physical page ``ppn`` (ids as in layout.py)."""
    cdef int64_t blk = div_pow2(ppn, N_shift, N)
    cdef int64_t sbq = div_pow2(blk, k_shift, k)
    return comp_die[(sbq // S) * k + (blk - sbq * k)]


cdef inline void keep_read(int32_t* lpns, int32_t* ppns, int32_t* locs, int64_t* extras, int32_t j,
                           int32_t i) noexcept nogil:
    """Move page i of a read's flash pages to slot j (j <= i): compacts the pages a
    redirection feature leaves to the normal read path."""
    lpns[j] = lpns[i]
    ppns[j] = ppns[i]
    locs[j] = locs[i]
    extras[j] = extras[i]


cdef inline bint program_blocked(Scheduler sched, int32_t die, int64_t t) noexcept nogil:
    """HotR's conflict test: a program on ``die`` ends after ``t``, or one is queued there."""
    return sched.die_prog_end[die] > t or sched.die_q_progs[die] > 0


cdef inline int32_t raid5_group(int64_t stripe, int32_t n_groups) noexcept nogil:
    return <int32_t>(stripe % n_groups)


cdef inline int32_t raid5_parity_pos(int64_t stripe, int32_t n_groups) noexcept nogil:
    """Position (0..4) of stripe's parity page inside its group of 5 dies."""
    return <int32_t>((stripe // n_groups) % 5)


cdef inline int32_t raid5_data_die(int64_t lpn, int32_t n_groups) noexcept nogil:
    """Die of data LPN ``lpn``: stripe s = lpn // 4 lives on group s mod G (dies 5g..5g+4); its
    4 data pages take the positions after the parity's, in order."""
    cdef int64_t s = lpn >> 2
    cdef int32_t q = raid5_parity_pos(s, n_groups)
    return 5 * raid5_group(s, n_groups) + (q + 1 + <int32_t>(lpn & 3)) % 5


cdef inline int32_t raid5_parity_die(int64_t stripe, int32_t n_groups) noexcept nogil:
    return 5 * raid5_group(stripe, n_groups) + raid5_parity_pos(stripe, n_groups)


@cython.final
cdef class StaticDie(Mechanism):
    # roles (roles.pxd): user-page placer (user_page; places_fill: the precondition fill goes through it)
    cdef int32_t mode, n_data, n_groups, lanes_per_die, k, n_lanes
    cdef int32_t* die_lanes            # [n_dies*lanes_per_die] lanes of each die, in lane order
    cdef int32_t* rot                  # [n_dies] index of the die's lane that takes its next user page
    cdef Ftl ftl
    cdef object _keep


    cdef inline int32_t die_for(self, int64_t lpn) noexcept nogil:
        if self.mode == PLACE_RAID5:
            return raid5_data_die(lpn, self.n_groups)
        return <int32_t>(lpn % self.n_data)
    cdef inline int32_t lane_for(self, int64_t lpn) noexcept nogil:
        """The lane that takes the next user page of ``lpn``."""
        cdef int32_t d
        if self.mode == PLACE_LANE:
            return <int32_t>((lpn // self.k) % self.n_lanes)
        d = self.die_for(lpn)
        return self.die_lanes[d * self.lanes_per_die + self.rot[d]]
    cdef inline void written(self, int64_t lpn, Ftl ftl, int32_t lane) noexcept nogil:
        """After a user page of ``lpn`` went to ``lane``: the die moves to its next lane
        once the lane's superpage is complete."""
        cdef int32_t d
        if self.mode != PLACE_LANE and ftl.uf_wp[lane] % self.k == 0:
            d = self.die_for(lpn)
            self.rot[d] = (self.rot[d] + 1) % self.lanes_per_die
