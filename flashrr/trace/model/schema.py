"""The workload model as data: :class:`WorkloadModel`, its parts, and its TOML file.

Every field is checked when a model is built, whether by the fit, in Python or
from a file; a broken field raises :class:`ModelError` naming the file (when
there is one), the field and what was expected.  What each part means, and how
the generator uses it, is in :mod:`flashrr.trace.model` (the package docstring).

Units: bytes for sizes and offsets, ns for times, requests for re-access
distances.  Region and unit indices count ``region_bytes`` and ``unit_bytes``
from byte 0 of the logical address space.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..core import TraceError

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

__all__ = ["ModelError", "HeatMap", "OpModel", "Arrivals", "WorkloadModel", "load_model", "save_model",
           "FORMAT_NAME", "FORMAT_VERSION", "READ_VERSIONS", "SECTOR_BYTES", "SIZE_LEVELS", "OPS", "RUN_BUCKETS",
           "KIND_HEAD", "KIND_RUN", "KIND_REUSE", "KIND_NEAR", "KINDS", "run_kind", "Places", "TimePhase",
           "NEAR_POSITIONS", "MAX_HOT_UNITS"]

FORMAT_NAME = "flashrr-workload-model"
FORMAT_VERSION = 10
#: Versions :meth:`WorkloadModel.from_dict` reads: version 8 files have no ``fresh_avoid_window_requests``,
#: version 8 and 9 files no ``p_near_aligned`` and ``hot_start`` (all read as 0, which generates what they
#: generated).
READ_VERSIONS = (8, 9, 10)
SECTOR_BYTES = 512
#: Heat levels that select a size table: level l holds the regions whose rank (by fresh requests) lies in
#: [1 - 2**-l, 1 - 2**-(l+1)), the last level everything above.
SIZE_LEVELS = 8
OPS = ("read", "write")
#: The kinds of the previous request of an op that p_reuse, p_seq and p_near depend on: a fresh request that starts
#: no run, in a region of heat level h (kind h); a fresh request that starts a run (KIND_HEAD); the r-th continuation
#: of a run (the head not counted; kind KIND_RUN + min(floor(log2 r), RUN_BUCKETS - 1)); a re-access (KIND_REUSE); a
#: request near a recent one (KIND_NEAR).  A request to a hot unit is none of these: it leaves the kind as it was.
RUN_BUCKETS = 10
KIND_HEAD = SIZE_LEVELS
KIND_RUN = KIND_HEAD + 1
KIND_REUSE = KIND_RUN + RUN_BUCKETS
KIND_NEAR = KIND_REUSE + 1
KINDS = KIND_NEAR + 1
#: A near request's position in its target's widened extent counts this many steps (schema ``near_position``).
NEAR_POSITIONS = 1 << 16
#: Most hot units an op may have (the generators draw them from one alias table).
MAX_HOT_UNITS = 1 << 16
_MAX_LEVELS = 24  # cascade depth limit: 2**24 units per region
_MAX_CASCADE_BINS = 256  # the generators look a split share up as one byte
_SUM_TOLERANCE = 1e-9  # weights that sum to 1 within this are taken as already normalised


def run_kind(run_length: int) -> int:
    """The kind of a continuation that makes its run ``run_length`` (>= 1) requests long."""
    b = run_length.bit_length() - 1
    return KIND_RUN + (b if b < RUN_BUCKETS else RUN_BUCKETS - 1)


class ModelError(TraceError):
    """A workload model that is malformed or cannot be used; the message names the file and field."""


def _fail(where: str, what: str, got) -> None:
    shown = got if not isinstance(got, np.ndarray) else f"array of shape {got.shape}"
    raise ModelError(f"{where}: expected {what} (got {shown!r})")


def _array(where: str, value, dtype, ndim: int) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        _fail(where, f"a {ndim}-dimensional array of numbers", value)
    if a.ndim != ndim and not (a.size == 0 and ndim >= 1):
        _fail(where, f"a {ndim}-dimensional array", value)
    if a.size == 0:
        a = a.reshape((0,) * ndim)
    if np.issubdtype(a.dtype, np.floating) and not np.all(np.isfinite(a)):
        _fail(where, "finite numbers", value)
    return a


def _prob(where: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not 0.0 <= v <= 1.0:
        _fail(where, "a probability in [0, 1]", v)
    return float(v)


def _scale(where: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not 0.0 < v <= 1.0:
        _fail(where, "a factor in (0, 1]", v)
    return float(v)


def _kind_probabilities(where: str, v) -> np.ndarray:
    a = _array(where, v, np.float64, 1)
    if a.size != KINDS or np.any((a < 0) | (a > 1)):
        _fail(where, f"{KINDS} probabilities, one per kind of the previous request of the op (fresh by heat level, "
              "continuation by run length, re-access, near)", v)
    return a


def _pos_int(where: str, v, lo: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        _fail(where, f"an integer >= {lo}", v)
    return int(v)


def _quantiles(where: str, a, *, allow_empty: bool, lo: float = 0.0) -> np.ndarray:
    a = _array(where, a, np.float64, 1)
    if a.size == 0:
        if not allow_empty:
            _fail(where, "a quantile table of at least 2 values", a)
        return a
    if a.size < 2 or np.any(np.diff(a) < 0) or a[0] < lo:
        _fail(where, f"a non-decreasing quantile table of at least 2 values >= {lo}", a)
    return a


def _pmf(where: str, a, n: int | None = None) -> np.ndarray:
    a = _array(where, a, np.float64, 1)
    if a.size == 0 or (n is not None and a.size != n) or np.any(a < 0) or not a.sum() > 0:
        _fail(where, f"non-negative weights with a positive sum{'' if n is None else f' ({n} of them)'}", a)
    return _normalised(a, axis=0)


def _normalised(a: np.ndarray, axis: int) -> np.ndarray:
    """``a`` divided by its sums along ``axis``; a row that already sums to 1 (within rounding) is kept as it
    is, so that normalising twice (a model saved, then loaded) changes no bit."""
    s = a.sum(axis=axis, keepdims=True)
    return a / np.where(np.abs(s - 1.0) <= _SUM_TOLERANCE, 1.0, s)


@dataclass(frozen=True)
class HeatMap:
    """Where fresh requests of one op start, at region granularity, during one phase.

    Runs of consecutive regions (segments): segment ``s`` covers regions
    ``start[s] .. start[s] + length[s] - 1``, each drawn with weight
    ``weight[s]``; regions outside every segment are never drawn.  ``level[s]``
    (0 .. SIZE_LEVELS - 1) selects the size table of requests starting there.
    """

    start: np.ndarray
    length: np.ndarray
    weight: np.ndarray
    level: np.ndarray

    def check(self, where: str) -> "HeatMap":
        start = _array(f"{where}.start", self.start, np.int64, 1)
        length = _array(f"{where}.length", self.length, np.int64, 1)
        weight = _array(f"{where}.weight", self.weight, np.float64, 1)
        level = _array(f"{where}.level", self.level, np.int64, 1)
        n = start.size
        if n == 0:
            _fail(f"{where}.start", "at least one segment", start)
        for name, a in (("length", length), ("weight", weight), ("level", level)):
            if a.size != n:
                _fail(f"{where}.{name}", f"{n} values (one per segment, as start)", a)
        if np.any(start < 0):
            _fail(f"{where}.start", "region indices >= 0", start)
        if np.any(length < 1):
            _fail(f"{where}.length", "segment lengths >= 1 region", length)
        if np.any(weight <= 0):
            _fail(f"{where}.weight", "weights > 0", weight)
        if np.any((level < 0) | (level >= SIZE_LEVELS)):
            _fail(f"{where}.level", f"levels in 0 .. {SIZE_LEVELS - 1}", level)
        if n > 1 and np.any(start[1:] < start[:-1] + length[:-1]):
            _fail(f"{where}.start", "segments in increasing order that do not overlap", start)
        return HeatMap(start, length, weight, level)

    @property
    def end_region(self) -> int:
        """One past the highest region any segment covers."""
        return int(self.start[-1] + self.length[-1])

    def to_dict(self) -> dict:
        return {"start": self.start.tolist(), "length": self.length.tolist(),
                "weight": _floats(self.weight), "level": self.level.tolist()}


@dataclass(frozen=True)
class Places:
    """Where one class of fresh requests starts, and their sizes: heat maps per phase, cascades per heat level,
    the start sector in the unit and sizes per heat level (the fields of the same names of :class:`OpModel`)."""

    phases: tuple
    cascade: np.ndarray
    sector_pmf: np.ndarray
    size_by_level: tuple

    def check(self, where: str, unit_bytes: int, levels: int) -> "Places":
        sector = _pmf(f"{where}.sector_pmf", self.sector_pmf, unit_bytes // SECTOR_BYTES)
        cascade = _array(f"{where}.cascade", self.cascade, np.float64, 3)
        if cascade.shape[:2] != (SIZE_LEVELS, levels) or not 2 <= cascade.shape[2] <= _MAX_CASCADE_BINS \
                or np.any(cascade < 0) or np.any(cascade.sum(axis=2) <= 0):
            _fail(f"{where}.cascade", f"{SIZE_LEVELS} heat levels of {levels} depths (log2(region_bytes / "
                  f"unit_bytes)), each 2 to {_MAX_CASCADE_BINS} non-negative weights with a positive sum", cascade)
        cascade = _normalised(cascade, axis=2)
        if not isinstance(self.size_by_level, (tuple, list)) or len(self.size_by_level) != SIZE_LEVELS:
            _fail(f"{where}.size_by_level", f"{SIZE_LEVELS} quantile tables (empty ones allowed)",
                  self.size_by_level)
        by_level = tuple(_quantiles(f"{where}.size_by_level[{i}]", t, allow_empty=True, lo=1.0)
                         for i, t in enumerate(self.size_by_level))
        if not isinstance(self.phases, (tuple, list)) or not self.phases:
            _fail(f"{where}.phase", "at least one phase (a heat map)", self.phases)
        phases = tuple(h.check(f"{where}.phase[{i}]") for i, h in enumerate(self.phases))
        return Places(phases, cascade, sector, by_level)

    def to_dict(self) -> dict:
        return {"sector_pmf": _floats(self.sector_pmf), "cascade": [[_floats(r) for r in lv] for lv in self.cascade],
                "size_by_level": [_floats(t) for t in self.size_by_level],
                "phase": [h.to_dict() for h in self.phases]}

    @classmethod
    def from_getter(cls, g: "_Getter") -> "Places":
        phases = []
        for i, ph in enumerate(g.value("phase", list)):
            if not isinstance(ph, dict):
                _fail(f"{g.where}: {g.path}.phase[{i}]", "a table", ph)
            pg = _Getter(g.where, ph, f"{g.path}.phase[{i}]")
            phases.append(HeatMap(pg.value("start"), pg.value("length"), pg.value("weight"), pg.value("level")))
        return cls(tuple(phases), g.value("cascade"), g.value("sector_pmf"), tuple(g.value("size_by_level", list)))


@dataclass(frozen=True)
class OpModel:
    """The parts of the model that belong to one op (reads or writes).

    * ``p_reuse``: probability that a request of this op re-accesses the start of
      a recent request, by the kind of the previous request of this op (KINDS
      values; see ``KIND_RUN``).
    * ``p_reuse_write``: the share of this op's re-accesses whose target (the
      latest earlier request that started in the unit) is a write.
    * ``reuse_distance_read``, ``reuse_distance_write``: quantile tables of the
      re-access distance to a read (a write) target, counted in requests of
      the target's op (1 .. the model's ``reuse_window_requests``); empty when
      this op never re-accesses a request of that op.
    * ``sector_pmf``: where a fresh request starts within its unit, in 512-byte
      sectors (``unit_bytes // 512`` weights).
    * ``cascade``: ``(SIZE_LEVELS, levels, bins)``; ``cascade[h, l]`` is the
      distribution of the share of a depth-l node's requests that go to its
      first half, in regions of heat level h, on ``bins`` equally spaced values
      from 0 to 1 (depth 0 splits a region, the last depth a pair of units).
    * ``size_all``: quantile table of request sizes, bytes (used for re-accesses
      that change size); ``size_by_level``: one quantile table per heat level
      (used for fresh requests; an empty row falls back on ``size_all``).
    * ``phases``: one :class:`HeatMap` per phase of the trace.
    * ``p_seq``: probability that a request that is not a re-access starts
      where the previous request of this op ended, by the kind of that previous
      request (KINDS values: after a fresh request, by the heat level of its
      region; after a continuation, by the length its run has reached, which
      sets the run-length distribution; after a re-access); ``size_seq``: the
      quantile table of those continuations' sizes, bytes.
    * ``p_head``: the share of fresh requests that start a run (the next
      request of the op continues them), and ``heads``: where those start
      (:class:`Places`; None when ``p_head`` is 0).  The other fresh requests
      start where ``phases``, ``cascade``, ``sector_pmf`` and ``size_by_level``
      say.
    * ``q_overlap``: the share of fresh requests that may cover units the
      requests of the window touched; the others are drawn again (up to the
      model's ``fresh_retries`` times) until they cover none.
    * ``p_near``: probability that a request that is neither a re-access nor a
      continuation starts near a recent request (its target): inside the
      target's extent or within the model's ``near_margin_bytes`` of it, by the
      kind of the previous request of this op (KINDS values).
      ``near_distance``: quantile table of the distance to the target, in
      requests of either op (1 .. ``reuse_window_requests``);
      ``near_position``: quantile table of where the start lies in the
      target's extent widened by ``near_margin_bytes`` on both sides, in
      ``NEAR_POSITIONS``-ths of that widened extent (0 .. NEAR_POSITIONS - 1);
      ``size_near``: their sizes, bytes.  Empty tables when ``p_near`` is 0 throughout.
      ``p_near_aligned``: the share of near requests that start a whole number of
      units from their target's start, so keep its place within a unit (a
      volume whose requests all sit one sector short of a 4 KiB boundary keeps
      it); the generator moves a near request to the nearest such start with
      this probability (0 in files of format 9 and before).
    * ``p_hot``: the share of this op's requests that go to one of its hot
      units (``hot_unit``: unit indices; ``hot_weight``: their relative
      weights; ``hot_size``: the size of a request there, bytes; ``hot_start``:
      the byte within the unit where it starts, empty in files of format 9 and
      before: the unit's first byte).  A hot unit is one this op's requests start in
      so often that the unit is never far down any cache: logs, metadata.
    """

    p_reuse: np.ndarray
    p_reuse_write: float
    reuse_distance_read: np.ndarray
    reuse_distance_write: np.ndarray
    sector_pmf: np.ndarray
    cascade: np.ndarray
    size_all: np.ndarray
    size_by_level: tuple
    phases: tuple
    p_seq: np.ndarray = field(default_factory=lambda: np.zeros(KINDS))
    size_seq: np.ndarray = field(default_factory=lambda: np.zeros(0))
    p_head: float = 0.0
    heads: Places | None = None
    q_overlap: float = 1.0
    p_near: np.ndarray = field(default_factory=lambda: np.zeros(KINDS))
    near_distance: np.ndarray = field(default_factory=lambda: np.zeros(0))
    near_position: np.ndarray = field(default_factory=lambda: np.zeros(0))
    size_near: np.ndarray = field(default_factory=lambda: np.zeros(0))
    p_hot: float = 0.0
    hot_unit: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    hot_weight: np.ndarray = field(default_factory=lambda: np.zeros(0))
    hot_size: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    p_near_aligned: float = 0.0
    hot_start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def places(self) -> Places:
        """Where fresh requests that start no run start."""
        return Places(self.phases, self.cascade, self.sector_pmf, self.size_by_level)

    def check(self, where: str, unit_bytes: int, levels: int, window: int) -> "OpModel":
        p_reuse = _kind_probabilities(f"{where}.p_reuse", self.p_reuse)
        p_write = _prob(f"{where}.p_reuse_write", self.p_reuse_write)
        dists = []
        for target, share in (("read", 1.0 - p_write), ("write", p_write)):
            name = f"{where}.reuse_distance_{target}"
            dist = _quantiles(name, getattr(self, f"reuse_distance_{target}"), allow_empty=True, lo=1.0)
            if dist.size and dist[-1] > window:
                _fail(name, f"distances of at most reuse_window_requests ({window})", dist[-1])
            if dist.size == 0 and p_reuse.max() > 0 and share > 0:
                _fail(name, f"a quantile table (p_reuse is above 0 and {share:g} of re-accesses target a {target})",
                      dist)
            dists.append(dist)
        single = self.places.check(where, unit_bytes, levels)
        size_all = _quantiles(f"{where}.size_all", self.size_all, allow_empty=False, lo=1.0)
        p_seq = _kind_probabilities(f"{where}.p_seq", self.p_seq)
        size_seq = _quantiles(f"{where}.size_seq", self.size_seq, allow_empty=True, lo=1.0)
        if size_seq.size == 0 and p_seq.max() > 0:
            _fail(f"{where}.size_seq", "a quantile table (p_seq is above 0)", size_seq)
        p_head = _prob(f"{where}.p_head", self.p_head)
        heads = None
        if self.heads is not None:
            if not isinstance(self.heads, Places):
                _fail(f"{where}.heads", "a Places", self.heads)
            heads = self.heads.check(f"{where}.heads", unit_bytes, levels)
            if len(heads.phases) != len(single.phases):
                _fail(f"{where}.heads.phase", f"{len(single.phases)} phases (as the other fresh requests)",
                      len(heads.phases))
            if heads.cascade.shape[2] != single.cascade.shape[2]:
                _fail(f"{where}.heads.cascade", f"{single.cascade.shape[2]} bins per depth (as the other fresh "
                      "requests)", heads.cascade)
        elif p_head > 0:
            _fail(f"{where}.heads", "the places of run heads (p_head is above 0)", None)
        p_near = _kind_probabilities(f"{where}.p_near", self.p_near)
        near = {}
        for name, lo in (("near_distance", 1.0), ("near_position", 0.0), ("size_near", 1.0)):
            t = _quantiles(f"{where}.{name}", getattr(self, name), allow_empty=True, lo=lo)
            if t.size == 0 and p_near.max() > 0:
                _fail(f"{where}.{name}", "a quantile table (p_near is above 0)", t)
            near[name] = t
        if near["near_position"].size and near["near_position"][-1] > NEAR_POSITIONS - 1:
            _fail(f"{where}.near_position", f"positions in the widened extent, in {NEAR_POSITIONS}ths of it (at "
                  f"most {NEAR_POSITIONS - 1})", near["near_position"][-1])
        if near["near_distance"].size and near["near_distance"][-1] > window:
            _fail(f"{where}.near_distance", f"distances of at most reuse_window_requests ({window})",
                  near["near_distance"][-1])
        p_hot = _prob(f"{where}.p_hot", self.p_hot)
        hot_unit = _array(f"{where}.hot_unit", self.hot_unit, np.int64, 1)
        hot_weight = _array(f"{where}.hot_weight", self.hot_weight, np.float64, 1)
        hot_size = _array(f"{where}.hot_size", self.hot_size, np.int64, 1)
        if hot_unit.size > MAX_HOT_UNITS or np.any(hot_unit < 0) or np.unique(hot_unit).size != hot_unit.size:
            _fail(f"{where}.hot_unit", f"at most {MAX_HOT_UNITS} distinct unit indices >= 0", hot_unit)
        if hot_weight.size != hot_unit.size or np.any(hot_weight <= 0):
            _fail(f"{where}.hot_weight", f"{hot_unit.size} weights > 0 (one per hot unit)", hot_weight)
        if hot_size.size != hot_unit.size or np.any(hot_size < 1):
            _fail(f"{where}.hot_size", f"{hot_unit.size} sizes >= 1 byte (one per hot unit)", hot_size)
        hot_start = _array(f"{where}.hot_start", self.hot_start, np.int64, 1)
        if hot_start.size == 0:  # files of format 9 and before: every hot request at its unit's first byte
            hot_start = np.zeros(hot_unit.size, dtype=np.int64)
        if hot_start.size != hot_unit.size or np.any(hot_start < 0) or np.any(hot_start >= unit_bytes) \
                or np.any(hot_start % SECTOR_BYTES):
            _fail(f"{where}.hot_start", f"{hot_unit.size} starts within a unit (0 .. {unit_bytes - SECTOR_BYTES}, "
                  f"whole sectors; one per hot unit)", hot_start)
        if p_hot > 0 and hot_unit.size == 0:
            _fail(f"{where}.hot_unit", "at least one hot unit (p_hot is above 0)", hot_unit)
        return OpModel(p_reuse, p_write, dists[0], dists[1], single.sector_pmf, single.cascade, size_all,
                       single.size_by_level, single.phases, p_seq, size_seq, p_head, heads,
                       _prob(f"{where}.q_overlap", self.q_overlap), p_near, near["near_distance"],
                       near["near_position"], near["size_near"], p_hot, hot_unit, hot_weight, hot_size,
                       _prob(f"{where}.p_near_aligned", self.p_near_aligned), hot_start)

    def to_dict(self) -> dict:
        out = {"p_reuse": _floats(self.p_reuse), "p_seq": _floats(self.p_seq), "p_head": float(self.p_head),
               "q_overlap": float(self.q_overlap),
               "size_seq": _floats(self.size_seq), "p_reuse_write": float(self.p_reuse_write),
               "reuse_distance_read": _floats(self.reuse_distance_read),
               "reuse_distance_write": _floats(self.reuse_distance_write),
               "size_all": _floats(self.size_all), "p_near": _floats(self.p_near),
               "near_distance": _floats(self.near_distance), "near_position": _floats(self.near_position),
               "size_near": _floats(self.size_near), "p_near_aligned": float(self.p_near_aligned),
               "p_hot": float(self.p_hot),
               "hot_unit": [int(x) for x in self.hot_unit], "hot_weight": _floats(self.hot_weight),
               "hot_size": [int(x) for x in self.hot_size], "hot_start": [int(x) for x in self.hot_start],
               **self.places.to_dict()}
        if self.heads is not None:
            out["heads"] = self.heads.to_dict()
        return out


@dataclass(frozen=True)
class Arrivals:
    """The arrival process: a Markov chain over gap states, each with its own gaps.

    The gap before request i (i >= 1) comes from the quantile table
    ``gap_ns[s_i]`` of the state ``s_i``; ``s_1`` is ``first_state``, and each
    later ``s_i`` is drawn from row ``s_{i-1}`` of ``transition``.
    """

    transition: np.ndarray
    gap_ns: np.ndarray
    first_state: int

    def check(self, where: str) -> "Arrivals":
        t = _array(f"{where}.transition", self.transition, np.float64, 2)
        s = t.shape[0]
        if s < 1 or t.shape != (s, s) or np.any(t < 0) or np.any(t.sum(axis=1) <= 0):
            _fail(f"{where}.transition", "a square matrix of non-negative weights, every row with a positive sum", t)
        t = _normalised(t, axis=1)
        g = _array(f"{where}.gap_ns", self.gap_ns, np.float64, 2)
        if g.shape[0] != s or g.shape[1] < 2:
            _fail(f"{where}.gap_ns", f"{s} quantile tables (one per state) of at least 2 values", g)
        for i in range(s):
            _quantiles(f"{where}.gap_ns[{i}]", g[i], allow_empty=False)
        if isinstance(self.first_state, bool) or not isinstance(self.first_state, (int, np.integer)) \
                or not 0 <= self.first_state < s:
            _fail(f"{where}.first_state", f"a state in 0 .. {s - 1}", self.first_state)
        return Arrivals(t, g, int(self.first_state))

    def to_dict(self) -> dict:
        return {"first_state": self.first_state, "transition": [_floats(r) for r in self.transition],
                "gap_ns": [_floats(r) for r in self.gap_ns]}


@dataclass(frozen=True)
class TimePhase:
    """The op chain and the arrival chain of one part of the trace (``WorkloadModel.time_phases``): the
    probability of a write after a read and after a write, and the gap-state transition matrix (over the
    states of ``Arrivals``)."""

    p_write_after: tuple
    transition: np.ndarray

    def check(self, where: str, states: int) -> "TimePhase":
        if not isinstance(self.p_write_after, (tuple, list)) or len(self.p_write_after) != 2:
            _fail(f"{where}.p_write_after", "two probabilities (after a read, after a write)", self.p_write_after)
        after = (_prob(f"{where}.p_write_after_read", self.p_write_after[0]),
                 _prob(f"{where}.p_write_after_write", self.p_write_after[1]))
        t = _array(f"{where}.transition", self.transition, np.float64, 2)
        if t.shape != (states, states) or np.any(t < 0) or np.any(t.sum(axis=1) <= 0):
            _fail(f"{where}.transition", f"a {states} x {states} matrix (the arrival states) of non-negative "
                  "weights, every row with a positive sum", t)
        return TimePhase(after, _normalised(t, axis=1))

    def to_dict(self) -> dict:
        return {"p_write_after_read": self.p_write_after[0], "p_write_after_write": self.p_write_after[1],
                "transition": [_floats(r) for r in self.transition]}


@dataclass(frozen=True)
class WorkloadModel:
    """A fitted (or hand-built) workload model; see :mod:`flashrr.trace.model`.

    * ``unit_bytes``: the unit of address a fresh request starts in (a power of
      two, a multiple of 512); ``region_bytes``: the unit of the heat maps (a
      power of two times ``unit_bytes``).
    * ``reuse_window_requests``: the largest re-access distance, requests.
    * ``p_write_first``, ``p_write_after``: the op chain (probability of a
      write for request 0, and after a read / after a write).
    * ``p_same_size``: probability that a re-access keeps the size of the
      request it repeats (a fresh request draws its size).
    * ``fresh_retries``: how many times a fresh request whose unit one of the
      last ``reuse_window_requests`` requests used is drawn again (0: never).
    * ``overlap_window_requests``: the requests whose covered units a fresh
      request avoids (unless it is one of the share ``q_overlap`` that may
      cover them): the last this many (at most ``reuse_window_requests``).
    * ``time_phases``: empty, or one :class:`TimePhase` per equal part of the
      trace (by request count): that part's op chain and gap-state transitions,
      in place of ``p_write_after`` and ``arrivals.transition`` (load and op mix
      change over a real trace: busy write-heavy periods, quiet ones).
    * ``address_scale``: every generated offset is multiplied by this (in
      (0, 1]) and rounded down to a 512-byte sector: the same pattern over a
      smaller address space (1 for a fitted model).
    * ``near_margin_bytes``: how far beyond a recent request's extent (either
      side) a request still counts as near it (``OpModel.p_near``).
    * ``fresh_avoid_window_requests``: a fresh request whose start unit one
      of the last this many requests covered is drawn again (up to
      ``fresh_retries`` times), as the fit calls a request fresh only when it
      is not near a recent request; 0: only the units the requests of the
      re-access window started in are avoided (at most
      ``reuse_window_requests``).
    * ``read``, ``write``: :class:`OpModel`; ``arrivals``: :class:`Arrivals`.
    * ``source``: statistics of the trace the model was fitted to, and ``fit``:
      the fit's settings (both informational; validation prints them).
    """

    name: str
    unit_bytes: int
    region_bytes: int
    reuse_window_requests: int
    p_write_first: float
    p_write_after: tuple
    p_same_size: float
    read: OpModel
    write: OpModel
    arrivals: Arrivals
    fresh_retries: int = 8
    address_scale: float = 1.0
    overlap_window_requests: int = 4096
    time_phases: tuple = ()
    near_margin_bytes: int = 0
    fresh_avoid_window_requests: int = 0
    source: dict = field(default_factory=dict)
    fit: dict = field(default_factory=dict)

    def __post_init__(self):
        for name, value in self._checked("model").items():
            object.__setattr__(self, name, value)

    def _checked(self, where: str) -> dict:
        if not isinstance(self.name, str):
            _fail(f"{where}.name", "a string", self.name)
        unit = _pos_int(f"{where}.unit_bytes", self.unit_bytes, SECTOR_BYTES)
        if unit % SECTOR_BYTES or unit & (unit - 1):
            _fail(f"{where}.unit_bytes", "a power of two, at least 512", unit)
        region = _pos_int(f"{where}.region_bytes", self.region_bytes, unit)
        if region & (region - 1) or region < 2 * unit or region // unit > 1 << _MAX_LEVELS:
            _fail(f"{where}.region_bytes", f"a power of two from 2 to 2**{_MAX_LEVELS} times unit_bytes ({unit})",
                  region)
        levels = int(math.log2(region // unit))
        window = _pos_int(f"{where}.reuse_window_requests", self.reuse_window_requests)
        if window > 1 << 24:
            _fail(f"{where}.reuse_window_requests", "at most 2**24 requests", window)
        if not isinstance(self.p_write_after, (tuple, list)) or len(self.p_write_after) != 2:
            _fail(f"{where}.p_write_after", "two probabilities (after a read, after a write)", self.p_write_after)
        p_after = (_prob(f"{where}.ops.p_write_after_read", self.p_write_after[0]),
                   _prob(f"{where}.ops.p_write_after_write", self.p_write_after[1]))
        ops = {}
        for op in OPS:
            m = getattr(self, op)
            if not isinstance(m, OpModel):
                _fail(f"{where}.{op}", "an OpModel", m)
            ops[op] = m.check(f"{where}.{op}", unit, levels, window)
        # the generators index both ops' heat maps and cascades with one phase count and one bin count
        n_phases, bins = len(ops["read"].phases), ops["read"].cascade.shape[2]
        if len(ops["write"].phases) != n_phases:
            _fail(f"{where}.write.phase", f"{n_phases} phases (as many as read)", len(ops["write"].phases))
        if ops["write"].cascade.shape[2] != bins:
            _fail(f"{where}.write.cascade", f"{bins} bins per depth (as many as read)", ops["write"].cascade)
        arr = self.arrivals
        if not isinstance(arr, Arrivals):
            _fail(f"{where}.arrivals", "an Arrivals", arr)
        return {"unit_bytes": unit, "region_bytes": region, "reuse_window_requests": window,
                "p_write_first": _prob(f"{where}.ops.p_write_first", self.p_write_first), "p_write_after": p_after,
                "p_same_size": _prob(f"{where}.ops.p_same_size", self.p_same_size), "read": ops["read"],
                "write": ops["write"], "arrivals": arr.check(f"{where}.arrivals"),
                "fresh_retries": _pos_int(f"{where}.fresh_retries", self.fresh_retries, 0),
                "address_scale": _scale(f"{where}.address_scale", self.address_scale),
                "overlap_window_requests": self._overlap_window(where, window),
                "time_phases": self._time_phases(where, arr),
                "near_margin_bytes": _pos_int(f"{where}.near_margin_bytes", self.near_margin_bytes, 0),
                "fresh_avoid_window_requests": self._avoid_window(where, window),
                "source": dict(self.source),
                "fit": dict(self.fit)}

    def _time_phases(self, where: str, arrivals: Arrivals) -> tuple:
        if not isinstance(self.time_phases, (tuple, list)):
            _fail(f"{where}.time_phase", "a list of time phases", self.time_phases)
        states = np.asarray(arrivals.transition).shape[0]
        out = []
        for i, ph in enumerate(self.time_phases):
            if not isinstance(ph, TimePhase):
                _fail(f"{where}.time_phase[{i}]", "a TimePhase", ph)
            out.append(ph.check(f"{where}.time_phase[{i}]", states))
        return tuple(out)

    def _overlap_window(self, where: str, window: int) -> int:
        v = _pos_int(f"{where}.overlap_window_requests", self.overlap_window_requests)
        if v > window:
            _fail(f"{where}.overlap_window_requests", f"at most reuse_window_requests ({window})", v)
        return v

    def _avoid_window(self, where: str, window: int) -> int:
        v = _pos_int(f"{where}.fresh_avoid_window_requests", self.fresh_avoid_window_requests, 0)
        if v > window:
            _fail(f"{where}.fresh_avoid_window_requests", f"at most reuse_window_requests ({window})", v)
        return v

    @property
    def span_end_byte(self) -> int:
        """One past the highest byte of the highest region of any heat map, or of the highest hot unit if that
        is higher (before ``address_scale``)."""
        places = [p for op in (self.read, self.write) for p in (op.places, op.heads) if p is not None]
        top = max(h.end_region for p in places for h in p.phases) * self.region_bytes
        for op in (self.read, self.write):
            if op.hot_unit.size:
                top = max(top, (int(op.hot_unit.max()) + 1) * self.unit_bytes)
        return top

    @property
    def levels(self) -> int:
        """Cascade depth: ``log2(region_bytes / unit_bytes)``."""
        return int(math.log2(self.region_bytes // self.unit_bytes))

    @property
    def phases(self) -> int:
        return len(self.read.phases)

    def op(self, is_write: int) -> OpModel:
        return self.write if is_write else self.read

    def max_end_byte(self) -> int:
        """An upper bound of the highest byte a generated request can touch.

        A fresh request starts in a region of a map, a hot request in a hot unit; a continuation or a near
        request starts below :attr:`span_end_byte`; a re-access repeats the start of any of these; each takes a
        size of one of the tables, or a hot unit's size.  So the bound is that end plus the largest size.
        """
        places = [p for op in (self.read, self.write) for p in (op.places, op.heads) if p is not None]
        top = int(self.span_end_byte * self.address_scale)
        tables = [t for op in (self.read, self.write) for t in (op.size_all, op.size_near)] \
            + [t for p in places for t in p.size_by_level]
        largest = max(int(t[-1]) for t in tables if t.size)
        for op in (self.read, self.write):
            if op.hot_size.size:
                largest = max(largest, int(op.hot_size.max()))
        # + a sector: a drawn size is rounded to the nearest sector, and is at least one
        return top + largest + SECTOR_BYTES - 1

    def replace(self, **changes) -> "WorkloadModel":
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "name": self.name, "unit_bytes": self.unit_bytes,
                "region_bytes": self.region_bytes, "reuse_window_requests": self.reuse_window_requests,
                "fresh_retries": self.fresh_retries, "address_scale": self.address_scale,
                "overlap_window_requests": self.overlap_window_requests,
                "near_margin_bytes": self.near_margin_bytes,
                "fresh_avoid_window_requests": self.fresh_avoid_window_requests,
                "time_phase": [ph.to_dict() for ph in self.time_phases], "source": _plain(self.source),
                "fit": _plain(self.fit),
                "ops": {"p_write_first": self.p_write_first, "p_write_after_read": self.p_write_after[0],
                        "p_write_after_write": self.p_write_after[1], "p_same_size": self.p_same_size},
                "read": self.read.to_dict(), "write": self.write.to_dict(), "arrivals": self.arrivals.to_dict()}

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict, where: str = "model") -> "WorkloadModel":
        """A model from the dict of its TOML file; :class:`ModelError` names the field for anything missing or
        malformed."""
        if not isinstance(d, dict):
            _fail(where, "a table", d)
        if d.get("format") != FORMAT_NAME:
            _fail(f"{where}: format", f"{FORMAT_NAME!r}", d.get("format"))
        version = d.get("version")
        if isinstance(version, bool) or version not in READ_VERSIONS:
            _fail(f"{where}: version", " or ".join(str(v) for v in READ_VERSIONS), version)
        get = _Getter(where, d)
        ops = get.table("ops")
        parts = {}
        for op in OPS:
            t = get.table(op)
            g = _Getter(where, t, op)
            single = Places.from_getter(g)
            heads = Places.from_getter(_Getter(where, g.table("heads"), f"{op}.heads")) if "heads" in t else None
            parts[op] = OpModel(g.value("p_reuse"), g.value("p_reuse_write"), g.value("reuse_distance_read"),
                                g.value("reuse_distance_write"), single.sector_pmf, single.cascade,
                                g.value("size_all"), single.size_by_level, single.phases, g.value("p_seq"),
                                g.value("size_seq"), g.value("p_head"), heads, g.value("q_overlap"),
                                g.value("p_near"), g.value("near_distance"), g.value("near_position"),
                                g.value("size_near"), g.value("p_hot"), g.value("hot_unit"), g.value("hot_weight"),
                                g.value("hot_size"), g.value("p_near_aligned") if version >= 10 else 0.0,
                                g.value("hot_start") if version >= 10 else np.zeros(0, dtype=np.int64))
        arr = _Getter(where, get.table("arrivals"), "arrivals")
        og = _Getter(where, ops, "ops")
        try:
            return cls(get.value("name", str), get.value("unit_bytes"), get.value("region_bytes"),
                       get.value("reuse_window_requests"), og.value("p_write_first"),
                       (og.value("p_write_after_read"), og.value("p_write_after_write")), og.value("p_same_size"),
                       parts["read"], parts["write"],
                       Arrivals(arr.value("transition"), arr.value("gap_ns"), arr.value("first_state")),
                       fresh_retries=get.value("fresh_retries"), address_scale=get.value("address_scale"),
                       overlap_window_requests=get.value("overlap_window_requests"),
                       near_margin_bytes=get.value("near_margin_bytes"),
                       fresh_avoid_window_requests=get.value("fresh_avoid_window_requests") if version >= 9 else 0,
                       time_phases=tuple(_time_phase(where, i, ph)
                                         for i, ph in enumerate(get.value("time_phase", list))),
                       source=d.get("source", {}),
                       fit=d.get("fit", {}))
        except ModelError as e:
            msg = str(e)
            raise ModelError(msg.replace("model.", f"{where}: ", 1) if msg.startswith("model.") else msg) from None


def _time_phase(where: str, i: int, ph) -> TimePhase:
    if not isinstance(ph, dict):
        _fail(f"{where}: time_phase[{i}]", "a table", ph)
    g = _Getter(where, ph, f"time_phase[{i}]")
    return TimePhase((g.value("p_write_after_read"), g.value("p_write_after_write")), g.value("transition"))


class _Getter:
    """Fields of ``table``, the table at ``path`` (dotted; "" for the top) in the file ``where``."""

    def __init__(self, where: str, table: dict, path: str = ""):
        self.where, self.t, self.path = where, table, path

    def value(self, key: str, kind=None):
        if key not in self.t:
            raise ModelError(f"{self.where}: {self.path + ': ' if self.path else ''}missing field {key!r}")
        v = self.t[key]
        if kind is not None and not isinstance(v, kind):
            _fail(f"{self.where}: {self.path + '.' if self.path else ''}{key}", f"a {kind.__name__}", v)
        return v

    def table(self, key: str) -> dict:
        return self.value(key, dict)


def _floats(a) -> list:
    # every digit: a model loaded from its file must generate the same trace as the model that was saved
    return [float(x) for x in np.asarray(a, dtype=np.float64).ravel()]


def _plain(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out[k] = _plain(v)
        elif isinstance(v, (np.integer,)):
            out[k] = int(v)
        elif isinstance(v, (np.floating,)):
            out[k] = float(v)
        elif v is None:
            continue
        else:
            out[k] = v
    return out


def load_model(path) -> WorkloadModel:
    """The model in the TOML file ``path``; :class:`ModelError` names the file and the field on any problem."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelError(f"model file {str(p)!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ModelError(f"model file {str(p)!r}: cannot be read ({e})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ModelError(f"model file {str(p)!r}: not valid TOML ({e})") from None
    return WorkloadModel.from_dict(data, where=f"model file {str(p)!r}")


def save_model(model: WorkloadModel, path) -> Path:
    """Write ``model`` as TOML to ``path``; returns the path."""
    p = Path(path).expanduser()
    p.write_text(model.to_toml(), encoding="utf-8")
    return p
