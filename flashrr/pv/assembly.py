"""The ten superblock assembly methods of the paper, by name.

Every method takes the latencies of one die (``P`` planes of ``N`` blocks) and
returns ``N`` superblocks, each one block from every plane, every block used
exactly once.  The common frame of the windowed methods (paper §IV-A):

* each plane's free blocks form a *sorted list*, by block program latency sum
  (BLK PGM LTN) ascending, ties by in-plane index;
* the window is the first ``min(W, left)`` blocks of every list; every
  combination of one block per plane is scored; the lowest cost wins (ties:
  the lexicographically first combination, i.e. the faster blocks); the
  chosen blocks leave their lists, the rest of the window stays.

==============  ====================================================================
``random``      independent seeded permutation per plane; superblock j = j-th of each
``sequential``  superblock j = block j of every plane (same in-plane index)
``ers_ltn``     sort each plane by erase latency; superblock j = j-th of each
``pgm_ltn``     sort each plane by block program latency sum; j-th of each
``optimal``     windowed (W=8); cost = extra program latency of the combination
``lwl_rank``    windowed (W=8); cost = sum of pair Hamming distances of LWL ranks
``pwl_rank``    windowed (W=8); per-string layer ranks
``str_rank``    windowed (W=8; the paper's Table II: 2/4/6/8); per-layer string ranks
``str_med``     windowed (W=4); per-layer top-2 bits, distance = popcount(XOR)
``qstr_med``    PV Check (W=4): anchor = fastest list head (or slowest tail), one
                pick per other plane among its first (last) W blocks by popcount
==============  ====================================================================

Similarity checks per superblock: ``nominal`` is the paper's count for full
windows (Optimal W^P combinations; rank and STR-MED W^P combinations x C(P,2)
pair distances; QSTR-MED (P-1) x W), ``actual`` what the run did as the lists
run short at the end.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from typing import Callable

import numpy as np

from . import features as F
from .latencies import Latencies


# ------------------------------------------------------------------------------------- frames
def windowed_select(pools: list, window: int, cost: Callable) -> tuple[list, int]:
    """One windowed pick.  ``pools[p]`` is plane ``p``'s sorted list (mutated:
    the chosen blocks are removed); ``cost(windows)`` scores every combination of
    the windows (``windows[p]`` = the first ``min(window, len)`` ids of plane
    ``p``) as an array of shape ``(len(windows[0]), ..., len(windows[P-1]))``.
    Returns (the chosen id per plane, combinations scored)."""
    wins = [pool[:window] for pool in pools]
    c = np.asarray(cost(wins))
    idx = np.unravel_index(int(np.argmin(c)), c.shape)  # argmin: first minimum in C order
    chosen = [wins[p][i] for p, i in enumerate(idx)]
    for p, i in enumerate(idx):
        pools[p].pop(int(i))
    return chosen, int(c.size)


def pair_sum_cost(wins: list, pair_distance: Callable) -> np.ndarray:
    """Sum over plane pairs ``p < q`` of ``pair_distance(p, wins[p], q, wins[q])``
    (an array ``(len_p, len_q)``), broadcast to one value per combination."""
    P = len(wins)
    total = np.zeros(tuple(len(w) for w in wins), dtype=np.int64)
    for p in range(P):
        for q in range(p + 1, P):
            d = np.asarray(pair_distance(p, wins[p], q, wins[q]))
            shape = [1] * P
            shape[p], shape[q] = d.shape
            total = total + d.reshape(shape)
    return total


def qstr_select(pools: list, key: Callable, distance: Callable, window: int, slow: bool) -> tuple[list, int]:
    """One QSTR-MED pick (PV Check, paper §V-C).  ``pools[p]``: plane ``p``'s
    sorted list (fastest first; mutated).  ``key(p, id)``: block program latency
    sum.  ``distance(p, id, q, ids)``: eigen distances from block ``id`` of plane
    ``p`` to blocks ``ids`` of plane ``q``.  Fast: the anchor is the fastest list
    head (ties: lower plane); each other plane offers its first ``window`` blocks.
    Slow: the slowest tail anchors; candidates are the last ``window`` blocks,
    slowest first.  Per plane the candidate nearest the anchor wins (ties: the
    first candidate).  Returns (chosen id per plane, distances computed)."""
    ends = [pool[-1] if slow else pool[0] for pool in pools]
    sums = np.array([key(p, b) for p, b in enumerate(ends)], dtype=float)
    a = int(np.argmax(sums) if slow else np.argmin(sums))
    chosen, checks = [None] * len(pools), 0
    chosen[a] = pools[a].pop(-1 if slow else 0)
    for q, pool in enumerate(pools):
        if q == a:
            continue
        cands = pool[::-1][:window] if slow else pool[:window]
        d = np.asarray(distance(a, chosen[a], q, cands))
        j = int(np.argmin(d))
        checks += len(cands)
        chosen[q] = cands[j]
        pool.remove(cands[j])
    return chosen, checks


# --------------------------------------------------------------------------------- one die
class DieData:
    """The latencies of one die and its features, computed on first use
    (``tprog`` µs ``(P, N, L, S)``, ``tbers`` µs ``(P, N)``)."""

    def __init__(self, tprog: np.ndarray, tbers: np.ndarray):
        self.tprog, self.tbers = tprog, tbers
        self.P, self.N = tbers.shape
        self.lwl = tprog.reshape(self.P, self.N, -1)
        self._cache: dict = {}

    def feature(self, name: str, fn: Callable):
        if name not in self._cache:
            self._cache[name] = fn()
        return self._cache[name]

    @property
    def block_sum(self) -> np.ndarray:
        return self.feature("block_sum", lambda: F.block_sum(self.tprog))

    def sorted_pools(self, by: str = "pgm") -> list:
        """Per plane, in-plane block indices sorted by ``pgm`` (block sum), ``ers``
        (erase latency) or ``index``, ascending, ties by index."""
        if by == "index":
            return [list(range(self.N)) for _ in range(self.P)]
        key = {"pgm": self.block_sum, "ers": self.tbers}[by]
        return [np.argsort(key[p], kind="stable").tolist() for p in range(self.P)]


@dataclass
class DieAssembly:
    members: np.ndarray  # (n_sb, P) in-plane block index per plane
    checks: np.ndarray  # (n_sb,) similarity checks actually run
    slow: np.ndarray  # (n_sb,) bool, True for QSTR-MED slow superblocks


def _sorted_rows(die: DieData, by: str) -> DieAssembly:
    pools = die.sorted_pools(by)
    members = np.array(pools, dtype=np.int64).T
    return DieAssembly(members, np.zeros(die.N, np.int64), np.zeros(die.N, bool))


def _windowed(die: DieData, window: int, cost: Callable, source: str = "pgm", per_combination: int = 1) -> DieAssembly:
    """Windowed picks until the lists are empty; ``per_combination``: checks per
    scored combination (C(P, 2) pair distances for the pairwise methods)."""
    pools = die.sorted_pools(source)
    rows, checks = [], []
    while pools[0]:
        chosen, n = windowed_select(pools, window, cost)
        rows.append(chosen)
        checks.append(n * per_combination)
    return DieAssembly(np.array(rows, np.int64), np.array(checks, np.int64), np.zeros(len(rows), bool))


def _check_window(window) -> int:
    if isinstance(window, bool) or int(window) != window or window < 1:
        raise ValueError(f"window: expected a positive integer, got {window!r}")
    return int(window)


# ------------------------------------------------------------------------------- methods
def random_method(die: DieData, rng: np.random.Generator) -> DieAssembly:
    members = np.stack([rng.permutation(die.N) for _ in range(die.P)], axis=1)
    return DieAssembly(members, np.zeros(die.N, np.int64), np.zeros(die.N, bool))


def sequential_method(die: DieData, rng=None) -> DieAssembly:
    return _sorted_rows(die, "index")


def ers_ltn_method(die: DieData, rng=None) -> DieAssembly:
    return _sorted_rows(die, "ers")


def pgm_ltn_method(die: DieData, rng=None) -> DieAssembly:
    return _sorted_rows(die, "pgm")


OPTIMAL_OBJECTIVES = ("extra_pgm", "extra_ers", "pgm_ers")


def _combination_spread(values: list) -> np.ndarray:
    """``values[p]``: ``(len_p, ...)`` per-candidate arrays of plane ``p`` ->
    max - min over planes for every combination, shape ``(len_0, ..., len_{P-1}, ...)``."""
    P = len(values)
    hi = lo = None
    for p, v in enumerate(values):
        shape = [1] * P + list(v.shape[1:])
        shape[p] = v.shape[0]
        v = v.reshape(shape)
        hi = v if hi is None else np.maximum(hi, v)
        lo = v if lo is None else np.minimum(lo, v)
    return hi - lo


def optimal_method(die: DieData, rng=None, window: int = 8, objective: str = "extra_pgm",
                   source: str = "sorted") -> DieAssembly:
    """Brute force over the window: ``objective`` ``extra_pgm`` (default: the
    paper's "minimal program latency" read as minimal extra program latency),
    ``extra_ers`` or ``pgm_ers`` (their sum, µs); ``source`` ``sorted`` (the
    window slides over the block-sum sorted lists) or ``index``."""
    window = _check_window(window)
    if objective not in OPTIMAL_OBJECTIVES:
        raise ValueError(f"optimal: objective must be one of {OPTIMAL_OBJECTIVES}, got {objective!r}")
    if source not in ("sorted", "index"):
        raise ValueError(f"optimal: source must be 'sorted' or 'index', got {source!r}")
    # Integer grid steps (int8 when they fit) keep the (W^P x LWL) spread tensors small and exact when the
    # latencies are quantized; otherwise float32 sums (rounding < 1e-3 µs per superblock).
    lwl = die.lwl
    step = _grid_step(lwl)
    if step:
        grid = np.round((lwl - lwl.min()) / step)
        grid = grid.astype(np.int8 if grid.max() <= np.iinfo(np.int8).max else np.int16)
    else:
        grid, step = lwl.astype(np.float32), 1.0

    def cost(wins):
        total = 0.0
        if objective != "extra_ers":
            spread = _combination_spread([grid[p][w] for p, w in enumerate(wins)])
            total = spread.sum(axis=-1, dtype=np.int32 if spread.dtype.kind == "i" else np.float64) * step
        if objective != "extra_pgm":
            total = total + _combination_spread([die.tbers[p][w] for p, w in enumerate(wins)])
        return total

    return _windowed(die, window, cost, "pgm" if source == "sorted" else "index")


def _grid_step(x: np.ndarray) -> float:
    """The quantization step of ``x`` if all values lie on a grid of at most 32,000
    steps from the minimum (1e-6 relative tolerance), else 0."""
    vals = np.unique(x)
    if vals.size < 2:
        return 0.0
    q = float(np.diff(vals).min())
    k = (vals - vals[0]) / q
    if q <= 0 or k[-1] > 32_000 or np.abs(k - np.round(k)).max() > 1e-6 * max(1.0, k[-1]):
        return 0.0
    return q


_SIGNATURES = {
    "lwl_rank": F.lwl_rank,
    "pwl_rank": F.pwl_rank,
    "str_rank": F.str_rank,
}


def _rank_method(name: str):
    def method(die: DieData, rng=None, window: int = 8, tie: str = "ordinal") -> DieAssembly:
        window = _check_window(window)
        sig = die.feature(f"{name}:{tie}", lambda: _SIGNATURES[name](die.tprog, tie))
        return _windowed(die, window, lambda wins: pair_sum_cost(
            wins, lambda p, a, q, b: F.hamming(sig[p][a][:, None], sig[q][b][None])), per_combination=comb(die.P, 2))

    method.__name__ = f"{name}_method"
    method.__doc__ = f"Windowed; cost = sum of pair Hamming distances of the {name} signatures (tie rule ``tie``)."
    return method


EIGEN_RULES = ("top2", "above_mean")


def _eigen(die: DieData, rule: str) -> np.ndarray:
    if rule not in EIGEN_RULES:
        raise ValueError(f"eigen rule must be one of {EIGEN_RULES}, got {rule!r}")
    fn = F.str_med_bits if rule == "top2" else F.str_med_above_mean_bits
    return die.feature(f"eigen:{rule}", lambda: F.pack(fn(die.tprog)))


def str_med_method(die: DieData, rng=None, window: int = 4, eigen: str = "top2") -> DieAssembly:
    window = _check_window(window)
    bits = _eigen(die, eigen)
    return _windowed(die, window, lambda wins: pair_sum_cost(
        wins, lambda p, a, q, b: F.popcount_distance(bits[p][a][:, None], bits[q][b][None])),
        per_combination=comb(die.P, 2))


QSTR_MODES = ("fast", "slow", "alternate")


def qstr_med_method(die: DieData, rng=None, window: int = 4, mode: str = "fast", eigen: str = "top2") -> DieAssembly:
    """PV Check.  ``mode``: every request ``fast`` (default, the paper's tables),
    every request ``slow``, or ``alternate`` (fast, slow, fast, ...)."""
    window = _check_window(window)
    if mode not in QSTR_MODES:
        raise ValueError(f"qstr_med: mode must be one of {QSTR_MODES}, got {mode!r}")
    bits = _eigen(die, eigen)
    pools = die.sorted_pools("pgm")
    bsum = die.block_sum
    rows, checks, slow = [], [], []
    while pools[0]:
        is_slow = mode == "slow" or (mode == "alternate" and len(rows) % 2 == 1)
        chosen, n = qstr_select(pools, lambda p, b: bsum[p, b],
                                lambda p, a, q, c: F.popcount_distance(bits[p][a], bits[q][c]), window, is_slow)
        rows.append(chosen)
        checks.append(n)
        slow.append(is_slow)
    return DieAssembly(np.array(rows, np.int64), np.array(checks, np.int64), np.array(slow, bool))


# ------------------------------------------------------------------------------ registry
@dataclass(frozen=True)
class Method:
    """An assembly method: ``fn(die, rng, **params)``, its default parameters,
    and its per-block metadata (bytes) and nominal checks per superblock."""

    name: str
    fn: Callable
    defaults: dict = field(default_factory=dict)
    signature_bytes: Callable = lambda n_lwl, n_layers: 0
    nominal_checks: Callable = lambda P, W: 0
    label: str = ""

    def metadata_bytes(self, n_lwl: int = 384, n_layers: int = 96) -> int:
        """Bytes kept per block: the signature and, for every sorting method, the
        4-byte key of its sorted list (QSTR-MED: 4 + 48 = 52, the paper's Eq. 2)."""
        return int(self.signature_bytes(n_lwl, n_layers))

    def unique_pair_distances(self, P: int, W: int) -> int:
        """Distinct pair distances per full window (a memoizing implementation's count)."""
        return comb(P, 2) * W * W if self.name in PAIRWISE else 0


BLOCK_SUM_BYTES = 4  # one 32-bit integer (the paper's Eq. 2)


def _bits_bytes(bits: int) -> int:
    return -(-bits // 8)


PAIRWISE = ("lwl_rank", "pwl_rank", "str_rank", "str_med")

METHODS: dict[str, Method] = {
    "random": Method("random", random_method, label="Random"),
    "sequential": Method("sequential", sequential_method, label="Sequential"),
    "ers_ltn": Method("ers_ltn", ers_ltn_method, signature_bytes=lambda n, l: BLOCK_SUM_BYTES, label="ERS-LTN"),
    "pgm_ltn": Method("pgm_ltn", pgm_ltn_method, signature_bytes=lambda n, l: BLOCK_SUM_BYTES, label="PGM-LTN"),
    "optimal": Method("optimal", optimal_method, {"window": 8, "objective": "extra_pgm", "source": "sorted"},
                      signature_bytes=lambda n, l: 4 * n + BLOCK_SUM_BYTES,
                      nominal_checks=lambda P, W: W ** P, label="Optimal"),
    "lwl_rank": Method("lwl_rank", _rank_method("lwl_rank"), {"window": 8, "tie": "ordinal"},
                       signature_bytes=lambda n, l: 2 * n + BLOCK_SUM_BYTES,
                       nominal_checks=lambda P, W: W ** P * comb(P, 2), label="LWL-rank"),
    "pwl_rank": Method("pwl_rank", _rank_method("pwl_rank"), {"window": 8, "tie": "ordinal"},
                       signature_bytes=lambda n, l: n + BLOCK_SUM_BYTES,
                       nominal_checks=lambda P, W: W ** P * comb(P, 2), label="PWL-rank"),
    "str_rank": Method("str_rank", _rank_method("str_rank"), {"window": 8, "tie": "ordinal"},
                       signature_bytes=lambda n, l: _bits_bytes(2 * n) + BLOCK_SUM_BYTES,
                       nominal_checks=lambda P, W: W ** P * comb(P, 2), label="STR-rank"),
    "str_med": Method("str_med", str_med_method, {"window": 4, "eigen": "top2"},
                      signature_bytes=lambda n, l: _bits_bytes(n) + BLOCK_SUM_BYTES,
                      nominal_checks=lambda P, W: W ** P * comb(P, 2), label="STR-MED"),
    "qstr_med": Method("qstr_med", qstr_med_method, {"window": 4, "mode": "fast", "eigen": "top2"},
                       signature_bytes=lambda n, l: _bits_bytes(n) + BLOCK_SUM_BYTES,
                       nominal_checks=lambda P, W: (P - 1) * W, label="QSTR-MED"),
}


def method(name: str) -> Method:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown assembly method {name!r}; expected one of {list(METHODS)}") from None


def method_params(name: str, params: dict) -> dict:
    """The method's defaults updated with ``params`` (unknown names are an error)."""
    m = method(name)
    unknown = set(params) - set(m.defaults)
    if unknown:
        raise ValueError(f"{name}: unknown parameter(s) {sorted(unknown)}; "
                         f"it takes {sorted(m.defaults) or 'none'}")
    return {**m.defaults, **params}


# --------------------------------------------------------------------------- front end
@dataclass
class Assembly:
    """Superblocks of every die: ``members[d, j, p]`` is the in-plane block index
    of plane ``p`` in superblock ``j`` of die ``d`` (in assembly order);
    ``checks[d, j]`` the similarity checks run for it; ``slow[d, j]`` True for a
    QSTR-MED slow superblock.  ``wall_s``: assembly time including features."""

    method: str
    params: dict
    members: np.ndarray
    checks: np.ndarray
    slow: np.ndarray
    wall_s: float
    pe: int = 0

    @property
    def dies(self) -> int:
        return self.members.shape[0]


def assemble(name: str, model_or_latencies, pe: int = 0, seed: int = 0, **params) -> Assembly:
    """Assemble the superblocks of every die with method ``name``.

    ``model_or_latencies``: a :class:`~flashrr.pv.model.PVModel` (its latencies at
    ``pe`` P/E cycles are used) or a :class:`~flashrr.pv.latencies.Latencies`.
    ``seed`` drives ``random`` (die ``d`` uses the stream (seed, d, pe)).
    ``params`` are the method's (e.g. ``window=4``, ``mode='alternate'``)."""
    import time

    from .model import PVModel

    kw = method_params(name, params)
    lat = model_or_latencies.latencies(pe) if isinstance(model_or_latencies, PVModel) else model_or_latencies
    if not isinstance(lat, Latencies):
        raise TypeError(f"assemble: expected a PVModel or Latencies, got {type(model_or_latencies).__name__}")
    fn = METHODS[name].fn
    parts = []
    t0 = time.perf_counter()
    for d in range(lat.dies):
        rng = np.random.default_rng([int(seed), 0x5B, d, int(lat.pe)])
        parts.append(fn(DieData(lat.tprog_us[d], lat.tbers_us[d]), rng, **kw))
    wall = time.perf_counter() - t0
    return Assembly(name, kw, np.stack([a.members for a in parts]), np.stack([a.checks for a in parts]),
                    np.stack([a.slow for a in parts]), wall, int(lat.pe))


def superblock_extras(lat: Latencies, asm: Assembly) -> tuple[np.ndarray, np.ndarray]:
    """Extra program and erase latency (µs) of every superblock, each ``(D, n_sb)``."""
    D, n_sb, P = asm.members.shape
    lwl = lat.lwl()
    d_idx = np.arange(D)[:, None, None]
    p_idx = np.arange(P)[None, None, :]
    pgm = np.stack([F.extra_program(lwl[d, p_idx[0], asm.members[d]]) for d in range(D)])
    ers = F.extra_erase(lat.tbers_us[d_idx, p_idx, asm.members])
    return pgm, ers
