"""NumPy arrays that hold the compiled layers' state (the layers keep C pointers into them)."""
import numpy as np


def owned_array(keep: dict, name: str, n: int, dtype, fill=0) -> np.ndarray:
    """A new array of ``n`` elements (at least one, so ``.data`` is a valid pointer)
    filled with ``fill``, stored in ``keep[name]`` so it lives as long as its owner."""
    b = np.full(max(int(n), 1), fill, dtype=dtype)
    keep[name] = b
    return b


def saved_arrays(keep: dict, names) -> dict:
    """Copies of ``keep[name]`` for each of ``names``: a layer's state for a snapshot."""
    return {name: keep[name].copy() for name in names}


def restore_arrays(keep: dict, state: dict, names, layer: str) -> None:
    """Copy ``state[name]`` into ``keep[name]`` in place (the layer's C pointers stay valid).
    Raises ValueError naming ``layer.name`` if one is missing or its shape or dtype differs."""
    for name in names:
        if name not in state:
            raise ValueError(f"{layer}.{name}: missing")
        src = state[name]
        dst = keep[name]
        if src.shape != dst.shape or src.dtype != dst.dtype:
            raise ValueError(f"{layer}.{name}: expected {dst.dtype} {dst.shape}, got {src.dtype} {src.shape}")
        dst[...] = src
