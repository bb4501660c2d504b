"""The results store: one directory, one file per finished run, every write atomic.

Layout of ``DIR``::

    runs/<key>.parquet            one-row summary + the run's parameters (the run is done)
    runs/<key>.rr_events.parquet  kept RR events   (spec keep = ["rr_events"])
    runs/<key>.gc_events.parquet  kept GC events   (keep = ["gc_events"])
    runs/<key>.hist.npz           kept latency histograms read/write/io (keep = ["hist"])
    runs/<key>.error.json         the last failure of a run that is not done
    snapshots/<key>.npz           aged-device snapshots the runs start from (flashrr.snapshots)
    trace_hashes.json             content hashes of trace files (a cache)
    .lock                         held by the sweep that is writing (advisory)

Every file is written to a hidden temporary file in the same directory and
then renamed over its final name (``os.replace``), so a reader sees either
nothing or the whole file.  A run's artifacts are written before its summary;
a summary's presence therefore means the run and everything it was asked to
keep are complete.  Temporary files left by a killed sweep (``.*.tmp``) are
removed by the next sweep that takes the lock.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic_file import atomic_open
from .task import RunOutcome, RunTask

RUNS_DIR = "runs"
SNAPSHOTS_DIR = "snapshots"
HASHES_FILE = "trace_hashes.json"
LOCK_FILE = ".lock"
_SUMMARY_RE = re.compile(r"^([0-9a-f]+)\.parquet$")
_ERROR_RE = re.compile(r"^([0-9a-f]+)\.error\.json$")
_ARTIFACT_SUFFIX = {"rr_events": ".rr_events.parquet", "gc_events": ".gc_events.parquet", "hist": ".hist.npz"}
#: columns that time a run (s), different in every run of the same inputs: the engine's
#: (``sim_wall_s``), the policy's share of it (``policy_time_s``) and the worker's whole call
#: (``call_wall_s``: imports, the trace's loading, the simulation and the artifacts' collection)
TIMING_COLUMNS = ("sim_wall_s", "policy_time_s", "call_wall_s")
#: Row order of :func:`load_results`.
SORT_COLUMNS = ("trace_source", "device", "policy_name", "policy_params", "seed", "repeat", "engine", "key")


class StoreError(OSError):
    """A results directory that cannot be used (missing, or locked by another sweep)."""


def _pyarrow():
    """``(pyarrow, pyarrow.parquet)``; pyarrow is an optional dependency (``flashrr[sweep]``)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ImportError("the sweep results store needs pyarrow: pip install 'flashrr[sweep]'") from None
    return pyarrow, pyarrow.parquet


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and ``os.replace``."""
    with atomic_open(path) as f:
        f.write(data)


def _parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


_INT64 = np.iinfo(np.int64)


def _scalar(value):
    """A value Parquet stores as one cell: scalars as they are (an integer beyond int64, such as a sum of
    latencies in ns on an overloaded device, as a float), anything else as JSON."""
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64.min <= value <= _INT64.max:
        return float(value)
    if value is None or isinstance(value, (bool, int, float, str, np.generic)):
        return value
    from .task import canonical_json

    return canonical_json(value)


class ResultStore:
    """Reads and writes the results directory ``root`` (see the module docstring)."""

    def __init__(self, root, create: bool = False):
        _pyarrow()
        self.root = Path(root)
        if create:
            (self.root / RUNS_DIR).mkdir(parents=True, exist_ok=True)
        elif not self.root.is_dir():
            raise StoreError(f"{self.root}: no such results directory")
        self.runs = self.root / RUNS_DIR
        self.snapshots = self.root / SNAPSHOTS_DIR

    # ---------------------------------------------------------------- paths and state
    def summary_path(self, key: str) -> Path:
        return self.runs / f"{key}.parquet"

    def artifact_path(self, key: str, kind: str) -> Path:
        return self.runs / f"{key}{_ARTIFACT_SUFFIX[kind]}"

    def error_path(self, key: str) -> Path:
        return self.runs / f"{key}.error.json"

    @property
    def hashes_path(self) -> Path:
        return self.root / HASHES_FILE

    def is_done(self, key: str, keep=()) -> bool:
        """True if the run's summary and every artifact in ``keep`` are stored."""
        return self.summary_path(key).exists() and all(self.artifact_path(key, k).exists() for k in keep)

    # ---------------------------------------------------------------- writing
    @contextlib.contextmanager
    def lock(self):
        """Hold the store's advisory lock (one writing sweep at a time); StoreError if taken."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no locking
            yield
            return
        fd = os.open(self.root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"{self.root}: another flashrr sweep is writing to this directory") from None
            self._remove_temporaries()
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _remove_temporaries(self) -> None:
        for d in (self.root, self.runs, self.snapshots):
            for tmp in d.glob(".*.tmp"):
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()

    def write_success(self, task: RunTask, outcome: RunOutcome) -> None:
        """Store a finished run: its artifacts first, then its summary row."""
        for kind in task.keep:
            data = outcome.artifacts[kind]
            if kind == "hist":
                buf = io.BytesIO()
                np.savez_compressed(buf, **{k: np.asarray(v) for k, v in data.items()})
                payload = buf.getvalue()
            else:
                payload = _parquet_bytes(data)
            atomic_write_bytes(self.artifact_path(task.key, kind), payload)
        row = {"key": task.key}
        row.update({k: _scalar(v) for k, v in outcome.summary.items()})
        row["call_wall_s"] = float(outcome.wall_s)
        row.update({k: _scalar(v) for k, v in task.columns().items() if k not in row})
        atomic_write_bytes(self.summary_path(task.key), _parquet_bytes(pd.DataFrame([row])))
        with contextlib.suppress(FileNotFoundError):
            self.error_path(task.key).unlink()

    def write_failure(self, task: RunTask, error: str) -> None:
        """Record a failed run (it stays not done, so the next sweep retries it)."""
        last = next((ln for ln in reversed(error.strip().splitlines()) if ln.strip()), "unknown error")
        doc = {"key": task.key, "error": last.strip(), "description": task.describe(),
               "time_unix_s": time.time(), **task.columns(), "seed": task.seed, "repeat": task.repeat,
               "engine": task.engine, "device": task.device.name, "traceback": error}
        atomic_write_bytes(self.error_path(task.key), json.dumps(doc, indent=1, default=str).encode())

    # ---------------------------------------------------------------- reading
    def keys(self) -> list[str]:
        """Keys of the finished runs."""
        return sorted(m.group(1) for p in self.runs.glob("*.parquet") if (m := _SUMMARY_RE.match(p.name)))

    def load(self, keys=None) -> pd.DataFrame:
        """The summary rows of ``keys`` (in that order), or of every finished run
        sorted by :data:`SORT_COLUMNS`.  Keys without a summary are skipped."""
        ordered = keys is not None
        keys = self.keys() if keys is None else [k for k in keys if self.summary_path(k).exists()]
        if not keys:
            return pd.DataFrame()
        pq = _pyarrow()[1]
        df = _concat([pq.read_table(self.summary_path(k)) for k in keys])
        if not ordered:
            by = [c for c in SORT_COLUMNS if c in df.columns]
            df = df.sort_values(by, kind="stable", na_position="last").reset_index(drop=True)
        return df

    def errors(self, keys=None) -> pd.DataFrame:
        """One row per failed run that is not done (traceback in column ``traceback``)."""
        if keys is None:
            keys = sorted(m.group(1) for p in self.runs.glob("*.error.json") if (m := _ERROR_RE.match(p.name)))
        rows = []
        for k in keys:
            p = self.error_path(k)
            if p.exists() and not self.summary_path(k).exists():
                rows.append(json.loads(p.read_text()))
        return pd.DataFrame(rows)

    def artifacts(self, key: str) -> dict:
        """Kept artifacts of run ``key``: ``rr_events``/``gc_events`` DataFrames
        (``block_reads`` as tuples) and ``hist`` (dict read/write/io -> int64 array)."""
        if not self.summary_path(key).exists():
            raise KeyError(f"{self.root}: no finished run with key {key!r}")
        out = {}
        for kind in _ARTIFACT_SUFFIX:
            p = self.artifact_path(key, kind)
            if not p.exists():
                continue
            if kind == "hist":
                with np.load(p) as z:
                    out[kind] = {name: z[name] for name in z.files}
            else:
                df = pd.read_parquet(p)
                if "block_reads" in df.columns:
                    df["block_reads"] = [tuple(int(x) for x in v) for v in df["block_reads"]]
                out[kind] = df
        return out


def _concat(tables: list) -> pd.DataFrame:
    """One DataFrame from per-run tables whose columns may differ (a parameter only some
    policies have is missing, i.e. NaN/None, elsewhere; int and float columns merge as float)."""
    pa = _pyarrow()[0]
    try:
        return pa.concat_tables(tables, promote_options="permissive").to_pandas()
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # e.g. a parameter that is a number here and text there
        return pd.concat([t.to_pandas() for t in tables], ignore_index=True, sort=False)


def load_results(out) -> pd.DataFrame:
    """Every finished run in the results directory ``out``, one row per run.

    Columns: ``key``; the run's summary (:attr:`flashrr.result.Result.summary`,
    latencies in ns, ``sim_wall_s`` in s); ``call_wall_s`` (s, the worker's whole call:
    :data:`TIMING_COLUMNS`); ``trace_source`` (the spec's entry),
    ``trace_id``, ``policy_name``, ``policy_params`` (JSON), one ``param_<name>``
    column per policy parameter (empty for policies without it),
    ``device_config`` (JSON of the full config) and ``flashrr_version``.
    """
    return ResultStore(out).load()


def load_errors(out) -> pd.DataFrame:
    """The failed runs of ``out`` that are not done: key, error (last line), traceback, parameters."""
    return ResultStore(out).errors()


def load_run_artifacts(out, key: str) -> dict:
    """The kept events and histograms of run ``key`` of results directory ``out``."""
    return ResultStore(out).artifacts(key)
