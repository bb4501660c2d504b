"""Whether a run stayed in a sane regime: the checks behind a run's ``regime_warning``.

A run can finish with numbers that describe its regime rather than the scheme: a device
past its ECC reclaims blocks continuously, an overloaded device measures its queue, and a
device stuck in garbage collection measures GC.  :func:`regime_warnings` names each of
these in a run's summary; :func:`flashrr.simulate` keeps them, joined, as the summary's
``regime_warning`` ("" when the run is inside every limit), and ``flashrr run`` and
``flashrr compare`` print them once.  They are warnings, never errors: such a run may be
the point of a study (docs/reliability.md's TLC at 3,000 P/E cycles).

Limits:

* :data:`RR_PER_READ_LIMIT`: RRs on more than 1 in 100 of the flash page reads.  A block
  under a sane trigger takes thousands of reads between reclaims; more than one RR per
  hundred reads means the trigger fires near every read (the error model's trigger on a
  device whose worst page is past the ECC before any read).
* :data:`BUSY_LIMIT`: a Baseline-like run whose busiest die is busy more than 95% of the
  run (the share of the run it has operations booked; ``1 - die_idle_fraction_min``).  A run
  is Baseline-like when it moved no page in idle time (``busy_move_ns`` 0): a scheme that
  does (PhasedRR, patrol) fills the dies by design, and its busy share says nothing of the
  load.  The papers' regime checks (:mod:`flashrr.reproduce.regime`) use the same limit on
  their Baselines.
* :data:`WAF_LIMIT`: a write amplification above 10: GC moves ten pages for every page the
  host writes, a device with too little free space.
"""
from __future__ import annotations

#: a Baseline whose busiest die is busy more than this share of the run is overloaded
BUSY_LIMIT = 0.95
#: RRs per flash page read above which the device is taken to be past its ECC
RR_PER_READ_LIMIT = 0.01
#: write amplification above which the device is taken to be stuck in GC
WAF_LIMIT = 10.0


def regime_warnings(summary: dict) -> list:
    """The regime warnings of a run's ``summary`` (keys ``rr_count``, ``flash_read_pages``,
    ``busy_move_ns``, ``die_idle_fraction_min``, ``waf``), one sentence each; empty when the run
    is inside every limit (module docstring).  They depend on what the run did, not on the
    policy's name, so two runs that did the same get the same warnings."""
    out = []
    rrs, reads = int(summary.get("rr_count", 0)), int(summary.get("flash_read_pages", 0))
    if rrs > RR_PER_READ_LIMIT * reads:
        out.append(f"device past its ECC: {rrs:,} RRs in {reads:,} flash page reads (more than 1 in "
                   f"{round(1 / RR_PER_READ_LIMIT)}), the trigger fires near every read")
    busy = 1.0 - float(summary.get("die_idle_fraction_min", 1.0))
    if int(summary.get("busy_move_ns", 0)) == 0 and busy > BUSY_LIMIT:
        out.append(f"device overloaded: the busiest die is busy {busy:.1%} of the run (more than "
                   f"{BUSY_LIMIT:.0%}) with no idle-time moves, so latencies measure the queue")
    waf = float(summary.get("waf", 0.0))
    if waf > WAF_LIMIT:
        out.append(f"device stuck in GC: WAF {waf:.1f} (more than {WAF_LIMIT:g})")
    return out


def regime_warning(summary: dict) -> str:
    """:func:`regime_warnings` joined with ``"; "`` ("" when there is none)."""
    return "; ".join(regime_warnings(summary))
