"""Trace identity for run keys.

* A synthetic trace ``synth:PRESET?name=value&...`` is identified by its
  normalised spec: whitespace around names and values removed, parameters
  sorted by name, no trailing ``?``.  ``synth:lun0?seed=1&n_requests=20000``
  and ``synth:lun0?n_requests=20000&seed=1`` are the same trace.
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

SYNTH_PREFIX = "synth:"
HASH_CHUNK_BYTES = 1 << 20

# Names a synth spec may set besides the SynthParams fields.
_SYNTH_EXTRA_NAMES = ("n_requests", "seed")


def normalize_synth_spec(spec: str) -> str:
    """The canonical form of ``synth:PRESET[?name=value&...]``; ValueError if malformed."""
    if not spec.startswith(SYNTH_PREFIX):
        raise ValueError(f"a synthetic trace spec starts with {SYNTH_PREFIX!r}, got {spec!r}")
    preset, _, query = spec[len(SYNTH_PREFIX):].partition("?")
    preset = preset.strip()
    items: dict[str, str] = {}
    for part in query.split("&"):
        if not part.strip():
            continue
        name, eq, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name or not value:
            raise ValueError(f"synthetic trace parameter {part.strip()!r}: expected name=value")
        if name in items:
            raise ValueError(f"synthetic trace parameter {name!r} is given twice")
        items[name] = value
    query = "&".join(f"{k}={items[k]}" for k in sorted(items))
    return SYNTH_PREFIX + preset + (f"?{query}" if query else "")


def check_synth_spec(normalized: str) -> None:
    """Check a normalised synth spec without generating the trace: it must parse
    (:func:`flashrr.trace.spec.parse_synth_spec`), name a known preset and only known
    parameters.  The values are checked by the generator when a run starts.
    ValueError (a TraceError for a malformed spec) if wrong."""
    from ..trace.spec import parse_synth_spec
    from ..trace.synth import SynthParams
    from ..trace.synth_presets import get_synth_preset

    preset, params = parse_synth_spec(normalized)
    get_synth_preset(preset)
    known = set(SynthParams.names()) | set(_SYNTH_EXTRA_NAMES)
    for name in params:
        if name not in known:
            raise ValueError(f"synthetic trace parameter {name!r} is unknown; expected one of "
                             f"{', '.join(sorted(known))}")


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
    """Identity of each trace target (``{target: kind}``, kind ``synth`` or ``file``)."""
    out = {}
    for target, kind in targets.items():
        out[target] = target if kind == "synth" else cache.identity(Path(target))
    cache.save()
    return out
