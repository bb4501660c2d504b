"""Cocktail (TCAD 2023): the write pool's defining behaviour, on hand-built one-plane
devices where every expected value is worked out by hand from the paper's rules
(docs/cocktail.md): Fig. 6's toy example, the prefill points, the Eq. 2 choice,
growth / exchange / reset of the pool capacity (Algorithms 1 and 2), the pool
victim, and the Baseline's double write frontier on the ``cocktail`` preset."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import flashrr
from engine_helpers import EngineDriver, build_engine, page_trace, tiny_config
from flashrr._core.layout import SB_CLOSED, SB_OPEN_GC, SB_OPEN_USER, SB_POOL, build_layout
from flashrr.config import ConfigError
from flashrr.papers.cocktail.policies import Cocktail, pool_bounds
from flashrr.presets import device_preset

ENGINES = ("compiled", "reference")


def _one_plane(pages, rr, blocks=64, **kw):
    # one channel, chip, die and plane: a single lane, so every page meets the same pool
    return tiny_config(blocks=blocks, pages=pages, rr=rr, gc_ratio=0.05, op=0.3, cache_pages=0, **kw)


# ------------------------------------------------------------------ Fig. 6
@pytest.mark.parametrize("engine", ENGINES)
def test_fig6_conventional_rewrites_the_hot_block_and_reclaims_it_again(engine):
    # Block 0 holds pages 1-4 (LPN 0-3); the requests read them 20, 15, 10 and 5 times: 50 = the threshold.
    d = EngineDriver(build_engine(engine, _one_plane(4, 50), "baseline", fill=4), 4)
    queue = [0] * 20 + [1] * 15 + [2] * 10 + [3] * 5
    d.read(queue)
    assert d.counters()["rr_count"] == 1
    assert len({d.block(l) for l in range(4)}) == 1  # the four pages moved together into one block (Block 1)
    d.read(queue)  # the same requests again: Block 1 reaches 50 reads
    c = d.counters()
    assert c["rr_count"] == 2 and c["rr_second_time"] == 1
    assert d.eng.results()["counters"]["rr_page_moves"] == 8


@pytest.mark.parametrize("engine", ENGINES)
def test_fig6_cocktail_scatters_the_hot_pages_over_four_blocks(engine):
    # Pool of 4 (n = 4): a user frontier of 4-page blocks enters it after 3 pages (3 * 4 >= 4 * 3).
    pol = Cocktail(pool_min_blocks=4, pool_max_blocks=4)
    d = EngineDriver(build_engine(engine, _one_plane(4, 50), pol, fill=4), 4)
    d.write(range(100, 112))  # 12 user pages: four WR blocks of 3 pages each
    pool = d.pool()
    assert [(i, f) for _, i, f in pool] == [(3, "WR")] * 4
    wr_blocks = [b for b, _, _ in pool]
    assert wr_blocks == [d.block(l) for l in (100, 103, 106, 109)]
    queue = [0] * 20 + [1] * 15 + [2] * 10 + [3] * 5
    d.read(queue)
    assert d.counters()["rr_count"] == 1
    # equal factors (no reads, 3 valid pages each): the earliest entry takes the next page and fills up
    assert [d.block(l) for l in range(4)] == wr_blocks
    assert d.pool() == [] and all(d.state(b) == SB_CLOSED for b in wr_blocks)
    d.read(queue)  # each block now draws 20, 15, 10 or 5 reads: no second RR
    c = d.counters()
    assert c["rr_count"] == 1 and c["rr_pages_to_pool"] == 4 and c["rr_second_time"] == 0


# ------------------------------------------------------------------ prefill points
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bounds,n,user_point", [((20, 61), None, 244), ((61, 61), None, 252), ((20, 61), 4, 192)])
def test_user_frontier_enters_the_pool_at_the_prefill_point(engine, bounds, n, user_point):
    # ceil(256 * (n - 1) / n) with n = 20, 61 (the capacity) or a fixed 4: 244, 252, 192 pages
    pol = Cocktail(pool_min_blocks=bounds[0], pool_max_blocks=bounds[1], n=n)
    d = EngineDriver(build_engine(engine, _one_plane(256, 10_000), pol, fill=0), 256)
    d.write(range(user_point - 1))
    assert d.pool() == []
    d.write([user_point - 1])
    assert d.pool() == [(d.block(0), user_point, "WR")]
    assert d.state(d.block(0)) == SB_POOL and d.counters()["pool_pushes_user"] == 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("bounds,n,rr_point", [((20, 61), None, 13), ((61, 61), None, 5), ((20, 61), 4, 64)])
def test_rr_frontier_enters_the_pool_at_the_prefill_point(engine, bounds, n, rr_point):
    # ceil(256 / n): 13, 5, 64 RR pages.  A 100-page victim with an empty pool fills RR entries in turn.
    pol = Cocktail(pool_min_blocks=bounds[0], pool_max_blocks=bounds[1], n=n)
    d = EngineDriver(build_engine(engine, _one_plane(256, 40), pol, fill=100), 256)
    d.read([0] * 40)
    full, rest = divmod(100, rr_point)
    pool = d.pool()
    assert [(i, f) for _, i, f in pool] == [(rr_point, "RR")] * full
    wfr = d.eng.mechanism("write_pool").array("wfr_idx")[0]
    assert (wfr if rest else 0) == rest
    # the moved pages sit in source order: entry j holds LPNs j*p .. j*p+p-1
    assert [b for b, _, _ in pool] == [d.block(j * rr_point) for j in range(full)]
    # priority (Algorithm 1, line 3): the next user page completes the first RR entry, not a user frontier
    d.write([200])
    assert d.block(200) == pool[0][0] and d.counters()["user_pages_to_pool"] == 1


# ------------------------------------------------------------------ Eq. 2
def _factor(ratio, reads, valid, thr, n_pages):
    return Fraction(ratio) * Fraction(reads, thr) + (1 - Fraction(ratio)) * Fraction(valid, n_pages)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ratio,expect", [(1.0, "A"), (0.0, "B"), (0.5, "C")])
def test_rr_page_goes_to_the_wr_entry_with_the_least_factor(engine, ratio, expect):
    # Three WR entries of 16-page blocks, 11 pages each (n = 3: 11 * 3 >= 32).
    # A: 0 reads, 11 valid; B: 40 reads, 6 valid; C: 14 reads, 7 valid; threshold 100.
    # fewest reads = A, fewest valid = B, Eq. 2 at 0.5: A 0.344, B 0.388, C 0.289 -> C.
    thr, N = 100, 16
    vals = {"A": (0, 11), "B": (40, 6), "C": (14, 7)}
    by_hand = min(vals, key=lambda k: _factor(ratio, *vals[k], thr, N))
    assert by_hand == expect
    pol = Cocktail(pool_min_blocks=3, pool_max_blocks=3, ratio=ratio)
    d = EngineDriver(build_engine(engine, _one_plane(N, thr), pol, fill=16), N)  # block 0: LPN 0-15, the RR victim
    d.write(range(100, 133))  # A = 100-110, B = 111-121, C = 122-132
    blocks = {k: d.block(l) for k, l in (("A", 100), ("B", 111), ("C", 122))}
    assert [b for b, _, _ in d.pool()] == list(blocks.values())
    d.write(list(range(111, 116)) + list(range(122, 126)))  # 9 overwrites: B 6 valid, C 7 (new frontier < 11)
    d.read([116] * 40 + [126] * 14)
    d.read([0] * thr)  # RR of block 0; its first page (LPN 0) goes first
    assert d.counters()["rr_count"] == 1
    assert d.block(0) == blocks[expect]


@pytest.mark.parametrize("engine", ENGINES)
def test_equal_factors_go_to_the_earliest_entry_and_reads_key_aggregates(engine):
    N = 16
    for key, expect in (("factor", [0, 1, 2, 0]), ("reads", [0, 0, 0, 0])):
        pol = Cocktail(pool_min_blocks=3, pool_max_blocks=3, target_key=key)
        d = EngineDriver(build_engine(engine, _one_plane(N, 100), pol, fill=16), N)  # block 0: the RR victim
        d.write(range(100, 133))
        entries = [b for b, _, _ in d.pool()]
        d.read([0] * 100)
        # by factor, each page raises its block's valid count, so the next one goes to the next entry;
        # by raw reads (constant during one migration) the first entry takes every page
        assert [entries.index(d.block(l)) for l in range(4)] == expect, key


# ------------------------------------------------------------------ capacity: growth, exchange, reset
@pytest.mark.parametrize("engine", ENGINES)
def test_pool_grows_then_swaps_a_hot_entry_for_the_user_frontier(engine):
    N, thr = 16, 100
    pol = Cocktail(pool_min_blocks=2, pool_max_blocks=3)
    d = EngineDriver(build_engine(engine, _one_plane(N, thr), pol, fill=0), N)
    d.write(range(16))  # cap 2 (n = 2): frontiers enter at 8 pages -> A, B
    A, B = d.block(0), d.block(8)
    assert d.pool() == [(A, 8, "WR"), (B, 8, "WR")] and d.cap() == 2
    d.write(range(16, 24))  # full pool, cap < cap_max: cap 3 and C enters (at 8 pages, n = 2 when checked)
    C = d.block(16)
    assert d.pool()[-1] == (C, 8, "WR") and d.cap() == 3 and d.counters()["pool_cap_increments"] == 1
    # n = 3 now: the next frontier D is checked from 11 pages on; its factor (11 valid) beats every entry (8
    # valid, no reads): no swap, D fills up and closes
    d.write(range(24, 40))
    D = d.block(24)
    assert d.state(D) == SB_CLOSED and d.counters()["pool_exchanges"] == 0 and len(d.pool()) == 3
    d.read([9] * 30)  # B: 30 reads -> 0.5 * 0.3 + 0.5 * 8/16 = 0.4
    d.write(range(40, 51))  # E reaches 11 pages: 0.5 * 11/16 = 0.344 < 0.4 -> swap with B
    E = d.block(40)
    assert d.pool() == [(A, 8, "WR"), (C, 8, "WR"), (E, 11, "WR")]
    assert d.counters()["pool_exchanges"] == 1 and d.state(B) == SB_OPEN_USER
    d.write([51])  # the user frontier is B now, continuing at its offset 8
    assert int(d.eng.state_view(0).l2p[51]) == B * N + 8


@pytest.mark.parametrize("engine", ENGINES)
def test_capacity_resets_when_internal_writes_drain_the_pool(engine):
    # 4-page blocks, cap 2..3.  User: A, B enter at 2 pages (n = 2), C grows the pool to 3.
    # RR of block 0 (4 pages): A, B, C, A (equal factors, earliest first) -> A full, leaves (2 left).
    # RR of block 1: B, C fill and leave -> fewer than 2 entries: cap back to 2 after B;
    # the last 2 pages go to the RR frontier, which enters the pool after ceil(4 / 2) = 2 pages.
    pol = Cocktail(pool_min_blocks=2, pool_max_blocks=3)
    d = EngineDriver(build_engine(engine, _one_plane(4, 20), pol, fill=8), 4)
    d.write(range(100, 106))
    A, B, C = (d.block(l) for l in (100, 102, 104))
    assert d.pool() == [(A, 2, "WR"), (B, 2, "WR"), (C, 2, "WR")] and d.cap() == 3
    d.read([0] * 20)
    assert [d.block(l) for l in range(4)] == [A, B, C, A]
    assert d.pool() == [(B, 3, "WR"), (C, 3, "WR")] and d.cap() == 3
    d.read([4] * 20)
    assert [d.block(l) for l in (4, 5)] == [B, C]
    R = d.block(6)
    assert d.block(7) == R and d.pool() == [(R, 2, "RR")]
    c = d.counters()
    assert d.cap() == 2 and c["pool_cap_resets"] == 1 and c["pool_pushes_rr"] == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_full_pool_of_rr_entries_aggregates_rr_data(engine):
    # Read-only: cap 2, 4-page blocks.  RR of a 4-page block makes two RR entries of 2 pages; the next
    # RR finds the pool full with no WR entry and fills the least-factor entry (Algorithm 2, lines 27-32).
    pol = Cocktail(pool_min_blocks=2, pool_max_blocks=2)
    d = EngineDriver(build_engine(engine, _one_plane(4, 20), pol, fill=8), 4)
    d.read([0] * 20)
    R1, R2 = d.block(0), d.block(2)
    assert d.pool() == [(R1, 2, "RR"), (R2, 2, "RR")]
    d.read([4] * 20)
    # equal factors (no reads, 2 valid): R1 takes LPN 4 (3 valid), R2 the next (3), R1 the next and fills up,
    # leaving the pool; with room in the pool again the last page goes to a new RR frontier (line 13)
    W = d.block(7)
    assert [d.block(l) for l in range(4, 8)] == [R1, R2, R1, W] and W not in (R1, R2)
    assert d.pool() == [(R2, 3, "RR")] and d.state(W) == SB_OPEN_GC
    c = d.counters()
    assert c["rr_pages_aggregated"] == 3 and c["rr_pages_to_wfr"] == 4 + 1


@pytest.mark.parametrize("engine", ENGINES)
def test_pool_entry_reclaimed_leaves_the_pool_and_its_free_pages_are_wasted(engine):
    pol = Cocktail(pool_min_blocks=2, pool_max_blocks=2)
    d = EngineDriver(build_engine(engine, _one_plane(4, 20), pol, fill=0), 4)
    d.write([100, 101])  # A enters the pool at 2 pages (n = 2)
    A = d.block(100)
    assert d.pool() == [(A, 2, "WR")]
    d.read([100] * 20)  # A reaches the threshold while in the pool
    c = d.counters()
    assert c["rr_count"] == 1 and c["pool_pages_wasted"] == 2
    # none of A's pages went back into A: with no WR entry left they form an RR entry of 2 pages
    R = d.block(100)
    assert R != A and d.block(101) == R and d.pool() == [(R, 2, "RR")]


# ------------------------------------------------------------------ configuration and charges
def test_pool_bounds_follow_the_plane_size():
    assert pool_bounds(2048) == (20, 61)  # floor(1% of 2048), floor(3% of 2048)
    assert pool_bounds(32) == (1, 1)
    assert pool_bounds(2048, min_blocks=3, max_blocks=5) == (3, 5)


def test_cocktail_charges_no_metadata_and_needs_block_level():
    cfg = device_preset("cocktail")
    pol = Cocktail()
    assert pol.metadata_bytes(cfg) == 0
    assert build_layout(cfg, pol.metadata_bytes(cfg)).cache_pages == build_layout(cfg, 0).cache_pages
    pol.bind(cfg, 0)
    assert pol.write_pool_spec()[:4] == (20, 61, 500_000, 0)
    with pytest.raises(ConfigError, match="superblock size must be 1"):
        Cocktail().bind(device_preset("shuffler"), 0)
    for bad in (dict(ratio=2), dict(n=1), dict(gc_writes="gc"), dict(pool_min_blocks=0), dict(target_key="x")):
        with pytest.raises(ValueError, match="cocktail"):
            Cocktail(**bad)


def test_cocktail_preset_values():
    cfg = device_preset("cocktail")
    g = cfg.geometry
    assert g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die == 128
    assert g.blocks_per_plane * g.pages_per_block * g.page_size_bytes * 128 == 512 << 30
    assert cfg.read_reclaim.rr_threshold_reads == 40 * 256
    assert cfg.gc.gc_threshold_ratio == 0.28
    assert cfg.cache.read_allocate is False and cfg.superblock.k == 1


def test_write_only_cache_lets_raf_copies_reach_flash():
    # the cocktail preset's cache mode on a tiny device: a page read twice (RAF 2) is two flash reads
    cfg = tiny_config(cache_pages=8, read_allocate=False)
    res = flashrr.simulate(cfg, page_trace([5, 5]))
    assert res.summary["flash_read_pages"] == 2


# ------------------------------------------------------------------ Baseline: the double write frontier
@pytest.mark.parametrize("engine", ENGINES)
def test_baseline_keeps_user_and_internal_pages_apart(engine):
    # k = 1 (the cocktail preset's superblock size): per plane one user frontier and one GC/RR frontier
    cfg = tiny_config(planes=2, blocks=24, pages=8, rr=30, gc_ratio=0.2, op=0.4, fill_ratio=1.0)
    rng = np.random.default_rng(3)
    n = 2500
    lpn = np.where(rng.random(n) < 0.6, rng.integers(0, 24, n), rng.integers(0, cfg.logical_pages, n))
    eng = build_engine(engine, cfg, "baseline", fill=cfg.logical_pages)
    d = EngineDriver(eng, 8)
    for i in range(0, n, 50):
        wr = rng.random(50) < 0.15
        for l, w in zip(lpn[i:i + 50], wr):
            (d.write if w else d.read)([int(l)])
        st = eng.state_view(0).sb_state
        S = cfg.geometry.blocks_per_plane
        for lane in range(2):
            lane_st = st[lane * S:(lane + 1) * S]
            assert np.count_nonzero(lane_st == SB_OPEN_USER) <= 1 and np.count_nonzero(lane_st == SB_OPEN_GC) <= 1
    u, r, g = (eng.block_mix(x) for x in ("mix_user", "mix_rr", "mix_gc"))
    assert not np.any((u > 0) & ((r + g) > 0))
    c = d.counters()
    assert c["rr_count"] > 0 and c["gc_count"] > 0 and c["rr_victim_user_pages"] > 0
    res = eng.results()
    for ev in (res["rr_events"], res["gc_events"]):
        moved_in = ev["victim_rr_pages"] + ev["victim_gc_pages"]
        assert np.all((ev["victim_user_pages"] == 0) | (moved_in == 0))


def test_pages_moved_per_erase_next_to_waf():
    # Fig. 6 conventional: two RRs of 4 pages, no GC -> 4 pages moved per erase
    cfg = _one_plane(4, 50)
    queue = [0] * 20 + [1] * 15 + [2] * 10 + [3] * 5
    res = flashrr.simulate(cfg, page_trace(queue * 2))
    assert res.summary["rr_count"] == 2 and res.summary["gc_count"] == 0
    assert res.summary["pages_moved_per_erase"] == 4.0
    assert list(res.rr_events["victim_user_pages"]) == [4, 0] and list(res.rr_events["victim_rr_pages"]) == [0, 4]
