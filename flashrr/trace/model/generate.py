"""Traces generated from a workload model, streamed in chunks.

:class:`ModelSource` is a :class:`~flashrr.trace.source.TraceSource`: it makes
its requests block by block (:data:`~flashrr.trace.model.prepared.BLOCK_REQUESTS`
at a time) and never holds the whole trace, so 10^8 requests need no more memory
than 10^6.  The same model, request count and seed always give the same trace,
whatever the chunk size it is read in.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from ..core import Trace
from ..source import TraceSource, check_chunk_requests, default_chunk_requests
from .prepared import BLOCK_REQUESTS, Prepared, block_uniforms
from .reference import ReferenceGenerator
from .schema import ModelError, WorkloadModel, load_model

__all__ = ["ModelSource", "generate_trace", "compiled_kernel_available", "ENGINES"]

ENGINES = ("auto", "compiled", "reference")


def compiled_kernel_available() -> bool:
    try:
        from . import _kernel  # noqa: F401
    except ImportError:
        return False
    return True


def _make_generator(prep: Prepared, engine: str):
    if engine not in ENGINES:
        raise ModelError(f"model generator engine: expected one of {', '.join(ENGINES)} (got {engine!r})")
    if engine == "reference" or (engine == "auto" and not compiled_kernel_available()):
        return ReferenceGenerator(prep)
    try:
        from ._kernel import Kernel
    except ImportError:
        raise ModelError("the compiled model generator is not built (pip install . compiles it; "
                         "engine='reference' runs the slow pure-Python twin)") from None
    return Kernel(prep)


class ModelSource(TraceSource):
    """The trace of ``n_requests`` requests that ``model`` (a WorkloadModel or a path to its TOML file)
    generates with ``seed``; ``engine`` is ``"auto"`` (compiled when built), ``"compiled"`` or ``"reference"``."""

    def __init__(self, model, n_requests: int | None = None, seed: int = 0, name: str | None = None,
                 engine: str = "auto"):
        if not isinstance(model, WorkloadModel):
            model = load_model(model)
        if n_requests is None:
            n_requests = int(model.source.get("requests", 0)) or None
            if n_requests is None:
                raise ModelError(f"model {model.name!r}: n_requests: give a request count (the model records "
                                 "none of its source)")
        if isinstance(n_requests, bool) or not isinstance(n_requests, (int, np.integer)) or n_requests < 1:
            raise ModelError(f"model {model.name!r}: n_requests: expected a positive integer (got {n_requests!r})")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ModelError(f"model {model.name!r}: seed: expected an integer >= 0 (got {seed!r})")
        if engine not in ENGINES:
            raise ModelError(f"model generator engine: expected one of {', '.join(ENGINES)} (got {engine!r})")
        self.model = model
        self.n_requests = int(n_requests)
        self.seed = int(seed)
        self.engine = engine
        self.name = name or model.name

    def blocks(self) -> Iterator[Trace]:
        """The trace in blocks of BLOCK_REQUESTS requests (the last one shorter)."""
        prep = Prepared(self.model, self.n_requests, self.seed)
        gen = _make_generator(prep, self.engine)
        for b, g0 in enumerate(range(0, self.n_requests, BLOCK_REQUESTS)):
            n = min(BLOCK_REQUESTS, self.n_requests - g0)
            u = block_uniforms(self.seed, b, n)
            t = np.empty(n, dtype=np.int64)
            off = np.empty(n, dtype=np.int64)
            size = np.empty(n, dtype=np.int64)
            w = np.empty(n, dtype=np.uint8)
            gen.fill(g0, u, t, off, size, w)
            yield Trace.trusted(t, off, size, w.view(bool), name=self.name)

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        step = check_chunk_requests(chunk_requests) if chunk_requests is not None else default_chunk_requests()
        pending: list[Trace] = []
        held = 0
        for blk in self.blocks():
            pending.append(blk)
            held += len(blk)
            while held >= step:
                out, pending, held = _take(pending, step)
                yield out
        if held:
            out, _, _ = _take(pending, held)
            yield out


def _take(blocks: list, n: int) -> tuple[Trace, list, int]:
    """The first ``n`` requests of ``blocks`` as one Trace, and the blocks left."""
    taken, left, need = [], [], n
    for b in blocks:
        if need >= len(b):
            taken.append(b)
            need -= len(b)
        elif need > 0:
            taken.append(_slice(b, 0, need))
            left.append(_slice(b, need, len(b)))
            need = 0
        else:
            left.append(b)
    cols = [np.concatenate([getattr(b, c) for b in taken]) if len(taken) > 1 else getattr(taken[0], c)
            for c in ("time_ns", "offset", "size", "is_write")]
    return Trace.trusted(*cols, name=taken[0].name), left, sum(len(b) for b in left)


def _slice(t: Trace, a: int, b: int) -> Trace:
    return Trace.trusted(t.time_ns[a:b], t.offset[a:b], t.size[a:b], t.is_write[a:b], name=t.name)


def generate_trace(model, n_requests: int | None = None, seed: int = 0, name: str | None = None,
                   engine: str = "auto") -> Trace:
    """The whole generated trace in memory (see :class:`ModelSource`)."""
    return ModelSource(model, n_requests, seed, name, engine).to_trace()
