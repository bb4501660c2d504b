"""What the ``flashrr trace`` commands share: opening the trace a command reads (a
file or ``synth:PRESET``, with a pipeline, folded onto ``--device``) and turning a
bad input into a one-line error (exit code 1)."""
from __future__ import annotations

import sys

import click

from flashrr.config import ConfigError
from flashrr.trace.core import TraceError


def _fail(e: Exception) -> click.ClickException:
    msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
    return click.ClickException(str(msg))


def _show_progress() -> bool:
    return sys.stderr.isatty()


def _open(spec: str, fmt: str | None, skip_bad: bool, cache: bool, device: str | None):
    """``(source, report)`` of a trace spec (file or synth, with a pipeline);
    ``report`` is None for a synthetic trace.  Skipped lines are counted on stderr."""
    from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec

    try:
        parsed = parse_trace_spec(spec)
        config = _device(device) if device is not None or parsed.needs_device else None
        source, report = open_trace_spec(parsed, config, fmt=fmt, skip_bad=skip_bad, cache=cache,
                                         progress=_show_progress())
        source.info()  # a pipeline's totals (and any error in them) before the command's work
    except (TraceError, OSError, ConfigError) as e:
        raise _fail(e) from None
    if report is not None and report.n_skipped:
        click.echo(f"warning: {spec}: skipped {report.n_skipped} bad line(s); first: {report.skipped_examples[0]}",
                   err=True)
    return source, report


def _device(device: str | None):
    from flashrr.simulate import resolve_config

    if device is None:
        raise TraceError("the trace pipeline has 'fold', which folds onto a device: pass --device PRESET_OR_TOML")
    return resolve_config(device)


_DEVICE_HELP = "Device (preset name or .toml) that a fold=modulo in a trace pipeline folds onto."
