"""The read-exposure mechanism (docs/policies.md's example of a compiled mechanism):
hand-counted histograms on both engines, and composition with a scheme."""
import numpy as np
import pytest

import flashrr
from flashrr.policies import make_policy
from engine_helpers import page_trace, tiny_config

Q = [f"reads_exposure_q{q}" for q in range(1, 5)]


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_reads_fall_in_the_quarter_their_block_had_reached(engine):
    """Threshold 8, one page read 10 times: block counts after each read are 1..8 (then the
    RR erases the block: the copy's new block counts 1, 2).  Quarters: 4 * (count - 1) // 8,
    so counts 1-2 -> q1, 3-4 -> q2, 5-6 -> q3, 7-8 -> q4, and the two reads after the RR
    -> q1."""
    cfg = tiny_config(blocks=16, pages=8, rr=8, op=0.4, gc_ratio=0.1)
    res = flashrr.simulate(cfg, page_trace(np.zeros(10, np.int64), gap_ns=100_000), "read-exposure", engine=engine)
    s = res.summary
    assert s["rr_count"] == 1
    assert [s[k] for k in Q] == [4, 2, 2, 2]
    assert sum(s[k] for k in Q) == s["flash_read_pages"]


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_exposure_composes_and_leaves_the_scheme_unchanged(engine):
    """Observing changes nothing: PhasedRR with the histogram equals PhasedRR alone."""
    rng = np.random.default_rng(5)
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=32, pages=8, rr=40, op=0.4, gc_ratio=0.1)
    trace = page_trace(np.where(rng.random(2000) < 0.8, rng.integers(0, 4, 2000), rng.integers(0, 24, 2000)),
                       gap_ns=20_000)
    both = flashrr.simulate(cfg, trace, make_policy("phasedrr+read-exposure", **{"phasedrr.delta_reads": 4}),
                            engine=engine).summary
    alone = flashrr.simulate(cfg, trace, make_policy("phasedrr", delta_reads=4), engine=engine).summary
    assert sum(both[k] for k in Q) == both["flash_read_pages"] > 0
    for k in ("rr_count", "rr_page_moves", "idle_moves", "rr_forced_moves", "read_latency_mean_ns", "gc_count"):
        assert both[k] == alone[k], k
    assert not any(k in alone for k in Q)
