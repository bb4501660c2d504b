"""Trace formats: every reader on real and hand-written files, round trips of
every writer, bad lines of every reader, and the fast path agreeing with the
line-by-line reference parser."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from flashrr.trace import Trace, TraceError
from flashrr.trace.formats import (FORMAT_NAMES, FORMATS, SECTOR_BYTES, WRITABLE_FORMATS, LineError,
                                   get_format)
from flashrr.trace.io import _parse, _sample_lines, read_trace, read_trace_report, write_trace
from strategies import grid_traces

DATA = Path(__file__).parent / "data"
MQSIM_SAMPLE = DATA / "wsrch-small.mqsim.txt"
# formats of one fixed line layout (libCacheSim's are tested in test_trace_formats_libcachesim.py)
LINE_FORMATS = ("msr", "systor", "alibaba", "tencent", "spc", "mqsim", "blkparse")


def _read(path, **kw):
    kw.setdefault("cache", False)
    return read_trace_report(path, **kw)


def _slow(path: Path, fmt: str, skip_bad: bool = False):
    """The line-by-line reference parse of ``path`` (bypassing the fast path)."""
    return _parse(path, get_format(fmt), _sample_lines(path), skip_bad, False, force_slow=True)


def _fast(path: Path, fmt: str):
    return _parse(path, get_format(fmt), _sample_lines(path), False, False)


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------

def test_registry_names_and_writability():
    assert FORMAT_NAMES == LINE_FORMATS + ("csv", "oracleGeneral", "oracleGeneralOpNS", "oracleSysTwrNS", "vscsi")
    assert WRITABLE_FORMATS == ("msr", "systor", "alibaba", "tencent", "spc", "mqsim")
    assert not FORMATS["blkparse"].writable
    assert get_format("MQSim") is FORMATS["mqsim"]
    assert get_format("ORACLEGENERAL") is FORMATS["oracleGeneral"]


def test_unknown_format_lists_the_known_ones():
    with pytest.raises(TraceError, match=r"unknown trace format 'nope'; known formats: msr, systor, alibaba, "
                                         r"tencent, spc, mqsim, blkparse, csv, oracleGeneral, oracleGeneralOpNS, "
                                         r"oracleSysTwrNS, vscsi"):
        get_format("nope")


@pytest.mark.parametrize("name", LINE_FORMATS)
def test_every_format_documents_its_fields(name):
    f = FORMATS[name]
    assert f.fields and all(col and meaning for col, meaning in f.fields)
    assert f.sniff_line(f.example)
    assert f.parse_line(f.example) is not None


# ---------------------------------------------------------------------------
# The real MQSim sample
# ---------------------------------------------------------------------------

def test_mqsim_real_sample():
    trace, report = _read(MQSIM_SAMPLE)
    assert report.fmt == "mqsim"
    # 24,783 lines (the last one has no newline, so `wc -l` says 24,782); 4 have type 0 (write).
    assert len(trace) == 24_783
    assert trace.n_reads == 24_779
    assert trace.n_writes == 4
    assert trace.time_ns[0] == 0
    assert trace.duration_ns == 60_066_625_000 - 11_413_000
    # first line: 11413000 0 657728 16 1
    assert (trace.offset[0], trace.size[0], bool(trace.is_write[0])) == (657_728 * 512, 16 * 512, False)
    assert report.n_out_of_order == 0
    assert trace.name == "wsrch-small"


def test_mqsim_real_sample_matches_an_independent_parse():
    rows = [ln.split() for ln in MQSIM_SAMPLE.read_text().splitlines() if ln.strip()]
    t = np.array([int(r[0]) for r in rows])
    trace = read_trace(MQSIM_SAMPLE, cache=False)
    np.testing.assert_array_equal(trace.time_ns, t - t[0])
    np.testing.assert_array_equal(trace.offset, [int(r[2]) * 512 for r in rows])
    np.testing.assert_array_equal(trace.size, [int(r[3]) * 512 for r in rows])
    np.testing.assert_array_equal(trace.is_write, [r[4] == "0" for r in rows])


def test_mqsim_real_sample_fast_and_slow_paths_agree():
    fast, slow = _fast(MQSIM_SAMPLE, "mqsim")[0], _slow(MQSIM_SAMPLE, "mqsim")[0]
    for col in ("time", "offset", "size", "is_write"):
        np.testing.assert_array_equal(getattr(fast, col), getattr(slow, col))


# ---------------------------------------------------------------------------
# Hand-written samples: expected values worked out by hand from the units
# ---------------------------------------------------------------------------

SAMPLES = {
    # fmt: (time_ns, offset bytes, size bytes, is_write)
    "msr": ([0, 100_000 * 100, 100_071 * 100, 13_000_000 * 100],
            [3154152960, 1048576, 0, 4096], [4096, 8192, 512, 65536], [False, True, False, True]),
    "systor": ([0, 305_000, 510_000_000], [11041763328, 8192, 0], [4096, 16384, 512], [False, True, False]),
    "alibaba": ([0, 74_000, 100_000_000], [126703644672, 4096, 0], [4096, 8192, 512], [False, True, False]),
    "tencent": ([0, 0, 1_000_000_000], [2055384 * 512, 16 * 512, 0], [8 * 512, 16 * 512, 512],
                [True, False, False]),
    "spc": ([0, 4_503_000, 1_250_000_000], [303567 * 512, 8 * 512, 0], [3584, 8192, 512], [True, False, False]),
    # D W 223490+8 @0.000004567, D RA 1000+16 @0.010000500, D WSM 42+1 @0.050000001; the rest is skipped
    "blkparse": ([0, 10_000_500 - 4_567, 50_000_001 - 4_567], [223490 * 512, 1000 * 512, 42 * 512],
                 [8 * 512, 16 * 512, 512], [True, False, True]),
}
SAMPLE_FILES = {"blkparse": DATA / "sample.blkparse.txt", **{f: DATA / f"sample.{f}.csv" for f in SAMPLES
                                                              if f != "blkparse"}}


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_hand_written_sample(fmt):
    trace, report = _read(SAMPLE_FILES[fmt])  # format sniffed
    assert report.fmt == fmt
    t, off, size, w = SAMPLES[fmt]
    np.testing.assert_array_equal(trace.time_ns, t)
    np.testing.assert_array_equal(trace.offset, off)
    np.testing.assert_array_equal(trace.size, size)
    np.testing.assert_array_equal(trace.is_write, w)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_hand_written_sample_fast_and_slow_paths_agree(fmt):
    fast, slow = _fast(SAMPLE_FILES[fmt], fmt)[0], _slow(SAMPLE_FILES[fmt], fmt)[0]
    assert len(fast) == len(SAMPLES[fmt][0])
    for col in ("time", "offset", "size", "is_write"):
        np.testing.assert_array_equal(getattr(fast, col), getattr(slow, col))


def test_blkparse_is_read_only(tmp_path):
    trace = read_trace(SAMPLE_FILES["blkparse"], cache=False)
    with pytest.raises(TraceError, match="read-only"):
        write_trace(trace, tmp_path / "x.txt", "blkparse")


def test_blkparse_without_summary_and_with_other_devices(tmp_path):
    p = tmp_path / "b.txt"
    p.write_text("259,0    1        7     1.500000000  42  D  WFS 64 + 16 [fio]\n"
                 "  8,16   0        1     2.000000000  43  D    R 8 + 8 [dd]\n")
    trace = read_trace(p, cache=False)
    np.testing.assert_array_equal(trace.time_ns, [0, 500_000_000])
    np.testing.assert_array_equal(trace.is_write, [True, False])


# ---------------------------------------------------------------------------
# Format details
# ---------------------------------------------------------------------------

def test_operation_words_are_case_insensitive(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("100,h,0,READ,0,512,0\n200,h,0,write,512,512,0\n")
    np.testing.assert_array_equal(read_trace(p, fmt="msr", cache=False).is_write, [False, True])


def test_optional_header_is_recognised_for_headerless_formats(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("device_id,opcode,offset,length,timestamp\n0,R,0,4096,10\n0,W,4096,4096,20\n")
    trace, report = _read(p)
    assert report.fmt == "alibaba"
    np.testing.assert_array_equal(trace.time_ns, [0, 10_000])


def test_systor_without_header(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("10.5,0.1,R,0,0,4096\n11.25,0.1,W,0,4096,4096\n")
    np.testing.assert_array_equal(read_trace(p, cache=False).time_ns, [0, 750_000_000])


@pytest.mark.parametrize("layout", [
    "100 0 8 16 1\n200 0 24 8 0\n",
    "100\t0\t8\t16\t1\n200\t0\t24\t8\t0\n",
    "  100   0  8   16  1  \n\n200 0   24 8 0\n",
    "100 0 8 16 1\r\n200 0 24 8 0\r\n",
    "100 0 8 16 7\n200 0 24 8 0",  # any non-zero type is a read; no final newline
])
def test_mqsim_whitespace_layouts(tmp_path, layout):
    p = tmp_path / "w.mqsim"
    p.write_bytes(layout.encode())
    trace = read_trace(p, cache=False)
    np.testing.assert_array_equal(trace.time_ns, [0, 100])
    np.testing.assert_array_equal(trace.offset, [8 * 512, 24 * 512])
    np.testing.assert_array_equal(trace.size, [16 * 512, 8 * 512])
    np.testing.assert_array_equal(trace.is_write, [False, True])


def test_mqsim_irregular_whitespace_stays_on_the_fast_path():
    text = b"  100\t0  8 16 1 \r\n\n200 0\t\t24 8 0\n"
    raw = FORMATS["mqsim"].parse_fast(lambda: contextlib.nullcontext(io.BytesIO(text)), 0)
    np.testing.assert_array_equal(raw.time, [100, 200])
    np.testing.assert_array_equal(raw.offset, [8 * 512, 24 * 512])
    np.testing.assert_array_equal(raw.is_write, [False, True])


def test_seconds_are_exact_to_the_ns_and_rounded_beyond(tmp_path):
    p = tmp_path / "s.spc"
    p.write_text("0,0,512,r,1487038000.000000001\n0,0,512,r,1487038000.1234567896\n0,0,512,r,1487038001\n")
    np.testing.assert_array_equal(read_trace(p, fmt="spc", cache=False).time_ns, [0, 123_456_789, 999_999_999])


def test_writers_round_time_to_the_format_resolution(tmp_path):
    trace = Trace([0, 149, 150, 2_499], [0] * 4, [512] * 4, [False] * 4)
    write_trace(trace, tmp_path / "x.msr.csv")
    np.testing.assert_array_equal(read_trace(tmp_path / "x.msr.csv", cache=False).time_ns, [0, 100, 200, 2_500])
    write_trace(trace, tmp_path / "x.alibaba.csv")
    np.testing.assert_array_equal(read_trace(tmp_path / "x.alibaba.csv", cache=False).time_ns, [0, 0, 0, 2_000])


@pytest.mark.parametrize("fmt", ["tencent", "mqsim"])
def test_sector_writers_widen_requests_to_whole_sectors(tmp_path, fmt):
    trace = Trace([0, 1], [1000, 1024], [100, 1], [True, False])
    write_trace(trace, tmp_path / f"x.{fmt}", fmt)
    back = read_trace(tmp_path / f"x.{fmt}", cache=False)
    np.testing.assert_array_equal(back.offset, [512, 1024])      # start rounded down to a sector
    np.testing.assert_array_equal(back.size, [1024, 512])        # [1000, 1100) -> [512, 1536); [1024, 1025) -> 1 sector


def test_spc_widens_only_the_start(tmp_path):
    trace = Trace([0], [1000], [100], [True])  # LBA in sectors, Size in bytes
    write_trace(trace, tmp_path / "x.spc", "spc")
    back = read_trace(tmp_path / "x.spc", cache=False)
    assert (back.offset[0], back.size[0]) == (512, 588)


def test_tencent_writes_whole_seconds_as_integers(tmp_path):
    write_trace(Trace([0, 2_000_000_000], [0, 512], [512, 512], [False, True]), tmp_path / "x.tencent")
    assert (tmp_path / "x.tencent").read_text() == "0,0,1,0,0\n2,1,1,1,0\n"


def test_systor_writer_writes_the_header(tmp_path):
    write_trace(Trace([0, 1_500], [0, 512], [512, 4096], [False, True]), tmp_path / "x.systor.csv")
    assert (tmp_path / "x.systor.csv").read_text() == ("Timestamp,Response,IOType,LUN,Offset,Size\n"
                                                       "0.000000000,0,R,0,0,512\n0.000001500,0,W,0,512,4096\n")


# ---------------------------------------------------------------------------
# Round trips of every writable format
# ---------------------------------------------------------------------------

# (time resolution ns, offset unit bytes, size unit bytes) each writer stores exactly
UNITS = {"msr": (100, 1, 1), "systor": (1, 1, 1), "alibaba": (1000, 1, 1),
         "tencent": (1, SECTOR_BYTES, SECTOR_BYTES), "spc": (1, SECTOR_BYTES, 1),
         "mqsim": (1, SECTOR_BYTES, SECTOR_BYTES)}


def _round_trip_test(fmt):
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(trace=grid_traces(*UNITS[fmt]))
    def check(tmp_path_factory, trace):
        d = tmp_path_factory.getbasetemp() / f"roundtrip-{fmt}"
        d.mkdir(exist_ok=True)
        path = d / "trace.txt"  # a neutral name: the format must be sniffed from the content
        write_trace(trace, path, fmt)
        back, report = _read(path, fmt=fmt)
        assert back == trace
        if len(trace):
            sniffed, report = _read(path)
            assert report.fmt == fmt
            assert sniffed == trace
            slow = _slow(path, fmt)[0]
            fast = _fast(path, fmt)[0]
            for col in ("time", "offset", "size", "is_write"):
                np.testing.assert_array_equal(getattr(fast, col), getattr(slow, col))

    return check


@pytest.mark.parametrize("fmt", WRITABLE_FORMATS)
def test_round_trip(fmt, tmp_path_factory):
    _round_trip_test(fmt)(tmp_path_factory)


# ---------------------------------------------------------------------------
# Bad lines, for every reader
# ---------------------------------------------------------------------------

# fmt: (two good lines, a bad line, pattern the error must contain)
BAD_LINES = {
    "msr": ("100,h,0,Read,0,4096,5\n200,h,0,Write,4096,4096,5\n", "300,h,0,Read,8192,abc,5",
            r"field 'Size': expected an integer byte count, got 'abc'"),
    "systor": ("1.0,0.1,R,0,0,4096\n2.0,0.1,W,0,4096,4096\n", "3.0,0.1,X,0,0,4096",
               r"field 'IOType': expected 'R' or 'W', got 'X'"),
    "alibaba": ("0,R,0,4096,10\n0,W,4096,4096,20\n", "0,R,0,4096",
                r"expected 5 comma-separated fields \(device_id,opcode,offset,length,timestamp\), got 4"),
    "tencent": ("1,0,8,0,1\n2,8,8,1,1\n", "3,16,8,2,1",
                r"field 'IOType': expected 0 \(read\) or 1 \(write\), got '2'"),
    "spc": ("0,0,4096,r,0.0\n0,8,4096,w,0.5\n", "0,16,4096,w,soon",
            r"field 'Timestamp': expected a time in seconds, got 'soon'"),
    "mqsim": ("100 0 0 8 1\n200 0 8 8 0\n", "300 0 x8 8 1",
              r"field 'start_sector': expected an integer sector number \(512-byte sectors\), got 'x8'"),
    "blkparse": ("  8,0 0 1 0.000001000 9 D R 0 + 8 [a]\n  8,0 0 2 0.000002000 9 D W 8 + 8 [a]\n",
                 "  8,0 0 3 0.000003000 9 D W 16 + many [a]",
                 r"field 'nsectors': expected an integer sector count \(512-byte sectors\), got 'many'"),
}


@pytest.mark.parametrize("fmt", LINE_FORMATS)
def test_bad_line_names_file_line_and_field(tmp_path, fmt):
    good, bad, why = BAD_LINES[fmt]
    p = tmp_path / "bad_trace.txt"
    p.write_text(good + bad + "\n" + good)
    with pytest.raises(TraceError, match=rf"bad_trace\.txt line 3: {why}"):
        read_trace(p, fmt=fmt, cache=False)


@pytest.mark.parametrize("fmt", LINE_FORMATS)
def test_bad_line_is_skipped_and_counted(tmp_path, fmt):
    good, bad, _ = BAD_LINES[fmt]
    p = tmp_path / "bad_trace.txt"
    p.write_text(good + bad + "\n" + good)
    trace, report = _read(p, fmt=fmt, skip_bad=True)
    assert len(trace) == 4
    assert report.n_skipped == 1
    assert "line 3" in report.skipped_examples[0]
    clean = tmp_path / "clean.txt"
    clean.write_text(good + good)
    assert trace == read_trace(clean, fmt=fmt, cache=False)


@pytest.mark.parametrize("fmt,line,why", [
    ("msr", "100,h,0,Read,-4096,4096,5", r"field 'Offset': expected a non-negative byte offset, got '-4096'"),
    ("mqsim", "100 0 -8 8 1", r"field 'start_sector': expected a non-negative sector number, got '-8'"),
    ("alibaba", "0,R,0,0,10", r"field 'length': expected a positive byte count, got '0'"),
    ("tencent", "1,8,0,1,1", r"field 'Size': expected a positive sector count, got '0'"),
    ("mqsim", "100 0 8 0 1", r"field 'size_sectors': expected a positive sector count, got '0'"),
    ("spc", "0,0,4096,r,-1.5", r"field 'Timestamp': expected a non-negative time in seconds, got '-1.5'"),
    ("systor", "nan,0,R,0,0,4096", r"field 'Timestamp': expected a time in seconds, got 'nan'"),
    ("msr", "1e3,h,0,Read,0,4096,5", r"field 'Timestamp': expected an integer Windows FILETIME"),
])
def test_out_of_range_values_are_bad_lines(tmp_path, fmt, line, why):
    p = tmp_path / "v.txt"
    p.write_text(line + "\n")
    with pytest.raises(TraceError, match=rf"v\.txt line 1: {why}"):
        read_trace(p, fmt=fmt, cache=False)
    trace, report = _read(p, fmt=fmt, skip_bad=True)
    assert (len(trace), report.n_skipped) == (0, 1)


def test_line_parser_raises_line_errors_only():
    with pytest.raises(LineError, match="expected 7 comma-separated fields"):
        FORMATS["msr"].parse_line("1,2,3")
    assert FORMATS["blkparse"].parse_line("CPU0 (8,0):") is None
    assert FORMATS["blkparse"].parse_line("  8,0 1 1 0.5 1 D D 5000 + 2048 [fstrim]") is None  # discard
    assert FORMATS["blkparse"].parse_line("  8,0 1 1 0.5 1 D WS 7000 + 0 [jbd2]") is None     # no data
