"""HotR (docs/hotr.md): the defining behaviour of the replica mechanism, with
latencies computed by hand, on both engines; hypothesis properties for the
equivalence of the compiled and reference twins, the staging capacity, static
die placement and Baseline equality when no page is read twice."""
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings

import flashrr
from flashrr._core.engine_py import ReferenceEngine
from flashrr._core.layout import CAUSE_GC, build_layout
from flashrr._core.options.static_die_py import ppn_die
from flashrr.config import ConfigError, SimConfig
from flashrr.papers.hotr.policies import HotR, read_footprint_pages
from flashrr.trace.source import MemorySource

from engine_helpers import CAPACITY_ERROR, assert_identical, comparable, final_mapping, page_trace, run_both, tiny_config
from strategies import hotr_case

ENGINES = ["compiled", "reference"]
# tiny timing: read 100, program 1000, transfer 10, DRAM 10 (ns)
T_READ, T_PROG, T_XFER, T_DRAM = 100, 1000, 10, 10
READ_COST = T_READ + T_XFER  # an idle die: sense, then move the page out


def _cfg(**kw):
    base = dict(blocks=32, pages=16, op=0.3, rr_enabled=False, t_read=T_READ, t_prog=T_PROG, t_xfer=T_XFER,
                t_dram=T_DRAM)
    base.update(kw)
    return tiny_config(**base)


def _run(engine, trace, cfg=None, policy="hotr", **params):
    return flashrr.simulate(cfg or _cfg(), trace, policy=policy, engine=engine, **params).summary


def _read_sum(s):
    return round(s["read_latency_mean_ns"] * s["reads"])


# requests: read x, read x (x becomes hot; its replica is programmed on the staging die from 1110 to 2120),
# write y at 5000 (the only data die programs 5000..6010), read x at 5100 while the data die programs
X, Y = 0, 1
HOT_THEN_BLOCKED = page_trace([X, X, Y, X], writes=[0, 0, 1, 0], times=[0, 1000, 5000, 5100])
# the blocked read waits out the program: the die is free at 6010, then read + transfer
WAIT = 6010 + READ_COST - 5100


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("k", [1, 2])
def test_blocked_read_with_finished_replica_costs_one_read_and_transfer(engine, k):
    """At k = 2 (a two-plane superblock on the data die) x and y are components 0 and 1
    of one superblock, and the write of y takes the next slot of the user frontier, on
    the same die: every time is the same as at k = 1."""
    cfg = _cfg(planes=k, sb_planes=k)
    s = _run(engine, HOT_THEN_BLOCKED, cfg, staging_pages=4, staging_dies=1)
    assert _read_sum(s) == 3 * READ_COST
    assert s["redirected_reads"] == s["redirected_pages"] == 1
    assert s["blocked_reads"] == 1
    assert s["replica_writes"] == 1
    # the replica program (transfer + program) and the redirected read on the staging die
    assert s["busy_staging_ns"] == (T_XFER + T_PROG) + READ_COST
    base = _run(engine, HOT_THEN_BLOCKED, cfg, policy="baseline")
    assert _read_sum(base) == 2 * READ_COST + WAIT
    assert s["write_latency_mean_ns"] == base["write_latency_mean_ns"] == T_XFER + T_PROG


@pytest.mark.parametrize("engine", ENGINES)
def test_blocked_read_without_replica_waits_out_the_program(engine):
    s = _run(engine, HOT_THEN_BLOCKED, staging_pages=4, hot_threshold=3)
    # the third read is the one that makes x hot: its replica is owed after it (and, no read arriving
    # later, never programmed), too late to serve it
    assert s["replica_writes"] == 0 and s["redirected_reads"] == 0 and s["staging_occupancy_max"] == 1
    assert _read_sum(s) == 2 * READ_COST + WAIT
    assert s["blocked_reads"] == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_write_after_replication_invalidates(engine):
    # x is replicated (ready 2120), then rewritten at 3000 (program 3000..4010): the blocked read at 5100 waits
    tr = page_trace([X, X, X, Y, X], writes=[0, 0, 1, 1, 0], times=[0, 1000, 3000, 5000, 5100])
    s = _run(engine, tr, staging_pages=4)
    assert s["replica_invalidations"] == 1 and s["redirected_reads"] == 0
    assert _read_sum(s) == 2 * READ_COST + WAIT


@pytest.mark.parametrize("engine", ENGINES)
def test_write_to_a_page_without_replica_keeps_its_count(engine):
    # x read once, written (entry kept, count 1), read again at 3000: count 2 -> replicated (its program is
    # booked at the next read's arrival)
    tr = page_trace([X, X, X, Y], writes=[0, 1, 0, 0], times=[0, 1000, 3000, 9000])
    s = _run(engine, tr, staging_pages=4)
    assert s["replica_writes"] == 1 and s["replica_invalidations"] == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_replica_not_used_while_the_data_die_is_idle(engine):
    tr = page_trace([X, X, X], times=[0, 1000, 5000])
    s = _run(engine, tr, staging_pages=4)
    assert s["redirected_reads"] == 0 and s["blocked_reads"] == 0
    assert _read_sum(s) == 3 * READ_COST
    assert s["busy_staging_ns"] == T_XFER + T_PROG  # only the replica program


@pytest.mark.parametrize("engine", ENGINES)
def test_replica_programs_are_background_work(engine):
    """A redirected read does not wait for a replica program that had not started when it arrived."""
    z = 2
    # x: replica owed at 1110, programmed 1110..2120 (booked at the read of z at 3000); z hot at 4000, its
    # program could start at 4110; y's program makes the data die busy 4110..5120 (behind z's read); the
    # read of x at 4100 is blocked and served by x's replica at once, before z's program starts
    tr = page_trace([X, X, z, z, Y, X], writes=[0, 0, 0, 0, 1, 0], times=[0, 1000, 3000, 4000, 4050, 4100])
    s = _run(engine, tr, staging_pages=4, staging_dies=1)
    assert s["redirected_reads"] == 1
    assert _read_sum(s) == 5 * READ_COST
    assert s["replica_writes"] == 1  # z's program was never booked: no read arrived after 4110


@pytest.mark.parametrize("engine", ENGINES)
def test_unfinished_replica_is_not_used(engine):
    # replica programmed 1110..2120; y written at 1200 (data die 1200..2210); x read at 1300 is blocked, its
    # replica not finished: it waits for the data die (free at 2210)
    tr = page_trace([X, X, Y, X], writes=[0, 0, 1, 0], times=[0, 1000, 1200, 1300])
    s = _run(engine, tr, staging_pages=4)
    assert s["replica_writes"] == 1 and s["redirected_reads"] == 0
    assert _read_sum(s) == 2 * READ_COST + (2210 + READ_COST - 1300)


@pytest.mark.parametrize("engine", ENGINES)
def test_lru_replacement_frees_the_oldest_replica(engine):
    a, b, c, y = 0, 1, 2, 3
    # capacity 2 and an R-LRU of 2 entries: a and b become hot; the first read of c evicts a (and its
    # replica); c becomes hot; then a read of a blocked by y's program has no replica and waits
    tr = page_trace([a, a, b, b, c, c, y, a], writes=[0, 0, 0, 0, 0, 0, 1, 0],
                    times=[0, 1000, 2000, 3000, 4000, 5000, 20000, 20100])
    s = _run(engine, tr, staging_pages=2, staging_dies=1, rlru_factor=1)
    assert s["replica_writes"] == 3 and s["rlru_evictions"] == 2  # a at c's insertion, b at a's re-insertion
    assert s["staging_occupancy_max"] == 2 and s["replica_drops"] == 0
    assert s["redirected_reads"] == 0
    assert _read_sum(s) == 6 * READ_COST + (21010 + READ_COST - 20100)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("factor, redirected", [(1, False), (2, True)])
def test_a_longer_rlru_keeps_the_entry_and_replica_of_a_page_read_before(engine, factor, redirected):
    """Staging for one replica: a becomes hot, then b is read once.  An R-LRU of one entry
    evicts a (and its replica) for b; one of two entries keeps both, so the read of a that
    y's program blocks (20,000..21,010 ns) is served by the replica."""
    a, b, y = 0, 1, 2
    tr = page_trace([a, a, b, y, a], writes=[0, 0, 0, 1, 0], times=[0, 1000, 2000, 20000, 20100])
    s = _run(engine, tr, staging_pages=1, staging_dies=1, rlru_factor=factor)
    # one entry: b evicts a, then a's last read evicts b
    assert s["rlru_entries"] == factor and s["rlru_evictions"] == (0 if redirected else 2)
    assert s["redirected_reads"] == int(redirected) and s["replica_drops"] == 0
    last = READ_COST if redirected else 21010 + READ_COST - 20100
    assert _read_sum(s) == 3 * READ_COST + last


@pytest.mark.parametrize("engine", ENGINES)
def test_full_staging_gives_up_the_replica_least_recently_read_or_made(engine):
    """Staging for two replicas, an R-LRU of 20 entries.  a and b get replicas, a is read again,
    then c becomes hot: the staging space is full, and b's replica (least recently read or
    made) makes room, while b keeps its entry and count.  y's program (20,000..21,010 ns)
    blocks the next reads: a's is served by its replica; b's waits, and b is owed a replica
    again, which takes the place of c's."""
    a, b, c, y = 0, 1, 2, 3
    tr = page_trace([a, a, b, b, a, c, c, y, a, b], writes=[0] * 7 + [1, 0, 0],
                    times=[0, 1000, 2000, 3000, 4000, 5000, 6000, 20000, 20100, 20200])
    s = _run(engine, tr, staging_pages=2, staging_dies=1)
    assert s["rlru_entries"] == 20 and s["rlru_evictions"] == 0
    assert s["replica_drops"] == 2 and s["staging_occupancy_max"] == 2
    assert s["replica_writes"] == 3  # a, b, c; b's second program is still queued at the end
    assert s["redirected_reads"] == 1
    assert _read_sum(s) == 7 * READ_COST + READ_COST + (21010 + READ_COST - 20200)


# a and b get replicas in a staging space for two, a is read again, then c is read three times
# (hot from its second read); y's program (20,000..21,010 ns) blocks the reads of a and b after it
A, B, C, Y = 0, 1, 2, 3
FULL_THEN_BLOCKED = page_trace([A, A, B, B, A, C, C, C, Y, A, B], writes=[0] * 8 + [1, 0, 0],
                               times=[0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 20000, 20100, 20500])


@pytest.mark.parametrize("engine", ENGINES)
def test_full_staging_that_stops_refuses_the_new_hot_page(engine):
    """``staging_full="stop"``: c is refused on each of its reads after it became hot (two
    refusals), a and b keep their replicas, and both blocked reads are served by them."""
    s = _run(engine, FULL_THEN_BLOCKED, staging_pages=2, staging_dies=1, staging_full="stop")
    assert s["replica_refusals"] == 2 and s["replica_drops"] == 0
    assert s["replica_writes"] == 2 and s["staging_occupancy_max"] == 2
    assert s["redirected_reads"] == 2
    assert _read_sum(s) == 10 * READ_COST


@pytest.mark.parametrize("engine", ENGINES)
def test_full_staging_that_evicts_gives_c_the_place_of_b(engine):
    """The default, on the same trace: c takes b's replica (b was made before a's last read),
    so b's blocked read waits out y's program, and b, owed a replica again, takes c's."""
    s = _run(engine, FULL_THEN_BLOCKED, staging_pages=2, staging_dies=1)
    assert s["replica_refusals"] == 0 and s["replica_drops"] == 2
    assert s["replica_writes"] == 3 and s["redirected_reads"] == 1
    assert _read_sum(s) == 9 * READ_COST + (21010 + READ_COST - 20500)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_refused_page_gets_the_room_an_evicted_entry_frees(engine):
    """Staging for one replica, an R-LRU of two entries, ``stop``: a's replica fills the space,
    b is refused on its second read, c's first read evicts a's entry (the LRU one) with its
    replica, and b's third read gets the freed place."""
    a, b, c = 0, 1, 2
    tr = page_trace([a, a, b, b, c, b], times=[0, 1000, 2000, 3000, 4000, 5000])
    s = _run(engine, tr, staging_pages=1, staging_dies=1, rlru_factor=2, staging_full="stop")
    assert s["replica_refusals"] == 1 and s["rlru_evictions"] == 1
    assert s["replica_writes"] == 1  # b's program is owed after the last read, with no read left to start it
    assert s["staging_occupancy_max"] == 1 and s["replica_drops"] == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_blocked_only_tracking_ignores_the_unblocked_reads_that_make_x_hot(engine):
    """``rlru_track="blocked"`` on HOT_THEN_BLOCKED: the two idle reads of x never reach the
    R-LRU, the blocked one only lists x, so nothing is replicated and it waits."""
    s = _run(engine, HOT_THEN_BLOCKED, staging_pages=4, staging_dies=1, rlru_track="blocked")
    assert s["replica_writes"] == 0 and s["redirected_reads"] == 0 and s["staging_occupancy_max"] == 0
    assert s["blocked_reads"] == 1
    assert _read_sum(s) == 2 * READ_COST + WAIT


# writes of y program the only data die 0..1010, 3000..4010 and 8000..9010 ns; x is read in each
# program (blocked, waiting to 1010 + 110 and 4010 + 110) and once at 1500 ns on the idle die
THREE_BLOCKED = page_trace([Y, X, X, Y, X, Y, X], writes=[1, 0, 0, 1, 0, 1, 0],
                           times=[0, 100, 1500, 3000, 3100, 8000, 8100])
BLOCKED_WAIT = 1010 + READ_COST - 100


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("track, redirected", [("all", 2), ("blocked", 1)])
def test_blocked_only_tracking_redirects_on_the_third_blocked_read(engine, track, redirected):
    """Every read tracked: the idle read at 1500 makes x hot, its replica (1610..2620 ns) serves
    the blocked reads at 3100 and 8100.  Blocked reads only: x is hot on its second blocked read
    (3100, which waits), and its replica serves the third."""
    s = _run(engine, THREE_BLOCKED, staging_pages=4, staging_dies=1, rlru_track=track)
    assert s["replica_writes"] == 1 and s["redirected_reads"] == redirected and s["blocked_reads"] == 3
    waits = 1 if track == "all" else 2
    assert _read_sum(s) == waits * BLOCKED_WAIT + (4 - waits) * READ_COST


@pytest.mark.parametrize("engine", ENGINES)
def test_erase_blocks_option(engine):
    """A read blocked only by an erase is redirected only with ``erase_blocks``."""
    from flashrr._core import load_compiled_engine
    cfg = _cfg()
    out = []
    for erase_blocks in (False, True):
        pol = HotR(staging_pages=4, staging_dies=1, erase_blocks=erase_blocks)
        pol.bind(cfg, 0)
        layout = build_layout(cfg)
        cls = load_compiled_engine() if engine == "compiled" else ReferenceEngine
        eng = cls(layout, pol.hooks(), 0, False)
        eng.precondition(4, np.zeros(0, np.int64))
        eng.run(np.array([0, 1000]), np.array([0, 0]), np.array([4096, 4096]), np.array([0, 0], np.uint8))
        book = getattr(eng.sched, "book_op", None) or eng.sched.op
        book(0, 0, 2, 0, 3000, 5000, CAUSE_GC)  # an erase on the data die, 3000..8000
        eng.run(np.array([3100]), np.array([0]), np.array([4096]), np.array([0], np.uint8))
        eng.finish()
        r = eng.results()
        out.append((r["mechanism_counters"]["redirected_reads"], r["counters"]["read_latency_sum_ns"]))
    assert out[0] == (0, 2 * READ_COST + (8000 + READ_COST - 3100))
    assert out[1] == (1, 3 * READ_COST)


def test_overprovision_staging_uses_another_data_die():
    # two data dies (2 channels): x on die 0; its replica goes to die 1; y (die 0) blocks x at 5100
    cfg = _cfg(channels=2).replace(placement="static_die")
    tr = page_trace([0, 0, 2, 0], writes=[0, 0, 1, 0], times=[0, 1000, 5000, 5100])
    for engine in ENGINES:
        s = _run(engine, tr, cfg, staging_pages=4, staging="overprovision")
        assert s["redirected_reads"] == 1
        assert _read_sum(s) == 3 * READ_COST
        assert s["busy_move_ns"] == T_XFER + T_PROG  # the replica program, booked on die 1
        assert s["cost_factor"] == pytest.approx(1 + 4 / cfg.logical_pages)


def test_read_footprint_and_default_capacity():
    # reads cover pages {0, 1} (2-page read at 0), {1}, {9, 10, 11}; the write at 5 does not count
    tr = page_trace([0, 1, 5, 9], writes=[0, 0, 1, 0], pages=[2, 1, 1, 3])
    cfg = _cfg()
    assert read_footprint_pages(MemorySource(tr), 4096, cfg.logical_pages) == 5
    pol = HotR(hot_fraction=0.5)
    pol.bind(cfg, 0)
    pol.bind_trace(MemorySource(tr), cfg)
    assert pol.capacity() == 3  # ceil(0.5 * 5)
    # the R-LRU: 10 entries per staging page, 20 bytes each
    s = flashrr.simulate(cfg, tr, policy="hotr", hot_fraction=0.5).summary
    assert s["staging_pages"] == 3 and s["rlru_entries"] == 30 and s["policy_metadata_bytes"] == 30 * 20
    s = flashrr.simulate(cfg, tr, policy="hotr", hot_fraction=0.5, rlru_factor=1.5).summary
    assert s["rlru_entries"] == 5 and s["policy_metadata_bytes"] == 5 * 20  # ceil(1.5 * 3)


def test_rlru_never_longer_than_the_logical_space():
    cfg = _cfg()
    s = flashrr.simulate(cfg, page_trace([0, 0]), policy="hotr", staging_pages=cfg.logical_pages - 1).summary
    assert s["rlru_entries"] == cfg.logical_pages
    s = flashrr.simulate(cfg, page_trace([0, 0]), policy="hotr", staging_pages=cfg.logical_pages + 3).summary
    assert s["rlru_entries"] == s["staging_pages"] == cfg.logical_pages + 3


def test_cost_factor_dedicated():
    s = flashrr.simulate("hotr", page_trace([0, 0]), policy="hotr").summary
    assert s["cost_factor"] == pytest.approx(1.10)  # 2 staging dies over 20 data dies


@pytest.mark.parametrize("bad", [dict(hot_threshold=0), dict(staging="spare"), dict(staging_dies=0),
                                 dict(hot_fraction=0), dict(staging_pages=-1), dict(erase_blocks=1),
                                 dict(rlru_factor=0.5), dict(rlru_factor=True),
                                 dict(staging_full="drop"), dict(rlru_track="hits")])
def test_bad_parameters_name_the_field(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        HotR(**bad)


def test_static_die_placement_config_rules():
    with pytest.raises(ConfigError, match="page_placement.placement"):
        _cfg(channels=2, sb_channels=2).replace(placement="static_die")
    with pytest.raises(ConfigError, match="page_placement.placement"):
        _cfg().replace(placement="diagonal")


# ------------------------------------------------------------------ hypothesis


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hotr_case())
def test_engines_identical_hotr(case):
    cfg, trace, params = case
    a, b = run_both(cfg, trace, "hotr", check_invariants=True, **params)
    assert_identical(a, b, allow_error=CAPACITY_ERROR)
    if not isinstance(a, Exception):
        assert a.summary["staging_occupancy_max"] <= params["staging_pages"]
        assert a.summary["redirected_pages"] <= a.summary["read_pages"]
        event("redirected" if a.summary["redirected_reads"] else "none redirected")
        event("gc ran" if a.summary["gc_count"] else "no gc")
        event("a full staging space gave up a replica" if a.summary["replica_drops"] else "no replica given up")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hotr_case(distinct_reads=True))
def test_no_page_read_twice_equals_baseline(case):
    cfg, trace, params = case
    params["hot_threshold"] = max(2, params["hot_threshold"])
    for engine in ENGINES:
        try:
            h = flashrr.simulate(cfg, trace, policy="hotr", engine=engine, **params)
            b = flashrr.simulate(cfg, trace, policy="baseline", engine=engine)
        except flashrr.EngineError as e:
            assert CAPACITY_ERROR in str(e)
            return
        # HotR's own bookkeeping (its list fills and evicts even when nothing is hot)
        drop = ("policy", "policy_metadata_bytes", "cost_factor", "staging_pages", "rlru_entries", "rlru_evictions")
        if cfg.cache.capacity_bytes:  # the R-LRU's DRAM comes out of the cache: compare cache-less runs only
            return
        hs = {k: v for k, v in comparable(h.summary).items() if k not in drop}
        bs = {k: v for k, v in comparable(b.summary).items() if k not in drop}
        assert hs == bs
        for kind in ("read", "write", "io"):
            assert np.array_equal(h.hist[kind], b.hist[kind])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hotr_case())
def test_static_die_placement_keeps_every_page_on_its_die(case):
    cfg, trace, _ = case
    cfg = cfg.replace(placement="static_die")
    layout = build_layout(cfg)
    l2p = final_mapping(cfg, trace)
    if l2p is None:
        return
    mapped = np.flatnonzero(l2p >= 0)
    dies = [ppn_die(layout, int(p)) for p in l2p[mapped]]
    assert np.array_equal(np.asarray(dies), mapped % layout.n_dies)


def test_a_replica_program_queued_for_a_dropped_entry_stays_dropped():
    """One die and one staging die, every read hot (threshold 1), no transfer time.  At
    t = 0 reads of LPN 1 (done at 50 ns) and LPN 0 (done at 100) queue two replica
    programs; ten more reads of LPN 1 keep the die busy until 600.  A write of LPN 0 then
    drops its entry with its program still queued, and a new read of LPN 0 makes a new
    entry in the freed slot and queues a new program, ready when that read is done
    (650).  At the read at 1,000 ns the staging die programs LPN 1's replica (50..350);
    the stale program must not then book the new entry's replica from 350 (it would end
    at 650, before the new entry's own ready time, and count a second replica write): the
    new program starts at 650 and ends at 950, so two replica writes by 1,000 ns either
    way, but at 700 ns only one."""
    cfg = tiny_config(blocks=24, pages=4, op=0.4, gc_ratio=0.1, rr_enabled=False, t_read=50, t_prog=300,
                      t_erase=500, t_xfer=0, t_dram=10)
    lpns = [1, 0] + [1] * 10 + [0, 0, 1]
    writes = [False] * 12 + [True, False, False]
    params = dict(hot_threshold=1, staging_pages=2, staging_dies=1, staging="dedicated", erase_blocks=False)
    for last, want in ((700, 1), (1000, 2)):
        trace = page_trace(lpns, writes=writes, times=[0] * 14 + [last])
        runs = {e: _run(e, trace, cfg, **params) for e in ENGINES}
        for e in ENGINES:
            assert runs[e]["replica_invalidations"] == 1, e
            assert runs[e]["replica_writes"] == want, (e, last)
