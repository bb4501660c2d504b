"""redFTL and IPR as Cocktail's evaluation describes them: which blocks the
reclaimed pages go to, those blocks' thresholds and capacities, the counters'
restart, and the DRAM charges.  One-plane devices, expected values by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

import flashrr
from engine_helpers import EngineDriver, build_engine, page_trace, tiny_config
from flashrr._core.layout import SB_CLOSED, build_layout
from flashrr.config import ConfigError
from flashrr.papers.cocktail.readbalance import IPR, RedFTL
from flashrr.presets import device_preset

ENGINES = ("compiled", "reference")


def _plane(pages, rr, blocks=64, **kw):
    return tiny_config(blocks=blocks, pages=pages, rr=rr, gc_ratio=0.05, op=0.3, cache_pages=0, **kw)


def _thr(d, lpn):
    return int(d.eng.state_view(0).rr_threshold[d.block(lpn)])


def _stream(d, lpn):
    return int(d.eng.mechanism("rr_streams").array("blk_stream")[d.block(lpn)])


# ------------------------------------------------------------------ redFTL
@pytest.mark.parametrize("engine", ENGINES)
def test_redftl_levels_and_balanced_placement(engine):
    # block 0 holds LPN 0-7; reads 6, 5, 4, 3, 2 of LPN 0-4 = 20 = T.  Hottest first into 2 fresh blocks,
    # each page to the one with the least reads placed so far: 0 -> a (6), 1 -> b (5), 2 -> b (9), 3 -> a (9),
    # 4 -> a (tie: first slot, 11), 5, 6, 7 (0 reads) -> b.  Sums 11 and 9 differ by <= the largest count.
    d = EngineDriver(build_engine(engine, _plane(8, 20), RedFTL(), fill=8), 8)
    d.read([0] * 6 + [1] * 5 + [2] * 4 + [3] * 3 + [4] * 2)
    assert d.counters()["rr_count"] == 1
    a, b = d.block(0), d.block(1)
    assert a != b and [d.block(l) for l in range(8)] == [a, b, b, a, a, b, b, b]
    assert _thr(d, 0) == _thr(d, 1) == 2 * 20 and _stream(d, 0) == _stream(d, 1) == 1
    assert np.all(d.eng.state_view(0).page_counters[:8] == 0)  # counts restart when a page is programmed
    # an RR of a 2x block (block a: LPN 0, 3, 4; 40 reads of LPN 3 since the move) sends its pages to 5x
    # blocks: LPN 3 (40) to one, LPN 0 and 4 (0 each) to the other, less loaded one
    d.read([3] * 40)
    assert d.counters()["rr_count"] == 2
    assert _thr(d, 0) == _thr(d, 3) == 5 * 20 and _stream(d, 0) == _stream(d, 3) == 2
    assert d.block(0) == d.block(4) != d.block(3)


@pytest.mark.parametrize("engine", ENGINES)
def test_redftl_counts_saturate_at_255(engine):
    # LPN 0 read 300 times, LPN 1 400 times: both rank as 255, so source order decides (LPN 0 first, into the
    # first block opened); unsaturated counts would put LPN 1 first
    d = EngineDriver(build_engine(engine, _plane(8, 700), RedFTL(), fill=8), 8)
    d.read([0] * 300 + [1] * 400)
    assert d.counters()["rr_count"] == 1
    assert d.block(0) < d.block(1)


def test_redftl_charges_one_byte_per_logical_page():
    cfg = tiny_config(cache_pages=64, pages=8, blocks=64)
    res = flashrr.simulate(cfg, page_trace([1, 2]), policy="redftl")
    assert res.summary["policy_metadata_bytes"] == cfg.logical_pages
    assert res.summary["cache_pages"] == (64 * 4096 - cfg.logical_pages) // 4096


# ------------------------------------------------------------------ IPR
@pytest.mark.parametrize("engine", ENGINES)
def test_ipr_hot_pages_go_to_reduced_capacity_blocks_with_ten_times_the_threshold(engine):
    # 12-page blocks: IPR blocks hold floor(12 * 2/3) = 8 pages.  LPN 0-9 read 3 times each (30 = T); the
    # mean over the 12 valid pages is 2.5, so LPN 0-9 are hot: 8 fill one IPR block, 2 open a second;
    # LPN 10 and 11 go to the ordinary frontier.
    d = EngineDriver(build_engine(engine, _plane(12, 30), IPR(), fill=12), 12)
    d.read([l for l in range(10) for _ in range(3)])
    assert d.counters()["rr_count"] == 1
    x, y, z = d.block(0), d.block(8), d.block(10)
    assert [d.block(l) for l in range(12)] == [x] * 8 + [y] * 2 + [z] * 2 and len({x, y, z}) == 3
    assert d.state(x) == SB_CLOSED  # full at 8 of its 12 pages
    assert _thr(d, 0) == _thr(d, 8) == 300 and _thr(d, 10) == 30
    assert _stream(d, 0) == _stream(d, 8) == 1 and _stream(d, 10) == 0
    assert np.all(d.eng.state_view(0).page_counters[:12] == 0)
    assert d.counters()["stream_blocks"] == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_ipr_live_block_cap_sends_hot_pages_to_the_ordinary_frontier(engine):
    # max_fraction 0.02 of 64 blocks: 1 live IPR block per plane; LPN 8 and 9 find the cap reached
    pol = IPR(max_fraction=0.02)
    d = EngineDriver(build_engine(engine, _plane(12, 30), pol, fill=12), 12)
    d.read([l for l in range(10) for _ in range(3)])
    assert [d.block(l) for l in (8, 9)] == [d.block(10)] * 2 and d.block(0) != d.block(8)
    c = d.counters()
    assert c["stream_fallback_pages"] == 2 and c["stream_blocks"] == 1
    assert int(d.eng.mechanism("rr_streams").array("live")[1]) == 1


def test_ipr_charges_two_bytes_per_monitored_page():
    cfg = tiny_config(cache_pages=64, pages=8, blocks=64)
    res = flashrr.simulate(cfg, page_trace([1, 2]), policy="ipr")
    charge = 2 * math.ceil(0.10 * cfg.geometry.n_pages)
    assert res.summary["policy_metadata_bytes"] == charge
    assert res.summary["cache_pages"] == (64 * 4096 - charge) // 4096


def test_charges_on_the_cocktail_preset():
    cfg = device_preset("cocktail")
    assert RedFTL().metadata_bytes(cfg) == cfg.logical_pages
    assert IPR().metadata_bytes(cfg) == 2 * math.ceil(0.1 * 2048 * 256 * 128)  # 12.8 MiB
    assert build_layout(cfg, IPR().metadata_bytes(cfg)).cache_pages == ((256 << 20) - 13_421_774) // 8192
    pol = IPR()
    pol.bind(cfg, 0)
    assert pol.rr_streams_spec()[2] == ((10, 170, 1, 307),)  # floor(256 * 2/3), floor(0.15 * 2048)
    red = RedFTL()
    red.bind(cfg, 0)
    assert red.rr_streams_spec() == (1, 255, ((2, 256, 2, -1), (5, 256, 2, -1)))
    with pytest.raises(ConfigError, match="superblock size must be 1"):
        RedFTL().bind(device_preset("shuffler"), 0)
    for bad in (lambda: IPR(density=0), lambda: IPR(mult=0), lambda: RedFTL(n_open=9), lambda: RedFTL(mults=(2,))):
        with pytest.raises(ValueError):
            bad()


def test_rr_streams_refuse_coarse_page_counters(engine):
    """The streams send pages by their own read counts: one counter per LPN, or the run is
    refused before it starts (both engines, through the shared engine builder)."""
    class CoarseRedFTL(RedFTL):
        page_counter_group = 8

    with pytest.raises(flashrr.EngineError, match=r"rr_streams need one page counter per logical page"):
        flashrr.simulate(_plane(8, 40), page_trace([0, 1, 2]), CoarseRedFTL(), engine=engine)
