"""The safety study: per scheme, the RR trigger against uncorrectable reads against read
latency, on a fresh and an aged device, with new and month-old data (docs/reliability.md,
"A study").

Device: the ``shuffler`` preset (10,000-read RR threshold) and ``flashrr compare``'s trace
(ali1 with superpage-aligned extents), replayed ``repeat`` times.  Error models, both with
Cocktail's 3 retry steps of 95 us each and the steps taken from the model:

* ``fit-cocktail``: TLC fitted to Cocktail's retry table, at 0, 1,000 and 3,000 P/E cycles;
* ``mlc``: the MLC preset with its 40-bit ECC, at 3,000 P/E cycles.

Triggers: ``count N``, RR at N block reads; ``rber 0.9``, RR when the worst page reaches 90%
of the last step's capability (not run where the worst page is past the last step before
any read, :data:`NO_RBER`: the trigger would reclaim at every read).

:data:`FULL` is the study of docs/reliability.md; :data:`QUICK` a small one (two schemes,
month-old data, fresh and rated-endurance TLC, a 5,000-read count and ``rber 0.9``, one replay
of the trace) that runs in under a minute on two cores.  ``flashrr reliability study`` runs
either and writes ``study.csv``, ``study.md`` and ``study.png``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DAY_S = 86_400
#: (model, P/E) points the study is run at where the worst page is past the last step at 0 reads
NO_RBER = {("fit-cocktail", 3000, 30)}
#: the table's columns, in order: (frame column, heading)
COLUMNS = (("model", "model"), ("pe", "P/E"), ("age_days", "data age (d)"), ("trigger", "trigger"),
           ("scheme", "scheme"), ("rr_count", "RRs"), ("rr_page_moves", "RR page moves"),
           ("uncorrectable_reads", "uncorrectable reads"), ("uncorrectable_share", "of flash reads"),
           ("read_latency_mean_us", "read mean (us)"), ("read_latency_p9999_us", "read p99.99 (us)"),
           ("retry_time_share", "retry share"), ("min_rr_margin", "min RR margin"))


@dataclass(frozen=True)
class Study:
    """What the study runs: every combination of ``devices`` (``(model, P/E)`` pairs), ``ages``
    (data age, days), ``triggers`` (``("count", reads)`` or ``("rber", fraction)``) and ``schemes``,
    on ``trace`` (a trace spec) replayed ``repeat`` times."""

    schemes: tuple = ("baseline", "shuffler", "phasedrr", "hotr")
    devices: tuple = (("fit-cocktail", 0), ("fit-cocktail", 1000), ("fit-cocktail", 3000), ("mlc", 3000))
    ages: tuple = (0, 30)
    triggers: tuple = (("count", 5_000), ("count", 10_000), ("count", 20_000), ("rber", 0.9))
    trace: str = ""
    repeat: int = 1

    def cases(self) -> list:
        """``(scheme, model, pe, age_days, trigger)`` of every run, in table order."""
        return [(scheme, model, pe, age, trig) for model, pe in self.devices for age in self.ages
                for trig in self.triggers for scheme in self.schemes
                if not (trig[0] == "rber" and (model, pe, age) in NO_RBER)]


def _main_trace() -> str:
    from ..compare import DEFAULT_TRACE

    return DEFAULT_TRACE


#: the study of docs/reliability.md (with ``repeat=4``)
FULL = Study()
#: the quick study: Baseline and PhasedRR, month-old data, fresh and rated-endurance TLC, a 5,000-read count (one
#: replay brings blocks past it) and the rber trigger
QUICK = Study(schemes=("baseline", "phasedrr"), devices=(("fit-cocktail", 0), ("fit-cocktail", 1000)), ages=(30,),
              triggers=(("count", 5_000), ("rber", 0.9)))


def trace_of(study: Study) -> str:
    """The study's trace spec: the main job's trace, with ``study.trace`` (pipeline keys) added."""
    base = _main_trace()
    return f"{base}&{study.trace}" if study.trace else base


def device(model: str, pe: float, age_days: float, trigger: tuple):
    """The ``shuffler`` device with the error model ``model`` at ``pe`` P/E cycles (spread 1/30 of
    it) and data ``age_days`` old, Cocktail's retry latencies with steps from the model, and the
    RR ``trigger``."""
    from ..config import ReadRetryConfig, SimConfig

    cfg = SimConfig.preset("shuffler").replace(
        error_model={"enabled": True, "rber_preset": model, "initial_pe_mean": float(pe),
                     "initial_pe_sd": pe / 30, "data_age_s": age_days * DAY_S},
        read_retry=ReadRetryConfig.from_model(ReadRetryConfig.cocktail(95_000)))
    if trigger[0] == "count":
        return cfg.replace(rr_threshold_reads=int(trigger[1]))
    return cfg.replace(trigger="rber", rber_fraction=float(trigger[1]))


def run_case(case: tuple, trace: str, repeat: int) -> dict:
    """One row of the study: the run of ``case`` (``(scheme, model, pe, age_days, trigger)``)."""
    import math

    from ..simulate import simulate

    scheme, model, pe, age, trig = case
    res = simulate(device(model, pe, age, trig), trace, policy=scheme, repeat=repeat)
    s = res.summary
    margins = res.rr_events["rber_margin"]
    return {"model": model, "pe": pe, "age_days": age,
            "trigger": f"count {trig[1]:,}" if trig[0] == "count" else f"rber {trig[1]:g}", "scheme": scheme,
            "rr_count": s["rr_count"], "rr_page_moves": s["rr_page_moves"],
            "uncorrectable_reads": s["uncorrectable_reads"],
            "uncorrectable_share": s["uncorrectable_reads"] / max(s["flash_read_pages"], 1),
            "read_latency_mean_us": s["read_latency_mean_ns"] / 1e3,
            "read_latency_p9999_us": s["read_latency_p9999_ns"] / 1e3, "retry_time_share": s["retry_time_share"],
            "min_rr_margin": float(margins.min()) if len(margins) else math.nan,
            "regime_warning": s["regime_warning"]}


def _run(args):
    return run_case(*args)


def run_study(study: Study = FULL, jobs: int | None = 2):
    """The study's table (a DataFrame, one row per case in :meth:`Study.cases` order), its runs
    spread over ``jobs`` processes (:func:`flashrr.sweep.calls.call_each`)."""
    import pandas as pd

    from ..sweep.calls import call_each

    trace = trace_of(study)
    items = [(case, trace, study.repeat) for case in study.cases()]
    rows = dict((item[0], row) for item, row in call_each(_run, items, jobs))
    return pd.DataFrame([rows[c] for c in study.cases()])


def markdown(df) -> str:
    """The study's table as Markdown (:data:`COLUMNS`)."""
    import numbers

    def cell(col, v):
        if col == "uncorrectable_share":
            return f"{v:.2%}"
        if col in ("read_latency_mean_us", "read_latency_p9999_us"):
            return f"{v:,.1f}"
        if col in ("retry_time_share", "min_rr_margin"):
            return f"{v:.3f}"
        return f"{v:,}" if isinstance(v, numbers.Integral) else str(v)

    lines = ["| " + " | ".join(h for _, h in COLUMNS) + " |", "|---" * len(COLUMNS) + "|"]
    lines += ["| " + " | ".join(cell(c, r[c]) for c, _ in COLUMNS) + " |" for _, r in df.iterrows()]
    return "\n".join(lines)


def figure(df, path=None):
    """Uncorrectable reads (share of flash reads) against mean read latency, one panel per device
    state (model, P/E, data age), one point per run: its scheme's colour, a marker per trigger.
    Writes ``path`` when given; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, StrMethodFormatter

    from ..reproduce import palette

    states = list(dict.fromkeys(zip(df["model"], df["pe"], df["age_days"])))
    triggers = list(dict.fromkeys(df["trigger"]))
    schemes = list(dict.fromkeys(df["scheme"]))
    markers = {t: "os^Dv*"[i % 6] for i, t in enumerate(triggers)}
    ncols = min(len(states), 4)
    nrows = -(-len(states) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 2.9 * nrows), layout="constrained", squeeze=False)
    for ax, (model, pe, age) in zip(axes.flat, states):
        sub = df[(df["model"] == model) & (df["pe"] == pe) & (df["age_days"] == age)]
        for _, r in sub.iterrows():
            ax.scatter(r["read_latency_mean_us"], 100 * r["uncorrectable_share"], marker=markers[r["trigger"]],
                       color=palette.colour(r["scheme"], schemes.index(r["scheme"])), edgecolor="black",
                       linewidth=0.3, s=30)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"{model}, {pe:,} P/E, {age:g} d data", fontsize=8)
        ax.set_xlabel("mean read latency (us)", fontsize=7)
        ax.set_ylabel("uncorrectable reads (% of flash reads)", fontsize=7)
        ax.tick_params(which="both", labelsize=6)
        ax.margins(x=0.15, y=0.15)
    for ax in list(axes.flat)[len(states):]:
        ax.set_axis_off()
    handles = ([plt.Line2D([], [], marker="o", linestyle="", color=palette.colour(s, i), label=s)
                for i, s in enumerate(schemes)]
               + [plt.Line2D([], [], marker=markers[t], linestyle="", color="0.4", label=t) for t in triggers])
    axes.flat[0].legend(handles=handles, fontsize=6)
    fig.suptitle("safety study: uncorrectable reads against read latency, per device state", fontsize=9)
    if path is not None:
        fig.savefig(path, dpi=130)
        plt.close(fig)
    return fig


def write(df, out) -> list:
    """Write ``df`` as OUT/study.csv, OUT/study.md and OUT/study.png; returns the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "study.csv", out / "study.md", out / "study.png"]
    df.to_csv(paths[0], index=False)
    paths[1].write_text(markdown(df) + "\n")
    figure(df, paths[2])
    return paths
