"""The address mapping, checked against a brute-force enumeration of the geometry.

The expected mapping is built here by listing every physical page of the device
and ordering it the way docs/model.md describes in words (lanes channel-fastest,
components plane-fastest, superblock rows, page offsets), using sorting and
counting instead of layout.py's index arithmetic.  Both engines share layout.py,
so a mistake there would pass the twin-equivalence tests; these tests catch it:
the layout tables, where preconditioning puts each LPN, and which reads collide
on a die or a channel in the timing model.
"""
import itertools

import numpy as np
import pytest

import flashrr
from flashrr._core.engine_py import ReferenceEngine
from flashrr._core.layout import build_layout
from flashrr.policy import Baseline
from engine_helpers import page_trace, tiny_config

SHAPES = [  # (channels, chips, dies, planes, sb_planes, sb_dies, sb_chips, sb_channels)
    (1, 1, 1, 1, 1, 1, 1, 1), (1, 1, 1, 4, 4, 1, 1, 1), (2, 1, 1, 2, 2, 1, 1, 1), (2, 2, 1, 2, 2, 1, 1, 2),
    (1, 2, 2, 2, 2, 2, 1, 1), (2, 1, 2, 1, 1, 2, 1, 2), (2, 2, 1, 4, 4, 1, 1, 1), (1, 1, 1, 4, 2, 1, 1, 1),
    (2, 2, 2, 2, 2, 1, 2, 1), (4, 1, 2, 2, 1, 1, 1, 1), (2, 2, 2, 2, 1, 2, 2, 2),
]


def _config(shape, blocks=6, pages=4):
    ch, chips, dies, planes, sp, sd, sc, sch = shape
    return tiny_config(channels=ch, chips=chips, dies=dies, planes=planes, sb_planes=sp, sb_dies=sd, sb_chips=sc,
                       sb_channels=sch, blocks=blocks, pages=pages, op=0.5, gc_ratio=0.01, rr_enabled=False)


def enumerate_pages(shape, blocks, pages):
    """Every physical page as (channel, chip, die, plane, block row, offset), in PPN order.

    A lane is the set of planes sharing the same group at every level (channel
    group, chip group, die group, plane group); lanes are ordered with the
    channel group varying fastest, components inside a lane with the plane
    varying fastest.  Then: lane, superblock row, component, offset."""
    ch, chips, dies, planes, sp, sd, sc, sch = shape
    units = list(itertools.product(range(ch), range(chips), range(dies), range(planes)))

    def group(u):  # slowest-varying level first, so sorting makes the channel group fastest
        return (u[3] // sp, u[2] // sd, u[1] // sc, u[0] // sch)

    lanes = sorted({group(u) for u in units})
    members = {g: sorted(u for u in units if group(u) == g) for g in lanes}  # (ch, chip, die, plane) order
    out = []
    for g in lanes:
        for row in range(blocks):
            for u in members[g]:
                for off in range(pages):
                    out.append((*u, row, off))
    return out, len(lanes), len(members[lanes[0]])


@pytest.mark.parametrize("shape", SHAPES)
def test_ppn_mapping_matches_brute_force(shape):
    blocks, pages = 6, 4
    L = build_layout(_config(shape, blocks, pages))
    table, n_lanes, k = enumerate_pages(shape, blocks, pages)
    assert (L.n_lanes, L.k, L.n_pages) == (n_lanes, k, len(table))
    die_of = {}  # physical (channel, chip, die) -> engine die id: must be one-to-one
    for ppn, (ch, chip, die, plane, row, off) in enumerate(table):
        # expected ids, counted from the enumeration order
        block_seq, offset = divmod(ppn, pages)  # consecutive offsets of one block come together
        sb_seq = block_seq // k
        assert (ppn // L.pages_per_block, ppn % L.pages_per_block) == (block_seq, offset)
        assert offset == off
        assert block_seq // L.k == sb_seq and sb_seq % L.sb_per_lane == row
        lane, comp = sb_seq // L.sb_per_lane, block_seq % k
        idx = lane * L.k + comp
        assert int(L.comp_chan[idx]) == ch
        assert int(L.comp_plane_in_die[idx]) == plane
        die_of.setdefault((ch, chip, die), set()).add(int(L.comp_die[idx]))
    assert all(len(ids) == 1 for ids in die_of.values())
    ids = [next(iter(v)) for v in die_of.values()]
    assert sorted(ids) == list(range(L.n_dies))


def _engine(name, cfg, fill):
    from flashrr._core import load_compiled_engine

    cls = ReferenceEngine if name == "reference" else load_compiled_engine()
    eng = cls(build_layout(cfg), Baseline().hooks(), 0, False)
    eng.precondition(fill, np.zeros(0, np.int64))
    return eng


@pytest.mark.parametrize("shape", SHAPES)
def test_preconditioning_places_lpns_as_documented(shape, engine):
    """LPN i lands in superpage i // k of the lanes' round-robin (one superpage per
    lane in turn), on component i mod k; the PPN of that spot comes from the
    enumeration, not from the id formulas."""
    blocks, pages = 6, 4
    cfg = _config(shape, blocks, pages)
    table, n_lanes, k = enumerate_pages(shape, blocks, pages)
    where = {}  # (lane, row, component, offset) -> ppn
    for ppn in range(len(table)):
        block_seq = ppn // pages
        where[(block_seq // k // blocks, block_seq // k % blocks, block_seq % k, ppn % pages)] = ppn
    fill = cfg.logical_pages
    l2p = _engine(engine, cfg, fill).state_view(0).l2p
    for lpn in range(fill):
        superpage, comp = divmod(lpn, k)
        lane, nth = superpage % n_lanes, superpage // n_lanes  # nth superpage this lane has taken
        row, off = divmod(nth, pages)
        assert int(l2p[lpn]) == where[(lane, row, comp, off)], lpn


@pytest.mark.parametrize("shape", [s for s in SHAPES if s[0] * s[1] * s[2] > 1])
def test_reads_collide_exactly_on_shared_dies_and_channels(shape, engine):
    """Two single-page reads arriving together: on one die the second waits for
    the whole first read; on two dies of one channel only the transfers queue;
    on two channels they overlap fully.  Which case applies comes from the
    enumeration's (channel, chip, die) of each LPN's page."""
    t_read, t_xfer = 1000, 100
    ch, chips, dies, planes, sp, sd, sc, sch = shape
    cfg = tiny_config(channels=ch, chips=chips, dies=dies, planes=planes, sb_planes=sp, sb_dies=sd, sb_chips=sc,
                      sb_channels=sch, blocks=6, pages=4, op=0.5, gc_ratio=0.01, rr_enabled=False,
                      t_read=t_read, t_xfer=t_xfer)
    table, _, _ = enumerate_pages(shape, 6, 4)
    l2p = _engine(engine, cfg, cfg.logical_pages).state_view(0).l2p
    rng = np.random.default_rng(sum(shape))
    seen = set()
    for _ in range(12):
        a, b = (int(x) for x in rng.choice(cfg.logical_pages, 2, replace=False))
        pa, pb = table[int(l2p[a])], table[int(l2p[b])]
        if pa[:3] == pb[:3]:
            case, total = "die", (t_read + t_xfer) + 2 * (t_read + t_xfer)
        elif pa[0] == pb[0]:
            case, total = "channel", (t_read + t_xfer) + (t_read + 2 * t_xfer)
        else:
            case, total = "apart", 2 * (t_read + t_xfer)
        seen.add(case)
        trace = page_trace([a, b], times=[0, 0])
        s = flashrr.simulate(cfg, trace, engine=engine).summary
        assert s["read_latency_mean_ns"] * 2 == total, (a, b, case)
    assert seen - {"apart"}  # at least one collision was exercised


def test_the_layout_takes_each_models_tables_exactly_when_the_config_switches_it_on():
    """The engine imports neither model: the caller builds the PV and error-model tables
    (flashrr.engine_layout), and build_layout refuses a layout that lacks the tables of a
    model the config switches on, or carries those of one it leaves off."""
    from flashrr.config import ConfigError
    from flashrr.engine_layout import engine_layout

    plain = tiny_config()
    pv = tiny_config(planes=4, sb_planes=4).replace(pv_model="generative")
    em = plain.replace(error_model={"enabled": True})
    with pytest.raises(ConfigError, match=r"process_variation\.pv_model: the model is on, but the PV model's tables"):
        build_layout(pv)
    with pytest.raises(ConfigError, match=r"error_model\.enabled: the model is on, but the error model's tables"):
        build_layout(em)
    tables = engine_layout(pv).pv
    with pytest.raises(ConfigError, match=r"process_variation\.pv_model: the model is off, but the PV model's tables"):
        build_layout(plain, pv=tables)
    with pytest.raises(ConfigError, match=r"error_model\.enabled: the model is off"):
        build_layout(plain, error_tables=engine_layout(em).error_tables)
    assert engine_layout(plain).pv is None and engine_layout(plain).error_tables is None
    assert engine_layout(pv).pv is not None and engine_layout(em).error_tables is not None
