"""What every trace format shares: the :class:`TraceFormat` record, the parsed
columns (:class:`RawColumns`), the errors a parser raises, and the token rules of
the line-by-line parsers (integers, decimal seconds).

The formats themselves are in :mod:`flashrr.trace.formats` (the delimited text
formats are built by :mod:`flashrr.trace.format_delimited`) and
:mod:`flashrr.trace.formats_libcachesim`; both build on this module.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import BinaryIO, Callable, ContextManager

import numpy as np
import pyarrow as pa

from .core import TraceError

SECTOR_BYTES = 512
NS_PER_S = 1_000_000_000
INT64_MAX = int(np.iinfo(np.int64).max)

#: ``open_stream()``: a context manager giving a file's decompressed bytes
Opener = Callable[[], ContextManager[BinaryIO]]


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


def _to_numpy(col: pa.ChunkedArray, dtype) -> np.ndarray:
    """A null-free chunked column as one NumPy array (chunk by chunk: much
    faster than ChunkedArray.to_numpy for many chunks)."""
    parts = [c.to_numpy(zero_copy_only=False) for c in col.chunks]
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype=dtype)


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
