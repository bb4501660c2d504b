"""The error model in the engine (docs/reliability.md, "In the engine"): the "rber" RR
trigger, retry steps and uncorrectable reads from the model, the RBER margin of an RR,
and that the model changes nothing it should not.  Expected read counts are computed
here by hand from the TLC preset's coefficients as docs/reliability.md lists them."""
import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import flashrr
from engine_helpers import (CAPACITY_ERROR, assert_identical, build_engine, page_trace, run_both,
                            skewed_reads_trace, tiny_config)
from flashrr.config import ConfigError, ReadRetryConfig, SimConfig
from flashrr.reliability import draw_initial_pe, ecc_preset, rber_preset
from strategies import any_device_case

# docs/reliability.md, TLC column (Kim et al., FAST 2019; time in days, block reads)
EPS, ALPHA, K, BETA, M, N, GAMMA, P, Q = 1.48e-3, 3.90e-10, 2.05, 6.28e-5, 0.14, 0.54, 3.73e-9, 0.33, 1.71
DAY = 86_400.0
WORST = 4 / (7 / 3)          # MSB senses 4 of the 1-2-4 references; factors have mean 1
BITS = 8 * 1024              # 1 KiB codewords
HOUR = 3600.0
OLD_EVENT_COLUMNS = ["time_ns", "superblock", "lane", "block_reads", "pages_moved", "routine", "erase_end_ns",
                     "victim_user_pages", "victim_rr_pages", "victim_gc_pages"]


def errors(reads, pe=0.0, retention_s=0.0):
    """Expected raw errors per codeword of the worst TLC page (hand formula)."""
    rber = (EPS + ALPHA * pe ** K + BETA * (1 + pe) ** M * (retention_s / DAY) ** N
            + GAMMA * (1 + pe) ** P * reads ** Q)
    return BITS * WORST * rber


def one_block_device(**error_model):
    """One plane, 1-block superblocks, no cache; reads of LPN 0 all go to block 0."""
    em = {"enabled": True, "rber_preset": "tlc", "retention_quantum_s": HOUR, **error_model}
    return tiny_config(blocks=32, pages=16, rr=1_000_000).replace(error_model=em)


def reads_of_lpn0(n):
    return page_trace(np.zeros(n, np.int64), gap_ns=1000)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_rber_trigger_fires_at_the_hand_computed_read_count(engine):
    # data 10 h old: retention bucket [10 h, 12 h), looked up at its upper edge, 12 h
    t_bits, age = 27.0, 10 * HOUR
    first = next(r for r in range(100_000) if errors(r, 0.0, 12 * HOUR) >= t_bits)
    assert 800 < first < 1000 and errors(first, 0.0, 10 * HOUR) < t_bits    # the bucket's edge matters
    cfg = one_block_device(ecc_t_bits=t_bits, data_age_s=age).replace(trigger="rber")
    res = flashrr.simulate(cfg, reads_of_lpn0(first + 10), engine=engine)
    ev = res.rr_events
    assert len(ev) >= 1
    assert ev.loc[0, "superblock"] == 0 and ev.loc[0, "block_reads"] == (first,)
    # the margin at the RR: 1 - errors / t_bits at the exact retention (10 h + the run's few us)
    assert ev.loc[0, "rber_margin"] == pytest.approx(1 - errors(first, 0.0, age) / t_bits, rel=1e-6)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_worse_layer_reclaims_at_its_own_hand_computed_read_count(engine):
    # the worst word-line layer at 1.25 times the mean RBER: its worst page reaches t_bits earlier
    t_bits, age, layer = 27.0, 10 * HOUR, 1.25
    first = next(r for r in range(100_000) if layer * errors(r, 0.0, 12 * HOUR) >= t_bits)
    assert first < next(r for r in range(100_000) if errors(r, 0.0, 12 * HOUR) >= t_bits)
    cfg = one_block_device(ecc_t_bits=t_bits, data_age_s=age, worst_layer_factor=layer).replace(trigger="rber")
    ev = flashrr.simulate(cfg, reads_of_lpn0(first + 10), engine=engine).rr_events
    assert ev.loc[0, "block_reads"] == (first,)
    assert ev.loc[0, "rber_margin"] == pytest.approx(1 - layer * errors(first, 0.0, age) / t_bits, rel=1e-6)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_read_after_the_retention_bucket_ends_sees_the_next_buckets_threshold(engine):
    # 1-day quanta, data 18.5 days old: bucket [16 d, 20 d), looked up at 20 d; two days
    # later, bucket [20 d, 24 d) at 24 d
    t_bits = 27.0
    thr_early = next(r for r in range(100_000) if errors(r, 0.0, 20 * DAY) >= t_bits)
    thr_late = next(r for r in range(100_000) if errors(r, 0.0, 24 * DAY) >= t_bits)
    assert thr_late + 50 < thr_early
    k = thr_late + 25                                     # reads that stay under the early threshold
    times = np.append(np.arange(k) * 1000, int(2 * DAY * 1e9))
    cfg = one_block_device(ecc_t_bits=t_bits, data_age_s=18.5 * DAY, retention_quantum_s=DAY).replace(trigger="rber")
    quick = flashrr.simulate(cfg, page_trace(np.zeros(k, np.int64), times=times[:k]), engine=engine)
    late = flashrr.simulate(cfg, page_trace(np.zeros(k + 1, np.int64), times=times), engine=engine)
    assert quick.summary["rr_count"] == 0
    assert late.summary["rr_count"] == 1 and late.rr_events.loc[0, "block_reads"] == (k + 1,)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_blocks_retention_is_the_age_of_its_first_page_since_the_erase_not_its_newest(engine):
    """Block 0 holds the fill (LPNs 0-15), so the trace's writes open block 1: LPN 15 at
    t = 0 (page 0, its first program since the erase), LPN 14 at 18.5 days (page 1).  Reads
    of LPN 14 from then on see block 1's retention as the age of page 0, 18.5 days: bucket
    [16 d, 20 d) of the 1-day quanta, looked up at its upper edge, 20 days, so block 1 is
    reclaimed at the 445th read (errors(445, 0, 20 d) >= 27 > errors(444, 0, 20 d)).  Were
    the age taken from the newest page (0 days: bucket [0, 1 d), looked up at 1 day), the
    threshold would be 849 reads, and the 455 reads here would reclaim nothing."""
    t_bits, late = 27.0, int(18.5 * DAY * 1e9)
    thr = next(r for r in range(100_000) if errors(r, 0.0, 20 * DAY) >= t_bits)
    fresh = next(r for r in range(100_000) if errors(r, 0.0, DAY) >= t_bits)
    assert (thr, fresh) == (445, 849)
    n = thr + 10
    lpns = np.concatenate([[15, 14], np.full(n, 14)])
    times = np.concatenate([[0, late], late + 1000 * np.arange(1, n + 1)])
    writes = np.arange(n + 2) < 2
    cfg = one_block_device(ecc_t_bits=t_bits, retention_quantum_s=DAY).replace(trigger="rber")
    res = flashrr.simulate(cfg, page_trace(lpns, writes=writes, times=times), engine=engine)
    ev = res.rr_events
    assert res.summary["rr_count"] == 1
    assert ev.loc[0, "superblock"] == 1 and ev.loc[0, "block_reads"] == (thr,)
    # the margin at the RR, at the exact age of page 0: 18.5 days and the 445 reads' 445 us
    age = (late + 1000 * thr) / 1e9
    assert ev.loc[0, "rber_margin"] == pytest.approx(1 - errors(thr, 0.0, age) / t_bits, rel=1e-6)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_the_rber_trigger_fires_at_its_fraction_of_the_ladders_last_step(engine):
    """Under retry_model = "rber" the capability the trigger refers to is the retry
    ladder's last step, not the hard-decision t_bits: 3 steps of a linear ladder with
    factor 0.1 on t_bits 27 reach 27 x 1.3 = 35.1 bits; at rber_fraction 0.9 the trigger
    holds from 31.59 expected errors.  Data 10 h old, looked up at 12 h: the first read
    count with errors(r, 0, 12 h) >= 31.59 is 1,240 (t_bits itself, 27, is reached at 874
    reads; the whole 35.1 at 1,474).  The margin at the RR is 1 - errors / 35.1."""
    t_bits, factor, age = 27.0, 0.1, 10 * HOUR
    cap = t_bits * (1 + factor * 3)
    first = next(r for r in range(100_000) if errors(r, 0.0, 12 * HOUR) >= 0.9 * cap)
    assert first == 1240
    assert next(r for r in range(100_000) if errors(r, 0.0, 12 * HOUR) >= t_bits) == 874
    assert next(r for r in range(100_000) if errors(r, 0.0, 12 * HOUR) >= cap) == 1474
    cfg = one_block_device(ecc_t_bits=t_bits, ladder_factor=factor, data_age_s=age).replace(
        trigger="rber", rber_fraction=0.9, read_retry=ReadRetryConfig("rber", (), 0, (1000, 2500, 4500)))
    ev = flashrr.simulate(cfg, reads_of_lpn0(first + 10), engine=engine).rr_events
    assert ev.loc[0, "superblock"] == 0 and ev.loc[0, "block_reads"] == (first,)
    assert ev.loc[0, "rber_margin"] == pytest.approx(1 - errors(first, 0.0, age) / cap, rel=1e-6)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_worn_blocks_threshold_is_its_pe_counts(engine):
    """Every block drawn at exactly 1,000 P/E cycles (sd 0), data 10 h old (looked up at
    12 h), t_bits 40: the wear term (alpha x 1000^2.05) and the read-disturb slope's
    (1 + 1000)^0.33 bring the first read count with errors(r, 1000, 12 h) >= 40 down to 321;
    a fresh block (0 cycles) would reach it only at 1,762 reads."""
    t_bits, age = 40.0, 10 * HOUR
    first = next(r for r in range(100_000) if errors(r, 1000.0, 12 * HOUR) >= t_bits)
    assert first == 321
    assert next(r for r in range(100_000) if errors(r, 0.0, 12 * HOUR) >= t_bits) == 1762
    cfg = one_block_device(ecc_t_bits=t_bits, data_age_s=age, initial_pe_mean=1000.0,
                           initial_pe_sd=0.0).replace(trigger="rber")
    ev = flashrr.simulate(cfg, reads_of_lpn0(first + 10), engine=engine).rr_events
    assert ev.loc[0, "block_reads"] == (first,)
    assert ev.loc[0, "rber_margin"] == pytest.approx(1 - errors(first, 1000.0, age) / t_bits, rel=1e-6)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("reads, queued", [(437, 1), (436, 0)])
def test_a_patrols_ahead_is_a_share_of_the_models_threshold(engine, reads, queued):
    """The patrol scan (docs/policies.md) under the rber trigger: block 0's threshold is the
    model's, 874 reads (data 10 h old, looked up at 12 h; t_bits 27), not the configured
    1,000,000, so at ahead 0.5 the block is due from 437 reads (437 x 10^6 >= 0.5 x 10^6 x
    874).  ``reads`` reads of LPN 0 on a full device, the last at 10 ms, then a read of block
    10 at 20 ms: the lap after the read at 10 ms queues block 0's 16 pages at 437 reads,
    nothing at 436."""
    t_bits = 27.0
    thr = next(r for r in range(100_000) if errors(r, 0.0, 12 * HOUR) >= t_bits)
    assert thr == 874 and 2 * 437 >= thr > 2 * 436
    cfg = one_block_device(ecc_t_bits=t_bits, data_age_s=10 * HOUR).replace(trigger="rber", fill_ratio=1.0)
    times = np.append(np.arange(reads - 1) * 1000, [10_000_000, 20_000_000])
    res = flashrr.simulate(cfg, page_trace(np.append(np.zeros(reads, np.int64), 160), times=times),
                           policy="patrol", engine=engine, scan_interval_ns=100_000, ahead=0.5)
    s = res.summary
    assert s["patrol_queued_superblocks"] == queued
    assert s["patrol_queued_pages"] == s["idle_moves"] == 16 * queued
    assert s["rr_count"] == 0


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_the_count_trigger_ignores_the_model(engine):
    cfg = one_block_device(ecc_t_bits=27.0).replace(rr_threshold_reads=500)
    res = flashrr.simulate(cfg, reads_of_lpn0(600), engine=engine)
    assert res.rr_events.loc[0, "block_reads"] == (500,)


def _retry_device(t_bits, factor, extra):
    return one_block_device(ecc_t_bits=t_bits, ladder_factor=factor).replace(
        rr_enabled=False, read_retry=ReadRetryConfig("rber", (), 0, extra))


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_retry_steps_and_one_uncorrectable_read(engine):
    t_bits, factor, extra = 27.0, 0.02, (1000, 2500, 4500)
    caps = [t_bits * (1 + factor * s) for s in range(4)]      # linear ladder: 27, 27.54, 28.08, 28.62
    # fresh data: bucket [0, 1 h), looked up at 1 h; read i sees the block's i earlier reads
    steps = lambda r: sum(1 for c in caps if errors(r, 0.0, HOUR) > c)  # noqa: E731
    last = next(r for r in range(100_000) if steps(r) == 4)   # the first read past the last step
    n = last + 1                                              # so exactly one read is uncorrectable
    by_step = [0, 0, 0, 0]
    for r in range(n):
        by_step[min(steps(r), 3)] += 1
    assert all(by_step) and by_step[3] > 1                    # every step is taken, the last one also correctably
    res = flashrr.simulate(_retry_device(t_bits, factor, extra), reads_of_lpn0(n), engine=engine)
    assert res.summary["uncorrectable_reads"] == 1
    assert res.retry_steps.tolist() == by_step
    table = (0,) + extra
    retry = sum(table[min(steps(r), 3)] for r in range(n))
    assert res.summary["retry_time_ns"] == retry
    # one page, one transaction per read: t_read_ns = 100 each, plus its retries
    assert res.summary["user_read_flash_ns"] == 100 * n + retry
    assert res.summary["retry_time_share"] == retry / (100 * n + retry)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_each_uncorrectable_read_counts_once(engine):
    t_bits, factor, extra = 27.0, 0.02, (1000, 2500, 4500)
    caps = [t_bits * (1 + factor * s) for s in range(4)]
    first_bad = next(r for r in range(100_000) if errors(r, 0.0, HOUR) > caps[-1])
    res = flashrr.simulate(_retry_device(t_bits, factor, extra), reads_of_lpn0(first_bad + 7), engine=engine)
    assert res.summary["uncorrectable_reads"] == 7
    assert res.summary["reads"] == first_bad + 7               # the run went on past them


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("rr, steps", [(980, 2), (1100, 3)])
def test_an_rr_read_takes_the_victims_model_steps_and_is_not_counted(engine, rr, steps):
    """Retry from the model (3 steps of +2% on t_bits 27, fresh data looked up at 1 h), RR by
    count at ``rr`` reads.  The switch points are 914, 961, 1,006 and 1,050 reads (the first
    r with errors(r, 0, 1 h) above 27, 27.54, 28.08, 28.62).  The RR's read of LPN 0 sees
    block 0 at ``rr`` reads: at 980, past two points, 2 steps (extra 2,500 ns); at 1,100, past
    all four, uncorrectable, so it pays all 3 steps (4,500 ns).  busy_rr_ns = that read
    (100 + extra) + the program (1,000) + the erase (5,000).  Only the ``rr`` user reads are
    counted by steps (at 1,100 the 50 reads from the 1,050th on are uncorrectable)."""
    t_bits, factor, extra = 27.0, 0.02, (1000, 2500, 4500)
    caps = [t_bits * (1 + factor * s) for s in range(4)]
    points = [next(r for r in range(100_000) if errors(r, 0.0, HOUR) > c) for c in caps]
    assert points == [914, 961, 1006, 1050]
    assert min(sum(1 for x in points if rr >= x), 3) == steps
    cfg = _retry_device(t_bits, factor, extra).replace(rr_enabled=True, rr_threshold_reads=rr)
    res = flashrr.simulate(cfg, reads_of_lpn0(rr), engine=engine)
    s = res.summary
    assert s["rr_count"] == 1
    assert s["busy_rr_ns"] == 100 + extra[steps - 1] + 1_000 + 5_000
    assert res.retry_steps.sum() == rr
    assert s["uncorrectable_reads"] == max(0, rr - points[-1])


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_each_blocks_pe_is_its_initial_draw_plus_its_erases(engine):
    cfg = tiny_config(blocks=24, pages=8, rr=6, gc_ratio=0.15, op=0.35).replace(
        error_model={"enabled": True, "initial_pe_mean": 500.0, "initial_pe_sd": 40.0, "initial_pe_seed": 3})
    rng = np.random.default_rng(5)
    n = 3000
    eng = build_engine(engine, cfg, "baseline", cfg.logical_pages)
    lpn = rng.integers(0, cfg.logical_pages, n)
    ps = cfg.geometry.page_size_bytes
    eng.run(np.arange(n, dtype=np.int64) * 2000, lpn * ps, np.full(n, ps), rng.random(n) < 0.5)
    eng.finish()
    erases = eng.results()["block_erases"]
    r = eng.results()["counters"]
    assert r["rr_count"] > 0 and r["gc_count"] > 0
    initial = draw_initial_pe(len(erases), 500.0, 40.0, 3)
    assert np.array_equal(eng.error_state().array("pe"), initial + erases)


def _comparable(res):
    s = {k: v for k, v in res.summary.items() if k not in ("sim_wall_s", "policy_time_s", "engine")}
    return (s, {k: v.tolist() for k, v in res.hist.items()}, res.rr_events[OLD_EVENT_COLUMNS].to_dict("list"),
            res.gc_events[OLD_EVENT_COLUMNS].to_dict("list"), res.block_erases.tolist())


def _k4(**kw):
    return tiny_config(planes=4, sb_planes=4, blocks=24, pages=16, rr=40, cache_pages=8,
                       retry=ReadRetryConfig.cocktail(37), **kw)


def _k1(**kw):
    return tiny_config(planes=4, blocks=24, pages=16, rr=40, cache_pages=8, retry=ReadRetryConfig.cocktail(37), **kw)


PARAMS = {"phasedrr": {"delta_reads": 3}, "rl-rr": {"start_reads": 10}, "reallocation": {"start_reads": 10}}


@pytest.mark.parametrize("policy,device", [("baseline", _k4), ("shuffler", _k4), ("phasedrr", _k4), ("hotr", _k4),
                                           ("cocktail", _k1), ("redftl", _k1)])
def test_model_on_with_the_count_trigger_changes_no_result(policy, device):
    cfg = device()
    trace = skewed_reads_trace(6000, n_lpns=cfg.logical_pages // 2)
    on = cfg.replace(error_model={"enabled": True, "initial_pe_mean": 2000.0, "initial_pe_sd": 100.0,
                                  "data_age_s": 30 * 86_400.0})
    kw = PARAMS.get(policy, {})
    a, b = flashrr.simulate(cfg, trace, policy=policy, **kw), flashrr.simulate(on, trace, policy=policy, **kw)
    assert a.summary["rr_count"] > 0
    assert _comparable(a) == _comparable(b)
    assert a.retry_steps is None and b.retry_steps.sum() == b.summary["flash_read_pages"]
    assert a.rr_events["rber_margin"].isna().all() and b.rr_events["rber_margin"].notna().all()


def _t_bits_for(preset, reads, pe=0.0, retention_s=HOUR):
    """ECC capability that the worst page reaches after ``reads`` block reads (test set-up)."""
    m, e = rber_preset(preset), ecc_preset(preset)
    return float(e.expected_errors(m.rber(pe, retention_s, reads, m.worst_page)))


def _rber_everywhere(cfg, reads=30):
    """The rber trigger and retry, with the ladder's last step (3 steps of +1%) reached at ``reads``."""
    # 1 ms retention quanta: the run's data stays fresh, so wear (P/E 0 -> 1 ...) moves the threshold little
    em = {"enabled": True, "rber_preset": "tlc", "ecc_t_bits": _t_bits_for("tlc", reads, 0.0, 1e-3) / 1.03,
          "ladder_factor": 0.01, "retention_quantum_s": 1e-3}
    retry = ReadRetryConfig("rber", (), 0, (37_000, 74_000, 111_000))
    return cfg.replace(error_model=em, trigger="rber", read_retry=retry)


def _k1_uncached(**kw):
    """Four channels of one plane, no cache: Rails and TTFlash add channels to it."""
    return tiny_config(channels=4, blocks=24, pages=16, rr=40, cache_pages=0, retry=ReadRetryConfig.cocktail(37), **kw)


SCHEMES = [  # the five papers' schemes and baselines, each on a device it accepts
    ("baseline", _k4), ("shuffler", _k4), ("page", _k4), ("page-8", _k4), ("page-64", _k4),     # Shuffler
    ("phasedrr", _k4), ("rl-rr", _k4), ("reallocation", _k1),                                     # PhasedRR
    ("cocktail", _k1), ("redftl", _k1), ("ipr", _k1),                                             # Cocktail
    ("hotr", _k4), ("rails", _k1_uncached), ("ttflash", _k1_uncached),                            # HotR
]


@pytest.mark.parametrize("policy,device", SCHEMES)
def test_every_scheme_runs_under_the_rber_trigger_on_both_engines(policy, device):
    cfg = _rber_everywhere(device())
    trace = skewed_reads_trace(3000, n_lpns=cfg.logical_pages // 2)
    a, b = run_both(cfg, trace, policy, **PARAMS.get(policy, {}))
    assert_identical(a, b, ignore=("policy_time_s",))
    assert a.rr_events["rber_margin"].notna().all()
    # it reclaims where the count trigger at about the same threshold does (Rails and TTFlash
    # serve reads from their redundant copies and reclaim under neither)
    count = flashrr.simulate(device(rr_threshold_reads=30), trace, policy, **PARAMS.get(policy, {}))
    assert (a.summary["rr_count"] > 0) == (count.summary["rr_count"] > 0)


def test_superblock_pv_assembly_runs_under_the_rber_trigger_on_both_engines():
    cfg = _rber_everywhere(_k4()).replace(pv_model="generative", assembly="qstr_med")
    trace = skewed_reads_trace(3000, n_lpns=cfg.logical_pages // 2)
    a, b = run_both(cfg, trace)
    assert_identical(a, b)
    assert a.summary["rr_count"] > 0


def test_raised_thresholds_scale_the_models():
    """redFTL's read-balanced blocks get m x the threshold; under "rber", m x the model's."""
    cfg = _rber_everywhere(_k1())
    trace = skewed_reads_trace(3000, n_lpns=cfg.logical_pages // 2)
    res = flashrr.simulate(cfg, trace, policy="redftl")
    reads = np.array([max(r) for r in res.rr_events["block_reads"]])
    assert reads.min() < 60 and reads.max() >= 2 * 30


@st.composite
def model_case(draw):
    cfg, trace, repeat, seed = draw(any_device_case())
    preset = draw(st.sampled_from(["mlc", "tlc", "qlc"]))
    pe = draw(st.sampled_from([0.0, 1000.0, 3000.0]))
    age, quantum = draw(st.sampled_from([0.0, 1e-4, 30 * 86_400.0])), draw(st.sampled_from([1e-6, 2e-5, HOUR]))
    factor = draw(st.sampled_from([0.001, 0.01, 0.1]))
    # a capability the worst page reaches after a few reads (the trigger: the ladder's last step)
    reads = draw(st.sampled_from([1, 2, 4, 8, 16]))
    t_bits = _t_bits_for(preset, reads, pe, age + quantum) / (1 + factor * draw(st.sampled_from([0, 3])))
    em = {"enabled": True, "rber_preset": preset, "initial_pe_mean": pe,
          "initial_pe_sd": draw(st.sampled_from([0.0, 50.0])), "initial_pe_seed": draw(st.integers(0, 9)),
          "data_age_s": age, "retention_quantum_s": quantum, "ecc_t_bits": t_bits, "ladder_factor": factor,
          "worst_layer_factor": draw(st.sampled_from([1.0, 1.3]))}
    cfg = cfg.replace(error_model=em, trigger=draw(st.sampled_from(["count", "rber"])),
                      rber_fraction=draw(st.sampled_from([0.9, 1.0])))
    if draw(st.booleans()):
        cfg = cfg.replace(read_retry=ReadRetryConfig("rber", (), 0, (41, 90, 150)))
    return cfg, trace, repeat, seed


@settings(max_examples=60, deadline=None)
@given(model_case())
def test_engines_identical_with_the_model_on(case):
    cfg, trace, repeat, seed = case
    a, b = run_both(cfg, trace, repeat=repeat, seed=seed)
    if not isinstance(a, Exception):
        event(f"trigger {cfg.read_reclaim.trigger}, RR: {'yes' if a.summary['rr_count'] else 'no'}")
        bad = "yes" if a.summary["uncorrectable_reads"] else "no"
        event(f"retry {cfg.read_retry.retry_model}, uncorrectable: {bad}")
    assert_identical(a, b, allow_error=CAPACITY_ERROR)


@pytest.mark.parametrize("change,field", [
    ({"trigger": "rber"}, "read_reclaim.trigger"),
    ({"read_retry": ReadRetryConfig("rber", (), 0, (10,))}, "read_retry.retry_model"),
    ({"trigger": "size"}, "read_reclaim.trigger"),
    ({"rber_fraction": 0.0}, "read_reclaim.rber_fraction"),
    ({"error_model": {"rber_preset": "slc"}}, "error_model.rber_preset"),
    ({"error_model": {"initial_pe_sd": -1.0}}, "error_model.initial_pe_sd"),
    ({"error_model": {"retention_quantum_s": 0.0}}, "error_model.retention_quantum_s"),
    ({"error_model": {"ladder_growth": "geometric", "ladder_factor": 0.5}}, "error_model.ladder_factor"),
    ({"error_model": {"worst_layer_factor": 0.9}}, "error_model.worst_layer_factor"),
])
def test_bad_error_model_config_names_the_field(change, field):
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        SimConfig().replace(**change)


def test_rber_retry_needs_its_latencies():
    with pytest.raises(ConfigError, match=r"read_retry\.retry_extra_ns"):
        ReadRetryConfig("rber", (), 0, ())
    with pytest.raises(ConfigError, match=r"read_retry\.retry_step_fractions"):
        ReadRetryConfig("rber", (0.5,), 0, (10,))


@pytest.mark.parametrize("preset", ["mlc", "tlc", "qlc", "fit-phasedrr", "fit-ldpc", "fit-cocktail"])
def test_switch_points_do_not_decrease_with_the_step(preset):
    """The engine stops counting steps at the first switch point a read has not reached."""
    from flashrr.reliability.engine_tables import ErrorTables

    cfg = SimConfig().replace(error_model={"enabled": True, "rber_preset": preset},
                              read_retry=ReadRetryConfig.from_model(ReadRetryConfig.ldpc_progressive()))
    rows = ErrorTables(cfg, 4).rows(0, 3200)[:, :, 1:].astype(np.int64)
    assert (np.diff(rows, axis=2) >= 0).all()
    assert (rows[:, :, 0] < rows[:, :, -1]).any()         # the steps are not all one point
