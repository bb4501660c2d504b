"""``flashrr reproduce phasedrr``: the plan, every figure and the claims table on a
tiny run (values recomputed from the run's own rows), the claims arithmetic on
hand-made results, and (slow) ``--quick``."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.papers.phasedrr.claims import claims, to_markdown
from flashrr.papers.phasedrr.figures import FIGURES
from flashrr.papers.phasedrr.paper import PAPER
from flashrr.papers.phasedrr.plan import (DEFAULT_TRACE_PARAMS, QUICK_TRACES, READ_INTENSIVE, RR_FLOOR, SCHEMES, TRACES,
                                          Plan, Runs, specs)
from flashrr.reproduce import PAPERS, reproduce
from flashrr.reproduce.figures import FigureDataError
from flashrr.trace.samples import sample_path

PAPER_FIGURES = [2, 4, 5, 6, 7, 8, 9, 10]
# A small cache and threshold so that 20,000-request traces reach the RR window: H = 200,
# Delta = 4 (S = 160), the counter schemes' window 10 Delta.
TINY = PAPER.make_plan(traces=("ws_1", "web_0", "ali"), n_requests=20_000, repeat=2, rr_threshold=200, delta_reads=4,
                       delta_values=(2, 4, 8), start_reads=40, device_overrides=(("capacity_bytes", 1 << 20),))


def test_registry_and_plans():
    assert PAPERS["phasedrr"] is PAPER and PAPER.figures is FIGURES
    assert sorted(int(f[3:]) for f in FIGURES) == PAPER_FIGURES
    full, quick = PAPER.make_plan(), PAPER.make_plan(quick=True)
    assert full.traces == TRACES and len(TRACES) == 8 and full.rr_threshold == 25_000
    # S = H - 10 Delta is the paper's 22,440 at Delta = 256; the counter schemes' window is the same 10 Delta
    assert full.rr_threshold - 10 * full.delta_reads == 22_440 and full.start_reads == 10 * full.delta_reads
    assert full.delta_values == (128, 256, 512, 1024)
    # lengths: each trace replayed until Baseline makes RR_FLOOR RRs (ws_1 does not reclaim); quick: a quarter
    # of the floor and a lower cap, on the default plan's H, Delta and early-move window
    assert quick.quick and quick.traces == QUICK_TRACES and quick.repeat is None and full.repeat is None
    assert quick.regime.max_replays < full.regime.max_replays and full.regime.rr_target("ali") == RR_FLOOR
    assert quick.rr_target("usr_0") == RR_FLOOR // 4 == 50 and quick.rr_target("ws_1") == 0
    assert (quick.rr_threshold, quick.delta_reads, quick.start_reads) == (25_000, 256, 2560)
    assert quick.delta_values == full.delta_values and quick.occupancy_traces == ("usr_0",)
    assert full.rr_target("ws_1") == 0 == full.rr_target("ws_1 (real sample)")
    # the regime: packed traces on their footprint alone (SSDsim maps only the trace's pages), no warm-up
    assert (full.regime.placement, full.regime.occupancy, full.regime.warmup) == ("pack", 0.0, 0.0)
    assert PAPER.make_plan(repeat=128).repeat == 128
    with pytest.raises(ValueError, match="delta_values"):
        PAPER.make_plan(delta_reads=300)
    # default traces: ON/OFF arrivals; without trace parameters the plain presets
    assert dict(DEFAULT_TRACE_PARAMS)["idle_period_mean_ns"] > 0
    synth = Plan(workload="synth", n_requests=20_000)
    assert synth.trace_spec("ali") == ("synth:phasedrr-ali?n_requests=20000&idle_period_mean_ns=50000000"
                                       "&burst_requests_mean=64&pack=stripe")
    assert Plan(trace_params=(), workload="synth").trace_spec("lun1") == "synth:phasedrr-lun1?pack=stripe"
    # the model preset keeps the ON/OFF trace's mean gap: 200 us + 50 ms / 64 requests
    assert TINY.trace_spec("ali") == "model:phasedrr-ali?n_requests=20000&mean_gap_ns=981250.0&pack=stripe&repeat=2"
    assert Plan(trace_params=()).trace_spec("lun1") == "model:phasedrr-lun1?mean_gap_ns=200000.0&pack=stripe"
    assert replace(full, replays=(("lun1", 7),)).trace_spec("lun1").endswith("&pack=stripe&repeat=7")
    s = specs(full)
    assert set(s) == {"main", "sens", "counters", "occupancy", "real"}
    # the occupancy group: Baseline and PhasedRR on usr_0 and ali at 0.5, 0.75, 0.9 and 1.0 of the logical space
    assert s["occupancy"]["traces"] == [full.trace_spec("usr_0"), full.trace_spec("ali")]
    assert [(d["name"], d["fill_ratio"]) for d in s["occupancy"]["devices"]] == \
        [("phasedrr@0.5", 0.5), ("phasedrr@0.75", 0.75), ("phasedrr@0.9", 0.9), ("phasedrr@1", 1.0)]
    assert set(s["occupancy"]["policies"]) == {"baseline", "phasedrr"}
    # the real group: main's schemes on MQSim's web search excerpt (24,783 requests) in ws_1's place,
    # played round(1,055,448 / 24,783) = 43 times to reach the row's request count
    assert s["real"]["policies"] == s["main"]["policies"]
    assert s["real"]["traces"] == [f"{sample_path('websearch')}?pack=stripe&repeat=43"]
    assert full.trace_spec("ws_1 (real sample)") == s["real"]["traces"][0]
    assert "real" not in specs(PAPER.make_plan(traces=("usr_0",)))  # no sample of the row's family
    assert s["main"]["policies"]["phasedrr"] == {"delta_reads": 256}
    assert s["main"]["policies"]["rl-rr"] == {"start_reads": 2560, "charge_metadata": True}
    assert s["counters"]["policies"]["reallocation"]["charge_metadata"] is False
    assert s["counters"]["traces"] == [full.trace_spec(t) for t in READ_INTENSIVE]
    assert s["sens"]["policies"]["phasedrr"] == {"delta_reads": [128, 256, 512, 1024]}
    assert all(d["rr_threshold_reads"] == 25_000 for g in s.values() for d in g["devices"])


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro")
    res = reproduce("phasedrr", out, plan=TINY, jobs=0, progress=False)
    return out, res, pd.read_csv(out / "runs.csv")


def _csv(out, fid):
    return pd.read_csv(out / f"{FIGURES[fid].stem}.csv")


def test_tiny_run_writes_every_figure_and_every_run(tiny_run):
    out, res, runs = tiny_run
    assert set(res["figures"]) == set(FIGURES) and all(f.stem.startswith(i + "_") for i, f in FIGURES.items())
    written = {p.name: p.stat().st_size for p in out.glob("fig*")}
    assert set(written) == {f"{f.stem}.{ext}" for f in FIGURES.values() for ext in ("png", "pdf", "csv")}
    assert min(written.values()) > 0
    read_intensive = [t for t in TINY.traces if t in READ_INTENSIVE]
    # 3 traces x 4 schemes + 3 traces x 3 Deltas + 2 read-intensive traces x 2 counter schemes
    # + the 4 schemes on the real sample standing in for ws_1
    # + Baseline and PhasedRR on ali (the occupancy trace in TINY) at four occupancies
    assert runs.groupby("group").size().to_dict() == {"main": 12, "sens": 9, "counters": 2 * len(read_intensive),
                                                      "real": 4, "occupancy": 8}
    real = runs[runs["group"] == "real"]
    assert set(real["trace"]) == {"ws_1 (real sample)"} and set(real["scheme"]) == set(SCHEMES.values())
    assert (real["requests"] == 2 * 20_000).all()  # the sample's first 20,000 requests, 2 replays
    assert runs["die_idle_fraction_mean"].between(0, 1).all()
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["plan"]["rr_threshold"] == 200 and meta["timings_s"]["total_s"] > 0
    main = runs[runs["group"] == "main"]
    assert (main["rr_page_moves_all"] > 0).any() and (main.loc[main["scheme"] == "PhasedRR", "ws_htt"] > 0).any()
    # the main run at the default Delta is the sens run of that Delta (one store entry, two groups)
    sens_default = runs[(runs["group"] == "sens") & (runs["scheme"] == "Δ=4")].set_index("trace")["key"]
    main_p = main[main["scheme"] == "PhasedRR"].set_index("trace")["key"]
    assert sens_default.sort_index().tolist() == main_p.sort_index().tolist()


def test_tiny_run_figure_data_follow_the_runs(tiny_run):
    """Each figure's CSV recomputed from runs.csv by hand."""
    out, _, runs = tiny_run
    main = runs[runs["group"] == "main"].set_index(["trace", "scheme"])
    d = _csv(out, "fig05")
    assert len(d) == 2 * (3 + 1) * 4  # 2 metrics x (3 traces + the real sample) x 4 schemes
    assert list(dict.fromkeys(d["trace"])) == list(TINY.traces) + ["ws_1 (real sample)"]
    main_real = runs[runs["group"].isin(["main", "real"])].set_index(["trace", "scheme"])
    for r in d.itertuples():
        assert r.value == pytest.approx(main_real.loc[(r.trace, r.scheme), r.metric])
        base = main_real.loc[(r.trace, "Baseline"), r.metric]
        assert r.normalized == pytest.approx(r.value / base)
    d = _csv(out, "fig08")
    for r in d.itertuples():
        total_b = main.loc[(r.trace, "Baseline"), "erases_gc"] + main.loc[(r.trace, "Baseline"), "erases_rr"]
        assert (r.erases_gc, r.erases_rr) == (main.loc[(r.trace, r.scheme), "erases_gc"],
                                              main.loc[(r.trace, r.scheme), "erases_rr"])
        if total_b:
            assert r.normalized_total == pytest.approx((r.erases_gc + r.erases_rr) / total_b)
        else:
            assert np.isnan(r.normalized_total)
    d = _csv(out, "fig09")
    for r in d.itertuples():
        ident = main.loc[(r.trace, "PhasedRR"), f"ws_{r._2.lower()}"]
        hot = main.loc[(r.trace, "PhasedRR"), f"ws_{r._2.lower()}_hot"]
        assert r.identified == ident and r.hot == hot
        assert (np.isnan(r.accuracy_pct) and ident == 0) or r.accuracy_pct == pytest.approx(100 * hot / ident)
    d = _csv(out, "fig10").set_index("trace")
    for t in TINY.traces:
        p = main.loc[(t, "PhasedRR")]
        assert d.loc[t, "ws_peak_kb"] == pytest.approx(p["ws_peak_bytes"] / 1000)
        # 3 bitmaps of 256 bits = 12 words of 64 bits per scan, 10 ns each
        assert d.loc[t, "modelled_time_s"] == pytest.approx(p["ws_classify_scans"] * 12 * 10e-9)
    d = _csv(out, "fig04")
    assert set(d["scheme"]) == {"Δ=2", "Δ=4", "Δ=8"} and set(d["metric"]) == {"io_latency_mean_ns",
                                                                              "rr_page_moves_all"}
    d = _csv(out, "fig02")
    free = runs[runs["group"] == "counters"].set_index(["trace", "scheme"])
    for r in d.itertuples():
        src = free if r.series.endswith("W/o-O") else main
        key = r.series if r.series.endswith("W/o-O") else r.series.replace(" W-O", "")
        assert r.io_latency_mean_ns == pytest.approx(src.loc[(r.trace, key), "io_latency_mean_ns"])
    assert sorted(set(d["trace"])) == sorted(t for t in TINY.traces if t in READ_INTENSIVE)


def test_tiny_run_claims_recomputed_from_the_runs(tiny_run):
    out, res, runs = tiny_run
    table = pd.read_csv(out / "claims.csv").set_index("claim")
    main = runs[runs["group"] == "main"]

    def per_trace(metric, scheme):
        return main[main["scheme"] == scheme].set_index("trace")[metric]

    means = []
    for ref, paper in (("Baseline", -24.5), ("RL-RR", -46.0), ("Reallocation", -30.3)):
        p, r = per_trace("read_latency_mean_ns", "PhasedRR"), per_trace("read_latency_mean_ns", ref)
        mine = float(np.mean(100 * (p / r - 1)))
        row = table.loc[f"read latency, PhasedRR vs {ref}"]
        assert row["paper_value"] == paper and row["flashrr_value"] == pytest.approx(mine)
        assert str(row["holds"]) == str(mine < 0)
        means.append(mine)
    row = table.loc["read latency vs the three counterparts on average (§I, §V)"]
    assert row["paper_value"] == pytest.approx(33.6 * -1) and row["flashrr_value"] == pytest.approx(np.mean(means))
    p = main[main["scheme"] == "PhasedRR"]
    for cls, paper in (("HTT", 91.4), ("HTR", 68.1), ("TPD", 59.2)):
        n, hot = p[f"ws_{cls.lower()}"].sum(), p[f"ws_{cls.lower()}_hot"].sum()
        row = table.loc[f"identification accuracy, {cls}"]
        assert row["paper_value"] == paper
        assert (n == 0 and np.isnan(row["flashrr_value"])) or row["flashrr_value"] == pytest.approx(100 * hot / n)
    row = table.loc["peak working-set memory"]
    assert row["paper_value"] == 80 and row["flashrr_value"] == pytest.approx(p["ws_peak_bytes"].max() / 1000)
    ws = main.loc[main["trace"] == "ws_1", "rr_page_moves_all"].sum()
    assert table.loc["ws_1 fits in the cache: no RR page move for any scheme", "flashrr_value"] == ws
    # the idle fraction of every main run is printed under the claims
    md = (out / "claims.md").read_text()
    b = main[(main["trace"] == "ali")].set_index("scheme")["die_idle_fraction_mean"]
    assert "| ali | " + " | ".join(f"{b[s]:.3f}" for s in SCHEMES.values()) + " |" in md
    assert "| fig05 | read latency, PhasedRR vs Baseline | -24.5 |" in md


def _hand_runs(rows, traces=("t1", "t2")) -> Runs:
    df = pd.DataFrame(rows)
    df["device"] = "phasedrr"
    df["group"] = "main"
    return Runs({"main": df}, store=None, plan=PAPER.make_plan(traces=traces))


def test_claims_arithmetic_on_hand_made_results():
    zeros = {k: 0 for k in ("ws_htt", "ws_htt_hot", "ws_htr", "ws_htr_hot", "ws_tpd", "ws_tpd_hot",
                            "ws_peak_bytes", "ws_classify_scans", "erases_gc", "rr_page_moves_all")}
    base = dict(zeros, io_latency_mean_ns=100.0, erase_count=10, rr_episodes=4, reads=1, writes=0,
                cache_pages=8192, policy_metadata_bytes=0)
    rows = []
    for t, (b, p, rl) in (("t1", (100.0, 75.0, 150.0)), ("t2", (200.0, 180.0, 200.0))):
        rows.append({**base, "trace": t, "scheme": "Baseline", "read_latency_mean_ns": b})
        rows.append({**base, "trace": t, "scheme": "RL-RR", "read_latency_mean_ns": rl})
        rows.append({**base, "trace": t, "scheme": "PhasedRR", "read_latency_mean_ns": p, "ws_htt": 10,
                     "ws_htt_hot": 9 if t == "t1" else 6, "ws_tpd": 4, "ws_tpd_hot": 1, "ws_peak_bytes": 96 * 7})
    table = claims(_hand_runs(rows)).set_index("claim")
    # t1: 75/100 - 1 = -25 %, t2: 180/200 - 1 = -10 %: mean -17.5 %
    assert table.loc["read latency, PhasedRR vs Baseline", "flashrr_value"] == pytest.approx(-17.5)
    assert table.loc["read latency, PhasedRR vs Baseline", "magnitude"] == "similar"  # vs -24.5
    # vs RL-RR: -50 % and -10 %: mean -30 %
    assert table.loc["read latency, PhasedRR vs RL-RR", "flashrr_value"] == pytest.approx(-30.0)
    assert table.loc["read latency, PhasedRR vs Reallocation", "holds"] == "n/a"  # no Reallocation runs
    # pooled accuracy: (9 + 6) / 20 hottest; tepid 2 / 8; hotter never identified
    assert table.loc["identification accuracy, HTT", "flashrr_value"] == pytest.approx(75.0)
    assert table.loc["identification accuracy, TPD", "flashrr_value"] == pytest.approx(25.0)
    assert np.isnan(table.loc["identification accuracy, HTR", "flashrr_value"])
    assert table.loc["identification accuracy, overall", "flashrr_value"] == pytest.approx(100 * 17 / 28)
    assert table.loc["peak working-set memory", "flashrr_value"] == pytest.approx(0.672)
    assert table.loc["peak working-set memory", "holds"] == True  # noqa: E712  (672 B < 80 KB)
    assert table.loc["block erases, PhasedRR vs Baseline", "flashrr_value"] == 0.0
    assert table.loc["block erases, PhasedRR vs Baseline", "holds"] == False  # noqa: E712  (no reduction)
    assert "Direction holds for" in to_markdown(claims(_hand_runs(rows)))


def test_a_figure_without_data_raises_instead_of_drawing_nothing():
    runs = _hand_runs([{"trace": "t1", "scheme": "Baseline", "read_latency_mean_ns": 1.0, "io_latency_mean_ns": 1.0,
                        "ws_htt": 0, "ws_htt_hot": 0, "ws_htr": 0, "ws_htr_hot": 0, "ws_tpd": 0, "ws_tpd_hot": 0}],
                      traces=("t1",))
    for fid, what in (("fig02", "counters"), ("fig04", "sens"), ("fig09", "identified no page"),
                      ("fig10", "no PhasedRR")):
        with pytest.raises(FigureDataError, match=what):
            FIGURES[fid].fn(runs)


def test_rerun_resumes_from_the_store(tiny_run):
    out, _, _ = tiny_run
    before = sorted(p.name for p in (out / "store" / "runs").iterdir())
    again = reproduce("phasedrr", out, plan=TINY, jobs=0, progress=False, figures=["fig06"])
    assert sorted(p.name for p in (out / "store" / "runs").iterdir()) == before
    assert list(again["figures"]) == ["fig06"] and again["claims"] is None


def test_cli_rejects_an_unknown_figure_before_writing_anything(tmp_path):
    r = CliRunner().invoke(reproduce_cmd, ["phasedrr", "--figure", "fig03", "--out", str(tmp_path / "never")])
    assert r.exit_code != 0 and "unknown figure" in r.output and not (tmp_path / "never").exists()


@pytest.mark.slow
def test_quick_reproduction_end_to_end(tmp_path):
    """``--quick`` through the CLI: every figure, and RR work on the traces whose
    blocks reach the threshold, none on ws_1, which fits in the cache."""
    r = CliRunner().invoke(reproduce_cmd, ["phasedrr", "--quick", "--jobs", "2", "--out", str(tmp_path),
                                           "--no-progress"])
    assert r.exit_code == 0, r.output
    assert all((tmp_path / f"{fig.stem}.{ext}").is_file() for fig in FIGURES.values() for ext in ("png", "pdf"))
    moved = pd.read_csv(tmp_path / "runs.csv").query("group == 'main'").groupby("trace")["rr_page_moves_all"].max()
    assert moved["web_0"] > 0 and moved["usr_0"] > 0 and moved["ws_1"] == 0
    assert "claims: direction holds for" in r.output
