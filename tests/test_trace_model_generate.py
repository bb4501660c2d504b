"""Traces generated from a workload model: what they keep, determinism, streaming, and the twin generators.

* Fit then generate, on the real samples of ``tests/data`` and on hand-made
  traces: the read ratio, sizes, times, where fresh requests start (run heads
  in their own maps), fresh requests kept out of the re-access window, the
  region top-10% share.
* Hand-built models whose request classes (fresh, run head, continuation,
  re-access) have sizes of their own, so that a brute-force scan of the
  generated trace can tell them apart: re-accesses and continuations follow the
  kind of the previous request of the same op, a continuation starts where that
  request ended, never in a unit of the window nor past the maps; fresh requests
  keep out of the units the window covered unless ``q_overlap`` lets them; gaps
  follow the chain from its first state, rounded to the nearest ns, and each
  time phase has its own op chain and gap transitions; ``address_scale`` only
  scales the offsets; ``max_end_byte`` bounds every request.
* The same model, request count and seed give the same trace, whatever the
  chunk size it is read in; ``ModelSource.info()`` equals a pass over it.
* The compiled kernel and the pure-Python reference give identical traces, on
  hypothesis-drawn hand-built models and on models fitted to slices of the
  real samples.
"""
from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.model_validation import region_top_share
from flashrr.trace.core import Trace
from flashrr.trace.io import read_trace
from flashrr.trace.model import (Arrivals, HeatMap, ModelError, ModelSource, OpModel, WorkloadModel,
                                 fit_model, generate_trace)
from flashrr.trace.model.prepared import BLOCK_REQUESTS
from flashrr.trace.model.schema import (KIND_HEAD, KIND_REUSE, KIND_RUN, KINDS, RUN_BUCKETS, SIZE_LEVELS, Places,
                                        TimePhase)
from strategies import hand_built_models, probabilities
from trace_helpers import HEAD_BYTES, RUN_STEP_BYTES, SINGLE_BYTES, needs_kernel, run_bucket, runs_trace

DATA = Path(__file__).parent / "data"
SAMPLES = {"cloudphysics": "cloudphysics-io.mqsim.txt.gz", "wsrch": "wsrch-small.mqsim.txt",
           "tpcc": "tpcc-small.mqsim.txt", "msr": "msr-hm_0-sample.msr.csv.gz"}


@lru_cache(maxsize=None)
def sample(name: str) -> Trace:
    return read_trace(DATA / SAMPLES[name])


@lru_cache(maxsize=None)
def sample_model(name: str) -> WorkloadModel:
    return fit_model(sample(name))


def columns(t: Trace) -> tuple:
    return t.time_ns, t.offset, t.size, t.is_write


def assert_same_trace(a: Trace, b: Trace) -> None:
    assert len(a) == len(b)
    for name, x, y in zip(("time_ns", "offset", "size", "is_write"), columns(a), columns(b)):
        assert x.dtype == y.dtype, name
        if not np.array_equal(x, y):
            first = int(np.flatnonzero(x != y)[0])
            raise AssertionError(f"{name} differs first at request {first}: {x[first]} != {y[first]}")


# ---------------------------------------------------------------------------
# hand-built models
# ---------------------------------------------------------------------------

def even_cascade(levels: int) -> np.ndarray:
    """Every node splits its requests exactly in half (3 bins: shares 0, 1/2, 1; all weight on 1/2)."""
    c = np.zeros((SIZE_LEVELS, levels, 3))
    c[:, :, 1] = 1.0
    return c


def uniform_model(*, levels: int, regions: int, window: int, fresh_retries: int, unit: int = 4096,
                  size: int = 4096) -> WorkloadModel:
    """Reads only, never a re-access, one segment of ``regions`` regions of equal weight and an even cascade:
    every draw of a fresh request is uniform over the ``regions << levels`` units."""
    hm = HeatMap(np.array([0]), np.array([regions]), np.array([1.0]), np.array([0]))
    sizes = np.array([float(size), float(size)])
    sector = np.zeros(unit // 512)
    sector[0] = 1.0
    op = OpModel(np.zeros(KINDS), 0.0, np.zeros(0), np.zeros(0), sector, even_cascade(levels), sizes, (np.zeros(0),) * SIZE_LEVELS,
                 (hm,))
    arrivals = Arrivals(np.ones((1, 1)), np.array([[1000.0, 1000.0]]), 0)
    return WorkloadModel("uniform", unit, unit << levels, window, 0.0, (0.0, 0.0), 1.0, op, op, arrivals,
                         fresh_retries=fresh_retries, overlap_window_requests=window)


# ---------------------------------------------------------------------------
# fit then generate: real samples
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cloudphysics", "wsrch", "tpcc"])
def test_generated_trace_is_well_formed_and_keeps_the_read_ratio(name):
    real, model = sample(name), sample_model(name)
    gen = generate_trace(model, len(real), seed=1)
    assert len(gen) == len(real)
    assert gen.time_ns[0] == 0 and np.all(np.diff(gen.time_ns) >= 0)
    assert np.all(gen.size >= 512) and np.all(gen.size % 512 == 0)
    assert np.all(gen.offset >= 0) and np.all(gen.offset % 512 == 0)
    # the op chain's stationary write share, and its spread over n requests: a two-state chain whose
    # transition probabilities differ by lam = p(w|w) - p(w|r) has var(mean) ~ pi (1 - pi) / n * (1 + lam) /
    # (1 - lam); 5 standard deviations
    a, b = model.p_write_after
    pi = a / (a + 1 - b)
    lam = b - a
    sigma = math.sqrt(pi * (1 - pi) / len(gen) * (1 + lam) / (1 - lam))
    assert abs(gen.is_write.mean() - pi) <= 5 * sigma
    assert abs(pi - real.is_write.mean()) <= 1e-3  # the fitted chain's share is the trace's (measured <= 1e-4)


# the validation goal is 5 points; measured on seed 1 (seeds 1-20): CloudPhysics -3.0 points (-4.6 to -1.9),
# wsrch -4.6 (-5.1 to -3.9), tpcc +1.5 (+1.2 to +2.0)
@pytest.mark.parametrize("name", ["cloudphysics", "wsrch", "tpcc"])
def test_region_top_share_of_2mib_regions_is_close_to_the_real_trace(name):
    real = sample(name)
    gen = generate_trace(sample_model(name), len(real), seed=1)
    assert abs(region_top_share(gen) - region_top_share(real)) <= 0.05


# mean request size of the generated trace against the real one, per op: the standard error of either mean
# is 0.4-1.1% on these samples (sd / sqrt(n)), and the log-space interpolation between quantile knots adds a
# little bias.  Measured over seeds 1-20: tpcc reads -1.2 .. -0.2%, writes -3.4 .. -0.9%, wsrch reads
# -1.1 .. +1.4%.  CloudPhysics is left out: its reads come out 12-21% smaller and its writes 11-14% smaller.
@pytest.mark.parametrize("name,op", [("tpcc", False), ("tpcc", True), ("wsrch", False)])
def test_mean_request_size_per_op_is_kept(name, op):
    real = sample(name)
    gen = generate_trace(sample_model(name), len(real), seed=1)
    want = real.size[real.is_write == op].mean()
    got = gen.size[gen.is_write == op].mean()
    assert abs(got / want - 1) <= 0.06


# ---------------------------------------------------------------------------
# fit then generate: hand-made traces
# ---------------------------------------------------------------------------

def two_op_trace(read_regions: dict, write_regions: dict, seed: int) -> Trace:
    """Reads of 1 KiB and writes of 2.5 KiB, each starting in a 4 KiB unit of its own (no re-access), at the
    start of the unit (a request never starts where another ended: no sequential continuation), in a random
    order of ops; ``*_regions`` give the requests per 1 MiB region for each half of the trace."""
    rng = np.random.default_rng(seed)
    halves = []
    for half in (0, 1):
        parts = []
        for regions, size, is_write in ((read_regions, 1024, 0), (write_regions, 2560, 1)):
            for r, c in regions[half].items():
                units = rng.choice(256, size=c, replace=False) + r * 256
                parts.append(np.stack([units * 4096, np.full(c, size), np.full(c, is_write)], axis=1))
        block = np.concatenate(parts)
        halves.append(block[rng.permutation(len(block))])
    rows = np.concatenate(halves)
    return Trace(np.arange(len(rows)) * 500, rows[:, 0], rows[:, 1], rows[:, 2].astype(bool), name="two-op")


def map_regions(heat_map) -> set:
    return {r for s, n in zip(heat_map.start, heat_map.length) for r in range(int(s), int(s) + int(n))}


@pytest.mark.parametrize("seed", [1, 2])
def test_without_reaccesses_every_request_starts_in_its_op_and_phase_map_with_its_op_size(seed):
    reads = ({1: 150, 2: 60, 7: 40}, {30: 100, 31: 100, 50: 50})
    writes = ({100: 80, 101: 20}, {120: 90, 140: 10})  # 500 requests per half
    real = two_op_trace(reads, writes, seed)
    model = fit_model(real, phases=2)
    for op in (model.read, model.write):  # no re-access and no continuation: every request is fresh
        assert not np.any(op.p_reuse) and not np.any(op.p_seq)
        assert op.heads is None and op.p_head == 0.0
    n = 20_000
    gen = generate_trace(model, n, seed=seed)
    phase = np.arange(n) * 2 // n
    region = gen.offset // model.region_bytes
    for op_flag, op, size in ((False, model.read, 1024), (True, model.write, 2560)):
        for k in (0, 1):
            sel = (gen.is_write == op_flag) & (phase == k)
            assert sel.any()
            assert set(np.unique(region[sel])) <= map_regions(op.phases[k])
        # constant sizes come back exactly: every size table of the op holds one value
        assert np.all(gen.size[gen.is_write == op_flag] == size)
    assert map_regions(model.read.phases[0]) == set(reads[0]) and map_regions(model.write.phases[1]) == set(writes[1])


def test_generated_run_heads_start_only_in_the_maps_of_run_heads():
    """The fit of a trace whose runs start in regions of their own, apart from the single reads' regions
    (trace_helpers.runs_trace), generates each class of read with its own size (8 KiB heads, 12 KiB
    continuations, 4 KiB single reads; the size tables hold one value each and nothing is re-accessed), so
    the generated reads can be told apart by size: heads start only in the run-start regions, single reads
    only in theirs, continuations where the previous read ended; heads are within 5 binomial standard
    deviations of p_head of the fresh reads; and p_seq, 1 after a head and 0 after a single read, makes the
    read after a head a continuation unless its unit was used within the window, and never the read after a
    single one (a sliding-window scan of the start units)."""
    trace, classes, head_regions = runs_trace([3, 1, 7, 20, 2, 5, 12, 1] * 3, {0: 60, 1: 90, 4: 30}, 200, seed=8)
    model = fit_model(trace)
    single_regions = {int(o) // model.region_bytes for o, c in zip(trace.offset, classes) if c == "single"}
    assert map_regions(model.read.heads.phases[0]) == head_regions
    assert map_regions(model.read.phases[0]) == single_regions
    n = 20_000
    gen = generate_trace(model, n, seed=2)
    reads = np.flatnonzero(~gen.is_write)
    size, off = gen.size[reads], gen.offset[reads]
    assert set(np.unique(size)) == {HEAD_BYTES, RUN_STEP_BYTES, SINGLE_BYTES}
    region = off // model.region_bytes
    assert set(np.unique(region[size == HEAD_BYTES])) <= head_regions
    assert set(np.unique(region[size == SINGLE_BYTES])) <= single_regions
    cont = np.flatnonzero(size == RUN_STEP_BYTES)
    assert cont.size and cont[0] > 0
    assert np.array_equal(off[cont], off[cont - 1] + size[cont - 1])
    # the read after each head or single read: where it must be a continuation, and where it must not
    must, must_not = {}, set()
    for k in range(reads.size - 1):
        if size[k] == HEAD_BYTES:
            must[int(reads[k + 1])] = int(off[k] + size[k]) // model.unit_bytes
        elif size[k] == SINGLE_BYTES:
            must_not.add(int(reads[k + 1]))
    window = model.reuse_window_requests
    recent: Counter = Counter()
    units = (gen.offset // model.unit_bytes).tolist()
    blocked = 0
    for i in range(n):
        if i in must:
            blocked += recent[must[i]] > 0
            assert (gen.size[i] == RUN_STEP_BYTES) == (recent[must[i]] == 0), i
        if i in must_not:
            assert gen.size[i] != RUN_STEP_BYTES, i
        recent[units[i]] += 1
        if i >= window:
            recent[units[i - window]] -= 1
    assert 0 < blocked < len(must)  # both branches are taken (heads repeat their units: the map is small)
    heads, fresh = int(np.sum(size == HEAD_BYTES)), int(np.sum(size != RUN_STEP_BYTES))
    p = model.read.p_head
    assert abs(heads - p * fresh) <= 5 * math.sqrt(fresh * p * (1 - p))


def recent_collisions(units: np.ndarray, window: int) -> int:
    """Requests whose unit one of the previous ``window`` requests started in (a sliding-window count)."""
    recent: Counter = Counter()
    ring: deque = deque()
    hits = 0
    for u in units.tolist():
        hits += recent[u] > 0
        ring.append(u)
        recent[u] += 1
        if len(ring) > window:
            old = ring.popleft()
            recent[old] -= 1
    return hits


def test_fresh_requests_avoid_units_used_within_the_window():
    """With no re-accesses every request is fresh, and each draw is uniform over 4,096 units of which at most
    64 (the window) are recent.  With 16 retries a request lands on a recent unit only if all 17 draws do:
    probability <= (64 / 4096) ** 17 ~ 2e-31 per request, so none of 20,000 does.  Without retries about
    n * 64 / 4096 ~ 310 do (fewer as the window holds repeats); at least 100 is certain for practical
    purposes (Poisson tail below 1e-30)."""
    n, window = 20_000, 64
    kept_out = generate_trace(uniform_model(levels=6, regions=64, window=window, fresh_retries=16), n, seed=5)
    assert recent_collisions(kept_out.offset // 4096, window) == 0
    plain = generate_trace(uniform_model(levels=6, regions=64, window=window, fresh_retries=0), n, seed=5)
    assert recent_collisions(plain.offset // 4096, window) >= 100


def covered_collisions(offset: np.ndarray, size: np.ndarray, unit: int, window: int,
                       starts_only: bool = False) -> int:
    """Requests that cover a unit one of the previous ``window`` requests covered (a sliding-window count
    over every unit of every request); with ``starts_only``, requests that start in one."""
    covered: Counter = Counter()
    spans = [range(o // unit, (o + s - 1) // unit + 1) for o, s in zip(offset.tolist(), size.tolist())]
    hits = 0
    for i, span in enumerate(spans):
        hits += covered[span.start] > 0 if starts_only else any(covered[u] > 0 for u in span)
        for u in span:
            covered[u] += 1
        if i >= window:
            for u in spans[i - window]:
                covered[u] -= 1
    return hits


def test_fresh_requests_avoid_units_the_window_covered_unless_q_overlap_lets_them():
    """Requests of two units, drawn uniformly over 4,096 units, overlap window 64: at most 128 units are
    covered, so at most 256 of the 4,096 starts (a covered unit or the unit before one) and the 64 recent
    ones make a draw collide: below 1/12.  With q_overlap 0 and 16 retries a request collides only if all 17
    draws do, (1/12) ** 17 ~ 5e-19 per request, so none of 20,000 does.  With q_overlap 1 only recent
    starts are avoided, and hundreds of requests cover a unit the window covered (540-627 on seeds 1, 2
    and 5; a unit just before a covered one is a start that overlaps): 100 is a loose floor."""
    n, window = 20_000, 64
    base = uniform_model(levels=6, regions=64, window=window, fresh_retries=16, size=8192)
    strict = base.replace(read=replace(base.read, q_overlap=0.0), write=replace(base.write, q_overlap=0.0))
    kept_out = generate_trace(strict, n, seed=5)
    assert covered_collisions(kept_out.offset, kept_out.size, 4096, window) == 0
    free = generate_trace(base, n, seed=5)
    assert recent_collisions(free.offset // 4096, window) == 0
    assert covered_collisions(free.offset, free.size, 4096, window) >= 100


@pytest.mark.parametrize("engine", ["reference", pytest.param("compiled", marks=needs_kernel)])
def test_fresh_requests_avoid_starting_in_units_the_avoid_window_covered(engine):
    """Requests of two units drawn uniformly over 4,096 units, windows of 64, fresh requests free to overlap
    (q_overlap 1): at most 128 units are covered, so a draw starts in one with probability <= 1/32, and with
    16 retries all 17 draws do with probability (1/32) ** 17 ~ 4e-26 per request: none of 20,000.  Avoiding
    only recent starts (fresh_avoid_window_requests 0), a request starts in the second unit of one of the
    last 64 requests with probability about 64/4096, some 300 of 20,000 (fewer as the window holds
    repeats): 100 is a loose floor."""
    n, window = 20_000, 64
    base = uniform_model(levels=6, regions=64, window=window, fresh_retries=16, size=8192)
    avoiding = generate_trace(base.replace(fresh_avoid_window_requests=window), n, seed=5, engine=engine)
    assert covered_collisions(avoiding.offset, avoiding.size, 4096, window, starts_only=True) == 0
    plain = generate_trace(base, n, seed=5, engine=engine)
    assert recent_collisions(plain.offset // 4096, window) == 0
    assert covered_collisions(plain.offset, plain.size, 4096, window, starts_only=True) >= 100


def test_fresh_retries_give_up_when_every_unit_is_recent():
    """Two units and a window of 8: every unit is recent after two requests, so a request keeps its last draw
    (retries never loop forever) and the trace still uses both units."""
    gen = generate_trace(uniform_model(levels=1, regions=1, window=8, fresh_retries=50), 2000, seed=3)
    assert set(np.unique(gen.offset // 4096)) == {0, 1}


@pytest.mark.parametrize("engine", ["reference", pytest.param("compiled", marks=needs_kernel)])
def test_each_region_keeps_its_hot_spot_throughout_the_trace(engine):
    """A cascade whose every split share is 0 or 1 (bins 0 and 2 of three, equal weights): a node's share is
    picked from a hash of seed, op, region and node, so each region has exactly one unit its fresh requests
    can reach, the same from the first request to the last.  Eight regions of four units, reads only, every
    request fresh (no re-access, no retries): each region's requests all start in one unit, in both halves of
    the trace, and the regions do not all pick the same one."""
    levels, regions = 2, 8
    cascade = np.zeros((SIZE_LEVELS, levels, 3))
    cascade[:, :, [0, 2]] = 1.0
    model = uniform_model(levels=levels, regions=regions, window=1, fresh_retries=0)
    model = replace(model, read=replace(model.read, cascade=cascade), write=replace(model.write, cascade=cascade))
    gen = generate_trace(model, 4000, seed=11, engine=engine)
    unit = gen.offset // 4096
    region, in_region = unit >> levels, unit & ((1 << levels) - 1)
    halves = np.arange(len(gen)) * 2 // len(gen)
    picked = {}
    for r in range(regions):
        mine = region == r
        assert mine[halves == 0].any() and mine[halves == 1].any()
        assert len(set(in_region[mine].tolist())) == 1, r
        picked[r] = int(in_region[mine][0])
    assert len(set(picked.values())) > 1, picked


# ---------------------------------------------------------------------------
# hand-built models: request classes told apart by size
# ---------------------------------------------------------------------------

# single fresh requests, run heads, re-accesses (p_same_size 0: always a size of size_all) and the range of
# continuation sizes; no two overlap, so a generated request's size says which step of the generator made it
SIZED_SINGLE, SIZED_HEAD, SIZED_REUSE, SIZED_SEQ = 2560, 6144, 1024, (8192.0, 20480.0)
SIZED_UNIT = 4096


def size_class(size: int) -> str:
    if SIZED_SEQ[0] <= size <= SIZED_SEQ[1]:
        return "continuation"
    return {SIZED_SINGLE: "single", SIZED_HEAD: "head", SIZED_REUSE: "reuse"}[size]


def one_or_zero_mostly(draw, label: str) -> np.ndarray:
    """KINDS probabilities, each 0 or 1 (the generator's choice is then certain) or, for some draws, 1/2 for
    some kinds."""
    values = draw(st.lists(st.sampled_from([0.0, 1.0, 0.5]) if draw(st.booleans(), label=f"{label} mixed")
                           else st.sampled_from([0.0, 1.0]), min_size=KINDS, max_size=KINDS), label=label)
    return np.array(values)


RUN_KINDS = [KIND_HEAD] + [KIND_RUN + b for b in range(RUN_BUCKETS)]


@st.composite
def sized_models(draw):
    """One phase; single fresh requests in regions 0-11 and run heads in regions 30-41, or in 4,000 regions
    from 30 (disjoint maps with their own heat levels), each class with a constant size; re-accesses of the
    op's own previous request; continuation sizes in SIZED_SEQ; p_reuse and p_seq per kind drawn (mostly 0 or 1); p_head
    0, 1 or in between; q_overlap 0, 1 or 1/2."""
    levels = draw(st.integers(1, 3), label="levels")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="numbers"))

    # runs that go on until a unit of the window or the end of the maps stops them, for some draws, with run
    # heads in a map of 4,000 regions: long enough to reach the last run-length bucket
    long_runs = draw(st.booleans(), label="long runs")

    def heat_map(first_region: int, wide: bool = False) -> HeatMap:
        if wide:
            return HeatMap(np.array([first_region]), np.array([4000]), np.array([1.0]), rng.integers(0, 8, 1))
        n_seg = int(rng.integers(1, 4))
        lengths = rng.integers(1, 4, n_seg)
        gaps = np.cumsum(rng.integers(0, 2, n_seg))
        starts = first_region + gaps + np.concatenate([[0], np.cumsum(lengths)[:-1]])
        return HeatMap(starts, lengths, rng.uniform(0.5, 2.0, n_seg), rng.integers(0, SIZE_LEVELS, n_seg))

    def places(first_region: int, size: int, wide: bool = False) -> Places:
        cascade = rng.integers(0, 3, (SIZE_LEVELS, levels, 5)).astype(float)
        cascade[..., 2] += 1.0
        return Places((heat_map(first_region, wide),), cascade, rng.integers(1, 3, SIZED_UNIT // 512).astype(float),
                      (np.array([size, size], dtype=float),) * SIZE_LEVELS)

    def op_model(name: str) -> OpModel:
        single = places(0, SIZED_SINGLE)
        p_head = draw(st.sampled_from([0.0, 1.0, 0.3]), label=f"{name} p_head")
        p_reuse, p_seq = one_or_zero_mostly(draw, f"{name} p_reuse"), one_or_zero_mostly(draw, f"{name} p_seq")
        if long_runs:
            p_reuse[RUN_KINDS], p_seq[RUN_KINDS] = 0.0, 1.0
        # re-accesses target the op's own previous request (distance 1 among its op's requests)
        return OpModel(p_reuse, float(name == "write"), np.array([1.0, 1.0]), np.array([1.0, 1.0]),
                       single.sector_pmf, single.cascade,
                       np.array([SIZED_REUSE, SIZED_REUSE], dtype=float), single.size_by_level, single.phases,
                       p_seq, np.array(SIZED_SEQ), p_head, places(30, SIZED_HEAD, wide=long_runs),
                       draw(st.sampled_from([1.0, 0.0, 0.5]), label=f"{name} q_overlap"))

    arrivals = Arrivals(np.ones((1, 1)), np.array([[100.0, 100.0]]), 0)
    window = draw(st.integers(1, 30), label="window")
    return WorkloadModel("sized", SIZED_UNIT, SIZED_UNIT << levels, window,
                         0.5, (draw(probabilities, label="p_write_after_read"),
                               draw(probabilities, label="p_write_after_write")),
                         0.0, op_model("read"), op_model("write"), arrivals,
                         fresh_retries=draw(st.sampled_from([0, 2]), label="fresh_retries"),
                         overlap_window_requests=draw(st.integers(1, window), label="overlap window"))


def region_level(places: Places) -> dict:
    """Region -> heat level of every region of the (only) phase's map."""
    h = places.phases[0]
    return {r: int(lv) for s0, n, lv in zip(h.start, h.length, h.level) for r in range(int(s0), int(s0 + n))}


@settings(max_examples=80)
@given(model=sized_models(), n=st.integers(1, 2500), seed=st.integers(0, 2**32))
def test_reaccesses_and_continuations_follow_the_kind_of_the_previous_request_of_the_same_op(model, n, seed):
    """A scan over the generated trace keeps, per op, the previous request's kind as the generator must see
    it: a single fresh request's heat level (its region's, from the map the test built), KIND_HEAD, KIND_RUN
    plus the bucket of the continuations its run has reached, or KIND_REUSE.  Then, for every request but the
    first of its op:

    * p_reuse of that kind 1: a re-access; 0: not one (its target, the previous request of its op, exists);
    * a continuation starts exactly where the previous request of its op ended, never in a unit that one
      of the last ``window`` requests started in, never at or past the end of the highest region of the
      maps (runs stay inside the footprint), and only where p_seq of the kind is above 0;
    * p_seq of the kind 1, no re-access, and the byte where the previous request ended below that end, in
      a unit not used within the window: a continuation;
    * a single fresh request starts in its map's regions, a run head in the heads' map's; p_head 0 draws no
      head and 1 no single fresh request.

    The first request of an op is never a continuation."""
    gen = generate_trace(model, n, seed=seed)
    window = model.reuse_window_requests
    units = (gen.offset // SIZED_UNIT).tolist()
    levels = {op: region_level(model.op(op).places) for op in (0, 1)}
    head_regions = {op: set(region_level(model.op(op).heads)) for op in (0, 1)}
    # one past the highest region of any map: no continuation starts there or above
    span_end = (max(r for op in (0, 1) for r in (*levels[op], *head_regions[op])) + 1) * model.region_bytes
    prev = {0: None, 1: None}  # op -> (end byte, kind, continuations of its run)
    for i in range(n):
        op, off, size = int(gen.is_write[i]), int(gen.offset[i]), int(gen.size[i])
        om, cls, region = model.op(op), size_class(size), off // model.region_bytes
        recent = set(units[max(0, i - window):i])
        if prev[op] is None:
            assert cls != "continuation", i
        else:
            end, kind, run = prev[op]
            p_reuse, p_seq = om.p_reuse[kind], om.p_seq[kind]
            assert cls != "reuse" or p_reuse > 0, i
            assert cls == "reuse" or p_reuse < 1, i
            if cls == "continuation":
                assert off == end and off // SIZED_UNIT not in recent and off < span_end and p_seq > 0, i
            elif cls != "reuse":
                assert not (p_seq == 1 and end // SIZED_UNIT not in recent and end < span_end), i
        if cls == "single":
            assert om.p_head < 1 and region in levels[op], i
            kind, run = levels[op][region], 0
        elif cls == "head":
            assert om.p_head > 0 and region in head_regions[op], i
            kind, run = KIND_HEAD, 0
        elif cls == "reuse":
            kind, run = KIND_REUSE, 0
        else:
            run = prev[op][2] + 1
            kind = KIND_RUN + run_bucket(run)
        prev[op] = (off + size, kind, run)


@settings(max_examples=60)
@given(model=hand_built_models(), scale=st.one_of(st.sampled_from([0.5, 1 / 3, 1 - 2**-20]), st.floats(1e-3, 1.0)),
       n=st.integers(1, 1500), seed=st.integers(0, 2**32))
def test_address_scale_only_scales_the_offsets_rounded_down_to_a_sector(model, scale, n, seed):
    """The same model and seed at scale 1 and at ``scale``: times, sizes and ops identical, and each offset
    floor(unscaled * scale / 512) * 512 (float64 arithmetic) -- the generator's re-access ring, recent units
    and continuation ends keep the unscaled offsets, so nothing else changes."""
    unscaled = generate_trace(model.replace(address_scale=1.0), n, seed=seed)
    scaled = generate_trace(model.replace(address_scale=scale), n, seed=seed)
    for name in ("time_ns", "size", "is_write"):
        assert np.array_equal(getattr(scaled, name), getattr(unscaled, name)), name
    expect = np.array([math.floor(o * scale / 512) * 512 for o in unscaled.offset.tolist()], dtype=np.int64)
    assert np.array_equal(scaled.offset, expect)


@given(states=st.integers(1, 4), n=st.integers(2, 300), data=st.data())
def test_gaps_follow_the_chain_from_the_first_state_rounded_to_the_nearest_ns(states, n, data):
    """A chain that moves along a cycle of the states with probability 1, and one gap per state (a constant
    table: whole ns, or a quarter or three quarters past): request 1's gap is the first state's, request
    i > 1 moves one step along the cycle, and each gap is rounded to the nearest ns (x.25 down, x.75 up)."""
    cycle = data.draw(st.permutations(range(states)), label="cycle")
    nxt = {cycle[i]: cycle[(i + 1) % states] for i in range(states)}
    trans = np.zeros((states, states))
    for a, b in nxt.items():
        trans[a, b] = 1.0
    whole = data.draw(st.lists(st.integers(0, 10**9), min_size=states, max_size=states), label="gaps")
    frac = data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.75]), min_size=states, max_size=states), label="frac")
    first = data.draw(st.integers(0, states - 1), label="first_state")
    gap_ns = np.array([[w + f, w + f] for w, f in zip(whole, frac)])
    model = uniform_model(levels=1, regions=1, window=1, fresh_retries=0).replace(
        arrivals=Arrivals(trans, gap_ns, first))
    gen = generate_trace(model, n, seed=data.draw(st.integers(0, 1000), label="seed"))
    expect, state = [], first
    for i in range(1, n):
        if i > 1:
            state = nxt[state]
        expect.append(whole[state] + (1 if frac[state] > 0.5 else 0))
    assert gen.time_ns[0] == 0
    assert np.diff(gen.time_ns).tolist() == expect


@given(parts=st.integers(2, 4), n=st.integers(2, 400), seed=st.integers(0, 1000))
def test_each_time_phase_has_its_own_op_chain_and_gap_transitions(parts, n, seed):
    """Time phases that alternate: even ones only ever read and move the gap chain to state 0 (10 ns), odd
    ones only ever write and move it to state 1 (1,000 ns).  Request g is in time phase g * parts // n:
    request 0 is a read (p_write_first 0), request g >= 1 writes exactly in the odd phases, request 1's gap
    is the first state's (0: 10 ns), and request g >= 2 takes its phase's state's gap."""
    to = [np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [0.0, 1.0]])]
    phases = tuple(TimePhase((float(k % 2), float(k % 2)), to[k % 2]) for k in range(parts))
    model = uniform_model(levels=1, regions=4, window=4, fresh_retries=0).replace(
        arrivals=Arrivals(np.full((2, 2), 0.5), np.array([[10.0, 10.0], [1000.0, 1000.0]]), 0),
        time_phases=phases)
    gen = generate_trace(model, n, seed=seed)
    odd = [(g * parts // n) % 2 == 1 for g in range(n)]
    assert gen.is_write.tolist() == [g > 0 and odd[g] for g in range(n)]
    assert np.diff(gen.time_ns).tolist() == [1000 if g > 1 and odd[g] else 10 for g in range(1, n)]


@settings(max_examples=60)
@given(model=hand_built_models(), n=st.integers(1, 1500), seed=st.integers(0, 2**32))
def test_max_end_byte_bounds_every_generated_request(model, n, seed):
    """Fresh requests (from either op's places, run heads' included), continuations (which start only below
    the end of the highest map region) and re-accesses of either all end below max_end_byte."""
    gen = generate_trace(model, n, seed=seed)
    assert int((gen.offset + gen.size - 1).max()) <= model.max_end_byte()


def constant_places(regions: int, size: float) -> Places:
    """Regions 0 .. regions - 1 of 16 KiB (4 units, even cascade), every size ``size``."""
    hm = HeatMap(np.array([0]), np.array([regions]), np.array([1.0]), np.array([0]))
    sector = np.zeros(8)
    sector[0] = 1.0
    return Places((hm,), even_cascade(2), sector, (np.array([size, size]),) * SIZE_LEVELS)


def op_of(places: Places, size_all: float, p_reuse: float = 0.0, p_head: float = 0.0,
          heads: Places | None = None, p_reuse_write: float = 0.0) -> OpModel:
    """Re-accesses (``p_reuse`` after every kind) repeat the latest request of the target op."""
    one = np.array([1.0, 1.0])
    return OpModel(np.full(KINDS, p_reuse), p_reuse_write, one, one, places.sector_pmf, places.cascade,
                   np.array([size_all, size_all]), places.size_by_level, places.phases, p_head=p_head, heads=heads)


@pytest.mark.parametrize("case", ["run heads larger", "write re-access of a read"])
def test_max_end_byte_counts_run_heads_and_reaccesses_across_ops(case):
    """Two models where the largest end comes from what only one op's fresh requests cannot give: run heads
    of 64 KiB next to 4 KiB requests in the same 9 regions; and writes (in regions 0-1) that re-access the
    latest read (in regions 0-8, 4 KiB), with a size of their own (64 KiB).  Either
    way some request ends above the top of the highest map plus 4 KiB and a sector, and none above
    max_end_byte."""
    small, big, region = 4096.0, 65536.0, 4096 << 2
    arrivals = Arrivals(np.ones((1, 1)), np.array([[1000.0, 1000.0]]), 0)
    if case == "run heads larger":
        op = op_of(constant_places(9, small), small, p_head=0.5, heads=constant_places(9, big))
        model = WorkloadModel("heads", 4096, region, 4, 0.0, (0.0, 0.0), 0.0, op, op, arrivals,
                              overlap_window_requests=4)
    else:
        read = op_of(constant_places(9, small), small)
        write = op_of(constant_places(2, small), big, p_reuse=1.0)
        model = WorkloadModel("cross", 4096, region, 4, 0.5, (0.5, 0.5), 0.0, read, write, arrivals,
                              overlap_window_requests=4)
    gen = generate_trace(model, 3000, seed=1)
    top_end = int((gen.offset + gen.size - 1).max())
    assert top_end > 9 * region + int(small) + 512
    assert top_end <= model.max_end_byte()


@settings(max_examples=30)
@given(d=st.integers(1, 6), p_write=st.sampled_from([0.2, 0.5, 0.8]), seed=st.integers(0, 2**32))
@pytest.mark.parametrize("reaccessing", [0, 1])
def test_a_reaccess_repeats_the_start_and_size_of_the_request_d_back_among_its_target_ops(reaccessing, d, p_write,
                                                                                          seed):
    """One op (``reaccessing``) re-accesses after every kind, always a request of the other op (p_reuse_write
    1 for reads, 0 for writes), always ``d`` requests of that op back, keeping its size (p_same_size 1); the
    other op is always fresh.  Sizes tell them apart: 1 KiB fresh requests of the re-accessing op, 4 KiB of
    the other.  So a request of the re-accessing op starts where the d-th latest request of the other op
    started, with its size, once the other op has made d requests, and is fresh (1 KiB) before that."""
    target = 1 - reaccessing
    arrivals = Arrivals(np.ones((1, 1)), np.array([[1000.0, 1000.0]]), 0)
    dist = np.array([float(d), float(d)])
    ops = {reaccessing: OpModel(np.ones(KINDS), float(target), dist, dist, *_places_args(1024.0)),
           target: op_of(constant_places(9, 4096.0), 4096.0)}
    model = WorkloadModel("targets", 4096, 4096 << 2, 64, p_write, (p_write, p_write), 1.0, ops[0], ops[1],
                          arrivals, overlap_window_requests=4)
    gen = generate_trace(model, 1500, seed=seed)
    of_target = []
    reaccesses = 0
    for op, off, size in zip(gen.is_write.astype(int), gen.offset.tolist(), gen.size.tolist()):
        if op == target:
            assert size == 4096
            of_target.append(off)
        elif len(of_target) >= d:
            assert (off, size) == (of_target[-d], 4096)
            reaccesses += 1
        else:
            assert size == 1024
    assert reaccesses > 0


# every size table of the model below holds one size of its own, 512 x a code: a generated request's size
# names the op, the step of the generator and (fresh requests) the heat level whose table it came from
TABLE_CODES = {op: {"all": 1 + 18 * op, "single": 2 + 18 * op, "head": 10 + 18 * op, "seq": 18 + 18 * op}
               for op in (0, 1)}
SINGLE_LEVELS, HEAD_LEVELS = {0: 0, 1: 0, 2: 3, 3: 3}, {100: 5, 101: 5, 102: 1, 103: 1}  # region -> heat level


def coded_places(levels_of: dict, first_code: int) -> Places:
    """Regions ``levels_of`` (16 KiB: 4 units, even cascade) at their heat levels; level L's size table holds
    512 x (first_code + L)."""
    regions = sorted(levels_of)
    hm = HeatMap(np.array(regions), np.ones(len(regions), dtype=np.int64), np.ones(len(regions)),
                 np.array([levels_of[r] for r in regions]))
    sector = np.zeros(8)
    sector[0] = 1.0
    return Places((hm,), even_cascade(2), sector,
                  tuple(np.array([512.0, 512.0]) * (first_code + lv) for lv in range(SIZE_LEVELS)))


def coded_model() -> WorkloadModel:
    """Reads and writes (write share 1/2); after any kind, a re-access with probability 0.3 (of the latest
    request of the other op, distance 1, never keeping its size: p_same_size 0), else a continuation with
    probability 0.3, else fresh, a run head with probability 0.5.  Fresh requests in regions 0-3 (levels 0
    and 3), run heads in regions 100-103 (levels 5 and 1); each table's size is 512 x its TABLE_CODES
    code (plus the level, for the maps)."""
    ops = []
    for op in (0, 1):
        code = TABLE_CODES[op]
        single, heads = coded_places(SINGLE_LEVELS, code["single"]), coded_places(HEAD_LEVELS, code["head"])
        one = np.array([1.0, 1.0])
        ops.append(OpModel(np.full(KINDS, 0.3), float(op == 0), one, one, single.sector_pmf, single.cascade,
                           np.array([512.0, 512.0]) * code["all"], single.size_by_level, single.phases,
                           np.full(KINDS, 0.3), np.array([512.0, 512.0]) * code["seq"], 0.5, heads))
    arrivals = Arrivals(np.ones((1, 1)), np.array([[1000.0, 1000.0]]), 0)
    return WorkloadModel("coded", 4096, 4096 << 2, 8, 0.5, (0.5, 0.5), 0.0, ops[0], ops[1], arrivals,
                         fresh_retries=2, overlap_window_requests=4)


@pytest.mark.parametrize("engine", ["reference", pytest.param("compiled", marks=needs_kernel)])
def test_each_request_takes_its_size_from_its_own_steps_table(engine):
    """The size rule of the generator, request by request, on the model of coded_model (sizes name their
    tables): a fresh request draws from its op's table for its map (single fresh requests or run heads) and
    the heat level of the region it starts in; a continuation from its op's continuation table, starting
    where the previous request of its op ended; a re-access that does not keep its target's size from its
    own op's table of all sizes (not the target op's), starting where its target, the latest request of the
    other op, started.  No request has a size of the other op's tables."""
    model = coded_model()
    gen = generate_trace(model, 3000, seed=5, engine=engine)
    last = {0: None, 1: None}  # op -> (offset, end) of its latest request
    seen = Counter()
    for op, off, size in zip(gen.is_write.astype(int).tolist(), gen.offset.tolist(), gen.size.tolist()):
        code, codes, region = size // 512, TABLE_CODES[op], off // model.region_bytes
        assert size % 512 == 0
        if codes["single"] <= code < codes["single"] + SIZE_LEVELS:
            assert SINGLE_LEVELS.get(region) == code - codes["single"], (op, off, size)
            seen["single"] += 1
        elif codes["head"] <= code < codes["head"] + SIZE_LEVELS:
            assert HEAD_LEVELS.get(region) == code - codes["head"], (op, off, size)
            seen["head"] += 1
        elif code == codes["seq"]:
            assert last[op] is not None and off == last[op][1], (op, off, size)
            seen["seq"] += 1
        else:
            assert code == codes["all"], (op, off, size)
            assert last[1 - op] is not None and off == last[1 - op][0], (op, off, size)
            seen["reuse"] += 1
        last[op] = (off, off + size)
    assert min(seen.values()) > 100 and len(seen) == 4, seen
    levels = Counter(int(s) // 512 for s in gen.size)
    assert all(levels[TABLE_CODES[op]["single"] + lv] for op in (0, 1) for lv in (0, 3))
    assert all(levels[TABLE_CODES[op]["head"] + lv] for op in (0, 1) for lv in (1, 5))


def _places_args(size: float) -> tuple:
    """The OpModel fields after the distance tables for constant 4 KiB-unit places of ``size``."""
    places = constant_places(9, size)
    return (places.sector_pmf, places.cascade, np.array([size, size]), places.size_by_level, places.phases)


# ---------------------------------------------------------------------------
# determinism and streaming
# ---------------------------------------------------------------------------

def test_same_model_n_and_seed_give_the_same_trace_and_other_seeds_differ():
    model = sample_model("tpcc")
    a = generate_trace(model, 20_000, seed=7)
    assert_same_trace(a, ModelSource(model, 20_000, seed=7).to_trace())
    for other in (0, 8, 2**40):
        b = generate_trace(model, 20_000, seed=other)
        assert not np.array_equal(a.offset, b.offset)
        assert not np.array_equal(a.time_ns, b.time_ns)
    # a shorter trace is the start of the longer one, for a model without phases (a phase is a share of the
    # request count, so the phases of a shorter trace end sooner)
    flat = model.replace(time_phases=())
    assert model.phases == 1
    whole = generate_trace(flat, 20_000, seed=7)
    assert_same_trace(generate_trace(flat, 5_000, seed=7), Trace(*(c[:5_000] for c in columns(whole)), rebase=False))


N_STREAM = 2 * BLOCK_REQUESTS + 1_234  # not a multiple of the block


@lru_cache(maxsize=None)
def streamed_reference() -> Trace:
    return generate_trace(sample_model("cloudphysics"), N_STREAM, seed=3)


@settings(max_examples=25)
@given(chunk=st.one_of(st.integers(100, 3 * BLOCK_REQUESTS),
                       st.sampled_from([BLOCK_REQUESTS - 1, BLOCK_REQUESTS, BLOCK_REQUESTS + 1, 1_000, 4_096,
                                        N_STREAM - 1, N_STREAM, N_STREAM + 1])))
def test_the_trace_does_not_depend_on_the_chunk_size(chunk):
    whole = streamed_reference()
    parts = list(ModelSource(sample_model("cloudphysics"), N_STREAM, seed=3).chunks(chunk))
    assert [len(p) for p in parts[:-1]] == [chunk] * (len(parts) - 1) and 0 < len(parts[-1]) <= chunk
    for name, col in zip(("time_ns", "offset", "size", "is_write"), columns(whole)):
        assert np.array_equal(np.concatenate([getattr(p, name) for p in parts]), col), name


def test_tiny_chunks_across_a_block_boundary():
    model = sample_model("tpcc")
    n = BLOCK_REQUESTS + 5
    parts = list(ModelSource(model, n, seed=1).chunks(3))
    assert len(parts) == math.ceil(n / 3)
    whole = generate_trace(model, n, seed=1)
    assert np.array_equal(np.concatenate([p.offset for p in parts]), whole.offset)
    assert np.array_equal(np.concatenate([p.time_ns for p in parts]), whole.time_ns)


def test_info_equals_a_pass_over_the_chunks():
    model = sample_model("cloudphysics")
    src = ModelSource(model, BLOCK_REQUESTS + 999, seed=4)
    n = writes = 0
    last_time, lo, hi = 0, None, -1
    for c in src.chunks(10_000):
        n += len(c)
        writes += int(np.count_nonzero(c.is_write))
        last_time = int(c.time_ns[-1])
        lo = int(c.offset.min()) if lo is None else min(lo, int(c.offset.min()))
        hi = max(hi, int((c.offset + c.size - 1).max()))
    info = src.info()
    assert (info.n_requests, info.n_writes, info.duration_ns, info.min_offset, info.max_end_byte) == \
        (BLOCK_REQUESTS + 999, writes, last_time, lo, hi)
    assert n == len(src) == BLOCK_REQUESTS + 999
    assert info.max_end_byte <= model.max_end_byte()


@pytest.mark.parametrize("kwargs,fragment", [
    ({"n_requests": 0}, "n_requests: expected a positive integer"),
    ({"n_requests": 2.5}, "n_requests: expected a positive integer"),
    ({"n_requests": 10, "seed": -1}, "seed: expected an integer >= 0"),
    ({"n_requests": 10, "seed": True}, "seed: expected an integer >= 0"),
    ({"n_requests": 10, "engine": "fast"}, "expected one of auto, compiled, reference"),
])
def test_bad_generator_arguments_are_model_errors(kwargs, fragment):
    with pytest.raises(ModelError, match=fragment):
        ModelSource(sample_model("msr"), **kwargs)


def test_request_count_defaults_to_the_fitted_traces():
    assert len(ModelSource(sample_model("msr"))) == len(sample("msr"))
    bare = replace(sample_model("msr"), source={})
    with pytest.raises(ModelError, match="n_requests: give a request count"):
        ModelSource(bare)


# ---------------------------------------------------------------------------
# twin equivalence: compiled kernel and pure-Python reference
# ---------------------------------------------------------------------------

def assert_twins_agree(model: WorkloadModel, n: int, seed: int) -> None:
    compiled = generate_trace(model, n, seed=seed, engine="compiled")
    reference = generate_trace(model, n, seed=seed, engine="reference")
    assert_same_trace(compiled, reference)


@needs_kernel
@settings(max_examples=150)
@given(model=hand_built_models(), n=st.integers(1, 1500), seed=st.integers(0, 2**63 - 1))
def test_twins_agree_on_hand_built_models(model, n, seed):
    assert_twins_agree(model, n, seed)


@needs_kernel
@settings(max_examples=20)
@given(name=st.sampled_from(sorted(SAMPLES)), start=st.floats(0.0, 1.0), length=st.integers(500, 3000),
       window=st.sampled_from([1, 16, 256, 4096]), overlap=st.sampled_from([1, 16, 256, 4096]),
       phases=st.integers(1, 3), retries=st.integers(0, 8),
       unit=st.sampled_from([512, 4096]), region=st.sampled_from([1 << 16, 1 << 20]), n=st.integers(1, 3000),
       seed=st.integers(0, 2**32), near=st.sampled_from([0, 8, 65536]), avoid=st.booleans())
def test_twins_agree_on_models_fitted_to_slices_of_real_traces(name, start, length, window, overlap, phases, retries,
                                                                unit, region, n, seed, near, avoid):
    real = sample(name)
    length = min(length, len(real))
    a = int(start * (len(real) - length))
    part = Trace(*(c[a:a + length] for c in columns(real)), name=name)
    model = fit_model(part, unit_bytes=unit, region_bytes=region, reuse_window_requests=window, phases=phases,
                      fresh_retries=retries, overlap_window_requests=min(overlap, window),
                      near_window_requests=near, fresh_avoids_near=avoid)
    assert_twins_agree(model, n, seed)


@needs_kernel
@pytest.mark.parametrize("window", [16, 300])
def test_twins_agree_when_the_unit_stamps_move_their_base(window):
    """The compiled kernel stamps covered units with 32 bits from a base it moves up (at 2**32 - 1
    requests past it, and whenever it rebuilds its table); with the limit set to 3 windows the move
    happens every few hundred requests, and the trace must still be the reference's."""
    from flashrr.trace.model import _kernel

    model = fit_model(sample("cloudphysics").slice(0, 20_000), reuse_window_requests=window,
                      near_window_requests=window, overlap_window_requests=min(window, 32))
    assert model.fresh_avoid_window_requests == window
    old = _kernel._set_stamp_limit(3 * window)
    try:
        assert_twins_agree(model, 12_000, seed=4)
    finally:
        _kernel._set_stamp_limit(old)


@needs_kernel
def test_twins_agree_across_a_block_boundary():
    """The generator's state (ring, recent units, op, gap state, clock) carries over from one block of
    uniforms to the next in both twins."""
    assert_twins_agree(sample_model("tpcc"), BLOCK_REQUESTS + 300, seed=11)
