"""The rules every configuration section checks its fields with, and the error they
raise (:class:`ConfigError`, whose message names ``section.field`` and the rule).
A section class names itself in ``_section``."""
from __future__ import annotations

import math
from typing import Any


class ConfigError(ValueError):
    """An impossible or inconsistent configuration; the message names the field."""


def _require(cond: bool, where: str, rule: str, value: Any) -> None:
    if not cond:
        raise ConfigError(f"{where}: {rule} (got {value!r})")


def _positive_int(obj, name: str) -> None:
    v = getattr(obj, name)
    _require(isinstance(v, int) and not isinstance(v, bool) and v > 0,
             f"{obj._section}.{name}", "must be a positive integer", v)


def _nonneg_int(obj, name: str) -> None:
    v = getattr(obj, name)
    _require(isinstance(v, int) and not isinstance(v, bool) and v >= 0,
             f"{obj._section}.{name}", "must be a non-negative integer", v)


def _fraction(obj, name: str, lo_open=False, hi_open=True) -> None:
    v = getattr(obj, name)
    ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    if ok:
        ok = (v > 0 if lo_open else v >= 0) and (v < 1 if hi_open else v <= 1)
    lo = "(0" if lo_open else "[0"
    hi = "1)" if hi_open else "1]"
    _require(ok, f"{obj._section}.{name}", f"must be a number in {lo}, {hi}", v)


def _finite(obj, name: str, lo: float, hi: float = math.inf, rule: str = "", lo_open: bool = False) -> None:
    """``obj.name`` is a finite number in [lo, hi] ((lo, hi] with ``lo_open``; ``rule`` says it in the error)."""
    v = getattr(obj, name)
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v <= hi
    ok = ok and (v > lo if lo_open else v >= lo)
    _require(ok, f"{obj._section}.{name}", rule or f"must be a finite number >= {lo}", v)
