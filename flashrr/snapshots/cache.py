"""Preconditioning through a snapshot: restore the device state from a snapshot file,
or precondition and save it into a snapshot directory for the runs that follow.

In a directory, a snapshot is ``<key>.npz``; the process that makes it holds an
exclusive lock (``.<key>.lock``, ``flock``) while it preconditions, so processes
that share the directory (a sweep's workers, Dask workers on one file system) wait
for it and then load the file instead of preconditioning again."""
from __future__ import annotations

import collections
import contextlib
from pathlib import Path

from .file import SnapshotError, load_snapshot, save_snapshot
from .key import snapshot_key

SNAPSHOT_SUFFIX = ".npz"

#: How this process's runs got their device state: "made" (preconditioned, then saved),
#: "loaded", "bypassed" (a policy whose state a snapshot cannot hold), "off" (no snapshot),
#: "cheap" (a warm-up too short to be worth a snapshot, :data:`MIN_WARMUP_SHARE`), and
#: preconditioned without a snapshot kept: "unwritable" (the directory cannot be made or
#: locked), "unsaved" (writing the file failed, e.g. a full disk).
STATS = collections.Counter()

#: A snapshot directory is used only when the warm-up writes at least this share of the
#: fill (or the policy acts in preconditioning).  A sequential fill costs little (the
#: ``shuffler`` preset's 7.3M logical pages: 0.08 CPU s for the whole run), while a restore
#: reads about 10 bytes per flash page and hashes the new engine's state (0.13 CPU s
#: there); random warm-up writes drive GC (a warm-up of 5% of the fill: 0.38 CPU s against
#: 0.13 from the snapshot; 1%: 0.10 against 0.14).
MIN_WARMUP_SHARE = 1 / 32


def snapshot_path(directory, fields: dict) -> Path:
    """Where the snapshot for ``fields`` lives in ``directory``."""
    return Path(directory) / f"{snapshot_key(fields)}{SNAPSHOT_SUFFIX}"


@contextlib.contextmanager
def _locked(path: Path):
    try:
        import fcntl
    except ImportError:  # no flock (Windows): two processes may both precondition; the rename keeps the file whole
        yield
        return
    with open(path.parent / f".{path.stem}.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _restore(eng, path: Path, fields: dict, mechanisms: bool) -> None:
    state = load_snapshot(path, fields)
    try:
        eng.restore_device_state(state, mechanisms)
    except (ValueError, KeyError, TypeError) as e:
        raise SnapshotError(f"snapshot {path}: {e}") from None


def precondition_or_restore(eng, fill_pages: int, warmup_lpns, snapshot, fields, blockers: list,
                            mechanisms: bool = False) -> str:
    """Bring ``eng`` to its preconditioned state; returns how (a :data:`STATS` key).

    ``snapshot``: None (precondition), a ``.npz`` file (restore it; it must exist and
    match), or a directory (restore ``<key>.npz`` if it is there, else precondition and
    save it; a device whose warm-up is below :data:`MIN_WARMUP_SHARE` of the fill just
    preconditions, "cheap").  ``fields``: a callable returning the key's fields (:func:`.key.snapshot_fields`).
    ``blockers``: why the policy's device cannot come from a snapshot
    (:func:`flashrr._core.assembly.snapshot_blockers`: hooks or mechanisms with state a
    snapshot does not hold); then it preconditions (a directory) or is refused (a file).
    ``mechanisms``: the snapshot holds the policy's mechanisms too (they act during
    preconditioning)."""
    how = _precondition_or_restore(eng, fill_pages, warmup_lpns, snapshot, fields, blockers, mechanisms)
    STATS[how] += 1
    return how


def _precondition_or_restore(eng, fill_pages, warmup_lpns, snapshot, fields, blockers, mechanisms) -> str:
    if snapshot is None:
        eng.precondition(fill_pages, warmup_lpns)
        return "off"
    where = Path(snapshot)
    if where.suffix == SNAPSHOT_SUFFIX:
        if blockers:
            raise SnapshotError(f"snapshot {where}: this policy acts while the engine preconditions ({blockers[0]}), "
                                "so its device state cannot come from a snapshot")
        _restore(eng, where, fields(), mechanisms)
        return "loaded"
    if blockers:
        eng.precondition(fill_pages, warmup_lpns)
        return "bypassed"
    if not mechanisms and len(warmup_lpns) < MIN_WARMUP_SHARE * fill_pages:
        eng.precondition(fill_pages, warmup_lpns)
        return "cheap"
    if where.exists() and not where.is_dir():
        raise SnapshotError(f"snapshot directory {where}: not a directory (a snapshot file ends in "
                            f"{SNAPSHOT_SUFFIX})")
    key_fields = fields()  # before preconditioning: they include the new engine's state
    path = snapshot_path(where, key_fields)
    with contextlib.ExitStack() as held:
        try:
            where.mkdir(parents=True, exist_ok=True)
            held.enter_context(_locked(path))
        except OSError:  # a directory this process cannot write (a Dask worker without the store): no snapshot
            eng.precondition(fill_pages, warmup_lpns)
            return "unwritable"
        if path.exists():
            _restore(eng, path, key_fields, mechanisms)
            return "loaded"
        eng.precondition(fill_pages, warmup_lpns)
        try:
            save_snapshot(path, key_fields, eng.device_state(mechanisms))
        except OSError:  # a full disk: this run has its device; the next one preconditions too
            return "unsaved"
        return "made"
