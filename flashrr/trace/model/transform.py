"""Reshaping a workload model: the knobs that turn a fitted model into a paper's trace.

Each function returns a new :class:`~flashrr.trace.model.schema.WorkloadModel`
and leaves the rest of the model as it was:

* :func:`with_read_ratio` — the op chain with a new stationary read share and
  the same lag-1 correlation of ops (runs of reads and writes keep their
  relative length), and each time phase's write share scaled alike;
* :func:`scaled_sizes` — every size table of an op (and its hot units' sizes)
  multiplied by a factor;
* :func:`compacted` — the regions that any heat map covers or a hot unit lies
  in moved next to each other from region 0 (in their order), so the address
  space has no untouched gaps, as a host would have laid the data out from
  LPN 0;
* :func:`stretched` — the heat maps spread over ``factor`` times as many
  regions (segment starts and lengths scaled, hot units moved with their
  regions), so the same pattern of hot and cold regions covers a larger or
  smaller address space;
* :func:`concentrated` — one knob ``kappa`` in [-1, 1] for how concentrated the
  accesses are: heat-map weights raised to ``exp(2 kappa)``, and each cascade
  depth's split distribution mixed with the even split (kappa < 0) or with the
  all-or-nothing split (kappa > 0) in proportion ``|kappa|``;
* :func:`reuse_scaled` — re-access probabilities multiplied by a factor (at
  most 1), which moves how many pages are read more than once;
* :func:`sequential_scaled` — every continuation probability moved a share of
  the way to 1 (longer sequential runs, more of them);
* :func:`overlap_scaled` — the share of fresh requests that may overlap
  recently covered units multiplied by a factor;
* :func:`with_mean_gap` — every gap table scaled so that the stationary mean
  gap is the given one (the shape of bursts and idle periods is kept);
* :func:`poisson_arrivals` — arrivals replaced by a Poisson process.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .schema import SECTOR_BYTES, Arrivals, HeatMap, OpModel, WorkloadModel

__all__ = ["with_read_ratio", "scaled_sizes", "compacted", "stretched", "concentrated", "reuse_scaled",
           "sequential_scaled", "overlap_scaled", "with_mean_gap", "poisson_arrivals", "stationary_mean_gap_ns"]


def _write_share(after: tuple) -> float:
    """The stationary write share of a two-state op chain (``after``: P(write | read), P(write | write))."""
    a, b = after
    return a / (1.0 - b + a) if (1.0 - b + a) > 0 else 0.5


def _chain(after: tuple, pi: float) -> tuple:
    """An op chain with stationary write share ``pi`` and the lag-1 correlation of ``after`` (clipped to what
    ``pi`` allows): ``a' = pi (1 - rho)``, ``b' = pi + rho (1 - pi)``."""
    if pi <= 0.0 or pi >= 1.0:
        return (pi, pi)
    rho = after[1] - after[0]  # lag-1 autocorrelation of the op indicator of a two-state chain
    rho = min(max(rho, max(-pi / (1.0 - pi), -(1.0 - pi) / pi)), 1.0)
    return (min(max(pi * (1.0 - rho), 0.0), 1.0), min(max(pi + rho * (1.0 - pi), 0.0), 1.0))


def with_read_ratio(model: WorkloadModel, read_ratio: float) -> WorkloadModel:
    """The op chain with stationary read share ``read_ratio`` and the template's lag-1 op correlation (clipped
    to what the new share allows).  With time phases, each phase's write share is scaled by one factor so that
    their mean is ``1 - read_ratio`` (each clipped to [0, 1]), keeping which parts are write-heavy."""
    if not 0.0 <= read_ratio <= 1.0:
        raise ValueError(f"read_ratio: expected a share in [0, 1] (got {read_ratio!r})")
    pi = 1.0 - read_ratio
    phases = model.time_phases
    if phases:
        shares = np.array([_write_share(ph.p_write_after) for ph in phases])
        mean = shares.mean()
        scaled = np.clip(shares * (pi / mean), 0.0, 1.0) if mean > 0 else np.full(shares.size, pi)
        phases = tuple(replace(ph, p_write_after=_chain(ph.p_write_after, float(s)))
                       for ph, s in zip(phases, scaled))
    return model.replace(p_write_first=pi, p_write_after=_chain(model.p_write_after, pi), time_phases=phases)


def _with_places(op: OpModel, fn) -> OpModel:
    """``op`` with ``fn`` applied to both its places (fresh requests that start no run, and run heads)."""
    single = fn(op.places)
    return replace(op, phases=single.phases, cascade=single.cascade, sector_pmf=single.sector_pmf,
                   size_by_level=single.size_by_level, heads=None if op.heads is None else fn(op.heads))


def _scale_op_sizes(op: OpModel, factor: float) -> OpModel:
    scale = lambda t: t * factor if t.size else t  # noqa: E731
    op = _with_places(op, lambda p: replace(p, size_by_level=tuple(scale(t) for t in p.size_by_level)))
    hot_size = np.maximum(np.floor(op.hot_size * factor / SECTOR_BYTES + 0.5).astype(np.int64), 1) * SECTOR_BYTES
    return replace(op, size_all=scale(op.size_all), size_seq=scale(op.size_seq), size_near=scale(op.size_near),
                   hot_size=hot_size)


def scaled_sizes(model: WorkloadModel, read_factor: float, write_factor: float) -> WorkloadModel:
    """Every read size table multiplied by ``read_factor`` and every write size table by ``write_factor``."""
    for name, f in (("read_factor", read_factor), ("write_factor", write_factor)):
        if not (math.isfinite(f) and f > 0):
            raise ValueError(f"{name}: expected a positive factor (got {f!r})")
    return model.replace(read=_scale_op_sizes(model.read, read_factor),
                         write=_scale_op_sizes(model.write, write_factor))


def _map_phases(model: WorkloadModel, fn, move_region=None) -> WorkloadModel:
    """``model`` with ``fn`` applied to every heat map and, given ``move_region`` (region indices to region
    indices, vectorised), every hot unit moved to the same place in its moved region."""
    ops = [_with_places(op, lambda p: replace(p, phases=tuple(fn(h) for h in p.phases)))
           for op in (model.read, model.write)]
    if move_region is not None:
        per_region = model.region_bytes // model.unit_bytes
        ops = [_merged_hot(op, move_region(op.hot_unit // per_region) * per_region + op.hot_unit % per_region)
               if op.hot_unit.size else op for op in ops]
    return model.replace(read=ops[0], write=ops[1])


def _merged_hot(op: OpModel, units: np.ndarray) -> OpModel:
    """``op`` with its hot units moved to ``units``; units moved onto one become one, with the sum of their
    weights and the size and start of the first."""
    merged, first, inverse = np.unique(units, return_index=True, return_inverse=True)
    return replace(op, hot_unit=merged, hot_weight=np.bincount(inverse, weights=op.hot_weight),
                   hot_size=op.hot_size[first], hot_start=op.hot_start[first])


def _hot_regions(model: WorkloadModel) -> np.ndarray:
    """The regions the hot units of both ops lie in."""
    per_region = model.region_bytes // model.unit_bytes
    return np.concatenate([op.hot_unit // per_region for op in (model.read, model.write)]).astype(np.int64)


def _all_maps(model: WorkloadModel):
    for op in (model.read, model.write):
        for places in (op.places, op.heads):
            if places is not None:
                yield from places.phases


def compacted(model: WorkloadModel) -> WorkloadModel:
    """The covered regions of all heat maps (both ops, every phase) and the regions of the hot units moved next
    to each other from region 0, in order; a region keeps its place relative to the others of its run of
    covered regions."""
    hot = _hot_regions(model)
    starts = np.concatenate([h.start for h in _all_maps(model)] + [hot])
    ends = np.concatenate([h.start + h.length for h in _all_maps(model)] + [hot + 1])
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    # union of the covered intervals [start, end)
    run_end = np.maximum.accumulate(ends)
    new_run = np.ones(starts.size, dtype=bool)
    new_run[1:] = starts[1:] > run_end[:-1]
    u_start = starts[new_run]
    u_end = np.append(run_end[np.flatnonzero(new_run)[1:] - 1], run_end[-1])
    u_base = np.concatenate(([0], np.cumsum(u_end - u_start)[:-1]))

    def move_region(r: np.ndarray) -> np.ndarray:
        k = np.searchsorted(u_start, r, side="right") - 1
        return u_base[k] + (r - u_start[k])

    return _map_phases(model, lambda h: HeatMap(move_region(h.start), h.length, h.weight, h.level), move_region)


def _stretch_map(h: HeatMap, factor: float) -> HeatMap:
    base = int(h.start[0])
    start = base + np.floor((h.start - base) * factor).astype(np.int64)
    end = base + np.floor((h.start + h.length - base) * factor).astype(np.int64)
    length = np.maximum(end - start, 1)
    # runs that rounding made touch keep their order: each starts at or after the previous one's end
    for i in range(1, start.size):
        if start[i] < start[i - 1] + length[i - 1]:
            start[i] = start[i - 1] + length[i - 1]
    return HeatMap(start, length, h.weight, h.level)


def stretched(model: WorkloadModel, factor: float) -> WorkloadModel:
    """The heat maps spread over ``factor`` times as many regions, from their first region on."""
    if not (math.isfinite(factor) and factor > 0):
        raise ValueError(f"stretch factor: expected a positive number (got {factor!r})")
    base = min(int(h.start[0]) for h in _all_maps(model))
    return _map_phases(model, lambda h: _stretch_map(h, factor),
                       lambda r: base + np.floor((r - base) * factor).astype(np.int64))


def _concentrate_cascade(c: np.ndarray, kappa: float) -> np.ndarray:
    bins = c.shape[-1]
    target = np.zeros(bins)
    if kappa < 0:
        target[(bins - 1) // 2] += 0.5
        target[bins // 2] += 0.5
    else:
        target[0] = target[-1] = 0.5
    return (1.0 - abs(kappa)) * c + abs(kappa) * target


def concentrated(model: WorkloadModel, kappa: float) -> WorkloadModel:
    """Accesses more (``kappa`` > 0) or less (``kappa`` < 0) concentrated than the template's; 0 changes
    nothing (see the module docstring)."""
    if not -1.0 <= kappa <= 1.0:
        raise ValueError(f"kappa: expected a number in [-1, 1] (got {kappa!r})")
    power = math.exp(2.0 * kappa)
    def sharpen(p):
        return replace(p, cascade=_concentrate_cascade(p.cascade, kappa),
                       phases=tuple(HeatMap(h.start, h.length, h.weight ** power, h.level) for h in p.phases))

    ops = [_with_places(op, sharpen) for op in (model.read, model.write)]
    return model.replace(read=ops[0], write=ops[1])


def reuse_scaled(model: WorkloadModel, factor: float) -> WorkloadModel:
    """Both ops' re-access probabilities multiplied by ``factor`` (>= 0), each capped at 1."""
    if not (math.isfinite(factor) and factor >= 0):
        raise ValueError(f"reuse factor: expected a number >= 0 (got {factor!r})")
    ops = []
    for op in (model.read, model.write):
        ops.append(replace(op, p_reuse=np.minimum(op.p_reuse * factor, 1.0)))
    return model.replace(read=ops[0], write=ops[1])


def sequential_scaled(model: WorkloadModel, share: float) -> WorkloadModel:
    """Every continuation probability p of both ops replaced by ``p + share * (1 - p)`` (``share`` in [0, 1])."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"sequential share: expected a number in [0, 1] (got {share!r})")
    ops = [replace(op, p_seq=op.p_seq + share * (1.0 - op.p_seq),
                   size_seq=op.size_seq if op.size_seq.size else op.size_all) for op in (model.read, model.write)]
    return model.replace(read=ops[0], write=ops[1])


def overlap_scaled(model: WorkloadModel, factor: float) -> WorkloadModel:
    """Both ops' ``q_overlap`` (the share of fresh requests that may cover recently covered units) multiplied
    by ``factor`` in [0, 1]."""
    if not 0.0 <= factor <= 1.0:
        raise ValueError(f"overlap factor: expected a number in [0, 1] (got {factor!r})")
    ops = [replace(op, q_overlap=op.q_overlap * factor) for op in (model.read, model.write)]
    return model.replace(read=ops[0], write=ops[1])


def stationary_mean_gap_ns(arrivals: Arrivals, samples: int = 257, phases: tuple = ()) -> float:
    """The mean gap of the arrival chain in its stationary regime, ns (each state's table averaged over
    ``samples`` evenly spaced draws, exactly as the generators interpolate); with time ``phases``, the mean of
    the phases' stationary means (the phases are equal parts of a trace)."""
    if phases:
        return float(np.mean([stationary_mean_gap_ns(Arrivals(ph.transition, arrivals.gap_ns, arrivals.first_state),
                                                     samples) for ph in phases]))
    t = arrivals.transition
    w, v = np.linalg.eig(t.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1.0))])
    pi = np.abs(pi) / np.abs(pi).sum()
    u = (np.arange(samples) + 0.5) / samples
    k = arrivals.gap_ns.shape[1] - 1
    pos = u * k
    i = np.minimum(np.floor(pos).astype(np.int64), k - 1)
    f = pos - i
    logs = np.log1p(arrivals.gap_ns)
    means = np.expm1(logs[:, i] + f * (logs[:, i + 1] - logs[:, i])).mean(axis=1)
    return float(pi @ means)


def with_mean_gap(model: WorkloadModel, mean_gap_ns: float) -> WorkloadModel:
    """Arrivals whose stationary mean gap is ``mean_gap_ns`` (every gap table scaled by one factor)."""
    if not (math.isfinite(mean_gap_ns) and mean_gap_ns > 0):
        raise ValueError(f"mean_gap_ns: expected a positive number of ns (got {mean_gap_ns!r})")
    a = model.arrivals
    if stationary_mean_gap_ns(a, phases=model.time_phases) <= 0:
        return poisson_arrivals(model, mean_gap_ns)
    gaps = a.gap_ns
    for _ in range(8):  # draws interpolate in log1p space, so one scaling lands within about 1e-6: repeat
        now = stationary_mean_gap_ns(Arrivals(a.transition, gaps, a.first_state), phases=model.time_phases)
        if abs(now / mean_gap_ns - 1.0) < 1e-12:
            break
        gaps = gaps * (mean_gap_ns / now)
    return model.replace(arrivals=Arrivals(a.transition, gaps, a.first_state))


def poisson_arrivals(model: WorkloadModel, mean_gap_ns: float, knots: int = 256) -> WorkloadModel:
    """Arrivals replaced by a Poisson process of mean gap ``mean_gap_ns`` (one state: the exponential
    distribution's quantiles, the last knot at its 1 - 1/(4 knots) quantile)."""
    p = np.arange(knots + 1) / knots
    p[-1] = 1.0 - 0.25 / knots
    gaps = -mean_gap_ns * np.log1p(-p)
    phases = tuple(replace(ph, transition=np.ones((1, 1))) for ph in model.time_phases)  # op chains kept
    return model.replace(arrivals=Arrivals(np.ones((1, 1)), gaps[None, :], 0), time_phases=phases)
