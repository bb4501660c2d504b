"""The PV model in the engine's ids: what ``process_variation.pv_model = 'generative'``
hands to both engines (compiled and reference) through the layout.

Ids follow ``flashrr/_core/layout.py``: lane ``l``, component ``c``, slot block
``blk = (l * S + row) * k + c``.  A *PV block* is one modelled physical block,
numbered ``g = (l * k + c) * S + b`` for in-plane block ``b`` of the plane that
component ``c`` of lane ``l`` lives on.  ``phys[blk]`` binds every slot block to
one PV block of its own plane (a bijection per plane): the engine keeps its slot
ids, so superblock rows, mapping and free lists do not change, and only the
latencies follow the binding.  The initial binding is the assembly of
``process_variation.assembly`` (:func:`flashrr.pv.superblock_tables`): with
``pv_row_order = 'assembly'`` row ``r`` of lane ``l`` holds the ``r``-th
superblock the method assembled for that lane; with ``'shuffled'`` (default)
the lane's superblocks sit in a seeded random order of rows.

Latency of a page program: ``tprog_ns[phys[blk] * n_lwl + lwl_of_page[off]]``;
of a block erase: ``tbers_ns[phys[blk]]`` (int ns).  A multi-plane operation
lasts as long as its slowest member (the engines take the maximum).

For ``pv_reassembly`` every PV block also carries its block program latency
sum (``block_sum_ns``, the sum of its ns table, so both engines compare the same
integers) and its STR-MED eigen bits (``eigen``: per layer, 0 for the
``strings // 2`` fastest strings of the ns table, ties to the lower string;
packed into ``n_words`` uint64 words).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import str_med_bits
from .model import PVParams
from .tables import superblock_tables


@dataclass(frozen=True)
class EngineTables:
    method: str
    reassembly: bool
    window: int  # QSTR-MED window of the reassembly (candidates per plane)
    n_lwl: int
    n_words: int
    lwl_of_page: np.ndarray  # int32 [pages_per_block]
    tprog_ns: np.ndarray  # int32 [n_pv * n_lwl]
    tbers_ns: np.ndarray  # int64 [n_pv]
    phys: np.ndarray  # int32 [n_blocks]: initial binding, slot block -> PV block
    block_sum_ns: np.ndarray  # int64 [n_pv]
    eigen: np.ndarray  # uint64 [n_pv * n_words]

    @property
    def bytes(self) -> int:
        """Memory of the tables (bytes): 4 per (block, LWL) dominates."""
        return sum(int(a.nbytes) for a in (self.lwl_of_page, self.tprog_ns, self.tbers_ns, self.phys,
                                            self.block_sum_ns, self.eigen))


def _pack_words(bits: np.ndarray) -> tuple[np.ndarray, int]:
    """``(n, B)`` 0/1 -> ``(n * n_words,)`` uint64, little-endian bit order."""
    n, nb = bits.shape
    n_words = -(-nb // 64)
    padded = np.zeros((n, n_words * 64), np.uint8)
    padded[:, :nb] = bits
    packed = np.packbits(padded, axis=1, bitorder="little")  # (n, n_words * 8) bytes
    return np.ascontiguousarray(packed).view("<u8").reshape(-1).astype(np.uint64), n_words


def engine_tables(config, comp_die: np.ndarray, comp_plane: np.ndarray, n_lanes: int, k: int,
                  params: PVParams | None = None) -> EngineTables | None:
    """The PV tables of ``config`` (a SimConfig) in engine ids, or None when
    ``process_variation.pv_model`` is ``'off'``.  ``comp_die`` / ``comp_plane``: the
    layout's die and in-die plane of every (lane, component)."""
    pv = config.process_variation
    if pv.pv_model == "off":
        return None
    from ..config import ConfigError

    params = params or PVParams()
    g = config.geometry
    S, P = g.blocks_per_plane, g.planes_per_die
    method_params = {"window": pv.pv_window} if pv.pv_window else {}
    try:
        tab = superblock_tables(config, pv.assembly, seed=pv.pv_seed, pe=pv.pv_pe, params=params, scale=pv.pv_scale,
                                **method_params)
    except ValueError as e:
        raise ConfigError(f"process_variation.assembly: {e}") from None
    # engine lane -> tables lane, component order checked plane by plane
    where = {int(gp): (tl, c) for tl, row in enumerate(tab.lane_planes) for c, gp in enumerate(row)}
    lane_of = np.empty(n_lanes, np.int64)
    for lane in range(n_lanes):
        found = [where[int(comp_die[lane * k + c]) * P + int(comp_plane[lane * k + c])] for c in range(k)]
        if any(t != found[0][0] or c2 != c for c, (t, c2) in enumerate(found)):
            raise ConfigError("process_variation.pv_model: the engine's lanes do not match the PV model's plane groups")
        lane_of[lane] = found[0][0]
    W = int(tab.tprog_ns.shape[-1])
    tprog = tab.tprog_ns[lane_of]  # (n_lanes, k, S, W)
    if tprog.size and int(tprog.max()) >= 2**31:
        raise ConfigError(f"process_variation.pv_scale: program latencies up to {int(tprog.max())} ns exceed the "
                          "engine's int32 table")
    members = tab.members[lane_of]  # (n_lanes, S rows, k)
    if pv.pv_row_order == "shuffled":  # row r of a lane holds a seeded random one of its assembled superblocks
        rng = np.random.default_rng([int(pv.pv_seed), 0x50A7])
        members = np.stack([m[rng.permutation(S)] for m in members])
    pv_ids = (np.arange(n_lanes)[:, None, None] * k + np.arange(k)[None, None, :]) * S + members
    strings = params.strings
    bits = str_med_bits(tprog.reshape(-1, W // strings, strings)).reshape(-1, W)
    eigen, n_words = _pack_words(bits)
    window = pv.pv_window or 4
    return EngineTables(
        method=pv.assembly, reassembly=bool(pv.pv_reassembly), window=int(window), n_lwl=W, n_words=n_words,
        lwl_of_page=np.ascontiguousarray(tab.lwl_of_page, dtype=np.int32),
        tprog_ns=np.ascontiguousarray(tprog.reshape(-1), dtype=np.int32),
        tbers_ns=np.ascontiguousarray(tab.tbers_ns[lane_of].reshape(-1), dtype=np.int64),
        phys=np.ascontiguousarray(pv_ids.reshape(-1), dtype=np.int32),
        block_sum_ns=np.ascontiguousarray(tprog.sum(axis=-1, dtype=np.int64).reshape(-1)),
        eigen=eigen)
