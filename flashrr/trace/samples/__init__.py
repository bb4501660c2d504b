"""Real trace samples shipped with flashrr, for the reproductions' "real sample" groups.

A paper's traces are not public, but a real excerpt of the same family of
workload sometimes is.  Where one is long enough to replay at a paper row's
length (:data:`SAMPLES`), the reproduction of that paper runs it beside the
generated traces (``flashrr.reproduce``, group ``real``).

Only samples of at least :data:`MIN_REQUESTS` requests are shipped: the
1,000-request MSR Cambridge and SYSTOR'17 excerpts of ``tests/data`` would
have to play about 1,000 times back to back to reach a row's million
requests, and a thousand replays of one second of one volume are a loop of
1,000 requests, not that volume's workload.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

__all__ = ["Sample", "SAMPLES", "MIN_REQUESTS", "sample_path", "sample_spec"]

HERE = Path(__file__).resolve().parent
MIN_REQUESTS = 10_000


@dataclass(frozen=True)
class Sample:
    """A shipped sample: ``file`` (here), its request count, the workload ``family``
    it belongs to and where it comes from (``credit``, with its licence)."""

    name: str
    file: str
    requests: int
    family: str
    credit: str


SAMPLES = {s.name: s for s in (
    Sample("websearch", "wsrch-small.mqsim.txt.gz", 24_783, "web search",
           "traces/wsrch-small.trace of CMU-SAFARI/MQSim (MIT licence, Copyright (c) 2018 SAFARI Research "
           "Group at ETH Zurich), gzip-compressed, lines unchanged"),
)}


def sample_path(name: str) -> Path:
    """The file of sample ``name``; ValueError naming the samples for an unknown one."""
    if name not in SAMPLES:
        raise ValueError(f"unknown trace sample {name!r}; expected one of {', '.join(SAMPLES)}")
    return HERE / SAMPLES[name].file


def sample_spec(name: str, n_requests: int, pipeline: dict | None = None) -> str:
    """The trace spec of sample ``name`` standing in for a trace of ``n_requests`` requests.

    Shorter: the sample's first ``n_requests`` requests.  Longer: the whole
    sample played ``round(n_requests / requests)`` times back to back (at least
    once), so a row of a million requests gets about as many.  ``pipeline``
    keys are added; its ``repeat`` multiplies the sample's own replays."""
    path = sample_path(name)
    sample = SAMPLES[name]
    n = int(n_requests)
    if n < 1:
        raise ValueError(f"sample_spec: n_requests must be >= 1 (got {n_requests!r})")
    params = dict(pipeline or {})
    outer = int(params.pop("repeat", 1))
    if n < sample.requests:
        params["first"] = n
        times = 1
    else:
        times = max(1, math.floor(n / sample.requests + 0.5))
    if times * outer > 1:
        params["repeat"] = times * outer
    return f"{path}" + (f"?{urlencode(params)}" if params else "")
