"""Executing runs: in this process, on a local process pool, or on a Dask cluster.

Every backend calls ``handle(task, outcome)`` in the calling thread as each run
finishes, in completion order; the caller writes the outcome to the store at
once.  Tasks are submitted in their given (deterministic) order.

Local pool (:func:`run_local`)
    A ``ProcessPoolExecutor`` (``spawn`` start method) with ``jobs`` workers and
    at most ``jobs`` runs in flight, so the runs lost when a worker dies are
    exactly those in flight.  When a worker dies (killed, ``os._exit``, a crash
    in compiled code) the pool breaks: the runs that finished are kept, the
    runs in flight are put back at the head of the queue with one *strike*,
    and a fresh pool takes over.  A run with a strike is retried alone; if it
    kills its worker again while alone, it is recorded as failed
    (:data:`WORKER_DIED`) and the sweep goes on.  Workers ignore SIGINT; on
    Ctrl-C (KeyboardInterrupt in the parent) the parent terminates them, and a
    worker whose parent is killed outright ends itself within a second
    (``worker.PARENT_POLL_S``).

Dask (:func:`run_dask`)
    Connects a ``distributed.Client`` to an existing scheduler, submits every
    run, and handles results as they complete.  Dask reschedules the runs of a
    worker that dies; a run that keeps killing workers ends as ``KilledWorker``
    and is recorded as failed.  Workers must be able to import flashrr (and the
    spec's ``imports``) and to read trace files at the same absolute paths.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import traceback
import uuid
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable

from .task import RunOutcome, RunTask
from .worker import execute, init_local_worker

Handler = Callable[[RunTask, RunOutcome], None]

WORKER_DIED = ("WorkerDied: the worker process running this run exited abruptly, twice, the second time while "
               "running this run alone (killed by a signal, os._exit, out of memory, or a crash in compiled code; "
               "or, if every run fails so, the workers could not import the script that started the sweep: "
               "a script must start it under `if __name__ == \"__main__\":`)")
IMPORTING_MAIN = ("a sweep was started while a worker process was importing the script that started it: worker "
                  "processes are spawned and each imports the main module, so a script must start sweeps "
                  "(flashrr.sweep, a paper's run, reproduce_all) under `if __name__ == \"__main__\":`")
POLL_S = 0.2  # wake-up period of the waiting parent (s): the longest Ctrl-C waits to be acted on
DASK_CONNECT_TIMEOUT_S = 30


class SweepError(RuntimeError):
    """A sweep that cannot run (e.g. no Dask scheduler at the given address)."""


def check_not_importing_main() -> None:
    """Raise :class:`SweepError` (:data:`IMPORTING_MAIN`) when called while this process is a spawned worker
    still importing the main module: a script that starts a sweep at its top level would otherwise start it
    again in every worker, which then dies on the store's lock and leaves the parent's runs failed."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):  # set by multiprocessing.spawn
        raise SweepError(IMPORTING_MAIN)


def _failed(task: RunTask, error: str) -> RunOutcome:
    return RunOutcome(task.key, False, error=error)


def run_inline(tasks: list, handle: Handler) -> dict:
    """Run every task in this process, one after the other (``jobs=0``; for debugging)."""
    for task in tasks:
        handle(task, execute(task))
    return {"backend": "inline", "pool_restarts": 0}


# ----------------------------------------------------------------------------------------- local pool


class _SafeInterrupts:
    """While active (main thread only), Ctrl-C sets a flag instead of raising
    KeyboardInterrupt anywhere: :meth:`check` raises it at a safe point of the loop,
    never inside ``concurrent.futures`` internals (where it could leave a future's
    lock held and deadlock the pool's shutdown).  A second Ctrl-C raises at once."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def _handler(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self):
        # Only in the main thread, and not where SIGINT is ignored (a background job, nohup).
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False

    def check(self) -> None:
        if self.requested:
            raise KeyboardInterrupt


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=init_local_worker)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's workers now (runs in flight are abandoned)."""
    if hasattr(pool, "terminate_workers"):  # Python >= 3.14
        pool.terminate_workers()
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())  # private, stable since Python 3.2
    for p in procs:
        if p.is_alive():
            p.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _result(fut, task: RunTask):
    """The outcome of a finished future, or None if the run was lost with a broken pool."""
    if fut.cancelled():
        return None
    exc = fut.exception()
    if isinstance(exc, BrokenProcessPool):
        return None
    if exc is not None:  # e.g. the outcome could not be pickled
        return _failed(task, "".join(traceback.format_exception(exc)))
    return fut.result()


def run_local(tasks: list, jobs: int, handle: Handler) -> dict:
    """Run ``tasks`` on a local process pool of ``jobs`` workers (see the module docstring)."""
    queue = deque(tasks)
    strikes: Counter = Counter()
    inflight: dict = {}
    restarts = 0
    pool = None
    interrupts = _SafeInterrupts()
    try:
        interrupts.__enter__()
        while queue or inflight:
            interrupts.check()
            if pool is None:
                pool = _new_pool(jobs)
            while queue and len(inflight) < jobs:
                alone = strikes[queue[0].key] > 0
                if alone and inflight:
                    break
                try:
                    fut = pool.submit(execute, queue[0])
                except BrokenProcessPool:  # a worker died between runs; the futures will say more
                    break
                inflight[fut] = queue.popleft()
                if alone:
                    break
            if not inflight:  # the pool broke while idle: nothing was lost, start a fresh one
                pool.shutdown(wait=True)
                pool = None
                restarts += 1
                continue
            done, _ = wait(inflight, timeout=POLL_S, return_when=FIRST_COMPLETED)
            interrupts.check()
            if not done:
                continue
            was_alone = len(inflight) == 1
            lost = []
            for fut in sorted(done, key=lambda f: inflight[f].index):
                task = inflight.pop(fut)
                outcome = _result(fut, task)
                if outcome is None:
                    lost.append(task)
                else:
                    handle(task, outcome)
            if not lost:
                continue
            # The pool is broken: collect what the other workers finished, retry the rest.
            pool.shutdown(wait=True)
            pool = None
            restarts += 1
            for fut, task in sorted(inflight.items(), key=lambda it: it[1].index):
                outcome = _result(fut, task)
                if outcome is None:
                    lost.append(task)
                else:
                    handle(task, outcome)
            inflight.clear()
            retry = []
            for task in sorted(lost, key=lambda t: t.index):
                if was_alone and strikes[task.key] > 0:
                    handle(task, _failed(task, WORKER_DIED))
                else:
                    strikes[task.key] += 1
                    retry.append(task)
            queue.extendleft(reversed(retry))
    except BaseException:
        if pool is not None:
            _stop_pool(pool)
            pool = None
        raise
    finally:
        interrupts.__exit__()
        if pool is not None:
            pool.shutdown(wait=True)
    return {"backend": "local", "jobs": jobs, "pool_restarts": restarts}


# ----------------------------------------------------------------------------------------------- Dask


def dask_client(address: str):
    """A ``distributed.Client`` of the scheduler at ``address``, or :class:`SweepError`
    saying why there is none."""
    try:
        from distributed import Client
    except ImportError:
        raise SweepError("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
    try:
        return Client(address, set_as_default=False, timeout=DASK_CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as e:
        raise SweepError(f"cannot connect to the Dask scheduler at {address}: {e}") from None


def run_dask(tasks: list, address: str, handle: Handler) -> dict:
    """Run ``tasks`` on the Dask cluster whose scheduler listens at ``address``."""
    client = dask_client(address)
    from distributed import as_completed
    futures: dict = {}
    try:
        tag = uuid.uuid4().hex[:8]
        for task in tasks:
            fut = client.submit(execute, task, key=f"flashrr-run-{task.key}-{tag}", retries=0)
            futures[fut] = task
        for fut in as_completed(list(futures), loop=client.loop):
            task = futures.pop(fut)
            try:
                outcome = fut.result()
            except Exception as e:  # KilledWorker, a lost scheduler connection, ...
                outcome = _failed(task, "".join(traceback.format_exception(e)))
            fut.release()
            handle(task, outcome)
    except BaseException:
        if futures:
            try:
                client.cancel(list(futures))
            except Exception:  # the connection may be gone; the client closes below anyway
                pass
        raise
    finally:
        client.close()
    return {"backend": "dask", "scheduler": address, "pool_restarts": 0}


def default_jobs() -> int:
    """CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class Timer:
    """Wall-clock seconds since creation."""

    def __init__(self):
        self.t0 = time.perf_counter()

    @property
    def elapsed_s(self) -> float:
        return time.perf_counter() - self.t0
