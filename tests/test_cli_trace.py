"""The ``flashrr trace`` click group: stats, convert, synth, and one-line errors."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from flashrr.cli.trace_cmds import trace
from flashrr.trace.io import cache_path, read_trace, read_trace_report

DATA = Path(__file__).parent / "data"
MQSIM_SAMPLE = DATA / "wsrch-small.mqsim.txt"


def run(*args):
    return CliRunner().invoke(trace, [str(a) for a in args])


def assert_one_line_error(result, *fragments):
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)  # a click error, not a crash
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    for frag in fragments:
        assert frag in lines[0]


@pytest.fixture
def sample(tmp_path) -> Path:
    p = tmp_path / "wsrch-small.mqsim.txt"
    shutil.copyfile(MQSIM_SAMPLE, p)
    return p


# ---------------------------------------------------------------------------
# convert
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("out_name,to,expect_fmt", [("out.msr.csv", None, "msr"), ("out.csv", "spc", "spc"),
                                                    ("out.alibaba.csv.gz", None, "alibaba"),
                                                    ("out.txt.zst", "TENCENT", "tencent")])
def test_convert_round_trips(sample, tmp_path, out_name, to, expect_fmt):
    out = tmp_path / out_name
    args = ["convert", sample, out] + (["--to", to] if to else [])
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert f"24,783 requests (mqsim -> {expect_fmt})" in result.stdout
    back, report = read_trace_report(out, cache=False)
    assert report.fmt == expect_fmt
    assert back == read_trace(sample, cache=False)


def test_convert_with_explicit_input_format(sample, tmp_path):
    result = run("convert", sample, tmp_path / "o.mqsim", "--from", "mqsim", "--no-cache")
    assert result.exit_code == 0, result.output
    assert not cache_path(sample).exists()
    assert len(read_trace(tmp_path / "o.mqsim", cache=False)) == 24_783


def test_convert_wrong_input_format_is_a_one_line_error(sample, tmp_path):
    result = run("convert", sample, tmp_path / "o.mqsim", "--from", "msr", "--no-cache")
    assert_one_line_error(result, "line 1", "expected 7 comma-separated fields")


def test_convert_needs_an_output_format(sample, tmp_path):
    result = run("convert", sample, tmp_path / "o.out")
    assert_one_line_error(result, "cannot tell the output format", "--to")


def test_convert_missing_input(tmp_path):
    result = run("convert", tmp_path / "missing.csv", tmp_path / "o.mqsim")
    assert_one_line_error(result, "missing.csv: no such trace file")


def test_convert_bad_line_and_skip_bad(tmp_path):
    src = tmp_path / "in.mqsim"
    src.write_text("100 0 8 8 1\n200 0 oops 8 1\n300 0 16 8 0\n")
    assert_one_line_error(run("convert", src, tmp_path / "o.spc", "--no-cache"),
                          "in.mqsim line 2: field 'start_sector'")
    result = run("convert", src, tmp_path / "o.spc", "--skip-bad", "--no-cache")
    assert result.exit_code == 0
    assert "skipped 1 bad line(s)" in result.stderr
    assert len(read_trace(tmp_path / "o.spc", cache=False)) == 2


def test_convert_rejects_read_only_output_format(sample, tmp_path):
    result = run("convert", sample, tmp_path / "o.txt", "--to", "blkparse")
    assert result.exit_code == 2  # click usage error: not a choice
    assert "blkparse" in result.output


# ---------------------------------------------------------------------------
# stats
# ---------------------------------------------------------------------------

def test_stats_table(sample, tmp_path):
    stats = pytest.importorskip("flashrr.trace.stats")
    other = tmp_path / "small.msr.csv"
    run("convert", sample, other)
    result = run("stats", sample, other, "--no-cache")
    assert result.exit_code == 0, result.output
    header, rule, *rows = result.stdout.strip().splitlines()
    for col in ("Trace", "Req #", "Rd R", "Rd Size", "Hot R", "FP"):
        assert col in header
    assert set(rule) <= {"-", " "}
    assert len(rows) == 2
    assert rows[0].startswith("wsrch-small") and "24,783" in rows[0]
    st = stats.trace_stats(read_trace(sample, cache=False))
    assert f"{100 * st['read_ratio']:.1f}%" in rows[0]


def test_stats_json_matches_trace_stats(sample):
    stats = pytest.importorskip("flashrr.trace.stats")
    result = run("stats", sample, "--json", "--page-size", "4096", "--format", "mqsim")
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)
    assert (entry["trace"], entry["format"], entry["skipped_lines"]) == ("wsrch-small", "mqsim", 0)
    expected = stats.trace_stats(read_trace(sample, cache=False), page_size_bytes=4096)
    for key in ("requests", "read_ratio", "avg_read_size_bytes", "hot_ratio", "hot_ratio_4", "footprint_bytes",
                "duration_s"):
        assert entry[key] == pytest.approx(float(expected[key]))
    assert entry["requests"] == 24_783


def test_stats_page_size_changes_the_footprint(sample):
    pytest.importorskip("flashrr.trace.stats")
    small = json.loads(run("stats", sample, "--json", "--page-size", "512").stdout)[0]["footprint_bytes"]
    large = json.loads(run("stats", sample, "--json", "--page-size", "65536").stdout)[0]["footprint_bytes"]
    assert small < large


def test_stats_errors(sample, tmp_path):
    pytest.importorskip("flashrr.trace.stats")
    assert_one_line_error(run("stats", tmp_path / "nope.csv"), "nope.csv: no such trace file")
    bad = tmp_path / "bad.mqsim"
    bad.write_text("1 0 0 8 1\n2 0 0 0 1\n")
    assert_one_line_error(run("stats", bad, "--no-cache"), "bad.mqsim line 2", "positive sector count")
    result = run("stats", bad, "--no-cache", "--skip-bad", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)[0]["skipped_lines"] == 1
    assert run("stats", sample, "--page-size", "0").exit_code == 2


# ---------------------------------------------------------------------------
# synth
# ---------------------------------------------------------------------------

def test_synth_writes_the_generated_trace(tmp_path):
    synth = pytest.importorskip("flashrr.trace.synth")
    out = tmp_path / "gen0.mqsim"
    result = run("synth", "gen0", "-o", out, "-n", 500, "--seed", 3)
    assert result.exit_code == 0, result.output
    assert "500 requests (mqsim)" in result.stdout
    back = read_trace(out, cache=False)
    expected = synth.synth_trace("gen0", n_requests=500, seed=3)
    assert back == expected


@pytest.mark.parametrize("name,to,fmt", [("g.msr.csv", None, "msr"), ("g.dat", "alibaba", "alibaba"),
                                         ("g.dat", None, "mqsim")])
def test_synth_output_format(tmp_path, name, to, fmt):
    pytest.importorskip("flashrr.trace.synth")
    out = tmp_path / name
    result = run("synth", "gen1", "-o", out, "-n", 200, *(["--to", to] if to else []))
    assert result.exit_code == 0, result.output
    trace, report = read_trace_report(out, cache=False)
    assert report.fmt == fmt
    assert len(trace) == 200


def test_synth_is_deterministic(tmp_path):
    pytest.importorskip("flashrr.trace.synth")
    run("synth", "ali0", "-o", tmp_path / "a.mqsim", "-n", 300, "--seed", 7)
    run("synth", "ali0", "-o", tmp_path / "b.mqsim", "-n", 300, "--seed", 7)
    assert (tmp_path / "a.mqsim").read_bytes() == (tmp_path / "b.mqsim").read_bytes()
    run("synth", "ali0", "-o", tmp_path / "c.mqsim", "-n", 300, "--seed", 8)
    assert not np.array_equal(read_trace(tmp_path / "a.mqsim", cache=False).offset,
                              read_trace(tmp_path / "c.mqsim", cache=False).offset)


def test_synth_unknown_preset_is_a_one_line_error(tmp_path):
    pytest.importorskip("flashrr.trace.synth")
    result = run("synth", "no-such-preset", "-o", tmp_path / "x.mqsim")
    assert_one_line_error(result, "no-such-preset")
    assert not (tmp_path / "x.mqsim").exists()


def test_group_help_lists_the_commands():
    result = run("--help")
    assert result.exit_code == 0
    for cmd in ("stats", "convert", "synth"):
        assert cmd in result.stdout
