"""The transaction scheduler, counted by hand: how long a user request waits
behind background work under each ``timing.scheduler``, how a channel fills its
gaps, when a cached write is acknowledged, the idle-move queue, and that the
schedulers move work in time without changing it."""
import bisect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from flashrr._core.layout import CAUSE_USER, build_layout
from flashrr.policy import Policy
from engine_helpers import comparable, page_trace, tiny_config
from strategies import gappy_workload

PH_READ, PH_PROG = 0, 1


def _rr_then_read(engine, scheduler, **changes):
    """One die, k = 1, threshold 5.  LPNs 0..15 fill block 0; the fifth read of LPN 0
    ends at 40_100 ns and decides an RR of block 0: 16 page reads (100 ns), 16
    programs (1_000 ns) and one erase (5_000 ns).  LPN 20 (block 1) is read at 50_000 ns.
    ``changes``: more config changes (tiny_config's own or SimConfig.replace's)."""
    cfg = tiny_config(rr=5, pages=16, t_read=100, t_prog=1000, t_erase=5000, **changes).replace(scheduler=scheduler)
    return flashrr.simulate(cfg, page_trace([0] * 5 + [20], gap_ns=10_000), engine=engine, check_invariants=True)


def test_user_first_read_waits_only_for_the_running_transaction(engine):
    """The RR's reads run 40_100..41_700, then program i runs from 41_700 + 1_000 i.
    At 50_000 program 8 (49_700..50_700) is running; the read starts when it ends."""
    res = _rr_then_read(engine, "user-first")
    assert res.summary["rr_count"] == 1
    assert res.summary["read_latency_p99_ns"] == pytest.approx(50_700 + 100 - 50_000, rel=1 / 128)
    # the rest of the RR runs after the read: its erase ends 100 ns later than when booked at once
    assert res.rr_events["erase_end_ns"].tolist() == [40_100 + 1_600 + 16_000 + 5_000 + 100]
    assert res.summary["user_wait_behind_bg_ns"] == 700


@pytest.mark.parametrize("copyback, erase_end", [(True, 40_110 + 22_600), (False, 40_110 + 22_920)])
def test_without_copyback_a_moved_page_crosses_the_channel_twice(engine, copyback, erase_end):
    """The RR of _rr_then_read under "gc-first", with 10 ns page transfers: each user read
    takes 110 ns, so the fifth ends at 40_110 and decides the RR, booked at once.  With
    copyback its 16 moves stay on the die: 16 reads of 100 ns, 16 programs of 1_000 ns and
    the erase, 22_600 ns.  Without, each page goes out after its read (110 ns) and back
    before its program (1_010 ns): 22_920 ns, all of it die time."""
    res = _rr_then_read(engine, "gc-first", t_xfer=10, copyback=copyback)
    assert res.summary["rr_count"] == 1 and res.summary["rr_page_moves"] == 16
    assert res.rr_events["erase_end_ns"].tolist() == [erase_end]
    assert res.summary["busy_rr_ns"] == erase_end - 40_110


@pytest.mark.parametrize("hard_ratio, erase_end, latency, wait", [
    (0.4, 62_700, 12_800, 12_700),  # urgent: the RR is booked whole at 40_100
    (0.005, 62_800, 800, 700),      # the default (1 superblock): queued, as in the test above
])
def test_user_first_books_an_urgent_lanes_work_at_once(engine, hard_ratio, erase_end, latency, wait):
    """The same RR on 16 blocks, filled to 95% of the 179 logical pages (171 pages:
    blocks 0-9 full, block 10 the open user frontier, 5 blocks free), GC threshold
    ceil(0.4 x 16) = 7.  The RR's frontier takes block 11 (4 free) and the victim,
    block 0, counts as free once decided: 5 free after the RR.  No GC runs: every
    closed block but the victim is fully valid.  With a hard threshold of
    ceil(0.4 x 16) = 7 the lane is urgent (5 < 7), so user-first books the RR at once,
    as gc-first would: reads 40_100-41_700, programs to 57_700, erase to 62_700.  The
    read at 50_000 waits for all of it: it runs 62_700-62_800 (latency 12_800, wait
    12_700).  With the default hard threshold, max(1, ceil(0.005 x 16)) = 1, the lane
    is not urgent and the read waits only for the program running at 50_000."""
    res = _rr_then_read(engine, "user-first", blocks=16, gc_ratio=0.4, fill_ratio=0.95,
                        gc_hard_threshold_ratio=hard_ratio)
    s = res.summary
    assert (s["rr_count"], s["gc_count"]) == (1, 0)
    assert res.rr_events["erase_end_ns"].tolist() == [erase_end]
    assert s["read_latency_mean_ns"] == pytest.approx((5 * 100 + latency) / 6)
    assert s["user_wait_behind_bg_ns"] == wait


@pytest.mark.parametrize("scheduler", ["gc-first", "fcfs"])
def test_gc_first_and_fcfs_read_waits_for_the_whole_rr(engine, scheduler):
    """MQSim's non-preemptible GC serves no user read on a chip with GC programs or erase
    queued, and fcfs books the RR as one block: either way the read waits for all of it."""
    res = _rr_then_read(engine, scheduler)
    rr_end = 40_100 + 16 * 100 + 16 * 1000 + 5000
    assert res.rr_events["erase_end_ns"].tolist() == [rr_end]
    assert res.rr_events["trigger_to_erase_ns"].tolist() == [rr_end - 40_100]
    assert res.summary["read_latency_p99_ns"] == pytest.approx(rr_end + 100 - 50_000, rel=1 / 128)
    assert res.summary["user_wait_behind_bg_ns"] == rr_end - 50_000
    assert res.summary["busy_rr_ns"] == 16 * 100 + 16 * 1000 + 5000


@pytest.mark.parametrize("scheduler, read_priority, reads, writes, rr_erase_end", [
    ("gc-first", False, (1_090, 1_180, 24_860), (1_000, 24_770), 23_800),
    ("gc-first", True, (1_090, 1_180, 23_860), (1_000, 24_870), 23_800),
    ("user-first", False, (1_090, 1_180, 2_260), (1_000, 2_170), 24_900),
    ("user-first", True, (1_090, 1_180, 1_260), (1_000, 2_270), 24_900),
])
def test_read_priority_serves_a_dies_reads_before_its_writes(engine, scheduler, read_priority, reads, writes,
                                                             rr_erase_end):
    """One die, RR threshold 2, reads 100 ns, programs 1_000 ns, erase 5_000 ns; the fill
    puts LPNs 0-15 on block 0 and 16-21 on block 1.  Requests: write LPN 20 at 0, reads
    of LPN 0 at 10 and 20, write LPN 21 at 30, read of LPN 20 at 40.

    The first write (0-1_000) and both reads (1_000-1_100, 1_100-1_200) run in arrival
    order either way.  The second read of LPN 0 decides an RR of block 0 at 1_200: 16
    reads, 16 programs and an erase, 22_600 ns of work.

    - gc-first, arrival order: the RR is booked at once (1_200-23_800); the write of 30
      follows it (23_800-24_800, latency 24_770), then the read of 40 (24_800-24_900,
      24_860).
    - gc-first, read priority: the RR still goes first, but the read of 40 now goes
      before the write that waits for the die (23_800-23_900, 23_860); the write runs
      23_900-24_900 (24_870).
    - user-first, arrival order: the RR waits in the queue; the write of 30 is booked on
      arrival (1_200-2_200, 2_170), the read of 40 after it (2_200-2_300, 2_260); the RR
      runs from 2_300 and its erase ends at 2_300 + 22_600 = 24_900.
    - user-first, read priority: the read of 40 goes before the waiting write
      (1_200-1_300, 1_260); the write goes before the queued RR (1_300-2_300, 2_270), whose
      erase again ends at 24_900 (with the RR first, it would end at 1_300 + 22_600 =
      23_900 and the write at 24_900)."""
    cfg = tiny_config(rr=2, pages=16, t_read=100, t_prog=1000, t_erase=5000).replace(
        scheduler=scheduler, read_priority=read_priority)
    trace = page_trace([20, 0, 0, 21, 20], writes=[True, False, False, True, False], times=[0, 10, 20, 30, 40])
    res = flashrr.simulate(cfg, trace, engine=engine, check_invariants=True)
    s = res.summary
    assert s["rr_count"] == 1 and s["user_flash_transactions"] == 5
    assert res.rr_events["erase_end_ns"].tolist() == [rr_erase_end]
    assert s["read_latency_mean_ns"] == pytest.approx(sum(reads) / 3)
    assert s["write_latency_mean_ns"] == pytest.approx(sum(writes) / 2)
    assert s["io_latency_p99_ns"] == pytest.approx(max(reads + writes), rel=1 / 128)


@pytest.mark.parametrize("join, arrive_first, write_latencies", [
    (False, False, (10_580, 11_570)),
    (True, False, (2_580, 10_570)),
    (False, True, (10_595,)),
    (True, True, (2_595,)),
])
def test_join_writes_programs_a_user_write_with_a_background_program(engine, join, arrive_first,
                                                                     write_latencies):
    """One die of two planes, a block of 4 pages per plane, each plane its own lane
    (``static_lane``: even LPNs on plane 0, odd on plane 1); reads 100 ns, programs
    1_000 ns, erase 5_000 ns, no transfer time; RR threshold 2; ``gc-first`` with read
    priority.  The fill writes LPNs 0-9: 0, 2, 4, 6 fill plane 0's first block, 1, 3, 5, 7
    plane 1's, and 8 and 9 open the next block of each plane at offset 0.

    The second read of LPN 0 ends at 200 and decides an RR of plane 0's first block, booked
    at once: 4 reads (200-600), 4 programs at offsets 0-3 of a fresh block (600-1_600,
    1_600-2_600, 2_600-3_600, 3_600-4_600) and the erase (4_600-9_600).

    - A write of LPN 9 at 20 goes to plane 1 at offset 1, as the RR's second program:
      joined, it ends with it at 2_600 (latency 2_580); without the join it waits for the
      erase (9_600-10_600, 10_580).  A write of LPN 8 at 30 is on plane 0, which the
      programs hold: it waits either way (after LPN 9's without the join: 10_600-11_600,
      11_570; else 9_600-10_600, 10_570).
    - A write of LPN 9 at 5 waits in the die's queue behind the reads (read priority) when
      the RR is booked: the second program takes it (2_600, latency 2_595), or it waits
      for the erase (10_595)."""
    cfg = tiny_config(planes=2, pages=4, blocks=16, rr=2, t_read=100, t_prog=1000, t_erase=5000).replace(
        scheduler="gc-first", read_priority=True, join_writes=join, placement="static_lane")
    if arrive_first:
        trace = page_trace([0, 9, 0], writes=[False, True, False], times=[0, 5, 10])
    else:
        trace = page_trace([0, 0, 9, 8], writes=[False, False, True, True], times=[0, 10, 20, 30])
    res = flashrr.simulate(cfg, trace, engine=engine, check_invariants=True)
    s = res.summary
    assert s["rr_count"] == 1 and res.rr_events["erase_end_ns"].tolist() == [9_600]
    assert s["read_latency_mean_ns"] == pytest.approx((100 + 190) / 2)
    assert s["write_latency_mean_ns"] == pytest.approx(sum(write_latencies) / len(write_latencies))
    assert s["write_latency_p99_ns"] == pytest.approx(max(write_latencies), rel=1 / 128)


@pytest.mark.parametrize("join, read_latencies", [(False, (100, 190, 9_450, 9_540)), (True, (100, 190, 250, 9_440))])
def test_join_reads_senses_a_user_read_with_a_background_read(engine, join, read_latencies):
    """The device of the join_writes test, with LPNs 0-6 filled (LPN 5 at offset 2 of plane
    1's first block).  The RR of plane 0's first block (LPNs 0, 2, 4, 6) is decided at 200
    and booked at once: reads of offsets 0-3 at 200, 300, 400 and 500, then its programs to
    offsets 0-3 of a fresh block and the erase (to 9_600).

    A read of LPN 5 at 250 (plane 1, offset 2) senses with the RR's third read (400-500) and
    ends at 500 (latency 250); without the join it waits for the erase (9_600-9_700, 9_450).
    A read of LPN 6 at 260 (now at offset 3 of plane 0) is on the plane the RR's reads
    hold: it waits either way (9_600-9_700, or after LPN 5's read 9_700-9_800)."""
    cfg = tiny_config(planes=2, pages=4, blocks=16, rr=2, t_read=100, t_prog=1000, t_erase=5000).replace(
        scheduler="gc-first", join_reads=join, placement="static_lane")
    res = flashrr.simulate(cfg, page_trace([0, 0, 5, 6], times=[0, 10, 250, 260]), engine=engine,
                           check_invariants=True)
    s = res.summary
    assert s["rr_count"] == 1 and res.rr_events["erase_end_ns"].tolist() == [9_600]
    assert s["read_latency_mean_ns"] == pytest.approx(sum(read_latencies) / 4)
    assert s["read_latency_p99_ns"] == pytest.approx(max(read_latencies), rel=1 / 128)


def test_read_priority_refuses_policies_that_need_a_writes_end_on_arrival(engine):
    """Early moves (RL-RR) need each write's completion on arrival, and Rails books its own
    programs on arrival: neither runs with read priority."""
    cfg = tiny_config(blocks=8, pages=4, op=0.5).replace(scheduler="gc-first", read_priority=True)
    trace = page_trace([0, 1], writes=[True, False])
    for policy in ("rl-rr", "rails"):
        with pytest.raises(flashrr.EngineError, match="timing.read_priority"):
            flashrr.simulate(cfg, trace, policy=policy, engine=engine)


def _scheduler(engine, chips=2, **changes):
    """The scheduler layer of a fresh engine: one channel shared by ``chips`` dies."""
    from flashrr._core import load_compiled_engine
    from flashrr._core.engine_py import ReferenceEngine

    cfg = tiny_config(chips=chips, t_xfer=100).replace(**changes)
    cls = ReferenceEngine if engine == "reference" else load_compiled_engine()
    return cls(build_layout(cfg), None, 0, False).sched


@pytest.mark.parametrize("model, read_end", [("gap-fill", 1_110), ("busy-until", 10_300)])
def test_program_queued_on_a_busy_die_does_not_hold_the_channel(engine, model, read_end):
    """Die 0 programs until 10_100 and has a second program queued behind it, whose
    transfer can only start then (10_100..10_200).  A read on idle die 1 senses from 10
    to 1_010: a gap-filling channel moves its page at once (1_010..1_110); a busy-until
    channel makes it wait behind the queued transfer (10_200..10_300)."""
    sc = _scheduler(engine, channel_model=model)
    assert sc.book_op(0, 0, PH_PROG, 1, 0, 10_000, CAUSE_USER) == 10_100
    assert sc.book_op(0, 0, PH_PROG, 1, 5, 10_000, CAUSE_USER) == 20_200
    assert sc.book_op(1, 0, PH_READ, 1, 10, 1_000, CAUSE_USER) == read_end


def test_gap_fill_uses_a_gap_only_if_it_is_long_enough(engine):
    """Transfers at 0..100 and 150..250 leave a 50 ns gap.  A 100 ns transfer wanted from
    101 cannot use it and goes after 250; with 50 ns pages, one wanted from 100 fits it
    exactly."""
    sc = _scheduler(engine)
    assert sc.book_op(0, 0, PH_PROG, 1, 0, 1, CAUSE_USER) == 101       # transfer 0..100, program to 101
    assert sc.book_op(1, 0, PH_PROG, 1, 150, 1, CAUSE_USER) == 251     # transfer 150..250
    assert sc.book_op(0, 0, PH_READ, 1, 0, 0, CAUSE_USER) == 350       # transfer 250..350
    sc = _scheduler(engine, t_xfer_page_ns=50)
    assert sc.book_op(0, 0, PH_PROG, 2, 0, 0, CAUSE_USER) == 100       # transfer 0..100
    assert sc.book_op(1, 0, PH_PROG, 2, 150, 1, CAUSE_USER) == 251     # transfer 150..250
    assert sc.book_op(0, 0, PH_READ, 1, 0, 0, CAUSE_USER) == 150       # transfer 100..150


def test_cached_write_is_acknowledged_at_dram_speed(engine):
    """A 2-page cache: the third write evicts a dirty page.  With write_ack="insert"
    every write costs t_dram while the destage buffer has room; with "program" the
    evicting write waits for the evicted page's program."""
    trace = page_trace([0, 1, 2], writes=[True] * 3, gap_ns=10)
    fast = tiny_config(cache_pages=2, t_prog=1000, t_dram=10)
    s = flashrr.simulate(fast, trace, engine=engine).summary
    assert s["write_latency_p99_ns"] == 10 and s["write_latency_mean_ns"] == 10
    assert s["flash_pages_programmed"] == 1 and s["busy_flush_ns"] == 1000
    slow = fast.replace(write_ack="program")
    s = flashrr.simulate(slow, trace, engine=engine).summary
    assert s["write_latency_mean_ns"] == pytest.approx((10 + 10 + 1000) / 3)


def test_full_destage_buffer_makes_a_write_wait(engine):
    """Cache of 1 page, destage buffer of 1 page, one die, programs of 1_000 ns.
    Write 0 at t=0 fills the cache.  Write 1 at t=1 evicts page 0: its flush runs
    1..1_001, and the buffer holds it.  Write 2 at t=2 evicts page 1: that flush runs
    1_001..2_001; the buffer now holds two, so write 2 waits for the first to end (1_001)."""
    cfg = tiny_config(cache_pages=1, destage_buffer_pages=1, t_prog=1000, t_dram=10)
    trace = page_trace([0, 1, 2], writes=[True] * 3, times=[0, 1, 2])
    s = flashrr.simulate(cfg, trace, engine=engine).summary
    assert s["write_stall_ns"] == 1_001 - 2
    assert s["write_latency_mean_ns"] == pytest.approx((10 + 10 + (1_001 - 2)) / 3)


class IdleMover(Policy):
    """At each RR, queue an idle move of LPN ``lpn`` to component 0 of its lane."""

    name = "idle-mover"

    def __init__(self, lpn=20):
        super().__init__()
        self.lpn = lpn

    def on_read_reclaim(self, state, sb):
        state.queue_idle_move(self.lpn, 0)
        return "with-move"


def test_idle_move_runs_in_the_first_idle_gap(engine):
    """user-first, the RR of block 0 as above (decided at 40_100) queues a move of LPN
    20.  The die's queue drains at 62_800 (after the read at 50_000 slipped in); the
    move then reads (100) and programs (1_000) before the next arrival at 100_000."""
    cfg = tiny_config(rr=5, pages=16, t_read=100, t_prog=1000, t_erase=5000)
    trace = page_trace([0] * 5 + [21], times=[0, 10_000, 20_000, 30_000, 40_000, 100_000])
    res = flashrr.simulate(cfg, trace, policy=IdleMover(20), engine=engine, check_invariants=True)
    s = res.summary
    assert (s["idle_moves"], s["idle_moves_dropped"]) == (1, 0)
    assert s["busy_move_ns"] == 100 + 1000
    assert s["flash_pages_programmed"] == 16 + 1


def test_idle_move_of_an_overwritten_page_drops_itself(engine):
    """The move of LPN 20 is queued at the RR; LPN 20 is rewritten before the die idles."""
    cfg = tiny_config(rr=5, pages=16, t_read=100, t_prog=1000, t_erase=5000)
    lpns = [0] * 5 + [20, 21]
    trace = page_trace(lpns, writes=[False] * 5 + [True, False],
                       times=[0, 10_000, 20_000, 30_000, 40_000, 41_000, 100_000])
    s = flashrr.simulate(cfg, trace, policy=IdleMover(20), engine=engine, check_invariants=True).summary
    assert (s["idle_moves"], s["idle_moves_dropped"]) == (0, 1)


def test_idle_move_never_runs_on_a_busy_die(engine):
    """Reads arrive every 50 ns with t_read = 100: the die never idles, so the queued move
    never runs (it is dropped at the end of the trace, uncounted)."""
    cfg = tiny_config(rr=5, pages=16, t_read=100, t_prog=1000, t_erase=5000)
    trace = page_trace([0] * 5 + [21] * 2000, gap_ns=50)
    s = flashrr.simulate(cfg, trace, policy=IdleMover(20), engine=engine).summary
    assert s["rr_count"] >= 1 and s["idle_moves"] == 0


def _same_work_under_every_scheduler(cfg, trace):
    keys = ("rr_count", "rr_page_moves", "gc_count", "gc_page_moves", "erase_count", "waf",
            "flash_pages_programmed", "flash_read_pages")
    out = {}
    for sched in ("user-first", "gc-first", "fcfs"):
        s = flashrr.simulate(cfg.replace(scheduler=sched), trace, check_invariants=True).summary
        out[sched] = tuple(s[k] for k in keys)
    assert out["user-first"] == out["gc-first"] == out["fcfs"]
    return dict(zip(keys, out["fcfs"]))


@settings(max_examples=15)
@given(gappy_workload())
def test_schedulers_move_work_in_time_not_change_it(case):
    """RR and GC counts, page moves, erases and WAF are the same under every scheduler."""
    work = _same_work_under_every_scheduler(*case)
    assert work["rr_count"] + work["gc_count"] > 0


def test_schedulers_do_the_same_gc():
    """The same with GC only (RR off, 70% writes): frequent RRs keep the free pool full."""
    cfg = tiny_config(planes=2, sb_planes=2, blocks=24, pages=8, op=0.4, rr_enabled=False, gc_ratio=0.1)
    rng = np.random.default_rng(11)
    trace = page_trace(rng.integers(0, 100, 800), writes=rng.random(800) < 0.7, gap_ns=10**7)
    assert _same_work_under_every_scheduler(cfg, trace)["gc_count"] > 10


def test_write_stream_the_device_cannot_absorb_finishes(engine):
    """Writes arrive every 1 us; one program takes 50 us: the backlog grows without bound
    in time, but the run ends, every GC has an erase time, and what is left queued at the
    end is bounded by the superblocks of the device."""
    cfg = tiny_config(planes=2, sb_planes=2, blocks=24, pages=8, op=0.4, gc_ratio=0.15, t_prog=50_000,
                      t_erase=200_000, rr_enabled=False)
    n = 3000 if engine == "compiled" else 600
    rng = np.random.default_rng(5)
    trace = page_trace(rng.integers(0, 100, n), writes=np.ones(n, bool), gap_ns=1_000)
    res = flashrr.simulate(cfg, trace, engine=engine)
    s = res.summary
    assert s["gc_count"] > 0
    assert (res.gc_events["erase_end_ns"] >= res.gc_events["time_ns"]).all()
    assert s["bg_pending_at_end"] <= 24 * (2 * 2 * 8 + 1)
    assert s["write_latency_mean_ns"] > 100 * 50_000  # the backlog shows in the latency


def test_scheduler_counters_in_the_summary():
    cfg = tiny_config(rr=5, pages=16)
    s = flashrr.simulate(cfg, page_trace([0] * 12, gap_ns=10_000)).summary
    for name in ("busy_user_ns", "busy_flush_ns", "busy_gc_ns", "busy_rr_ns", "busy_move_ns",
                 "user_wait_behind_bg_ns", "write_stall_ns", "bg_pending_at_end", "idle_moves",
                 "idle_moves_dropped", "die_idle_fraction_mean", "die_idle_fraction_min"):
        assert name in s
    assert s["busy_user_ns"] == 12 * 100
    assert 0 < s["die_idle_fraction_min"] <= s["die_idle_fraction_mean"] < 1


def test_queues_that_grow_far_past_their_first_size_keep_the_twins_identical():
    """user-first under a read stream that never lets the die idle: RR jobs of 64-page
    blocks (129 transactions each) pile up by the thousand, so every queue regrows many
    times; both engines must still agree exactly."""
    cfg = tiny_config(blocks=32, pages=64, op=0.3, rr=20, t_read=1000, t_prog=5000, t_erase=20000)
    rng = np.random.default_rng(2)
    n = 1500
    trace = page_trace(rng.integers(0, 200, n), writes=rng.random(n) < 0.1, gap_ns=300)
    a = flashrr.simulate(cfg, trace, engine="compiled")
    b = flashrr.simulate(cfg, trace, engine="reference", check_invariants=True)
    assert a.summary["bg_pending_at_end"] > 1000
    assert comparable(a.summary) == comparable(b.summary)
    assert a.rr_events.equals(b.rr_events)


def _first_fit(starts, ends, t, dur):
    """Independent model of a gap-filling channel, over the disjoint busy intervals
    [starts[i], ends[i]) kept sorted: the earliest s >= t with [s, s + dur) clear of
    every one of them; books it and returns its end."""
    i = bisect.bisect_right(ends, t)
    s = t
    while i < len(starts) and starts[i] < s + dur:
        s = max(s, ends[i])
        i += 1
    j = bisect.bisect_left(starts, s)
    starts.insert(j, s)
    ends.insert(j, s + dur)
    return s + dur


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lag=st.sampled_from([2_000, 60_000]))
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_gap_fill_channel_is_first_fit_while_the_horizon_moves(engine, seed, lag):
    """As the replay loop does, the horizon follows the readiness times: before read i
    (ready at 300 i ns less up to ``lag``) it moves to 300 i - lag, which no later read
    precedes.  The channel drops the busy intervals that end by then, and every transfer
    still ends where first fit over all bookings puts it.  6,000 reads, 1-3 pages each,
    split, drop and reuse the compiled engine's interval chunks many times over (the
    slots of dropped chunks are reclaimed when the live ones fill their allocation)."""
    rng = np.random.default_rng(seed)
    sc = _scheduler(engine, chips=8)
    starts, ends, die_free = [], [], [0] * 8
    for i in range(6000):
        sc.set_horizon(max(0, 300 * i - lag))
        die, pages = int(rng.integers(8)), int(rng.integers(1, 4))
        ready = max(0, 300 * i - int(rng.integers(lag)))
        want = _first_fit(starts, ends, max(ready, die_free[die]), 100 * pages)
        die_free[die] = want
        assert sc.book_op(die, 0, PH_READ, pages, ready, 0, CAUSE_USER) == want


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_gap_fill_channel_is_first_fit_with_far_apart_backlogs(seed):
    """Each of 8 dies on one channel has its own backlog, 1 ms apart from the next die's,
    as dies of an overloaded device do.  A die senses a read for 700 ns once its previous
    read has left it, then moves 1-3 pages (100 ns each) over the channel; one read in
    five is ready up to 3 ms later instead, past other dies' backlogs.  The compiled
    channel starts each search at the chunk, and the interval in it, where the die's
    previous one landed, so the jumps make it search far ahead across dozens of chunks.
    Every transfer still ends where first fit puts it.  (The reference channel has no such start: it
    scans its intervals from the first.)"""
    rng = np.random.default_rng(seed)
    sc = _scheduler("compiled", chips=8)
    starts, ends = [], []
    die_free = [1_000_000 * d for d in range(8)]
    for _ in range(4000):
        die, pages = int(rng.integers(8)), int(rng.integers(1, 4))
        ready = die_free[die] + (int(rng.integers(3_000_000)) if rng.random() < 0.2 else 0)
        want = _first_fit(starts, ends, ready + 700, 100 * pages)
        die_free[die] = want
        assert sc.book_op(die, 0, PH_READ, pages, ready, 700, CAUSE_USER) == want


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), jitter=st.sampled_from([3_000, 40_000]))
@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_gap_fill_channel_is_first_fit(engine, seed, jitter):
    """600 reads of 1-3 pages (100 ns each on the channel, no sensing time) from 8 dies on
    one channel; read i is ready at 300 i ns less a random jitter, so the channel runs
    nearly full and many transfers land in gaps.  Each ends where first fit over every
    transfer booked so far puts it.  The bookings split the compiled engine's interval
    chunks and fill gaps between them (the seed draws the sequence: hypothesis rarely
    draws lists this long)."""
    rng = np.random.default_rng(seed)
    sc = _scheduler(engine, chips=8)
    starts, ends, die_free = [], [], [0] * 8
    for i in range(600):
        die, pages = int(rng.integers(8)), int(rng.integers(1, 4))
        ready = max(0, 300 * i - int(rng.integers(jitter)))
        want = _first_fit(starts, ends, max(ready, die_free[die]), 100 * pages)
        die_free[die] = want
        assert sc.book_op(die, 0, PH_READ, pages, ready, 0, CAUSE_USER) == want
