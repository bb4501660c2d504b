"""The delimited text formats (CSV, or whitespace-separated columns): their column
codecs (times, operations), the :class:`_Layout` of a format's columns, and the
parsers and writer built from a layout.  :func:`_delimited` makes the
:class:`~flashrr.trace.format_base.TraceFormat` of one layout; the formats are
declared in :mod:`flashrr.trace.formats` and :mod:`flashrr.trace.formats_libcachesim`.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import BinaryIO, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from .core import Trace
from .format_base import (INT64_MAX, NS_PER_S, SECTOR_BYTES, FastPathFailed, LineError, Opener, RawColumns, TraceFormat, _bad,
                          _int_token, _seconds_token_ns, _to_numpy)


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
