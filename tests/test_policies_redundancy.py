"""Rails and TTFlash (docs/hotr.md): defining behaviour with hand-computed
latencies and operation counts, and hypothesis equivalence of the compiled and
reference twins."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import flashrr
from flashrr._core import load_compiled_engine
from flashrr._core.engine_py import ReferenceEngine
from flashrr._core.layout import CAUSE_GC, build_layout
from flashrr._core.device.sched_py import PH_READ
from flashrr.config import ConfigError
from flashrr.papers.hotr.redundancy import Rails, TTFlash, cost_latency_product

from engine_helpers import CAPACITY_ERROR, assert_identical, page_trace, run_both, tiny_config
from strategies import redundancy_case

ENGINES = ["compiled", "reference"]
T_READ, T_PROG, T_XFER, T_DRAM = 100, 1000, 10, 10
READ_COST = T_READ + T_XFER


def _cfg(channels=4, **kw):
    base = dict(channels=channels, blocks=32, pages=16, op=0.3, rr_enabled=False, t_read=T_READ, t_prog=T_PROG,
                t_xfer=T_XFER, t_dram=T_DRAM)
    base.update(kw)
    return tiny_config(**base)


def test_device_config_adds_dies_and_keeps_logical_pages():
    cfg = _cfg()
    for pol, dies in ((Rails(), 8), (TTFlash(), 5)):
        dev = pol.device_config(cfg)
        assert dev.geometry.n_dies == dies and dev.logical_pages == cfg.logical_pages
    assert Rails().cost_factor() == 2.0 and TTFlash().cost_factor() == 1.25
    with pytest.raises(ConfigError, match="cache"):
        TTFlash().device_config(_cfg(cache_pages=4))
    with pytest.raises(ConfigError, match="channels"):
        TTFlash().device_config(_cfg(channels=2))


def test_cost_latency_product_arithmetic():
    assert cost_latency_product(1.10, 0.782, 1.0) == pytest.approx(0.8602)


# ------------------------------------------------------------------ TTFlash
# 4 data channels -> 5 dies, one group: stripe 0 (LPN 0..3) has its parity on die 0 and LPN 0..3 on dies 1..4


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("lpn, pages, reads, programs, latency", [
    (1, 1, 2, 2, READ_COST + T_XFER + T_PROG),   # read-modify-write: old data + old parity, then 2 programs
    (0, 2, 2, 3, READ_COST + T_XFER + T_PROG),   # reconstruct-write: the 2 untouched pages, then 2 + parity
    (1, 3, 1, 4, READ_COST + T_XFER + T_PROG),   # reconstruct-write: the 1 untouched page, then 3 + parity
    (0, 4, 0, 5, T_XFER + T_PROG),               # full stripe: 4 data + parity programs, no reads
])
def test_ttflash_write_costs(engine, lpn, pages, reads, programs, latency):
    s = flashrr.simulate(_cfg(), page_trace([lpn], writes=[1], pages=[pages]), policy="ttflash", engine=engine).summary
    assert s["parity_reads"] == reads
    assert s["flash_pages_programmed"] == programs and s["parity_programs"] == 1
    assert s["write_latency_mean_ns"] == latency
    assert s["device"].endswith("+ttflash") and s["cost_factor"] == 1.25


def _engine(engine, cfg, pol):
    dev = pol.device_config(cfg)
    pol.bind(dev, 0)
    cls = load_compiled_engine() if engine == "compiled" else ReferenceEngine
    eng = cls(build_layout(dev), pol.hooks(), 0, False)
    eng.precondition(8, np.zeros(0, np.int64))
    return eng


@pytest.mark.parametrize("engine", ENGINES)
def test_ttflash_reconstruction_issues_exactly_four_reads(engine):
    eng = _engine(engine, _cfg(), TTFlash())
    book = getattr(eng.sched, "book_op", None) or eng.sched.op
    book(2, 2, 1, 0, 0, 1000, CAUSE_GC)  # a program on die 2 (LPN 1's die), 0..1000
    eng.run(np.array([10]), np.array([4096]), np.array([4096]), np.array([0], np.uint8))
    eng.finish()
    r = eng.results()
    c = {**r["counters"], **r["mechanism_counters"]}
    assert c["reconstruction_reads"] == 4 and c["reconstructed_pages"] == 1 and c["redirected_reads"] == 1
    assert c["blocked_reads"] == 1 and c["flash_read_pages"] == 0
    assert c["read_latency_sum_ns"] == READ_COST  # the 4 peers are idle, each on its own channel
    busy = np.asarray(r["die_busy_ns"])
    assert list(busy) == [READ_COST, READ_COST, 1000, READ_COST, READ_COST]  # one read on each peer


@pytest.mark.parametrize("engine", ENGINES)
def test_ttflash_unblocked_read_is_a_plain_read(engine):
    s = flashrr.simulate(_cfg(), page_trace([1, 2]), policy="ttflash", engine=engine).summary
    assert s["reconstruction_reads"] == 0 and s["read_latency_mean_ns"] == READ_COST


# ------------------------------------------------------------------ Rails
# 2 data channels -> 4 dies: half A = dies 0, 1; half B = dies 2, 3; LPN l on die l % 2 of each half
PERIOD = 10_000


@pytest.mark.parametrize("engine", ENGINES)
def test_rails_roles_buffer_and_flush(engine):
    tr = page_trace([0, 1, 0, 0, 1, 1, 3, 1], writes=[1, 0, 0, 0, 1, 0, 0, 0],
                    times=[0, 100, 200, 10_000, 10_100, 10_200, 10_300, 20_000])
    s = flashrr.simulate(_cfg(channels=2), tr, policy="rails", engine=engine, rails_period_ns=PERIOD).summary
    # reads: B copy (110), buffer (10), A copy (110), buffer (10), A copy (110), B copy (110)
    assert _read_sum(s) == 4 * READ_COST + 2 * T_DRAM
    assert s["rails_buffer_hits"] == 2
    assert s["redirected_reads"] == 2  # the two reads served by half B
    assert s["write_latency_mean_ns"] == T_XFER + T_PROG
    assert s["flash_pages_programmed"] == 2 * s["host_pages_written"] == 4
    assert s["mirror_programs"] == 3  # flush to B, the B-period write, flush to A
    assert s["blocked_reads"] == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_rails_flush_is_background_work(engine):
    """LPNs 0, 2, 4 (die 0 of half A) written in period 0 are flushed to die 2 of half B in period 1, as
    background work: a write at 10000 on die 2 waits for the one flush program already started, not for
    all three."""
    tr = page_trace([0, 2, 4, 6], writes=[1, 1, 1, 1], times=[0, 1, 2, PERIOD])
    s = flashrr.simulate(_cfg(channels=2), tr, policy="rails", engine=engine, rails_period_ns=PERIOD).summary
    prog = T_XFER + T_PROG
    # period 0 on die 0: back to back (0..1010, 1010..2020, 2020..3030); then 10000..11010 flush, 11010.. write
    assert round(s["write_latency_mean_ns"] * 4) == prog + (2 * prog - 1) + (3 * prog - 2) + 2 * prog
    # one flush program and the period-1 write on half B; the other two flushes were never booked (no request
    # arrived after)
    assert s["mirror_programs"] == 2 and s["flash_pages_programmed"] == 5


def _read_sum(s):
    return round(s["read_latency_mean_ns"] * s["reads"])


@pytest.mark.parametrize("engine", ENGINES)
def test_optimal_reads_ignore_programs(engine):
    # y's program keeps the only data die busy 5000..6010; reads of x at 5100 and 5105 are blocked: Optimal
    # serves them on the die's read-only timeline, back to back (5100..5210, 5210..5320)
    tr = page_trace([1, 0, 0], writes=[1, 0, 0], times=[5000, 5100, 5105])
    s = flashrr.simulate(_cfg(channels=1), tr, policy="optimal", engine=engine).summary
    assert _read_sum(s) == READ_COST + (5320 - 5105)
    assert s["blocked_reads"] == 2 and s["redirected_reads"] == 2 and s["cost_factor"] == 1.0
    base = flashrr.simulate(_cfg(channels=1), tr, policy="baseline", engine=engine).summary
    assert _read_sum(base) == (6010 + READ_COST - 5100) + (6010 + 2 * READ_COST - 5105)
    assert s["write_latency_mean_ns"] == base["write_latency_mean_ns"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(redundancy_case())
def test_engines_identical_redundancy(case):
    cfg, trace, pol, params = case
    a, b = run_both(cfg, trace, pol, check_invariants=True, **params)
    assert_identical(a, b, allow_error=CAPACITY_ERROR)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(redundancy_case())
def test_rails_never_reads_the_write_half(case):
    cfg, trace, _, _ = case
    period = 5000
    pol = Rails(rails_period_ns=period)
    dev = pol.device_config(cfg)
    eng = ReferenceEngine(build_layout(dev), pol.hooks(), 0, False)
    half = dev.geometry.n_dies // 2
    seen = []
    user_op = eng.sched.user_op

    def spy(die, chan, phase, n, t, dur, cause):
        if phase == PH_READ:
            seen.append((die, t))
        return user_op(die, chan, phase, n, t, dur, cause)

    eng.sched.user_op = spy
    top = int(((trace.offset + trace.size - 1) // 4096).max())
    eng.precondition(top + 1, np.zeros(0, np.int64))
    try:
        eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write.astype(np.uint8))
    except flashrr.EngineError as e:
        assert CAPACITY_ERROR in str(e)
        return
    for die, t in seen:  # host reads only: GC reads are not user operations
        writing_a = (t // period) % 2 == 0
        assert (die >= half) == writing_a, (die, t)
