"""Sweeps on a real Dask cluster (a LocalCluster of worker processes) match local sweeps."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from flashrr.sweep import SweepError, load_run_artifacts, run_sweep
from flashrr.sweep.store import TIMING_COLUMNS
from flashrr.sweep.worker import clear_trace_cache, execute, trace_cache_info
from flashrr.trace import Trace
from flashrr.trace.io import write_trace
from sweep_helpers import FAULTS

distributed = pytest.importorskip("distributed")

TINY = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1, "blocks_per_plane": 16,
        "pages_per_block": 64, "overprovisioning_ratio": 0.25, "capacity_bytes": 1 << 20,
        "rr_threshold_reads": 50, "warmup_random_writes_ratio": 0.5}


def _traces(tmp_path) -> list[str]:
    names = []
    for i in range(2):
        n = 2000
        rng = np.random.default_rng(40 + i)
        tr = Trace(np.arange(n) * 20_000, rng.integers(0, 1500, n) * 8192, np.full(n, 8192), rng.random(n) < 0.25)
        write_trace(tr, tmp_path / f"d{i}.csv", "msr")
        names.append(f"d{i}.csv")
    return names


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes with one thread each, dashboard off.  The scheduler still serves
    its health/metrics routes over HTTP, by default on port 8787; a random free port keeps
    concurrent test sessions from colliding there."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": ":0"}) as c:
        yield c




def test_dask_sweep_matches_local_sweep_row_for_row(tmp_path, cluster):
    spec = {"seeds": [0, 1, 2], "traces": _traces(tmp_path), "keep": ["rr_events"],
            "devices": [TINY, dict(TINY, name="tiny-rr70", rr_threshold_reads=70)], "policies": {"baseline": {}}}
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        client.run(clear_trace_cache)
        on_dask = run_sweep(spec, tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False,
                            base_dir=tmp_path)
        caches = client.run(trace_cache_info)
    local = run_sweep(spec, tmp_path / "local", jobs=2, progress=False, base_dir=tmp_path)

    assert on_dask.report.backend["backend"] == "dask" and on_dask.report.ran == 12
    pd.testing.assert_frame_equal(on_dask.results.drop(columns=list(TIMING_COLUMNS), errors="ignore"),
                                  local.results.drop(columns=list(TIMING_COLUMNS), errors="ignore"))
    key = on_dask.tasks[-1].key
    pd.testing.assert_frame_equal(load_run_artifacts(tmp_path / "dask", key)["rr_events"],
                                  load_run_artifacts(tmp_path / "local", key)["rr_events"])
    # Which worker runs which run is the scheduler's choice (it differs on a busy machine), so
    # only the accounting is fixed: every run took its trace from its worker's cache once, and
    # the loads the sweep recorded per worker are the ones that worker counted, of the sweep's traces.
    assert sum(c["loads"] + c["hits"] for c in caches.values()) == 12
    assert {c["worker"]: c["loads"] for c in caches.values() if c["loads"]} == \
        {w: len(ids) for w, ids in on_dask.report.trace_loads.items()}
    assert {i for ids in on_dask.report.trace_loads.values() for i in ids} <= {t.trace_id for t in on_dask.tasks}


def test_a_dask_worker_reuses_the_trace_of_its_previous_run(tmp_path, cluster):
    """Runs of one trace sent to one worker, one after the other: it loads the trace for the
    first and takes it from its cache for the others (the placement is fixed here)."""
    spec = {"seeds": [0, 1, 2], "traces": _traces(tmp_path)[:1], "devices": [TINY], "policies": {"baseline": {}}}
    tasks = run_sweep(spec, tmp_path / "out", jobs=0, progress=False, base_dir=tmp_path).tasks
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        worker = sorted(client.scheduler_info()["workers"])[0]
        client.run(clear_trace_cache, workers=[worker])
        outcomes = [client.submit(execute, task, workers=[worker], pure=False).result() for task in tasks]
        info = client.run(trace_cache_info, workers=[worker])[worker]
    assert [o.ok for o in outcomes] == [True] * 3
    assert [o.trace_loaded for o in outcomes] == [True, False, False]
    assert (info["loads"], info["hits"]) == (1, 2) and {o.worker for o in outcomes} == {info["worker"]}


def test_dask_worker_killed_mid_sweep_loses_and_duplicates_nothing(tmp_path, cluster, fault_policies):
    marker = tmp_path / "kill.marker"
    marker.write_text("")
    spec = {"imports": [FAULTS], "seeds": [0, 1, 2, 3], "traces": _traces(tmp_path)[:1], "devices": [TINY],
            "policies": {"baseline": {}, "fault-exit": {"marker": str(marker)}}}
    res = run_sweep(spec, tmp_path / "out", scheduler=cluster.scheduler_address, progress=False, base_dir=tmp_path)
    assert not marker.exists()  # a worker died; its nanny restarted it and Dask rescheduled its run
    assert (res.report.ran, res.report.failed) == (8, 0)
    assert res.results["key"].is_unique and len(list((tmp_path / "out" / "runs").glob("*.parquet"))) == 8
    df = res.results.set_index(["policy_name", "seed"])
    for s in range(4):
        assert df.loc[("fault-exit", s), "read_latency_mean_ns"] == df.loc[("baseline", s), "read_latency_mean_ns"]


def test_unreachable_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    import flashrr.sweep.runner as runner

    monkeypatch.setattr(runner, "DASK_CONNECT_TIMEOUT_S", 1)
    spec = {"traces": _traces(tmp_path)[:1], "devices": [TINY], "policies": {"baseline": {}}}
    with pytest.raises(SweepError, match="cannot connect to the Dask scheduler at tcp://127.0.0.1:9"):
        run_sweep(spec, tmp_path / "out", scheduler="tcp://127.0.0.1:9", progress=False, base_dir=tmp_path)


def test_calls_on_the_cluster_return_every_item_and_raise_a_failure(cluster, monkeypatch):
    import math

    import flashrr.sweep.runner as runner
    from flashrr.sweep.calls import call_each

    got = dict(call_each(math.factorial, [5, 3, 7, 0], scheduler=cluster.scheduler_address))
    assert got == {5: 120, 3: 6, 7: 5040, 0: 1}
    with pytest.raises(ValueError, match="not defined for negative"):
        list(call_each(math.factorial, [4, -1], scheduler=cluster.scheduler_address))
    monkeypatch.setattr(runner, "DASK_CONNECT_TIMEOUT_S", 1)
    with pytest.raises(SweepError, match="cannot connect to the Dask scheduler"):
        list(call_each(math.factorial, [1], scheduler="tcp://127.0.0.1:9"))
