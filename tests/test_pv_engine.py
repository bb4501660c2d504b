"""Process variation in the engine (docs/superblock-pv.md §6):
``process_variation.pv_model`` / ``assembly`` / ``pv_reassembly``.

Expected values come from the hand-built tables in each test (the slowest
plane of a multi-plane program, the slowest block of a multi-plane erase),
from the pv package's own PV Check (``flashrr.pv.assembly.qstr_select``, held
to the paper's figures by test_pv_methods.py), or from today's engine run
without the option; never from the engine under test.
"""
import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from flashrr._core import load_compiled_engine
from flashrr.engine_layout import engine_layout
from flashrr._core.engine_py import ReferenceEngine
from flashrr.config import ASSEMBLY_METHODS, ConfigError
from flashrr.pv import METHODS, PVParams
from flashrr.pv import features as F
from flashrr.pv.assembly import qstr_select
from flashrr.pv.engine_tables import EngineTables, engine_tables
from engine_helpers import (CAPACITY_ERROR, assert_identical, comparable, page_trace, run_both, tiny_config)
from strategies import pv_case

ENGINE_CLASSES = {"compiled": lambda: load_compiled_engine(), "reference": lambda: ReferenceEngine}

ZERO_VARIANCE = PVParams().replace(**{name: 0.0 for name in (
    "layer_amp_us", "sigma_die_layer_us", "sigma_die_us", "sigma_plane_us", "sigma_block_us", "sigma_id_us",
    "sigma_own_us", "sigma_string_us", "sigma_noise_us", "q_us", "sigma_ers_us", "sigma_ers_plane_us",
    "sigma_ers_id_us")})


def run_layout(engine, layout, trace, fill=0):
    """Drive one engine directly on ``layout`` (so a test can hand it its own PV tables);
    returns (raw results, the engine)."""
    eng = ENGINE_CLASSES[engine]()(layout, None, 0, False)
    eng.precondition(fill, np.zeros(0, np.int64))
    eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write, 1)
    eng.finish()
    return eng.results(), eng


def binding(eng):
    """The slot block -> PV block binding of an engine."""
    pv = eng.pv
    return np.array(pv.phys if hasattr(pv, "phys") else pv.array("phys"))


def hand_tables(layout, tprog, tbers, phys, reassembly=False, window=4):
    """EngineTables from hand arrays: ``tprog`` (n_pv, W) ns, ``tbers`` (n_pv,) ns,
    ``phys`` (n_blocks,); one LWL per page offset."""
    W = tprog.shape[1]
    bits = F.str_med_bits(tprog.reshape(-1, W // 4, 4)).reshape(-1, W) if W % 4 == 0 else np.zeros_like(tprog)
    from flashrr.pv.engine_tables import _pack_words
    eigen, n_words = _pack_words(bits)
    return EngineTables("hand", reassembly, window, W, n_words, np.arange(layout.pages_per_block, dtype=np.int32),
                        tprog.reshape(-1).astype(np.int32), tbers.astype(np.int64), phys.astype(np.int32),
                        tprog.sum(axis=1).astype(np.int64), eigen)


def plane_permutation(rng, n_lanes, k, S):
    """A random binding: in every (lane, component) plane, rows take a permutation of its blocks."""
    phys = np.empty(n_lanes * S * k, np.int64)
    for lane in range(n_lanes):
        for c in range(k):
            perm = rng.permutation(S)
            for row in range(S):
                phys[(lane * S + row) * k + c] = (lane * k + c) * S + perm[row]
    return phys


# ---------------------------------------------------------------------------------- today's engine unchanged
def test_pv_off_with_options_set_equals_the_run_without_them(engine):
    """pv_model off: the PV seed, scale, P/E and assembly 'sequential' change nothing."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=24, pages=8, op=0.35, gc_ratio=0.08, fill_ratio=1.0,
                      warmup_random_writes_ratio=0.5)
    rng = np.random.default_rng(4)
    trace = page_trace(rng.integers(0, cfg.logical_pages - 4, 200), writes=rng.random(200) < 0.6,
                       pages=rng.integers(1, 4, 200))
    plain = flashrr.simulate(cfg, trace, engine=engine)
    opts = cfg.replace(assembly="sequential", pv_model="off", pv_seed=9, pv_scale="absolute", pv_pe=3000)
    assert engine_layout(opts).pv is None
    with_opts = flashrr.simulate(opts, trace, engine=engine)
    assert plain.summary["gc_count"] > 0
    assert comparable(plain.summary) == comparable(with_opts.summary)
    assert plain.gc_events.equals(with_opts.gc_events)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("assembly", ["sequential", "random", "qstr_med"])
def test_zero_variance_model_is_bit_identical_to_today(engine, assembly):
    """A PV model with every spread at zero gives every block t_program / t_erase, so the PV
    code path (per-page extras, MP maximum, per-block erase, reassembly) must reproduce
    today's engine exactly: counters, histograms, event tables with erase times."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=24, pages=8, op=0.35, gc_ratio=0.08, fill_ratio=1.0,
                      warmup_random_writes_ratio=0.5, t_prog=350_000, t_erase=3_500_000, rr=6)
    rng = np.random.default_rng(5)
    n = 250
    trace = page_trace(rng.integers(0, cfg.logical_pages - 4, n), writes=rng.random(n) < 0.6,
                       pages=rng.integers(1, 4, n), gap_ns=100_000)
    base = engine_layout(cfg)
    pv_cfg = cfg.replace(pv_model="generative", assembly=assembly, pv_reassembly=assembly == "qstr_med")
    tables = engine_tables(pv_cfg, base.comp_die, base.comp_plane_in_die, base.n_lanes, base.k, ZERO_VARIANCE)
    assert (tables.tprog_ns == 350_000).all() and (tables.tbers_ns == 3_500_000).all()
    fill = cfg.logical_pages
    a, _ = run_layout(engine, base, trace, fill)
    b, eng = run_layout(engine, dataclasses.replace(base, pv=tables), trace, fill)
    assert eng.pv is not None and a["counters"]["gc_count"] > 0 and a["counters"]["rr_count"] > 0
    assert a["counters"] == b["counters"]
    for kind in ("read", "write", "io"):
        assert np.array_equal(a["hist"][kind], b["hist"][kind])
    for kind in ("gc_events", "rr_events"):  # every column but the read counts
        for col in a[kind]:
            if col != "block_reads":
                assert pd.Series(a[kind][col]).equals(pd.Series(b[kind][col])), (kind, col)


# ---------------------------------------------------------------------------------- multi-plane timing
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_multi_plane_program_lasts_as_long_as_its_slowest_plane(engine):
    """One die, 4 planes, one superblock = 4 blocks.  A 4-page write programs one page
    offset on all 4 planes at once: it ends after the slowest of the 4 blocks' latencies
    at that LWL; a 2-page write covers components 0 and 1 only, so only those count."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=8, pages=4, op=0.5, gc_ratio=0.1, t_dram=10)
    L = engine_layout(cfg)
    rng = np.random.default_rng(11)
    S, k, W = L.sb_per_lane, L.k, 4
    tprog = rng.integers(500, 5000, size=(S * k, W))
    phys = plane_permutation(rng, L.n_lanes, k, S)
    layout = dataclasses.replace(L, pv=hand_tables(L, tprog, np.full(S * k, 7000), phys))
    gap = 10**9
    # write LPN 0-3 (row 0, offset 0, all planes), then LPN 4-5 (offset 1, components 0 and 1)
    trace = page_trace([0, 4], writes=[True, True], pages=[4, 2], gap_ns=gap)
    raw, _ = run_layout(engine, layout, trace)
    row0 = [phys[c] for c in range(k)]  # the first superblock allocated is row 0 of lane 0
    want0 = max(tprog[g, 0] for g in row0)
    want1 = max(tprog[g, 1] for g in row0[:2])
    assert want0 != np.mean([tprog[g, 0] for g in row0])  # the maximum, not an average, is tested
    assert raw["counters"]["write_latency_sum_ns"] == want0 + want1
    assert raw["counters"]["busy_user_ns"] == want0 + want1


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_multi_plane_erase_lasts_as_long_as_its_slowest_block(engine):
    """Rewriting one superblock's worth of LPNs leaves whole superblocks invalid; GC
    (gc-first, idle die) erases them without moving a page, so each GC event's erase ends
    exactly the slowest of its victim's 4 blocks' erase latencies after the trigger."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=8, pages=4, op=0.5, gc_ratio=0.3).replace(scheduler="gc-first")
    L = engine_layout(cfg)
    rng = np.random.default_rng(12)
    S, k = L.sb_per_lane, L.k
    tbers = rng.integers(2000, 9000, size=S * k)
    phys = plane_permutation(rng, L.n_lanes, k, S)
    layout = dataclasses.replace(L, pv=hand_tables(L, np.full((S * k, 4), 1000), tbers, phys))
    trace = page_trace([0] * 12, writes=[True] * 12, pages=[16] * 12, gap_ns=10**9)
    raw, _ = run_layout(engine, layout, trace, fill=16)
    events = raw["gc_events"]
    assert len(events["time_ns"]) >= 3
    for t, victim, moved, erase_end in zip(*(events[c] for c in ("time_ns", "superblock", "pages_moved",
                                                                  "erase_end_ns"))):
        assert moved == 0
        want = max(tbers[phys[victim * k + c]] for c in range(k))
        assert erase_end - t == want


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_program_and_an_erase_take_their_own_blocks_latency_at_k1(engine):
    """k = 1 (one plane): a transaction is one block's page, so its latency is that
    block's own.  Single-page writes of LPNs 0 and 1 land at offsets 0 and 1 of the
    first superblock allocated, slot block 0: they take tprog[phys[0], 0] and
    tprog[phys[0], 1].  Then rewrites of LPNs 0-3, one block's worth at a time, leave
    whole blocks invalid; GC (gc-first, idle die) erases each with no move, in its PV
    block's own erase time."""
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.3, t_dram=10).replace(scheduler="gc-first")
    L = engine_layout(cfg)
    rng = np.random.default_rng(13)
    S = L.sb_per_lane
    tprog = rng.integers(500, 5000, size=(S, 4))
    tbers = rng.integers(2000, 9000, size=S)
    phys = plane_permutation(rng, L.n_lanes, 1, S)
    layout = dataclasses.replace(L, pv=hand_tables(L, tprog, tbers, phys))
    raw, _ = run_layout(engine, layout, page_trace([0, 1], writes=[True, True], gap_ns=10**9))
    assert raw["counters"]["write_latency_sum_ns"] == tprog[phys[0], 0] + tprog[phys[0], 1]
    trace = page_trace([0] * 12, writes=[True] * 12, pages=[4] * 12, gap_ns=10**9)
    raw, _ = run_layout(engine, layout, trace, fill=4)
    events = raw["gc_events"]
    assert len(events["time_ns"]) >= 3
    for t, victim, moved, erase_end in zip(*(events[c] for c in ("time_ns", "superblock", "pages_moved",
                                                                  "erase_end_ns"))):
        assert moved == 0
        assert erase_end - t == tbers[phys[victim]]


# ---------------------------------------------------------------------------------- reassembly
@settings(max_examples=40)
@given(st.integers(0, 2**16), st.integers(1, 5), st.booleans(), st.integers(1, 23))
def test_reassembly_picks_what_pv_check_picks(seed, window, slow, n_free):
    """The reference twin's reassembly of a superblock from a free pool equals the pv
    package's PV Check on the same pools (sorted by block sum, ties by block), and it
    only swaps bindings: every plane's binding stays a permutation."""
    from flashrr._core.options.pv_timing_py import PVTiming

    cfg = tiny_config(planes=4, sb_planes=4, blocks=24, pages=8, op=0.35)
    L = engine_layout(cfg)
    rng = np.random.default_rng(seed)
    S, k = L.sb_per_lane, L.k
    tprog = rng.choice([1000, 1006, 1012, 1050], size=(S * k, 8))  # quantized: ties in sums and strings
    phys = plane_permutation(rng, L.n_lanes, k, S)
    layout = dataclasses.replace(L, pv=hand_tables(L, tprog, np.full(S * k, 5000), phys, True, window))
    pv = PVTiming(layout)
    sb = int(rng.integers(0, S))
    free = [int(s) for s in rng.permutation([s for s in range(S) if s != sb])[:n_free]]
    slots = [sb] + free
    bsum = tprog.sum(axis=1)
    pools = [sorted((int(phys[s * k + c]) for s in slots), key=lambda g: (bsum[g], g)) for c in range(k)]
    bits = np.packbits(F.str_med_bits(tprog.reshape(-1, 2, 4)).reshape(-1, 8), axis=-1)
    want, checks = qstr_select([list(p) for p in pools], lambda p, g: bsum[g],
                               lambda p, a, q, ids: F.popcount_distance(bits[a], bits[ids]), window, slow)
    pv.reassemble(sb, free, slow)
    assert [int(pv.phys[sb * k + c]) for c in range(k)] == want
    assert checks == (k - 1) * min(window, len(slots))
    for c in range(k):
        before = sorted(int(phys[s * k + c]) for s in range(S))
        assert sorted(int(pv.phys[s * k + c]) for s in range(S)) == before
        untouched = [s for s in range(S) if s not in slots]
        assert all(pv.phys[s * k + c] == phys[s * k + c] for s in untouched)


def test_user_allocations_get_fast_and_gc_allocations_slow_superblocks(monkeypatch):
    """With pv_reassembly the FTL asks for a slow superblock exactly when the GC/RR
    frontier allocates, and a fast one for the user frontier."""
    from flashrr._core.device import ftl_py as ref_ftl
    from flashrr._core.options.pv_timing_py import PVTiming

    calls, in_gc = [], [False]
    orig_re, orig_gc = PVTiming.reassemble, ref_ftl.Ftl.gc_slot

    def reassemble(self, sb, free, slow):
        calls.append((slow, in_gc[0]))
        return orig_re(self, sb, free, slow)

    def gc_slot(self, lane, c):
        in_gc[0] = True
        try:
            return orig_gc(self, lane, c)
        finally:
            in_gc[0] = False

    monkeypatch.setattr(PVTiming, "reassemble", reassemble)
    monkeypatch.setattr(ref_ftl.Ftl, "gc_slot", gc_slot)
    cfg = tiny_config(planes=4, sb_planes=4, blocks=24, pages=8, op=0.35, gc_ratio=0.1, fill_ratio=1.0,
                      warmup_random_writes_ratio=1.0).replace(pv_model="generative", assembly="qstr_med",
                                                              pv_reassembly=True)
    rng = np.random.default_rng(2)
    trace = page_trace(rng.integers(0, cfg.logical_pages - 4, 120), writes=np.ones(120, bool),
                       pages=rng.integers(1, 4, 120))
    res = flashrr.simulate(cfg, trace, engine="reference")
    assert res.summary["gc_count"] > 0
    assert any(slow for slow, _ in calls) and any(not slow for slow, _ in calls)
    assert all(slow == gc for slow, gc in calls)


def test_reassembly_gives_user_writes_faster_blocks_than_gc(monkeypatch):
    """End to end on a modelled device: under pv_reassembly the blocks PV Check binds for
    the user frontier have a lower mean block program latency sum than those it binds for
    GC (the fast/slow split of paper §V-D), and both engines end with the same binding."""
    from flashrr._core.options.pv_timing_py import PVTiming

    picked = {True: [], False: []}
    orig = PVTiming.reassemble

    def reassemble(self, sb, free, slow):
        orig(self, sb, free, slow)
        picked[slow].extend(int(self.bsum[self.phys[sb * self.k + c]]) for c in range(self.k))

    cfg = tiny_config(planes=4, sb_planes=4, blocks=40, pages=8, op=0.35, gc_ratio=0.1, fill_ratio=1.0,
                      warmup_random_writes_ratio=1.0).replace(pv_model="generative", assembly="qstr_med",
                                                              pv_reassembly=True, pv_seed=1)
    L = engine_layout(cfg)
    rng = np.random.default_rng(3)
    trace = page_trace(rng.integers(0, cfg.logical_pages - 4, 400), writes=np.ones(400, bool))
    fill = cfg.logical_pages
    warm = rng.integers(0, fill, fill)
    bound = {}
    for engine in ("compiled", "reference"):
        if engine == "reference":
            monkeypatch.setattr(PVTiming, "reassemble", reassemble)
        eng = ENGINE_CLASSES[engine]()(L, None, 0, False)
        eng.precondition(fill, warm)
        eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write, 1)
        eng.finish()
        bound[engine] = binding(eng)
    assert np.array_equal(bound["compiled"], bound["reference"])
    assert len(picked[True]) >= 5 * L.k and len(picked[False]) >= 5 * L.k
    assert np.mean(picked[False]) < np.mean(picked[True])


# ---------------------------------------------------------------------------------- equivalence
@settings(max_examples=60)
@given(pv_case())
def test_engines_identical_with_process_variation(case):
    """Compiled and reference engines agree with the PV model on, for every assembly
    method, static or reassembled; in invariant mode no LPN is lost or stale."""
    cfg, trace, repeat, seed, check = case
    a, b = run_both(cfg, trace, repeat=repeat, seed=seed, check_invariants=check)
    assert_identical(a, b, allow_error=CAPACITY_ERROR)


def test_assembly_names_are_the_pv_methods():
    assert ASSEMBLY_METHODS == tuple(METHODS)


def test_static_binding_is_the_assembly_of_each_lane():
    """pv_row_order 'assembly': the initial binding puts the r-th assembled superblock of a
    lane in row r; 'shuffled' puts the same superblocks in other rows."""
    cfg = tiny_config(channels=2, planes=4, sb_planes=2, blocks=12, pages=8, op=0.35).replace(
        pv_model="generative", assembly="pgm_ltn", pv_seed=7, pv_row_order="assembly")
    L = engine_layout(cfg)
    T = L.pv
    k, S = L.k, L.sb_per_lane
    bsum = T.block_sum_ns.reshape(L.n_lanes, k, S)
    rows = (T.phys.reshape(L.n_lanes, S, k) - (np.arange(L.n_lanes)[:, None, None] * k
                                               + np.arange(k)[None, None, :]) * S)
    for lane in range(L.n_lanes):
        for c in range(k):
            # pgm_ltn: row r takes the r-th fastest block of each plane (ns sums may tie; ours are from µs)
            got = bsum[lane, c, rows[lane, :, c]]
            assert sorted(rows[lane, :, c].tolist()) == list(range(S))
            assert np.all(np.diff(got) >= -2 * T.n_lwl)
    shuffled = engine_layout(cfg.replace(pv_row_order="shuffled")).pv.phys.reshape(L.n_lanes, S, k)
    same = lambda x: sorted(map(tuple, x.tolist()))  # noqa: E731  the set of superblocks of a lane
    for lane in range(L.n_lanes):
        assert same(shuffled[lane]) == same(T.phys.reshape(L.n_lanes, S, k)[lane])
    assert not np.array_equal(shuffled, T.phys.reshape(L.n_lanes, S, k))


# ---------------------------------------------------------------------------------- configuration
@pytest.mark.parametrize("changes, field", [
    ({"assembly": "fastest"}, "process_variation.assembly"),
    ({"assembly": "random"}, "process_variation.assembly"),  # needs a PV model
    ({"pv_model": "csv"}, "process_variation.pv_model"),
    ({"pv_model": "generative", "pv_pe": 3001}, "process_variation.pv_pe"),
    ({"pv_model": "generative", "pv_pe": -1}, "process_variation.pv_pe"),
    ({"pv_model": "generative", "pv_scale": "log"}, "process_variation.pv_scale"),
    ({"pv_model": "generative", "pv_row_order": "sorted"}, "process_variation.pv_row_order"),
    ({"pv_model": "generative", "pv_seed": -2}, "process_variation.pv_seed"),
    ({"pv_model": "generative", "pv_window": 4}, "process_variation.pv_window"),  # sequential has no window
    ({"pv_model": "generative", "assembly": "optimal", "pv_window": -1}, "process_variation.pv_window"),
    ({"pv_model": "generative", "assembly": "random", "pv_reassembly": True}, "process_variation.pv_reassembly"),
    ({"pv_reassembly": True}, "process_variation.pv_reassembly"),
    ({"pv_model": "generative", "sb_planes": 1, "sb_dies": 2}, "process_variation.pv_model"),
])
def test_impossible_pv_settings_name_the_field(changes, field):
    cfg = tiny_config(dies=2, planes=4, sb_planes=4, blocks=24, pages=8, op=0.35)
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        cfg.replace(**changes)


def test_pv_settings_round_trip_through_toml():
    cfg = tiny_config(planes=4, sb_planes=4, blocks=24, pages=8, op=0.35).replace(
        pv_model="generative", assembly="qstr_med", pv_reassembly=True, pv_seed=3, pv_pe=1200, pv_window=2)
    back = flashrr.SimConfig.from_toml(cfg.to_toml())
    assert back == cfg


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_precondition_fill_keeps_the_static_assembly_and_warm_up_reassembles(engine):
    """The sequential fill stands for data written long ago: it leaves the (shuffled)
    static binding as it is; the warm-up's allocations reassemble."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=24, pages=8, op=0.35, gc_ratio=0.1).replace(
        pv_model="generative", assembly="qstr_med", pv_reassembly=True, pv_seed=4)
    L = engine_layout(cfg)
    fill = cfg.logical_pages
    eng = ENGINE_CLASSES[engine]()(L, None, 0, False)
    eng.precondition(fill, np.zeros(0, np.int64))
    assert np.array_equal(binding(eng), L.pv.phys)
    eng = ENGINE_CLASSES[engine]()(L, None, 0, False)
    eng.precondition(fill, np.random.default_rng(0).integers(0, fill, fill))
    assert not np.array_equal(binding(eng), L.pv.phys)
