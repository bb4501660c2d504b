"""The pure-Python twin of the compiled generator (``_kernel.pyx``).

It is the readable statement of how a request is made, and the tests hold the
compiled kernel to it bit for bit.  It is also what runs when flashrr was built
without extensions (slowly: about 10^5 requests per second).

One request, with ``u`` its row of uniform draws (columns ``U_*`` of
:mod:`~flashrr.trace.model.prepared`):

1. **Op**: a write with probability ``p_write_first`` (request 0) or
   ``p_write_after[time phase, previous op]`` (the time phase of request g of
   n is ``g * time_phases // n``; one phase without time phases).
   **Hot**: with probability ``p_hot[op]`` (the draw ``U_REUSE``) the request
   goes to a hot unit of its op (alias table over the units' weights, draw
   ``U_SEG``): it starts at the unit's first byte, with the unit's size, and
   leaves the kind, the run and the end of the op's previous request as they
   were.  Otherwise ``U_REUSE`` is rescaled to [0, 1) for step 2.
2. **Re-access**: with probability ``p = p_reuse[op][kind of the previous
   request of this op]`` (see ``OpModel.p_reuse``) the request repeats the
   start of an earlier request, its target: a write when the same draw falls
   below ``p * p_reuse_write[op]``, else a read.  The target is the request of
   that op ``d`` before the latest one, ``d`` drawn from the table of the op
   and target op and rounded (1 .. window); when fewer than ``d`` requests of
   the target op came before, the request is not a re-access.  It keeps the target's size with probability
   ``p_same_size``, else draws one from the op's size table.
3. **Sequential**: otherwise, with probability ``p_seq[op][kind of the
   previous request of this op]`` (see ``OpModel.p_seq``), the request starts where the
   previous request of its op ended, with a size from the op's table of
   continuation sizes, unless one of the last ``window`` requests started in
   that unit (the fit calls such a request a re-access, not a continuation)
   or that byte lies beyond the highest region of the heat maps.
4. **Near**: otherwise, with probability ``p_near[op][kind]`` (the draw
   ``U_HEAD``), the request starts near the request ``d`` before it (``d``
   from the op's near-distance table, draw ``U_DIST``): at the point of that
   request's extent, widened by ``near_margin_bytes`` on both sides, that a
   draw of the op's near-position table (``U_SAME``, rounded to a whole
   position) names; with probability ``p_near_aligned[op]`` (the draw
   ``U_SECTOR``) moved to the nearest whole number of units from that
   request's start; rounded down to a sector, with a size from the op's
   near-size table.  When fewer than ``d`` requests came before, or the
   start falls below 0 or at or beyond the highest region of the heat maps,
   the request is fresh.  ``U_HEAD`` is rescaled to [0, 1) (from [0, p_near) or
   [p_near, 1)) for step 5.
5. **Fresh**: otherwise a run head with probability ``p_head[op]``, from the
   op's places of run heads, else from its places of other fresh requests: a
   heat-map segment of the op's current phase (alias table), a
   region in it (uniform), a unit in the region by descending the cascade of
   the segment's heat level (each node's split share is looked up from a hash
   of seed, op, region and node, so the same region keeps the same hot spots
   throughout the trace), a start sector in the unit, and a size from the
   table of the heat level.  The request is drawn again (segment, region and
   cascade, from hashed draws; up to ``fresh_retries`` times) when one of the last
   ``window`` requests started in its unit (the fit calls a request fresh only
   when none did: without this the heat map alone would make hot units come
   back within the window, as cache hits), or one of the last
   ``fresh_avoid_window_requests`` requests covered it (nor near one), or,
   unless it is one of the share
   ``q_overlap[op]`` of fresh requests that may, when it covers a unit one of
   the last ``overlap_window`` requests covered.
6. **Arrival**: the gap before request 1 comes from the first state's table;
   each later request moves the chain one step (the transitions of its time
   phase) and draws its gap from the new state's table (gaps rounded to the
   nearest ns).
7. **Output**: the offset times ``address_scale``, rounded down to a sector
   (the re-access ring and the recent units keep the offsets before scaling).
"""
from __future__ import annotations

import math

import numpy as np

from .prepared import (HASH_NODE, HASH_OP, HASH_REGION, HASH_RETRY_A, HASH_RETRY_G, U_CASCADE, U_DIST, U_GAP,
                       U_HEAD, U_OP, U_OVERLAP, U_REGION, U_REUSE, U_SAME, U_SECTOR, U_SEG, U_SEQ, U_SIZE, U_STATE,
                       Prepared)
from .schema import KIND_HEAD, KIND_NEAR, KIND_REUSE, NEAR_POSITIONS, SECTOR_BYTES, SIZE_LEVELS, run_kind
from .tables import MASK64, draw_log1p, hash01, splitmix64

__all__ = ["ReferenceGenerator"]


def _round_size(v: float) -> int:
    s = int(math.floor(v / SECTOR_BYTES + 0.5)) * SECTOR_BYTES
    return s if s > SECTOR_BYTES else SECTOR_BYTES


def _alias(prob, alias, base: int, n: int, u: float) -> int:
    """A draw from the alias table of the n entries ``base .. base + n - 1`` (:func:`~.tables.alias_table`)."""
    x = u * n
    k = min(int(math.floor(x)), n - 1)
    return base + k if x - k < prob[base + k] else int(alias[base + k])


def _pick(cdf, u: float) -> int:
    k = 0
    last = len(cdf) - 1
    while k < last and cdf[k] <= u:
        k += 1
    return k


class ReferenceGenerator:
    """Generates the requests of a :class:`Prepared` model block by block (state kept between blocks)."""

    def __init__(self, prep: Prepared):
        self.p = prep
        self.ring_off = np.zeros(prep.window, dtype=np.int64)  # the last `window` requests, by request index
        self.ring_size = np.zeros(prep.window, dtype=np.int64)
        self.op_off = np.zeros((2, prep.window), dtype=np.int64)  # per op: its last `window` requests (targets)
        self.op_size = np.zeros((2, prep.window), dtype=np.int64)
        self.op_count = [0, 0]  # requests of each op so far
        self.prev_op = 0
        self.state = prep.first_state
        self.time = 0
        self.recent: dict[int, int] = {}  # unit -> requests among the last `window` that start in it
        self.touched: dict[int, int] = {}  # unit -> requests among the last `overlap_window` that cover it
        self.covered: dict[int, int] = {}  # unit -> requests among the last `avoid_window` that cover it
        self.last_end = [-1, -1]  # per op: end byte of its latest request (-1: none yet)
        self.last_kind = [0, 0]  # per op: kind of its latest request (schema.KINDS)
        self.run_length = [0, 0]  # per op: continuations since its latest request that was not one

    @staticmethod
    def _forget(counts: dict, unit: int) -> None:
        c = counts[unit] - 1
        if c:
            counts[unit] = c
        else:
            del counts[unit]

    def _ring_units(self, k: int) -> range:
        """The units the request in ring slot ``k`` covers."""
        off, unit = int(self.ring_off[k]), self.p.unit_bytes
        return range(off // unit, (off + int(self.ring_size[k]) - 1) // unit + 1)

    def _near(self, g: int, op: int, r) -> tuple[int, int] | None:
        """Offset and size of a near request (step 4 of the module docstring), or None when it cannot be one."""
        p = self.p
        d = min(max(int(math.floor(draw_log1p(p.near_log[op, 0, :p.near_len[op, 0]], r[U_DIST]) + 0.5)), 1),
                p.window)
        if d > g:
            return None
        j = (g - d) % p.window
        widened = int(self.ring_size[j]) + 2 * p.near_margin
        position = int(math.floor(draw_log1p(p.near_log[op, 1, :p.near_len[op, 1]], r[U_SAME]) + 0.5))
        shift = position * widened // NEAR_POSITIONS
        off = int(self.ring_off[j]) - p.near_margin + shift
        if r[U_SECTOR] < p.p_near_aligned[op]:  # the target's place within a unit kept (the unused sector draw)
            off = int(self.ring_off[j]) + int(math.floor((off - int(self.ring_off[j])) / p.unit_bytes + 0.5)) \
                * p.unit_bytes
        off = off // SECTOR_BYTES * SECTOR_BYTES
        if off < 0 or off >= p.span_end:
            return None
        t = p.near_table
        return off, _round_size(draw_log1p(p.size_log[op, t, :p.size_len[op, t]], r[U_SIZE]))

    def _fresh(self, g: int, op: int, r, head: int) -> tuple[int, int, int]:
        """Offset, size and heat level of a fresh request, a run head when ``head`` (step 4 of the module
        docstring)."""
        p = self.p
        lv = p.levels
        m = (op * 2 + head) * p.phases + (g * p.phases // p.n_requests if p.phases > 1 else 0)
        base, n_seg = p.seg_first[m], p.seg_first[m + 1] - p.seg_first[m]
        u_seg, u_region, u_cascade = r[U_SEG], r[U_REGION], r[U_CASCADE]
        may_overlap = r[U_OVERLAP] < p.q_overlap[op]
        sector = _pick(p.sector_cdf[op, head], r[U_SECTOR])
        attempt = 0
        while True:
            seg = _alias(p.seg_prob, p.seg_alias, int(base), int(n_seg), u_seg)
            seg_len = int(p.seg_len[seg])
            region = int(p.seg_start[seg]) + min(int(math.floor(u_region * seg_len)), seg_len - 1)
            heat = int(p.seg_level[seg])
            lo, hi = 0.0, 1.0  # the cascade draw u_cascade falls in [lo, hi): the current node's interval
            node = 1
            for depth in range(lv):
                key = (p.salt ^ ((op * HASH_OP) & MASK64) ^ ((region * HASH_REGION) & MASK64)
                       ^ ((node * HASH_NODE) & MASK64))
                share = int(p.cascade[op, head, heat, depth, splitmix64(key) >> 56]) * p.cascade_step
                mid = lo + share * (hi - lo)
                if u_cascade < mid:
                    node = 2 * node
                    hi = mid
                else:
                    node = 2 * node + 1
                    lo = mid
            unit = (region << lv) + (node - (1 << lv))
            off = unit * p.unit_bytes + sector * SECTOR_BYTES
            t = 1 + head * SIZE_LEVELS + heat
            sz = _round_size(draw_log1p(p.size_log[op, t, :p.size_len[op, t]], r[U_SIZE]))
            if attempt >= p.fresh_retries or (unit not in self.recent and unit not in self.covered and (
                    may_overlap or all(v not in self.touched
                                       for v in range(unit, (off + sz - 1) // p.unit_bytes + 1)))):
                return off, sz, heat
            attempt += 1
            key = p.salt ^ ((g * HASH_RETRY_G) & MASK64) ^ ((attempt * HASH_RETRY_A) & MASK64)
            u_seg, u_region, u_cascade = hash01(key), hash01(key ^ 1), hash01(key ^ 2)

    def fill(self, g0: int, u: np.ndarray, time_ns, offset, size, is_write) -> None:
        """Requests ``g0 .. g0 + len(u) - 1`` into the output arrays (int64, int64, int64, bool)."""
        p = self.p
        for i in range(u.shape[0]):
            g = g0 + i
            r = u[i]
            tp = g * p.time_phases // p.n_requests if p.time_phases > 1 else 0
            op = int(r[U_OP] < (p.p_write_first if g == 0 else p.p_write_after[tp, self.prev_op]))
            reuse = seq = head = near = hot = 0
            u_reuse = r[U_REUSE]
            if u_reuse < p.p_hot[op]:
                hot = 1
                base = int(p.hot_first[op])
                h = _alias(p.hot_prob, p.hot_alias, base, int(p.hot_first[op + 1]) - base, r[U_SEG])
                off, sz = int(p.hot_off[h]), int(p.hot_size[h])
            else:
                u_reuse = (u_reuse - p.p_hot[op]) / (1.0 - p.p_hot[op])
            p_re = p.p_reuse[op, self.last_kind[op]]
            if not hot and u_reuse < p_re:
                t = int(u_reuse < p_re * p.p_reuse_write[op])
                have = self.op_count[t]
                if have > 0 and p.dist_len[op, t] > 0:
                    table = p.dist_log[op, t, :p.dist_len[op, t]]
                    d = min(max(int(math.floor(draw_log1p(table, r[U_DIST]) + 0.5)), 1), p.window)
                    if d <= have:
                        reuse = 1
            if reuse:
                j = (have - d) % p.window
                off = int(self.op_off[t, j])
                if r[U_SAME] < p.p_same:
                    sz = int(self.op_size[t, j])
                else:
                    sz = _round_size(draw_log1p(p.size_log[op, 0, :p.size_len[op, 0]], r[U_SIZE]))
            if hot or reuse:
                pass
            elif 0 <= self.last_end[op] < p.span_end and r[U_SEQ] < p.p_seq[op, self.last_kind[op]] \
                    and self.last_end[op] // p.unit_bytes not in self.recent:
                seq = 1
                off = self.last_end[op]
                t = p.seq_table
                sz = _round_size(draw_log1p(p.size_log[op, t, :p.size_len[op, t]], r[U_SIZE]))
            else:
                u_head = r[U_HEAD]
                p_near = p.p_near[op, self.last_kind[op]]
                placed = self._near(g, op, r) if u_head < p_near else None
                if placed is not None:
                    near = 1
                    off, sz = placed
                else:
                    u_head = u_head / p_near if u_head < p_near else (u_head - p_near) / (1.0 - p_near)
                    head = int(u_head < p.p_head[op])
                    off, sz, heat = self._fresh(g, op, r, head)
            if g > 1:  # request 1 is in the first state; later ones move along the chain
                self.state = _pick(p.trans_cdf[tp, self.state], r[U_STATE])
            if g > 0:
                self.time += int(math.floor(draw_log1p(p.gap_log[self.state], r[U_GAP]) + 0.5))
            time_ns[i] = self.time
            offset[i] = off if p.address_scale == 1.0 else \
                int(math.floor(off * p.address_scale / SECTOR_BYTES)) * SECTOR_BYTES
            size[i] = sz
            is_write[i] = bool(op)
            j = g % p.window
            if g >= p.window:
                self._forget(self.recent, int(self.ring_off[j]) // p.unit_bytes)
            if g >= p.overlap_window:  # request g - overlap_window leaves the overlap window
                for v in self._ring_units((g - p.overlap_window) % p.window):
                    self._forget(self.touched, v)
            if 0 < p.avoid_window <= g:  # request g - avoid_window leaves the avoided units
                for v in self._ring_units((g - p.avoid_window) % p.window):
                    self._forget(self.covered, v)
            self.recent[off // p.unit_bytes] = self.recent.get(off // p.unit_bytes, 0) + 1
            for v in range(off // p.unit_bytes, (off + sz - 1) // p.unit_bytes + 1):
                self.touched[v] = self.touched.get(v, 0) + 1
                if p.avoid_window:
                    self.covered[v] = self.covered.get(v, 0) + 1
            self.ring_off[j] = off
            self.ring_size[j] = sz
            k = self.op_count[op] % p.window
            self.op_off[op, k] = off
            self.op_size[op, k] = sz
            self.op_count[op] += 1
            self.prev_op = op
            if hot:
                continue
            self.last_end[op] = off + sz
            self.run_length[op] = self.run_length[op] + 1 if seq else 0
            self.last_kind[op] = KIND_REUSE if reuse else run_kind(self.run_length[op]) if seq else \
                KIND_NEAR if near else KIND_HEAD if head else heat
