"""The RR and GC migrations of one run, one record each (twin of ``event_log.pyx``)."""
from __future__ import annotations

import numpy as np

GC_ROUTINE = "greedy"   # the routine label of every GC record
RR_ROUTINE = "default"  # an RR's label when the policy names none


class EventLog:
    """Records kept as Python rows; :meth:`columns` gives the compiled twin's arrays."""

    def __init__(self, k: int):
        self.k = k
        self.rows: list = []

    def add(self, t: int, victim: int, lane: int, reads, moved: int, routine: str, mix: tuple,
            margin: float | None) -> None:
        """One migration: decided at ``t`` (ns) on superblock ``victim``; ``reads`` its blocks'
        read counts when chosen; ``moved`` valid pages; ``mix`` pages programmed into it since
        its erase by the host, RR and GC; ``margin`` its RBER margin (None: none)."""
        self.rows.append((t, victim, lane, tuple(int(x) for x in reads), moved, routine, mix,
                          float("nan") if margin is None else float(margin)))

    def __len__(self) -> int:
        return len(self.rows)

    def clear(self) -> None:
        self.rows.clear()

    def columns(self, erase_end) -> dict:
        """The records as ``{column: NumPy array}`` (``flashrr.result.EVENT_COLUMNS``, in
        the compiled twin's dtypes: int32 but for the times; ``block_reads`` is
        ``(records, k)``), with ``erase_end`` (ns, one per record)."""
        n = len(self.rows)

        def ints(i, dtype=np.int32):
            return np.array([r[i] for r in self.rows], dtype=dtype)

        mix = np.array([r[6] for r in self.rows], dtype=np.int32).reshape(n, 3)
        return {"time_ns": ints(0, np.int64), "superblock": ints(1), "lane": ints(2),
                "block_reads": np.array([r[3] for r in self.rows], dtype=np.int32).reshape(n, self.k),
                "pages_moved": ints(4), "routine": np.array([r[5] for r in self.rows], dtype=object),
                "erase_end_ns": np.asarray(erase_end, dtype=np.int64).reshape(n),
                "victim_user_pages": mix[:, 0], "victim_rr_pages": mix[:, 1], "victim_gc_pages": mix[:, 2],
                "rber_margin": np.array([r[7] for r in self.rows], dtype=np.float64)}
