"""Trace identity for run keys.

* A synthetic trace ``synth:PRESET?name=value&...`` is identified by its
  normalised spec: whitespace around names and values removed, generator
  parameters sorted by name, then the pipeline keys, no trailing ``?``.  ``synth:lun0?seed=1&n_requests=20000``
  and ``synth:lun0?n_requests=20000&seed=1`` are the same trace.
* A trace pipeline (``?fold=modulo&repeat=8``, see :mod:`flashrr.trace.pipeline`)
  is part of the identity, in canonical form.
* A trace file is identified by ``sha256:<hex>`` of its bytes (as stored,
  compressed or not), so renaming or moving a file keeps its runs, and an
  edited file gets new ones.  Hashing reads the whole file once; the digest is
  remembered in the results store (``trace_hashes.json``) next to the file's
  size and mtime_ns and reused while both are unchanged.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

HASH_CHUNK_BYTES = 1 << 20


def normalize_synth_spec(spec: str) -> str:
    """The canonical form of ``synth:PRESET[?name=value&...]`` (see
    :meth:`flashrr.trace.pipeline.TraceSpec.canonical`); ValueError if malformed."""
    from ..trace.pipeline import SYNTH_PREFIX, parse_trace_spec

    if not isinstance(spec, str) or not spec.startswith(SYNTH_PREFIX):
        raise ValueError(f"a synthetic trace spec starts with {SYNTH_PREFIX!r}, got {spec!r}")
    return parse_trace_spec(spec).canonical()


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(HASH_CHUNK_BYTES):
            h.update(chunk)
    return h.hexdigest()


class TraceHashCache:
    """Digests of trace files remembered in a JSON file, keyed by absolute path and
    valid while the file's size and mtime_ns are unchanged."""

    def __init__(self, path: Path | None):
        self.path = path
        self._data: dict = {}
        self._dirty = False
        if path is not None and path.exists():
            try:
                self._data = json.loads(path.read_text())
            except (OSError, ValueError):
                self._data = {}  # a damaged cache is only a cache: rebuild it

    def identity(self, file: Path) -> str:
        """``sha256:<hex>`` of ``file``, hashing it only if it is new or changed."""
        file = Path(file).resolve()
        st = file.stat()
        entry = self._data.get(str(file))
        if entry and entry.get("size") == st.st_size and entry.get("mtime_ns") == st.st_mtime_ns:
            return entry["id"]
        ident = "sha256:" + file_sha256(file)
        self._data[str(file)] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "id": ident}
        self._dirty = True
        return ident

    def save(self) -> None:
        if self.path is None or not self._dirty:
            return
        from .store import atomic_write_bytes

        atomic_write_bytes(self.path, json.dumps(self._data, indent=1, sort_keys=True).encode())
        self._dirty = False


def trace_identities(targets: dict[str, str], cache: TraceHashCache) -> dict[str, str]:
    """Identity of each trace target (``{target: kind}``, kind ``synth``,
    ``file`` or ``model``): a synth target is its own identity; a file target's
    is the file's ``sha256:<hex>`` followed by its pipeline
    (``?fold=modulo&...``), so two pipelines over one file are two traces; a
    model target's is ``model:sha256:<hex>`` of the model file, its request
    count and seed, and its pipeline."""
    from ..trace.pipeline import parse_trace_spec

    out = {}
    for target, kind in targets.items():
        if kind == "synth":
            out[target] = target
        else:
            spec = parse_trace_spec(target)
            out[target] = spec.canonical(cache.identity(Path(spec.base)))
    cache.save()
    return out
