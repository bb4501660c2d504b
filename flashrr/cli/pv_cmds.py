"""``flashrr pv``: process-variation-aware superblock assembly (evaluate, calibrate)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from flashrr.pv.assembly import METHODS


def _params_file(path):
    """PVParams from a JSON file (a dict of fields, or ``{"params": {...}}`` as calibrate writes)."""
    from flashrr.pv.model import PVParams

    if path is None:
        return None
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise click.ClickException(f"{path}: cannot read PV parameters ({e})") from None
    data = data.get("params", data) if isinstance(data, dict) else data
    if not isinstance(data, dict):
        raise click.ClickException(f"{path}: expected a JSON object of PV model parameters")
    try:
        return PVParams().replace(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})
    except (TypeError, ValueError) as e:
        raise click.ClickException(f"{path}: {e}") from None


@click.group("pv")
def pv():
    """Process-variation-aware superblock assembly (the QSTR-MED / PV Check paper)."""


@pv.command("methods")
def methods_cmd():
    """List the assembly methods and their default parameters."""
    for name, m in METHODS.items():
        params = ", ".join(f"{k}={v}" for k, v in m.defaults.items()) or "-"
        click.echo(f"{name:11s} {m.label:11s} {params}")


@pv.command("evaluate")
@click.option("--method", "method", required=True, type=click.Choice(list(METHODS)), help="Assembly method.")
@click.option("--dies", type=click.IntRange(min=1), default=24, show_default=True, help="Modelled dies.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Model and Random seed.")
@click.option("--pe", "pe_points", type=click.IntRange(min=0), multiple=True,
              help="P/E cycle point (repeatable; default 0).")
@click.option("--window", type=click.IntRange(min=1), default=None, help="Window size of a windowed method.")
@click.option("--mode", type=click.Choice(["fast", "slow", "alternate"]), default=None,
              help="QSTR-MED superblock requests.")
@click.option("--params", "params_path", type=click.Path(dir_okay=False), default=None,
              help="JSON file of PV model parameters (e.g. written by 'flashrr pv calibrate').")
@click.option("--pgm-csv", type=click.Path(dir_okay=False), default=None,
              help="Measured program latencies (CSV); with --ers-csv replaces the model.")
@click.option("--ers-csv", type=click.Path(dir_okay=False), default=None, help="Measured erase latencies (CSV).")
@click.option("--block-ids", type=click.Choice(["in_plane", "interleaved"]), default="in_plane",
              show_default=True, help="How the CSV 'block' column numbers blocks.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (with per-superblock arrays).")
def evaluate_cmd(method, dies, seed, pe_points, window, mode, params_path, pgm_csv, ers_csv, block_ids, as_json):
    """Assemble superblocks with METHOD and report extra latencies and overheads."""
    from flashrr.pv.csv_io import PVDataError, load_csv
    from flashrr.pv.evaluate import evaluate, summary

    kw = {}
    if window is not None:
        kw["window"] = window
    if mode is not None:
        kw["mode"] = mode
    latencies = None
    if (pgm_csv is None) != (ers_csv is None):
        raise click.ClickException("--pgm-csv and --ers-csv go together")
    try:
        if pgm_csv:
            latencies = load_csv(pgm_csv, ers_csv, block_ids=block_ids)
            if pe_points:
                latencies = [lat for lat in latencies if lat.pe in set(pe_points)]
                if not latencies:
                    raise click.ClickException(f"no P/E point {list(pe_points)} in {pgm_csv}")
        res = evaluate(method, dies=dies, seed=seed, pe_points=pe_points or (0,), params=_params_file(params_path),
                       latencies=latencies, **kw)
    except (ValueError, PVDataError) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        out = summary(res)
        out["per_sb"] = {k: v.tolist() for k, v in res["per_sb"].items()}
        click.echo(json.dumps(out))
        return
    click.echo(f"method {res['label']} ({res['method']}) {res['params']}")
    click.echo(f"superblocks {res['n_superblocks']} over {res['dies']} dies, P/E {res['pe_points']}")
    click.echo(f"extra program latency  {res['extra_pgm_us']:12.2f} µs per superblock")
    click.echo(f"extra erase latency    {res['extra_ers_us']:12.2f} µs per superblock")
    click.echo(f"similarity checks      {res['checks_per_sb']:12.2f} per superblock "
               f"(nominal {res['checks_nominal_per_sb']})")
    click.echo(f"metadata               {res['metadata_bytes_per_block']:12d} bytes per block")
    click.echo(f"wall time              {res['wall_s']:12.3f} s ({res['wall_per_sb_us']:.1f} µs per superblock)")


@pv.command("calibrate")
@click.option("--dies", type=click.IntRange(min=1), default=3, show_default=True, help="Dies per fit evaluation.")
@click.option("--seed", type=click.IntRange(min=0), default=7, show_default=True,
              help="Fixed seed of the fit (common random numbers).")
@click.option("--max-evals", type=click.IntRange(min=1), default=150, show_default=True,
              help="Model evaluations of the Nelder-Mead search.")
@click.option("--validate-dies", type=click.IntRange(min=1), default=24, show_default=True,
              help="Dies of the validation run (another seed).")
@click.option("--validate-seed", type=click.IntRange(min=0), default=2024, show_default=True)
@click.option("--params", "params_path", type=click.Path(dir_okay=False), default=None,
              help="Start from these parameters (JSON) instead of the defaults.")
@click.option("--fit", "names", multiple=True, help="Only fit this parameter (repeatable).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default="pv_params.json", show_default=True,
              help="Where to write the fitted parameters and the targets table (JSON).")
def calibrate_cmd(dies, seed, max_evals, validate_dies, validate_seed, params_path, names, out_path):
    """Fit the PV model to the paper's Tables I, II and V, then validate on more dies."""
    from flashrr.pv.calibrate import calibrate, calibration_report

    start = _params_file(params_path)
    try:
        best, log = calibrate(start, dies=dies, seed=seed, max_evals=max_evals, names=list(names) or None,
                              progress=lambda i, v, p: click.echo(f"eval {i:4d}  loss {v:9.3f}", err=True))
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    _, table = calibration_report(best, dies=validate_dies, seed=validate_seed)
    Path(out_path).write_text(json.dumps({"params": best.to_dict(), "fit": {k: v for k, v in log.items()
                                                                             if k != "history"},
                                          "validation": table.to_dict(orient="records")}, indent=1))
    click.echo(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    click.echo(f"fit loss {log['loss']:.3f} after {log['evaluations']} evaluations ({log['wall_s']:.0f} s); "
               f"{int(table['holds'].sum())} of {len(table)} targets hold; parameters in {out_path}")
