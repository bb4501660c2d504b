"""A generative model of process variation in 3D TLC NAND latencies.

The paper (Tseng et al., "Are Superpages Super-fast?") reports measured
program latencies per logical word line (LWL) and erase latencies per block,
but not the data.  This model produces such data with the structure the paper
describes, and its parameters are calibrated (:mod:`flashrr.pv.calibrate`) so
that the assembly methods' extra latencies land near the paper's Tables I, II
and V.  All latencies are in **µs**.

Program latency of die ``d``, plane ``p``, in-plane block ``i``, layer ``l``,
string ``s`` after ``n`` P/E cycles, before quantization::

    T0 * f_p(n)                     nominal one-shot TLC program, worn
    + layer_amp * (|l - c| / c)^2   common layer profile (V-shaped channel)
    + die_layer(d, l)               die-specific layer profile, AR(1) over l
    + die(d) + plane(d, p)          die and plane offsets
    + block * z(d, p, i)            block speed factor, AR(1) over i
    + id_profile(d, i, l)           shared by blocks of the same index i on all
                                    planes of a die (what Sequential exploits)
    + own_profile(d, p, i, l)       the block's own layer profile
    + string * T[k(d,p,i)](g(l), s) string-pattern class k of die d, layer group g
    + noise * eps                   per-LWL noise, redrawn at every P/E point

then rounded to a multiple of ``q_us`` (the paper's Fig. 9 values lie on a
6.1435 µs grid).  The three layer profiles are centred over layers and the
string templates over strings, so a block's latency sum tracks ``z``.

Erase latency::

    E0 * f_e(n) + ers_plane(d, p) + ers_id(d, i)
      + ers * (rho * z + sqrt(1 - rho^2) * eta(d, p, i))

(erase correlates with the program speed factor ``z``), rounded to ``qe_us``
when that is positive.  P/E drift: ``f_p(n) = 1 - kappa_p * n/3000 * (1 +
nu_p * xi)``, ``f_e(n) = 1 + kappa_e * n/3000 * (1 + nu_e * xi')``, with
per-block wear factors ``xi``, ``xi'`` correlated with ``z`` (``rho_wear``).
The drift is not quantified by the paper: it is an assumption.

Randomness: every die draws from its own stream (``seed``, die), so die ``d``
is the same whatever the number of dies generated; the per-LWL noise and the
wear-independent structure (including the die's string-pattern templates) is
fixed per die, the per-LWL noise is redrawn per P/E point from the stream
(``seed``, die, ``pe``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from .latencies import Latencies

PE_MAX = 3000
# Stream ids of the per-die random draws (fixed: changing them changes every model).
_STRUCT, _NOISE, _TEMPLATES = 1, 2, 3


@dataclass(frozen=True)
class PVParams:
    """Parameters of the generative model (µs unless stated; ``phi_*`` are AR(1)
    coefficients in [0, 1); ``sigma_*`` standard deviations)."""

    layers: int = 96
    strings: int = 4
    t0_us: float = 1665.0
    layer_amp_us: float = 40.0
    layer_center: float = 60.0
    sigma_die_layer_us: float = 10.0
    phi_die_layer: float = 0.9
    sigma_die_us: float = 6.0
    sigma_plane_us: float = 3.75
    sigma_block_us: float = 7.2
    phi_block: float = 0.5
    sigma_id_us: float = 8.87
    phi_id: float = 0.95
    sigma_own_us: float = 3.65
    phi_own: float = 0.95
    sigma_string_us: float = 9.65
    string_groups: int = 8
    string_class_probs: tuple = (0.5, 0.3, 0.2)
    sigma_noise_us: float = 10.05
    q_us: float = 6.1435
    e0_us: float = 3500.0
    sigma_ers_us: float = 19.7
    rho_ers: float = 0.85
    sigma_ers_plane_us: float = 2.5
    sigma_ers_id_us: float = 3.0
    phi_ers: float = 0.0
    qe_us: float = 0.0
    kappa_p: float = 0.03
    kappa_e: float = 0.10
    nu_p: float = 0.01
    nu_e: float = 0.005
    rho_wear: float = 0.3

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "string_class_probs":
                p = np.asarray(v, dtype=float)
                if p.ndim != 1 or p.size == 0 or (p < 0).any() or not np.isclose(p.sum(), 1.0):
                    raise ValueError(f"PVParams.string_class_probs: expected probabilities summing to 1, got {v!r}")
                object.__setattr__(self, f.name, tuple(float(x) for x in p))
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
                raise ValueError(f"PVParams.{f.name}: expected a finite number, got {v!r}")
            if f.name in ("layers", "strings", "string_groups"):
                if int(v) != v or v < 1:
                    raise ValueError(f"PVParams.{f.name}: expected a positive integer, got {v!r}")
            elif f.name.startswith("phi_"):
                if not 0 <= v < 1:
                    raise ValueError(f"PVParams.{f.name}: expected a number in [0, 1), got {v!r}")
            elif f.name.startswith("rho_"):
                if not -1 <= v <= 1:
                    raise ValueError(f"PVParams.{f.name}: expected a correlation in [-1, 1], got {v!r}")
            elif v < 0 and f.name not in ("kappa_p", "kappa_e"):
                raise ValueError(f"PVParams.{f.name}: expected a non-negative number, got {v!r}")
        if self.layer_center <= 0:
            raise ValueError(f"PVParams.layer_center: expected a positive layer index, got {self.layer_center!r}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["string_class_probs"] = list(self.string_class_probs)
        return d

    def replace(self, **changes) -> "PVParams":
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise ValueError(f"PVParams: unknown parameter(s) {sorted(unknown)}")
        return replace(self, **changes)


def ar1(rng: np.random.Generator, shape: tuple, phi: float) -> np.ndarray:
    """Stationary unit-variance AR(1) series along the last axis of ``shape``."""
    from scipy.signal import lfilter

    e = rng.standard_normal(shape)
    if phi == 0:
        return e
    e[..., 0] /= np.sqrt(1.0 - phi * phi)
    return lfilter([np.sqrt(1.0 - phi * phi)], [1.0, -phi], e, axis=-1)


def _centred(x: np.ndarray) -> np.ndarray:
    return x - x.mean(axis=-1, keepdims=True)


def quantize(x: np.ndarray, q: float) -> np.ndarray:
    """``x`` rounded to the nearest multiple of ``q`` (unchanged if ``q <= 0``)."""
    return np.round(x / q) * q if q > 0 else x


@dataclass(frozen=True)
class DieStructure:
    """The wear- and noise-independent draws of one die (µs; planes ``P``, blocks ``N``)."""

    base: np.ndarray  # (P, N, L, S): every program term except T0, noise and wear
    z: np.ndarray  # (P, N) block speed factor, unit variance
    ers_base: np.ndarray  # (P, N): erase offsets + correlated spread (without E0)
    xi_p: np.ndarray  # (P, N) program wear factor
    xi_e: np.ndarray  # (P, N) erase wear factor


class PVModel:
    """Latencies of ``dies`` dies with ``planes`` planes of ``blocks`` blocks each,
    drawn from :class:`PVParams` with ``seed``.  ``latencies(pe)`` gives the
    :class:`~flashrr.pv.latencies.Latencies` at ``pe`` P/E cycles."""

    def __init__(self, params: PVParams | None = None, dies: int = 24, planes: int = 4, blocks: int = 400,
                 seed: int = 0):
        for name, v in (("dies", dies), ("planes", planes), ("blocks", blocks)):
            if isinstance(v, bool) or int(v) != v or v < 1:
                raise ValueError(f"PVModel.{name}: expected a positive integer, got {v!r}")
        if isinstance(seed, bool) or int(seed) != seed or seed < 0:
            raise ValueError(f"PVModel.seed: expected a non-negative integer, got {seed!r}")
        self.params = params or PVParams()
        self.dies, self.planes, self.blocks, self.seed = int(dies), int(planes), int(blocks), int(seed)
        self._structures: dict[int, DieStructure] = {}

    # ------------------------------------------------------------------ draws
    def string_templates(self, d: int) -> np.ndarray:
        """(K, G, S) string-pattern templates of die ``d``, unit variance, centred over strings."""
        p = self.params
        rng = np.random.default_rng([self.seed, _TEMPLATES, d])
        return _centred(rng.standard_normal((len(p.string_class_probs), p.string_groups, p.strings)))

    def layer_profile(self) -> np.ndarray:
        """The common layer profile, µs, shape ``(L,)``."""
        p = self.params
        layer = np.arange(p.layers)
        return p.layer_amp_us * (np.abs(layer - p.layer_center) / p.layer_center) ** 2

    def structure(self, d: int) -> DieStructure:
        """The fixed draws of die ``d`` (cached)."""
        if d not in self._structures:
            self._structures[d] = self._draw_structure(d)
        return self._structures[d]

    def _draw_structure(self, d: int) -> DieStructure:
        p = self.params
        P, N, L, S = self.planes, self.blocks, p.layers, p.strings
        rng = np.random.default_rng([self.seed, _STRUCT, d])
        die_layer = p.sigma_die_layer_us * ar1(rng, (L,), p.phi_die_layer)
        die = p.sigma_die_us * rng.standard_normal()
        plane = p.sigma_plane_us * rng.standard_normal(P)
        z = ar1(rng, (P, N), p.phi_block)
        id_profile = p.sigma_id_us * _centred(ar1(rng, (N, L), p.phi_id))
        own = p.sigma_own_us * _centred(ar1(rng, (P, N, L), p.phi_own))
        cls = rng.choice(len(p.string_class_probs), size=(P, N), p=p.string_class_probs)
        group = np.minimum(np.arange(L) * p.string_groups // L, p.string_groups - 1)
        strings = p.sigma_string_us * self.string_templates(d)[cls][:, :, group, :]  # (P, N, L, S)
        layer_terms = self.layer_profile() + die_layer  # (L,)
        block_terms = die + plane[:, None] + p.sigma_block_us * z  # (P, N)
        base = (layer_terms[None, None, :, None] + block_terms[:, :, None, None]
                + (id_profile[None] + own)[..., None] + strings)
        eta = ar1(rng, (P, N), p.phi_ers)
        ers_plane = p.sigma_ers_plane_us * rng.standard_normal(P)
        ers_id = p.sigma_ers_id_us * rng.standard_normal(N)
        r = p.rho_ers
        ers_base = ers_plane[:, None] + ers_id[None, :] + p.sigma_ers_us * (r * z + np.sqrt(1 - r * r) * eta)
        w = p.rho_wear
        xi_p = w * z + np.sqrt(1 - w * w) * rng.standard_normal((P, N))
        xi_e = w * z + np.sqrt(1 - w * w) * rng.standard_normal((P, N))
        return DieStructure(base, z, ers_base, xi_p, xi_e)

    # ------------------------------------------------------------------ output
    def die_latencies(self, d: int, pe: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """``(tprog_us (P, N, L, S), tbers_us (P, N))`` of die ``d`` at ``pe`` P/E cycles."""
        if not 0 <= d < self.dies:
            raise ValueError(f"PVModel: die {d} out of range [0, {self.dies})")
        if isinstance(pe, bool) or int(pe) != pe or pe < 0:
            raise ValueError(f"PVModel: pe must be a non-negative integer P/E count, got {pe!r}")
        p = self.params
        st = self.structure(d)
        wear = pe / PE_MAX
        f_p = 1.0 - p.kappa_p * wear * (1.0 + p.nu_p * st.xi_p)  # (P, N)
        f_e = 1.0 + p.kappa_e * wear * (1.0 + p.nu_e * st.xi_e)
        rng = np.random.default_rng([self.seed, _NOISE, d, int(pe)])
        noise = p.sigma_noise_us * rng.standard_normal(st.base.shape)
        tprog = quantize(p.t0_us * f_p[:, :, None, None] + st.base + noise, p.q_us)
        tbers = quantize(p.e0_us * f_e + st.ers_base, p.qe_us)
        return tprog, tbers

    def latencies(self, pe: int = 0, dies=None) -> Latencies:
        """All dies (or the listed ones) at ``pe`` P/E cycles."""
        ids = range(self.dies) if dies is None else dies
        parts = [self.die_latencies(d, pe) for d in ids]
        return Latencies(np.stack([a for a, _ in parts]), np.stack([b for _, b in parts]), int(pe))
