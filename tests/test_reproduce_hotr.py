"""``flashrr reproduce hotr``: the plan, the time-scale calibration, every figure
and the claims table on a tiny run (a shrunken device), and the claims
arithmetic on hand-made results."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from flashrr.papers.hotr import plan as repro
from flashrr.papers.hotr.claims import claims
from flashrr.papers.hotr.figures import FIGURES, RI_WI_FRACTION, cost_latency, page_classes
from flashrr.papers.hotr.paper import PAPER
from flashrr.papers.hotr.plan import FLASH, SCHEMES, Plan, Runs, specs
from flashrr.reproduce import PAPERS, reproduce

# 64 blocks per plane instead of 2048: the same dies, a device small enough for seconds-long runs
TINY = PAPER.make_plan(traces=("fin2", "hpc_28"), n_requests=3000, calibration_requests=1500,
                       device_overrides=(("blocks_per_plane", 64),))


def test_registry_and_plans():
    assert PAPERS["hotr"] is PAPER and PAPER.figures is FIGURES
    assert set(FIGURES) == {"fig01b", "fig01c", "fig05", "fig06", "fig07", "fig08", "fig09"}
    q = PAPER.make_plan(quick=True)
    assert q.quick and q.n_requests == 40_000 and q.calibration_requests < repro.CALIBRATION_REQUESTS
    assert Plan(workload="synth").trace_spec("fin2") == "synth:hotr-fin2?pack=stripe"
    assert Plan().trace_spec("fin2") == "model:hotr-fin2?mean_gap_ns=200000.0&pack=stripe"
    assert TINY.trace_spec("fin2", 0.5, 100) == ("model:hotr-fin2?n_requests=3000&mean_gap_ns=200000.0&first=100"
                                                 "&pack=stripe&scale_time=0.5")
    assert PAPER.make_plan(n_requests=3000, workload="synth").trace_spec("fin2", 0.5, 100) == (
        "synth:hotr-fin2?n_requests=3000&first=100&pack=stripe&scale_time=0.5")
    s = specs(Plan(), {t: 1.0 for t in Plan().traces})
    assert s["main"]["policies"] == {name: {} for name in SCHEMES}
    assert [d["preset"] for d in s["flash"]["devices"]] == ["hotr-slc", "hotr-mlc", "hotr-qlc"]
    assert s["optimal"]["policies"] == {"optimal": {}}
    # the occupancy group: Baseline and HotR on every trace at four shares of the logical space; RR is off,
    # so no trace is expected to reclaim
    assert [d["fill_ratio"] for d in s["occupancy"]["devices"]] == [0.5, 0.75, 0.9, 1.0]
    assert set(s["occupancy"]["policies"]) == {"baseline", "hotr"}
    assert not any(Plan().regime.expects_rr(t) for t in Plan().traces)


def test_calibration_bisects_to_the_target(monkeypatch):
    # a made-up monotone response: share = 0.5 / (1 + f); the target 0.33 is reached at f = 0.5/0.33 - 1
    monkeypatch.setattr(repro, "blocked_share", lambda plan, name, f, snapshot=None: 0.5 / (1 + f))
    f, share = repro.calibrate(Plan(), "fin2")
    assert f == pytest.approx(0.5 / 0.33 - 1, rel=0.03)
    assert abs(share - 0.33) < 0.005


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro_hotr")
    res = reproduce("hotr", out, plan=TINY, jobs=0, progress=False)
    return out, res


def test_tiny_run_writes_every_figure_and_claims(tiny_run):
    out, res = tiny_run
    assert set(res["figures"]) == set(FIGURES)
    for fig in FIGURES.values():
        for ext in ("png", "pdf", "csv"):
            assert (out / f"{fig.stem}.{ext}").stat().st_size > 0
    runs = pd.read_csv(out / "runs.csv")
    # main: 4 schemes; flash: Baseline + HotR on 3 more flash types; optimal: 1; occupancy: Baseline + HotR at 4
    assert len(runs) == 2 * 4 + 2 * 2 * 3 + 2 + 2 * 2 * 4
    cal = pd.read_csv(out / "calibration.csv")
    assert list(cal["trace"]) == ["fin2", "hpc_28"] and (cal["scale_time"] > 0).all()
    table = res["claims"]
    claims_part = (out / "claims.md").read_text().split("## Regime")[0]
    assert claims_part.count("\n|") == len(table) + 2  # header, rule, one row per claim
    # costs as the issue states them
    tlc = runs[runs["flash"] == "tlc"].groupby("scheme")["cost"].first()
    assert tlc.to_dict() == pytest.approx({"Baseline": 1.0, "HotR": 1.1, "Rails": 2.0, "TTFlash": 1.25,
                                           "Optimal": 1.0})
    assert {"Baseline degradation vs Optimal, (RT_b - RT_opt) / RT_opt", "reads redirected to the staging space by HotR"} \
        <= set(table["claim"])


def test_resumed_run_reuses_calibration_and_store(tiny_run, monkeypatch):
    out, _ = tiny_run
    monkeypatch.setattr(repro, "blocked_share", lambda *a: pytest.fail("calibration was not reused"))
    res = reproduce("hotr", out, plan=TINY, jobs=0, progress=False, figures=["fig05"])
    assert list(res["figures"]) == ["fig05"]


def _fake_runs(rt: dict, cost: dict) -> Runs:
    rows = []
    for trace in ("fin2", "msr_hm"):
        for scheme, v in rt.items():
            rows.append({"trace": trace, "scheme": scheme, "flash": "tlc", "io_latency_mean_ns": v[trace],
                         "cost": cost[scheme], "blocked_share": 0.3, "redirected_share": 0.1 if scheme != "Baseline"
                         else 0.0, "blocked_reads": 30, "redirected_reads": 12, "reads": 100, "key": "x"})
    plan = PAPER.make_plan(traces=("fin2", "msr_hm"), n_requests=200)
    return Runs({"main": pd.DataFrame(rows)}, None, plan, scales={})


def test_claims_arithmetic_on_hand_made_results():
    rt = {"Baseline": {"fin2": 100.0, "msr_hm": 200.0}, "HotR": {"fin2": 50.0, "msr_hm": 180.0},
          "Rails": {"fin2": 40.0, "msr_hm": 100.0}, "TTFlash": {"fin2": 300.0, "msr_hm": 400.0}}
    cost = {"Baseline": 1.0, "HotR": 1.1, "Rails": 2.0, "TTFlash": 1.25}
    runs = _fake_runs(rt, cost)
    clp = cost_latency(runs)
    assert clp.loc["fin2", "HotR"] == pytest.approx(1.1 * 0.5)
    assert clp.loc["msr_hm", "Rails"] == pytest.approx(2.0 * 0.5)
    t = claims(runs).set_index("claim")
    # HotR vs Baseline: -50% and -10% -> mean -30%, up to -50%
    assert t.loc["response time, HotR vs Baseline", "flashrr_value"] == pytest.approx(-30.0)
    assert t.loc["response time, HotR vs Baseline (up to)", "flashrr_value"] == pytest.approx(-50.0)
    assert t.loc["response time, HotR vs Baseline", "holds"] is True
    # CLP HotR vs Rails: 0.55/0.8 - 1 and 0.99/1.0 - 1
    assert t.loc["cost-latency product, HotR vs Rails", "flashrr_value"] == pytest.approx(
        100 * ((0.55 / 0.8 - 1) + (0.99 / 1.0 - 1)) / 2)
    assert t.loc["conflicted reads avoided by HotR (redirected / blocked, HotR run)", "flashrr_value"] == \
        pytest.approx(40.0)
    # no tail histograms and no flash-type runs: those claims have no value, never a made-up one
    assert t.loc["p99 I/O latency, HotR vs Baseline", "holds"] == "n/a"
    assert t.loc["HotR speedup, QLC vs SLC (grows with density)", "holds"] == "n/a"


def test_page_classes_by_hand(monkeypatch):
    import flashrr
    from flashrr.trace.source import MemorySource

    # page 0: 10 reads (RI); page 1: 10 writes (WI); page 2: 9 reads + 1 write (RI at exactly 90%);
    # page 3: 1 read + 1 write (MIX)
    lpn = [0] * 10 + [1] * 10 + [2] * 10 + [3, 3]
    wr = [0] * 10 + [1] * 10 + [0] * 9 + [1] + [0, 1]
    tr = flashrr.Trace(np.arange(len(lpn), dtype=np.int64), np.array(lpn) * 4096, np.full(len(lpn), 4096),
                       np.array(wr, bool))
    import sys
    monkeypatch.setattr(sys.modules["flashrr.simulate"], "resolve_source", lambda spec, config=None: MemorySource(tr))
    pc = page_classes(_fake_runs({"Baseline": {"fin2": 1.0, "msr_hm": 1.0}}, {"Baseline": 1.0})).iloc[0]
    assert RI_WI_FRACTION == 0.9
    assert (pc["RI"], pc["WI"], pc["MIX"]) == (0.5, 0.25, 0.25)
    assert pc["reads_on_RI"] == pytest.approx(19 / 20) and pc["writes_on_WI"] == pytest.approx(10 / 12)
