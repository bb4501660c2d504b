"""Resume and fault tolerance: reruns skip done runs, a killed worker or Ctrl-C loses
at most the runs in flight, a run that keeps killing its worker is recorded as failed."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from flashrr.sweep import StoreError, load_errors, load_results, run_sweep, sweep
from flashrr.sweep.runner import WORKER_DIED
from flashrr.sweep.store import TIMING_COLUMNS, ResultStore
from flashrr.trace import Trace
from flashrr.trace.io import write_trace
from sweep_helpers import FAULTS

REPO = Path(__file__).resolve().parents[1]
TINY = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1, "blocks_per_plane": 16,
        "pages_per_block": 64, "overprovisioning_ratio": 0.25, "capacity_bytes": 1 << 20,
        "rr_threshold_reads": 50}




@pytest.fixture
def trace_file(tmp_path):
    n = 1500
    rng = np.random.default_rng(7)
    tr = Trace(np.arange(n) * 20_000, rng.integers(0, 1500, n) * 8192, np.full(n, 8192), rng.random(n) < 0.25)
    write_trace(tr, tmp_path / "t.csv", "msr")
    return "t.csv"


def _mtimes(out: Path) -> dict:
    return {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}


def _log(log: Path) -> list:
    """The fault-slow start records in ``log`` (complete lines only: workers may be writing)."""
    return [json.loads(line) for line in log.read_text().split("\n")[:-1]] if log.exists() else []


def _log_seeds(log: Path) -> list:
    return [r["seed"] for r in _log(log)]


def test_rerun_skips_done_runs_and_extending_the_spec_runs_only_new_ones(tmp_path, trace_file):
    spec = {"seeds": [0, 1], "traces": [trace_file], "devices": [TINY], "policies": {"baseline": {}}}
    out = tmp_path / "out"
    first = run_sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert (first.report.done_before, first.report.ran) == (0, 2)
    before = _mtimes(out)
    time.sleep(0.01)
    again = run_sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert (again.report.done_before, again.report.ran, again.report.failed) == (2, 0, 0)
    assert _mtimes(out) == before
    timing = list(TIMING_COLUMNS)
    assert again.results.drop(columns=timing, errors="ignore").equals(first.results.drop(columns=timing, errors="ignore"))
    more = run_sweep(dict(spec, seeds=[0, 1, 2, 3]), out, jobs=0, progress=False, base_dir=tmp_path)
    assert (more.report.done_before, more.report.ran) == (2, 2)
    assert {k: v for k, v in _mtimes(out).items() if k in before} == before
    assert list(more.results["seed"]) == [0, 1, 2, 3]


def test_missing_artifacts_make_a_run_not_done(tmp_path, trace_file):
    spec = {"seeds": [0, 1], "traces": [trace_file], "devices": [TINY], "policies": {"baseline": {}}}
    out = tmp_path / "out"
    first = run_sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    # asking to keep histograms reruns the runs that lack them
    kept = run_sweep(dict(spec, keep=["hist"]), out, jobs=0, progress=False, base_dir=tmp_path)
    assert (kept.report.done_before, kept.report.ran) == (0, 2)
    assert [t.key for t in kept.tasks] == [t.key for t in first.tasks]  # same runs, same keys
    # losing one artifact reruns just that run
    (out / "runs" / f"{first.tasks[1].key}.hist.npz").unlink()
    fixed = run_sweep(dict(spec, keep=["hist"]), out, jobs=0, progress=False, base_dir=tmp_path)
    assert (fixed.report.done_before, fixed.report.ran) == (1, 1)


def test_store_lock_and_stale_temporary_files(tmp_path, trace_file):
    spec = {"traces": [trace_file], "devices": [TINY], "policies": {"baseline": {}}}
    out = tmp_path / "out"
    store = ResultStore(out, create=True)
    stale = out / "runs" / ".0123abcd.parquet.deadbeef.tmp"
    stale.write_bytes(b"half a parquet file")
    with store.lock():
        with pytest.raises(StoreError, match="another flashrr sweep is writing"):
            sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert len(load_results(out)) == 0  # the temporary file is not a result
    sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert not stale.exists() and len(load_results(out)) == 1


def test_worker_killed_mid_sweep_loses_and_duplicates_nothing(tmp_path, trace_file, fault_policies):
    marker, log = tmp_path / "kill.marker", tmp_path / "starts.log"
    marker.write_text("")
    seeds = [0, 1, 2, 3]
    spec = {"imports": [FAULTS], "seeds": seeds, "traces": [trace_file], "devices": [TINY],
            "policies": {"fault-slow": {"delay_s": 0.05, "log": str(log)}, "fault-exit": {"marker": str(marker)},
                         "baseline": {}}}
    out = tmp_path / "out"
    res = run_sweep(spec, out, jobs=2, progress=False, base_dir=tmp_path)
    assert not marker.exists()  # the fault fired: one worker died with os._exit
    assert res.report.backend["pool_restarts"] >= 1
    assert res.report.failed == 0 and len(res.failures) == 0
    # every run is stored exactly once
    assert len(res.results) == 12 and res.results["key"].is_unique
    assert sorted(p.name for p in (out / "runs").glob("*.parquet")) == sorted(f"{t.key}.parquet" for t in res.tasks)
    # finished runs were not run again: only a run in flight beside the killed one may have restarted
    started = _log_seeds(log)
    assert sorted(set(started)) == seeds and len(started) <= len(seeds) + 1
    # the retried fault-exit runs give the same metrics as baseline
    df = res.results.set_index(["policy_name", "seed"])
    for s in seeds:
        assert df.loc[("fault-exit", s), "rr_count"] == df.loc[("baseline", s), "rr_count"]
        assert df.loc[("fault-exit", s), "read_latency_mean_ns"] == df.loc[("baseline", s), "read_latency_mean_ns"]


def test_run_that_always_kills_its_worker_is_recorded_as_failed(tmp_path, trace_file, fault_policies):
    marker = tmp_path / "always.marker"
    marker.write_text("")
    spec = {"imports": [FAULTS], "seeds": [0], "traces": [trace_file], "devices": [TINY],
            "policies": {"baseline": {}, "fault-exit": {"marker": str(marker), "once": False}}}
    out = tmp_path / "out"
    res = run_sweep(spec, out, jobs=2, progress=False, base_dir=tmp_path)
    # retried alone once after the first death, then recorded; the other run is done
    assert res.report.backend["pool_restarts"] == 2
    assert (res.report.ran, res.report.failed) == (1, 1)
    assert list(res.results["policy_name"]) == ["baseline"]
    errs = load_errors(out)
    assert list(errs["policy_name"]) == ["fault-exit"] and list(errs["traceback"]) == [WORKER_DIED]
    # once the cause is gone, a rerun completes the sweep (in this process: the marker is gone)
    marker.unlink()
    again = run_sweep(spec, out, jobs=0, progress=False, base_dir=tmp_path)
    assert (again.report.done_before, again.report.ran, again.report.failed) == (1, 1, 0)


DRIVER = """\
import faulthandler
import signal
import sys

from flashrr.cli.sweep_cmds import sweep

faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test asks for stacks if this hangs
signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in a terminal, even from a background job

if __name__ == "__main__":
    sweep.main(sys.argv[1:], prog_name="flashrr sweep")
"""


def test_sigint_then_resume_completes_without_rerunning_finished_runs(tmp_path, trace_file, fault_policies):
    """The first four runs finish; the next ones hold (wait on a file) until the sweep is
    interrupted, so exactly four runs are done when SIGINT arrives, whatever the timing."""
    log, out, hold = tmp_path / "starts.log", tmp_path / "out", tmp_path / "hold"
    hold.write_text("")
    seeds = [0, 1, 2, 3]
    spec_path = tmp_path / "spec.toml"
    device = "".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY.items())
    spec_path.write_text(f'imports = ["{FAULTS}"]\nseeds = {seeds}\ntraces = ["{trace_file}"]\n'
                         f"[[device]]\n{device}[policies]\nfault-slow = [\n"
                         f"  {{ delay_s = 0.05, log = {json.dumps(str(log))} }},\n"
                         f"  {{ delay_s = 0.0, log = {json.dumps(str(log))}, hold = {json.dumps(str(hold))} }},\n]\n")
    (tmp_path / "driver.py").write_text(DRIVER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, str(tmp_path / "driver.py"), str(spec_path), "--out", str(out),
                             "--jobs", "2", "--no-progress"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        # wait until the four quick runs are stored and two held runs have started
        while not (out / "runs").exists() or len(list((out / "runs").glob("*.parquet"))) < 4 or \
                sum(r["hold"] != "" for r in _log(log)) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the sweep did not get going within 90 s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(1)
            proc.kill()
            pytest.fail(f"the interrupted sweep did not exit within 30 s; its stacks:\n{proc.communicate()[1]}")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err and "Warning" not in err
    done_first = {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*.parquet")}
    assert len(done_first) == 4
    assert set(load_results(out)["param_hold"]) == {""}  # the quick runs
    n_started_first = len(_log(log))

    hold.unlink()
    resumed = run_sweep(spec_path, out, jobs=2, progress=False)
    assert (resumed.report.done_before, resumed.report.ran, resumed.report.failed) == (4, 4, 0)
    assert len(resumed.results) == 8 and resumed.results["key"].is_unique
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*.parquet") if p.name in done_first} == \
        done_first
    # each unfinished run started once more, and no finished run did
    started_again = _log(log)[n_started_first:]
    assert sorted((r["hold"] != "", r["seed"]) for r in started_again) == [(True, s) for s in seeds]


def test_workers_exit_when_the_sweep_process_is_killed(tmp_path, trace_file, fault_policies):
    """SIGKILL to the sweep process while both workers hold a run (waiting on a file that
    stays): the workers cannot be told, so they end themselves within seconds."""
    log, out, hold = tmp_path / "starts.log", tmp_path / "out", tmp_path / "hold"
    hold.write_text("")
    spec_path = tmp_path / "spec.toml"
    device = "".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY.items())
    spec_path.write_text(f'imports = ["{FAULTS}"]\nseeds = [0, 1]\ntraces = ["{trace_file}"]\n'
                         f"[[device]]\n{device}[policies]\nfault-slow = "
                         f"{{ delay_s = 0.0, log = {json.dumps(str(log))}, hold = {json.dumps(str(hold))} }}\n")
    (tmp_path / "driver.py").write_text(DRIVER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, str(tmp_path / "driver.py"), str(spec_path), "--out", str(out),
                             "--jobs", "2", "--no-progress"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while len(_log(log)) < 2:
            assert proc.poll() is None, "the sweep ended before its runs started"
            assert time.monotonic() < deadline, "the held runs did not start within 90 s"
            time.sleep(0.05)
        workers = {int(r["pid"]) for r in _log(log)}
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in workers):
            assert time.monotonic() < deadline, f"workers {sorted(p for p in workers if _alive(p))} outlived the sweep"
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            proc.kill()
        hold.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """The process exists and has not exited (a zombie waiting to be reaped has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: fall back to a signal 0 probe
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_ctrl_c_while_a_run_is_being_stored_is_delivered_after_the_write():
    from flashrr.sweep.driver import _sigint_deferred

    # Ctrl-C as in a terminal (a background job starts with SIGINT ignored, and a sweep respects that)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    steps = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with _sigint_deferred():
                # aimed at this (the main) thread, so it arrives now, whatever other threads exist
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
                time.sleep(0.01)  # the "write" goes on
                steps.append("written")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert steps == ["written"]


UNGUARDED = """\
from flashrr.sweep import run_sweep

spec = {{"seeds": [0], "traces": ["{trace}"], "devices": [{device}], "policies": {{"baseline": {{}}}}}}
# at the top level, not under `if __name__ == "__main__":`
res = run_sweep(spec, "out", jobs=1, progress=False)
print(res.report.ran, res.report.failed, list(res.failures["traceback"]))
"""


def test_a_script_that_starts_a_sweep_unguarded_is_told_why_its_workers_die(tmp_path, trace_file):
    """A spawned worker imports the main module; a script that starts its sweep at the top level would start
    it again there.  The worker stops with the reason, and the parent's run is failed with a hint to it."""
    from flashrr.sweep.runner import IMPORTING_MAIN

    (tmp_path / "script.py").write_text(UNGUARDED.format(trace=trace_file, device=repr(TINY)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert IMPORTING_MAIN in proc.stderr  # each worker says why it stops
    ran, failed, tracebacks = proc.stdout.split(" ", 2)
    assert (ran, failed) == ("0", "1") and repr(WORKER_DIED) in tracebacks
    assert 'if __name__ == "__main__":' in WORKER_DIED


def test_starting_a_sweep_while_a_worker_imports_the_main_module_raises(tmp_path, monkeypatch, trace_file):
    import multiprocessing

    from flashrr.sweep.runner import SweepError

    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    spec = {"seeds": [0], "traces": [trace_file], "devices": [TINY], "policies": {"baseline": {}}}
    with pytest.raises(SweepError, match="if __name__ == "):
        run_sweep(spec, tmp_path / "out", jobs=0, progress=False, base_dir=tmp_path)
    assert not (tmp_path / "out").exists()  # stopped before the store was made
