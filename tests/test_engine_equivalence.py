"""The compiled engine and the pure-Python reference give identical results.

Hypothesis draws small devices (every superblock shape, cache sizes, GC
thresholds, read-retry models, every scheduler and channel model, both write
acknowledgements, destage buffer sizes and urgent-GC thresholds) and small
traces; both engines must produce the same summary, the same RR and GC event
tables (with erase times) and the same latency histograms.
A test policy exercises every hook path (placement, routine labels, GC victim
choice, page counters, per-block thresholds).
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from flashrr.config import ReadRetryConfig
from flashrr.policy import Policy
from engine_helpers import comparable, tiny_config


class HookPolicy(Policy):
    """Exercises every hook: a seeded random placement for RR and GC, a routine
    label, a GC victim choice (most valid-invalid pages, ties by id), page
    counters in groups of 2, a raised threshold after each RR, and an idle-time
    page move queued at each RR."""

    name = "hook-test"
    page_counter_group = 2
    counter_bytes = 4
    place_kinds = ("rr", "gc")

    def bind(self, config, seed):
        self.rng = np.random.default_rng(seed)

    def on_read_reclaim(self, state, sb):
        reads = state.superblock_block_reads(sb)
        mapped = np.flatnonzero(state.l2p >= 0)
        if mapped.size:  # an idle-time move of a random page, so the idle queue must match too
            state.queue_idle_move(int(self.rng.choice(mapped)), int(self.rng.integers(0, state.layout.k)))
        return "hot" if int(reads.max()) > 2 * int(reads.min()) + 1 else "flat"

    def place_migration(self, state, kind, sb, comps, offsets, lpns):
        k = state.layout.k
        dest = (comps + self.rng.integers(0, k, size=len(comps))) % k
        # use the page counters so the feature must match between engines
        hot = state.page_counters[lpns // 2] > 1 if len(state.page_counters) else np.zeros(len(lpns), bool)
        return np.where(hot, 0, dest)

    def choose_gc_victim(self, state, lane, candidates, valid):
        return int(candidates[int(np.argmin(valid))])


def _run_both(cfg, trace, policy="baseline", seed=0, repeat=1, check=False):
    out = {}
    for engine in ("compiled", "reference"):
        try:
            out[engine] = flashrr.simulate(cfg, trace, policy=policy, seed=seed, engine=engine, repeat=repeat,
                                           check_invariants=check)
        except flashrr.EngineError as e:
            out[engine] = e
    return out["compiled"], out["reference"]


def assert_identical(a, b):
    if isinstance(a, Exception) or isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b), (a, b)
        return
    assert comparable(a.summary) == comparable(b.summary)
    for kind in ("read", "write", "io"):
        assert np.array_equal(a.hist[kind], b.hist[kind]), kind
    pd_a, pd_b = a.rr_events, b.rr_events
    assert pd_a.equals(pd_b)
    assert a.gc_events.equals(b.gc_events)


SHAPES = [  # (channels, chips, dies, planes, sb_planes, sb_dies, sb_chips, sb_channels)
    (1, 1, 1, 1, 1, 1, 1, 1), (1, 1, 1, 2, 2, 1, 1, 1), (1, 1, 1, 4, 4, 1, 1, 1), (2, 1, 1, 2, 2, 1, 1, 1),
    (2, 2, 1, 2, 2, 1, 1, 2), (1, 2, 2, 2, 2, 2, 1, 1), (2, 1, 2, 1, 1, 2, 1, 2), (2, 2, 1, 4, 4, 1, 1, 1),
    (1, 1, 1, 4, 2, 1, 1, 1), (2, 2, 2, 2, 2, 1, 2, 1),
]


@st.composite
def device_and_trace(draw):
    ch, chips, dies, planes, sp, sd, sc, sch = draw(st.sampled_from(SHAPES))
    retry = draw(st.sampled_from([None, ReadRetryConfig.cocktail(37), ReadRetryConfig.ldpc(11)]))
    cfg = tiny_config(
        channels=ch, chips=chips, dies=dies, planes=planes, sb_planes=sp, sb_dies=sd, sb_chips=sc, sb_channels=sch,
        blocks=draw(st.integers(24, 40)), pages=draw(st.sampled_from([4, 8, 16])),
        cache_pages=draw(st.sampled_from([0, 1, 3, 8, 32])), read_allocate=draw(st.booleans()), gc_ratio=draw(st.sampled_from([0.02, 0.08, 0.15])),
        op=draw(st.sampled_from([0.35, 0.5])), rr=draw(st.integers(2, 25)), retry=retry,
        t_read=draw(st.integers(50, 500)), t_prog=draw(st.integers(200, 3000)), t_erase=draw(st.integers(500, 9000)),
        t_xfer=draw(st.integers(0, 60)), t_dram=draw(st.integers(0, 20)),
        warmup_random_writes_ratio=draw(st.sampled_from([0.0, 0.5])),
    ).replace(scheduler=draw(st.sampled_from(["user-first", "gc-first", "fcfs"])),
              channel_model=draw(st.sampled_from(["gap-fill", "busy-until"])),
              write_ack=draw(st.sampled_from(["insert", "program"])),
              destage_buffer_pages=draw(st.sampled_from([0, 1, 3])),
              gc_hard_threshold_ratio=draw(st.sampled_from([0.005, 0.05, 0.15])))
    n = draw(st.integers(1, 120))
    span = draw(st.integers(1, cfg.logical_pages - 4))
    lpn = np.array(draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)), np.int64)
    pages = np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), np.int64)
    pages = np.minimum(pages, cfg.logical_pages - lpn)
    wr = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    gaps = np.array(draw(st.lists(st.integers(0, 5000), min_size=n, max_size=n)), np.int64)
    ps = cfg.geometry.page_size_bytes
    trace = flashrr.Trace(np.cumsum(gaps), lpn * ps, pages * ps, wr)
    return cfg, trace, draw(st.integers(1, 3)), draw(st.integers(0, 2**16))


@settings(max_examples=200)
@given(device_and_trace())
def test_engines_identical_baseline(case):
    cfg, trace, repeat, seed = case
    assert_identical(*_run_both(cfg, trace, repeat=repeat, seed=seed))


@settings(max_examples=60)
@given(device_and_trace())
def test_engines_identical_with_every_hook(case):
    cfg, trace, repeat, seed = case
    assert_identical(*_run_both(cfg, trace, policy=HookPolicy, repeat=repeat, seed=seed))


@settings(max_examples=40)
@given(device_and_trace())
def test_invariant_mode_matches_and_holds(case):
    """check_invariants never changes results, and the invariants hold in both engines."""
    cfg, trace, repeat, seed = case
    a, b = _run_both(cfg, trace, policy=HookPolicy, repeat=repeat, seed=seed, check=True)
    assert_identical(a, b)
    if not isinstance(a, Exception):
        plain = flashrr.simulate(cfg, trace, policy=HookPolicy, repeat=repeat, seed=seed)
        assert comparable(plain.summary) == comparable(a.summary)


def test_real_trace_identical():
    """The MQSim web-search sample (tests/data, from the MQSim repository) on a
    scaled-down shuffler-like device: both engines agree, and RR happens."""
    trace = flashrr.read_trace("tests/data/wsrch-small.mqsim.txt", cache=False)
    cfg = flashrr.SimConfig.preset("shuffler").replace(rr_threshold_reads=20, capacity_bytes=1 << 20)
    trace = flashrr.trace.fold(trace, cfg.logical_bytes, cfg.geometry.page_size_bytes)
    a, b = _run_both(cfg, trace.slice(0, 3000), repeat=2)
    assert a.summary["rr_count"] > 0
    assert_identical(a, b)
