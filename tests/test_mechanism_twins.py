"""Twin equivalence of each mechanism, driven through its role methods rather than
only through a whole run.

For one policy, the compiled and the reference engine are built and preconditioned
alike (every logical page written once), and the mechanism of the policy's hook is
taken from each (``eng.mechanism(hook)``).  Hypothesis then draws a sequence of
events and feeds it to both: on the compiled side through
``flashrr._core.role_calls`` (the role methods are ``cdef``), on the reference side
through the twin's methods of the same names.  The event kinds and what the driver
does for each, in the engine's own order (engine.pyx's ``_read`` / ``_write``):

* ``read``: a read request of a few consecutive LPNs at arrival ``t``: ``arrival``;
  the horizon moves to ``t``; ``redirect`` of the pages (at their mapped ppns);
  for each page left to its die the block's read count goes up by one and
  ``page_read`` sees it; ``reads_done``; the page counters go up; ``request_done``.
* ``write``: a host write: ``arrival``, ``host_write``, then ``write`` through the
  engine as its host (write paths only), ``request_done``.
* ``erase``: ``block_erased`` of a block, whose read count restarts at 0.
* ``busy``: a program or an erase booked on a die through the scheduler, so that
  redirectors see blocked dies.
* ``engine``: one host request replayed by the whole engine (``eng.run``), so the
  device moves on as it does in a run: idle moves execute, RR and GC erase blocks,
  and the placer roles run where the engine calls them.

Each event calls only the roles the mechanism's registry entry declares.  After
every event the return values of the two twins must be equal (a compiled status 0
stands for the twin's None), and so must the engine counters; at the end, the
mechanism's state (its ``array(name)`` views, or for HotR its R-LRU read out of the
arrays), its ``counter_values()``, the engine counters and the mapping.

Preconditions the draws keep: LPNs are mapped (the whole logical space is filled),
arrivals never go back in time (gaps >= 0 ns), a request's LPNs are distinct and in
range, its completion is at or after its arrival, block indices are in range, and a
read count passed to ``page_read`` is the block's count after the read (>= 1; a
count of 0, which no run passes, puts read exposure's compiled twin in quarter 1 and
the reference in quarter 4, as C and Python round (4 * -1) // threshold apart).
A directly erased block keeps its pages in the FTL: to the mechanism it is an
erased block whose offsets were written again; RR streams' erases are drawn only
among blocks no stream has open, as the engine never erases an open block.

Not driven directly, and why: the user-page placer (``user_page``) and the
migration placer (``victim_chosen`` .. ``move_page_slot``) return slots the engine
must then map, program and account for in the same step; a call from outside that
step leaves the FTL with a taken slot nobody maps, which is no state a run reaches.
Those roles of RR streams, and the static placement of Rails and TTFlash, run here
only inside the ``engine`` events.  The write pool (Cocktail) fills only those two
roles, so it has no test here: its twins are compared over whole runs in
test_cocktail_equivalence.py, and every scheme's in test_engine_equivalence.py and
test_combined_schemes.py.  ``reserve`` is called by the engine at build time.
"""
import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import flashrr
from engine_helpers import CAPACITY_ERROR, engine_counters, tiny_config
from flashrr._core import load_compiled_engine, role_calls
from flashrr._core.device.sched_py import PH_ERASE, PH_PROG
from flashrr._core.engine_py import ReferenceEngine
from flashrr._core.layout import CAUSE_USER, build_layout
from flashrr._core.mechanisms import MECHANISMS
from flashrr.config import ReadRetryConfig
from flashrr.papers.cocktail.readbalance import IPR, RedFTL
from flashrr.papers.hotr.policies import HotR
from flashrr.papers.hotr.redundancy import Optimal, Rails, TTFlash
from flashrr.papers.phasedrr.policies import PhasedRR, Reallocation, RlRR
from flashrr.policies.patrol import PATROL, Patrol
from flashrr.policies.read_exposure import READ_EXPOSURE, ReadExposure

ENTRY = {e.hook: e for e in MECHANISMS + (READ_EXPOSURE, PATROL)}
PAGE = 4096


class Twins:
    """The compiled (index 0) and the reference (index 1) engine for the policy
    ``make()`` returns, on ``cfg`` (after the policy's device_config), filled with
    every logical page, and the mechanism ``hook`` of each."""

    def __init__(self, cfg, make, hook):
        pols = [make(), make()]
        cfg = pols[0].device_config(cfg)
        self.eng = []
        for pol, maker in zip(pols, (load_compiled_engine(), ReferenceEngine)):
            pol.bind(cfg, 0)
            L = build_layout(cfg, pol.metadata_bytes(cfg))
            eng = maker(L, pol.hooks(), 0, False)
            eng.precondition(L.logical_pages, np.zeros(0, np.int64))
            self.eng.append(eng)
        self.L = L
        self.group = pols[0].page_counter_group
        self.roles = ENTRY[hook].roles
        self.mech = [e.mechanism(hook) for e in self.eng]
        assert None not in self.mech
        self.t = 0

    # ---------------------------------------------------------------- calls
    def call(self, role, *args):
        """``role`` on both twins with the same arguments; their results must agree.
        Returns the compiled twin's result."""
        a = getattr(role_calls, role)(self.mech[0], *args)
        b = getattr(self.mech[1], role)(*args)
        if b is None:
            assert a in (0, None), (role, a)
        else:
            assert a == b, (role, args, a, b)
        return a

    def views(self):
        return [e.state_view(self.t) for e in self.eng]

    def ppns(self, lpns):
        got = [[int(v.l2p[lpn]) for lpn in lpns] for v in self.views()]
        assert got[0] == got[1]
        return got[0]

    def arrive(self, gap):
        self.t += gap
        if "request_observer" in self.roles:
            self.call("arrival", self.t)
        for e in self.eng:
            e.sched.set_horizon(self.t)

    def finish_request(self, done):
        if "request_observer" in self.roles:
            self.call("request_done", done)

    # ---------------------------------------------------------------- events
    def read(self, gap, lpn0, n, lat, extra):
        self.arrive(gap)
        t, N = self.t, self.L.pages_per_block
        lpns = list(range(lpn0, min(lpn0 + n, self.L.logical_pages)))
        ppns = self.ppns(lpns)
        done = t + self.L.t_dram_ns
        if "read_redirector" in self.roles:
            extras = [extra + 10 * i for i in range(len(lpns))]
            a = role_calls.redirect(self.mech[0], lpns, ppns, ppns, extras, t)
            b = self.mech[1].redirect(lpns, ppns, list(ppns), extras, t)
            kept = [list(map(int, x)) for x in a[:4]]
            assert kept == [list(map(int, x)) for x in b], (lpns, kept, b)
            assert (a[4], a[5]) == (self.mech[1].redirect_end, bool(self.mech[1].redirect_blocked))
            lpns, ppns = kept[0], kept[1]
            done = max(done, a[4])
        if lpns:
            done = max(done, t + lat)  # the kept pages' own flash reads
        if "read_observer" in self.roles:
            for ppn in ppns:
                blk = ppn // N
                seen = []
                for v in self.views():
                    v.block_reads[blk] += 1
                    seen.append((int(v.block_reads[blk]), int(v.rr_threshold[blk])))
                assert seen[0] == seen[1]
                self.call("page_read", ppn, blk, seen[0][0], seen[0][1], done)
            self.call("reads_done", done)
        if self.group:
            for v in self.views():
                for lpn in lpns:
                    v.page_counters[lpn // self.group] += 1
        self.finish_request(done)

    def write(self, gap, lpn0, n, lat):
        self.arrive(gap)
        t = self.t
        lpn1 = min(lpn0 + n, self.L.logical_pages) - 1
        if "write_observer" in self.roles:
            self.call("host_write", lpn0, lpn1)
        done = t + lat
        if "write_path" in self.roles:
            a = role_calls.write(self.mech[0], self.eng[0], t, lpn0, lpn1)
            b = self.mech[1].write(self.eng[1], t, lpn0, lpn1)
            assert a == b, ("write", t, lpn0, lpn1, a, b)
            done = max(t + self.L.t_dram_ns, a)
        self.finish_request(done)

    def erase(self, blk):
        if "erase_observer" in self.roles:
            self.call("block_erased", blk)
        for v in self.views():
            v.block_reads[blk] = 0

    def busy(self, die, phase, dur):
        chan = int(self.L.comp_chan[list(self.L.comp_die).index(die)])
        n_xfer = 0 if phase == PH_ERASE else 1
        ends = [e.sched.book_op(die, chan, phase, n_xfer, self.t, dur, CAUSE_USER) for e in self.eng]
        assert ends[0] == ends[1]

    def engine(self, gap, lpn0, n, is_write):
        """One request through both whole engines; False when both ran out of spare space."""
        self.t += gap
        n = min(n, self.L.logical_pages - lpn0)
        out = []
        for e in self.eng:
            try:
                e.run(np.array([self.t], np.int64), np.array([lpn0 * PAGE], np.int64), np.array([n * PAGE], np.int64),
                      np.array([is_write], np.uint8))
                out.append(None)
            except flashrr.EngineError as err:
                out.append(str(err))
        assert out[0] == out[1]
        assert out[0] is None or CAPACITY_ERROR in out[0], out[0]
        return out[0] is None

    def play(self, events, check=None, paths=()):
        """Feed ``events`` to both twins; engine and mechanism counters after each,
        ``check(twins)`` and the common state at the end.  ``paths``: counters whose reaching 0 or not
        is reported to hypothesis' statistics (``--hypothesis-show-statistics``)."""
        ca = engine_counters(self.eng[0])
        for ev in events:
            kind, args = ev[0], ev[1:]
            if kind == "engine":
                if not self.engine(*args):
                    break
            else:
                getattr(self, kind)(*args)
            ca, cb = (engine_counters(e) for e in self.eng)
            assert ca == cb, {k: (ca[k], cb[k]) for k in ca if ca[k] != cb[k]}
        assert list(self.mech[0].counter_values()) == list(self.mech[1].counter_values())
        va, vb = self.views()
        assert np.array_equal(va.l2p, vb.l2p)
        assert np.array_equal(va.block_reads, vb.block_reads)
        assert np.array_equal(va.page_counters, vb.page_counters)
        if check is not None:
            check(self)
        for name in paths:
            event(f"{name}: {'yes' if ca[name] else 'no'}")

    def same_arrays(self, *names):
        for name in names:
            a, b = (np.asarray(m.array(name)) for m in self.mech)
            assert np.array_equal(a, b), name


# ------------------------------------------------------------------ event strategies
GAP = st.integers(0, 4_000)
LAT = st.integers(100, 3_000)


def lpn(hot, logical):
    """Mostly the first ``hot`` LPNs (a few blocks), so counts reach the thresholds."""
    return st.one_of(st.integers(0, hot - 1), st.integers(0, hot - 1), st.integers(0, logical - 1))


def read_ev(hot, logical, most=3, gap=GAP):
    return st.tuples(st.just("read"), gap, lpn(hot, logical), st.integers(1, most), LAT, st.integers(0, 400))


def write_ev(hot, logical, most=3):
    return st.tuples(st.just("write"), GAP, lpn(hot, logical), st.integers(1, most), LAT)


def erase_ev(n_blocks):
    return st.tuples(st.just("erase"), st.integers(0, n_blocks - 1))


def busy_ev(n_dies):
    return st.tuples(st.just("busy"), st.integers(0, n_dies - 1), st.sampled_from([PH_PROG, PH_PROG, PH_ERASE]),
                     st.integers(500, 20_000))


def engine_ev(hot, logical, writes=True):
    return st.tuples(st.just("engine"), GAP, lpn(hot, logical), st.integers(1, 2),
                     st.booleans() if writes else st.just(False))


def layout_of(cfg, make):
    pol = make()
    cfg = pol.device_config(cfg)
    pol.bind(cfg, 0)
    return build_layout(cfg, pol.metadata_bytes(cfg))


# ------------------------------------------------------------------ PhasedRR: working sets
WS_CFG = tiny_config(blocks=16, pages=8, rr=12, op=0.4, gc_ratio=0.1)


def _phasedrr():
    return PhasedRR(delta_reads=1, phase_mult=(2, 2, 2, 2, 1), max_blocks=2)


WS_L = layout_of(WS_CFG, _phasedrr)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(read_ev(16, WS_L.logical_pages), read_ev(16, WS_L.logical_pages),
                          erase_ev(WS_L.n_blocks), engine_ev(16, WS_L.logical_pages)), min_size=20, max_size=120))
def test_working_sets_twins(events):
    """PhasedRR (soft threshold 3 reads below a 12-read threshold, pool of 2 blocks):
    page_read, reads_done (the forced moves it books) and block_erased."""
    tw = Twins(WS_CFG, _phasedrr, "working_sets")
    tw.play(events, lambda tw: tw.same_arrays("slot_of", "bits", "page_reads", "stage"),
            paths=("ws_classify_scans", "rr_forced_moves", "ws_pool_full", "idle_moves", "rr_count"))


# ------------------------------------------------------------------ RL-RR and Reallocation: early moves
EM_CFG = tiny_config(blocks=16, pages=8, rr=12, op=0.4, gc_ratio=0.1, retry=ReadRetryConfig.ldpc(300))
EM_POLICIES = {"rl-rr": lambda: RlRR(start_reads=6, epsilon=0.3),
               "reallocation": lambda: Reallocation(start_reads=6, n_dest=0)}
EM_L = layout_of(EM_CFG, EM_POLICIES["rl-rr"])
IDLE_GAP = st.integers(0, 40_000)  # idle gaps of up to ~36 page moves: the cost side of Reallocation's rule


def _early_state(tw):
    tw.same_arrays("q", "cand", "queued")
    assert np.array_equal(tw.mech[0].array("in_ring"), tw.mech[1].in_ring)


@pytest.mark.parametrize("policy", sorted(EM_POLICIES))
@settings(max_examples=30, deadline=None)
@given(events=st.lists(st.one_of(read_ev(16, EM_L.logical_pages), read_ev(16, EM_L.logical_pages, gap=IDLE_GAP),
                                 erase_ev(EM_L.n_blocks), engine_ev(16, EM_L.logical_pages, writes=False),
                                 write_ev(16, EM_L.logical_pages)), min_size=20, max_size=120))
def test_early_moves_twins(policy, events):
    """RL-RR (Q-learning, epsilon 0.3 so both branches run) and Reallocation (benefit
    against cost, with LDPC read retries so the benefit is not 0; idle gaps long and short,
    so the cost moves): page_read, arrival, request_done, block_erased; the idle moves
    they queue run in the engine events."""
    tw = Twins(EM_CFG, EM_POLICIES[policy], "early_moves")
    tw.play(events, _early_state, paths=("idle_moves", "rr_count", "erase_count"))


# ------------------------------------------------------------------ HotR: hot replicas
HR_CFG = tiny_config(channels=2, chips=2, blocks=16, pages=8, op=0.4, gc_ratio=0.1, rr_enabled=False, t_read=100,
                     t_prog=1000, t_xfer=10, t_dram=10)
HR_L = layout_of(HR_CFG, lambda: HotR(staging_pages=4))


def rlru(tw):
    """Both R-LRUs as [(lpn, count, replica die, ready or None)], most recent first."""
    m = tw.mech[0]
    e_lpn, e_prev, e_next = m.array("e_lpn"), m.array("e_prev"), m.array("e_next")
    heads = [e for e in range(len(e_lpn)) if e_lpn[e] >= 0 and e_prev[e] < 0]
    out_a, e = [], heads[0] if heads else -1
    assert len(heads) <= 1
    while e >= 0:
        rep = int(m.array("e_rep")[e])
        ready = int(m.array("e_ready")[e]) if rep >= 0 else None
        out_a.append((int(e_lpn[e]), int(m.array("e_count")[e]), rep, ready))
        e = int(e_next[e])
    out_b = [(lpn, en.count, en.rep, en.ready if en.rep >= 0 else None)
             for lpn, en in reversed(tw.mech[1].rlru.items())]
    return out_a, out_b


def _hotr_state(tw):
    a, b = rlru(tw)
    assert a == b
    assert np.array_equal(tw.mech[0].array("st_free"), tw.mech[1].st_free)
    assert tw.mech[0].occupancy_now() == tw.mech[1].occupancy


@pytest.mark.parametrize("staging,erase_blocks,full,track", [("dedicated", False, "evict_lru", "all"),
                                                              ("dedicated", True, "evict_lru", "all"),
                                                              ("overprovision", False, "evict_lru", "all"),
                                                              ("dedicated", False, "stop", "all"),
                                                              ("overprovision", True, "evict_lru", "blocked")])
@settings(max_examples=30, deadline=None)
@given(events=st.lists(st.one_of(read_ev(8, HR_L.logical_pages, 2), read_ev(8, HR_L.logical_pages, 4),
                                 write_ev(8, HR_L.logical_pages, 2), busy_ev(HR_L.n_dies), busy_ev(HR_L.n_dies),
                                 engine_ev(8, HR_L.logical_pages)), min_size=20, max_size=100))
def test_hot_replicas_twins(staging, erase_blocks, full, track, events):
    """HotR (hot at 2 reads, 6 replicas and an R-LRU of 15: drops or refusals and evictions
    happen): redirect, reads_done (the replica programs), host_write; blocked dies come from
    the busy events."""
    make = lambda: HotR(hot_threshold=2, staging_pages=6, staging=staging, staging_dies=2,  # noqa: E731
                        erase_blocks=erase_blocks, rlru_factor=2.5, staging_full=full, rlru_track=track)
    tw = Twins(HR_CFG, make, "replication")
    tw.play(events, _hotr_state, paths=("redirected_pages", "replica_writes", "rlru_evictions",
                                         "replica_invalidations", "replica_drops", "replica_refusals"))


# ------------------------------------------------------------------ Rails, TTFlash, Optimal: redundancy
RD_CFG = tiny_config(channels=4, blocks=16, pages=8, op=0.4, gc_ratio=0.1, rr_enabled=False, t_read=100, t_prog=1000,
                     t_xfer=10, t_dram=10)
RD_POLICIES = {"rails": lambda: Rails(rails_period_ns=20_000), "ttflash": TTFlash, "optimal": Optimal}


def _redundancy_state(tw):
    a, b = tw.mech
    assert np.array_equal(a.array("rd_free"), b.rd_free)
    if b.mode == 1:  # Rails: the period + 1 of each LPN's last host write, 0 never
        stamp = np.zeros(tw.L.logical_pages, np.int32)
        for lpn, p in b.stamp.items():
            stamp[lpn] = p + 1
        assert np.array_equal(a.array("stamp"), stamp)
        assert [h >= 0 for h in a.array("f_head")] == [bool(q) for q in b.flush]


@pytest.mark.parametrize("policy", sorted(RD_POLICIES))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_redundancy_twins(policy, data):
    """Rails (20 us periods, so the halves swap roles), TTFlash (4+1 parity) and Optimal:
    redirect and the write path (through the engine as host)."""
    L = layout_of(RD_CFG, RD_POLICIES[policy])
    lg = L.logical_pages
    events = data.draw(st.lists(st.one_of(read_ev(24, lg, 4), read_ev(24, lg, 4), write_ev(24, lg, 6),
                                          busy_ev(L.n_dies), engine_ev(24, lg)), min_size=20, max_size=100))
    tw = Twins(RD_CFG, RD_POLICIES[policy], "redundancy")
    tw.play(events, _redundancy_state, paths=("redirected_pages", "reconstructed_pages", "rails_buffer_hits",
                                              "mirror_programs", "parity_reads"))


# ------------------------------------------------------------------ redFTL and IPR: RR streams
ST_CFG = tiny_config(blocks=32, pages=4, rr=6, op=0.4, gc_ratio=0.1)
ST_POLICIES = {"redftl": RedFTL, "ipr": lambda: IPR(max_fraction=0.2)}
ST_ARRAYS = ("blk_stream", "open_blk", "open_wp", "live", "given", "cold_next")


class StreamTwins(Twins):
    stream_erases = 0  # direct erases of a block a stream had opened

    def erase(self, i):
        """Only blocks no stream has open (the engine erases none of those): an even ``i``
        picks among the closed blocks of the streams, if any; otherwise block ``i``."""
        self.same_arrays("open_blk", "blk_stream")
        m = self.mech[0]
        is_open = set(int(b) for b in m.array("open_blk"))
        closed = [int(b) for b in np.flatnonzero(m.array("blk_stream")) if int(b) not in is_open]
        blk = closed[i // 2 % len(closed)] if closed and i % 2 == 0 else i % self.L.n_blocks
        if blk not in is_open:
            self.stream_erases += int(m.array("blk_stream")[blk] != 0)
            super().erase(blk)


@pytest.mark.parametrize("policy", sorted(ST_POLICIES))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_streams_twins(policy, data):
    """redFTL and IPR: block_erased directly, between engine requests whose RRs open
    stream blocks (the placer roles run inside the engine)."""
    L = layout_of(ST_CFG, ST_POLICIES[policy])
    lg = L.logical_pages
    erase = st.tuples(st.just("erase"), st.integers(0, 2 * L.n_blocks - 1))
    events = data.draw(st.lists(st.one_of(engine_ev(8, lg, writes=False), engine_ev(8, lg, writes=False),
                                          engine_ev(8, lg), erase),
                                min_size=30, max_size=150))
    tw = StreamTwins(ST_CFG, ST_POLICIES[policy], "rr_streams")
    tw.play(events, lambda tw: tw.same_arrays(*ST_ARRAYS), paths=("rr_count", "gc_count"))
    event(f"a stream block erased directly: {'yes' if tw.stream_erases else 'no'}")


# ------------------------------------------------------------------ read exposure
RE_CFG = tiny_config(blocks=16, pages=8, rr=9, op=0.4, gc_ratio=0.1)
RE_L = layout_of(RE_CFG, ReadExposure)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(read_ev(16, RE_L.logical_pages), erase_ev(RE_L.n_blocks), engine_ev(16, RE_L.logical_pages)),
                min_size=10, max_size=80),
       st.lists(st.tuples(st.integers(1, 200), st.integers(1, 60)), max_size=40))
def test_read_exposure_twins(events, odd):
    """page_read from the request flow, then with any count >= 1 against any threshold
    >= 1 (other thresholds than the engine's, as a policy's hook may set)."""
    tw = Twins(RE_CFG, ReadExposure, "read_exposure")
    tw.play(events)
    for reads, thr in odd:
        tw.call("page_read", 0, 0, reads, thr, tw.t)
    assert list(tw.mech[0].counter_values()) == list(tw.mech[1].counter_values())
    assert sum(tw.mech[1].counter_values()) >= len(odd)


# ------------------------------------------------------------------ patrol scan
PT_CFG = tiny_config(blocks=16, pages=8, rr=9, op=0.4, gc_ratio=0.1)


def _patrol():
    return Patrol(scan_interval_ns=700, ahead=0.3)


PT_L = layout_of(PT_CFG, _patrol)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(read_ev(16, PT_L.logical_pages), erase_ev(PT_L.n_blocks), engine_ev(16, PT_L.logical_pages),
                          engine_ev(16, PT_L.logical_pages, writes=False)),
                min_size=10, max_size=80))
def test_patrol_twins(events):
    """Visits every 700 ns of request completions; superblocks queued at 0.3 of their
    threshold (the engine events count reads), released by erases; the engine events run
    the queued moves."""
    tw = Twins(PT_CFG, _patrol, "patrol_scan")
    tw.play(events, lambda tw: tw.same_arrays("queued"), paths=("idle_moves",))
    assert list(tw.mech[0].counter_values()) == list(tw.mech[1].counter_values())
    event(f"a superblock queued: {'yes' if tw.mech[1].counter_values()[1] else 'no'}")
