"""``page_placement.placement = "static_lane"``: LPN l always lives on lane (l // k) mod n_lanes.

The defining behaviour (every mapped page sits on its LPN's lane after any run,
GC and RR included), a hand-counted case against ``"dynamic"``, the lane
order (channel first, as MQSim's CWDP), and the clear error when a policy
places user pages itself.  Twin equivalence under this placement is drawn in
test_engine_equivalence.py."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import flashrr
from flashrr._core.layout import build_layout
from flashrr.config import SimConfig

from engine_helpers import build_engine, final_mapping, page_trace, tiny_config
from strategies import static_lane_case


def lane_of_ppn(layout, ppn):
    """Lane of physical page(s) ``ppn`` (ids as in layout.py: ppn = (sb * k + c) * N + offset, sb = lane * S + row)."""
    return np.asarray(ppn) // layout.pages_per_block // layout.k // layout.sb_per_lane


def test_writes_go_to_their_lpns_lane_not_the_next_one():
    # 4 lanes of one block each (k = 1).  LPNs 0, 4, 8 all belong to lane 0: static_lane puts
    # them there at offsets 0, 1, 2 of one block; dynamic deals them to lanes 0, 1, 2.
    cfg = tiny_config(channels=4, blocks=16, pages=8)
    tr = page_trace([0, 4, 8], writes=[1, 1, 1])
    where = {}
    for placement in ("dynamic", "static_lane"):
        eng = build_engine("reference", cfg.replace(placement=placement), "baseline", fill=0)
        eng.run(tr.time_ns, tr.offset, tr.size, tr.is_write.astype(np.uint8))
        layout = build_layout(cfg)
        where[placement] = lane_of_ppn(layout, eng.ftl.l2p[[0, 4, 8]]).tolist()
    assert where == {"dynamic": [0, 1, 2], "static_lane": [0, 0, 0]}


def test_lanes_are_numbered_channel_first_as_mqsims_cwdp():
    # 2 channels x 2 chips, k = 1: consecutive LPNs alternate channels first (CWDP), then chips
    cfg = tiny_config(channels=2, chips=2, blocks=16, pages=8).replace(placement="static_lane")
    layout = build_layout(cfg)
    eng = build_engine("reference", cfg, "baseline", fill=0)
    tr = page_trace([0, 1, 2, 3], writes=[1, 1, 1, 1])
    eng.run(tr.time_ns, tr.offset, tr.size, tr.is_write.astype(np.uint8))
    lanes = lane_of_ppn(layout, eng.ftl.l2p[:4])
    assert np.asarray(layout.comp_chan)[lanes].tolist() == [0, 1, 0, 1]
    die = np.asarray(layout.comp_die)[lanes]  # die id = (channel * chips + chip) * dies + die, one die per chip
    assert (die % 2).tolist() == [0, 0, 1, 1]  # the chip


def test_static_lane_accepts_superblocks_across_dies():
    cfg = SimConfig.preset("shuffler-32").replace(placement="static_lane")  # superblocks span 8 channels
    assert cfg.page_placement.placement == "static_lane"


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_policy_that_places_user_pages_is_refused_under_static_placement(engine):
    cfg = SimConfig.preset("cocktail").replace(placement="static_lane")
    with pytest.raises(flashrr.EngineError, match="page_placement.placement.*dynamic"):
        flashrr.simulate(cfg, page_trace([0, 1], writes=[1, 1], page=cfg.geometry.page_size_bytes),
                         policy="cocktail", engine=engine)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(static_lane_case())
def test_every_page_stays_on_its_lpns_lane_through_gc_and_rr(case):
    cfg, trace = case
    layout = build_layout(cfg)
    l2p = final_mapping(cfg, trace)
    if l2p is None:
        return
    mapped = np.flatnonzero(l2p >= 0)
    assert np.array_equal(lane_of_ppn(layout, l2p[mapped]), (mapped // layout.k) % layout.n_lanes)
