"""Builders shared by the engine tests: tiny devices and traces, runs on both engines and
their comparison.  The hypothesis strategies that draw devices and traces are in strategies.py."""
import numpy as np

import flashrr
from flashrr.config import (CacheConfig, GCConfig, GeometryConfig, ReadReclaimConfig, ReadRetryConfig, SimConfig,
                            SuperblockConfig, TimingConfig)


def tiny_config(channels=1, chips=1, dies=1, planes=1, blocks=32, pages=16, page=4096, cache_pages=0,
                gc_ratio=0.05, op=0.3, rr=10, rr_enabled=True, retry=None, sb_planes=1, sb_dies=1, sb_chips=1,
                sb_channels=1, read_allocate=True, t_read=100, t_prog=1000, t_erase=5000, t_xfer=0, t_dram=10, **precond):
    cfg = SimConfig(
        name="tiny",
        geometry=GeometryConfig(channels, chips, dies, planes, blocks, pages, page),
        timing=TimingConfig(t_read, t_prog, t_erase, t_xfer, t_dram),
        cache=CacheConfig(cache_pages * page, read_allocate),
        gc=GCConfig(gc_ratio, op),
        read_reclaim=ReadReclaimConfig(rr, rr_enabled),
        read_retry=retry or ReadRetryConfig(),
        superblock=SuperblockConfig(sb_planes, sb_dies, sb_chips, sb_channels),
    )
    return cfg.replace(**precond) if precond else cfg


def page_trace(lpns, writes=None, page=4096, gap_ns=1000, pages=None, times=None):
    """A trace of requests starting at ``lpns`` (one page each unless ``pages``)."""
    lpns = np.asarray(lpns, dtype=np.int64)
    n = len(lpns)
    writes = np.zeros(n, bool) if writes is None else np.asarray(writes, bool)
    pages = np.ones(n, np.int64) if pages is None else np.asarray(pages, np.int64)
    times = np.arange(n, dtype=np.int64) * gap_ns if times is None else np.asarray(times, np.int64)
    return flashrr.Trace(times, lpns * page, pages * page, writes)


def comparable(summary: dict) -> dict:
    """The summary without the fields that legitimately differ between runs/engines."""
    return {k: v for k, v in summary.items() if k not in ("sim_wall_s", "engine")}


def skewed_reads_trace(n_reads=40_000, n_lpns=1024, seed=1):
    """Single-page reads; the pages on component 0 of a 4-block superblock
    (LPN % 4 == 0) are 3x as hot as the others."""
    rng = np.random.default_rng(seed)
    w = np.where(np.arange(n_lpns) % 4 == 0, 3.0, 1.0)
    return page_trace(rng.choice(n_lpns, size=n_reads, p=w / w.sum()))


# The one engine error a random draw may legitimately hit: GC cannot keep up on a tiny device.
CAPACITY_ERROR = "too little spare space"


def run_both(cfg, trace, policy="baseline", **kwargs):
    """Run ``flashrr.simulate`` on the compiled and on the reference engine; an
    EngineError is returned in place of the Result, for :func:`assert_identical`."""
    out = []
    for engine in ("compiled", "reference"):
        try:
            out.append(flashrr.simulate(cfg, trace, policy=policy, engine=engine, **kwargs))
        except flashrr.EngineError as e:
            out.append(e)
    return out[0], out[1]


def assert_identical(a, b, allow_error=None, ignore=()):
    """Both engines gave the same summary (but for ``ignore`` and wall-clock keys),
    latency histograms, RR/GC event tables, erases per block and (error model on)
    reads per retry step.

    An engine error fails the test, even when both engines raise the same one,
    unless ``allow_error`` (a substring, e.g. :data:`CAPACITY_ERROR`) is in its
    message; then both must have raised an error of the same type and text.  So an
    invariant failure (``InvariantError``, "invariant: ...") is never agreement."""
    for res in (a, b):
        if isinstance(res, Exception) and (allow_error is None or allow_error not in str(res)):
            raise AssertionError(f"engine error not expected by the test: {type(res).__name__}: {res}")
    if isinstance(a, Exception) or isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b), (a, b)
        return
    keep = lambda s: {k: v for k, v in comparable(s).items() if k not in ignore}  # noqa: E731
    assert keep(a.summary) == keep(b.summary)
    for kind in ("read", "write", "io"):
        assert np.array_equal(a.hist[kind], b.hist[kind]), kind
    assert a.rr_events.equals(b.rr_events)
    assert a.gc_events.equals(b.gc_events)
    assert np.array_equal(a.block_erases, b.block_erases)
    assert (a.retry_steps is None) == (b.retry_steps is None)
    assert a.retry_steps is None or np.array_equal(a.retry_steps, b.retry_steps)


def build_engine(engine: str, cfg, policy, fill: int, check: bool = True):
    """A compiled or reference engine for ``policy`` (name, class or instance) on ``cfg``,
    bound and preconditioned with LPNs ``0 .. fill - 1``; for tests that drive an engine
    request by request and read its state."""
    from flashrr.engine_layout import engine_layout
    from flashrr._core.engine_py import ReferenceEngine
    from flashrr.policies import make_policy

    pol = make_policy(policy)
    pol.bind(cfg, 0)
    layout = engine_layout(cfg, pol.metadata_bytes(cfg))
    if engine == "compiled":
        from flashrr._core import load_compiled_engine

        eng = load_compiled_engine()(layout, pol.hooks(), 0, check)
    else:
        eng = ReferenceEngine(layout, pol.hooks(), 0, check)
    eng.precondition(fill, np.zeros(0, np.int64))
    return eng


def engine_counters(eng) -> dict:
    """An engine's device counters and its mechanisms' own, by name."""
    r = eng.results()
    return {**r["counters"], **r["mechanism_counters"]}


class EngineDriver:
    """Feeds an engine of :func:`build_engine` one request at a time (4 KiB pages, 1 us apart) and
    reads its state: where an LPN lives, the counters, and Cocktail's write pool."""

    PAGE = 4096

    def __init__(self, eng, N):
        self.eng, self.N, self.t = eng, N, 0

    def _run(self, lpns, write):
        n = len(lpns)
        if not n:
            return
        times = self.t + np.arange(n, dtype=np.int64) * 1000
        page = self.PAGE
        self.eng.run(times, np.asarray(lpns, np.int64) * page, np.full(n, page, np.int64), np.full(n, write, np.uint8))
        self.t = int(times[-1]) + 1000

    def write(self, lpns):
        self._run(list(lpns), 1)

    def read(self, lpns):
        self._run(list(lpns), 0)

    def block(self, lpn):
        return int(self.eng.state_view(0).l2p[lpn]) // self.N

    def counters(self):
        return engine_counters(self.eng)

    def pool(self, lane=0):
        """[(block, next offset, flag)] in pool order; flag "WR" or "RR"."""
        wp = self.eng.mechanism("write_pool")
        n, m = int(wp.array("pool_len")[lane]), len(wp.array("pool_blk")) // len(wp.array("pool_len"))
        blk, idx, flag = (wp.array(x)[lane * m:lane * m + n] for x in ("pool_blk", "pool_idx", "pool_flag"))
        return [(int(b), int(i), "WR" if f == 0 else "RR") for b, i, f in zip(blk, idx, flag)]

    def cap(self, lane=0):
        return int(self.eng.mechanism("write_pool").array("pool_cap")[lane])

    def state(self, blk):
        return int(self.eng.state_view(0).sb_state[blk])


def final_mapping(cfg, trace):
    """The reference engine's ``l2p`` after replaying ``trace`` on ``cfg`` under Baseline
    (filled up to the trace's top LPN, invariant checks on), or None if the tiny device ran
    out of spare space (the one engine error a random draw may hit)."""
    top = int(((trace.offset + trace.size - 1) // cfg.geometry.page_size_bytes).max())
    eng = build_engine("reference", cfg, "baseline", fill=top + 1)
    try:
        eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write.astype(np.uint8))
        eng.finish()
    except flashrr.EngineError as e:
        assert CAPACITY_ERROR in str(e)
        return None
    return np.asarray(eng.ftl.l2p)
