"""Local sweeps: results equal direct simulations, artifacts, failures, the CLI."""
from __future__ import annotations

import importlib
import io
import json
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import flashrr.policies  # noqa: F401  (built-in policies registered before the registry snapshot)
from flashrr.cli.sweep_cmds import results as results_cmd
from flashrr.cli.sweep_cmds import sweep as sweep_cmd
from flashrr.config import SimConfig
from flashrr.policy import POLICIES
from flashrr.simulate import simulate
from flashrr.sweep import SweepFailed, load_errors, load_results, load_run_artifacts, run_sweep, sweep
from flashrr.sweep.progress import Progress
from flashrr.sweep.store import TIMING_COLUMNS
from flashrr.sweep.worker import TraceCache, execute
from flashrr.trace import Trace
from flashrr.trace.io import write_trace

# 1 channel x 1 chip x 4 planes x 16 blocks x 64 pages of 8 KiB (32 MiB), one lane of 16 superblocks.
TINY = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1, "blocks_per_plane": 16,
        "pages_per_block": 64, "overprovisioning_ratio": 0.25, "capacity_bytes": 1 << 20,
        "rr_threshold_reads": 50, "warmup_random_writes_ratio": 0.5}
NON_RESULT_COLUMNS = list(TIMING_COLUMNS)  # times differ in every run


def tiny_config(**changes) -> SimConfig:
    d = dict(TINY, **changes)
    d.pop("preset")
    return SimConfig.preset("shuffler").replace(**d)


def write_traces(dirpath, n_traces=2, n=2000) -> list[str]:
    """Small random msr traces over 1500 pages of 8 KiB; returns their file names."""
    names = []
    for i in range(n_traces):
        rng = np.random.default_rng(100 + i)
        tr = Trace(np.arange(n) * 20_000, rng.integers(0, 1500, n) * 8192, np.full(n, 8192), rng.random(n) < 0.25)
        write_trace(tr, dirpath / f"t{i}.csv", "msr")
        names.append(f"t{i}.csv")
    return names


@pytest.fixture
def fault_policies():
    """Make the fault-injection policies importable by name, and forget them afterwards."""
    saved = dict(POLICIES)
    importlib.import_module("flashrr.sweep._faults")
    yield
    POLICIES.clear()
    POLICIES.update(saved)
    sys.modules.pop("flashrr.sweep._faults", None)


def _spec(tmp_path, traces, **extra):
    spec = {"seeds": [0, 1], "traces": traces,
            "devices": [TINY, dict(TINY, name="tiny-rr80", rr_threshold_reads=80)],
            "policies": {"baseline": {}}}
    spec.update(extra)
    return spec


def test_pool_sweep_equals_direct_simulation_and_inline_sweep(tmp_path):
    traces = write_traces(tmp_path)
    spec = _spec(tmp_path, traces, keep=["rr_events", "hist"])
    out = run_sweep(spec, tmp_path / "pool", jobs=2, progress=False, base_dir=tmp_path)
    df = out.results
    assert len(df) == 2 * 2 * 2 and out.report.ran == 8 and out.report.failed == 0
    assert list(df["key"]) == [t.key for t in out.tasks]
    # every row equals a direct simulate() of the same run
    for task, (_, row) in zip(out.tasks, df.iterrows()):
        cfg = tiny_config(**({"name": "tiny-rr80", "rr_threshold_reads": 80} if task.device.name == "tiny-rr80"
                             else {}))
        direct = simulate(cfg, str(tmp_path / task.trace_source), "baseline", seed=task.seed)
        for k, v in direct.summary.items():
            if k not in NON_RESULT_COLUMNS:
                assert row[k] == v, (task.describe(), k)
        assert row["trace_source"] == task.trace_source and row["policy_name"] == "baseline"
        assert row["call_wall_s"] >= row["sim_wall_s"] > 0  # the worker's call holds the engine's run
        assert row["trace_id"].startswith("sha256:") and row["policy_params"] == "{}"
        art = load_run_artifacts(tmp_path / "pool", task.key)
        pd.testing.assert_frame_equal(art["rr_events"], direct.rr_events, check_dtype=False)
        assert set(art["hist"]) == {"read", "write", "io"}
        for kind in ("read", "write", "io"):
            np.testing.assert_array_equal(art["hist"][kind], direct.hist[kind])
    assert df["rr_count"].sum() > 0  # the tiny device does reclaim
    assert df.groupby("device")["rr_count"].sum()["tiny"] > df.groupby("device")["rr_count"].sum()["tiny-rr80"]
    # each worker process read each trace file at most once
    for worker, loads in out.report.trace_loads.items():
        assert len(loads) == len(set(loads)) <= 2, worker
    # the same spec run in this process gives the same rows
    inline = sweep(spec, tmp_path / "inline", jobs=0, progress=False, base_dir=tmp_path)
    pd.testing.assert_frame_equal(inline.drop(columns=NON_RESULT_COLUMNS, errors="ignore"),
                                  df.drop(columns=NON_RESULT_COLUMNS, errors="ignore"))
    # load_results reads the whole store back, sorted by trace, device, policy, seed
    stored = load_results(tmp_path / "pool")
    assert sorted(stored["key"]) == sorted(df["key"])
    assert list(stored[["trace_source", "device", "seed"]].itertuples(index=False, name=None)) == sorted(
        df[["trace_source", "device", "seed"]].itertuples(index=False, name=None))


def test_trace_cache_reuses_and_evicts_least_recently_used(tmp_path):
    names = write_traces(tmp_path, n_traces=3, n=20)
    paths = [str(tmp_path / n) for n in names]
    cache = TraceCache(2)
    a1, loaded1 = cache.get("a", paths[0])
    a2, loaded2 = cache.get("a", paths[0])
    assert loaded1 and not loaded2 and a1 is a2
    cache.get("b", paths[1])
    cache.get("a", paths[0])  # a is now the most recently used
    cache.get("c", paths[2])  # evicts b
    assert cache.info()["cached"] == ["a", "c"]
    assert not cache.get("a", paths[0])[1] and cache.get("b", paths[1])[1]
    assert (cache.loads, cache.hits) == (4, 3)


def test_worker_reuses_the_trace_of_the_previous_run(tmp_path):
    names = write_traces(tmp_path, n_traces=1, n=200)
    out = run_sweep({"traces": names, "devices": [TINY], "policies": {"baseline": {}}, "seeds": [0, 1, 2]},
                    tmp_path / "out", jobs=0, progress=False, base_dir=tmp_path)
    # the sweep ran in this process and loaded the trace once for its three runs
    assert [len(v) for v in out.report.trace_loads.values()] == [1]
    # the trace stays in this process's cache, so running the tasks again loads nothing
    outcomes = [execute(t) for t in out.tasks]
    assert all(o.ok and not o.trace_loaded for o in outcomes)


def test_crashed_run_is_recorded_sweep_goes_on_and_rerun_retries(tmp_path, fault_policies):
    traces = write_traces(tmp_path, n_traces=1)
    marker = tmp_path / "fail.marker"
    marker.write_text("")
    spec = {"imports": ["flashrr.sweep._faults"], "seeds": [0, 1], "traces": traces, "devices": [TINY],
            "policies": {"baseline": {}, "fault-raise": {"marker": str(marker)}}}
    out = tmp_path / "out"
    with pytest.raises(SweepFailed, match=r"2 of 4 runs failed .*injected failure") as info:
        sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert list(info.value.results["policy_name"]) == ["baseline", "baseline"]
    errs = load_errors(out)
    assert len(errs) == 2 and set(errs["seed"]) == {0, 1}
    assert set(errs["policy_name"]) == {"fault-raise"} and set(errs["param_marker"]) == {str(marker)}
    assert all("RuntimeError: fault-raise: injected failure" in tb for tb in errs["traceback"])
    assert errs["error"].str.startswith("RuntimeError").all()
    for key in errs["key"]:
        assert json.loads((out / "runs" / f"{key}.error.json").read_text())["key"] == key
    # the CLI lists the failures and exits non-zero; the failures are still there
    (tmp_path / "spec.toml").write_text(
        f'imports = ["flashrr.sweep._faults"]\nseeds = [0, 1]\ntraces = {json.dumps(traces)}\n'
        '[[device]]\n' + "".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY.items()) +
        f'[policies]\nbaseline = {{}}\nfault-raise = {{ marker = {json.dumps(str(marker))} }}\n')
    res = CliRunner().invoke(sweep_cmd, [str(tmp_path / "spec.toml"), "--out", str(out), "--jobs", "0"])
    assert res.exit_code == 1
    assert "4 runs: 2 already done, 0 ran now, 2 failed" in res.output
    assert res.output.count("FAILED ") == 2 and "injected failure" in res.output
    # remove the cause: a rerun retries exactly the failed runs
    marker.unlink()
    again = run_sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert (again.report.done_before, again.report.ran, again.report.failed) == (2, 2, 0)
    assert len(load_errors(out)) == 0 and not list((out / "runs").glob("*.error.json"))
    assert len(load_results(out)) == 4


def test_results_command_prints_csv_json_and_markdown(tmp_path, fault_policies):
    traces = write_traces(tmp_path, n_traces=1)
    marker = tmp_path / "fail.marker"
    marker.write_text("")
    spec = {"imports": ["flashrr.sweep._faults"], "seeds": [0, 1, 2], "traces": traces, "devices": [TINY],
            "policies": {"baseline": {}, "fault-raise": {"marker": str(marker)}}}
    with pytest.raises(SweepFailed):
        sweep(spec, tmp_path / "out", jobs=0, progress=False, base_dir=tmp_path)
    out = str(tmp_path / "out")
    stored = load_results(out)
    runner = CliRunner()
    res = runner.invoke(results_cmd, [out])
    assert res.exit_code == 0
    csv = pd.read_csv(io.StringIO(res.stdout))
    assert list(csv.columns) == list(stored.columns) and len(csv) == 3
    for col in ("key", "seed", "rr_count", "waf", "read_latency_mean_ns"):
        assert list(csv[col]) == list(stored[col])
    assert "3 failed run(s) not shown" in res.stderr
    res = runner.invoke(results_cmd, [out, "--format", "json", "-c", "key,seed,waf"])
    recs = json.loads(res.stdout)
    assert [r["seed"] for r in recs] == [0, 1, 2] and set(recs[0]) == {"key", "seed", "waf"}
    assert recs[0]["waf"] == stored["waf"][0]
    res = runner.invoke(results_cmd, [out, "--format", "md", "--columns", "seed,rr_count,device"])
    lines = res.stdout.strip().splitlines()
    assert lines[0] == "| seed | rr_count | device |" and lines[1] == "|---:|---:|---|"
    assert lines[2] == f"| 0 | {stored['rr_count'][0]} | tiny |" and len(lines) == 5
    res = runner.invoke(results_cmd, [out, "--errors", "--format", "json", "-c", "policy_name,seed"])
    errs = json.loads(res.stdout)
    assert sorted(r["seed"] for r in errs) == [0, 1, 2] and {r["policy_name"] for r in errs} == {"fault-raise"}
    res = runner.invoke(results_cmd, [out, "-c", "seed,nosuch"])
    assert res.exit_code == 1 and "--columns: unknown column(s) nosuch" in res.output
    res = runner.invoke(results_cmd, [str(tmp_path / "missing")])
    assert res.exit_code == 1 and "no such results directory" in res.output


def test_progress_bar_shows_done_failed_and_left(tmp_path, capsys):
    traces = write_traces(tmp_path, n_traces=1, n=100)
    sweep({"traces": traces, "devices": [TINY], "policies": {"baseline": {}}, "seeds": [0, 1, 2]},
          tmp_path / "out", jobs=0, progress=True, base_dir=tmp_path)
    err = capsys.readouterr().err
    assert "3/3" in err and "failed=0 left=0" in err
    p = Progress(total=5, done_before=2, enabled=False)
    p.update(True)
    p.update(False)
    assert (p.done, p.failed, p.remaining) == (3, 1, 1)


def test_jobs_and_scheduler_are_exclusive(tmp_path):
    with pytest.raises(ValueError, match="not both"):
        sweep({}, tmp_path / "out", jobs=2, scheduler="tcp://127.0.0.1:1")
    res = CliRunner().invoke(sweep_cmd, ["x.toml", "--out", str(tmp_path), "-j", "2", "--scheduler", "tcp://a:1"])
    assert res.exit_code == 2 and "not both" in res.output


def test_parameter_columns_of_different_policies_merge(tmp_path, fault_policies):
    traces = write_traces(tmp_path, n_traces=1, n=100)
    spec = {"imports": ["flashrr.sweep._faults"], "traces": traces, "devices": [TINY],
            "policies": {"baseline": {}, "fault-slow": {"delay_s": [0, 0.01]}}}
    df = sweep(spec, tmp_path / "out", jobs=0, progress=False, base_dir=tmp_path)
    assert list(df["policy_name"]) == ["baseline", "fault-slow", "fault-slow"]
    assert np.isnan(df["param_delay_s"][0]) and list(df["param_delay_s"][1:]) == [0.0, 0.01]
    assert json.loads(df["policy_params"][2]) == {"delay_s": 0.01, "log": "", "hold": ""}
    stored = load_results(tmp_path / "out")
    assert sorted(stored["param_delay_s"].dropna()) == [0.0, 0.01] and stored["param_delay_s"].isna().sum() == 1
    res = CliRunner().invoke(results_cmd, [str(tmp_path / "out"), "--errors"])
    assert res.exit_code == 0 and res.stdout == ""  # no failed runs


def test_the_package_is_callable_as_the_sweep_function(tmp_path):
    import flashrr.sweep

    traces = write_traces(tmp_path, n_traces=1, n=100)
    spec = {"traces": traces, "devices": [TINY], "policies": {"baseline": {}}}
    df = flashrr.sweep(spec, tmp_path / "out", jobs=0, progress=False, base_dir=tmp_path)
    assert list(df["key"]) == list(flashrr.sweep.load_results(tmp_path / "out")["key"]) and len(df) == 1


def test_a_result_the_store_cannot_hold_fails_its_run_and_the_sweep_goes_on(tmp_path, monkeypatch):
    """Storing run seed=1's summary raises (as pyarrow did for an integer beyond int64); that run is recorded
    as failed with the storing error, the other run is stored, and a rerun retries only the failed one."""
    from flashrr.sweep.store import ResultStore

    traces = write_traces(tmp_path, n_traces=1)
    spec = {"seeds": [0, 1], "traces": traces, "devices": [TINY], "policies": {"baseline": {}}}
    out = tmp_path / "out"
    real_write = ResultStore.write_success

    def failing_write(self, task, outcome):
        if task.seed == 1:
            raise OverflowError("Python int too large to convert to C long")
        real_write(self, task, outcome)

    monkeypatch.setattr(ResultStore, "write_success", failing_write)
    with pytest.raises(SweepFailed, match="1 of 2 runs failed") as info:
        sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert list(info.value.results["seed"]) == [0]
    errs = load_errors(out)
    assert list(errs["seed"]) == [1]
    assert errs["error"].iloc[0].startswith("storing the result failed: OverflowError")
    monkeypatch.setattr(ResultStore, "write_success", real_write)
    again = run_sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert (again.report.done_before, again.report.ran, again.report.failed) == (1, 1, 0)


def test_integers_beyond_int64_are_stored_as_floats():
    from flashrr.sweep.store import _parquet_bytes, _scalar

    big = (1 << 63) + 5
    row = {"sum_ns": _scalar(big), "neg": _scalar(-(1 << 64)), "ok": _scalar((1 << 63) - 1), "flag": _scalar(True)}
    assert row["sum_ns"] == float(big) and isinstance(row["sum_ns"], float)
    assert row["neg"] == -float(1 << 64) and row["ok"] == (1 << 63) - 1 and row["flag"] is True
    back = pd.read_parquet(io.BytesIO(_parquet_bytes(pd.DataFrame([row]))))
    assert back["sum_ns"].iloc[0] == float(big) and back["ok"].iloc[0] == (1 << 63) - 1
