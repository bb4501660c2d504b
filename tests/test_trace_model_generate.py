"""Traces generated from a workload model: what they keep, determinism, streaming, and the twin generators.

* Fit then generate, on the real samples of ``tests/data`` and on hand-made
  traces: the read ratio, sizes, times, where fresh requests start, fresh
  requests kept out of the re-access window, the region top-10% share.
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
                                 compiled_kernel_available, fit_model, generate_trace)
from flashrr.trace.model.prepared import BLOCK_REQUESTS
from flashrr.trace.model.schema import SIZE_LEVELS

DATA = Path(__file__).parent / "data"
SAMPLES = {"cloudphysics": "cloudphysics-io.mqsim.txt.gz", "wsrch": "wsrch-small.mqsim.txt",
           "tpcc": "tpcc-small.mqsim.txt", "msr": "msr-hm_0-sample.msr.csv.gz"}
needs_kernel = pytest.mark.skipif(not compiled_kernel_available(),
                                  reason="the compiled model generator (flashrr/trace/model/_kernel) is not built")


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
    op = OpModel((0.0, 0.0), np.zeros(0), sector, even_cascade(levels), sizes, (np.zeros(0),) * SIZE_LEVELS,
                 (hm,))
    arrivals = Arrivals(np.ones((1, 1)), np.array([[1000.0, 1000.0]]), 0)
    return WorkloadModel("uniform", unit, unit << levels, window, 0.0, (0.0, 0.0), 1.0, op, op, arrivals,
                         fresh_retries=fresh_retries)


probabilities = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0))


@st.composite
def hand_models(draw, max_window: int = 40):
    """Small WorkloadModels built field by field: heat maps of 1-5 segments per phase, 1-3 phases, cascades of
    2-6 bins with zero weights among them, re-access tables, sequential continuations never, sometimes or
    always, address scales, 1-4 gap states, windows short enough that the
    re-access ring wraps many times and few enough units that the recent-unit table fills and empties.
    Structure comes from hypothesis; the bulk of the numbers from a NumPy generator seeded by it.  Measured
    over 300 draws (with n of 1-1,500 requests): the ring wraps in 62%, a unit leaves the recent-unit table in
    62%, a request starts in a unit of its window in 61%, both ops appear in 51%, several phases in 61%,
    fresh_retries > 0 in 65%, an address scale below 1 in 61%, and of the draws at scale 1, 38% show a
    request starting where the previous one of its op ended."""
    unit = draw(st.sampled_from([512, 1024, 4096]), label="unit_bytes")
    levels = draw(st.integers(1, 4), label="levels")
    window = draw(st.integers(1, max_window), label="window")
    n_phases = draw(st.integers(1, 3), label="phases")
    bins = draw(st.integers(2, 6), label="bins")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="numbers"))

    def quantiles(lo, hi, integral=False):
        v = np.sort(rng.uniform(lo, hi, int(rng.integers(2, 7))))
        return np.floor(v) if integral else v

    def heat_map():
        n_seg = draw(st.integers(1, 5), label="segments")
        lengths = np.array(draw(st.lists(st.integers(1, 4), min_size=n_seg, max_size=n_seg)))
        gaps = np.array(draw(st.lists(st.integers(0, 3), min_size=n_seg, max_size=n_seg)))
        starts = np.cumsum(gaps) + np.concatenate([[0], np.cumsum(lengths)[:-1]])
        return HeatMap(starts, lengths, rng.uniform(0.1, 10.0, n_seg), rng.integers(0, SIZE_LEVELS, n_seg))

    def op_model():
        p_reuse = (draw(probabilities, label="p_reuse_after_fresh"), draw(probabilities, label="p_reuse_after_reuse"))
        dist = quantiles(1, window, integral=draw(st.booleans()))
        if max(p_reuse) == 0 and draw(st.booleans()):
            dist = np.zeros(0)
        sector = rng.integers(0, 3, unit // 512).astype(float)
        sector[rng.integers(0, sector.size)] += 1.0
        cascade = rng.integers(0, 3, (SIZE_LEVELS, levels, bins)).astype(float)
        cascade[..., rng.integers(0, bins)] += 1.0  # each row has a positive sum
        by_level = tuple(np.zeros(0) if rng.random() < 0.3 else quantiles(1, 3e5) for _ in range(SIZE_LEVELS))
        seq_mode = draw(st.sampled_from(["never", "some", "always"]), label="continuations")
        p_seq = {"never": np.zeros(SIZE_LEVELS + 2), "always": np.ones(SIZE_LEVELS + 2),
                 "some": rng.random(SIZE_LEVELS + 2) * (rng.random(SIZE_LEVELS + 2) < 0.7)}[seq_mode]
        size_seq = quantiles(1, 3e5) if p_seq.max() > 0 or rng.random() < 0.5 else np.zeros(0)
        return OpModel(p_reuse, dist, sector, cascade, quantiles(1, 3e5), by_level,
                       tuple(heat_map() for _ in range(n_phases)), p_seq, size_seq)

    states = draw(st.integers(1, 4), label="gap states")
    trans = rng.integers(0, 3, (states, states)).astype(float)
    trans[np.arange(states), rng.integers(0, states, states)] += 1.0
    gap_ns = np.sort(rng.uniform(0, 1e6, (states, int(rng.integers(2, 6)))), axis=1)
    arrivals = Arrivals(trans, gap_ns, int(rng.integers(0, states)))
    return WorkloadModel("hand", unit, unit << levels, window, draw(probabilities, label="p_write_first"),
                         (draw(probabilities), draw(probabilities)), draw(probabilities, label="p_same_size"),
                         op_model(), op_model(), arrivals,
                         fresh_retries=draw(st.sampled_from([0, 1, 3, 50]), label="fresh_retries"),
                         address_scale=draw(st.one_of(st.sampled_from([1.0, 0.5]), st.floats(1e-3, 1.0)),
                                            label="address_scale"))


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
    assert int((gen.offset + gen.size - 1).max()) <= model.max_end_byte()
    # the op chain's stationary write share, and its spread over n requests: a two-state chain whose
    # transition probabilities differ by lam = p(w|w) - p(w|r) has var(mean) ~ pi (1 - pi) / n * (1 + lam) /
    # (1 - lam); 5 standard deviations
    a, b = model.p_write_after
    pi = a / (a + 1 - b)
    lam = b - a
    sigma = math.sqrt(pi * (1 - pi) / len(gen) * (1 + lam) / (1 - lam))
    assert abs(gen.is_write.mean() - pi) <= 5 * sigma
    assert abs(pi - real.is_write.mean()) <= 1e-3  # the fitted chain's share is the trace's (measured <= 1e-4)


# measured on seed 1: wsrch -2.0 points, tpcc +1.9 (seeds 1-20: within 2.5 points); the validation goal is 5
# points.  CloudPhysics is left out: its generated share is 0.60 against the trace's 0.445 (seeds 1-20: +14.5 to
# +17.0 points), since runs of continuations start from the heads the model draws, not from the trace's streams.
@pytest.mark.parametrize("name", ["wsrch", "tpcc"])
def test_region_top_share_of_2mib_regions_is_close_to_the_real_trace(name):
    real = sample(name)
    gen = generate_trace(sample_model(name), len(real), seed=1)
    assert abs(region_top_share(gen) - region_top_share(real)) <= 0.05


# mean request size of the generated trace against the real one, per op: the standard error of either mean
# is 0.4-1.1% on these samples (sd / sqrt(n)); hashing a size to each unit makes the generated one vary more
# (hot units repeat their size), and the log-space interpolation between quantile knots adds a little bias.
# Measured over seeds 1-20: tpcc reads -1.0 .. -0.4%, writes -3.5 .. -0.1%, wsrch reads -0.3 .. +1.6%.
# CloudPhysics is left out: its writes come out 11-14% larger (its re-accessed writes are small, 4.8 KB on
# average, but a generated re-access takes the size of whichever request it repeats, or one of all writes).
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
        assert op.p_reuse == (0.0, 0.0) and not np.any(op.p_seq)
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


def test_fresh_retries_give_up_when_every_unit_is_recent():
    """Two units and a window of 8: every unit is recent after two requests, so a request keeps its last draw
    (retries never loop forever) and the trace still uses both units."""
    gen = generate_trace(uniform_model(levels=1, regions=1, window=8, fresh_retries=50), 2000, seed=3)
    assert set(np.unique(gen.offset // 4096)) == {0, 1}


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
    # a shorter trace is the start of the longer one (phases aside: this model has one)
    assert_same_trace(generate_trace(model, 5_000, seed=7), Trace(*(c[:5_000] for c in columns(a)), rebase=False))


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
@given(model=hand_models(), n=st.integers(1, 1500), seed=st.integers(0, 2**63 - 1))
def test_twins_agree_on_hand_built_models(model, n, seed):
    assert_twins_agree(model, n, seed)


@needs_kernel
@settings(max_examples=20)
@given(name=st.sampled_from(sorted(SAMPLES)), start=st.floats(0.0, 1.0), length=st.integers(500, 3000),
       window=st.sampled_from([1, 16, 256, 4096]), phases=st.integers(1, 3), retries=st.integers(0, 8),
       unit=st.sampled_from([512, 4096]), region=st.sampled_from([1 << 16, 1 << 20]), n=st.integers(1, 3000),
       seed=st.integers(0, 2**32))
def test_twins_agree_on_models_fitted_to_slices_of_real_traces(name, start, length, window, phases, retries, unit,
                                                                region, n, seed):
    real = sample(name)
    length = min(length, len(real))
    a = int(start * (len(real) - length))
    part = Trace(*(c[a:a + length] for c in columns(real)), name=name)
    model = fit_model(part, unit_bytes=unit, region_bytes=region, reuse_window_requests=window, phases=phases,
                      fresh_retries=retries)
    assert_twins_agree(model, n, seed)


@needs_kernel
def test_twins_agree_across_a_block_boundary():
    """The generator's state (ring, recent units, op, gap state, clock) carries over from one block of
    uniforms to the next in both twins."""
    assert_twins_agree(sample_model("tpcc"), BLOCK_REQUESTS + 300, seed=11)
