# cython: language_level=3
"""The compiled request generator of the workload model.

Step for step the same arithmetic as ``reference.py`` (read that file for what
each step means); the tests check the two agree bit for bit.  The loop runs
without the GIL over the model's flat arrays (``prepared.py``).
"""
import numpy as np

cimport numpy as cnp
from libc.math cimport expm1, floor
from libc.stdint cimport int64_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free

cnp.import_array()

cdef int64_t SECTOR = 512
cdef int64_t NEAR_POSITIONS = 1 << 16  # schema.NEAR_POSITIONS
cdef uint64_t HASH_OP = 0x9E3779B97F4A7C15ULL
cdef uint64_t HASH_REGION = 0xC2B2AE3D27D4EB4FULL
cdef uint64_t HASH_NODE = 0x165667B19E3779F9ULL
cdef uint64_t HASH_RETRY_G = 0xA24BAED4963EE407ULL
cdef uint64_t HASH_RETRY_A = 0x9FB21C651E98DF25ULL
cdef double INV_2_53 = 1.0 / 9007199254740992.0
cdef int64_t STAMP_LIMIT = 0xFFFFFFFF  # UnitStamps: the largest 32-bit stamp


def _set_stamp_limit(int64_t limit):
    """Set the stamp at which UnitStamps moves its base (tests: a small one makes the move that 2**32
    requests would need happen within a short trace); returns the previous one."""
    global STAMP_LIMIT
    cdef int64_t old = STAMP_LIMIT
    STAMP_LIMIT = limit
    return old


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x = x + 0x9E3779B97F4A7C15ULL
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef inline double _draw(const double* t, int64_t k, double u) noexcept nogil:
    # t: a quantile table of k + 1 knots in log1p space (a pointer: slicing a memoryview per draw costs more
    # than the draw)
    cdef double pos = u * k
    cdef int64_t i = <int64_t>floor(pos)
    if i >= k:
        i = k - 1
    cdef double f = pos - i
    return expm1(t[i] + f * (t[i + 1] - t[i]))


cdef inline int64_t _round_size(double v) noexcept nogil:
    cdef int64_t s = <int64_t>floor(v / SECTOR + 0.5) * SECTOR
    return s if s > SECTOR else SECTOR


cdef inline int64_t _log2_bucket(int64_t n, int64_t buckets) noexcept nogil:
    # floor(log2(n)) for n >= 1, at most buckets - 1
    cdef int64_t b = 0
    while n > 1 and b < buckets - 1:
        n >>= 1
        b += 1
    return b


cdef inline int64_t _alias(const double* prob, const int64_t* alias, int64_t base, int64_t n,
                           double u) noexcept nogil:
    # a draw from the alias table of the n entries base .. base + n - 1 (Vose's method, tables.alias_table)
    cdef double x = u * n
    cdef int64_t k = <int64_t>floor(x)
    if k > n - 1:
        k = n - 1
    if x - k < prob[base + k]:
        return base + k
    return alias[base + k]


cdef inline int64_t _pick(const double* cdf, int64_t n, double u) noexcept nogil:
    # the first of the n entries of a cumulative distribution above u (the last one if none)
    cdef int64_t k = 0
    cdef int64_t last = n - 1
    while k < last and cdf[k] <= u:
        k += 1
    return k


ctypedef struct Cell:
    int64_t key        # unit >> 3 (-1: an empty slot)
    uint16_t count[8]  # per unit of the cell: requests of the window that cover it
    int64_t used       # units of the cell with a count above 0

ctypedef struct StampCell:
    int64_t key       # unit >> 3 (-1: an empty slot)
    uint32_t seen[8]  # per unit of the cell: the latest request that covered it, as g + 1 - base (0: none)


ctypedef fused AnyCell:
    Cell
    StampCell


cdef inline int64_t _table_size(int64_t capacity) noexcept nogil:
    """The smallest power of two of at least 16 and ``capacity`` slots."""
    cdef int64_t cap = 16
    while cap < capacity:
        cap *= 2
    return cap


cdef AnyCell* _new_cells(AnyCell* like, int64_t cap) except NULL:
    """``cap`` empty slots of the cell type of ``like`` (only its type is used)."""
    cdef int64_t i
    cdef AnyCell* cells = <AnyCell*>calloc(cap, sizeof(like[0]))
    if cells == NULL:
        raise MemoryError("model generator: no memory for a unit table")
    for i in range(cap):
        cells[i].key = -1
    return cells


cdef inline int64_t _find(AnyCell* cells, uint64_t mask, int64_t key) noexcept nogil:
    """The slot of ``key`` (linear probing), or -1 - the empty slot where it would go."""
    cdef uint64_t h = _mix(<uint64_t>key) & mask
    while cells[h].key != -1:
        if cells[h].key == key:
            return <int64_t>h
        h = (h + 1) & mask
    return -1 - <int64_t>h


cdef class CellCounts:
    """A count per unit (int64 >= 0), kept for ranges of consecutive units: an open-addressing table (linear
    probing, backward-shift deletion) of eight-unit cells, so a request covering a few units costs one or two
    probes, not one per unit; it doubles whenever it would be more than half full."""

    cdef Cell* cells
    cdef uint64_t mask
    cdef int64_t filled

    def __cinit__(self, int64_t capacity):
        self.cells = NULL
        self._alloc(_table_size(capacity))

    def __dealloc__(self):
        free(self.cells)

    cdef int _alloc(self, int64_t cap) except -1:
        self.cells = _new_cells(self.cells, cap)
        self.mask = <uint64_t>(cap - 1)
        self.filled = 0
        return 0

    cdef inline int64_t find(self, int64_t key) noexcept nogil:
        return _find(self.cells, self.mask, key)

    cdef int _grow(self) except -1:
        cdef Cell* old = self.cells
        cdef int64_t old_cap = <int64_t>(self.mask + 1), i, h
        self._alloc(2 * old_cap)
        for i in range(old_cap):
            if old[i].key != -1:
                h = -1 - self.find(old[i].key)
                self.cells[h] = old[i]
                self.filled += 1
        free(old)
        return 0

    cdef void add(self, int64_t first, int64_t last) noexcept nogil:
        """Count one more request covering units ``first .. last``."""
        cdef int64_t key, h, u, lo, hi
        for key in range(first >> 3, (last >> 3) + 1):
            h = self.find(key)
            if h < 0:
                if 2 * (self.filled + 1) > <int64_t>(self.mask + 1):
                    with gil:
                        self._grow()
                    h = self.find(key)
                h = -1 - h
                self.cells[h].key = key
                self.cells[h].used = 0
                for u in range(8):
                    self.cells[h].count[u] = 0
                self.filled += 1
            lo = first - (key << 3) if first > (key << 3) else 0
            hi = last - (key << 3) if last < (key << 3) + 7 else 7
            for u in range(lo, hi + 1):
                if self.cells[h].count[u] == 0:
                    self.cells[h].used += 1
                self.cells[h].count[u] += 1

    cdef bint covers(self, int64_t first, int64_t last) noexcept nogil:
        """Whether some request of the window covers one of the units ``first .. last``."""
        cdef int64_t key, h, u, lo, hi
        for key in range(first >> 3, (last >> 3) + 1):
            h = self.find(key)
            if h < 0:
                continue
            lo = first - (key << 3) if first > (key << 3) else 0
            hi = last - (key << 3) if last < (key << 3) + 7 else 7
            for u in range(lo, hi + 1):
                if self.cells[h].count[u]:
                    return True
        return False

    cdef inline bint has(self, int64_t unit) noexcept nogil:
        return self.covers(unit, unit)

    cdef void remove(self, int64_t first, int64_t last) noexcept nogil:
        """Count one request fewer covering units ``first .. last`` (it must have been added)."""
        cdef int64_t key, h, u, lo, hi
        cdef uint64_t i, j, home
        for key in range(first >> 3, (last >> 3) + 1):
            h = self.find(key)
            if h < 0:
                continue
            lo = first - (key << 3) if first > (key << 3) else 0
            hi = last - (key << 3) if last < (key << 3) + 7 else 7
            for u in range(lo, hi + 1):
                self.cells[h].count[u] -= 1
                if self.cells[h].count[u] == 0:
                    self.cells[h].used -= 1
            if self.cells[h].used > 0:
                continue
            self.filled -= 1
            # backward-shift deletion: pull later cells of the probe run into the hole when their home allows
            i = <uint64_t>h
            j = i
            while True:
                j = (j + 1) & self.mask
                if self.cells[j].key == -1:
                    break
                home = _mix(<uint64_t>self.cells[j].key) & self.mask
                if ((j - home) & self.mask) >= ((j - i) & self.mask):
                    self.cells[i] = self.cells[j]
                    i = j
            self.cells[i].key = -1


cdef inline int64_t _stamp_floor(int64_t stamp) noexcept nogil:
    """The lowest stamp a unit covered within a window may have: ``stamp``, but never 0 (no request)."""
    return stamp if stamp > 1 else 1


cdef class UnitStamps:
    """The latest request that covered each unit, for the last ``window`` requests: an open-addressing table
    (linear probing) of eight-unit cells.  "One of the last w <= window requests covered a unit" is one
    comparison, and a request leaving the window costs nothing: when the table would be more than half full
    it is rebuilt with only the cells the window still covers (twice as large when those fill more than a
    quarter), so its size follows the window, not the trace.  Stamps count from ``base``, moved up at each
    rebuild, so they fit 32 bits."""

    cdef StampCell* cells
    cdef uint64_t mask
    cdef int64_t filled, window, base

    def __cinit__(self, int64_t window):
        self.window = window
        self.base = 0
        self.cells = NULL
        self._alloc(_table_size(4 * window))

    def __dealloc__(self):
        free(self.cells)

    cdef int _alloc(self, int64_t cap) except -1:
        self.cells = _new_cells(self.cells, cap)
        self.mask = <uint64_t>(cap - 1)
        self.filled = 0
        return 0

    cdef inline int64_t find(self, int64_t key) noexcept nogil:
        return _find(self.cells, self.mask, key)

    cdef int _rebuild(self, int64_t g) except -1:
        """Before request ``g`` is marked: keep the units the last ``window`` requests covered, restamped
        from a new base."""
        cdef StampCell* old = self.cells
        cdef int64_t old_cap = <int64_t>(self.mask + 1), i, h, u, live = 0
        cdef int64_t keep = _stamp_floor(g - self.window + 1 - self.base)  # stamps of requests g - window .. g - 1
        cdef int64_t new_base = g - self.window if g > self.window else 0
        cdef bint any_live
        for i in range(old_cap):
            if old[i].key != -1:
                for u in range(8):
                    if old[i].seen[u] >= keep:
                        live += 1
                        break
        self._alloc(2 * old_cap if 4 * (live + 1) > old_cap else old_cap)
        for i in range(old_cap):
            if old[i].key == -1:
                continue
            any_live = False
            for u in range(8):
                if old[i].seen[u] >= keep:
                    old[i].seen[u] = <uint32_t>(old[i].seen[u] + self.base - new_base)
                    any_live = True
                else:
                    old[i].seen[u] = 0
            if any_live:
                h = -1 - self.find(old[i].key)
                self.cells[h] = old[i]
                self.filled += 1
        self.base = new_base
        free(old)
        return 0

    cdef void mark(self, int64_t first, int64_t last, int64_t g) noexcept nogil:
        """Request ``g`` covers units ``first .. last``."""
        cdef int64_t key, h, u, lo, hi
        if g + 1 - self.base >= STAMP_LIMIT:
            with gil:
                self._rebuild(g)
        for key in range(first >> 3, (last >> 3) + 1):
            h = self.find(key)
            if h < 0:
                if 2 * (self.filled + 1) > <int64_t>(self.mask + 1):
                    with gil:
                        self._rebuild(g)
                    h = self.find(key)
                h = -1 - h
                self.cells[h].key = key
                for u in range(8):
                    self.cells[h].seen[u] = 0
                self.filled += 1
            lo = first - (key << 3) if first > (key << 3) else 0
            hi = last - (key << 3) if last < (key << 3) + 7 else 7
            for u in range(lo, hi + 1):
                self.cells[h].seen[u] = <uint32_t>(g + 1 - self.base)

    cdef bint covers(self, int64_t first, int64_t last, int64_t g, int64_t w) noexcept nogil:
        """Whether one of the ``w`` (at most ``window``) requests before request ``g`` covered one of the
        units ``first .. last``."""
        cdef int64_t key, h, u, lo, hi
        cdef int64_t keep = _stamp_floor(g - w + 1 - self.base)
        for key in range(first >> 3, (last >> 3) + 1):
            h = self.find(key)
            if h < 0:
                continue
            lo = first - (key << 3) if first > (key << 3) else 0
            hi = last - (key << 3) if last < (key << 3) + 7 else 7
            for u in range(lo, hi + 1):
                if self.cells[h].seen[u] >= keep:
                    return True
        return False


cdef class Kernel:
    """Generator state over a Prepared model: op, kinds and run lengths of each op's last request, gap
    state, clock, the re-access ring of the last ``window`` requests, and unit tables over the ring:
    ``recent`` (units its requests start in) and, for the units the last ``overlap_window`` requests cover,
    ``touched`` (counts) or, when the model avoids the units of the last ``avoid_window`` (> 0), ``stamps``
    (the latest request covering each unit, which answers both)."""

    cdef object prep
    cdef int64_t n_requests, window, overlap_window, avoid_window, phases, levels, unit_bytes, first_state, fresh_retries
    cdef int64_t span_end
    cdef double p_write_first, p_same, address_scale
    cdef uint64_t salt
    cdef double[:, :] p_write_after
    cdef double[:, :, :] trans_cdf
    cdef int64_t time_phases
    cdef double[:, :] p_reuse, gap_log
    cdef double[:, :, :] dist_log
    cdef double[:] p_reuse_write
    cdef double[:, :, :] sector_cdf
    cdef double[:] p_head
    cdef int64_t[:, :] dist_len
    cdef int64_t[:] seg_first, seg_start, seg_len, seg_level, seg_alias
    cdef double[:] seg_prob
    cdef double[:, :, :] size_log
    cdef const cnp.uint8_t[:, :, :, :, :] cascade
    cdef double cascade_step
    cdef int64_t[:, :] size_len
    cdef int64_t[:] ring_off, ring_size
    cdef int64_t[:, :] op_off, op_size
    cdef int64_t op_count[2]
    cdef CellCounts recent, touched
    cdef UnitStamps stamps
    cdef double[:] q_overlap
    cdef double[:, :] p_seq
    cdef int64_t last_end[2]
    cdef int64_t seq_table
    cdef int64_t last_kind[2]
    cdef int64_t run_length[2]
    cdef int64_t kind_head, kind_run, run_buckets, kind_reuse, kind_near, size_levels
    cdef double[:, :] p_near
    cdef double[:] p_near_aligned
    cdef double[:, :, :] near_log
    cdef int64_t[:, :] near_len
    cdef int64_t near_margin, near_table
    cdef double[:] p_hot, hot_prob
    cdef int64_t[:] hot_first, hot_off, hot_size, hot_alias
    cdef public int64_t prev_op, state, time

    def __init__(self, prep):
        self.prep = prep
        self.n_requests = prep.n_requests
        self.window = prep.window
        self.overlap_window = prep.overlap_window
        self.avoid_window = prep.avoid_window
        self.span_end = prep.span_end
        self.phases = prep.phases
        self.levels = prep.levels
        self.unit_bytes = prep.unit_bytes
        self.first_state = prep.first_state
        self.p_write_first = prep.p_write_first
        self.p_same = prep.p_same
        self.salt = prep.salt
        self.p_write_after = prep.p_write_after
        self.time_phases = prep.time_phases
        self.p_reuse = prep.p_reuse
        self.p_seq = prep.p_seq
        self.last_end[0] = -1
        self.last_end[1] = -1
        self.seq_table = prep.seq_table
        self.last_kind[0] = 0
        self.last_kind[1] = 0
        self.run_length[0] = 0
        self.run_length[1] = 0
        self.kind_head = prep.kind_head
        self.size_levels = prep.cascade.shape[2]
        self.p_head = prep.p_head
        self.kind_run = prep.kind_run
        self.run_buckets = prep.run_buckets
        self.kind_reuse = prep.kind_reuse
        self.kind_near = prep.kind_near
        self.p_near = prep.p_near
        self.p_near_aligned = prep.p_near_aligned
        self.near_log = prep.near_log
        self.near_len = prep.near_len
        self.near_margin = prep.near_margin
        self.near_table = prep.near_table
        self.p_hot = prep.p_hot
        self.hot_prob = prep.hot_prob
        self.hot_first = prep.hot_first
        self.hot_off = prep.hot_off
        self.hot_size = prep.hot_size
        self.hot_alias = prep.hot_alias
        self.dist_log = prep.dist_log
        self.dist_len = prep.dist_len
        self.p_reuse_write = prep.p_reuse_write
        self.sector_cdf = prep.sector_cdf
        self.trans_cdf = prep.trans_cdf
        self.gap_log = prep.gap_log
        self.seg_first = prep.seg_first
        self.seg_start = prep.seg_start
        self.seg_len = prep.seg_len
        self.seg_level = prep.seg_level
        self.seg_alias = prep.seg_alias
        self.seg_prob = prep.seg_prob
        self.size_log = prep.size_log
        self.size_len = prep.size_len
        self.cascade = prep.cascade
        self.cascade_step = prep.cascade_step
        self.fresh_retries = prep.fresh_retries
        self.address_scale = prep.address_scale
        self.ring_off = np.zeros(prep.window, dtype=np.int64)
        self.ring_size = np.zeros(prep.window, dtype=np.int64)
        self.op_off = np.zeros((2, prep.window), dtype=np.int64)
        self.op_size = np.zeros((2, prep.window), dtype=np.int64)
        self.op_count[0] = 0
        self.op_count[1] = 0
        self.recent = CellCounts(2 * prep.window)
        if prep.avoid_window:
            self.stamps = UnitStamps(max(prep.avoid_window, prep.overlap_window))
        else:
            self.touched = CellCounts(4 * prep.overlap_window)
        self.q_overlap = prep.q_overlap
        self.prev_op = 0
        self.state = prep.first_state
        self.time = 0

    def fill(self, int64_t g0, const double[:, :] u, int64_t[:] time_ns, int64_t[:] offset, int64_t[:] size,
             cnp.uint8_t[:] is_write):
        """Requests ``g0 .. g0 + len(u) - 1`` into the output arrays."""
        with nogil:
            self._fill(g0, u, time_ns, offset, size, is_write)

    cdef void _fill(self, int64_t g0, const double[:, :] u, int64_t[:] time_ns, int64_t[:] offset,
                    int64_t[:] size, cnp.uint8_t[:] is_write) noexcept nogil:
        cdef int64_t i, g, op, reuse, seq, head, near, hot, d, j, k, v, t = 0, have = 0, off = 0, sz = 0
        cdef int64_t heat = 0, tp = 0, base
        cdef double p_re, u_reuse, u_head, p_nr
        for i in range(u.shape[0]):
            g = g0 + i
            if self.time_phases > 1:
                tp = g * self.time_phases // self.n_requests
            if g == 0:
                op = 1 if u[i, 0] < self.p_write_first else 0
            else:
                op = 1 if u[i, 0] < self.p_write_after[tp, self.prev_op] else 0
            reuse = 0
            seq = 0
            head = 0
            near = 0
            hot = 0
            d = 0
            u_reuse = u[i, 1]
            if u_reuse < self.p_hot[op]:
                hot = 1
                base = self.hot_first[op]
                k = _alias(&self.hot_prob[0], &self.hot_alias[0], base, self.hot_first[op + 1] - base, u[i, 5])
                off = self.hot_off[k]
                sz = self.hot_size[k]
            else:
                u_reuse = (u_reuse - self.p_hot[op]) / (1.0 - self.p_hot[op])
            p_re = self.p_reuse[op, self.last_kind[op]]
            if not hot and u_reuse < p_re:
                t = 1 if u_reuse < p_re * self.p_reuse_write[op] else 0
                have = self.op_count[t]
                if have > 0 and self.dist_len[op, t] > 0:
                    d = <int64_t>floor(_draw(&self.dist_log[op, t, 0], self.dist_len[op, t] - 1, u[i, 2]) + 0.5)
                    if d < 1:
                        d = 1
                    if d > self.window:
                        d = self.window
                    if d <= have:
                        reuse = 1
            if reuse:
                j = (have - d) % self.window
                off = self.op_off[t, j]
                if u[i, 3] < self.p_same:
                    sz = self.op_size[t, j]
                else:
                    sz = _round_size(_draw(&self.size_log[op, 0, 0], self.size_len[op, 0] - 1, u[i, 4]))
            if hot or reuse:
                pass
            elif 0 <= self.last_end[op] < self.span_end \
                    and u[i, 11] < self.p_seq[op, self.last_kind[op]] \
                    and not self.recent.has(self.last_end[op] // self.unit_bytes):
                seq = 1
                off = self.last_end[op]
                sz = _round_size(_draw(&self.size_log[op, self.seq_table, 0], self.size_len[op, self.seq_table] - 1,
                                       u[i, 4]))
            else:
                u_head = u[i, 12]
                p_nr = self.p_near[op, self.last_kind[op]]
                if u_head < p_nr:
                    near = self._near(g, op, u[i, 2], u[i, 3], u[i, 4], u[i, 8], &off, &sz)
                if not near:
                    if u_head < p_nr:
                        u_head = u_head / p_nr
                    else:
                        u_head = (u_head - p_nr) / (1.0 - p_nr)
                    head = 1 if u_head < self.p_head[op] else 0
                    heat = self._fresh(g, op, head, u[i, 5], u[i, 6], u[i, 7], u[i, 8], u[i, 4],
                                       u[i, 13] < self.q_overlap[op], &off, &sz)
            if g > 1:
                self.state = _pick(&self.trans_cdf[tp, self.state, 0], self.trans_cdf.shape[2], u[i, 9])
            if g > 0:
                self.time += <int64_t>floor(_draw(&self.gap_log[self.state, 0], self.gap_log.shape[1] - 1, u[i, 10])
                                            + 0.5)
            time_ns[i] = self.time
            if self.address_scale == 1.0:
                offset[i] = off
            else:
                offset[i] = <int64_t>floor(off * self.address_scale / SECTOR) * SECTOR
            size[i] = sz
            is_write[i] = <cnp.uint8_t>op
            j = g % self.window
            if g >= self.window:
                k = self.ring_off[j] // self.unit_bytes
                self.recent.remove(k, k)
            if self.avoid_window:
                self.stamps.mark(off // self.unit_bytes, (off + sz - 1) // self.unit_bytes, g)
            else:
                if g >= self.overlap_window:
                    k = (g - self.overlap_window) % self.window
                    d = self.ring_off[k]
                    self.touched.remove(d // self.unit_bytes, (d + self.ring_size[k] - 1) // self.unit_bytes)
                self.touched.add(off // self.unit_bytes, (off + sz - 1) // self.unit_bytes)
            self.recent.add(off // self.unit_bytes, off // self.unit_bytes)
            self.ring_off[j] = off
            self.ring_size[j] = sz
            k = self.op_count[op] % self.window
            self.op_off[op, k] = off
            self.op_size[op, k] = sz
            self.op_count[op] += 1
            self.prev_op = op
            if hot:
                continue
            self.last_end[op] = off + sz
            if seq:
                self.run_length[op] += 1
            else:
                self.run_length[op] = 0
            if reuse:
                self.last_kind[op] = self.kind_reuse
            elif seq:
                self.last_kind[op] = self.kind_run + _log2_bucket(self.run_length[op], self.run_buckets)
            elif near:
                self.last_kind[op] = self.kind_near
            elif head:
                self.last_kind[op] = self.kind_head
            else:
                self.last_kind[op] = heat

    cdef int64_t _near(self, int64_t g, int64_t op, double u_dist, double u_offset, double u_size, double u_align,
                       int64_t* off_out, int64_t* size_out) noexcept nogil:
        """Writes a near request's offset and size and returns 1, or returns 0 when it cannot be one.  With
        probability ``p_near_aligned[op]`` (the draw ``u_align``, the fresh requests' sector draw, which a near
        request does not use) the start moves to the nearest whole number of units from the target's."""
        cdef int64_t d = <int64_t>floor(_draw(&self.near_log[op, 0, 0], self.near_len[op, 0] - 1, u_dist) + 0.5)
        cdef int64_t off, j, widened, position
        if d < 1:
            d = 1
        if d > self.window:
            d = self.window
        if d > g:
            return 0
        j = (g - d) % self.window
        widened = self.ring_size[j] + 2 * self.near_margin
        position = <int64_t>floor(_draw(&self.near_log[op, 1, 0], self.near_len[op, 1] - 1, u_offset) + 0.5)
        off = self.ring_off[j] - self.near_margin + position * widened // NEAR_POSITIONS
        if u_align < self.p_near_aligned[op]:
            off = self.ring_off[j] + <int64_t>floor(<double>(off - self.ring_off[j]) / self.unit_bytes + 0.5) \
                * self.unit_bytes
        if off < 0 or off >= self.span_end:
            return 0
        off_out[0] = off // SECTOR * SECTOR
        size_out[0] = _round_size(_draw(&self.size_log[op, self.near_table, 0], self.size_len[op, self.near_table] - 1,
                                        u_size))
        return 1

    cdef int64_t _fresh(self, int64_t g, int64_t op, int64_t head, double u_seg, double u_region,
                        double u_cascade, double u_sector, double u_size, bint may_overlap,
                        int64_t* off_out, int64_t* size_out) noexcept nogil:
        """Writes a fresh request's offset and size; returns the heat level of its region."""
        cdef int64_t lv = self.levels
        cdef int64_t m = (op * 2 + head) * self.phases + (g * self.phases // self.n_requests if self.phases > 1 else 0)
        cdef int64_t base = self.seg_first[m]
        cdef int64_t n_seg = self.seg_first[m + 1] - base
        cdef int64_t attempt = 0, k, seg = 0, seg_len, region, heat = 0, node, depth, unit = 0, v, off, sz, t
        cdef int64_t sector = _pick(&self.sector_cdf[op, head, 0], self.sector_cdf.shape[2], u_sector)
        cdef double x, lo, hi, mid
        cdef uint64_t key
        cdef bint free_units
        while True:
            seg = _alias(&self.seg_prob[0], &self.seg_alias[0], base, n_seg, u_seg)
            seg_len = self.seg_len[seg]
            k = <int64_t>floor(u_region * seg_len)
            if k > seg_len - 1:
                k = seg_len - 1
            region = self.seg_start[seg] + k
            heat = self.seg_level[seg]
            lo = 0.0
            hi = 1.0
            node = 1
            for depth in range(lv):
                key = self.salt ^ (<uint64_t>op * HASH_OP) ^ (<uint64_t>region * HASH_REGION) \
                    ^ (<uint64_t>node * HASH_NODE)
                mid = lo + (self.cascade[op, head, heat, depth, _mix(key) >> 56] * self.cascade_step) * (hi - lo)
                if u_cascade < mid:
                    node = 2 * node
                    hi = mid
                else:
                    node = 2 * node + 1
                    lo = mid
            unit = (region << lv) + (node - (<int64_t>1 << lv))
            off = unit * self.unit_bytes + sector * SECTOR
            if attempt >= self.fresh_retries:
                break
            # the start unit first: it needs no size, and most redraws are decided by it
            if not self.recent.has(unit) and (self.avoid_window == 0
                                              or not self.stamps.covers(unit, unit, g, self.avoid_window)):
                if may_overlap:
                    break
                t = 1 + head * self.size_levels + heat
                sz = _round_size(_draw(&self.size_log[op, t, 0], self.size_len[op, t] - 1, u_size))
                if self.avoid_window:
                    if not self.stamps.covers(unit, (off + sz - 1) // self.unit_bytes, g, self.overlap_window):
                        break
                elif not self.touched.covers(unit, (off + sz - 1) // self.unit_bytes):
                    break
            attempt += 1
            key = self.salt ^ (<uint64_t>g * HASH_RETRY_G) ^ (<uint64_t>attempt * HASH_RETRY_A)
            u_seg = (_mix(key) >> 11) * INV_2_53
            u_region = (_mix(key ^ 1) >> 11) * INV_2_53
            u_cascade = (_mix(key ^ 2) >> 11) * INV_2_53
        t = 1 + head * self.size_levels + heat
        off_out[0] = off
        size_out[0] = _round_size(_draw(&self.size_log[op, t, 0], self.size_len[op, t] - 1, u_size))
        return heat
