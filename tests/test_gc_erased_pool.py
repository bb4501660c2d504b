"""``gc.free_pool = "erased"``: the GC thresholds count only free superblocks whose
erase has ended, and an erase that leaves its lane below the threshold starts one more
victim at its end (MQSim's GC unit), at most ``gc.max_victims_in_flight`` per lane.

The same device pins ``gc.reserve_gc_frontier`` (the GC frontier taken when the device
is built).  Hand-counted on one die with one plane (k = 1): 8 blocks of 4 pages, GC threshold
ceil(0.3 * 8) = 3 free blocks, 16 logical pages.  The fill puts LPNs 0-7 on blocks 0
and 1; then one single-page write every 1 us overwrites LPNs 0-7 four times.  Each
program takes 1 us, so the die is always busy with user programs, and an erase
(5 us) waits for the programs booked before it.  Every victim is fully invalid (the
lowest such block wins), so a GC is an erase alone.  Twin equivalence under this
option is drawn in test_engine_equivalence.py."""
import importlib

import numpy as np
import pytest

import flashrr
from flashrr._core.layout import hist_bucket
from flashrr.config import ConfigError, ReadRetryConfig

from engine_helpers import assert_identical, page_trace, run_both, tiny_config

simulate_module = importlib.import_module("flashrr.simulate")  # the module, not the function the package exports

ENGINES = ("compiled", "reference")
TRACE = page_trace(list(range(8)) * 4, writes=[1] * 32, gap_ns=1_000)


def run(engine, free_pool, cap=10):
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.3, rr_enabled=False, t_read=100, t_prog=1000,
                      t_erase=5000).replace(scheduler="gc-first", free_pool=free_pool, max_victims_in_flight=cap)
    assert cfg.gc_threshold_superblocks == 3
    res = flashrr.simulate(cfg, TRACE, engine=engine)
    ev = res.gc_events
    return res.summary, ev["time_ns"].tolist(), ev["superblock"].tolist(), ev["erase_end_ns"].tolist()


@pytest.mark.parametrize("engine", ENGINES)
def test_decided_pool_starts_one_victim_per_allocation_below_the_threshold(engine):
    # Writes 12, 16, 20, 24 and 28 each open a block and leave 2 free (< 3): one victim
    # each, as soon as it is decided the victim counts as free again.
    s, times, sbs, _ = run(engine, "decided")
    assert times == [12_000, 16_000, 20_000, 24_000, 28_000]
    assert sbs == [0, 1, 2, 3, 4]
    assert s["gc_at_erase"] == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_erased_pool_starts_a_victim_when_an_erase_leaves_the_lane_short(engine):
    # 12 us: block 0 is collected, erased 12-17 us.  16 us: the allocation leaves 2 free, one
    # of them (block 0) not erased, so the pool is 1: block 1 is collected (erase 21-26 us,
    # after the programs booked before it).  17 us: block 0's erase has ended; the pool is
    # 3 free - 1 unerased = 2 < 3, so block 2 is collected at 17 us, the erase's end.  The
    # same happens at 26 us, when block 1's erase ends (block 5).
    s, times, sbs, ends = run(engine, "erased")
    assert times == [12_000, 16_000, 17_000, 20_000, 24_000, 26_000, 28_000]
    assert sbs == [0, 1, 2, 3, 4, 5, 6]
    assert s["gc_at_erase"] == 2
    assert ends[0] == 17_000 and ends[1] == 26_000  # the at-erase victims start at these ends


@pytest.mark.parametrize("engine", ENGINES)
def test_at_most_max_victims_in_flight_per_lane(engine):
    # Cap 1: at 16, 20 and 28 us a victim is still being erased, so the allocations start
    # none; each erase end (17 and 27 us) starts the next one instead.
    s, times, sbs, ends = run(engine, "erased", cap=1)
    assert times == [12_000, 17_000, 27_000]
    assert ends[:2] == [17_000, 27_000]
    assert s["gc_at_erase"] == 2
    for i, t in enumerate(times):  # never two victims whose erase has not ended
        assert sum(e > t for e in ends[:i]) == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_a_reserved_gc_frontier_moves_the_first_gc_one_superblock_earlier(engine):
    # gc.reserve_gc_frontier: block 0 is the lane's GC frontier from the start, so the fill
    # takes blocks 1 and 2 and 5 blocks are free.  Writes 0, 4 and 8 open blocks 3, 4 and 5;
    # the third leaves 2 free (< 3), so write 8 (8 us) starts the first GC: blocks 1 and 2
    # are fully invalid (writes 0-7), the lower id wins.  Write 12 opens block 6, block 2
    # goes.  Without the reservation the fill takes blocks 0 and 1 and 6 are free: the
    # first GC waits for write 12 (block 0), as in the decided-pool test above.
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.3, rr_enabled=False, t_read=100, t_prog=1000,
                      t_erase=5000).replace(scheduler="gc-first", reserve_gc_frontier=True)
    ev = flashrr.simulate(cfg, TRACE, engine=engine, check_invariants=True).gc_events
    assert ev["time_ns"].tolist()[:2] == [8_000, 12_000]
    assert ev["superblock"].tolist()[:2] == [1, 2] and ev["pages_moved"].tolist()[:2] == [0, 0]


def test_bad_free_pool_settings_name_the_field():
    with pytest.raises(ConfigError, match="gc.free_pool"):
        tiny_config().replace(free_pool="lazy")
    with pytest.raises(ConfigError, match="max_victims_in_flight"):
        tiny_config().replace(max_victims_in_flight=0)
    with pytest.raises(ConfigError, match="gc.reserve_gc_frontier"):
        tiny_config().replace(reserve_gc_frontier=1)


@pytest.mark.parametrize("engine", ENGINES)
def test_write_stall_holds_writes_to_a_short_lane_until_an_erase(engine):
    # gc.write_stall: from 12 us the lane is short (pool 2 < 3, block 0 being erased), so
    # write 12 and every later one waits for erases instead of queueing its program
    # between them.  Block 1's erase therefore follows block 0's at once (17-22 us, not
    # 21-26 us), and block 2 is collected when block 0's erase ends (17 us).  Writes 0-11
    # finish in one program time; each held write waits at least until 17 us.
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.3, rr_enabled=False, t_read=100, t_prog=1000,
                      t_erase=5000).replace(scheduler="gc-first", free_pool="erased", write_stall=True)
    res = flashrr.simulate(cfg, TRACE, engine=engine)
    ev = res.gc_events
    assert ev["time_ns"].tolist()[:3] == [12_000, 16_000, 17_000]
    assert ev["erase_end_ns"].tolist()[:2] == [17_000, 22_000]
    w = res.hist["write"]
    assert w.sum() == 32 and w[hist_bucket(1000)] == 12  # every write is recorded once
    lat = res.latency_cdf("write")
    assert lat["latency_ns"][lat["cdf"] > 12 / 32].min() >= 5000  # the 20 held writes: at least to 17 us
    assert res.summary["write_stall_ns"] >= 20 * 5000


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("read_priority, reads, held_write", [(False, (1_100, 1_150), 6_100),
                                                              (True, (1_100, 150), 6_200)])
def test_read_priority_puts_a_released_write_behind_waiting_reads(engine, read_priority, reads, held_write):
    # gc.write_stall with TRACE's first 13 writes, then reads of LPN 5 at 16 and 17.05 us.
    # Write 12 (12 us) leaves the lane short: block 0 is collected, erased 12-17 us, and
    # write 12 is held.  The read of 16 us waits for the erase (17-17.1 us).  At 17.05 us
    # the erase's end (17 us) lets write 12 go.  In arrival order it is booked at once,
    # behind the first read (17.1-18.1 us, latency 6.1 us), and the second read follows
    # it (18.1-18.2, latency 1.15 us).  Under read priority it waits for its die: the
    # second read, waiting when the die frees at 17.1 us, goes first (17.1-17.2, 150 ns)
    # and the write follows (17.2-18.2, 6.2 us).  Either way it waited 5 us for the erase.
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.3, rr_enabled=False, t_read=100, t_prog=1000,
                      t_erase=5000).replace(scheduler="gc-first", free_pool="erased", write_stall=True,
                                            read_priority=read_priority)
    trace = page_trace(list(range(8)) + [0, 1, 2, 3, 4, 5, 5], writes=[True] * 13 + [False] * 2,
                       times=[i * 1000 for i in range(13)] + [16_000, 17_050])
    res = flashrr.simulate(cfg, trace, engine=engine, check_invariants=True)
    s = res.summary
    assert res.gc_events["time_ns"].tolist() == [12_000] and res.gc_events["erase_end_ns"].tolist() == [17_000]
    assert s["write_stall_ns"] == 5_000
    assert s["read_latency_mean_ns"] == pytest.approx(sum(reads) / 2)
    assert s["write_latency_mean_ns"] == pytest.approx((12 * 1_000 + held_write) / 13)  # 0-11: one program each


def test_write_stall_needs_the_erased_pool_and_no_cache():
    with pytest.raises(ConfigError, match="gc.write_stall"):
        tiny_config().replace(write_stall=True)
    with pytest.raises(ConfigError, match="gc.write_stall"):
        tiny_config(cache_pages=4).replace(free_pool="erased", write_stall=True)


@pytest.mark.parametrize("engine", ENGINES)
def test_write_stall_refuses_early_move_policies(engine):
    cfg = tiny_config(blocks=8, pages=4, op=0.5).replace(free_pool="erased", write_stall=True)
    with pytest.raises(flashrr.EngineError, match="gc.write_stall"):
        flashrr.simulate(cfg, TRACE, policy="rl-rr", engine=engine)


def test_after_the_trace_erases_let_held_writes_go_but_start_no_victim(monkeypatch):
    """A case hypothesis found (test_engine_equivalence, seed 165, repeat 2): a nearly full
    two-plane lane that stays below its GC threshold with writes held.  When finish() ran
    the erases after the trace with erase-started GC on, each erase started another victim,
    forever.  After the trace an erase only lets held writes go: finish() releases them
    (their stall time is counted as they complete) and decides no GC victim."""
    cfg = tiny_config(planes=2, sb_planes=2, blocks=26, pages=8, op=0.35, gc_ratio=0.08, rr=3,
                      retry=ReadRetryConfig.ldpc(11), t_read=244, t_prog=636, t_erase=2746, t_xfer=20, t_dram=8,
                      fill_ratio=1.0, warmup_random_writes_ratio=1.0).replace(
        scheduler="fcfs", channel_model="busy-until", write_ack="program", gc_hard_threshold_ratio=0.05,
        free_pool="erased", write_stall=True)
    times = [0, 19, 918, 1699, 3351, 3735, 4533, 7279, 7394, 7936, 8960, 13792, 13856, 17481, 17662, 22661, 22701,
             23121, 23749, 28718, 28782, 28961, 29591, 30754, 35753, 38800, 38878, 43190, 43459, 44070, 44809, 45084,
             45529, 45529, 45859, 49982, 51385, 51462, 52102, 52694, 52865, 57286, 59652, 60987, 64090, 68144, 68604,
             69049, 71678, 72057]
    lpns = [82, 43, 93, 85, 10, 44, 6, 69, 90, 25, 14, 50, 100, 109, 25, 16, 63, 107, 98, 70, 100, 111, 26, 37, 48,
            116, 94, 34, 13, 69, 1, 87, 108, 9, 94, 55, 67, 24, 43, 26, 98, 62, 115, 23, 26, 72, 9, 72, 30, 58]
    pages = [3, 3, 4, 2, 2, 2, 2, 4, 2, 3, 2, 1, 3, 3, 3, 1, 1, 4, 1, 4, 1, 2, 3, 2, 1, 2, 2, 3, 2, 1, 4, 2, 4, 2, 2,
             4, 1, 1, 3, 2, 1, 3, 3, 4, 1, 1, 1, 2, 4, 3]
    reads = {2, 11, 17, 19, 28, 31, 40, 48}
    tr = page_trace(lpns, writes=[i not in reads for i in range(50)], pages=pages, times=times)
    at_finish = []  # (GCs, erase-started GCs, write stall ns) before and after finish(), per engine

    class Watched:
        def __init__(self, eng):
            self.eng = eng

        def run(self, *args, **kwargs):
            return self.eng.run(*args, **kwargs)

        def finish(self):
            at_finish.append(self.counts())
            self.eng.finish()
            at_finish.append(self.counts())

        def counts(self):
            c = self.eng.results()["counters"]
            return c["gc_count"], c["gc_at_erase"], c["write_stall_ns"]

    replay = simulate_module._replay
    monkeypatch.setattr(simulate_module, "_replay", lambda eng, *args, **kw: replay(Watched(eng), *args, **kw))
    a, b = run_both(cfg, tr, repeat=2, seed=165)
    assert_identical(a, b)
    for before, after in (at_finish[0:2], at_finish[2:4]):
        assert before[2] == 0 and after[2] > 0  # the held writes complete in finish()
        assert after[:2] == before[:2]  # and no victim is decided there
    assert a.hist["write"].sum() == a.summary["writes"]  # every held write was let go and recorded once
