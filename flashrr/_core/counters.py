"""The order of both engines' counters (common.pxd mirrors it as C_* indices)."""

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
    # working sets (PhasedRR): peak modelled bytes, blocks the slot pool could not take, classification scans,
    # and per class (hottest, hotter, tepid) the pages identified and those truly hot (diagnostic)
    "ws_peak_bytes", "ws_pool_full", "ws_classify_scans",
    "ws_htt", "ws_htt_hot", "ws_htr", "ws_htr_hot", "ws_tpd", "ws_tpd_hot",
    # HotR, hot_replicas.pyx: read requests / pages served by a replica, replica programs, replicas
    # dropped by a write, R-LRU entries evicted, peak replicas held, staging-die busy time
    "redirected_reads", "redirected_pages", "replica_writes", "replica_invalidations", "rlru_evictions",
    "staging_occupancy_max", "busy_staging_ns",
    # Rails and TTFlash, redundancy.pyx: pages rebuilt from their stripe, the reads that cost, reads
    # of old data/parity for partial-stripe writes, parity programs, reads served by the Rails write buffer,
    # programs of the Rails mirror half
    "reconstructed_pages", "reconstruction_reads", "parity_reads", "parity_programs", "rails_buffer_hits",
    "mirror_programs",
    # Cocktail: the write pool (write_pool.pyx; "rr" pages = internal pages: RR, and GC when it takes
    # the pool path) and the page composition of RR victims (BlockMix, all schemes)
    "pool_pushes_user", "pool_pushes_rr", "pool_exchanges", "pool_cap_increments", "pool_cap_resets",
    "user_pages_to_pool", "rr_pages_to_pool", "rr_pages_to_wfr", "rr_pages_aggregated", "pool_pages_wasted",
    "rr_second_time", "rr_victim_user_pages", "rr_victim_rr_pages", "rr_victim_gc_pages",
    # RR destination streams (streams.pyx: redFTL, IPR): blocks opened and pages written in streams >= 1,
    # pages sent to stream 0 because their stream was at its live-block cap
    "stream_blocks", "stream_pages", "stream_fallback_pages",
    # gc.free_pool = "erased": victims started when an erase left their lane below the GC threshold
    "gc_at_erase",
)
