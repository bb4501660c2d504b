"""NumPy arrays that hold the compiled layers' state (the layers keep C pointers into them)."""
import numpy as np


def owned_array(keep: dict, name: str, n: int, dtype, fill=0) -> np.ndarray:
    """A new array of ``n`` elements (at least one, so ``.data`` is a valid pointer)
    filled with ``fill``, stored in ``keep[name]`` so it lives as long as its owner."""
    b = np.full(max(int(n), 1), fill, dtype=dtype)
    keep[name] = b
    return b
