"""Helpers shared by the trace tests: hand-made traces whose structure is known by
construction, the chunks of a streaming stage joined, and a field-by-field comparison of
workload models, and the mark of tests that need the compiled model generator.  (Hypothesis
strategies are in strategies.py.)"""
from __future__ import annotations

import collections
import dataclasses
import math

import numpy as np
import pytest

from flashrr.trace.core import Trace
from flashrr.trace.model import compiled_kernel_available
from flashrr.trace.model.schema import RUN_BUCKETS
from flashrr.trace.source import concat_chunks

UNIT = 4096
MIB = 1 << 20
#: for the tests that run the compiled model generator by name
needs_kernel = pytest.mark.skipif(not compiled_kernel_available(),
                                  reason="the compiled model generator (flashrr/trace/model/_kernel) is not built")


def make_trace(offsets, is_write=None, size=512, gaps=1000, name="hand") -> Trace:
    """A trace of the given starts; ``gaps`` is one gap (ns) or one per request after the first."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n = offsets.size
    w = np.zeros(n, dtype=bool) if is_write is None else np.asarray(is_write, dtype=bool)
    g = np.full(max(n - 1, 0), gaps, dtype=np.int64) if np.isscalar(gaps) else np.asarray(gaps, dtype=np.int64)
    t = np.concatenate([[0], np.cumsum(g)])
    sizes = np.full(n, size, dtype=np.int64) if np.isscalar(size) else np.asarray(size, dtype=np.int64)
    return Trace(t, offsets, sizes, w, name=name)


# sequential runs and their heads
HEAD_BYTES, RUN_STEP_BYTES, SINGLE_BYTES = 2 * UNIT, 3 * UNIT, UNIT
REGION_UNITS = MIB // UNIT


def run_bucket(j: int) -> int:
    """The bucket of a continuation that is the j-th of its run (j >= 1): b with 2**b <= j < 2**(b + 1), the
    last bucket taking everything above.  The run length a continuation reaches counts the continuations of
    its run up to it, the head not included, so the first continuation is in bucket 0."""
    b = 0
    while b < RUN_BUCKETS - 1 and j >= 2 << b:
        b += 1
    return b


def runs_trace(lengths, singles: dict, n_writes: int, seed: int) -> tuple[Trace, list, set]:
    """Reads: one run per entry of ``lengths``, a head of 8 KiB at the first unit of a 1 MiB region and then
    that many continuations of 12 KiB, each starting where the previous one ended; runs are laid out one
    after another, each from the first region boundary past the end of the previous one (plus 0-2 regions),
    so a run may spill into the next regions but no head starts where anything ended.  ``singles[k]`` reads
    of 4 KiB in region k past the last run region + 4 (even units, a unit each).  The runs and single reads
    are shuffled, each run's requests staying consecutive among the reads, and ``n_writes`` writes of 4 KiB
    (even units of regions of their own) are spread among them.  No unit is the start of two requests:
    nothing is a re-access.

    Returns the trace, per request its class ("head", "single", "write", or j for the j-th continuation of
    its run), and the regions the run heads start in."""
    rng = np.random.default_rng(seed)
    items, head_regions, cursor = [], set(), 0
    for n_cont in lengths:
        head_regions.add(cursor // REGION_UNITS)
        unit = cursor
        run = [(unit * UNIT, HEAD_BYTES, "head")]
        unit += HEAD_BYTES // UNIT
        for j in range(1, n_cont + 1):
            run.append((unit * UNIT, RUN_STEP_BYTES, j))
            unit += RUN_STEP_BYTES // UNIT
        items.append(run)
        cursor = (unit // REGION_UNITS + 1 + int(rng.integers(0, 3))) * REGION_UNITS
    base = cursor // REGION_UNITS + 4
    for k, count in singles.items():
        units = (base + k) * REGION_UNITS + 2 * rng.choice(REGION_UNITS // 2, size=count, replace=False)
        items += [[(int(u) * UNIT, SINGLE_BYTES, "single")] for u in units]
    reads = [req for i in rng.permutation(len(items)) for req in items[i]]
    write_base = (base + max(singles) + 2) * REGION_UNITS
    writes = [((write_base + 2 * int(u)) * UNIT, UNIT, "write") for u in rng.permutation(n_writes)]
    is_write = np.zeros(len(reads) + n_writes, dtype=bool)
    is_write[rng.choice(is_write.size, size=n_writes, replace=False)] = True
    ri, wi = iter(reads), iter(writes)
    rows = [next(wi) if w else next(ri) for w in is_write]
    trace = make_trace([r[0] for r in rows], is_write, size=[r[1] for r in rows])
    return trace, [r[2] for r in rows], head_regions


def joined_chunks(stage, chunk):
    """The chunks a streaming ``stage`` yields, ``chunk`` requests at a time (none empty), joined into one trace."""
    parts = list(stage.chunks(chunk))
    assert all(0 < len(p) for p in parts)
    return concat_chunks(parts, stage.name)


def assert_models_equal(a, b, path: str = "model", rel_tol: float | None = None) -> None:
    """Field by field: arrays equal in shape, dtype and every value; tuples, dicts and scalars equal.
    With ``rel_tol``, float values (array or scalar) need only agree to that relative tolerance
    (1e-12 absolute near 0)."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), path
        assert a.shape == b.shape and a.dtype == b.dtype, (path, a.shape, b.shape, a.dtype, b.dtype)
        if rel_tol is not None and a.dtype.kind == "f":
            assert np.allclose(a, b, rtol=rel_tol, atol=1e-12), (path, np.flatnonzero(~np.isclose(
                a.ravel(), b.ravel(), rtol=rel_tol, atol=1e-12))[:5])
        else:
            assert np.array_equal(a, b), (path, np.flatnonzero(a.ravel() != b.ravel())[:5])
    elif dataclasses.is_dataclass(a):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            assert_models_equal(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", rel_tol)
    elif isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_models_equal(x, y, f"{path}[{i}]", rel_tol)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (path, set(a) ^ set(b))
        for k in a:
            assert_models_equal(a[k], b[k], f"{path}[{k!r}]", rel_tol)
    elif rel_tol is not None and isinstance(a, float):
        assert type(a) is type(b) and math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12), (path, a, b)
    else:
        assert type(a) is type(b) and a == b, (path, a, b)


def lru_hits(keys, capacity: int) -> int:
    """Hits of an LRU cache of ``capacity`` entries fed ``keys``, simulated directly."""
    cache, hits = collections.OrderedDict(), 0
    for k in keys:
        if k in cache:
            hits += 1
            cache.move_to_end(k)
        else:
            cache[k] = True
            if len(cache) > capacity:
                cache.popitem(last=False)
    return hits
