"""The patrol scan (``flashrr/_core/mechanisms/patrol.pyx``, policy ``patrol``): what a
visit queues, that the moves run in idle time ahead of the trigger, and both twins."""
import numpy as np
import pytest

import flashrr
from engine_helpers import assert_identical, page_trace, run_both, skewed_reads_trace, tiny_config
from flashrr.config import ReadRetryConfig
from flashrr.policies import make_policy
from flashrr.reliability import ecc_preset, rber_preset

MS = 1_000_000


def _one_block_reads(n_reads):
    """``n_reads`` reads of LPN 0 (block 0 of a full 1-plane device, 16 pages a block),
    the last one 10 ms after the others, then a read of block 10 (LPN 160) 10 ms later,
    so the queued moves find the die idle before the trace ends."""
    times = np.append(np.arange(n_reads - 1) * 1000, [10 * MS, 20 * MS])
    return page_trace(np.append(np.zeros(n_reads, np.int64), 160), times=times)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("reads,queued", [(50, 1), (49, 0)])
def test_a_visit_queues_a_superblock_at_its_share_of_the_threshold(engine, reads, queued):
    # 100-read threshold, ahead 0.5: block 0 is due at 50 reads.  The read at 10 ms ends a
    # lap of visits (32 superblocks, one per 100 us), the first of them at block 0.
    cfg = tiny_config(blocks=32, pages=16, rr=100, fill_ratio=1.0)
    res = flashrr.simulate(cfg, _one_block_reads(reads), policy="patrol", engine=engine,
                           scan_interval_ns=100_000, ahead=0.5)
    s = res.summary
    assert s["patrol_queued_superblocks"] == queued
    assert s["patrol_queued_pages"] == s["idle_moves"] == 16 * queued    # every page of block 0, moved
    assert s["rr_count"] == 0


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_an_open_superblock_is_not_queued(engine):
    """Only LPNs 0-3 are filled, so block 0 (4 of its 16 pages written) is still the open
    user frontier.  50 reads of LPN 0 bring it to half of its 100-read threshold, and the
    read at 10 ms ends a lap of visits that looks at it: ahead 0.5 is reached, but an open
    superblock is not queued.  (The same reads queue block 0 of a full device: the test
    above.)"""
    cfg = tiny_config(blocks=32, pages=16, rr=100)
    times = np.append(np.arange(49) * 1000, [10 * MS, 20 * MS])
    res = flashrr.simulate(cfg, page_trace(np.append(np.zeros(50, np.int64), 3), times=times), policy="patrol",
                           engine=engine, scan_interval_ns=100_000, ahead=0.5)
    s = res.summary
    assert s["patrol_visits"] == 32 + 32  # a lap after the read at 10 ms, another after the one at 20 ms
    assert s["patrol_queued_superblocks"] == s["patrol_queued_pages"] == s["idle_moves"] == 0


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_no_visit_before_the_first_interval_ends(engine):
    cfg = tiny_config(blocks=32, pages=16, rr=100, fill_ratio=1.0)
    res = flashrr.simulate(cfg, _one_block_reads(60), policy="patrol", engine=engine, scan_interval_ns=30 * MS)
    assert res.summary["patrol_visits"] == 0 and res.summary["idle_moves"] == 0


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_after_a_gap_longer_than_a_lap_the_scan_does_one_lap_and_restarts_its_clock(engine):
    """32 superblocks, one visit per 100 us (a lap: 3.2 ms), reads of 100 ns.  The visits
    due by a request's end run after it, one per interval passed:
    read at 0 (ends 100): the first visit is due at 100 us, none;
    read at 250 us (ends 250.1 us): the visits due at 100 and 200 us, 2, the next due at 300 us;
    read at 10 ms (ends 10,000.1 us): 97 intervals have passed, more than a lap, so one lap,
    32 visits, and the clock restarts: the next visit is due at 10,100.1 us;
    read at 10,050 us: none due;
    read at 10,150 us: the one due at 10,100.1 us.
    35 visits.  A scan that kept its old clock would still be 3.3 ms behind after the lap,
    and do another lap at each of the last two reads: 98."""
    cfg = tiny_config(blocks=32, pages=16, rr=100, fill_ratio=1.0)
    times = [0, 250_000, 10 * MS, 10 * MS + 50_000, 10 * MS + 150_000]
    res = flashrr.simulate(cfg, page_trace(np.zeros(5, np.int64), times=times), policy="patrol", engine=engine,
                           scan_interval_ns=100_000)
    assert res.summary["patrol_visits"] == 2 + 32 + 0 + 1


def _skewed_device():
    return tiny_config(planes=4, sb_planes=4, blocks=24, pages=16, rr=40, cache_pages=8)


def _slow_trace(cfg):
    tr = skewed_reads_trace(6000, n_lpns=cfg.logical_pages // 2)
    return flashrr.Trace(tr.time_ns * 5, tr.offset, tr.size, tr.is_write)   # 5 us apart: idle gaps


def test_a_fast_patrol_reclaims_ahead_of_the_trigger():
    cfg = _skewed_device()
    trace = _slow_trace(cfg)
    base = flashrr.simulate(cfg, trace).summary
    pat = flashrr.simulate(cfg, trace, policy="patrol", scan_interval_ns=20_000, ahead=0.7).summary
    assert base["rr_count"] > 10 and pat["rr_count"] < base["rr_count"] / 2
    assert pat["idle_moves"] + pat["idle_moves_dropped"] <= pat["patrol_queued_pages"]
    assert pat["idle_moves"] > 0


def _error_model(reads=40):
    """TLC whose worst page reaches the ladder's last step (3 steps of +1%) after ``reads`` reads."""
    m, e = rber_preset("tlc"), ecc_preset("tlc")
    t_bits = float(e.expected_errors(m.rber(0.0, 1e-3, reads, m.worst_page))) / 1.03
    return {"enabled": True, "rber_preset": "tlc", "ecc_t_bits": t_bits, "retention_quantum_s": 1e-3,
            "ladder_factor": 0.01}


@pytest.mark.parametrize("policy", ["patrol", "shuffler+patrol", "phasedrr+patrol"])
@pytest.mark.parametrize("rber", [False, True])
def test_both_engines_agree_with_a_patrol(policy, rber):
    cfg = _skewed_device()
    if rber:
        cfg = cfg.replace(error_model=_error_model(), trigger="rber",
                          read_retry=ReadRetryConfig("rber", (), 0, (370, 740, 1110)))  # short: dies go idle
    kw = {"phasedrr.delta_reads": 3} if policy.startswith("phasedrr") else {}
    kw.update({"patrol.scan_interval_ns": 20_000} if "+" in policy else {"scan_interval_ns": 20_000})
    a, b = run_both(cfg, _slow_trace(cfg), policy, **kw)
    assert_identical(a, b, ignore=("policy_time_s",))
    assert a.summary["rr_count"] > 0 and a.summary["idle_moves"] > 0


@pytest.mark.parametrize("kw", [{"scan_interval_ns": 0}, {"scan_interval_ns": 1.5}, {"ahead": 0.0},
                                {"ahead": 1.5}, {"ahead": float("nan")}])
def test_bad_patrol_parameters_are_refused(kw):
    with pytest.raises(ValueError, match="patrol: " + next(iter(kw))):
        make_policy("patrol", **kw)
