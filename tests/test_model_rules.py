"""Rules of docs/model.md that no other test file pinned, each counted by hand on
both engines (the ``engine`` fixture), so a rule broken the same way in the compiled
engine and in its twin still fails here.  Each test is named after the rule it pins,
and its docstring derives the expected numbers from that rule.  tests/README.md maps
every rule of docs/model.md to its test; tests/mutation_check.py breaks rules in both
engines and reports which tests catch each.

Unless a test says otherwise the device is ``engine_helpers.tiny_config``: one channel,
one die, one plane (k = 1), 32 blocks of 16 pages, t_read 100 ns, t_prog 1,000 ns,
t_erase 5,000 ns, no channel time, t_dram 10 ns, no cache, RR threshold 10, the
"user-first" scheduler.  The fill writes LPN 0 up to the trace's highest LPN in order
into block 0, 1, ... (the free list starts in id order), so with k = 1 LPN i is page
i mod 16 of block i // 16; with k planes per superblock LPN i is on component i mod k,
at offset i // k.  Means of latency are exact (sum / count); percentiles are not.
"""
import numpy as np
import pytest

import flashrr
from flashrr.config import ReadRetryConfig
from flashrr.policy import Policy
from engine_helpers import build_engine, page_trace, tiny_config


def _replay(engine, cfg, trace, fill=None):
    """An engine (Baseline) filled with LPNs 0 .. fill - 1 (default: up to the trace's
    highest LPN, as simulate does) after replaying ``trace`` and finishing; tests read
    its state (``state_view``) and counters."""
    ps = cfg.geometry.page_size_bytes
    if fill is None:
        fill = int(((trace.offset + trace.size - 1) // ps).max()) + 1
    eng = build_engine(engine, cfg, "baseline", fill=fill)
    eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write.astype(np.uint8))
    eng.finish()
    return eng


def _block_reads(engine, cfg, trace):
    """Every block's read count after ``trace``, and the engine's counters."""
    eng = _replay(engine, cfg, trace)
    return np.asarray(eng.state_view(0).block_reads).copy(), eng.results()["counters"]


# ----------------------------------------------------------------------------- 2. FTL: greedy GC


def test_gc_owes_a_victim_only_for_an_allocation_below_the_threshold(engine):
    """8 blocks of 4 pages, 16 logical pages, GC threshold ceil(0.3 x 8) = 3 free blocks.
    The fill puts LPNs 0-7 in blocks 0 and 1 (6 free).  Writes of LPNs 0-7, twice over,
    one every 1 us: writes 1, 5, 9 and 13 open blocks 2, 3, 4 and 5.  Opening block 4
    (write 9, at 8 us) leaves 3 free, at the threshold, not below it: no victim.  Opening
    block 5 (write 13, at 12 us) leaves 2: one victim, the emptiest closed block with the
    lowest id, block 0 (its pages were rewritten by writes 1-4), erased with no move."""
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.3, rr_enabled=False)
    assert cfg.gc_threshold_superblocks == 3
    res = flashrr.simulate(cfg, page_trace(list(range(8)) * 2, writes=[True] * 16), engine=engine)
    assert res.gc_events["time_ns"].tolist() == [12_000]
    assert res.gc_events["superblock"].tolist() == [0]
    assert (res.summary["gc_page_moves"], res.summary["erase_count"]) == (0, 1)
    assert res.summary["busy_gc_ns"] == 5_000  # the erase alone


def test_free_superblocks_are_a_fifo_and_an_erased_one_joins_the_back(engine):
    """The device above, and one more write, of LPN 0, at 16 us.  After the GC at 12 us
    the free list is 6, 7, then the erased block 0 at the back: write 17 opens block 6
    (a free list that put erased blocks first would give block 0), so LPN 0 lands at
    page 0 of block 6."""
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.3, rr_enabled=False)
    eng = _replay(engine, cfg, page_trace(list(range(8)) * 2 + [0], writes=[True] * 17))
    assert int(eng.state_view(0).l2p[0]) == 6 * 4 + 0


def test_gc_stops_when_the_best_victim_is_fully_valid(engine):
    """16 blocks of 4 pages, 48 logical pages, GC threshold ceil(0.7 x 16) = 12 free
    blocks; only LPNs 0-11 are filled (blocks 0-2, 13 free).  First writes of LPNs
    12-16 rewrite nothing: LPN 12 opens block 3 (12 free, not below), LPN 16 opens
    block 4 and leaves 11, below the threshold, so a victim is owed.  Every closed
    block (0-3) holds 4 valid pages: collecting one would gain nothing, so no GC runs
    and nothing is erased."""
    cfg = tiny_config(blocks=16, pages=4, op=0.25, gc_ratio=0.7, rr_enabled=False)
    assert (cfg.logical_pages, cfg.gc_threshold_superblocks) == (48, 12)
    eng = _replay(engine, cfg, page_trace(list(range(12, 17)), writes=[True] * 5), fill=12)
    c = eng.results()["counters"]
    assert (c["gc_count"], c["erase_count"], c["flash_pages_programmed"]) == (0, 0, 5)
    assert [int(p) // 4 for p in eng.state_view(0).l2p[12:17:4]] == [3, 4]


# ----------------------------------------------------------------------------- 4. read counts


def test_a_multi_page_read_counts_once_per_page_on_its_block(engine):
    """A flash read adds 1 to its block's read count for every page it reads.  One read
    of 4 pages at LPN 0 reads pages 0-3 of block 0: its count becomes 4, the threshold,
    so one RR of block 0 moves its 4 valid pages.  The read is 4 transactions (one plane,
    four offsets) of 100 ns, so the RR is decided when they are done, at 400 ns.
    Counting once per request would leave the count at 1 and start no RR."""
    res = flashrr.simulate(tiny_config(rr=4), page_trace([0], pages=[4]), engine=engine)
    s = res.summary
    assert (s["flash_read_pages"], s["user_flash_transactions"]) == (4, 4)
    assert (s["rr_count"], s["rr_page_moves"]) == (1, 4)
    assert list(res.rr_events.block_reads) == [(4,)]
    assert res.rr_events["time_ns"].tolist() == [400]


def test_a_superpage_read_counts_one_on_each_component_block(engine):
    """k = 4 (one die, four planes): LPNs 0-3 are offset 0 of components 0-3 of superblock
    0, LPNs 4-7 offset 1.  A read of LPNs 0-3 adds 1 to each of blocks 0-3; a read of
    LPNs 0-7 then adds 2 more to each (two pages per block): (3, 3, 3, 3), nothing
    elsewhere.  Threshold 100: no RR resets them."""
    cfg = tiny_config(planes=4, sb_planes=4, rr=100)
    reads, c = _block_reads(engine, cfg, page_trace([0, 0], pages=[4, 8]))
    assert reads[:4].tolist() == [3, 3, 3, 3]
    assert not reads[4:].any()
    assert c["flash_read_pages"] == 12 and c["rr_count"] == 0


def test_migration_reads_are_not_counted_and_the_erase_resets_the_victims_count(engine):
    """The RR of the first test moves LPNs 0-3 from block 0 to the GC/RR frontier, which
    takes the next free block (1).  Its migration reads add nothing to block 1, and the
    erase resets block 0's count of 4: every count is 0 after the RR."""
    reads, c = _block_reads(engine, tiny_config(rr=4), page_trace([0], pages=[4]))
    assert c["rr_count"] == 1
    assert not reads.any()


def test_rr_triggers_on_one_blocks_count_not_the_superblocks_sum(engine):
    """k = 2 (one die, two planes), threshold 10: LPN 0 (component 0) and LPN 1
    (component 1) are read 9 times each.  Neither block reaches 10, though together
    they have 18 reads: no RR.  The tenth read of LPN 0 brings block 0 to 10: one RR of
    the superblock, with counts (10, 9), moving both pages.  Both pages sit at offset 0
    on one die, so the RR is one two-plane read (100), one two-plane program (1,000)
    and one erase (5,000): 6,100 ns of RR work."""
    cfg = tiny_config(planes=2, sb_planes=2, rr=10)
    res = flashrr.simulate(cfg, page_trace([0, 1] * 9 + [0]), engine=engine)
    s = res.summary
    assert (s["rr_count"], s["rr_page_moves"]) == (1, 2)
    assert list(res.rr_events.block_reads) == [(10, 9)]
    assert s["busy_rr_ns"] == 100 + 1_000 + 5_000


def test_an_rr_victim_that_is_an_open_frontier_stops_being_one(engine):
    """Threshold 10; LPNs 0 and 1 fill pages 0-1 of block 0, still the open user
    frontier.  The tenth read of LPN 0 reclaims block 0: it stops being the user
    frontier, and both pages move to the GC/RR frontier, which opens block 1 (pages
    0-1).  A write of LPN 1 then opens a new user frontier, block 2 (block 0, erased,
    waits at the back of the free list).  Ten more reads of LPN 0 reclaim block 1, now
    the open GC/RR frontier: it stops being one, so LPN 0 moves to a new frontier block,
    3, not to page 2 of its own victim."""
    trace = page_trace([0] * 10 + [1] + [0] * 10, writes=[False] * 10 + [True] + [False] * 10)
    eng = _replay(engine, tiny_config(rr=10), trace)
    c = eng.results()["counters"]
    assert (c["rr_count"], c["rr_page_moves"]) == (2, 3)
    l2p = eng.state_view(0).l2p
    assert (int(l2p[0]), int(l2p[1])) == (3 * 16 + 0, 2 * 16 + 0)


class FirstRRToComponent0(Policy):
    """Places every page of the first RR on component 0; later RRs keep each page's own."""

    name = "first-rr-to-component-0"

    def bind(self, config, seed):
        self.calls = 0

    def place_migration(self, state, kind, sb, comps, offsets, lpns):
        self.calls += 1
        return np.zeros_like(comps) if self.calls == 1 else comps


def test_a_page_whose_column_is_full_in_both_open_gc_superblocks_spills_to_the_oldest(engine):
    """k = 2 (one die, two planes), 4 pages per block, RR threshold 2.  The fill puts
    LPNs 0-7 in superblock 0 and 8-15 in superblock 1 (LPN i on component i mod 2).
    Two reads of LPN 0 reclaim superblock 0, and the policy sends its 8 pages to
    component 0: the GC/RR frontier opens superblock 2 (LPNs 0-3 on its component 0)
    and, when that block is full, superblock 3 (LPNs 4-7); component 1 of both is empty.
    Two reads of LPN 8 reclaim superblock 1, keeping components, in source order 8, 9,
    ..., 15.  Component 0 is full in both open superblocks and no third may open, so
    LPN 8 spills to the oldest one's emptiest column, component 1 of superblock 2
    (page (2 x 2 + 1) x 4 + 0 = 20); LPN 9 is on component 1 and writes there too (21),
    then LPN 10 (22) and 11 (23).  Superblock 2 is then written in full and closes; LPN
    12 (component 0) opens superblock 4 (page (4 x 2 + 0) x 4 = 32) and LPN 13 writes
    component 1 of superblock 3 (page (3 x 2 + 1) x 4 = 28); then 14 at 33 and 15 at 29.
    No block of a closed GC superblock is left unwritten."""
    cfg = tiny_config(planes=2, sb_planes=2, blocks=16, pages=4, rr=2)
    pol = FirstRRToComponent0()
    pol.bind(cfg, 0)
    eng = build_engine(engine, cfg, pol, fill=16)
    trace = page_trace([0, 0, 8, 8], gap_ns=100_000)
    eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write.astype(np.uint8))
    eng.finish()
    assert eng.results()["counters"]["rr_count"] == 2
    l2p = [int(p) for p in eng.state_view(0).l2p[:16]]
    assert l2p[:8] == [(2 * 2 + 0) * 4 + o for o in range(4)] + [(3 * 2 + 0) * 4 + o for o in range(4)]
    assert l2p[8:] == [20, 21, 22, 23, 32, 28, 33, 29]
    p2l = np.asarray(eng.state_view(0).p2l)
    assert (p2l[2 * 2 * 4:3 * 2 * 4] >= 0).all()  # superblock 2: both blocks written


def test_a_queued_rr_is_dropped_when_gc_erased_its_superblock_first(engine):
    """8 blocks of 4 pages, GC threshold ceil(0.5 x 8) = 4, RR threshold 2.  The fill
    puts LPNs 0-15 in blocks 0-3; rewrites of LPNs 5-7 go to block 4 (opening it leaves
    3 free, but every closed block is full: no GC), so block 1 keeps one valid page,
    LPN 4.  Two reads of LPNs 3-4 bring blocks 0 and 1 to 2 in the same request: RRs of
    blocks 0 and 1 are queued, in that order.  The RR of block 0 moves its 4 pages to
    block 5 (2 free, then 3 with the victim), which owes a GC victim: the emptiest
    closed block, block 1, whose one page goes to block 6.  The queued RR of block 1 is
    checked again, finds it erased, and does not run: one RR, one GC."""
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.5, rr=2)
    assert cfg.gc_threshold_superblocks == 4
    trace = page_trace([5, 6, 7, 3, 3], writes=[True] * 3 + [False] * 2, pages=[1, 1, 1, 2, 2], gap_ns=10_000)
    c = _replay(engine, cfg, trace, fill=16).results()["counters"]
    assert (c["rr_count"], c["rr_page_moves"]) == (1, 4)
    assert (c["gc_count"], c["gc_page_moves"]) == (1, 1)


# ----------------------------------------------------------------------------- 4. read retry


@pytest.mark.parametrize("scheduler", ["user-first", "gc-first", "fcfs"])
def test_migration_reads_pay_the_victims_read_retry(engine, scheduler):
    """Cocktail retries (steps 0.7, 0.8, 0.9 of the threshold 10, 1,000 ns each), ten
    reads of LPN 0, 100 us apart.  The user reads at counts 7, 8, 9 pay 1, 2, 3 retries:
    retry_time_ns = 6,000, and the tenth read ends at 900,000 + 100 + 3,000 = 903,100,
    when block 0 reaches 10 and its RR is decided.  A victim's count is at its threshold,
    10 / 10 >= every step, so the RR's one page read costs 100 + 3 x 1,000 = 3,100; then
    a program (1,000) and an erase (5,000): busy_rr_ns = 9,100, and the erase ends at
    903,100 + 9,100 = 912,200 under every scheduler (the die is idle and nothing arrives
    after it).  User-first leaves the RR's 3 transactions queued when the trace ends;
    the others book them at once.  Migration retries are not user retries, so
    retry_time_ns stays 6,000."""
    cfg = tiny_config(rr=10, retry=ReadRetryConfig.cocktail(1000)).replace(scheduler=scheduler)
    res = flashrr.simulate(cfg, page_trace([0] * 10, gap_ns=100_000), engine=engine)
    s = res.summary
    assert s["rr_count"] == 1
    assert s["retry_time_ns"] == 6_000
    assert s["busy_rr_ns"] == 3_100 + 1_000 + 5_000
    assert res.rr_events["time_ns"].tolist() == [903_100]
    assert res.rr_events["erase_end_ns"].tolist() == [912_200]
    assert s["bg_pending_at_end"] == (3 if scheduler == "user-first" else 0)


def test_linear_ldpc_retries_one_step_per_eighth_of_the_threshold(engine):
    """ReadRetryConfig.ldpc(1000): 7 steps at 1/8 .. 7/8 of the threshold.  Threshold 8,
    eight reads of LPN 0: the read at count c (before it) pays c retries, so
    retry_time_ns = (0 + 1 + ... + 7) x 1,000."""
    cfg = tiny_config(rr=8, retry=ReadRetryConfig.ldpc(1000))
    s = flashrr.simulate(cfg, page_trace([0] * 8, gap_ns=100_000), engine=engine).summary
    assert s["retry_time_ns"] == 28 * 1000


def test_a_multi_plane_read_pays_its_slowest_pages_retry(engine):
    """k = 2, threshold 10, Cocktail retries of 1,000 ns.  Eight reads of LPN 0 bring
    block 0 to 8 (the eighth, at count 7, pays 1 retry).  Then one read of LPNs 0-1:
    one two-plane transaction at offset 0, LPN 0 at count 8 (2 retries), LPN 1 at count
    0 (none).  It pays the larger, 2,000 ns, once: latency 100 + 2,000 and
    retry_time_ns = 1,000 + 2,000."""
    cfg = tiny_config(planes=2, sb_planes=2, rr=10, retry=ReadRetryConfig.cocktail(1000))
    res = flashrr.simulate(cfg, page_trace([0] * 8 + [0], pages=[1] * 8 + [2], gap_ns=100_000), engine=engine)
    s = res.summary
    assert s["retry_time_ns"] == 3_000
    assert s["user_flash_transactions"] == 9
    assert s["read_latency_mean_ns"] == pytest.approx((9 * 100 + 3_000) / 9)


# ----------------------------------------------------------------------------- 3. DRAM cache


def test_read_misses_enter_the_cache_clean(engine):
    """A 2-page cache.  Reads of LPNs 0-3: 0 and 1 are inserted clean, 2 evicts 0 and 3
    evicts 1, clean pages, so nothing is written back: no program, no flush time.  Then
    write 0 (dirty), read 1, read 2 (evicts dirty 0: one write-back), read 3 (evicts 1,
    clean): one program in all."""
    cfg = tiny_config(cache_pages=2, rr_enabled=False)
    s = flashrr.simulate(cfg, page_trace([0, 1, 2, 3]), engine=engine).summary
    assert s["flash_read_pages"] == 4
    assert (s["flash_pages_programmed"], s["busy_flush_ns"]) == (0, 0)
    trace = page_trace([0, 1, 2, 3], writes=[True, False, False, False])
    s = flashrr.simulate(cfg, trace, engine=engine).summary
    assert (s["flash_pages_programmed"], s["busy_flush_ns"]) == (1, 1_000)


def test_a_write_hit_makes_a_clean_page_dirty(engine):
    """A 2-page cache.  Read 0 inserts it clean; write 0 hits and marks it dirty; reads
    of 1 and 2 then evict it (the LRU page): one write-back.  Had the hit left it clean,
    nothing would be programmed."""
    cfg = tiny_config(cache_pages=2, rr_enabled=False)
    trace = page_trace([0, 0, 1, 2], writes=[False, True, False, False])
    s = flashrr.simulate(cfg, trace, engine=engine).summary
    assert s["cache_write_hit_ratio"] == 1
    assert (s["flash_pages_programmed"], s["busy_flush_ns"]) == (1, 1_000)


def test_the_default_destage_buffer_holds_one_page_per_plane(engine):
    """A 1-page cache on one die with two planes, so a default destage buffer of 2
    pages.  Writes of LPNs 0-3 at 0, 1, 2 and 3 ns: writes 1, 2 and 3 each evict the
    page before, whose flush is programmed 1-1,001, 1,001-2,001 and 2,001-3,001.  Write 2
    leaves two flushes in the buffer, which fits; write 3 a third, so it waits for the
    earliest to end: write_stall_ns = 1,001 - 3."""
    cfg = tiny_config(planes=2, cache_pages=1, rr_enabled=False)
    s = flashrr.simulate(cfg, page_trace([0, 1, 2, 3], writes=[True] * 4, times=[0, 1, 2, 3]),
                         engine=engine).summary
    assert s["write_stall_ns"] == 1_001 - 3


def test_a_cache_hit_costs_t_dram_and_a_reads_evictions_never_delay_it(engine):
    """A 1-page cache.  Write 0 at 0 is acknowledged at t_dram (10).  Read 1 at 10,000
    misses: it reads from flash 10,000-10,100, then its insert evicts dirty 0, whose
    flush is programmed 10,100-11,100; the read still completes at 10,100 (latency 100).
    Read 1 again at 20,000 hits: t_dram, 10.  Read latencies: (100 + 10) / 2."""
    cfg = tiny_config(cache_pages=1, rr_enabled=False)
    trace = page_trace([0, 1, 1], writes=[True, False, False], gap_ns=10_000)
    s = flashrr.simulate(cfg, trace, engine=engine).summary
    assert s["write_latency_mean_ns"] == 10
    assert s["read_latency_mean_ns"] == (100 + 10) / 2
    assert (s["flash_read_pages"], s["busy_flush_ns"]) == (1, 1_000)


def test_a_reads_dirty_evictions_occupy_the_destage_buffer(engine):
    """A 2-page cache, a destage buffer of 1 page.  Writes of LPNs 0 and 1 at 0 and 1,000
    fill the cache dirty (acknowledged at t_dram, 10).  A read of LPN 2 at 2,000 misses:
    it reads 2,000-2,100 (latency 100), then its insert evicts dirty LPN 0, whose flush is
    programmed 2,100-3,100 and enters the destage buffer.  A write of LPN 3 at 2,200
    evicts dirty LPN 1: its flush waits for the die, 3,100-4,100, and is the buffer's
    second page, one over its depth, so the write waits until the earliest flush (the
    read's) ends: it completes at 3,100, write_stall_ns = 900.  Were the read's flush
    kept out of the buffer, the write would find room and complete at 2,210."""
    cfg = tiny_config(cache_pages=2, destage_buffer_pages=1, rr_enabled=False)
    trace = page_trace([0, 1, 2, 3], writes=[True, True, False, True], times=[0, 1_000, 2_000, 2_200])
    s = flashrr.simulate(cfg, trace, engine=engine).summary
    assert s["read_latency_mean_ns"] == 100
    assert s["write_stall_ns"] == 3_100 - 2_200
    assert s["write_latency_mean_ns"] == (10 + 10 + (3_100 - 2_200)) / 3
    assert (s["flash_pages_programmed"], s["busy_flush_ns"]) == (2, 2_000)


# ----------------------------------------------------------------------------- 5. timing


def test_a_program_moves_its_data_over_the_channel_then_programs(engine):
    """t_xfer = 100 ns a page, no cache: one write of LPN 0 transfers (0-100) and then
    programs (100-1,100); the write completes with its program: latency 1,100, and the
    die is busy 1,100.  A 2-page write on a two-plane device (k = 2) is one transaction
    moving 2 pages: 200 + 1,000."""
    s = flashrr.simulate(tiny_config(t_xfer=100), page_trace([0], writes=[True]), engine=engine).summary
    assert (s["write_latency_mean_ns"], s["busy_user_ns"]) == (1_100, 1_100)
    cfg = tiny_config(planes=2, sb_planes=2, t_xfer=100)
    s = flashrr.simulate(cfg, page_trace([0], writes=[True], pages=[2]), engine=engine).summary
    assert s["user_flash_transactions"] == 1
    assert (s["write_latency_mean_ns"], s["busy_user_ns"]) == (1_200, 1_200)


def test_a_flush_moves_its_data_over_the_channel_then_programs(engine):
    """A 1-page cache, t_xfer = 100: write 1 at 10,000 evicts dirty 0, whose flush is a
    program like a user one, transfer then program: 1,100 ns of flush time.  Both
    writes are acknowledged at t_dram."""
    cfg = tiny_config(cache_pages=1, t_xfer=100, rr_enabled=False)
    s = flashrr.simulate(cfg, page_trace([0, 1], writes=[True, True], gap_ns=10_000), engine=engine).summary
    assert (s["busy_flush_ns"], s["busy_user_ns"]) == (1_100, 0)
    assert s["user_flash_transactions"] == 1  # a flush counts as a user transaction
    assert s["write_latency_mean_ns"] == 10


def test_a_read_senses_then_moves_its_pages_over_the_channel(engine):
    """t_xfer = 100: a 1-page read senses 100 ns and moves its page in 100: latency 200.
    On a two-plane device a 2-page read is one transaction that moves both: 100 + 200."""
    s = flashrr.simulate(tiny_config(t_xfer=100), page_trace([0]), engine=engine).summary
    assert s["read_latency_mean_ns"] == 200
    cfg = tiny_config(planes=2, sb_planes=2, t_xfer=100)
    s = flashrr.simulate(cfg, page_trace([0], pages=[2]), engine=engine).summary
    assert (s["read_latency_mean_ns"], s["user_flash_transactions"]) == (300, 1)


def test_a_migration_is_one_read_per_row_and_die_one_program_per_row_and_die_one_erase_per_die(engine):
    """k = 2 across two dies (one plane each, one channel, no transfer time), gc-first.
    The fill (up to LPN 2, read last) puts LPN 0 and 2 on component 0 (die 0), offsets
    0 and 1, and LPN 1 on component 1 (die 1), offset 0.  Ten reads of LPN 1 (100 ns each, ending at
    900,100) bring block 1 to the threshold.  The RR reads row 0 on both dies and row
    1 on die 0: die 0 reads 900,100-900,300, die 1 900,100-900,200.  Programs wait for
    every read (900,300): the pages keep their components, so die 0 programs rows 0
    and 1 (900,300-902,300), die 1 row 0 (900,300-901,300).  Erases wait for every
    program (902,300): one per die, 5,000 each, both end at 907,300.  RR work:
    3 x 100 + 3 x 1,000 + 2 x 5,000 = 13,300."""
    cfg = tiny_config(dies=2, sb_dies=2, rr=10).replace(scheduler="gc-first")
    res = flashrr.simulate(cfg, page_trace([1] * 10 + [2], gap_ns=100_000), engine=engine)
    s = res.summary
    assert (s["rr_count"], s["rr_page_moves"], s["erase_count"]) == (1, 3, 2)
    assert res.rr_events["time_ns"].tolist() == [900_100]
    assert res.rr_events["erase_end_ns"].tolist() == [907_300]
    assert s["busy_rr_ns"] == 3 * 100 + 3 * 1_000 + 2 * 5_000


@pytest.mark.parametrize("scheduler, wait", [("gc-first", 800), ("user-first", 800), ("fcfs", 0)])
def test_a_migrations_programs_wait_for_all_its_reads_and_its_erases_for_all_its_programs(
        engine, scheduler, wait):
    """The RR above, and a read of LPN 1 (moved to component 1, die 1) at 906,500.  With
    the phase barriers, die 1 programs only when die 0's second read ends (900,300) and
    erases only when die 0's second program ends (902,300): busy until 907,300, so the
    read waits 800 ns behind background work.  User-first, with the die idle from
    900,100, starts the same transactions in the same order before 906,500.  fcfs books
    every transaction at the decision time with no barrier between dies: die 1 reads
    900,100-900,200, programs to 901,200 and erases to 906,200, and the read does not
    wait.  The RR's last erase (die 0's) ends at 907,300 under all three."""
    cfg = tiny_config(dies=2, sb_dies=2, rr=10).replace(scheduler=scheduler)
    trace = page_trace([1] * 11 + [2], times=[100_000 * i for i in range(10)] + [906_500, 1_000_000])
    res = flashrr.simulate(cfg, trace, engine=engine)
    assert res.summary["rr_count"] == 1
    assert res.rr_events["erase_end_ns"].tolist() == [907_300]
    assert res.summary["user_wait_behind_bg_ns"] == wait


def test_no_superblock_is_reused_before_its_erase_is_booked(engine):
    """8 blocks of 4 pages, RR threshold 2, GC threshold ceil(0.05 x 8) = 1; the fill
    puts LPNs 0-15 in blocks 0-3 (free: 4-7).  Reads of LPN 0 at 0 and 1,000: the second
    ends at 1,100 and reclaims block 0: its 4 pages go to block 4 (free: 5, 6, 7, then
    block 0, at the back), and user-first queues the RR.  The die is idle until the
    first write, at 2,000, so the RR's 4 reads (1,100-1,500) and first program
    (1,500-2,500) start; then writes arrive every 10 ns, each program is booked at once
    (write i ends at 2,500 + 1,000 i), and the queued rest of the RR never finds the die
    idle.  Writes 1, 5 and 9 open blocks 5, 6 and 7; write 13 (at 2,120) takes block 0,
    whose erase is still queued, so the RR is booked first, behind write 12: its last 3
    programs 14,500-17,500 and its erase 17,500-22,500.  Taking the last free block
    leaves 0 < 1 free: GC collects block 1 (LPNs 4-7 were rewritten by writes 1-4), with
    no move; its erase stays queued until the end (after write 13's program,
    22,500-23,500): 23,500-28,500."""
    cfg = tiny_config(blocks=8, pages=4, op=0.5, gc_ratio=0.05, rr=2)
    lpns = [0, 0] + list(range(4, 16)) + [4]
    times = [0, 1_000] + [2_000 + 10 * i for i in range(13)]
    res = flashrr.simulate(cfg, page_trace(lpns, writes=[False] * 2 + [True] * 13, times=times), engine=engine)
    assert res.rr_events["erase_end_ns"].tolist() == [22_500]
    assert res.gc_events["superblock"].tolist() == [1]
    assert res.gc_events["time_ns"].tolist() == [2_120]
    assert res.gc_events["erase_end_ns"].tolist() == [28_500]


def test_a_read_of_a_page_waiting_to_be_moved_counts_on_its_new_block(engine):
    """User-first, threshold 5, LPNs 0-15 in block 0 and 16-20 in block 1 (the open user
    frontier).  The fifth read of LPN 0 ends at 40,100 and reclaims block 0: the FTL moves
    its pages at once to the GC/RR frontier, block 2 (LPN 1 at page 1), and the RR's
    transactions are queued.  A read of LPN 1 at 41,000 comes before the RR's programs
    (its reads run from 40,100, one every 100 ns; its first program would start at
    41,700): it is timed at the old place, on the same die, after the RR reads that
    started before it (41,000-41,100), and its read count goes to block 2, where the FTL
    keeps the page, not to the erased block 0."""
    cfg = tiny_config(rr=5, pages=16)
    trace = page_trace([0] * 5 + [1, 20], times=[0, 10_000, 20_000, 30_000, 40_000, 41_000, 100_000])
    eng = _replay(engine, cfg, trace)
    reads = eng.state_view(0).block_reads
    assert (int(reads[0]), int(reads[2])) == (0, 1)
    c = eng.results()["counters"]
    assert c["rr_count"] == 1 and c["read_latency_sum_ns"] == 7 * 100
    # the die has the RR's programs queued at 41,000: that read is blocked (HotR's conflict)
    assert c["blocked_reads"] == 1


class MovesAtRR(Policy):
    """At each RR, queues idle moves of ``moves`` ((LPN, destination component), in that
    order), and places the RR's pages on components ``dest(comps)``."""

    name = "moves-at-rr"

    def __init__(self, moves, dest=None):
        super().__init__()
        self.moves, self.dest = moves, dest

    def on_read_reclaim(self, state, sb):
        for lpn, comp in self.moves:
            state.queue_idle_move(lpn, comp)
        return "with-moves"

    def place_migration(self, state, kind, sb, comps, offsets, lpns):
        return comps if self.dest is None else self.dest(comps)


def _two_lanes_of_two_dies(**kw):
    """Four dies on one channel, superblocks of two dies (k = 2): lane 0 is dies 0 and 1
    (superblocks 0-15), lane 1 dies 2 and 3 (superblocks 16-31); 4 pages a block, t_xfer
    50 ns.  The fill of LPNs 0-3 puts LPNs 0 and 1 at offset 0 of superblock 0 (dies 0 and
    1), LPNs 2 and 3 at offset 0 of superblock 16 (dies 2 and 3); the GC/RR frontier each
    lane opens first is its next superblock (1, 17)."""
    return tiny_config(dies=4, sb_dies=2, blocks=16, pages=4, t_xfer=50, **kw)


def test_on_equal_starts_the_lowest_die_goes_first(engine):
    """The device above, RR threshold 2.  Reads of LPN 3 (die 3) at 0 and 1,000: the second
    ends at 1,150 and reclaims superblock 16; the policy queues idle moves of LPN 1 (die 1),
    then of LPN 0 (die 0), both to component 0 (die 0) of lane 0's GC/RR frontier.  Every
    queued start is 1,150: the RR's reads on dies 2 and 3 go first (background work), then
    the moves, lowest die first: LPN 0's move runs first and takes the frontier's first
    page (superblock 1, component 0, offset 0: ppn (1 x 2 + 0) x 4 + 0 = 8), LPN 1's the
    next (ppn 9).  An idle move is placed when it runs, so the order of the ties is where
    the pages land; queue order (LPN 1 first) or the highest die first would swap them.
    (Queued transactions and idle moves share one order, (start, kind, die); a tie between
    two dies' queued transactions shows only in who gets a shared channel first.)"""
    cfg = _two_lanes_of_two_dies(rr=2)
    trace = page_trace([3, 3, 1], times=[0, 1_000, 100_000])
    pol = MovesAtRR([(1, 0), (0, 0)])
    pol.bind(cfg, 0)
    eng = build_engine(engine, cfg, pol, fill=4)
    eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write.astype(np.uint8))
    eng.finish()
    c = eng.results()["counters"]
    assert (c["rr_count"], c["idle_moves"]) == (1, 2)
    l2p = eng.state_view(0).l2p
    assert (int(l2p[0]), int(l2p[1])) == (8, 9)


def test_on_equal_starts_background_work_goes_before_an_idle_move(engine):
    """The device above, RR threshold 2, a policy that puts the RR's pages on component 0
    and queues an idle move of LPN 0 (die 0) to component 1 (die 1).  Reads of LPN 3 at 0
    and 1,000 reclaim superblock 16 at 1,150: LPN 2 stays on die 2 (offset 0 of superblock
    17), LPN 3 moves from die 3 to die 2 (offset 1), so the RR's read on die 3 and its
    second program move a page over the channel, as do the idle move's read and program
    (die 0 to die 1).  The RR's reads and the move could all start at 1,150: background
    work first.  Die 2 reads 1,150-1,250, die 3 reads 1,150-1,250 and transfers
    1,250-1,300; the move reads 1,150-1,250 and transfers 1,300-1,350, then programs on die
    1 (transfer 1,350-1,400, program 1,400-2,400).  The RR's programs wait for both its
    reads (1,300): die 2 programs LPN 2 1,300-2,300, then LPN 3 (transfer 2,300-2,350,
    program 2,350-3,350); its erases on dies 2 and 3 follow, 3,350-8,350.  Were the move
    first, its transfers would take 1,250-1,350, die 3's 1,350-1,400, and the RR's erases
    would end at 8,450."""
    cfg = _two_lanes_of_two_dies(rr=2)
    trace = page_trace([3, 3, 1], times=[0, 1_000, 100_000])
    res = flashrr.simulate(cfg, trace, policy=MovesAtRR([(0, 1)], dest=np.zeros_like), engine=engine)
    s = res.summary
    assert (s["rr_count"], s["idle_moves"]) == (1, 1)
    assert res.rr_events["erase_end_ns"].tolist() == [8_350]


def test_a_read_of_a_page_waiting_to_be_moved_to_another_die_is_timed_at_its_old_place(engine):
    """Two dies in one lane (k = 2), 4 pages a block, RR threshold 2, user-first, a policy
    that puts every RR page on component 1 (die 1).  The fill puts LPNs 0 and 2 on die 0
    (offsets 0 and 1 of superblock 0), LPNs 1 and 3 on die 1.  Reads of LPN 0 at 0 and
    1,000 reclaim superblock 0 at 1,100: the FTL puts all four pages on component 1 of the
    GC/RR frontier (die 1) at once, and the RR's transactions are queued.  A write of LPN
    4 at 1,110 first lets the RR's first reads start (1,100-1,200 on each die), then opens
    a new user frontier, whose first page is on die 0: its program waits for the die,
    1,200-2,200.  A read of LPN 0 at 1,150 comes before the RR's program of LPN 0 is
    booked, so it is timed at the old place, die 0: it senses 2,200-2,300, latency 1,150.
    Timed at the new place (die 1, free from 1,200) it would take 1,200-1,300."""
    cfg = tiny_config(dies=2, sb_dies=2, blocks=16, pages=4, rr=2)
    pol = MovesAtRR([], dest=np.ones_like)
    pol.bind(cfg, 0)
    eng = build_engine(engine, cfg, pol, fill=4)
    lpns, writes, times = [0, 0, 4, 0, 4], [0, 0, 1, 0, 0], [0, 1_000, 1_110, 1_150, 100_000]
    ps = cfg.geometry.page_size_bytes
    eng.run(np.array(times, np.int64), np.array(lpns, np.int64) * ps, np.full(5, ps, np.int64),
            np.array(writes, np.uint8))
    eng.finish()
    c = eng.results()["counters"]
    assert c["rr_count"] == 1
    assert c["write_latency_sum_ns"] == 2_200 - 1_110
    # reads at 0 and 1,000: 100 each; at 1,150: 2,300 - 1,150; of LPN 4 at 100,000: 100
    assert c["read_latency_sum_ns"] == 100 + 100 + (2_300 - 1_150) + 100


@pytest.mark.parametrize("path", ["simulate", "engine loop"])
def test_a_repeat_is_shifted_by_the_duration_plus_the_mean_gap(engine, path):
    """Five reads of LPN 0, 10 us apart (duration 40 us, mean gap 10 us), replayed twice:
    the copy is shifted by 40 + 10 = 50 us, so its reads arrive at 50-90 us.  The tenth
    read, at 90,000, brings block 0 to the threshold of 10: the RR is decided when it
    ends, at 90,100.  (A shift by the duration alone would put it at 80,100.)  simulate
    shifts the copies it feeds (flashrr.trace.transform.repeat_period); an engine's own
    ``run(..., repeat)`` loop shifts them itself."""
    cfg, trace = tiny_config(rr=10), page_trace([0] * 5, gap_ns=10_000)
    if path == "simulate":
        res = flashrr.simulate(cfg, trace, repeat=2, engine=engine)
        reads, rr_times = res.summary["reads"], res.rr_events["time_ns"].tolist()
    else:
        eng = build_engine(engine, cfg, "baseline", fill=1)
        eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write.astype(np.uint8), 2)
        eng.finish()
        raw = eng.results()
        reads, rr_times = raw["counters"]["reads"], raw["rr_events"]["time_ns"].tolist()
    assert reads == 10
    assert rr_times == [90_100]


def test_die_idle_fraction_is_one_minus_booked_busy_time_over_the_run(engine):
    """Two dies (k = 1, two lanes): the fill puts LPN 0 on lane 0, die 0.  Two reads of
    it, at 0 and 10,000, keep die 0 busy 200 ns and die 1 not at all; the run ends at
    10,100 (the later of the last arrival and the last operation's end).  Die 0 is idle
    1 - 200 / 10,100 of the run, die 1 all of it."""
    s = flashrr.simulate(tiny_config(dies=2), page_trace([0, 0], gap_ns=10_000), engine=engine).summary
    die0 = 1 - 200 / 10_100
    assert s["die_idle_fraction_min"] == pytest.approx(die0)
    assert s["die_idle_fraction_mean"] == pytest.approx((die0 + 1) / 2)
