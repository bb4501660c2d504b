"""``sweep()``: validate a spec, skip the runs already stored, run the rest, and
write each run to the store the moment it finishes.

Resume semantics: a run is done when its summary (and every artifact the spec
keeps) is in the store.  A rerun of the same spec skips the done runs and runs
the others, including the runs that failed last time.  An interruption (Ctrl-C,
a killed worker, a crashed run) loses at most the runs in flight.
"""
from __future__ import annotations

import contextlib
from collections import Counter
import signal
import threading
from dataclasses import dataclass, field, replace

import pandas as pd

from .identity import TraceHashCache, trace_identities
from .progress import Progress
from .runner import Timer, check_not_importing_main, default_jobs, run_dask, run_inline, run_local
from .spec import SweepSpec, load_spec
from .store import ResultStore
from .task import RunOutcome, RunTask


class SweepFailed(RuntimeError):
    """Some runs of a sweep failed.  ``results`` holds the runs that are done,
    ``failures`` one row per failed run (``key``, ``error``, ``traceback``, ...)."""

    def __init__(self, message: str, results: pd.DataFrame, failures: pd.DataFrame):
        super().__init__(message)
        self.results = results
        self.failures = failures


@dataclass
class SweepReport:
    """What one call of :func:`run_sweep` did.

    ``total``: distinct runs in the spec; ``done_before``: already in the store;
    ``ran``: finished now; ``failed``: failed now; ``wall_s``: seconds spent;
    ``trace_loads``: for each worker (``host:pid``), the trace ids it loaded
    (each once, unless its LRU evicted it); ``backend``: details of the backend
    (``pool_restarts`` counts local pools replaced after a worker died).
    """

    total: int = 0
    done_before: int = 0
    ran: int = 0
    failed: int = 0
    wall_s: float = 0.0
    trace_loads: dict = field(default_factory=dict)
    backend: dict = field(default_factory=dict)


@dataclass
class SweepOutcome:
    """``results``: one row per done run of the spec, in the spec's run order;
    ``failures``: one row per failed run; ``tasks``: every run; ``report``."""

    results: pd.DataFrame
    failures: pd.DataFrame
    tasks: list
    report: SweepReport


@contextlib.contextmanager
def _sigint_deferred():
    """Hold back Ctrl-C while a run is being stored, then pass it to the handler that
    was active before (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    except ValueError:  # pragma: no cover - signals unavailable in this interpreter state
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pending and callable(previous):
            previous(signal.SIGINT, None)  # raises KeyboardInterrupt, or sets the runner's stop flag
        elif pending and previous != signal.SIG_IGN:
            raise KeyboardInterrupt


def plan(spec: SweepSpec, store: ResultStore) -> list:
    """The runs of a validated ``spec``, with their keys (hashes new trace files; no run starts)."""
    ids = trace_identities(spec.trace_targets(), TraceHashCache(store.hashes_path))
    return spec.expand(ids)


def check_workers(jobs, scheduler, who: str) -> None:
    """Raise ValueError (naming ``who``) when both local ``jobs`` and a Dask ``scheduler`` are given."""
    if jobs is not None and scheduler is not None:
        raise ValueError(f"{who}: give jobs (local processes) or scheduler (a Dask cluster), not both")


def with_shared_snapshots(todo: list, directory: str) -> list:
    """``todo`` with the snapshot ``directory`` given to the runs that may share an aged
    device: those with the same device, seed and engine as another run of ``todo`` (the
    seed draws the warm-up), and the same trace unless the device fills its whole logical
    space (the fill covers at least the trace's highest page).  A run on an aged device of
    its own preconditions without one, since nothing would load the file."""
    def aged(t: RunTask):
        whole = t.device.precondition.fill_ratio >= 1.0
        return (None if whole else t.trace_id), t.device, t.seed, t.engine

    count = Counter(aged(t) for t in todo)
    return [replace(t, snapshots=directory) if count[aged(t)] > 1 else t for t in todo]


def run_sweep(spec, out, jobs: int | None = None, scheduler: str | None = None, progress: bool = True, *,
              base_dir=None, snapshots: bool = True) -> SweepOutcome:
    """Run every run of ``spec`` that ``out`` does not hold yet; see :func:`sweep`.

    Raises :class:`~flashrr.sweep.spec.SpecError` before any run for an invalid
    spec, ``StoreError`` if another sweep is writing to ``out``, ``SweepError``
    when called in a spawned worker that is still importing the main module (a
    script that starts a sweep outside ``if __name__ == "__main__":``), and
    ``KeyboardInterrupt`` after stopping the workers when interrupted.
    """
    return run_sweeps([spec], out, jobs, scheduler, progress, base_dir=base_dir, snapshots=snapshots)[0]


def run_sweeps(specs: list, out, jobs: int | None = None, scheduler: str | None = None, progress: bool = True, *,
               base_dir=None, snapshots: bool = True) -> list:
    """Run every run of each spec of ``specs`` that ``out`` does not hold yet, all on one set of
    workers: a run of a later spec starts as soon as a worker is free, not once the spec before
    has finished, and a run that two specs share runs once.  Returns one :class:`SweepOutcome`
    per spec, in order (their ``report`` is the whole call's).  Raises as :func:`run_sweep`."""
    check_workers(jobs, scheduler, "sweep")
    check_not_importing_main()
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0):
        raise ValueError(f"sweep: jobs must be a non-negative integer (0 = run in this process), got {jobs!r}")
    loaded = [load_spec(s, base_dir=base_dir) for s in specs]
    timer = Timer()
    store = ResultStore(out, create=True)
    report = SweepReport()
    with store.lock():
        per_spec = [plan(s, store) for s in loaded]
        todo, distinct = _union_todo(per_spec, store)
        if snapshots:  # runs that start from the same aged device share its snapshot in the store
            todo = with_shared_snapshots(todo, str(store.snapshots.resolve()))
        report.total, report.done_before = distinct, distinct - len(todo)
        bar = Progress(report.total, report.done_before, enabled=progress)

        def handle(task: RunTask, outcome: RunOutcome) -> None:
            with _sigint_deferred():
                if outcome.ok:
                    try:
                        store.write_success(task, outcome)
                    except Exception as e:  # a result the store cannot hold fails its run, not the sweep
                        outcome = replace(outcome, ok=False,
                                          error=f"storing the result failed: {type(e).__name__}: {e}")
                if outcome.ok:
                    report.ran += 1
                else:
                    store.write_failure(task, outcome.error or "unknown error")
                    report.failed += 1
            if outcome.trace_loaded:
                report.trace_loads.setdefault(outcome.worker, []).append(task.trace_id)
            bar.update(outcome.ok)

        try:
            if todo:
                if scheduler is not None:
                    report.backend = run_dask(todo, scheduler, handle)
                elif jobs == 0:
                    report.backend = run_inline(todo, handle)
                else:
                    report.backend = run_local(todo, min(jobs or default_jobs(), len(todo)), handle)
        finally:
            bar.close()
            report.wall_s = timer.elapsed_s
    outcomes = []
    for tasks in per_spec:
        keys = [t.key for t in tasks]
        outcomes.append(SweepOutcome(store.load(keys), store.errors(keys), tasks, report))
    return outcomes


def _union_todo(per_spec: list, store: ResultStore) -> tuple[list, int]:
    """``(todo, distinct)``: the runs of the specs' task lists that ``store`` does not hold yet, each
    once (a run several specs have keeps every artifact any of them keeps), numbered in order; and
    how many distinct runs the specs have."""
    first: dict = {}
    for tasks in per_spec:
        for t in tasks:
            have = first.get(t.key)
            if have is None:
                first[t.key] = t
            elif not set(t.keep) <= set(have.keep):
                first[t.key] = replace(have, keep=have.keep + tuple(k for k in t.keep if k not in have.keep))
    todo = [t for t in first.values() if not store.is_done(t.key, t.keep)]
    return [replace(t, index=i) for i, t in enumerate(todo)], len(first)


def sweep(spec_or_path, out, jobs: int | None = None, scheduler: str | None = None, progress: bool = True, *,
          base_dir=None, snapshots: bool = True) -> pd.DataFrame:
    """Run a parameter sweep and return its results, one row per run.

    ``spec_or_path``: a sweep spec (a ``.toml`` path or a dict of the same
    structure, see ``docs/sweeps.md``); relative paths in a dict spec resolve
    against ``base_dir`` (default: the working directory).  ``out``: the
    results directory; runs already stored there are not run again.
    ``jobs``: local worker processes (default: the CPUs available; 0 runs in
    this process); ``scheduler``: address of an existing Dask scheduler
    (``tcp://host:port``) to run on instead.  ``progress``: show a progress
    bar on stderr.  ``snapshots``: runs that start from the same aged device take it
    from one snapshot in ``out/snapshots`` (:mod:`flashrr.snapshots`; same results)
    instead of each preconditioning it.

    Returns the rows of :func:`~flashrr.sweep.store.load_results` for this
    spec's runs, in the spec's run order.  Raises :class:`SweepFailed` (after
    every run has been tried) if any run failed; its ``results`` attribute
    still holds the done runs.
    """
    outcome = run_sweep(spec_or_path, out, jobs=jobs, scheduler=scheduler, progress=progress, base_dir=base_dir,
                        snapshots=snapshots)
    if len(outcome.failures):
        first = outcome.failures.iloc[0]
        raise SweepFailed(f"{len(outcome.failures)} of {outcome.report.total} runs failed (details in "
                          f"{ResultStore(out).runs}/<key>.error.json); first: {first['description']}: "
                          f"{first['error']}", outcome.results, outcome.failures)
    return outcome.results
