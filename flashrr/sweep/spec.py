"""Sweep specs: parse and validate a TOML file or a dict, then expand it into runs.

Structure (see ``docs/sweeps.md``)::

    description = "free text"             # optional
    seeds = [0, 1]                        # or one integer; default [0]
    repeat = 1                            # replays of the trace per run; default 1
    engine = "compiled"                   # or "reference"; default "compiled"
    keep = ["rr_events", "hist"]          # artifacts kept per run; default none
    imports = ["my_policies"]             # modules imported first (custom policies)
    traces = ["synth:lun0?n_requests=20000", "data/usr_0.csv?fold=modulo&repeat=8"]
    devices = ["shuffler"]                # preset names, .toml paths or tables
    [[device]]                            # more devices: a base plus overrides
    preset = "shuffler"                   # or config = "path/to/device.toml"
    name = "shuffler-32MB"
    capacity_bytes = 33554432             # any SimConfig field (or section table)
    [policies]
    baseline = {}
    shuffler = { delta_f = [0.2, 0.3], delta_p = [0.1] }    # lists form a grid

A policy may also map to a list of tables, whose grids are concatenated.  To
give a list as *one* parameter value, wrap it in another list.  Relative
paths (traces, device ``.toml`` files) resolve against the spec file's
directory (for a dict spec: ``base_dir``, default the working directory).

Every check runs before any simulation: an error names the spec and the entry,
e.g. ``spec.toml: policies.shuffler: unknown parameter 'delta_x'``.
"""
from __future__ import annotations

import importlib
import inspect
import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import ConfigError, SimConfig
from ..trace.pipeline import TraceSpecError, is_model_preset, parse_trace_spec
from .task import KEEP_CHOICES, RunTask, canonical_json, run_key

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

TOP_LEVEL_KEYS = ("description", "seeds", "repeat", "engine", "keep", "imports", "traces", "devices", "device",
                  "policies")
DEVICE_BASE_KEYS = ("preset", "config")


class SpecError(ValueError):
    """An invalid sweep spec; the message starts with ``<source>: <entry>:``."""


@dataclass(frozen=True)
class TraceEntry:
    """One ``traces`` entry: ``text`` as written; ``target`` what workers load
    (the canonical trace spec, see :mod:`flashrr.trace.pipeline`: a synth spec,
    or the trace or model file's absolute path, with the pipeline); ``kind`` is
    ``synth``, ``file`` or ``model``."""

    where: str
    text: str
    kind: str
    target: str


@dataclass(frozen=True)
class DeviceEntry:
    where: str
    config: SimConfig


@dataclass(frozen=True)
class PolicyPoint:
    """One point of a policy's parameter grid: constructor ``params`` and the
    policy's full parameters ``key_params`` (defaults overlaid with ``params``)."""

    where: str
    name: str
    params: dict
    key_params: dict


@dataclass(frozen=True)
class SweepSpec:
    """A validated spec.  :meth:`expand` turns it into runs."""

    source: str
    base_dir: Path
    description: str
    seeds: tuple
    repeat: int
    engine: str
    keep: tuple
    imports: tuple
    traces: tuple
    devices: tuple
    policies: tuple

    @property
    def n_combinations(self) -> int:
        """traces x devices x policy points x seeds (before duplicates are dropped)."""
        return len(self.traces) * len(self.devices) * len(self.policies) * len(self.seeds)

    def trace_targets(self) -> dict:
        """``{target: kind}`` of the distinct traces, in spec order."""
        return {t.target: t.kind for t in self.traces}

    def expand(self, trace_ids: dict) -> list:
        """The runs, in a fixed order: traces, then devices, then policy points,
        then seeds (innermost).  ``trace_ids`` maps each trace target to its
        identity.  Combinations with the same key appear once (the first)."""
        tasks: list[RunTask] = []
        seen = set()
        for tr, dev, pol, seed in itertools.product(self.traces, self.devices, self.policies, self.seeds):
            tid = trace_ids[tr.target]
            key = run_key(dev.config.to_dict(), tid, pol.name, pol.key_params, seed, self.repeat, self.engine)
            if key in seen:
                continue
            seen.add(key)
            tasks.append(RunTask(index=len(tasks), key=key, trace_source=tr.text, trace_target=tr.target,
                                 trace_id=tid, device=dev.config, policy=pol.name, params=dict(pol.params),
                                 key_params=dict(pol.key_params), seed=seed, repeat=self.repeat,
                                 engine=self.engine, keep=self.keep, imports=self.imports))
        return tasks


def load_spec(spec, *, base_dir=None, source: str | None = None) -> SweepSpec:
    """Parse and validate a spec given as a path to a TOML file, a dict of the same
    structure, or an already loaded :class:`SweepSpec`.  Raises :class:`SpecError`."""
    if isinstance(spec, SweepSpec):
        return spec
    if isinstance(spec, dict):
        src = source or "<spec>"
        base = Path(base_dir) if base_dir is not None else Path.cwd()
        return _parse(dict(spec), src, base.resolve())
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        src = source or str(spec)
        try:
            text = path.read_text()
        except OSError as e:
            raise SpecError(f"{src}: cannot read sweep spec: {e.strerror}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise SpecError(f"{src}: not valid TOML: {e}") from None
        base = Path(base_dir) if base_dir is not None else path.resolve().parent
        return _parse(data, src, base.resolve())
    raise SpecError(f"sweep spec: expected a path to a .toml file or a dict, got {type(spec).__name__}")


# ------------------------------------------------------------------------------------------------ parsing


class _Ctx:
    def __init__(self, source: str, base_dir: Path):
        self.source = source
        self.base_dir = base_dir

    def error(self, where: str, msg: str) -> SpecError:
        return SpecError(f"{self.source}: {where}: {msg}")

    def path(self, text: str) -> Path:
        p = Path(text).expanduser()
        return p if p.is_absolute() else self.base_dir / p


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _parse(data: dict, source: str, base_dir: Path) -> SweepSpec:
    ctx = _Ctx(source, base_dir)
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            raise ctx.error(key, f"unknown key; expected one of {', '.join(TOP_LEVEL_KEYS)}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ctx.error("description", f"must be a string, got {description!r}")
    imports = _imports(ctx, data.get("imports", []))
    return SweepSpec(
        source=source, base_dir=base_dir, description=description,
        seeds=_seeds(ctx, data.get("seeds", [0])), repeat=_repeat(ctx, data.get("repeat", 1)),
        engine=_engine(ctx, data.get("engine", "compiled")), keep=_keep(ctx, data.get("keep", [])),
        imports=imports, traces=_traces(ctx, data.get("traces")),
        devices=_devices(ctx, data.get("devices", []), data.get("device", [])),
        policies=_policies(ctx, data.get("policies")),
    )


def _seeds(ctx, seeds) -> tuple:
    if _is_int(seeds):
        seeds = [seeds]
    if not isinstance(seeds, list) or not seeds:
        raise ctx.error("seeds", f"must be a non-empty list of non-negative integers, got {seeds!r}")
    for i, s in enumerate(seeds):
        if not _is_int(s) or s < 0:
            raise ctx.error(f"seeds[{i}]", f"must be a non-negative integer, got {s!r}")
        if s in seeds[:i]:
            raise ctx.error(f"seeds[{i}]", f"seed {s} is listed twice")
    return tuple(seeds)


def _repeat(ctx, repeat) -> int:
    if not _is_int(repeat) or repeat < 1:
        raise ctx.error("repeat", f"must be a positive integer, got {repeat!r}")
    return repeat


def _engine(ctx, engine) -> str:
    from ..simulate import ENGINES

    if engine not in ENGINES:
        raise ctx.error("engine", f"must be one of {', '.join(ENGINES)}, got {engine!r}")
    return engine


def _keep(ctx, keep) -> tuple:
    if not isinstance(keep, list):
        raise ctx.error("keep", f"must be a list drawn from {', '.join(KEEP_CHOICES)}, got {keep!r}")
    for i, k in enumerate(keep):
        if k not in KEEP_CHOICES:
            raise ctx.error(f"keep[{i}]", f"unknown artifact {k!r}; expected one of {', '.join(KEEP_CHOICES)}")
    return tuple(k for k in KEEP_CHOICES if k in keep)


def _imports(ctx, imports) -> tuple:
    if not isinstance(imports, list) or not all(isinstance(m, str) and m for m in imports):
        raise ctx.error("imports", f"must be a list of module names, got {imports!r}")
    for i, mod in enumerate(imports):
        try:
            importlib.import_module(mod)
        except Exception as e:  # an ImportError, or any error the module raises while importing
            raise ctx.error(f"imports[{i}]", f"cannot import {mod!r}: {type(e).__name__}: {e}") from None
    return tuple(imports)


def _traces(ctx, traces) -> tuple:
    if traces is None:
        raise ctx.error("traces", "missing: give a list of trace files or 'synth:PRESET?...' specs")
    if not isinstance(traces, list) or not traces:
        raise ctx.error("traces", f"must be a non-empty list of strings, got {traces!r}")
    out = []
    for i, text in enumerate(traces):
        where = f"traces[{i}]"
        if not isinstance(text, str) or not text.strip():
            raise ctx.error(where, f"must be a file path or a 'synth:PRESET?...' spec, got {text!r}")
        try:
            parsed = parse_trace_spec(text)
        except TraceSpecError as e:
            raise ctx.error(where, f"{e.spec!r}: {e.detail}") from None
        if parsed.kind == "synth" or (parsed.kind == "model" and is_model_preset(parsed.base)):
            out.append(TraceEntry(where, text, "synth", parsed.canonical()))  # generated: the spec is its identity
            continue
        path = ctx.path(parsed.base)
        what = "model file" if parsed.kind == "model" else "trace file"
        if not path.is_file():
            raise ctx.error(where, f"{what} {parsed.base!r} not found (looked for {path})")
        out.append(TraceEntry(where, text, parsed.kind, parsed.canonical(str(path.resolve()))))
    return tuple(out)


def _devices(ctx, devices, tables) -> tuple:
    if not isinstance(devices, list):
        raise ctx.error("devices", f"must be a list of preset names, .toml paths or tables, got {devices!r}")
    if isinstance(tables, dict):
        tables = [tables]
    if not isinstance(tables, list):
        raise ctx.error("device", f"must be [[device]] tables, got {tables!r}")
    entries = [(f"devices[{i}]", d) for i, d in enumerate(devices)]
    entries += [(f"device[{i}]", d) for i, d in enumerate(tables)]
    if not entries:
        raise ctx.error("devices", "missing: give devices = [\"PRESET\", ...] or [[device]] tables")
    out: list[DeviceEntry] = []
    by_name: dict[str, DeviceEntry] = {}
    for where, d in entries:
        cfg = _device(ctx, where, d)
        where = _device_where(where, d)
        other = by_name.get(cfg.name)
        if other is not None and other.config != cfg:
            raise ctx.error(where, f"device name {cfg.name!r} is also used by {other.where} with a different "
                                   "configuration; give each device a distinct 'name'")
        entry = DeviceEntry(where, cfg)
        by_name.setdefault(cfg.name, entry)
        out.append(entry)
    return tuple(out)


def _device_where(where: str, d) -> str:
    """``device[0] (name)`` when the table names its device."""
    return f"{where} ({d['name']})" if isinstance(d, dict) and isinstance(d.get("name"), str) else where


def _device(ctx, where: str, d) -> SimConfig:
    where = _device_where(where, d)
    try:
        if isinstance(d, str):
            return _base_config(ctx, d)
        if isinstance(d, SimConfig):
            return d
        if not isinstance(d, dict):
            raise ctx.error(where, f"must be a preset name, a .toml path or a table, got {d!r}")
        d = dict(d)
        bases = [k for k in DEVICE_BASE_KEYS if k in d]
        if len(bases) != 1:
            raise ctx.error(where, "needs exactly one of 'preset' (a device preset name) or 'config' "
                                   "(a device .toml path)")
        base_text = d.pop(bases[0])
        if not isinstance(base_text, str):
            raise ctx.error(f"{where}.{bases[0]}", f"must be a string, got {base_text!r}")
        base = SimConfig.preset(base_text) if bases[0] == "preset" else SimConfig.load(ctx.path(base_text))
        name = d.pop("name", None)
        if name is not None and not isinstance(name, str):
            raise ctx.error(f"{where}.name", f"must be a string, got {name!r}")
        cfg = base.replace(**d) if d else base
        if name is None and d:
            name = f"{base.name}[{','.join(f'{k}={canonical_json(v)}' for k, v in d.items())}]"
        return cfg.replace(name=name) if name is not None else cfg
    except ConfigError as e:
        raise ctx.error(where, str(e)) from None


def _base_config(ctx, text: str) -> SimConfig:
    if text.endswith(".toml"):
        return SimConfig.load(ctx.path(text))
    return SimConfig.preset(text)


def _policies(ctx, policies) -> tuple:
    from ..policies import make_policy, policy_class

    if policies is None:
        raise ctx.error("policies", "missing: give a [policies] table, e.g. baseline = {}")
    if not isinstance(policies, dict) or not policies:
        raise ctx.error("policies", f"must be a non-empty table of policy = {{parameters}}, got {policies!r}")
    points: list[PolicyPoint] = []
    for name, body in policies.items():
        where = f"policies.{name}"
        try:
            cls = policy_class(name)
        except ValueError as e:
            raise ctx.error(where, str(e).removeprefix("policy: ")) from None
        tables = body if isinstance(body, list) else [body]
        if not tables or not all(isinstance(t, dict) for t in tables):
            raise ctx.error(where, f"must be a table of parameters or a list of such tables, got {body!r}")
        for ti, table in enumerate(tables):
            w = where if len(tables) == 1 else f"{where}[{ti}]"
            _check_param_names(ctx, w, cls, table)
            grid = list(_grid(ctx, w, table))
            for params in grid:
                wp = w if len(grid) == 1 else f"{w} {{{', '.join(f'{k}={v!r}' for k, v in params.items())}}}"
                try:
                    pol = make_policy(name, **params)
                except (TypeError, ValueError) as e:
                    raise ctx.error(wp, str(e)) from None
                key_params = {**pol.params(), **params}
                try:
                    canonical_json(key_params)
                except (TypeError, ValueError) as e:
                    raise ctx.error(wp, f"parameters must be numbers, strings, booleans or lists: {e}") from None
                points.append(PolicyPoint(w, name, params, key_params))
    return tuple(points)


def _check_param_names(ctx, where: str, cls: type, table: dict) -> None:
    """Name an unknown parameter ourselves when the constructor's signature lists its
    parameters (the constructor's own TypeError is used otherwise)."""
    try:
        sig = inspect.signature(cls.__init__)
    except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
        return
    params = list(sig.parameters.values())[1:]
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    known = [p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                   inspect.Parameter.KEYWORD_ONLY)]
    for name in table:
        if name not in known:
            raise ctx.error(where, f"unknown parameter {name!r}; expected one of {', '.join(known) or '(none)'}")


def _grid(ctx, where: str, table: dict):
    """Every combination of the table's values (a list is an axis of the grid)."""
    names, axes = [], []
    for name, value in table.items():
        values: list[Any] = value if isinstance(value, list) else [value]
        if not values:
            raise ctx.error(f"{where}.{name}", "is an empty list; give at least one value")
        names.append(name)
        axes.append(values)
    for combo in itertools.product(*axes):
        yield dict(zip(names, combo))
