"""The device state preconditioning leaves, gathered from an engine's layers and set
again on a new engine (both engines; flashrr/snapshot saves it to a file).

A state is ``{layer: {field: ndarray or int}}``: the layers' own ``state()`` dicts
(``ftl``, ``reclaim``, and ``error_model``, ``pv``, ``placer`` when the config switches
them on; ``mechanism.<hook>`` for a policy whose mechanisms act during
preconditioning) and ``engine``, the engine's own fields.  A layer that is off is absent."""
from __future__ import annotations

import json

import numpy as np

ENGINE = "engine"


def state_layers(device: dict, mechanisms: dict) -> dict:
    """The device layers, and ``mechanism.<hook>`` for each of ``mechanisms`` (hook ->
    object) that keeps snapshot state."""
    out = dict(device)
    out.update({f"mechanism.{hook}": m for hook, m in mechanisms.items() if hasattr(m, "state")})
    return out


def layer_states(layers: dict, engine_fields: dict) -> dict:
    """``{name: layer.state()}`` of the layers that are on, and ``engine_fields``."""
    out = {name: layer.state() for name, layer in layers.items() if layer is not None}
    out[ENGINE] = dict(engine_fields)
    return out


def restore_layers(layers: dict, state: dict) -> dict:
    """Call ``layer.restore(state[name])`` on each layer that is on; returns the engine's
    fields.  Raises ValueError naming the layer that is on in one and off in the other."""
    for name, layer in layers.items():
        if (layer is None) != (name not in state):
            where = "on in the snapshot but off" if layer is None else "off in the snapshot but on"
            raise ValueError(f"{name}: {where} in this engine")
    extra = sorted(set(state) - set(layers) - {ENGINE})
    if extra:
        raise ValueError(f"{extra[0]}: not a layer of this engine")
    if ENGINE not in state or "n_filled" not in state[ENGINE]:
        raise ValueError(f"{ENGINE}.n_filled: missing")
    for name, layer in layers.items():
        if layer is not None:
            try:
                layer.restore(state[name])
            except KeyError as e:
                raise ValueError(f"{name}.{e.args[0]}: missing") from None
            except TypeError as e:  # a field of the wrong kind (an array for an int, ...)
                raise ValueError(f"{name}: {e}") from None
    return {k: int(v) for k, v in state[ENGINE].items()}


def pack_lists(lists) -> tuple:
    """Lists of ints as ``(values, lengths)``, two int64 arrays (the reference engine's
    free pools and frontiers in a snapshot)."""
    lens = np.array([len(x) for x in lists], dtype=np.int64)
    flat = np.array([v for x in lists for v in x], dtype=np.int64)
    return flat, lens


def unpack_lists(flat, lens) -> list:
    """The lists :func:`pack_lists` packed (ValueError if the lengths do not add up)."""
    lens = np.asarray(lens, dtype=np.int64)
    if lens.ndim != 1 or (lens < 0).any() or int(lens.sum()) != len(flat):
        raise ValueError("lengths do not add up to the values")
    ends = np.cumsum(lens)
    return [[int(v) for v in flat[e - n:e]] for n, e in zip(lens.tolist(), ends.tolist())]


def copied(obj, names) -> dict:
    """Copies of the array attributes ``names`` of a reference-engine layer."""
    return {name: getattr(obj, name).copy() for name in names}


def set_copied(obj, state: dict, names, layer: str) -> None:
    """Copy ``state[name]`` into each array attribute of ``names`` in place (layers share
    some, e.g. the RR thresholds), checking shape and dtype (ValueError names ``layer.name``)."""
    for name in names:
        if name not in state:
            raise ValueError(f"{layer}.{name}: missing")
        src, dst = state[name], getattr(obj, name)
        if src.shape != dst.shape or src.dtype != dst.dtype:
            raise ValueError(f"{layer}.{name}: expected {dst.dtype} {dst.shape}, got {src.dtype} {src.shape}")
        dst[...] = src


def json_array(value) -> np.ndarray:
    """Nested lists of ints (a reference-engine mechanism's pools and frontiers) as the
    bytes of their JSON, a uint8 array a snapshot file holds."""
    return np.frombuffer(json.dumps(value).encode(), dtype=np.uint8).copy()


def json_value(state: dict, name: str, layer: str):
    """The nested lists :func:`json_array` stored as ``state[name]`` (ValueError names ``layer.name``)."""
    if name not in state:
        raise ValueError(f"{layer}.{name}: missing")
    try:
        return json.loads(bytes(np.asarray(state[name], dtype=np.uint8)).decode())
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{layer}.{name}: not a JSON value ({e})") from None
