"""The device's counters, in both engines' order (common.pxd mirrors it as C_* indices).

These are the counts of the device layers and the engine, kept for every
scheme.  A mechanism of ``flashrr/_core/mechanisms`` keeps its own counters and
names them on its registry line (``MechanismEntry(..., counters=...)``); the
run's summary has both (``flashrr/result.py``)."""

COUNTERS = (
    "requests", "reads", "writes", "read_pages", "write_pages", "cache_read_hits", "cache_write_hits",
    "flash_read_pages", "rr_count", "rr_page_moves", "gc_count", "gc_page_moves", "erase_count",
    "host_pages_written", "flash_pages_programmed", "user_flash_transactions", "blocked_reads",
    "retry_time_ns", "read_latency_sum_ns", "write_latency_sum_ns",
    # scheduler (docs/model.md section 5): flash busy time by cause, user waits, leftovers
    "busy_user_ns", "busy_flush_ns", "busy_gc_ns", "busy_rr_ns", "busy_move_ns",
    "user_wait_behind_bg_ns", "write_stall_ns", "bg_pending_at_end", "idle_moves", "idle_moves_dropped",
    # read reclaim as PhasedRR counts it: blocks with >= 1 page moved by RR logic, forced moves, erases by cause
    "rr_episodes", "rr_forced_moves", "erases_rr", "erases_gc",
    # Cocktail's RR accounting (the reclaim layer, all schemes): RR victims read-reclaimed before,
    # and the RR victims' pages by what programmed them
    "rr_second_time", "rr_victim_user_pages", "rr_victim_rr_pages", "rr_victim_gc_pages",
    # gc.free_pool = "erased": victims started when an erase left their lane below the GC threshold
    "gc_at_erase",
    # flash time of the user reads' transactions, t_read and retries (ns): retry_time_ns is its retry part
    "user_read_flash_ns",
)
