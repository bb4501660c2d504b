"""``flashrr.compare``: several read-reclaim policies on one trace, one table.

>>> import flashrr
>>> df = flashrr.compare(["baseline", "shuffler"], trace="synth:lun0?n_requests=20000")  # doctest: +SKIP

One row per policy with the headline metrics (:data:`METRICS`) and, for each
metric, its change against the first row in % (column ``<metric>_pct``).
Every policy runs on one device, :data:`COMMON_PRESET` unless ``preset``
names another; ``preset=PAPER_DEVICES`` puts each policy on the device preset
of the paper that proposed it (:data:`PAPER_PRESET`), and a row can name its
device itself, ``POLICY@PRESET`` (``baseline@cocktail``).
:func:`compare_per_paper` gives one table per paper instead: each scheme
against Baseline on that paper's device.  The runs go through the sweep's
executors (:func:`flashrr.sweep.runner.run_local`, a process pool), with the
sweep's progress bar.

Defaults (:data:`DEFAULT_POLICIES`, :data:`DEFAULT_TRACE`,
:data:`DEFAULT_REPEAT`) are the main job of the README: the Shuffler paper's
``ali1`` trace with superpage-aligned extents, replayed 4 times, so that
Baseline performs about a hundred RRs in a few seconds per run.  docs/compare.md
says how they were chosen.

The module is callable: ``flashrr.compare(...)`` is :func:`compare`, and
``flashrr.compare.cross_paper_figure`` is still reachable (the same trick as
:mod:`flashrr.sweep`).
"""
from __future__ import annotations

import ast
import dataclasses
import math
import sys
import tempfile
import types
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: The device preset of each policy's paper (Baseline: the Shuffler paper, the first that defines it).
PAPER_PRESET = {
    "baseline": "shuffler", "page": "shuffler", "page-8": "shuffler", "page-64": "shuffler", "shuffler": "shuffler",
    "phasedrr": "phasedrr", "rl-rr": "phasedrr", "reallocation": "phasedrr",
    "cocktail": "cocktail", "redftl": "cocktail", "ipr": "cocktail",
    "hotr": "hotr", "rails": "hotr", "ttflash": "hotr", "optimal": "hotr",
}
#: The one device of ``flashrr compare`` without ``--preset``: the Shuffler paper's (TOS 2026, Table 1),
#: with superblocks of several blocks for Shuffler to balance, read reclaim at 10,000 reads, and the
#: 64 MiB read/write cache.  Cocktail's schemes are block-level and refuse it (docs/compare.md).
COMMON_PRESET = "shuffler"
#: ``preset`` value that puts each policy on its paper's device (:data:`PAPER_PRESET`).
PAPER_DEVICES = "paper"
#: Policies of ``flashrr compare`` without ``--policies``: Baseline, the schemes of the papers that run on
#: :data:`COMMON_PRESET` (one each), and one combination of two of them.
DEFAULT_POLICIES = ("baseline", "shuffler", "phasedrr", "hotr", "shuffler+phasedrr")
#: Schemes of ``flashrr compare --per-paper`` without ``--policies``: one per paper, each against Baseline.
PER_PAPER_POLICIES = ("shuffler", "phasedrr", "cocktail", "hotr")
#: The Shuffler paper's ali1 (Table 2) with extents on superpage (32 KiB) boundaries, as its reproduction uses.
DEFAULT_TRACE = "synth:ali1?align_bytes=32768&footprint_page_bytes=8192"
#: Replays of the trace: Baseline does about 28 RRs per replay of DEFAULT_TRACE on the shuffler preset.
DEFAULT_REPEAT = 4

#: (summary key, table heading) of every compared metric, in column order.  Page moves count every page
#: moved by RR logic (mandatory RR migrations, PhasedRR's idle moves and RL-RR's forced moves).
METRICS = (
    ("rr_count", "RRs"),
    ("rr_page_moves_all", "page moves"),
    ("erase_count", "erases"),
    ("waf", "WAF"),
    ("read_latency_mean_ns", "read mean (us)"),
    ("read_latency_p99_ns", "read p99 (us)"),
    ("read_latency_p9999_ns", "read p99.99 (us)"),
    ("cache_read_hit_ratio", "cache hit"),
    ("policy_metadata_bytes", "metadata (B)"),
    ("blocked_reads", "blocked reads"),
    ("redirected_reads", "redirected reads"),
)
METRIC_KEYS = tuple(k for k, _ in METRICS)
PCT_SUFFIX = "_pct"
_NS_PER_US = 1_000


class CompareError(ValueError):
    """Bad input to :func:`compare` (unknown policy, preset or parameter), or a run that failed."""


@dataclasses.dataclass(frozen=True)
class Row:
    """One row of a comparison: ``label`` (as given, e.g. ``baseline@cocktail``), ``policy``,
    ``preset`` (a device preset name, a .toml path or a SimConfig), the policy's ``params`` and
    ``trace``: the row's own trace spec (None: the comparison's)."""

    label: str
    policy: str
    preset: object
    params: dict
    trace: str | None = None

    @property
    def device_name(self) -> str:
        return getattr(self.preset, "name", str(self.preset))


def parse_value(raw: str):
    """A ``-p`` value: a Python literal (number, bool, string, list) or else the text itself."""
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw


def parse_policy_params(items) -> dict:
    """``["shuffler.delta_f=0.3", ...]`` as ``{"shuffler": {"delta_f": 0.3}}``.  The part before the
    first dot names a row (a policy, or ``POLICY@PRESET``)."""
    out: dict = {}
    for text in items:
        key, sep, raw = text.partition("=")
        row, dot, name = key.strip().partition(".")
        if not sep or not dot or not row or not name.strip():
            raise CompareError(f"-p {text!r}: expected POLICY.KEY=VALUE, e.g. shuffler.delta_f=0.3")
        out.setdefault(row, {})[name.strip()] = parse_value(raw.strip())
    return out


def paper_preset(policy: str) -> str:
    """The device preset of ``policy``'s paper (:data:`PAPER_PRESET`); for a combined scheme, the
    preset its parts share.  CompareError for a policy not in it, or parts of different papers."""
    parts = policy.split("+")
    presets = {PAPER_PRESET.get(p) for p in parts}
    if None in presets or len(presets) != 1:
        why = "its parts come from different papers" if None not in presets else "it has no paper preset"
        raise CompareError(f"policy {policy!r}: {why} (papers' presets: {', '.join(sorted(set(PAPER_PRESET.values())))}); "
                           "name its device: POLICY@PRESET, or give --preset")
    return presets.pop()


def plan_rows(policies, preset: str | None = None, params: dict | None = None) -> list:
    """The rows of a comparison, validated: each policy known, each preset known, labels unique and every
    ``params`` key naming a row.  ``policies`` is a list or a comma-separated string; ``preset`` is the
    device of every row without ``@`` (None: :data:`COMMON_PRESET`; :data:`PAPER_DEVICES`: each policy's
    paper preset)."""
    from .config import SimConfig
    from .policies import policy_class
    from .presets import DEVICE_PRESETS

    if isinstance(policies, str):
        policies = policies.split(",")
    labels = [str(p).strip() for p in policies]
    if not labels or any(not x for x in labels):
        raise CompareError(f"policies: expected a comma-separated list of policy names, got {policies!r}")
    rows = []
    for label in labels:
        name, at, dev = label.partition("@")
        try:
            policy_class(name)
        except ValueError as e:
            raise CompareError(f"policies: {str(e).removeprefix('policy: ')}") from None
        if at:
            pass  # the row names its own device
        elif preset is None:
            dev = COMMON_PRESET
        elif isinstance(preset, str) and preset == PAPER_DEVICES:
            dev = paper_preset(name)
        else:
            dev = preset
        if not isinstance(dev, SimConfig) and not (dev in DEVICE_PRESETS or str(dev).endswith(".toml")):
            raise CompareError(f"{label}: unknown device preset {dev!r}; expected one of "
                               f"{', '.join(DEVICE_PRESETS)} or a .toml path")
        rows.append((label, name, dev))
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise CompareError(f"policies: {', '.join(dup)} listed twice; name different devices with POLICY@PRESET")
    params = dict(params or {})
    by_label = {label: name for label, name, _ in rows}
    for key in params:
        if key not in by_label and key not in {n for _, n, _ in rows}:
            raise CompareError(f"-p {key}.…: {key!r} is not a compared policy; expected one of "
                               f"{', '.join(by_label)}")
    out = []
    for label, name, dev in rows:
        p = {**params.get(name, {}), **(params.get(label, {}) if label != name else {})}
        out.append(Row(label, name, dev, p))
    return out


def _tasks(rows, trace: str, repeat: int, seed: int, engine: str, snapshots: str = "") -> list:
    """One sweep RunTask per row, validated by the sweep spec parser (policy parameters included)."""
    from .sweep.identity import TraceHashCache, trace_identities
    from .sweep.spec import SpecError, load_spec

    tasks = []
    for row in rows:
        try:
            spec = load_spec({"traces": [row.trace or trace], "devices": [row.preset],
                              "policies": {row.policy: row.params}, "seeds": [seed], "repeat": repeat,
                              "engine": engine}, source=f"compare {row.label}")
        except SpecError as e:
            raise CompareError(str(e)) from None
        except (ValueError, OSError) as e:  # a preset or .toml the config loader rejects
            raise CompareError(f"compare {row.label}: {e}") from None
        task = spec.expand(trace_identities(spec.trace_targets(), TraceHashCache(None)))[0]
        tasks.append(dataclasses.replace(task, index=len(tasks), snapshots=snapshots))
    return tasks


def _execute(tasks: list, jobs: int | None, progress: bool) -> list:
    """Outcomes of ``tasks`` in task order: in this process for ``jobs`` 0 or 1, else on the sweep's
    local process pool (at most ``jobs`` workers, default: the CPUs available)."""
    from .sweep.progress import Progress
    from .sweep.runner import default_jobs, run_inline, run_local

    outcomes: dict = {}
    bar = Progress(len(tasks), 0, enabled=progress, desc="compare")

    def handle(task, outcome):
        outcomes[task.index] = outcome
        bar.update(outcome.ok)

    try:
        jobs = default_jobs() if jobs is None else int(jobs)
        if jobs <= 1 or len(tasks) == 1:
            run_inline(tasks, handle)
        else:
            run_local(tasks, min(jobs, len(tasks)), handle)
    finally:
        bar.close()
    return [outcomes[t.index] for t in tasks]


def pct_change(value: float, ref: float) -> float:
    """``value`` against ``ref`` in %: ``100 (value / ref - 1)``; 0 when both are 0, NaN when only ``ref`` is."""
    if ref == 0:
        return 0.0 if value == 0 else math.nan
    return 100.0 * (value / ref - 1.0)


def table(summaries: list, labels: list) -> pd.DataFrame:
    """The comparison frame from run summaries (one dict per row, in row order)."""
    import pandas as pd

    recs = []
    for label, s in zip(labels, summaries):
        rec = {"label": label, "policy": s["policy"], "device": s["device"], "trace": s["trace"],
               "repeat": s["repeat"], "requests": s["requests"]}
        rec.update({k: s.get(k, 0) for k in METRIC_KEYS})
        rec["die_idle_fraction_min"] = s["die_idle_fraction_min"]  # the busiest die's idle share (overload)
        rec["regime_warning"] = s.get("regime_warning", "")  # flashrr/regime_warning.py; "" inside its limits
        rec["sim_wall_s"] = s["sim_wall_s"]
        recs.append(rec)
    df = pd.DataFrame(recs).set_index("label")
    for k in METRIC_KEYS:
        ref = df[k].iloc[0]
        df[k + PCT_SUFFIX] = [pct_change(v, ref) for v in df[k]]
    return df


def _check_run_args(trace, repeat) -> None:
    if isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) or repeat < 1:
        raise CompareError(f"repeat: expected a positive integer, got {repeat!r}")
    if not isinstance(trace, str) or not trace.strip():
        raise CompareError(f"trace: expected a trace file or 'synth:PRESET?…' spec, got {trace!r}")


def _summaries(rows, trace: str, repeat: int, seed: int, jobs, progress: bool, engine: str, hint: str = "",
               snapshots=None) -> list:
    """The run summary of each row, in row order; CompareError naming every run that failed.
    ``snapshots``: as in :func:`compare`."""
    if snapshots is False:
        outcomes = _execute(_tasks(rows, trace, int(repeat), int(seed), engine), jobs, progress)
    elif snapshots is None:  # the rows on one device share one aged device for the comparison's duration
        with tempfile.TemporaryDirectory(prefix="flashrr-snapshots-") as tmp:
            outcomes = _execute(_tasks(rows, trace, int(repeat), int(seed), engine, tmp), jobs, progress)
    else:
        where = str(Path(snapshots).resolve())
        outcomes = _execute(_tasks(rows, trace, int(repeat), int(seed), engine, where), jobs, progress)
    failed = [f"{row.label} on {row.device_name}: {(out.error or 'unknown error').strip().splitlines()[-1]}"
              for row, out in zip(rows, outcomes) if not out.ok]
    if failed:
        raise CompareError(f"compare: {len(failed)} of {len(rows)} runs failed: " + "; ".join(failed) + hint)
    return [o.summary for o in outcomes]


def compare(policies=DEFAULT_POLICIES, trace: str = DEFAULT_TRACE, preset: str | None = None,
            repeat: int = DEFAULT_REPEAT, params: dict | None = None, seed: int = 0, jobs: int | None = None,
            progress: bool = False, engine: str = "compiled", snapshots=None) -> pd.DataFrame:
    """Run each of ``policies`` on ``trace`` and return one row per policy (index: the label given).

    ``policies``: names, or ``POLICY@PRESET`` to pick a row's device; a comma-separated string works
    too.  ``preset``: one device for every row without ``@``: a preset name, a .toml path or a
    SimConfig (default :data:`COMMON_PRESET`), or :data:`PAPER_DEVICES` for each policy's paper
    preset.  ``params``: ``{policy or label: {key: value}}``.  ``repeat``: replays of the trace.
    ``jobs``: worker processes (default: the CPUs available; 0 or 1 runs here).  ``snapshots``:
    where the rows that start from the same aged device find its snapshot (:mod:`flashrr.snapshots`;
    the results are the same): a directory, kept for later comparisons; None, a temporary
    directory for this comparison; False, every row preconditions its own device.

    Columns: ``policy``, ``device``, ``trace``, ``repeat``, ``requests``, every metric of
    :data:`METRICS` (latencies in ns, as in the run summary), ``die_idle_fraction_min`` (the
    busiest die's idle share), ``regime_warning`` (the run's, :mod:`flashrr.regime_warning`; "" when
    it is inside every limit), ``sim_wall_s`` and, per metric,
    ``<metric>_pct``: its change against the first row in % (:func:`pct_change`).
    Raises :class:`CompareError` for bad input, before anything runs, and when a run fails.
    """
    _check_run_args(trace, repeat)
    rows = plan_rows(policies, preset, params)
    hint = (f" (rows without @PRESET ran on {COMMON_PRESET!r}; --per-paper, --preset or POLICY@PRESET "
            "picks other devices)" if preset is None else "")
    summaries = _summaries(rows, trace, repeat, seed, jobs, progress, engine, hint, snapshots)
    return table(summaries, [r.label for r in rows])


def per_paper_rows(policies=PER_PAPER_POLICIES, params: dict | None = None) -> dict:
    """``{paper preset: rows}`` for :func:`compare_per_paper`: per paper (in order of first mention),
    Baseline on that paper's device, then each listed scheme of that paper.  ``baseline`` in
    ``policies`` is left out (every block has its own); ``params`` as in :func:`compare`, by policy."""
    if isinstance(policies, str):
        policies = policies.split(",")
    names = [str(p).strip() for p in policies if str(p).strip() != "baseline"]
    if any("@" in n for n in names):
        raise CompareError("policies: --per-paper runs each scheme on its paper's device; drop the @PRESET")
    rows = plan_rows(names, PAPER_DEVICES, params)  # validates names, presets and params
    blocks: dict = {}
    for row in rows:
        blocks.setdefault(row.preset, [Row("baseline", "baseline", row.preset, {})]).append(row)
    return blocks


def compare_per_paper(policies=PER_PAPER_POLICIES, trace: str | None = None, repeat: int | None = None,
                      params: dict | None = None, seed: int = 0, jobs: int | None = None, progress: bool = False,
                      engine: str = "compiled", snapshots=None) -> dict:
    """Each of ``policies`` against Baseline on its own paper's device: ``{paper preset: frame}``, one
    :func:`compare` frame per paper (first row Baseline on that device), all runs in one pool.

    ``trace`` None: each paper's block runs on its own quick plan's device and one of its traces, at
    the length its regime sets (:mod:`flashrr.paper_blocks`; Baseline alone decides it), with the
    plan's scheme parameters under ``params``; ``repeat`` then fixes the replays instead.  A trace
    spec runs every block on it, on the paper presets, ``repeat`` times (default
    :data:`DEFAULT_REPEAT`).  Each frame's ``attrs["block"]`` holds its
    :class:`~flashrr.paper_blocks.Block` (None on a given trace).  Other arguments as in
    :func:`compare`; a combined scheme needs parts of one paper."""
    if repeat is not None or trace is not None:
        _check_run_args(DEFAULT_TRACE if trace is None else trace, DEFAULT_REPEAT if repeat is None else repeat)
    blocks = per_paper_rows(policies, params)
    if trace is None:
        return _own_traces(blocks, repeat, seed, jobs, progress, engine, snapshots)
    rows = [r for block in blocks.values() for r in block]
    summaries = iter(_summaries(rows, trace, DEFAULT_REPEAT if repeat is None else repeat, seed, jobs, progress,
                                engine, snapshots=snapshots))
    out = {dev: table([next(summaries) for _ in block], [r.label for r in block]) for dev, block in blocks.items()}
    for df in out.values():
        df.attrs["block"] = None
    return out


def _own_traces(blocks: dict, repeat, seed, jobs, progress, engine, snapshots) -> dict:
    """:func:`compare_per_paper` with each block on its paper's trace and device
    (:func:`flashrr.paper_blocks.paper_blocks`); the snapshots of the Baseline calibrations and of
    the runs are shared as in :func:`compare`."""
    from .paper_blocks import PRESETS, paper_blocks

    other = [dev for dev in blocks if dev not in PRESETS]
    if other:
        raise CompareError(f"--per-paper: no paper trace for the device(s) {', '.join(map(str, other))}; "
                           "give --trace")

    def run(where):
        grounds = paper_blocks(list(blocks), repeat, where, jobs)
        rows = [dataclasses.replace(r, preset=grounds[dev].device, trace=grounds[dev].spec,
                                    params={**grounds[dev].params.get(r.policy, {}), **r.params})
                for dev, block in blocks.items() for r in block]
        shared = False if where is None else where
        summaries = iter(_summaries(rows, "", 1, seed, jobs, progress, engine, snapshots=shared))
        frames = {}
        for dev, block in blocks.items():
            frames[dev] = table([next(summaries) for _ in block], [r.label for r in block])
            frames[dev].attrs["block"] = grounds[dev]
        return frames

    if snapshots is False:
        return run(None)
    if snapshots is None:
        with tempfile.TemporaryDirectory(prefix="flashrr-snapshots-") as tmp:
            return run(tmp)
    return run(str(Path(snapshots).resolve()))


# ------------------------------------------------------------------------------------------------ output


def warning_lines(frames) -> list:
    """One line per row of ``frames`` (a :func:`compare` frame or several) whose run is outside a sane
    regime: ``warning: LABEL on DEVICE: ...`` (its ``regime_warning``)."""
    if not isinstance(frames, (list, tuple)):
        frames = [frames]
    return [f"warning: {label} on {r['device']}: {r['regime_warning']}" for df in frames
            for label, r in df.iterrows() if r.get("regime_warning")]


def _fmt(key: str, v) -> str:
    if key.endswith("_ns"):
        return f"{v / _NS_PER_US:,.1f}"
    if isinstance(v, (float, np.floating)):
        return f"{v:.3f}"
    return f"{int(v):,}"


def _fmt_pct(v: float) -> str:
    return "n/a" if not np.isfinite(v) else "0%" if v == 0 else f"{v:+.1f}%"


def _trace_line(df: pd.DataFrame, ref: str) -> str:
    first = df.iloc[0]
    return (f"trace {first['trace']} x {first['repeat']} replays ({first['requests']:,} requests per run); "
            f"second line of a row: change against {ref}")


def _table_lines(df: pd.DataFrame) -> list:
    head = ["policy", "device"] + [h for _, h in METRICS]
    lines = []
    for i, (label, r) in enumerate(df.iterrows()):
        lines.append([str(label), str(r["device"])] + [_fmt(k, r[k]) for k in METRIC_KEYS])
        if i:
            lines.append(["", ""] + [_fmt_pct(r[k + PCT_SUFFIX]) for k in METRIC_KEYS])
    widths = [max(len(head[i]), *(len(x[i]) for x in lines)) for i in range(len(head))]

    def line(cells):
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return [line(head), line(["-" * w for w in widths])] + [line(x).rstrip() for x in lines]


def format_table(df: pd.DataFrame) -> str:
    """The frame as text: one line per policy with its metrics, then a line with each metric's change
    against the first row in % (latencies in us)."""
    out = [_trace_line(df, df.index[0])]
    if df["device"].nunique() > 1:
        out.append("rows ran on different devices: a change mixes device and scheme (docs/compare.md)")
    return "\n".join(out + _table_lines(df))


#: Title of each paper preset's block in :func:`format_per_paper`.
PAPER_TITLE = {"shuffler": "Shuffler (TOS 2026)", "phasedrr": "PhasedRR (MSST 2024)",
               "cocktail": "Cocktail (TCAD 2023)", "hotr": "HotR"}


def format_per_paper(blocks: dict) -> str:
    """:func:`compare_per_paper`'s frames as text: per paper a title line (and, on the paper's own
    trace, a line naming the trace and how its length was chosen) and its table, each scheme's
    change against Baseline on that paper's device.  On one given trace, the trace is named once."""
    first = next(iter(blocks.values()))
    own = first.attrs.get("block") is not None
    out = ["each paper's block on its own device and trace; second line of a row: change against baseline "
           "on the same device and trace" if own else _trace_line(first, "baseline on the same device")]
    for dev, df in blocks.items():
        b = df.attrs.get("block")
        out += ["", f"{PAPER_TITLE.get(dev, dev)}: its schemes on its device ({df['device'].iloc[0]})"]
        if b is not None:
            out.append(f"{b.describe()}; {df['requests'].iloc[0]:,} requests per run")
        out += _table_lines(df)
    return "\n".join(out)


def _save(fig, path):
    """Write ``fig`` to ``path`` (format from the suffix) and close it, if ``path`` is given; return ``fig``."""
    if path is not None:
        import matplotlib.pyplot as plt

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=130)
        plt.close(fig)
    return fig


def plot(df: pd.DataFrame, path=None):
    """A small multi-panel bar chart of ``df`` (one panel per metric, one bar per row, in its scheme's
    colour; a panel whose values span more than 20x on a log axis; an overloaded run hatched when ``df``
    has ``die_idle_fraction_min``), written to ``path`` (PNG, or any format matplotlib infers from the
    suffix) when given; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from matplotlib.ticker import EngFormatter

    from .reproduce import palette, plots

    shown = [(k, h) for k, h in METRICS if k not in ("policy_metadata_bytes",)]
    ncols = 5
    nrows = math.ceil(len(shown) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.3 * ncols, 2.4 * nrows), layout="constrained", squeeze=False)
    labels = [f"{i}\n({d})" for i, d in zip(df.index, df["device"])]
    colors = [palette.colour(p, i) for i, p in enumerate(df["policy"])]
    over = (plots.overloaded(df["die_idle_fraction_min"]) if "die_idle_fraction_min" in df.columns
            else np.zeros(len(df), dtype=bool))
    x = np.arange(len(df))
    for ax, (key, head) in zip(axes.flat, shown):
        vals = df[key].to_numpy(dtype=float) / (_NS_PER_US if key.endswith("_ns") else 1)
        ax.bar(x, vals, color=colors)
        plots.mark_overloaded(ax, x[over], vals[over])
        ax.set_title(head, fontsize=8)
        ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=6)
        ax.tick_params(axis="y", labelsize=6)
        if plots.wide_span(vals):
            plots.log_axis(ax, vals, room=2.0)
        else:
            ax.yaxis.set_major_formatter(EngFormatter(sep=""))  # 5M, not a 1e6 offset label
    for ax in list(axes.flat)[len(shown):]:
        ax.set_axis_off()
    first = df.iloc[0]
    fig.suptitle(f"{first['trace']} x {first['repeat']}" + (f"; {plots.OVERLOAD_NOTE}" if over.any() else ""),
                 fontsize=8)
    return _save(fig, path)


#: Every scheme of the four RR papers and the schemes each was compared with, for :func:`cross_paper_figure`.
CROSS_PAPER_POLICIES = ("baseline", "page", "page-8", "page-64", "shuffler", "phasedrr", "rl-rr", "reallocation",
                        "cocktail", "redftl", "ipr", "hotr", "rails", "ttflash", "optimal")


def cross_paper_device():
    """The one device of the cross-paper figure: Cocktail's Table I device without its data cache.
    Cocktail's write pool needs single-block superblocks, Rails and TTFlash need a device without data
    cache, and RR must be on (the ``hotr`` preset has it off); this is the nearest paper preset that
    meets all three.  Cocktail's cache holds writes only (reads are not cached), so dropping it changes
    write buffering, not read hits (docs/compare.md)."""
    from .config import SimConfig

    return SimConfig.preset("cocktail").replace(capacity_bytes=0, name="cocktail-nocache")
_PAPER_OF = {"shuffler": "Shuffler", "phasedrr": "PhasedRR", "cocktail": "Cocktail", "hotr": "HotR"}


def cross_paper_figure(df: pd.DataFrame, path=None):
    """Read latency against RR count, one point per row of a :func:`compare` frame (all on one device
    and trace): mean read latency on the left, p99.99 on the right, each point in its scheme's colour
    (:mod:`flashrr.reproduce.palette`) and shaped by the paper whose device preset the policy comes
    from.  Writes ``path`` when given; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .reproduce import palette

    fig, axes = plt.subplots(1, 2, figsize=(10.0, 4.2), layout="constrained")
    papers = ["Baseline" if p == "baseline" else _PAPER_OF.get(PAPER_PRESET.get(p, ""), "other")
              for p in df["policy"]]
    markers = {name: "sov^D*"[i % 6] for i, name in enumerate(dict.fromkeys(papers))}
    for ax, key, title in ((axes[0], "read_latency_mean_ns", "mean read latency (us)"),
                           (axes[1], "read_latency_p9999_ns", "p99.99 read latency (us)")):
        x = df["rr_count"].to_numpy(dtype=float)
        y = df[key].to_numpy(dtype=float) / _NS_PER_US
        names: dict = {}  # rows with the same point share one label
        for i, (xi, yi, label, paper, policy) in enumerate(zip(x, y, df.index, papers, df["policy"])):
            ax.scatter(xi, yi, color=palette.colour(policy, i), marker=markers[paper], edgecolor="black",
                       linewidth=0.3, s=26, zorder=2 if paper != "Baseline" else 3)
            names.setdefault((xi, yi), []).append(str(label))
        right = x.min() + 0.7 * (x.max() - x.min())
        for (xi, yi), labels in names.items():
            left = xi > right  # labels of the rightmost points go to their left, inside the axes
            ax.annotate("\n".join(labels), (xi, yi), textcoords="offset points", xytext=(-4 if left else 4, 2),
                        ha="right" if left else "left", va="bottom", fontsize=6)
        ax.set_xlabel("RR count")
        ax.set_ylabel(title)
        ax.set_yscale("log")
        ax.margins(x=0.08, y=0.15)
    shapes = [plt.Line2D([], [], marker=m, linestyle="", color="0.3", label=name) for name, m in markers.items()]
    axes[1].legend(handles=shapes, fontsize=7, title="paper (colour: scheme)", title_fontsize=7)
    first = df.iloc[0]
    fig.suptitle(f"Every scheme on one device ({first['device']}) and trace ({first['trace']} x "
                 f"{first['repeat']})", fontsize=9)
    return _save(fig, path)


def write_figure(df: pd.DataFrame, fig, out, stem: str) -> Path:
    """Write ``df`` as OUT/STEM.csv and ``fig`` as OUT/STEM.png and .pdf; returns OUT."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / f"{stem}.csv")
    for ext in ("png", "pdf"):
        fig.savefig(out / f"{stem}.{ext}", dpi=130)
    return out


def composable_pairs(policies=CROSS_PAPER_POLICIES) -> tuple:
    """Every pair ``"a+b"`` of ``policies`` (Baseline left out: adding it changes nothing)
    that composes, in the order of ``policies``; and ``{pair: reason}`` for those that
    clash (:mod:`flashrr.policy_combine`)."""
    from .policies import make_policy
    from .policy_combine import CombineError

    names = [p for p in policies if p != "baseline"]
    ok, clash = [], {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            try:
                make_policy(f"{a}+{b}")
            except CombineError as e:
                clash[f"{a}+{b}"] = str(e)
            else:
                ok.append(f"{a}+{b}")
    return ok, clash


def pairs_figure(df: pd.DataFrame, path=None):
    """RR count against mean read latency for the single schemes and their composable
    pairs, all on one device and trace (one :func:`compare` frame): singles as dots,
    pairs as crosses, Baseline in grey.  Rows with the same point share one label, the
    first row's name and how many more (a scheme that does nothing on the device, such
    as Shuffler on single-block superblocks, leaves its partner's point unchanged).
    Writes ``path`` when given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .reproduce import palette

    fig, ax = plt.subplots(figsize=(9.0, 5.6), layout="constrained")
    pair = df.index.str.contains("+", regex=False)
    base = df.index == "baseline"
    singles = [palette.colour(p, i) for i, p in enumerate(df.index[~pair & ~base])]
    for mask, style in ((~pair & ~base, dict(marker="o", color=singles, label="one scheme (its colour)")),
                        (pair, dict(marker="x", color=palette.SERIES_COLOURS[0], label="two schemes combined")),
                        (base, dict(marker="s", color=palette.BASELINE_GREY, label="Baseline"))):
        sub = df[mask]
        ax.scatter(sub["rr_count"], sub["read_latency_mean_ns"] / _NS_PER_US, s=24, **style)
    same: dict = {}
    for label, row in df.iterrows():
        same.setdefault((row["rr_count"], row["read_latency_mean_ns"]), []).append(str(label))
    for (x, y), labels in same.items():
        text = labels[0] + (f" (+{len(labels) - 1} same)" if len(labels) > 1 else "")
        ax.annotate(text, (x, y / _NS_PER_US), textcoords="offset points", xytext=(3, 2), fontsize=6)
    ax.set_xlabel("RR count")
    ax.set_ylabel("mean read latency (us)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    first = df.iloc[0]
    fig.suptitle(f"Schemes and their combinations on one device ({first['device']}) and trace "
                 f"({first['trace']} x {first['repeat']})", fontsize=9)
    return _save(fig, path)


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
