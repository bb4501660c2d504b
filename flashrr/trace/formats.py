"""Block-trace file formats, one :class:`TraceFormat` record each.

A record knows everything format-specific: the columns and their units, how
to recognise a line of the format (sniffing), a vectorised parser for whole
files (pyarrow's CSV reader), a line-by-line parser that is the reference for
what a valid line is and that explains the first bad one, and a writer.
Everything about files (opening, compression, progress, caching, sorting,
error messages with the path) lives in :mod:`flashrr.trace.io`.  The record and
what every parser shares are in :mod:`flashrr.trace.format_base`, the machinery of
the delimited text formats in :mod:`flashrr.trace.format_delimited`.  libCacheSim's
formats (``csv`` with a header, the binary ``oracleGeneral`` family and
``vscsi``) and their reading options live in
:mod:`flashrr.trace.formats_libcachesim` and are registered in :data:`FORMATS`.

Column facts (units are exactly as the trace publishers document them):

``msr``      MSR Cambridge (SNIA IOTTA), CSV without header:
             ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``.
             Timestamp in Windows FILETIME ticks (100 ns), Type ``Read``/``Write``,
             Offset and Size in bytes.
``systor``   SYSTOR'17 VDI traces, CSV with header
             ``Timestamp,Response,IOType,LUN,Offset,Size``.  Timestamp in
             seconds (decimal, Unix epoch), IOType ``R``/``W``, bytes.
``alibaba``  Alibaba block traces 2020 (``io_traces.csv``):
             ``device_id,opcode,offset,length,timestamp``.  opcode ``R``/``W``,
             offset and length in bytes, timestamp in microseconds (Unix epoch).
``tencent``  Tencent CBS (SNIA IOTTA): ``Timestamp,Offset,Size,IOType,VolumeID``.
             Timestamp in seconds (Unix epoch), Offset and Size in 512-byte
             sectors, IOType 0 = read, 1 = write.
``spc``      UMass / SPC trace format: ``ASU,LBA,Size,Opcode,Timestamp``.  LBA in
             512-byte sectors, Size in bytes, Opcode ``r``/``w`` (any case),
             Timestamp in seconds (decimal) from the start of the trace.
``mqsim``    MQSim / DiskSim-style ASCII, whitespace separated:
             ``arrival_ns device start_sector size_sectors type``; arrival time in
             integer ns, sectors of 512 bytes, type 0 = write, anything else = read.
``blkparse`` Default text output of ``blkparse`` (read-only).  Only ``D``
             (issued) events of reads and writes that carry data
             (``sector + n`` with n > 0) become requests; time in seconds with
             9 decimals, sector and n in 512-byte sectors.

Rules shared by all readers:

* Operation words (``Read``, ``W``, ``r``...) are matched case-insensitively.
* Integers are decimal (an optional sign and surrounding spaces are allowed;
  ``0x`` hexadecimal is tolerated because pyarrow accepts it).  Times in
  seconds are decimal numbers and are rounded to the nearest ns.
* Times must be >= 0, offsets >= 0 and sizes > 0; anything else is a bad line.
* Columns that flashrr does not use (Hostname, DiskNumber, ResponseTime,
  Response, LUN, device_id, VolumeID, ASU, device) are not checked, but every
  line must have the format's number of fields.
* A header line (the format's column names, any case) is recognised as the
  first non-empty line of any comma-separated format.

Writers round times to the format's resolution (half up) and widen a request
to whole sectors where the format stores sectors (the start is rounded down,
the end up), which never changes the flash pages a request touches.
"""
from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from .core import TraceError
from .format_base import (INT64_MAX, NS_PER_S, SECTOR_BYTES, FastPathFailed, LineError, Opener, RawColumns,
                          TraceFormat, _bad, _seconds_token_ns, _to_numpy)
from .format_delimited import _TRACE_NAME, _delimited, _IntTime, _Layout, _OpCode, _OpWords, _SecondsTime
from .formats_libcachesim import LIBCACHESIM_FORMATS

__all__ = ["TraceFormat", "FORMATS", "FORMAT_NAMES", "WRITABLE_FORMATS", "get_format", "RawColumns",
           "LineError", "FastPathFailed", "SECTOR_BYTES"]


MSR = _delimited(
    "msr", "MSR Cambridge block I/O CSV (SNIA IOTTA), no header",
    _Layout(columns=("Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"),
            delimiter=",", time_col="Timestamp",
            time=_IntTime(100, "an integer Windows FILETIME (100-ns ticks)"),
            offset_col="Offset", offset_unit=1, size_col="Size", size_unit=1,
            op_col="Type", op=_OpWords("Read", "Write"),
            fill={"Hostname": _TRACE_NAME, "DiskNumber": 0, "ResponseTime": 0}),
    {"Timestamp": "issue time, Windows FILETIME (100-ns ticks since 1601)",
     "Hostname": "host name (not used)", "DiskNumber": "disk number (not used)",
     "Type": "'Read' or 'Write'", "Offset": "start offset, bytes", "Size": "transfer size, bytes",
     "ResponseTime": "response time, 100-ns ticks (not used)"},
    "128166372003061629,usr,0,Read,3154152960,4096,2290",
    r"msr|^(usr|proj|prn|hm|rsrch|prxy|src1|src2|stg|ts|web|mds|wdev)_\d")

SYSTOR = _delimited(
    "systor", "SYSTOR'17 VDI trace CSV (SNIA IOTTA), with header",
    _Layout(columns=("Timestamp", "Response", "IOType", "LUN", "Offset", "Size"), delimiter=",",
            time_col="Timestamp", time=_SecondsTime(), offset_col="Offset", offset_unit=1,
            size_col="Size", size_unit=1, op_col="IOType", op=_OpWords("R", "W"),
            fill={"Response": 0, "LUN": 0}, write_header=True),
    {"Timestamp": "issue time, seconds (decimal, Unix epoch)", "Response": "response time, s (not used)",
     "IOType": "'R' or 'W'", "LUN": "logical unit (not used)", "Offset": "start offset, bytes",
     "Size": "transfer size, bytes"},
    "1487038000.002196,0.000306,R,2,11041763328,4096",
    r"systor|lun\d")

ALIBABA = _delimited(
    "alibaba", "Alibaba block traces 2020 (io_traces.csv)",
    _Layout(columns=("device_id", "opcode", "offset", "length", "timestamp"), delimiter=",",
            time_col="timestamp", time=_IntTime(1000, "an integer time in microseconds"),
            offset_col="offset", offset_unit=1, size_col="length", size_unit=1,
            op_col="opcode", op=_OpWords("R", "W"), fill={"device_id": 0}),
    {"device_id": "virtual disk id (not used)", "opcode": "'R' or 'W'", "offset": "start offset, bytes",
     "length": "transfer size, bytes", "timestamp": "issue time, microseconds (Unix epoch)"},
    "0,R,126703644672,4096,1577808000000626",
    r"ali|io_traces")

TENCENT = _delimited(
    "tencent", "Tencent CBS block trace (SNIA IOTTA)",
    _Layout(columns=("Timestamp", "Offset", "Size", "IOType", "VolumeID"), delimiter=",",
            time_col="Timestamp", time=_SecondsTime(integer_if_whole=True),
            offset_col="Offset", offset_unit=SECTOR_BYTES, size_col="Size", size_unit=SECTOR_BYTES,
            op_col="IOType", op=_OpCode(0, 1, strict=True, expected="0 (read) or 1 (write)"),
            fill={"VolumeID": 0}),
    {"Timestamp": "issue time, seconds (Unix epoch)", "Offset": "start, 512-byte sectors",
     "Size": "transfer size, 512-byte sectors", "IOType": "0 = read, 1 = write",
     "VolumeID": "cloud volume id (not used)"},
    "1538323200,2055384,8,1,1283",
    r"tencent|cbs")

SPC = _delimited(
    "spc", "UMass / SPC trace format (Financial, WebSearch)",
    _Layout(columns=("ASU", "LBA", "Size", "Opcode", "Timestamp"), delimiter=",",
            time_col="Timestamp", time=_SecondsTime(), offset_col="LBA", offset_unit=SECTOR_BYTES,
            size_col="Size", size_unit=1, op_col="Opcode", op=_OpWords("r", "w"), fill={"ASU": 0}),
    {"ASU": "application storage unit (not used)", "LBA": "start, 512-byte sectors",
     "Size": "transfer size, bytes", "Opcode": "'r' or 'w' (any case)",
     "Timestamp": "issue time, seconds (decimal) from the trace start"},
    "0,303567,3584,w,0.000000",
    r"spc|financial|websearch|umass")

MQSIM = _delimited(
    "mqsim", "MQSim / DiskSim-style ASCII trace, whitespace separated",
    _Layout(columns=("arrival_ns", "device", "start_sector", "size_sectors", "type"), delimiter=" ",
            time_col="arrival_ns", time=_IntTime(1, "an integer arrival time in ns"),
            offset_col="start_sector", offset_unit=SECTOR_BYTES, size_col="size_sectors",
            size_unit=SECTOR_BYTES, op_col="type",
            op=_OpCode(1, 0, strict=False, expected="an integer type (0 = write, otherwise read)"),
            fill={"device": 0}),
    {"arrival_ns": "arrival time, integer ns", "device": "device number (not used)",
     "start_sector": "start, 512-byte sectors", "size_sectors": "transfer size, 512-byte sectors",
     "type": "0 = write, anything else = read"},
    "11413000 0 657728 16 1",
    r"mqsim|disksim",
    header_on_read=False)


# ---------------------------------------------------------------------------
# blkparse (read-only)
# ---------------------------------------------------------------------------

_W = r"[^ \t]+"
_S = r"[ \t]+"
_BLK_EVENT = (rf"^[ \t]*[0-9]+,[0-9]+{_S}{_W}{_S}{_W}{_S}(?P<time>{_W}){_S}{_W}{_S}(?P<act>{_W})"
              rf"(?:{_S}(?P<rwbs>{_W}))?(?:{_S}(?P<a>{_W}))?(?:{_S}(?P<plus>{_W}))?(?:{_S}(?P<b>{_W}))?")
_BLK_EVENT_RE = re.compile(_BLK_EVENT)
_BLK_TIME = r"^[0-9]+\.[0-9]+$"
_BLK_TIME_RE = re.compile(r"[0-9]+\.[0-9]+\Z")
_DIGITS_RE = re.compile(r"[0-9]+\Z")
_SECTOR_MAX = INT64_MAX // SECTOR_BYTES
# The per-CPU and total summary blocks blkparse prints at the end (skipped when reading).
_BLK_SUMMARY_RE = re.compile(r"(?:CPU[0-9]+|Total) \([0-9]+,[0-9]+\):|Throughput \(R/W\):|Events \([0-9]+,[0-9]+\):"
                             r"|Skips:|[ \t]+[A-Za-z][A-Za-z ]*:[ \t]+[0-9]")


def _blk_parse_line(line: str) -> tuple[int, int, int, bool] | None:
    m = _BLK_EVENT_RE.match(line)
    if m is None or m["act"] != "D":
        return None
    rwbs = m["rwbs"] or ""
    if "R" not in rwbs and "W" not in rwbs:
        return None
    if m["plus"] != "+":
        return None
    if not _BLK_TIME_RE.match(m["time"]):
        raise _bad("time", "a time in seconds such as 0.000123456", m["time"])
    if not _DIGITS_RE.match(m["a"] or ""):
        raise _bad("sector", "an integer sector number (512-byte sectors)", m["a"] or "")
    if not _DIGITS_RE.match(m["b"] or ""):
        raise _bad("nsectors", "an integer sector count (512-byte sectors)", m["b"] or "")
    sector, n = int(m["a"]), int(m["b"])
    if n == 0:
        return None
    if sector > _SECTOR_MAX or n > _SECTOR_MAX:
        raise _bad("sector", "a sector number below 2**54", m["a"])
    t = _seconds_token_ns(m["time"])
    if t > INT64_MAX:
        raise _bad("time", "a time below 9.2e9 s", m["time"])
    return t, sector * SECTOR_BYTES, n * SECTOR_BYTES, "W" in rwbs


def _blk_parse_fast(open_stream: Opener, skip_rows: int) -> RawColumns:
    try:
        with open_stream() as stream:  # every line as one string: \x1f never occurs in blkparse output
            table = pa_csv.read_csv(
                stream,
                read_options=pa_csv.ReadOptions(column_names=["line"], skip_rows=skip_rows, block_size=1 << 22),
                parse_options=pa_csv.ParseOptions(delimiter="\x1f", quote_char=False),
                convert_options=pa_csv.ConvertOptions(column_types={"line": pa.string()}))
    except pa.ArrowInvalid as e:
        if "Empty CSV file" in str(e):
            return RawColumns.from_rows([], [], [], [])
        raise FastPathFailed(str(e)) from None
    ev = pc.extract_regex(table.column("line"), _BLK_EVENT)

    def field(name: str) -> pa.ChunkedArray:
        return pc.fill_null(pc.struct_field(ev, name), "")

    act, rwbs, plus = field("act"), field("rwbs"), field("plus")
    is_w = pc.match_substring(rwbs, "W")
    data = pc.and_(pc.and_(pc.equal(act, "D"), pc.or_(is_w, pc.match_substring(rwbs, "R"))), pc.equal(plus, "+"))
    time_s, a, b = (pc.filter(field(k), data) for k in ("time", "a", "b"))
    ok = pc.and_(pc.and_(pc.match_substring_regex(time_s, _BLK_TIME), pc.match_substring_regex(a, "^[0-9]+$")),
                 pc.match_substring_regex(b, "^[0-9]+$"))
    if len(ok) and not pc.all(ok).as_py():
        raise FastPathFailed("malformed D event")
    try:
        sector = _to_numpy(pc.cast(a, pa.int64()), np.int64)
        n = _to_numpy(pc.cast(b, pa.int64()), np.int64)
        parts = pc.extract_regex(time_s, r"^(?P<s>[0-9]+)\.(?P<f>[0-9]+)$")
        frac = pc.struct_field(parts, "f")
        if len(frac) and pc.max(pc.utf8_length(frac)).as_py() > 9:
            raise FastPathFailed("more than 9 decimals")
        sec = _to_numpy(pc.cast(pc.struct_field(parts, "s"), pa.int64()), np.int64)
        frac_ns = _to_numpy(pc.cast(pc.utf8_rpad(frac, width=9, padding="0"), pa.int64()), np.int64)
    except pa.ArrowInvalid as e:  # integers too large for int64
        raise FastPathFailed(str(e)) from None
    if len(sec) and (sec.max() >= INT64_MAX // NS_PER_S or sector.max() > _SECTOR_MAX or n.max() > _SECTOR_MAX):
        raise FastPathFailed("value out of range")
    keep = n > 0
    w = _to_numpy(pc.filter(is_w, data), bool)
    return RawColumns((sec * NS_PER_S + frac_ns)[keep], sector[keep] * SECTOR_BYTES, n[keep] * SECTOR_BYTES,
                      w[keep])


BLKPARSE = TraceFormat(
    name="blkparse", title="blkparse default text output (read-only)",
    fields=(("dev", "major,minor device (not used)"), ("cpu", "CPU (not used)"),
            ("seq", "sequence number (not used)"), ("time", "event time, seconds with 9 decimals"),
            ("pid", "process id (not used)"), ("action", "event; only D (issued) counts"),
            ("RWBS", "R read / W write (D discard, F flush, N none are skipped)"),
            ("sector + n", "start and length, 512-byte sectors; n > 0"), ("[process]", "command (not used)")),
    example="  8,0    3        1     0.000000000  697  D   W 223490 + 8 [kjournald]",
    time_unit_ns=1, header=None, name_hint=re.compile(r"blkparse|blktrace"),
    parse_fast=_blk_parse_fast, parse_line=_blk_parse_line,
    sniff_line=lambda line: _BLK_EVENT_RE.match(line) is not None or _BLK_SUMMARY_RE.match(line) is not None)


#: every format by name: the ones above, then libCacheSim's
FORMATS: dict[str, TraceFormat] = {f.name: f for f in (MSR, SYSTOR, ALIBABA, TENCENT, SPC, MQSIM, BLKPARSE,
                                                       *LIBCACHESIM_FORMATS)}
FORMAT_NAMES = tuple(FORMATS)
WRITABLE_FORMATS = tuple(n for n, f in FORMATS.items() if f.writable)


def get_format(name: str) -> TraceFormat:
    """The format called ``name`` (case-insensitive); TraceError listing the
    known formats otherwise."""
    by_lower_name = {n.lower(): f for n, f in FORMATS.items()}
    f = by_lower_name.get(str(name).lower())
    if f is None:
        raise TraceError(f"unknown trace format {name!r}; known formats: {', '.join(FORMATS)}")
    return f
