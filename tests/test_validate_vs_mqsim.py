"""The MQSim comparison harness (benchmarks/validate_vs_mqsim.py, benchmarks/mqsim_side.py):
the threshold that matches MQSim's GC room, the prefix MQSim's trace starts with, the XML it
is given, and the reading of its request log and output XML.  MQSim itself never runs here;
its outputs are written by hand in the formats its patched build writes."""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

_BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(_BENCH))
import validate_vs_mqsim as vm  # noqa: E402  (benchmarks/)

ms = vm.mqsim_side


@pytest.mark.parametrize("blocks, expected", [
    (32, 11 / 32),    # floor(0.05 * 32) = 1 < 10, so MQSim's pool threshold is 10; +1 for its third frontier
    (128, 11 / 128),  # floor(6.4) = 6 < 10
    (256, 13 / 256),  # floor(12.8) = 12 > 10: the nominal ratio wins
])
def test_threshold_leaves_mqsims_room(blocks, expected):
    assert vm.mqsim_gc_threshold_ratio(blocks) == pytest.approx(expected)


def test_prefix_writes_the_footprint_in_order_then_idles():
    tr = vm.measured_trace(1_000, 100_000, 1_001, 0.7, 0.0, seed=3)
    t, off, size, w, t0 = vm.with_prefix(tr, 1_001)
    n_pre = 251  # 1,001 pages in 4-page (32 KiB) requests: 250 full and one of one page
    assert (off[:n_pre] == np.arange(n_pre) * 32768).all() and size[n_pre - 1] == 8192
    assert size[:n_pre].sum() == 1_001 * 8192 and w[:n_pre].all()
    assert (np.diff(t[:n_pre]) == vm.PREFIX_GAP_NS).all()
    assert t0 == t[n_pre - 1] + vm.PREFIX_IDLE_NS and (t[n_pre:] == tr.time_ns + t0).all()
    assert (off[n_pre:] == tr.offset).all() and (w[n_pre:] == tr.is_write).all()


def test_gc_cases_age_the_device_with_random_writes_after_the_fill():
    tr = vm.measured_trace(100, 100_000, 1_000, 0.7, 0.0, seed=3)
    t, off, size, w, t0 = vm.with_prefix(tr, 1_000, warmup_ratio=2.0, warmup_rate=1_000.0, seed=3)
    fill, n_warm = 250, 2_000
    warm = slice(fill, fill + n_warm)
    assert w[:fill + n_warm].all() and (size[warm] == 8192).all()
    assert off[warm].min() >= 0 and off[warm].max() < 1_000 * 8192
    assert len(np.unique(off[warm])) > 800  # random pages over the footprint, not one region
    assert t[fill] == t[fill - 1] + vm.PREFIX_GAP_NS and (np.diff(t[warm]) == 1_000_000).all()
    assert t0 == t[fill + n_warm - 1] + vm.PREFIX_IDLE_NS and len(t) == fill + n_warm + 100


def test_measured_trace_has_its_read_share_footprint_and_skew():
    u = vm.measured_trace(20_000, 100_000, 5_000, 0.7, 0.0, seed=1)
    z = vm.measured_trace(20_000, 100_000, 5_000, 0.7, 0.8, seed=1)
    for tr in (u, z):
        lpn = tr.offset // 8192
        assert lpn.min() >= 0 and lpn.max() < 5_000 and (tr.size == 8192).all()
        assert 0.68 < 1 - tr.is_write.mean() < 0.72
        assert abs(np.diff(tr.time_ns).mean() / 100_000 - 1) < 0.05
    top = lambda tr: np.sort(np.bincount(tr.offset // 8192, minlength=5_000))[::-1][:50].sum() / len(tr)
    assert top(z) > 3 * top(u)  # the 1% hottest pages take a far larger share under Zipf 0.8


def test_filled_cases_skip_the_random_writes_and_take_their_own_load():
    far, near = vm.CASES["filled 70/30 far"], vm.CASES["filled 70/30 near"]
    aged = vm.CASES["GC 70/30"]
    assert aged.aged and not far.aged and not near.aged and far.blocks == near.blocks == (32, 128)
    assert (far.gap_us, near.gap_us) == (100.0, 15.0) and far.footprint_gib == near.footprint_gib == 3.5
    cfg = vm.device(32)
    assert cfg.gc.reserve_gc_frontier and cfg.gc.write_stall and cfg.gc.free_pool == "erased"
    assert not cfg.gc.copyback  # MQSim's Use_Copyback_for_GC = false


def test_device_xml_sets_what_the_comparison_needs():
    root = ET.fromstring(ms.device_xml(32, True, 64 << 20))
    get = lambda tag: root.find(f".//{tag}").text
    assert get("Block_No_Per_Plane") == "32" and get("Preemptible_GC_Enabled") == "true"
    assert get("Ideal_Mapping_Table") == "true" and get("GC_Block_Selection_Policy") == "GREEDY"
    assert get("CMD_Suspension_Support") == "NONE" and get("Static_Wearleveling_Enabled") == "false"
    assert get("Die_No_Per_Chip") == "1" and get("Plane_No_Per_Die") == "4"
    assert get("Data_Cache_Capacity") == str(64 << 20)
    assert get("Queue_Fetch_Size") == "65535"  # no window on requests in flight, as in flashrr
    assert get("Use_Copyback_for_GC") == "false" and not vm.device(32).gc.copyback  # both move GC pages out and in
    wl = ET.fromstring(ms.workload_xml(Path("/x/t.trace"), cached=False))
    assert wl.find(".//Device_Level_Data_Caching_Mode").text == "TURNED_OFF"
    assert wl.find(".//File_Path").text == "/x/t.trace" and wl.find(".//Initial_Occupancy_Percentage").text == "0"


def test_trace_file_is_mqsims_ascii_format(tmp_path):
    p = tmp_path / "t.trace"
    ms.write_trace(p, [0, 50], [8192, 32768], [8192, 4096], [True, False])
    assert p.read_text().split("\n")[:2] == ["0 0 16 16 0", "50 0 64 8 1"]


def test_request_log_drops_a_partial_record_and_splits_the_type_word(tmp_path):
    recs = np.array([[10, 11, 110, (1 << 32) | 16], [20, 20, 95, 16]], dtype="<u8")
    p = tmp_path / "r.log"
    p.write_bytes(recs.tobytes() + np.array([7, 7], "<u8").tobytes())  # a run killed mid-record
    arrival, finish, is_write = ms.read_reqlog(p)
    assert list(arrival) == [10, 20] and list(finish) == [110, 95] and list(is_write) == [True, False]
    assert [len(x) for x in ms.read_reqlog(tmp_path / "missing")] == [0, 0, 0]


def test_gc_stats_sum_over_planes_and_moves_weight_by_executions(tmp_path):
    x = tmp_path / "o.xml"
    x.write_text('<R><FTL Issued_Flash_Erase_CMD="5" Issued_Flash_Multiplane_Erase_CMD="2"/>'
                 '<GC Total_GC_Executions="3" Average_Page_Movement_For_GC="10.5"/>'
                 '<GC Total_GC_Executions="1" Average_Page_Movement_For_GC="2"/></R>')
    assert ms.read_gc_stats(x) == (4, 34, 7)  # 3 x 10.5 + 1 x 2 moves
    assert ms.read_gc_stats(tmp_path / "none.xml") == (None, None, None)


def test_latency_stats_by_type():
    w = np.array([True, False, False, True])
    s = vm.latency_stats(w, np.array([1000.0, 100.0, 300.0, 3000.0]))
    assert s["read_latency_mean_ns"] == 200 and s["write_latency_mean_ns"] == 2000
    assert s["io_latency_mean_ns"] == 1100


def test_a_missing_binary_is_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(SystemExit):
        vm.main(["--mqsim", str(tmp_path / "MQSim"), "--n", "10"])
    assert "no such file" in capsys.readouterr().err


def test_flashrr_side_runs_alone_and_prints_every_case(capsys):
    vm.main(["--n", "2000", "--footprint-gib", "0.05", "--case", "70/30", "--case", "GC 50/50"])
    out = capsys.readouterr().out
    assert "## 70/30" in out and "## GC 50/50" in out and "GC interference, 32 over 128" in out
    assert "| requests measured | 2,000 | 2,000 | 2,000 | - |" in out  # the three flashrr sides; no MQSim
    assert "32b flashrr rp" in out and "32b flashrr rpj" in out
    assert "GC interference, 32 over 128 blocks per plane (flashrr, flashrr rp, flashrr rpj" in out
