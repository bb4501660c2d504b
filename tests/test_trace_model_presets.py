"""The paper presets on the workload model: transforms, calibration, its cache, and their trace specs."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from flashrr.reproduce.trace_specs import workload_spec
from flashrr.trace.core import TraceError
from flashrr.trace.model import generate_trace
from flashrr.trace.model import presets as P
from flashrr.trace.model.templates import TEMPLATES, load_template
from flashrr.trace.model.transform import (compacted, concentrated, poisson_arrivals, scaled_sizes,
                                           sequential_scaled, stationary_mean_gap_ns, stretched, with_mean_gap,
                                           with_read_ratio)
from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec
from flashrr.trace.stats import trace_stats
from flashrr.trace.synth import synth_params
from trace_helpers import assert_models_equal

TEMPLATE = load_template("tpcc")  # the smallest template: fast to generate from


def _maps(model):
    return [h for op in (model.read, model.write) for p in (op.places, op.heads) if p is not None for h in p.phases]


def test_every_template_loads_and_names_its_sample():
    for name, t in TEMPLATES.items():
        m = load_template(name)
        assert m.name == name and m.source["sample"] == t.sample and t.credit


def test_shipped_templates_are_what_the_fitter_makes_of_their_samples(tmp_path):
    """A change to the fit shows here until the templates are refitted (and the twins' knobs with them).
    Floats agree to 1e-9 relative, since the last bits of a sum may differ between CPUs."""
    from flashrr.trace.model import load_model
    from flashrr.trace.model.templates import build_templates

    for path in build_templates(Path(__file__).resolve().parent / "data", tmp_path):
        assert_models_equal(load_model(path), load_template(path.stem), path.stem, rel_tol=1e-9)


@pytest.mark.parametrize("ratio", [0.0, 0.3, 0.824, 1.0])
def test_with_read_ratio_sets_the_stationary_read_share(ratio):
    m = with_read_ratio(TEMPLATE, ratio)
    a, b = m.p_write_after  # P(write | read), P(write | write)
    # stationary write share of a two-state chain: pi = a / (1 - b + a)
    pi = a / (1.0 - b + a) if (1.0 - b + a) > 0 else m.p_write_first
    assert pi == pytest.approx(1.0 - ratio, abs=1e-12)
    assert m.p_write_first == pytest.approx(1.0 - ratio)
    if 0.0 < ratio < 1.0:  # the lag-1 correlation of the template is kept when the new share allows it
        assert b - a == pytest.approx(TEMPLATE.p_write_after[1] - TEMPLATE.p_write_after[0], abs=1e-12)


def test_scaled_sizes_multiplies_every_size_table_of_its_op():
    m = scaled_sizes(TEMPLATE, 2.0, 0.5)
    for op, f in ((m.read, 2.0), (m.write, 0.5)):
        orig = TEMPLATE.read if op is m.read else TEMPLATE.write
        assert np.allclose(op.size_all, orig.size_all * f)
        assert np.allclose(op.size_seq, orig.size_seq * f) and np.allclose(op.size_near, orig.size_near * f)

        for a, b in zip(op.size_by_level, orig.size_by_level):
            assert np.allclose(a, b * f)
    with pytest.raises(ValueError, match="read_factor"):
        scaled_sizes(TEMPLATE, 0.0, 1.0)
    # hot units' sizes: scaled and rounded to whole sectors, at least one
    hot = load_template("cloudphysics")
    m = scaled_sizes(hot, 1.3, 0.01)
    for op, orig, f in ((m.read, hot.read, 1.3), (m.write, hot.write, 0.01)):
        assert orig.hot_size.size
        assert np.array_equal(op.hot_size, np.maximum(np.floor(orig.hot_size * f / 512 + 0.5), 1) * 512)


def _hot_regions(model):
    per_region = model.region_bytes // model.unit_bytes
    return {int(u) // per_region for op in (model.read, model.write) for u in op.hot_unit}


def test_compacted_packs_the_covered_regions_from_zero_in_order():
    template = load_template("cloudphysics")
    assert template.write.hot_unit.size  # hot units move with their regions
    m = compacted(template)
    covered = set(_hot_regions(m))
    for h in _maps(m):
        for s, n in zip(h.start, h.length):
            covered.update(range(int(s), int(s + n)))
    # no gap: the union of covered regions and hot units' regions is exactly 0 .. len - 1
    assert covered == set(range(len(covered)))
    # a hot unit keeps its place in its region, its weight and its size; their order is kept
    per_region = m.region_bytes // m.unit_bytes
    for a, b in ((m.read, template.read), (m.write, template.write)):
        assert np.array_equal(a.hot_unit % per_region, b.hot_unit % per_region)
        assert np.array_equal(a.hot_weight, b.hot_weight) and np.array_equal(a.hot_size, b.hot_size)
        assert np.all(np.diff(a.hot_unit) > 0)
    # lengths, weights and levels unchanged, map by map
    for a, b in zip(_maps(m), _maps(load_template("cloudphysics"))):
        assert np.array_equal(a.length, b.length) and np.array_equal(a.weight, b.weight)
        assert np.all(np.diff(a.start) > 0)


def test_stretched_spreads_the_maps_over_factor_times_the_regions():
    base = compacted(TEMPLATE)
    span = max(h.end_region for h in _maps(base))
    for factor in (2.0, 10.0):
        m = stretched(base, factor)
        new_span = max(h.end_region for h in _maps(m))
        assert span * factor - 1 <= new_span <= span * factor + len(_maps(m)) + 1
        for h in _maps(m):  # segments still in order and disjoint
            assert np.all(h.start[1:] >= h.start[:-1] + h.length[:-1])


def test_stretched_moves_hot_units_with_their_regions_and_merges_units_moved_onto_one():
    base = compacted(load_template("cloudphysics"))
    per_region = base.region_bytes // base.unit_bytes
    start = min(int(h.start[0]) for h in _maps(base))
    for factor in (3.0, 0.25):
        m = stretched(base, factor)
        for a, b in ((m.read, base.read), (m.write, base.write)):
            moved = start + np.floor((b.hot_unit // per_region - start) * factor).astype(np.int64)
            want = moved * per_region + b.hot_unit % per_region
            assert np.array_equal(a.hot_unit, np.unique(want))  # distinct, in order
            assert a.hot_weight.sum() == pytest.approx(b.hot_weight.sum())
            for u, w in zip(a.hot_unit, a.hot_weight):  # a merged unit has the weights of every unit moved there
                assert w == pytest.approx(b.hot_weight[want == u].sum())


def test_concentrated_by_zero_changes_nothing_and_raises_weights_to_a_power():
    same = concentrated(TEMPLATE, 0.0)
    assert all(np.array_equal(a.weight, b.weight) for a, b in zip(_maps(same), _maps(TEMPLATE)))
    assert np.array_equal(same.read.cascade, TEMPLATE.read.cascade)
    m = concentrated(TEMPLATE, 0.5)
    for a, b in zip(_maps(m), _maps(TEMPLATE)):
        assert np.allclose(a.weight, b.weight ** np.exp(1.0))
    # kappa = 1: every cascade depth splits all-or-nothing
    c = concentrated(TEMPLATE, 1.0).read.cascade
    assert np.allclose(c[..., 0] + c[..., -1], 1.0)


def test_sequential_scaled_moves_continuations_towards_one():
    m = sequential_scaled(TEMPLATE, 0.5)
    assert np.allclose(m.read.p_seq, TEMPLATE.read.p_seq + 0.5 * (1 - TEMPLATE.read.p_seq))
    assert m.write.size_seq.size  # a continuation needs sizes: the op's own, or all its sizes


def _simulated_mean_gap(model, n=200_000):
    t = generate_trace(model, n, seed=9)
    return float(np.diff(t.time_ns).mean())


def test_mean_gap_transforms_give_the_asked_mean():
    m = with_mean_gap(TEMPLATE, 200_000.0)
    assert stationary_mean_gap_ns(m.arrivals, phases=m.time_phases) == pytest.approx(200_000.0, rel=1e-9)
    # the generated gaps: within 3% of 200 us (a 200,000-request sample)
    assert _simulated_mean_gap(m) == pytest.approx(200_000.0, rel=0.03)
    p = poisson_arrivals(TEMPLATE, 50_000.0)
    gaps = np.diff(generate_trace(p, 100_000, seed=3).time_ns)
    assert gaps.mean() == pytest.approx(50_000.0, rel=0.03)
    # exponential: the coefficient of variation is 1
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, rel=0.05)


def test_targets_are_the_synthetic_presets_numbers():
    t = P.targets_for("lun0", 100_000)
    p, n = synth_params("lun0", 100_000)
    assert (t.read_ratio, t.read_size_bytes, t.footprint_bytes, t.hot_ratio, t.n_requests) == \
        (p.read_ratio, p.read_size_mean_bytes, p.footprint_bytes, p.hot_set_ratio, n)
    assert t.hot_key == "hot_ratio" and P.targets_for("phasedrr-ali").hot_key == "hot_ratio_4"
    assert P.targets_for("hotr-fin2").page_bytes == 4096
    assert P.targets_for("lun0", 1000, mean_gap_ns=5e5).mean_gap_ns == 5e5
    with pytest.raises(ValueError, match="gen0"):  # Shuffler's MQSim-generated rows have no model preset
        P.targets_for("gen0")


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHRR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(P, "SHIPPED_KNOBS", tmp_path / "none.json")
    P._knobs.cache_clear()
    P._shipped.cache_clear()
    yield tmp_path
    P._knobs.cache_clear()
    P._shipped.cache_clear()


def test_a_calibrated_preset_meets_its_table_row(cache_dir):
    n = 20_000
    m = P.model_preset("hotr-fin2", n)
    t = P.targets_for("hotr-fin2", n)
    st = trace_stats(generate_trace(m, n, seed=5), page_size_bytes=t.page_bytes)
    # read ratio: the op chain's stationary share (binomial tolerance at 20,000 requests)
    assert st["read_ratio"] == pytest.approx(t.read_ratio, abs=0.02)
    assert st["avg_read_size_bytes"] == pytest.approx(t.read_size_bytes, rel=0.08)
    assert st["footprint_bytes"] == pytest.approx(t.footprint_bytes, rel=0.25)
    assert m.source["template"] == "tpcc" and m.source["preset"] == "hotr-fin2"


def test_calibrations_are_cached_on_disk_and_deterministic(cache_dir, monkeypatch):
    n = 5_000
    k1 = P.model_preset("cocktail-msr_web", n).source["knobs"]
    files = list((cache_dir / "model-presets").glob("cocktail-msr_web-*.json"))
    assert len(files) == 1 and json.loads(files[0].read_text())["knobs"] == k1
    P._knobs.cache_clear()
    monkeypatch.setattr(P, "calibrate", lambda *a: pytest.fail("calibrated again instead of reading the cache"))
    assert P.model_preset("cocktail-msr_web", n).source["knobs"] == k1


def test_shipped_knobs_are_used_before_calibrating(cache_dir, monkeypatch):
    t = P.targets_for("cocktail-websearch", 4_000)
    knobs = {"read_factor": 1.0, "write_factor": 1.0, "span": 0.5, "locality": 0.0}
    shipped = cache_dir / "shipped.json"
    shipped.write_text(json.dumps({P.calibration_key("cocktail-websearch", t): {"knobs": knobs}}))
    monkeypatch.setattr(P, "SHIPPED_KNOBS", shipped)
    P._shipped.cache_clear()
    monkeypatch.setattr(P, "calibrate", lambda *a: pytest.fail("calibrated although knobs are shipped"))
    m = P.model_preset("cocktail-websearch", 4_000)
    assert m.source["knobs"] == knobs and m.address_scale == 0.5


def test_model_preset_specs(cache_dir):
    spec = parse_trace_spec("model:cocktail-msr_web?n_requests=3000&seed=2&mean_gap_ns=1e5&fold=modulo")
    assert spec.kind == "model" and spec.base == "cocktail-msr_web"
    assert spec.synth_params == {"n_requests": 3000, "seed": 2, "mean_gap_ns": 1e5}
    src, _ = open_trace_spec("model:cocktail-msr_web?n_requests=3000&seed=2")
    t = src.to_trace()
    assert len(t) == 3000
    assert t == open_trace_spec("model:cocktail-msr_web?n_requests=3000&seed=2")[0].to_trace()
    with pytest.raises(TraceError, match="mean_gap_ns"):
        open_trace_spec("model:cocktail-msr_web?mean_gap_ns=0")
    with pytest.raises(TraceError, match="no such file"):
        open_trace_spec("model:no-such-preset")


def test_workload_spec_names_model_or_synthetic_traces():
    assert workload_spec("lun0", 1000, (("align_bytes", 32768),), "synth") == \
        "synth:lun0?n_requests=1000&align_bytes=32768"
    # the model keeps the synthetic trace's mean gap: Poisson 200 us, or ON/OFF 200 us + 50 ms / 64
    # placed as the regime places it: packed by the device's stripe unless the pipeline folds
    assert workload_spec("lun0", 1000, (("align_bytes", 32768),)) == \
        "model:lun0?n_requests=1000&mean_gap_ns=200000.0&pack=stripe"
    onoff = (("idle_period_mean_ns", 50_000_000), ("burst_requests_mean", 64))
    assert workload_spec("phasedrr-ali", None, onoff) == "model:phasedrr-ali?mean_gap_ns=981250.0&pack=stripe"
    assert workload_spec("gen1", 1000) == "synth:gen1?n_requests=1000"  # no model preset: stays synthetic
    assert workload_spec("hotr-fin2", None, (), "model", {"first": 10}) == \
        "model:hotr-fin2?mean_gap_ns=200000.0&first=10&pack=stripe"
    assert workload_spec("lun0", 1000, (), "model", {"fold": "modulo"}).endswith("&fold=modulo")
    with pytest.raises(ValueError, match="workload"):
        workload_spec("lun0", 1000, (), "real")
