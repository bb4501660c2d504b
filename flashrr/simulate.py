"""``flashrr.simulate``: one run of one policy on one trace and device."""
from __future__ import annotations

import contextlib
import gc
import math
import time
import weakref

import numpy as np

from ._core.invariants import EngineError, InvariantError
from .config import ConfigError, SimConfig
from .engine_layout import engine_layout
from .regime_warning import regime_warning
from .result import Result, build_summary
from .trace.core import Trace, TraceError
from .trace.source import (MemorySource, SourceInfo, TraceSource, check_chunk_requests, default_chunk_requests)
from .trace.transform import repeat_period

PROGRESS_DELAY_S = 0.5  # the replay's progress bar appears only for replays longer than this

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


def resolve_source(trace, config: SimConfig | None = None, progress: bool = False) -> TraceSource:
    """A streaming TraceSource from a Trace, a TraceSource, or a trace spec: a
    file path or ``"synth:PRESET"``, optionally with a pipeline
    (``"usr_0.csv?fold=modulo&repeat=8"``, see :mod:`flashrr.trace.pipeline`).
    ``config`` is the device a ``fold`` folds onto."""
    if isinstance(trace, Trace):
        return MemorySource(trace)
    if isinstance(trace, TraceSource):
        return trace
    if isinstance(trace, str) or hasattr(trace, "__fspath__"):
        from .trace.pipeline import open_trace_spec

        return open_trace_spec(trace, config, progress=progress)[0]
    raise TraceError(f"trace: expected a Trace, a TraceSource, 'synth:PRESET' or a path, got {type(trace).__name__}")


def resolve_trace(trace, config: SimConfig | None = None) -> Trace:
    """A Trace (held in memory) from anything :func:`resolve_source` takes."""
    return resolve_source(trace, config).to_trace()


def check_fits(config: SimConfig, trace, spec=None) -> int:
    """Highest LPN of ``trace`` (a Trace or TraceSource); raises TraceError if it
    exceeds the logical space.  ``spec`` (the trace as given) shapes the advice."""
    info = trace.info() if isinstance(trace, TraceSource) else SourceInfo.of_trace(trace)
    top = info.max_lpn(config.geometry.page_size_bytes)
    if top >= config.logical_pages:
        raise TraceError(
            f"trace {trace.name!r} does not fit device {config.name!r}: it touches LPN {top} (byte "
            f"{(top + 1) * config.geometry.page_size_bytes - 1}) but the device exposes {config.logical_pages} "
            f"logical pages ({config.logical_bytes} bytes); fold it onto the device with the trace pipeline "
            f"{_fold_advice(spec)} (command line: --trace, sweep specs: traces), or in Python with "
            f"flashrr.trace.transform.fold; if the pages it touches fit, the pipeline key pack=stripe places "
            f"them from page 0 instead")
    return top


def _fold_advice(spec) -> str:
    if isinstance(spec, str) or hasattr(spec, "__fspath__"):
        from .trace.pipeline import parse_trace_spec

        return repr(parse_trace_spec(spec).with_fold())
    return "'TRACE_FILE?fold=modulo'"


def _replay(eng, source: TraceSource, repeat: int, chunk_requests: int, progress: bool = False,
            stop_when=None) -> bool:
    """Feed ``source`` to the engine ``repeat`` times, one chunk at a time.

    Copy ``r`` is shifted by ``r * period`` with the engines' own repeat period
    (:func:`flashrr.trace.transform.repeat_period` of the whole source), so the
    engine sees exactly the requests of ``eng.run(..., repeat)`` on the whole
    trace.  ``stop_when(eng, last_arrival_ns)`` (optional) is asked after each
    chunk, with the arrival time (ns) of the chunk's last request; the replay
    ends there once it returns True.  Then ``eng.finish()`` books the background
    work still queued.  ``progress`` shows a tqdm bar (requests) on stderr.
    Returns whether ``stop_when`` ended the replay."""
    info = source.info()
    stopped = False
    if info.n_requests:
        period = repeat_period(info.n_requests, info.duration_ns, repeat)
        with _progress_bar(info.n_requests * repeat, source.name) if progress else contextlib.nullcontext() as bar:
            for r in range(repeat):
                for c in source.chunks(chunk_requests):
                    t = c.time_ns + r * period if r else c.time_ns
                    eng.run(t, c.offset, c.size, c.is_write, 1)
                    if bar is not None:
                        bar.update(len(c))
                    if stop_when is not None and len(t) and stop_when(eng, int(t[-1])):
                        stopped = True
                        break
                if stopped:
                    break
    eng.finish()
    return stopped


def _progress_bar(total: int, name: str):
    """The replay's tqdm bar over ``total`` requests (tqdm imported only when a bar is asked for)."""
    from tqdm import tqdm

    return tqdm(total=total, unit="req", unit_scale=True, desc=f"replay {name}", delay=PROGRESS_DELAY_S, leave=False,
                smoothing=0.1)


def simulate(config, trace, policy="baseline", seed: int = 0, engine: str = "compiled", repeat: int = 1,
             check_invariants: bool = False, chunk_requests: int | None = None, progress: bool = False,
             snapshot=None, stop_when=None, **policy_params) -> Result:
    """Replay ``trace`` (``repeat`` times, time increasing) on the device ``config``
    under ``policy`` and return the :class:`~flashrr.result.Result`.

    ``policy`` is a name (``"baseline"``, ...), a Policy class or instance;
    ``policy_params`` go to its constructor.  ``engine="reference"`` runs the
    pure-Python twin (slow; for validation).  ``check_invariants=True`` keeps a
    version stamp per page, checks that every flash read returns the latest
    write, and checks the mapping after every migration and at the end.

    ``trace`` is a Trace, a TraceSource or a trace spec (a file path or
    ``synth:PRESET``, with an optional pipeline such as
    ``"usr_0.csv?fold=modulo&repeat=8"``; see :mod:`flashrr.trace.pipeline`).
    It is replayed in chunks of ``chunk_requests`` requests (default
    :func:`flashrr.trace.source.default_chunk_requests`); a trace file streams
    from its parse cache, so memory does not grow with its length.  The result
    does not depend on the chunk size.  ``progress`` shows a progress bar.

    ``snapshot`` takes the aged device (preconditioning's fill and warm-up) from a
    snapshot instead of preconditioning (:mod:`flashrr.snapshots`; same results): a
    directory holds one snapshot per device state, made by the first run that needs
    it; a ``.npz`` path names one snapshot file, which must exist and match the run
    (:class:`~flashrr.snapshots.SnapshotError` names the file and the field that differs).

    ``stop_when(engine, last_arrival_ns)`` ends the replay early: it is asked
    between chunks (never inside the per-request loop), with the arrival time
    (ns) of the last request replayed, and may read the engine's
    ``rr_times()``.  Once it returns True the queued background work is booked
    and the result covers the requests replayed so far (``summary["requests"]``);
    with ``stop_when`` given, ``summary["stopped_early"]`` says whether it did.  Baseline's length
    calibration stops its runs this way (:func:`flashrr.reproduce.calibration.baseline_rr_times`).
    """
    from .policies import make_policy  # the built-in schemes, imported by the first run

    config = resolve_config(config)
    chunk_requests = default_chunk_requests() if chunk_requests is None else check_chunk_requests(chunk_requests)
    if engine not in ENGINES:
        raise ValueError(f"engine: expected one of {ENGINES}, got {engine!r}")
    if not isinstance(repeat, (int, np.integer)) or repeat < 1:
        raise ValueError(f"repeat: expected a positive integer, got {repeat!r}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")
    if snapshot is not None and not isinstance(snapshot, str) and not hasattr(snapshot, "__fspath__"):
        raise ValueError(f"snapshot: expected a directory or a .npz path, got {type(snapshot).__name__}")
    spec = trace
    trace = resolve_source(trace, config, progress=progress)
    pol = make_policy(policy, **policy_params)
    config = pol.device_config(config)  # schemes that add dies (Rails, TTFlash) run on their own device
    pol.bind(config, int(seed))
    pol.bind_trace(trace, config)  # policies sized by the trace (HotR's staging space)
    metadata = int(pol.metadata_bytes(config))
    layout = engine_layout(config, metadata)
    top = check_fits(config, trace, spec)
    fill = max(top + 1, int(math.ceil(config.precondition.fill_ratio * config.logical_pages)))
    fill = min(fill, config.logical_pages)
    rng = np.random.default_rng(seed)
    n_warm = int(round(config.precondition.warmup_random_writes_ratio * fill))
    warm = rng.integers(0, fill, size=n_warm, dtype=np.int64) if n_warm and fill else np.zeros(0, np.int64)
    hooks = pol.hooks()
    if engine == "compiled":
        from ._core import load_compiled_engine

        eng = load_compiled_engine()(layout, hooks, seed, check_invariants)
    else:
        from ._core.engine_py import ReferenceEngine

        eng = ReferenceEngine(layout, hooks, seed, check_invariants)
    t0 = time.perf_counter()
    if snapshot is None:
        eng.precondition(fill, warm)
    else:
        _precondition_from_snapshot(eng, snapshot, config, layout, fill, warm, engine, check_invariants, pol, hooks)
    stopped = _replay(eng, trace, int(repeat), chunk_requests, progress, stop_when)
    wall = time.perf_counter() - t0
    if check_invariants:
        eng.check_invariants()
    raw = eng.results()
    extra = {"policy": pol.name, "device": config.name, "trace": trace.name, "seed": int(seed),
             "repeat": int(repeat), "engine": engine, "cache_pages": layout.cache_pages,
             "occupancy": fill / config.logical_pages}
    if stop_when is not None:
        extra["stopped_early"] = stopped
    summary = build_summary(raw["counters"], raw["hist"], metadata, wall, extra, raw["die_busy_ns"], raw["end_ns"],
                            raw["mechanism_counters"], raw["error_model"])
    summary.update(raw["mechanism_counters"])  # adds those of mechanisms a policy declares itself (at the end)
    summary.update(pol.extra_metrics())
    summary["regime_warning"] = regime_warning(summary)  # "" inside every limit (flashrr/regime_warning.py)
    em = raw["error_model"]
    result = Result(summary, raw["hist"], raw["rr_events"], raw["gc_events"], layout.k, raw["block_erases"],
                    em["retry_steps"] if em is not None else None)
    held = weakref.ref(layout)
    del eng, layout, raw, em
    release_engine(held)
    return result


def _precondition_from_snapshot(eng, snapshot, config, layout, fill, warm, engine, check, pol, hooks) -> str:
    """Precondition ``eng`` through ``snapshot`` (a directory or a ``.npz`` file;
    :func:`flashrr.snapshots.precondition_or_restore`)."""
    from ._core.assembly import precondition_acts, snapshot_blockers
    from .snapshots import precondition_or_restore, snapshot_fields
    from .snapshots.key import policy_identity

    acts = bool(precondition_acts(hooks))  # then the key names the policy, and the snapshot holds its mechanisms
    ident = policy_identity(pol) if acts else None

    def fields():
        return snapshot_fields(config, layout, fill, warm, engine, check, eng.device_state(acts), ident)

    return precondition_or_restore(eng, fill, warm, snapshot, fields, snapshot_blockers(hooks), acts)


def release_engine(layout_ref) -> None:
    """Free a finished run's engine now, if dropping it did not.  The compiled engine is freed by
    reference counting (its layers call back into it through weak references); the reference
    engine's layers and mechanisms can refer to each other in a cycle, which would keep the run's
    device-sized arrays until the cyclic garbage collector next runs, so a caller running one
    simulation after another (sweep workers, calibration loops) would hold several runs' states at
    once.  While the engine's layout, ``layout_ref()``, is alive, the young generations are
    collected (about a millisecond), then every generation."""
    if layout_ref() is None:
        return
    gc.collect(1)
    if layout_ref() is not None:
        gc.collect()


__all__ = ["simulate", "EngineError", "InvariantError", "resolve_config", "resolve_trace", "resolve_source"]
