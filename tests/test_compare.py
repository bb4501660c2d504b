"""`flashrr compare` and `flashrr.compare`: several policies on one trace, one table."""
import json
import math

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import flashrr
from flashrr.cli import main
from flashrr.compare import METRIC_KEYS, CompareError, parse_policy_params, pct_change, plan_rows

TINY = "synth:lun0?n_requests=4000&seed=3&align_bytes=32768&footprint_page_bytes=8192"
# Every metric the issue lists, by its summary key.
ISSUE_METRICS = ["rr_count", "rr_page_moves_all", "erase_count", "waf", "read_latency_mean_ns",
                 "read_latency_p99_ns", "read_latency_p9999_ns", "cache_read_hit_ratio", "policy_metadata_bytes",
                 "blocked_reads", "redirected_reads"]


def hand_pct(value, ref):
    if ref == 0:
        return 0.0 if value == 0 else math.nan
    return (value - ref) / ref * 100.0


@pytest.fixture(scope="module")
def small_device(tmp_path_factory):
    """The shuffler preset with a 2 MiB cache and an RR threshold of 40 reads, so that the tiny trace
    triggers read reclaim and the rows differ."""
    cfg = flashrr.SimConfig.preset("shuffler").replace(rr_threshold_reads=40, capacity_bytes=2 << 20,
                                                       name="shuffler-small")
    path = tmp_path_factory.mktemp("dev") / "small.toml"
    path.write_text(cfg.to_toml())
    return str(path)


@pytest.fixture(scope="module")
def tiny_table(small_device):
    return flashrr.compare("baseline,page-64,shuffler", trace=TINY, preset=small_device, repeat=2, jobs=0)


def test_every_column_present_and_one_row_per_policy(tiny_table):
    df = tiny_table
    assert list(df.index) == ["baseline", "page-64", "shuffler"]
    assert set(ISSUE_METRICS) <= set(METRIC_KEYS)
    for k in ISSUE_METRICS:
        assert k in df.columns and k + "_pct" in df.columns, k
    assert (df["device"] == "shuffler-small").all() and (df["repeat"] == 2).all()
    assert df.at["baseline", "rr_count"] > 0 and df["rr_count"].nunique() == 3  # the test exercises real RRs


def test_pct_changes_match_a_hand_computation_from_the_rows(tiny_table):
    df = tiny_table
    for k in ISSUE_METRICS:
        ref = float(df[k].iloc[0])
        for label in df.index:
            want, got = hand_pct(float(df.at[label, k]), ref), df.at[label, k + "_pct"]
            assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, rel=1e-12, abs=1e-12), \
                (label, k, got, want)
    assert (df.loc["baseline", [k + "_pct" for k in ISSUE_METRICS]] == 0).all()


def test_rows_are_the_runs_simulate_gives(tiny_table, small_device):
    """A row holds the run of its policy on its device: the same numbers as flashrr.simulate."""
    s = flashrr.simulate(small_device, TINY, policy="page-64", repeat=2).summary
    for k in ISSUE_METRICS:
        assert tiny_table.at["page-64", k] == s[k], k


@given(st.floats(0.001, 1e9), st.floats(-99.0, 1000.0))
def test_pct_change_inverts_a_relative_change(ref, pct):
    assert pct_change(ref * (1 + pct / 100), ref) == pytest.approx(pct, rel=1e-9, abs=1e-6)


def test_rows_without_a_device_run_on_the_common_device():
    from flashrr.compare import COMMON_PRESET

    rows = plan_rows("baseline,phasedrr,hotr,shuffler+phasedrr,baseline@cocktail")
    assert [r.preset for r in rows] == [COMMON_PRESET] * 4 + ["cocktail"]


def test_each_policy_runs_on_its_papers_preset():
    # The papers' device tables: Shuffler TOS'26 (Baseline first defined there), PhasedRR MSST'24,
    # Cocktail TCAD'23, HotR.
    want = {"baseline": "shuffler", "page-8": "shuffler", "shuffler": "shuffler", "phasedrr": "phasedrr",
            "rl-rr": "phasedrr", "reallocation": "phasedrr", "cocktail": "cocktail", "redftl": "cocktail",
            "ipr": "cocktail", "hotr": "hotr", "rails": "hotr", "ttflash": "hotr", "optimal": "hotr"}
    rows = plan_rows(list(want), preset="paper")
    assert {r.policy: r.preset for r in rows} == want
    assert {r.preset for r in plan_rows(list(want), preset="cocktail")} == {"cocktail"}
    r = plan_rows("baseline,baseline@cocktail,shuffler", preset="shuffler-32")
    assert [(x.label, x.preset) for x in r] == [("baseline", "shuffler-32"), ("baseline@cocktail", "cocktail"),
                                                ("shuffler", "shuffler-32")]


def test_device_column_names_each_rows_device():
    df = flashrr.compare("baseline,baseline@cocktail", trace=TINY, repeat=1, jobs=2)
    assert list(df["device"]) == ["shuffler", "cocktail"]


def test_policy_params_reach_the_policy():
    p = parse_policy_params(["shuffler.delta_f=0.3", "shuffler.delta_p=0.1", "page.x=abc"])
    assert p == {"shuffler": {"delta_f": 0.3, "delta_p": 0.1}, "page": {"x": "abc"}}
    rows = plan_rows("baseline,shuffler", params={"shuffler": {"delta_f": 0.3}})
    assert rows[1].params == {"delta_f": 0.3} and rows[0].params == {}


@pytest.mark.parametrize("kwargs,msg", [
    (dict(policies="baseline,nope"), "unknown policy 'nope'; expected one of"),
    (dict(policies="baseline,shuffler", params={"shuffler": {"bogus": 1}}), "unknown parameter 'bogus'"),
    (dict(policies="baseline", params={"page": {"x": 1}}), "'page' is not a compared policy"),
    (dict(policies="baseline,baseline"), "listed twice"),
    (dict(policies="baseline@nowhere"), "unknown device preset 'nowhere'"),
    (dict(policies="baseline", repeat=0), "repeat: expected a positive integer"),
    (dict(policies=""), "expected a comma-separated list"),
])
def test_bad_input_names_what_was_expected(kwargs, msg):
    with pytest.raises(CompareError, match=msg.replace("(", r"\(")):
        flashrr.compare(trace=TINY, jobs=0, **kwargs)


def test_malformed_param_and_cli_errors_are_one_line():
    with pytest.raises(CompareError, match="expected POLICY.KEY=VALUE"):
        parse_policy_params(["delta_f=0.3"])
    runner = CliRunner()
    for args, msg in ((["--policies", "baseline,nope"], "unknown policy 'nope'"),
                      (["-p", "shuffler=1"], "expected POLICY.KEY=VALUE"),
                      (["--trace", "missing.csv", "--policies", "baseline"], "missing.csv"),
                      (["--json", "--csv"], "not both")):
        r = runner.invoke(main, ["compare", "--jobs", "0", *args])
        assert r.exit_code != 0 and msg in r.output and "Traceback" not in r.output, (args, r.output)


def test_cli_json_csv_table_and_plot(tmp_path):
    runner = CliRunner()
    base = ["compare", "--policies", "baseline,page", "--preset", "shuffler", "--trace", TINY, "--jobs", "0"]
    r = runner.invoke(main, base + ["--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert [x["label"] for x in rows] == ["baseline", "page"] and "rr_count_pct" in rows[1]
    r = runner.invoke(main, base + ["--csv"])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(__import__("io").StringIO(r.output), index_col=0)
    assert df.at["page", "rr_count"] == rows[1]["rr_count"]
    png = tmp_path / "cmp.png"
    r = runner.invoke(main, base + ["--plot", str(png)])
    assert r.exit_code == 0, r.output
    assert "RRs" in r.output and "page moves" in r.output and "read p99.99 (us)" in r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_on_defaults_shows_read_reclaim():
    """The README's `flashrr run`: Baseline on the default trace performs dozens of RRs."""
    r = CliRunner().invoke(main, ["run", "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    assert s["policy"] == "baseline" and s["rr_count"] >= 24, s["rr_count"]


def test_per_paper_blocks_put_each_scheme_beside_baseline_on_its_papers_device(small_device):
    from flashrr.compare import compare_per_paper, format_per_paper, per_paper_rows

    blocks = per_paper_rows("baseline,shuffler,cocktail,page-8,redftl")
    assert {dev: [r.label for r in rows] for dev, rows in blocks.items()} == {
        "shuffler": ["baseline", "shuffler", "page-8"], "cocktail": ["baseline", "cocktail", "redftl"]}
    assert all(r.preset == dev for dev, rows in blocks.items() for r in rows)
    with pytest.raises(CompareError, match="drop the @PRESET"):
        per_paper_rows("shuffler@cocktail")
    tables = compare_per_paper("shuffler,hotr", trace=TINY, repeat=1, jobs=0)
    assert list(tables) == ["shuffler", "hotr"]
    for dev, df in tables.items():
        assert list(df["device"]) == [dev, dev] and df.index[0] == "baseline"
        alone = flashrr.simulate(flashrr.SimConfig.preset(dev), TINY, policy="baseline", seed=0)
        assert df.at["baseline", "read_latency_mean_ns"] == alone.summary["read_latency_mean_ns"]
    text = format_per_paper(tables)
    assert text.count("change against baseline on the same device") == 1
    assert "Shuffler (TOS 2026): its schemes on its device (shuffler)" in text and "HotR" in text


def test_cli_per_paper_writes_one_chart_per_paper_and_refuses_a_preset(tmp_path):
    runner = CliRunner()
    base = ["compare", "--per-paper", "--policies", "shuffler,cocktail", "--trace", TINY, "--jobs", "0",
            "--repeat", "1"]
    r = runner.invoke(main, base + ["--json", "--plot", str(tmp_path / "c.png")])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output.split("wrote")[0])
    assert [(x["label"], x["paper"]) for x in rows] == [("baseline", "shuffler"), ("shuffler", "shuffler"),
                                                        ("baseline", "cocktail"), ("cocktail", "cocktail")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c-cocktail.png", "c-shuffler.png"]
    r = runner.invoke(main, base + ["--preset", "shuffler"])
    assert r.exit_code != 0 and "drop --preset" in r.output


def test_a_scheme_that_refuses_the_common_device_says_where_it_can_run():
    with pytest.raises(CompareError, match=r"cocktail on shuffler: .*block-level.*--per-paper"):
        flashrr.compare("baseline,cocktail", trace=TINY, repeat=1, jobs=0)


def _texts_inside_canvas(fig):
    """Everything ``fig`` draws (labels, tick labels, annotations, titles) lies inside its canvas:
    the tight bounding box of the drawn artists is within the figure's box (no clipped label)."""
    fig.canvas.draw()
    tight, page = fig.get_tightbbox(fig.canvas.get_renderer()), fig.bbox_inches
    tol = 0.02  # inches
    assert tight.x0 >= page.x0 - tol and tight.y0 >= page.y0 - tol and tight.x1 <= page.x1 + tol \
        and tight.y1 <= page.y1 + tol, (tight, page)


def test_bar_chart_and_cross_paper_figure_keep_every_label_on_the_canvas(tiny_table):
    import matplotlib.pyplot as plt

    from flashrr.compare import cross_paper_figure, plot

    for fig in (plot(tiny_table), cross_paper_figure(tiny_table)):
        assert len([a for a in fig.axes if a.has_data()]) >= 2
        _texts_inside_canvas(fig)
        plt.close(fig)


def test_cross_paper_device_takes_every_scheme():
    """The cross-paper device meets what each scheme requires: single-block superblocks (Cocktail),
    no data cache (Rails, TTFlash), read reclaim on."""
    from flashrr.compare import CROSS_PAPER_POLICIES, cross_paper_device

    dev = cross_paper_device()
    assert dev.read_reclaim.rr_enabled and dev.cache.capacity_bytes == 0
    for p in CROSS_PAPER_POLICIES:
        flashrr.simulate(dev, "synth:lun0?n_requests=300", policy=p)  # raises if the policy refuses the device


def test_each_papers_block_is_its_quick_plans_device_and_trace():
    """The Shuffler block needs no Baseline run (the paper states its replays): the quick plan's
    device at its regime's occupancy and its synthetic ali1 (extents on 32 KiB boundaries) placed
    as the regime says, 8 replays (half the default plan's 16); a fixed ``repeat`` replaces a
    calibrated length."""
    from flashrr.paper_blocks import PRESETS, TRACES, paper_block
    from flashrr.reproduce import PAPERS
    from flashrr.reproduce.trace_specs import with_replays

    assert PRESETS == ("shuffler", "phasedrr", "cocktail", "hotr") and set(TRACES) == set(PRESETS)
    plan = PAPERS["shuffler"].make_plan(quick=True, workload="synth")
    b = paper_block("shuffler")
    assert b.spec.startswith("synth:ali1?align_bytes=32768&") and b.spec.endswith("&repeat=8")
    assert b.spec == with_replays(plan.trace_spec("ali1"), 8) and "pack=" in b.spec
    occupancy = plan.regime.occupancy
    assert b.device.name == "shuffler" and b.device.precondition.fill_ratio == occupancy > 0 and b.params == {}
    assert "8 replays, half the default plan's" in b.describe()
    assert f"{occupancy:.0%} of its space filled" in b.describe()
    p = paper_block("phasedrr", repeat=3)  # no calibration: three replays of the plan's usr_0 trace
    assert p.spec.startswith("model:phasedrr-usr_0?") and "&pack=" in p.spec and p.spec.endswith("&repeat=3")
    assert p.device.read_reclaim.rr_threshold_reads == 25_000 and p.params["phasedrr"] == {"delta_reads": 256}
    assert p.params["rl-rr"] == {"start_reads": 2560, "charge_metadata": True} and "replays fixed" in p.length


def test_a_calibrated_block_takes_the_regimes_length(monkeypatch):
    """PhasedRR's and Cocktail's lengths come from calibrate_length on the quick plan (Baseline alone);
    Cocktail's replays count in multiples of the trace's Table II repeat count."""
    from flashrr.reproduce import calibration

    asked = []

    def fake(plan, trace, snapshot=None):
        asked.append((type(plan).__module__, trace, plan.quick, snapshot))
        return 5, 1_800

    monkeypatch.setattr(calibration, "calibrate_length", fake)
    from flashrr.paper_blocks import paper_block

    p = paper_block("phasedrr", snapshot="snaps")
    assert p.spec.endswith("&repeat=5") and "Baseline's 1,800 RRs reach the regime's target of 50" in p.length
    c = paper_block("cocktail")  # ali206's Table II repeat count is 1, so 5 units are 5 plays
    assert c.spec.endswith("&amplify_reads=2&amplify_spacing=spread&scale_time=16.0&repeat=5")
    assert "target of 1,782" in c.length and c.device.name == "cocktail-scaled"
    assert asked == [("flashrr.papers.phasedrr.plan", "usr_0", True, "snaps"),
                     ("flashrr.papers.cocktail.plan", "alibaba_206", True, None)]


def test_per_paper_runs_each_block_on_its_own_device_trace_and_parameters(monkeypatch):
    """compare_per_paper without a trace: every row of a block runs on the block's device and trace,
    with the plan's scheme parameters under the user's, and the table says which trace."""
    from flashrr import compare as cmp
    from flashrr import paper_blocks
    from flashrr.compare import compare_per_paper, format_per_paper

    dev = flashrr.SimConfig.preset("phasedrr").replace(rr_threshold_reads=40, capacity_bytes=2 << 20, name="ph-tiny")
    block = paper_blocks.Block("phasedrr", "phasedrr", "lun0", dev, TINY, "1 replay, for the test",
                               {"phasedrr": {"delta_reads": 4}})
    seen = []
    monkeypatch.setattr(paper_blocks, "paper_blocks",
                        lambda presets, repeat, where, jobs: seen.append((list(presets), repeat)) or
                        {"phasedrr": block})
    tables = compare_per_paper("phasedrr", jobs=0, params={"phasedrr": {"max_blocks": 8}})
    assert seen == [(["phasedrr"], None)]
    df = tables["phasedrr"]
    assert df.attrs["block"] is block and list(df["device"]) == ["ph-tiny", "ph-tiny"]
    ref = flashrr.simulate(dev, TINY, policy="phasedrr", delta_reads=4, max_blocks=8)
    assert df.at["phasedrr", "rr_count"] == ref.summary["rr_count"]
    assert df.at["phasedrr", "read_latency_mean_ns"] == ref.summary["read_latency_mean_ns"]
    assert df.at["baseline", "rr_count"] == flashrr.simulate(dev, TINY, policy="baseline").summary["rr_count"]
    text = format_per_paper(tables)
    assert "each paper's block on its own device and trace" in text
    assert f"trace lun0 ({TINY}), 1 replay, for the test; 4,000 requests per run" in text
    with pytest.raises(CompareError, match="no paper trace for the device"):
        cmp._own_traces({"cocktail-x": []}, None, 0, 0, False, "compiled", False)
