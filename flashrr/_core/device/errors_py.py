"""Error-model state of the blocks (twin of ``errors.pyx``): P/E cycles, when each
block's data was first programmed, and the read counts looked up for them.

Per block: ``pe`` (cycles: the initial draw plus the erases of the run),
``born`` (ns: when its first page since its erase was programmed; for the
preconditioned data, minus ``error_model.data_age_s``), and the tables' read
counts of its current (P/E, retention bucket) (``layout.error_tables``, built by
``flashrr.reliability.engine_tables``; the buckets: ``retention.py``):
the RR threshold under the ``"rber"`` trigger, written into the reclaim layer's
``rr_threshold``, and the retry switch points under ``retry_model = "rber"``.
They are looked up again when the block is first programmed and when a read finds
its retention past its bucket (``next_t``), so a read costs a comparison, not a
model evaluation.  Counters: user page reads by retry steps, and uncorrectable
user page reads.
"""
from __future__ import annotations

import numpy as np

from ..device_state import copied, set_copied
from .retention import ret_bucket

UNSET = np.iinfo(np.int64).min   # born: no page programmed since the erase
NEVER_T = np.iinfo(np.int64).max
INT32_MAX = 2**31 - 1


class ErrorState:
    def __init__(self, layout, block_reads: np.ndarray, rr_threshold: np.ndarray):
        T = self.T = layout.error_tables
        n = layout.n_blocks
        self.block_reads, self.rr_threshold = block_reads, rr_threshold
        self.thr0 = layout.rr_threshold_reads
        self.trigger_on, self.retry_on = T.trigger_on, T.retry_on
        # retry steps: the ladder's, or the read_retry table's when the model does not set them
        self.S = T.n_steps if T.retry_on else len(layout.retry_steps_ppm)
        self.pe = T.initial_pe.astype(np.int32).copy()          # P/E cycles
        self.born = np.full(n, UNSET, np.int64)                # ns
        self.next_t = np.full(n, NEVER_T, np.int64)            # ns: look the tables up again from here
        self.mult = np.ones(n, np.int32)                       # a policy's threshold multiplier
        self.switch = np.full((n, self.S + 1), INT32_MAX, np.int32)   # reads: more than s steps from here
        self.steps_hist = np.zeros(self.S + 1, np.int64)       # user page reads by retry steps
        self.uncorrectable = 0                                 # user page reads past the last step
        self.offset_ns = 0
        self.pe_lo, self.pe_hi = T.initial_range()             # P/E counts the table covers
        self.tab = T.rows(self.pe_lo, self.pe_hi)              # [P/E - pe_lo, bucket, trigger + switch]

    def state(self) -> dict:
        """P/E counts, first-program times, looked-up read counts and the table rows, for a snapshot."""
        out = copied(self, ("pe", "born", "next_t", "mult", "switch", "tab"))
        out["pe_hi"] = self.pe_hi
        return out

    def restore(self, state: dict) -> None:
        """Set the state :meth:`state` returned (same layout and tables)."""
        set_copied(self, state, ("pe", "born", "next_t", "mult", "switch"), "error_model")
        tab = state.get("tab")
        if tab is None or tab.dtype != self.tab.dtype or tab.ndim != 3 or tab.shape[1:] != self.tab.shape[1:]:
            raise ValueError("error_model.tab: missing or not whole table rows")
        if int(state["pe_hi"]) - self.pe_lo != tab.shape[0]:
            raise ValueError("error_model.pe_hi: does not match the table rows")
        self.tab = tab.copy()
        self.pe_hi = int(state["pe_hi"])

    def set_untimed(self, on: bool) -> None:
        """Preconditioning: the data written now is ``data_age_s`` old when the trace starts."""
        self.offset_ns = self.T.age_ns if on else 0

    def reset_counters(self) -> None:
        self.steps_hist[:] = 0
        self.uncorrectable = 0

    def programmed(self, blk: int, t: int) -> None:
        """A page of ``blk`` is programmed at ``t`` (ns)."""
        if self.born[blk] != UNSET:
            return
        self.born[blk] = t - self.offset_ns
        if self.trigger_on:
            self.mult[blk] = max(1, int(self.rr_threshold[blk]) // self.thr0)
        self.refresh(blk, t)

    def erased(self, blk: int) -> None:
        self.pe[blk] += 1
        self.born[blk] = UNSET
        self.next_t[blk] = NEVER_T

    def touch(self, blk: int, t: int) -> None:
        """Look ``blk``'s read counts up again if its retention left its bucket by ``t``."""
        if t >= self.next_t[blk]:
            self.refresh(blk, t)

    def refresh(self, blk: int, t: int) -> None:
        T = self.T
        q = max(0, t - int(self.born[blk])) // T.quantum_ns
        j = ret_bucket(q)
        pe = int(self.pe[blk])
        if pe >= self.pe_hi:  # an erase took the block past the table: extend it
            hi = T.grown(self.pe_lo, self.pe_hi, pe)
            self.tab = np.concatenate([self.tab, T.rows(self.pe_hi, hi)])
            self.pe_hi = hi
        row = self.tab[pe - self.pe_lo]
        if self.trigger_on:
            self.rr_threshold[blk] = min(INT32_MAX, int(row[j, 0]) * int(self.mult[blk]))
        if self.retry_on:
            self.switch[blk] = row[j, 1:]
        up = int(T.upper_ns[j])
        self.next_t[blk] = NEVER_T if up > NEVER_T - max(int(self.born[blk]), 0) else int(self.born[blk]) + up

    def steps(self, blk: int) -> int:
        """Retry steps a read of ``blk`` needs at its read count (``S + 1``: uncorrectable)."""
        r, sw = int(self.block_reads[blk]), self.switch[blk]
        c = 0
        while c <= self.S and r >= sw[c]:  # the points do not decrease: stop at the first not reached
            c += 1
        return c

    def count(self, c: int) -> None:
        """Count a user page read that needed ``c`` steps (``S + 1``: uncorrectable)."""
        if c > self.S:
            self.uncorrectable += 1
            c = self.S
        self.steps_hist[c] += 1

    def margin(self, blocks, t: int, reads) -> float:
        """RBER margin of the blocks holding data among ``blocks`` at ``t``, reads ``reads``."""
        blocks = np.asarray(blocks)
        reads = np.asarray(reads)
        has = self.born[blocks] != UNSET
        return self.T.margin(self.pe[blocks][has], t - self.born[blocks][has], reads[has])

    def array(self, name: str) -> np.ndarray:
        """One of the per-block arrays (``pe``, ``born``, ``mult``), for tests."""
        return getattr(self, name)

    def results(self) -> dict:
        return {"retry_steps": self.steps_hist.copy(), "uncorrectable_reads": int(self.uncorrectable)}
