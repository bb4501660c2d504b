"""Packing a trace onto its footprint (flashrr.trace.packing, the pipeline's ``pack``):
the touched pages (or units of pages) become a bijection onto 0 .. footprint - 1, in
address order; a request stays one contiguous extent; reads and writes of one page land
on one packed page; with a unit, every page keeps its place in its unit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from engine_helpers import tiny_config
from strategies import busy_traces, wide_traces
from trace_helpers import joined_chunks, make_trace

from flashrr import simulate
from flashrr.trace import Trace, TraceError
from flashrr.trace.packing import PackMap, pack, request_pages, stripe_pages
from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec
from flashrr.trace.source import MemorySource, SourceInfo
from flashrr.trace.stages import Pack

PAGE = 4096


def page_map(orig: Trace, packed: Trace, page: int) -> dict:
    """Original page -> packed page, from every page of every request; fails if one original page
    lands on two packed pages or a request's pages are not contiguous after packing."""
    m = {}
    f0, l0 = request_pages(orig.offset, orig.size, page)
    f1, l1 = request_pages(packed.offset, packed.size, page)
    for a, b, c, d in zip(f0, l0, f1, l1):
        assert d - c == b - a, "a request must span as many pages packed as before"
        for k in range(b - a + 1):
            assert m.setdefault(int(a + k), int(c + k)) == int(c + k), "one page, two packed pages"
    return m


def test_hand_counted_pack():
    # pages touched (4 KiB pages): request 0 bytes 100..8291 -> pages 0-2; request 1 at page 10 (one
    # page); request 2 at page 1,000,000 with 2 pages (offset 1,000,000 * 4096 + 4000, 200 bytes:
    # bytes ...4000..4199 cross into the next page); request 3 re-reads page 10 as a write.
    # Runs: [0, 2], [10, 10], [1,000,000, 1,000,001] -> packed bases 0, 3, 4; footprint 6 pages.
    base = 1_000_000 * PAGE
    tr = make_trace([100, 10 * PAGE + 7, base + 4000, 10 * PAGE], is_write=[0, 0, 1, 1],
                    size=[8192, 512, 200, 4096])
    got = pack(tr, PAGE)
    assert list(got.offset) == [100, 3 * PAGE + 7, 4 * PAGE + 4000, 3 * PAGE]
    assert list(got.size) == list(tr.size) and list(got.time_ns) == list(tr.time_ns)
    assert list(got.is_write) == list(tr.is_write)
    m = PackMap(PAGE)
    m.add(tr.offset, tr.size)
    assert m.footprint_pages == 6
    assert list(m.starts) == [0, 10, 1_000_000] and list(m.ends) == [2, 10, 1_000_001]


@settings(max_examples=60, deadline=None)
@given(tr=st.one_of(busy_traces(), wide_traces()), page=st.sampled_from([512, 4096, 8192]))
def test_touched_pages_map_one_to_one_onto_the_footprint_in_order(tr, page):
    got = pack(tr, page)
    m = page_map(tr, got, page)
    # a bijection of the touched pages onto 0 .. footprint - 1, keeping their order
    src = sorted(m)
    assert [m[p] for p in src] == list(range(len(src)))
    pm = PackMap(page)
    pm.add(tr.offset, tr.size)
    assert pm.footprint_pages == len(src)
    assert list(got.offset % page) == list(tr.offset % page)  # the byte within the page kept


@settings(max_examples=60, deadline=None)
@given(tr=st.one_of(busy_traces(), wide_traces()), unit=st.sampled_from([2, 4, 20, 32]))
def test_touched_units_map_one_to_one_and_every_page_keeps_its_place_in_its_unit(tr, unit):
    got = pack(tr, PAGE, unit)
    m = page_map(tr, got, PAGE)
    assert all(p % unit == q % unit for p, q in m.items())  # the component block (lpn mod unit) is kept
    units = {}
    for p, q in m.items():
        assert units.setdefault(p // unit, q // unit) == q // unit  # one unit lands on one unit
    src = sorted(units)
    assert [units[u] for u in src] == list(range(len(src)))  # touched units: a bijection onto 0 .. n-1, in order
    pm = PackMap(PAGE, unit)
    pm.add(tr.offset, tr.size)
    assert pm.footprint_pages == len(src) * unit


def test_hand_counted_stripe_pack():
    # 4-page stripes: a 2-page extent at the start of stripe 0 and one at the start of stripe 9 (page 36);
    # packed by page the second would start on page 2 (component 2); by stripe it starts on page 4
    # (component 0 again), as in the unpacked trace
    tr = make_trace([0, 36 * PAGE], size=2 * PAGE)
    assert list(pack(tr, PAGE).offset // PAGE) == [0, 2]
    assert list(pack(tr, PAGE, 4).offset // PAGE) == [0, 4]


def test_stripe_of_each_placement():
    cfg = tiny_config(channels=2, planes=2, sb_planes=2)  # 4 planes in 2 lanes of k = 2
    assert stripe_pages(cfg) == 2
    assert stripe_pages(cfg.replace(placement="static_lane")) == 4  # k x 2 lanes
    assert stripe_pages(cfg.replace(placement="static_die")) == 4   # k x 2 dies


@settings(max_examples=40, deadline=None)
@given(tr=busy_traces(), chunk=st.integers(1, 120), unit=st.sampled_from([1, 4]))
def test_the_stage_equals_the_in_memory_pack_for_any_chunk_size(tr, chunk, unit):
    stage = Pack(MemorySource(tr), PAGE, unit)
    assert joined_chunks(stage, chunk) == pack(tr, PAGE, unit)
    assert stage.info() == SourceInfo.of_trace(pack(tr, PAGE, unit))


def test_a_packed_trace_fits_a_device_its_addresses_do_not():
    cfg = tiny_config()
    page = cfg.geometry.page_size_bytes
    far = cfg.logical_pages * page * 50  # far past the device's logical space
    tr = make_trace([far, far + 64 * page, far, far + 3 * page], is_write=[1, 1, 0, 0], size=page)
    with pytest.raises(TraceError, match="pack=stripe"):
        simulate(cfg, tr)
    # the four requests touch 3 distinct pages, packed to 0, 1, 2: the fill writes those 3 pages only
    assert sorted(set(pack(tr, page).offset // page)) == [0, 1, 2]
    res = simulate(cfg, MemorySource(pack(tr, page)))
    assert res.summary["occupancy"] == 3 / cfg.logical_pages
    assert res.summary["flash_read_pages"] == 2  # the two reads miss the (absent) cache


def test_occupancy_is_the_footprint_or_the_stated_share_counted_by_hand():
    cfg = tiny_config()  # 32 blocks of 16 pages, OP 0.3: 358 logical pages
    assert cfg.logical_pages == 358
    tr = make_trace([0, 5 * PAGE], is_write=[0, 0], size=PAGE)  # highest page 5: 6 pages filled
    assert simulate(cfg, tr).summary["occupancy"] == 6 / 358
    # a stated occupancy of 0.5 fills ceil(0.5 * 358) = 179 pages: the trace's 6 and 173 cold ones
    assert simulate(cfg.replace(fill_ratio=0.5), tr).summary["occupancy"] == 179 / 358
    # the trace's own pages win over a smaller stated share: ceil(0.01 * 358) = 4 < 6
    assert simulate(cfg.replace(fill_ratio=0.01), tr).summary["occupancy"] == 6 / 358


def test_pipeline_key_pack_needs_a_device_and_is_canonical():
    spec = parse_trace_spec("synth:ali1?n_requests=200&repeat=2&pack=Stripe")
    assert spec.canonical().endswith("pack=stripe&repeat=2")
    with pytest.raises(TraceError, match="'pack' packs at a device's page size"):
        open_trace_spec("synth:ali1?n_requests=200&pack=page")
    with pytest.raises(TraceError, match="pack='one': expected page, stripe or a positive number of pages"):
        parse_trace_spec("synth:ali1?pack=one")


def test_pipeline_pack_in_units_of_n_pages():
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=64)
    tr = make_trace([0, 37 * PAGE], size=PAGE)
    from flashrr.trace.pipeline import apply_pipeline
    spec = parse_trace_spec("x.csv?pack=4")
    assert spec.canonical() == "x.csv?pack=4"
    # 4-page units: page 37 is page 1 of unit 9, packed to unit 1: page 5
    assert list(apply_pipeline(spec, MemorySource(tr), cfg).to_trace().offset // PAGE) == [0, 5]
    with pytest.raises(TraceError, match="pack='0'"):
        parse_trace_spec("x.csv?pack=0")


def test_pipeline_pack_stripe_uses_the_devices_stripe():
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=64)
    tr = make_trace([0, 36 * PAGE], size=2 * PAGE)
    from flashrr.trace.pipeline import apply_pipeline
    got = apply_pipeline(parse_trace_spec("x.csv?pack=stripe"), MemorySource(tr), cfg).to_trace()
    assert list(got.offset // PAGE) == [0, 2]  # k = 2: extents of 2 pages stay at component 0
    got = apply_pipeline(parse_trace_spec("x.csv?pack=page"), MemorySource(tr), cfg).to_trace()
    assert list(got.offset // PAGE) == [0, 2]
    tr3 = make_trace([0, 37 * PAGE], size=PAGE)  # page 37 is component 1 of its superpage
    got = apply_pipeline(parse_trace_spec("x.csv?pack=stripe"), MemorySource(tr3), cfg).to_trace()
    assert list(got.offset // PAGE) == [0, 3]


def test_pipeline_pack_comes_before_fold_and_repeat():
    cfg = tiny_config()
    src, _ = open_trace_spec("synth:ali1?n_requests=300&seed=3&pack=page&repeat=2", cfg)
    whole, _ = open_trace_spec("synth:ali1?n_requests=300&seed=3", cfg)
    tr = whole.to_trace()
    packed = pack(tr, cfg.geometry.page_size_bytes)
    got = src.to_trace()
    assert len(got) == 2 * len(tr)
    assert np.array_equal(got.offset[:len(tr)], packed.offset) and np.array_equal(got.offset[len(tr):], packed.offset)
