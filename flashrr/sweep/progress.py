"""The sweep's progress bar (tqdm on stderr): runs done out of the total, failed
and remaining runs, and the estimated time left (from this session's rate)."""
from __future__ import annotations

import sys


class Progress:
    """Counts finished runs; ``done_before`` runs were already stored when the sweep began; ``desc``
    labels the bar."""

    def __init__(self, total: int, done_before: int, enabled: bool = True, desc: str = "sweep"):
        self.total = total
        self.done = done_before
        self.failed = 0
        self._bar = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, initial=done_before, unit="run", desc=desc, file=sys.stderr,
                             dynamic_ncols=True, smoothing=0.1)
            self._postfix()

    @property
    def remaining(self) -> int:
        return self.total - self.done - self.failed

    def _postfix(self, refresh: bool = True) -> None:
        self._bar.set_postfix_str(f"failed={self.failed} left={self.remaining}", refresh=refresh)

    def update(self, ok: bool) -> None:
        if ok:
            self.done += 1
        else:
            self.failed += 1
        if self._bar is not None:
            self._postfix(refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
