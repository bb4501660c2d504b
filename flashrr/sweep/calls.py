"""Independent calls spread over the workers a sweep would use.

:func:`call_each` runs ``fn(item)`` for every item, in this process, on a local
pool of ``jobs`` processes (``spawn``, the sweep workers' initializer) or on the
Dask cluster at ``scheduler``, and yields ``(item, result)`` as each call
finishes.  It is for work that is not a stored sweep run but splits the same way,
such as a paper's load calibration: one bisection of simulations per trace, each
trace independent of the others.

With a pool or a cluster, ``fn`` and the items must pickle (a module-level
function, or a ``functools.partial`` of one).  The first call that raises ends
the others (cancelled or, on a local pool, terminated) and its exception is
raised here; so does Ctrl-C, at the next poll (:data:`~flashrr.sweep.runner.POLL_S`).
"""
from __future__ import annotations

import uuid
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Callable, Iterable, Iterator

from .runner import POLL_S, _new_pool, _SafeInterrupts, _stop_pool, dask_client, default_jobs


def call_each(fn: Callable, items: Iterable, jobs: int | None = 1, scheduler: str | None = None) -> Iterator[tuple]:
    """``(item, fn(item))`` for every item: in order in this process when ``jobs`` is 0
    or 1 (or there is one item) and no ``scheduler``; else in completion order, on
    ``min(jobs, len(items))`` local processes (``jobs`` None: the CPUs available, as a
    sweep's) or on the Dask cluster at ``scheduler``."""
    items = list(items)
    jobs = default_jobs() if jobs is None else jobs
    if scheduler is not None:
        yield from _on_dask(fn, items, scheduler)
    elif jobs > 1 and len(items) > 1:
        yield from _on_pool(fn, items, min(jobs, len(items)))
    else:
        for item in items:
            yield item, fn(item)


def _on_pool(fn: Callable, items: list, jobs: int) -> Iterator[tuple]:
    pool = _new_pool(jobs)
    interrupts = _SafeInterrupts()
    pending = {}
    try:
        interrupts.__enter__()
        pending = {pool.submit(fn, item): i for i, item in enumerate(items)}
        while pending:
            done, _ = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            interrupts.check()
            for fut in sorted(done, key=pending.get):
                yield items[pending.pop(fut)], fut.result()
    except BaseException:
        _stop_pool(pool)
        raise
    finally:
        interrupts.__exit__()
        if not pending:
            pool.shutdown(wait=True)


def _on_dask(fn: Callable, items: list, address: str) -> Iterator[tuple]:
    client = dask_client(address)
    from distributed import as_completed
    tag = uuid.uuid4().hex[:8]
    futures = {}
    try:
        futures = {client.submit(fn, item, key=f"flashrr-call-{i}-{tag}", pure=False): item
                   for i, item in enumerate(items)}
        for fut in as_completed(list(futures), loop=client.loop):
            item = futures.pop(fut)
            result = fut.result()
            fut.release()
            yield item, result
    finally:
        if futures:
            try:
                client.cancel(list(futures))
            except Exception:  # the connection may be gone; the client closes below anyway
                pass
        client.close()
