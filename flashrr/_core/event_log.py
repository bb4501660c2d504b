"""The compiled engine's record of its RR or GC migrations, column by column.

A run with millions of migrations (PhasedRR's write-heavy LUN traces at paper scale: 9.3M
GCs) kept each as a Python tuple holding a NumPy copy of the victim's read counts, about
880 bytes an event at the peak.  Here an event takes 8-byte integers, ``k`` 4-byte read
counts, a reference to its routine label and an 8-byte margin: about 80 bytes for
superblocks of 4 blocks.  :meth:`EventLog.rows` gives the reference engine's form, one
tuple per event; :meth:`EventLog.table` a copy of the columns that
:class:`flashrr.result.Result` turns into its event table without building those tuples.
"""
from __future__ import annotations

import math
from array import array

import numpy as np

_FIELDS = 7  # time_ns, superblock, lane, pages moved, victim user / RR / GC pages


class EventLog:
    """Migrations of one kind (RR or GC) in the order they were decided."""

    def __init__(self, k: int):
        self.k = int(k)
        self._ints = array("q")
        self._reads = array("i")  # k per event: the victim's block read counts at the trigger
        self._routines: list = []
        self._margins = array("d")  # NaN: no margin (the error model off, or a GC)

    def __len__(self) -> int:
        return len(self._routines)

    def append(self, t: int, victim: int, lane: int, reads, n: int, routine, mu: int, mr: int, mg: int,
               margin) -> None:
        """One migration: decided at ``t`` (ns) on superblock ``victim`` of ``lane``, its
        blocks' read counts ``reads`` (k int32), ``n`` pages moved, the ``routine`` label,
        the pages programmed into the victim by host writes, RR and GC since its erase
        (``mu``, ``mr``, ``mg``) and its RBER margin (None when there is none)."""
        self._ints.extend((t, victim, lane, n, mu, mr, mg))
        self._reads.frombytes(np.ascontiguousarray(reads, dtype=np.int32).tobytes())
        self._routines.append(routine)
        self._margins.append(math.nan if margin is None else float(margin))

    def clear(self) -> None:
        del self._ints[:], self._reads[:], self._routines[:], self._margins[:]

    def rows(self, erase_ends) -> list:
        """``(time_ns, superblock, lane, block_reads, pages_moved, routine, erase_end_ns,
        victim_user_pages, victim_rr_pages, victim_gc_pages, rber_margin)`` per event, with
        ``erase_ends`` (ns, one per event) and None for a missing margin."""
        # a copy: a view would pin the array's buffer, and the run may go on after this call
        reads = np.frombuffer(self._reads, dtype=np.int32).reshape(-1, self.k).copy() if len(self) else ()
        ints = self._ints
        out = []
        for i, e in zip(range(len(self)), erase_ends):
            j = _FIELDS * i
            m = self._margins[i]
            out.append((ints[j], ints[j + 1], ints[j + 2], reads[i], ints[j + 3], self._routines[i], e,
                        ints[j + 4], ints[j + 5], ints[j + 6], None if math.isnan(m) else m))
        return out

    def table(self, erase_ends) -> "EventTable":
        """The events so far with ``erase_ends`` (ns, one per event), copied: the run may go on."""
        return EventTable(self, erase_ends)


class EventTable:
    """A copy of an :class:`EventLog` with its events' erase ends, column by column."""

    def __init__(self, log: EventLog, erase_ends):
        n = len(log)
        self.n = n
        self.ints = np.frombuffer(log._ints, dtype=np.int64).reshape(n, _FIELDS).copy() if n else None
        self.reads = np.frombuffer(log._reads, dtype=np.int32).reshape(n, log.k).copy() if n else None
        self.routines = list(log._routines)
        self.margins = np.frombuffer(log._margins, dtype=np.float64).copy() if n else None
        self.erase_ends = np.asarray(list(erase_ends)[:n], dtype=np.int64)

    def __len__(self) -> int:
        return self.n

    def columns(self) -> dict:
        """``{column: values}`` in :data:`flashrr.result.EVENT_COLUMNS` order, with the dtypes
        a frame built from the rows infers (int64, tuples of ints, str, float64)."""
        i = self.ints
        return {"time_ns": i[:, 0], "superblock": i[:, 1], "lane": i[:, 2],
                "block_reads": [tuple(r) for r in self.reads.tolist()], "pages_moved": i[:, 3],
                "routine": self.routines, "erase_end_ns": self.erase_ends, "victim_user_pages": i[:, 4],
                "victim_rr_pages": i[:, 5], "victim_gc_pages": i[:, 6], "rber_margin": self.margins}
