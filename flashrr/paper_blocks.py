"""The trace and device of each paper's block of ``flashrr compare --per-paper``.

Each block runs on its paper's own ground: the device of the paper's quick reproduction
plan (:mod:`flashrr.papers`) and one of that plan's traces (:data:`TRACES`), placed and
filled as the paper's regime says (:mod:`flashrr.reproduce.regime`: packed on its
footprint, the plan's occupancy), at the length the regime sets for that paper, found by
running Baseline alone:

* **Shuffler**: the paper states its replays (128, §4.1), so its regime calibrates no
  length; the block plays its trace half the default plan's
  :data:`~flashrr.papers.shuffler.plan.DEFAULT_REPEAT` times, to keep the view short.
  The trace comes from the synthetic workload, whose extents start on superpage
  boundaries: the paper's premise (Fig. 2) is component blocks read unevenly, which that
  alignment makes; the model workload has none, and on its ali1 Shuffler makes as many RRs
  as Baseline.
* **PhasedRR**: the smallest replay count at which Baseline makes the quick plan's floor
  of RRs (:func:`~flashrr.reproduce.calibration.calibrate_length`), on the quick plan's
  device (Table I's RR threshold) with its scheme parameters.
* **Cocktail**: ali206 in multiples of its Table II repeat count until Baseline makes the
  paper's RR count scaled to the plan's planes (:func:`calibrate_length`).  Its arrivals
  keep the plan's fixed factor ``128 / planes``; the plan's load calibration (a bisection of
  up to 12 Baseline runs per trace) is left out to keep the view short.
* **HotR**: RR is off on its device, so no length is calibrated; the trace's arrival factor
  is bisected until Baseline blocks the paper's share of reads behind programs (Fig. 1(b);
  :func:`flashrr.papers.hotr.plan.calibrate`), so its reads meet programs.

:func:`paper_block` gives one :class:`Block`; :func:`paper_blocks` all of them, one paper
per call on the sweep's workers.  The Baseline runs go through ``snapshot`` (a snapshot
directory), so the block's own runs can restore the aged device they leave there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

#: the quick plan's trace each paper's block runs on: Shuffler's most read-heavy Alibaba trace (the main
#: job's), PhasedRR's trace that reaches its RR floor in the fewest replays, Cocktail's ali206 (the one
#: the paper gives an RR count for), HotR's MSR trace (on fin2's 40,000 requests few hot reads meet
#: programs, and HotR redirects almost none)
TRACES = {"shuffler": "ali1", "phasedrr": "usr_0", "cocktail": "alibaba_206", "hotr": "msr_hm"}


@dataclass(frozen=True)
class Block:
    """One paper's ground: ``preset`` (the compare paper preset), ``paper`` (the reproduction's
    name), ``trace`` (the plan's name of the trace), ``device`` (a SimConfig), ``spec`` (the trace
    spec, its length included), ``length`` (how the length was chosen, one phrase) and
    ``params`` (``{scheme: {param: value}}``: the plan's parameters of the paper's schemes)."""

    preset: str
    paper: str
    trace: str
    device: object
    spec: str
    length: str
    params: dict = field(default_factory=dict)

    def describe(self) -> str:
        """The block's device, trace and length, for its title line."""
        rr = self.device.read_reclaim
        where = f"RR at {rr.rr_threshold_reads:,} reads" if rr.rr_enabled else "RR off"
        fill = self.device.precondition.fill_ratio
        filled = f"{fill:.0%} of its space filled" if fill else "the trace's footprint filled"
        return f"its quick plan's device ({where}, {filled}) and trace {self.trace} ({self.spec}), {self.length}"


def _plan(paper: str, **changes):
    from .reproduce import PAPERS

    return PAPERS[paper].make_plan(quick=True, **changes)


def _device(entry: dict):
    """A sweep device entry (``preset``, ``name`` and config fields) as a SimConfig."""
    from .config import SimConfig

    entry = dict(entry)
    return SimConfig.preset(entry.pop("preset")).replace(**entry)


def _replays(n: int) -> str:
    return f"{n} replay{'s' if n != 1 else ''}"


def _shuffler(repeat, snapshot) -> Block:
    from .papers.shuffler.plan import DEFAULT_REPEAT
    from .reproduce.trace_specs import with_replays

    plan, name = _plan("shuffler", workload="synth"), TRACES["shuffler"]  # module docstring: synthetic
    n = int(repeat or DEFAULT_REPEAT // 2)  # module docstring: half the default plan's replays
    how = "replays fixed" if repeat else "half the default plan's (the paper states 128, §4.1)"
    return Block("shuffler", "shuffler", name, _device(plan.device("shuffler")),
                 with_replays(plan.trace_spec(name), n), f"{_replays(n)}, {how}")


def _calibrated(paper: str, repeat, snapshot) -> tuple:
    """``(plan, trace, replays, text)`` of a paper whose plan calibrates its lengths (``length_device``,
    ``length_unit``, ``rr_target``): ``repeat`` units when given, else :func:`calibrate_length`."""
    from .reproduce.calibration import calibrate_length

    plan, name = _plan(paper), TRACES[paper]
    unit = plan.length_unit(name)
    plays = f" x {unit} plays (Table II's repeat count)" if unit > 1 else ""
    if repeat:
        return plan, name, int(repeat), f"{_replays(int(repeat))}{plays}, replays fixed"
    n, rrs = calibrate_length(plan, name, snapshot)
    return plan, name, n, (f"{_replays(n)}{plays}: Baseline's {rrs:,} RRs reach the regime's target of "
                           f"{plan.rr_target(name):,}")


def _phasedrr(repeat, snapshot) -> Block:
    from .reproduce.trace_specs import with_replays

    plan, name, n, how = _calibrated("phasedrr", repeat, snapshot)
    early = {"start_reads": plan.start_reads, "charge_metadata": True}
    params = {"phasedrr": {"delta_reads": plan.delta_reads}, "rl-rr": early, "reallocation": early}
    return Block("phasedrr", "phasedrr", name, plan.length_device(), with_replays(plan.base_spec(name), n), how,
                 params)


def _cocktail(repeat, snapshot) -> Block:
    from .reproduce.trace_specs import with_replays

    plan, name, n, how = _calibrated("cocktail", repeat, snapshot)
    spec = with_replays(plan.base_spec(name), n * plan.length_unit(name))
    return Block("cocktail", "cocktail", name, plan.device_config(), spec,
                 f"{how}; arrivals x {plan.stretch():g} (128 / planes)")


def _hotr(repeat, snapshot) -> Block:
    from .papers.hotr.plan import calibrate
    from .reproduce.trace_specs import with_replays

    plan, name = _plan("hotr"), TRACES["hotr"]
    factor, share = calibrate(plan, name, snapshot)
    how = (f"arrivals x {factor:g}: Baseline blocks {share:.0%} of the reads of its first "
           f"{plan.calibration_requests:,} requests behind programs (the paper's {plan.target_blocked:.0%}); "
           "RR is off")
    spec = plan.trace_spec(name, factor)
    if repeat:
        spec, how = with_replays(spec, int(repeat)), f"{_replays(int(repeat))}, {how}"
    return Block("hotr", "hotr", name, plan.config(), spec, how)


_BUILDERS = {"shuffler": _shuffler, "phasedrr": _phasedrr, "cocktail": _cocktail, "hotr": _hotr}
#: the paper presets that have a block of their own (the others run on the trace given)
PRESETS = tuple(_BUILDERS)


def paper_block(preset: str, repeat: int | None = None, snapshot=None) -> Block:
    """The :class:`Block` of paper preset ``preset`` (one of :data:`PRESETS`): its Baseline runs
    (the length or arrival calibration) restore the aged device from the snapshot directory
    ``snapshot`` when given.  ``repeat``: replays of the trace instead of the regime's length."""
    return _BUILDERS[preset](repeat, snapshot)


def paper_blocks(presets, repeat: int | None = None, snapshot=None, jobs: int | None = None) -> dict:
    """``{preset: Block}`` for ``presets``, one paper per call on ``jobs`` processes
    (:func:`flashrr.sweep.calls.call_each`)."""
    from .sweep.calls import call_each

    found = dict(call_each(partial(paper_block, repeat=repeat, snapshot=snapshot), list(presets), jobs))
    return {p: found[p] for p in presets}
