"""``flashrr reproduce superblock-pv``: tables, figures and claims on a tiny plan,
and the shared claim helpers of ``flashrr.reproduce.claims``."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.papers.superblock_pv.figures import FIGURES
from flashrr.papers.superblock_pv.paper import PAPER
from flashrr.papers.superblock_pv.plan import Plan
from flashrr.papers.superblock_pv.tables import TABLE1, TABLE2, TABLE5
from flashrr.reproduce import PAPERS, claims, reproduce

TINY = Plan(dies=2, blocks=40, pe_points=(0, 3000), seed=1)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("pv")
    return out, reproduce("superblock-pv", out, plan=TINY, progress=False)


def test_registry_and_plans():
    assert PAPERS["superblock-pv"] is PAPER and not PAPER.has_traces
    assert sorted(FIGURES) == ["fig06", "fig12", "fig13", "fig14", "fig15"]
    full, quick = PAPER.make_plan(), PAPER.make_plan(quick=True)
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
    table = pd.read_csv(out / "claims.csv")
    assert list(table.columns) == claims.CLAIM_COLUMNS[:-1] + ["n_superblocks"]
    checks = table[table["claim"] == "similarity checks, QSTR-MED vs STR-MED"].iloc[0]
    assert checks["paper_value"] == pytest.approx(-99.22, abs=0.01)
    headline = table[table["claim"] == "extra ERS, QSTR-MED vs Random"].iloc[0]
    assert headline["paper_value"] == pytest.approx(-39.82, abs=0.01)
    assert "Direction holds for" in (out / "claims.md").read_text()
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["plan"]["dies"] == 2 and meta["timings_s"]["total_s"] > 0
    assert set(pd.read_csv(out / "overheads.csv")["checks_nominal_per_sb"]) >= {0, 12, 1536, 4096}


def test_single_figure_runs_only_what_it_needs(tmp_path):
    res = reproduce("superblock-pv", tmp_path, plan=TINY, figures=["fig14"])
    assert res["claims"] is None and set(res["figures"]) == {"fig14"}
    assert not (tmp_path / "claims.csv").exists()
    with pytest.raises(ValueError, match="unknown figure"):
        reproduce("superblock-pv", tmp_path, plan=TINY, figures=["fig99"])
    with pytest.raises(ValueError, match="no traces"):
        reproduce("superblock-pv", tmp_path, plan=TINY, repeat=3)


def test_a_table_alone(tmp_path):
    res = reproduce("superblock-pv", tmp_path, plan=TINY, figures=["table5"])
    assert res["figures"] == {"table5": [tmp_path / "table5_extra_latency.csv", tmp_path / "table5_extra_latency.md"]}
    assert "| Random |" in (tmp_path / "table5_extra_latency.md").read_text()
    assert not (tmp_path / "table1_directions.csv").exists() and not (tmp_path / "claims.csv").exists()


def test_shared_claim_helpers():
    assert claims.holds("lower", -3.0, -10.0) is True and claims.holds("parity", 1.5, 0.0) is False
    assert claims.holds("below", 2.0, 5.0) is True and claims.holds("lower", np.nan, -1) == "n/a"
    assert claims.magnitude("lower", -3.0, -10.0, True) == "weaker"
    assert claims.magnitude("lower", -12.0, -10.0, True) == "similar"
    assert claims.magnitude("lower", 2.0, -10.0, False) == "opposite"


@pytest.mark.slow
def test_cli_quick(tmp_path):
    r = CliRunner().invoke(reproduce_cmd, ["superblock-pv", "--quick", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "5 figures written" in r.output and (tmp_path / "claims.md").is_file()


def test_configurations_on_two_processes_give_the_same_results():
    from flashrr.papers.superblock_pv.plan import run

    labels = ["Sequential", "STR-rank (2)", "QSTR-MED (4)"]
    here_t, pool_t = {}, {}
    here, pooled = run(TINY, labels, here_t, jobs=0), run(TINY, labels, pool_t, jobs=2)
    assert list(here.results) == list(pooled.results) == ["Random"] + labels
    for label, r in here.results.items():
        q = pooled.results[label]
        assert set(r) == set(q)
        for key in set(r) - {"wall_s", "wall_per_sb_us", "per_sb"}:
            assert r[key] == q[key], (label, key)
        for col, values in r["per_sb"].items():
            np.testing.assert_array_equal(values, q["per_sb"][col])
    assert list(here_t) == list(pool_t) and here_t["model_s"] > 0 and pool_t["model_s"] > 0
