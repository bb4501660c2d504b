"""What a reproduced paper is, declared once: :class:`Paper`.

Each paper's package (``flashrr.papers.<paper>``) builds one ``PAPER`` in its
``paper`` module; :func:`flashrr.reproduce.runner.reproduce` turns any of them
into sweeps, figures, claims and a manifest, and ``flashrr reproduce`` takes its
paper names and help text from them (:data:`flashrr.reproduce.PAPERS`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable


@dataclass(frozen=True)
class Paper:
    """One reproduced paper.

    ``name``: the command-line name and output directory (``superblock-pv``);
    ``title``: the paper as the claims and the report head it (``Shuffler (TOS
    2026)``); ``description``: its line in ``flashrr reproduce --help``.

    ``plan``: the default plan (a frozen dataclass with ``quick`` and ``paper_scale``
    fields and, for a paper with traces, ``repeat``, ``trace_params``,
    ``device_overrides`` and ``workload``); ``quick``: the fields that make the quick
    plan; ``paper_scale``: the fields that make the paper-scale plan (the paper's own
    counts, replays and device size; the plan module's docstring sources each value).

    ``trace_help``: what the paper's own trace parameters are, for the
    ``--trace-param`` help.

    ``figures``: figure id -> :class:`~flashrr.reproduce.figures.Figure`;
    ``tables``: further ids ``--figure`` accepts that are tables, not figures.
    ``claims(runs)``: the claims table; ``claims_markdown(table, runs)``: its
    ``claims.md`` text.

    A paper with sweeps gives ``groups`` (its experiment groups, in run order)
    and ``run(plan, out, groups, jobs=, progress=, timings=)``, which runs them
    and returns the tidy runs; ``manifest(runs)`` adds entries to the plan written
    to ``reproduce.json``.  A paper without sweeps gives ``reproduce(paper, plan,
    out, figures, jobs=, scheduler=)`` instead, its own run function (``figures``: ids,
    or None for everything and the claims; ``jobs``, ``scheduler``: the workers it may
    spread its work over).
    """

    name: str
    title: str
    description: str
    plan: object
    quick: dict
    figures: dict
    claims: Callable
    claims_markdown: Callable
    groups: tuple = ()
    run: Callable | None = None
    manifest: Callable | None = None
    reproduce: Callable | None = None
    tables: tuple = ()
    trace_help: str = ""
    paper_scale: dict = field(default_factory=dict)

    @property
    def has_traces(self) -> bool:
        """Whether the paper replays traces (so ``repeat``, trace and device parameters apply)."""
        return self.reproduce is None

    @property
    def output_ids(self) -> list:
        """Every id ``flashrr reproduce NAME --figure`` accepts: the figures, then the tables."""
        return list(self.figures) + list(self.tables)

    def make_plan(self, quick: bool = False, repeat: int | None = None, paper_scale: bool = False, **changes):
        """The default plan, the quick one or the paper-scale one (not both: ValueError); then ``repeat``
        (replays of each trace) and ``changes``."""
        check_scale(quick, paper_scale)
        if paper_scale:
            return plan_variant(replace(self.plan, **self.paper_scale, paper_scale=True), None, repeat, **changes)
        return plan_variant(self.plan, self.quick if quick else None, repeat, **changes)

    def check_options(self, repeat: int | None = None, trace_params=(), device_overrides=()) -> None:
        """Raise ValueError when a paper without traces is given ``repeat``, trace or device parameters."""
        if not self.has_traces and (repeat is not None or trace_params or device_overrides):
            raise ValueError(f"reproduce {self.name}: --repeat, --trace-param and --device-param do not apply "
                             "(this paper has no traces)")

    def plan_from_options(self, quick: bool = False, repeat: int | None = None, trace_params=(),
                          device_overrides=(), workload: str = "model", paper_scale: bool = False):
        """The plan of ``flashrr reproduce``'s options: ``quick`` or ``paper_scale`` picks the plan
        (:meth:`make_plan`); ``trace_params`` (``(name, value)`` pairs) are
        added to the plan's own, replacing a parameter of the same name; ``device_overrides`` set
        config fields on every device.  A paper without traces takes none of ``repeat``,
        ``trace_params`` and ``device_overrides`` (ValueError) and ignores ``workload``."""
        self.check_options(repeat, trace_params, device_overrides)
        if not self.has_traces:
            return self.make_plan(quick, paper_scale=paper_scale)
        merged = tuple({**dict(self.plan.trace_params), **dict(trace_params)}.items())
        return self.make_plan(quick, repeat, paper_scale, workload=workload, trace_params=merged,
                              device_overrides=tuple(device_overrides))


def check_scale(quick: bool, paper_scale: bool) -> None:
    """Raise ValueError when both the quick and the paper-scale plan are asked for."""
    if quick and paper_scale:
        raise ValueError("reproduce: --quick and --paper-scale are mutually exclusive (the quick plan is smaller "
                         "than the default, the paper-scale plan is the paper's own size)")


def plan_variant(plan, quick_changes: dict | None = None, repeat: int | None = None, **changes):
    """A paper plan (a frozen dataclass) with ``quick_changes`` (the quick plan,
    when given), then ``repeat`` (replays of each trace), then ``changes`` applied."""
    if quick_changes is not None:
        plan = replace(plan, **quick_changes, quick=True)
    if repeat is not None:
        plan = replace(plan, repeat=int(repeat))
    return replace(plan, **changes) if changes else plan
