"""``flashrr.sweep.calls.call_each`` (independent calls on the sweep's workers) and the
calibration table built on it: the same results on a pool as in this process, every item
once, a failing call raised here, and a table written after every trace."""
from __future__ import annotations

import os
from functools import partial

import pandas as pd
import pytest

from flashrr.reproduce.calibration import calibration_table
from flashrr.sweep.calls import call_each


def square_and_pid(x: int) -> tuple:
    return x * x, os.getpid()


def fail_on_two(x: int) -> int:
    if x == 2:
        raise ValueError(f"item {x} fails")
    return x


def fake_calibrate(fail: tuple, name: str) -> tuple:
    """A calibration stand-in: the factor is the name's length, the load its first letter's code."""
    if name in fail:
        raise RuntimeError(f"calibration of {name} failed")
    return float(len(name)), float(ord(name[0]))


def test_in_this_process_the_calls_run_in_order():
    got = list(call_each(square_and_pid, [3, 1, 2], jobs=1))
    assert [(i, r[0]) for i, r in got] == [(3, 9), (1, 1), (2, 4)]
    assert {r[1] for _, r in got} == {os.getpid()}
    assert list(call_each(square_and_pid, [5], jobs=4)) == [(5, (25, os.getpid()))]  # one item: no pool


def test_on_a_pool_every_item_is_called_once_in_other_processes():
    items = list(range(7))
    got = list(call_each(square_and_pid, items, jobs=2))
    assert sorted(i for i, _ in got) == items
    assert all(r[0] == i * i for i, r in got)
    pids = {r[1] for _, r in got}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_a_failing_call_is_raised_in_the_caller():
    with pytest.raises(ValueError, match="item 2 fails"):
        list(call_each(fail_on_two, [1, 2, 3], jobs=2))
    with pytest.raises(ValueError, match="item 2 fails"):
        list(call_each(fail_on_two, [1, 2, 3], jobs=0))


def test_the_calibration_table_is_the_same_on_a_pool_and_in_order(tmp_path):
    traces = ["nexus5", "msr_web", "usr1", "alibaba_206"]
    key = {"plan": 1}
    inline = calibration_table(tmp_path / "a.csv", key, traces, partial(fake_calibrate, ()), "load", False, jobs=0)
    pooled = calibration_table(tmp_path / "b.csv", key, traces, partial(fake_calibrate, ()), "load", False, jobs=2)
    assert inline == pooled == {t: float(len(t)) for t in traces}
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    assert list(a["trace"]) == traces and a.equals(b)
    assert list(a["load"]) == [float(ord(t[0])) for t in traces]


def test_an_interrupted_calibration_keeps_the_traces_it_finished(tmp_path):
    path, key, traces = tmp_path / "cal.csv", {"plan": 1}, ["aa", "bbb", "c", "dddd"]
    with pytest.raises(RuntimeError, match="calibration of c failed"):
        calibration_table(path, key, traces, partial(fake_calibrate, ("c",)), "load", False, jobs=0)
    assert list(pd.read_csv(path)["trace"]) == ["aa", "bbb"]
    # run again: only the traces left are calibrated (a stand-in failing on the finished ones proves it)
    got = calibration_table(path, key, traces, partial(fake_calibrate, ("aa", "bbb")), "load", False, jobs=2)
    assert got == {"aa": 2.0, "bbb": 3.0, "c": 1.0, "dddd": 4.0}
    assert list(pd.read_csv(path)["trace"]) == traces
    # another key calibrates everything again
    with pytest.raises(RuntimeError, match="calibration of aa failed"):
        calibration_table(path, {"plan": 2}, traces, partial(fake_calibrate, ("aa",)), "load", False, jobs=0)


def test_another_plans_rows_stay_until_this_plan_is_calibrated(tmp_path):
    path, traces = tmp_path / "cal.csv", ["aa", "bbb", "c"]
    calibration_table(path, {"plan": 1}, traces, partial(fake_calibrate, ()), "load", False, jobs=0)
    with pytest.raises(RuntimeError, match="calibration of bbb failed"):
        calibration_table(path, {"plan": 2}, traces, partial(fake_calibrate, ("bbb",)), "load", False, jobs=0)
    df = pd.read_csv(path)  # plan 2's first trace, then all of plan 1's
    assert list(df["trace"]) == ["aa", "aa", "bbb", "c"] and df["plan_key"].nunique() == 2
    # plan 1 is still reused whole
    assert calibration_table(path, {"plan": 1}, traces, partial(fake_calibrate, tuple(traces)), "load", False) == \
        {"aa": 2.0, "bbb": 3.0, "c": 1.0}
    assert pd.read_csv(path)["plan_key"].nunique() == 1
