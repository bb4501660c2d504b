"""``fit_model`` recovers structure built into hand-made traces.

Every trace here is made in the test so that what the fit must find is known
by construction: the regions reads and writes go to and how often, the
requests that repeat an earlier start and at what distance, the op chain, a
cascade split that is always 1 at one depth, gap sequences that cycle through
a few values, runs of sequential requests of known lengths that start in
regions of their own, re-accesses that follow writes, requests that cover the
first unit of the next one, and parts of a trace with op chains and gap
patterns of their own (time phases).  The probabilities
that depend on the kind of the previous request of the same op (``p_reuse``,
``p_seq``) are checked against loop counts over the classes the test gave its
requests.  Requests are 512 bytes long and start on a unit boundary unless the
test says otherwise, so no request starts where another one ended (none is a
sequential continuation) and, with distinct units, none is a re-access: every
request is fresh.
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
from flashrr.trace.model.fit import start_alignment
from flashrr.trace.model.schema import KIND_HEAD, KIND_REUSE, KIND_RUN, KINDS, SIZE_LEVELS
from trace_helpers import (HEAD_BYTES, MIB, REGION_UNITS, RUN_STEP_BYTES, SINGLE_BYTES, UNIT, make_trace, run_bucket,
                           runs_trace)

UNITS_PER_MIB = MIB // UNIT
#: Fit settings that leave the main streams alone: 4 KiB units whatever the alignment of the hand-made starts,
#: no hot units and no near requests (the tests of those are in test_trace_model_locality.py).
MAIN_ONLY = {"unit_bytes": UNIT, "hot_units": 0, "near_window_requests": 0}


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
        assert op.heads is None and op.p_head == 0.0  # no request continues another: no run heads
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


def region_levels(heat_map) -> dict:
    """Region -> heat level of every region a heat map covers."""
    return {r: int(lv) for s, n, lv in zip(heat_map.start, heat_map.length, heat_map.level)
            for r in range(int(s), int(s) + int(n))}


def expected_by_kind(is_write, kinds, event, eligible=None) -> dict:
    """``{op: KINDS probabilities}`` counted with a loop: every request of an op but its first, if eligible,
    counts its event under the kind of the previous request of the same op (``kinds[i]``, an index of
    schema.KINDS); a kind that no eligible request follows takes the op's share over all of them."""
    out = {}
    for op in (False, True):
        hits, seen = [0] * KINDS, [0] * KINDS
        prev = None
        for i in range(len(kinds)):
            if bool(is_write[i]) != op:
                continue
            if prev is not None and (eligible is None or eligible[i]):
                hits[kinds[prev]] += int(event[i])
                seen[kinds[prev]] += 1
            prev = i
        overall = sum(hits) / sum(seen) if sum(seen) else 0.0
        out[op] = np.array([hits[k] / seen[k] if seen[k] else overall for k in range(KINDS)])
    return out


@given(k=st.integers(1, 8), d=st.integers(1, 64))
def test_every_kth_request_repeating_the_one_d_before_gives_p_reuse_and_a_distance_table_of_d(k, d):
    """The 1,200 units of the trace lie in one 8 MiB region, so every fresh request has one heat level h:
    p_reuse[h] is the share of re-accesses after a fresh request, p_reuse[KIND_REUSE] after a re-access, and
    every other kind (no request follows one) the share over all reads."""
    n = 1200
    trace, reuse, _ = repeat_trace(n, k, lambda i: d)
    model = fit_model(trace, region_bytes=8 * MIB, **MAIN_ONLY)
    levels = set(region_levels(model.read.phases[0]).values())
    assert len(levels) == 1
    level = levels.pop()
    kinds = [KIND_REUSE if r else level for r in reuse]
    expect = expected_by_kind(np.zeros(n, bool), kinds, reuse)[False]
    assert model.read.p_reuse == pytest.approx(expect, abs=1e-12)
    assert model.read.p_reuse_write == 0.0  # every target is a read, d reads back
    assert np.all(model.read.reuse_distance_read == d)
    assert model.read.reuse_distance_read.size == model.fit["distance_knots"] + 1
    assert model.read.reuse_distance_write.size == 0
    assert np.all(model.write.p_reuse == 0.0)  # no writes at all


@given(k=st.integers(6, 12), d1=st.integers(1, 5), d2=st.integers(1, 5), every=st.integers(2, 4),
       knots=st.sampled_from([8, 100, 128]))
def test_two_distances_fill_the_quantile_table_in_proportion(k, d1, d2, every, knots):
    """Repeats use d1 for one in ``every`` of them and d2 otherwise; d1, d2 < k, so no repeat falls between a
    repeat and the request it repeats and the distance to the latest use is exactly d1 or d2."""
    assume(d1 < d2)
    n = 2400
    trace, reuse, dist = repeat_trace(n, k, lambda i: d1 if (i // k) % every == 0 else d2)
    model = fit_model(trace, distance_knots=knots)
    table = model.read.reuse_distance_read
    n_all, n_short = int(reuse.sum()), int(np.sum(dist[reuse] == d1))
    # the table is the inverse empirical CDF at p = i / knots: d1 for every p <= n_short / n_all, else d2
    expect_d1 = sum(1 for i in range(knots + 1) if i * n_all <= knots * n_short)
    assert table.size == knots + 1
    assert np.sum(table == d1) == expect_d1 and np.sum(table == d2) == knots + 1 - expect_d1


def test_an_older_repeat_than_the_window_is_fresh():
    # every 4th request repeats the one 40 before it; with a window of 39 requests none is a re-access, and the
    # repeated units count twice in the heat map
    trace, reuse, _ = repeat_trace(1200, 4, lambda i: 40)
    assert fit_model(trace, reuse_window_requests=40, overlap_window_requests=40, **MAIN_ONLY).read.p_reuse.max() > 0
    model = fit_model(trace, reuse_window_requests=39, overlap_window_requests=39, **MAIN_ONLY)
    assert np.all(model.read.p_reuse == 0.0) and model.read.reuse_distance_read.size == 0


@given(d=st.integers(1, 12), gap=st.integers(0, 3))
def test_reads_of_writes_count_their_distance_in_writes(d, gap):
    """Writes to fresh units, each followed by ``gap`` fresh reads and one read that repeats the start of the
    write d writes back (fresh while fewer writes came before): every re-access is a read of a write, d
    writes back however many reads lie between, and no write re-accesses."""
    off, is_write, fresh = [], [], 0
    writes = []
    for _ in range(300):
        writes.append(fresh * UNIT)
        off.append(fresh * UNIT)
        is_write.append(True)
        fresh += 1
        for _ in range(gap):
            off.append(fresh * UNIT)
            is_write.append(False)
            fresh += 1
        off.append(writes[-d] if len(writes) >= d else fresh * UNIT)
        fresh += len(writes) < d
        is_write.append(False)
    trace = make_trace(np.array(off, dtype=np.int64), np.array(is_write))
    model = fit_model(trace)
    assert model.read.p_reuse_write == 1.0
    assert np.all(model.read.reuse_distance_write == d) and model.read.reuse_distance_read.size == 0
    assert np.all(model.write.p_reuse == 0.0)


HOT_UNITS = 8


def rewrite_trace(order) -> tuple[Trace, np.ndarray]:
    """Writes and reads of 4 KiB at the start of their unit, in 4 MiB regions (1,024 units): first HOT_UNITS
    fresh writes to the even units 0, 2, ... of region 5, then one block per entry of ``order``: True is a
    write that rewrites the next hot unit (in turn) and a read of that unit right after it, both
    re-accesses; False is a read of an even unit of region 0 of its own (fresh).  Even units only: no request
    starts where another ended.  Returns the trace and the re-access flags."""
    hot = [(5 * 1024 + 2 * j) * UNIT for j in range(HOT_UNITS)]
    off, w, reuse = list(hot), [True] * HOT_UNITS, [False] * HOT_UNITS
    n_rewrites = n_fresh = 0
    for rewrite in order:
        if rewrite:
            unit = hot[n_rewrites % HOT_UNITS]
            off += [unit, unit]
            w += [True, False]
            reuse += [True, True]
            n_rewrites += 1
        else:
            off.append(2 * n_fresh * UNIT)
            w.append(False)
            reuse.append(False)
            n_fresh += 1
    return make_trace(off, w, size=UNIT), np.array(reuse)


def only_level(heat_map) -> int:
    levels = set(region_levels(heat_map).values())
    assert len(levels) == 1
    return levels.pop()


@given(p_rewrite=st.floats(0.2, 0.8), length=st.integers(400, 500), seed=st.integers(0, 2**32 - 1))
def test_p_reuse_depends_on_the_previous_request_of_the_same_op(p_rewrite, length, seed):
    """Read re-accesses here only ever follow a write re-access.  Conditioned on the previous request of any
    op, a read after a rewrite would look like a re-access after a re-access; conditioned on the previous
    read, as the fit must, the counts are those of the read sequence alone."""
    order = list(np.random.default_rng(seed).random(length) < p_rewrite)
    trace, reuse = rewrite_trace(order)
    assume(len(trace) >= MIN_REQUESTS)
    model = fit_model(trace, region_bytes=4 * MIB, **MAIN_ONLY)
    # every fresh read is in region 0 and every fresh write in region 5: one heat level per op
    level = {False: only_level(model.read.phases[0]), True: only_level(model.write.phases[0])}
    kinds = [KIND_REUSE if r else level[bool(w)] for r, w in zip(reuse, trace.is_write)]
    expect = expected_by_kind(trace.is_write, kinds, reuse)
    assert model.read.p_reuse == pytest.approx(expect[False], abs=1e-12)
    assert model.write.p_reuse == pytest.approx(expect[True], abs=1e-12)
    assert np.all(model.read.p_seq == 0.0) and np.all(model.write.p_seq == 0.0)


def test_alternating_rewrites_and_fresh_reads_give_read_p_reuse_0_after_a_read_reaccess():
    """Blocks alternate: a rewrite and its read, then a fresh read.  Counted by hand over the reads (a
    re-access, a fresh read, a re-access, ...; 500 of them): after a read re-access the next read is always
    fresh (0), after a fresh read always a re-access (1), and every other kind takes the share over the 499
    reads after the first, 249 of them re-accesses.  Writes: 8 fresh ones, then 250 rewrites; after a fresh
    write 1 of the 8 next writes is a rewrite, after a rewrite all are, and 250 of the 257 writes after the
    first are rewrites."""
    trace, _ = rewrite_trace([True, False] * 250)
    model = fit_model(trace, region_bytes=4 * MIB, **MAIN_ONLY)
    read_level, write_level = only_level(model.read.phases[0]), only_level(model.write.phases[0])
    assert model.read.p_reuse[KIND_REUSE] == 0.0 and model.read.p_reuse[read_level] == 1.0
    others = [k for k in range(KINDS) if k not in (KIND_REUSE, read_level)]
    assert model.read.p_reuse[others] == pytest.approx(np.full(len(others), 249 / 499), abs=1e-15)
    assert model.write.p_reuse[KIND_REUSE] == 1.0 and model.write.p_reuse[write_level] == 1 / 8
    others = [k for k in range(KINDS) if k not in (KIND_REUSE, write_level)]
    assert model.write.p_reuse[others] == pytest.approx(np.full(len(others), 250 / 257), abs=1e-15)


# ---------------------------------------------------------------------------
# sequential runs and their heads
# ---------------------------------------------------------------------------

def run_kinds(classes, singles_map) -> list:
    """The kind index of each request, from its class (a single's is the heat level of its region)."""
    level = region_levels(singles_map)
    out = []
    for c, off in classes:
        if c == "head":
            out.append(KIND_HEAD)
        elif c in ("single", "write"):
            out.append(level.get(off // MIB, 0))
        else:
            out.append(KIND_RUN + run_bucket(c))
    return out


runs_of = st.lists(st.integers(1, 40), min_size=1, max_size=12)


@settings(max_examples=60)
@given(lengths=runs_of, long=st.sampled_from([0, 520, 1100]),
       singles=st.dictionaries(st.integers(0, 20), st.integers(1, REGION_UNITS // 2), min_size=1, max_size=4),
       n_writes=st.integers(0, 300), seed=st.integers(0, 2**32 - 1))
def test_runs_of_known_lengths_give_run_heads_their_own_places_and_p_seq_by_run_length(
        lengths, long, singles, n_writes, seed):
    """Runs of drawn lengths (one of 520 or 1,100 continuations reaches the last run-length buckets) among
    single reads, with writes in between.  What the fit must find, by construction: the run heads' heat map
    covers exactly the regions runs start in, and the other fresh reads' map exactly the single reads'
    regions; p_head is the share of heads among fresh reads; the heads' sizes, the continuations' and the
    single reads' come back as the constants they are; p_seq after a head is 1 and after a single read 0,
    and per run-length bucket it is the share of continuations that another continuation follows, counted
    with a loop over the reads (writes in between do not break a read run: the previous request that
    counts is the previous read)."""
    lengths = lengths + ([long] if long else [])
    n_reads = len(lengths) + sum(lengths) + sum(singles.values())
    trace, classes, head_regions = runs_trace(lengths, singles, max(n_writes, MIN_REQUESTS - n_reads), seed)
    model = fit_model(trace)
    assert model.region_bytes == MIB
    read = model.read
    assert set(region_weights(read.heads.phases[0])) == head_regions
    single_regions = {int(o) // MIB for o, c in zip(trace.offset, classes) if c == "single"}
    assert set(region_weights(read.phases[0])) == single_regions
    assert not head_regions & single_regions
    assert read.p_head == pytest.approx(len(lengths) / (len(lengths) + sum(singles.values())), abs=1e-12)
    assert model.write.heads is None and model.write.p_head == 0.0
    assert np.all(read.size_seq == RUN_STEP_BYTES)
    head_levels = set(region_levels(read.heads.phases[0]).values())
    single_levels = set(region_levels(read.phases[0]).values())
    for lv in range(SIZE_LEVELS):  # a level no region of a map has keeps an empty size table
        assert np.all(read.heads.size_by_level[lv] == HEAD_BYTES) and (read.heads.size_by_level[lv].size > 0) \
            == (lv in head_levels)
        assert np.all(read.size_by_level[lv] == SINGLE_BYTES) and (read.size_by_level[lv].size > 0) \
            == (lv in single_levels)
    assert read.p_seq[KIND_HEAD] == 1.0  # by hand: every head is followed by a continuation
    kinds = run_kinds(list(zip(classes, trace.offset.tolist())), read.phases[0])
    is_run = [not isinstance(c, str) for c in classes]
    expect = expected_by_kind(trace.is_write, kinds, is_run)
    assert read.p_seq == pytest.approx(expect[False], abs=1e-12)
    assert np.all(model.write.p_seq == 0.0)
    assert np.all(read.p_reuse == 0.0) and np.all(model.write.p_reuse == 0.0)


def test_run_length_buckets_counted_by_hand():
    """Runs of 1, 2, 3 and 4 continuations (20 of each, in turn) among 500 single reads.  The j-th
    continuation of a run is in bucket floor(log2 j): bucket 0 holds the first continuation of each of the
    80 runs, of which the 60 runs longer than 1 go on; bucket 1 the second continuations of the 60 runs
    longer than 1 and the third of the 40 longer than 2 (100), of which 40 + 20 go on; bucket 2 the fourth
    continuations of the 20 4-runs, none of which goes on."""
    trace, _, _ = runs_trace([1, 2, 3, 4] * 20, {0: 125, 1: 125, 2: 125, 3: 125}, 0, seed=5)
    model = fit_model(trace)
    p_seq = model.read.p_seq
    assert p_seq[KIND_RUN] == pytest.approx(60 / 80, abs=1e-15)
    assert p_seq[KIND_RUN + 1] == pytest.approx(60 / 100, abs=1e-15)
    assert p_seq[KIND_RUN + 2] == 0.0
    assert p_seq[KIND_HEAD] == 1.0
    # no single read is followed by a continuation; each heat level of their map has 125 or more of them
    levels = set(region_levels(model.read.phases[0]).values())
    assert levels and all(p_seq[lv] == 0.0 for lv in levels)


@given(p_big=st.floats(0.0, 1.0), n=st.integers(MIN_REQUESTS, 900), window=st.integers(1, 64),
       seed=st.integers(0, 2**32 - 1))
def test_q_overlap_is_the_share_of_fresh_requests_covering_a_unit_the_window_covered(p_big, n, window, seed):
    """Request i starts at unit 3i, one unit long or, for some, four units long (then it covers unit 3i + 3,
    the first unit of request i + 1).  Start units are distinct and no request starts where another ended,
    so all are fresh; request i covers a unit an earlier request covered exactly when request i - 1 is a
    long one (requests further back end at unit 3i - 3 or below), whatever the overlap window.  q_overlap is
    then the share of requests after a long one, counted with a loop."""
    big = np.random.default_rng(seed).random(n) < p_big
    trace = make_trace(np.arange(n) * 3 * UNIT, size=np.where(big, 4 * UNIT, UNIT))
    model = fit_model(trace, reuse_window_requests=window, overlap_window_requests=window, **MAIN_ONLY)
    assert np.all(model.read.p_seq == 0) and np.all(model.read.p_reuse == 0)
    after_big = sum(1 for i in range(1, n) if big[i - 1])
    assert model.read.q_overlap == pytest.approx(after_big / n, abs=1e-12)


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
    model = fit_model(make_trace(off), region_bytes=region_bytes, reuse_window_requests=1,
                      overlap_window_requests=1, **MAIN_ONLY)
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
    probability 1.  The first state is that of the first gap, so a generated trace replays the gaps of the
    trace exactly: request 1 takes its gap from the first state, each later one moves along the cycle, and
    an integer gap comes back as itself (rounded to the nearest ns, not down)."""
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
    assert arr.first_state == state[pattern[0]]
    generated = generate_trace(model, 2 * n, seed=n)
    assert generated.time_ns[0] == 0
    assert np.array_equal(np.diff(generated.time_ns), np.resize(np.array(pattern, dtype=np.int64), 2 * n - 1))


def test_each_time_phase_has_the_op_chain_and_gap_transitions_of_its_part():
    """8,000 requests: four time phases of 2,000 (the fit keeps one per 2,000 requests, up to
    ``time_phases``).  Each part has its own op chain (writes after a read / after a write with the
    probabilities of the part) and its own gap pattern over two gaps, 100 ns and 10 us (one state each):
    alternating in parts 0 and 2, in pairs (100, 100, 10000, 10000, ...) in parts 1 and 3.  Expected values
    are loop counts over the part's requests: the write share after each op, and the moves between the
    states of requests i - 1 and i for the part's requests i >= 2 (request i's state is that of the gap
    before it), rows normalised."""
    n, parts = 8000, 4
    rng = np.random.default_rng(11)
    chains = [(0.1, 0.9), (0.5, 0.5), (0.9, 0.2), (0.3, 0.3)]
    w = np.zeros(n, dtype=bool)
    for i in range(1, n):
        after_read, after_write = chains[i * parts // n]
        w[i] = rng.random() < (after_write if w[i - 1] else after_read)
    short, long = 100, 10_000
    pattern = {0: [short, long], 1: [short, short, long, long]}
    gaps = np.array([pattern[(i * parts // n) % 2][i % len(pattern[(i * parts // n) % 2])] for i in range(1, n)])
    model = fit_model(make_trace(rng.permutation(n) * UNIT, w, gaps=gaps))
    assert len(model.time_phases) == parts
    assert model.arrivals.transition.shape == (2, 2)
    state = [0] + [0 if g == short else 1 for g in gaps]  # request i's state; request 0 has none of its own
    for k, phase in enumerate(model.time_phases):
        a, b = k * n // parts, (k + 1) * n // parts
        for op in (0, 1):
            follows = [int(w[i + 1]) for i in range(a, b - 1) if int(w[i]) == op]
            assert phase.p_write_after[op] == pytest.approx(sum(follows) / len(follows), abs=1e-12)
        moves = np.zeros((2, 2))
        for i in range(max(a, 2), b):
            moves[state[i - 1], state[i]] += 1
        assert np.allclose(phase.transition, moves / moves.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)
    # the whole trace's chain is still the one over all requests
    follows = [int(w[i + 1]) for i in range(n - 1) if not w[i]]
    assert model.p_write_after[0] == pytest.approx(sum(follows) / len(follows), abs=1e-12)


def test_a_trace_of_fewer_than_two_parts_of_2000_requests_has_no_time_phases():
    assert fit_model(make_trace(np.arange(3999) * UNIT)).time_phases == ()
    assert len(fit_model(make_trace(np.arange(4000) * UNIT)).time_phases) == 2
    assert len(fit_model(make_trace(np.arange(8000) * UNIT), time_phases=3).time_phases) == 3
    assert fit_model(make_trace(np.arange(8000) * UNIT), time_phases=1).time_phases == ()


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

def test_a_trace_shorter_than_min_requests_is_a_model_error_naming_it():
    short = make_trace(np.arange(MIN_REQUESTS - 1) * UNIT, name="tiny-trace")
    with pytest.raises(ModelError, match=rf"tiny-trace.*requests.*{MIN_REQUESTS - 1}"):
        fit_model(short)
    assert fit_model(make_trace(np.arange(MIN_REQUESTS) * UNIT)).source["requests"] == MIN_REQUESTS


BAD_SETTINGS = [
    ("unit_bytes", 1000), ("unit_bytes", 256), ("unit_bytes", 4096.0), ("region_bytes", 4096),
    ("region_bytes", 3 * MIB), ("reuse_window_requests", 0), ("reuse_window_requests", (1 << 24) + 1),
    ("reuse_window_requests", True), ("fresh_retries", -1), ("fresh_retries", 1025), ("phases", 0),
    ("phases", 4097), ("phases", 2.0), ("weight_steps_per_octave", 0), ("weight_steps_per_octave", 65),
    ("overlap_window_requests", 0), ("overlap_window_requests", (1 << 24) + 1), ("time_phases", 0),
    ("time_phases", 4097),
    ("max_segments", 0), ("cascade_bins", 1), ("cascade_bins", 1002), ("size_knots", 0), ("distance_knots", 0),
    ("distance_knots", 4097), ("gap_states", 0), ("gap_states", 257), ("gap_knots", 0), ("phases", "2"),
    ("fresh_avoids_near", 1), ("fresh_avoids_near", "false"),
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
                overlap_window_requests=1 << 24, time_phases=4096, weight_steps_per_octave=64, max_segments=1,
                cascade_bins=2, size_knots=1, distance_knots=4096, gap_states=256, gap_knots=1)
    FitSettings(reuse_window_requests=1, overlap_window_requests=1)


def test_an_overlap_window_above_the_reuse_window_counts_as_the_reuse_window():
    trace = Trace(np.arange(600) * 1000, np.arange(600) * 4096, np.full(600, 4096), np.zeros(600, dtype=bool))
    assert fit_model(trace, reuse_window_requests=100, overlap_window_requests=101).overlap_window_requests == 100
    assert fit_model(trace, reuse_window_requests=100, overlap_window_requests=40).overlap_window_requests == 40


# ---------------------------------------------------------------------------
# start alignment
# ---------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.integers(9, 16), st.integers(0, 2**31 - 1))
def test_start_alignment_is_the_largest_power_of_two_nearly_every_start_shares(log2_align, seed):
    align = 1 << log2_align
    rng = np.random.default_rng(seed)
    # odd multiples and random multiples of align: about half are multiples of 2 align, so align is the answer
    k = np.concatenate([2 * rng.integers(0, 1 << 20, 600) + 1, rng.integers(0, 1 << 20, 1400)])
    assert start_alignment(make_trace(k * align)) == align
    # one start off the grid in 1,000 (at 512 B) is tolerated, two are not
    one_off = np.full(1000, 2 * align, dtype=np.int64)
    one_off[0] = 512
    assert start_alignment(make_trace(one_off.copy())) >= 2 * align
    one_off[1] = 512
    assert start_alignment(make_trace(one_off.copy())) == 512


def test_start_alignment_of_the_web_search_sample_is_its_8_kib_page():
    from pathlib import Path

    from flashrr.trace.io import read_trace

    trace = read_trace(Path(__file__).parent / "data" / "wsrch-small.mqsim.txt", cache=False)
    assert start_alignment(trace) == 8192 and np.all(np.asarray(trace.offset) % 8192 == 0)


def test_fresh_requests_avoid_the_near_window_the_fit_calls_fresh_by():
    """A request is fresh in the fit only when it is near none of the last near_window_requests requests, so
    the model's fresh requests avoid the units those covered: its window is the near window (capped at the
    re-access window), and 0 when near requests are off or the setting is False."""
    trace = Trace(np.arange(600) * 1000, np.arange(600) * 4096, np.full(600, 4096), np.zeros(600, dtype=bool))
    assert fit_model(trace, reuse_window_requests=100).fresh_avoid_window_requests == 100
    assert fit_model(trace, reuse_window_requests=100, near_window_requests=30).fresh_avoid_window_requests == 30
    assert fit_model(trace, near_window_requests=0).fresh_avoid_window_requests == 0
    assert fit_model(trace, fresh_avoids_near=False).fresh_avoid_window_requests == 0


def test_fit_settings_from_key_value_strings():
    from flashrr.trace.model.fit import fit_settings_from

    s = fit_settings_from(["fresh_avoids_near=False", "near_window_requests=30", "hot_min_share=0.5"])
    assert (s.fresh_avoids_near, s.near_window_requests, s.hot_min_share) == (False, 30, 0.5)
    assert fit_settings_from([]) == FitSettings()
    with pytest.raises(ModelError, match="'near_window_requests': expected KEY=VALUE"):
        fit_settings_from(["near_window_requests"])
    with pytest.raises(ModelError, match="no_such_setting: unknown"):
        fit_settings_from(["no_such_setting=1"])
    with pytest.raises(ModelError, match="fit setting fresh_avoids_near: expected True or False"):
        fit_settings_from(["fresh_avoids_near=yes"])
