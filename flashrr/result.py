"""The outcome of one simulation run."""
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ._core.assembly import registry_counter_names
from ._core.counters import COUNTERS
from ._core.layout import hist_bucket_bounds

if TYPE_CHECKING:
    import pandas as pd

# victim_*_pages: pages programmed into the victim since its erase, by kind (user, RR, GC)
# rber_margin: 1 - the worst page's expected errors / the ECC capability at an RR (error model on; else NaN)
EVENT_COLUMNS = ["time_ns", "superblock", "lane", "block_reads", "pages_moved", "routine", "erase_end_ns",
                 "victim_user_pages", "victim_rr_pages", "victim_gc_pages", "rber_margin"]


def hist_percentile(hist: np.ndarray, q: float) -> int:
    """Nearest-rank ``q``-quantile (0 < q <= 1) of a latency histogram, in ns:
    the midpoint of the bucket holding the ceil(q * n)-th smallest latency."""
    n = int(hist.sum())
    if n == 0:
        return 0
    rank = max(1, int(np.ceil(q * n - 1e-9)))
    b = int(np.searchsorted(np.cumsum(hist), rank))
    lo, hi = hist_bucket_bounds(np.array([b]))
    return (int(lo[0]) + int(hi[0]) - 1) // 2  # Python ints: the top buckets' bounds near 2**63 would overflow


class Result:
    """Metrics of one run: ``summary`` (a dict), event tables and latency histograms."""

    def __init__(self, summary: dict, hist: dict, rr_events: dict, gc_events: dict, k: int,
                 block_erases: np.ndarray | None = None, retry_steps: np.ndarray | None = None):
        self.summary = summary
        self.hist = hist
        #: With the error model on (``error_model.enabled``): user page reads from flash by the
        #: retry steps they took, ``retry_steps[s]`` for ``s`` = 0 .. the ladder's last step (an
        #: uncorrectable read counts in the last).  None when the model is off.
        self.retry_steps = retry_steps
        #: Erases of each block (``n_blocks``, block ``sb * k + c``) since the device was new,
        #: preconditioning included: its P/E cycles.  None for a Result built without them.
        self.block_erases = block_erases
        self._rr = rr_events  # the engine's event columns (EventLog.columns), tables built on demand
        self._gc = gc_events
        self.k = k

    def to_frame(self) -> pd.DataFrame:
        """The summary as a one-row DataFrame."""
        import pandas as pd

        return pd.DataFrame([self.summary])

    @staticmethod
    def _events(cols: dict) -> pd.DataFrame:
        """The event table of the engine's columns (``EVENT_COLUMNS``; ``block_reads`` a
        ``(events, k)`` array, shown as one tuple of ints per row; integers as int64)."""
        import pandas as pd

        data = {c: cols[c].astype(np.int64) if cols[c].dtype.kind == "i" else cols[c] for c in EVENT_COLUMNS}
        data["block_reads"] = pd.Series([tuple(r) for r in cols["block_reads"].tolist()], dtype=object)
        df = pd.DataFrame(data, columns=EVENT_COLUMNS)
        df["round"] = df.groupby("superblock").cumcount() if len(df) else pd.Series(dtype=np.int64)
        df["trigger_to_erase_ns"] = df["erase_end_ns"] - df["time_ns"]
        return df

    @cached_property
    def rr_events(self) -> pd.DataFrame:
        """One row per read reclaim: time_ns (when it was decided), superblock, lane,
        block_reads (tuple of the k component blocks' read counts at the trigger),
        pages_moved, routine, erase_end_ns (when its last erase ends), rber_margin (error model on:
        1 - the expected raw errors per codeword of the victim's worst page over the ECC
        capability, at the blocks' state when the RR was decided; negative past it; else NaN),
        victim_user_pages / victim_rr_pages / victim_gc_pages (pages programmed into the
        victim since its erase by host writes, read reclaim and GC, valid or not),
        round (how many earlier RRs that superblock id had) and trigger_to_erase_ns."""
        return self._events(self._rr)

    @cached_property
    def gc_events(self) -> pd.DataFrame:
        """One row per GC migration, same columns as :attr:`rr_events`."""
        return self._events(self._gc)

    def latency_cdf(self, kind: str = "io") -> pd.DataFrame:
        """Empirical CDF of request latency: columns ``latency_ns`` (bucket upper
        bound) and ``cdf``.  ``kind`` is ``read``, ``write`` or ``io``."""
        if kind not in self.hist:
            raise ValueError(f"latency_cdf: kind must be one of {sorted(self.hist)}, got {kind!r}")
        import pandas as pd

        h = self.hist[kind]
        nz = np.flatnonzero(h)
        if nz.size == 0:
            return pd.DataFrame({"latency_ns": np.array([], dtype=np.int64), "cdf": np.array([], dtype=float)})
        _, hi = hist_bucket_bounds(nz)
        cdf = np.cumsum(h[nz]) / h.sum()
        return pd.DataFrame({"latency_ns": hi - 1, "cdf": cdf})

    def percentile(self, kind: str, q: float) -> int:
        return hist_percentile(self.hist[kind], q)

    def __repr__(self) -> str:
        s = self.summary
        return (f"Result(requests={s['requests']}, rr_count={s['rr_count']}, waf={s['waf']:.3f}, "
                f"read_latency_mean_ns={s['read_latency_mean_ns']:.0f})")


def build_summary(counters: dict, hist: dict, metadata_bytes: int, wall_s: float, extra: dict,
                  die_busy_ns=None, end_ns: int = 0, mechanism_counters: dict | None = None,
                  error_model: dict | None = None) -> dict:
    """The summary row.  ``counters``: the device counters (``COUNTERS``);
    ``mechanism_counters``: ``{name: value}`` of the switched-on mechanisms' own
    counters.  ``die_busy_ns`` (per die) and ``end_ns`` (when the last booked
    operation ends) give the dies' idle fractions.  ``error_model``: the engine's
    error-model results (None when the model is off)."""
    c = counters
    reads, writes = c["reads"], c["writes"]

    def ratio(a, b):
        return a / b if b else 0.0

    s = {
        "requests": c["requests"], "reads": reads, "writes": writes,
        "rr_count": c["rr_count"], "rr_page_moves": c["rr_page_moves"],
        "gc_count": c["gc_count"], "gc_page_moves": c["gc_page_moves"], "erase_count": c["erase_count"],
        "host_pages_written": c["host_pages_written"], "flash_pages_programmed": c["flash_pages_programmed"],
        "waf": ratio(c["flash_pages_programmed"], c["host_pages_written"]),
        # Cocktail's Fig. 14 "write amplification": pages moved per RR or GC migration (one erase at k = 1)
        "pages_moved_per_erase": ratio(c["rr_page_moves"] + c["gc_page_moves"], c["rr_count"] + c["gc_count"]),
        "read_latency_mean_ns": ratio(c["read_latency_sum_ns"], reads),
        "write_latency_mean_ns": ratio(c["write_latency_sum_ns"], writes),
        "io_latency_mean_ns": ratio(c["read_latency_sum_ns"] + c["write_latency_sum_ns"], reads + writes),
    }
    for kind in ("read", "write", "io"):
        for name, q in (("p95", 0.95), ("p99", 0.99), ("p999", 0.999), ("p9999", 0.9999)):
            s[f"{kind}_latency_{name}_ns"] = hist_percentile(hist[kind], q)
    s.update({
        "cache_read_hit_ratio": ratio(c["cache_read_hits"], c["read_pages"]),
        "cache_write_hit_ratio": ratio(c["cache_write_hits"], c["write_pages"]),
        "read_pages": c["read_pages"], "write_pages": c["write_pages"], "flash_read_pages": c["flash_read_pages"],
        "user_flash_transactions": c["user_flash_transactions"], "blocked_reads": c["blocked_reads"],
        "retry_time_ns": c["retry_time_ns"], "policy_metadata_bytes": int(metadata_bytes),
        # share of the user reads' flash read time (their transactions' t_read + retries) spent in retries
        "retry_time_share": ratio(c["retry_time_ns"], c["user_read_flash_ns"]),
    })
    # every device counter after the first 20 (which the columns above derive from) as it is, in
    # the engines' order (flashrr/_core/counters.py): scheduler, then RR accounting
    for name in COUNTERS[COUNTERS.index("busy_user_ns"):]:
        s[name] = c[name]
    # the registry mechanisms' own counters in registry order (flashrr/_core/mechanisms/__init__.py),
    # 0 when the mechanism is off, so that rows of different policies share these columns
    mc = mechanism_counters or {}
    for name in registry_counter_names():
        s[name] = mc.get(name, 0)
    # every page moved by RR logic (docs/phasedrr.md): idle-time, forced and mandatory (hard-threshold) moves
    s["rr_page_moves_all"] = c["idle_moves"] + c["rr_forced_moves"] + c["rr_page_moves"]
    idle = 1.0 - np.asarray(die_busy_ns, dtype=float) / end_ns if end_ns and die_busy_ns is not None else None
    s["die_idle_fraction_mean"] = float(idle.mean()) if idle is not None and idle.size else 1.0
    s["die_idle_fraction_min"] = float(idle.min()) if idle is not None and idle.size else 1.0
    # error model (0 when off): user page reads from flash whose errors stay past the last retry step
    s["uncorrectable_reads"] = int((error_model or {}).get("uncorrectable_reads", 0))
    s.update(extra)
    s["sim_wall_s"] = wall_s
    return s
