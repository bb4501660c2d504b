"""The arithmetic of ``benchmarks/paper_scale_cost.py estimate`` on constructed plans, each
figure worked out by hand: CPU time, critical path, wall time on W workers (calls in
submission order and longest first), the whole command, and how an unmeasured run's
cost is taken from the measured runs most like it."""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import paper_scale_cost as psc  # noqa: E402  (benchmarks/)

# a calibration of three traces, a sweep of six runs and the figures in the main process
PLAN = [psc.Stage("calibration", [3, 1, 2]), psc.Stage("sweep", [4, 4, 1, 1, 1, 1]),
        psc.Stage("figures", [2], on_workers=False)]


def test_makespan_gives_each_call_to_the_first_free_worker():
    # 2 workers: 3 -> w0 (ends 3), 1 -> w1 (ends 1), 2 -> w1 at 1 (ends 3)
    assert psc.makespan([3, 1, 2], 2) == 3
    # 2 workers: 4, 4 at 0; the four 1s at 4 and 5, two by two
    assert psc.makespan([4, 4, 1, 1, 1, 1], 2) == 6
    # the long call submitted last starts at 2 on w0 and ends at 6; longest first it ends at 4
    assert psc.makespan([1, 1, 1, 1, 4], 2) == 6
    assert psc.makespan([1, 1, 1, 1, 4], 2, longest_first=True) == 4
    assert psc.makespan([], 3) == 0


def test_a_paper_summary_worked_by_hand():
    s = psc.summarise(PLAN, (1, 2, 4, 8))
    assert s["cpu_s"] == 6 + 12 + 2
    assert s["critical_path_s"] == 3 + 4 + 2  # the longest calibration, the longest run, the figures
    # 1 worker: everything one after the other; 2: 3 + 6 + 2; 4: 3 + 4 (two 1s start at 1) + 2
    assert s["wall_s"] == {1: 20, 2: 11, 4: 9, 8: 9}
    assert s["wall_longest_first_s"][2] == 3 + 6 + 2  # [4, 4, 1, 1, 1, 1] is already longest first
    assert (s["calls"], s["estimated"]) == (10, 0)


def test_the_whole_command_runs_the_papers_one_after_another():
    a = psc.summarise(PLAN, (1, 2))
    b = psc.summarise([psc.Stage("sweep", [10, 10]), psc.Stage("main", [1], on_workers=False)], (1, 2))
    total = psc.whole_command({"a": a, "b": b})
    assert (total["cpu_s"], total["critical_path_s"]) == (20 + 21, 9 + 11)
    assert total["wall_s"] == {1: 20 + 21, 2: 11 + 11}
    # side by side, no schedule beats 41 CPU s on one worker, nor b's 11 s chain on two
    assert total["bound_s"] == {1: 41, 2: 20.5}


@given(st.lists(st.floats(0, 100), max_size=30), st.integers(1, 8))
def test_the_wall_time_lies_between_the_bounds(costs, workers):
    """No schedule ends before the CPU over the workers or the longest call; the greedy one
    ends by then plus the longest call (Graham's bound)."""
    wall = psc.makespan(costs, workers)
    low = max(sum(costs) / workers, max(costs, default=0))
    assert low - 1e-9 <= wall <= sum(costs) / workers + max(costs, default=0) + 1e-9


def _task(key, trace, device="dev", policy="baseline", params=None):
    return SimpleNamespace(key=key, trace_source=trace, device=SimpleNamespace(name=device), policy=policy,
                           key_params=params or {})


def test_an_unmeasured_run_costs_the_mean_of_the_runs_most_like_it():
    a0, a1 = _task("a0", "synth:x"), _task("a1", "synth:x")  # two seeds, measured: 2 and 4
    d1 = _task("d1", "synth:v")  # measured: 1
    elsewhere = _task("b9", "synth:y?scale_time=0.7")  # y at another load factor, in another plan: 10
    groups = {"main": [a0, a1,
                       _task("a2", "synth:x"),  # a third seed: (2 + 4) / 2
                       _task("a3", "synth:x", params={"p": 1}),  # other parameters, same policy: 3
                       _task("b0", "synth:y?scale_time=0.5"),  # y at this plan's load factor: 10
                       _task("c0", "synth:z", policy="hotr"),  # nothing like it but its group: (2 + 4) / 2
                       _task("e0", "synth:x", policy="shuffler")],  # x on this device, any policy: 3
              "other": [d1],
              "third": [_task("d0", "synth:w", device="big")]}  # nothing in its group: the plan's (2+4+1) / 3
    measured = {t.key: (c, psc.describe(t)) for t, c in ((a0, 2.0), (a1, 4.0), (d1, 1.0), (elsewhere, 10.0))}
    costs, used = psc.run_costs(groups, measured)
    assert costs == {"main": [2.0, 4.0, 3.0, 3.0, 10.0, 3.0, 3.0], "other": [1.0], "third": [pytest.approx(7 / 3)]}
    assert used == {label: 1 for label, _ in psc.LIKENESS}


def test_nothing_measured_leaves_the_cost_unknown():
    costs, used = psc.run_costs({"g": [_task("a", "synth:x")]}, {})
    assert costs == {"g": [None]} and used == {}


def test_measured_calls_from_calibrate_lines_and_a_bad_line_named(tmp_path):
    f = tmp_path / "calls.jsonl"
    f.write_text('calibrating...\n{"paper": "hotr", "traces": 4, "workers_cpu_s": 25.0, "jobs": 2}\n'
                 '{"paper": "hotr", "stage": "main", "cpu_s": 8}\n')
    m = psc.read_measured(calls=[f])
    assert m.calls == {"hotr": {"calibration": [6.25] * 4, "main": [8.0]}}
    f.write_text('{"paper": "hotr", "stage": "main", "cpu_s": 8}\n{"paper": oops}\n')
    with pytest.raises(ValueError, match=r"calls\.jsonl, line 2: not a JSON object"):
        psc.read_measured(calls=[f])


def test_a_manifest_gives_the_main_process_time_after_the_workers_stages():
    m = psc.Measured()
    psc.read_manifest(m, {"paper": "hotr", "timings_s": {"calibration_s": 18, "sweep_main_s": 20,
                                                         "sweep_flash_s": 10, "fig05_s": 3, "total_s": 56}})
    assert m.calls == {"hotr": {"main": [8.0]}}


def test_a_manifest_gives_superblock_pv_its_configurations_and_figures():
    from flashrr.papers.superblock_pv.plan import CONFIGS

    first, second = (f"{c.method}{dict(c.params).get('window', '')}_s" for c in CONFIGS[:2])
    m = psc.Measured()
    psc.read_manifest(m, {"paper": "superblock-pv", "timings_s": {"model_s": 9, first: 5, second: 113,
                                                                  "fig03_s": 2, "table4_s": 1, "total_s": 140}})
    assert m.calls == {"superblock-pv": {"configurations": [9 + 5, 113.0], "main": [3.0]}}


def test_a_store_gives_each_run_its_whole_call_or_an_old_store_its_engine_time(tmp_path):
    """A run's cost is the worker's whole call (``call_wall_s``); a store written before that
    column gives the engine's time (``sim_wall_s``)."""
    import numpy as np
    import pandas as pd

    from flashrr.sweep import run_sweep
    from flashrr.trace import Trace
    from flashrr.trace.io import write_trace

    tr = Trace(np.arange(400) * 20_000, np.arange(400) % 97 * 8192, np.full(400, 8192), np.arange(400) % 4 == 0)
    device = {"preset": "shuffler", "name": "tiny", "channels": 1, "chips_per_channel": 1, "blocks_per_plane": 16,
              "pages_per_block": 64, "overprovisioning_ratio": 0.25, "capacity_bytes": 1 << 20}
    write_trace(tr, tmp_path / "t.csv", "msr")
    spec = {"seeds": [0, 1], "traces": ["t.csv"], "devices": [device], "policies": {"baseline": {}}}
    rows = run_sweep(spec, tmp_path / "out", jobs=0, progress=False, base_dir=tmp_path).results.set_index("key")
    m = psc.read_measured(stores=[tmp_path / "out"])
    assert {k: c for k, (c, _) in m.runs.items()} == rows["call_wall_s"].to_dict()
    assert all(run.policy == "baseline" and run.device == "tiny" for _, run in m.runs.values())
    for p in (tmp_path / "out" / "runs").glob("*.parquet"):  # the column removed: a store of before
        pd.read_parquet(p).drop(columns="call_wall_s").to_parquet(p)
    m = psc.read_measured(stores=[tmp_path / "out"])
    assert {k: c for k, (c, _) in m.runs.items()} == rows["sim_wall_s"].to_dict()
