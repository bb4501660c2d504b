"""What runs inside a worker process (a local pool process or a Dask worker).

:func:`execute` runs one :class:`~flashrr.sweep.task.RunTask` and returns a
:class:`~flashrr.sweep.task.RunOutcome`; an exception inside the run becomes a
failed outcome carrying the traceback text, so the sweep goes on.

Traces are cached per process: the module-level :class:`TraceCache` keeps the
:data:`TRACE_CACHE_SIZE` most recently used traces (least recently used out
first), keyed by the trace's identity before its pipeline (:func:`base_identity`),
so a worker generates each synthetic or model trace (or opens each trace file's
parse cache) once, holds one copy of it, and reuses it for every run on it,
whatever pipeline the run applies.  A generated trace is held as its requests
(:class:`~flashrr.trace.source.MemorySource`), so the replays of a run do not
generate it again; a trace file is never held in memory: runs stream it from
its parse cache.  The trace's pipeline is applied per run, as streaming stages
over the held trace (``fold`` needs the device).  A sweep's runs come trace by
trace, so the one trace a run needs is all the cache holds by default;
``FLASHRR_SWEEP_TRACE_CACHE`` (an integer) overrides the size; 0 disables the cache.
"""
from __future__ import annotations

import importlib
import os
import signal
import socket
import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import replace

from .task import RunOutcome, RunTask

#: Traces kept per worker process (default; see the module docstring).
TRACE_CACHE_SIZE = 1


class TraceCache:
    """A thread-safe LRU of loaded traces with load/hit counters."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.loads = 0
        self.hits = 0

    def get(self, trace_id: str, target: str):
        """``(source, loaded)``: the trace ``target`` (identity ``trace_id``)
        before its pipeline -- a generated synthetic trace in memory, or a
        trace file's parse cache read in chunks -- and whether it had to be
        loaded now."""
        with self._lock:
            if trace_id in self._items:
                self._items.move_to_end(trace_id)
                self.hits += 1
                return self._items[trace_id], False
            trace = load_base(target)
            self.loads += 1
            if self.size > 0:
                self._items[trace_id] = trace
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            return trace, True

    def info(self) -> dict:
        """Counters of this process's cache: ``loads``, ``hits``, ``cached`` (ids held), ``worker``."""
        with self._lock:
            return {"loads": self.loads, "hits": self.hits, "cached": list(self._items), "worker": worker_id()}

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.loads = self.hits = 0


_CACHE = TraceCache(int(os.environ.get("FLASHRR_SWEEP_TRACE_CACHE", TRACE_CACHE_SIZE)))


def load_base(target: str):
    """The trace ``target`` names, before its pipeline: a generated (synthetic or model) trace as one in-memory
    copy of its requests, a trace file as its streaming parse cache."""
    from ..trace.model import ModelSource
    from ..trace.pipeline import open_base, parse_trace_spec
    from ..trace.source import MemorySource

    source = open_base(parse_trace_spec(target))[0]
    if isinstance(source, ModelSource):  # generated chunk by chunk on every pass: generate once, replay many
        source = MemorySource(source.to_trace())
    return source


def base_identity(trace_id: str, target: str) -> str:
    """The identity of a run's trace before its pipeline's subsets and transformations: ``trace_id`` (the
    canonical spec, see :mod:`flashrr.sweep.identity`) without those keys; the reading options of a trace
    file stay.  Runs of one trace through different pipelines share it, and so one cached copy."""
    from ..trace.pipeline import READING_OPTIONS, parse_trace_spec

    spec = parse_trace_spec(target)
    query = spec.query()
    if not query or not trace_id.endswith(query):
        return trace_id
    head = trace_id[:-len(query) - 1]
    reading = {k: v for k, v in spec.steps.items() if k in ("format", "skip_bad") + READING_OPTIONS}
    kept = replace(spec, steps=reading).query()
    return head + (("&" if "?" in head else "?") + kept if kept else "")


def cached_source(trace_id: str, target: str, device):
    """``(source, loaded)``: the trace ``target`` (identity ``trace_id``) with its pipeline applied for
    ``device``, its base taken from this process's trace cache (see the module docstring), and whether
    the base had to be loaded now."""
    from ..trace.pipeline import apply_pipeline, parse_trace_spec

    base, loaded = _CACHE.get(base_identity(trace_id, target), target)
    return apply_pipeline(parse_trace_spec(target), base, device), loaded


def trace_cache_info() -> dict:
    """This process's trace-cache counters (see :meth:`TraceCache.info`)."""
    return _CACHE.info()


def clear_trace_cache() -> None:
    """Empty this process's trace cache and reset its counters."""
    _CACHE.clear()


def worker_id() -> str:
    """``host:pid`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


#: How often a local pool worker checks that the sweep that started it is still there (s).
PARENT_POLL_S = 1.0


def _exit_with_parent(parent: int) -> None:
    """Watchdog of a local pool worker: exit at once when the sweep process that started
    it is gone.  A parent killed by a signal (SIGTERM, SIGKILL) cannot stop its workers,
    and a worker waiting for its next task, or inside a long run, would outlive it."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(1)


def init_local_worker() -> None:
    """Initializer of local pool processes.  Ctrl-C is left to the parent, which stops
    them; a watchdog thread ends the worker if the parent dies without doing so.  tqdm
    (used by the trace readers) gets a process-local lock instead of its default named
    semaphore, which a worker terminated by the parent could not release (the
    interpreter would then warn about a leaked semaphore at exit)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True,
                     name="flashrr-parent-watchdog").start()
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return
    tqdm.set_lock(threading.RLock())


#: A run that leaves the worker's resident memory this much larger (bytes) is followed by a
#: full collection and, under glibc, a trim of the freed heap (:func:`release_memory`).
RELEASE_GROWTH_BYTES = 256 << 20


def resident_bytes() -> int:
    """This process's resident set size (bytes; 0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def release_memory() -> None:
    """Give a finished run's memory back: collect the cycles left (a run's engine layers and
    trace stages), then, under glibc, return the freed heap to the system (``malloc_trim``),
    so that a worker running one paper-scale run after another does not keep the heap of the
    runs before."""
    import gc

    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the allocator keeps what it keeps
        pass


def execute(task: RunTask) -> RunOutcome:
    """Run one task (imports, trace from the cache, simulate, collect kept artifacts).  A run
    that grew the process by :data:`RELEASE_GROWTH_BYTES` or more is followed by
    :func:`release_memory`, so a worker holds one large run's memory at a time."""
    rss0 = resident_bytes()
    try:
        return _execute(task)
    finally:
        if resident_bytes() - rss0 >= RELEASE_GROWTH_BYTES:
            release_memory()


def _execute(task: RunTask) -> RunOutcome:
    from ..simulate import simulate

    t0 = time.perf_counter()
    loaded = False
    try:
        for mod in task.imports:
            importlib.import_module(mod)
        trace, loaded = cached_source(task.trace_id, task.trace_target, task.device)
        res = simulate(task.device, trace, task.policy, seed=task.seed, engine=task.engine, repeat=task.repeat,
                       snapshot=task.snapshots or None, **task.params)
        artifacts = {}
        if "rr_events" in task.keep:
            artifacts["rr_events"] = res.rr_events
        if "gc_events" in task.keep:
            artifacts["gc_events"] = res.gc_events
        if "hist" in task.keep:
            artifacts["hist"] = {k: v.copy() for k, v in res.hist.items()}
        return RunOutcome(task.key, True, dict(res.summary), artifacts, None, worker_id(), loaded,
                          time.perf_counter() - t0)
    except Exception:
        return RunOutcome(task.key, False, None, {}, traceback.format_exc(), worker_id(), loaded,
                          time.perf_counter() - t0)
