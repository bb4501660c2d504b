"""``flashrr trace profile``: the read-disturb profile of traces
(:mod:`flashrr.trace.profile`), as text, JSON or figures.

Registered on the ``flashrr trace`` group by :mod:`flashrr.cli.trace_cmds`; opens
its traces with :mod:`flashrr.cli.trace_input`, as the other trace commands do.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import click

from flashrr.trace.formats import FORMAT_NAMES

from .trace_input import _device, _fail, _open

__all__ = ["profile_cmd"]

MIB = 1 << 20
DEFAULT_PAGE_SIZE_BYTES = 8192
DEFAULT_BLOCK_PAGES = 1024
DEFAULT_LRU_PAGES = "1024,8192,65536"


# Option values that are malformed are click usage errors (exit code 2, naming the option), as in
# `flashrr trace stats`; a trace or device that cannot be read is a one-line error with exit code 1.

def _region_bytes(region_mb: float, page: int) -> int:
    region = round(region_mb * MIB)
    if region < page or region % page or abs(region - region_mb * MIB) > 1e-6:
        raise click.BadParameter(f"expected a whole number of {page}-byte pages (MiB), got {region_mb:g}",
                                 param_hint="'--region-mb'")
    return region


def _lru_pages(ctx, param, text: str) -> tuple:
    try:
        caps = tuple(int(part) for part in text.split(","))
    except ValueError:
        caps = ()
    if not caps or min(caps) < 1:
        raise click.BadParameter(f"expected comma-separated positive page counts (e.g. {DEFAULT_LRU_PAGES}), "
                                 f"got {text!r}")
    return caps


def _plot_dirs(root: Path, names: list[str]) -> list[Path]:
    """``root`` for one trace; else one subdirectory per trace, named after
    it (characters other than letters, digits, ``.``, ``-`` and ``_``
    replaced), with ``-2``, ``-3``... when names repeat."""
    if len(names) == 1:
        return [root]
    dirs, seen = [], set()
    for name in names:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "trace"
        candidate, k = base, 1
        while candidate in seen:
            k += 1
            candidate = f"{base}-{k}"
        seen.add(candidate)
        dirs.append(root / candidate)
    return dirs


@click.command("profile")
@click.argument("paths", nargs=-1, required=True, metavar="TRACE...")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per trace.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None,
              help="Write CDF figures (PNG and PDF) into this directory (one subdirectory per trace when several).")
@click.option("--page-size", "page_size_bytes", type=click.IntRange(min=1), default=None,
              help=f"Page size in bytes (default: the --device's, else {DEFAULT_PAGE_SIZE_BYTES}).")
@click.option("--device", default=None,
              help=f"Device (preset name or .toml): its page size and pages per block (else "
                   f"{DEFAULT_BLOCK_PAGES}) set the page and block units; also the device a fold=modulo folds onto.")
@click.option("--region-mb", type=click.FloatRange(min=0, min_open=True), default=2.0, show_default=True,
              help="Size of the coarse read-count region, MiB (a whole number of pages).")
@click.option("--idle-threshold-us", type=click.FloatRange(min=0), default=1000.0, show_default=True,
              help="Gaps between arrivals longer than this are idle periods, us.")
@click.option("--lru-pages", default=DEFAULT_LRU_PAGES, show_default=True, callback=_lru_pages,
              help="Sizes (pages, comma-separated) of the read-only LRU page caches whose hit ratio is reported.")
@click.option("--format", "fmt", type=click.Choice(FORMAT_NAMES, case_sensitive=False), default=None,
              help="Input format (default: sniffed from the file).")
@click.option("--skip-bad", is_flag=True, help="Skip malformed lines (counted on stderr) instead of failing.")
@click.option("--cache/--no-cache", default=True, show_default=True,
              help="Use and update the .flashrr-cache.parquet file next to each trace.")
def profile_cmd(paths, as_json, plot_dir, page_size_bytes, device, region_mb, idle_threshold_us, lru_pages, fmt,
                skip_bad, cache):
    """Print the read-disturb profile of each TRACE: read counts per page,
    block and region (top shares, Gini), reuse (stack distance, reuse time,
    read-after-write gap, LRU hit ratios), arrivals (gaps, idle periods,
    bursts), sequential runs and sizes.  TRACE is a file or synth:PRESET with
    an optional pipeline (e.g. 'usr_0.csv?first=1000000'); it is held in
    memory while it is profiled."""
    from flashrr.config import ConfigError
    from flashrr.trace.core import TraceError
    from flashrr.trace.profile import trace_profile
    from flashrr.trace.profile_plots import plot_profile

    block_pages = DEFAULT_BLOCK_PAGES
    page = DEFAULT_PAGE_SIZE_BYTES
    if device is not None:
        try:
            geometry = _device(device).geometry
        except (ConfigError, TraceError, OSError) as e:
            raise _fail(e) from None
        block_pages, page = geometry.pages_per_block, geometry.page_size_bytes
    if page_size_bytes is not None:
        page = page_size_bytes
    region_bytes = _region_bytes(region_mb, page)
    idle_ns = round(idle_threshold_us * 1000)

    rows = []
    for path in paths:
        source, report = _open(path, fmt, skip_bad, cache, device)
        try:
            prof = trace_profile(source, page_size_bytes=page, block_pages=block_pages, region_bytes=region_bytes,
                                 idle_threshold_ns=idle_ns, cache_pages=lru_pages)
        except (TraceError, ValueError, OSError) as e:
            raise _fail(e) from None
        rows.append((path, report, prof))

    if plot_dir is not None:
        for (_, _, prof), out in zip(rows, _plot_dirs(Path(plot_dir), [r[2].trace for r in rows])):
            try:
                plot_profile(prof, out)
            except OSError as e:
                raise _fail(e) from None
            click.echo(f"{prof.trace}: figures in {out}", err=True)

    if as_json:
        out = []
        for path, report, prof in rows:
            d = prof.to_dict()
            out.append({"trace": d.pop("trace"), "path": path, "format": report.fmt if report else "synth",
                        "skipped_lines": report.n_skipped if report else 0, **d})
        click.echo(json.dumps(out, indent=2))
        return
    click.echo("\n\n".join(prof.summary() for _, _, prof in rows))
