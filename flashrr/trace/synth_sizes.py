"""Request sizes of the synthetic trace generator: the size distribution of a given
mean and spread (:func:`_size_pmf`), draws from it, and the address space extents
of those sizes occupy (:func:`expected_slot_bytes`).  Sizes are counted in size
units (``size_unit_bytes``), extents occupy whole alignment slots (``align_bytes``)."""
from __future__ import annotations

import math

import numpy as np

from .synth_params import KiB, MiB


def _size_pmf(mean_units: float, cv: float, max_units: int) -> np.ndarray:
    """Probabilities of sizes 1..max_units (in size units) with mean exactly ``mean_units``.

    The shape is a log-normal of mean ``mean_units`` and coefficient of variation
    ``cv``, rounded stochastically to a neighbouring integer (a value x becomes
    floor(x) or floor(x) + 1 with the probabilities that keep its mean), so even
    a narrow shape keeps the exact mean.  Values below 1 or above ``max_units``
    are clipped to those ends; an exponential tilt then restores the mean.
    """
    k = np.arange(1, max_units + 1, dtype=np.float64)
    if max_units == 1 or mean_units <= 1.0:
        return _point_mass(0, max_units)
    if mean_units >= max_units:
        return _point_mass(max_units - 1, max_units)
    sigma = math.sqrt(math.log1p(cv * cv))
    if sigma < 1e-6:  # no spread: the two multiples of the unit around the mean
        lo = int(math.floor(mean_units))
        pmf = np.zeros(max_units)
        frac = mean_units - lo
        pmf[lo - 1] = 1.0 - frac
        if frac:
            pmf[lo] = frac
        return pmf
    mu = math.log(mean_units) - sigma * sigma / 2
    x = np.arange(0, max_units + 2, dtype=np.float64)  # integer points 0 .. max_units + 1

    # Beyond exp(mu + 12 sigma) the shape has no mass left (P < 1e-32): only the points below need erfc.
    n_live = int(np.searchsorted(x, math.exp(min(mu + 12 * sigma, 700.0)), side="right"))

    def phi(z):  # standard normal CDF at z (one value per point of x); 0 at x = 0, 1 beyond the live points
        out = np.ones(x.size)
        out[0] = 0.0
        out[1:n_live] = [0.5 * math.erfc(-zi / math.sqrt(2)) for zi in z[1:n_live]]
        return out

    with np.errstate(divide="ignore"):
        log_x = np.log(x)
    cdf = phi((log_x - mu) / sigma)  # P(X <= x)
    moment = mean_units * phi((log_x - mu - sigma * sigma) / sigma)  # E[X; X <= x]
    d_cdf, d_moment = np.diff(cdf), np.diff(moment)  # per interval [j, j + 1], j = 0 .. max_units
    j = x[:-1]
    from_below = d_moment - j * d_cdf  # E[X - j; j < X <= j + 1]: mass rounded up to j + 1
    from_above = (j + 1) * d_cdf - d_moment  # mass of [j, j + 1] rounded down to j
    base = from_below[:-1] + from_above[1:]  # sizes 1 .. max_units
    base[0] += from_above[0]  # values below 1 are clipped to 1
    base[-1] += max(0.0, 1.0 - cdf[-2])  # values above max_units are clipped to max_units
    base = np.maximum(base, 0.0)
    base /= base.sum()
    # Exponential tilting p_k ~ base_k * exp(theta * k), over the sizes that have mass, corrects the mean
    # moved by clipping; the mean is increasing in theta, so bisect (60 halvings of [-50, 50] reach double
    # precision; theta = +-50 per unit pushes all the mass to one end of the support).
    support = np.flatnonzero(base > 0)
    ks, log_base = k[support], np.log(base[support])
    lo_t, hi_t = -50.0, 50.0
    for _ in range(60):
        theta = 0.5 * (lo_t + hi_t)
        if float(_tilted(log_base, ks, theta) @ ks) < mean_units:
            lo_t = theta
        else:
            hi_t = theta
    pmf = np.zeros(max_units)
    pmf[support] = _tilted(log_base, ks, 0.5 * (lo_t + hi_t))
    # If the tilt could not reach the mean exactly, mix in the end point on the other side.
    got = float(pmf @ k)
    if got > mean_units:
        pmf = _mix(pmf, 0, (got - mean_units) / (got - 1.0))
    elif got < mean_units:
        pmf = _mix(pmf, max_units - 1, (mean_units - got) / (max_units - got))
    return pmf


def _mix(pmf: np.ndarray, index: int, weight: float) -> np.ndarray:
    out = pmf * (1.0 - weight)
    out[index] += weight
    return out


def _tilted(log_base: np.ndarray, k: np.ndarray, theta: float) -> np.ndarray:
    log_p = log_base + theta * (k - 1)
    w = np.exp(log_p - log_p.max())
    return w / w.sum()


def _point_mass(index: int, n: int) -> np.ndarray:
    pmf = np.zeros(n)
    pmf[index] = 1.0
    return pmf


def _draw_units(rng, pmf: np.ndarray, n: int) -> np.ndarray:
    """``n`` sizes in units (1-based) drawn from ``pmf``."""
    cdf = np.cumsum(pmf)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, rng.random(n), side="right").astype(np.int64) + 1


def _slot_count(units: np.ndarray, unit: int, align: int) -> np.ndarray:
    """Alignment slots occupied by extents of ``units`` size units each."""
    per_slot = align // unit
    return -(-units // per_slot)


def _slots_per_touched_byte(pmf: np.ndarray, unit: int, align: int, page: int) -> float:
    """Expected slot bytes over expected touched bytes (pages of ``page`` bytes) of one extent."""
    sizes = np.arange(1, pmf.size + 1)
    return float(pmf @ _slot_count(sizes, unit, align)) * align / (float(pmf @ _slot_count(sizes, unit, page)) * page)


def expected_slot_bytes(mean_bytes: float, cv: float = 1.0, unit: int = 4 * KiB, max_bytes: int = 1 * MiB,
                        align: int = 8 * KiB) -> float:
    """Mean address space, in bytes, that one extent occupies (its size rounded up to ``align``)."""
    max_units = max_bytes // unit
    pmf = _size_pmf(mean_bytes / unit, cv, max_units)
    slots = _slot_count(np.arange(1, max_units + 1), unit, align)
    return float(pmf @ slots) * align
