"""Run an assembly method on modelled (or measured) dies and measure it.

:func:`evaluate` returns one dict per method: mean extra program and erase
latency per superblock (µs), similarity checks per superblock (actual and the
paper's nominal count), metadata bytes per block, wall time, and the
per-superblock arrays.  Averages pool every superblock of every die and P/E
point (the paper does not say how it pools; this is our reading).
"""
from __future__ import annotations

import numpy as np

from .assembly import METHODS, assemble, method_params, superblock_extras
from .latencies import Latencies
from .model import PVModel, PVParams

# The paper's P/E grid for Tables I, II and V (§IV-B): 0 to 3,000 in steps of 200.
PAPER_PE_POINTS = tuple(range(0, 3001, 200))


def evaluate_on(name: str, latencies: list, seed: int = 0, **params) -> dict:
    """Evaluate method ``name`` on each :class:`Latencies` of ``latencies`` (e.g.
    one per P/E point) and pool the superblocks.  Keys (µs unless stated):

    ``extra_pgm_us``, ``extra_ers_us``: mean per superblock; ``checks_per_sb``:
    similarity checks actually run, mean per superblock; ``checks_nominal_per_sb``:
    the paper's count for full windows; ``unique_pair_distances_per_sb``;
    ``metadata_bytes_per_block`` (bytes); ``wall_s`` (assembly incl. features, s);
    ``wall_per_sb_us``; ``n_superblocks``; ``per_sb``: dict of equal-length
    arrays ``die``, ``pe``, ``order`` (assembly order in its die), ``extra_pgm_us``,
    ``extra_ers_us``, ``checks``, ``slow``, ``block_sum_us`` (mean member block sum)."""
    if isinstance(latencies, Latencies):
        latencies = [latencies]
    if not latencies:
        raise ValueError("evaluate: no latencies to assemble")
    kw = method_params(name, params)
    m = METHODS[name]
    cols = {k: [] for k in ("die", "pe", "order", "extra_pgm_us", "extra_ers_us", "checks", "slow",
                            "block_sum_us")}
    wall = 0.0
    for lat in latencies:
        asm = assemble(name, lat, seed=seed, **kw)
        wall += asm.wall_s
        pgm, ers = superblock_extras(lat, asm)
        D, n_sb, P = asm.members.shape
        bsum = lat.lwl().sum(axis=-1)  # (D, P, N)
        member_sum = bsum[np.arange(D)[:, None, None], np.arange(P)[None, None, :], asm.members].mean(axis=-1)
        cols["die"].append(np.repeat(np.arange(D), n_sb))
        cols["pe"].append(np.full(D * n_sb, lat.pe))
        cols["order"].append(np.tile(np.arange(n_sb), D))
        cols["extra_pgm_us"].append(pgm.ravel())
        cols["extra_ers_us"].append(ers.ravel())
        cols["checks"].append(asm.checks.ravel())
        cols["slow"].append(asm.slow.ravel())
        cols["block_sum_us"].append(member_sum.ravel())
    per_sb = {k: np.concatenate(v) for k, v in cols.items()}
    lat0 = latencies[0]
    P, W = lat0.planes, int(kw.get("window", 0))
    n = len(per_sb["extra_pgm_us"])
    return {
        "method": name,
        "label": m.label,
        "params": kw,
        "extra_pgm_us": float(per_sb["extra_pgm_us"].mean()),
        "extra_ers_us": float(per_sb["extra_ers_us"].mean()),
        "checks_per_sb": float(per_sb["checks"].mean()),
        "checks_nominal_per_sb": int(m.nominal_checks(P, W)),
        "unique_pair_distances_per_sb": m.unique_pair_distances(P, W),
        "metadata_bytes_per_block": m.metadata_bytes(lat0.n_lwl, lat0.layers),
        "wall_s": wall,
        "wall_per_sb_us": 1e6 * wall / max(n, 1),
        "n_superblocks": n,
        "dies": lat0.dies,
        "pe_points": [int(lat.pe) for lat in latencies],
        "seed": int(seed),
        "per_sb": per_sb,
    }


def model_latencies(dies: int = 24, seed: int = 0, pe_points=(0,), params: PVParams | None = None,
                    planes: int = 4, blocks: int = 400) -> list:
    """The modelled :class:`Latencies` of ``dies`` dies at each P/E point."""
    model = PVModel(params, dies=dies, planes=planes, blocks=blocks, seed=seed)
    return [model.latencies(int(pe)) for pe in pe_points]


def evaluate(name: str, dies: int = 24, seed: int = 0, pe_points=(0,), params: PVParams | None = None,
             latencies=None, planes: int = 4, blocks: int = 400, **method_params_) -> dict:
    """Evaluate method ``name`` on ``dies`` modelled dies (paper geometry: 4 planes
    of 400 blocks, 96 layers x 4 strings) drawn with ``seed``, at each of
    ``pe_points``; or on measured ``latencies`` (a Latencies or a list of them),
    which then replace the model.  ``method_params_`` go to the method, e.g.
    ``window=4``.  See :func:`evaluate_on` for the keys of the result."""
    if latencies is None:
        latencies = model_latencies(dies, seed, pe_points, params, planes, blocks)
    return evaluate_on(name, latencies, seed=seed, **method_params_)


def summary(result: dict) -> dict:
    """``result`` without the per-superblock arrays (JSON-friendly)."""
    return {k: v for k, v in result.items() if k != "per_sb"}
