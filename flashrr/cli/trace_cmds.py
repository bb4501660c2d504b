"""``flashrr trace``: summarise, convert and synthesise block I/O traces.

Bad input (a missing file, a malformed line, an unknown format or preset)
ends the command with a one-line error and exit code 1, never a traceback.
Reads show a progress bar on stderr when stderr is a terminal.
"""
from __future__ import annotations

import json
import re

import click

from flashrr.trace.core import TraceError
from flashrr.trace.formats import FORMAT_NAMES, WRITABLE_FORMATS
from flashrr.trace.io import format_from_filename, write_trace

from .trace_input import _DEVICE_HELP, _fail, _open

__all__ = ["trace"]

DEFAULT_SYNTH_FORMAT = "mqsim"
_RATIO_KEY = re.compile(r"(^|_)ratio(_|$)")

# Shuffler's Table 2: (stats key, column heading)
TABLE2_COLUMNS = (("requests", "Req #"), ("read_ratio", "Rd R"), ("avg_read_size_bytes", "Rd Size"),
                  ("hot_ratio", "Hot R"), ("footprint_bytes", "FP"))
# Headings of the other trace_stats keys flashrr knows; unknown keys are shown under their own name.
OTHER_HEADINGS = {"avg_write_size_bytes": "Wr Size", "avg_request_size_bytes": "Req Size",
                  "hot_ratio_4": "Hot R4", "duration_s": "Duration", "tied_ratio": "Tied"}
# a trace whose requests share their arrival time with the one before this often gets a note on stderr
TIED_NOTE_RATIO = 0.5


def _out_format(path: str, to: str | None) -> str | None:
    return to.lower() if to else format_from_filename(path)


def _write(trace, out: str, fmt: str) -> int:
    try:
        return write_trace(trace, out, fmt)
    except (TraceError, OSError) as e:
        raise _fail(e) from None


def _human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _format_value(key: str, value) -> str:
    """A stats value for the table, by the unit its key names."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if _RATIO_KEY.search(key):
        return f"{100 * float(value):.1f}%"
    if key.endswith("_bytes"):
        return _human_bytes(float(value))
    if key.endswith("_s"):
        return f"{float(value):.3f}s"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _jsonable(value):
    if hasattr(value, "item"):  # NumPy scalar
        return value.item()
    return value


def _table(rows: list[dict], keys: list[str], headings: dict) -> str:
    cells = [["Trace"] + [headings.get(k, k) for k in keys]]
    for r in rows:
        cells.append([r["trace"]] + [_format_value(k, r["stats"].get(k)) for k in keys])
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = []
    for j, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


@click.group("trace")
def trace():
    """Read, summarise, convert and synthesise block I/O traces."""


@trace.command("stats")
@click.argument("paths", nargs=-1, required=True, metavar="TRACE...")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per trace.")
@click.option("--format", "fmt", type=click.Choice(FORMAT_NAMES, case_sensitive=False), default=None,
              help="Input format (default: sniffed from the file).")
@click.option("--page-size", "page_size_bytes", type=click.IntRange(min=1), default=8192, show_default=True,
              help="Page size in bytes for hot ratio and footprint.")
@click.option("--skip-bad", is_flag=True, help="Skip malformed lines (counted on stderr) instead of failing.")
@click.option("--cache/--no-cache", default=True, show_default=True,
              help="Use and update the .flashrr-cache.parquet file next to each trace.")
@click.option("--device", default=None, help=_DEVICE_HELP)
def stats_cmd(paths, as_json, fmt, page_size_bytes, skip_bad, cache, device):
    """Print Shuffler's Table 2 columns (requests, read ratio, average read
    size, hot ratio, footprint) and the other trace statistics for each TRACE:
    a file or synth:PRESET, with an optional pipeline
    (e.g. 'usr_0.csv?start_s=3600&duration_s=600').  Files are read in chunks."""
    from flashrr.trace.stats import trace_stats

    rows = []
    for path in paths:
        tr, report = _open(path, fmt, skip_bad, cache, device)
        try:
            st = trace_stats(tr, page_size_bytes=page_size_bytes)
        except (TraceError, ValueError) as e:
            raise _fail(e) from None
        rows.append({"trace": tr.name, "path": path, "format": report.fmt if report else "synth",
                     "skipped_lines": report.n_skipped if report else 0,
                     "stats": {k: _jsonable(v) for k, v in st.items()}})
    if as_json:
        click.echo(json.dumps([{"trace": r["trace"], "path": r["path"], "format": r["format"],
                                "skipped_lines": r["skipped_lines"], **r["stats"]} for r in rows], indent=2))
        return
    keys = [k for k, _ in TABLE2_COLUMNS]
    for r in rows:
        keys += [k for k in r["stats"] if k not in keys]
    click.echo(_table(rows, keys, {**dict(TABLE2_COLUMNS), **OTHER_HEADINGS}))
    for r in rows:
        if r["stats"].get("tied_ratio", 0) >= TIED_NOTE_RATIO:
            click.echo(f"note: {r['path']}: {100 * r['stats']['tied_ratio']:.0f}% of the requests arrive at the same "
                       "time as the one before (coarse timestamps?); add '?time_resolution_s=R' to spread each "
                       "group over the tracer's resolution R seconds", err=True)


@trace.command("convert")
@click.argument("src", metavar="IN")
@click.argument("dst", metavar="OUT")
@click.option("--to", "to", type=click.Choice(WRITABLE_FORMATS, case_sensitive=False), default=None,
              help="Output format (default: from OUT's name, e.g. x.msr.csv).")
@click.option("--from", "from_", type=click.Choice(FORMAT_NAMES, case_sensitive=False), default=None,
              help="Input format (default: sniffed from the file).")
@click.option("--skip-bad", is_flag=True, help="Skip malformed lines (counted on stderr) instead of failing.")
@click.option("--cache/--no-cache", default=True, show_default=True,
              help="Use and update the .flashrr-cache.parquet file next to IN.")
@click.option("--device", default=None, help=_DEVICE_HELP)
def convert_cmd(src, dst, to, from_, skip_bad, cache, device):
    """Convert trace IN to OUT in another format (.gz/.zst/.bz2/.xz compress).  IN is a
    file or synth:PRESET with an optional pipeline (e.g.
    'usr_0.csv?fold=modulo&repeat=8' with --device); it is written in chunks."""
    fmt = _out_format(dst, to)
    if fmt is None:
        raise click.ClickException(f"cannot tell the output format from {dst!r}; pass --to "
                                   f"({', '.join(WRITABLE_FORMATS)})")
    tr, report = _open(src, from_, skip_bad, cache, device)
    n = _write(tr, dst, fmt)
    click.echo(f"{dst}: {n:,} requests ({report.fmt if report else 'synth'} -> {fmt})")


@trace.command("synth")
@click.argument("preset")
@click.option("-o", "--output", "out", required=True, help="Output file (.gz/.zst/.bz2/.xz compress).")
@click.option("-n", "--requests", "n_requests", type=click.IntRange(min=1), default=None,
              help="Number of requests (default: the preset's).")
@click.option("--seed", type=int, default=None, help="Random seed (default: the generator's).")
@click.option("--to", "to", type=click.Choice(WRITABLE_FORMATS, case_sensitive=False), default=None,
              help=f"Output format (default: from the output name, else {DEFAULT_SYNTH_FORMAT}).")
def synth_cmd(preset, out, n_requests, seed, to):
    """Generate the synthetic trace PRESET (a paper's trace-table row) into a file."""
    from flashrr.trace.synth import synth_trace

    kwargs = {}
    if n_requests is not None:
        kwargs["n_requests"] = n_requests
    if seed is not None:
        kwargs["seed"] = seed
    try:
        tr = synth_trace(preset, **kwargs)
    except (TraceError, ValueError, KeyError) as e:
        raise _fail(e) from None
    fmt = _out_format(out, to) or DEFAULT_SYNTH_FORMAT
    _write(tr, out, fmt)
    click.echo(f"{out}: {len(tr):,} requests ({fmt})")


from .trace_profile_cmd import profile_cmd  # noqa: E402  (the read-disturb profile, in its own module)

trace.add_command(profile_cmd)
from .trace_model_cmds import fit_cmd, validate_cmd  # noqa: E402  (the workload model, in its own module)

trace.add_command(fit_cmd)
trace.add_command(validate_cmd)
