"""``flashrr reproduce shuffler``: the plan, every figure and the claims table on a
tiny run, the claims arithmetic on hand-made results, and (slow) ``--quick``."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.papers.shuffler.claims import CLAIMS, claims, relative_change, to_markdown
from flashrr.papers.shuffler.figures import FIGURES
from flashrr.papers.shuffler.paper import PAPER
from flashrr.papers.shuffler.plan import DEFAULT_REPEAT, SCHEMES, Plan, Runs, specs
from flashrr.reproduce import PAPERS, reproduce
from flashrr.reproduce.figures import FigureDataError

PAPER_FIGURES = [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]

# a threshold of 15 reads keeps the dies busy with RR: with the preset's pages moved through the controller
# gen1's Baseline would be busy 99.6% of the run and flagged, so the tiny plan moves them by copyback
TINY = PAPER.make_plan(traces=("ali0", "gen1"), n_requests=4000, repeat=2, delta_f_values=(0.2, 0.3),
                       delta_p_values=(0.05, 0.1), device_overrides=(("rr_threshold_reads", 15),
                                                                     ("capacity_bytes", 1 << 20),
                                                                     ("copyback", True)))


def test_registry_and_plans():
    assert PAPERS["shuffler"] is PAPER and PAPER.figures is FIGURES
    assert sorted(int(f[3:]) for f in FIGURES) == PAPER_FIGURES
    quick = PAPER.make_plan(quick=True)
    # the quick plan: a model twin and a generated trace, as long as in the default plan (so its per-trace
    # changes are the default plan's)
    assert quick.quick and quick.traces == ("ali1", "gen0") and quick.repeat == DEFAULT_REPEAT
    assert quick.n_requests == Plan().n_requests and quick.trace_spec("ali1") == Plan().trace_spec("ali1")
    assert quick.cache_sizes_mib == (32,)  # Fig. 16's claim reads the 32 MB cache
    assert PAPER.make_plan(repeat=128).repeat == 128 and len(PAPER.make_plan().traces) == 10
    # synthetic traces: superpage-aligned extents that keep Table 2's touched footprint
    synth = Plan(workload="synth", n_requests=4000)
    assert synth.trace_spec("ali0") == ("synth:ali0?n_requests=4000&align_bytes=32768&footprint_page_bytes=8192"
                                        "&pack=4")
    assert Plan(trace_params=(), workload="synth").trace_spec("lun0") == "synth:lun0?pack=4"
    # the default: the model preset at the synthetic trace's mean gap (200 us); gen0/gen1 have no model preset
    assert TINY.trace_spec("ali0") == "model:ali0?n_requests=4000&mean_gap_ns=200000.0&pack=4"
    assert TINY.trace_spec("gen1") == ("synth:gen1?n_requests=4000&align_bytes=32768&footprint_page_bytes=8192"
                                       "&pack=4")
    s = specs(Plan())
    assert set(s) == {"main", "block", "sens", "sb32", "cache", "occupancy"}
    # the regime: MQSim's 70% occupancy (its trace-based flow) on every device but the occupancy group's
    assert all(d["fill_ratio"] == 0.70 for g in ("main", "block", "sens", "sb32", "cache") for d in s[g]["devices"])
    assert [d["fill_ratio"] for d in s["occupancy"]["devices"]] == [0.5, 0.75, 0.9, 1.0]
    # Baseline and Shuffler on a model twin and a generated trace (gen0 alone when quick)
    assert s["occupancy"]["traces"] == [Plan().trace_spec("lun4"), Plan().trace_spec("gen1")]
    assert set(s["occupancy"]["policies"]) == {"baseline", "shuffler"}
    assert specs(quick)["occupancy"]["traces"] == [quick.trace_spec("gen0")]
    assert s["main"]["policies"] == {name: {} for name in SCHEMES}
    assert s["block"]["devices"][0]["sb_planes"] == 1
    assert [d["capacity_bytes"] for d in s["cache"]["devices"]] == [32 << 20, 128 << 20]
    assert s["sb32"]["devices"][0]["preset"] == "shuffler-32"


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro")
    res = reproduce("shuffler", out, plan=TINY, jobs=0, progress=False)
    return out, res


def test_tiny_run_writes_every_figure(tiny_run):
    out, res = tiny_run
    assert set(res["figures"]) == set(FIGURES)
    for fid, fig in FIGURES.items():
        for ext in ("png", "pdf", "csv"):
            p = out / f"{fig.stem}.{ext}"
            assert p.is_file() and p.stat().st_size > 0, p
        assert fig.stem.startswith(fid + "_")
    runs = pd.read_csv(out / "runs.csv")
    # 10 main + 2 block + 6 sens (one shared with main) + 10 sb32 + 20 cache rows, + 8 occupancy rows
    # (Baseline and Shuffler on gen1, the occupancy trace in TINY, at four occupancies)
    assert len(runs) == 10 + 2 + 6 + 10 + 20 + 8
    assert sorted(runs.loc[runs["group"] == "occupancy", "trace"].unique()) == ["gen1"]
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["plan"]["repeat"] == 2 and meta["timings_s"]["total_s"] > 0
    fig05 = pd.read_csv(out / "fig05_rr_count.csv")
    base = fig05[fig05["scheme"] == "Baseline"]
    assert np.allclose(base["normalized"].dropna(), 1.0) and len(base) == 2
    assert (runs.loc[runs["group"] == "main", "rr_count"] > 0).any()  # the tiny run reclaims
    fig02 = pd.read_csv(out / "fig02_block_reads_at_rr.csv")
    assert (fig02["q95"] <= 15).all() and (fig02["n_rr"] > 0).all()


def _csv(out, fid):
    return pd.read_csv(out / f"{FIGURES[fid].stem}.csv")


def test_tiny_run_figure_data_holds_every_series(tiny_run):
    """Each figure's CSV has the series and point counts the plan implies:
    bar figures one value per trace x scheme (x metric, x device); event figures
    one series per run that reclaimed, sized from the run's RR count in runs.csv
    (the event tables keep every RR).  No figure is empty."""
    out, _ = tiny_run
    runs = pd.read_csv(out / "runs.csv")
    traces, schemes = set(TINY.traces), set(SCHEMES.values())
    n_t, n_s = len(TINY.traces), len(SCHEMES)
    main = runs[runs["group"] == "main"].set_index(["trace", "scheme"])["rr_count"]

    def pairs(df):
        return set(zip(df["trace"], df["scheme"]))

    for fid in ("fig05", "fig08", "fig09", "fig10", "fig11", "fig14"):
        d = _csv(out, fid)
        assert len(d) == n_t * n_s and pairs(d) == {(t, s) for t in traces for s in schemes}, fid
        assert d["value"].notna().all(), fid
        assert np.allclose(d.loc[d["scheme"] == "Baseline", "normalized"].dropna(), 1.0), fid
    for fid, n_metrics in (("fig12", 2), ("fig15", 2), ("fig16", 2), ("fig17", 2), ("fig18", 2)):
        d = _csv(out, fid)
        assert len(d) == n_metrics * n_t * n_s, fid
        assert d.groupby(["metric", "device"]).size().tolist() == [n_t * n_s] * n_metrics, fid
    fig16 = _csv(out, "fig16")
    assert set(fig16["device"]) == {f"shuffler-{m}MB" for m in TINY.cache_sizes_mib}
    d = _csv(out, "fig01")  # Block and Superblock x traces x (latency, WAF)
    assert len(d) == 2 * n_t * 2 and set(d["scheme"]) == {"Block", "Superblock"} and d["value"].notna().all()
    d = _csv(out, "fig04")  # per panel: traces x the plan's settings
    assert len(d) == n_t * (len(TINY.delta_f_values) + len(TINY.delta_p_values))
    assert set(d["setting"]) == ({f"dF={v:g}" for v in TINY.delta_f_values}
                                 | {f"dP={v:g}" for v in TINY.delta_p_values})
    d = _csv(out, "fig02").set_index("trace")
    reclaimed = [t for t in TINY.traces if main[(t, "Baseline")] > 0]
    assert sorted(d.index) == sorted(reclaimed) and len(reclaimed) > 0
    assert all(d.loc[t, "n_rr"] == main[(t, "Baseline")] for t in reclaimed)
    d = _csv(out, "fig07")
    expect = {(t, s): main[(t, s)] for t in TINY.traces for s in ("Baseline", "Page", "Shuffler") if main[(t, s)]}
    assert dict(zip(zip(d["trace"], d["scheme"]), d["n_rr"])) == expect
    d = _csv(out, "fig06")  # the trace's largest RR count split into 20 bins; one point per non-empty bin
    for t in TINY.traces:
        counts = {s: int(main[(t, s)]) for s in schemes if main[(t, s)]}
        width = max(1, -(-max(counts.values()) // 20))
        got = d[d["trace"] == t].groupby("scheme").size().to_dict()
        assert got == {s: -(-n // width) for s, n in counts.items()}, t
    d = _csv(out, "fig13")  # a tail CDF per trace x scheme, rising to 1
    assert pairs(d) == {(t, s) for t in traces for s in schemes}
    for _, series in d.groupby(["trace", "scheme"]):
        assert series["cdf"].is_monotonic_increasing and series["cdf"].iloc[-1] == pytest.approx(1.0)
    d = _csv(out, "fig19")
    assert sorted(d["trace"]) == sorted(TINY.traces) and (d["policy_time_s"] > 0).all()


def test_a_figure_without_data_raises_instead_of_drawing_nothing():
    """A plan whose runs lack a figure's group, or in which nothing was
    reclaimed, makes that figure raise, naming it."""
    runs = _runs([
        {"trace": "t1", "scheme": "Baseline", "rr_count": 0, "waf": 1.0, "key": "k1"},
        {"trace": "t1", "scheme": "Shuffler", "rr_count": 0, "waf": 1.0, "key": "k2"},
    ], traces=("t1",))
    runs._artifacts.update({k: {"rr_events": pd.DataFrame(), "hist": None} for k in ("k1", "k2")})
    for fid, what in (("fig01", "block"), ("fig04", "sens"), ("fig15", "sb32"), ("fig16", "cache"),
                      ("fig19", "sb32"), ("fig02", "no RR"), ("fig06", "no RR"), ("fig07", "no RR"),
                      ("fig13", "histograms")):
        with pytest.raises(FigureDataError, match=f"{what}"):
            FIGURES[fid].fn(runs)
    # the bar figures of the main group still draw from the same runs
    import matplotlib.pyplot as plt

    fig, data = FIGURES["fig08"].fn(runs)
    plt.close(fig)
    assert len(data) == 2


def test_tiny_run_claims(tiny_run):
    out, res = tiny_run
    table = pd.read_csv(out / "claims.csv")
    assert len(table) == len(res["claims"]) >= len(CLAIMS)
    assert {"paper_value", "flashrr_value", "holds", "expected"} <= set(table.columns)
    row = table[table["claim"] == "RR count, Shuffler vs Baseline"].iloc[0]
    assert row["paper_value"] == -14.5 and row["n_traces"] == 2
    nocache = table[table["figure"] == "fig16"].iloc[0]
    assert nocache["flashrr_value"] == 0 and bool(nocache["holds"])  # Page, 32 MB cache
    md = (out / "claims.md").read_text()
    assert "| fig05 | RR count, Shuffler vs Baseline | -14.5 |" in md


def test_trace_subsets_on_every_trace_gives_the_runs_own_claims(tiny_run, capsys):
    """experiments/trace_subsets.py on Shuffler: the runs of every trace give the reproduction's own
    counts; ``--size 1`` adds one line per trace, each counted on that trace's runs alone."""
    import sys
    from pathlib import Path

    from flashrr.reproduce.report import claim_counts

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    from trace_subsets import main, subset_counts

    out, res = tiny_run
    runs = pd.read_csv(out / "runs.csv")
    assert subset_counts("shuffler", runs, out / "store", ["ali0", "gen1"]) == claim_counts(res["claims"])
    one = subset_counts("shuffler", runs, out / "store", ["gen1"])
    kept = runs[runs["trace"] == "gen1"]
    alone = Runs({g: df for g, df in kept.groupby("group")}, out / "store", replace(TINY, traces=("gen1",)))
    assert one == claim_counts(claims(alone))
    assert main(["shuffler", str(out), "--size", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["ali0+gen1", "ali0", "gen1"]


def test_rerun_resumes_from_the_store(tiny_run):
    out, res = tiny_run
    before = sorted(p.name for p in (out / "store" / "runs").iterdir())
    again = reproduce("shuffler", out, plan=TINY, jobs=0, progress=False, figures=["fig05"])
    assert sorted(p.name for p in (out / "store" / "runs").iterdir()) == before
    assert list(again["figures"]) == ["fig05"] and again["claims"] is None


def _runs(rows, traces=("t1", "t2")) -> Runs:
    df = pd.DataFrame(rows)
    df["device"] = "shuffler"
    df["group"] = "main"
    df["policy_name"] = [{v: k for k, v in SCHEMES.items()}[s] for s in df["scheme"]]
    return Runs({"main": df}, store=None, plan=PAPER.make_plan(traces=traces))


def test_claims_arithmetic_on_hand_made_results():
    runs = _runs([
        {"trace": "t1", "scheme": "Baseline", "rr_count": 100, "waf": 2.0, "user_flash_transactions": 50},
        {"trace": "t1", "scheme": "Shuffler", "rr_count": 80, "waf": 1.5, "user_flash_transactions": 50},
        {"trace": "t2", "scheme": "Baseline", "rr_count": 200, "waf": 1.0, "user_flash_transactions": 10},
        {"trace": "t2", "scheme": "Shuffler", "rr_count": 220, "waf": 1.1, "user_flash_transactions": 10},
    ])
    rr = next(c for c in CLAIMS if c.text == "RR count, Shuffler vs Baseline")
    assert relative_change(runs, rr).round(6).tolist() == [-20.0, 10.0]
    table = claims(runs).set_index("claim")
    assert table.loc["RR count, Shuffler vs Baseline", "flashrr_value"] == pytest.approx(-5.0)
    assert table.loc["RR count, Shuffler vs Baseline", "holds"] == True  # noqa: E712
    assert table.loc["RR count, Shuffler vs Baseline", "magnitude"] == "weaker"  # -5% vs the paper's -14.5%
    assert table.loc["WAF, Shuffler vs Baseline (up to)", "flashrr_value"] == pytest.approx(-25.0)
    assert table.loc["WAF, Shuffler vs Baseline (up to)", "magnitude"] == "similar"  # -25% vs -13.9%
    assert table.loc["user flash transactions, Shuffler vs Baseline (parity)", "holds"] == True  # noqa: E712
    assert table.loc["RR count, Page vs Baseline", "holds"] == "n/a"  # no Page runs
    assert "Direction holds for" in to_markdown(claims(runs))


def test_cli_rejects_unknown_figure_and_paper(tmp_path):
    r = CliRunner().invoke(reproduce_cmd, ["shuffler", "--figure", "fig03", "--out", str(tmp_path)])
    assert r.exit_code != 0 and "unknown figure" in r.output
    r = CliRunner().invoke(reproduce_cmd, ["nopaper"])
    assert r.exit_code != 0
    r = CliRunner().invoke(reproduce_cmd, ["--help"])
    assert r.exit_code == 0 and "--quick" in r.output and "--repeat" in r.output


@pytest.mark.slow
def test_quick_reproduction_from_the_cli(tmp_path):
    out = tmp_path / "quick"
    r = CliRunner().invoke(reproduce_cmd, ["shuffler", "--quick", "--jobs", "2", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    for fig in FIGURES.values():
        assert (out / f"{fig.stem}.png").is_file() and (out / f"{fig.stem}.pdf").is_file()
    table = pd.read_csv(out / "claims.csv")
    assert table["flashrr_value"].notna().all()
    runs = pd.read_csv(out / "runs.csv")
    main = runs[runs["group"] == "main"]
    assert (main.groupby("trace")["rr_count"].min() > 0).all()  # every quick trace reclaims
    assert "claims: direction holds for" in r.output
