"""Aged-device snapshots: the device state preconditioning leaves (the fill and the
random warm-up writes), saved once and restored by every run that starts from it.

A snapshot is keyed by everything that defines that state (:mod:`.key`), saved as
one ``.npz`` file (:mod:`.file`), and found in a snapshot directory by its key
(:mod:`.cache`).  ``flashrr.simulate(..., snapshot=DIR)`` uses them; docs/model.md,
"Snapshots of the aged device", describes them."""
from .cache import SNAPSHOT_SUFFIX, precondition_or_restore, snapshot_path
from .file import SnapshotError, load_snapshot, save_snapshot
from .key import snapshot_fields, snapshot_key

__all__ = ["SNAPSHOT_SUFFIX", "SnapshotError", "load_snapshot", "precondition_or_restore", "save_snapshot",
           "snapshot_fields", "snapshot_key", "snapshot_path"]
