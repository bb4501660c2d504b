"""``flashrr reproduce cocktail``: the plan, the load calibration, every figure and
the claims table on a tiny run, and the claims arithmetic on hand-made results."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from flashrr.papers.cocktail import plan as repro
from flashrr.papers.cocktail.claims import CLAIMS, claims, relative_change
from flashrr.papers.cocktail.figures import FIGURES
from flashrr.papers.cocktail.paper import PAPER
from flashrr.papers.cocktail.plan import CocktailRuns, Plan, specs
from flashrr.reproduce import PAPERS, reproduce
from flashrr.trace.samples import sample_path

# the calibration searches a narrower range in fewer runs than the default
TINY = PAPER.make_plan(traces=("nexus5", "msr_web"), n_requests=400, repeat=1, ratios=(1.0, 0.5), shares=(2, 64),
                       device_overrides=(("rr_threshold_reads", 400),), scale_range=(0.25, 64.0), calibration_steps=8)


def test_registry_and_plans():
    assert PAPERS["cocktail"] is PAPER and PAPER.figures is FIGURES
    assert sorted(int(f[3:]) for f in FIGURES) == [4, 5, 8, 9, 10, 11, 12, 13, 14]
    # Table II: nexus5 has RAF 50 and 10 repeats; 8 planes of 128 -> arrivals stretched 16x
    assert Plan(workload="synth").trace_spec("nexus5") == (
        "synth:cocktail-nexus5?n_requests=50000&pack=stripe&amplify_reads=50&amplify_spacing=spread"
        "&scale_time=16.0&repeat=10")
    assert Plan().trace_spec("nexus5") == ("model:cocktail-nexus5?n_requests=50000&mean_gap_ns=200000.0&pack=stripe"
                                           "&amplify_reads=50&amplify_spacing=spread&scale_time=16.0&repeat=10")
    assert Plan(spacing="same").trace_spec("alibaba_206").endswith("amplify_reads=2&scale_time=16.0")
    q = PAPER.make_plan(quick=True)
    assert q.quick and len(q.traces) == 3 and len(Plan().traces) == 10
    # one trace of each kind of the ten: the RR anchor, a trace that writes whose retry time the paper states
    # (§V-B) and a read-only one (Table II read ratio above 0.99)
    anchor, writer, reader = q.traces
    assert anchor == "alibaba_206" and writer in repro.RETRY_TRACES and writer != anchor
    from flashrr.trace.synth import synth_params

    def read_ratio(trace):
        return synth_params(f"cocktail-{trace}")[0].read_ratio

    assert read_ratio(reader) > 0.99 > read_ratio(writer)
    s = specs(Plan())
    assert set(s) == {"main", "ratio", "share", "occupancy", "real"}
    # the regime: MQSim's 70% occupancy (its trace-based flow) on packed traces; ali206's length from the paper's 28,507 RRs on 128 planes
    assert all(d["fill_ratio"] == 0.70 for g in ("main", "ratio", "share") for d in s[g]["devices"])
    assert Plan().rr_target("alibaba_206") == 1782 and Plan().rr_target("nexus5") == 1
    assert [d["fill_ratio"] for d in s["occupancy"]["devices"]] == [0.5, 0.75, 0.9, 1.0]
    # a calibrated multiple multiplies the row's Table II repeat count (10 for nexus5)
    assert replace(Plan(), replays=(("nexus5", 3),)).trace_spec("nexus5").endswith("&repeat=30")
    # the real group: main's schemes on MQSim's web search excerpt in websearch's place: 50,000 requests are
    # about 2 plays of its 24,783, times the row's 10 repeats, with the row's RAF
    assert s["real"]["policies"] == s["main"]["policies"]
    assert s["real"]["traces"] == [f"{sample_path('websearch')}?pack=stripe&amplify_reads=50"
                                   "&amplify_spacing=spread&scale_time=16.0&repeat=20"]
    assert "real" not in specs(PAPER.make_plan(quick=True))  # the quick traces have no sample of their family
    assert s["main"]["policies"]["cocktail"] == {"gc_writes": ["internal", "separate"]}
    assert s["ratio"]["policies"]["cocktail"]["ratio"] == [1.0, 0.75, 0.5, 0.25, 0.0]
    g = Plan().device_config().geometry
    assert (g.blocks_per_plane, g.pages_per_block) == (2048, 256)  # a plane as in Table I
    # a calibrated factor replaces the fixed stretch for its trace only
    cal = Plan(scales=(("nexus5", 123.25),))
    assert cal.trace_spec("nexus5").endswith("&scale_time=123.25&repeat=10")
    assert cal.trace_spec("usr1") == Plan().trace_spec("usr1")


def test_calibration_bisects_the_log_factor_and_stops_within_the_tolerance(monkeypatch):
    # a made-up load falling with the factor: busy = 10 / (10 + f) is 0.5 at f = 10
    calls = []

    def busy(plan, trace, f, snapshot=None, unloaded_ns=None):
        calls.append(f)
        return 10.0 / (10.0 + f)

    monkeypatch.setattr(repro, "baseline_load", busy)
    f, b = repro.calibrate(Plan(calibration_tol=0.02, target_read_wait=None), "nexus5")  # the busy rule
    assert abs(b - 0.5) <= 0.02 and b == pytest.approx(10.0 / (10.0 + f))
    # the first probe is the geometric middle of the range, and the run stops at the first hit
    lo, hi = repro.SCALE_RANGE
    assert calls[0] == pytest.approx((lo * hi) ** 0.5, rel=1e-6)
    assert all(abs(10 / (10 + c) - 0.5) > 0.02 for c in calls[:-1])
    # with no tolerance it keeps halving the bracket for all its steps and ends near f = 10
    calls.clear()
    f, b = repro.calibrate(Plan(calibration_tol=0.0, calibration_steps=14, target_read_wait=None), "nexus5")
    assert len(calls) == 14 and f == pytest.approx(10.0, rel=0.01)


def test_the_wait_rule_measures_the_unloaded_read_first_and_bisects_the_wait_share(monkeypatch):
    # a made-up Baseline: a read is served in 100 us and waits 100 us x 10 / f, so at the top of the range
    # (f = 4096) it waits 0.244 us; a wait of half the unloaded latency (w = 0.5) is 1/3 of the latency
    calls = []

    def summary(config, spec, snapshot=None):
        f = float(spec.split("scale_time=")[1].split("&")[0]) if "scale_time=" in spec else 1.0  # 1 is left out
        calls.append(f)
        return {"read_latency_mean_ns": 100_000.0 * (1 + 10.0 / f), "die_idle_fraction_min": 0.9,
                "requests": 1, "io_latency_mean_ns": 1.0, "retry_time_ns": 0.0}

    monkeypatch.setattr("flashrr.reproduce.calibration.baseline_summary", summary)
    plan = Plan(target_read_wait=0.5, calibration_tol=0.005, calibration_steps=20)
    f, load = repro.calibrate(plan, "nexus5")
    assert calls[0] == repro.SCALE_RANGE[1]  # the unloaded reference comes first
    unloaded = 100_000.0 * (1 + 10.0 / repro.SCALE_RANGE[1])
    latency = 100_000.0 * (1 + 10.0 / f)
    assert load == pytest.approx(1 - unloaded / latency) and abs(load - 1 / 3) <= 0.005
    assert latency / unloaded == pytest.approx(1.5, abs=0.012)  # wait = half the unloaded latency
    # the retry traces keep their own rule, and without target_read_wait the busy fraction is the load
    calls.clear()
    assert not repro.uses_wait_rule(plan, "alibaba_206") and repro.load_target(plan, "alibaba_206") == 0.5
    f, load = repro.calibrate(Plan(calibration_tol=0.02, target_read_wait=None), "nexus5")
    assert load == pytest.approx(0.1) and calls[0] != repro.SCALE_RANGE[1]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro")
    return out, reproduce("cocktail", out, plan=TINY, jobs=0, progress=False)


def test_tiny_run_writes_every_figure_and_the_claims(tiny_run):
    out, res = tiny_run
    assert set(res["figures"]) == set(FIGURES)
    for fig in FIGURES.values():
        for ext in ("png", "pdf", "csv"):
            p = out / f"{fig.stem}.{ext}"
            assert p.is_file() and p.stat().st_size > 0, p
    runs = pd.read_csv(out / "runs.csv")
    # main: 5 schemes x 2 traces; ratio 0.5 and the default n are main's Cocktail run (shared in the store)
    assert len(runs[runs["group"] == "main"]) == 10 and len(runs[runs["group"] == "ratio"]) == 4
    assert (out / "claims.md").read_text().startswith("# Cocktail (TCAD 2023)")
    assert len(res["claims"]) == len(CLAIMS) + 2


def test_trace_subsets_on_every_trace_gives_the_runs_own_claims(tiny_run):
    """experiments/trace_subsets.py: the claims of the runs kept for every trace are the
    reproduction's own claims table's; a subset keeps only its traces' runs."""
    import sys
    from pathlib import Path

    from flashrr.reproduce.report import claim_counts

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    from trace_subsets import subset_counts

    out, res = tiny_run
    runs = pd.read_csv(out / "runs.csv")
    assert subset_counts("cocktail", runs, out / "store", ["nexus5", "msr_web"]) == claim_counts(res["claims"])
    # a trace the run does not have: every change claim without a value, the share rows left out
    assert subset_counts("cocktail", runs, out / "store", ["usr1"]) == {"claims": len(CLAIMS), "holds": 0,
                                                                        "sized": len(CLAIMS), "within_half": 0}


def test_calibration_meets_the_target_in_the_runs_own_baseline(tiny_run):
    out, _ = tiny_run
    cal = pd.read_csv(out / "calibration.csv")
    assert list(cal["trace"]) == ["nexus5", "msr_web"] and (cal["scale_time"] > 0).all()
    runs = pd.read_csv(out / "runs.csv")
    base = runs[(runs["group"] == "main") & (runs["scheme"] == "Baseline")].set_index("trace")
    waits = {}
    for r in cal.itertuples():
        # the sweep's own Baseline run of the trace at the calibrated factor: its reads wait the share of
        # their latency the calibration measured, against the unloaded latency at the top of the range
        latency = base.loc[r.trace, "read_latency_mean_ns"]
        waits[r.trace] = 1.0 - repro.unloaded_read_latency(TINY, r.trace) / latency
        assert waits[r.trace] == pytest.approx(r.baseline_load)
        assert f"scale_time={r.scale_time}" in base.loc[r.trace, "trace_source"]
    # nexus5 waits half its unloaded latency, a third of its latency, within the tolerance
    target = TINY.target_read_wait / (1 + TINY.target_read_wait)
    assert abs(waits["nexus5"] - target) <= TINY.calibration_tol, waits
    manifest = json.loads((out / "reproduce.json").read_text())
    assert manifest["plan"]["scale_time"] == dict(zip(cal["trace"], cal["scale_time"]))
    assert "calibration_s" in manifest["timings_s"]


def test_resumed_run_reuses_the_calibration(tiny_run, monkeypatch):
    out, _ = tiny_run
    before = (out / "calibration.csv").read_text()
    monkeypatch.setattr(repro, "baseline_load", lambda *a: pytest.fail("calibration was not reused"))
    res = reproduce("cocktail", out, plan=TINY, jobs=0, progress=False, figures=["fig10"])
    assert list(res["figures"]) == ["fig10"] and (out / "calibration.csv").read_text() == before
    # a changed plan calibrates again (the reuse is keyed on the plan)
    with pytest.raises(pytest.fail.Exception, match="not reused"):
        reproduce("cocktail", out, plan=replace(TINY, target_busy=0.3), jobs=0, progress=False, figures=["fig10"])


def test_real_sample_is_calibrated_and_drawn_beside_the_traces(tmp_path):
    plan = replace(TINY, traces=("websearch",))
    res = reproduce("cocktail", tmp_path, plan=plan, jobs=0, progress=False, figures=["fig10"])
    cal = pd.read_csv(tmp_path / "calibration.csv").set_index("trace")
    assert list(cal.index) == ["websearch", "websearch (real sample)"]
    runs = pd.read_csv(tmp_path / "runs.csv")
    real = runs[runs["group"] == "real"]
    assert set(real["trace"]) == {"websearch (real sample)"} and len(real) == 5
    # the sample's first 400 requests, every read played RAF = 50 times, at its own calibrated factor
    src = real["trace_source"].iloc[0]
    assert src.startswith(str(sample_path("websearch"))) and "first=400" in src
    assert f"scale_time={cal.loc['websearch (real sample)', 'scale_time']}" in src
    assert list(res["figures"]) == ["fig10"]
    d = pd.read_csv(tmp_path / f"{FIGURES['fig10'].stem}.csv")
    assert list(dict.fromkeys(d["trace"])) == ["websearch", "websearch (real sample)"]
    both = runs[runs["group"].isin(["main", "real"])].set_index(["trace", "scheme"])
    for r in d.itertuples():
        assert r.value == both.loc[(r.trace, r.scheme), "rr_count"]
        base = both.loc[(r.trace, "Baseline"), "rr_count"]
        assert (base == 0 and np.isnan(r.normalized)) or r.normalized == pytest.approx(r.value / base)


def _runs(main: pd.DataFrame) -> CocktailRuns:
    return CocktailRuns({"main": main}, None, PAPER.make_plan(traces=("nexus5", "usr1")))


def test_claims_average_per_trace_changes_and_give_the_ratio_of_sums():
    # Baseline 100 and 300 RRs, Cocktail 50 and 240: per trace -50% and -20% -> mean -35%;
    # sums 290 / 400 -> -27.5%
    rows = [("nexus5", "Baseline", 100), ("usr1", "Baseline", 300), ("nexus5", "Cocktail", 50),
            ("usr1", "Cocktail", 240)]
    main = pd.DataFrame(rows, columns=["trace", "scheme", "rr_count"])
    runs = _runs(main)
    claim = next(c for c in CLAIMS if c.metric == "rr_count" and c.scheme == "Cocktail" and c.ref == "Baseline")
    per, of_sums = relative_change(runs, claim)
    assert per.tolist() == pytest.approx([-50.0, -20.0]) and of_sums == pytest.approx(-27.5)
    table = claims(runs)
    row = table[table["claim"] == claim.text].iloc[0]
    assert row["flashrr_value"] == pytest.approx(-35.0) and row["holds"] is True and row["magnitude"] == "similar"
    missing = table[table["claim"].str.contains("vs redFTL")]
    assert missing["holds"].eq("n/a").all() and np.isnan(missing["flashrr_value"]).all()


def test_calibration_on_two_processes_and_from_snapshots_finds_the_same_factors(tiny_run, tmp_path):
    out, _ = tiny_run  # calibrated in this process, with the sweeps' snapshots
    table = (out / "calibration.csv").read_text()
    pooled = repro.calibrated(TINY, tmp_path / "pool", progress=False, jobs=2, snapshots=False)
    assert dict(pooled.scales) == dict(pd.read_csv(out / "calibration.csv")[["trace", "scale_time"]].values)
    assert (tmp_path / "pool" / "calibration.csv").read_text() == table
    assert not (tmp_path / "pool" / "store").exists()
    # with snapshots the first run of a trace saves its aged device where the sweeps look for it
    repro.calibrated(TINY, tmp_path / "snap", progress=False, jobs=0)
    assert (tmp_path / "snap" / "calibration.csv").read_text() == table
    assert list((tmp_path / "snap" / "store" / "snapshots").glob("*.npz"))


def test_retry_traces_aim_at_half_the_response_time_in_retries():
    # §V-B: ali206, sys1 and sys2 spend about half their mean response time in ECC retries; the load the
    # bisection drives down to 0.5 is 1 - that share.  The others aim at a read wait of half the unloaded
    # latency, a third of the latency (the wait rule), or under the busy rule at the busiest die's busy fraction.
    plan = Plan()
    assert repro.load_target(plan, "alibaba_206") == 0.5 and repro.load_target(plan, "systor2") == 0.5
    assert repro.load_target(plan, "nexus5") == pytest.approx(1 / 3)
    busy_rule = Plan(target_read_wait=None)
    assert repro.load_target(busy_rule, "nexus5") == busy_rule.target_busy
    assert repro.load_target(busy_rule, "systor1") == 0.5


def test_lengths_ali206_by_its_rr_count_the_others_by_the_same_amount_of_data(tmp_path):
    # 8 planes: a stated 320 RRs on 128 planes is 20 here; the tiny threshold of 400 reads makes ali206 reclaim
    reg = replace(repro.REGIME, rr_targets=(("alibaba_206", 320),), max_replays=64)
    plan = PAPER.make_plan(traces=("alibaba_206", "nexus5"), n_requests=400, regime=reg, target_busy=None,
                           device_overrides=(("rr_threshold_reads", 400),))
    assert plan.rr_target("alibaba_206") == 20
    done = repro.calibrated(plan, tmp_path, progress=False, jobs=0, snapshots=False)
    m = dict(done.replays)
    import flashrr
    from flashrr.reproduce.calibration import cached_trace
    cfg = plan.device_config()

    def rrs(k):
        return flashrr.simulate(cfg, cached_trace(replace(done, replays=(("alibaba_206", k),))
                                                  .trace_spec("alibaba_206"), cfg)).summary["rr_count"]
    # the smallest multiple that reaches the target (ali206's Table II repeat count is 1)
    assert rrs(m["alibaba_206"]) >= 20 > rrs(m["alibaba_206"] - 1)
    # nexus5 (RAF 50, 10 repeats) gets the smallest multiple with at least ali206's requests after RAF and repeats
    per = {t: cached_trace(plan.base_spec(t), cfg).info().n_requests for t in plan.traces}
    ali = m["alibaba_206"] * per["alibaba_206"]
    k = m["nexus5"]
    assert k * 10 * per["nexus5"] >= ali and (k == 1 or (k - 1) * 10 * per["nexus5"] < ali)
    assert pd.read_csv(tmp_path / "lengths.csv")["trace"].tolist() == ["alibaba_206"]


def test_read_count_group_plays_the_paper_reads_on_a_twin_of_the_calibrated_size():
    plan = Plan()
    # §IV-B: 2.8 billion read requests on 128 planes -> 175 M on 8; ali206 reads 0.8648 x RAF 2 per request
    assert plan.read_target("alibaba_206") == 175_000_000 and plan.read_target("nexus5") == 0
    assert plan.plays_for("alibaba_206", 5_000_000) == 21  # 175 M / 8.648 M = 20.2 plays
    assert plan.plays_for("alibaba_206", 200_000_000) == 1
    assert plan.reads_spec("alibaba_206", 5_000_000) == (
        "model:cocktail-alibaba_206?n_requests=5000000&mean_gap_ns=200000.0&pack=stripe&amplify_reads=2"
        "&amplify_spacing=spread&scale_time=16.0&repeat=21")
    # the fixed stretch even when the main group's arrivals are calibrated
    cal = replace(plan, scales=(("alibaba_206", 512.0),), read_lengths=(("alibaba_206", 5_000_000),))
    assert cal.reads_spec("alibaba_206") == plan.reads_spec("alibaba_206", 5_000_000)
    s = specs(cal)
    assert s["reads"]["traces"] == [cal.reads_spec("alibaba_206")]
    assert s["reads"]["policies"] == s["main"]["policies"] and s["reads"]["devices"] == s["main"]["devices"]
    assert "reads" not in specs(plan)  # before its calibration
    assert PAPER.make_plan(quick=True).read_targets == () == PAPER.make_plan(paper_scale=True).read_targets


def test_read_lengths_calibrated_on_baseline_alone_and_resumed(tmp_path, monkeypatch):
    import flashrr
    from flashrr.reproduce.calibration import cached_trace

    # 8 planes: a stated 320 RRs on 128 planes is 20 here, and 320,000 read requests 20,000
    reg = replace(repro.REGIME, rr_targets=(("alibaba_206", 320),))
    plan = PAPER.make_plan(traces=("alibaba_206",), regime=reg, target_busy=None,
                           device_overrides=(("rr_threshold_reads", 400),), read_targets=(("alibaba_206", 320_000),),
                           reads_range=(200.0, 3200.0), reads_steps=3, reads_tol=0.05)
    assert plan.read_target("alibaba_206") == 20_000
    done = repro.read_lengthened(plan, tmp_path, progress=False, jobs=0)
    n = dict(done.read_lengths)["alibaba_206"]
    assert 200 <= n <= 3200
    row = pd.read_csv(tmp_path / "read_lengths.csv").iloc[0]
    assert (row["trace"], int(row["n_requests"])) == ("alibaba_206", n)
    # the recorded ratio is Baseline's own RR count at that size over the target, and the plays give the reads
    cfg = plan.device_config()
    s = flashrr.simulate(cfg, cached_trace(done.reads_spec("alibaba_206"), cfg)).summary
    assert row["baseline_rr_ratio"] == pytest.approx(s["rr_count"] / 20)
    plays = done.plays_for("alibaba_206", n)
    assert done.reads_spec("alibaba_206").endswith(f"&repeat={plays}") and plays > 1
    assert abs(s["reads"] - 20_000) <= s["reads"] / plays  # within one play's reads of the target
    # resumed: read_lengths.csv answers, no Baseline runs
    monkeypatch.setattr(repro, "reads_ratio", lambda *a, **k: pytest.fail("recalibrated"))
    assert repro.read_lengthened(plan, tmp_path, progress=False, jobs=0).read_lengths == done.read_lengths
    # a plan without ali206 in its traces has no read-count group to calibrate
    assert repro.read_lengthened(replace(plan, traces=("nexus5",)), tmp_path, progress=False, jobs=0).read_lengths == ()


def test_read_count_claims_counted_by_hand():
    from flashrr.papers.cocktail.claims import read_count_claims, to_markdown

    rows = [("ali206", "Baseline", 1000, 200, 20.0, 100_000_000), ("ali206", "redFTL", 800, 180, 10.0, 100_000_000),
            ("ali206", "IPR", 500, 220, 40.0, 100_000_000), ("ali206", "Cocktail", 600, 210, 10.0, 100_000_000)]
    frame = pd.DataFrame(rows, columns=["trace", "scheme", "rr_count", "gc_count", "pages_moved_per_erase", "reads"])
    plan = replace(Plan(), read_lengths=(("alibaba_206", 5_000_000),))
    runs = CocktailRuns({"main": frame.iloc[:0], "reads": frame}, None, plan)
    t = read_count_claims(runs).set_index("claim")
    # 600/1000 - 1 = -40%; 600/800 - 1 = -25%; 600/500 - 1 = +20% (the wrong way); GC 210/200 - 1 = +5%
    assert t.loc["RR count, Cocktail vs Baseline", "flashrr_value"] == pytest.approx(-40.0)
    assert t.loc["RR count, Cocktail vs redFTL", "flashrr_value"] == pytest.approx(-25.0)
    assert t.loc["RR count, Cocktail vs IPR", "flashrr_value"] == pytest.approx(20.0)
    assert t.loc["RR count, Cocktail vs IPR", "holds"] is False
    assert t.loc["GC count, Cocktail vs Baseline", "flashrr_value"] == pytest.approx(5.0)
    assert t.loc["write amplification (pages moved per erase), Cocktail vs Baseline", "flashrr_value"] == \
        pytest.approx(-50.0)
    assert not any("ratio of sums" in c or "response" in c for c in t.index)  # counts only, per trace
    md = to_markdown(claims(runs), runs)
    assert "## Count claims at the paper's read count" in md and "1,000 RRs in 100,000,000 read requests" in md
    assert "ali206 5,000,000 requests x 21 plays" in md
    assert read_count_claims(_runs(frame.iloc[:0])).empty  # the group did not run


def test_read_count_group_runs_end_to_end_on_a_tiny_device(tmp_path):
    from flashrr.papers.cocktail.claims import to_markdown

    reg = replace(repro.REGIME, rr_targets=(("alibaba_206", 320),), max_replays=64)
    plan = PAPER.make_plan(traces=("alibaba_206",), n_requests=400, regime=reg, target_busy=None,
                           device_overrides=(("rr_threshold_reads", 400),), read_targets=(("alibaba_206", 320_000),),
                           reads_range=(200.0, 3200.0), reads_steps=3, reads_tol=0.05)
    runs = repro.run(plan, tmp_path, groups=("main", "reads"), jobs=0, progress=False)
    reads = runs.frame("reads")
    n = dict(runs.plan.read_lengths)["alibaba_206"]
    assert sorted(reads["scheme"]) == sorted(repro.SCHEMES.values())
    assert set(reads["trace"]) == {"ali206"} and set(reads["trace_source"]) == {runs.plan.reads_spec("alibaba_206")}
    assert f"n_requests={n}&" in reads["trace_source"].iloc[0]
    base = reads[reads["scheme"] == "Baseline"].iloc[0]
    assert base["rr_count"] / 20 == pytest.approx(pd.read_csv(tmp_path / "read_lengths.csv")["baseline_rr_ratio"][0])
    assert "## Count claims at the paper's read count" in to_markdown(claims(runs), runs)
    assert "reads" not in set(runs.frame("main")["group"])  # the main group's rows are its own
