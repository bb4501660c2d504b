"""The mechanisms a policy switches on, one registry line each.

A mechanism is a compiled module here (``<module>.pyx`` and ``.pxd``, a
subclass of :class:`flashrr._core.roles.Mechanism`) with its pure-Python twin
beside it (``<module>_py.py``).  A policy switches it on by returning a spec
from the hook named in its line (a ``PolicyHooks`` field, or an entry of
``PolicyHooks.mechanisms``); the engine builder (``flashrr/_core/assembly.py``)
makes it with ``Class(ctx, spec)`` and puts it in the slots of its roles.
The order of the lines is the order in which observers of one role are called.

A line's ``counters`` name the mechanism's own counters (ints, kept by the
mechanism and returned by its ``counter_values()`` in that order).  Every run's
summary has a column for each, in registry order, 0 when the mechanism is off;
a name on two lines (the read redirectors' ``redirected_*``) is one column, the
sum of the mechanisms that are on.
"""
from ..mechanism_entry import MechanismEntry

# the read redirectors' counts of the read requests and pages they served
REDIRECTED = ("redirected_reads", "redirected_pages")

MECHANISMS = (
    # peak modelled bytes, blocks the slot pool could not take, classification scans, and per class
    # (hottest, hotter, tepid) the pages identified and those truly hot (diagnostic)
    MechanismEntry("working_sets", "working_sets", "WorkingSets", ("read_observer", "erase_observer"),
                   erase_resets_only=True, counters=("ws_peak_bytes", "ws_pool_full", "ws_classify_scans", "ws_htt", "ws_htt_hot",
                             "ws_htr", "ws_htr_hot", "ws_tpd", "ws_tpd_hot")),
    MechanismEntry("early_moves", "early_moves", "EarlyMoves", ("read_observer", "request_observer",
                                                                 "erase_observer"), erase_resets_only=True),
    # replica programs, replicas dropped by a write, R-LRU entries evicted, peak replicas held,
    # staging-die busy time (ns), replicas dropped to make room in a full staging space, pages
    # a full staging space refused (staging_full="stop")
    MechanismEntry("replication", "hot_replicas", "HotReplicas", ("read_observer", "write_observer",
                                                                   "read_redirector"),
                   counters=REDIRECTED + ("replica_writes", "replica_invalidations", "rlru_evictions",
                                          "staging_occupancy_max", "busy_staging_ns", "replica_drops",
                                          "replica_refusals")),
    # pages rebuilt from their stripe, the reads that cost, reads of old data/parity for
    # partial-stripe writes, parity programs, reads served by the Rails write buffer, programs
    # of the Rails mirror half
    MechanismEntry("redundancy", "redundancy", "Redundancy", ("read_redirector", "write_path", "user_placer"),
                   placer="static_placement",
                   counters=REDIRECTED + ("reconstructed_pages", "reconstruction_reads", "parity_reads",
                                          "parity_programs", "rails_buffer_hits", "mirror_programs")),
    # pool blocks pushed (user, RR), exchanges, cap increments and resets, pages placed (user
    # pages in the pool; internal pages in the pool, in the WFR block, aggregated) and pool pages
    # left unwritten; "rr" pages are internal pages: RR, and GC when it takes the pool path
    MechanismEntry("write_pool", "write_pool", "WritePool", ("user_placer", "migration_placer"),
                   counters=("pool_pushes_user", "pool_pushes_rr", "pool_exchanges", "pool_cap_increments",
                             "pool_cap_resets", "user_pages_to_pool", "rr_pages_to_pool", "rr_pages_to_wfr",
                             "rr_pages_aggregated", "pool_pages_wasted")),
    # blocks opened and pages written in streams >= 1, pages sent to stream 0 because their
    # stream was at its live-block cap
    MechanismEntry("rr_streams", "streams", "Streams", ("user_placer", "migration_placer", "erase_observer"),
                   counters=("stream_blocks", "stream_pages", "stream_fallback_pages")),
)


def counter_names(hook: str) -> tuple:
    """The counter names of the registry line ``hook`` (the Python twins key their counts by them)."""
    return next(e.counters for e in MECHANISMS if e.hook == hook)
