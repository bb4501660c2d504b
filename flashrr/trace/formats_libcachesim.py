"""libCacheSim's trace formats: its CSV with a header, the binary
``oracleGeneral`` records and their op-carrying variants, and ``vscsi``.

The record layouts follow libCacheSim's trace readers
(``libCacheSim/traceReader/``, ``include/libCacheSim/enum.h``); the binary
records are little-endian and packed (no padding):

``oracleGeneral``      24 bytes: real_time u32 (s), obj_id u64, obj_size u32
                       (bytes), next_access_vtime i64 (not used).
``oracleGeneralOpNS``  27 bytes: real_time u32 (s), obj_id u64, obj_size u32
                       (bytes), op u8, ns u16 (not used), next_access_vtime i64
                       (not used).
``oracleSysTwrNS``     34 bytes: real_time u32 (s), obj_id u64, key_size u16,
                       val_size u32 (the request moves key_size + val_size
                       bytes), op u16, ns u16, ttl i32, next_access_vtime i64
                       (the last three not used).
``vscsi``              VMware vscsi (CloudPhysics) records, version 1 (32 bytes:
                       sn u32, len u32, nSG u32, cmd u16, ver u16, lbn u64,
                       ts u64) or version 2 (40 bytes: cmd u16, ver u16, sn u32,
                       len u32, nSG u32, lbn u64, ts u64, rt u64); the version
                       is ``ver >> 8`` of the first records.  ts in
                       microseconds, lbn in logical blocks, len in bytes, cmd a
                       SCSI operation code.
``csv``                Comma-separated text whose first line names the columns.

What flashrr assumes where a format does not say (each a reading option,
:data:`OPTION_SPECS`, given as ``read_trace(..., options={...})`` or as
``?key=value`` in a trace spec):

* ``block_bytes`` (default 512): an object id (``obj_id``, or vscsi's
  ``lbn``) counts blocks of this many bytes; the request's byte offset is
  ``obj_id * block_bytes``.  libCacheSim's CloudPhysics samples store 512-byte
  logical block numbers there.  Hashed object ids of key-value or CDN traces
  are not addresses; an id whose offset passes 2**63 bytes is a bad record.
* ``op`` (default ``read``): the operation of every request of a format
  without an op field (``oracleGeneral``, a ``csv`` without an op column).
* ``gap_ns`` (default 200,000 ns): requests of a ``csv`` without a time column
  arrive this far apart, in file order, from 0.
* ``time_unit`` (default ``s``): the unit of a ``csv`` time column (``s``,
  ``ms``, ``us`` or ``ns``); decimals are read exactly to the ns.

Ops: libCacheSim's op codes (``enum.h``) get (1), gets (2) and read (12) are
reads; set, add, cas, replace, append, prepend, incr, decr (3-8, 10, 11),
write (13) and update (14) are writes; nop (0) and delete (9) move no data and
are skipped; any other code is a bad record.  vscsi's SCSI commands READ(6),
READ(10), READ(12), READ(16) (0x08, 0x28, 0xa8, 0x88) are reads, the four
WRITEs (0x0a, 0x2a, 0xaa, 0x8a) writes; other commands move no data and are
skipped.  A csv op is an op name (any case), ``r``/``w``, or a SCSI READ or
WRITE code in hex as in libCacheSim's ``cloudPhysicsIO.csv`` (``28``, ``2a``).
Records of size 0 are skipped (libCacheSim skips them too).

The binary formats carry no text to sniff: the reader takes them from an
explicit format name or from the file name as libCacheSim names them
(``...oracleGeneral``, ``.oracleGeneral.bin``, ``.oracleGeneral.zst``,
``...oracleGeneralOpNS...``, ``...oracleSysTwrNS...``, ``.vscsi``).  They are
read in blocks of whole records with NumPy.  A file (decompressed) whose size
is not a whole number of records is an error naming the file, its size and
the record size; a bad record is an error naming the record (1-based), its
byte offset and the field, or is skipped and counted with ``skip_bad``.
All five formats are read-only.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .core import TraceError
from .format_base import (INT64_MAX, SECTOR_BYTES, FastPathFailed, RawColumns, TraceFormat, _bad, _to_numpy,
                          check_options)
from .format_delimited import _delimited, _Layout, _SecondsTime

__all__ = ["OPTION_SPECS", "BinaryFormat", "LIBCACHESIM_FORMATS", "binary_format_from_name", "parse_option"]

MAX_BAD_EXAMPLES = 3

# ---------------------------------------------------------------------------
# Reading options
# ---------------------------------------------------------------------------

_TIME_UNITS = {"s": (9, "seconds"), "ms": (6, "milliseconds"), "us": (3, "microseconds"), "ns": (0, "ns")}


def _positive_int(v) -> int:
    n = int(str(v).strip())
    if n < 1:
        raise ValueError
    return n


def _gap(v) -> int:
    n = int(str(v).strip())
    if not 0 <= n <= 10 ** 12:
        raise ValueError
    return n


def _choice(*names: str) -> Callable:
    def parse(v) -> str:
        t = str(v).strip().lower()
        if t not in names:
            raise ValueError
        return t
    return parse


# name -> (parser, what a valid value is, default)
OPTION_SPECS = {
    "block_bytes": (_positive_int, "a positive integer (bytes per object id or logical block)", SECTOR_BYTES),
    "op": (_choice("read", "write"), "read or write (the op of every request of a format without ops)", "read"),
    "gap_ns": (_gap, "an integer from 0 to 10**12 (ns between requests of a trace without times)", 200_000),
    "time_unit": (_choice(*_TIME_UNITS), "s, ms, us or ns (the unit of a csv time column)", "s"),
}


def parse_option(name: str, value):
    """``value`` of reading option ``name`` parsed (ValueError if invalid)."""
    return OPTION_SPECS[name][0](value)


def _resolve(tf, options: dict | None, path) -> dict:
    """The options of ``tf`` with defaults filled in; TraceError naming the
    file, the option and what a valid value is."""
    given = check_options(tf, options, path)
    out = {}
    for name in tf.options:
        parse, expected, default = OPTION_SPECS[name]
        if name not in given:
            out[name] = default
            continue
        try:
            out[name] = parse(given[name])
        except (ValueError, TypeError):
            raise TraceError(f"{path}: option {name}={given[name]!r}: expected {expected}") from None
    return out


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------

_LCS_READ_OPS = (1, 2, 12)                           # get, gets, read
_LCS_WRITE_OPS = (3, 4, 5, 6, 7, 8, 10, 11, 13, 14)  # set ... decr, write, update
_LCS_NO_DATA_OPS = (0, 9)                            # nop, delete
_SCSI_READS = (0x08, 0x28, 0xA8, 0x88)
_SCSI_WRITES = (0x0A, 0x2A, 0xAA, 0x8A)

_OP_WORDS: dict[str, bool | None] = {
    **{w: False for w in ("get", "gets", "read", "r")},
    **{w: True for w in ("set", "add", "cas", "replace", "append", "prepend", "incr", "decr", "write", "update",
                         "w")},
    **{w: None for w in ("nop", "delete")},
    **{f"{c:02x}": False for c in _SCSI_READS},
    **{f"{c:02x}": True for c in _SCSI_WRITES},
}


class _OpNames:
    """A csv op column: op names, r/w or SCSI codes in hex (see the module
    docstring); ops that move no data parse to None (the line is skipped)."""

    arrow_type = pa.string()
    expected = "an op (get, gets, read, set, write, update, delete, ..., r, w, or a SCSI code such as 28 or 2a)"

    @staticmethod
    @functools.cache
    def _value_sets() -> tuple:
        """The known op words, the writing ones and the ones that move no data, as
        arrow arrays; built on first use, since ``pa.array`` imports pandas."""
        return (pa.array(list(_OP_WORDS)), pa.array([w for w, v in _OP_WORDS.items() if v]),
                pa.array([w for w, v in _OP_WORDS.items() if v is None]))

    def parse(self, field: str, tok: str) -> bool | None:
        t = tok.strip().lower()
        if t not in _OP_WORDS:
            raise _bad(field, self.expected, tok)
        return _OP_WORDS[t]

    @staticmethod
    def _words(col: pa.ChunkedArray) -> pa.ChunkedArray:
        return pc.utf8_lower(pc.utf8_trim_whitespace(col))

    def decode(self, col: pa.ChunkedArray) -> np.ndarray:
        words = self._words(col)
        known, writes, _ = self._value_sets()
        if len(col) and not pc.all(pc.is_in(words, value_set=known)).as_py():
            raise FastPathFailed("unknown op")
        return _to_numpy(pc.is_in(words, value_set=writes), bool)

    def keep(self, col: pa.ChunkedArray) -> np.ndarray:
        return ~_to_numpy(pc.is_in(self._words(col), value_set=self._value_sets()[2]), bool)


def _op_classes(codes: np.ndarray, reads, writes, skipped) -> np.ndarray:
    """int8 per code: 0 read, 1 write, -1 no data (skipped), -2 unknown."""
    out = np.full(len(codes), -2, dtype=np.int8)
    out[np.isin(codes, reads)] = 0
    out[np.isin(codes, writes)] = 1
    out[np.isin(codes, skipped)] = -1
    return out


# ---------------------------------------------------------------------------
# csv with a header
# ---------------------------------------------------------------------------

# role -> the header names read as that role (lower case; '-' and ' ' read as '_')
_ROLE_NAMES = {
    "time": ("time", "timestamp", "ts", "clock_time", "real_time"),
    "obj_id": ("obj_id", "object_id", "id", "key", "lbn", "lba", "block"),
    "obj_size": ("obj_size", "object_size", "size", "len", "length"),
    "op": ("op", "operation", "opcode", "cmd", "req_op"),
}
_NEEDED_ROLES = ("obj_id", "obj_size")
_NUMBER_RE = re.compile(r"[+-]?[0-9.]+\Z")


def _role_of(name: str) -> str | None:
    key = re.sub(r"[- ]", "_", name.strip().lower())
    return next((role for role, names in _ROLE_NAMES.items() if key in names), None)


def _header_roles(line: str) -> tuple[dict, list]:
    """role -> column index of a header line, and the roles named twice."""
    roles, twice = {}, []
    for i, tok in enumerate(line.split(",")):
        role = _role_of(tok)
        if role is None:
            continue
        if role in roles:
            twice.append(role)
        roles.setdefault(role, i)
    return roles, twice


def _is_csv_header(line: str) -> bool:
    toks = line.split(",")
    roles, twice = _header_roles(line)
    return (not twice and all(r in roles for r in _NEEDED_ROLES)
            and not any(_NUMBER_RE.match(t.strip()) for t in toks))


_CSV_MEANINGS = {"time": "arrival time, in time_unit (default s)",
                 "obj_id": "object id or logical block; byte offset = obj_id x block_bytes",
                 "obj_size": "request size, bytes", "op": "op name, r/w or SCSI code (hex)"}


def _bind_csv(options: dict, sample: list, path) -> TraceFormat:
    opts = _resolve(CSV, options, path)
    lineno, line = sample[0]
    roles, twice = _header_roles(line)
    missing = [r for r in _NEEDED_ROLES if r not in roles]
    if missing or twice or not _is_csv_header(line):
        accepted = "; ".join(f"{r}: {', '.join(_ROLE_NAMES[r])}" for r in _ROLE_NAMES)
        what = (f"lacks the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}" if missing else
                f"names {', '.join(sorted(set(twice)))} twice" if twice else "is not a header (it holds numbers)")
        shown = line if len(line) <= 120 else line[:117] + "..."
        raise TraceError(f"{path} line {lineno}: the csv header {shown!r} {what}; a csv trace needs a first "
                         f"line naming at least {' and '.join(_NEEDED_ROLES)} (names read as each column: "
                         f"{accepted})")
    toks = [t.strip() for t in line.split(",")]
    columns = tuple(t if t and toks.count(t) == 1 else f"column{i + 1}" for i, t in enumerate(toks))
    col = {role: columns[i] for role, i in roles.items()}
    scale, word = _TIME_UNITS[opts["time_unit"]]
    lay = _Layout(columns=columns, delimiter=",", time_col=col.get("time"),
                  time=_SecondsTime(scale=scale, unit_word=word) if "time" in col else None,
                  offset_col=col["obj_id"], offset_unit=opts["block_bytes"], size_col=col["obj_size"], size_unit=1,
                  op_col=col.get("op"), op=_OpNames() if "op" in col else opts["op"] == "write", fill={})
    meanings = {c: _CSV_MEANINGS.get(_role_of(c) or "", "not used") for c in columns}
    bound = _delimited(CSV.name, CSV.title, lay, meanings, CSV.example, CSV.name_hint.pattern)
    first = line.strip()
    return dataclasses.replace(bound, write=None, options=CSV.options, header_test=lambda ln: ln.strip() == first,
                               gap_ns=None if "time" in col else opts["gap_ns"])


def _needs_binding(*_args):
    raise TraceError("the csv format reads columns named by the file's header: open it with flashrr.trace.io")


CSV = TraceFormat(
    name="csv", title="libCacheSim csv trace with a header naming its columns (read-only)",
    fields=tuple(_CSV_MEANINGS.items()), example="time,obj_id,obj_size,op",
    time_unit_ns=1, header=None, name_hint=re.compile(r"libcachesim"),
    parse_fast=_needs_binding, parse_line=_needs_binding, sniff_line=lambda line: False, delimiter=",",
    options=("block_bytes", "time_unit", "op", "gap_ns"), bind_fn=_bind_csv, header_test=_is_csv_header)


# ---------------------------------------------------------------------------
# Binary records
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Fields:
    """A block of records as columns: raw time (the format's unit), object id,
    size in bytes, op class (see :func:`_op_classes`) and the op as stored,
    and the names of the time, id and op fields."""

    time: np.ndarray
    obj_id: np.ndarray
    size: np.ndarray
    op: np.ndarray
    op_raw: np.ndarray
    names: tuple = ("real_time", "obj_id", "op")
    op_expected: str = "a libCacheSim op code (0-14)"


@dataclass(frozen=True)
class BinaryFormat:
    """A format of fixed-size little-endian records (read-only).

    ``record_dtype`` is the record's NumPy dtype (None until ``choose(head,
    path)`` picks it from the file's first bytes, for vscsi); ``unpack(records,
    opts)`` gives the :class:`_Fields` of a block of records; ``opts`` are the
    reading options (defaults filled in by :meth:`bind`)."""

    name: str
    title: str
    fields: tuple
    example: str
    time_unit_ns: int
    name_hint: re.Pattern
    record_dtype: np.dtype | None
    unpack: Callable[[np.ndarray, dict], _Fields]
    options: tuple = ("block_bytes",)
    choose: Callable | None = None
    opts: dict = dataclasses.field(default_factory=dict)

    header = None
    delimiter = None
    write = None
    writable = False
    gap_ns = None

    def is_header(self, line: str) -> bool:
        return False

    def sniff_score(self, lines: list[str]) -> float:
        return 0.0  # binary: told by name (binary_format_from_name) or given

    def bind(self, options: dict | None, sample: list, path) -> "BinaryFormat":
        return dataclasses.replace(self, opts=_resolve(self, options, path))

    def pick(self, head: bytes, path) -> "BinaryFormat":
        """The format with its record layout, chosen from the file's first
        bytes ``head`` where the format has versions (vscsi)."""
        return self.choose(self, head, path) if self.choose is not None else self

    def records(self, rec: np.ndarray, first: int, path, skip_bad: bool) -> tuple[RawColumns, int, list]:
        """Requests of the records ``rec`` (record ``first`` + 1 onwards, 1-based),
        the bad records skipped and the first messages; TraceError at the first
        bad record unless ``skip_bad``."""
        f = self.unpack(rec, self.opts)
        block = self.opts["block_bytes"]
        checks = ((f.names[0], f.time, f.time > INT64_MAX // self.time_unit_ns, "a time below 2**63 ns"),
                  (f.names[1], f.obj_id, f.obj_id > INT64_MAX // block,
                   f"an id below {INT64_MAX // block + 1} (obj_id x block_bytes={block} must stay below 2**63)"),
                  (f.names[2], f.op_raw, f.op == -2, f.op_expected))
        bad = checks[0][2] | checks[1][2] | checks[2][2]
        messages = []
        for i in np.flatnonzero(bad)[:MAX_BAD_EXAMPLES if skip_bad else 1]:
            name, values, _, expected = next(c for c in checks if c[2][i])
            messages.append(f"{path} record {first + i + 1} (byte {(first + i) * rec.dtype.itemsize}): "
                            f"field {name!r}: expected {expected}, got {int(values[i])}")
        if messages and not skip_bad:
            raise TraceError(messages[0])
        keep = ~bad & (f.op >= 0) & (f.size > 0)
        raw = RawColumns(f.time[keep].astype(np.int64), f.obj_id[keep].astype(np.int64) * block,
                         f.size[keep].astype(np.int64), f.op[keep] == 1)
        return raw, int(np.count_nonzero(bad)), messages


_ORACLE_GENERAL = np.dtype([("real_time", "<u4"), ("obj_id", "<u8"), ("obj_size", "<u4"),
                            ("next_access_vtime", "<i8")])
_ORACLE_GENERAL_OPNS = np.dtype([("real_time", "<u4"), ("obj_id", "<u8"), ("obj_size", "<u4"), ("op", "u1"),
                                 ("ns", "<u2"), ("next_access_vtime", "<i8")])
_ORACLE_SYS_TWRNS = np.dtype([("real_time", "<u4"), ("obj_id", "<u8"), ("key_size", "<u2"), ("val_size", "<u4"),
                              ("op", "<u2"), ("ns", "<u2"), ("ttl", "<i4"), ("next_access_vtime", "<i8")])
_VSCSI_V1 = np.dtype([("sn", "<u4"), ("len", "<u4"), ("nSG", "<u4"), ("cmd", "<u2"), ("ver", "<u2"),
                      ("lbn", "<u8"), ("ts", "<u8")])
_VSCSI_V2 = np.dtype([("cmd", "<u2"), ("ver", "<u2"), ("sn", "<u4"), ("len", "<u4"), ("nSG", "<u4"),
                      ("lbn", "<u8"), ("ts", "<u8"), ("rt", "<u8")])


def _lcs_ops(codes: np.ndarray) -> np.ndarray:
    return _op_classes(codes, _LCS_READ_OPS, _LCS_WRITE_OPS, _LCS_NO_DATA_OPS)


def _unpack_general(rec: np.ndarray, opts: dict) -> _Fields:
    op = np.full(len(rec), 1 if opts["op"] == "write" else 0, dtype=np.int8)
    return _Fields(rec["real_time"].astype(np.uint64), rec["obj_id"], rec["obj_size"].astype(np.uint64), op, op)


def _unpack_with_op(rec: np.ndarray, opts: dict) -> _Fields:
    """oracleGeneralOpNS (obj_size) or oracleSysTwrNS (key_size + val_size)."""
    if "obj_size" in rec.dtype.names:
        size = rec["obj_size"].astype(np.uint64)
    else:
        size = rec["key_size"].astype(np.uint64) + rec["val_size"].astype(np.uint64)
    return _Fields(rec["real_time"].astype(np.uint64), rec["obj_id"], size, _lcs_ops(rec["op"]), rec["op"])


def _unpack_vscsi(rec: np.ndarray, opts: dict) -> _Fields:
    op = _op_classes(rec["cmd"], _SCSI_READS, _SCSI_WRITES, ())
    op[op == -2] = -1  # commands other than READ and WRITE move no data
    return _Fields(rec["ts"], rec["lbn"], rec["len"].astype(np.uint64), op, rec["cmd"],
                   names=("ts", "lbn", "cmd"), op_expected="a SCSI operation code")


def _choose_vscsi(fmt: BinaryFormat, head: bytes, path) -> BinaryFormat:
    """The vscsi format with the record layout of the version its first
    (up to two) records carry, as libCacheSim tells it."""
    if not head:
        return dataclasses.replace(fmt, record_dtype=_VSCSI_V1)
    for dtype, version in ((_VSCSI_V2, 2), (_VSCSI_V1, 1)):
        n = min(2, len(head) // dtype.itemsize)
        if n and np.all(np.frombuffer(head, dtype=dtype, count=n)["ver"] >> 8 == version):
            return dataclasses.replace(fmt, record_dtype=dtype)
    raise TraceError(f"{path}: not a vscsi trace: the first records carry neither version 1 (32-byte records) "
                     f"nor version 2 (40-byte records) in their 'ver' field ({len(head)} bytes read)")


_GENERAL_FIELDS = (("real_time", "arrival time, seconds (u32)"), ("obj_id", "object id (u64); offset = obj_id x "
                                                                  "block_bytes"),
                   ("obj_size", "request size, bytes (u32)"))

def _oracle(name: str, dtype: np.dtype, fields: tuple, struct: str, hint: str, unpack, **kw) -> BinaryFormat:
    """A libCacheSim oracle format: records of ``dtype`` (``struct``: its
    Python struct letters), times in seconds."""
    return BinaryFormat(name=name, title=f"libCacheSim {name} binary records, {dtype.itemsize} bytes (read-only)",
                        fields=fields, example=f"records of <{struct} (little endian)", time_unit_ns=1_000_000_000,
                        name_hint=re.compile(hint), record_dtype=dtype, unpack=unpack, **kw)


_NOT_USED = (("ns", "namespace (u16, not used)"), ("next_access_vtime", "i64 (not used)"))
ORACLE_GENERAL = _oracle("oracleGeneral", _ORACLE_GENERAL, _GENERAL_FIELDS + _NOT_USED[1:], "IQIq",
                         r"oraclegeneral(?!opns)", _unpack_general, options=("block_bytes", "op"))
ORACLE_GENERAL_OPNS = _oracle("oracleGeneralOpNS", _ORACLE_GENERAL_OPNS,
                              _GENERAL_FIELDS + (("op", "libCacheSim op code (u8)"),) + _NOT_USED, "IQIBHq",
                              r"oraclegeneralopns", _unpack_with_op)
ORACLE_SYS_TWRNS = _oracle(
    "oracleSysTwrNS", _ORACLE_SYS_TWRNS,
    _GENERAL_FIELDS[:2] + (("key_size", "key bytes (u16)"), ("val_size", "value bytes (u32); size = key_size + "
                                                                         "val_size"),
                           ("op", "libCacheSim op code (u16)"), _NOT_USED[0], ("ttl", "i32 (not used)"),
                           _NOT_USED[1]),
    "IQHIHHiq", r"oraclesystwrns", _unpack_with_op)
VSCSI = BinaryFormat(
    name="vscsi", title="VMware vscsi binary records (CloudPhysics; libCacheSim's vscsi reader; read-only)",
    fields=(("ts", "arrival time, microseconds (u64)"), ("lbn", "start, logical blocks of block_bytes (u64)"),
            ("len", "request size, bytes (u32)"), ("cmd", "SCSI operation code (u16)"),
            ("ver", "record version << 8 (u16)"), ("sn, nSG, rt", "not used")),
    example="version 1 records of <IIIHHQQ, version 2 of <HHIIIQQQ", time_unit_ns=1_000,
    name_hint=re.compile(r"\.vscsi"), record_dtype=None, unpack=_unpack_vscsi, choose=_choose_vscsi)

BINARY_FORMATS = (ORACLE_GENERAL_OPNS, ORACLE_SYS_TWRNS, ORACLE_GENERAL, VSCSI)
LIBCACHESIM_FORMATS = (CSV, ORACLE_GENERAL, ORACLE_GENERAL_OPNS, ORACLE_SYS_TWRNS, VSCSI)


def binary_format_from_name(path) -> BinaryFormat | None:
    """The binary format libCacheSim's naming gives the file (``x.oracleGeneral.bin``,
    ``y.vscsi``...), or None."""
    from pathlib import Path

    lower = Path(path).name.lower()
    return next((f for f in BINARY_FORMATS if f.name_hint.search(lower)), None)
