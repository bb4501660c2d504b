"""``flashrr run`` (one simulation) and ``flashrr presets`` (device and trace presets)."""
from __future__ import annotations

import ast
import json
import sys

import click

from flashrr.config import ConfigError
from flashrr.trace.core import TraceError

from flashrr.compare import DEFAULT_REPEAT
from flashrr.compare import DEFAULT_TRACE as _COMPARE_TRACE

# The main job's trace (flashrr.compare.DEFAULT_TRACE: Shuffler's ali1 with superpage-aligned extents) replayed
# DEFAULT_REPEAT times by the trace pipeline, so that Baseline on the shuffler preset shows about a hundred RRs
# (one replay of the earlier default, synth:ali0, showed none).  docs/compare.md says how it was chosen.
DEFAULT_TRACE = f"{_COMPARE_TRACE}&repeat={DEFAULT_REPEAT}"

# Summary keys printed by `flashrr run` without --json, in order.
SHOWN = ("policy", "device", "trace", "requests", "reads", "writes", "rr_count", "rr_page_moves", "gc_count",
         "gc_page_moves", "erase_count", "waf", "read_latency_mean_ns", "write_latency_mean_ns",
         "read_latency_p99_ns", "read_latency_p9999_ns", "cache_read_hit_ratio", "cache_write_hit_ratio",
         "user_flash_transactions", "blocked_reads", "retry_time_ns", "retry_time_share", "uncorrectable_reads",
         "policy_metadata_bytes", "sim_wall_s")


def parse_param(text: str) -> tuple[str, object]:
    """``key=value`` with value read as a Python literal (number, bool, string)."""
    if "=" not in text:
        raise click.BadParameter(f"expected KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key.strip(), value


@click.command("run")
@click.option("--preset", default="shuffler", show_default=True, help="Device preset (see `flashrr presets`).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Device config TOML (overrides --preset).")
@click.option("--policy", default="baseline", show_default=True, help="Read-reclaim policy name.")
@click.option("-p", "--param", "params", multiple=True, metavar="KEY=VALUE", help="Policy parameter (repeatable).")
@click.option("--trace", "trace_spec", default=DEFAULT_TRACE, show_default=True,
              help="Trace file or synth:PRESET, with an optional pipeline, e.g. "
                   "'usr_0.csv?fold=modulo&amplify_reads=4&scale_time=0.5&repeat=8&skip_bad=1' (see docs/traces.md).")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True, help="Replay the trace N times.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--engine", type=click.Choice(["compiled", "reference"]), default="compiled", show_default=True)
@click.option("--check-invariants", is_flag=True, help="Check the FTL invariants as it runs (slower).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole summary as JSON.")
@click.option("--chunk-requests", type=click.IntRange(min=1), default=None,
              help="Requests replayed per chunk (default: $FLASHRR_CHUNK_REQUESTS or 262144); memory, not results.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar of the replay (default: when stderr is a terminal).")
def run_cmd(preset, config_path, policy, params, trace_spec, repeat, seed, engine, check_invariants, as_json,
            chunk_requests, progress):
    """Simulate one policy on one trace and print the summary.  A trace file
    is replayed in chunks from its parse cache, so its length is not limited
    by memory."""
    from flashrr.simulate import EngineError, simulate

    kwargs = dict(parse_param(p) for p in params)
    if progress is None:
        progress = sys.stderr.isatty()
    try:
        result = simulate(config_path or preset, trace_spec, policy=policy, seed=seed, engine=engine, repeat=repeat,
                          check_invariants=check_invariants, chunk_requests=chunk_requests, progress=progress,
                          **kwargs)
    except (ConfigError, TraceError, EngineError, ValueError, TypeError, OSError, ImportError) as e:
        raise click.ClickException(str(e)) from None
    s = result.summary
    if s.get("regime_warning"):
        click.echo(f"warning: {s['regime_warning']}", err=True)
    if as_json:
        click.echo(json.dumps(s, indent=2, default=str))
        return
    width = max(len(k) for k in SHOWN)
    for key in SHOWN:
        v = s[key]
        click.echo(f"{key:<{width}}  {v:.4f}" if isinstance(v, float) else f"{key:<{width}}  {v}")


@click.command("presets")
@click.argument("name", required=False)
def presets_cmd(name):
    """List device and trace presets, or print one (a device preset as TOML)."""
    from flashrr.presets import DEVICE_PRESETS, device_preset
    from flashrr.trace.synth_presets import SYNTH_PRESETS

    if name is None:
        click.echo("device presets: " + " ".join(DEVICE_PRESETS))
        click.echo("trace presets:  " + " ".join(SYNTH_PRESETS))
        return
    if name in DEVICE_PRESETS:
        click.echo(device_preset(name).to_toml(), nl=False)
    elif name in SYNTH_PRESETS:
        p = SYNTH_PRESETS[name]
        click.echo(json.dumps(p if isinstance(p, dict) else getattr(p, "__dict__", str(p)), indent=2, default=str))
    else:
        raise click.ClickException(f"unknown preset {name!r}; device presets: {', '.join(DEVICE_PRESETS)}; "
                                   f"trace presets: {', '.join(SYNTH_PRESETS)}")
