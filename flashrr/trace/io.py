"""Reading and writing trace files: sniffing, compression, bad lines, the parse cache.

``read_trace(path)`` returns a :class:`~flashrr.trace.core.Trace`;
``read_trace_report(path)`` returns ``(trace, ReadReport)`` and ``open_trace(path)``
``(source, ReadReport)`` (the trace read in chunks); the report
says which format was used, how many bad lines were skipped and whether the
file had to be sorted.  ``write_trace(trace, path, fmt)`` writes one.

Rules (see ``docs/traces.md``):

* **Format.**  ``fmt=None`` sniffs it: a file named as libCacheSim names its
  binary traces (``.oracleGeneral.bin``, ``.vscsi``...) is in that format;
  otherwise the first 32 non-empty lines are tried against every format and
  the format that accepts the largest share (at least half) wins; the file
  name breaks ties.  A file no format accepts gets a :class:`TraceError`
  naming the file and listing the formats.
* **Options.**  ``options`` are the reading options of formats that need
  assumptions (``block_bytes``, ``op``, ``gap_ns``, ``time_unit``; see
  :mod:`flashrr.trace.formats_libcachesim`); a format given an option it does
  not take is a TraceError.
* **Binary formats** are read in blocks of whole records (NumPy); a file
  whose (decompressed) size is not a whole number of records is a TraceError
  naming the file, its size and the record size.
* **Compression.**  gzip, zstd, bzip2 and xz files are recognised by their
  first bytes (whatever their name) and decompressed on the fly; one that
  ends early is a TraceError naming the file and saying it is truncated.
  ``write_trace`` compresses when the name ends in ``.gz``, ``.zst``,
  ``.bz2`` or ``.xz``.
* **Speed.**  The file is parsed in blocks of whole lines (4 MiB) by a
  vectorised parser (pyarrow's CSV reader).  Only when it cannot vouch for a
  block (a malformed field, a wrong field count, a value out of range) is that
  block cut into 2 MiB blocks and those it still refuses read line by line,
  which is the reference for what a valid line is: it raises at the first bad
  line, or skips and counts bad lines with ``skip_bad=True``.
* **Bad lines.**  The error reads ``<path> line <n>: field '<name>': expected
  <what>, got '<token>'`` (``n`` is the 1-based physical line number).
  Negative times or offsets and zero sizes are bad lines too.
* **Empty files** (nothing but blank lines) give an empty Trace.
* **Order.**  Requests are sorted stably by arrival time, so requests that
  share a time keep their file order; ``ReadReport.n_out_of_order`` counts the
  requests that arrived earlier than the request before them in the file.
  Times are then rebased so the first request arrives at 0 ns.
* **Cache.**  With ``cache=True`` a parsed trace is stored next to its source
  as ``<source>.flashrr-cache.parquet`` (see :mod:`flashrr.trace.cache`) and
  reused while the source's size and mtime_ns, the format, ``skip_bad``, the
  reading options and :data:`CACHE_VERSION` are unchanged.  The parse streams
  into the cache, so :func:`open_trace` never holds the whole trace; it then
  reads the cache in chunks.  An unwritable directory means a private temporary cache, silently.
"""
from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np
import zstandard

from .cache import (CACHE_SUFFIX, CACHE_VERSION, CachedTrace, PrivateDir, load_cache_meta, temp_sibling,
                    write_cache)
from .core import Trace, TraceError
from .source import MemorySource, TraceSource
from .formats import (FORMAT_NAMES, FORMATS, INT64_MAX, WRITABLE_FORMATS, FastPathFailed, LineError, RawColumns,
                      TraceFormat, get_format)
from .formats_libcachesim import BinaryFormat, binary_format_from_name

__all__ = ["read_trace", "read_trace_report", "open_trace", "write_trace", "sniff_format", "format_from_filename",
           "cache_path", "ReadReport", "TraceNotFoundError", "CACHE_SUFFIX", "CACHE_VERSION"]

SNIFF_LINES = 32
PROGRESS_DELAY_S = 0.5   # the progress bar appears only for reads longer than this
MAX_SKIP_EXAMPLES = 3
FAST_BLOCK_BYTES = 1 << 22  # block size of the streaming parse (see _parse_iter)
BLOCK_BYTES = 1 << 21       # block size inside a block the fast path refuses

_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BZIP2_MAGIC = b"BZh"
_XZ_MAGIC = b"\xfd7zXZ\x00"
_COMPRESSED_SUFFIXES = (".gz", ".zst", ".bz2", ".xz")
# what a corrupt or truncated compressed file raises while it is read
_DECOMPRESS_ERRORS = (OSError, EOFError, zstandard.ZstdError, lzma.LZMAError)
_TEXT_SUFFIXES = (".csv", ".txt", ".trace", ".log", ".bin")


class TraceNotFoundError(TraceError, FileNotFoundError):
    """The trace file does not exist (a TraceError and a FileNotFoundError)."""


@dataclass(frozen=True)
class ReadReport:
    """What :func:`read_trace_report` did.

    * ``path``: the source file.
    * ``fmt``: the format used (given or sniffed); None for an empty file read
      without a format.
    * ``n_requests``: requests in the returned trace.
    * ``n_skipped``: bad lines skipped (always 0 unless ``skip_bad=True``).
    * ``skipped_examples``: the error messages of the first few skipped lines.
    * ``n_out_of_order``: requests whose time is earlier than the previous
      request's in the file; when > 0 the reader sorted the trace by time.
    * ``from_cache``: the trace came from the parse cache.
    """

    path: str
    fmt: str | None
    n_requests: int
    n_skipped: int = 0
    skipped_examples: tuple = ()
    n_out_of_order: int = 0
    from_cache: bool = False


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def read_trace(path, fmt: str | None = None, skip_bad: bool = False, cache: bool = True,
               progress: bool = False, options: dict | None = None) -> Trace:
    """Read a trace file into a :class:`Trace` (see the module docstring for the rules).

    ``fmt``: a name from :data:`flashrr.trace.formats.FORMAT_NAMES` or None to
    sniff.  ``skip_bad``: skip malformed lines instead of raising (use
    :func:`read_trace_report` to get their count).  ``cache``: use and update
    the ``.flashrr-cache.parquet`` file next to the source.  ``progress``: show a
    tqdm progress bar (by bytes of the file) on stderr for long reads.
    ``options``: reading options of the format (``{"block_bytes": 4096}``...).
    """
    return read_trace_report(path, fmt=fmt, skip_bad=skip_bad, cache=cache, progress=progress, options=options)[0]


def read_trace_report(path, fmt: str | None = None, skip_bad: bool = False, cache: bool = True,
                      progress: bool = False, options: dict | None = None) -> tuple[Trace, ReadReport]:
    """Like :func:`read_trace`, and also return the :class:`ReadReport`."""
    if cache:
        source, report = open_trace(path, fmt=fmt, skip_bad=skip_bad, cache=True, progress=progress,
                                    options=options)
        return source.to_trace(), report
    path = Path(path)
    with _read_errors(path):
        sample, tf = _prepare(path, fmt, options)
        if tf is None:
            return _empty_trace(path), ReadReport(str(path), fmt and get_format(fmt).name, 0)
        log = _SkipLog()
        raw = RawColumns.concat(list(_parse_iter(path, tf, sample, skip_bad, progress, log)))
        trace, n_ooo = _finalize(raw, tf, _trace_name(path, tf.name), path)
    return trace, ReadReport(str(path), tf.name, len(trace), log.n, tuple(log.examples), n_ooo, False)


def open_trace(path, fmt: str | None = None, skip_bad: bool = False, cache: bool = True,
               progress: bool = False, options: dict | None = None) -> tuple[TraceSource, ReadReport]:
    """A trace file as a :class:`~flashrr.trace.source.TraceSource` read from
    its parse cache in chunks, and the :class:`ReadReport`.

    A missing or stale cache is built first by a streaming parse (the whole
    trace is never in memory).  ``cache=False``, or a directory that cannot
    be written, puts the cache in a private temporary directory removed when
    the source is garbage collected."""
    path = Path(path)
    with _read_errors(path):
        st = _stat_source(path)
        sample, tf = _prepare(path, fmt, options)
        if tf is None:
            return MemorySource(_empty_trace(path)), ReadReport(str(path), fmt and get_format(fmt).name, 0)
        key = {"version": CACHE_VERSION, "fmt": tf.name, "skip_bad": bool(skip_bad),
               "source_size": st.st_size, "source_mtime_ns": st.st_mtime_ns,
               "options": {k: options[k] for k in sorted(options)} if options else None}
        meta = load_cache_meta(cache_path(path), key) if cache else None
        if meta is not None:
            return CachedTrace(cache_path(path), meta), _report(path, meta, True)
        log = _SkipLog()
        blocks = _parse_iter(path, tf, sample, skip_bad, progress, log)
        name = _trace_name(path, tf.name)
        owner = None
        dest = cache_path(path)
        if cache:
            try:  # parse straight into the cache next to the source
                meta = write_cache(blocks, tf.time_unit_ns, dest, lambda: _meta(key, name, log), path)
            except OSError:
                log = _SkipLog()  # unwritable directory: parse again into a private directory
                blocks = _parse_iter(path, tf, sample, skip_bad, progress, log)
        if meta is None:
            owner = PrivateDir()
            dest = owner.path / cache_path(path).name
            meta = write_cache(blocks, tf.time_unit_ns, dest, lambda: _meta(key, name, log), path)
    return CachedTrace(dest, meta, owner), _report(path, meta, False)


def _meta(key: dict, name: str, log: "_SkipLog") -> dict:
    return dict(key, name=name, n_skipped=log.n, skipped_examples=list(log.examples))


def _report(path: Path, meta: dict, from_cache: bool) -> ReadReport:
    return ReadReport(str(path), meta["fmt"], int(meta["n_requests"]), int(meta["n_skipped"]),
                      tuple(meta["skipped_examples"]), int(meta["n_out_of_order"]), from_cache)


@contextlib.contextmanager
def _read_errors(path: Path):
    """I/O and decompression errors as a TraceError naming the file."""
    try:
        yield
    except _DECOMPRESS_ERRORS as e:
        if isinstance(e, TraceError):
            raise
        raise TraceError(_cannot_read(path, e)) from e


def _cannot_read(path: Path, e: BaseException) -> str:
    if isinstance(e, EOFError):  # every decompressor's word for input that stops inside the data
        return f"{path}: cannot read the file: the compressed data ends early (truncated file?): {e}"
    return f"{path}: cannot read the file: {e}"


def _prepare(path: Path, fmt: str | None, options: dict | None = None) -> tuple[list, TraceFormat | None]:
    """The sample lines and the format (given or sniffed, bound to ``options``
    and the first lines); no format for an empty text file.  A binary format
    comes with no sample."""
    _stat_source(path)
    tf = get_format(fmt) if fmt is not None else binary_format_from_name(path)
    if isinstance(tf, BinaryFormat):
        return [], tf.bind(options, [], path)
    sample = _sample_lines(path)
    if not sample:
        return sample, None
    return sample, (tf or _sniff(path, sample)).bind(options, sample, path)


def write_trace(trace, path, fmt: str | None = None, chunk_requests: int | None = None) -> int:
    """Write ``trace`` (a Trace, or a TraceSource written chunk by chunk) to
    ``path`` in format ``fmt`` (None: from the file name, see
    :func:`format_from_filename`) and return the number of requests written.
    A name ending in ``.gz``, ``.zst``, ``.bz2`` or ``.xz`` is compressed.  The file is written
    to a temporary name and renamed, so a failed write leaves no partial file.
    Times are rounded to the format's resolution and requests widened to whole
    sectors where the format stores sectors (see :mod:`flashrr.trace.formats`)."""
    path = Path(path)
    if fmt is None:
        fmt = format_from_filename(path)
        if fmt is None:
            raise TraceError(f"{path}: cannot tell the output format from the file name; "
                             f"pass a format ({', '.join(WRITABLE_FORMATS)})")
    tf = get_format(fmt)
    if not tf.writable:
        raise TraceError(f"format {tf.name!r} is read-only; writable formats: {', '.join(WRITABLE_FORMATS)}")
    if isinstance(trace, Trace):
        chunks, name = lambda: [trace], trace.name
    elif isinstance(trace, TraceSource):
        chunks, name = lambda: trace.chunks(chunk_requests), trace.name
    else:
        raise TraceError(f"write_trace needs a Trace or a TraceSource, got {type(trace).__name__}")
    tmp = temp_sibling(path)
    n, first = 0, True
    try:
        with open(tmp, "xb") as raw, _compressed_writer(path, raw) as out:
            for c in chunks():
                tf.write(c, out, header=first)
                n, first = n + len(c), False
            if first:  # an empty source still gets the format's header
                tf.write(Trace([], [], [], [], name=name), out)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise TraceError(f"{path}: cannot write the trace: {e}") from e
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return n


@contextlib.contextmanager
def _compressed_writer(path: Path, raw: BinaryIO) -> Iterator[BinaryIO]:
    """``raw`` wrapped in a compressor when ``path`` ends in ``.gz``, ``.zst``, ``.bz2`` or ``.xz``."""
    if path.name.endswith(".gz"):
        with gzip.GzipFile(filename=path.name[:-3], mode="wb", fileobj=raw, compresslevel=6, mtime=0) as out:
            yield out
    elif path.name.endswith(".zst"):
        with zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=False) as out:
            yield out
    elif path.name.endswith(".bz2"):
        with bz2.BZ2File(raw, mode="wb", compresslevel=9) as out:
            yield out
    elif path.name.endswith(".xz"):
        with lzma.LZMAFile(raw, mode="wb", preset=6) as out:
            yield out
    else:
        yield raw


def sniff_format(path) -> str:
    """The name of the format the first lines of ``path`` are in (TraceError if none)."""
    path = Path(path)
    _stat_source(path)
    binary = binary_format_from_name(path)
    if binary is not None:
        return binary.name
    try:
        sample = _sample_lines(path)
    except _DECOMPRESS_ERRORS as e:
        raise TraceError(_cannot_read(path, e)) from e
    if not sample:
        raise TraceError(f"{path}: the file is empty; no format to tell")
    return _sniff(path, sample).name


def format_from_filename(path) -> str | None:
    """A writable format named by a dot-separated part of the file name
    (``run.mqsim``, ``x.msr.csv.gz``, ``lun0.systor.csv``), or None."""
    parts = Path(path).name.lower().split(".")[1:]
    for part in reversed(parts):
        if part in WRITABLE_FORMATS:
            return part
    return None


def cache_path(path) -> Path:
    """Where the parse cache of ``path`` lives: ``<path>.flashrr-cache.parquet``."""
    path = Path(path)
    return path.with_name(path.name + CACHE_SUFFIX)


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

def _stat_source(path: Path) -> os.stat_result:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise TraceNotFoundError(f"{path}: no such trace file") from None
    if not path.is_file():
        raise TraceError(f"{path}: not a regular file")
    return st


class _Counting(io.RawIOBase):
    """A raw reader that reports the bytes it reads to a progress bar."""

    def __init__(self, f: BinaryIO, bar):
        self._f, self._bar = f, bar

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self._f.readinto(b)
        if n:
            self._bar.update(n)
        return n


class _ZstdReader(io.RawIOBase):
    """Decompressed bytes of a stream of zstd frames.  Unlike
    ``ZstdDecompressor.stream_reader`` it raises EOFError when the input ends
    inside a frame (a truncated file)."""

    def __init__(self, src: BinaryIO, chunk_bytes: int = 1 << 20):
        self._src, self._chunk = src, chunk_bytes
        self._dctx = zstandard.ZstdDecompressor()
        self._frame = None          # decompressor of the frame being read
        self._out = bytearray()     # decompressed, not yet returned

    def readable(self) -> bool:
        return True

    def _more(self) -> bool:
        data = self._src.read(self._chunk)
        if not data:
            if self._frame is not None:
                raise EOFError("zstd data ends inside a frame (truncated file?)")
            return False
        while data:
            if self._frame is None:
                self._frame = self._dctx.decompressobj()
            self._out += self._frame.decompress(data)
            data = b""
            if self._frame.eof:
                data, self._frame = self._frame.unused_data, None
        return True

    def readinto(self, b) -> int:
        while not self._out and self._more():
            pass
        n = min(len(b), len(self._out))
        b[:n] = self._out[:n]
        del self._out[:n]
        return n


@contextlib.contextmanager
def _open_source(path: Path, progress: bool = False, desc: str | None = None) -> Iterator[BinaryIO]:
    """The decompressed bytes of ``path`` as a binary stream."""
    from tqdm import tqdm

    with open(path, "rb") as f, tqdm(total=os.fstat(f.fileno()).st_size, unit="B", unit_scale=True,
                                     unit_divisor=1024, desc=desc or path.name, disable=not progress,
                                     delay=PROGRESS_DELAY_S, leave=False) as bar:
        magic = f.read(len(_XZ_MAGIC))
        f.seek(0)
        src = io.BufferedReader(_Counting(f, bar), buffer_size=1 << 20) if progress else f
        if magic.startswith(_GZIP_MAGIC):
            with gzip.GzipFile(fileobj=src, mode="rb") as g:
                yield g
        elif magic.startswith(_ZSTD_MAGIC):
            yield io.BufferedReader(_ZstdReader(src), buffer_size=1 << 20)
        elif magic.startswith(_BZIP2_MAGIC):
            with bz2.BZ2File(src, mode="rb") as b:
                yield b
        elif magic.startswith(_XZ_MAGIC):
            with lzma.LZMAFile(src, mode="rb") as x:
                yield x
        else:
            yield src


def _text_lines(stream: BinaryIO) -> io.TextIOWrapper:
    return io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline=None)


def _sample_lines(path: Path) -> list[tuple[int, str]]:
    """Up to SNIFF_LINES non-empty lines from the start as (1-based line number, text)."""
    out: list[tuple[int, str]] = []
    with _open_source(path) as stream:
        text = _text_lines(stream)
        for lineno, line in enumerate(text, start=1):
            line = line.rstrip("\n")
            if line.strip():
                out.append((lineno, line))
                if len(out) >= SNIFF_LINES:
                    break
        text.detach()
    return out


def _empty_trace(path: Path) -> Trace:
    z = np.zeros(0, dtype=np.int64)
    return Trace(z, z, z, np.zeros(0, dtype=bool), name=_trace_name(path, None))


def _trace_name(path: Path, fmt_name: str | None) -> str:
    """The file name without compression, text and format extensions."""
    name = path.name
    for suffixes in (_COMPRESSED_SUFFIXES, _TEXT_SUFFIXES, tuple(f".{f.lower()}" for f in FORMAT_NAMES)):
        for s in suffixes:
            if name.lower().endswith(s) and len(name) > len(s):
                name = name[: -len(s)]
                break
    return name


# ---------------------------------------------------------------------------
# Sniffing
# ---------------------------------------------------------------------------

def _sniff(path: Path, sample: list[tuple[int, str]]) -> TraceFormat:
    lines = [ln for _, ln in sample]
    scores = {name: f.sniff_score(lines) for name, f in FORMATS.items()}
    best = max(scores.values())
    if best < 0.5:
        listing = "; ".join(f"{f.name} ({f.title})" for f in FORMATS.values())
        first = lines[0] if len(lines[0]) <= 120 else lines[0][:117] + "..."
        raise TraceError(f"{path}: cannot tell the trace format from its first lines (line {sample[0][0]}: "
                         f"{first!r}); pass a format, one of: {listing} (binary formats are told only by "
                         f"name or suffix, e.g. x.oracleGeneral.bin, x.vscsi)")
    tied = [FORMATS[n] for n, s in scores.items() if s == best]
    lower = path.name.lower()
    hinted = [f for f in tied if f.name_hint.search(lower)]
    return (hinted or tied)[0]


def _header_rows(tf: TraceFormat, sample: list[tuple[int, str]]) -> int:
    """Physical lines to skip before the data: through the header line, if any."""
    if sample and tf.is_header(sample[0][1]):
        return sample[0][0]
    return 0


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

class _SkipLog:
    """Bad lines skipped so far by a parse (``skip_bad=True``) and the first messages."""

    def __init__(self):
        self.n = 0
        self.examples: list[str] = []

    def add(self, n: int, examples) -> None:
        self.n += n
        self.examples.extend(examples[:MAX_SKIP_EXAMPLES - len(self.examples)])


def _parse(path: Path, tf: TraceFormat, sample, skip_bad: bool, progress: bool,
           force_slow: bool = False) -> tuple[RawColumns, int, tuple]:
    """The whole of ``path`` parsed into one RawColumns (file order), the bad
    lines skipped and the first skip messages (see :func:`_parse_iter`)."""
    log = _SkipLog()
    raw = RawColumns.concat(list(_parse_iter(path, tf, sample, skip_bad, progress, log, force_slow)))
    return raw, log.n, tuple(log.examples)


def _parse_iter(path: Path, tf: TraceFormat, sample, skip_bad: bool, progress: bool, log: _SkipLog,
                force_slow: bool = False) -> Iterator[RawColumns]:
    """Parse ``path`` block by block, yielding columns in file order (see
    :func:`_parse_text` and :func:`_parse_records`); a format without times
    gets ``tf.gap_ns`` between requests in file order."""
    if isinstance(tf, BinaryFormat):
        blocks = _parse_records(path, tf, skip_bad, progress, log)
    else:
        blocks = _parse_text(path, tf, sample, skip_bad, progress, log, force_slow)
    if tf.gap_ns is None:
        yield from blocks
        return
    n = 0
    for raw in blocks:
        if (n + len(raw)) * tf.gap_ns > INT64_MAX:
            raise TraceError(f"{path}: {n + len(raw)} requests {tf.gap_ns} ns apart pass 2**63 ns; "
                             "choose a smaller gap_ns")
        yield RawColumns(np.arange(n, n + len(raw), dtype=np.int64) * tf.gap_ns, raw.offset, raw.size,
                         raw.is_write)
        n += len(raw)


def _parse_records(path: Path, tf, skip_bad: bool, progress: bool, log: _SkipLog) -> Iterator[RawColumns]:
    """The fixed-size records of a binary format, block by block (NumPy, no
    per-record Python); TraceError if the file ends inside a record."""
    with _open_source(path, progress) as stream:
        data = _read_at_least(stream, 2 * 40)
        tf = tf.pick(data, path)
        rs = tf.record_dtype.itemsize
        block = max(1, FAST_BLOCK_BYTES // rs) * rs
        done = 0  # records before ``data``
        while True:
            if len(data) < block:
                data += _read_at_least(stream, block - len(data))
            whole = len(data) - len(data) % rs
            if whole:
                rec = np.frombuffer(data, dtype=tf.record_dtype, count=whole // rs)
                raw, k, ex = tf.records(rec, done, path, skip_bad)
                log.add(k, ex)
                yield raw
                done += whole // rs
            if len(data) < block:  # the stream has ended
                break
            data = data[whole:]
        if len(data) % rs:
            size = done * rs + len(data) % rs
            raise TraceError(f"{path}: {size} bytes{' (decompressed)' if _is_compressed(path) else ''} is not a "
                             f"whole number of {rs}-byte {tf.name} records ({done} records and "
                             f"{len(data) % rs} bytes over): the file is cut short or not in this format")


def _read_at_least(stream: BinaryIO, n: int) -> bytes:
    """``n`` bytes from the stream, fewer only at its end."""
    parts, got = [], 0
    while got < n:
        b = stream.read(n - got)
        if not b:
            break
        parts.append(b)
        got += len(b)
    return b"".join(parts)


def _is_compressed(path: Path) -> bool:
    with open(path, "rb") as f:
        magic = f.read(len(_XZ_MAGIC))
    return any(magic.startswith(m) for m in (_GZIP_MAGIC, _ZSTD_MAGIC, _BZIP2_MAGIC, _XZ_MAGIC))


def _parse_text(path: Path, tf: TraceFormat, sample, skip_bad: bool, progress: bool, log: _SkipLog,
                force_slow: bool = False) -> Iterator[RawColumns]:
    """Parse a text file block by block, yielding columns in file order.

    The file is cut into blocks of whole lines (about FAST_BLOCK_BYTES each),
    each parsed by the vectorised fast path; a block the fast path refuses is
    cut again into blocks of about BLOCK_BYTES, and only those it still
    refuses go through the line parser (which raises at the first bad line or,
    with ``skip_bad``, records the skips in ``log``).  Line numbers stay
    physical line numbers of the file.  ``force_slow`` reads every line with
    the reference parser."""
    header_rows = _header_rows(tf, sample)
    with _open_source(path, progress) as stream:
        if force_slow:
            text = _text_lines(stream)
            raw, k, ex = _parse_lines(text, path, tf, header_rows, skip_bad, first_lineno=1)
            text.detach()
            log.add(k, ex)
            yield raw
            return
        lineno = 1  # physical number of the block's first line
        for block in _blocks(stream, FAST_BLOCK_BYTES):
            try:
                yield _parse_fast_block(tf, block, lineno, header_rows)
            except FastPathFailed:
                sub_lineno = lineno
                for sub in _blocks(io.BytesIO(block)):
                    try:
                        raw = _parse_fast_block(tf, sub, sub_lineno, header_rows)
                    except FastPathFailed:
                        text = io.TextIOWrapper(io.BytesIO(sub), encoding="utf-8-sig" if sub_lineno == 1 else "utf-8",
                                                errors="replace", newline=None)
                        raw, k, ex = _parse_lines(text, path, tf, max(0, header_rows - (sub_lineno - 1)), skip_bad,
                                                  first_lineno=sub_lineno)
                        log.add(k, ex)
                    yield raw
                    sub_lineno += _count_lines(sub)
            lineno += _count_lines(block)


def _parse_fast_block(tf: TraceFormat, block: bytes, lineno: int, header_rows: int) -> RawColumns:
    """The fast path over one block whose first line is physical line ``lineno``."""
    skip_here = max(0, header_rows - (lineno - 1))
    return tf.parse_fast(lambda: contextlib.nullcontext(io.BytesIO(block)), skip_here)


def _blocks(stream: BinaryIO, size: int | None = None) -> Iterator[bytes]:
    """The stream's bytes in blocks that end at a line break (the last may not)."""
    size = size or BLOCK_BYTES
    rest = b""
    while True:
        data = stream.read(size)
        if not data:
            if rest:
                yield rest
            return
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            continue
        rest = data[cut:]
        yield data[:cut]


def _count_lines(block: bytes) -> int:
    """Line breaks in a block as universal newlines count them (\\n, \\r\\n, \\r)."""
    return block.count(b"\n") + block.count(b"\r") - block.count(b"\r\n")


def _parse_lines(text, path: Path, tf: TraceFormat, header_rows: int, skip_bad: bool,
                 first_lineno: int) -> tuple[RawColumns, int, tuple]:
    """The reference parser over lines of text whose first is physical line
    ``first_lineno``; the first ``header_rows`` lines are skipped."""
    time, offset, size, is_write = [], [], [], []
    n_skipped, examples = 0, []
    parse = tf.parse_line
    for lineno, line in enumerate(text, start=first_lineno):
        if lineno - first_lineno < header_rows or not line.strip():
            continue
        try:
            rec = parse(line.rstrip("\n"))
        except LineError as e:
            msg = f"{path} line {lineno}: {e}"
            if not skip_bad:
                raise TraceError(msg) from None
            n_skipped += 1
            if len(examples) < MAX_SKIP_EXAMPLES:
                examples.append(msg)
            continue
        if rec is not None:
            time.append(rec[0])
            offset.append(rec[1])
            size.append(rec[2])
            is_write.append(rec[3])
    return RawColumns.from_rows(time, offset, size, is_write), n_skipped, tuple(examples)


def _finalize(raw: RawColumns, tf: TraceFormat, name: str, path: Path) -> tuple[Trace, int]:
    """Sort stably by time, rebase to 0 and convert to ns."""
    t = raw.time
    n_ooo = int(np.count_nonzero(np.diff(t) < 0)) if len(t) > 1 else 0
    cols = (raw.offset, raw.size, raw.is_write)
    if n_ooo:
        order = np.argsort(t, kind="stable")
        t = t[order]
        cols = tuple(c[order] for c in cols)
    if len(t):
        span = int(t[-1]) - int(t[0])
        if span > INT64_MAX // tf.time_unit_ns:
            raise TraceError(f"{path}: the trace spans {span} time units of {tf.time_unit_ns} ns, "
                             "more than int64 ns can hold")
        t = (t - t[0]) * tf.time_unit_ns
    return Trace(t, *cols, name=name), n_ooo
