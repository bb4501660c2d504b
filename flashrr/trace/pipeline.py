"""Trace pipelines: a trace named as text, with subsets and transformations.

A trace spec is a file path, ``synth:PRESET`` or ``model:MODEL.toml`` (a
fitted workload model, :mod:`flashrr.trace.model`), optionally followed by
``?`` and ``key=value`` pairs joined by ``&``::

    usr_0.csv?fold=modulo&amplify_reads=4&scale_time=0.5&repeat=8&skip_bad=1
    usr_0.csv?pack=stripe&repeat=64
    usr_0.csv?start_s=3600&duration_s=600
    synth:lun0?n_requests=20000&seed=1&repeat=128
    model:usr_0.toml?n_requests=1000000&seed=2&fold=modulo
    model:lun0?n_requests=200000&seed=1

The same text works in ``flashrr run --trace``, ``flashrr trace stats|convert``,
sweep specs (``traces = [...]``) and :func:`flashrr.simulate`.

Keys (:data:`PIPELINE_KEYS`), applied in this fixed order whatever their order
in the text:

1. reading (trace files only): ``format=NAME`` (skip sniffing),
   ``skip_bad=1`` (skip and count malformed lines), and the reading options
   of formats that need assumptions (``block_bytes=N``, ``op=read|write``,
   ``gap_ns=N``, ``time_unit=s|ms|us|ns``; see
   :mod:`flashrr.trace.formats_libcachesim`), which the format read must take;
2. ``time_resolution_s=R``: requests that share an arrival time spread evenly
   over the R seconds that follow it (or up to the next time, if sooner), for a
   tracer that wrote coarse times (:func:`flashrr.trace.transform.spread_ties`;
   Tencent CBS writes whole seconds);
3. subsets of the trace as read: ``start_s=S`` and ``duration_s=D`` keep the
   requests arriving in ``[S, S + D)`` seconds after the first request
   (either may be left out: from 0, to the end), rebased to start at 0; then
   ``first=N`` keeps the first N requests;
4. ``pack=page``, ``pack=stripe`` or ``pack=N``: the pages (or the device's
   placement stripes, :func:`flashrr.trace.packing.stripe_pages`, or units of
   N aligned pages; each page keeping its place in its unit, so a stripe keeps
   its component block) the trace touches
   renumbered densely from 0 in address order at the device's page size, so
   the trace occupies its own footprint, as a trace-driven simulator that
   writes only the touched pages places it (:func:`flashrr.trace.packing.pack`;
   needs a device; two passes over the trace);
5. ``fold=modulo``: addresses folded onto the device's logical capacity and
   page size (:func:`flashrr.trace.transform.fold`; needs a device), for a
   trace whose footprint is larger than the device;
6. ``amplify_reads=RAF``: every read repeated RAF times; ``amplify_spacing=spread``
   spreads the copies evenly over the gap to the next request (default ``same``:
   all at the read's arrival time);
7. ``scale_time=F``: arrival times multiplied by F (F < 1 raises the load);
8. ``repeat=N``: the trace played N times back to back.

Any other key of a ``synth:`` spec is a parameter of the generator
(``n_requests``, ``seed`` and the :class:`~flashrr.trace.synth.SynthParams`
fields); a ``model:`` spec takes ``n_requests`` (default: the request count of
the trace the model was fitted to) and ``seed`` (default 0).  ``model:PRESET``
(a paper trace-table row, :mod:`flashrr.trace.model.presets`) also takes
``mean_gap_ns``.  Unknown keys, keys given twice and bad values raise
:class:`~flashrr.trace.core.TraceError` naming the key, before any trace is
read.  :meth:`TraceSpec.canonical` is the spec with keys in a fixed order and
values in a fixed form, identity transforms (``repeat=1``, ``skip_bad=0``...)
dropped; sweeps use it in a run's key, so two different pipelines over one
file are two runs.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from pathlib import Path

from .core import TraceError
from .source import MemorySource, TraceSource
from .stages import AmplifyReads, FirstRequests, Fold, Pack, Repeat, ScaleTime, SpreadTies, TimeWindow

__all__ = ["TraceSpec", "TraceSpecError", "parse_trace_spec", "open_trace_spec", "open_base", "apply_pipeline",
           "PIPELINE_KEYS", "SYNTH_PREFIX", "MODEL_PREFIX"]

SYNTH_PREFIX = "synth:"
MODEL_PREFIX = "model:"
FOLD_MODES = ("modulo",)
NS_PER_S = 1_000_000_000
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _int_value(raw: str) -> int:
    v = int(raw.strip())
    if v < 1:
        raise ValueError
    return v


def _nonnegative_int(raw: str) -> int:
    v = int(raw.strip())
    if v < 0:
        raise ValueError
    return v


def _float_value(raw: str) -> float:
    v = float(raw)
    if not math.isfinite(v) or v <= 0:
        raise ValueError
    return v


def _seconds_ns(raw: str) -> int:
    d = Decimal(raw.strip())
    if not d.is_finite() or d < 0 or d.adjusted() > 8:
        raise ValueError
    return int((d * NS_PER_S).to_integral_value(rounding=ROUND_HALF_EVEN))


def _positive_seconds_ns(raw: str) -> int:
    v = _seconds_ns(raw)
    if v < 1:
        raise ValueError
    return v


def _bool_value(raw: str) -> bool:
    t = raw.strip().lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise ValueError


def _format_value(raw: str) -> str:
    from .formats import get_format

    try:
        return get_format(raw.strip()).name
    except TraceError:
        raise ValueError from None


def _reading_option(name: str):
    from .formats_libcachesim import OPTION_SPECS, parse_option

    return (lambda raw: parse_option(name, raw)), OPTION_SPECS[name][1], str, None


def _spacing_value(raw: str) -> str:
    from .transform import AMPLIFY_SPACINGS

    t = raw.strip().lower()
    if t not in AMPLIFY_SPACINGS:
        raise ValueError
    return t


def _pack_value(raw: str):
    from .packing import PACK_UNITS

    t = raw.strip().lower()
    if t in PACK_UNITS:
        return t
    return _int_value(t)


def _fold_value(raw: str) -> str:
    t = raw.strip().lower()
    if t not in FOLD_MODES:
        raise ValueError
    return t


def _seconds_text(ns: int) -> str:
    s = format(Decimal(ns) / NS_PER_S, "f")
    return s.rstrip("0").rstrip(".") if "." in s else s


# key -> (parser, what a valid value is, canonical text of a value, identity value or None)
PIPELINE_KEYS = {
    "format": (_format_value, "a trace format name", str, None),
    "skip_bad": (_bool_value, "1 or 0 (true/false)", lambda v: "1", False),
    **{name: _reading_option(name) for name in ("block_bytes", "op", "gap_ns", "time_unit")},
    "time_resolution_s": (_positive_seconds_ns, "a number of seconds > 0 (the tracer's time resolution)",
                          _seconds_text, None),
    "start_s": (_seconds_ns, "a number of seconds >= 0", _seconds_text, 0),
    "duration_s": (_positive_seconds_ns, "a number of seconds > 0 (at least 1 ns)", _seconds_text, None),
    "first": (_int_value, "a positive integer (requests)", str, None),
    "pack": (_pack_value, "page, stripe or a positive number of pages (the unit packed from page 0)", str, None),
    "fold": (_fold_value, f"one of {', '.join(FOLD_MODES)}", str, None),
    "amplify_reads": (_int_value, "a positive integer (copies of each read)", str, 1),
    "amplify_spacing": (_spacing_value, "one of same, spread (arrival of the read copies)", str, "same"),
    "scale_time": (_float_value, "a finite number > 0 (time factor)", repr, 1.0),
    "repeat": (_int_value, "a positive integer (replays)", str, 1),
}
READING_OPTIONS = ("block_bytes", "op", "gap_ns", "time_unit")
_FILE_ONLY = ("format", "skip_bad") + READING_OPTIONS
_SYNTH_EXTRA_NAMES = ("n_requests", "seed")
# generator keys of a model: spec -> (parser, what a valid value is)
_MODEL_KEYS = {"n_requests": (_int_value, "a positive integer (requests)"),
               "mean_gap_ns": (_float_value, "a positive number of ns (mean arrival gap; model presets only)"),
               "seed": (lambda raw: _nonnegative_int(raw), "an integer >= 0")}


class TraceSpecError(TraceError):
    """A malformed trace spec: ``spec`` is the text, ``detail`` what is wrong."""

    def __init__(self, spec, detail: str):
        super().__init__(f"trace spec {spec!r}: {detail}")
        self.spec, self.detail = spec, detail


@dataclass(frozen=True)
class TraceSpec:
    """A parsed trace spec.

    * ``text``: the spec as given.
    * ``kind``: ``"file"``, ``"synth"`` or ``"model"``.
    * ``base``: the file path as given (the model file's, for ``model:``), or
      ``synth:PRESET`` with its generator parameters in canonical form.
    * ``synth_params``: generator parameters (values as Python literals; for
      ``model:``, ``n_requests`` and ``seed`` as integers).
    * ``steps``: pipeline keys with parsed values (identity values dropped).
    """

    text: str
    kind: str
    base: str
    synth_params: dict = field(default_factory=dict)
    steps: dict = field(default_factory=dict)

    @property
    def fmt(self) -> str | None:
        return self.steps.get("format")

    @property
    def skip_bad(self) -> bool:
        return bool(self.steps.get("skip_bad", False))

    @property
    def options(self) -> dict:
        """The format's reading options the spec gives."""
        return {k: self.steps[k] for k in READING_OPTIONS if k in self.steps}

    def query(self) -> str:
        """The pipeline keys in canonical order and form (without ``?``)."""
        return "&".join(f"{k}={PIPELINE_KEYS[k][2](self.steps[k])}" for k in PIPELINE_KEYS if k in self.steps)

    def canonical(self, base: str | None = None) -> str:
        """The spec in canonical form; ``base`` replaces the file path (e.g. by
        the file's content hash or absolute path)."""
        head = self.base if base is None else base
        if self.kind == "model":
            gen = "&".join(f"{k}={self.synth_params[k]}" for k in sorted(self.synth_params))
            head = f"{MODEL_PREFIX}{head}" + (f"?{gen}" if gen else "")
        q = self.query()
        if not q:
            return head
        return f"{head}{'&' if '?' in head else '?'}{q}"

    def with_fold(self) -> str:
        """This spec's text with ``fold=modulo`` added (for "does not fit" advice)."""
        if "fold" in self.steps:
            return self.text
        return f"{self.text}{'&' if '?' in self.text else '?'}fold=modulo"

    @property
    def needs_device(self) -> bool:
        return "fold" in self.steps or "pack" in self.steps


def _split_query(text: str, query: str) -> list[tuple[str, str]]:
    items, seen = [], set()
    for part in query.split("&"):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise TraceSpecError(text, f"{part.strip()!r}: expected name=value")
        if key in seen:
            raise TraceSpecError(text, f"key {key!r} is given twice")
        seen.add(key)
        items.append((key, value.strip()))
    return items


def _known_keys(kind: str) -> list[str]:
    keys = [k for k in PIPELINE_KEYS if kind == "file" or k not in _FILE_ONLY]
    return keys


def parse_trace_spec(text) -> TraceSpec:
    """Parse and check a trace spec (see the module docstring).  A path-like
    object, or a string naming an existing file, is a plain file path even if
    it holds a ``?``.  TraceError names the key for any unknown key or bad value."""
    if hasattr(text, "__fspath__"):
        return TraceSpec(str(text), "file", str(text))
    if not isinstance(text, str) or not text.strip():
        raise TraceError(f"trace spec: expected a file path or 'synth:PRESET[?key=value&...]', got {text!r}")
    if text.startswith(SYNTH_PREFIX):
        kind = "synth"
        head, _, query = text.partition("?")
        head = SYNTH_PREFIX + head[len(SYNTH_PREFIX):].strip()
        if head == SYNTH_PREFIX:
            raise TraceSpecError(text, "missing preset name after 'synth:'")
    elif text.startswith(MODEL_PREFIX):
        return _parse_model_spec(text)
    elif "?" in text and not Path(text).is_file():
        kind = "file"
        head, _, query = text.partition("?")
        if not head.strip():
            raise TraceSpecError(text, "missing file path before '?'")
    else:
        return TraceSpec(text, "file", text)
    steps: dict = {}
    synth_params: dict = {}
    synth_raw: dict = {}
    for key, raw in _split_query(text, query):
        if key in PIPELINE_KEYS and (kind == "file" or key not in _FILE_ONLY):
            parse, expected, _, identity = PIPELINE_KEYS[key]
            try:
                value = parse(raw)
            except (ValueError, ArithmeticError, InvalidOperation):
                raise TraceSpecError(text, f"{key}={raw!r}: expected {expected}") from None
            if value != identity:
                steps[key] = value
        elif kind == "synth" and key not in _FILE_ONLY:
            _check_synth_name(text, key)
            synth_raw[key] = raw
            try:
                synth_params[key] = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                synth_params[key] = raw
        elif key in _FILE_ONLY:
            raise TraceSpecError(text, f"key {key!r} applies to trace files only, not to synth: traces")
        else:
            raise TraceSpecError(text, f"unknown key {key!r}; expected one of "
                             f"{', '.join(_known_keys(kind))}")
    if kind == "synth":
        from .synth_presets import get_synth_preset

        try:
            get_synth_preset(head[len(SYNTH_PREFIX):])
        except (KeyError, ValueError) as e:
            raise TraceSpecError(text, f"{e.args[0] if e.args else e}") from None
        q = "&".join(f"{k}={synth_raw[k]}" for k in sorted(synth_raw))
        head = head + (f"?{q}" if q else "")
    return TraceSpec(text, kind, head, synth_params, steps)


def is_model_preset(base: str) -> bool:
    """Whether the base of a ``model:`` spec names a built-in paper preset (not a file)."""
    from .model.presets import PRESET_TEMPLATES

    return base in PRESET_TEMPLATES and not Path(base).is_file()


def _parse_model_spec(text: str) -> TraceSpec:
    head, _, query = text[len(MODEL_PREFIX):].partition("?")
    path = head.strip()
    if not path:
        raise TraceSpecError(text, "missing model file after 'model:'")
    steps: dict = {}
    params: dict = {}
    for key, raw in _split_query(text, query):
        if key in _MODEL_KEYS:
            parse, expected = _MODEL_KEYS[key]
        elif key in PIPELINE_KEYS and key not in _FILE_ONLY:
            parse, expected, _, identity = PIPELINE_KEYS[key]
        else:
            raise TraceSpecError(text, f"unknown key {key!r}; expected one of "
                                 f"{', '.join(list(_MODEL_KEYS) + _known_keys('model'))}")
        try:
            value = parse(raw)
        except (ValueError, ArithmeticError, InvalidOperation):
            raise TraceSpecError(text, f"{key}={raw!r}: expected {expected}") from None
        if key in _MODEL_KEYS:
            params[key] = value
        elif value != PIPELINE_KEYS[key][3]:
            steps[key] = value
    return TraceSpec(text, "model", path, params, steps)


def _check_synth_name(text: str, key: str) -> None:
    from .synth import SynthParams

    known = set(SynthParams.names()) | set(_SYNTH_EXTRA_NAMES)
    if key not in known:
        raise TraceSpecError(text, f"parameter {key!r} is unknown; expected a pipeline key "
                         f"({', '.join(_known_keys('synth'))}) or a generator parameter "
                         f"({', '.join(sorted(known))})")


def _device_geometry(spec: TraceSpec, config) -> tuple[int, int]:
    if config is None:
        key = "fold" if "fold" in spec.steps else "pack"
        what = "folds onto a device's capacity" if key == "fold" else "packs at a device's page size"
        raise TraceSpecError(spec.text, f"key {key!r} {what}, but no device "
                         "was given (on the command line: --device PRESET_OR_TOML)")
    return int(config.logical_bytes), int(config.geometry.page_size_bytes)


def apply_pipeline(spec: TraceSpec, source: TraceSource, config=None) -> TraceSource:
    """``source`` (the trace ``spec.base`` names) with the spec's subsets and
    transformations as streaming stages.  ``config`` (a SimConfig) is needed by
    ``pack`` and ``fold``."""
    st = spec.steps
    if "time_resolution_s" in st:
        source = SpreadTies(source, st["time_resolution_s"])
    if "start_s" in st or "duration_s" in st:
        source = TimeWindow(source, st.get("start_s", 0), st.get("duration_s"))
    if "first" in st:
        source = FirstRequests(source, st["first"])
    if "pack" in st:
        from .packing import stripe_pages

        unit = {"page": 1, "stripe": stripe_pages(config) if config is not None else 1}.get(st["pack"], st["pack"])
        source = Pack(source, _device_geometry(spec, config)[1], unit)
    if "fold" in st:
        source = Fold(source, *_device_geometry(spec, config))
    if "amplify_reads" in st:
        source = AmplifyReads(source, st["amplify_reads"], st.get("amplify_spacing", "same"))
    if "scale_time" in st:
        source = ScaleTime(source, st["scale_time"])
    if "repeat" in st:
        source = Repeat(source, st["repeat"])
    return source


def open_base(spec: TraceSpec, *, fmt: str | None = None, skip_bad: bool = False, cache: bool = True,
              progress: bool = False, base_dir=None, options: dict | None = None):
    """``(source, report)`` of the trace the spec's base names, before the
    pipeline: a file read through its parse cache (``report`` is its
    :class:`~flashrr.trace.io.ReadReport`), or a generated synthetic trace
    (``report`` None).  The spec's ``format``/``skip_bad`` and reading
    options win over the arguments; relative paths resolve against
    ``base_dir`` when given."""
    if spec.kind == "model":
        from .model import ModelError, ModelSource, load_model

        path = Path(spec.base).expanduser()
        if base_dir is not None and not path.is_absolute():
            path = Path(base_dir) / path
        n, seed, gap = (spec.synth_params.get(k) for k in ("n_requests", "seed", "mean_gap_ns"))
        try:
            if is_model_preset(spec.base):
                from .model.presets import model_preset

                return ModelSource(model_preset(spec.base, n, gap), n, seed or 0, name=spec.base), None
            if gap is not None:
                raise TraceSpecError(spec.text, "mean_gap_ns applies to model presets only (model:PRESET), "
                                     f"and {spec.base!r} is a model file")
            model = load_model(path)
            return ModelSource(model, n, seed or 0, name=path.name.removesuffix(".toml")), None
        except (ModelError, ValueError) as e:
            if isinstance(e, TraceSpecError):
                raise
            raise TraceSpecError(spec.text, str(e)) from None
    if spec.kind == "synth":
        from .synth import synth_trace

        try:
            trace = synth_trace(spec.base[len(SYNTH_PREFIX):].partition("?")[0], **spec.synth_params)
        except (ValueError, KeyError, TypeError) as e:
            if isinstance(e, TraceError):
                raise
            raise TraceSpecError(spec.text, f"{e.args[0] if e.args else e}") from None
        return MemorySource(trace), None
    from .io import open_trace

    path = Path(spec.base).expanduser()
    if base_dir is not None and not path.is_absolute():
        path = Path(base_dir) / path
    return open_trace(path, fmt=spec.fmt or fmt, skip_bad=spec.skip_bad or skip_bad, cache=cache,
                      progress=progress, options={**(options or {}), **spec.options} or None)


def open_trace_spec(text, config=None, **kwargs) -> tuple[TraceSource, object]:
    """``(source, report)``: the trace ``text`` names (a spec, see the module
    docstring) as a streaming source with its pipeline applied.  ``kwargs``
    go to :func:`open_base`."""
    spec = text if isinstance(text, TraceSpec) else parse_trace_spec(text)
    if spec.needs_device:
        _device_geometry(spec, config)  # fail before reading anything
    source, report = open_base(spec, **kwargs)
    return apply_pipeline(spec, source, config), report
