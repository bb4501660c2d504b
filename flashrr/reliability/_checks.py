"""Argument checks shared by the reliability modules; a failure raises
:class:`flashrr.config.ConfigError` naming the field and what it expected."""
from __future__ import annotations

import math

import numpy as np

from ..config import ConfigError


def finite_nonneg(where: str, value) -> float:
    """A finite number >= 0 (a scalar parameter)."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value < 0:
        raise ConfigError(f"{where}: must be a finite number >= 0 (got {value!r})")
    return float(value)


def finite_positive(where: str, value) -> float:
    """A finite number > 0 (a scalar parameter)."""
    v = finite_nonneg(where, value)
    if v <= 0:
        raise ConfigError(f"{where}: must be a finite number > 0 (got {value!r})")
    return v


def positive_int(where: str, value) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"{where}: must be a positive integer (got {value!r})")
    return int(value)


def state_array(where: str, value, unit: str) -> np.ndarray:
    """An array of a block or page state (P/E cycles, seconds, reads): finite and >= 0."""
    arr = np.asarray(value, dtype=np.float64)
    if arr.size and (not np.all(np.isfinite(arr)) or np.any(arr < 0)):
        bad = float(arr[~(np.isfinite(arr) & (arr >= 0))].ravel()[0])
        raise ConfigError(f"{where}: must be finite and >= 0 ({unit}) (got {bad!r})")
    return arr


def one_of(where: str, value, choices) -> None:
    if value not in choices:
        raise ConfigError(f"{where}: must be one of {tuple(choices)} (got {value!r})")
