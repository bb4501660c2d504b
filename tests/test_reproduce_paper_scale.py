"""``flashrr reproduce PAPER|all --paper-scale``: the flag selects each paper's stated
counts, it excludes ``--quick``, the Dask scheduler reaches the sweeps, and a tiny
paper-scale plan builds the sweep specs it should.  No paper-scale simulation runs here."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from click.testing import CliRunner

from flashrr.cli.reproduce_cmds import reproduce_cmd
from flashrr.reproduce import PAPER_MODULES, PAPERS
from flashrr.reproduce.runner import reproduce
from flashrr.sweep.spec import load_spec

NAMES = list(PAPER_MODULES)


def test_paper_scale_selects_each_papers_stated_values():
    shuffler = PAPERS["shuffler"].make_plan(paper_scale=True)
    assert shuffler.paper_scale and not shuffler.quick
    assert shuffler.repeat == 128 and shuffler.n_requests is None and len(shuffler.traces) == 10
    assert shuffler.cache_sizes_mib == (32, 128)
    cocktail = PAPERS["cocktail"].make_plan(paper_scale=True)
    fields = cocktail.device_fields()
    assert cocktail.planes() == 128 and fields["capacity_bytes"] == 256 << 20 and fields["name"] == "cocktail"
    assert cocktail.device_config().geometry.channels == 8 and cocktail.stretch() == 1.0
    assert cocktail.repeat is None and len(cocktail.traces) == 10  # Table II's repeat counts, all ten traces
    phasedrr = PAPERS["phasedrr"].make_plan(paper_scale=True)
    assert phasedrr.rr_threshold == 25_000 and phasedrr.n_requests is None and len(phasedrr.traces) == 8
    hotr = PAPERS["hotr"].make_plan(paper_scale=True)
    assert hotr.n_requests is None and hotr.repeat == 1 and len(hotr.traces) == 4
    pv = PAPERS["superblock-pv"].make_plan(paper_scale=True)
    assert (pv.dies, pv.planes, pv.blocks, len(pv.pe_points)) == (24, 4, 400, 16)


def test_default_cocktail_device_is_unchanged_by_the_size_fields():
    fields = PAPERS["cocktail"].make_plan().device_fields()
    assert fields["name"] == "cocktail-scaled" and (fields["channels"], fields["chips_per_channel"]) == (1, 2)
    assert fields["capacity_bytes"] == 16 << 20


@pytest.mark.parametrize("name", NAMES)
def test_every_paper_declares_a_paper_scale_plan_apart_from_the_quick_one(name):
    paper = PAPERS[name]
    plan = paper.make_plan(paper_scale=True)
    assert plan.paper_scale and not plan.quick
    assert plan == replace(paper.make_plan(), **paper.paper_scale, paper_scale=True)
    with pytest.raises(ValueError, match="mutually exclusive"):
        paper.make_plan(quick=True, paper_scale=True)
    assert paper.plan_from_options(paper_scale=True) == plan


@pytest.mark.parametrize("args", [["shuffler"], ["all"]])
def test_quick_and_paper_scale_together_are_a_usage_error(args, tmp_path):
    r = CliRunner().invoke(reproduce_cmd, args + ["--quick", "--paper-scale", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--quick and --paper-scale are mutually exclusive" in r.output


def test_jobs_and_scheduler_together_are_a_usage_error(tmp_path):
    r = CliRunner().invoke(reproduce_cmd, ["hotr", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:1",
                                           "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--scheduler" in r.output and "not both" in r.output


def test_cli_passes_paper_scale_scheduler_and_snapshots_to_every_paper(monkeypatch, tmp_path):
    import flashrr.reproduce.report as report

    calls = []

    def record(paper, out, **kw):
        calls.append((paper.name, kw))
        raise RuntimeError("recorded")

    monkeypatch.setattr(report, "reproduce", record)
    r = CliRunner().invoke(reproduce_cmd, ["all", "--paper-scale", "--scheduler", "tcp://127.0.0.1:1",
                                           "--no-snapshots", "--out", str(tmp_path), "--no-progress"])
    assert r.exit_code != 0 and [n for n, _ in calls] == NAMES
    assert all(kw["paper_scale"] and not kw["quick"] and kw["scheduler"] == "tcp://127.0.0.1:1"
               and kw["snapshots"] is False for _, kw in calls)
    assert "Mode: --paper-scale" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("name", ["shuffler", "phasedrr", "cocktail", "hotr"])
def test_scheduler_and_snapshots_reach_every_sweep_and_calibration_of_a_paper(name, monkeypatch, tmp_path):
    import flashrr.sweep as sweep_pkg

    seen = []

    def fake_sweeps(specs, store, jobs=None, scheduler=None, progress=True, snapshots=True):
        seen.append((jobs, scheduler, snapshots))
        return [sweep_pkg.SweepOutcome(pd.DataFrame(), pd.DataFrame(), [], sweep_pkg.SweepReport()) for _ in specs]

    monkeypatch.setattr(sweep_pkg, "run_sweeps", fake_sweeps)
    paper = PAPERS[name]
    plan = paper.make_plan(quick=True)
    calibrations = []
    if name in ("cocktail", "hotr", "phasedrr"):  # no calibration runs: the values are given, the workers recorded
        import flashrr.papers.cocktail.plan as cocktail_plan
        import flashrr.papers.hotr.plan as hotr_plan
        import flashrr.papers.phasedrr.plan as phasedrr_plan

        def fake_hotr(plan, out, progress, jobs, scheduler, snapshots):
            calibrations.append((jobs, scheduler, snapshots))
            return {t: 1.0 for t in plan.traces}

        def fake_cocktail(plan, out, progress, jobs, scheduler, snapshots):
            calibrations.append((jobs, scheduler, snapshots))
            return replace(plan, target_busy=None)

        def fake_phasedrr(plan, out, progress, jobs, scheduler, snapshots):
            calibrations.append((jobs, scheduler, snapshots))
            return replace(plan, replays=tuple((t, 1) for t in plan.traces))

        monkeypatch.setattr(hotr_plan, "calibration", fake_hotr)
        monkeypatch.setattr(cocktail_plan, "calibrated", fake_cocktail)
        monkeypatch.setattr(phasedrr_plan, "calibrated", fake_phasedrr)
    paper.run(plan, tmp_path, paper.groups, jobs=None, progress=False, scheduler="tcp://127.0.0.1:1",
              snapshots=False)
    assert seen and set(seen) == {(None, "tcp://127.0.0.1:1", False)}
    assert calibrations == ([(None, "tcp://127.0.0.1:1", False)] if name != "shuffler" else [])


def test_runner_refuses_jobs_with_a_scheduler(tmp_path):
    with pytest.raises(ValueError, match="not both"):
        reproduce(PAPERS["hotr"], tmp_path, jobs=2, scheduler="tcp://127.0.0.1:1")


def test_tiny_paper_scale_plans_build_the_sweep_specs_they_should():
    from flashrr.papers.cocktail.plan import specs as cocktail_specs
    from flashrr.papers.shuffler.plan import specs as shuffler_specs

    shuffler = replace(PAPERS["shuffler"].make_plan(paper_scale=True), traces=("ali1",), n_requests=1000)
    s = shuffler_specs(shuffler)
    assert {g: load_spec(spec).repeat for g, spec in s.items()} == dict.fromkeys(s, 128)
    assert [d["capacity_bytes"] for d in s["cache"]["devices"]] == [32 << 20, 128 << 20]
    cocktail = replace(PAPERS["cocktail"].make_plan(paper_scale=True), traces=("msr_web",), n_requests=1000,
                       target_busy=None)
    main = load_spec(cocktail_specs(cocktail)["main"])
    cfg = main.devices[0].config
    assert cfg.geometry.channels * cfg.geometry.chips_per_channel * 4 == 128 and cfg.cache.capacity_bytes == 256 << 20
    # Table II's RAF (50) and repeats (10) of msr_web, at the paper's own arrival rate (no stretch)
    (trace,) = main.traces
    assert "amplify_reads=50" in trace.text and "repeat=10" in trace.text and "scale_time" not in trace.text
