"""``fit_model`` recovers structure built into hand-made traces.

Every trace here is made in the test so that what the fit must find is known
by construction: the regions reads and writes go to and how often, the
requests that repeat an earlier start and at what distance, the op chain, a
cascade split that is always 1 at one depth, and gap sequences that cycle
through a few values.  Requests are 512 bytes long and start on a unit
boundary unless the test says otherwise, so no request starts where another
one ended (none is a sequential continuation) and, with distinct units, none
is a re-access: every request is fresh.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from flashrr.trace.core import Trace
from flashrr.trace.model import MIN_REQUESTS, FitSettings, ModelError, fit_model, generate_trace

UNIT = 4096
MIB = 1 << 20
UNITS_PER_MIB = MIB // UNIT


def make_trace(offsets, is_write=None, size=512, gaps=1000, name="hand") -> Trace:
    """A trace of the given starts; ``gaps`` is one gap (ns) or one per request after the first."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n = offsets.size
    w = np.zeros(n, dtype=bool) if is_write is None else np.asarray(is_write, dtype=bool)
    g = np.full(max(n - 1, 0), gaps, dtype=np.int64) if np.isscalar(gaps) else np.asarray(gaps, dtype=np.int64)
    t = np.concatenate([[0], np.cumsum(g)])
    sizes = np.full(n, size, dtype=np.int64) if np.isscalar(size) else np.asarray(size, dtype=np.int64)
    return Trace(t, offsets, sizes, w, name=name)


def region_weights(heat_map) -> dict:
    """Region -> weight of every region a heat map covers (segments expanded)."""
    out = {}
    for s, n, w in zip(heat_map.start, heat_map.length, heat_map.weight):
        for r in range(int(s), int(s) + int(n)):
            assert r not in out, "segments overlap"
            out[r] = float(w)
    return out


def requests_in_regions(counts: dict, rng) -> np.ndarray:
    """Starts of ``counts[r]`` requests in region r (1 MiB), each in a unit of its own."""
    starts = [(r * UNITS_PER_MIB + j) * UNIT for r, c in counts.items() for j in range(c)]
    return rng.permutation(np.array(starts, dtype=np.int64))


region_sets = st.dictionaries(st.integers(0, 300), st.integers(1, UNITS_PER_MIB), min_size=2, max_size=10)


# ---------------------------------------------------------------------------
# heat maps
# ---------------------------------------------------------------------------

@given(reads=region_sets, writes=region_sets, steps=st.sampled_from([1, 2, 4, 8]), seed=st.integers(0, 2**32 - 1))
def test_heat_maps_cover_exactly_the_regions_used_with_weights_proportional_to_counts(reads, writes, steps, seed):
    writes = {r + 400: c for r, c in writes.items()}  # disjoint from the read regions
    assume(sum(reads.values()) + sum(writes.values()) >= MIN_REQUESTS)
    rng = np.random.default_rng(seed)
    r_off, w_off = requests_in_regions(reads, rng), requests_in_regions(writes, rng)
    order = rng.permutation(r_off.size + w_off.size)
    off = np.concatenate([r_off, w_off])[order]
    is_write = np.concatenate([np.zeros(r_off.size, bool), np.ones(w_off.size, bool)])[order]
    model = fit_model(make_trace(off, is_write), weight_steps_per_octave=steps)
    assert model.region_bytes == MIB and model.phases == 1
    for op, counts in ((model.read, reads), (model.write, writes)):
        got = region_weights(op.phases[0])
        assert set(got) == set(counts)
        # weights are counts rounded to 1/steps of an octave: log2(weight / count) is the same constant for
        # every region up to half a step either way, so its spread is at most one step
        log_ratio = np.array([math.log2(got[r] / counts[r]) for r in counts])
        assert log_ratio.max() - log_ratio.min() <= 1.0 / steps + 1e-9
        for a in counts:  # rounding keeps the order of the counts, and equal counts get equal weights
            for b in counts:
                if counts[a] > counts[b]:
                    assert got[a] >= got[b]
                elif counts[a] == counts[b]:
                    assert got[a] == got[b]


def test_each_phase_has_the_heat_map_of_its_part_of_the_trace():
    rng = np.random.default_rng(7)
    first = {3: 200, 4: 100, 9: 50}
    second = {20: 120, 21: 130, 40: 100}  # 350 requests in each half
    off = np.concatenate([requests_in_regions(first, rng), requests_in_regions(second, rng)])
    model = fit_model(make_trace(off), phases=2)
    assert model.phases == 2
    assert set(region_weights(model.read.phases[0])) == set(first)
    assert set(region_weights(model.read.phases[1])) == set(second)


def test_regions_double_until_the_maps_fit_max_segments():
    # reads in 1 MiB regions 0 and 2 (200 and 300 requests), writes in region 4 (100): three segments at 1 MiB;
    # at 2 MiB reads fall in regions 0 and 1 (two segments, unequal counts) and writes in 2; at 4 MiB reads
    # are all in region 0 and writes in region 1: two segments, the first size with at most 2
    rng = np.random.default_rng(3)
    r_off = requests_in_regions({0: 200, 2: 250}, rng)
    w_off = requests_in_regions({4: 100}, rng)
    off = np.concatenate([r_off, w_off])
    is_write = np.concatenate([np.zeros(r_off.size, bool), np.ones(w_off.size, bool)])
    model = fit_model(make_trace(off, is_write), max_segments=2)
    assert model.region_bytes == 4 * MIB and model.fit["region_bytes_used"] == 4 * MIB
    assert model.levels == int(math.log2(4 * MIB // UNIT))
    assert set(region_weights(model.read.phases[0])) == {0}
    assert set(region_weights(model.write.phases[0])) == {1}
    assert fit_model(make_trace(off, is_write), max_segments=3).region_bytes == MIB


# ---------------------------------------------------------------------------
# re-accesses
# ---------------------------------------------------------------------------

def repeat_trace(n: int, k: int, distance_of) -> tuple[Trace, np.ndarray, np.ndarray]:
    """Request i starts in unit i, except that every k-th one (i % k == k - 1) repeats the start of the
    request ``distance_of(i)`` before it.  Returns the trace, the re-access flags and distances."""
    off = np.arange(n, dtype=np.int64) * UNIT
    reuse = np.zeros(n, dtype=bool)
    dist = np.zeros(n, dtype=np.int64)
    for i in range(n):
        d = distance_of(i)
        if i % k == k - 1 and i >= d:
            off[i] = off[i - d]
            reuse[i], dist[i] = True, d
    return make_trace(off), reuse, dist


def probabilities_after(reuse: np.ndarray) -> tuple[float, float]:
    """Share of re-accesses among requests after a fresh request, and after a re-access (a loop, by
    definition)."""
    counts = {False: [0, 0], True: [0, 0]}
    for prev, cur in zip(reuse[:-1], reuse[1:]):
        counts[bool(prev)][0] += int(cur)
        counts[bool(prev)][1] += 1
    return counts[False][0] / counts[False][1], counts[True][0] / counts[True][1]


@given(k=st.integers(1, 8), d=st.integers(1, 64))
def test_every_kth_request_repeating_the_one_d_before_gives_p_reuse_and_a_distance_table_of_d(k, d):
    n = 1200
    trace, reuse, _ = repeat_trace(n, k, lambda i: d)
    model = fit_model(trace)
    after_fresh, after_reuse = probabilities_after(reuse)
    assert model.read.p_reuse == pytest.approx((after_fresh, after_reuse), abs=1e-12)
    assert np.all(model.read.reuse_distance == d)
    assert model.read.reuse_distance.size == model.fit["distance_knots"] + 1
    assert model.write.p_reuse == (0.0, 0.0)  # no writes at all


@given(k=st.integers(6, 12), d1=st.integers(1, 5), d2=st.integers(1, 5), every=st.integers(2, 4),
       knots=st.sampled_from([8, 100, 128]))
def test_two_distances_fill_the_quantile_table_in_proportion(k, d1, d2, every, knots):
    """Repeats use d1 for one in ``every`` of them and d2 otherwise; d1, d2 < k, so no repeat falls between a
    repeat and the request it repeats and the distance to the latest use is exactly d1 or d2."""
    assume(d1 < d2)
    n = 2400
    trace, reuse, dist = repeat_trace(n, k, lambda i: d1 if (i // k) % every == 0 else d2)
    model = fit_model(trace, distance_knots=knots)
    table = model.read.reuse_distance
    n_all, n_short = int(reuse.sum()), int(np.sum(dist[reuse] == d1))
    # the table is the inverse empirical CDF at p = i / knots: d1 for every p <= n_short / n_all, else d2
    expect_d1 = sum(1 for i in range(knots + 1) if i * n_all <= knots * n_short)
    assert table.size == knots + 1
    assert np.sum(table == d1) == expect_d1 and np.sum(table == d2) == knots + 1 - expect_d1


def test_an_older_repeat_than_the_window_is_fresh():
    # every 4th request repeats the one 40 before it; with a window of 39 requests none is a re-access, and the
    # repeated units count twice in the heat map
    trace, reuse, _ = repeat_trace(1200, 4, lambda i: 40)
    assert fit_model(trace, reuse_window_requests=40).read.p_reuse[0] > 0
    model = fit_model(trace, reuse_window_requests=39)
    assert model.read.p_reuse == (0.0, 0.0) and model.read.reuse_distance.size == 0


# ---------------------------------------------------------------------------
# the op chain
# ---------------------------------------------------------------------------

@settings(max_examples=40)  # 6,000 requests a draw, counted with loops
@given(p_wr=st.floats(0.05, 0.95), p_ww=st.floats(0.05, 0.95), seed=st.integers(0, 2**32 - 1))
def test_op_chain_comes_back_within_binomial_tolerance(p_wr, p_ww, seed):
    n = 6000
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    w = np.zeros(n, dtype=bool)
    w[0] = u[0] < 0.5
    for i in range(1, n):
        w[i] = u[i] < (p_ww if w[i - 1] else p_wr)
    model = fit_model(make_trace(rng.permutation(n) * UNIT, w))
    for prev, p_true, got in ((False, p_wr, model.p_write_after[0]), (True, p_ww, model.p_write_after[1])):
        follows = [int(b) for a, b in zip(w[:-1], w[1:]) if a == prev]
        # the fit is the share of writes after each op, counted here with a loop ...
        assert got == pytest.approx(sum(follows) / len(follows), abs=1e-12)
        # ... and, given how many requests follow that op, a binomial estimate of the chain's probability:
        # 5 standard deviations (a false failure about once in 3.5 million draws)
        assert abs(got - p_true) <= 5 * math.sqrt(p_true * (1 - p_true) / len(follows))
    assert model.p_write_first == pytest.approx(w.mean(), abs=1e-12)


# ---------------------------------------------------------------------------
# the cascade
# ---------------------------------------------------------------------------

@given(levels=st.integers(1, 6), data=st.data())
def test_a_depth_whose_nodes_send_everything_to_their_first_half_has_share_one(levels, data):
    """Only units whose bit for ``depth`` is 0 are used: at that depth every node's second half is empty, so
    the fitted split share is 1 in every heat level (and nowhere else in that depth's distribution); the
    generated trace then never starts in a unit with that bit set."""
    depth = data.draw(st.integers(0, levels - 1), label="depth")
    bit = levels - 1 - depth  # bit of the unit index (within its region) that the split at `depth` decides
    per_region = 1 << levels
    allowed = [u for u in range(per_region) if not (u >> bit) & 1]
    regions = data.draw(st.lists(st.integers(0, 50), min_size=1, max_size=4, unique=True), label="regions")
    units = sorted({r * per_region + data.draw(st.sampled_from(allowed), label="unit")
                    for r in regions for _ in range(3)})
    assume(len(units) >= 2)
    # cycle through the units: no unit repeats within a window of one request, so every request is fresh
    n = max(MIN_REQUESTS, 2 * len(units))
    off = np.resize(np.array(units, dtype=np.int64), n) * UNIT
    region_bytes = UNIT << levels
    model = fit_model(make_trace(off), region_bytes=region_bytes, reuse_window_requests=1)
    assert model.levels == levels
    share_one = model.read.cascade[:, depth, :]
    assert np.all(share_one[:, -1] == 1.0) and np.all(share_one[:, :-1] == 0.0)
    generated = generate_trace(model, 3000, seed=data.draw(st.integers(0, 1000), label="seed"))
    unit_in_region = (generated.offset // UNIT) % per_region
    assert np.all((unit_in_region >> bit) & 1 == 0)
    assert set(np.unique(generated.offset // region_bytes)) <= set(regions)


# ---------------------------------------------------------------------------
# arrivals
# ---------------------------------------------------------------------------

@given(pattern=st.lists(st.integers(0, 10**9), min_size=2, max_size=5, unique=True), n=st.integers(600, 1500))
def test_cycling_gaps_give_one_state_per_gap_and_a_cyclic_chain(pattern, n):
    """Gaps cycle through 2-5 distinct values; each holds 1/len(pattern) >= 1/5 of the gaps, more than the
    1/16 between the fit's state edges, so each value is a state of its own: states in increasing order of
    gap, each with a constant gap table, and a transition matrix that moves along the cycle with
    probability 1."""
    gaps = np.resize(np.array(pattern, dtype=np.int64), n - 1)
    model = fit_model(make_trace(np.random.default_rng(n).permutation(n) * UNIT, gaps=gaps))
    arr = model.arrivals
    ordered = sorted(pattern)
    state = {g: ordered.index(g) for g in pattern}
    assert arr.transition.shape == (len(pattern), len(pattern))
    expect = np.zeros((len(pattern), len(pattern)))
    for a, b in zip(pattern, pattern[1:] + pattern[:1]):
        expect[state[a], state[b]] = 1.0
    assert np.array_equal(arr.transition, expect)
    for g in pattern:
        assert np.all(arr.gap_ns[state[g]] == g)


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

def test_a_trace_shorter_than_min_requests_is_a_model_error_naming_it():
    short = make_trace(np.arange(MIN_REQUESTS - 1) * UNIT, name="tiny-trace")
    with pytest.raises(ModelError, match=r"tiny-trace.*requests.*499"):
        fit_model(short)
    assert fit_model(make_trace(np.arange(MIN_REQUESTS) * UNIT)).source["requests"] == MIN_REQUESTS


BAD_SETTINGS = [
    ("unit_bytes", 1000), ("unit_bytes", 256), ("unit_bytes", 4096.0), ("region_bytes", 4096),
    ("region_bytes", 3 * MIB), ("reuse_window_requests", 0), ("reuse_window_requests", (1 << 24) + 1),
    ("reuse_window_requests", True), ("fresh_retries", -1), ("fresh_retries", 1025), ("phases", 0),
    ("phases", 4097), ("phases", 2.0), ("weight_steps_per_octave", 0), ("weight_steps_per_octave", 65),
    ("max_segments", 0), ("cascade_bins", 1), ("cascade_bins", 1002), ("size_knots", 0), ("distance_knots", 0),
    ("distance_knots", 4097), ("gap_states", 0), ("gap_states", 257), ("gap_knots", 0), ("phases", "2"),
]


@pytest.mark.parametrize("name,value", BAD_SETTINGS)
def test_bad_fit_settings_are_model_errors_naming_the_setting(name, value):
    with pytest.raises(ModelError, match=rf"^fit setting {name}: expected .*\(got {re.escape(repr(value))}\)$"):
        FitSettings(**{name: value})
    trace = make_trace(np.arange(MIN_REQUESTS) * UNIT)
    with pytest.raises(ModelError, match=rf"^fit setting {name}:"):
        fit_model(trace, **{name: value})


def test_the_edges_of_the_fit_settings_ranges_are_accepted():
    FitSettings(unit_bytes=512, region_bytes=1024, reuse_window_requests=1 << 24, fresh_retries=0, phases=4096,
                weight_steps_per_octave=64, max_segments=1, cascade_bins=2, size_knots=1, distance_knots=4096,
                gap_states=256, gap_knots=1)
