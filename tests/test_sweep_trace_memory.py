"""A worker process holds at most one copy of a trace: runs of one trace through
different pipelines share one cached copy, a generated model trace is held once as
its requests (not generated again on every replay), the cache keeps only the trace
the runs need, and the results equal a direct :func:`flashrr.simulate`."""
from __future__ import annotations

import pytest

from flashrr.simulate import simulate
from flashrr.sweep import run_sweep
from flashrr.sweep.store import TIMING_COLUMNS
from flashrr.sweep.worker import TRACE_CACHE_SIZE, TraceCache, base_identity, execute
from flashrr.trace.model import ModelSource
from flashrr.trace.source import MemorySource

# 1 channel x 1 chip x 4 planes x 16 blocks x 64 pages of 8 KiB (32 MiB), one lane of 16 superblocks
TINY = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1, "blocks_per_plane": 16,
        "pages_per_block": 64, "overprovisioning_ratio": 0.25, "capacity_bytes": 1 << 20,
        "rr_threshold_reads": 50}
MODEL = "model:ali1?n_requests=3000&mean_gap_ns=200000.0&fold=modulo"
SYNTH = "synth:lun0?n_requests=3000"
SYNTH_FOLDED = f"{SYNTH}&fold=modulo"


def _same_results(out, repeat=1):
    """Every run's row is the direct simulation of its own spec (all but the wall time)."""
    for task, (_, row) in zip(out.tasks, out.results.iterrows()):
        direct = simulate(task.device, task.trace_source, "baseline", seed=task.seed, repeat=repeat)
        for k, v in direct.summary.items():
            if k not in TIMING_COLUMNS:
                assert row[k] == v, (task.trace_source, k)


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch):
    """Each test starts with an empty cache of the default size in this process."""
    import flashrr.sweep.worker as worker

    monkeypatch.setattr(worker, "_CACHE", TraceCache(TRACE_CACHE_SIZE))
    return worker


def _tasks(tmp_path, traces, repeat=1, seeds=(0,)):
    out = run_sweep({"traces": traces, "devices": [TINY], "policies": {"baseline": {}}, "seeds": list(seeds),
                     "repeat": repeat}, tmp_path / "out", jobs=0, progress=False)
    return out


def test_base_identity_drops_the_pipeline_and_keeps_reading_options():
    assert base_identity(f"{SYNTH}&fold=modulo&repeat=2", f"{SYNTH}&repeat=2&fold=modulo") == SYNTH
    assert base_identity("sha256:ab?format=msr&fold=modulo", "/x/t.csv?fold=modulo&format=msr") == \
        "sha256:ab?format=msr"
    assert base_identity("sha256:ab?first=10", "/x/t.csv?first=10") == "sha256:ab"
    assert base_identity("sha256:ab", "/x/t.csv") == "sha256:ab"


def test_runs_through_different_pipelines_share_one_copy_of_their_trace(tmp_path, fresh_cache):
    traces = [SYNTH_FOLDED, f"{SYNTH_FOLDED}&repeat=2", f"{SYNTH_FOLDED}&scale_time=2.0"]
    out = _tasks(tmp_path, traces)
    assert out.report.ran == 3
    info = fresh_cache.trace_cache_info()
    assert (info["loads"], info["hits"]) == (1, 2) and info["cached"] == [SYNTH]
    _same_results(out)


def test_a_model_trace_is_generated_once_and_held_as_its_requests(tmp_path, fresh_cache, monkeypatch):
    from flashrr.trace.pipeline import open_base, parse_trace_spec

    open_base(parse_trace_spec(MODEL))  # the preset's own calibration passes (cached on disk) happen before
    passes = []
    chunks = ModelSource.chunks

    def counted(self, chunk_requests=None):
        passes.append(self.name)
        return chunks(self, chunk_requests)

    monkeypatch.setattr(ModelSource, "chunks", counted)
    out = _tasks(tmp_path, [MODEL], repeat=3, seeds=(0, 1))
    assert out.report.ran == 2 and len(passes) == 1  # one generation for two runs of three replays each
    held = fresh_cache._CACHE._items[base_identity(out.tasks[0].trace_id, out.tasks[0].trace_target)]
    assert isinstance(held, MemorySource)
    # the next run on it reuses the same arrays: no copy
    arrays = held.trace.offset
    assert not execute(out.tasks[0]).trace_loaded and held.trace.offset is arrays and len(passes) == 1
    monkeypatch.setattr(ModelSource, "chunks", chunks)
    _same_results(out, repeat=3)


def test_the_cache_holds_only_the_trace_the_runs_need(tmp_path, fresh_cache):
    assert TRACE_CACHE_SIZE == 1
    out = _tasks(tmp_path, [SYNTH_FOLDED, "synth:lun1?n_requests=2000&fold=modulo"], seeds=(0, 1))
    info = fresh_cache.trace_cache_info()
    # the runs come trace by trace: each trace loaded once, and only the last one is still held
    assert out.report.ran == 4 and (info["loads"], info["hits"]) == (2, 2)
    assert info["cached"] == ["synth:lun1?n_requests=2000"]


def _runs_without_collection(monkeypatch, runs, release: bool) -> None:
    """Run simulate on a tiny device for each ``(policy, params)`` of ``runs`` with the garbage
    collector off (and ``release_engine`` a no-op unless ``release``); check after each run that
    its layout, and so its engine, is gone."""
    import gc
    import importlib
    import weakref

    from flashrr.config import SimConfig

    sim = importlib.import_module("flashrr.simulate")
    config = SimConfig.preset("shuffler").replace(**{k: v for k, v in TINY.items() if k != "preset"})
    layouts = []
    build = sim.engine_layout

    def recorded(config, metadata):
        layout = build(config, metadata)
        layouts.append(weakref.ref(layout))
        return layout

    monkeypatch.setattr(sim, "engine_layout", recorded)
    if not release:
        monkeypatch.setattr(sim, "release_engine", lambda layout_ref: None)
    gc.disable()  # no automatic collection between the run's end and the check
    try:
        for policy, params in runs:
            sim.simulate(config, SYNTH_FOLDED, policy, **params)
            assert layouts[-1]() is None, policy
    finally:
        gc.enable()


def test_a_finished_run_leaves_no_engine_in_memory(monkeypatch):
    """The engine's state is freed when simulate returns, not at the garbage collector's next run."""
    _runs_without_collection(monkeypatch, (("baseline", {}), ("shuffler", {})), release=True)


def test_the_compiled_engine_is_freed_without_the_garbage_collector(monkeypatch):
    """No reference cycle holds a finished compiled engine: its layout goes when simulate drops it,
    with no collection at all (release_engine does nothing here)."""
    _runs_without_collection(monkeypatch, (("baseline", {}), ("shuffler", {}), ("phasedrr", {"delta_reads": 4}),
                                           ("page", {})), release=False)
