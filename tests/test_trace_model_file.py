"""The workload model's TOML file: exact round trips, and broken files named by file and field.

A model saved and loaded again must be the same model, array for array and
bit for bit, so that ``model:FILE`` generates the trace the fitted model
generates.  Every kind of broken file is a :class:`ModelError` whose message
names the file and the field, and a ``model:`` trace spec passes that message
on in its :class:`TraceSpecError`.
"""
from __future__ import annotations

import copy
import dataclasses
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings

from flashrr.trace.io import read_trace
from flashrr.trace.model import ModelError, WorkloadModel, fit_model, generate_trace, load_model, save_model
from flashrr.trace.pipeline import TraceSpecError, open_trace_spec
from test_trace_model_generate import hand_models

DATA = Path(__file__).parent / "data"


@lru_cache(maxsize=None)
def small_model() -> WorkloadModel:
    return fit_model(read_trace(DATA / "msr-hm_0-sample.msr.csv.gz"))


def assert_models_equal(a, b, path: str = "model") -> None:
    """Field by field: arrays equal in shape, dtype and every value; tuples, dicts and scalars equal."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), path
        assert a.shape == b.shape and a.dtype == b.dtype, (path, a.shape, b.shape, a.dtype, b.dtype)
        assert np.array_equal(a, b), (path, np.flatnonzero(a.ravel() != b.ravel())[:5])
    elif dataclasses.is_dataclass(a):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            assert_models_equal(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_models_equal(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (path, set(a) ^ set(b))
        for k in a:
            assert_models_equal(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert type(a) is type(b) and a == b, (path, a, b)


# ---------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("sample,phases", [("cloudphysics-io.mqsim.txt.gz", 2), ("tpcc-small.mqsim.txt", 1)])
def test_a_fitted_model_comes_back_exactly_and_generates_the_same_trace(tmp_path, sample, phases):
    model = fit_model(read_trace(DATA / sample), phases=phases)
    path = save_model(model, tmp_path / "m.toml")
    back = load_model(path)
    assert_models_equal(model, back)
    a, b = generate_trace(model, 200_000, seed=9), generate_trace(back, 200_000, seed=9)
    for name in ("time_ns", "offset", "size", "is_write"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    # loading is a fixed point: saving the loaded model writes the same bytes
    assert save_model(back, tmp_path / "again.toml").read_bytes() == path.read_bytes()


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(model=hand_models())
def test_a_hand_built_model_comes_back_exactly(tmp_path, model):
    back = load_model(save_model(model, tmp_path / "hand.toml"))
    assert_models_equal(model, back)


def test_the_file_is_a_readable_toml_table_with_its_header(tmp_path):
    import tomllib

    path = save_model(small_model(), tmp_path / "m.toml")
    d = tomllib.loads(path.read_text())
    assert d["format"] == "flashrr-workload-model" and d["version"] == 2
    assert d["unit_bytes"] == small_model().unit_bytes and d["name"] == small_model().name
    assert d["read"]["phase"][0]["start"] == small_model().read.phases[0].start.tolist()


# ---------------------------------------------------------------------------
# broken files
# ---------------------------------------------------------------------------

def _overlap(d):
    d["read"]["phase"][0].update(start=[0, 1], length=[2, 1], weight=[1.0, 1.0], level=[0, 0])


def _delete_seq_sizes(d):
    d["read"]["p_seq"] = [0.5] + d["read"]["p_seq"][1:]
    d["read"]["size_seq"] = []


def _set(*keys_and_value):
    *keys, value = keys_and_value

    def mutate(d):
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value(d[keys[-1]]) if callable(value) else value
    return mutate


def _delete(*keys):
    def mutate(d):
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]
    return mutate


BROKEN = {
    # missing fields
    "missing unit_bytes": (_delete("unit_bytes"), "missing field 'unit_bytes'"),
    "missing ops table": (_delete("ops"), "missing field 'ops'"),
    "missing read cascade": (_delete("read", "cascade"), "read: missing field 'cascade'"),
    "missing phase weight": (_delete("read", "phase", 0, "weight"), "read.phase[0]: missing field 'weight'"),
    "missing first_state": (_delete("arrivals", "first_state"), "arrivals: missing field 'first_state'"),
    "missing p_same_size": (_delete("ops", "p_same_size"), "ops: missing field 'p_same_size'"),
    "missing continuation sizes": (_delete("write", "size_seq"), "write: missing field 'size_seq'"),
    # wrong types
    "unit_bytes as text": (_set("unit_bytes", "4096"), "unit_bytes: expected an integer >= 512"),
    "name as number": (_set("name", 5), "name: expected a str"),
    "phase not a list": (_set("read", "phase", "x"), "read.phase: expected a list"),
    "phase entry not a table": (_set("read", "phase", lambda p: [5] + p[1:]), "read.phase[0]: expected a table"),
    "size_by_level not a list": (_set("write", "size_by_level", {"a": 1}), "write.size_by_level: expected a list"),
    "ops not a table": (_set("ops", [1, 2]), "ops: expected a dict"),
    "probability above 1": (_set("ops", "p_same_size", 1.5), "ops.p_same_size: expected a probability"),
    "probability as bool": (_set("ops", "p_write_first", True), "ops.p_write_first: expected a probability"),
    "negative retries": (_set("fresh_retries", -1), "fresh_retries: expected an integer >= 0"),
    "weights as text": (_set("read", "phase", 0, "weight", "heavy"), "read.phase[0].weight: expected"),
    # wrong shapes
    "cascade one depth short": (_set("read", "cascade", lambda c: [lv[:-1] for lv in c]), "read.cascade: expected"),
    "cascade of one bin": (_set("write", "cascade", lambda c: [[r[:1] for r in lv] for lv in c]),
                           "write.cascade: expected"),
    "sector pmf too long": (_set("read", "sector_pmf", lambda p: p + [0.5]), "read.sector_pmf: expected"),
    "transition not square": (_set("arrivals", "transition", lambda t: t[:1]),
                              "arrivals.transition: expected a square"),
    "gap tables one short": (_set("arrivals", "gap_ns", lambda g: g[:-1]), "arrivals.gap_ns: expected"),
    "segment columns of unequal length": (_set("read", "phase", 0, "level", lambda lv: lv + [0]),
                                          "read.phase[0].level: expected"),
    "fewer write phases than read": (_set("write", "phase", lambda p: p[:1]), "write.phase: expected 2 phases"),
    # bad values
    "negative weight": (_set("read", "phase", 0, "weight", lambda w: [-1.0] + w[1:]),
                        "read.phase[0].weight: expected weights > 0"),
    "overlapping segments": (_overlap, "read.phase[0].start: expected segments in increasing order that do not"),
    "heat level out of range": (_set("write", "phase", 0, "level", lambda lv: [8] + lv[1:]),
                                "write.phase[0].level: expected levels in 0 .. 7"),
    "decreasing size table": (_set("read", "size_all", lambda t: t[::-1]), "read.size_all: expected a non-decreasing"),
    "distance beyond the window": (_set("write", "reuse_distance", lambda t: t[:-1] + [1e9]),
                                   "write.reuse_distance: expected distances of at most"),
    "negative cascade weight": (_set("read", "cascade", lambda c: [[[-1.0] + r[1:] for r in lv] for lv in c]),
                                "read.cascade: expected"),
    "first state out of range": (_set("arrivals", "first_state", 99), "arrivals.first_state: expected a state"),
    "continuation probabilities one short": (_set("read", "p_seq", lambda p: p[:-1]), "read.p_seq: expected 10"),
    "continuation probability above 1": (_set("write", "p_seq", lambda p: [1.5] + p[1:]), "write.p_seq: expected"),
    "continuations without sizes": (_delete_seq_sizes, "read.size_seq: expected a quantile table"),
    "address scale 0": (_set("address_scale", 0.0), "address_scale: expected a factor in (0, 1]"),
    "address scale above 1": (_set("address_scale", 2.0), "address_scale: expected a factor in (0, 1]"),
    "region smaller than two units": (_set("region_bytes", 4096), "region_bytes: expected a power of two"),
    # the header
    "other format": (_set("format", "something-else"), "format: expected 'flashrr-workload-model'"),
    "no format": (_delete("format"), "format: expected 'flashrr-workload-model'"),
    "other version": (_set("version", 1), "version: expected 2"),
}


@pytest.fixture(scope="module")
def good_dict() -> dict:
    d = small_model().replace(read=dataclasses.replace(small_model().read, phases=small_model().read.phases * 2),
                              write=dataclasses.replace(small_model().write,
                                                        phases=small_model().write.phases * 2)).to_dict()
    return d


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_file_is_a_model_error_naming_the_file_and_the_field(tmp_path, good_dict, case):
    mutate, fragment = BROKEN[case]
    d = copy.deepcopy(good_dict)
    mutate(d)
    path = tmp_path / "broken.toml"
    path.write_text(tomli_w.dumps(d))
    with pytest.raises(ModelError) as err:
        load_model(path)
    msg = str(err.value)
    assert msg.startswith(f"model file {str(path)!r}: "), msg
    assert fragment in msg, msg
    assert "\n" not in msg


def test_the_unbroken_dict_loads(tmp_path, good_dict):
    path = tmp_path / "good.toml"
    path.write_text(tomli_w.dumps(good_dict))
    assert load_model(path).phases == 2


@pytest.mark.parametrize("content,fragment", [
    (b"unit_bytes = = 4096\n", "not valid TOML"),
    (b"[read\n", "not valid TOML"),
    (b"\xff\xfe not utf-8", "cannot be read"),
    (b"", "format: expected 'flashrr-workload-model'"),
])
def test_a_file_that_is_not_a_model_at_all(tmp_path, content, fragment):
    path = tmp_path / "junk.toml"
    path.write_bytes(content)
    with pytest.raises(ModelError, match=fragment) as err:
        load_model(path)
    assert str(err.value).startswith(f"model file {str(path)!r}: ")


def test_a_missing_file_and_a_directory(tmp_path):
    with pytest.raises(ModelError, match=r"model file '.*nowhere\.toml': no such file"):
        load_model(tmp_path / "nowhere.toml")
    with pytest.raises(ModelError, match="cannot be read"):
        load_model(tmp_path)


@pytest.mark.parametrize("case", ["missing read cascade", "negative weight", "other version"])
def test_a_model_spec_with_a_broken_file_is_a_trace_spec_error_with_its_message(tmp_path, good_dict, case):
    mutate, fragment = BROKEN[case]
    d = copy.deepcopy(good_dict)
    mutate(d)
    path = tmp_path / "broken.toml"
    path.write_text(tomli_w.dumps(d))
    with pytest.raises(ModelError) as direct:
        load_model(path)
    spec = f"model:{path}?n_requests=100&seed=1"
    with pytest.raises(TraceSpecError) as err:
        open_trace_spec(spec)
    assert str(err.value) == f"trace spec {spec!r}: {direct.value}"
    assert fragment in str(err.value)


def test_a_model_spec_naming_a_missing_file(tmp_path):
    spec = f"model:{tmp_path / 'gone.toml'}?n_requests=10"
    with pytest.raises(TraceSpecError, match=r"gone\.toml': no such file"):
        open_trace_spec(spec)


def test_a_model_spec_reads_back_the_saved_model(tmp_path):
    path = save_model(small_model(), tmp_path / "hm.toml")
    source, report = open_trace_spec(f"model:{path}?n_requests=3000&seed=4")
    assert report is None
    direct = generate_trace(small_model(), 3000, seed=4)
    got = source.to_trace()
    assert got.name == "hm"
    for name in ("time_ns", "offset", "size", "is_write"):
        assert np.array_equal(getattr(got, name), getattr(direct, name)), name
