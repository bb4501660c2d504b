"""``flashrr trace fit`` and ``flashrr trace validate``: the workload model of a trace.

``fit`` writes the model of a trace to a TOML file; any trace spec then names
traces generated from it (``model:FILE.toml?n_requests=N&seed=S``).
``validate`` replays the trace and traces of its model on one device and
prints, side by side, what read reclaim, the cache and the latency see.
"""
from __future__ import annotations

import json
import sys

import click

from flashrr.config import ConfigError
from flashrr.trace.core import TraceError

__all__ = ["fit_cmd", "validate_cmd"]

_FIT_SETTINGS = ("unit_bytes", "region_bytes", "reuse_window_requests", "fresh_retries", "overlap_window_requests",
                 "time_phases", "phases", "near_window_requests", "near_margin_bytes", "hot_units", "hot_min_share",
                 "hot_min_count", "fresh_avoids_near",
                 "weight_steps_per_octave", "max_segments", "cascade_bins", "size_knots", "distance_knots",
                 "gap_states", "gap_knots")


def _fail(e: Exception) -> click.ClickException:
    return click.ClickException(str(e))


def _key_values(items, what: str) -> dict:
    import ast

    out = {}
    for item in items:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip():
            raise click.BadParameter(f"{item!r}: expected KEY=VALUE", param_hint=what)
        try:
            out[key.strip()] = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            out[key.strip()] = raw.strip()
    return out


def _fit_settings(items):
    from flashrr.trace.model import FitSettings

    values = _key_values(items, "--fit-param")
    unknown = sorted(set(values) - set(_FIT_SETTINGS))
    if unknown:
        # a wrong name, like a wrong value, is a one-line error (exit 1), as for an unknown device field
        raise click.ClickException(f"--fit-param: unknown fit setting(s) {', '.join(unknown)}; expected one of "
                                   f"{', '.join(_FIT_SETTINGS)}")
    try:
        return FitSettings(**values)
    except (TraceError, TypeError) as e:
        raise _fail(e) from None


def _open_trace(spec: str, device: str | None):
    from flashrr.simulate import resolve_config
    from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec

    try:
        parsed = parse_trace_spec(spec)
        # without a device, a fold in the spec is the pipeline's error, which says to pass --device
        config = resolve_config(device) if device is not None else None
        source, report = open_trace_spec(parsed, config, progress=sys.stderr.isatty())
        trace = source.to_trace()
    except (TraceError, OSError, ConfigError) as e:
        raise _fail(e) from None
    if report is not None and report.n_skipped:
        click.echo(f"warning: {spec}: skipped {report.n_skipped} bad line(s); first: {report.skipped_examples[0]}",
                   err=True)
    return trace


_FIT_PARAM_HELP = ("A fit setting KEY=VALUE (repeatable): " + ", ".join(_FIT_SETTINGS)
                   + " (see flashrr.trace.model.FitSettings).")


@click.command("fit")
@click.argument("trace_spec", metavar="TRACE")
@click.option("-o", "--output", "out", required=True, help="Model file to write (TOML).")
@click.option("--fit-param", "fit_params", multiple=True, metavar="KEY=VALUE", help=_FIT_PARAM_HELP)
@click.option("--name", default=None, help="Model name (default: the trace's name).")
@click.option("--device", default=None, help="Device (preset or .toml) that a fold=modulo in TRACE folds onto.")
def fit_cmd(trace_spec, out, fit_params, name, device):
    """Fit the workload model of TRACE (a file, synth: or model: spec, with an optional pipeline) and write it
    to a TOML file.  Generate from it with the trace spec model:FILE.toml?n_requests=N&seed=S."""
    from flashrr.trace.model import fit_model, save_model
    from flashrr.trace.model.fit import ALIGNED_SHARE, start_alignment

    settings = _fit_settings(fit_params)
    trace = _open_trace(trace_spec, device)
    try:
        model = fit_model(trace, settings, name=name)
        path = save_model(model, out)
    except (TraceError, OSError) as e:
        raise _fail(e) from None
    # both places of each op: fresh requests that start no run, and run heads (the fit's max_segments counts both)
    n_seg = sum(len(h.start) for op in (model.read, model.write) for p in (op.places, op.heads) if p is not None
                for h in p.phases)
    click.echo(f"{path}: model of {trace.name} ({len(trace):,} requests): {n_seg:,} heat-map segments of "
               f"{model.region_bytes // 1024:,} KiB regions, {path.stat().st_size / 1024:,.0f} KiB")
    align = start_alignment(trace)
    if align > model.unit_bytes:
        click.echo(f"note: {trace.name}: at least {ALIGNED_SHARE:.1%} of its requests start on {align // 1024:,} "
                   f"KiB boundaries, but the model draws starts in {model.unit_bytes // 1024:,} KiB units "
                   f"(unit_bytes), so generated requests are not aligned as the trace's are; "
                   f"--fit-param unit_bytes={align} keeps them aligned", err=True)


@click.command("validate")
@click.argument("trace_spec", metavar="TRACE")
@click.option("--model", "model_path", default=None, help="Model file (default: fit one to TRACE now).")
@click.option("--fit-param", "fit_params", multiple=True, metavar="KEY=VALUE",
              help="A fit setting when no --model is given (repeatable).")
@click.option("--preset", default="shuffler", show_default=True, help="Device preset or .toml.")
@click.option("-p", "--param", "device_params", multiple=True, metavar="KEY=VALUE",
              help="A device setting (repeatable), any SimConfig field, e.g. -p rr_threshold_reads=1000.")
@click.option("--policies", default="baseline", show_default=True,
              help="Comma-separated policies, e.g. baseline,cocktail.")
@click.option("--policy-param", "policy_params", multiple=True, metavar="POLICY.KEY=VALUE",
              help="A policy parameter (repeatable).")
@click.option("--repeat", type=click.IntRange(min=1), default=16, show_default=True,
              help="Replays of each trace.")
@click.option("--seeds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Generated traces (seeds 1..N); the model column is their mean.")
@click.option("--requests", "n_requests", type=click.IntRange(min=1), default=None,
              help="Requests per generated trace (default: the trace's).")
@click.option("--holdout", is_flag=True,
              help="Held out: fit on the first half of TRACE and check on the second, then the other way round; "
                   "the fitted half itself is shown beside the model as a reference.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
def validate_cmd(trace_spec, model_path, fit_params, preset, device_params, policies, policy_params, repeat, seeds,
                 n_requests, holdout, as_json):
    """Replay TRACE and traces generated from its model on one device and compare RR count, GC count, WAF,
    cache hit ratio, read latency, the region top-10% share and the block read counts at RR.  Goals: RR
    count, mean read latency and hit ratio within 25%, region top-10% share within 5 points.  TRACE must fit
    the device: add ?fold=modulo to fold it.  With --holdout the model is fitted on one half of TRACE and
    checked on the other (both ways round), the same table for each, with the fitted half itself replayed
    beside the model: what a model that reproduced its half exactly would score."""
    from flashrr.model_validation import validate_holdout, validate_model
    from flashrr.simulate import resolve_config

    if model_path is not None and fit_params:
        raise click.UsageError("--fit-param applies only when the model is fitted now (no --model)")
    if holdout and (model_path is not None or n_requests is not None):
        raise click.UsageError("--holdout fits its own models on the halves of TRACE: it takes no --model and no "
                               "--requests")
    settings = _fit_settings(fit_params) if fit_params else None
    try:
        cfg = resolve_config(preset)
        if device_params:
            cfg = cfg.replace(**_key_values(device_params, "--param"))
    except (ConfigError, TraceError, TypeError, ValueError) as e:
        raise _fail(e) from None
    pol = [p.strip() for p in policies.split(",") if p.strip()]
    pparams: dict = {}
    for key, value in _key_values(policy_params, "--policy-param").items():
        name, dot, field = key.partition(".")
        if not dot:
            raise click.BadParameter(f"{key!r}: expected POLICY.KEY=VALUE", param_hint="--policy-param")
        pparams.setdefault(name, {})[field] = value
    trace = _open_trace(trace_spec, cfg)

    def progress(msg):
        if sys.stderr.isatty():
            click.echo(f"  replaying {msg}", err=True)

    try:
        if holdout:
            report = validate_holdout(trace, cfg, pol, repeat, tuple(range(1, seeds + 1)), pparams, settings,
                                      progress)
        else:
            report = validate_model(trace, model_path, cfg, pol, repeat, tuple(range(1, seeds + 1)), n_requests,
                                    pparams, settings, progress)
    except (TraceError, ConfigError, ValueError, TypeError, OSError) as e:
        raise _fail(e) from None
    if as_json:
        click.echo(json.dumps(json.loads(report.table.to_json(orient="records")), indent=2))
        return
    click.echo(f"trace {trace.name} ({len(trace):,} requests{', held out: halves' if holdout else ''}) against "
               f"model {report.model_name}: {seeds} seed(s), {repeat} replay(s) each, device {cfg.name}")
    click.echo(report.text())
