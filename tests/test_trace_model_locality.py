"""The workload model's short-range reuse (near requests) and write hot spots (hot units), and the held-out
validation: hand-made traces whose near requests and hot units are known by construction, fitted back
exactly, and traces generated from the fits that keep them within binomial tolerance."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.cli import main
from flashrr.model_validation import HOLDOUT_SPLITS, region_top_share, trace_halves, validate_holdout, validate_model
from flashrr.simulate import resolve_config, simulate
from flashrr.trace.core import Trace
from flashrr.trace.io import read_trace
from flashrr.trace.locality import stack_distances
from flashrr.trace.model import fit_model, generate_trace
from flashrr.trace.model.schema import KIND_NEAR
from pathlib import Path

from trace_helpers import needs_kernel

UNIT = 4096
DATA = Path(__file__).parent / "data"
MSR = DATA / "msr-hm_0-sample.msr.csv.gz"


def make_trace(off, size, is_write) -> Trace:
    n = len(off)
    return Trace(np.arange(n, dtype=np.int64) * 100_000, np.asarray(off, dtype=np.int64),
                 np.asarray(size, dtype=np.int64), np.asarray(is_write, dtype=bool), name="hand")


def page_reads(trace: Trace, page: int = UNIT) -> np.ndarray:
    """The page of every page read, in trace order."""
    r = ~trace.is_write
    first, last = trace.offset[r] // page, (trace.offset[r] + trace.size[r] - 1) // page
    return np.concatenate([np.arange(a, b + 1) for a, b in zip(first, last)])


# ---------------------------------------------------------------------------
# write hot spots
# ---------------------------------------------------------------------------

def hot_write_trace(n: int, weights, sizes, p_hot: float, seed: int, starts=None):
    """Reads and writes alternate at random; a share ``p_hot`` of the writes go to hot unit j (units 1000 +
    7 j) with probability proportional to ``weights[j]``, each with its own size ``sizes[j]``, starting
    ``starts[j]`` bytes into the unit (default 0); every other request starts in a unit of its own, two or
    three units from the previous one of its op (never continuing it, never covering another request's
    start).  Returns the trace and, per request, the hot unit index (-1 for none)."""
    rng = np.random.default_rng(seed)
    w = rng.random(n) < 0.5
    pick = np.where(w & (rng.random(n) < p_hot), rng.choice(len(weights), n, p=np.asarray(weights) / sum(weights)),
                    -1)
    off = np.empty(n, dtype=np.int64)
    size = np.full(n, UNIT, dtype=np.int64)
    hot_units = 1000 + 7 * np.arange(len(weights))
    own = {False: 100_000, True: 500_000}
    for i in range(n):
        if pick[i] >= 0:
            off[i] = hot_units[pick[i]] * UNIT + (0 if starts is None else starts[pick[i]])
            size[i] = sizes[pick[i]]
        else:
            own[bool(w[i])] += 2 + (i % 2)
            off[i] = own[bool(w[i])] * UNIT
    return make_trace(off, size, w), pick, hot_units


@given(weights=st.lists(st.integers(1, 8), min_size=1, max_size=6), p_hot=st.floats(0.2, 0.8),
       seed=st.integers(0, 2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_hot_write_units_are_fitted_exactly_and_generated_within_binomial_tolerance(weights, p_hot, seed):
    n = 4000
    sizes = [UNIT * (1 + j % 3) for j in range(len(weights))]
    trace, pick, hot_units = hot_write_trace(n, weights, sizes, p_hot, seed)
    counts = np.bincount(pick[pick >= 0], minlength=len(weights))
    floor = max(8, math.ceil(int(trace.is_write.sum()) / 4096))
    used = counts >= floor  # a unit written fewer times than that is no hot unit
    model = fit_model(trace, unit_bytes=UNIT)
    w = model.write
    assert list(w.hot_unit) == list(hot_units[used])
    assert list(w.hot_weight) == list(counts[used].astype(float))
    assert list(w.hot_size) == [sizes[j] for j in np.flatnonzero(used)]
    assert w.p_hot == pytest.approx(counts[used].sum() / trace.is_write.sum(), abs=1e-12)
    assert model.read.p_hot == 0.0 and model.read.hot_unit.size == 0  # no read unit repeats
    if not used.any():
        return
    # generated: the share of writes in hot units, and each unit's share of them, within 5 standard deviations
    gen = generate_trace(model, 20_000, seed=seed % 1000)
    gw = gen.is_write
    at = {int(u) * UNIT: j for j, u in enumerate(w.hot_unit)}
    hit = np.array([at.get(int(o), -1) for o in gen.offset[gw]])
    n_w, n_hot = int(gw.sum()), int(np.sum(hit >= 0))
    assert abs(n_hot / n_w - w.p_hot) <= 5 * math.sqrt(w.p_hot * (1 - w.p_hot) / n_w) + 1e-9
    share = w.hot_weight / w.hot_weight.sum()
    got = np.bincount(hit[hit >= 0], minlength=share.size) / max(n_hot, 1)
    assert np.all(np.abs(got - share) <= 5 * np.sqrt(share * (1 - share) / max(n_hot, 1)) + 1e-9)
    # every hot write has its unit's size and starts at the unit's first byte
    sizes_at = dict(zip((w.hot_unit * UNIT).tolist(), w.hot_size.tolist()))
    hot_rows = np.flatnonzero(gw)[hit >= 0]
    assert all(sizes_at[int(gen.offset[i])] == gen.size[i] for i in hot_rows)


@pytest.mark.parametrize("engine", ["reference", pytest.param("compiled", marks=needs_kernel)])
@given(starts=st.lists(st.integers(0, 7), min_size=1, max_size=5), seed=st.integers(0, 1000))
@settings(max_examples=15, deadline=None)
def test_hot_writes_keep_the_byte_of_their_unit_they_start_at(engine, starts, seed):
    # hot unit j's writes all start starts[j] sectors into it (a volume whose writes sit off the 4 KiB grid)
    starts = [512 * x for x in starts]
    trace, pick, hot_units = hot_write_trace(3000, [1] * len(starts), [UNIT] * len(starts), 0.6, seed, starts)
    w = fit_model(trace, unit_bytes=UNIT).write
    assert list(w.hot_unit) == list(hot_units) and list(w.hot_start) == starts
    gen = generate_trace(fit_model(trace, unit_bytes=UNIT), 5000, seed=seed, engine=engine)
    at = {int(u): int(x) for u, x in zip(w.hot_unit, w.hot_start)}
    hot = [int(o) for o in gen.offset[gen.is_write] if int(o) // UNIT in at]
    assert len(hot) > 1000 and all(o % UNIT == at[o // UNIT] for o in hot)


def test_the_most_common_start_of_a_hot_unit_is_its_start_ties_to_the_lower():
    # unit 1000's writes start at byte 1024 three times and 512 twice; unit 1007's at 0 and 2048 four times each
    off = [1000 * UNIT + x for x in (1024, 512, 1024, 512, 1024)] + [1007 * UNIT + x for x in (0, 2048) * 4]
    off = off + [(5000 + 3 * i) * UNIT for i in range(400)]  # reads of their own units, to reach 400 requests
    w = [True] * 13 + [False] * 400
    model = fit_model(make_trace(off, [UNIT] * len(off), w), unit_bytes=UNIT, hot_min_count=5)
    assert list(model.write.hot_unit) == [1000, 1007] and list(model.write.hot_start) == [1024, 0]


def test_hot_units_0_fits_none_and_the_unit_cap_keeps_the_busiest():
    trace, pick, hot_units = hot_write_trace(4000, [8, 4, 2, 1], [UNIT] * 4, 0.6, seed=5)
    assert fit_model(trace, unit_bytes=UNIT, hot_units=0).write.p_hot == 0.0
    counts = np.bincount(pick[pick >= 0])
    busiest = np.argsort(-counts, kind="stable")[:2]
    model = fit_model(trace, unit_bytes=UNIT, hot_units=2)
    assert set(model.write.hot_unit) == set(hot_units[busiest])


# ---------------------------------------------------------------------------
# short-range reuse: near requests
# ---------------------------------------------------------------------------

def near_trace(m: int, d: int, k: int, small: int = 512, gap: int = 0):
    """Reads only, in m groups: ``d`` 16-unit reads at fresh places (64 units apart), then ``d`` reads of
    ``small`` bytes, the j-th ``k + gap`` units past the start of the j-th large read, so ``d`` requests after
    it (a ``gap`` of 0 puts it inside the large read; past 15, beyond its end)."""
    off, size = [], []
    for i in range(m):
        big = [64 * (i * d + j) for j in range(d)]
        off += [u * UNIT for u in big] + [(u + k + gap) * UNIT for u in big]
        size += [16 * UNIT] * d + [small] * d
    return make_trace(off, size, np.zeros(len(off), dtype=bool))


@given(d=st.integers(1, 6), k=st.integers(1, 15), seed=st.integers(0, 1000))
@settings(max_examples=25, deadline=None)
def test_a_small_read_inside_a_recent_large_read_is_near_it_and_comes_back(d, k, seed):
    m = max(1000 // d, 100)
    trace = near_trace(m, d, k)
    model = fit_model(trace, unit_bytes=UNIT, hot_units=0)
    r = model.read
    # every near request is d requests after its target, k of its 16 units into it (margin 0), of its own size
    assert np.all(r.near_distance == d) and np.all(r.near_position == k * 65536 // 16) and np.all(r.size_near == 512)
    assert np.all(model.read.p_reuse == 0.0) and np.all(model.read.p_seq == 0.0)
    # the generated trace re-reads pages at short range as the trace does: every re-read of the trace (one page
    # per small read) is within 128 pages of the previous read of its page, and the model makes as many such
    # re-reads within 25% (its fresh requests may also repeat a unit by chance, mostly farther back)
    gen = generate_trace(model, len(trace), seed=seed)
    short = {}
    for name, t in (("trace", trace), ("model", gen)):
        sd = stack_distances(page_reads(t))
        short[name] = int(np.sum((sd >= 0) & (sd < 128)))
        if name == "trace":
            assert short[name] == int(np.sum(sd >= 0)) == m * d
    assert abs(short["model"] - m * d) <= 0.25 * m * d, short


def off_grid_near_trace(m: int, aligned: bool, seed: int):
    """Reads only, in m groups: two reads of 8-24 units at fresh places 64 units apart, each 3,584 bytes past a
    unit boundary (a volume one sector short of the 4 KiB grid), then a 512-byte read a random whole number of
    units into each of them, or, when not ``aligned``, also a random 1-7 sectors more."""
    rng = np.random.default_rng(seed)
    off, size = [], []
    for i in range(m):
        big = [(64 * (2 * i + j)) * UNIT + 3584 for j in range(2)]
        units = rng.integers(8, 25, 2)
        shift = rng.integers(0, units - 1) * UNIT + (0 if aligned else rng.integers(1, 8, 2) * 512)
        off += big + [b + int(x) for b, x in zip(big, shift)]
        size += [int(u) * UNIT for u in units] + [512] * 2
    return make_trace(off, size, np.zeros(len(off), dtype=bool))


@pytest.mark.parametrize("engine", ["reference", pytest.param("compiled", marks=needs_kernel)])
@pytest.mark.parametrize("seed", [1, 2])
def test_near_reads_a_whole_number_of_units_into_their_target_keep_its_place_in_the_unit(seed, engine):
    trace = off_grid_near_trace(500, True, seed)
    model = fit_model(trace, unit_bytes=UNIT, hot_units=0)
    assert model.read.p_near_aligned == 1.0
    assert fit_model(off_grid_near_trace(500, False, seed), unit_bytes=UNIT, hot_units=0).read.p_near_aligned == 0.0
    # generated from the model, the near reads keep their target's place in the unit (refitted: all of them);
    # the same model with p_near_aligned 0 puts them wherever the position table's interpolation falls
    kept = fit_model(generate_trace(model, len(trace), seed=seed, engine=engine), unit_bytes=UNIT, hot_units=0).read
    loose = fit_model(generate_trace(model.replace(read=dataclasses.replace(model.read, p_near_aligned=0.0)),
                                     len(trace), seed=seed, engine=engine), unit_bytes=UNIT, hot_units=0).read
    assert kept.p_near.max() > 0 and loose.p_near.max() > 0
    assert kept.p_near_aligned == 1.0 and loose.p_near_aligned < 0.5


def test_a_near_margin_makes_a_neighbour_near_and_a_near_window_of_0_makes_nothing_near():
    # the small read starts in the third unit after the 16-unit read's last one: near only with a margin of
    # 3 units or more
    trace = near_trace(200, 2, 15, gap=3)
    assert fit_model(trace, unit_bytes=UNIT, hot_units=0, near_margin_bytes=2 * UNIT).read.p_near.max() == 0.0
    model = fit_model(trace, unit_bytes=UNIT, hot_units=0, near_margin_bytes=3 * UNIT)
    assert model.near_margin_bytes == 3 * UNIT
    # 18 units past the start of the large read plus the 3-unit margin, of its 16 + 2 x 3 widened units
    assert np.all(model.read.near_position == (18 + 3) * 65536 // 22)
    inside = near_trace(200, 2, 5)
    assert fit_model(inside, unit_bytes=UNIT, hot_units=0, near_window_requests=0).read.p_near.max() == 0.0
    assert fit_model(inside, unit_bytes=UNIT, hot_units=0, near_window_requests=1).read.p_near.max() == 0.0
    assert fit_model(inside, unit_bytes=UNIT, hot_units=0, near_window_requests=2).read.p_near.max() > 0.0


# ---------------------------------------------------------------------------
# held-out validation
# ---------------------------------------------------------------------------

def test_trace_halves_split_by_request_count_and_start_each_half_at_0():
    trace = read_trace(MSR)
    first, second = trace_halves(trace)
    assert len(first) == len(trace) // 2 and len(first) + len(second) == len(trace)
    assert first.time_ns[0] == 0 and second.time_ns[0] == 0
    assert (first.name, second.name) == (f"{trace.name} (1st half)", f"{trace.name} (2nd half)")
    assert np.array_equal(second.offset, trace.offset[len(first):])
    assert np.array_equal(second.time_ns, trace.time_ns[len(first):] - trace.time_ns[len(first)])


def test_holdout_validates_each_half_against_a_model_of_the_other():
    cfg = resolve_config("shuffler").replace(rr_threshold_reads=1000)
    spec = f"{MSR}?fold=modulo"
    report = validate_holdout(spec, cfg, ("baseline",), repeat=1, seeds=(1,))
    assert list(report.table.split.unique()) == [label for label, _, _ in HOLDOUT_SPLITS]
    from flashrr.simulate import resolve_source

    halves = trace_halves(resolve_source(spec, cfg).to_trace())
    for label, fitted, checked in HOLDOUT_SPLITS:
        direct = validate_model(halves[checked], fit_model(halves[fitted]), cfg, ("baseline",), repeat=1,
                                seeds=(1,)).table
        got = report.table[report.table.split == label].drop(columns="split").reset_index(drop=True)
        assert got[["metric", "real", "model", "met"]].equals(direct[["metric", "real", "model", "met"]])
        # the reference is the fitted half replayed as it is, judged by the same goals against the half checked
        alone = simulate(cfg, halves[fitted], policy="baseline", repeat=1).summary
        ref = got.set_index("metric")
        for metric in ("rr_count", "read_latency_mean_ns", "cache_read_hit_ratio"):
            assert ref.loc[metric, "reference"] == pytest.approx(float(alone[metric]))
            real = ref.loc[metric, "real"]
            within = abs(ref.loc[metric, "reference"] - real) <= 0.25 * abs(real) + 1e-12
            assert ref.loc[metric, "reference_met"] is bool(within)
        assert ref.loc["region_top10_share", "reference"] == pytest.approx(
            region_top_share(halves[fitted], cfg.geometry.page_size_bytes))
    assert "fit 2nd half, check 1st: policy baseline" in report.text()
    assert "fitted half" in report.text()


def test_holdout_reference_meets_every_goal_when_the_halves_are_the_same():
    """A trace that is one sequence of requests twice: each half stands in for the other exactly, so the
    reference (the fitted half) meets every goal whatever the model does."""
    rng = np.random.default_rng(5)
    n = 400
    off = rng.integers(0, 4096, n) * 8192
    size = rng.choice([8192, 16384, 65536], n)
    w = rng.random(n) < 0.3
    half = make_trace(off, size, w)
    trace = Trace(np.concatenate([half.time_ns, half.time_ns + half.time_ns[-1] + 100_000]),
                  np.concatenate([off, off]), np.concatenate([size, size]), np.concatenate([w, w]), name="twice")
    cfg = resolve_config("shuffler").replace(rr_threshold_reads=50, capacity_bytes=0)  # every read reaches flash
    report = validate_holdout(trace, cfg, ("baseline",), repeat=4, seeds=(1,))
    goals = report.table[report.table.goal.notna()]
    assert len(goals) == 2 * 5
    assert (goals.reference == goals.real).all()
    assert all(v is True for v in goals.reference_met)
    assert (goals[goals.metric == "rr_count"].real > 0).all()  # the halves reclaim, so the RR goal is a test


def test_validate_holdout_on_the_command_line(tmp_path):
    runner = CliRunner()
    spec = f"{MSR}?fold=modulo"
    result = runner.invoke(main, ["trace", "validate", spec, "--holdout", "--repeat", "1", "--seeds", "1",
                                  "-p", "rr_threshold_reads=1000", "--json"])
    assert result.exit_code == 0, result.output
    import json

    rows = json.loads(result.stdout)
    assert {r["split"] for r in rows} == {label for label, _, _ in HOLDOUT_SPLITS}
    result = runner.invoke(main, ["trace", "validate", spec, "--holdout", "--model", str(tmp_path / "m.toml")])
    assert result.exit_code == 2 and "--holdout fits its own models" in result.output
