"""``flashrr trace fit`` and ``flashrr trace validate``, replaying a fitted model with ``flashrr run``, and
``validate_model``, the function behind validate, against direct simulations and a brute-force region count.

The TPC-C sample (6,999 requests, tests/data) keeps each command under a few
seconds; it spans more than the shuffler device, so validate folds it
(``?fold=modulo``), as the command's help says.
"""
from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from flashrr import simulate
from flashrr.cli import main
from flashrr.model_validation import GOALS, METRICS, validate_model
from flashrr.simulate import resolve_config
from flashrr.trace.io import read_trace
from flashrr.trace.model import MIN_REQUESTS, ModelSource, fit_model, generate_trace, load_model
from flashrr.trace.pipeline import open_trace_spec
from trace_helpers import assert_models_equal, lru_hits

DATA = Path(__file__).parent / "data"
TPCC = DATA / "tpcc-small.mqsim.txt"
FOLDED = f"{TPCC}?fold=modulo"
RECORD_KEYS = {"policy", "metric", "real", "model", "model_min", "model_max", "diff", "goal", "met"}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line_error(result, *fragments, code=1):
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit)  # a click error, not a crash
    assert "Traceback" not in result.output
    lines = [ln for ln in result.stderr.strip().splitlines() if ln.startswith("Error")]
    assert len(lines) == 1, result.stderr
    if code == 1:
        assert result.stderr.strip() == lines[0]  # nothing but the error line
    for frag in fragments:
        assert frag in lines[0], lines[0]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fit") / "tpcc.toml"
    result = run("trace", "fit", TPCC, "-o", out)
    assert result.exit_code == 0, result.output
    return out


# ---------------------------------------------------------------------------
# fit, then run
# ---------------------------------------------------------------------------

def test_fit_writes_the_model_of_the_trace(fitted):
    assert_models_equal(load_model(fitted), fit_model(read_trace(TPCC)))


def test_fit_reports_what_it_wrote(tmp_path):
    out = tmp_path / "m.toml"
    result = run("trace", "fit", TPCC, "-o", out, "--name", "tpcc-twin", "--fit-param", "phases=2",
                 "--fit-param", "region_bytes=2097152")
    assert result.exit_code == 0, result.output
    model = load_model(out)
    assert model.name == "tpcc-twin" and model.phases == 2 and model.region_bytes == 2 << 20
    # every segment the file holds: the maps of each op's fresh requests and, where it has them, of its run
    # heads (the TPC-C writes have some), counted from the TOML tables
    import tomllib

    d = tomllib.loads(out.read_text())
    assert "heads" in d["write"]
    n_seg = sum(len(ph["start"]) for op in ("read", "write") for places in (d[op], d[op].get("heads"))
                if places is not None for ph in places["phase"])
    assert result.stdout.strip() == (f"{out}: model of tpcc-small (6,999 requests): {n_seg:,} heat-map segments of "
                                     f"2,048 KiB regions, {out.stat().st_size / 1024:,.0f} KiB")


def test_a_fitted_file_replays_with_run(fitted):
    result = run("run", "--trace", f"model:{fitted}?n_requests=3000&seed=2&fold=modulo", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    expect = generate_trace(load_model(fitted), 3000, seed=2)
    assert summary["requests"] == 3000
    assert summary["writes"] == int(expect.is_write.sum()) and summary["reads"] == int((~expect.is_write).sum())


def test_fold_in_fit_needs_a_device(tmp_path):
    assert_one_line_error(run("trace", "fit", FOLDED, "-o", tmp_path / "m.toml"), "key 'fold'", "--device")


def test_fit_takes_a_pipeline_and_a_model_spec(tmp_path, fitted):
    out = tmp_path / "again.toml"
    result = run("trace", "fit", f"model:{fitted}?n_requests=2000&seed=5", "-o", out)
    assert result.exit_code == 0, result.output
    assert load_model(out).source["requests"] == 2000


# ---------------------------------------------------------------------------
# validate
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def validated():
    text = run("trace", "validate", FOLDED, "--repeat", "1", "--seeds", "1")
    records = run("trace", "validate", FOLDED, "--repeat", "1", "--seeds", "1", "--json")
    return text, records


def test_validate_prints_every_metric_and_the_goals(validated):
    result, _ = validated
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == ("trace tpcc-small (6,999 requests) against model tpcc-small: 1 seed(s), 1 replay(s) each, "
                        "device shuffler")
    assert lines[1] == "policy baseline"
    assert lines[2].split() == ["metric", "real", "model", "model", "range", "diff", "goal", "met"]
    rows = {label: next(ln for ln in lines[4:] if ln.startswith(label + "  ")) for label in METRICS.values()}
    assert len(lines) == 4 + len(METRICS)
    for metric, label in METRICS.items():
        row = rows[label]
        if metric in GOALS:
            kind, bound = GOALS[metric]
            goal = f"within {bound:.0%}" if kind == "rel" else f"within {bound * 100:.0f} pts"
            assert goal in row and (row.rstrip().endswith("yes") or row.rstrip().endswith("NO")), row
        else:
            assert "within" not in row and not row.rstrip().endswith(("yes", "NO")), row


def test_validate_json_has_one_record_per_metric(validated):
    _, result = validated
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    assert [r["metric"] for r in records] == list(METRICS)
    for r in records:
        assert set(r) == RECORD_KEYS and r["policy"] == "baseline"
        assert (r["goal"] is None) == (r["metric"] not in GOALS)
        assert (r["met"] is None) == (r["metric"] not in GOALS)
        if r["metric"] in GOALS and r["real"]:  # the goal, checked from the record's own numbers
            kind, bound = GOALS[r["metric"]]
            diff = (r["model"] - r["real"]) / r["real"] if kind == "rel" else r["model"] - r["real"]
            # the JSON keeps 10 decimal places of real, model and diff: bound what that rounding can move diff
            slack = 5e-11 * ((1 + abs(r["model"]) / abs(r["real"])) / abs(r["real"]) if kind == "rel" else 2) + 5e-11
            assert abs(r["diff"] - diff) <= slack
            assert r["met"] == (abs(diff) <= bound)


def test_validate_with_the_saved_model_gives_the_same_records(validated, fitted, tmp_path):
    """The model file round trip is exact, so the file of the same fit (of the folded trace) replays the same
    generated traces as a fit done in memory."""
    _, in_memory = validated
    out = tmp_path / "folded.toml"
    assert run("trace", "fit", FOLDED, "--device", "shuffler", "-o", out).exit_code == 0
    result = run("trace", "validate", FOLDED, "--model", out, "--repeat", "1", "--seeds", "1", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads(in_memory.stdout)


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

def test_missing_trace_file(tmp_path):
    assert_one_line_error(run("trace", "fit", tmp_path / "nope.txt", "-o", tmp_path / "m.toml"),
                          "nope.txt: no such trace file")
    assert_one_line_error(run("trace", "validate", tmp_path / "nope.txt"), "nope.txt: no such trace file")


def test_missing_model_file(tmp_path):
    assert_one_line_error(run("trace", "validate", FOLDED, "--model", tmp_path / "gone.toml"),
                          "gone.toml': no such file")


def test_unknown_fit_param(tmp_path):
    for cmd in (("trace", "fit", TPCC, "-o", tmp_path / "m.toml"), ("trace", "validate", FOLDED)):
        assert_one_line_error(run(*cmd, "--fit-param", "bogus=1", "--fit-param", "zeta=2"),
                              "--fit-param: unknown fit setting(s) bogus, zeta", "expected one of unit_bytes")
    assert not (tmp_path / "m.toml").exists()


def test_bad_fit_param_value(tmp_path):
    assert_one_line_error(run("trace", "fit", TPCC, "-o", tmp_path / "m.toml", "--fit-param", "unit_bytes=1000"),
                          "fit setting unit_bytes: expected a power of two")
    assert_one_line_error(run("trace", "fit", TPCC, "-o", tmp_path / "m.toml", "--fit-param", "phases=abc"),
                          "fit setting phases")


def test_bad_device_param():
    assert_one_line_error(run("trace", "validate", FOLDED, "-p", "bogus=1"), "bogus: unknown configuration field")
    assert_one_line_error(run("trace", "validate", FOLDED, "-p", "rr_threshold_reads=-5"),
                          "rr_threshold_reads: must be a positive integer")
    # a malformed KEY=VALUE is a usage error (exit 2), as in `flashrr run`
    assert_one_line_error(run("trace", "validate", FOLDED, "-p", "noequals"), "'noequals': expected KEY=VALUE",
                          code=2)


def test_fit_param_with_a_model_file_is_a_usage_error(fitted):
    assert_one_line_error(run("trace", "validate", FOLDED, "--model", fitted, "--fit-param", "phases=2"),
                          "--fit-param applies only when the model is fitted now", code=2)


def test_a_trace_too_short_to_fit(tmp_path):
    src = tmp_path / "sample.msr.csv"
    shutil.copyfile(DATA / "sample.msr.csv", src)
    assert_one_line_error(run("trace", "fit", src, "-o", tmp_path / "m.toml"),
                          f"trace 'sample': requests: 4; fitting a model needs at least {MIN_REQUESTS}")


def test_a_trace_that_does_not_fit_the_device_is_named_with_the_fold_hint():
    assert_one_line_error(run("trace", "validate", TPCC, "--repeat", "1", "--seeds", "1"),
                          "does not fit device 'shuffler'", "fold=modulo")


def test_an_unwritable_output(tmp_path):
    result = run("trace", "fit", TPCC, "-o", tmp_path / "no" / "such" / "dir" / "m.toml")
    assert_one_line_error(result, "No such file or directory")


def test_generated_counts_are_not_those_of_an_empty_trace(fitted):
    """Guard for the replay test above: a generated trace has both ops, so equal counts mean something."""
    expect = generate_trace(load_model(fitted), 3000, seed=2)
    assert 0 < int(expect.is_write.sum()) < 3000
    assert np.unique(expect.offset).size > 100


# ---------------------------------------------------------------------------
# validate_model, the function behind validate
# ---------------------------------------------------------------------------

def brute_force_region_top_share(trace, page_bytes=8192, region_bytes=2 << 20, fraction=0.1) -> float:
    """Page reads per 2 MiB region (a read counts once per page it touches), and the share of them in the
    ceil(10%) busiest of the regions reads touch: a loop over requests and pages."""
    per_region: Counter = Counter()
    for off, size, w in zip(trace.offset.tolist(), trace.size.tolist(), trace.is_write.tolist()):
        if w:
            continue
        for page in range(off // page_bytes, (off + size - 1) // page_bytes + 1):
            per_region[page * page_bytes // region_bytes] += 1
    counts = sorted(per_region.values(), reverse=True)
    k = math.ceil(fraction * len(counts))
    return sum(counts[:k]) / sum(counts)


def brute_force_lru_hits(trace, capacity: int, page_bytes=8192) -> float:
    """The hit ratio of an LRU cache of ``capacity`` pages fed the pages of the reads in order (a read touches
    each of its pages once; writes do not touch the cache), simulated page by page."""
    pages = [page for off, size, w in zip(trace.offset.tolist(), trace.size.tolist(), trace.is_write.tolist())
             if not w for page in range(off // page_bytes, (off + size - 1) // page_bytes + 1)]
    return lru_hits(pages, capacity) / len(pages)


SIMULATED = ("rr_count", "gc_count", "waf", "cache_read_hit_ratio", "read_latency_mean_ns", "read_latency_p99_ns")


def test_validate_model_real_column_is_a_direct_simulation_of_the_trace():
    """CloudPhysics (113,872 requests) on the shuffler device with RR after 500 reads of a block, so the real
    trace does reach read reclaim."""
    cfg = resolve_config("shuffler").replace(rr_threshold_reads=500)
    spec = f"{DATA / 'cloudphysics-io.mqsim.txt.gz'}?fold=modulo"
    report = validate_model(spec, config=cfg, repeat=1, seeds=(1,))
    real = report.table.set_index("metric")["real"]
    direct = simulate(cfg, spec, repeat=1).summary
    assert direct["rr_count"] > 0
    for metric in SIMULATED:
        assert real[metric] == float(direct[metric]), metric
    folded = open_trace_spec(spec, cfg)[0].to_trace()
    assert real["region_top10_share"] == pytest.approx(brute_force_region_top_share(folded), abs=1e-12)
    for n in (1024, 8192):
        assert real[f"lru_hit_{n}"] == pytest.approx(brute_force_lru_hits(folded, n), abs=1e-12)


def test_validate_model_model_column_is_the_mean_over_seeds_of_direct_simulations():
    cfg = resolve_config("shuffler")
    real = open_trace_spec(FOLDED, cfg)[0].to_trace()
    model = fit_model(real)
    report = validate_model(real, model, config=cfg, repeat=2, seeds=(1, 2), n_requests=4000)
    table = report.table.set_index("metric")
    gens = [ModelSource(model, 4000, seed=s).to_trace() for s in (1, 2)]
    runs = [simulate(cfg, g, repeat=2).summary for g in gens]
    for metric in SIMULATED:
        values = [float(r[metric]) for r in runs]
        assert table.loc[metric, "model"] == pytest.approx(np.mean(values), rel=1e-12, abs=1e-12), metric
        assert (table.loc[metric, "model_min"], table.loc[metric, "model_max"]) == (min(values), max(values))
    shares = [brute_force_region_top_share(g) for g in gens]
    assert table.loc["region_top10_share", "model"] == pytest.approx(np.mean(shares), abs=1e-12)
    hits = [brute_force_lru_hits(g, 1024) for g in gens]
    assert table.loc["lru_hit_1024", "model"] == pytest.approx(np.mean(hits), abs=1e-12)
    assert report.runs.shape[0] == 3 and report.model_name == model.name


def test_fit_notes_a_trace_aligned_beyond_the_start_unit(tmp_path):
    """Every request of the web search sample starts on an 8 KiB boundary: the fit takes 8 KiB units by itself
    and says nothing, but given unit_bytes=4096 it says that unit_bytes=8192 keeps the alignment; nothing is
    said for the TPC-C sample (512-byte starts, 4 KiB units)."""
    ws = DATA / "wsrch-small.mqsim.txt"
    result = run("trace", "fit", ws, "-o", tmp_path / "ws.toml")
    assert result.exit_code == 0 and result.stderr == "", result.output
    assert load_model(tmp_path / "ws.toml").unit_bytes == 8192
    result = run("trace", "fit", ws, "-o", tmp_path / "ws4.toml", "--fit-param", "unit_bytes=4096")
    assert result.exit_code == 0, result.output
    assert "8 KiB boundaries" in result.stderr and "--fit-param unit_bytes=8192" in result.stderr
    result = run("trace", "fit", TPCC, "-o", tmp_path / "tpcc.toml")
    assert result.exit_code == 0 and result.stderr == ""


def test_fit_param_names_every_fit_setting():
    """The --fit-param names are listed without importing the model (start-up time); they must be
    FitSettings' fields, all of them."""
    from dataclasses import fields

    from flashrr.cli.trace_model_cmds import _FIT_SETTINGS
    from flashrr.trace.model import FitSettings

    assert sorted(_FIT_SETTINGS) == sorted(f.name for f in fields(FitSettings))
