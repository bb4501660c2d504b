"""RL-RR and Reallocation stand-ins (flashrr.papers.phasedrr.policies, flashrr/_core/mechanisms/early_moves.pyx
and its twin): counter metadata charged to the cache, hottest-first early moves,
the decision rules' limiting cases, determinism and engine equivalence."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import event, given, settings

import flashrr
from engine_helpers import CAPACITY_ERROR, assert_identical, page_trace, run_both, tiny_config
from flashrr._core.layout import build_layout
from flashrr.config import ReadRetryConfig
from flashrr.papers.phasedrr.policies import Reallocation, RlRR
from flashrr.policies import make_policy
from strategies import counter_rr_case

ENGINES = ("compiled", "reference")
RETRY = ReadRetryConfig.ldpc_progressive(85_000, 24_000, 7)


def _cfg(**kw):
    return tiny_config(blocks=32, pages=16, rr=100, gc_ratio=0.1, retry=RETRY, t_read=85_000, t_prog=1_000_000,
                       t_erase=5_000_000, **kw)


def test_registered_by_name_and_validated():
    assert isinstance(make_policy("rl-rr"), RlRR)
    assert isinstance(make_policy("reallocation"), Reallocation)
    with pytest.raises(ValueError, match="start_reads"):
        RlRR(start_reads=0)
    with pytest.raises(ValueError, match="epsilon"):
        RlRR(epsilon=1.5)
    with pytest.raises(ValueError, match="charge_metadata"):
        Reallocation(charge_metadata="yes")


@pytest.mark.parametrize("cls", [RlRR, Reallocation])
def test_counter_metadata_is_two_bytes_per_page_and_shrinks_the_cache(cls):
    cfg = flashrr.SimConfig.preset("phasedrr")
    logical = cfg.logical_pages
    assert logical == 7_864_320  # 80 GiB raw x 0.75 / 8 KiB
    assert cls().metadata_bytes(cfg) == 2 * logical == 15 << 20
    assert build_layout(cfg, cls().metadata_bytes(cfg)).cache_pages == ((64 - 15) << 20) // 8192 == 6272
    assert cls(charge_metadata=False).metadata_bytes(cfg) == 0
    assert build_layout(cfg, 0).cache_pages == 8192


def _hot_block_trace(gap):
    """LPNs 0..15 sit in one block; LPN 5 is read 3x as often as the others."""
    lpns = ([5, 5, 5] + list(range(16))) * 6
    return page_trace(lpns, gap_ns=gap)


@pytest.mark.parametrize("engine", ENGINES)
def test_rl_rr_without_exploration_never_moves_early(engine):
    """Q starts at 0 and the first best action is "move 0 pages", so with epsilon = 0
    the agent never moves a page and never learns otherwise: only the hard RR moves."""
    res = flashrr.simulate(_cfg(), _hot_block_trace(10_000_000), policy=RlRR(start_reads=40, epsilon=0.0),
                           engine=engine)
    assert res.summary["idle_moves"] == 0 and res.summary["rr_count"] == 1 and res.summary["rr_page_moves"] == 16


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pol", [RlRR(start_reads=40, epsilon=1.0), Reallocation(start_reads=40)])
def test_the_hottest_page_moves_first(engine, pol):
    """The block reaches 60 reads (= 100 - 40) within the 4th repetition; LPN 5 has the
    highest counter then, so it leaves the block first; the others all have the same
    count, so any further pages moved in the same gap go lowest offset first."""
    cfg = _cfg()
    trace = _hot_block_trace(10_000_000)
    from flashrr._core import load_compiled_engine
    from flashrr._core.engine_py import ReferenceEngine

    pol.bind(cfg, 0)
    layout = build_layout(cfg, pol.metadata_bytes(cfg))
    eng = (load_compiled_engine() if engine == "compiled" else ReferenceEngine)(layout, pol.hooks(), 0, False)
    eng.precondition(16, np.zeros(0, np.int64))
    blk = int(eng.state_view(0).l2p[0]) // 16
    first_moved = None
    for i in range(len(trace)):
        eng.run(trace.time_ns[i:i + 1], trace.offset[i:i + 1], trace.size[i:i + 1], trace.is_write[i:i + 1])
        l2p = eng.state_view(0).l2p[:16]
        gone = [int(x) for x in np.flatnonzero(l2p // 16 != blk)]
        if gone:
            first_moved = gone
            break
    assert first_moved is not None and 5 in first_moved
    others = [o for o in range(16) if o != 5][:len(first_moved) - 1]
    assert first_moved == sorted([5] + others)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_early_move_keeps_the_pages_component_at_k2(engine):
    """The hot-block trace on a two-plane superblock (k = 2), Reallocation sending pages
    to the GC/RR frontier (n_dest = 0).  The fill puts odd LPNs on component 1 (block
    1), LPN 5 at offset 2.  Block 1 takes 11 reads a round (LPN 5 four times, the 7
    other odd LPNs once), so the read of LPN 3 in round 6 (request 101) brings it to
    60 = H - start_reads.  Its hottest page is LPN 5 (23 of the block's 60 reads);
    at c = 60 a read pays 4 retries (60/100 >= 1/7 .. 4/7), 580 us, so the saving
    23/60 x (100 - 60) x 580 us = 8.9 ms exceeds the cost (at most one move, 1.085 ms),
    and LPN 5 moves in the next idle gap, alone.  The frontier opens the first free
    superblock, 1; keeping its component, LPN 5 lands at page 0 of block 2 x 1 + 1 = 3."""
    pol = Reallocation(start_reads=40, n_dest=0)
    cfg = _cfg(planes=2, sb_planes=2)
    pol.bind(cfg, 0)
    from flashrr._core import load_compiled_engine
    from flashrr._core.engine_py import ReferenceEngine

    layout = build_layout(cfg, pol.metadata_bytes(cfg))
    eng = (load_compiled_engine() if engine == "compiled" else ReferenceEngine)(layout, pol.hooks(), 0, False)
    eng.precondition(16, np.zeros(0, np.int64))
    assert int(eng.state_view(0).l2p[5]) == 1 * 16 + 2
    trace = _hot_block_trace(10_000_000)
    eng.run(trace.time_ns[:102], trace.offset[:102], trace.size[:102], trace.is_write[:102])  # up to request 101
    assert int(eng.state_view(0).block_reads[1]) == 60
    assert eng.results()["counters"]["idle_moves"] == 0
    eng.run(trace.time_ns[102:103], trace.offset[102:103], trace.size[102:103], trace.is_write[102:103])
    l2p = eng.state_view(0).l2p
    assert eng.results()["counters"]["idle_moves"] == 1
    assert int(l2p[5]) == 3 * 16 + 0
    assert all(int(l2p[o]) // 16 in (0, 1) for o in range(16) if o != 5)


@pytest.mark.parametrize("engine", ENGINES)
def test_reallocation_moves_nothing_early_without_read_retry(engine):
    """No retry model: moving a page saves no retry time, so the benefit (0) never
    reaches the cost and every page waits for the hard RR."""
    cfg = tiny_config(blocks=32, pages=16, rr=100, gc_ratio=0.1)
    res = flashrr.simulate(cfg, _hot_block_trace(10_000_000), policy=Reallocation(start_reads=40), engine=engine)
    assert res.summary["idle_moves"] == 0 and res.summary["rr_page_moves"] == 16


def test_rl_rr_is_deterministic_per_seed():
    trace = page_trace(np.random.default_rng(3).zipf(1.4, 2000) % 48, gap_ns=2_000_000)
    a = flashrr.simulate(_cfg(), trace, policy=RlRR(start_reads=60), seed=5)
    b = flashrr.simulate(_cfg(), trace, policy=RlRR(start_reads=60), seed=5)
    assert a.summary["idle_moves"] == b.summary["idle_moves"] > 0
    assert a.summary["read_latency_mean_ns"] == b.summary["read_latency_mean_ns"]


@settings(max_examples=40, deadline=None)
@given(counter_rr_case())
def test_engines_identical_with_counter_policies(case):
    cfg, trace, pol, seed = case
    a, b = run_both(cfg, trace, pol, seed=seed, check_invariants=True)
    assert_identical(a, b, allow_error=CAPACITY_ERROR)
    if not isinstance(a, Exception):
        event(f"{pol.name} idle moves: {'yes' if a.summary['idle_moves'] else 'no'}")
        event(f"RR: {'yes' if a.summary['rr_count'] else 'no'}")


@pytest.mark.parametrize("pol", [RlRR(start_reads=60), Reallocation(start_reads=60)])
def test_results_do_not_depend_on_the_chunk_size(pol):
    trace = page_trace(np.random.default_rng(4).zipf(1.4, 3000) % 48, gap_ns=2_000_000)
    a = flashrr.simulate(_cfg(), trace, policy=pol, seed=2)
    b = flashrr.simulate(_cfg(), trace, policy=pol, seed=2, chunk_requests=7)
    assert a.summary["idle_moves"] > 0
    assert_identical(a, b)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_block_emptied_early_counts_one_episode_and_an_rr_erase(engine):
    """LPNs 0..15 (one block) are read round-robin with 10 ms gaps.  From 60 reads on,
    Reallocation's saving beats its cost for every page (they all have reads), so the
    block empties page by page in idle time and no hard RR happens.  Overwrites of other
    LPNs then make GC erase it: one RR episode, and its erase counts as an RR erase
    (RR moves emptied it); every other erase is GC's."""
    reads = list(range(16)) * 5  # 80 reads: the block reaches 60, its moved pages are read elsewhere
    writes = list(range(16, 32)) * 30
    lpns = reads + writes
    trace = page_trace(lpns, writes=[False] * len(reads) + [True] * len(writes), gap_ns=10_000_000)
    s = flashrr.simulate(_cfg(), trace, policy=Reallocation(start_reads=40), engine=engine).summary
    assert s["idle_moves"] == 16 and s["rr_count"] == 0 and s["rr_page_moves"] == 0
    assert s["rr_episodes"] == 1
    assert s["erases_rr"] == 1 and s["erases_gc"] == s["gc_count"] - 1 and s["gc_count"] > 1
