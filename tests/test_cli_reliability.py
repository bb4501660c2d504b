"""``flashrr reliability``: RBER, trigger read counts, the retry ladder, the RBER plot and the
safety study, each checked against numbers worked out from docs/reliability.md's coefficients
or the defining property of what is printed."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import flashrr
from flashrr.cli import main
from flashrr.reliability import rber_preset

DAY_S = 86_400


def _invoke(*args):
    res = CliRunner().invoke(main, ["reliability", *args])
    assert res.exit_code == 0, res.output
    return res


def _rows(text: str) -> list:
    """The table lines of a command's output (after the dashes line), split on runs of spaces."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if set(ln.replace(" ", "")) == {"-"})
    return [ln.split() for ln in lines[start + 1:] if ln.strip()]


def test_rber_is_the_tlc_formula_by_hand():
    """Kim et al.'s TLC set (docs/reliability.md, "Coefficients"), LSB page (1 of the 1-2-4
    coding's mean 7/3, so a factor of 3/7), 1,000 P/E cycles, 30 days, 10,000 block reads."""
    pe, days, reads = 1000, 30, 10_000
    raw = (1.48e-3 + 3.90e-10 * pe ** 2.05 + 6.28e-5 * (1 + pe) ** 0.14 * days ** 0.54
           + 3.73e-9 * (1 + pe) ** 0.33 * reads ** 1.71)
    rber = 3 / 7 * raw
    errors = rber * 8192
    caps = 72 * (1 + 0.5 * np.arange(4))  # the TLC ECC's 72 bits, linear growth of 0.5 a step, Cocktail's 3 steps
    steps = int(np.searchsorted(caps, errors))
    res = _invoke("rber", "--preset", "tlc", "--pe", "1000", "--age-days", "30", "--reads", "10000", "--page", "lsb")
    (row,) = _rows(res.stdout)
    assert row[:4] == ["1,000", "30", "10,000", "LSB"]
    assert float(row[4]) == pytest.approx(rber, rel=1e-3) and float(row[5].replace(",", "")) == pytest.approx(
        errors, abs=0.06)
    assert row[6] == str(min(steps, 3)) and (("(uncorrectable)" in res.stdout) is (steps > 3))
    assert "hard decision 72 bits, 3 retry step(s) up to 180 bits" in res.stdout


def test_rber_prints_every_point_and_the_worst_page_by_default():
    res = _invoke("rber", "--preset", "mlc", "--pe", "0,3000", "--age-days", "0,30,90", "--reads", "0,100000")
    rows = _rows(res.stdout)
    assert len(rows) == 2 * 3 * 2 and {r[3] for r in rows} == {"MSB"}
    assert [(r[0], r[1], r[2]) for r in rows[:3]] == [("0", "0", "0"), ("0", "0", "100,000"), ("0", "30", "0")]


def test_trigger_counts_are_the_first_read_count_past_the_fraction():
    """Each printed count c: the worst page (MSB) expects at least fraction x the last step's
    capability in errors at c reads, and less at c - 1 (the fit-cocktail ladder tops out at 108 bits:
    72 x (1 + 3 x 0.1647), docs/reliability.md)."""
    from flashrr.reliability import fitted_to

    res = _invoke("trigger", "--pe", "0,1000", "--age-days", "0,90", "--fraction", "0.9")
    f = fitted_to("cocktail")
    cap = 0.9 * f.ladder.capability(f.ecc)[-1]
    assert cap == pytest.approx(0.9 * 72 * (1 + 3 * f.ladder.factor))
    rows = _rows(res.stdout)
    assert [r[0] for r in rows] == ["0", "1,000"]
    for row, pe in zip(rows, (0, 1000)):
        for cell, days in zip(row[1:], (0, 90)):
            c = int(cell.replace(",", ""))
            errs = lambda r: 8192 * f.model.rber(pe, days * DAY_S, r, f.model.worst_page)  # noqa: E731
            assert errs(c) >= cap > errs(c - 1)
    # the documented fit point: at 0 P/E and 90 days the read turns uncorrectable at Cocktail's 10,240 reads
    full = _rows(_invoke("trigger", "--pe", "0", "--age-days", "90").stdout)
    assert full == [["0", "10,240"]]
    hard = _rows(_invoke("trigger", "--pe", "3000", "--age-days", "30", "--hard-decision").stdout)
    assert hard == [["3,000", "0"]]  # TLC's wear alone is past 72 bits at 3,000 P/E cycles


def test_ladder_is_cocktails_steps_with_the_fitted_capabilities():
    res = _invoke("ladder")
    rows = _rows(res.stdout)
    assert [r[0] for r in rows] == ["0", "1", "2", "3"]
    assert [round(float(r[1])) for r in rows] == [72, 84, 96, 108]  # docs/reliability.md: 72, 84, 96, 108 bits
    assert [r[3] for r in rows] == ["0.0", "95.0", "190.0", "285.0"]  # Cocktail's 95 us per retry
    assert [r[4] for r in rows] == ["75.0", "170.0", "265.0", "360.0"]  # plus the cocktail preset's 75 us read
    assert rows[-1][5] == "10,240"  # uncorrectable past the fit's threshold at 0 P/E, 90 days
    assert [int(r[5].replace(",", "")) for r in rows] == sorted(int(r[5].replace(",", "")) for r in rows)


def test_bad_input_is_one_line():
    for args, what in ((["rber", "--pe", "x"], "--pe"), (["rber", "--reads", "-1"], "--reads"),
                       (["rber", "--page", "XSB"], "--page"), (["ladder", "--device", "nope"], "nope"),
                       (["trigger", "--preset", "slc"], "--preset")):
        res = CliRunner().invoke(main, ["reliability", *args])
        assert res.exit_code != 0 and what in res.output and "Traceback" not in res.output


def test_rber_plot_draws_one_line_per_pe_point_and_the_capabilities(tmp_path):
    from flashrr.cli.reliability_cmds import _model, rber_figure

    t, _ = _model("fit-cocktail", "cocktail", "linear")
    fig = rber_figure(t, "fit-cocktail", [0, 1000], [0, 30, 90], 20_000, t.model.worst_page, tmp_path / "r.png")
    assert len(fig.axes) == 3 and (tmp_path / "r.png").stat().st_size > 10_000
    caps = sorted(t.ladder.capability(t.ecc) / 8192)
    for ax, days in zip(fig.axes, (0, 30, 90)):
        curves, levels = ax.lines[:2], ax.lines[2:]
        for line, pe in zip(curves, (0, 1000)):
            x, y = line.get_data()
            assert x[0] == 0 and x[-1] == 20_000
            np.testing.assert_allclose(y, t.model.rber(pe, days * DAY_S, x, t.model.worst_page))
        assert sorted(ln.get_ydata()[0] for ln in levels) == pytest.approx(caps)
    res = _invoke("rber", "--pe", "0", "--age-days", "30", "--reads", "0,5000", "--plot", str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").exists() and f"wrote {tmp_path / 'p.png'}" in res.stderr


def test_study_rows_are_the_runs_they_name(tmp_path, monkeypatch):
    """A two-run study on a 20,000-request prefix: each row equals a direct run of its case, and the
    command writes the CSV, the Markdown it prints and the figure."""
    from flashrr.reliability import study

    tiny = study.Study(schemes=("baseline", "shuffler"), devices=(("fit-cocktail", 1000),), ages=(30,),
                       triggers=(("count", 3_000),), trace="first=20000", repeat=1)
    monkeypatch.setattr(study, "QUICK", tiny)
    res = _invoke("study", "--quick", "--jobs", "0", "--out", str(tmp_path))
    df = pd.read_csv(tmp_path / "study.csv")
    assert list(df["scheme"]) == ["baseline", "shuffler"] and (tmp_path / "study.png").stat().st_size > 10_000
    assert res.stdout == (tmp_path / "study.md").read_text() and res.stdout.count("| fit-cocktail |") == 2
    for (_, row), case in zip(df.iterrows(), tiny.cases()):
        s = flashrr.simulate(study.device(*case[1:]), study.trace_of(tiny), case[0]).summary
        assert row["rr_count"] == s["rr_count"] and row["uncorrectable_reads"] == s["uncorrectable_reads"]
        assert row["uncorrectable_share"] == pytest.approx(s["uncorrectable_reads"] / s["flash_read_pages"])
    assert study.trace_of(tiny).endswith("&first=20000")


def test_the_study_plans():
    from flashrr.reliability.study import FULL, NO_RBER, QUICK

    assert len(FULL.cases()) == 4 * 2 * 4 * 4 - 4 * len(NO_RBER)  # the rber trigger skipped past the capability
    assert len(QUICK.cases()) == 2 * 2 * 2 and replace(QUICK, repeat=3).cases() == QUICK.cases()
    assert QUICK.trace == "" and ("count", 5_000) in QUICK.triggers
