"""``flashrr compare``: several policies on one trace, one table (:mod:`flashrr.compare`)."""
from __future__ import annotations

import json
import sys

import click

from flashrr.compare import DEFAULT_POLICIES, DEFAULT_REPEAT, DEFAULT_TRACE


@click.command("compare")
@click.option("--policies", default=",".join(DEFAULT_POLICIES), show_default=True,
              help="Comma-separated policies, first one the reference; POLICY@PRESET picks a row's device.")
@click.option("-p", "--param", "params", multiple=True, metavar="POLICY.KEY=VALUE",
              help="A policy parameter (repeatable), e.g. -p shuffler.delta_f=0.3.")
@click.option("--trace", "trace_spec", default=DEFAULT_TRACE, show_default=True,
              help="Trace file or synth:PRESET, with an optional pipeline (see docs/traces.md).")
@click.option("--preset", default=None,
              help="One device preset for every policy [default: each policy on its paper's preset].")
@click.option("--repeat", type=click.IntRange(min=1), default=DEFAULT_REPEAT, show_default=True,
              help="Replay the trace N times.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(min=0), default=None,
              help="Worker processes [default: the CPUs available; 0 runs in this process].")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Also write a multi-panel bar chart to FILE.png.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON (one object per policy).")
@click.option("--csv", "as_csv", is_flag=True, help="Print the table as CSV.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar of the runs (default: when stderr is a terminal).")
def compare_cmd(policies, params, trace_spec, preset, repeat, seed, jobs, plot_path, as_json, as_csv, progress):
    """Run several read-reclaim policies on one trace and print one row per
    policy: RRs, page moves, erases, WAF, read latency (mean, p99, p99.99),
    cache hit ratio, metadata, blocked and redirected reads, and each
    metric's change against the first policy in %.  Each policy runs on its
    paper's device preset unless --preset is given."""
    from flashrr.compare import CompareError, compare, format_table, parse_policy_params, plot

    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")
    if progress is None:
        progress = sys.stderr.isatty()
    try:
        df = compare(policies, trace=trace_spec, preset=preset, repeat=repeat, params=parse_policy_params(params),
                     seed=seed, jobs=jobs, progress=progress)
        if plot_path:
            plot(df, plot_path)
    except (CompareError, OSError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(json.loads(df.reset_index().to_json(orient="records")), indent=1))
    elif as_csv:
        click.echo(df.to_csv(), nl=False)
    else:
        click.echo(format_table(df))
    if plot_path:
        click.echo(f"wrote {plot_path}", err=True)
