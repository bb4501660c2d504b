"""``flashrr compare``: several policies on one trace, one table (:mod:`flashrr.compare`)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import pandas as pd

from flashrr.compare import COMMON_PRESET, DEFAULT_POLICIES, DEFAULT_REPEAT, DEFAULT_TRACE, PER_PAPER_POLICIES


def _per_paper_frame(blocks: dict) -> pd.DataFrame:
    """The per-paper frames as one, with the paper preset of each row in a ``paper`` column."""
    frames = [df.assign(paper=dev) for dev, df in blocks.items()]
    for df in frames:
        df.attrs = {}  # each block's Block stays with its own frame
    return pd.concat(frames)


def _plot_paths(path: str, devices) -> list:
    """One chart per paper: FILE.png becomes FILE-<preset>.png."""
    p = Path(path)
    return [p.with_name(f"{p.stem}-{dev}{p.suffix or '.png'}") for dev in devices]


@click.command("compare")
@click.option("--policies", default=None,
              help="Comma-separated policies, first one the reference; POLICY@PRESET picks a row's device "
                   f"[default: {','.join(DEFAULT_POLICIES)}; with --per-paper: {','.join(PER_PAPER_POLICIES)}].")
@click.option("-p", "--param", "params", multiple=True, metavar="POLICY.KEY=VALUE",
              help="A policy parameter (repeatable), e.g. -p shuffler.delta_f=0.3.")
@click.option("--trace", "trace_spec", default=None,
              help="Trace file or synth:PRESET, with an optional pipeline (see docs/traces.md) "
                   f"[default: {DEFAULT_TRACE}; with --per-paper, each paper's own trace at the length its "
                   "regime sets].")
@click.option("--preset", default=None,
              help=f"One device for every policy: a preset or .toml [default: {COMMON_PRESET}]; "
                   "'paper' puts each policy on its paper's preset.")
@click.option("--per-paper", is_flag=True,
              help="One table per paper: each scheme against Baseline on that paper's device.")
@click.option("--repeat", type=click.IntRange(min=1), default=None,
              help=f"Replay the trace N times [default: {DEFAULT_REPEAT}; with --per-paper and no --trace, the "
                   "length each paper's regime sets].")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(min=0), default=None,
              help="Worker processes [default: the CPUs available; 0 runs in this process].")
@click.option("--snapshots", "snapshots", type=click.Path(file_okay=False), default=None,
              help="Keep the aged-device snapshots the runs start from in DIR, for later runs "
                   "[default: a temporary directory for this comparison].")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Also write a multi-panel bar chart to FILE.png (with --per-paper, FILE-<preset>.png each).")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON (one object per policy).")
@click.option("--csv", "as_csv", is_flag=True, help="Print the table as CSV.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar of the runs (default: when stderr is a terminal).")
def compare_cmd(policies, params, trace_spec, preset, per_paper, repeat, seed, jobs, snapshots, plot_path, as_json,
                as_csv, progress):
    """Run several read-reclaim policies on one trace and print one row per
    policy: RRs, page moves, erases, WAF, read latency (mean, p99, p99.99),
    cache hit ratio, metadata, blocked and redirected reads, and each
    metric's change against the first policy in %.  Every policy runs on one
    device (the shuffler preset unless --preset is given); --per-paper prints
    one table per paper instead, each scheme against Baseline on its paper's
    device."""
    from flashrr.compare import (CompareError, compare, compare_per_paper, format_per_paper, format_table,
                                 parse_policy_params, plot, warning_lines)

    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")
    if per_paper and preset is not None:
        raise click.UsageError("--per-paper runs each scheme on its paper's device; drop --preset")
    if progress is None:
        progress = sys.stderr.isatty()
    written = []
    try:
        kw = dict(params=parse_policy_params(params), seed=seed, jobs=jobs, progress=progress, snapshots=snapshots)
        if per_paper:
            blocks = compare_per_paper(policies or PER_PAPER_POLICIES, trace=trace_spec, repeat=repeat, **kw)
            frames = list(blocks.values())
            df, text = _per_paper_frame(blocks), format_per_paper(blocks)
            if plot_path:
                for path, block in zip(_plot_paths(plot_path, blocks), blocks.values()):
                    plot(block, path)
                    written.append(path)
        else:
            df = compare(policies or DEFAULT_POLICIES, trace=trace_spec or DEFAULT_TRACE, preset=preset,
                         repeat=repeat or DEFAULT_REPEAT, **kw)
            text, frames = format_table(df), [df]
            if plot_path:
                plot(df, plot_path)
                written.append(plot_path)
    except (CompareError, OSError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(json.loads(df.reset_index().to_json(orient="records")), indent=1))
    elif as_csv:
        click.echo(df.to_csv(), nl=False)
    else:
        click.echo(text)
    for line in warning_lines(frames):
        click.echo(line, err=True)
    for path in written:
        click.echo(f"wrote {path}", err=True)
