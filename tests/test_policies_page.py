"""Page, Page-8 and Page-64 (flashrr.papers.shuffler.page): counter-driven regrouping at
RR, group counters, DRAM accounting against the data cache, effects on RR
count and flash transactions, engine equivalence."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from engine_helpers import (CAPACITY_ERROR, assert_identical, comparable, page_trace, run_both, skewed_reads_trace,
                            tiny_config)
from flashrr.config import SimConfig
from flashrr.policies import Page, Page8, Page64, make_policy
from flashrr.papers.shuffler.page import balanced_assignment, page_weights
from flashrr.policy import EngineState
from strategies import page_case


def _cmp(summary: dict) -> dict:
    return {k: v for k, v in comparable(summary).items() if k != "policy_time_s"}


# ------------------------------------------------------------------------------ the regrouping


def test_balanced_assignment_small_example():
    # heaviest first, each to the lightest block with room (ties: lowest index)
    w = [10, 9, 1, 1, 1, 1, 1, 1]
    dest = balanced_assignment(w, 2)
    assert dest.tolist() == [0, 1, 1, 0, 1, 0, 1, 0]
    assert np.bincount(dest).tolist() == [4, 4]
    sums = np.bincount(dest, weights=w)
    assert sums.tolist() == [13, 12]


@settings(max_examples=200)
@given(st.lists(st.integers(0, 1000), min_size=0, max_size=200), st.integers(1, 8))
def test_balanced_assignment_counts_within_one(weights, k):
    dest = balanced_assignment(weights, k)
    assert dest.shape == (len(weights),)
    if weights:
        assert dest.min() >= 0 and dest.max() < k
        counts = np.bincount(dest, minlength=k)
        assert counts.max() - counts.min() <= 1
        # greedy bound: no block exceeds the mean by more than the heaviest item
        sums = np.bincount(dest, weights=weights, minlength=k)
        if len(weights) >= k:
            assert sums.max() - sums.min() <= max(weights) + 1e-9


def test_page_weights_spread_group_counters():
    counters = np.array([16, 8, 3], np.int32)  # groups of 8 LPNs; the last group holds 3 LPNs (19 pages)
    w = page_weights(counters, [0, 7, 8, 16, 18], group=8, logical_pages=19)
    assert w.tolist() == [2.0, 2.0, 1.0, 1.0, 1.0]
    assert page_weights(counters, [2, 0], group=1, logical_pages=3).tolist() == [3.0, 16.0]


def _fake_state(counters, k=4, n_pages=16, logical=64):
    layout = SimpleNamespace(k=k, pages_per_block=n_pages, logical_pages=logical)
    z = np.zeros(k, np.int32)
    return EngineState(layout=layout, now_ns=0, block_reads=z, rr_threshold=z, sb_valid=z[:1], sb_state=z[:1].astype(
        np.int8), l2p=np.zeros(0, np.int32), p2l=np.zeros(0, np.int32), page_counters=np.asarray(counters, np.int32),
        die_free_ns=np.zeros(1, np.int64))


def test_page_balances_reads_better_than_baseline_on_a_skewed_superblock():
    """Superblock whose component 0 holds the hot pages: Page's destinations end up
    with near-equal accumulated reads; Baseline's keep the skew."""
    k, n = 4, 16
    offs, comps = np.divmod(np.arange(k * n), k)
    lpns = np.arange(k * n)
    rng = np.random.default_rng(0)
    counters = np.where(comps == 0, rng.integers(50, 100, k * n), rng.integers(0, 10, k * n))
    pol = Page()
    pol.bind(None, 0)
    dest = pol.place_migration(_fake_state(counters), "rr", 0, comps, offs, lpns)
    page_sums = np.bincount(dest, weights=counters, minlength=k)
    base_sums = np.bincount(comps, weights=counters, minlength=k)
    assert np.bincount(dest, minlength=k).tolist() == [n] * k
    assert page_sums.max() - page_sums.min() < 0.1 * (base_sums.max() - base_sums.min())
    assert page_sums.max() - page_sums.min() <= counters.max()
    assert pol.on_read_reclaim(_fake_state(counters), 0) == "regroup"
    assert np.array_equal(pol.place_migration(_fake_state(counters), "gc", 0, comps, offs, lpns), comps)


def test_page_n_treats_a_group_as_one_unit_of_heat():
    k, n = 4, 16
    offs, comps = np.divmod(np.arange(k * n), k)
    lpns = np.arange(k * n)
    counters = np.zeros(8, np.int32)
    counters[0] = 800  # LPNs 0..7 hot, as one group
    pol = Page8()
    pol.bind(None, 0)
    dest = np.asarray(pol.place_migration(_fake_state(counters), "rr", 0, comps, offs, lpns))
    # the 8 hot pages (equal weight 100) are dealt 2 per destination
    assert np.bincount(dest[:8], minlength=k).tolist() == [2, 2, 2, 2]


# ------------------------------------------------------------------------------ counters and DRAM


@pytest.mark.parametrize("name, group", [("page", 1), ("page-8", 8), ("page-64", 64)])
def test_counter_count_and_metadata_bytes(name, group):
    cfg = SimConfig.preset("shuffler")
    pol = make_policy(name)
    assert pol.page_counter_group == group
    assert cfg.geometry.n_pages == 8 * 2**20  # 64 GiB of 8 KiB pages
    assert pol.n_counters(cfg) == 8 * 2**20 // group
    assert pol.metadata_bytes(cfg) == 4 * 8 * 2**20 // group  # 32 MiB for Page
    assert make_policy(name, counter_bytes=2).metadata_bytes(cfg) == 2 * 8 * 2**20 // group
    logical = make_policy(name, counter_scope="logical")
    assert logical.metadata_bytes(cfg) == 4 * -(-cfg.logical_pages // group)


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="counter_bytes"):
        Page(counter_bytes=-1)
    with pytest.raises(ValueError, match="counter_scope"):
        Page64(counter_scope="everything")
    assert Page8(counter_bytes=1).params() == {"counter_bytes": 1, "counter_scope": "physical"}


def test_page_cache_capacity_shrinks():
    """On Table 1's device the counters take their bytes from the 64 MB cache, and
    at 32 MB Page has no cache left (Shuffler Fig. 16's note)."""
    trace = page_trace([0, 1, 2, 1, 0], page=8192)
    cap = {}
    for name in ("baseline", "page", "page-8", "page-64", "shuffler"):
        cap[name] = flashrr.simulate("shuffler", trace, policy=name).summary["cache_pages"]
    assert cap == {"baseline": 8192, "page": 4096, "page-8": 7680, "page-64": 8128, "shuffler": 8192}
    small = SimConfig.preset("shuffler").replace(capacity_bytes=32 << 20)
    res = flashrr.simulate(small, trace, policy="page").summary
    assert res["cache_pages"] == 0 and res["cache_read_hit_ratio"] == 0.0
    assert res["policy_metadata_bytes"] == 32 << 20


# ------------------------------------------------------------------------------ in the simulator



def test_page_needs_fewer_rrs_than_baseline_on_skewed_reads():
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=200, cache_pages=0)
    trace = skewed_reads_trace()
    base = flashrr.simulate(cfg, trace, policy="baseline").summary
    page = flashrr.simulate(cfg, trace, policy="page").summary
    assert page["page_regroups"] == page["rr_count"] > 0
    assert page["rr_count"] < 0.8 * base["rr_count"]


@pytest.mark.parametrize("name", ["page-8", "page-64"])
def test_group_counters_cannot_see_component_skew_inside_a_group(name):
    """With one counter per 8 (64) LPNs, every page of a group looks equally hot, so
    the per-component skew (LPN % 4 == 0 hot) stays invisible: more RRs than Page."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=200, cache_pages=0)
    trace = skewed_reads_trace()
    page = flashrr.simulate(cfg, trace, policy="page").summary
    group = flashrr.simulate(cfg, trace, policy=name).summary
    assert group["rr_count"] > 1.2 * page["rr_count"]


def test_page_breaks_superpages_shuffler_does_not():
    """Two-page reads of LPN pairs (4s, 4s+1) are one multi-plane transaction while
    the pair shares an offset.  After RRs, Shuffler keeps every pair together
    (transactions = flash-read requests, as Baseline); Page regroups pages by heat
    and splits pairs, so user transactions rise.  The first read (LPN 1023) makes
    the preconditioned data fill whole superblocks, so every victim is fully valid
    and the RR frontier stays aligned."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=150, cache_pages=0)
    rng = np.random.default_rng(5)
    starts = np.concatenate([[1023], 4 * rng.integers(0, 256, 30_000)])
    trace = page_trace(starts, pages=np.concatenate([[1], np.full(starts.size - 1, 2)]))
    tx = {}
    for name in ("baseline", "shuffler", "page"):
        s = flashrr.simulate(cfg, trace, policy=name).summary
        assert s["rr_count"] > 0 and s.get("shuffle_full", 1) > 0
        tx[name] = (s["user_flash_transactions"] - 1) / (s["reads"] - 1)
    assert tx["baseline"] == 1.0 and tx["shuffler"] == 1.0
    assert tx["page"] > 1.05


# ------------------------------------------------------------------------------ engines


@settings(max_examples=40)
@given(page_case())
def test_engines_identical_with_page_policies(case):
    cfg, trace, name, repeat = case
    a, b = run_both(cfg, trace, name, repeat=repeat, counter_bytes=1)
    assert_identical(a, b, allow_error=CAPACITY_ERROR, ignore=("policy_time_s",))
