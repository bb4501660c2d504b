"""Measured latencies from CSV, the simulator hand-off tables and ``flashrr pv``."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr.cli import main
from flashrr.config import SimConfig
from flashrr.pv import PVDataError, PVModel, load_csv, superblock_tables, write_csv


def _write(tmp_path, pgm_rows, ers_rows, pgm_head="die,plane,block,pe,layer,string,tprog_us",
           ers_head="die,plane,block,pe,tbers_us"):
    p, e = tmp_path / "pgm.csv", tmp_path / "ers.csv"
    p.write_text("\n".join([pgm_head] + pgm_rows) + "\n")
    e.write_text("\n".join([ers_head] + ers_rows) + "\n")
    return p, e


def test_round_trip(tmp_path):
    model = PVModel(dies=2, planes=2, blocks=3, seed=1)
    lats = [model.latencies(0), model.latencies(100)]
    write_csv(lats, tmp_path / "p.csv", tmp_path / "e.csv")
    back = load_csv(tmp_path / "p.csv", tmp_path / "e.csv")
    assert [b.pe for b in back] == [0, 100]
    for a, b in zip(lats, back):
        assert np.allclose(a.tprog_us, b.tprog_us) and np.allclose(a.tbers_us, b.tbers_us)


def test_interleaved_ids_map_733_to_plane_1_index_183(tmp_path):
    pgm = [f"0,{b},0,{layer},{s},{1600 + b + s}" for b in (732, 733, 734, 735) for layer in range(2)
           for s in range(4)]
    ers = [f"0,{b},0,{3500 + b}" for b in (732, 733, 734, 735)]
    p, e = _write(tmp_path, pgm, ers, "die,block,pe,layer,string,tprog_us", "die,block,pe,tbers_us")
    (lat,) = load_csv(p, e, block_ids="interleaved")
    assert lat.tprog_us.shape == (1, 4, 1, 2, 4)
    assert lat.tbers_us[0, 1, 0] == 3500 + 733 and lat.tprog_us[0, 1, 0, 0, 2] == 1600 + 733 + 2
    assert 733 % 4 == 1 and 733 // 4 == 183


def _one_block_rows():
    return [f"0,0,0,0,{layer},{s},1700.5" for layer in range(2) for s in range(2)], ["0,0,0,0,3500"]


def test_bad_value_names_file_line_and_column(tmp_path):
    pgm, ers = _one_block_rows()
    pgm[2] = "0,0,0,0,1,0,fast"
    p, e = _write(tmp_path, pgm, ers)
    with pytest.raises(PVDataError, match=r"pgm\.csv: line 4: column 'tprog_us'.*'fast'"):
        load_csv(p, e)
    pgm, ers = _one_block_rows()
    pgm[0] = "0,0,0,0,-1,0,1700"
    p, e = _write(tmp_path, pgm, ers)
    with pytest.raises(PVDataError, match=r"line 2: column 'layer'.*non-negative integer"):
        load_csv(p, e)
    pgm, ers = _one_block_rows()
    p, e = _write(tmp_path, pgm[:2] + [""] + pgm[2:], ers)
    with pytest.raises(PVDataError, match=r"line 4: column 'die'.*an empty field"):
        load_csv(p, e)


def test_structural_errors_are_named(tmp_path):
    pgm, ers = _one_block_rows()
    p, e = _write(tmp_path, pgm, ers, pgm_head="die,plane,block,pe,layer,tprog_us")
    with pytest.raises(PVDataError, match=r"line 1: missing column\(s\) \['string'\]"):
        load_csv(p, e)
    p, e = _write(tmp_path, pgm[:-1], ers)
    with pytest.raises(PVDataError, match="3 .* rows; expected 2 layers x 2 strings = 4"):
        load_csv(p, e)
    p, e = _write(tmp_path, pgm + [pgm[0]], ers)
    with pytest.raises(PVDataError, match="line 6: duplicate row"):
        load_csv(p, e)
    p, e = _write(tmp_path, pgm, ["0,0,1,0,3500"])
    with pytest.raises(PVDataError, match="no erase latency for die=0, plane=0, block=0"):
        load_csv(p, e)
    with pytest.raises(PVDataError, match="no such file"):
        load_csv(tmp_path / "missing.csv", e)


@settings(max_examples=10)
@given(sb_planes=st.sampled_from([1, 2, 4]), method=st.sampled_from(["random", "qstr_med", "str_med", "pgm_ltn"]),
       seed=st.integers(0, 1000))
def test_superblock_tables_use_every_block_once_within_one_die(sb_planes, method, seed):
    cfg = SimConfig().replace(channels=2, chips_per_channel=1, blocks_per_plane=32, pages_per_block=48,
                              sb_planes=sb_planes)
    t = superblock_tables(cfg, method, seed=seed)
    n_lanes = cfg.geometry.n_planes // sb_planes
    assert t.members.shape == (n_lanes, 32, sb_planes)
    for lane in range(n_lanes):
        for c in range(sb_planes):
            assert sorted(t.members[lane, :, c].tolist()) == list(range(32))
    dies = t.lane_planes // cfg.geometry.planes_per_die
    assert (dies == dies[:, :1]).all()  # every superblock stays within one die
    assert sorted(t.lane_planes.ravel().tolist()) == list(range(cfg.geometry.n_planes))
    assert t.tprog_ns.shape == (n_lanes, sb_planes, 32, 384) and t.tbers_ns.shape == (n_lanes, sb_planes, 32)


def test_superblock_tables_latencies_and_page_to_lwl():
    cfg = SimConfig().replace(channels=1, chips_per_channel=1, blocks_per_plane=32, pages_per_block=1152)
    t = superblock_tables(cfg, "sequential", seed=3)
    assert t.lwl_of_page[:7].tolist() == [0, 0, 0, 1, 1, 1, 2] and t.lwl_of_page[-1] == 383
    lat = PVModel(dies=1, blocks=32, seed=3).latencies(0)
    assert np.array_equal(t.tprog_ns[0], np.rint(lat.lwl()[0] * 1000).astype(np.int64))
    row = t.members[0, 5]
    assert t.row_program_ns(0, 5, 4) == int(np.rint(1000 * lat.lwl()[0, :, 5, 1]).max())
    assert t.row_erase_ns(0, 5) == int(np.rint(1000 * lat.tbers_us[0, np.arange(4), row]).max())
    rel = superblock_tables(cfg, "sequential", seed=3, scale="relative")
    assert abs(rel.tprog_ns.mean() - cfg.timing.t_program_ns) < 0.1 * cfg.timing.t_program_ns
    with pytest.raises(ValueError, match="within one die"):
        superblock_tables(cfg.replace(dies_per_chip=2, sb_dies=2), "random")


def test_cli_evaluate_json_and_text():
    r = CliRunner().invoke(main, ["pv", "evaluate", "--method", "qstr_med", "--dies", "1", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["checks_nominal_per_sb"] == 12 and len(out["per_sb"]["extra_pgm_us"]) == 400
    assert out["extra_pgm_us"] == pytest.approx(np.mean(out["per_sb"]["extra_pgm_us"]))
    r = CliRunner().invoke(main, ["pv", "evaluate", "--method", "str_rank", "--window", "2", "--dies", "1"])
    assert r.exit_code == 0 and "nominal 96" in r.output
    r = CliRunner().invoke(main, ["pv", "evaluate", "--method", "random", "--pgm-csv", "nope.csv"])
    assert r.exit_code != 0 and "go together" in r.output


def test_cli_lists_the_ten_methods():
    r = CliRunner().invoke(main, ["pv", "methods"])
    names = [line.split()[0] for line in r.output.splitlines()]
    assert r.exit_code == 0 and names == ["random", "sequential", "ers_ltn", "pgm_ltn", "optimal", "lwl_rank",
                                          "pwl_rank", "str_rank", "str_med", "qstr_med"]


def test_cli_evaluate_measured_csv(tmp_path):
    write_csv([PVModel(dies=1, blocks=6, seed=2).latencies(0)], tmp_path / "p.csv", tmp_path / "e.csv")
    r = CliRunner().invoke(main, ["pv", "evaluate", "--method", "pgm_ltn", "--pgm-csv", str(tmp_path / "p.csv"),
                                  "--ers-csv", str(tmp_path / "e.csv")])
    assert r.exit_code == 0 and "superblocks 6 over 1 dies" in r.output
    (tmp_path / "e.csv").write_text("die,plane,block,pe,tbers_us\n0,0,0,0,abc\n")
    r = CliRunner().invoke(main, ["pv", "evaluate", "--method", "pgm_ltn", "--pgm-csv", str(tmp_path / "p.csv"),
                                  "--ers-csv", str(tmp_path / "e.csv")])
    assert r.exit_code != 0 and "line 2: column 'tbers_us'" in r.output


def test_cli_calibrate_writes_parameters(tmp_path):
    out = tmp_path / "fit.json"
    r = CliRunner().invoke(main, ["pv", "calibrate", "--dies", "1", "--max-evals", "2", "--fit", "sigma_noise_us",
                                  "--validate-dies", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert "sigma_noise_us" in data["params"] and len(data["validation"]) == 18
    r = CliRunner().invoke(main, ["pv", "calibrate", "--fit", "t0_us", "--max-evals", "1"])
    assert r.exit_code != 0 and "cannot fit" in r.output
