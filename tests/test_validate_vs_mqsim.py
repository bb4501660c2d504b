"""The MQSim comparison script's case-1 helpers (benchmarks/validate_vs_mqsim.py):
the threshold that matches MQSim's GC room, the warm-up/measured traces, and the
reading of the instrumented MQSim's logs.  Figures are worked out by hand here."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "validate_vs_mqsim.py"
_spec = importlib.util.spec_from_file_location("validate_vs_mqsim", _PATH)
vm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vm)


@pytest.mark.parametrize("blocks, expected", [
    (32, 11 / 32),    # floor(0.05 * 32) = 1 < 10, so MQSim's pool threshold is 10; +1 for its third frontier
    (128, 11 / 128),  # floor(6.4) = 6 < 10
    (256, 13 / 256),  # floor(12.8) = 12 > 10: the nominal ratio wins
])
def test_threshold_leaves_mqsims_room(blocks, expected):
    assert vm.mqsim_gc_threshold_ratio(blocks) == pytest.approx(expected)


def test_warmup_fills_in_order_then_writes_randomly_inside_the_working_set():
    working = 1_000
    warm, measured = vm.case1_traces(2_000, 20_000, 3, working)
    lpn = warm.offset // 8192
    n_rand = int(round(vm.WARM_RATIO * working))
    assert len(warm) == working + n_rand and warm.is_write.all()
    assert (lpn[:working] == np.arange(working)).all()
    assert lpn[working:].min() >= 0 and lpn[working:].max() < working
    steps = np.diff(warm.time_ns)
    assert (steps[:working - 1] == 10**9 // vm.FILL_RATE).all()
    assert (steps[working:] == 10**9 // vm.WARM_RATE).all()
    assert len(measured) == 2_000 and (measured.offset // 8192).max() < working
    assert 0.6 < 1 - measured.is_write.mean() < 0.8  # 70% reads, 2,000 draws


def test_mqsim_trace_puts_the_measured_part_after_the_gap():
    warm, measured = vm.case1_traces(500, 20_000, 1, 200)
    full, t0 = vm.mqsim_case1_trace(warm, measured)
    assert t0 == int(warm.time_ns[-1]) + vm.GAP_NS
    assert len(full) == len(warm) + len(measured)
    assert (full.time_ns[len(warm):] == measured.time_ns + t0).all()
    assert (full.offset[len(warm):] == measured.offset).all()
    assert (full.is_write[:len(warm)]).all()


def test_mqsim_logs_count_only_the_measured_window(tmp_path):
    t0 = 1_000
    # warm-up: two writes (enqueued before t0); window: reads 0..99 us and one write of 100 us
    lines = ["W 10 5000", "W 20 7000"] + [f"R {t0 + i} {i * 1000}" for i in range(100)] + [f"W {t0 + 500} 100000"]
    (tmp_path / "x.rt").write_text("\n".join(lines) + "\n")
    (tmp_path / "x.gc").write_text("G 500 200\nG 1000 40\nG 2000 60\n")
    r = vm.read_mqsim_logs(tmp_path / "x", t0)
    assert r["requests"] == 101
    assert r["read_latency_mean_ns"] == pytest.approx(49_500)  # mean of 0..99 us
    assert r["write_latency_mean_ns"] == pytest.approx(100_000)
    assert r["io_latency_mean_ns"] == pytest.approx((4_950_000 + 100_000) / 101)
    assert r["io_latency_p99_ns"] == pytest.approx(99_000)  # 101 sorted values 0..100 us: the 99th is 99 us
    assert (r["gc_count"], r["gc_page_moves"]) == (2, 100)  # the GC at 500 ns is warm-up
    assert r["warmup_done_ns"] == 7_020


def test_growth_is_heavy_over_light():
    heavy = {"io_latency_mean_ns": 30.0, "read_latency_mean_ns": 8.0, "io_latency_p99_ns": 100.0}
    light = {"io_latency_mean_ns": 3.0, "read_latency_mean_ns": 2.0, "io_latency_p99_ns": 50.0}
    assert vm.growth(heavy, light) == {"mean": 10.0, "read": 4.0, "p99": 2.0}


def test_mqsim_erase_lines_give_intervals_and_victims_started_at_an_erase(tmp_path):
    t0 = 1_000
    (tmp_path / "x.rt").write_text(f"R {t0} 100\nW {t0} 300\n")
    # plane (ch 1, chip 2, plane 0): victim block 5 from 900 (warm-up), erased at 1500; block 6 starts
    # at that erase (chained) and ends at 2500; plane (ch 0, chip 0, plane 3) block 7: 1200..1400
    (tmp_path / "x.gc").write_text("G 900 10 1 2 0 5\nG 1200 4 0 0 3 7\nE 1400 0 0 0 3 7\n"
                                   "E 1500 0 1 2 0 5\nG 1500 20 1 2 0 6\nE 2500 0 1 2 0 6\n")
    r = vm.read_mqsim_logs(tmp_path / "x", t0)
    assert (r["gc_count"], r["gc_page_moves"]) == (2, 24)
    assert r["gc_on_erase"] == 1
    assert sorted(r["gc_intervals"]) == [(0, 1200, 1400), (1 + 8 * 2, 1500, 2500)]


def test_gc_sessions_join_overlapping_victims_of_one_die():
    # die 0: 0..10 and 5..30 overlap (one session of 30 with 2 victims), 40..50 alone; die 1: 0..20
    g = vm.gc_sessions([(0, 0, 10), (0, 5, 30), (0, 40, 50), (1, 0, 20)])
    assert g["sessions"] == 3
    assert g["victims_per_session"] == pytest.approx(4 / 3)
    assert g["trigger_to_erase_ns"] == pytest.approx((10 + 25 + 10 + 20) / 4)
    assert g["blocked_session_ns"] == pytest.approx((30**2 + 10**2 + 20**2) / 60)
