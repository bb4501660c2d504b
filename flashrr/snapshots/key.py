"""The key of a snapshot: the fields that define the device state preconditioning
leaves, and their SHA-256.

The fields are the layout's numbers that preconditioning reads (geometry, lanes,
GC thresholds and pool, RR threshold, placement), digests of the PV tables and of
the error model's config, the fill (pages), the warm-up LPNs (their count and
digest, which stands for the seed that drew them), the engine, the invariant mode,
a digest of the engine's state before preconditioning (so a policy that changes the
new device, e.g. its RR thresholds, gets its own key), and the policy itself only
when its hooks act while the engine preconditions
(:func:`flashrr._core.assembly.precondition_acts`).  Cache size, timing and the
scheduler are not in the key: preconditioning books no time and leaves the cache
empty, so every policy of a comparison whose hooks do not act then shares one
snapshot."""
from __future__ import annotations

import hashlib
import json

import numpy as np

from .._version import __version__

#: Bumped when the saved state changes meaning.
FORMAT = 1

#: Layout fields preconditioning does not read: it books no time and does not touch the cache.
_NOT_READ = frozenset({"cache_pages", "read_allocate", "write_ack_insert", "destage_pages", "scheduler",
                       "channel_gapfill", "t_read_ns", "t_program_ns", "t_erase_ns", "t_xfer_page_ns", "t_dram_ns",
                       "t_retry_ns", "retry_extra_ns", "gc_write_stall", "read_priority", "join_writes",
                       "join_reads", "gc_copyback", "pv", "error_tables"})
#: Layout fields the engine acts on when it is built, before preconditioning: the digest of
#: its initial state (the key's ``initial_state``) holds their effect.
_IN_INITIAL_STATE = frozenset({"gc_reserve_frontier"})
#: Config sections the error model's tables are built from.
_ERROR_SECTIONS = ("error_model", "read_reclaim", "read_retry")


def digest(value) -> str:
    """First 16 hex digits of the SHA-256 of an array (dtype, shape and bytes), of
    nested dicts/lists of arrays and plain values, or of a dataclass's fields."""
    h = hashlib.sha256()
    _feed(h, value)
    return h.hexdigest()[:16]


def _feed(h, value) -> None:
    if isinstance(value, np.ndarray):
        a = np.ascontiguousarray(value)
        h.update(f"a{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    elif isinstance(value, dict):
        h.update(b"d")
        for k in sorted(value):
            h.update(f"{k}=".encode())
            _feed(h, value[k])
    elif isinstance(value, (list, tuple)):
        h.update(f"l{len(value)}".encode())
        for v in value:
            _feed(h, v)
    elif hasattr(value, "__dataclass_fields__"):
        _feed(h, {f: getattr(value, f) for f in value.__dataclass_fields__})
    else:
        h.update(repr(value).encode())


def snapshot_fields(config, layout, fill_pages: int, warmup_lpns, engine: str, check: bool, initial_state: dict,
                    policy_identity: str | None) -> dict:
    """The fields of a snapshot's key (JSON values).  ``initial_state``: the engine's
    ``device_state()`` before preconditioning; ``policy_identity``: the policy's name
    and parameters if its hooks act while the engine preconditions, else None."""
    out = {"format": FORMAT, "flashrr_version": __version__, "engine": engine, "check_invariants": bool(check)}
    for name in layout.__dataclass_fields__:
        if name in _NOT_READ or name in _IN_INITIAL_STATE:
            continue
        v = getattr(layout, name)
        out[name] = digest(v) if isinstance(v, np.ndarray) and name != "retry_steps_ppm" else _plain(v)
    out["pv_tables"] = digest(layout.pv) if layout.pv is not None else None
    cfg = config.to_dict()
    out["error_model"] = digest({s: cfg[s] for s in _ERROR_SECTIONS}) if layout.error_tables is not None else None
    warm = np.ascontiguousarray(warmup_lpns, dtype=np.int64)
    out["fill_pages"] = int(fill_pages)
    out["warmup_writes"] = int(len(warm))
    out["warmup_lpns"] = digest(warm)
    out["policy"] = policy_identity
    out["initial_state"] = digest(initial_state)
    return out


def policy_identity(pol) -> str:
    """A policy's name and parameters, ``name(key=value, ...)`` in key order: the key's
    ``policy`` field for a policy whose hooks act during preconditioning."""
    return f"{pol.name}({', '.join(f'{k}={v!r}' for k, v in sorted(pol.params().items()))})"


def _plain(v):
    if isinstance(v, np.ndarray):
        return [int(x) for x in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return v


def snapshot_key(fields: dict) -> str:
    """First 20 hex digits of the SHA-256 of the canonical JSON of ``fields``."""
    doc = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(doc.encode()).hexdigest()[:20]
