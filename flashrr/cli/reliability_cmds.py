"""``flashrr reliability``: the error model from the command line (docs/reliability.md).

Each command builds the model the engine would use (:class:`flashrr.reliability.engine_tables.ErrorTables`)
from an error-model preset (``--preset``) and a device preset whose retry latencies give the
ladder's steps (``--device``), so what it prints is what a run with ``error_model.rber_preset =
PRESET`` and ``read_retry.retry_model = "rber"`` on that device looks up.
"""
from __future__ import annotations

import click

from flashrr.config import ERROR_MODEL_PRESETS, LADDER_GROWTHS

DAY_S = 86_400


def _numbers(text: str, what: str, integer: bool = True) -> list:
    """A comma-separated list of non-negative numbers (``--pe 0,1000,3000``)."""
    try:
        vals = [(int if integer else float)(x.replace("_", "")) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated {'integers' if integer else 'numbers'}, got {text!r}",
                                 param_hint=what) from None
    if not vals or any(v < 0 for v in vals):
        raise click.BadParameter(f"expected one or more numbers >= 0, got {text!r}", param_hint=what)
    return vals


def _model(preset: str, device: str, growth: str, fraction: float = 1.0):
    """The engine's view of ``preset`` on ``device``: an ErrorTables with ``model``, ``ecc``,
    ``ladder`` (``device``'s retry latencies, steps from the model) and ``fraction``."""
    from flashrr.config import ConfigError, ReadRetryConfig, SimConfig
    from flashrr.reliability.engine_tables import ErrorTables

    try:
        base = SimConfig.preset(device)
        retry = base.read_retry
        if retry.retry_model != "rber":  # the table's latencies, the steps from the model
            retry = ReadRetryConfig.from_model(retry)
        cfg = base.replace(error_model={"enabled": True, "rber_preset": preset, "ladder_growth": growth},
                           read_retry=retry, rber_fraction=fraction)
        return ErrorTables(cfg, 1), cfg
    except (ConfigError, ValueError) as e:
        raise click.ClickException(str(e)) from None


def _pages(t) -> tuple:
    from flashrr.reliability import page_names

    return page_names(t.model.bits_per_cell)


def _head(t, preset: str, device: str) -> str:
    caps = t.ladder.capability(t.ecc)
    return (f"{preset} on {device}'s retry latencies: {t.ecc.codeword_bytes:,}-byte codewords, hard decision "
            f"{caps[0]:.0f} bits, {t.n_steps} retry step(s) up to {caps[-1]:.0f} bits; worst page "
            f"{_pages(t)[t.model.worst_page]}")


def _table(head: list, rows: list) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]

    def line(cells):
        return "  ".join(c.rjust(w) for c, w in zip(cells, widths))

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


_preset = click.option("--preset", type=click.Choice(ERROR_MODEL_PRESETS), default="fit-cocktail", show_default=True,
                       help="Error-model preset (error_model.rber_preset).")
_device = click.option("--device", default="cocktail", show_default=True,
                       help="Device preset whose retry latencies are the ladder's steps.")
_growth = click.option("--growth", type=click.Choice(LADDER_GROWTHS), default="linear", show_default=True,
                       help="How each retry step raises the capability (error_model.ladder_growth).")
_pe = click.option("--pe", "pe_text", default="0,1000,3000", show_default=True, help="P/E cycles, comma-separated.")
_age = click.option("--age-days", "age_text", default="0,30,90", show_default=True,
                    help="Data age (days since the block's first page was programmed), comma-separated.")


@click.group("reliability")
def reliability():
    """The error model: RBER, the rber trigger's read counts, the retry ladder, the safety study."""


@reliability.command("rber")
@_preset
@_device
@_growth
@_pe
@_age
@click.option("--reads", "reads_text", default="0,5000,10000,20000", show_default=True,
              help="Block reads since erase, comma-separated.")
@click.option("--page", default="worst", show_default=True, help="Page type (LSB, CSB, MSB, TSB) or 'worst'.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Also write RBER against block reads (one line per P/E point, a panel per data age) to FILE.")
def rber_cmd(preset, device, growth, pe_text, age_text, reads_text, page, plot_path):
    """Print the RBER of a page at each P/E count, data age and block read count: per bit, as
    expected errors per codeword, and the retry steps a read then needs."""
    import numpy as np

    t, _ = _model(preset, device, growth)
    names = _pages(t)
    if page == "worst":
        index = t.model.worst_page
    elif page.upper() in names:
        index = names.index(page.upper())
    else:
        raise click.BadParameter(f"expected 'worst' or one of {', '.join(names)}, got {page!r}", param_hint="--page")
    pes, ages = _numbers(pe_text, "--pe"), _numbers(age_text, "--age-days", False)
    reads = _numbers(reads_text, "--reads")
    rows = []
    for pe in pes:
        for age in ages:
            for r in reads:
                rber = float(t.model.rber(pe, age * DAY_S, r, index))
                errs = float(t.ecc.expected_errors(rber))
                steps, bad = t.ladder.steps(np.array([errs]), t.ecc)
                rows.append([f"{pe:,}", f"{age:g}", f"{r:,}", names[index], f"{rber:.3e}", f"{errs:,.1f}",
                             f"{int(steps[0])}" + (" (uncorrectable)" if bad[0] else "")])
    click.echo(_head(t, preset, device))
    click.echo(_table(["P/E", "data age (d)", "block reads", "page", "RBER (per bit)", "errors per codeword",
                       "retry steps"], rows))
    if plot_path:
        rber_figure(t, preset, pes, ages, max(reads), index, plot_path)
        click.echo(f"wrote {plot_path}", err=True)


def rber_figure(t, preset: str, pes: list, ages: list, max_reads: int, page: int, path):
    """RBER (per bit, log) against block reads from 0 to ``max_reads`` (20,000 when 0), one line
    per P/E count, one panel per data age, with each ladder step's capability (per bit) as a
    dashed line; written to ``path`` and returned (closed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import StrMethodFormatter

    from flashrr.reproduce import palette

    top = max_reads or 20_000
    reads = np.linspace(0, top, 401)
    fig, axes = plt.subplots(1, len(ages), figsize=(3.6 * len(ages), 3.2), layout="constrained", squeeze=False,
                             sharey=True)
    caps = t.ladder.capability(t.ecc) / t.ecc.codeword_bits
    for ax, age in zip(axes[0], ages):
        for i, pe in enumerate(pes):
            ax.plot(reads, t.model.rber(pe, age * DAY_S, reads, page), color=palette.SERIES_COLOURS[i % len(
                palette.SERIES_COLOURS)], label=f"{pe:,} P/E")
        for s, cap in enumerate(caps):
            ax.axhline(cap, color="0.45", linestyle="--", linewidth=0.7)
            ax.annotate("hard decision" if s == 0 else f"step {s}", (top, cap), xytext=(-2, 1),
                        textcoords="offset points", ha="right", va="bottom", fontsize=6, color="0.3")
        ax.set_yscale("log")
        ax.set_title(f"data {age:g} days old", fontsize=8)
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        ax.set_xlabel("block reads since erase", fontsize=7)
        ax.tick_params(labelsize=6)
    axes[0][0].set_ylabel(f"RBER per bit, {_pages(t)[page]} page", fontsize=7)
    axes[0][0].legend(fontsize=6)
    fig.suptitle(f"{preset}: RBER against block reads (dashed: the ECC's capability per step)", fontsize=8)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return fig


@reliability.command("trigger")
@_preset
@_device
@_growth
@_pe
@_age
@click.option("--fraction", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="Share of the capability at which the rber trigger fires (read_reclaim.rber_fraction).")
@click.option("--hard-decision", is_flag=True, help="Capability without retry steps (t_bits alone).")
def trigger_cmd(preset, device, growth, pe_text, age_text, fraction, hard_decision):
    """Print the block read count at which the rber trigger fires, per P/E count (rows) and data
    age (columns): the worst page's expected errors reach FRACTION of the last retry step's
    capability (0: already at no read; never: no read count reaches it)."""
    from flashrr.reliability import NEVER, trigger_reads

    t, _ = _model(preset, device, growth, fraction)
    pes, ages = _numbers(pe_text, "--pe"), _numbers(age_text, "--age-days", False)
    ladder = None if hard_decision else t.ladder
    rows = []
    for pe in pes:
        counts = trigger_reads(t.model, t.ecc, [pe] * len(ages), [a * DAY_S for a in ages], fraction, ladder, t.layer)
        rows.append([f"{pe:,}"] + ["never" if c == NEVER else f"{int(c):,}" for c in counts])
    cap = t.ecc.t_bits if hard_decision else float(t.ladder.capability(t.ecc)[-1])
    click.echo(_head(t, preset, device))
    click.echo(f"trigger read counts at {fraction:g} of {cap:.0f} bits "
               f"({'hard decision' if hard_decision else 'the last retry step'}), by data age (days):")
    click.echo(_table(["P/E"] + [f"{a:g} d" for a in ages], rows))


@reliability.command("ladder")
@_preset
@_device
@_growth
@click.option("--pe", type=click.IntRange(min=0), default=0, show_default=True, help="P/E cycles.")
@click.option("--age-days", type=click.FloatRange(min=0), default=90.0, show_default=True, help="Data age (days).")
def ladder_cmd(preset, device, growth, pe, age_days):
    """Print the retry ladder: each step's capability (bits per codeword and RBER per bit), its
    extra read time, and the block read count from which a read of the worst page needs more
    than it, at the given P/E count and data age."""
    from flashrr.reliability import NEVER, reads_to_errors

    t, cfg = _model(preset, device, growth)
    caps = t.ladder.capability(t.ecc)
    past = reads_to_errors(t.model, t.ecc, float(pe), age_days * DAY_S, caps, True, t.layer)
    t_read = cfg.timing.t_read_ns
    rows = [[str(s), f"{cap:.1f}", f"{cap / t.ecc.codeword_bits:.3e}", f"{extra / 1e3:,.1f}",
             f"{(t_read + extra) / 1e3:,.1f}", "never" if n == NEVER else f"{int(n):,}"]
            for s, (cap, extra, n) in enumerate(zip(caps, t.ladder.extra_ns, past))]
    click.echo(_head(t, preset, device))
    click.echo(f"{growth} growth, factor {t.ladder.factor:.4g}; worst page at {pe:,} P/E, data {age_days:g} days old:")
    click.echo(_table(["step", "capability (bits)", "RBER per bit", "extra read (us)", "read (us)",
                       "needs more from block reads"], rows))


@reliability.command("study")
@click.option("--quick", is_flag=True, help="The quick study (two schemes, two device states, two triggers, one "
                                            "replay of the trace): under a minute on two cores.")
@click.option("--repeat", type=click.IntRange(min=1), default=None,
              help="Replays of the trace [default: 4; with --quick, 1].")
@click.option("--jobs", type=click.IntRange(min=0), default=None,
              help="Worker processes [default: the CPUs available; 0 runs in this process].")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="out/reliability", show_default=True,
              help="Where study.csv, study.md and study.png go.")
def study_cmd(quick, repeat, jobs, out_dir):
    """Run the safety study (docs/reliability.md, "A study"): per scheme, RR trigger and device
    state, the RRs, uncorrectable reads and read latency; print its table and write it, with a
    figure, to OUT."""
    from dataclasses import replace

    from flashrr.reliability.study import FULL, QUICK, run_study, write

    study = replace(QUICK if quick else FULL, repeat=repeat or (1 if quick else 4))
    df = run_study(study, jobs)
    paths = write(df, out_dir)
    click.echo(paths[1].read_text(), nl=False)
    for p in paths:
        click.echo(f"wrote {p}", err=True)
