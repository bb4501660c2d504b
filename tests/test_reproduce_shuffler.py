"""``flashrr reproduce shuffler``: the plan, every figure and the claims table on a
tiny run, the claims arithmetic on hand-made results, and (slow) ``--quick``."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.reproduce import PAPERS, paper_module
from flashrr.reproduce.shuffler import DEFAULT_REPEAT, SCHEMES, Plan, Runs, reproduce, specs
from flashrr.reproduce.shuffler_claims import CLAIMS, claims, relative_change, to_markdown
from flashrr.reproduce.shuffler_figures import FIGURES

PAPER_FIGURES = [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]

TINY = Plan.make(traces=("ali0", "gen1"), n_requests=4000, repeat=2, delta_f_values=(0.2, 0.3),
                 delta_p_values=(0.05, 0.1), device_overrides=(("rr_threshold_reads", 15),
                                                               ("capacity_bytes", 1 << 20)))


def test_registry_and_plans():
    assert "shuffler" in PAPERS and paper_module("shuffler").reproduce is reproduce
    assert sorted(int(f[3:]) for f in FIGURES) == PAPER_FIGURES
    quick = Plan.make(quick=True)
    assert quick.quick and len(quick.traces) == 3 and quick.repeat < DEFAULT_REPEAT
    assert Plan.make(repeat=128).repeat == 128 and len(Plan.make().traces) == 10
    # default traces: superpage-aligned extents that keep Table 2's touched footprint
    assert TINY.trace_spec("ali0") == "synth:ali0?n_requests=4000&align_bytes=32768&footprint_page_bytes=8192"
    assert Plan(trace_params=()).trace_spec("lun0") == "synth:lun0"
    s = specs(Plan())
    assert set(s) == {"main", "block", "sens", "sb32", "cache"}
    assert s["main"]["policies"] == {name: {} for name in SCHEMES}
    assert s["block"]["devices"][0]["sb_planes"] == 1
    assert [d["capacity_bytes"] for d in s["cache"]["devices"]] == [32 << 20, 128 << 20]
    assert s["sb32"]["devices"][0]["preset"] == "shuffler-32"


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro")
    res = reproduce(out, plan=TINY, jobs=0, progress=False)
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
    # 10 main + 2 block + 6 sens (one shared with main) + 10 sb32 + 20 cache rows
    assert len(runs) == 10 + 2 + 6 + 10 + 20
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["plan"]["repeat"] == 2 and meta["timings_s"]["total_s"] > 0
    fig05 = pd.read_csv(out / "fig05_rr_count.csv")
    base = fig05[fig05["scheme"] == "Baseline"]
    assert np.allclose(base["normalized"].dropna(), 1.0) and len(base) == 2
    assert (runs.loc[runs["group"] == "main", "rr_count"] > 0).any()  # the tiny run reclaims
    fig02 = pd.read_csv(out / "fig02_block_reads_at_rr.csv")
    assert (fig02["q95"] <= 15).all() and (fig02["n_rr"] > 0).all()


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


def test_rerun_resumes_from_the_store(tiny_run):
    out, res = tiny_run
    before = sorted(p.name for p in (out / "store" / "runs").iterdir())
    again = reproduce(out, plan=TINY, jobs=0, progress=False, figures=["fig05"])
    assert sorted(p.name for p in (out / "store" / "runs").iterdir()) == before
    assert list(again["figures"]) == ["fig05"] and again["claims"] is None


def _runs(rows, traces=("t1", "t2")) -> Runs:
    df = pd.DataFrame(rows)
    df["device"] = "shuffler"
    df["group"] = "main"
    df["policy_name"] = [{v: k for k, v in SCHEMES.items()}[s] for s in df["scheme"]]
    return Runs({"main": df}, store=None, plan=Plan.make(traces=traces))


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


def test_one_experiment_script_per_figure():
    root = Path(__file__).resolve().parents[1] / "experiments" / "shuffler"
    for fid, fig in FIGURES.items():
        script = root / f"{fig.stem}.py"
        assert script.is_file(), script
        assert f'figure_main("{fid}")' in script.read_text()


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
