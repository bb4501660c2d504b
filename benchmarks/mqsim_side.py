"""MQSim's side of ``validate_vs_mqsim.py``: its XML files, one run, and what it logged.

MQSim (CMU-SAFARI/MQSim, MIT licence) is built outside this repository with the two
patches of ``shared/mqsim/``: the deferred-GC erase fix, and the per-request log that
``$MQSIM_REQLOG`` names (4 x uint64 per finished host request: arrival ns, enqueue ns,
finish ns, ``is_write << 32 | sectors``).  Nothing here changes how MQSim simulates.
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

SECTOR_BYTES = 512

#: Device settings every case shares (MQSim's element names); see ``device_xml``.  The DRAM: 2,000 MT/s
#: with 4-byte bursts moves an 8 KiB page in 8192 / 4 / 2 x 0.5 ns + tRCD + tCL = 538 ns, flashrr's 0.5 us
#: per page (``timing.t_dram_ns``); MQSim's stock 100 MT/s with 1-byte bursts takes 41 us per page.
#: The host queue: MQSim's NVMe interface fetches a request only while fewer than ``Queue_Fetch_Size``
#: are in flight (512 by default); flashrr's device takes every request when it arrives.  The largest
#: value MQSim takes, 65,535, lifts that window: with 512, a device stalled by GC on some dies keeps
#: 512 requests in flight and the requests for every other die wait in the host's queue.
BASE_DEVICE = {
    "Enabled_Preconditioning": "false", "Memory_Type": "FLASH", "HostInterface_Type": "NVME",
    "IO_Queue_Depth": 65535, "Queue_Fetch_Size": 65535, "Caching_Mechanism": "ADVANCED",
    "Data_Cache_Sharing_Mode": "SHARED", "Data_Cache_DRAM_Row_Size": 8192, "Data_Cache_DRAM_Data_Rate": 2000,
    "Data_Cache_DRAM_Data_Busrt_Size": 4, "Data_Cache_DRAM_tRCD": 13, "Data_Cache_DRAM_tCL": 13,
    "Data_Cache_DRAM_tRP": 13, "Address_Mapping": "PAGE_LEVEL", "Ideal_Mapping_Table": "true",
    "CMT_Capacity": 2097152, "CMT_Sharing_Mode": "SHARED", "Plane_Allocation_Scheme": "CWDP",
    "Transaction_Scheduling_Policy": "OUT_OF_ORDER", "Overprovisioning_Ratio": 0.127,
    "GC_Exec_Threshold": 0.05, "GC_Block_Selection_Policy": "GREEDY", "Use_Copyback_for_GC": "false",
    "GC_Hard_Threshold": 0.005, "Dynamic_Wearleveling_Enabled": "false", "Static_Wearleveling_Enabled": "false",
    "Static_Wearleveling_Threshold": 100, "Preferred_suspend_erase_time_for_read": 700000,
    "Preferred_suspend_erase_time_for_write": 700000, "Preferred_suspend_write_time_for_read": 100000,
    "Flash_Channel_Count": 8, "Flash_Channel_Width": 1, "Channel_Transfer_Rate": 333, "Chip_No_Per_Channel": 4,
    "Flash_Comm_Protocol": "NVDDR2",
}
#: The flash chip: MLC 75 / 750 / 3,800 us, 1 die x 4 planes, 256 pages of 8 KiB, no suspension.
BASE_FLASH = {
    "Flash_Technology": "MLC", "CMD_Suspension_Support": "NONE",
    "Page_Read_Latency_LSB": 75000, "Page_Read_Latency_CSB": 75000, "Page_Read_Latency_MSB": 75000,
    "Page_Program_Latency_LSB": 750000, "Page_Program_Latency_CSB": 750000, "Page_Program_Latency_MSB": 750000,
    "Block_Erase_Latency": 3800000, "Block_PE_Cycles_Limit": 10000, "Suspend_Erase_Time": 700000,
    "Suspend_Program_Time": 100000, "Die_No_Per_Chip": 1, "Plane_No_Per_Die": 4, "Page_No_Per_Block": 256,
    "Page_Capacity": 8192, "Page_Metadat_Capacity": 448,
}


def _elements(d: dict, indent: str) -> str:
    return "".join(f"{indent}<{k}>{escape(str(v))}</{k}>\n" for k, v in d.items())


def device_xml(blocks_per_plane: int, preemptible_gc: bool, cache_bytes: int, seed: int = 321) -> str:
    """MQSim's ``ssdconfig`` XML for the validation device: ``blocks_per_plane`` blocks per
    plane, ``Preemptible_GC_Enabled`` as given, a data cache of ``cache_bytes`` bytes."""
    dev = dict(BASE_DEVICE, Seed=seed, Data_Cache_Capacity=max(int(cache_bytes), 8192),
               Preemptible_GC_Enabled="true" if preemptible_gc else "false")
    flash = dict(BASE_FLASH, Block_No_Per_Plane=int(blocks_per_plane))
    host = {"PCIe_Lane_Bandwidth": "1.00000", "PCIe_Lane_Count": 4, "SATA_Processing_Delay": 400000,
            "Enable_ResponseTime_Logging": "false", "ResponseTime_Logging_Period_Length": 1000000}
    return ('<?xml version="1.0" encoding="us-ascii"?>\n<Execution_Parameter_Set>\n\t<Host_Parameter_Set>\n'
            + _elements(host, "\t\t") + "\t</Host_Parameter_Set>\n\t<Device_Parameter_Set>\n"
            + _elements(dev, "\t\t") + "\t\t<Flash_Parameter_Set>\n" + _elements(flash, "\t\t\t")
            + "\t\t</Flash_Parameter_Set>\n\t</Device_Parameter_Set>\n</Execution_Parameter_Set>\n")


def workload_xml(trace_path: Path, cached: bool) -> str:
    """One trace-based flow over every channel, chip and plane; the write cache on or off."""
    flow = {"Priority_Class": "HIGH", "Device_Level_Data_Caching_Mode": "WRITE_CACHE" if cached else "TURNED_OFF",
            "Channel_IDs": "0,1,2,3,4,5,6,7", "Chip_IDs": "0,1,2,3", "Die_IDs": "0", "Plane_IDs": "0,1,2,3",
            "Initial_Occupancy_Percentage": 0, "File_Path": str(trace_path), "Percentage_To_Be_Executed": 100,
            "Relay_Count": 1, "Time_Unit": "NANOSECOND"}
    return ('<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n\t<IO_Scenario>\n'
            "\t\t<IO_Flow_Parameter_Set_Trace_Based>\n" + _elements(flow, "\t\t\t")
            + "\t\t</IO_Flow_Parameter_Set_Trace_Based>\n\t</IO_Scenario>\n</MQSim_IO_Scenarios>\n")


def write_trace(path: Path, time_ns, offset_bytes, size_bytes, is_write) -> None:
    """MQSim's ASCII trace: ``arrival_ns device lba sectors type`` (type 0 write, 1 read)."""
    rows = np.column_stack([np.asarray(time_ns, np.int64), np.zeros(len(time_ns), np.int64),
                            np.asarray(offset_bytes, np.int64) // SECTOR_BYTES,
                            np.asarray(size_bytes, np.int64) // SECTOR_BYTES,
                            np.where(np.asarray(is_write, bool), 0, 1)])
    np.savetxt(path, rows, fmt="%d")


@dataclass
class MQSimRun:
    """What one MQSim run left: per-request arrays (ns) from the request log, its GC and
    erase counts from the output XML (whole run), whether it ended by itself, and why not."""

    arrival_ns: np.ndarray
    finish_ns: np.ndarray
    is_write: np.ndarray
    gc_count: int | None
    gc_page_moves: int | None
    erases: int | None
    completed: bool
    failure: str
    wall_s: float


def read_reqlog(path: Path) -> tuple:
    """(arrival_ns, finish_ns, is_write) of every logged request; a partial last record
    (a run killed mid-write) is dropped."""
    raw = np.fromfile(path, dtype="<u8") if path.exists() else np.zeros(0, "<u8")
    rec = raw[: len(raw) // 4 * 4].reshape(-1, 4)
    return rec[:, 0].astype(np.int64), rec[:, 2].astype(np.int64), (rec[:, 3] >> 32).astype(bool)


def read_gc_stats(xml_path: Path) -> tuple:
    """(GC executions, GC page moves, erases issued) summed over MQSim's FTL statistics in its
    output XML; Nones when the file is missing (the run did not finish)."""
    if not xml_path.exists():
        return None, None, None
    text = xml_path.read_text(errors="replace")

    def values(name):
        return np.array([float(v) for v in re.findall(rf'{name}="([0-9.eE+-]+)"', text)])

    executions = values("Total_GC_Executions")
    gcs = int(executions.sum())
    moves = int(round(float((executions * values("Average_Page_Movement_For_GC")).sum())))
    erases = int(sum(values(n).sum() for n in ("Issued_Flash_Erase_CMD", "Issued_Flash_Interleaved_Erase_CMD",
                                               "Issued_Flash_Multiplane_Erase_CMD",
                                               "Issued_Flash_Interleaved_Multiplane_Erase_CMD")))
    return gcs, moves, erases


def run(binary: Path, workdir: Path, tag: str, device: str, workload: str, timeout_s: float) -> MQSimRun:
    """Write ``tag``'s XML files under ``workdir``, run MQSim with the request log on, and read
    what it left.  A timeout, a crash or a non-zero exit is recorded, not raised."""
    workdir.mkdir(parents=True, exist_ok=True)
    dev, wl, log = workdir / f"{tag}.ssd.xml", workdir / f"{tag}.workload.xml", workdir / f"{tag}.reqlog"
    dev.write_text(device)
    wl.write_text(workload)
    log.unlink(missing_ok=True)
    out_xml = workdir / f"{tag}.workload_scenario_1.xml"
    out_xml.unlink(missing_ok=True)
    t0 = time.perf_counter()
    failure = ""
    try:
        p = subprocess.run([str(binary), "-i", str(dev), "-w", str(wl)], cwd=workdir, timeout=timeout_s,
                           env=dict(os.environ, MQSIM_REQLOG=str(log)), capture_output=True, text=True,
                           errors="replace")
        if p.returncode != 0:
            tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["(no output)"]
            failure = f"exit {p.returncode}: {tail[0][:200]}"
        else:
            died = [ln for ln in p.stdout.splitlines() if "already been locked" in ln or "Inconsistency" in ln]
            failure = died[0][:200] if died else ""
    except subprocess.TimeoutExpired:
        failure = f"timed out after {timeout_s:g} s"
    wall = time.perf_counter() - t0
    arrival, finish, is_write = read_reqlog(log)
    gcs, moves, erases = read_gc_stats(out_xml)
    return MQSimRun(arrival, finish, is_write, gcs, moves, erases, not failure, failure, wall)
