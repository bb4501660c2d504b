"""The engines' RR and GC records (``device/event_log``): one record per migration, in
the order the migrations were decided, with the labels the policy gave; both engines
give the same columns."""
import numpy as np
import pandas as pd
import pytest

import flashrr
from flashrr.policy import Baseline
from flashrr.result import EVENT_COLUMNS

from engine_helpers import page_trace, skewed_reads_trace, tiny_config


class Labelled(Baseline):
    """Baseline that names each RR by a label it draws in turn, and keeps what it returned."""
    name = "labelled"
    LABELS = ("", "alpha", "beta", "alpha", "gamma")  # "" means the default routine

    def __init__(self):
        super().__init__()
        self.given = []

    def on_read_reclaim(self, state, sb):
        label = self.LABELS[len(self.given) % len(self.LABELS)]
        self.given.append(label or "default")
        return label


def _raw(engine, cfg, trace, policy):
    """The engine's raw results (``results()``) after one run of ``trace`` on a full device."""
    from engine_helpers import build_engine

    eng = build_engine(engine, cfg, policy, fill=cfg.logical_pages, check=False)
    eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write.astype(np.uint8), 1)
    eng.finish()
    return eng.results()


def _gc_trace(cfg, n=6000, seed=3):
    rng = np.random.default_rng(seed)
    return page_trace(rng.integers(0, cfg.logical_pages, n), writes=rng.random(n) < 0.7)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_one_gc_record_per_gc_and_its_pages_sum_to_the_counter(engine):
    """Hundreds of GCs (past the log's first growth): one record each, in decision order;
    the pages moved and the victims' page mix add up to the run's counters."""
    cfg = tiny_config(planes=2, sb_planes=2, blocks=24, pages=8, op=0.25)
    raw = _raw(engine, cfg, _gc_trace(cfg), "baseline")
    ev, c = raw["gc_events"], raw["counters"]
    assert set(ev) == set(EVENT_COLUMNS)
    n = len(ev["time_ns"])
    assert n == c["gc_count"] > 200
    assert ev["block_reads"].shape == (n, 2)
    assert int(ev["pages_moved"].sum()) == c["gc_page_moves"]
    assert np.all(np.diff(ev["time_ns"]) >= 0)
    assert np.all(ev["routine"] == "greedy") and np.isnan(ev["rber_margin"]).all()
    assert np.all(ev["erase_end_ns"] >= ev["time_ns"])


def test_rr_records_carry_the_policys_labels_in_order():
    """Each RR record has the label the policy returned for it; labels a policy has not
    returned before are added as they come."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=200, cache_pages=0)
    pol = Labelled()
    res = flashrr.simulate(cfg, skewed_reads_trace(10_000), policy=pol)
    got = res.rr_events["routine"].tolist()
    assert len(got) == res.summary["rr_count"] > len(Labelled.LABELS)
    assert got == pol.given


@pytest.mark.parametrize("policy", ["baseline", "shuffler"])
def test_both_engines_give_the_same_columns(policy):
    cfg = tiny_config(planes=4, sb_planes=4, blocks=32, pages=16, rr=20, op=0.5, gc_ratio=0.2)
    rng = np.random.default_rng(5)
    n = 8000
    writes = rng.random(n) < 0.5  # hot reads (RRs), uniform writes (GCs)
    lpns = np.where(writes, rng.integers(0, cfg.logical_pages, n), rng.zipf(1.3, n) % cfg.logical_pages)
    trace = page_trace(lpns, writes=writes)
    a, b = (_raw(e, cfg, trace, policy) for e in ("compiled", "reference"))
    assert a["counters"]["rr_count"] > 5 and a["counters"]["gc_count"] > 5
    for kind in ("rr_events", "gc_events"):
        for col in EVENT_COLUMNS:
            x, y = a[kind][col], b[kind][col]
            assert x.dtype == y.dtype and x.shape == y.shape, (kind, col)
            assert pd.DataFrame(x.reshape(len(x), -1)).equals(pd.DataFrame(y.reshape(len(y), -1))), (kind, col)


def test_event_table_shows_read_counts_as_tuples():
    """The DataFrame keeps one tuple of the victim's k block read counts per row, and the
    derived columns."""
    cfg = tiny_config(planes=4, sb_planes=4, blocks=16, pages=64, rr=200, cache_pages=0)
    res = flashrr.simulate(cfg, skewed_reads_trace(10_000))
    ev = res.rr_events
    assert len(ev) == res.summary["rr_count"] > 0
    assert all(isinstance(r, tuple) and len(r) == 4 and all(type(x) is int for x in r) for r in ev["block_reads"])
    assert all(max(r) >= 200 for r in ev["block_reads"])  # an RR is due when a block reaches the threshold
    assert (ev["trigger_to_erase_ns"] == ev["erase_end_ns"] - ev["time_ns"]).all()
    assert (ev.groupby("superblock")["round"].apply(lambda s: s.tolist() == list(range(len(s))))).all()
