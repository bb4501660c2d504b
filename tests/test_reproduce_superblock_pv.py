"""``flashrr reproduce superblock-pv``: tables, figures and claims on a tiny plan,
and the shared claim helpers Shuffler now imports from ``reproduce.common``."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.reproduce import PAPERS, common, paper_module
from flashrr.reproduce.superblock_pv import TABLE1, TABLE2, TABLE5, Plan, reproduce
from flashrr.reproduce.superblock_pv_figures import FIGURES

TINY = Plan(dies=2, blocks=40, pe_points=(0, 3000), seed=1)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("pv")
    return out, reproduce(out, plan=TINY, progress=False)


def test_registry_and_plans():
    assert paper_module("superblock-pv").reproduce is reproduce and "superblock-pv" in PAPERS
    assert sorted(FIGURES) == ["fig06", "fig12", "fig13", "fig14", "fig15"]
    full, quick = Plan.make(), Plan.make(quick=True)
    assert full.dies == 24 and full.pe_points == tuple(range(0, 3001, 200)) and len(full.pe_points) == 16
    assert quick.dies < full.dies and quick.quick


def test_tables_sit_next_to_the_papers_values(tiny):
    out, _ = tiny
    t1 = pd.read_csv(out / "table1_directions.csv")
    assert t1["method"].tolist() == list(TABLE1)
    row = t1.set_index("method").loc["STR-MED (4)"]
    assert row["paper_pgm_reduction_us"] == 2189.94 and row["paper_pgm_improvement_pct"] == 16.74
    assert row["pgm_gap_pp"] == pytest.approx(row["pgm_improvement_pct"] - 16.74)
    assert pd.read_csv(out / "table2_str_rank_window.csv")["method"].tolist() == list(TABLE2)
    t5 = pd.read_csv(out / "table5_extra_latency.csv").set_index("method")
    assert list(t5.index) == list(TABLE5)
    assert t5.loc["QSTR-MED (4)", "paper_extra_ers_us"] == 25.10
    assert t5.loc["QSTR-MED (4)", "paper_ers_improvement_pct"] == pytest.approx(39.82, abs=0.01)
    # our Random row is the mean of the per-superblock values drawn in Fig. 6 at P/E 0 and in Fig. 15
    fig15 = pd.read_csv(out / "fig15_pe_cycles.csv")
    rand = fig15[fig15["label"] == "Random"]
    assert t5.loc["Random", "extra_pgm_us"] == pytest.approx(rand["extra_pgm_us"].mean())
    assert "| QSTR-MED (4) | 10,911.53 |" in (out / "table5_extra_latency.md").read_text()


def test_every_figure_and_the_claims(tiny):
    out, res = tiny
    for fig in FIGURES.values():
        for ext in ("png", "pdf", "csv"):
            assert (out / f"{fig.stem}.{ext}").stat().st_size > 0
    fig13 = pd.read_csv(out / "fig13_distribution.csv")
    assert (fig13.groupby("label")["superblocks"].sum() == 2 * 40 * 2).all()
    claims = pd.read_csv(out / "claims.csv")
    assert list(claims.columns) == common.CLAIM_COLUMNS[:-1] + ["n_superblocks"]
    checks = claims[claims["claim"] == "similarity checks, QSTR-MED vs STR-MED"].iloc[0]
    assert checks["paper_value"] == pytest.approx(-99.22, abs=0.01)
    headline = claims[claims["claim"] == "extra ERS, QSTR-MED vs Random"].iloc[0]
    assert headline["paper_value"] == pytest.approx(-39.82, abs=0.01)
    assert "Direction holds for" in (out / "claims.md").read_text()
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["plan"]["dies"] == 2 and meta["timings_s"]["total_s"] > 0
    assert set(pd.read_csv(out / "overheads.csv")["checks_nominal_per_sb"]) >= {0, 12, 1536, 4096}


def test_single_figure_runs_only_what_it_needs(tmp_path):
    res = reproduce(tmp_path, plan=TINY, figures=["fig14"])
    assert res["claims"] is None and set(res["figures"]) == {"fig14"}
    assert not (tmp_path / "claims.csv").exists()
    with pytest.raises(ValueError, match="unknown figure"):
        reproduce(tmp_path, plan=TINY, figures=["fig99"])
    with pytest.raises(ValueError, match="no traces"):
        reproduce(tmp_path, plan=TINY, repeat=3)


def test_per_figure_script_entry_point(tmp_path, capsys):
    from flashrr.reproduce.superblock_pv import figure_main

    figure_main("table5", ["--quick", "--dies", "1", "--out", str(tmp_path)])
    assert capsys.readouterr().out.split() == [str(tmp_path / "table5_extra_latency.csv"),
                                               str(tmp_path / "table5_extra_latency.md")]
    assert "| Random |" in (tmp_path / "table5_extra_latency.md").read_text()


def test_shared_claim_helpers():
    assert common.holds("lower", -3.0, -10.0) is True and common.holds("parity", 1.5, 0.0) is False
    assert common.holds("below", 2.0, 5.0) is True and common.holds("lower", np.nan, -1) == "n/a"
    assert common.magnitude("lower", -3.0, -10.0, True) == "weaker"
    assert common.magnitude("lower", -12.0, -10.0, True) == "similar"
    assert common.magnitude("lower", 2.0, -10.0, False) == "opposite"


@pytest.mark.slow
def test_cli_quick(tmp_path):
    r = CliRunner().invoke(reproduce_cmd, ["superblock-pv", "--quick", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "5 figures written" in r.output and (tmp_path / "claims.md").is_file()
