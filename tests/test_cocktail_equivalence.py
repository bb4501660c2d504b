"""Cocktail's write pool: the compiled engine and the reference twin give identical
results, and the pool and mapping invariants hold, on hypothesis-drawn block-level
devices (superblock size 1, one or several planes), random pool parameters (both GC
readings, fixed and dynamic n, both reset granularities, both selection keys) and
read-heavy mixed traces that reach RR and GC; the same for redFTL's and IPR's RR
destination streams.

Share of the 60 equivalence examples reaching each path (``--hypothesis-show-statistics``):
RR 42%, GC 82%, an RR page into a WR entry 28%, a user page into an RR entry 63%,
an exchange 23%, aggregation into a full pool 62%.  redFTL and IPR (40 examples): pages
written into a raised-threshold stream 48%, IPR's live-block cap reached 23%."""
from __future__ import annotations

import numpy as np
from hypothesis import event, given, settings

import flashrr
from engine_helpers import CAPACITY_ERROR, assert_identical, run_both
from flashrr._core.layout import SB_FREE, SB_POOL, build_layout
from flashrr._core.engine_py import ReferenceEngine
from flashrr.papers.cocktail.policies import Cocktail
from strategies import cocktail_case, rr_streams_case


@settings(max_examples=60, deadline=None)
@given(cocktail_case())
def test_cocktail_engines_identical_with_invariants(case):
    cfg, trace, pol, repeat = case
    a, b = run_both(cfg, trace, policy=Cocktail(**pol), repeat=repeat, check_invariants=True)
    if not isinstance(a, Exception):
        s = a.summary
        event(f"RR: {'yes' if s['rr_count'] else 'no'}; GC: {'yes' if s['gc_count'] else 'no'}")
        event(f"RR page into a WR entry: {'yes' if s['rr_pages_to_pool'] else 'no'}")
        event(f"user page into an RR entry: {'yes' if s['user_pages_to_pool'] else 'no'}")
        event(f"exchange: {'yes' if s['pool_exchanges'] else 'no'}; aggregate: "
              f"{'yes' if s['rr_pages_aggregated'] else 'no'}")
    assert_identical(a, b, allow_error=CAPACITY_ERROR)


@settings(max_examples=40, deadline=None)
@given(rr_streams_case())
def test_streams_engines_identical_with_invariants(case):
    cfg, trace, pol, repeat = case
    a, b = run_both(cfg, trace, policy=pol, repeat=repeat, check_invariants=True)
    if not isinstance(a, Exception):
        event(f"{pol.name}: stream pages {'yes' if a.summary['stream_pages'] else 'no'}; fallback "
              f"{'yes' if a.summary['stream_fallback_pages'] else 'no'}")
    assert_identical(a, b, allow_error=CAPACITY_ERROR)


@settings(max_examples=30, deadline=None)
@given(cocktail_case())
def test_pool_state_invariants(case):
    cfg, trace, params, repeat = case
    pol = Cocktail(**params)
    pol.bind(cfg, 0)
    layout = build_layout(cfg, 0)
    eng = ReferenceEngine(layout, pol.hooks(), 0, True)
    top = int(((trace.offset + trace.size - 1) // cfg.geometry.page_size_bytes).max())
    eng.precondition(max(top + 1, int(cfg.precondition.fill_ratio * cfg.logical_pages)), np.zeros(0, np.int64))
    try:
        eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write, repeat)
    except flashrr.EngineError as e:
        assert CAPACITY_ERROR in str(e)
        return
    eng.check_invariants()
    wp = eng.mechanism("write_pool")
    N = layout.pages_per_block
    st_ = eng.state_view(0).sb_state
    valid = eng.state_view(0).sb_valid
    u, r, g = (eng.block_mix(x) for x in ("mix_user", "mix_rr", "mix_gc"))
    in_pool = set()
    for lane, entries in enumerate(wp.pool):
        assert wp.cap_min <= wp.cap[lane] <= wp.cap_max
        assert len(entries) <= wp.cap[lane]
        for blk, idx, _ in entries:
            assert 0 < idx < N and st_[blk] == SB_POOL and blk // layout.sb_per_lane == lane
            assert u[blk] + r[blk] + g[blk] == idx  # every page written so far, of either kind
            if pol.gc_writes == "separate":
                assert g[blk] == 0
            in_pool.add(blk)
    assert set(np.flatnonzero(st_ == SB_POOL).tolist()) == in_pool
    total = u + r + g
    assert np.all(total <= N) and np.all(total >= valid)
    assert np.all(total[st_ == SB_FREE] == 0)
