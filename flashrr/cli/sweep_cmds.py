"""``flashrr sweep`` and ``flashrr results``: run a parameter sweep, show its results.

An invalid spec, a missing trace file or an unusable results directory ends
the command with a one-line error (exit code 1) before any run starts.  A
sweep with failed runs exits with code 1 after every run has been tried; an
interrupted sweep (Ctrl-C) exits with code 130.  Rerunning the same command
resumes: finished runs are skipped, failed ones retried.
"""
from __future__ import annotations

import json
import math
import sys

import click


__all__ = ["sweep", "results"]

MAX_LISTED_FAILURES = 10


def _fail(e: Exception) -> click.ClickException:
    return click.ClickException(str(e))


@click.command("sweep")
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("-o", "--out", required=True, type=click.Path(file_okay=False),
              help="Results directory (created if missing; runs already in it are skipped).")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=None,
              help="Local worker processes [default: CPUs available; 0 = run in this process].")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None,
              help="Run on the existing Dask cluster with this scheduler address instead of local processes.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr [default: when stderr is a terminal].")
@click.option("--snapshots/--no-snapshots", default=True, show_default=True,
              help="Runs that start from the same aged device restore it from one snapshot in OUT/snapshots.")
@click.pass_context
def sweep(ctx, spec, out, jobs, scheduler, progress, snapshots):
    """Run the sweep described by SPEC (a TOML file): traces x devices x policy
    parameter grids x seeds.  Each run is stored in OUT the moment it finishes."""
    if jobs is not None and scheduler is not None:
        raise click.UsageError("give --jobs (local processes) or --scheduler (a Dask cluster), not both")
    from flashrr.config import ConfigError
    from flashrr.sweep import ResultStore, SpecError, StoreError, SweepError, run_sweep

    if progress is None:
        progress = sys.stderr.isatty()
    try:
        outcome = run_sweep(spec, out, jobs=jobs, scheduler=scheduler, progress=progress, snapshots=snapshots)
    except (SpecError, ConfigError, StoreError, SweepError, OSError, ValueError, ImportError) as e:
        raise _fail(e) from None
    except KeyboardInterrupt:
        click.echo(f"interrupted: every finished run is stored in {out}; rerun the same command to resume.",
                   err=True)
        ctx.exit(130)
    rep = outcome.report
    click.echo(f"{rep.total} runs: {rep.done_before} already done, {rep.ran} ran now, {rep.failed} failed "
               f"({rep.wall_s:.1f} s). Results: {out}", err=True)
    if len(outcome.failures):
        for _, row in outcome.failures.head(MAX_LISTED_FAILURES).iterrows():
            click.echo(f"  FAILED {row['key']}: {row['description']}: {row['error']}", err=True)
        more = len(outcome.failures) - MAX_LISTED_FAILURES
        if more > 0:
            click.echo(f"  ... and {more} more", err=True)
        click.echo(f"Tracebacks: {ResultStore(out).runs}/<key>.error.json. Rerun the same command to retry "
                   "the failed runs.", err=True)
        ctx.exit(1)


@click.command("results")
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["csv", "md", "json"]), default="csv", show_default=True,
              help="Output format.")
@click.option("-c", "--columns", default=None, help="Comma-separated columns to show (default: all).")
@click.option("--errors", is_flag=True, help="Show the failed runs (key, error, parameters) instead.")
def results(directory, fmt, columns, errors):
    """Print the results stored in DIR by `flashrr sweep`, one row per run."""
    from flashrr.sweep import ResultStore, StoreError
    from flashrr.sweep.tables import to_markdown

    try:
        store = ResultStore(directory)
        df = store.errors() if errors else store.load()
        n_failed = 0 if errors else len(store.errors())
    except (StoreError, ImportError) as e:
        raise _fail(e) from None
    if errors and "traceback" in df.columns:
        df = df.drop(columns=["traceback"])
    if columns:
        wanted = [c.strip() for c in columns.split(",") if c.strip()]
        missing = [c for c in wanted if c not in df.columns]
        if missing and len(df):
            raise click.ClickException(f"--columns: unknown column(s) {', '.join(missing)}; available: "
                                       f"{', '.join(df.columns)}")
        df = df[[c for c in wanted if c in df.columns]]
    if fmt == "csv":
        if len(df.columns):
            click.echo(df.to_csv(index=False), nl=False)
    elif fmt == "md":
        click.echo(to_markdown(df))
    else:
        click.echo(json.dumps([{k: _json_value(v) for k, v in rec.items()} for rec in df.to_dict("records")],
                              indent=1))
    if n_failed:
        click.echo(f"note: {n_failed} failed run(s) not shown; see `flashrr results {directory} --errors`",
                   err=True)


def _json_value(v):
    if hasattr(v, "item") and callable(v.item):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v
