"""Paired mutation check: break one rule in both engines at once, rebuild, run the
tests that pin the rule, and report which of them fail.

The rules are those of docs/model.md, the error model in the engine
(docs/reliability.md), the patrol scan and combined schemes (docs/policies.md) and
the workload model's generator (docs/traces.md).  The compiled engine and its
pure-Python twin (and the compiled model generator and its twin) are held equal by
the equivalence tests, so a rule broken the same way in both can only be caught by a
test that knows the rule's result independently (a hand count).  Each mutation below
is such a paired break: exact text replacements in both twins (``*.pyx``/``*.pxd``
and ``*_py.py`` under ``flashrr/_core``; ``_kernel.pyx`` and ``reference.py`` under
``flashrr/trace/model``), or in code both share (``layout.py``, ``config.py``,
``assembly.py``, ``policy_combine.py``, ``reliability/engine_tables.py``), and the
tests that should catch it.

Run from anywhere, on a checkout whose engine sources are unmodified (the script
refuses otherwise, so it never takes a mutated file for the original)::

    python tests/mutation_check.py              # every mutation
    python tests/mutation_check.py 3 7          # some, by key
    python tests/mutation_check.py --list       # keys and rules
    python tests/mutation_check.py --also tests/test_engine_validation.py  # run more tests too

Tests marked slow are deselected (``-m "not slow"``).  Each old text must occur
exactly once in its file: when the code moves, the script stops and names the
mutation to update, rather than run the tests on an unmutated engine.  Before any
mutation the named tests run once on the unmodified engine and must pass.  The
sources are restored after each mutation and on any exit (Ctrl-C and SIGTERM
included), then the engine is rebuilt once at the end.  If the process is killed
outright, ``git checkout -- flashrr`` and a rebuild restore the tree.
The exit status is 0 only if every mutation was caught by one of its named tests.
Results are recorded in tests/mutations.md.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = "flashrr/_core/"


@dataclass(frozen=True)
class Edit:
    path: str  # relative to the repository root
    old: str
    new: str


@dataclass(frozen=True)
class Mutation:
    key: str
    rule: str  # the rule that the edits break
    edits: tuple
    tests: tuple  # pytest node ids (a function id runs all of its parameters)


RULES = "tests/test_model_rules.py::"
SCHED = "tests/test_engine_scheduler.py::"
PHASED = "tests/test_policies_phasedrr.py::"
ERRORS = "tests/test_error_model_engine.py::"
COMBINED = "tests/test_combined_schemes.py::"
GENERATE = "tests/test_trace_model_generate.py::"
LOCALITY = "tests/test_trace_model_locality.py::"
ALIGNED = "tests/test_aligned_moves.py::"
HOTR = "tests/test_policies_hotr.py::"
MODEL = "flashrr/trace/model/"

MUTATIONS = (
    Mutation(
        "1", "a multi-page read adds 1 to its block's read count once per request, not once per page",
        (Edit(CORE + "engine_py.py",
              "            for ppn in ppns:\n"
              "                blk = ppn // L.pages_per_block\n"
              "                rc.block_reads[blk] += 1\n",
              "            for i_, ppn in enumerate(ppns):\n"
              "                blk = ppn // L.pages_per_block\n"
              "                rc.block_reads[blk] += 0 if any(q // L.pages_per_block == blk for q in ppns[:i_]) else 1\n"),
         Edit(CORE + "engine.pyx",
              "                reads[blk] += 1\n",
              "                seen = False\n"
              "                for s in range(i):\n"
              "                    if div_pow2(self.buf_ppn[s], self.N_shift, self.N) == blk:\n"
              "                        seen = True\n"
              "                if not seen:\n"
              "                    reads[blk] += 1\n")),
        (RULES + "test_a_multi_page_read_counts_once_per_page_on_its_block",
         RULES + "test_a_superpage_read_counts_one_on_each_component_block")),
    Mutation(
        "2", "RR fires on the sum of a superblock's block read counts",
        (Edit(CORE + "engine_py.py",
              "if L.rr_enabled and rc.block_reads[blk] >= rc.rr_threshold[blk]:",
              "if L.rr_enabled and rc.block_reads[blk // L.k * L.k:(blk // L.k + 1) * L.k].sum() >= "
              "rc.rr_threshold[blk]:"),
         Edit(CORE + "device/reclaim_py.py",
              "self.block_reads[blocks] >= self.rr_threshold[blocks])",
              "self.block_reads[blocks].sum() >= self.rr_threshold[blocks])"),
         Edit(CORE + "engine.pyx",
              "                if self.rr_enabled and reads[blk] >= self.rc.rr_threshold[blk]:\n",
              "                ppn = 0\n"
              "                for s in range(self.k):\n"
              "                    ppn += reads[div_pow2(blk, self.k_shift, self.k) * self.k + s]\n"
              "                if self.rr_enabled and ppn >= self.rc.rr_threshold[blk]:\n"),
         Edit(CORE + "device/reclaim.pyx",
              "        for c in range(k):\n"
              "            if self.block_reads[sb * k + c] >= self.rr_threshold[sb * k + c]:\n",
              "        cdef int64_t total = 0\n"
              "        for c in range(k):\n"
              "            total += self.block_reads[sb * k + c]\n"
              "        for c in range(k):\n"
              "            if total >= self.rr_threshold[sb * k + c]:\n")),
        (RULES + "test_rr_triggers_on_one_blocks_count_not_the_superblocks_sum",
         "tests/test_engine_validation.py::test_superblock_rr_counted_by_hand")),
    Mutation(
        "3", 'under "user-first" a lane below gc_hard_threshold_ratio no longer books its queued work at once',
        (Edit(CORE + "device/reclaim_py.py",
              "if L.scheduler == SCHED_USER_FIRST and self.ftl.pool_size(lane) >= L.gc_hard_threshold_sb:",
              "if L.scheduler == SCHED_USER_FIRST:"),
         Edit(CORE + "device/reclaim.pyx",
              "urgent = self.sched_mode != SCHED_USER_FIRST or self.ftl.pool_size(lane) < self.gc_hard",
              "urgent = self.sched_mode != SCHED_USER_FIRST")),
        (SCHED + "test_user_first_books_an_urgent_lanes_work_at_once",)),
    Mutation(
        "4", "user and flush programs skip the channel transfer",
        (Edit(CORE + "engine_py.py",
              "self.sched.user_op(die, chan, PH_PROG, n, t, self.L.t_program_ns + extra, cause)",
              "self.sched.user_op(die, chan, PH_PROG, 0, t, self.L.t_program_ns + extra, cause)"),
         Edit(CORE + "engine.pyx",
              "e = self.sched.user_op(self.tx_die[i], self.tx_chan[i], PH_PROG, self.tx_n[i], t,",
              "e = self.sched.user_op(self.tx_die[i], self.tx_chan[i], PH_PROG, 0, t,")),
        (RULES + "test_a_program_moves_its_data_over_the_channel_then_programs",
         RULES + "test_a_flush_moves_its_data_over_the_channel_then_programs")),
    Mutation(
        "5", "read misses enter the cache dirty, so clean evictions are written back",
        (Edit(CORE + "engine_py.py",
              "self.cache.insert(lpn, False, evicted)",
              "self.cache.insert(lpn, True, evicted)"),
         Edit(CORE + "engine.pyx",
              "n_ev = self.cache.insert(self.buf_lpn[i], 0, self.buf_evict, n_ev)",
              "n_ev = self.cache.insert(self.buf_lpn[i], 1, self.buf_evict, n_ev)")),
        (RULES + "test_read_misses_enter_the_cache_clean",)),
    Mutation(
        "6", "the GC threshold compared with <=: a lane at the threshold owes victims",
        (Edit(CORE + "device/ftl_py.py",
              "return self.pool_size(lane) < self.L.gc_threshold_sb",
              "return self.pool_size(lane) <= self.L.gc_threshold_sb"),
         Edit(CORE + "device/ftl.pxd",
              "return self.pool_size(lane) < self.gc_thr",
              "return self.pool_size(lane) <= self.gc_thr")),
        ("tests/test_gc_erased_pool.py::test_decided_pool_starts_one_victim_per_allocation_below_the_threshold",
         RULES + "test_gc_owes_a_victim_only_for_an_allocation_below_the_threshold")),
    Mutation(
        "7", "GC and RR reads pay no read retry, whatever the victim's read count",
        (Edit(CORE + "device/reclaim_py.py",
              "extra = max(extra, self.retries(victim * k + comps[q]))",
              "extra = max(extra, 0)"),
         Edit(CORE + "device/reclaim.pyx",
              "cretry[c] = self.retries(<int64_t>victim * k + c)",
              "cretry[c] = 0")),
        (RULES + "test_migration_reads_pay_the_victims_read_retry",)),
    Mutation(
        "8a", "PhasedRR's idle moves go to component 0, not the page's own component",
        (Edit(CORE + "mechanisms/working_sets_py.py",
              "self.sched.push_idle(die, lpn, ppn, blk % k, t)",
              "self.sched.push_idle(die, lpn, ppn, 0, t)"),
         Edit(CORE + "mechanisms/working_sets.pyx",
              "<int32_t>(blk - sbq * self.k), t)",
              "0, t)")),
        (PHASED + "test_an_idle_move_keeps_the_pages_component_at_k2",)),
    Mutation(
        "8b", "PhasedRR's forced moves go to component 0, not the page's own component",
        (Edit(CORE + "mechanisms/working_sets_py.py",
              "src, (src // L.pages_per_block) % L.k, done, CAUSE_RR)",
              "src, 0, done, CAUSE_RR)"),
         Edit(CORE + "mechanisms/working_sets.pyx",
              "src, (src // self.N) % self.k, done, CAUSE_RR)",
              "src, 0, done, CAUSE_RR)")),
        (PHASED + "test_a_forced_move_keeps_the_pages_component_at_k2",)),
    # rules pinned by the tests the rule-to-test map showed missing (tests/README.md)
    Mutation(
        "9", "GC collects the best victim even when it is fully valid",
        (Edit(CORE + "device/reclaim_py.py",
              "            if victim < 0 or ftl.sb_valid[victim] >= full:\n"
              "                break  # nothing to gain",
              "            if victim < 0:\n"
              "                break  # nothing to gain"),
         Edit(CORE + "device/reclaim.pyx",
              "            if victim < 0 or self.ftl.sb_valid[victim] >= full:\n"
              "                break\n",
              "            if victim < 0:\n"
              "                break\n")),
        (RULES + "test_gc_stops_when_the_best_victim_is_fully_valid",
         SCHED + "test_user_first_books_an_urgent_lanes_work_at_once")),
    Mutation(
        "10", "an erased superblock joins the front of its lane's free list, not the back",
        (Edit(CORE + "device/reclaim_py.py",
              "ftl.free[lane].append(victim)",
              "ftl.free[lane].insert(0, victim)"),
         Edit(CORE + "device/ftl.pyx",
              "        self.free_ring[lane * self.S + (self.free_head[lane] + self.free_cnt[lane]) % self.S] = sb\n",
              "        self.free_head[lane] = (self.free_head[lane] + self.S - 1) % self.S\n"
              "        self.free_ring[lane * self.S + self.free_head[lane]] = sb\n")),
        (RULES + "test_free_superblocks_are_a_fifo_and_an_erased_one_joins_the_back",)),
    Mutation(
        "11", "an RR or GC victim that is still an open frontier stays one",
        (Edit(CORE + "device/reclaim_py.py",
              "        ftl.detach_frontier(victim)\n",
              ""),
         Edit(CORE + "device/reclaim.pyx",
              "        self.ftl.detach_frontier(victim)\n",
              "")),
        (RULES + "test_an_rr_victim_that_is_an_open_frontier_stops_being_one",)),
    Mutation(
        "12", "a free superblock is reused before the erase queued for it is booked",
        (Edit(CORE + "device/ftl_py.py",
              "if job is not None:  # no superblock is reused before its erase is booked",
              "if False:"),
         Edit(CORE + "device/ftl.pyx",
              "if job >= 0:  # no superblock is reused before its erase is booked",
              "if False:")),
        (RULES + "test_no_superblock_is_reused_before_its_erase_is_booked",)),
    Mutation(
        "13", "RL-RR's and Reallocation's early moves go to component 0, not the page's own component",
        (Edit(CORE + "mechanisms/early_moves_py.py",
              "self.sched.push_idle(die, int(self.ftl.p2l[ppn]), ppn, blk % k, t)",
              "self.sched.push_idle(die, int(self.ftl.p2l[ppn]), ppn, 0, t)"),
         Edit(CORE + "mechanisms/early_moves.pyx",
              "<int32_t>ppn, <int32_t>(blk - sbq * self.k), t)",
              "<int32_t>ppn, 0, t)")),
        ("tests/test_policies_counter_rr.py::test_an_early_move_keeps_the_pages_component_at_k2",)),
    Mutation(
        "14", "a write hit leaves a clean cached page clean",
        (Edit(CORE + "engine_py.py",
              "self.cache.touch(lpn, dirty=True)",
              "self.cache.touch(lpn)"),
         Edit(CORE + "engine.pyx",
              "self.cache.mark_dirty(s)",
              "pass")),
        (RULES + "test_a_write_hit_makes_a_clean_page_dirty",)),
    Mutation(
        "15", "a read waits for the flushes of the dirty pages its misses evict",
        (Edit(CORE + "engine_py.py",
              "ends = self._program_pages(evicted, t, CAUSE_FLUSH)",
              "ends = self._program_pages(evicted, t, CAUSE_FLUSH)\n"
              "                    done = max(done, max(ends))"),
         Edit(CORE + "engine.pyx",
              "self._program_pages(self.buf_evict, n_ev, t, CAUSE_FLUSH)",
              "done = imax(done, self._program_pages(self.buf_evict, n_ev, t, CAUSE_FLUSH))")),
        (RULES + "test_a_cache_hit_costs_t_dram_and_a_reads_evictions_never_delay_it",)),
    Mutation(
        "16", "a multi-plane read pays the smallest retry of its pages, not the largest",
        (Edit(CORE + "engine_py.py",
              "tx[5] = max(tx[5], extra)",
              "tx[5] = min(tx[5], extra)"),
         Edit(CORE + "engine.pyx",
              "if extra > self.tx_extra[j]:",
              "if extra < self.tx_extra[j]:")),
        (RULES + "test_a_multi_plane_read_pays_its_slowest_pages_retry",)),
    Mutation(
        "17", "an erase keeps its blocks' read counts",
        (Edit(CORE + "device/reclaim_py.py",
              "        self.block_reads[blocks] = 0\n",
              ""),
         Edit(CORE + "device/reclaim.pyx",
              "            self.block_reads[victim * k + c] = 0\n",
              "")),
        (RULES + "test_migration_reads_are_not_counted_and_the_erase_resets_the_victims_count",)),
    Mutation(
        "18", "a queued RR runs without being checked again, even when GC erased its superblock first",
        (Edit(CORE + "device/reclaim_py.py",
              "        if self.ftl.sb_state[sb] in (SB_FREE, SB_VICTIM) or not np.any(\n"
              "                self.block_reads[blocks] >= self.rr_threshold[blocks]):\n",
              "        if False:\n"),
         Edit(CORE + "device/reclaim.pyx",
              "        if self.ftl.sb_state[sb] == S_FREE or self.ftl.sb_state[sb] == S_VICTIM:\n"
              "            return 0\n"
              "        for c in range(k):\n"
              "            if self.block_reads[sb * k + c] >= self.rr_threshold[sb * k + c]:\n"
              "                due = True\n"
              "        if not due:\n"
              "            return 0\n",
              "        due = True\n")),
        (RULES + "test_a_queued_rr_is_dropped_when_gc_erased_its_superblock_first",)),
    Mutation(
        "19", "a read is not blocked by background programs queued on its die",
        (Edit(CORE + "engine_py.py",
              "if sc.die_prog_end[die] > t or sc.die_q_progs[die] > 0:",
              "if sc.die_prog_end[die] > t:"),
         Edit(CORE + "engine.pyx",
              "if self.sched.die_prog_end[self.tx_die[i]] > t or self.sched.die_q_progs[self.tx_die[i]] > 0:",
              "if self.sched.die_prog_end[self.tx_die[i]] > t:")),
        (RULES + "test_a_read_of_a_page_waiting_to_be_moved_counts_on_its_new_block",)),
    Mutation(
        "20", "three GC/RR frontier superblocks may be open per lane, not two",
        (Edit("flashrr/_core/layout.py", "GC_OPEN_MAX = 2", "GC_OPEN_MAX = 3"),
         Edit(CORE + "device/common.pxd", "    GC_MAX = 2\n", "    GC_MAX = 3\n")),
        (RULES + "test_a_page_whose_column_is_full_in_both_open_gc_superblocks_spills_to_the_oldest",)),
    Mutation(
        "20s", "a page whose column is full in both open GC superblocks closes the oldest with columns unwritten",
        (Edit(CORE + "device/ftl_py.py",
              "        return min(room, key=lambda c: (off[c], c)) if room else -1",
              "        return -1"),
         Edit(CORE + "device/ftl.pyx",
              "        return best\n",
              "        return -1\n")),
        (RULES + "test_a_page_whose_column_is_full_in_both_open_gc_superblocks_spills_to_the_oldest",)),
    Mutation(
        "21", "the engines' own repeat loop shifts a copy by the trace's duration alone, without the mean gap",
        (Edit(CORE + "engine_py.py",
              "period = duration + max(1, duration // max(1, n - 1))",
              "period = duration + 1"),
         Edit(CORE + "engine.pyx",
              "cdef int64_t period = duration + imax(1, duration // imax(1, n - 1))",
              "cdef int64_t period = duration + 1")),
        (RULES + "test_a_repeat_is_shifted_by_the_duration_plus_the_mean_gap",)),
    # rules held in code both engines share (flashrr/config.py and its sections): one edit breaks both
    Mutation(
        "22", "the default destage buffer holds one page per die, not one per plane",
        (Edit("flashrr/config.py",
              "return self.cache.destage_buffer_pages or self.geometry.n_planes",
              "return self.cache.destage_buffer_pages or self.geometry.n_dies"),),
        (RULES + "test_the_default_destage_buffer_holds_one_page_per_plane",)),
    Mutation(
        "23", "linear LDPC steps at 1/7 .. 7/7 of the threshold, not 1/8 .. 7/8",
        (Edit("flashrr/config_reliability.py",
              'return cls("ldpc", tuple((i + 1) / (levels + 1) for i in range(levels)), t_retry_ns)',
              'return cls("ldpc", tuple((i + 1) / levels for i in range(levels)), t_retry_ns)'),),
        (RULES + "test_linear_ldpc_retries_one_step_per_eighth_of_the_threshold",)),
    # rules of docs/reliability.md (the error model in the engine), docs/policies.md (patrol, combined
    # schemes), docs/traces.md (the workload model) and docs/model.md section 5 that had no
    # hand-counted test
    Mutation(
        "24", "a block's retention is the age of its newest page, not of its first since the erase",
        (Edit(CORE + "device/errors_py.py",
              "        if self.born[blk] != UNSET:\n"
              "            return\n",
              "        if self.born[blk] != UNSET:\n"
              "            self.born[blk] = t - self.offset_ns\n"
              "            self.refresh(blk, t)\n"
              "            return\n"),
         Edit(CORE + "device/errors.pxd",
              "            return self.first_program(blk, t)\n"
              "        return 0\n",
              "            return self.first_program(blk, t)\n"
              "        self.born[blk] = t - self.offset_ns\n"
              "        return self.refresh(blk, t)\n")),
        (ERRORS + "test_a_blocks_retention_is_the_age_of_its_first_page_since_the_erase_not_its_newest",)),
    # the error model's tables (flashrr/reliability/engine_tables.py), which both engines look up
    Mutation(
        "25", 'under retry_model = "rber" the rber trigger refers to t_bits, not the ladder\'s last step',
        (Edit("flashrr/reliability/engine_tables.py",
              "first = trigger_reads(self.model, self.ecc, pe, ret, self.fraction, self.ladder, self.layer)",
              "first = trigger_reads(self.model, self.ecc, pe, ret, self.fraction, None, self.layer)"),),
        (ERRORS + "test_the_rber_trigger_fires_at_its_fraction_of_the_ladders_last_step",)),
    Mutation(
        "26", "the rber trigger fires at the whole capability, whatever rber_fraction says",
        (Edit("flashrr/reliability/engine_tables.py",
              "self.fraction = float(cfg.read_reclaim.rber_fraction)",
              "self.fraction = 1.0"),),
        (ERRORS + "test_the_rber_trigger_fires_at_its_fraction_of_the_ladders_last_step",)),
    Mutation(
        "27", "the error tables are those of a fresh block (0 P/E cycles), whatever the block's wear",
        (Edit("flashrr/reliability/engine_tables.py",
              "pe = np.arange(pe_lo, pe_hi, dtype=np.float64)[:, None]",
              "pe = 0.0 * np.arange(pe_lo, pe_hi, dtype=np.float64)[:, None]"),),
        (ERRORS + "test_a_worn_blocks_threshold_is_its_pe_counts",)),
    # the engines and the patrol mechanism again: each edit in both twins
    Mutation(
        "28", 'under retry_model = "rber" GC and RR reads pay no retry steps',
        (Edit(CORE + "device/reclaim_py.py",
              "return min(self.em.steps(blk), self.em.S)",
              "return 0"),
         Edit(CORE + "device/reclaim.pyx",
              "            i = self.em.steps(blk)\n"
              "            return i if i <= self.em.S else self.em.S\n",
              "            return 0\n")),
        (ERRORS + "test_an_rr_read_takes_the_victims_model_steps_and_is_not_counted",)),
    Mutation(
        "29", "after a gap longer than a lap the patrol scan keeps its clock: a lap per request until it catches up",
        (Edit(CORE + "mechanisms/patrol_py.py",
              "        if done >= self.next_scan:\n"
              "            self.next_scan = done + self.interval_ns\n",
              ""),
         Edit(CORE + "mechanisms/patrol.pyx",
              "        if done >= self.next_scan:\n"
              "            self.next_scan = done + self.interval_ns\n",
              "")),
        ("tests/test_policies_patrol.py::"
         "test_after_a_gap_longer_than_a_lap_the_scan_does_one_lap_and_restarts_its_clock",)),
    Mutation(
        "30", "the patrol scan queues a due superblock again at every visit, not once until its erase",
        (Edit(CORE + "mechanisms/patrol_py.py",
              "if self.ftl.sb_state[sb] != SB_CLOSED or self.queued[sb]:",
              "if self.ftl.sb_state[sb] != SB_CLOSED:"),
         Edit(CORE + "mechanisms/patrol.pyx",
              "if self.ftl.sb_state[sb] != S_CLOSED or self.queued[sb]:",
              "if self.ftl.sb_state[sb] != S_CLOSED:")),
        ("tests/test_policies_patrol.py::test_a_visit_queues_a_superblock_at_its_share_of_the_threshold",)),
    Mutation(
        "31", "the patrol scan queues an open superblock too, not only a closed one",
        (Edit(CORE + "mechanisms/patrol_py.py",
              "if self.ftl.sb_state[sb] != SB_CLOSED or self.queued[sb]:",
              "if self.queued[sb]:"),
         Edit(CORE + "mechanisms/patrol.pyx",
              "if self.ftl.sb_state[sb] != S_CLOSED or self.queued[sb]:",
              "if self.queued[sb]:")),
        ("tests/test_policies_patrol.py::test_an_open_superblock_is_not_queued",)),
    # combined schemes (flashrr/policy_combine.py, flashrr/_core/assembly.py): checked before either engine runs
    Mutation(
        "32", "two parts that both choose the GC victim are not refused (the first chooser silently wins)",
        (Edit("flashrr/policy_combine.py",
              '        self._exclusive_hook("choose_gc_victim", "gc_victim_chooser")\n',
              ""),),
        (COMBINED + "test_two_gc_victim_choosers_are_refused",)),
    Mutation(
        "33", "two parts that both change the device are not refused",
        (Edit("flashrr/policy_combine.py", "if len(changers) > 1:", "if len(changers) > 2:"),),
        (COMBINED + "test_two_parts_that_change_the_device_are_refused",)),
    Mutation(
        "34", "two mechanisms on the write path are not refused",
        (Edit(CORE + "assembly.py",
              "            if r in EXCLUSIVE_ROLES:\n",
              '            if r in EXCLUSIVE_ROLES and r != "write_path":\n'),),
        (COMBINED + "test_two_write_paths_are_refused",)),
    Mutation(
        "35", "a combination charges the cache the largest part's metadata, not the sum of the parts'",
        (Edit("flashrr/policy_combine.py",
              "return sum(int(p.metadata_bytes(config)) for p in self.parts)",
              "return max(int(p.metadata_bytes(config)) for p in self.parts)"),),
        (COMBINED + "test_the_metadata_of_a_combination_is_the_sum_of_its_parts",)),
    # the scheduler's tie rules, where a read is timed, and the destage buffer (docs/model.md sections 3, 5)
    Mutation(
        "36", "on equal starts the highest die goes first, not the lowest (queued transactions and idle moves)",
        (Edit(CORE + "device/sched.pxd",
              "        return a < b\n",
              "        return a > b\n"),
         Edit(CORE + "device/reclaim_py.py", "key = (s, 0, d)", "key = (s, 0, -d)"),
         Edit(CORE + "device/reclaim_py.py",
              "key = (max(sc.iq[d][0][3], int(sc.die_free[d])), 1, d)",
              "key = (max(sc.iq[d][0][3], int(sc.die_free[d])), 1, -d)"),
         Edit(CORE + "device/reclaim_py.py",
              "start, kind, d = best\n",
              "start, kind, d = best[0], best[1], -best[2]\n")),
        (RULES + "test_on_equal_starts_the_lowest_die_goes_first",)),
    Mutation(
        "37", "on equal starts an idle move goes before background work",
        (Edit(CORE + "device/sched.pxd",
              "            return self.hs_kind[a] < self.hs_kind[b]\n",
              "            return self.hs_kind[a] > self.hs_kind[b]\n"),
         Edit(CORE + "device/reclaim_py.py", "key = (s, 0, d)", "key = (s, 1, d)"),
         Edit(CORE + "device/reclaim_py.py",
              "key = (max(sc.iq[d][0][3], int(sc.die_free[d])), 1, d)",
              "key = (max(sc.iq[d][0][3], int(sc.die_free[d])), 0, d)"),
         Edit(CORE + "device/reclaim_py.py", "if kind == 0:", "if kind == 1:")),
        (RULES + "test_on_equal_starts_background_work_goes_before_an_idle_move",)),
    Mutation(
        "38", "a read of a page waiting to be moved is timed at its new place, not its old one",
        (Edit(CORE + "engine_py.py",
              "where = [sc.src_of.get(p, p) for p in ppns] if sc.src_of else ppns",
              "where = ppns"),
         Edit(CORE + "engine.pyx",
              "self.buf_loc[i] = self.sched.src_of[ppn] if self.sched.n_src and self.sched.src_of[ppn] >= 0 "
              "else <int32_t>ppn",
              "self.buf_loc[i] = <int32_t>ppn")),
        (RULES + "test_a_read_of_a_page_waiting_to_be_moved_to_another_die_is_timed_at_its_old_place",)),
    Mutation(
        "39", "a read request's dirty evictions stay out of the destage buffer",
        (Edit(CORE + "engine_py.py",
              "                    if L.write_ack_insert:\n"
              "                        self.sched.destage(ends, t)\n",
              ""),
         Edit(CORE + "engine.pyx",
              "                    if self.ack_insert:\n"
              "                        self.sched.destage(self.buf_end, n_ev, t)\n",
              "")),
        (RULES + "test_a_reads_dirty_evictions_occupy_the_destage_buffer",)),
    # the workload model's generator: the compiled kernel and its twin (flashrr/trace/model)
    Mutation(
        "40", "a fresh request's size ignores the heat level of its region",
        (Edit(MODEL + "reference.py",
              "t = 1 + head * SIZE_LEVELS + heat\n",
              "t = 1 + head * SIZE_LEVELS\n"),
         Edit(MODEL + "_kernel.pyx",
              "t = 1 + head * self.size_levels + heat\n",
              "t = 1 + head * self.size_levels\n")),
        (GENERATE + "test_each_request_takes_its_size_from_its_own_steps_table",)),
    Mutation(
        "41", "a run head's size comes from the table of single fresh requests",
        (Edit(MODEL + "reference.py",
              "t = 1 + head * SIZE_LEVELS + heat\n",
              "t = 1 + heat\n"),
         Edit(MODEL + "_kernel.pyx",
              "t = 1 + head * self.size_levels + heat\n",
              "t = 1 + heat\n")),
        (GENERATE + "test_each_request_takes_its_size_from_its_own_steps_table",)),
    Mutation(
        "42", "a re-access that draws a new size takes it from its target op's table, not its own op's",
        (Edit(MODEL + "reference.py",
              "sz = _round_size(draw_log1p(p.size_log[op, 0, :p.size_len[op, 0]], r[U_SIZE]))",
              "sz = _round_size(draw_log1p(p.size_log[t, 0, :p.size_len[t, 0]], r[U_SIZE]))"),
         Edit(MODEL + "_kernel.pyx",
              "sz = _round_size(_draw(&self.size_log[op, 0, 0], self.size_len[op, 0] - 1, u[i, 4]))",
              "sz = _round_size(_draw(&self.size_log[t, 0, 0], self.size_len[t, 0] - 1, u[i, 4]))")),
        (GENERATE + "test_each_request_takes_its_size_from_its_own_steps_table",)),
    Mutation(
        "43", "a continuation's size comes from its op's table of all sizes, not the continuation table",
        (Edit(MODEL + "reference.py",
              "                t = p.seq_table\n",
              "                t = 0\n"),
         Edit(MODEL + "_kernel.pyx",
              "sz = _round_size(_draw(&self.size_log[op, self.seq_table, 0], self.size_len[op, self.seq_table] - 1,",
              "sz = _round_size(_draw(&self.size_log[op, 0, 0], self.size_len[op, 0] - 1,")),
        (GENERATE + "test_each_request_takes_its_size_from_its_own_steps_table",)),
    Mutation(
        "44", "a cascade node's split share is hashed from the request's index, not its region: hot spots wander",
        (Edit(MODEL + "reference.py",
              "((region * HASH_REGION) & MASK64)",
              "((g * HASH_REGION) & MASK64)"),
         Edit(MODEL + "_kernel.pyx",
              "(<uint64_t>region * HASH_REGION)",
              "(<uint64_t>g * HASH_REGION)")),
        (GENERATE + "test_each_region_keeps_its_hot_spot_throughout_the_trace",)),
    Mutation(
        "gm1", "a near request ignores p_near_aligned: it starts where the position table alone puts it",
        (Edit(MODEL + "reference.py",
              "if r[U_SECTOR] < p.p_near_aligned[op]:",
              "if False:"),
         Edit(MODEL + "_kernel.pyx",
              "if u_align < self.p_near_aligned[op]:",
              "if False:")),
        (LOCALITY + "test_near_reads_a_whole_number_of_units_into_their_target_keep_its_place_in_the_unit",)),
    Mutation(
        "gm2", "a hot request starts at its unit's first byte, not at the unit's hot_start (code both twins share)",
        (Edit(MODEL + "prepared.py",
              "op.hot_unit * model.unit_bytes + op.hot_start for op in ops",
              "op.hot_unit * model.unit_bytes for op in ops"),),
        (LOCALITY + "test_hot_writes_keep_the_byte_of_their_unit_they_start_at",)),
    # the patrol scan again, under the error model's trigger
    Mutation(
        "45", "the patrol scan's ahead is a share of the configured RR threshold, not the block's (the model's)",
        (Edit(CORE + "mechanisms/patrol_py.py",
              "self.block_reads, self.rr_threshold = ctx.block_reads, ctx.rr_threshold",
              "self.block_reads, self.rr_threshold = ctx.block_reads, "
              "np.full_like(ctx.rr_threshold, L.rr_threshold_reads)"),
         Edit(CORE + "mechanisms/patrol.pyx",
              "a = ctx.rr_threshold; self.rr_threshold = <int32_t*>a.data",
              'keep["rr_threshold"] = np.full_like(ctx.rr_threshold, L.rr_threshold_reads); '
              'a = keep["rr_threshold"]; self.rr_threshold = <int32_t*>a.data')),
        (ERRORS + "test_a_patrols_ahead_is_a_share_of_the_models_threshold",)),
    Mutation(
        "wsf", "after the trace, an erase of a lane below its GC threshold still starts a victim",
        (Edit(CORE + "engine_py.py",
              "self._erase_events(((1 << 63) - 1) >> 1, False)",
              "self._erase_events(((1 << 63) - 1) >> 1, True)"),
         Edit(CORE + "engine.pyx",
              "self._erase_events(INT64_MAX >> 1, False)",
              "self._erase_events(INT64_MAX >> 1, True)")),
        ("tests/test_gc_erased_pool.py::test_after_the_trace_erases_let_held_writes_go_but_start_no_victim",)),
    # timing.read_priority
    Mutation(
        "rp1", "with read priority on, a user write's programs are still booked on arrival, in arrival order",
        (Edit(CORE + "engine_py.py",
              "elif self.L.read_priority:  # its programs wait for the dies' reads",
              "elif False:  # its programs wait for the dies' reads"),
         Edit(CORE + "engine.pyx",
              "if self.read_prio:  # its programs wait for the die's reads",
              "if False:  # its programs wait for the die's reads")),
        (SCHED + "test_read_priority_serves_a_dies_reads_before_its_writes",)),
    Mutation(
        "rp2", 'with read priority under "user-first", a die\'s queued background work goes before its queued '
               "user writes",
        (Edit(CORE + "device/reclaim_py.py",
              "                if sc.uq[d]:\n",
              "                if sc.uq[d] and not sc.q[d]:\n"),
         Edit(CORE + "device/reclaim_py.py",
              "if kind == 0 and sc.uq[d]:",
              "if kind == 0 and sc.uq[d] and not sc.q[d]:"),
         Edit(CORE + "device/sched.pyx",
              "        if self.uq_len[die]:  ",
              "        if self.uq_len[die] and not self.q_len[die]:  "),
         Edit(CORE + "device/reclaim.pyx",
              "if best_kind == 0 and self.sched.uq_len[best]:",
              "if best_kind == 0 and self.sched.uq_len[best] and not self.sched.q_len[best]:")),
        (SCHED + "test_read_priority_serves_a_dies_reads_before_its_writes",)),
    # timing.join_writes
    Mutation(
        "jw1", "with join_writes on, a booked background program takes waiting user writes at any page offset",
        (Edit(CORE + "device/sched_py.py",
              "if ready > slot[0] or w_off != off or w_mask & slot[3]:",
              "if ready > slot[0] or w_mask & slot[3]:"),
         Edit(CORE + "device/sched.pyx",
              "if w.ready > sl.start or w.off != sl.off or (w.pmask & sl.pmask):",
              "if w.ready > sl.start or (w.pmask & sl.pmask):")),
        (SCHED + "test_join_writes_programs_a_user_write_with_a_background_program",)),
    Mutation(
        "jw2", "with join_writes on, a booked background program takes none of the user writes waiting on its die",
        (Edit(CORE + "device/sched_py.py",
              "if ready > slot[0] or w_off != off or w_mask & slot[3]:",
              "if True or ready > slot[0] or w_off != off or w_mask & slot[3]:"),
         Edit(CORE + "device/sched.pyx",
              "if w.ready > sl.start or w.off != sl.off or (w.pmask & sl.pmask):",
              "if True or w.ready > sl.start or w.off != sl.off or (w.pmask & sl.pmask):")),
        (SCHED + "test_join_writes_programs_a_user_write_with_a_background_program",)),
    Mutation(
        "jw3", "with join_writes or join_reads on, an arriving user transaction joins a slot of its own plane",
        (Edit(CORE + "device/sched_py.py",
              "if slot[2] == off and not slot[3] & pmask and slot[1] - slot[0] >= dur:",
              "if slot[2] == off and slot[1] - slot[0] >= dur:"),
         Edit(CORE + "device/sched.pyx",
              "if sl.off == off and not (sl.pmask & pmask) and sl.end - sl.start >= dur:",
              "if sl.off == off and sl.end - sl.start >= dur:")),
        (SCHED + "test_join_writes_programs_a_user_write_with_a_background_program",
         SCHED + "test_join_reads_senses_a_user_read_with_a_background_read")),
    # timing.join_reads
    Mutation(
        "jr1", "with join_writes or join_reads on, an arriving user transaction joins a slot at any page offset",
        (Edit(CORE + "device/sched_py.py",
              "if slot[2] == off and not slot[3] & pmask and slot[1] - slot[0] >= dur:",
              "if not slot[3] & pmask and slot[1] - slot[0] >= dur:"),
         Edit(CORE + "device/sched.pyx",
              "if sl.off == off and not (sl.pmask & pmask) and sl.end - sl.start >= dur:",
              "if not (sl.pmask & pmask) and sl.end - sl.start >= dur:")),
        (SCHED + "test_join_writes_programs_a_user_write_with_a_background_program",
         SCHED + "test_join_reads_senses_a_user_read_with_a_background_read")),
    Mutation(
        "jr2", "with join_reads on, a joined read's pages cross the channel from the background read's start, "
               "not from the end of its sensing",
        (Edit(CORE + "device/sched_py.py",
              "return self.xfer(chan, slot[1], n_xfer)",
              "return self.xfer(chan, slot[0], n_xfer)"),
         Edit(CORE + "device/sched.pyx",
              "return self.xfer(chan, sl.end, n_xfer, die)",
              "return self.xfer(chan, sl.start, n_xfer, die)")),
        (SCHED + "test_join_reads_senses_a_user_read_with_a_background_read",)),
    # gc.copyback
    Mutation(
        "cb1", "with gc.copyback off, a page moved within its die still does not cross the channel",
        (Edit("flashrr/_core/layout.py",
              "gc_copyback=config.gc.copyback,",
              "gc_copyback=True,"),),
        (SCHED + "test_without_copyback_a_moved_page_crosses_the_channel_twice",)),
    Mutation(
        "rgf", "with gc.reserve_gc_frontier on, a lane still opens its GC frontier at its first migration",
        (Edit(CORE + "engine_py.py",
              "        if L.gc_reserve_frontier:  # as MQSim's block manager",
              "        if False:  # as MQSim's block manager"),
         Edit(CORE + "engine.pyx",
              "        if L.gc_reserve_frontier:  # as MQSim's block manager",
              "        if False:  # as MQSim's block manager")),
        ("tests/test_gc_erased_pool.py::test_a_reserved_gc_frontier_moves_the_first_gc_one_superblock_earlier",)),
    # gc.aligned_moves
    Mutation(
        "am1", "with gc.aligned_moves on, migrations still write through one pointer per block",
        (Edit("flashrr/_core/layout.py",
              "gc_aligned_moves=config.gc.aligned_moves,",
              "gc_aligned_moves=False,"),),
        (ALIGNED + "test_baseline_rr_keeps_a_superpage_together_only_when_aligned",
         ALIGNED + "test_a_policys_columns_stay_and_its_rows_stay_together")),
    Mutation(
        "am2", "with aligned moves, pages a policy placed take the frontier row's free columns, not the policy's",
        (Edit(CORE + "device/reclaim_py.py",
              "dest[q:j] = ftl.gc_row(lane, [int(c) for c in dest[q:j]], fixed)",
              "dest[q:j] = ftl.gc_row(lane, [int(c) for c in dest[q:j]], False)"),
         Edit(CORE + "device/reclaim.pyx",
              "self.ftl.gc_row(lane, &self.m_dest[q], j, fixed)",
              "self.ftl.gc_row(lane, &self.m_dest[q], j, False)")),
        (ALIGNED + "test_a_policys_columns_stay_and_its_rows_stay_together",)),
    Mutation(
        "am3", "with aligned moves, a GC looks at one unplaced victim row for one that fits, not sixteen",
        (Edit(CORE + "device/ftl_py.py", "ALIGN_LOOKAHEAD = 16", "ALIGN_LOOKAHEAD = 1"),
         Edit(CORE + "device/ftl.pyx", "DEF ALIGN_LOOKAHEAD = 16", "DEF ALIGN_LOOKAHEAD = 1")),
        (ALIGNED + "test_gc_packs_victim_rows_without_leaving_pages_unwritten",)),
    Mutation(
        "am4", "with aligned moves, a GC writes its victim rows as an RR does, leaving a row's free pages unwritten",
        (Edit(CORE + "device/reclaim_py.py",
              "if aligned and not is_rr and not fixed:",
              "if False:"),
         Edit(CORE + "device/reclaim_py.py",
              "if aligned and is_rr and (q == 0 or offs[q] != offs[q - 1]):",
              "if aligned and (q == 0 or offs[q] != offs[q - 1]):"),
         Edit(CORE + "device/reclaim.pyx",
              "planned = self.aligned and not is_rr and not fixed",
              "planned = False"),
         Edit(CORE + "device/reclaim.pyx",
              "if self.aligned and is_rr and (q == 0 or self.m_off[q] != self.m_off[q - 1]):",
              "if self.aligned and (q == 0 or self.m_off[q] != self.m_off[q - 1]):")),
        (ALIGNED + "test_gc_with_aligned_moves_keeps_the_device_running_when_full",)),
    Mutation(
        "hr1", "HotR's R-LRU holds no more entries than the staging space holds replicas",
        (Edit(CORE + "mechanisms/hot_replicas_py.py",
              "self.n_max = max(int(n_max), self.cap)",
              "self.n_max = self.cap"),
         Edit(CORE + "mechanisms/hot_replicas.pyx",
              "self.n_max = max(int(n_max), self.cap)",
              "self.n_max = self.cap")),
        (HOTR + "test_a_longer_rlru_keeps_the_entry_and_replica_of_a_page_read_before",)),
    Mutation(
        "hr2", "a full HotR staging space gives up the replica most recently read or made",
        (Edit(CORE + "mechanisms/hot_replicas_py.py",
              "_, v = self.reps.popitem(last=False)",
              "_, v = self.reps.popitem(last=True)"),
         Edit(CORE + "mechanisms/hot_replicas.pyx",
              "                v = self.rtail\n",
              "                v = self.rhead\n")),
        (HOTR + "test_full_staging_gives_up_the_replica_least_recently_read_or_made",)),
    Mutation(
        "hr3", "reading a page does not renew its replica's place in HotR's full-staging order",
        (Edit(CORE + "mechanisms/hot_replicas_py.py",
              "                if e.rep != -1:\n"
              "                    self.reps.move_to_end(lpn)\n",
              ""),
         Edit(CORE + "mechanisms/hot_replicas.pyx",
              "                if self.e_rep[e] != -1:\n"
              "                    self.r_unlink(e)\n"
              "                    self.r_push_mru(e)\n",
              "")),
        (HOTR + "test_full_staging_gives_up_the_replica_least_recently_read_or_made",)),
    Mutation(
        "hr4", "a HotR staging space that stops when full gives up a replica anyway",
        (Edit(CORE + "mechanisms/hot_replicas_py.py", "if self.staging_stop:", "if False:"),
         Edit(CORE + "mechanisms/hot_replicas.pyx", "if self.staging_stop:", "if False:")),
        (HOTR + "test_full_staging_that_stops_refuses_the_new_hot_page",
         HOTR + "test_a_refused_page_gets_the_room_an_evicted_entry_frees")),
    Mutation(
        "hr5", "HotR tracking blocked reads only still counts the unblocked ones",
        (Edit(CORE + "mechanisms/hot_replicas_py.py",
              "if self.blocked_only and not self.blocked(die, t):",
              "if False:"),
         Edit(CORE + "mechanisms/hot_replicas.pyx",
              "if self.blocked_only and not self.blocked(die, t):",
              "if False:")),
        (HOTR + "test_blocked_only_tracking_ignores_the_unblocked_reads_that_make_x_hot",
         HOTR + "test_blocked_only_tracking_redirects_on_the_third_blocked_read")),
)


class Interrupted(Exception):
    pass


def _on_signal(signum, frame):
    raise Interrupted(f"signal {signum}")


def check_edits(mutations) -> None:
    """Every old text occurs exactly once in its file (else stop, naming the mutation)."""
    for m in mutations:
        for e in m.edits:
            n = (ROOT / e.path).read_text().count(e.old)
            if n != 1:
                sys.exit(f"mutation {m.key}: its text occurs {n} times in {e.path}, not once; "
                         f"update the mutation to the current code")


def check_clean(paths) -> None:
    """Refuse to run on engine sources that differ from the last commit."""
    r = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", *paths], cwd=ROOT)
    if r.returncode != 0:
        sys.exit("the engine sources differ from HEAD (git diff): commit or restore them first, "
                 "so no mutated file is taken for the original")


def build() -> tuple[bool, str]:
    r = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=ROOT,
                       capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr)[-3000:]


def run_tests(node_ids) -> tuple[list, list, int]:
    """Run ``node_ids`` with pytest; returns (failed test ids, passed test ids, exit code)."""
    env = dict(os.environ, CI="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "report.xml"
        # -W: the hypothesis plugin's DeprecationWarning on a failure would otherwise become an
        # INTERNALERROR under filterwarnings = error and end the session early (tests/mutations.md)
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", "-W",
                            "ignore::DeprecationWarning", f"--junitxml={xml}", *node_ids], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        if r.returncode in (3, 4, 5):  # internal or usage error, or nothing collected
            sys.exit(f"pytest could not run {' '.join(node_ids)}:\n{(r.stdout + r.stderr)[-3000:]}")
        failed, passed = [], []
        if xml.exists():
            for case in ET.parse(xml).getroot().iter("testcase"):
                name = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
                bad = case.find("failure") is not None or case.find("error") is not None
                if case.find("skipped") is None:
                    (failed if bad else passed).append(name)
    return failed, passed, r.returncode


def by_function(ids) -> list[str]:
    """``file::test[param]`` ids grouped per test function: ``file::test (n)``."""
    counts: dict[str, int] = {}
    for i in ids:
        f = re.sub(r"\[.*\]$", "", i)
        counts[f] = counts.get(f, 0) + 1
    return [f"{f} ({n})" if n > 1 else f for f, n in counts.items()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("keys", nargs="*", help="mutation keys to run (default: all)")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    ap.add_argument("--also", nargs="*", default=[], help="more pytest node ids or files to run on every mutation")
    args = ap.parse_args(argv)
    if args.list:
        for m in MUTATIONS:
            print(f"{m.key:>3}  {m.rule}")
        return 0
    known = {m.key: m for m in MUTATIONS}
    for k in args.keys:
        if k not in known:
            sys.exit(f"no mutation {k!r}; known: {', '.join(known)}")
    chosen = [known[k] for k in args.keys] if args.keys else list(MUTATIONS)
    paths = sorted({e.path for m in chosen for e in m.edits})
    check_clean(paths)
    check_edits(chosen)
    tests = list(dict.fromkeys([t for m in chosen for t in m.tests] + args.also))

    originals = {p: (ROOT / p).read_bytes() for p in paths}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    rows = []
    try:
        ok, log = build()
        if not ok:
            sys.exit("the unmodified engine does not build:\n" + log)
        failed, passed, _ = run_tests(tests)
        ran = {re.sub(r"\[.*\]$", "", t) for t in passed}
        missing = [t for m in chosen for t in m.tests if t not in ran]
        if failed or missing:
            sys.exit("on the unmodified engine these tests fail or did not run; fix that first:\n  "
                     + "\n  ".join(failed + missing))
        print(f"unmodified engine: {len(passed)} tests pass")
        for m in chosen:
            t0 = time.time()
            try:
                for e in m.edits:
                    f = ROOT / e.path
                    f.write_text(f.read_text().replace(e.old, e.new))
                ok, log = build()
                if ok:
                    failed, passed, _ = run_tests(list(dict.fromkeys(list(m.tests) + args.also)))
                else:
                    print(log)
            finally:
                for p in {e.path for e in m.edits}:
                    (ROOT / p).write_bytes(originals[p])
            named = {re.sub(r"\[.*\]$", "", t) for t in m.tests}
            pinned = [f for f in failed if re.sub(r"\[.*\]$", "", f) in named] if ok else []
            rows.append((m, ok, failed if ok else [], pinned))
            verdict = "did not build" if not ok else ("caught" if pinned else "SURVIVED its named tests")
            print(f"\n[{m.key}] {m.rule}: {verdict} ({time.time() - t0:.0f} s)")
            for f in by_function(failed if ok else []):
                print("    fails:", f)
    except (KeyboardInterrupt, Interrupted) as e:
        print(f"\ninterrupted ({e or 'Ctrl-C'}): restoring the engine sources")
    finally:
        for p, text in originals.items():
            (ROOT / p).write_bytes(text)
        ok, log = build()
        if not ok:
            print("the restored engine did not rebuild; run python setup.py build_ext --inplace\n" + log)

    print("\n| # | rule broken in both engines | caught by |\n|---|---|---|")
    for m, ok, failed, pinned in rows:
        others = [f for f in failed if f not in pinned]
        cell = "did not build" if not ok else (", ".join(by_function(pinned)) or "**survived**")
        if others:
            cell += "; also " + ", ".join(by_function(others))
        print(f"| {m.key} | {m.rule} | {cell} |")
    return 0 if rows and len(rows) == len(chosen) and all(r[1] and r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
