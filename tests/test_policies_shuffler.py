"""Shuffler (flashrr.papers.shuffler.policies): Algorithm 1's routine selection, the
Latin-square card rotation of Eq. 9, seeded card grouping, its effect on RR
counts, engine equivalence and invariants."""
from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from engine_helpers import (CAPACITY_ERROR, assert_identical, comparable, page_trace, run_both, skewed_reads_trace,
                            tiny_config)
from flashrr.policies import Shuffler, make_policy
from flashrr.papers.shuffler.policies import block_deltas, card_of_offsets, latin_destinations
from flashrr.policy import EngineState
from strategies import shuffler_case

WALL_KEYS = ("policy_time_s",)


def _cmp(summary: dict) -> dict:
    return {k: v for k, v in comparable(summary).items() if k not in WALL_KEYS}


# ------------------------------------------------------------------------------ Algorithm 1


@pytest.mark.parametrize("reads, routine, involved", [
    ([10, 10, 10, 10], "none", ()),
    ([13, 7, 10, 10], "full", (0, 1, 2, 3)),  # max delta exactly 0.30 = delta_f
    ([1299, 701, 1000, 1000], "partial", (0, 1)),  # 0.299 < delta_f
    ([11, 9, 10, 10], "partial", (0, 1)),  # exactly delta_p = 0.10
    ([1099, 901, 1000, 1000], "none", ()),  # 0.099 < delta_p
    ([12, 10, 10, 10], "none", ()),  # one block >= delta_p (0.143): partial needs more than one
    ([1200, 1000, 800, 1000], "partial", (0, 2)),
    ([1150, 1150, 850, 850], "partial", (0, 1, 2, 3)),  # all >= delta_p, none >= delta_f: still partial
    ([0, 0, 0, 0], "none", ()),
    ([40, 0, 0, 0], "full", (0, 1, 2, 3)),
])
def test_select_routine_hand_made(reads, routine, involved):
    assert Shuffler.select_routine(reads) == (routine, involved)


def test_select_routine_custom_thresholds_and_instance_defaults():
    reads = [1200, 1000, 800, 1000]  # deltas 0.2, 0, 0.2, 0
    assert Shuffler.select_routine(reads, delta_f=0.2, delta_p=0.1) == ("full", (0, 1, 2, 3))
    assert Shuffler.select_routine(reads, delta_f=0.5, delta_p=0.25) == ("none", ())
    pol = Shuffler()
    assert (pol.delta_f, pol.delta_p) == (0.30, 0.10)


def test_block_deltas_is_eq7():
    d = block_deltas([13, 7, 10, 10])
    assert d.tolist() == [0.3, 0.3, 0.0, 0.0]
    assert block_deltas([5, 15]).tolist() == [0.5, 0.5]


@settings(max_examples=300)
@given(st.lists(st.integers(0, 20000), min_size=2, max_size=32),
       st.sampled_from(["0.05", "0.1", "0.15", "0.2"]), st.sampled_from(["0.2", "0.25", "0.3", "0.5"]))
def test_select_routine_matches_exact_arithmetic(reads, dp, df):
    """Against Algorithm 1 evaluated in exact rationals (thresholds as decimals)."""
    total = sum(reads)
    routine, involved = Shuffler.select_routine(reads, float(df), float(dp))
    if total == 0:
        assert (routine, involved) == ("none", ())
        return
    mean = Fraction(total, len(reads))
    delta = [abs(r - mean) / mean for r in reads]
    if max(delta) >= Fraction(df):
        assert (routine, involved) == ("full", tuple(range(len(reads))))
    else:
        part = tuple(i for i, d in enumerate(delta) if d >= Fraction(dp))
        assert (routine, involved) == (("partial", part) if len(part) > 1 else ("none", ()))


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="delta_p"):
        Shuffler(delta_f=0.1, delta_p=0.2)
    with pytest.raises(ValueError, match="delta_f"):
        Shuffler(delta_f=-1)
    with pytest.raises(ValueError, match="cards"):
        Shuffler(cards="diagonal")
    assert make_policy("shuffler", delta_f=0.4, delta_p=0.2).params() == {"delta_f": 0.4, "delta_p": 0.2,
                                                                          "cards": "random"}


# ------------------------------------------------------------------------------ cards and Eq. 9


def _fake_state(reads, n_pages=16, sb=0):
    k = len(reads)
    layout = SimpleNamespace(k=k, pages_per_block=n_pages)
    block_reads = np.zeros((sb + 1) * k, dtype=np.int32)
    block_reads[sb * k:] = reads
    return EngineState(layout=layout, now_ns=0, block_reads=block_reads, rr_threshold=block_reads.copy(),
                       sb_valid=np.zeros(sb + 1, np.int32), sb_state=np.zeros(sb + 1, np.int8),
                       l2p=np.zeros(0, np.int32), p2l=np.zeros(0, np.int32), page_counters=np.zeros(0, np.int32),
                       die_free_ns=np.zeros(1, np.int64))


def _full_superblock(k, n_pages):
    """Source order of a fully valid superblock: offset-major, then component."""
    offs, comps = np.divmod(np.arange(k * n_pages), k)
    return comps.astype(np.int32), offs.astype(np.int32), np.arange(k * n_pages, dtype=np.int32)


def _migrate(pol, reads, n_pages=16, sb=3, seed=0):
    pol.bind(None, seed)
    state = _fake_state(reads, n_pages, sb)
    routine = pol.on_read_reclaim(state, sb)
    comps, offs, lpns = _full_superblock(len(reads), n_pages)
    return routine, comps, offs, np.asarray(pol.place_migration(state, "rr", sb, comps, offs, lpns))


@pytest.mark.parametrize("k, n_pages", [(4, 16), (4, 18), (3, 16), (32, 64)])
def test_full_shuffle_is_a_latin_square(k, n_pages):
    reads = [100] + [10] * (k - 1)
    routine, comps, offs, dest = _migrate(Shuffler(), reads, n_pages)
    assert routine == "full"
    # every superpage (one offset) goes to k distinct blocks ...
    for o in range(n_pages):
        assert sorted(dest[offs == o].tolist()) == list(range(k))
    # ... so each destination block receives exactly one page per offset, in offset order:
    # the j-th page written to a block keeps offset j (superpages stay at one offset)
    for d in range(k):
        assert offs[dest == d].tolist() == list(range(n_pages))
    # each destination gets exactly one card (the same offset set, of size m/n +- 1) from each source
    shift = (comps - dest) % k  # card index j = i - i' (mod n)
    cards = [set(offs[(comps == 0) & (shift == j)].tolist()) for j in range(k)]
    assert sorted(len(c) for c in cards)[-1] - sorted(len(c) for c in cards)[0] <= 1
    for i in range(k):
        for j in range(k):
            assert set(offs[(comps == i) & (shift == j)].tolist()) == cards[j]
    # card 0 stays in place; a full shuffle moves (n-1)/n of the pages
    assert np.all(dest[shift == 0] == comps[shift == 0])


def test_partial_shuffle_moves_only_involved_blocks():
    reads = [1200, 1000, 800, 1000]  # partial over blocks 0 and 2
    routine, comps, offs, dest = _migrate(Shuffler(), reads)
    assert routine == "partial"
    assert np.all(dest[np.isin(comps, [1, 3])] == comps[np.isin(comps, [1, 3])])
    moved_02 = set(offs[(comps == 0) & (dest == 2)].tolist())
    moved_20 = set(offs[(comps == 2) & (dest == 0)].tolist())
    assert moved_02 == moved_20 and len(moved_02) == 8  # one of two cards, the same offsets
    for o in range(16):
        assert sorted(dest[(offs == o) & np.isin(comps, [0, 2])].tolist()) == [0, 2]


def test_no_shuffle_keeps_every_page():
    routine, comps, _, dest = _migrate(Shuffler(), [10, 10, 10, 10])
    assert routine == "none" and np.array_equal(dest, comps)


def test_latin_destinations_partial_positions():
    comps = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    offs = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    cards = np.array([1, 2])  # offset 0 in card 1, offset 1 in card 2
    dest = latin_destinations(comps, offs, (1, 2, 3), cards)
    # involved positions: 1->0, 2->1, 3->2; card j moves position p to (p - j) mod 3
    assert dest.tolist() == [0, 3, 1, 2, 0, 2, 3, 1]


def test_card_grouping_deterministic_per_seed_and_sized():
    a = _migrate(Shuffler(), [100, 10, 10, 10], seed=7)[3]
    b = _migrate(Shuffler(), [100, 10, 10, 10], seed=7)[3]
    c = _migrate(Shuffler(), [100, 10, 10, 10], seed=8)[3]
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    cards = card_of_offsets(16, 3, np.random.default_rng(0))
    assert sorted(np.bincount(cards).tolist()) == [5, 5, 6]
    assert card_of_offsets(8, 4).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]  # contiguous mode


def test_contiguous_cards_are_runs_of_offsets():
    routine, comps, offs, dest = _migrate(Shuffler(cards="contiguous"), [100, 10, 10, 10])
    shift = (comps - dest) % 4
    assert routine == "full"
    assert shift[comps == 0].tolist() == np.repeat(np.arange(4), 4).tolist()


def test_gc_migrations_are_not_shuffled():
    pol = Shuffler()
    pol.bind(None, 0)
    state = _fake_state([100, 10, 10, 10], sb=0)
    comps, offs, lpns = _full_superblock(4, 16)
    assert np.array_equal(pol.place_migration(state, "gc", 0, comps, offs, lpns), comps)


# ------------------------------------------------------------------------------ in the simulator


def test_superpages_stay_together_after_a_real_full_shuffle(engine):
    """One RR of a fully valid 4-block superblock: read comp 0's pages (LPN 0, 4, ...)
    until block 0 reaches the threshold.  Afterwards every superpage's four LPNs sit
    at one offset of one superblock, on four distinct blocks, and each destination
    block holds one card from each source block."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=8, rr=10, cache_pages=0)
    lpns = [31] + [4 * (i % 8) for i in range(10)]
    probe = _Probe()
    res = flashrr.simulate(cfg, page_trace(lpns), policy=probe, engine=engine, check_invariants=True)
    ev = res.rr_events
    assert len(ev) == 1 and ev["routine"].iloc[0] == "full"
    l2p = probe.state.l2p  # a view of the engine's final mapping
    N, k = 8, 4
    blk, off = np.divmod(l2p[:32].astype(np.int64), N)
    sb, comp = np.divmod(blk, k)
    shift = np.empty(32, np.int64)
    for s in range(8):
        group = slice(4 * s, 4 * s + 4)
        assert len(set(sb[group])) == 1 and len(set(off[group])) == 1
        assert sorted(comp[group]) == [0, 1, 2, 3]
        assert off[4 * s] == s  # kept its offset (fresh frontier, fully valid victim)
        shift[group] = (np.arange(4) - comp[group]) % 4
    for j in range(4):  # card j: the same offsets for every source block, 8 / 4 = 2 of them
        offsets = [set(np.flatnonzero(shift[i::4] == j)) for i in range(4)]
        assert all(o == offsets[0] for o in offsets) and len(offsets[0]) == 2


class _Probe(Shuffler):
    """Shuffler that keeps the engine state it was shown (views stay live)."""

    name = "shuffler-probe"

    def place_migration(self, state, kind, sb, comps, offsets, lpns):
        self.state = state
        return super().place_migration(state, kind, sb, comps, offsets, lpns)



def test_shuffler_needs_fewer_rrs_than_baseline_on_skewed_reads():
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=200, cache_pages=0)
    trace = skewed_reads_trace()
    base = flashrr.simulate(cfg, trace, policy="baseline").summary
    shuf = flashrr.simulate(cfg, trace, policy="shuffler").summary
    assert shuf["shuffle_full"] > 0
    assert shuf["rr_count"] < 0.8 * base["rr_count"]
    assert shuf["user_flash_transactions"] == base["user_flash_transactions"]  # single-page reads: 1 each
    assert shuf["policy_time_s"] > 0


def test_routines_labelled_in_rr_events_and_counted():
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=200, cache_pages=0)
    res = flashrr.simulate(cfg, skewed_reads_trace(10_000), policy="shuffler")
    counts = res.rr_events["routine"].value_counts().to_dict()
    s = res.summary
    assert set(counts) <= {"full", "partial", "none"}
    for r in ("full", "partial", "none"):
        assert s[f"shuffle_{r}"] == counts.get(r, 0)
    assert s["policy_metadata_bytes"] == 0


# ------------------------------------------------------------------------------ engines and invariants


def _both(cfg, trace, repeat, seed, params, check=False):
    return run_both(cfg, trace, "shuffler", seed=seed, repeat=repeat, check_invariants=check, **params)


@settings(max_examples=40)
@given(shuffler_case())
def test_engines_identical_with_shuffler(case):
    cfg, trace, repeat, seed, params = case
    a, b = _both(cfg, trace, repeat, seed, params)
    assert_identical(a, b, allow_error=CAPACITY_ERROR, ignore=WALL_KEYS)


@settings(max_examples=15)
@given(shuffler_case())
def test_invariants_hold_with_shuffler(case):
    cfg, trace, repeat, seed, params = case
    a, b = _both(cfg, trace, repeat, seed, params, check=True)
    assert_identical(a, b, allow_error=CAPACITY_ERROR, ignore=WALL_KEYS)
    if not isinstance(a, Exception):
        plain = flashrr.simulate(cfg, trace, "shuffler", seed=seed, repeat=repeat, **params)
        assert _cmp(plain.summary) == _cmp(a.summary)


@pytest.mark.parametrize("policy", ["baseline", "page", "page-8", "page-64", "shuffler"])
def test_check_invariants_clean_with_every_policy(policy, engine):
    """RRs and GCs both happen (writes over a small device), and the checked run
    equals the unchecked one."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=24, pages=16, rr=12, cache_pages=4, op=0.35)
    rng = np.random.default_rng(3)
    n = 3000
    lpns = rng.integers(0, cfg.logical_pages - 2, n)
    writes = rng.random(n) < 0.5
    trace = page_trace(lpns, writes=writes, pages=rng.integers(1, 3, n))
    checked = flashrr.simulate(cfg, trace, policy=policy, engine=engine, check_invariants=True)
    plain = flashrr.simulate(cfg, trace, policy=policy, engine=engine)
    assert checked.summary["rr_count"] > 0 and checked.summary["gc_count"] > 0
    assert _cmp(checked.summary) == _cmp(plain.summary)
