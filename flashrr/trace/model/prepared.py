"""A workload model turned into the flat arrays both generators read.

:class:`Prepared` holds everything per request generation needs, in the form
the compiled kernel (``_kernel.pyx``) and its pure-Python twin
(``reference.py``) both use: quantile tables in ``log1p`` space, alias tables
over heat-map segments (one per op and phase, concatenated), the cascade as a
lookup of 256 split shares per node depth, and cumulative distributions for
the sector and the gap-state chain.

Uniform draws: each request uses one row of :data:`N_UNIFORMS` numbers from
``numpy.random.default_rng([seed, block])``, block by block of
:data:`BLOCK_REQUESTS` requests, so a generated trace does not depend on how it
is read in chunks.  Column meanings are the ``U_*`` constants; a request that
does not need a column's draw for its own kind may use it for another (a hot
request picks its unit with ``U_SEG``; a near request draws its distance with
``U_DIST`` and its position in its target with ``U_SAME``), and a draw that decided between
two kinds is rescaled to [0, 1) before it decides the next.
"""
from __future__ import annotations

import numpy as np

from .schema import KIND_HEAD, KIND_NEAR, KIND_REUSE, KIND_RUN, RUN_BUCKETS, SECTOR_BYTES, SIZE_LEVELS, WorkloadModel
from .tables import MASK64, alias_table, splitmix64

__all__ = ["Prepared", "BLOCK_REQUESTS", "N_UNIFORMS", "block_uniforms", "HASH_OP", "HASH_REGION", "HASH_NODE",
           "HASH_RETRY_G", "HASH_RETRY_A"]

#: Requests generated per block (the unit of random draws).
BLOCK_REQUESTS = 1 << 16
#: Uniform draws per request, by column.
N_UNIFORMS = 14
U_OP, U_REUSE, U_DIST, U_SAME, U_SIZE, U_SEG, U_REGION, U_CASCADE, U_SECTOR, U_STATE, U_GAP, U_SEQ, U_HEAD, \
    U_OVERLAP = range(N_UNIFORMS)

# Multipliers that spread op, region, node and unit over the 64 bits of a hash key.
HASH_OP = 0x9E3779B97F4A7C15
HASH_REGION = 0xC2B2AE3D27D4EB4F
HASH_NODE = 0x165667B19E3779F9
# ... and request index and attempt, for the draws of a fresh request's retries
HASH_RETRY_G = 0xA24BAED4963EE407
HASH_RETRY_A = 0x9FB21C651E98DF25


def block_uniforms(seed: int, block: int, n: int) -> np.ndarray:
    """The ``(n, N_UNIFORMS)`` draws of block ``block`` (n <= BLOCK_REQUESTS)."""
    return np.random.default_rng([seed, block]).random((n, N_UNIFORMS))


class Prepared:
    """The flat arrays of ``model`` for a trace of ``n_requests`` requests and seed ``seed``."""

    def __init__(self, model: WorkloadModel, n_requests: int, seed: int):
        self.model = model
        self.n_requests = int(n_requests)
        self.seed = int(seed)
        self.salt = splitmix64(self.seed & MASK64)
        self.unit_bytes = model.unit_bytes
        self.levels = model.levels
        self.window = model.reuse_window_requests
        self.phases = model.phases
        self.fresh_retries = model.fresh_retries
        self.address_scale = model.address_scale
        self.overlap_window = model.overlap_window_requests
        self.avoid_window = model.fresh_avoid_window_requests  # 0: fresh requests avoid started units only
        self.span_end = model.span_end_byte  # continuations start below this byte (model space)
        self.p_write_first = model.p_write_first
        # op chain and gap-state transitions per time phase (one phase: the model's own)
        phases = model.time_phases
        self.time_phases = max(len(phases), 1)
        self.p_write_after = np.array([ph.p_write_after for ph in phases] if phases else [model.p_write_after],
                                      dtype=np.float64)
        self.p_same = model.p_same_size
        ops = (model.read, model.write)
        self.p_reuse = np.array([op.p_reuse for op in ops], dtype=np.float64)
        self.p_seq = np.array([op.p_seq for op in ops], dtype=np.float64)
        self.kind_head, self.kind_run, self.run_buckets, self.kind_reuse = KIND_HEAD, KIND_RUN, RUN_BUCKETS, KIND_REUSE
        self.kind_near = KIND_NEAR
        # near requests: probability by kind, distance (requests) and position (65,536ths of the widened target)
        self.p_near = np.array([op.p_near for op in ops], dtype=np.float64)
        self.near_margin = model.near_margin_bytes
        self.p_near_aligned = np.array([op.p_near_aligned for op in ops], dtype=np.float64)
        near_tables = [(op.near_distance, op.near_position) for op in ops]
        self.near_len = np.array([[t.size for t in row] for row in near_tables], dtype=np.int64)
        self.near_log = np.zeros((2, 2, max(int(self.near_len.max()), 2)))
        for i, row in enumerate(near_tables):
            for k, table in enumerate(row):
                self.near_log[i, k, :table.size] = np.log1p(table)
        # hot units: per op, a share p_hot of its requests, drawn from an alias table over the op's units
        self.p_hot = np.array([op.p_hot for op in ops], dtype=np.float64)
        hot_prob, hot_alias, hot_first = [], [], [0]
        for op in ops:
            if op.hot_unit.size:
                prob, alias = alias_table(op.hot_weight)
                hot_prob.append(prob)
                hot_alias.append(alias + hot_first[-1])
            hot_first.append(hot_first[-1] + op.hot_unit.size)
        self.hot_first = np.array(hot_first, dtype=np.int64)
        self.hot_off = np.concatenate([op.hot_unit * model.unit_bytes + op.hot_start for op in ops]
                                      + [np.zeros(1, np.int64)])
        self.hot_size = np.concatenate([op.hot_size for op in ops] + [np.ones(1, np.int64)]).astype(np.int64)
        self.hot_prob = np.concatenate(hot_prob + [np.ones(1)])
        self.hot_alias = np.concatenate(hot_alias + [np.zeros(1, np.int64)]).astype(np.int64)
        # re-access targets: [op, target op] distance tables, counted in requests of the target op
        self.p_reuse_write = np.array([op.p_reuse_write for op in ops], dtype=np.float64)
        tables = [[op.reuse_distance_read, op.reuse_distance_write] for op in ops]
        self.dist_len = np.array([[t.size for t in row] for row in tables], dtype=np.int64)
        self.dist_log = np.zeros((2, 2, max(int(self.dist_len.max()), 2)))
        for i, row in enumerate(tables):
            for t, table in enumerate(row):
                self.dist_log[i, t, :table.size] = np.log1p(table)
        # the places of each op: [0] fresh requests that start no run, [1] run heads (the first when an op has none)
        places = [(op.places, op.heads if op.heads is not None else op.places) for op in ops]
        self.p_head = np.array([op.p_head for op in ops], dtype=np.float64)
        self.q_overlap = np.array([op.q_overlap for op in ops], dtype=np.float64)
        sk = max(max(op.size_all.size for op in ops), max(op.size_seq.size for op in ops),
                 max(op.size_near.size for op in ops),
                 max((t.size for pl in places for p in pl for t in p.size_by_level), default=0))
        # size tables: [op, 0] = all sizes, [op, 1 + map * SIZE_LEVELS + level] = per map and heat level,
        # [op, seq_table] = sequential continuations, [op, near_table] = near requests (an empty table uses all
        # sizes)
        self.seq_table = 1 + 2 * SIZE_LEVELS
        self.near_table = self.seq_table + 1
        self.size_log = np.zeros((2, self.near_table + 1, sk))
        self.size_len = np.zeros((2, self.near_table + 1), dtype=np.int64)
        for i, op in enumerate(ops):
            tables = (op.size_all,) + tuple(places[i][0].size_by_level) + tuple(places[i][1].size_by_level) \
                + (op.size_seq, op.size_near)
            for j, t in enumerate(tables):
                if t.size == 0:
                    t = op.size_all
                self.size_log[i, j, :t.size] = np.log1p(t)
                self.size_len[i, j] = t.size
        n_sectors = model.unit_bytes // SECTOR_BYTES
        self.sector_cdf = np.zeros((2, 2, n_sectors))
        for i in range(2):
            for k in range(2):
                c = np.cumsum(places[i][k].sector_pmf)
                c[-1] = 1.0
                self.sector_cdf[i, k] = c
        # cascade[op, map, heat level, depth, j]: the bin of the split share a node takes when its hash's top
        # byte is j; the share is bin * cascade_step (uint8, so the whole table stays in the L1 cache)
        bins = {p.cascade.shape[2] for pl in places for p in pl}
        if len(bins) != 1 or bins.pop() > 256:
            raise ValueError("every cascade of a model must have the same number of bins, at most 256")
        b = ops[0].cascade.shape[2]
        self.cascade_step = 1.0 / (b - 1)
        self.cascade = np.zeros((2, 2, SIZE_LEVELS, max(self.levels, 1), 256), dtype=np.uint8)
        grid = (np.arange(256) + 0.5) / 256
        for i in range(2):
            for k in range(2):
                cas = places[i][k].cascade
                for h in range(SIZE_LEVELS):
                    for depth in range(self.levels):
                        c = np.cumsum(cas[h, depth])
                        c /= c[-1]
                        self.cascade[i, k, h, depth] = np.minimum(np.searchsorted(c, grid, side="right"), b - 1)
        # heat-map segments of every (op, map, phase), concatenated; map (op, map, k) starts at
        # seg_first[(op * 2 + map) * phases + k]
        starts, lengths, levels, probs, aliases, first = [], [], [], [], [], [0]
        for i in range(2):
            for k in range(2):
                for h in places[i][k].phases:
                    prob, alias = alias_table(h.weight * h.length)
                    starts.append(h.start)
                    lengths.append(h.length)
                    levels.append(h.level)
                    probs.append(prob)
                    aliases.append(alias + first[-1])
                    first.append(first[-1] + h.start.size)
        self.seg_first = np.array(first, dtype=np.int64)
        self.seg_start = np.concatenate(starts).astype(np.int64)
        self.seg_len = np.concatenate(lengths).astype(np.int64)
        self.seg_level = np.concatenate(levels).astype(np.int64)
        self.seg_prob = np.concatenate(probs)
        self.seg_alias = np.concatenate(aliases).astype(np.int64)
        arr = model.arrivals
        self.n_states = arr.transition.shape[0]
        trans = np.stack([ph.transition for ph in phases]) if phases else arr.transition[None]
        tc = np.cumsum(trans, axis=2)
        tc[:, :, -1] = 1.0
        self.trans_cdf = tc
        self.gap_log = np.log1p(arr.gap_ns)
        self.first_state = arr.first_state
