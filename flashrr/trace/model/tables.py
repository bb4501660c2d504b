"""Small numeric pieces shared by the model's fit, its generators and its file format.

* Quantile tables: a distribution kept as its values at the probabilities
  ``0, 1/K, ..., 1``; a draw ``u`` in [0, 1) interpolates linearly between the
  two neighbouring knots in ``log1p`` space (so a table of gaps or sizes that
  spans decades interpolates geometrically).  Repeated knots hold atoms.
* Alias tables (Vose's method) for O(1) draws from a discrete distribution.
* ``splitmix64``: the 64-bit mixing function that makes per-region hot spots
  and per-unit sizes persistent without storing them.

The generators (compiled and reference) do exactly the arithmetic written in
:func:`draw_log1p` and :func:`hash01`; the tests check that they agree bit for bit.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["QUANTILE_KNOTS", "quantile_table", "draw_log1p", "alias_table", "splitmix64", "hash01", "MASK64",
           "cdf_lookup"]

#: Knots of a quantile table by default (257 values at p = 0, 1/256, ..., 1).
QUANTILE_KNOTS = 256
MASK64 = (1 << 64) - 1


def quantile_table(values, knots: int = QUANTILE_KNOTS, weights=None) -> np.ndarray:
    """The ``knots + 1`` quantiles of ``values`` at ``p = i / knots`` (float64).

    ``weights`` (optional, same length) weight each value.  Empty input gives an
    empty table.  Quantiles are taken as the value at or above each probability
    (the inverse of the empirical CDF, no interpolation), so an atom holding a
    share s of the mass fills about ``s * knots`` knots exactly.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return np.zeros(0)
    order = np.argsort(v, kind="stable")
    v = v[order]
    w = np.ones(v.size) if weights is None else np.asarray(weights, dtype=np.float64)[order]
    cum = np.cumsum(w)
    cum /= cum[-1]
    p = np.arange(knots + 1) / knots
    idx = np.minimum(np.searchsorted(cum, p, side="left"), v.size - 1)
    out = v[idx]
    out[0] = v[0]
    return out


def draw_log1p(log_table: np.ndarray, u: float) -> float:
    """A draw from a quantile table given as ``log1p(values)``; ``u`` in [0, 1)."""
    k = log_table.shape[0] - 1
    pos = u * k
    i = int(math.floor(pos))
    if i >= k:
        i = k - 1
    f = pos - i
    return math.expm1(log_table[i] + f * (log_table[i + 1] - log_table[i]))


def alias_table(weights) -> tuple[np.ndarray, np.ndarray]:
    """Vose's alias table of ``weights`` (non-negative, positive sum): ``(prob, alias)``.

    A draw ``u`` in [0, 1) picks ``k = floor(u * n)`` and keeps it when
    ``u * n - k < prob[k]``, else takes ``alias[k]``.
    """
    w = np.asarray(weights, dtype=np.float64)
    n = w.size
    scaled = w * (n / w.sum())
    prob = np.ones(n)
    alias = np.arange(n, dtype=np.int64)
    small = [i for i in range(n) if scaled[i] < 1.0]
    large = [i for i in range(n) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s] = scaled[s]
        alias[s] = g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    return prob, alias


def splitmix64(x: int) -> int:
    """The splitmix64 finaliser of ``x`` (a 64-bit unsigned integer)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def hash01(key: int) -> float:
    """``splitmix64(key)`` as a float in [0, 1) (its top 53 bits)."""
    return (splitmix64(key) >> 11) * (1.0 / (1 << 53))


def cdf_lookup(pmf, entries: int = 256) -> np.ndarray:
    """The inverse CDF of a pmf over ``0 .. len(pmf) - 1`` at ``(j + 0.5) / entries`` (int64 indices)."""
    c = np.cumsum(np.asarray(pmf, dtype=np.float64))
    c /= c[-1]
    return np.minimum(np.searchsorted(c, (np.arange(entries) + 0.5) / entries, side="right"), len(c) - 1)
