"""The parse cache of a trace file: a Parquet file written and read in chunks.

A parsed trace is stored as ``<source>.flashrr-cache.parquet``: four columns
(``time_ns``, ``offset``, ``size`` int64 and ``is_write`` bool), sorted by
time and rebased to 0 ns, in row groups of :data:`ROW_GROUP_ROWS` requests.
The file's key-value metadata ``flashrr`` holds a JSON record: the cache key
(source size and mtime_ns, format, ``skip_bad``, reading options,
:data:`CACHE_VERSION`), the trace name, the read report (bad lines skipped,
first messages, requests out of order) and the totals of :class:`~flashrr.trace.source.SourceInfo`
(requests, writes, duration, lowest offset, highest byte touched), so a replay
knows the highest LPN before it reads a request.

:func:`write_cache` consumes the parser's blocks one at a time, so building
the cache never holds the whole trace:

* blocks are written in file order with times relative to the first request;
* if the file turns out to be in time order (the usual case) that file is the
  cache;
* otherwise it is sorted externally: runs of :data:`SORT_RUN_ROWS` requests
  are sorted stably, then merged (see :func:`_merge_runs`), which gives exactly
  the order of a stable in-memory sort by time.

Memory stays bounded by the row-group, run and merge-buffer sizes whatever the
trace length.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import uuid
import weakref
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .core import Trace, TraceError
from .formats import INT64_MAX, RawColumns
from .source import SourceInfo, TraceSource, check_chunk_requests, default_chunk_requests

__all__ = ["CACHE_SUFFIX", "CACHE_VERSION", "CachedTrace", "write_cache", "load_cache_meta"]

CACHE_SUFFIX = ".flashrr-cache.parquet"
CACHE_VERSION = 2
ROW_GROUP_ROWS = 1 << 18     # requests per row group of the cache (about 6.5 MB of columns)
SORT_RUN_ROWS = 1 << 22      # requests sorted in memory at once when the file is out of order
MERGE_BUFFER_ROWS = 1 << 22  # requests buffered across all runs while merging
MIN_MERGE_GROUP_ROWS = 1024  # smallest read of one run while merging
META_KEY = b"flashrr"
COLUMNS = ("time_ns", "offset", "size", "is_write")
SCHEMA = pa.schema([("time_ns", pa.int64()), ("offset", pa.int64()), ("size", pa.int64()),
                    ("is_write", pa.bool_())])
KEY_FIELDS = ("version", "fmt", "skip_bad", "source_size", "source_mtime_ns", "options")


class PrivateDir:
    """A temporary directory removed (with its files) when this object is
    garbage collected or the interpreter exits."""

    def __init__(self):
        self.path = Path(tempfile.mkdtemp(prefix="flashrr-trace-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self.path), ignore_errors=True)


def temp_sibling(path: Path) -> Path:
    """A fresh hidden name next to ``path`` for an atomic write-then-rename."""
    return path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")


def _writer(path: Path) -> pq.ParquetWriter:
    # Plain encoding, uncompressed: decoding is a copy, so replay from the cache runs close to in-memory
    # speed (lz4 halved the file but took ~15 ns per request to decode); about 24 bytes per request.
    return pq.ParquetWriter(path, SCHEMA, compression="none", use_dictionary=False, write_statistics=False)


class _RowGroups:
    """Buffers column arrays and writes them as row groups of ``rows`` requests."""

    def __init__(self, writer: pq.ParquetWriter, rows: int):
        self.writer, self.rows = writer, rows
        self.parts: list[tuple] = []
        self.n = 0

    def add(self, cols: tuple) -> None:
        if len(cols[0]):
            self.parts.append(cols)
            self.n += len(cols[0])
            if self.n >= self.rows:
                self.flush(whole_groups_only=True)

    def flush(self, whole_groups_only: bool = False) -> None:
        """Write the buffered requests (only whole row groups if asked; the rest stays buffered)."""
        if not self.parts:
            return
        cols = [np.concatenate([p[i] for p in self.parts]) for i in range(4)]
        k = self.n - self.n % self.rows if whole_groups_only else self.n
        self.writer.write_table(pa.table(dict(zip(COLUMNS, (c[:k] for c in cols))), schema=SCHEMA),
                                row_group_size=self.rows)
        self.parts = [tuple(c[k:] for c in cols)] if k < self.n else []
        self.n -= k


class _Tally:
    """What the cache metadata records, gathered while blocks go by (times in
    the format's native unit)."""

    def __init__(self, unit_ns: int, where: Path):
        self.unit, self.where = unit_ns, where
        self.n = self.n_writes = self.n_ooo = 0
        self.t_first = self.t_min = self.t_max = self.t_last = None
        self.min_offset, self.max_end = None, -1

    def add(self, raw: RawColumns) -> None:
        t = raw.time
        if not len(t):
            return
        if self.t_first is None:
            self.t_first = self.t_min = self.t_max = self.t_last = int(t[0])
        self.n_ooo += int(t[0] < self.t_last) + int(np.count_nonzero(t[1:] < t[:-1]))
        self.t_last = int(t[-1])
        self.t_min, self.t_max = min(self.t_min, int(t.min())), max(self.t_max, int(t.max()))
        span = self.t_max - self.t_min
        if span > INT64_MAX // self.unit:
            raise TraceError(f"{self.where}: the trace spans {span} time units of {self.unit} ns, "
                             "more than int64 ns can hold")
        self.n += len(t)
        self.n_writes += int(np.count_nonzero(raw.is_write))
        lo = int(raw.offset.min())
        self.min_offset = lo if self.min_offset is None else min(self.min_offset, lo)
        self.max_end = max(self.max_end, int((raw.offset + raw.size - 1).max()))

    def info(self) -> SourceInfo:
        if not self.n:
            return SourceInfo(0, 0, 0, 0, -1)
        return SourceInfo(self.n, self.n_writes, (self.t_max - self.t_min) * self.unit, self.min_offset, self.max_end)


def write_cache(blocks: Iterable[RawColumns], unit_ns: int, dest: Path, meta: Callable[[], dict],
                where: Path) -> dict:
    """Write the requests of ``blocks`` (file order, native time unit
    ``unit_ns``) as a cache file at ``dest`` (atomically) and return the full
    metadata: ``meta()`` (called once every block is consumed) plus
    ``n_out_of_order`` and the SourceInfo totals.  ``where`` names the trace
    in errors.  OSError if ``dest`` cannot be written."""
    tally = _Tally(unit_ns, where)
    tmp = temp_sibling(dest)
    tmp2 = runs = None
    try:
        with contextlib.closing(_writer(tmp)) as w:
            groups = _RowGroups(w, ROW_GROUP_ROWS)
            for raw in blocks:
                tally.add(raw)
                if len(raw):
                    groups.add(((raw.time - tally.t_first) * unit_ns, raw.offset, raw.size, raw.is_write))
            groups.flush()
            full = dict(meta(), n_out_of_order=tally.n_ooo, **tally.info().to_dict())
            if not tally.n_ooo:
                w.add_key_value_metadata({META_KEY: json.dumps(full)})
        if tally.n_ooo:
            # Times so far are relative to the first request; the earliest one goes to 0.
            shift = (tally.t_first - tally.t_min) * unit_ns
            runs, tmp2 = temp_sibling(dest), temp_sibling(dest)
            bounds = _sort_runs(tmp, runs)
            os.unlink(tmp)
            with contextlib.closing(_writer(tmp2)) as w:
                groups = _RowGroups(w, ROW_GROUP_ROWS)
                for t, o, s, wr in _merge_runs(runs, bounds):
                    groups.add((t + shift, o, s, wr))
                groups.flush()
                w.add_key_value_metadata({META_KEY: json.dumps(full)})
            tmp, tmp2 = tmp2, None
        os.replace(tmp, dest)
        tmp = None
        return full
    finally:
        for p in (tmp, tmp2, runs):
            if p is not None:
                with contextlib.suppress(OSError):
                    os.unlink(p)


def _columns(table) -> tuple:
    return tuple(table.column(c).to_numpy() for c in COLUMNS)


def _sort_runs(src: Path, dest: Path) -> list[tuple[int, int]]:
    """Sort ``src`` (file order) in runs of about SORT_RUN_ROWS requests, each
    stably by time, into ``dest``; return each run's row-group range."""
    pf = pq.ParquetFile(src)
    n_runs_max = max(1, -(-pf.metadata.num_rows // SORT_RUN_ROWS))
    group = max(MIN_MERGE_GROUP_ROWS, MERGE_BUFFER_ROWS // n_runs_max)
    bounds: list[tuple[int, int]] = []
    n_groups = 0
    with contextlib.closing(_writer(dest)) as w:
        pending, count = [], 0

        def flush():
            nonlocal pending, count, n_groups
            if not count:
                return
            table = pa.Table.from_batches(pending)
            order = np.argsort(table.column("time_ns").to_numpy(), kind="stable")
            w.write_table(table.take(order), row_group_size=group)
            k = -(-count // group)
            bounds.append((n_groups, n_groups + k))
            n_groups += k
            pending, count = [], 0

        for batch in pf.iter_batches(batch_size=min(group, SORT_RUN_ROWS)):
            pending.append(batch)
            count += batch.num_rows
            if count >= SORT_RUN_ROWS:
                flush()
        flush()
    return bounds


def _merge_runs(path: Path, bounds: list[tuple[int, int]]) -> Iterator[tuple]:
    """The requests of the sorted runs in ``path`` merged into one stream sorted
    stably by time (ties keep run order, and runs are in file order).

    Each run is read a row group at a time.  ``bound`` is the smallest last
    loaded time over the runs that still have row groups to read; every loaded
    request earlier than ``bound`` can go out, since nothing still unread is
    earlier.  Requests at exactly ``bound`` wait, as an unread one of an
    earlier run could share that time; the runs whose last loaded time is
    ``bound`` then load their next row group, so ``bound`` rises."""
    pf = pq.ParquetFile(path)
    nxt = [a for a, _ in bounds]
    end = [b for _, b in bounds]
    bufs: list[tuple] = [tuple(np.zeros(0, np.int64) for _ in range(3)) + (np.zeros(0, bool),) for _ in bounds]

    def load(i: int) -> None:
        cols = _columns(pf.read_row_group(nxt[i], columns=list(COLUMNS)))
        nxt[i] += 1
        bufs[i] = tuple(np.concatenate([b, c]) for b, c in zip(bufs[i], cols))

    for i in range(len(bounds)):
        if nxt[i] < end[i]:
            load(i)
    while True:
        active = [i for i in range(len(bounds)) if nxt[i] < end[i]]
        for i in active:
            while not len(bufs[i][0]) and nxt[i] < end[i]:
                load(i)
        active = [i for i in active if len(bufs[i][0])]
        bound = min(int(bufs[i][0][-1]) for i in active) if active else None
        out = []
        for i, b in enumerate(bufs):
            k = len(b[0]) if bound is None else int(np.searchsorted(b[0], bound, side="left"))
            if k:
                out.append(tuple(c[:k] for c in b))
                bufs[i] = tuple(c[k:] for c in b)
        if out:
            cols = [np.concatenate([p[j] for p in out]) for j in range(4)]
            order = np.argsort(cols[0], kind="stable")
            yield tuple(c[order] for c in cols)
        if bound is None:
            return
        for i in active:
            if int(bufs[i][0][-1]) == bound and nxt[i] < end[i]:
                load(i)


def load_cache_meta(cpath: Path, key: dict) -> dict | None:
    """The metadata of a valid cache file matching ``key``, else None."""
    try:
        md = pq.read_metadata(cpath).metadata or {}
        meta = json.loads(md[META_KEY])
        if any(meta.get(k) != key[k] for k in KEY_FIELDS):
            return None
        SourceInfo(**{k: int(meta[k]) for k in ("n_requests", "n_writes", "duration_ns", "min_offset",
                                                 "max_end_byte")})
        str(meta["name"])
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        return None
    return meta


class CachedTrace(TraceSource):
    """A trace read from its parse cache, ``chunk_requests`` requests at a time.

    ``meta`` is the cache's metadata record.  ``owner`` is kept alive with the
    source (a temporary directory holding a cache that is not kept)."""

    def __init__(self, cpath: Path, meta: dict, owner=None):
        self.path = Path(cpath)
        self.meta = meta
        self.name = str(meta["name"])
        self._owner = owner
        self._info = SourceInfo(**{k: int(meta[k]) for k in ("n_requests", "n_writes", "duration_ns",
                                                              "min_offset", "max_end_byte")})

    @property
    def stats_path(self) -> Path:
        """Where statistics computed from this cache are remembered (``<cache>.stats.json``)."""
        return self.path.with_name(self.path.name + ".stats.json")

    def remembered_stats(self, page_size_bytes: int) -> dict | None:
        """Statistics at ``page_size_bytes`` remembered for this very cache, else None."""
        try:
            memo = json.loads(self.stats_path.read_text())
            if any(memo["key"].get(k) != self.meta.get(k) for k in KEY_FIELDS):
                return None
            return memo["stats"].get(str(int(page_size_bytes)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def remember_stats(self, page_size_bytes: int, stats: dict) -> None:
        """Remember statistics for later reads of this cache (silently skipped if it cannot be written)."""
        try:
            memo = json.loads(self.stats_path.read_text())
            if any(memo["key"].get(k) != self.meta.get(k) for k in KEY_FIELDS):
                raise ValueError
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            memo = {"key": {k: self.meta.get(k) for k in KEY_FIELDS}, "stats": {}}
        memo["stats"][str(int(page_size_bytes))] = stats
        tmp = temp_sibling(self.stats_path)
        try:
            tmp.write_text(json.dumps(memo))
            os.replace(tmp, self.stats_path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def chunks(self, chunk_requests: int | None = None) -> Iterator[Trace]:
        step = check_chunk_requests(chunk_requests) if chunk_requests is not None else default_chunk_requests()
        try:
            # pre_buffer=False: read one row group at a time (pre-buffering would read ahead without bound)
            pf = pq.ParquetFile(self.path, pre_buffer=False, memory_map=False)
            for batch in pf.iter_batches(batch_size=step, columns=list(COLUMNS)):
                if batch.num_rows:
                    t, o, s = (batch.column(i).to_numpy() for i in range(3))
                    w = batch.column(3).to_numpy(zero_copy_only=False)
                    yield Trace.trusted(t, o, s, w, self.name)
        except (OSError, pa.ArrowException) as e:
            raise TraceError(f"{self.path}: cannot read the trace cache: {e}") from e
