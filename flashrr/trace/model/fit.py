"""Fitting a :class:`~flashrr.trace.model.schema.WorkloadModel` to a block trace.

:func:`fit_model` measures, in one pass of vectorised NumPy over the trace:

1. the op chain (a two-state Markov chain of reads and writes), and each op's
   hot units: the units its requests start in at least ``hot_min_count``
   times and in at least ``hot_min_share`` of them (the busiest
   ``hot_units``), with their weights and most common sizes; a request that
   starts in a hot unit of its op is a hot request, and the measures below
   leave hot requests out of each op's sequence of requests;
2. re-accesses: a request whose start unit (``offset // unit_bytes``) was the
   start unit of one of the previous ``reuse_window_requests`` requests is a
   re-access of that request (its target); the probability of one, by op and by
   the kind of the previous request of the op (below), the share of each op's
   re-accesses that target a write, and per op and target op the distribution
   of the distance, counted in requests of the target's op;
3. sequential continuations: a request that is not a re-access and starts at
   the byte where the previous request of its op ended; their probability by
   op and by the kind of that previous request (a fresh one, by the heat level
   of its region; a continuation, by the log2 bucket of the length its run has
   reached, which sets the run-length distribution; a re-access; a near
   request), and their sizes;
4. near requests: a request that is neither and starts in a unit that one of
   the previous ``near_window_requests`` requests covered, widened by
   ``near_margin_bytes`` on each side (its target: the latest such request);
   their probability by the kind of the previous request of the op, the
   distance to the target, where the start lies in the target's widened
   extent, and their sizes;
5. for the other (fresh) requests of each op, apart for those that start a
   run (the next request of their op continues them) and those that do not,
   with the share of run heads among them and the share that cover a unit one
   of the window's requests covered, per phase of the trace, the heat
   map of their start regions (counts per region, rounded to
   ``weight_steps_per_octave`` steps per power of two, runs of equal regions
   merged), the within-region cascade (how a node's requests split between
   its halves, pooled per heat level and depth over nodes with at least two
   requests, weighted by their requests, with the binomial noise of small
   counts taken out), the start sector within the unit, and the sizes per heat
   level; a fresh request neither starts in nor is near a recent request, so
   the generator's fresh requests avoid the units the near window covered
   (``fresh_avoids_near``);
6. the arrival process: gaps between arrivals in ``gap_states`` states
   (quantiles of the gap), a transition matrix between the states of
   consecutive gaps, and each state's gap distribution;
7. per ``time_phases`` equal parts of the trace, the op chain and the
   gap-state transitions of that part (load and op mix drift).

A trace whose heat maps would need more than ``max_segments`` segments is
refitted with regions twice as large until they fit, so the model file stays
small (the fit records the region size it used).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from ..core import Trace
from .schema import (KIND_HEAD, KIND_NEAR, KIND_REUSE, KIND_RUN, KINDS, MAX_HOT_UNITS, NEAR_POSITIONS, RUN_BUCKETS,
                     SECTOR_BYTES, SIZE_LEVELS, Arrivals, HeatMap, ModelError, OpModel, Places, TimePhase,
                     WorkloadModel)
from .tables import quantile_table

__all__ = ["FitSettings", "fit_model", "fit_settings_from", "MIN_REQUESTS", "start_alignment"]

#: The shortest trace a model can be fitted to.
MIN_REQUESTS = 400


@dataclass(frozen=True)
class FitSettings:
    """Settings of :func:`fit_model` (sizes in bytes, distances in requests)."""

    unit_bytes: int | None = None
    """Unit of a request's start (a power of two, >= 512); None: the trace's start alignment
    (:func:`start_alignment`), at least 4 KiB and at most 16 KiB."""
    region_bytes: int = 1 << 20
    """Unit of the heat maps (a power of two times unit_bytes); doubled while the maps exceed max_segments."""
    reuse_window_requests: int = 65536
    """A request re-accesses a start unit used at most this many requests earlier; older reuse is left to the
    heat maps."""
    fresh_retries: int = 8
    """Draws a fresh request gets to find a unit not used within the re-access window (the model's
    ``fresh_retries``)."""
    overlap_window_requests: int = 4096
    """A fresh request's units count as overlapping when one of this many requests before it covered one (and
    the generator keeps the same share of overlapping fresh requests); a window above reuse_window_requests
    counts as that one."""
    time_phases: int = 16
    """Equal parts of the trace, each with its own op chain and gap-state transitions (the model's time phases;
    fewer when the trace has fewer than 2,000 requests a part, none below two parts)."""
    near_window_requests: int = 65536
    """A request may be near one of this many requests before it (0: no request is near; a window above
    reuse_window_requests counts as that one)."""
    near_margin_bytes: int = 0
    """A request that is neither a re-access nor a continuation is near a recent request when it starts inside
    that request's extent or at most this many bytes before or after it (0: inside only)."""
    fresh_avoids_near: bool = True
    """Generated fresh requests avoid starting in a unit one of the last near_window_requests requests covered
    (the model's ``fresh_avoid_window_requests``), since the fit calls a request fresh only when it is near
    none of them; False: they avoid only the units the re-access window's requests started in."""
    hot_units: int = 1024
    """Most hot units per op (0: none): the units an op's requests start in most often, each at least
    hot_min_count times and in at least hot_min_share of the op's requests."""
    hot_min_share: float = 1.0 / 4096
    """A hot unit takes at least this share of its op's requests."""
    hot_min_count: int = 8
    """A hot unit takes at least this many of its op's requests."""
    phases: int = 1
    """Phases of the trace (equal numbers of requests), each with its own heat maps: the working-set drift."""
    weight_steps_per_octave: int = 4
    """Resolution of the heat-map weights (steps per power of two)."""
    max_segments: int = 32768
    """Most heat-map segments over both ops and all phases."""
    cascade_bins: int = 21
    """Values of a split share (0, 1/(bins-1), ..., 1)."""
    size_knots: int = 256
    distance_knots: int = 128
    gap_states: int = 16
    gap_knots: int = 64

    def __post_init__(self):
        def bad(name, rule):
            raise ModelError(f"fit setting {name}: expected {rule} (got {getattr(self, name)!r})")

        u = self.unit_bytes
        if u is not None and (isinstance(u, bool) or not isinstance(u, int) or u < SECTOR_BYTES or u & (u - 1)):
            bad("unit_bytes", "a power of two, at least 512, or None (from the trace's start alignment)")
        r = self.region_bytes
        if not isinstance(r, int) or r < 2 * (u or AUTO_UNIT_MAX) or r & (r - 1):
            bad("region_bytes", f"a power of two, at least twice unit_bytes (or {2 * AUTO_UNIT_MAX} with an "
                "automatic unit_bytes)")
        for name, lo, hi in (("reuse_window_requests", 1, 1 << 24), ("phases", 1, 4096), ("fresh_retries", 0, 1024),
                             ("overlap_window_requests", 1, 1 << 24), ("time_phases", 1, 4096),
                             ("weight_steps_per_octave", 1, 64), ("max_segments", 1, 1 << 24),
                             ("cascade_bins", 2, 256), ("size_knots", 1, 4096), ("distance_knots", 1, 4096),
                             ("gap_states", 1, 256), ("gap_knots", 1, 4096), ("near_margin_bytes", 0, 1 << 30),
                             ("near_window_requests", 0, 1 << 24),
                             ("hot_units", 0, MAX_HOT_UNITS), ("hot_min_count", 1, 1 << 30)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                bad(name, f"an integer in [{lo}, {hi}]")
        if not isinstance(self.fresh_avoids_near, bool):
            bad("fresh_avoids_near", "True or False")
        v = self.hot_min_share
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
            bad("hot_min_share", "a share in [0, 1]")


def fit_settings_from(items) -> FitSettings:
    """The :class:`FitSettings` of ``KEY=VALUE`` strings, each value read as a Python literal (``True``,
    ``4096``, ``0.5``); :class:`ModelError` names a malformed item or an unknown setting."""
    import ast

    values = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep:
            raise ModelError(f"fit setting {item!r}: expected KEY=VALUE")
        try:
            values[key.strip()] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            values[key.strip()] = text.strip()
    unknown = sorted(set(values) - {f.name for f in fields(FitSettings)})
    if unknown:
        raise ModelError(f"fit setting(s) {', '.join(unknown)}: unknown; expected FitSettings fields")
    return FitSettings(**values)


#: The bounds of an automatic unit_bytes (:attr:`FitSettings.unit_bytes` None), bytes.
AUTO_UNIT_MIN, AUTO_UNIT_MAX = 4096, 16384
#: The share of a trace's starts an alignment must divide (:func:`start_alignment`).
ALIGNED_SHARE = 0.999


def start_alignment(trace: Trace, share: float = ALIGNED_SHARE, largest: int = 1 << 20) -> int:
    """The largest power of two (bytes, 512 .. ``largest``) that divides the start
    offset of at least ``share`` of the trace's requests; 512 for an empty trace.

    The model draws fresh starts in ``unit_bytes`` units: a trace whose requests
    all start on larger boundaries (8 KiB pages, say) is kept aligned only when
    ``unit_bytes`` is at least this alignment."""
    off = np.asarray(trace.offset, dtype=np.int64)
    align = 512
    while align < largest and len(off) and np.mean(off % (align * 2) == 0) >= share:
        align *= 2
    return align


def fit_model(trace: Trace, settings: FitSettings | None = None, name: str | None = None, **overrides
              ) -> WorkloadModel:
    """The workload model of ``trace`` (see the module docstring).

    ``settings`` (or keyword overrides of :class:`FitSettings` fields) set the
    fit; ``name`` names the model (default: the trace's name).  Raises
    :class:`~flashrr.trace.model.schema.ModelError` naming the trace for a trace
    too short to fit (fewer than :data:`MIN_REQUESTS` requests).
    """
    if not isinstance(trace, Trace):
        to_trace = getattr(trace, "to_trace", None)
        if to_trace is None:
            raise TypeError(f"fit_model: expected a Trace or a TraceSource, got {type(trace).__name__}")
        trace = to_trace()
    s = settings or FitSettings()
    if overrides:
        s = FitSettings(**{**asdict(s), **overrides})
    n = len(trace)
    label = name or trace.name
    if n < MIN_REQUESTS:
        raise ModelError(f"trace {trace.name!r}: requests: {n}; fitting a model needs at least {MIN_REQUESTS}")
    if s.unit_bytes is None:
        s = replace(s, unit_bytes=min(max(start_alignment(trace), AUTO_UNIT_MIN), AUTO_UNIT_MAX))
    off, size = trace.offset, trace.size
    w = trace.is_write.astype(np.int64)

    p_write_first, p_write_after = _op_chain(w)
    units = off // s.unit_bytes
    hot, hot_sets = _hot_requests(off, size, w, s)
    member = ~hot  # requests of the ops' main streams (hot requests are drawn apart)
    reuse, prev = _reuses(units, s.reuse_window_requests)
    reuse &= member
    same = float(np.mean(size[reuse] == size[prev[reuse]])) if reuse.any() else 1.0
    seq = _sequential(off, size, w, member) & ~reuse & member
    d_target = _target_distances(w, prev)
    margin_units = s.near_margin_bytes // s.unit_bytes
    near_prev = _near_targets(off, size, s.unit_bytes, margin_units,
                              min(s.near_window_requests, s.reuse_window_requests))
    near = (near_prev >= 0) & member & ~reuse & ~seq

    fresh = member & ~reuse & ~seq & ~near
    head = fresh & _continued(w, seq, member)  # fresh requests that the next request of their op continues
    overlap_window = min(s.overlap_window_requests, s.reuse_window_requests)
    overlap = _overlaps(off, size, s.unit_bytes, overlap_window)
    region_bytes = s.region_bytes
    while True:
        singles = {op: _fresh_part(off, size, w, ~(fresh & ~head), op, s, region_bytes) for op in (0, 1)}
        heads = {op: _fresh_part(off, size, w, ~head, op, s, region_bytes) for op in (0, 1)}
        n_seg = sum(len(h.start) for part in (*singles.values(), *heads.values()) if part for h in part["phases"])
        if n_seg <= s.max_segments or region_bytes >= s.unit_bytes << 24:
            break
        region_bytes *= 2
    kind = np.where(reuse, KIND_REUSE, np.where(near, KIND_NEAR, np.where(head, KIND_HEAD,
                                                                           _run_kinds(w, seq, member))))
    for op in (0, 1):
        if singles[op] is not None:
            kind[singles[op]["index"]] = singles[op]["level"]
    p_reuse = _kind_probabilities(w, kind, reuse, member, member)
    p_seq = _kind_probabilities(w, kind, seq, member & ~reuse, member)
    p_near = _kind_probabilities(w, kind, near, member & ~reuse & ~seq, member)
    for op in (0, 1):  # an op with no fresh request borrows the other's places (it is never generated fresh)
        if singles[op] is None:
            singles[op] = singles[1 - op] or heads[op] or heads[1 - op]
    if singles[0] is None:  # no fresh request at all: any request's start places the (never drawn) fresh ones
        singles[0] = singles[1] = _fresh_part(off, size, w, np.zeros(n, dtype=bool), 0, s, region_bytes) \
            or _fresh_part(off, size, w, np.zeros(n, dtype=bool), 1, s, region_bytes)
    parts = []
    for op in (0, 1):
        sel = w == op
        size_all = quantile_table(size[sel] if sel.any() else size, s.size_knots)
        part = singles[op]
        n_fresh = int(np.count_nonzero(fresh & sel))
        p_head = float(np.count_nonzero(head & sel)) / n_fresh if n_fresh else 0.0
        h = heads[op]
        head_places = None if h is None else Places(tuple(h["phases"]), h["cascade"], h["sector_pmf"],
                                                    h["size_by_level"])
        fresh_op = fresh & sel
        q_overlap = float(np.count_nonzero(overlap & fresh_op)) / n_fresh if n_fresh else 1.0
        target_write = w[prev[reuse & sel]] == 1
        p_reuse_write = float(target_write.mean()) if target_write.size else 0.0
        d_read, d_write = (quantile_table(d_target[reuse & sel][target_write == t], s.distance_knots) for t in (0, 1))
        near_op = np.flatnonzero(near & sel)
        near_dist = quantile_table(near_op - near_prev[near_op], s.distance_knots)
        near_pos = _near_positions(off, size, near_op, near_prev[near_op], s.near_margin_bytes, s.distance_knots)
        near_aligned = float(np.mean((off[near_op] - off[near_prev[near_op]]) % s.unit_bytes == 0)) \
            if near_op.size else 0.0
        n_op = int(np.count_nonzero(sel))
        hot_unit, hot_weight, hot_size, hot_start = hot_sets[op]
        p_hot = float(np.count_nonzero(hot & sel)) / n_op if n_op else 0.0
        parts.append(OpModel(np.array(p_reuse[op]), p_reuse_write, d_read, d_write, part["sector_pmf"],
                             part["cascade"], size_all, part["size_by_level"], tuple(part["phases"]),
                             np.array(p_seq[op]), quantile_table(size[seq & sel], s.size_knots),
                             p_head if head_places is not None else 0.0, head_places, q_overlap,
                             np.array(p_near[op]) if near_op.size else np.zeros(KINDS), near_dist, near_pos,
                             quantile_table(size[near_op], s.size_knots), p_hot, hot_unit, hot_weight, hot_size,
                             near_aligned, hot_start))
    arrivals, gap_state = _arrivals(trace.time_ns, s.gap_states, s.gap_knots)
    time_phases = _time_phases(w, gap_state, arrivals, min(s.time_phases, n // _REQUESTS_PER_TIME_PHASE))
    from ..stats import trace_stats

    source = {"name": trace.name, **{k: v for k, v in trace_stats(trace).items()}}
    fit = {**asdict(s), "region_bytes_used": region_bytes}
    return WorkloadModel(label, s.unit_bytes, region_bytes, s.reuse_window_requests, p_write_first, p_write_after,
                         same, parts[0], parts[1], arrivals, fresh_retries=s.fresh_retries,
                         overlap_window_requests=overlap_window, time_phases=time_phases,
                         near_margin_bytes=s.near_margin_bytes,
                         fresh_avoid_window_requests=min(s.near_window_requests, s.reuse_window_requests)
                         if s.fresh_avoids_near else 0,
                         source=source, fit=fit)


def _op_chain(w: np.ndarray) -> tuple[float, tuple[float, float]]:
    ratio = float(w.mean())
    prev, nxt = w[:-1], w[1:]
    after = []
    for op in (0, 1):
        m = prev == op
        after.append(float(nxt[m].mean()) if m.any() else ratio)
    return ratio, (after[0], after[1])


def _reuses(keys: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """``(reuse, prev)``: per request, whether its key was used at most ``window`` requests earlier, and the
    index of the latest earlier request with its key (-1 if none)."""
    n = keys.size
    order = np.lexsort((np.arange(n), keys))
    same = keys[order][1:] == keys[order][:-1]
    prev = np.full(n, -1, dtype=np.int64)
    prev[order[1:][same]] = order[:-1][same]
    return (prev >= 0) & (np.arange(n) - prev <= window), prev


def _target_distances(w: np.ndarray, prev: np.ndarray) -> np.ndarray:
    """Per request with an earlier use (``prev >= 0``): how many requests of the op of that earlier request lie
    between them, the earlier one counted and the request itself not (0 for the others)."""
    out = np.zeros(w.size, dtype=np.int64)
    has = prev >= 0
    for op in (0, 1):
        before = np.concatenate(([0], np.cumsum(w == op)))[:-1]  # requests of op before each request
        m = has & (w[np.maximum(prev, 0)] == op)
        out[m] = before[np.flatnonzero(m)] - before[prev[m]]
    return out


def _hot_requests(off: np.ndarray, size: np.ndarray, w: np.ndarray, s: FitSettings) -> tuple[np.ndarray, list]:
    """``(hot, sets)``: per request, whether it starts in a hot unit of its op; per op, its hot units, their
    weights (requests), sizes (the most common size of the op's requests that start there) and starts (the
    most common byte within the unit where they start, rounded down to a sector)."""
    units = off // s.unit_bytes
    hot = np.zeros(units.size, dtype=bool)
    sets = []
    for op in (0, 1):
        idx = np.flatnonzero(w == op)
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        if idx.size == 0 or s.hot_units == 0:
            sets.append(empty)
            continue
        keys, inv, counts = np.unique(units[idx], return_inverse=True, return_counts=True)
        floor = max(s.hot_min_count, math.ceil(s.hot_min_share * idx.size))
        cand = np.flatnonzero(counts >= floor)
        cand = cand[np.argsort(-counts[cand], kind="stable")][:s.hot_units]
        if cand.size == 0:
            sets.append(empty)
            continue
        cand = np.sort(cand)
        is_hot = np.zeros(keys.size, dtype=bool)
        is_hot[cand] = True
        hot[idx[is_hot[inv]]] = True
        m = is_hot[inv]
        start = off[idx][m] % s.unit_bytes // SECTOR_BYTES * SECTOR_BYTES
        sets.append((keys[cand].astype(np.int64), counts[cand].astype(np.float64),
                     _modal_per_group(inv[m], size[idx][m]), _modal_per_group(inv[m], start)))
    return hot, sets


def _modal_per_group(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The most common of ``values`` in each group (ties: the smallest value), groups in ascending order."""
    pairs, pair_counts = np.unique(np.stack([group, values]), axis=1, return_counts=True)
    order = np.lexsort((pairs[1], -pair_counts, pairs[0]))
    first = np.ones(order.size, dtype=bool)
    first[1:] = pairs[0][order][1:] != pairs[0][order][:-1]
    return pairs[1][order][first].astype(np.int64)


def _near_positions(off: np.ndarray, size: np.ndarray, near: np.ndarray, target: np.ndarray, margin: int,
                    knots: int) -> np.ndarray:
    """The quantile table of where the near requests ``near`` start in the extents of their ``target``
    requests widened by ``margin`` bytes on both sides, in NEAR_POSITIONS-ths of the widened extent (rounded
    down; clipped to 0 .. NEAR_POSITIONS - 1)."""
    widened = size[target] + 2 * margin
    pos = (off[near] - off[target] + margin) * NEAR_POSITIONS // widened
    return quantile_table(np.clip(pos, 0, NEAR_POSITIONS - 1), knots)


def _op_index(w: np.ndarray, member: np.ndarray, op: int) -> np.ndarray:
    """Indices of the requests of ``op`` in ``member``, in trace order."""
    return np.flatnonzero((w == op) & member)


def _sequential(off: np.ndarray, size: np.ndarray, w: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Per request of ``member``, whether it starts at the byte where the previous request of its op in
    ``member`` ended."""
    out = np.zeros(off.size, dtype=bool)
    for op in (0, 1):
        idx = _op_index(w, member, op)
        out[idx[1:]] = off[idx[1:]] == off[idx[:-1]] + size[idx[:-1]]
    return out


def _near_targets(off: np.ndarray, size: np.ndarray, unit: int, margin_units: int, window: int) -> np.ndarray:
    """Per request, the latest of the ``window`` requests before it whose units, widened by ``margin_units`` on
    each side, hold its start unit (-1 if none)."""
    from ..locality import expand_pages

    n = off.size
    if window == 0:
        return np.full(n, -1, dtype=np.int64)
    first = off // unit
    req, units = expand_pages(np.maximum(first - margin_units, 0), (off + size - 1) // unit + margin_units)
    # covered units (kind 1) and each request's start unit (kind 0, sorted before its own cover)
    u = np.concatenate([units, first])
    r = np.concatenate([req, np.arange(n)])
    k = np.concatenate([np.ones(units.size, dtype=np.int64), np.zeros(n, dtype=np.int64)])
    order = np.lexsort((k, r, u))
    u, r, k = u[order], r[order], k[order]
    group = np.concatenate(([0], np.cumsum(u[1:] != u[:-1])))
    # the latest cover of the same unit at or before each position: a running maximum of group * (n + 1) + r + 1
    tag = np.where(k == 1, group * (n + 1) + r + 1, -1)
    latest = np.maximum.accumulate(tag)
    q = k == 0
    hit = q & (latest >= 0) & (latest // (n + 1) == group)
    target = np.where(hit, latest % (n + 1) - 1, -1)
    out = np.full(n, -1, dtype=np.int64)
    out[r[q]] = target[q]
    out[(out >= 0) & (np.arange(n) - out > window)] = -1
    return out


def _overlaps(off: np.ndarray, size: np.ndarray, unit: int, window: int) -> np.ndarray:
    """Per request, whether a unit it covers was covered by one of the ``window`` requests before it."""
    from ..locality import expand_pages

    req, units = expand_pages(off // unit, (off + size - 1) // unit)
    order = np.lexsort((req, units))
    u, r = units[order], req[order]
    same = u[1:] == u[:-1]
    recent = same & (r[1:] != r[:-1]) & (r[1:] - r[:-1] <= window)
    out = np.zeros(off.size, dtype=bool)
    out[r[1:][recent]] = True
    return out


def _continued(w: np.ndarray, seq: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Per request of ``member``, whether the next request of its op in ``member`` is a continuation."""
    out = np.zeros(w.size, dtype=bool)
    for op in (0, 1):
        idx = _op_index(w, member, op)
        out[idx[:-1]] = seq[idx[1:]]
    return out


def _run_kinds(w: np.ndarray, seq: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Per request, the kind of a continuation: KIND_RUN plus the log2 bucket of the length its run reaches with
    it (other requests: 0, overwritten by the caller); runs are counted over the requests of ``member``."""
    out = np.zeros(w.size, dtype=np.int64)
    for op in (0, 1):
        idx = _op_index(w, member, op)
        f = seq[idx].astype(np.int64)
        # run length so far: continuations since the last request of the op that was not one
        start = np.maximum.accumulate(np.where(f == 0, np.arange(idx.size), 0))
        length = np.arange(idx.size) - start
        bucket = np.minimum(np.floor(np.log2(np.maximum(length, 1))).astype(np.int64), RUN_BUCKETS - 1)
        out[idx] = np.where(f == 1, KIND_RUN + bucket, 0)
    return out


def _kind_probabilities(w: np.ndarray, kind: np.ndarray, event: np.ndarray, eligible: np.ndarray,
                        member: np.ndarray) -> list:
    """``p[op][k]``: the share of ``eligible`` requests of ``op`` with ``event``, among those whose previous request
    of the same op in ``member`` has kind k; a kind without such requests takes the op's overall share."""
    out = []
    for op in (0, 1):
        idx = _op_index(w, member, op)
        cand = eligible[idx[1:]]
        now, before = event[idx[1:]][cand], kind[idx[:-1]][cand]
        overall = float(now.mean()) if now.size else 0.0
        out.append([float(now[before == k].mean()) if (before == k).any() else overall for k in range(KINDS)])
    return out


def _fresh_part(off, size, w, not_fresh, op: int, s: FitSettings, region_bytes: int) -> dict | None:
    """Heat maps per phase, cascade, sector pmf and sizes per level of the fresh requests of ``op`` (those not
    in ``not_fresh``)."""
    n = off.size
    idx = np.flatnonzero((w == op) & ~not_fresh)
    if idx.size == 0:
        return None
    unit = s.unit_bytes
    levels = int(math.log2(region_bytes // unit))
    units = off[idx] // unit
    region = units >> levels
    regions, inv, counts = np.unique(region, return_inverse=True, return_counts=True)
    level = _heat_levels(counts)
    phase_of = idx * s.phases // n
    phases = []
    for k in range(s.phases):
        m = phase_of == k
        if not m.any():  # a phase without fresh requests of this op: use the whole trace's map
            m = np.ones(idx.size, dtype=bool)
        r_k, c_k = np.unique(inv[m], return_counts=True)
        phases.append(_segments(regions[r_k], c_k, level[r_k], s.weight_steps_per_octave))
    req_level = level[inv]
    by_level = tuple(quantile_table(size[idx][req_level == lv], s.size_knots) for lv in range(SIZE_LEVELS))
    sector = np.bincount((off[idx] % unit) // SECTOR_BYTES, minlength=unit // SECTOR_BYTES).astype(np.float64)
    pooled = _cascade(units, levels, s.cascade_bins)
    cascade = np.stack([_cascade(units[req_level == lv], levels, s.cascade_bins, pooled)
                        for lv in range(SIZE_LEVELS)])
    return {"phases": phases, "cascade": cascade, "sector_pmf": sector, "size_by_level": by_level, "index": idx,
            "level": req_level}


def _heat_levels(counts: np.ndarray) -> np.ndarray:
    """Level of each region by the rank of its count: [1 - 2**-l, 1 - 2**-(l+1)) of the ranks is level l."""
    m = counts.size
    rank = np.empty(m)
    rank[np.argsort(counts, kind="stable")] = (np.arange(m) + 0.5) / m
    return np.minimum(np.floor(-np.log2(1.0 - rank)).astype(np.int64), SIZE_LEVELS - 1)


def _segments(regions: np.ndarray, counts: np.ndarray, level: np.ndarray, steps: int) -> HeatMap:
    """Runs of consecutive regions with equal rounded weight and level."""
    q = np.round(np.log2(counts) * steps).astype(np.int64)
    brk = np.ones(regions.size, dtype=bool)
    brk[1:] = (regions[1:] != regions[:-1] + 1) | (q[1:] != q[:-1]) | (level[1:] != level[:-1])
    starts = np.flatnonzero(brk)
    lengths = np.diff(np.append(starts, regions.size))
    return HeatMap(regions[starts], lengths, 2.0 ** (q[starts] / steps), level[starts])


def _cascade(units: np.ndarray, levels: int, bins: int, fallback: np.ndarray | None = None) -> np.ndarray:
    """``(levels, bins)``: per depth, the request-weighted distribution of the share going to the first half,
    over nodes with at least two requests; a depth without such nodes takes ``fallback``'s row (or splits
    evenly)."""
    keys, cnt = np.unique(units, return_counts=True)
    out = np.zeros((levels, bins))
    for depth in range(levels):
        child = keys >> (levels - depth - 1)
        ck, cinv = np.unique(child, return_inverse=True)
        ccount = np.bincount(cinv, weights=cnt)
        parent, pinv = np.unique(ck >> 1, return_inverse=True)
        total = np.bincount(pinv, weights=ccount)
        first = np.bincount(pinv, weights=ccount * ((ck & 1) == 0))
        ok = total >= 2
        if ok.any():
            share = _denoised_shares(first[ok] / total[ok], total[ok])
            b = np.minimum(np.floor(share * (bins - 1) + 0.5).astype(np.int64), bins - 1)
            out[depth] = np.bincount(b, weights=total[ok], minlength=bins)
        elif fallback is not None:
            out[depth] = fallback[depth]
        else:
            out[depth, (bins - 1) // 2] = 1.0
            if bins % 2 == 0:
                out[depth, bins // 2] = 1.0
    return out


def _denoised_shares(share: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Observed split shares pulled towards their (request-weighted) mean so that their spread keeps only what
    the binomial noise of ``total`` requests per node does not explain.

    A node that splits its requests with true share p shows ``Binomial(c, p) / c``, whose variance is
    ``p (1 - p) / c`` beyond that of p itself; generating from the observed shares would add that noise a
    second time and make every region more concentrated than it is.  The noise is estimated per node as
    ``s (1 - s) / (c - 1)`` and removed from the weighted variance; each share is then moved towards the mean
    by the factor that leaves the remaining variance (shares of a depth with no spread are kept).
    """
    w = total / total.sum()
    mean = float(w @ share)
    var_obs = float(w @ (share - mean) ** 2)
    if var_obs <= 0.0:
        return share
    noise = float(w @ (share * (1.0 - share) / (total - 1.0)))
    factor = math.sqrt(max(var_obs - noise, 0.0) / var_obs)
    return np.clip(mean + factor * (share - mean), 0.0, 1.0)


_REQUESTS_PER_TIME_PHASE = 2000


def _time_phases(w: np.ndarray, gap_state: np.ndarray, arrivals: Arrivals, parts: int) -> tuple:
    """Per equal part of the trace, its op chain and gap-state transitions (rows without a transition in the
    part take the whole trace's)."""
    if parts < 2:
        return ()
    n = w.size
    k = arrivals.transition.shape[0]
    state = np.concatenate(([gap_state[0]], gap_state))  # request i's state (request 0 shares request 1's)
    out = []
    for p in range(parts):
        a, b = p * n // parts, (p + 1) * n // parts
        ops = w[a:b]
        prev, nxt = ops[:-1], ops[1:]
        after = tuple(float(nxt[prev == op].mean()) if (prev == op).any() else float(ops.mean()) for op in (0, 1))
        trans = np.zeros((k, k))
        lo = max(a, 2)  # request i >= 2 moves from request i - 1's state (request 1 starts in first_state)
        np.add.at(trans, (state[lo - 1:b - 1], state[lo:b]), 1.0)
        empty = trans.sum(axis=1) == 0
        trans[empty] = arrivals.transition[empty]
        out.append(TimePhase(after, trans))
    return tuple(out)


def _arrivals(time_ns: np.ndarray, states: int, knots: int) -> tuple[Arrivals, np.ndarray]:
    """The arrival chain, and the state of each gap (gap i is the one before request i + 1)."""
    gaps = np.diff(time_ns).astype(np.float64)
    if gaps.size == 0:
        return Arrivals(np.ones((1, 1)), np.zeros((1, 2)), 0), np.zeros(0, dtype=np.int64)
    lg = np.log1p(gaps)
    edges = np.unique(np.quantile(lg, np.arange(1, states) / states))
    st = np.searchsorted(edges, lg, side="right")
    used, st = np.unique(st, return_inverse=True)
    k = used.size
    trans = np.zeros((k, k))
    np.add.at(trans, (st[:-1], st[1:]), 1.0)
    empty = trans.sum(axis=1) == 0
    trans[empty] = 1.0  # a state only the last gap reaches: any next state
    tables = np.stack([quantile_table(gaps[st == i], knots) for i in range(k)])
    return Arrivals(trans, tables, int(st[0])), st
