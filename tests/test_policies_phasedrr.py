"""PhasedRR (flashrr.papers.phasedrr.policies + flashrr/_core/mechanisms/working_sets.pyx and its twin):
working-set membership, the classes of Eqs. 1-3, idle and forced moves by phase,
cold pages waiting for the hard threshold, stale queued moves, DRAM charge,
RR accounting and engine equivalence.

The hand-countable device: one die, one plane, 16 pages per block, hard RR
threshold H = 100, Delta = 4 with phase_mult (1, 2, 4, 2, 1), so the soft
threshold is S = 100 - 40 = 60 and the windows (block read count after the
read) are WS I [60, 64), WS II [64, 72), WS III = Phase I [72, 88),
Phase II [88, 96), Phase III [96, 100).  The trace reads LPNs 0..15, which the
sequential fill puts at offsets 0..15 of one block (checked), so the LPN is the
offset in the block.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import event, given, settings

import flashrr
from engine_helpers import CAPACITY_ERROR, assert_identical, build_engine, page_trace, run_both, tiny_config
from flashrr._core.layout import build_layout
from flashrr.config import ConfigError, ReadRetryConfig
from flashrr.papers.phasedrr.policies import PhasedRR, phase_bounds, ws_bytes_per_block
from flashrr.policies import make_policy
from strategies import phasedrr_case

ENGINES = ("compiled", "reference")
IDLE_GAP = 100_000_000  # 100 ms between requests: every move fits in the gap
H = 100

# offsets read at block read counts 1..100 (one single-page read each)
WS1 = [0, 1, 2, 5]  # c = 60..63
WS2 = [0, 1] + [3] * 6  # c = 64..71
WS3 = [2, 0] + [6] * 14  # c = 72..87; page 0 is in all three sets when read at c = 73
PH2 = [1] + [15] * 7  # c = 88..95; page 1 (hotter) is visited, page 2 (hotter) is not
PH3 = [15, 3, 15, 15]  # c = 96..99; page 3 (tepid) is visited at c = 97
SCRIPT = [15] * 59 + WS1 + WS2 + WS3 + PH2 + PH3 + [15]  # the 100th read triggers the hard RR
assert len(SCRIPT) == 100


def _cfg(**kw):
    return tiny_config(blocks=32, pages=16, rr=H, gc_ratio=0.1, **kw)


def _engine(engine, cfg, policy):
    return build_engine(engine, cfg, policy, 16), build_layout(cfg, make_policy(policy).metadata_bytes(cfg))


def _feed(eng, lpns, t0, gap, writes=None, page=4096):
    n = len(lpns)
    times = t0 + np.arange(n, dtype=np.int64) * gap
    wr = np.zeros(n, np.uint8) if writes is None else np.asarray(writes, np.uint8)
    eng.run(times, np.asarray(lpns, np.int64) * page, np.full(n, page, np.int64), wr)
    return int(times[-1]) + gap if n else t0


def _counters(eng):
    r = eng.results()
    return {**r["counters"], **r["mechanism_counters"]}


def test_phase_bounds_follow_delta():
    # S = H - 10 Delta; t1..t4 are the running sums of Delta * (1, 2, 4, 2)
    assert phase_bounds(100, 4) == (60, 64, 72, 88, 96)
    assert phase_bounds(25_000, 256) == (22_440, 22_696, 23_208, 24_232, 24_744)
    assert [phase_bounds(25_000, d)[0] for d in (128, 256, 512, 1024)] == [23_720, 22_440, 19_880, 14_760]


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="delta_reads"):
        PhasedRR(delta_reads=0)
    for bad in ((1, 2, 4), 3, "1,2,4,2,1", (1, 2, 4, 2, 0)):
        with pytest.raises(ValueError, match="phase_mult"):
            PhasedRR(phase_mult=bad)
    with pytest.raises(ValueError, match="max_blocks"):
        PhasedRR(max_blocks=0)
    with pytest.raises(ConfigError, match="soft threshold would be negative"):
        PhasedRR(delta_reads=11).bind(_cfg(), 0)  # 110 > H


@pytest.mark.parametrize("engine", ENGINES)
def test_working_set_membership_and_hottest_moves_in_idle_time(engine):
    eng, L = _engine(engine, _cfg(), PhasedRR(delta_reads=4))
    l2p0 = eng.state_view(0).l2p.copy()
    blk = int(l2p0[0]) // 16
    assert [int(p) for p in l2p0[:16]] == [blk * 16 + o for o in range(16)]
    ws = eng.mechanism("working_sets")
    t = _feed(eng, SCRIPT[:59], 0, IDLE_GAP)
    assert int(ws.array("slot_of")[blk]) == -1  # below S: no slot
    t = _feed(eng, SCRIPT[59:87], t, IDLE_GAP)  # up to c = 87
    slot = int(ws.array("slot_of")[blk])
    assert slot >= 0
    bits = ws.array("bits")[slot * 16:(slot + 1) * 16] & 7
    # 1 = WS I, 2 = WS II, 4 = WS III
    expect = np.zeros(16, np.uint8)
    expect[[0, 1, 2, 5]] |= 1
    expect[[0, 1, 3]] |= 2
    expect[[2, 0, 6]] |= 4
    assert bits.tolist() == expect.tolist()
    c = _counters(eng)
    # page 0 (hottest) moved in the idle gap after its Phase I read; nothing else moved yet
    assert c["idle_moves"] == 1 and c["rr_forced_moves"] == 0
    v = eng.state_view(0)
    assert int(v.l2p[0]) // 16 != blk
    assert [int(v.l2p[o]) for o in range(1, 16)] == [blk * 16 + o for o in range(1, 16)]
    # page 2 is in WS I and WS III only: not hottest, not moved in Phase I


@pytest.mark.parametrize("engine", ENGINES)
def test_phases_with_ample_idle_time(engine):
    eng, L = _engine(engine, _cfg(), PhasedRR(delta_reads=4))
    blk = int(eng.state_view(0).l2p[0]) // 16
    t = _feed(eng, SCRIPT[:95], 0, IDLE_GAP)  # up to c = 95 (end of Phase II)
    c = _counters(eng)
    assert (c["idle_moves"], c["rr_forced_moves"]) == (2, 0)  # page 0 in Phase I, page 1 in Phase II
    t = _feed(eng, SCRIPT[95:96], t, IDLE_GAP)  # c = 96: page 2 (hotter, never visited) is forced
    c = _counters(eng)
    assert (c["idle_moves"], c["rr_forced_moves"]) == (2, 1)
    t = _feed(eng, SCRIPT[96:99], t, IDLE_GAP)  # c = 97..99: page 3 (tepid) moves in idle time
    c = _counters(eng)
    assert (c["idle_moves"], c["rr_forced_moves"], c["rr_count"]) == (3, 1, 0)
    v = eng.state_view(0)
    moved = [o for o in range(16) if int(v.l2p[o]) // 16 != blk]
    assert moved == [0, 1, 2, 3]  # cold pages and unvisited tepid pages 5, 6 still wait at c = 99
    _feed(eng, SCRIPT[99:], t, IDLE_GAP)  # c = 100: hard RR moves the 12 pages left
    eng.finish()
    c = _counters(eng)
    assert (c["rr_count"], c["rr_page_moves"], c["rr_episodes"], c["erases_rr"]) == (1, 12, 1, 1)
    v = eng.state_view(0)
    assert all(int(v.l2p[o]) // 16 != blk for o in range(16))
    # accuracy by hand.  Page 0 is judged when identified (c = 73): reads 15: 59, 0: 3, 1: 2, 2: 1, 3: 6,
    # 5: 1, 6: 1, population 16, mean 73/16 = 4.6: not hot.  The others at c = 88: page 15: 59, page 0: 3
    # (frozen after its move), 1: 2, 2: 2, 3: 6, 5: 1, 6: 14, the other 9 pages 0; mean 87/16 = 5.4
    assert (c["ws_htt"], c["ws_htt_hot"]) == (1, 0)
    assert (c["ws_htr"], c["ws_htr_hot"]) == (2, 0)
    assert (c["ws_tpd"], c["ws_tpd_hot"]) == (3, 2)  # pages 3 and 6 are hot, 5 is not
    assert c["ws_classify_scans"] == 1
    assert c["ws_peak_bytes"] == ws_bytes_per_block(16) == 6
    assert int(eng.mechanism("working_sets").array("slot_of")[blk]) == -1  # the erase freed the slot


@pytest.mark.parametrize("engine", ENGINES)
def test_forced_moves_at_phase_ends_without_idle_time(engine):
    """All requests arrive at once: no move can start before the next arrival, so the
    hottest page is forced by the read that makes c = 88, the two hotter pages by the
    read that makes c = 96; the queued tepid page never moves and the hard RR takes it."""
    eng, L = _engine(engine, _cfg(), PhasedRR(delta_reads=4))
    t = _feed(eng, SCRIPT[:87], 0, 0)
    assert _counters(eng)["rr_forced_moves"] == 0
    t = _feed(eng, SCRIPT[87:88], 0, 0)  # c = 88
    c = _counters(eng)
    assert (c["idle_moves"], c["rr_forced_moves"]) == (0, 1)
    assert c["busy_rr_ns"] == 100 + 1000  # one page read (100 ns) and one program (1000 ns), booked at once
    t = _feed(eng, SCRIPT[88:95], 0, 0)
    assert _counters(eng)["rr_forced_moves"] == 1
    t = _feed(eng, SCRIPT[95:96], 0, 0)  # c = 96: pages 1 and 2
    assert _counters(eng)["rr_forced_moves"] == 3
    _feed(eng, SCRIPT[96:], 0, 0)
    eng.finish()
    c = _counters(eng)
    # 16 valid pages - 3 forced = 13 moved by the hard RR (tepid page 3 was queued, never idle)
    assert (c["idle_moves"], c["rr_forced_moves"], c["rr_page_moves"], c["rr_episodes"]) == (0, 3, 13, 1)


def _k2_engine(engine):
    """The same thresholds on a two-plane superblock (k = 2): the fill of LPNs 0..15 puts
    LPN 1 at offset 0 of component 1, block 1 of superblock 0 (checked)."""
    cfg = tiny_config(planes=2, sb_planes=2, blocks=32, pages=16, rr=H)
    eng, _ = _engine(engine, cfg, PhasedRR(delta_reads=4))
    assert int(eng.state_view(0).l2p[1]) == 1 * 16 + 0
    return eng


@pytest.mark.parametrize("engine", ENGINES)
def test_an_idle_move_keeps_the_pages_component_at_k2(engine):
    """A page moved in idle time goes to its own component of the GC/RR frontier.  80
    reads of LPN 1, 100 ms apart: block 1 reaches c = 72 (WS III) with LPN 1 in all three
    sets (read at c = 60..63, 64..71, 72), so it is queued as hottest and moves in the
    next gap: one read (100 ns) and one program (1,000 ns).  Its reads 73..80 then count
    on its new block, far below S.  It lands on component 1 of another superblock."""
    eng = _k2_engine(engine)
    _feed(eng, [1] * 80, 0, IDLE_GAP)
    eng.finish()
    c = _counters(eng)
    assert (c["idle_moves"], c["rr_forced_moves"], c["rr_count"]) == (1, 0, 0)
    assert c["busy_move_ns"] == 100 + 1_000
    new = int(eng.state_view(0).l2p[1])
    assert new // 16 // 2 != 0  # another superblock
    assert (new // 16) % 2 == 1  # component 1, as before the move


@pytest.mark.parametrize("engine", ENGINES)
def test_a_forced_move_keeps_the_pages_component_at_k2(engine):
    """A forced move, too, keeps the page's component.  88 reads of LPN 1 all arrive at
    time 0: no move can start before the next arrival, so the idle move queued at
    c = 72 never runs.  The read that makes c = 88 (start of Phase II) forces the
    hottest page left in the block, LPN 1: one read and one program, booked at once
    (RR work, 1,100 ns), to component 1 of the frontier."""
    eng = _k2_engine(engine)
    _feed(eng, [1] * 87, 0, 0)
    assert _counters(eng)["rr_forced_moves"] == 0
    _feed(eng, [1], 0, 0)
    eng.finish()
    c = _counters(eng)
    assert (c["idle_moves"], c["rr_forced_moves"], c["rr_count"]) == (0, 1, 0)
    assert c["busy_rr_ns"] == 100 + 1_000
    new = int(eng.state_view(0).l2p[1])
    assert new // 16 // 2 != 0
    assert (new // 16) % 2 == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_request_right_after_a_forced_move_waits_for_it(engine):
    eng, L = _engine(engine, _cfg(), PhasedRR(delta_reads=4))
    t = _feed(eng, SCRIPT[:87], 0, IDLE_GAP)
    c0 = _counters(eng)["read_latency_sum_ns"]
    t = _feed(eng, SCRIPT[87:95], t, IDLE_GAP)  # c = 88..95: nothing forced (page 0 moved in Phase I)
    c1 = _counters(eng)["read_latency_sum_ns"]
    assert c1 - c0 == 8 * 100  # eight reads in idle gaps: 100 ns of sensing each
    # the read at t makes c = 96 and forces page 2 when it ends (t + 100): a 100 ns read, then a
    # 1000 ns program on the only die; a read arriving at t + 1 starts at t + 1200
    eng.run(np.array([t, t + 1], np.int64), np.array([15, 15], np.int64) * 4096, np.full(2, 4096, np.int64),
            np.zeros(2, np.uint8))
    c2 = _counters(eng)["read_latency_sum_ns"]
    assert _counters(eng)["rr_forced_moves"] == 1
    assert c2 - c1 == 100 + (1300 - 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_overwritten_queued_page_is_not_moved(engine):
    """Page 0 is queued at c = 73; a write of LPN 0 arrives before the read completes,
    so the move finds LPN 0 elsewhere and drops itself."""
    eng, L = _engine(engine, _cfg(), PhasedRR(delta_reads=4))
    t = _feed(eng, SCRIPT[:73], 0, IDLE_GAP)  # up to c = 73: page 0 queued, its read done at t + 110
    eng.run(np.array([t - IDLE_GAP + 50], np.int64), np.array([0], np.int64), np.array([4096], np.int64),
            np.array([1], np.uint8))
    new_ppn = int(eng.state_view(0).l2p[0])
    t = _feed(eng, SCRIPT[73:95], t, IDLE_GAP)
    c = _counters(eng)
    assert c["idle_moves_dropped"] == 1
    assert c["idle_moves"] == 1  # only page 1 (Phase II)
    assert c["rr_forced_moves"] == 0  # the forced HTT scan at c = 88 finds page 0 invalid
    assert int(eng.state_view(0).l2p[0]) == new_ppn


def test_gc_erase_of_a_candidate_frees_its_slot():
    """A candidate block whose pages are all overwritten is erased by GC; its slot is freed."""
    eng, L = _engine("reference", _cfg(), PhasedRR(delta_reads=4))
    blk = int(eng.state_view(0).l2p[0]) // 16
    t = _feed(eng, SCRIPT[:62], 0, IDLE_GAP)
    ws = eng.mechanism("working_sets")
    assert int(ws.array("slot_of")[blk]) >= 0
    # overwrite everything many times: GC eventually takes the (empty) candidate block
    lp = list(range(16)) * 40
    _feed(eng, lp, t, IDLE_GAP, writes=np.ones(len(lp)))
    assert int(ws.array("slot_of")[blk]) == -1
    assert int(ws.array("page_reads")[blk * 16:(blk + 1) * 16].sum()) == 0


# ------------------------------------------------------------------------------ DRAM


def test_bitmap_memory_is_charged_for_the_pool():
    cfg = flashrr.SimConfig.preset("phasedrr")
    pol = PhasedRR()
    assert ws_bytes_per_block(256) == 96
    assert pol.metadata_bytes(cfg) == 853 * 96  # 81,888 B < 80 KiB + 96
    layout = build_layout(cfg, pol.metadata_bytes(cfg))
    assert layout.cache_pages == ((64 << 20) - 853 * 96) // 8192 == 8182
    assert PhasedRR(max_blocks=10).metadata_bytes(cfg) == 960
    assert PhasedRR(max_blocks=10 ** 9).metadata_bytes(cfg) == cfg.geometry.n_blocks * 96


@pytest.mark.parametrize("engine", ENGINES)
def test_peak_bitmap_memory_follows_candidate_blocks_and_pool_limit(engine):
    """Two blocks become candidates together: the peak is 2 x 6 B; with a pool of one
    block the second is not tracked."""
    cfg = tiny_config(blocks=32, pages=16, rr=H, gc_ratio=0.1)
    lpns = [0, 16] * 70  # LPN 0 in block A, LPN 16 in block B: both reach c = 70
    for pool, peak, full in ((4, 12, 0), (1, 6, 1)):
        res = flashrr.simulate(cfg, page_trace(lpns, gap_ns=IDLE_GAP), policy=PhasedRR(delta_reads=4, max_blocks=pool),
                               engine=engine)
        assert (res.summary["ws_peak_bytes"], res.summary["ws_pool_full"]) == (peak, full)


# ------------------------------------------------------------------------------ read retry table


def test_progressive_retry_table_by_level():
    rr = ReadRetryConfig.ldpc_progressive(85_000, 24_000, 7)
    lat_ms = [(85_000 + e) / 1e6 for e in rr.extra_ns_by_retries()]
    # lat(L) = sum over passes i < L of (0.085 + 0.024 i) ms
    assert lat_ms == pytest.approx([sum(0.085 + 0.024 * i for i in range(L)) for L in range(1, 8)], abs=1e-12)
    assert [round(x, 3) for x in lat_ms] == [0.085, 0.194, 0.327, 0.484, 0.665, 0.870, 1.099]
    assert rr.retry_step_fractions == pytest.approx([j / 7 for j in range(1, 7)])
    preset = flashrr.SimConfig.preset("phasedrr")
    assert preset.read_retry == rr and preset.timing.t_read_ns == 85_000
    assert flashrr.SimConfig.from_toml(preset.to_toml()) == preset  # the table survives TOML (sweep specs)


def test_retry_table_is_validated():
    with pytest.raises(ConfigError, match="one entry per retry step"):
        ReadRetryConfig("custom", (0.5, 0.9), 0, (10,))
    with pytest.raises(ConfigError, match="non-decreasing"):
        ReadRetryConfig("custom", (0.5, 0.9), 0, (10, 5))
    with pytest.raises(ConfigError, match="must be 0"):
        ReadRetryConfig("custom", (0.5, 0.9), 7, (10, 20))


@pytest.mark.parametrize("engine", ENGINES)
def test_read_latency_follows_the_table_and_drops_after_an_early_move(engine):
    """H = 100, levels at 1/7 .. 6/7 of H: a read at count >= 86 pays level 7 (1.099 ms
    in the paper's table, scaled here); after its early move the page is read at level 1."""
    rr = ReadRetryConfig.ldpc_progressive(85_000, 24_000, 7)
    cfg = tiny_config(blocks=32, pages=16, rr=H, gc_ratio=0.1, retry=rr, t_read=85_000, t_prog=1_000_000,
                      t_erase=5_000_000)
    # page 0 read at c = 60, 64, 73 (hottest: moved in idle time after c = 73), then at c = 88 from its new block
    script = SCRIPT[:87] + [0]
    res = flashrr.simulate(cfg, page_trace(script, gap_ns=IDLE_GAP), policy=PhasedRR(delta_reads=4), engine=engine)
    assert res.summary["idle_moves"] == 1
    # count before each read c-1; level = 1 + #{j in 1..6: (c-1)/100 >= j/7}
    exp = 0
    for c in range(1, 88):
        level = 1 + sum(1 for j in range(1, 7) if (c - 1) * 7 >= j * 100)
        exp += sum(85_000 + 24_000 * i for i in range(level))
    exp += 85_000  # page 0 in its fresh block
    assert res.summary["read_latency_mean_ns"] * 88 == pytest.approx(exp)


# ------------------------------------------------------------------------------ registry, equivalence


def test_registered_by_name():
    assert isinstance(make_policy("phasedrr"), PhasedRR)
    assert make_policy("phasedrr", delta_reads=128).params()["delta_reads"] == 128


def test_baseline_rr_accounting():
    """Baseline: every RR moves at least one page here, so RR episodes = hard RRs, and all
    its erases split into RR (k per RR) and GC (k per GC)."""
    cfg = _cfg()
    res = flashrr.simulate(cfg, page_trace(np.arange(400) % 16, gap_ns=1000), engine="compiled")
    s = res.summary
    assert s["rr_count"] == 4 and s["rr_episodes"] == 4
    assert s["erases_rr"] == s["rr_count"] and s["erases_gc"] == s["gc_count"]
    assert s["rr_page_moves_all"] == s["rr_page_moves"]


@settings(max_examples=40, deadline=None)
@given(phasedrr_case())
def test_engines_identical_with_phasedrr(case):
    cfg, trace, pol = case
    a, b = run_both(cfg, trace, pol, check_invariants=True)
    assert_identical(a, b, allow_error=CAPACITY_ERROR)
    if not isinstance(a, Exception):
        for key in ("idle_moves", "rr_forced_moves", "idle_moves_dropped", "ws_pool_full", "rr_count"):
            event(f"{key}: {'yes' if a.summary[key] else 'no'}")


def test_end_to_end_direction_against_baseline():
    """Zipf reads over 16 blocks with 20 ms gaps (ample idle time) and the progressive
    retry table: PhasedRR moves the hot pages out early, so it pays less retry time and
    leaves fewer pages to the mandatory RR than Baseline; its identification accuracy is
    ordered hottest >= hotter >= tepid."""
    rr = ReadRetryConfig.ldpc_progressive(85_000, 24_000, 7)
    cfg = tiny_config(blocks=64, pages=64, rr=1000, gc_ratio=0.1, retry=rr, t_read=85_000, t_prog=2_666_667,
                      t_erase=15_000_000)
    lpns = (np.random.default_rng(1).zipf(1.3, 60_000) - 1) % 1024
    trace = page_trace(lpns, gap_ns=20_000_000)
    base = flashrr.simulate(cfg, trace, policy="baseline").summary
    ph = flashrr.simulate(cfg, trace, policy=PhasedRR(delta_reads=25)).summary
    assert ph["rr_page_moves"] < base["rr_page_moves"]
    assert ph["retry_time_ns"] < base["retry_time_ns"]
    assert ph["idle_moves"] > ph["rr_forced_moves"] > 0
    acc = [ph[f"ws_{c}_hot"] / ph[f"ws_{c}"] for c in ("htt", "htr", "tpd")]
    assert acc[0] >= acc[1] >= acc[2]


def test_results_do_not_depend_on_the_chunk_size():
    trace = page_trace(SCRIPT * 3, gap_ns=IDLE_GAP)
    a = flashrr.simulate(_cfg(), trace, policy=PhasedRR(delta_reads=4))
    b = flashrr.simulate(_cfg(), trace, policy=PhasedRR(delta_reads=4), chunk_requests=7)
    assert a.summary["idle_moves"] > 0
    assert_identical(a, b)


def test_the_paper_sweep_spec_loads():
    """experiments/phasedrr/sweep.toml: 8 traces x (baseline, 4 Deltas, RL-RR and
    Reallocation with and without the counter charge) = 72 runs; every parameter name is
    checked against the policies when the spec loads."""
    from pathlib import Path

    from flashrr.sweep.spec import load_spec

    spec = load_spec(Path(__file__).parent.parent / "experiments" / "phasedrr" / "sweep.toml")
    assert spec.n_combinations == 8 * (1 + 4 + 2 + 2)
