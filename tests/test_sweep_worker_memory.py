"""A sweep worker gives a large run's memory back before its next run."""
import gc

import numpy as np

from flashrr.sweep import worker


def test_release_memory_frees_what_a_cycle_held():
    """200 MB held only by a reference cycle stays resident until a collection; the
    release frees it."""
    gc.disable()
    try:
        a = {"data": np.ones(200 << 20, dtype=np.uint8)}
        a["self"] = a
        del a
        held = worker.resident_bytes()
        worker.release_memory()
        assert held - worker.resident_bytes() > 150 << 20
    finally:
        gc.enable()


def test_execute_releases_only_after_a_run_that_grew_the_process(monkeypatch):
    calls = []
    grown = {"now": 0}
    monkeypatch.setattr(worker, "release_memory", lambda: calls.append(1))
    monkeypatch.setattr(worker, "resident_bytes", lambda: grown["now"])

    def run(task, growth):
        grown["now"] = 0

        def fake(_task):
            grown["now"] = growth
            return "outcome"
        monkeypatch.setattr(worker, "_execute", fake)
        return worker.execute(task)

    assert run(None, worker.RELEASE_GROWTH_BYTES - 1) == "outcome" and calls == []
    assert run(None, worker.RELEASE_GROWTH_BYTES) == "outcome" and calls == [1]
