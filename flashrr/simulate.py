"""``flashrr.simulate``: one run of one policy on one trace and device."""
from __future__ import annotations

import math
import time

import numpy as np

from ._core._reference import EngineError, InvariantError, ReferenceEngine
from ._core.layout import build_layout
from .config import ConfigError, SimConfig
from .policy import make_policy
from .result import Result, build_summary
from .trace import Trace, TraceError

ENGINES = ("compiled", "reference")


def resolve_config(config) -> SimConfig:
    """A SimConfig from a SimConfig, a preset name, or a path to a TOML file."""
    if isinstance(config, SimConfig):
        return config
    if isinstance(config, str):
        if config.endswith(".toml"):
            return SimConfig.load(config)
        return SimConfig.preset(config)
    raise ConfigError(f"config: expected a SimConfig, a preset name or a .toml path, got {type(config).__name__}")


def resolve_trace(trace) -> Trace:
    """A Trace from a Trace, ``"synth:PRESET[?param=value&...]"``, or a trace file path."""
    if isinstance(trace, Trace):
        return trace
    if isinstance(trace, str) and trace.startswith("synth:"):
        from .trace.spec import synth_from_spec

        return synth_from_spec(trace)
    if isinstance(trace, (str,)) or hasattr(trace, "__fspath__"):
        from .trace.io import read_trace

        return read_trace(trace)
    raise TraceError(f"trace: expected a Trace, 'synth:PRESET' or a path, got {type(trace).__name__}")


def check_fits(config: SimConfig, trace: Trace) -> int:
    """Highest LPN of ``trace``; raises TraceError if it exceeds the logical space."""
    top = trace.max_lpn(config.geometry.page_size_bytes)
    if top >= config.logical_pages:
        raise TraceError(
            f"trace {trace.name!r} does not fit device {config.name!r}: it touches LPN {top} (byte "
            f"{(top + 1) * config.geometry.page_size_bytes - 1}) but the device exposes {config.logical_pages} "
            f"logical pages ({config.logical_bytes} bytes); fold it with flashrr.trace.transform.fold")
    return top


def simulate(config, trace, policy="baseline", seed: int = 0, engine: str = "compiled", repeat: int = 1,
             check_invariants: bool = False, **policy_params) -> Result:
    """Replay ``trace`` (``repeat`` times, time increasing) on the device ``config``
    under ``policy`` and return the :class:`~flashrr.result.Result`.

    ``policy`` is a name (``"baseline"``, ...), a Policy class or instance;
    ``policy_params`` go to its constructor.  ``engine="reference"`` runs the
    pure-Python twin (slow; for validation).  ``check_invariants=True`` keeps a
    version stamp per page, checks that every flash read returns the latest
    write, and checks the mapping after every migration and at the end.
    """
    config = resolve_config(config)
    trace = resolve_trace(trace)
    if engine not in ENGINES:
        raise ValueError(f"engine: expected one of {ENGINES}, got {engine!r}")
    if not isinstance(repeat, (int, np.integer)) or repeat < 1:
        raise ValueError(f"repeat: expected a positive integer, got {repeat!r}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")
    pol = make_policy(policy, **policy_params)
    pol.bind(config, int(seed))
    metadata = int(pol.metadata_bytes(config))
    layout = build_layout(config, metadata)
    top = check_fits(config, trace)
    fill = max(top + 1, int(math.ceil(config.precondition.fill_ratio * config.logical_pages)))
    fill = min(fill, config.logical_pages)
    rng = np.random.default_rng(seed)
    n_warm = int(round(config.precondition.warmup_random_writes_ratio * fill))
    warm = rng.integers(0, fill, size=n_warm, dtype=np.int64) if n_warm and fill else np.zeros(0, np.int64)
    if engine == "compiled":
        from ._core import load_compiled_engine

        eng = load_compiled_engine()(layout, pol.hooks(), seed, check_invariants)
    else:
        eng = ReferenceEngine(layout, pol.hooks(), seed, check_invariants)
    t0 = time.perf_counter()
    eng.precondition(fill, warm)
    eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write, int(repeat))
    eng.finish()
    wall = time.perf_counter() - t0
    if check_invariants:
        eng.check_invariants()
    raw = eng.results()
    extra = {"policy": pol.name, "device": config.name, "trace": trace.name, "seed": int(seed),
             "repeat": int(repeat), "engine": engine, "cache_pages": layout.cache_pages}
    summary = build_summary(raw["counters"], raw["hist"], metadata, wall, extra, raw["die_busy_ns"], raw["end_ns"])
    summary.update(getattr(pol, "extra_metrics", lambda: {})())
    return Result(summary, raw["hist"], raw["rr_events"], raw["gc_events"], layout.k)


__all__ = ["simulate", "EngineError", "InvariantError", "resolve_config", "resolve_trace"]
