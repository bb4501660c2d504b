"""The ten assembly methods: the paper's Figs. 10-11 example, window semantics,
brute-force references and the partition invariant."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.pv import METHODS, Latencies, assemble, superblock_extras
from flashrr.pv.assembly import qstr_select

# Fig. 10: the head and tail of each plane's sorted list (block id: BLK PGM LTN, µs).
FIG10 = [
    [(688, 639_366.8), (228, 639_566.9), (1136, 639_710.2), (188, 640_488.5), (1200, 640_873.1),
     (868, 650_124.9), (544, 650_135.5), (464, 651_125.1), (456, 651_912.7)],
    [(733, 639_290.1), (349, 639_725.6), (237, 639_855.4), (365, 639_909.0), (1089, 640_024.6),
     (85, 649_708.9), (9, 649_783.0), (1541, 650_036.7), (1537, 650_067.6)],
    [(678, 642_081.5), (1130, 642_362.3), (1146, 643_192.4), (190, 644_009.1), (1150, 644_021.1),
     (1530, 654_378.4), (482, 654_378.4), (1378, 654_594.9), (902, 655_083.4)],
    [(227, 639_670.5), (1147, 640_622.8), (727, 641_214.7), (1019, 641_636.0), (723, 641_833.8),
     (151, 652_040.6), (771, 652_090.1), (539, 652_275.7), (543, 652_566.4)],
]
# Fig. 11: distances of the candidates to the fixed block 733 (1130's is unreadable in the text).
FIG11 = {688: 206, 228: 208, 1136: 212, 188: 94, 678: 206, 1146: 84, 190: 86, 227: 90, 1147: 92, 727: 182,
         1019: 90}


def _fig10_pools():
    return [[b for b, _ in plane] for plane in FIG10], {b: s for plane in FIG10 for b, s in plane}


@pytest.mark.parametrize("d1130", [85, 150, 206, 384])
def test_fig10_11_fast_superblock(d1130):
    pools, sums = _fig10_pools()
    dist = {**FIG11, 1130: d1130}
    seen = []

    def distance(p, anchor, q, cands):
        seen.append(anchor)
        return [dist[c] for c in cands]

    chosen, checks = qstr_select(pools, lambda p, b: sums[b], distance, window=4, slow=False)
    assert chosen == [188, 733, 1146, 227]  # 227 and 1019 tie at 90: the first in the list wins
    assert checks == 12 and set(seen) == {733}
    assert 733 not in pools[1] and 188 not in pools[0] and 1019 in pools[3]


def test_fig10_slow_anchor_is_902():
    pools, sums = _fig10_pools()
    anchors = []

    def distance(p, anchor, q, cands):
        anchors.append((p, anchor))
        assert cands == pools[q][::-1][:4]  # the slowest four, slowest first
        return [0] * len(cands)

    chosen, checks = qstr_select(pools, lambda p, b: sums[b], distance, window=4, slow=True)
    assert set(anchors) == {(2, 902)} and chosen[2] == 902 and checks == 12
    assert chosen == [456, 1537, 902, 543]  # all-zero distances: the first (slowest) candidate


def _random_latencies(rng, dies=1, planes=4, blocks=12, layers=6, strings=4, grid=True):
    tp = 1600 + 6.0 * rng.integers(0, 40, size=(dies, planes, blocks, layers, strings))
    if not grid:
        tp = tp + rng.normal(0, 1, tp.shape)
    te = 3500 + rng.normal(0, 20, (dies, planes, blocks))
    return Latencies(tp, te)


def _is_partition(members, blocks):
    return all(sorted(members[d][:, p].tolist()) == list(range(blocks))
               for d in range(members.shape[0]) for p in range(members.shape[2]))


@settings(max_examples=25)
@given(seed=st.integers(0, 2 ** 32 - 1), planes=st.integers(2, 4), blocks=st.integers(1, 9),
       method=st.sampled_from(sorted(METHODS)), window=st.integers(1, 5))
def test_every_method_partitions_the_blocks(seed, planes, blocks, method, window):
    lat = _random_latencies(np.random.default_rng(seed), dies=2, planes=planes, blocks=blocks, layers=3)
    kw = {"window": window} if "window" in METHODS[method].defaults else {}
    asm = assemble(method, lat, seed=seed, **kw)
    assert asm.members.shape == (2, blocks, planes)
    assert _is_partition(asm.members, blocks)
    assert (asm.checks >= 0).all()


def test_random_is_seeded_and_matches_the_range_of_four_normals():
    rng = np.random.default_rng(3)
    tp = np.full((50, 4, 400, 1, 4), 1600.0)
    lat = Latencies(tp, 3500 + 10.0 * rng.standard_normal((50, 4, 400)))
    a, b = assemble("random", lat, seed=5), assemble("random", lat, seed=5)
    assert np.array_equal(a.members, b.members)
    assert not np.array_equal(a.members, assemble("random", lat, seed=6).members)
    _, ers = superblock_extras(lat, a)
    # the expected range of 4 iid standard normals is 2.0588 (tabulated d2 constant)
    assert ers.mean() == pytest.approx(2.0588 * 10.0, rel=0.03)


def test_sequential_takes_the_same_index_and_identical_planes_give_zero():
    rng = np.random.default_rng(4)
    one = 1600 + rng.normal(0, 10, (1, 1, 7, 3, 4))
    lat = Latencies(np.repeat(one, 4, axis=1), np.repeat(3500 + rng.normal(0, 9, (1, 1, 7)), 4, axis=1))
    asm = assemble("sequential", lat)
    assert asm.members[0].tolist() == [[j] * 4 for j in range(7)]
    pgm, ers = superblock_extras(lat, asm)
    assert np.allclose(pgm, 0) and np.allclose(ers, 0)


@pytest.mark.parametrize("method,key", [("ers_ltn", "ers"), ("pgm_ltn", "pgm")])
def test_sorted_methods_take_order_statistics_and_are_optimal_for_two_planes(method, key):
    rng = np.random.default_rng(5)
    lat = _random_latencies(rng, planes=2, blocks=6, grid=False)
    asm = assemble(method, lat)
    value = lat.tbers_us[0] if key == "ers" else lat.tprog_us[0].sum(axis=(-2, -1))
    for p in range(2):
        assert value[p][asm.members[0][:, p]].tolist() == sorted(value[p].tolist())
    # matching sorted lists minimises the total |difference| over all matchings (brute force)
    a, b = value[0], value[1]
    best = min(sum(abs(a[i] - b[j]) for i, j in enumerate(perm)) for perm in itertools.permutations(range(6)))
    got = sum(abs(value[0][i] - value[1][j]) for i, j in asm.members[0])
    assert got == pytest.approx(best)


def _extra(lwl, combo):
    rows = np.array([lwl[p][b] for p, b in enumerate(combo)])
    return float((rows.max(axis=0) - rows.min(axis=0)).sum())


def test_optimal_first_superblock_is_the_exhaustive_best():
    lat = _random_latencies(np.random.default_rng(6), planes=3, blocks=4, layers=5, grid=False)
    lwl = lat.lwl()[0]
    best = min(itertools.product(range(4), repeat=3), key=lambda c: _extra(lwl, c))
    asm = assemble("optimal", lat, window=8)
    assert tuple(asm.members[0, 0]) == best
    assert asm.checks[0, 0] == 4 ** 3 and asm.checks[0].tolist() == [64, 27, 8, 1]


def test_optimal_window_semantics_against_an_independent_loop():
    lat = _random_latencies(np.random.default_rng(7), planes=3, blocks=7, layers=4)
    lwl = lat.lwl()[0]
    sums = lwl.sum(axis=-1)
    pools = [sorted(range(7), key=lambda b: (sums[p][b], b)) for p in range(3)]
    expect = []
    while pools[0]:
        wins = [pl[:3] for pl in pools]
        combos = list(itertools.product(*wins))  # lexicographic, like the method's tie rule
        costs = [_extra(lwl, c) for c in combos]
        pick = combos[int(np.argmin(costs))]
        expect.append(list(pick))
        for p, b in enumerate(pick):
            pools[p].remove(b)
    asm = assemble("optimal", lat, window=3)
    assert asm.members[0].tolist() == expect


@pytest.mark.parametrize("method", ["optimal", "lwl_rank", "pwl_rank", "str_rank", "str_med"])
def test_planted_copies_inside_the_window_are_chosen_outside_not(method):
    rng = np.random.default_rng(8)
    L, S, N, W = 8, 4, 8, 4
    template = rng.permutation(L * S).astype(float).reshape(L, S)
    for pos, inside in ((2, True), (W, False)):
        tp = np.empty((4, N, L, S))
        for p in range(4):
            for b in range(N):
                tp[p, b] = rng.permutation(L * S).reshape(L, S)
            tp[p, 0] = template
        # a constant offset per block orders the sorted lists without changing any rank signature;
        # block 0 (the copy) is placed at position ``pos``
        order = [b for b in range(1, N)]
        order.insert(pos, 0)
        for rank_, b in enumerate(order):
            tp[:, b] += 1000.0 * rank_
        lat = Latencies(tp[None], np.full((1, 4, N), 3500.0))
        first = assemble(method, lat, window=W).members[0, 0].tolist()
        assert (first == [0, 0, 0, 0]) == inside, (method, pos, first)


def test_qstr_picks_a_copy_of_the_anchor_eigen_and_counts_checks():
    rng = np.random.default_rng(9)
    lat = _random_latencies(rng, planes=4, blocks=10, layers=16)
    tp = lat.tprog_us.copy()
    # block 0 of plane 1 is the fastest overall; plane 0/2/3 hold a copy of its string pattern at position 2
    for p in range(4):
        tp[0, p] += 100.0 * np.arange(10)[:, None, None]
    tp[0, 1, 0] -= 50.0
    for p in (0, 2, 3):
        tp[0, p, 2] = tp[0, 1, 0] + 200.0  # same per-layer string order, inside the first 4
    asm = assemble("qstr_med", Latencies(tp, lat.tbers_us), window=4)
    assert asm.members[0, 0].tolist() == [2, 0, 2, 2]
    assert asm.checks[0, 0] == 12
    assert asm.checks[0, -1] == 3  # the last superblock: one candidate left per other plane


def test_qstr_window_one_equals_pgm_ltn():
    lat = _random_latencies(np.random.default_rng(10), dies=3, planes=4, blocks=25, layers=4)
    assert np.array_equal(assemble("qstr_med", lat, window=1).members, assemble("pgm_ltn", lat).members)


def test_qstr_alternate_fast_superblocks_are_faster():
    lat = _random_latencies(np.random.default_rng(11), dies=2, planes=4, blocks=40, layers=8)
    asm = assemble("qstr_med", lat, mode="alternate")
    sums = lat.lwl().sum(axis=-1)
    member = sums[np.arange(2)[:, None, None], np.arange(4)[None, None, :], asm.members].mean(axis=-1)
    assert asm.slow[:, 1::2].all() and not asm.slow[:, ::2].any()
    assert member[~asm.slow].mean() < member[asm.slow].mean()


def test_nominal_check_counts_and_metadata():
    m = METHODS
    assert m["qstr_med"].nominal_checks(4, 4) == 12 and m["str_med"].nominal_checks(4, 4) == 1536
    assert 1 - 12 / 1536 == pytest.approx(0.9922, abs=1e-4)
    assert m["optimal"].nominal_checks(4, 8) == 4096 and 400 * 4096 == 1_638_400
    assert m["str_rank"].nominal_checks(4, 2) == 96
    assert m["qstr_med"].metadata_bytes(384, 96) == 52
    assert m["str_med"].unique_pair_distances(4, 4) == 96
    # 1 TB of 8 MB blocks at 52 B per block: 6.5 MiB
    assert (1 << 40) // (8 << 20) * 52 == 6.5 * (1 << 20)


def test_unknown_method_and_parameter_are_errors():
    lat = _random_latencies(np.random.default_rng(12), blocks=3, layers=2)
    with pytest.raises(ValueError, match="unknown assembly method"):
        assemble("fastest", lat)
    with pytest.raises(ValueError, match="unknown parameter"):
        assemble("qstr_med", lat, windw=3)
    with pytest.raises(ValueError, match="window"):
        assemble("str_med", lat, window=0)
    with pytest.raises(ValueError, match="mode"):
        assemble("qstr_med", lat, mode="medium")
