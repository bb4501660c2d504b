"""The :class:`Trace` container: a block I/O trace as NumPy columns."""
from __future__ import annotations

import numpy as np


class TraceError(ValueError):
    """A trace that is malformed or cannot be used; the message says where and why."""


class Trace:
    """A block I/O trace held as four NumPy columns of equal length.

    * ``time_ns`` (int64): arrival time in ns, starting at 0 at the first request,
      non-decreasing.
    * ``offset`` (int64): byte offset on the device, >= 0.
    * ``size`` (int64): request size in bytes, > 0.
    * ``is_write`` (bool): True for a write, False for a read.

    ``name`` is a label (usually the source file's stem).  Construction
    validates the columns and raises :class:`TraceError` naming the column and
    the first bad index.  ``rebase=True`` (default) shifts times so the first
    request arrives at 0.
    """

    __slots__ = ("time_ns", "offset", "size", "is_write", "name")

    def __init__(self, time_ns, offset, size, is_write, name: str = "trace", rebase: bool = True):
        cols = {
            "time_ns": np.ascontiguousarray(time_ns, dtype=np.int64),
            "offset": np.ascontiguousarray(offset, dtype=np.int64),
            "size": np.ascontiguousarray(size, dtype=np.int64),
            "is_write": np.ascontiguousarray(is_write, dtype=bool),
        }
        n = len(cols["time_ns"])
        for k, v in cols.items():
            if v.ndim != 1:
                raise TraceError(f"Trace column {k!r}: must be one-dimensional, got shape {v.shape}")
            if len(v) != n:
                raise TraceError(f"Trace column {k!r}: length {len(v)} differs from time_ns length {n}")
        t = cols["time_ns"]
        if n and rebase and t[0] != 0:
            t = t - t[0]
            cols["time_ns"] = t
        if n:
            _first_bad(np.diff(t) < 0, "time_ns", "timestamps must be non-decreasing", offset_by=1)
            _first_bad(t < 0, "time_ns", "times must be >= 0")
            _first_bad(cols["offset"] < 0, "offset", "offsets must be >= 0 bytes")
            _first_bad(cols["size"] <= 0, "size", "sizes must be > 0 bytes")
        for k, v in cols.items():
            v.flags.writeable = False
            object.__setattr__(self, k, v)
        object.__setattr__(self, "name", str(name))

    @classmethod
    def trusted(cls, time_ns, offset, size, is_write, name: str = "trace") -> "Trace":
        """A Trace of columns already known to be valid (int64, int64, int64,
        bool, one-dimensional, equal lengths, times non-decreasing, offsets
        >= 0, sizes > 0), without the checks; for chunks read back from a
        parse cache flashrr wrote itself."""
        self = object.__new__(cls)
        for k, v in (("time_ns", time_ns), ("offset", offset), ("size", size), ("is_write", is_write)):
            v = np.ascontiguousarray(v)
            v.flags.writeable = False
            object.__setattr__(self, k, v)
        object.__setattr__(self, "name", str(name))
        return self

    def __setattr__(self, key, value):
        raise AttributeError("Trace is immutable; build a new one")

    def __reduce__(self):
        # pickling (process pools, Dask, saved notebooks) rebuilds through the
        # trusted path: the columns were validated when this Trace was made
        return (Trace.trusted, (self.time_ns, self.offset, self.size, self.is_write, self.name))

    def __len__(self) -> int:
        return len(self.time_ns)

    def __repr__(self) -> str:
        return f"Trace({self.name!r}, {len(self)} requests, {self.duration_ns / 1e9:.3f} s)"

    def __eq__(self, other) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return all(np.array_equal(getattr(self, c), getattr(other, c)) for c in ("time_ns", "offset", "size",
                                                                               "is_write"))

    __hash__ = None

    @property
    def duration_ns(self) -> int:
        return int(self.time_ns[-1]) if len(self) else 0

    @property
    def n_reads(self) -> int:
        return int(len(self) - np.count_nonzero(self.is_write))

    @property
    def n_writes(self) -> int:
        return int(np.count_nonzero(self.is_write))

    def max_lpn(self, page_size_bytes: int) -> int:
        """Highest logical page touched (-1 for an empty trace)."""
        if not len(self):
            return -1
        return int(((self.offset + self.size - 1) // page_size_bytes).max())

    def slice(self, start: int, stop: int, name: str | None = None) -> "Trace":
        """Requests ``start .. stop - 1``, rebased so the first arrives at 0, named ``name`` (default: this
        trace's name)."""
        s = np.s_[start:stop]
        return Trace(self.time_ns[s], self.offset[s], self.size[s], self.is_write[s],
                     name=self.name if name is None else name)

    def columns(self) -> dict:
        return {c: getattr(self, c) for c in ("time_ns", "offset", "size", "is_write")}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.columns())


def _first_bad(mask: np.ndarray, col: str, rule: str, offset_by: int = 0) -> None:
    if mask.any():
        i = int(np.argmax(mask)) + offset_by
        raise TraceError(f"Trace column {col!r}: {rule} (first violation at request index {i})")
