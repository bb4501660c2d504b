"""A snapshot file: one uncompressed ``.npz`` holding each layer's arrays as
``LAYER/FIELD`` and a JSON document ``__meta__`` (the key's fields, the key, and the
layers' integer fields).  It is written to a temporary file in the same directory
and renamed over its final name, so a reader sees either nothing or the whole file.
It is read without pickle."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from ..atomic_file import atomic_open
from .key import snapshot_key

META = "__meta__"


class SnapshotError(ValueError):
    """A snapshot file that is missing, unreadable, or made for another run; the message
    names the file (and the field that differs)."""


def save_snapshot(path, fields: dict, state: dict) -> Path:
    """Write ``state`` (``{layer: {field: ndarray or int}}``) with its key ``fields`` to ``path``."""
    path = Path(path)
    arrays, scalars = {}, {}
    for layer, values in state.items():
        for name, v in values.items():
            if isinstance(v, np.ndarray):
                arrays[f"{layer}/{name}"] = v
            else:
                scalars[f"{layer}/{name}"] = int(v)
    meta = {"fields": fields, "key": snapshot_key(fields), "scalars": scalars}
    arrays[META] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    with atomic_open(path) as f:
        np.savez(f, **arrays)
    return path


def load_snapshot(path, fields: dict) -> dict:
    """The state saved in ``path``, if it was made for ``fields``; SnapshotError naming
    the file (and the first field that differs) otherwise."""
    path = Path(path)
    if not path.is_file():
        raise SnapshotError(f"snapshot {path}: no such file")
    try:
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:  # f closes if np.load raises
            meta = json.loads(bytes(z[META]).decode())
            _check_fields(path, meta, fields)
            state: dict = {}
            for name in z.files:
                if name != META:
                    layer, _, field = name.partition("/")
                    state.setdefault(layer, {})[field] = z[name]
            for name, v in meta.get("scalars", {}).items():
                layer, _, field = name.partition("/")
                state.setdefault(layer, {})[field] = int(v)
    except SnapshotError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, zipfile.BadZipFile) as e:
        raise SnapshotError(f"snapshot {path}: not a readable flashrr snapshot ({type(e).__name__}: {e})") from None
    return state


def _check_fields(path: Path, meta, fields: dict) -> None:
    if not isinstance(meta, dict) or not isinstance(meta.get("fields"), dict):
        raise SnapshotError(f"snapshot {path}: not a flashrr snapshot (no key fields)")
    theirs = meta["fields"]
    for name in list(fields) + [n for n in theirs if n not in fields]:  # digests last: the named fields first
        if name not in theirs or name not in fields or theirs[name] != fields[name]:
            raise SnapshotError(f"snapshot {path} was made for another device state: field {name!r} is "
                                f"{theirs.get(name, '(absent)')!r} in the snapshot and "
                                f"{fields.get(name, '(absent)')!r} in this run")
    if meta.get("key") != snapshot_key(theirs):
        raise SnapshotError(f"snapshot {path}: its key {meta.get('key')!r} does not match its fields (the file "
                            "was altered)")
