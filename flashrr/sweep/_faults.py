"""Fault-injection policies for testing sweeps (not registered by default).

A spec loads them with ``imports = ["flashrr.sweep._faults"]``.  Each behaves
exactly like ``baseline`` unless its fault fires; the fault fires in
:meth:`bind`, i.e. inside the worker, just before the simulation starts.

* ``fault-exit`` (``marker``: path, ``once``: bool = True): if the file
  ``marker`` exists, the worker process dies at once (``os._exit(70)``).  With
  ``once``, the policy deletes the marker first, so exactly one run dies
  however many processes race for it.
* ``fault-raise`` (``marker``: path): raises RuntimeError while ``marker`` exists.
* ``fault-slow`` (``delay_s``: seconds, ``log``: path or "", ``hold``: path or ""):
  appends one JSON line ``{"seed", "device", "pid", "delay_s", "hold"}`` to
  ``log`` (if given), sleeps ``delay_s``, then waits while the file ``hold``
  exists (at most :data:`HOLD_MAX_S`; then it raises).
"""
from __future__ import annotations

import json
import os
import time

from ..policy import Baseline, register_policy

EXIT_CODE = 70
HOLD_MAX_S = 120.0  # longest a fault-slow run waits for its hold file to go (s)
HOLD_POLL_S = 0.02


@register_policy
class FaultExit(Baseline):
    name = "fault-exit"

    def __init__(self, marker: str, once: bool = True):
        super().__init__()
        self.marker, self.once = str(marker), bool(once)

    def params(self) -> dict:
        return {"marker": self.marker, "once": self.once}

    def bind(self, config, seed: int) -> None:
        if self.once:
            try:
                os.unlink(self.marker)
            except FileNotFoundError:
                return
            os._exit(EXIT_CODE)
        if os.path.exists(self.marker):
            os._exit(EXIT_CODE)


@register_policy
class FaultRaise(Baseline):
    name = "fault-raise"

    def __init__(self, marker: str):
        super().__init__()
        self.marker = str(marker)

    def params(self) -> dict:
        return {"marker": self.marker}

    def bind(self, config, seed: int) -> None:
        if os.path.exists(self.marker):
            raise RuntimeError(f"fault-raise: injected failure (marker {self.marker} exists)")


@register_policy
class FaultSlow(Baseline):
    name = "fault-slow"

    def __init__(self, delay_s: float = 0.2, log: str = "", hold: str = ""):
        super().__init__()
        if not isinstance(delay_s, (int, float)) or isinstance(delay_s, bool) or delay_s < 0:
            raise ValueError(f"fault-slow: delay_s must be a non-negative number of seconds, got {delay_s!r}")
        self.delay_s, self.log, self.hold = float(delay_s), str(log), str(hold)

    def params(self) -> dict:
        return {"delay_s": self.delay_s, "log": self.log, "hold": self.hold}

    def bind(self, config, seed: int) -> None:
        if self.log:
            line = json.dumps({"seed": int(seed), "device": config.name, "pid": os.getpid(),
                               "delay_s": self.delay_s, "hold": self.hold}) + "\n"
            with open(self.log, "a") as f:
                f.write(line)
        time.sleep(self.delay_s)
        deadline = time.monotonic() + HOLD_MAX_S
        while self.hold and os.path.exists(self.hold):
            if time.monotonic() > deadline:
                raise RuntimeError(f"fault-slow: hold file {self.hold} still exists after {HOLD_MAX_S} s")
            time.sleep(HOLD_POLL_S)
