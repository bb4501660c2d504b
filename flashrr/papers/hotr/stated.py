"""The HotR paper's change claims as :class:`~flashrr.reproduce.claims.Claim`
records: :mod:`.claims` checks them and :mod:`.figures` draws their stated
values beside the bars."""
from __future__ import annotations

import numpy as np

from ...reproduce.claims import Claim

# a claim's metric names the table of :func:`.claims._table` it compares: "rt" response time,
# "rt_slc" response time on SLC, "clp" cost-latency product, "p99" 99th percentile I/O latency, "speedup" Fig. 9
CHANGES = [
    Claim("fig05", "response time, HotR vs Baseline", "rt", "HotR", "Baseline", -21.8, "lower", "mean"),
    Claim("fig05", "response time, HotR vs Baseline (up to)", "rt", "HotR", "Baseline", -54.0, "lower", "min"),
    Claim("fig05", "response time, Rails vs HotR (Rails better)", "rt", "Rails", "HotR", np.nan, "lower", "mean"),
    Claim("fig05", "response time, TTFlash vs Baseline (TTFlash harmful)", "rt", "TTFlash", "Baseline", np.nan,
          "higher", "mean"),
    Claim("fig07", "cost-latency product, HotR vs Baseline", "clp", "HotR", "Baseline", -13.9, "lower", "mean"),
    Claim("fig07", "cost-latency product, HotR vs Rails", "clp", "HotR", "Rails", -31.6, "lower", "mean"),
    Claim("fig07", "cost-latency product, HotR vs TTFlash", "clp", "HotR", "TTFlash", -65.7, "lower", "mean"),
    Claim("fig07", "cost-latency product, Rails vs Baseline (Rails not cost-effective)", "clp", "Rails", "Baseline",
          np.nan, "higher", "mean"),
    Claim("fig07", "cost-latency product, TTFlash vs Baseline (not cost-effective)", "clp", "TTFlash", "Baseline",
          np.nan, "higher", "mean"),
    Claim("fig08", "p99 I/O latency, HotR vs Baseline", "p99", "HotR", "Baseline", np.nan, "lower", "mean"),
    Claim("fig08", "p99 I/O latency, Rails vs HotR (Rails best)", "p99", "Rails", "HotR", np.nan, "lower", "mean"),
    Claim("fig08", "p99 I/O latency, TTFlash vs Baseline (TTFlash worst)", "p99", "TTFlash", "Baseline", np.nan,
          "higher", "mean"),
    Claim("fig09", "HotR speedup, QLC vs SLC (grows with density)", "speedup", "qlc", "slc", np.nan, "higher", "mean"),
    Claim("fig09", "HotR speedup, TLC vs MLC", "speedup", "tlc", "mlc", np.nan, "higher", "mean"),
    Claim("fig09", "HotR response time vs Baseline on SLC (still a gain)", "rt_slc", "HotR", "Baseline", np.nan,
          "lower", "mean"),
]
