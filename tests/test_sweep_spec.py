"""Sweep specs: parsing, grid expansion, run keys, and validation before any run."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

import flashrr.policies  # noqa: F401  (built-in policies registered before the registry snapshot)
from flashrr import __version__
from flashrr.cli.sweep_cmds import sweep as sweep_cmd
from flashrr.config import SimConfig
from flashrr.policy import POLICIES, Baseline, register_policy
from flashrr.sweep import SpecError, load_spec, plan, sweep
from flashrr.sweep.identity import normalize_synth_spec
from flashrr.sweep.store import ResultStore
from flashrr.sweep.task import run_key
from flashrr.trace import Trace
from flashrr.trace.io import write_trace


class GridPolicy(Baseline):
    """A baseline with two parameters, to exercise grids and parameter checks."""

    name = "test-grid"

    def __init__(self, alpha: float = 0.5, beta: int = 1):
        super().__init__()
        if not 0 <= alpha <= 1:
            raise ValueError(f"test-grid: alpha must be in [0, 1], got {alpha!r}")
        self.alpha, self.beta = alpha, beta

    def params(self) -> dict:
        return {"alpha": self.alpha, "beta": self.beta}


@pytest.fixture
def grid_policy():
    saved = dict(POLICIES)
    register_policy(GridPolicy)
    yield
    POLICIES.clear()
    POLICIES.update(saved)


def _write_trace(path, n=50, seed=0):
    rng = np.random.default_rng(seed)
    tr = Trace(np.arange(n) * 1000, rng.integers(0, 100, n) * 8192, np.full(n, 8192), rng.random(n) < 0.3)
    write_trace(tr, path, "msr")
    return path


@pytest.fixture
def spec_dir(tmp_path):
    (tmp_path / "data").mkdir()
    _write_trace(tmp_path / "data" / "a.csv", seed=1)
    _write_trace(tmp_path / "data" / "b.csv", seed=2)
    return tmp_path


def _spec(dirpath, body: str, name="spec.toml"):
    p = dirpath / name
    p.write_text(textwrap.dedent(body))
    return p


BRIEF_SPEC = """\
seeds = [0, 1]
repeat = 1
traces = ["synth:lun0?n_requests=20000", "data/a.csv"]
devices = ["shuffler"]
[[device]]
preset = "shuffler"
name = "shuffler-32MB"
capacity_bytes = 33554432
[policies]
baseline = {}
test-grid = { alpha = [0.2, 0.3], beta = [7] }
"""


def test_brief_form_expands_in_a_fixed_order(spec_dir, grid_policy):
    spec = load_spec(_spec(spec_dir, BRIEF_SPEC))
    assert [t.kind for t in spec.traces] == ["synth", "file"]
    assert spec.traces[1].target == str((spec_dir / "data" / "a.csv").resolve())
    assert [d.config.name for d in spec.devices] == ["shuffler", "shuffler-32MB"]
    assert spec.devices[1].config.cache.capacity_bytes == 33554432
    assert [(p.name, p.params) for p in spec.policies] == [
        ("baseline", {}), ("test-grid", {"alpha": 0.2, "beta": 7}), ("test-grid", {"alpha": 0.3, "beta": 7})]
    ids = {t.target: f"id-{i}" for i, t in enumerate(spec.traces)}
    tasks = spec.expand(ids)
    assert len(tasks) == 2 * 2 * 3 * 2
    # traces outermost, then devices, then policy points, seeds innermost
    order = [(t.trace_source, t.device.name, t.policy, t.params.get("alpha"), t.seed) for t in tasks]
    assert order[:4] == [("synth:lun0?n_requests=20000", "shuffler", "baseline", None, 0),
                         ("synth:lun0?n_requests=20000", "shuffler", "baseline", None, 1),
                         ("synth:lun0?n_requests=20000", "shuffler", "test-grid", 0.2, 0),
                         ("synth:lun0?n_requests=20000", "shuffler", "test-grid", 0.2, 1)]
    assert order[-1] == ("data/a.csv", "shuffler-32MB", "test-grid", 0.3, 1)
    assert [t.index for t in tasks] == list(range(len(tasks)))
    assert len({t.key for t in tasks}) == len(tasks)


def test_policy_defaults_join_the_key_params(spec_dir, grid_policy):
    spec = load_spec(_spec(spec_dir, """\
        traces = ["data/a.csv"]
        devices = ["shuffler"]
        [policies]
        test-grid = { alpha = 0.25 }
        """))
    (point,) = spec.policies
    assert point.params == {"alpha": 0.25}
    assert point.key_params == {"alpha": 0.25, "beta": 1}


def test_list_of_tables_concatenates_grids(spec_dir, grid_policy):
    spec = load_spec(_spec(spec_dir, """\
        traces = ["data/a.csv"]
        devices = ["shuffler"]
        [policies]
        test-grid = [{ alpha = [0.1, 0.2] }, { alpha = 0.9, beta = [2, 3] }]
        """))
    assert [p.params for p in spec.policies] == [{"alpha": 0.1}, {"alpha": 0.2}, {"alpha": 0.9, "beta": 2},
                                                 {"alpha": 0.9, "beta": 3}]


def test_same_spec_gives_same_keys_and_file_identity_is_content(spec_dir, tmp_path):
    body = """\
        seeds = [3]
        traces = ["data/a.csv"]
        devices = ["shuffler"]
        [policies]
        baseline = {}
        """
    store = ResultStore(tmp_path / "out", create=True)
    k1 = plan(load_spec(_spec(spec_dir, body)), store)[0].key
    k2 = plan(load_spec(_spec(spec_dir, body, "again.toml")), ResultStore(tmp_path / "out2", create=True))[0].key
    assert k1 == k2
    # a copy of the file under another name and directory is the same trace
    (spec_dir / "moved").mkdir()
    (spec_dir / "moved" / "renamed.csv").write_bytes((spec_dir / "data" / "a.csv").read_bytes())
    k3 = plan(load_spec(_spec(spec_dir, body.replace("data/a.csv", "moved/renamed.csv"), "m.toml")), store)[0].key
    assert k3 == k1
    # different content, different key
    k4 = plan(load_spec(_spec(spec_dir, body.replace("data/a.csv", "data/b.csv"), "b.toml")), store)[0].key
    assert k4 != k1


def test_run_key_changes_with_each_component():
    dev = SimConfig.preset("shuffler").to_dict()
    base = dict(device=dev, trace_id="sha256:ab", policy="baseline", params={}, seed=0, repeat=1,
                engine="compiled")
    k0 = run_key(**base)
    assert run_key(**base) == k0 and run_key(**base, version=__version__) == k0
    changed = [
        dict(base, device=SimConfig.preset("shuffler").replace(rr_threshold_reads=9).to_dict()),
        dict(base, trace_id="sha256:cd"), dict(base, policy="page"), dict(base, params={"delta_f": 0.2}),
        dict(base, seed=1), dict(base, repeat=2), dict(base, engine="reference"),
    ]
    keys = {run_key(**c) for c in changed} | {run_key(**base, version="0.0.0-other")}
    assert k0 not in keys and len(keys) == len(changed) + 1
    # parameter order does not matter
    assert run_key(**dict(base, params={"a": 1, "b": 2})) == run_key(**dict(base, params={"b": 2, "a": 1}))


def test_synth_specs_are_normalised():
    assert normalize_synth_spec("synth: lun0 ?seed=1& n_requests = 20000&") == "synth:lun0?n_requests=20000&seed=1"
    assert normalize_synth_spec("synth:lun0?") == "synth:lun0"
    with pytest.raises(ValueError, match="given twice"):
        normalize_synth_spec("synth:lun0?seed=1&seed=2")
    with pytest.raises(ValueError, match="expected name=value"):
        normalize_synth_spec("synth:lun0?seed")


def test_dict_spec_with_device_tables_and_base_dir(spec_dir, monkeypatch, tmp_path_factory):
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    spec = load_spec({"traces": ["data/b.csv", "synth:lun1?n_requests=100&seed=4"],
                      "devices": [{"preset": "shuffler", "name": "small-cache", "capacity_bytes": 1 << 20},
                                  {"preset": "phasedrr", "read_reclaim": {"rr_threshold_reads": 100}}],
                      "policies": {"baseline": {}}, "seeds": 5}, base_dir=spec_dir)
    assert spec.traces[0].target == str((spec_dir / "data" / "b.csv").resolve())
    assert spec.traces[1].target == "synth:lun1?n_requests=100&seed=4"
    assert spec.seeds == (5,)
    small, phased = (d.config for d in spec.devices)
    assert (small.name, small.cache.capacity_bytes) == ("small-cache", 1 << 20)
    assert phased.read_reclaim.rr_threshold_reads == 100
    assert phased.name.startswith("phasedrr[")  # overrides without a name get a descriptive one


def test_relative_traces_resolve_against_the_spec_directory(spec_dir, monkeypatch, tmp_path_factory):
    p = _spec(spec_dir, 'traces = ["data/a.csv"]\ndevices = ["shuffler"]\n[policies]\nbaseline = {}\n')
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
    assert load_spec(p).traces[0].target == str((spec_dir / "data" / "a.csv").resolve())


BAD_SPECS = [
    ("unknown policy", '[policies]\nnosuch = {}', r"spec\.toml: policies\.nosuch: unknown policy 'nosuch'"),
    ("unknown parameter (signature)", '[policies]\ntest-grid = { alpha = 0.2, delta_x = 1 }',
     r"spec\.toml: policies\.test-grid: unknown parameter 'delta_x'"),
    ("unknown parameter (constructor)", '[policies]\nbaseline = { delta_x = [1, 2] }',
     r"spec\.toml: policies\.baseline.*'delta_x'"),
    ("bad parameter value", '[policies]\ntest-grid = { alpha = [0.5, 1.5] }',
     r"spec\.toml: policies\.test-grid \{alpha=1\.5\}: test-grid: alpha must be in \[0, 1\]"),
    ("empty grid axis", '[policies]\ntest-grid = { alpha = [] }', r"policies\.test-grid\.alpha: is an empty list"),
    ("invalid device override",
     '[[device]]\npreset = "shuffler"\nname = "bad"\noverprovisioning_ratio = 1.5\n[policies]\nbaseline = {}',
     r"spec\.toml: device\[0\] \(bad\): gc\.overprovisioning_ratio"),
    ("unknown device field", '[[device]]\npreset = "shuffler"\ncapacity_byte = 1\n[policies]\nbaseline = {}',
     r"spec\.toml: device\[0\]: capacity_byte: unknown configuration field"),
    ("unknown preset", 'devices = ["nosuch"]\n[policies]\nbaseline = {}',
     r"spec\.toml: devices\[0\]: .*unknown device preset 'nosuch'"),
    ("missing trace file", 'traces = ["data/a.csv", "data/missing.csv"]\n[policies]\nbaseline = {}',
     r"spec\.toml: traces\[1\]: trace file 'data/missing\.csv' not found"),
    ("unknown synth preset", 'traces = ["synth:nosuch?n_requests=10"]\n[policies]\nbaseline = {}',
     r"spec\.toml: traces\[0\]: 'synth:nosuch\?n_requests=10': .*unknown preset 'nosuch'"),
    ("unknown synth parameter", 'traces = ["synth:lun0?n_request=10"]\n[policies]\nbaseline = {}',
     r"spec\.toml: traces\[0\]: .*parameter 'n_request' is unknown"),
    ("unknown top-level key", 'seed = 1\n[policies]\nbaseline = {}', r"spec\.toml: seed: unknown key"),
    ("negative seed", 'seeds = [0, -1]\n[policies]\nbaseline = {}', r"spec\.toml: seeds\[1\]: must be a non-neg"),
    ("bad keep", 'keep = ["events"]\n[policies]\nbaseline = {}', r"spec\.toml: keep\[0\]: unknown artifact"),
    ("bad engine", 'engine = "fast"\n[policies]\nbaseline = {}', r"spec\.toml: engine: must be one of"),
    ("bad repeat", 'repeat = 0\n[policies]\nbaseline = {}', r"spec\.toml: repeat: must be a positive integer"),
    ("no policies", '', r"spec\.toml: policies: missing"),
    ("unimportable module", 'imports = ["flashrr_no_such_module"]\n[policies]\nbaseline = {}',
     r"spec\.toml: imports\[0\]: cannot import 'flashrr_no_such_module'"),
]


def _bad_spec_text(body: str) -> str:
    head = []
    if "traces" not in body:
        head.append('traces = ["data/a.csv"]')
    if "devices" not in body and "[[device]]" not in body:
        head.append('devices = ["shuffler"]')
    return "\n".join(head + [body]) + "\n"


@pytest.mark.parametrize("label,body,pattern", BAD_SPECS, ids=[b[0] for b in BAD_SPECS])
def test_invalid_specs_fail_before_any_run_and_name_the_entry(spec_dir, grid_policy, label, body, pattern):
    path = _spec(spec_dir, _bad_spec_text(body))
    with pytest.raises(SpecError, match=pattern):
        load_spec(path, source="spec.toml")
    out = spec_dir / "out"
    with pytest.raises(SpecError):
        sweep(path, out, jobs=0, progress=False)
    assert not out.exists()  # nothing ran, nothing was created


def test_cli_shows_a_spec_error_on_one_line(spec_dir, grid_policy, monkeypatch):
    monkeypatch.chdir(spec_dir)
    _spec(spec_dir, _bad_spec_text("[policies]\ntest-grid = { delta_x = 1 }"))
    res = CliRunner().invoke(sweep_cmd, ["spec.toml", "--out", "out", "--jobs", "1"])
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert lines == ["Error: spec.toml: policies.test-grid: unknown parameter 'delta_x'; expected one of alpha, beta"]
    assert not (spec_dir / "out").exists()


def test_cli_reports_a_missing_spec_file(tmp_path):
    res = CliRunner().invoke(sweep_cmd, [str(tmp_path / "nope.toml"), "--out", str(tmp_path / "out")])
    assert res.exit_code == 1
    assert "nope.toml: cannot read sweep spec" in res.output
    assert "Traceback" not in res.output


def test_duplicate_device_names_with_different_configs_are_rejected(spec_dir):
    path = _spec(spec_dir, """\
        traces = ["data/a.csv"]
        devices = ["shuffler", { preset = "shuffler", name = "shuffler", capacity_bytes = 1048576 }]
        [policies]
        baseline = {}
        """)
    with pytest.raises(SpecError, match=r"devices\[1\] \(shuffler\): device name 'shuffler' is also used by "
                                        r"devices\[0\]"):
        load_spec(path)


def test_duplicate_combinations_run_once(spec_dir):
    spec = load_spec(_spec(spec_dir, """\
        seeds = [0, 1]
        traces = ["data/a.csv", "data/../data/a.csv"]
        devices = ["shuffler", "shuffler"]
        [policies]
        baseline = {}
        """))
    assert spec.n_combinations == 8
    tasks = spec.expand({t.target: "x" for t in spec.traces})
    assert [t.seed for t in tasks] == [0, 1]

