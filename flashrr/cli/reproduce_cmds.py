"""``flashrr reproduce PAPER``: run a paper's experiments and regenerate its figures;
``flashrr reproduce all``: every paper, then one report (index.html, report.md).

The paper names, their descriptions and the notes on their trace parameters come
from the papers' declarations (:data:`flashrr.reproduce.PAPERS`)."""
from __future__ import annotations

import textwrap

import click

from flashrr.reproduce import PAPERS

HELP_WIDTH = 76  # columns of the per-paper lines, which click prints as they are
HELP = """Run PAPER's experiments and write every figure (PNG, PDF, CSV) and claims.md.

Finished runs are stored under OUT/store, so an interrupted reproduction
resumes where it stopped and a second call only redraws the figures.
--figure ID makes one figure (or table) only.

PAPER "all" runs every paper into OUT/<paper>/ and writes OUT/report.md and
OUT/index.html (claims, figures, settings and wall time of each; a paper
that fails is reported as failed and the others still run).
"""


def command_help() -> str:
    """The command's help: :data:`HELP`, then one line per paper (its name and
    description) and the ids ``--figure`` accepts for it."""
    lines = ["\b", "Papers:"]
    for name in PAPERS:
        paper = PAPERS[name]
        lines += textwrap.wrap(f"{name}: {paper.description}", HELP_WIDTH, initial_indent="  ",
                               subsequent_indent="    ")
        lines += textwrap.wrap(f"--figure: {', '.join(paper.output_ids)}", HELP_WIDTH, initial_indent="    ",
                               subsequent_indent="      ")
    return HELP + "\n" + "\n".join(lines)


def trace_param_help() -> str:
    """The ``--trace-param`` help, with each paper's note on its own trace parameters."""
    notes = " ".join(PAPERS[name].trace_help for name in PAPERS if PAPERS[name].trace_help)
    return f"Parameter for every synthetic trace (repeatable). {notes}".rstrip()


@click.command("reproduce", help=command_help())
@click.argument("paper", type=click.Choice(list(PAPERS) + ["all"]))
@click.option("--quick", is_flag=True,
              help="Each paper's smaller plan (fewer traces or parameter points, shorter runs or a smaller "
                   "device; docs/<paper>.md says which): checks the pipeline in minutes.")
@click.option("--paper-scale", is_flag=True,
              help="Each paper's own counts, replays and device size (docs/<paper>.md lists them; not with "
                   "--quick).")
@click.option("--repeat", type=click.IntRange(min=1), default=None,
              help="Replays of each trace (default: the paper's plan's; the Shuffler paper used 128).")
@click.option("--jobs", type=click.IntRange(min=0), default=None,
              help="Worker processes of the sweeps and load calibrations (default: all CPUs; 0 = run in "
                   "this process).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None,
              help="Run the sweeps and load calibrations on the existing Dask cluster with this scheduler "
                   "address instead of local processes (not with --jobs).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output directory (default: out/reproduce-PAPER; for all: out/reproduce-all, "
                   "one subdirectory per paper).")
@click.option("--figure", "figures", multiple=True, metavar="ID",
              help="Only this figure, e.g. fig05 (repeatable; claims are written only for a full run).")
@click.option("--trace-param", "trace_params", multiple=True, metavar="KEY=VALUE", help=trace_param_help())
@click.option("--device-param", "device_params", multiple=True, metavar="KEY=VALUE",
              help="Config field set on every device, e.g. rr_threshold_reads=5000 (repeatable).")
@click.option("--workload", type=click.Choice(["model", "synth"]), default="model", show_default=True,
              help="Paper traces from the workload model (model:PRESET: the table's numbers with the locality of "
                   "a real sample of the family) or from the synthetic generator (synth:PRESET).")
@click.option("--snapshots/--no-snapshots", default=True, show_default=True,
              help="Runs that start from the same aged device restore it from one snapshot in OUT/store/snapshots "
                   "(same results; a snapshot takes about 10 bytes per flash page of disk).")
@click.option("--no-progress", is_flag=True, help="Do not show progress bars.")
def reproduce_cmd(paper, quick, paper_scale, repeat, jobs, scheduler, out_dir, figures, trace_params, device_params,
                  workload, snapshots, no_progress):
    if quick and paper_scale:
        raise click.UsageError("--quick and --paper-scale are mutually exclusive")
    if jobs is not None and scheduler is not None:
        raise click.UsageError("give --jobs (local processes) or --scheduler (a Dask cluster), not both")
    if paper == "all":
        if figures or trace_params or device_params:
            raise click.UsageError("--figure, --trace-param and --device-param are per paper; "
                                   "they do not apply to 'reproduce all'")
        _reproduce_all(quick, repeat, jobs, out_dir or "out/reproduce-all", not no_progress, workload, paper_scale,
                       scheduler, snapshots)
        return
    from flashrr.cli.run_cmds import parse_param
    from flashrr.reproduce.runner import reproduce
    from flashrr.sweep import StoreError, SweepFailed

    out_dir = out_dir or f"out/reproduce-{paper}"
    try:
        res = reproduce(PAPERS[paper], out_dir, quick=quick, repeat=repeat, jobs=jobs, progress=not no_progress,
                        figures=list(figures) or None, trace_params=[parse_param(p) for p in trace_params],
                        device_overrides=[parse_param(p) for p in device_params], workload=workload,
                        paper_scale=paper_scale, scheduler=scheduler, snapshots=snapshots)
    except (ValueError, SweepFailed, StoreError) as e:
        raise click.ClickException(str(e)) from None
    n = sum(1 for paths in res["figures"].values() for p in paths if str(p).endswith(".png"))
    click.echo(f"{n} figures written to {out_dir}")
    if res.get("claims") is not None:
        table = res["claims"]
        n_yes = int((table["holds"] == True).sum())  # noqa: E712  (holds mixes bools and "n/a")
        click.echo(f"claims: direction holds for {n_yes} of {len(table)} (see {out_dir}/claims.md)")
    click.echo(f"total time {res['timings'].get('total_s', 0):.0f} s")


def _reproduce_all(quick, repeat, jobs, out_dir, progress, workload="model", paper_scale=False, scheduler=None,
                   snapshots=True):
    from flashrr.reproduce.report import reproduce_all

    def announce(p, i, n):
        click.echo(f"[{i + 1}/{n}] reproduce {p} -> {out_dir}/{p}", err=True)

    res = reproduce_all(out_dir, quick=quick, repeat=repeat, jobs=jobs, progress=progress, on_paper=announce,
                        workload=workload, paper_scale=paper_scale, scheduler=scheduler, snapshots=snapshots)
    for s in res["sections"]:
        c = s.counts
        state = f"failed: {s.run.error}" if s.run.status != "ok" else \
            f"direction holds for {c['holds']} of {c['claims']}, within half for {c['within_half']} of {c['sized']}"
        click.echo(f"{s.paper}: {state} ({s.wall_s or 0:.0f} s)")
    md, page = res["report"]
    click.echo(f"report: {page} and {md}")
    failed = [r.paper for r in res["runs"] if r.status != "ok"]
    if failed:
        raise click.ClickException(f"reproduction failed for {', '.join(failed)} (see {md})")


reproduce = reproduce_cmd

__all__ = ["reproduce_cmd", "reproduce"]
