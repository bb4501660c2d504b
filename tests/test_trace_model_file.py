"""The workload model's TOML file: exact round trips, and broken files named by file and field.

A model saved and loaded again must be the same model, array for array and
bit for bit, so that ``model:FILE`` generates the trace the fitted model
generates, with the places of run heads (``[read.heads]``, ``[write.heads]``)
or without them.  Every kind of broken file is a :class:`ModelError` whose
message names the file and the field, and a ``model:`` trace spec passes that
message on in its :class:`TraceSpecError`.
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
from flashrr.trace.model.schema import KINDS, TimePhase
from flashrr.trace.pipeline import TraceSpecError, open_trace_spec
from strategies import hand_built_models
from trace_helpers import assert_models_equal

DATA = Path(__file__).parent / "data"


@lru_cache(maxsize=None)
def small_model() -> WorkloadModel:
    return fit_model(read_trace(DATA / "msr-hm_0-sample.msr.csv.gz"))


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
@given(model=hand_built_models())
def test_a_hand_built_model_comes_back_exactly(tmp_path, model):
    back = load_model(save_model(model, tmp_path / "hand.toml"))
    assert_models_equal(model, back)


def test_the_file_is_a_readable_toml_table_with_its_header(tmp_path):
    import tomllib

    path = save_model(small_model(), tmp_path / "m.toml")
    d = tomllib.loads(path.read_text())
    assert d["format"] == "flashrr-workload-model" and d["version"] == 10
    assert d["unit_bytes"] == small_model().unit_bytes and d["name"] == small_model().name
    assert d["read"]["phase"][0]["start"] == small_model().read.phases[0].start.tolist()
    # one probability per kind of the previous request of the op
    for op in ("read", "write"):
        assert len(d[op]["p_reuse"]) == len(d[op]["p_seq"]) == KINDS


def test_run_heads_are_a_table_of_their_own_and_absent_heads_stay_absent(tmp_path):
    """The MSR sample's reads have run heads and its writes none: the file holds [read.heads] (with the
    fields of the other fresh requests' places) and no [write.heads], and loading gives heads back as a
    Places and None."""
    import tomllib

    model = small_model()
    assert model.read.heads is not None and model.read.p_head > 0
    assert model.write.heads is None and model.write.p_head == 0.0
    path = save_model(model, tmp_path / "m.toml")
    d = tomllib.loads(path.read_text())
    assert set(d["read"]["heads"]) == {"phase", "cascade", "sector_pmf", "size_by_level"}
    assert d["read"]["heads"]["phase"][0]["start"] == model.read.heads.phases[0].start.tolist()
    assert "heads" not in d["write"] and d["write"]["p_head"] == 0.0
    back = load_model(path)
    assert back.write.heads is None
    assert_models_equal(model.read.heads, back.read.heads)


# ---------------------------------------------------------------------------
# broken files
# ---------------------------------------------------------------------------

def _overlap(d):
    d["read"]["phase"][0].update(start=[0, 1], length=[2, 1], weight=[1.0, 1.0], level=[0, 0])


def _delete_seq_sizes(d):
    d["read"]["p_seq"] = [0.5] + d["read"]["p_seq"][1:]
    d["read"]["size_seq"] = []


def _overlap_beyond_reuse(d):
    d["overlap_window_requests"] = d["reuse_window_requests"] + 1


def _heads_without_table(d):
    del d["read"]["heads"]
    d["read"]["p_head"] = 0.25


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
    "distance beyond the window": (_set("write", "reuse_distance_write", lambda t: t[:-1] + [1e9]),
                                   "write.reuse_distance_write: expected distances of at most"),
    "negative cascade weight": (_set("read", "cascade", lambda c: [[[-1.0] + r[1:] for r in lv] for lv in c]),
                                "read.cascade: expected"),
    "first state out of range": (_set("arrivals", "first_state", 99), "arrivals.first_state: expected a state"),
    "continuation probabilities one short": (_set("read", "p_seq", lambda p: p[:-1]),
                                             f"read.p_seq: expected {KINDS} probabilities"),
    "continuation probabilities one long": (_set("write", "p_seq", lambda p: p + [0.0]),
                                            f"write.p_seq: expected {KINDS} probabilities"),
    "continuation probability above 1": (_set("write", "p_seq", lambda p: [1.5] + p[1:]),
                                         f"write.p_seq: expected {KINDS} probabilities"),
    "continuation probability as one number": (_set("read", "p_seq", 0.5), "read.p_seq: expected a 1-dimensional"),
    "continuations without sizes": (_delete_seq_sizes, "read.size_seq: expected a quantile table (p_seq is above 0)"),
    "re-access probabilities one short": (_set("read", "p_reuse", lambda p: p[:-1]),
                                          f"read.p_reuse: expected {KINDS} probabilities"),
    "re-access probabilities of the two-value format": (_set("write", "p_reuse", [0.1, 0.2]),
                                                        f"write.p_reuse: expected {KINDS} probabilities"),
    "re-access probability below 0": (_set("read", "p_reuse", lambda p: p[:-1] + [-0.1]),
                                      f"read.p_reuse: expected {KINDS} probabilities"),
    "re-access probability above 1": (_set("write", "p_reuse", lambda p: [1.01] + p[1:]),
                                      f"write.p_reuse: expected {KINDS} probabilities"),
    "re-accesses without distances": (_set("read", "reuse_distance_read", []),
                                      "read.reuse_distance_read: expected a quantile table (p_reuse is above 0 and"),
    "re-access target share above 1": (_set("write", "p_reuse_write", 1.5),
                                       "write.p_reuse_write: expected a probability"),
    "missing re-access target share": (_delete("read", "p_reuse_write"), "read: missing field 'p_reuse_write'"),
    # overlaps of fresh requests
    "missing q_overlap": (_delete("write", "q_overlap"), "write: missing field 'q_overlap'"),
    "q_overlap above 1": (_set("read", "q_overlap", 1.5), "read.q_overlap: expected a probability"),
    "missing overlap window": (_delete("overlap_window_requests"), "missing field 'overlap_window_requests'"),
    "overlap window above the re-access window": (_overlap_beyond_reuse,
                                                  "overlap_window_requests: expected at most reuse_window_requests"),
    "overlap window 0": (_set("overlap_window_requests", 0), "overlap_window_requests: expected an integer >= 1"),
    "missing address scale": (_delete("address_scale"), "missing field 'address_scale'"),
    # time phases
    "missing time phases": (_delete("time_phase"), "missing field 'time_phase'"),
    "time phases not a list": (_set("time_phase", {"a": 1}), "time_phase: expected a list"),
    "time phase not a table": (_set("time_phase", lambda t: t[:1] + [3]), "time_phase[1]: expected a table"),
    "time phase without its transitions": (_delete("time_phase", 0, "transition"),
                                           "time_phase[0]: missing field 'transition'"),
    "time phase write share above 1": (_set("time_phase", 1, "p_write_after_write", 1.5),
                                       "time_phase[1].p_write_after_write: expected a probability"),
    "time phase transitions of other states": (_set("time_phase", 1, "transition", lambda t: [r[:-1] for r in t[:-1]]),
                                               "time_phase[1].transition: expected a"),
    "time phase transition row of zeros": (_set("time_phase", 0, "transition", lambda t: [[0.0] * len(t[0])] + t[1:]),
                                           "time_phase[0].transition: expected a"),
    # run heads
    "missing p_head": (_delete("read", "p_head"), "read: missing field 'p_head'"),
    "p_head above 1": (_set("read", "p_head", 1.5), "read.p_head: expected a probability"),
    "p_head without heads": (_heads_without_table, "read.heads: expected the places of run heads"),
    "write p_head without heads": (_set("write", "p_head", 0.5), "write.heads: expected the places of run heads"),
    "heads not a table": (_set("read", "heads", 5), "read.heads: expected a dict"),
    "heads without a cascade": (_delete("read", "heads", "cascade"), "read.heads: missing field 'cascade'"),
    "heads with fewer phases": (_set("read", "heads", "phase", lambda p: p[:1]),
                                "read.heads.phase: expected 2 phases"),
    "heads with other cascade bins": (_set("read", "heads", "cascade", lambda c: [[r + [0.0] for r in lv] for lv in c]),
                                      "read.heads.cascade: expected 21 bins per depth"),
    "heads segment level out of range": (_set("read", "heads", "phase", 1, "level", lambda lv: lv[:-1] + [9]),
                                         "read.heads.phase[1].level: expected levels in 0 .. 7"),
    "heads sector pmf too short": (_set("read", "heads", "sector_pmf", lambda p: p[:-1]),
                                   "read.heads.sector_pmf: expected"),
    "heads size table decreasing": (_set("read", "heads", "size_by_level", lambda t: [r[::-1] for r in t]),
                                    "read.heads.size_by_level["),
    "address scale 0": (_set("address_scale", 0.0), "address_scale: expected a factor in (0, 1]"),
    "address scale above 1": (_set("address_scale", 2.0), "address_scale: expected a factor in (0, 1]"),
    "region smaller than two units": (_set("region_bytes", 4096), "region_bytes: expected a power of two"),
    # near requests and hot units
    "p_near too short": (_set("read", "p_near", lambda p: p[:-1]), "read.p_near: expected 21 probabilities"),
    "near positions decreasing": (_set("read", "near_position", [500.0, 100.0]),
                                  "read.near_position: expected a non-decreasing"),
    "near position beyond the extent": (_set("read", "near_position", [5.0, 65536.0]),
                                        "read.near_position: expected positions in the widened extent"),
    "near distance beyond the window": (_set("read", "near_distance", [1.0, 1e9]),
                                        "read.near_distance: expected distances of at most"),
    "negative near margin": (_set("near_margin_bytes", -1), "near_margin_bytes: expected an integer >= 0"),
    "p_hot above 1": (_set("write", "p_hot", 1.5), "write.p_hot: expected a probability"),
    "hot units repeated": (_set("write", "hot_unit", [3, 3]), "write.hot_unit: expected at most 65536 distinct"),
    "a hot weight too many": (_set("write", "hot_weight", lambda w: w + [1.0]), "write.hot_weight: expected"),
    "a hot size of 0": (_set("write", "hot_size", lambda z: [0] * len(z)), "write.hot_size: expected"),
    "p_hot without hot units": (lambda d: d["write"].update(p_hot=0.5, hot_unit=[], hot_weight=[], hot_size=[],
                                                            hot_start=[]),
                                "write.hot_unit: expected at least one hot unit"),
    "a hot start beyond its unit": (_set("write", "hot_start", lambda z: [4096] * len(z)),
                                    "write.hot_start: expected"),
    "a hot start off a sector": (_set("write", "hot_start", lambda z: [100] * len(z)), "write.hot_start: expected"),
    "a hot start too many": (_set("write", "hot_start", lambda z: z + [0]), "write.hot_start: expected"),
    "p_near_aligned above 1": (_set("read", "p_near_aligned", 1.5), "read.p_near_aligned: expected a probability"),
    # the header
    "other format": (_set("format", "something-else"), "format: expected 'flashrr-workload-model'"),
    "no format": (_delete("format"), "format: expected 'flashrr-workload-model'"),
    "other version": (_set("version", 1), "version: expected 8 or 9 or 10"),
    "an older version": (_set("version", 7), "version: expected 8 or 9 or 10"),
    "a later version": (_set("version", 11), "version: expected 8 or 9 or 10"),
    "negative fresh avoid window": (_set("fresh_avoid_window_requests", -1),
                                    "fresh_avoid_window_requests: expected an integer >= 0"),
    "fresh avoid window beyond the re-access window": (_set("fresh_avoid_window_requests", 1 << 30),
                                                       "fresh_avoid_window_requests: expected at most"),
    "no fresh avoid window in a version 9 file": (_delete("fresh_avoid_window_requests"),
                                                  "fresh_avoid_window_requests"),
}


def two_phases(op):
    """``op`` with its one phase repeated: two phases, for the cases that need more than one."""
    heads = None if op.heads is None else dataclasses.replace(op.heads, phases=op.heads.phases * 2)
    return dataclasses.replace(op, phases=op.phases * 2, heads=heads)


@pytest.fixture(scope="module")
def good_dict() -> dict:
    """The MSR sample's model (read run heads, no write heads; some read re-accesses and continuations) with
    two phases and two time phases."""
    m = small_model()
    assert m.read.heads is not None and m.write.heads is None
    assert m.read.p_seq.max() > 0 and m.read.p_reuse.max() > 0 and m.read.cascade.shape[2] == 21
    states = m.arrivals.transition.shape[0]
    assert states >= 2
    time_phases = (TimePhase((0.2, 0.6), np.eye(states)), TimePhase((0.5, 0.5), np.ones((states, states))))
    return m.replace(read=two_phases(m.read), write=two_phases(m.write), time_phases=time_phases).to_dict()


def broken_file(tmp_path, good_dict, case: str):
    """The good model dict broken as BROKEN[case] says, written to a file: ``(path, expected fragment)``."""
    mutate, fragment = BROKEN[case]
    d = copy.deepcopy(good_dict)
    mutate(d)
    path = tmp_path / "broken.toml"
    path.write_text(tomli_w.dumps(d))
    return path, fragment


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_file_is_a_model_error_naming_the_file_and_the_field(tmp_path, good_dict, case):
    path, fragment = broken_file(tmp_path, good_dict, case)
    with pytest.raises(ModelError) as err:
        load_model(path)
    msg = str(err.value)
    assert msg.startswith(f"model file {str(path)!r}: "), msg
    assert fragment in msg, msg
    assert "\n" not in msg


def test_the_unbroken_dict_loads(tmp_path, good_dict):
    path = tmp_path / "good.toml"
    path.write_text(tomli_w.dumps(good_dict))
    model = load_model(path)
    assert model.phases == 2 and len(model.time_phases) == 2 and model.read.heads is not None


def test_a_version_8_file_reads_as_a_model_that_avoids_only_recent_starts(tmp_path, good_dict):
    """Version 8 files (the shipped templates among them) have no fresh_avoid_window_requests (nor the
    version 10 fields); they read as 0 and generate what they generated before."""
    d = copy.deepcopy(good_dict)
    d["version"] = 8
    del d["fresh_avoid_window_requests"]
    for op in ("read", "write"):
        del d[op]["p_near_aligned"], d[op]["hot_start"]
    path = tmp_path / "v8.toml"
    path.write_text(tomli_w.dumps(d))
    old = load_model(path)
    assert old.fresh_avoid_window_requests == 0
    zeroed = copy.deepcopy(good_dict)
    for op in ("read", "write"):
        zeroed[op].update(p_near_aligned=0.0, hot_start=[0] * len(zeroed[op]["hot_unit"]))
    path.write_text(tomli_w.dumps({**zeroed, "fresh_avoid_window_requests": 0}))
    assert_models_equal(old, load_model(path))
    assert generate_trace(old, 3000, seed=2).offset.tolist() == \
        generate_trace(load_model(path), 3000, seed=2).offset.tolist()


def test_a_version_9_file_keeps_near_and_hot_starts_where_format_9_put_them(tmp_path, good_dict):
    """Version 9 files have neither p_near_aligned nor hot_start: they read as 0 and the units' first bytes,
    and generate what the same model with those values written out generates."""
    assert good_dict["write"]["p_hot"] > 0 and good_dict["read"]["p_near"] and max(good_dict["read"]["p_near"]) > 0
    d = copy.deepcopy(good_dict)
    d["version"] = 9
    for op in ("read", "write"):
        del d[op]["p_near_aligned"], d[op]["hot_start"]
    path = tmp_path / "v9.toml"
    path.write_text(tomli_w.dumps(d))
    old = load_model(path)
    assert old.read.p_near_aligned == 0.0 and not old.write.hot_start.any()
    zeroed = copy.deepcopy(good_dict)
    for op in ("read", "write"):
        zeroed[op].update(p_near_aligned=0.0, hot_start=[0] * len(zeroed[op]["hot_unit"]))
    path.write_text(tomli_w.dumps(zeroed))
    assert generate_trace(old, 3000, seed=2).offset.tolist() == \
        generate_trace(load_model(path), 3000, seed=2).offset.tolist()


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
    path, fragment = broken_file(tmp_path, good_dict, case)
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
