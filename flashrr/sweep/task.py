"""One run of a sweep (:class:`RunTask`), what a worker sends back
(:class:`RunOutcome`), and the stable run key.

A run key is the first :data:`KEY_HEX_CHARS` hex digits of the SHA-256 of a
canonical JSON document holding everything that determines the run's result:
the device's full config dict, the trace identity, the policy name and its
parameters, the seed, the repeat count, the engine and the flashrr version.
Canonical means sorted keys, no spaces, tuples as lists and NumPy scalars as
Python numbers, so the same run gets the same key in every process, on every
machine and in every later session with the same flashrr version.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Optional

from .._version import __version__
from ..config import SimConfig

#: Hex digits of the SHA-256 kept in a run key (80 bits).
KEY_HEX_CHARS = 20

#: Artifacts a spec may ask to keep besides the one-row summary.
KEEP_CHOICES = ("rr_events", "gc_events", "hist")


def _json_default(value):
    if hasattr(value, "item") and callable(value.item):  # NumPy scalar
        return value.item()
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    if hasattr(value, "__fspath__"):
        return str(value)
    raise TypeError(f"{type(value).__name__} value {value!r} cannot be part of a run key")


def canonical_json(obj: Any) -> str:
    """``obj`` as deterministic JSON (sorted keys, compact, NaN rejected)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, default=_json_default)


def run_key(device: dict, trace_id: str, policy: str, params: dict, seed: int, repeat: int, engine: str,
            version: str = __version__) -> str:
    """The stable key of one run (see the module docstring)."""
    doc = {"flashrr_version": version, "device": device, "trace": trace_id, "policy": policy, "params": params,
           "seed": int(seed), "repeat": int(repeat), "engine": engine}
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()[:KEY_HEX_CHARS]


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run, and the columns that describe it.

    ``trace_target`` is what the worker loads: an absolute file path or a
    normalised ``synth:`` spec.  ``trace_id`` is the identity used in the key
    (the normalised synth spec, or ``sha256:<hex>`` of the file's bytes).
    ``params`` go to the policy constructor; ``key_params`` are the policy's
    full parameters (its defaults overlaid with ``params``), used for the key
    and the ``param_*`` columns.  ``snapshots`` does not change the result, so it
    is not part of the key.
    """

    index: int
    key: str
    trace_source: str
    trace_target: str
    trace_id: str
    device: SimConfig
    policy: str
    params: dict
    key_params: dict
    seed: int
    repeat: int
    engine: str
    keep: tuple = ()
    imports: tuple = ()
    snapshots: str = ""  # directory of aged-device snapshots ("": every run preconditions); not in the key

    def columns(self) -> dict:
        """Columns stored with the run's summary that say which run it was."""
        cols = {
            "trace_source": self.trace_source,
            "trace_id": self.trace_id,
            "policy_name": self.policy,
            "policy_params": canonical_json(self.key_params),
        }
        for name, value in self.key_params.items():
            cols[f"param_{name}"] = value
        cols["device_config"] = canonical_json(self.device.to_dict())
        cols["flashrr_version"] = __version__
        return cols

    def describe(self) -> str:
        """A one-line human description, e.g. for error lists."""
        p = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        pol = f"{self.policy}({p})" if p else self.policy
        return f"{pol} on {self.trace_source} / {self.device.name}, seed {self.seed}"


@dataclass
class RunOutcome:
    """A worker's answer for one run.

    ``ok`` runs carry the ``summary`` dict of :class:`flashrr.result.Result` and
    the kept ``artifacts`` (``rr_events``/``gc_events`` DataFrames, ``hist``
    dict of arrays); failed runs carry ``error`` (traceback text).  ``worker``
    is ``host:pid`` of the process that ran it, ``trace_loaded`` says whether
    that process had to read/generate the trace for this run (False: it came
    from the process's trace cache), ``wall_s`` is the run's wall time in s
    including the trace load.
    """

    key: str
    ok: bool
    summary: Optional[dict] = None
    artifacts: dict = field(default_factory=dict)
    error: Optional[str] = None
    worker: str = ""
    trace_loaded: bool = False
    wall_s: float = 0.0
