"""Superblock tables for the simulator: which physical block each superblock
component uses, and the latencies of every block, in ns.

The engine is not wired to this yet; :func:`superblock_tables` is the hand-off.
A *lane* here is a group of ``k = sb_planes`` consecutive planes of one die
(superblocks never span dies in the paper); lanes are numbered die-major,
``lane = die * (planes_per_die // k) + group``, and ``lane_planes`` gives the
global plane ids (``die * planes_per_die + plane``) of each lane's components,
so an engine with another lane order can remap.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .assembly import assemble, superblock_extras
from .latencies import Latencies
from .model import PVModel, PVParams

SCALES = ("absolute", "relative")


@dataclass(frozen=True)
class SuperblockTables:
    """Shapes: ``n_lanes`` lanes of ``k`` planes, ``B`` blocks per plane, ``W``
    logical word lines per block, ``pages_per_block`` pages.

    * ``members``: int32 ``(n_lanes, B, k)``: superblock row ``r`` of a lane takes
      in-plane block ``members[lane, r, c]`` on the lane's plane ``c``.  Every
      block of every plane appears exactly once.
    * ``lane_planes``: int32 ``(n_lanes, k)`` global plane id of each component.
    * ``tbers_ns``: int64 ``(n_lanes, k, B)`` erase latency of in-plane block ``b``.
    * ``tprog_ns``: int64 ``(n_lanes, k, B, W)`` program latency of each LWL.
    * ``lwl_of_page``: int32 ``(pages_per_block,)``: the LWL a page offset lies on
      (``offset * W // pages_per_block``; ``offset // 3`` for 1,152-page TLC blocks).
    * ``extra_pgm_us``, ``extra_ers_us``: float64 ``(n_lanes, B)``: each row's extra
      program (sum over LWLs) and erase latency in µs, from the unscaled model.
    """

    members: np.ndarray
    lane_planes: np.ndarray
    tbers_ns: np.ndarray
    tprog_ns: np.ndarray
    lwl_of_page: np.ndarray
    extra_pgm_us: np.ndarray
    extra_ers_us: np.ndarray
    method: str
    pe: int

    def row_program_ns(self, lane: int, row: int, offset: int) -> int:
        """Duration of a multi-plane program of page ``offset`` of superblock
        ``row`` in ``lane``: the slowest component's LWL latency, ns."""
        w = self.lwl_of_page[offset]
        blocks = self.members[lane, row]
        return int(self.tprog_ns[lane, np.arange(len(blocks)), blocks, w].max())

    def row_erase_ns(self, lane: int, row: int) -> int:
        """Duration of a multi-plane erase of superblock ``row``: its slowest block, ns."""
        blocks = self.members[lane, row]
        return int(self.tbers_ns[lane, np.arange(len(blocks)), blocks].max())


def _geometry(config_like):
    geo = getattr(config_like, "geometry", config_like)
    sb = getattr(config_like, "superblock", None)
    for name in ("planes_per_die", "blocks_per_plane", "pages_per_block"):
        if not hasattr(geo, name):
            raise ValueError(f"superblock_tables: the geometry has no {name!r} field")
    n_dies = geo.n_dies if hasattr(geo, "n_dies") else getattr(geo, "dies", None)
    if n_dies is None:
        raise ValueError("superblock_tables: the geometry has neither 'n_dies' nor 'dies'")
    return geo, sb, int(n_dies)


def superblock_tables(config_like, method: str = "sequential", seed: int = 0, pe: int = 0,
                      params: PVParams | None = None, sb_planes: int | None = None, scale: str = "absolute",
                      t_program_ns: int | None = None, t_erase_ns: int | None = None,
                      **method_params) -> SuperblockTables:
    """Assemble every lane of a device with ``method`` on the PV model (``params``,
    ``seed``) at ``pe`` P/E cycles.

    ``config_like``: a ``SimConfig`` (its geometry and ``superblock.sb_planes``) or a
    ``GeometryConfig``-like object (``n_dies``, ``planes_per_die``,
    ``blocks_per_plane``, ``pages_per_block``; then ``sb_planes``, default 4).
    Superblocks must stay within a die.  ``scale``: ``absolute`` uses the model's
    µs x 1000; ``relative`` rescales so the model's nominal program/erase times
    (``params.t0_us``, ``params.e0_us``) map to ``t_program_ns``/``t_erase_ns``
    (default: the config's timing, else the model's own)."""
    if scale not in SCALES:
        raise ValueError(f"superblock_tables: scale must be one of {SCALES}, got {scale!r}")
    geo, sb, n_dies = _geometry(config_like)
    if sb is not None:
        if (sb.sb_dies, sb.sb_chips, sb.sb_channels) != (1, 1, 1):
            raise ValueError("superblock_tables: the PV model assembles superblocks within one die; "
                             "sb_dies, sb_chips and sb_channels must be 1")
        sb_planes = sb.sb_planes if sb_planes is None else sb_planes
    k = int(sb_planes or 4)
    P = int(geo.planes_per_die)
    if P % k:
        raise ValueError(f"superblock_tables: sb_planes={k} must divide planes_per_die={P}")
    params = params or PVParams()
    model = PVModel(params, dies=n_dies, planes=P, blocks=int(geo.blocks_per_plane), seed=seed)
    lat = model.latencies(pe)
    groups = P // k
    # one Latencies "die" per lane: the lane's k planes
    lane_tp = lat.tprog_us.reshape(n_dies * groups, k, *lat.tprog_us.shape[2:])
    lane_te = lat.tbers_us.reshape(n_dies * groups, k, -1)
    lanes = Latencies(lane_tp, lane_te, lat.pe)
    asm = assemble(method, lanes, seed=seed, **method_params)
    pgm, ers = superblock_extras(lanes, asm)
    timing = getattr(config_like, "timing", None)
    if scale == "absolute":
        fp = fe = 1000.0
    else:
        tpn = t_program_ns if t_program_ns is not None else getattr(timing, "t_program_ns", params.t0_us * 1000)
        ten = t_erase_ns if t_erase_ns is not None else getattr(timing, "t_erase_ns", params.e0_us * 1000)
        fp, fe = tpn / params.t0_us, ten / params.e0_us
    n_lwl = lanes.n_lwl
    ppb = int(geo.pages_per_block)
    lane_planes = (np.arange(n_dies)[:, None, None] * P + np.arange(P).reshape(groups, k)[None]).reshape(-1, k)
    return SuperblockTables(
        members=asm.members.astype(np.int32),
        lane_planes=lane_planes.astype(np.int32),
        tbers_ns=np.rint(lanes.tbers_us * fe).astype(np.int64),
        tprog_ns=np.rint(lanes.lwl() * fp).astype(np.int64),
        lwl_of_page=(np.arange(ppb, dtype=np.int64) * n_lwl // ppb).astype(np.int32),
        extra_pgm_us=pgm, extra_ers_us=ers, method=method, pe=int(pe))
