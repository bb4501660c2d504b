"""Block-trace file formats, one :class:`TraceFormat` record each.

A record knows everything format-specific: the columns and their units, how
to recognise a line of the format (sniffing), a vectorised parser for whole
files (pyarrow's CSV reader), a line-by-line parser that is the reference for
what a valid line is and that explains the first bad one, and a writer.
Everything about files (opening, compression, progress, caching, sorting,
error messages with the path) lives in :mod:`flashrr.trace.io`.  libCacheSim's
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

import functools
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import BinaryIO, Callable, ContextManager

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from .core import Trace, TraceError

SECTOR_BYTES = 512
NS_PER_S = 1_000_000_000
INT64_MAX = int(np.iinfo(np.int64).max)

__all__ = ["TraceFormat", "FORMATS", "FORMAT_NAMES", "WRITABLE_FORMATS", "get_format", "RawColumns",
           "LineError", "FastPathFailed", "SECTOR_BYTES"]


class LineError(ValueError):
    """One line breaks its format; the message names the field and what was expected."""


class FastPathFailed(Exception):
    """The vectorised parser cannot take this file; the line-by-line parser decides."""


@dataclass(frozen=True)
class RawColumns:
    """Requests in file order, before sorting and rebasing.

    ``time`` is int64 in the format's native unit (``TraceFormat.time_unit_ns``
    ns per unit); ``offset`` and ``size`` are int64 bytes; ``is_write`` is bool.
    """

    time: np.ndarray
    offset: np.ndarray
    size: np.ndarray
    is_write: np.ndarray

    def __len__(self) -> int:
        return len(self.time)

    def select(self, mask: np.ndarray) -> "RawColumns":
        """The requests where ``mask`` is True, in order."""
        return RawColumns(self.time[mask], self.offset[mask], self.size[mask], self.is_write[mask])

    @classmethod
    def concat(cls, parts: list["RawColumns"]) -> "RawColumns":
        if not parts:
            return cls.from_rows([], [], [], [])
        return cls(*(np.concatenate([getattr(p, c) for p in parts]) for c in ("time", "offset", "size", "is_write")))

    @classmethod
    def from_rows(cls, time: list, offset: list, size: list, is_write: list) -> "RawColumns":
        return cls(np.array(time, dtype=np.int64), np.array(offset, dtype=np.int64),
                   np.array(size, dtype=np.int64), np.array(is_write, dtype=bool))


# ---------------------------------------------------------------------------
# Tokens (the line-by-line reference rules)
# ---------------------------------------------------------------------------

_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_HEX_RE = re.compile(r"0[xX][0-9a-fA-F]+\Z")
_DEC_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


_TOO_BIG = INT64_MAX + 1  # stands for any value beyond int64 (callers reject it by range)
_DEC_CONTEXT = Context(prec=100, rounding=ROUND_HALF_EVEN)


def _int_token(tok: str) -> int | None:
    """The integer a token spells, or None.  Values far beyond int64 come back
    as +-_TOO_BIG (never a huge int: Python limits int() to 4300 digits)."""
    t = tok.strip()
    if _INT_RE.match(t):
        if len(t.lstrip("+-0")) > 20:
            return -_TOO_BIG if t.startswith("-") else _TOO_BIG
        return int(t)
    if _HEX_RE.match(t):
        return int(t, 16) if len(t.lstrip("0xX")) <= 17 else _TOO_BIG
    return None


def _seconds_token_ns(tok: str, scale: int = 9) -> int | None:
    """A decimal number of seconds as integer ns (rounded half to even), or
    None; ``scale`` 6, 3 or 0 reads milliseconds, microseconds or ns instead."""
    t = tok.strip()
    if not _DEC_RE.match(t):
        return None
    d = Decimal(t)
    if d.adjusted() + scale > 18:  # far beyond int64 ns; avoid building a huge integer
        return -_TOO_BIG if d < 0 else _TOO_BIG
    return int(d.scaleb(scale, context=_DEC_CONTEXT).to_integral_value(rounding=ROUND_HALF_EVEN))


def _bad(field: str, expected: str, tok: str) -> LineError:
    t = tok.strip()
    return LineError(f"field {field!r}: expected {expected}, got {t if len(t) <= 40 else t[:37] + '...'!r}")


# ---------------------------------------------------------------------------
# Column codecs of the delimited formats
# ---------------------------------------------------------------------------

class _IntTime:
    """Arrival time as an integer count of ``unit_ns`` ns."""

    arrow_type = pa.int64()

    def __init__(self, unit_ns: int, expected: str):
        self.unit_ns = unit_ns
        self.expected = expected

    def parse(self, field: str, tok: str) -> int:
        v = _int_token(tok)
        if v is None:
            raise _bad(field, self.expected, tok)
        if v < 0:
            raise _bad(field, "a non-negative time", tok)
        if v > INT64_MAX:
            raise _bad(field, "a time that fits in 64 bits", tok)
        return v

    def decode(self, col: pa.ChunkedArray) -> np.ndarray:
        return _int_column(col)

    def encode(self, time_ns: np.ndarray) -> pa.Array:
        u = self.unit_ns
        return pa.array((time_ns + u // 2) // u if u > 1 else time_ns, type=pa.int64())


class _SecondsTime:
    """Arrival time as a decimal number of seconds (``scale`` 9), or of ms,
    us or ns (``scale`` 6, 3, 0: the decimal digits of a ns); read exactly to
    the ns."""

    unit_ns = 1

    def __init__(self, integer_if_whole: bool = False, scale: int = 9, unit_word: str = "seconds"):
        self.integer_if_whole, self.scale = integer_if_whole, scale
        self.arrow_type = pa.decimal128(38, scale)
        self.expected = f"a time in {unit_word}"

    def parse(self, field: str, tok: str) -> int:
        v = _seconds_token_ns(tok, self.scale)
        if v is None:
            raise _bad(field, self.expected, tok)
        if v < 0:
            raise _bad(field, f"a non-negative {self.expected[2:]}", tok)
        if v > INT64_MAX:
            raise _bad(field, "a time below 9.2e9 s", tok)
        return v

    def decode(self, col: pa.ChunkedArray) -> np.ndarray:
        return _decimal9_to_ns(col)

    def encode(self, time_ns: np.ndarray) -> pa.Array:
        return _seconds_strings(time_ns, self.integer_if_whole)


class _OpWords:
    """Operation as a word, matched case-insensitively."""

    arrow_type = pa.string()

    def __init__(self, read: str, write: str):
        self.read, self.write = read, write
        self.expected = f"{read!r} or {write!r}"

    def parse(self, field: str, tok: str) -> bool:
        t = tok.strip().lower()
        if t == self.write.lower():
            return True
        if t == self.read.lower():
            return False
        raise _bad(field, self.expected, tok)

    def decode(self, col: pa.ChunkedArray) -> np.ndarray:
        low = pc.utf8_lower(pc.utf8_trim_whitespace(col))
        w = pc.equal(low, self.write.lower())
        r = pc.equal(low, self.read.lower())
        if len(col) and not pc.all(pc.or_(w, r)).as_py():
            raise FastPathFailed("unknown operation word")
        return _to_numpy(w, bool)

    def encode(self, is_write: np.ndarray) -> pa.Array:
        return _strings(is_write.astype(np.int8), [self.read, self.write])


class _OpCode:
    """Operation as an integer code.  ``strict``: only the two codes are valid;
    otherwise every code except ``write_code`` is a read."""

    arrow_type = pa.int64()

    def __init__(self, read_code: int, write_code: int, strict: bool, expected: str):
        self.read_code, self.write_code, self.strict, self.expected = read_code, write_code, strict, expected

    def parse(self, field: str, tok: str) -> bool:
        v = _int_token(tok)
        if v is None or (self.strict and v not in (self.read_code, self.write_code)):
            raise _bad(field, self.expected, tok)
        return v == self.write_code

    def decode(self, col: pa.ChunkedArray) -> np.ndarray:
        codes = _int_column(col)
        is_write = codes == self.write_code
        if self.strict and not np.all(is_write | (codes == self.read_code)):
            raise FastPathFailed("unknown operation code")
        return is_write

    def encode(self, is_write: np.ndarray) -> pa.Array:
        return pa.array(np.where(is_write, self.write_code, self.read_code).astype(np.int64))


def _int_column(col: pa.ChunkedArray) -> np.ndarray:
    if col.null_count:
        raise FastPathFailed("empty or NA field")
    return _to_numpy(col, np.int64)


def _to_numpy(col: pa.ChunkedArray, dtype) -> np.ndarray:
    """A null-free chunked column as one NumPy array (chunk by chunk: much
    faster than ChunkedArray.to_numpy for many chunks)."""
    parts = [c.to_numpy(zero_copy_only=False) for c in col.chunks]
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)


def _decimal9_to_ns(col: pa.ChunkedArray) -> np.ndarray:
    """decimal128 values as int64: the decimal's unscaled integer (ns for
    seconds at scale 9, ms at scale 6, ...)."""
    if col.null_count:
        raise FastPathFailed("empty or NA time")
    if sys.byteorder != "little":  # pragma: no cover - no big-endian CI
        raise FastPathFailed("decimal layout")
    parts = []
    for chunk in col.chunks:
        if not len(chunk):
            continue
        words = np.frombuffer(chunk.buffers()[1], dtype=np.int64)
        words = words[2 * chunk.offset: 2 * (chunk.offset + len(chunk))]
        lo, hi = words[0::2], words[1::2]
        if np.any(hi != (lo >> 63)):
            raise FastPathFailed("time beyond int64 ns")
        parts.append(lo)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _seconds_strings(time_ns: np.ndarray, integer_if_whole: bool) -> pa.Array:
    """``S.fffffffff`` strings for int64 ns (``S`` alone when all are whole
    seconds and ``integer_if_whole``)."""
    sec = pa.array(time_ns // NS_PER_S, type=pa.int64()).cast(pa.string())
    frac_ns = time_ns % NS_PER_S
    if integer_if_whole and not np.any(frac_ns):
        return sec
    frac = pc.utf8_lpad(pa.array(frac_ns, type=pa.int64()).cast(pa.string()), width=9, padding="0")
    return pc.binary_join_element_wise(sec, frac, ".")


# ---------------------------------------------------------------------------
# Delimited formats
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Layout:
    """Columns of a delimited format.  ``delimiter`` is ``','`` or ``' '``
    (any run of spaces and tabs).  ``offset_unit``/``size_unit`` are bytes per
    unit; ``fill`` gives the value written into each unused column.  A format
    without a time column has ``time_col`` None (every time is 0; the reader
    spaces requests by the format's ``gap_ns``); one without an op column has
    ``op_col`` None and ``op`` the write flag of every request."""

    columns: tuple[str, ...]
    delimiter: str
    time_col: str | None
    time: object
    offset_col: str
    offset_unit: int
    size_col: str
    size_unit: int
    op_col: str | None
    op: object
    fill: dict
    write_header: bool = False

    def index(self, col: str | None) -> int | None:
        return None if col is None else self.columns.index(col)

    def describe_fields(self) -> str:
        sep = "," if self.delimiter == "," else " "
        kind = "comma-separated" if self.delimiter == "," else "whitespace-separated"
        return f"{len(self.columns)} {kind} fields ({sep.join(self.columns)})"


_UNIT_WORDS = {  # (what, bytes per unit) -> (syntax phrase, range phrase)
    ("offset", 1): ("an integer byte offset", "a non-negative byte offset"),
    ("offset", SECTOR_BYTES): ("an integer sector number (512-byte sectors)", "a non-negative sector number"),
    ("size", 1): ("an integer byte count", "a positive byte count"),
    ("size", SECTOR_BYTES): ("an integer sector count (512-byte sectors)", "a positive sector count"),
}


def _unit_words(what: str, unit: int) -> tuple[str, str]:
    if (what, unit) in _UNIT_WORDS:
        return _UNIT_WORDS[what, unit]
    return (f"an integer block number ({unit}-byte blocks)", "a non-negative block number") if what == "offset" \
        else (f"an integer block count ({unit}-byte blocks)", "a positive block count")


def _delimited_line_parser(lay: _Layout) -> Callable[[str], tuple[int, int, int, bool]]:
    n = len(lay.columns)
    it, io_, is_, iop = lay.index(lay.time_col), lay.index(lay.offset_col), lay.index(lay.size_col), \
        lay.index(lay.op_col)
    off_exp, off_range = _unit_words("offset", lay.offset_unit)
    size_exp, size_range = _unit_words("size", lay.size_unit)
    off_max = INT64_MAX // lay.offset_unit
    size_max = INT64_MAX // lay.size_unit
    comma = lay.delimiter == ","

    def parse(line: str) -> tuple[int, int, int, bool] | None:
        toks = line.split(",") if comma else line.split()
        if len(toks) != n:
            raise LineError(f"expected {lay.describe_fields()}, got {len(toks)}")
        t = 0 if it is None else lay.time.parse(lay.time_col, toks[it])
        off = _int_token(toks[io_])
        if off is None:
            raise _bad(lay.offset_col, off_exp, toks[io_])
        if off < 0 or off > off_max:
            raise _bad(lay.offset_col, off_range if off < 0 else "an offset below 2**63 bytes", toks[io_])
        size = _int_token(toks[is_])
        if size is None:
            raise _bad(lay.size_col, size_exp, toks[is_])
        if size <= 0 or size > size_max:
            raise _bad(lay.size_col, size_range if size <= 0 else "a size below 2**63 bytes", toks[is_])
        w = lay.op if iop is None else lay.op.parse(lay.op_col, toks[iop])
        if w is None:  # an operation that moves no data
            return None
        return t, off * lay.offset_unit, size * lay.size_unit, w

    return parse


class _WhitespaceToSpace:
    """A binary stream that turns runs of spaces/tabs into one space and drops
    spaces at line starts and ends (``\\r\\n`` becomes ``\\n``), so pyarrow can
    split on ``' '``.
    Line count is unchanged."""

    _RUNS = re.compile(rb"[ \t]+")

    def __init__(self, stream: BinaryIO, chunk_bytes: int = 1 << 22):
        self._stream, self._chunk = stream, chunk_bytes
        self._rest = b""         # the unfinished last line of the raw bytes read so far
        self._buf, self._pos = b"", 0
        self._eof = False

    def readable(self) -> bool:
        return True

    @property
    def closed(self) -> bool:
        return False

    def _fill(self) -> None:
        while self._pos >= len(self._buf) and not self._eof:
            data = self._stream.read(self._chunk)
            if not data:
                self._eof = True
                data, self._rest = self._rest, b""
            else:
                data = self._rest + data
                cut = data.rfind(b"\n") + 1
                data, self._rest = data[:cut], data[cut:]
            if b"\t" in data or b"  " in data:
                data = self._RUNS.sub(b" ", data)
            data = data.replace(b"\r\n", b"\n").replace(b" \n", b"\n").replace(b"\n ", b"\n")
            if data.startswith(b" "):
                data = data[1:]
            if self._eof and data.endswith(b" "):
                data = data[:-1]
            self._buf, self._pos = data, 0

    def read(self, n: int = -1) -> bytes:
        out, got = [], 0
        while n < 0 or got < n:
            self._fill()
            if self._pos >= len(self._buf):
                break
            end = len(self._buf) if n < 0 else min(len(self._buf), self._pos + n - got)
            out.append(self._buf[self._pos:end])
            got += end - self._pos
            self._pos = end
        return out[0] if len(out) == 1 else b"".join(out)


Opener = Callable[[], ContextManager[BinaryIO]]


def _delimited_fast_parser(lay: _Layout) -> Callable[[Opener, int], RawColumns]:
    types = {lay.offset_col: pa.int64(), lay.size_col: pa.int64()}
    if lay.time_col is not None:
        types[lay.time_col] = lay.time.arrow_type
    if lay.op_col is not None:
        types[lay.op_col] = lay.op.arrow_type
    used = list(types)

    def parse(open_stream: Opener, skip_rows: int) -> RawColumns:
        if lay.delimiter == ",":
            with open_stream() as stream:
                return parse_stream(stream, skip_rows)
        # Whitespace: first as single-space separated (pyarrow alone, the common
        # case); if that fails, again with runs of blanks squeezed (slower).
        try:
            with open_stream() as stream:
                return parse_stream(stream, skip_rows)
        except FastPathFailed:
            with open_stream() as stream:
                return parse_stream(_WhitespaceToSpace(stream), skip_rows)

    def parse_stream(src: BinaryIO, skip_rows: int) -> RawColumns:
        try:
            table = pa_csv.read_csv(
                src,
                read_options=pa_csv.ReadOptions(column_names=list(lay.columns), skip_rows=skip_rows,
                                                block_size=1 << 22),
                parse_options=pa_csv.ParseOptions(delimiter=lay.delimiter, quote_char=False),
                convert_options=pa_csv.ConvertOptions(include_columns=used, column_types=types),
            )
        except pa.ArrowInvalid as e:
            if "Empty CSV file" in str(e):
                return RawColumns.from_rows([], [], [], [])
            raise FastPathFailed(str(e)) from None
        offset = _int_column(table.column(lay.offset_col))
        size = _int_column(table.column(lay.size_col))
        n = len(offset)
        time = np.zeros(n, np.int64) if lay.time_col is None else lay.time.decode(table.column(lay.time_col))
        if lay.op_col is None:
            is_write, keep = np.full(n, bool(lay.op)), None
        else:
            is_write = lay.op.decode(table.column(lay.op_col))
            keep = lay.op.keep(table.column(lay.op_col)) if hasattr(lay.op, "keep") else None
        if n and (time.min() < 0 or offset.min() < 0 or size.min() <= 0
                  or offset.max() > INT64_MAX // lay.offset_unit
                  or size.max() > INT64_MAX // lay.size_unit):
            raise FastPathFailed("value out of range")
        raw = RawColumns(time, offset * lay.offset_unit, size * lay.size_unit, is_write)
        return raw if keep is None else raw.select(keep)

    return parse


def _delimited_writer(lay: _Layout) -> Callable[..., None]:
    def write(trace: Trace, out: BinaryIO, header: bool = True) -> None:
        n = len(trace)
        ou, su = lay.offset_unit, lay.size_unit
        start = (trace.offset // ou) * ou
        end = trace.offset + trace.size
        size_units = -((start - end) // su)  # ceil((end - start) / su)
        cols = {
            lay.time_col: lay.time.encode(trace.time_ns),
            lay.offset_col: pa.array(start // ou, type=pa.int64()),
            lay.size_col: pa.array(size_units, type=pa.int64()),
            lay.op_col: lay.op.encode(trace.is_write),
        }
        for c in lay.columns:
            if c not in cols:
                v = lay.fill[c]
                if v is _TRACE_NAME:
                    cols[c] = _strings(np.zeros(n, dtype=np.int8), [_safe_word(trace.name)])
                else:
                    cols[c] = pa.array(np.full(n, v, dtype=np.int64))
        table = pa.table([cols[c] for c in lay.columns], names=list(lay.columns))
        if lay.write_header and header:
            out.write((lay.delimiter.join(lay.columns) + "\n").encode())
        pa_csv.write_csv(table, out, write_options=pa_csv.WriteOptions(
            include_header=False, delimiter=lay.delimiter, quoting_style="none"))

    return write


_TRACE_NAME = object()  # fill marker: the trace's name, made safe for CSV


def _strings(codes: np.ndarray, words: list[str]) -> pa.Array:
    """``words[codes[i]]`` for every i, as an Arrow string array (built from a
    dictionary: much faster than converting NumPy strings)."""
    return pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(words, type=pa.string())).cast(pa.string())


def _safe_word(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "trace"


# ---------------------------------------------------------------------------
# The record
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TraceFormat:
    """One trace format.

    * ``name``: the format's name (``fmt=`` argument, ``--format`` option).
    * ``title``: one line saying what the format is.
    * ``fields``: ``(column, meaning with unit)`` pairs, in file order.
    * ``example``: one line of the format.
    * ``time_unit_ns``: ns per unit of :attr:`RawColumns.time` from this parser.
    * ``header``: column names of an optional header line, or None.
    * ``name_hint``: pattern on a lower-cased file name that suggests this
      format (used only to break sniffing ties).
    * ``parse_fast(open_stream, skip_rows)``: vectorised parse of a whole
      file; ``open_stream()`` is a context manager giving the decompressed
      bytes (it may be called more than once), ``skip_rows`` physical lines
      are skipped first.  Raises :class:`FastPathFailed` when it cannot vouch
      for the result.
    * ``parse_line(line)``: the reference parser: ``(time, offset_bytes,
      size_bytes, is_write)``, None for a valid line that is not a request,
      :class:`LineError` for a bad line.
    * ``sniff_line(line)``: does this line look like the format?
    * ``write(trace, stream, header=True)``: writes a trace (``header=False``:
      without the header line, for the later chunks of a streamed trace), or
      None for a read-only format.
    * ``options``: names of the reading options the format takes (see
      :data:`flashrr.trace.formats_libcachesim.OPTION_SPECS`); ``bind_fn(options,
      sample, path)`` returns the format configured by them and by the file's
      first lines (``sample``: (line number, text) pairs), e.g. from a header.
    * ``header_test(line)``: whether a line is a header, for formats whose
      header is not one fixed list of names (None: compare with ``header``).
    * ``gap_ns``: for a format without times, the ns between consecutive
      requests in file order (the parsers give time 0; the reader fills times).
    """

    name: str
    title: str
    fields: tuple
    example: str
    time_unit_ns: int
    header: tuple | None
    name_hint: re.Pattern
    parse_fast: Callable[[Opener, int], RawColumns]
    parse_line: Callable[[str], tuple | None]
    sniff_line: Callable[[str], bool]
    write: Callable[..., None] | None = None
    delimiter: str | None = None
    options: tuple = ()
    bind_fn: Callable | None = None
    header_test: Callable[[str], bool] | None = None
    gap_ns: int | None = None

    record_dtype = None  # text format (binary formats: flashrr.trace.formats_libcachesim.BinaryFormat)

    @property
    def writable(self) -> bool:
        return self.write is not None

    def bind(self, options: dict | None, sample: list, path) -> "TraceFormat":
        """This format configured by reading ``options`` and the file's first
        lines; TraceError naming the file for an option the format does not take."""
        options = check_options(self, options, path)
        return self.bind_fn(options, sample, path) if self.bind_fn is not None else self

    def is_header(self, line: str) -> bool:
        """Is this line the format's header (column names, any case)?"""
        if self.header_test is not None:
            return self.header_test(line)
        if self.header is None or self.delimiter is None:
            return False
        toks = line.split(",") if self.delimiter == "," else line.split()
        return [t.strip().lower() for t in toks] == [h.lower() for h in self.header]

    def sniff_score(self, lines: list[str]) -> float:
        """Fraction of the sample lines (non-empty, in file order) that look
        like this format; a matching header line scores 1.0 outright."""
        if not lines:
            return 0.0
        if self.is_header(lines[0]):
            return 1.0
        return sum(1 for ln in lines if self.sniff_line(ln)) / len(lines)

    def __repr__(self) -> str:
        return f"TraceFormat({self.name!r}: {self.title})"


def check_options(tf, options: dict | None, path) -> dict:
    """``options`` checked against the options ``tf`` takes (TraceError naming
    the file and the format otherwise)."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(tf.options))
    if unknown:
        takes = ", ".join(tf.options) if tf.options else "none"
        raise TraceError(f"{path}: format {tf.name!r} takes no option {', '.join(map(repr, unknown))} "
                         f"(its options: {takes})")
    return options


def _delimited(name: str, title: str, lay: _Layout, meanings: dict, example: str, hint: str,
               header_on_read: bool = True) -> TraceFormat:
    parse_line = _delimited_line_parser(lay)

    def sniff_line(line: str) -> bool:
        try:
            parse_line(line)
        except LineError:
            return False
        return True

    return TraceFormat(
        name=name, title=title, fields=tuple((c, meanings[c]) for c in lay.columns), example=example,
        time_unit_ns=1 if lay.time is None else lay.time.unit_ns,
        header=lay.columns if header_on_read else None,
        name_hint=re.compile(hint), parse_fast=_delimited_fast_parser(lay), parse_line=parse_line,
        sniff_line=sniff_line, write=_delimited_writer(lay), delimiter=lay.delimiter)


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


@functools.cache
def _registry() -> dict[str, TraceFormat]:
    """Every format by name: the ones above, then libCacheSim's.  Built on first
    use, not at import: :mod:`flashrr.trace.formats_libcachesim` builds on this
    module's helpers, so this module must be whole before it is imported (either
    module may then be imported first)."""
    from .formats_libcachesim import LIBCACHESIM_FORMATS

    return {f.name: f for f in (MSR, SYSTOR, ALIBABA, TENCENT, SPC, MQSIM, BLKPARSE, *LIBCACHESIM_FORMATS)}


def __getattr__(name: str):
    """``FORMATS`` (name -> format), ``FORMAT_NAMES`` and ``WRITABLE_FORMATS`` (tuples of names)."""
    if name == "FORMATS":
        return _registry()
    if name == "FORMAT_NAMES":
        return tuple(_registry())
    if name == "WRITABLE_FORMATS":
        return tuple(n for n, f in _registry().items() if f.writable)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_format(name: str) -> TraceFormat:
    """The format called ``name`` (case-insensitive); TraceError listing the
    known formats otherwise."""
    by_lower_name = {n.lower(): f for n, f in _registry().items()}
    f = by_lower_name.get(str(name).lower())
    if f is None:
        raise TraceError(f"unknown trace format {name!r}; known formats: {', '.join(_registry())}")
    return f
