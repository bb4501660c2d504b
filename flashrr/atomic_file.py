"""Files that readers see whole or not at all: written to a hidden temporary file in
the same directory, then renamed over their final name (``os.replace``)."""
from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path


@contextlib.contextmanager
def atomic_open(path):
    """A binary file to write ``path`` through: on leaving the block it is flushed, synced
    and renamed to ``path``; on an error it is removed and ``path`` is left as it was."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"
    try:
        with open(tmp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
