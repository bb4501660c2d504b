"""Aged-device snapshots (flashrr.snapshots): a run that restores the device from a
snapshot gives the result of a run that preconditions it, on both engines and for
every policy; a snapshot made for another device state, a corrupt or a missing file
is refused with an error naming the file; a sweep's store and a comparison reuse one
snapshot for every run that starts from the same device."""
import os
import shutil
import tempfile

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import flashrr
from engine_helpers import CAPACITY_ERROR, assert_identical, page_trace, tiny_config
from flashrr._core.assembly import precondition_acts, snapshot_blockers
from flashrr.cli import main
from flashrr.config import ConfigError
from flashrr.policies import make_policy
from flashrr.policy import POLICIES, Policy
from flashrr.snapshots import SnapshotError
from flashrr.snapshots.cache import STATS
from flashrr.sweep.store import TIMING_COLUMNS
from strategies import any_device_case, cocktail_case, pv_case, redundancy_case, rr_streams_case

class LastGreedyGC(Policy):
    """A policy hook that chooses GC victims (greedy, ties to the last candidate): it acts
    while the engine preconditions, with Python state no snapshot holds."""

    name = "last-greedy-gc"

    def choose_gc_victim(self, state, lane, candidates, valid):
        return int(candidates[::-1][int(np.argmin(valid[::-1]))])  # greedy, ties to the last


WALL_FIELDS = TIMING_COLUMNS  # wall-clock times, different in every run
ALL_POLICIES = sorted(POLICIES) + ["shuffler+phasedrr", "cocktail+phasedrr", LastGreedyGC]
#: parameters that let a policy run on a tiny device (PhasedRR's phases fit under a low RR threshold)
PARAMS = {"phasedrr": {"delta_reads": 1, "phase_mult": (1, 1, 1, 1, 1)},
          "shuffler+phasedrr": {"phasedrr.delta_reads": 1, "phasedrr.phase_mult": (1, 1, 1, 1, 1)},
          "cocktail+phasedrr": {"phasedrr.delta_reads": 1, "phasedrr.phase_mult": (1, 1, 1, 1, 1)}}


def _acts(policy, cfg, trace=None, seed=0) -> tuple:
    """``(precondition_acts, snapshot_blockers)`` of ``policy`` bound as simulate() binds it."""
    from flashrr.trace.source import MemorySource

    pol = make_policy(policy, **PARAMS.get(policy, {}))
    cfg = pol.device_config(cfg)
    pol.bind(cfg, seed)
    if trace is not None:
        pol.bind_trace(MemorySource(trace), cfg)
    return precondition_acts(pol.hooks()), snapshot_blockers(pol.hooks())


@pytest.fixture(autouse=True, scope="module")
def _snapshot_every_device():
    """The tests below draw devices with any warm-up, down to none; they are about what a
    snapshot holds, so every device takes one here (the rule that skips devices with
    little warm-up has its own test, which sets the share back)."""
    import flashrr.snapshots.cache as cache

    share = cache.MIN_WARMUP_SHARE
    cache.MIN_WARMUP_SHARE = 0.0
    yield share
    cache.MIN_WARMUP_SHARE = share


def _run(cfg, trace, policy, **kw):
    """simulate(), or the error it raised for a device the policy refuses or that runs out
    of spare space (assert_identical fails on any error a run without snapshot did not give)."""
    try:
        return flashrr.simulate(cfg, trace, policy=policy, **kw)
    except (ConfigError, flashrr.EngineError) as e:
        return e


def _same_with_snapshots(cfg, trace, policy, engine, repeat, seed, check=False, params=None):
    """Run ``policy`` without a snapshot, then from a directory where Baseline made the
    snapshot first (a policy whose hooks do not act while preconditioning loads
    Baseline's; one whose hooks act makes its own), then again (it loads that); all three
    must agree.
    Returns how the first run got its device (a STATS key), or None if the device
    refuses the policy or runs out of spare space."""
    kw = dict(engine=engine, repeat=repeat, seed=seed, check_invariants=check)
    params = PARAMS.get(policy, {}) if params is None else params
    plain = _run(cfg, trace, policy, **kw, **params)
    if isinstance(plain, Exception):
        return None
    with tempfile.TemporaryDirectory() as d:
        _run(cfg, trace, "baseline", snapshot=d, **kw)
        before = dict(STATS)
        first = _run(cfg, trace, policy, snapshot=d, **kw, **params)
        how = next(k for k in STATS if STATS[k] != before.get(k, 0))
        before = dict(STATS)
        again = _run(cfg, trace, policy, snapshot=d, **kw, **params)
        how_again = next(k for k in STATS if STATS[k] != before.get(k, 0))
    assert_identical(plain, first, ignore=WALL_FIELDS)
    assert_identical(plain, again, ignore=WALL_FIELDS)
    assert how_again == ("bypassed" if how == "bypassed" else "loaded")
    return how


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=any_device_case(), policy=st.sampled_from(ALL_POLICIES), engine=st.sampled_from(["compiled", "reference"]))
def test_every_policy_gets_the_same_result_from_a_snapshot(case, policy, engine):
    cfg, trace, repeat, seed = case
    how = _same_with_snapshots(cfg, trace, policy, engine, repeat, seed)
    assume(how is not None)
    event(f"{engine}: {how}")
    acts, blockers = _acts(policy, cfg, trace, seed)
    assert how == ("bypassed" if blockers else "made" if acts else "loaded")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=pv_case(), policy=st.sampled_from(["baseline", "shuffler", "page", "hotr"]),
       engine=st.sampled_from(["compiled", "reference"]))
def test_process_variation_state_comes_back_from_a_snapshot(case, policy, engine):
    cfg, trace, repeat, seed, check = case
    assume(_same_with_snapshots(cfg, trace, policy, engine, repeat, seed, check) is not None)


ACTING_CASES = st.one_of(
    cocktail_case().map(lambda c: (c[0], c[1], "cocktail", c[2], c[3])),
    rr_streams_case().map(lambda c: (c[0], c[1], c[2], {}, c[3])),
    redundancy_case().map(lambda c: (c[0], c[1], c[2], c[3], 1)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=ACTING_CASES, engine=st.sampled_from(["compiled", "reference"]))
def test_policies_that_act_while_preconditioning_get_the_same_result_from_their_own_snapshot(case, engine):
    """Cocktail's write pool, redFTL's and IPR's RR streams, and the static layouts of
    Rails and TTFlash: the snapshot holds their mechanisms' state and is keyed by them."""
    cfg, trace, policy, params, repeat = case
    how = _same_with_snapshots(cfg, trace, policy, engine, repeat, 0, params=params)
    assume(how is not None)
    event(f"{engine}: {how}")
    assert how == "made"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=ACTING_CASES, engine=st.sampled_from(["compiled", "reference"]))
def test_an_engine_restored_from_its_own_snapshot_state_ends_in_the_same_state(case, engine):
    """The mechanisms' state of a policy that acts while preconditioning is whole: after
    the same requests, the restored engine's device and mechanism state equal the
    preconditioned one's."""
    cfg, trace, policy, params, repeat = case
    try:
        a = _preconditioned(engine, cfg, trace, policy, 0, params=params)
    except (ConfigError, flashrr.EngineError):  # a device the policy refuses, or no spare space left
        assume(False)
    b = _preconditioned(engine, cfg, trace, policy, 0, a.device_state(True), True, params)
    _same_end(a, b, trace, repeat, True)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("trigger", ["count", "rber"])
def test_error_model_state_comes_back_from_a_snapshot(engine, trigger):
    em = {"enabled": True, "rber_preset": "tlc", "initial_pe_mean": 1000.0, "initial_pe_sd": 50.0,
          "initial_pe_seed": 2, "data_age_s": 86_400.0, "retention_quantum_s": 3600.0}
    cfg = tiny_config(blocks=24, pages=8, rr=30, op=0.35, gc_ratio=0.1, fill_ratio=1.0,
                      warmup_random_writes_ratio=1.0).replace(error_model=em, trigger=trigger)
    rng = np.random.default_rng(5)
    trace = page_trace(rng.integers(0, cfg.logical_pages, 400), rng.random(400) < 0.3)
    assert _same_with_snapshots(cfg, trace, "baseline", engine, 2, 1) == "loaded"


def _preconditioned(engine, cfg, trace, policy, seed, state=None, mechanisms=False, params=None):
    """An engine for ``policy`` on ``cfg`` brought to the aged device as simulate() does,
    by preconditioning or, given ``state``, by restoring it."""
    import math

    from flashrr._core import load_compiled_engine
    from flashrr._core.engine_py import ReferenceEngine
    from flashrr.engine_layout import engine_layout
    from flashrr.trace.source import MemorySource

    pol = make_policy(policy, **(PARAMS.get(policy, {}) if params is None else params))
    cfg = pol.device_config(cfg)
    pol.bind(cfg, seed)
    pol.bind_trace(MemorySource(trace), cfg)
    layout = engine_layout(cfg, pol.metadata_bytes(cfg))
    cls = load_compiled_engine() if engine == "compiled" else ReferenceEngine
    eng = cls(layout, pol.hooks(), seed, False)
    if state is not None:
        eng.restore_device_state(state, mechanisms)
        return eng
    top = int(trace.max_lpn(cfg.geometry.page_size_bytes))
    fill = min(max(top + 1, int(math.ceil(cfg.precondition.fill_ratio * cfg.logical_pages))), cfg.logical_pages)
    n_warm = int(round(cfg.precondition.warmup_random_writes_ratio * fill))
    eng.precondition(fill, np.random.default_rng(seed).integers(0, fill, size=n_warm, dtype=np.int64))
    return eng


def _flat(state: dict) -> dict:
    return {f"{layer}.{k}": v for layer, values in state.items() for k, v in values.items()}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=any_device_case(), policy=st.sampled_from(ALL_POLICIES), engine=st.sampled_from(["compiled", "reference"]))
def test_an_engine_restored_from_a_snapshot_state_ends_in_the_same_state(case, policy, engine):
    """Stronger than equal summaries: after the same requests, the restored engine's whole
    device state (mapping, pools, frontiers, counts, and the mechanisms of a policy that
    acts during preconditioning) equals the preconditioned one's.  A policy that does not
    act restores Baseline's state."""
    cfg, trace, repeat, seed = case
    try:
        acts, blockers = _acts(policy, cfg, trace, seed)
        assume(not blockers)
        mech = bool(acts)
        state = _preconditioned(engine, cfg, trace, policy if mech else "baseline", seed).device_state(mech)
        a = _preconditioned(engine, cfg, trace, policy, seed)
    except (ConfigError, flashrr.EngineError):  # a device the policy refuses, or no spare space left
        assume(False)
    event(f"{engine}: {'own state' if mech else 'Baseline state'}")
    b = _preconditioned(engine, cfg, trace, policy, seed, state, mech)
    _same_end(a, b, trace, repeat, mech)


def _same_end(a, b, trace, repeat, mech):
    """Replay ``trace`` on both engines; the same error, or the same end state and counters."""
    errors = []
    for eng in (a, b):
        try:
            eng.run(trace.time_ns, trace.offset, trace.size, trace.is_write, repeat)
            eng.finish()
            errors.append(None)
        except flashrr.EngineError as e:
            errors.append(str(e))
    assert errors[0] == errors[1]
    assume(errors[0] is None)
    sa, sb = _flat(a.device_state(mech)), _flat(b.device_state(mech))
    event(f"{len(sa)} state fields")
    assert sa.keys() == sb.keys()
    for name in sa:
        assert np.array_equal(sa[name], sb[name]), name
    assert a.results()["counters"] == b.results()["counters"]


# ------------------------------------------------------------------------------ keys and refusals

def _device(**kw):
    return tiny_config(blocks=24, pages=8, op=0.35, gc_ratio=0.1, fill_ratio=1.0, warmup_random_writes_ratio=0.5,
                       **kw)


TRACE = page_trace(np.arange(60) % 40, np.arange(60) % 3 == 0)


def _made(tmp_path, cfg=None, engine="compiled", policy="baseline"):
    """The one snapshot file a run of ``policy`` on ``cfg`` makes in a new directory."""
    d = tmp_path / f"snaps-{engine}-{policy}"
    flashrr.simulate(cfg or _device(), TRACE, policy=policy, engine=engine, snapshot=d)
    (path,) = d.glob("*.npz")
    return path


@pytest.mark.parametrize("change,field", [
    ({"rr_threshold_reads": 11}, "rr_threshold_reads"),
    ({"gc_threshold_ratio": 0.2}, "gc_threshold_sb"),
    ({"warmup_random_writes_ratio": 0.25}, "warmup_writes"),
    ({"blocks_per_plane": 28}, "sb_per_lane"),
])
def test_a_snapshot_of_another_device_is_refused_naming_the_field_and_file(tmp_path, change, field):
    path = _made(tmp_path)
    with pytest.raises(SnapshotError, match=rf"{path}.*field '{field}'"):
        flashrr.simulate(_device().replace(**change), TRACE, snapshot=path)


def test_a_snapshot_of_another_seed_is_refused_by_its_warm_up_writes(tmp_path):
    path = _made(tmp_path)
    with pytest.raises(SnapshotError, match=r"field 'warmup_lpns'"):
        flashrr.simulate(_device(), TRACE, seed=1, snapshot=path)
    flashrr.simulate(_device(), TRACE, seed=0, snapshot=path)  # the same run loads it


def test_a_snapshot_of_the_other_engine_is_refused(tmp_path):
    path = _made(tmp_path, engine="reference")
    with pytest.raises(SnapshotError, match=r"field 'engine' is 'reference' in the snapshot and 'compiled'"):
        flashrr.simulate(_device(), TRACE, engine="compiled", snapshot=path)


def test_the_cache_and_timing_are_not_part_of_the_key(tmp_path):
    path = _made(tmp_path)
    other = _device(cache_pages=8, t_read=300, t_prog=2000).replace(scheduler="fcfs")
    a = flashrr.simulate(other, TRACE, snapshot=path)
    assert_identical(a, flashrr.simulate(other, TRACE), ignore=WALL_FIELDS)


def test_a_missing_snapshot_file_is_named(tmp_path):
    path = tmp_path / "none.npz"
    with pytest.raises(SnapshotError, match=rf"snapshot {path}: no such file"):
        flashrr.simulate(_device(), TRACE, snapshot=path)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_corrupt_snapshot_file_is_named(tmp_path, damage):
    path = _made(tmp_path)
    data = path.read_bytes()
    path.write_bytes({"garbage": b"not a snapshot at all", "truncated": data[:len(data) // 2], "empty": b""}[damage])
    with pytest.raises(SnapshotError, match=rf"snapshot {path}: not a readable flashrr snapshot"):
        flashrr.simulate(_device(), TRACE, snapshot=path)


def test_an_altered_array_is_refused_naming_the_layer_field(tmp_path):
    path = _made(tmp_path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["ftl/p2l"] = arrays["ftl/p2l"][:-1]
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(SnapshotError, match=rf"snapshot {path}: ftl.p2l: expected int32"):
        flashrr.simulate(_device(), TRACE, snapshot=path)


def _edit(path, damage) -> dict:
    """Rewrite the snapshot file ``path`` after ``damage(arrays, meta)``; returns the meta."""
    import json

    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(bytes(arrays["__meta__"]).decode())
    damage(arrays, meta)
    arrays["__meta__"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return meta


@pytest.mark.parametrize("damage,message", [
    (lambda a, m: a.pop("ftl/p2l"), r"ftl.p2l: missing"),
    (lambda a, m: m["scalars"].pop("ftl/user_lane"), r"ftl.user_lane: missing"),
    (lambda a, m: m["scalars"].update({"ftl/user_lane": "x"}), r"not a readable flashrr snapshot \(ValueError"),
    (lambda a, m: m.update(scalars=[1]), r"not a readable flashrr snapshot \(AttributeError"),
])
def test_an_edited_snapshot_is_refused_naming_the_file(tmp_path, damage, message):
    path = _made(tmp_path)
    _edit(path, damage)
    with pytest.raises(SnapshotError, match=rf"snapshot {path}: {message}"):
        flashrr.simulate(_device(), TRACE, snapshot=path)


def test_a_snapshot_whose_fields_were_edited_is_refused_by_its_key(tmp_path):
    from flashrr.snapshots import load_snapshot

    path = _made(tmp_path)
    meta = _edit(path, lambda a, m: m["fields"].update(fill_pages=1))
    with pytest.raises(SnapshotError, match=rf"snapshot {path}: its key .* does not match its fields"):
        load_snapshot(path, meta["fields"])


def test_a_policy_that_acts_while_preconditioning_gets_its_own_key(tmp_path):
    from flashrr.engine_layout import engine_layout
    from flashrr.snapshots import snapshot_key
    from flashrr.snapshots.key import policy_identity, snapshot_fields

    cfg = _device()
    assert _acts("cocktail", cfg) == (["mechanism 'write_pool' (migration_placer)"], [])
    assert _acts("shuffler", cfg) == _acts("phasedrr", cfg) == ([], [])  # its erase observer clears only reads
    keys = {}
    for policy in ("baseline", "shuffler", "phasedrr", "cocktail"):
        pol = make_policy(policy, **PARAMS.get(policy, {}))
        ident = policy_identity(pol) if _acts(policy, cfg)[0] else None
        fields = snapshot_fields(cfg, engine_layout(cfg), 100, np.zeros(3, np.int64), "compiled", False, {}, ident)
        keys[policy] = snapshot_key(fields)
    assert keys["baseline"] == keys["shuffler"] == keys["phasedrr"] != keys["cocktail"]
    d = tmp_path / "snaps"
    for how in ("made", "loaded"):
        assert _count(lambda: flashrr.simulate(cfg, TRACE, policy="cocktail", snapshot=d)) == {how: 1}
    with np.load(next(d.glob("*.npz"))) as z:
        assert "mechanism.write_pool/pool_blk" in z.files
    path = _made(tmp_path)  # Baseline's
    with pytest.raises(SnapshotError, match=rf"snapshot {path} was made for another device state: field 'policy' "
                                            r"is None in the snapshot and .cocktail\("):
        flashrr.simulate(cfg, TRACE, policy="cocktail", snapshot=path)


def test_a_policy_hook_acting_while_preconditioning_is_not_restored(tmp_path):
    cfg = _device()
    assert _acts(LastGreedyGC, cfg)[1] == ["hook choose_gc_victim"]
    d = tmp_path / "snaps"
    assert _count(lambda: flashrr.simulate(cfg, TRACE, policy=LastGreedyGC, snapshot=d)) == {"bypassed": 1}
    assert not list(d.glob("*.npz"))
    path = _made(tmp_path)
    with pytest.raises(SnapshotError, match=rf"snapshot {path}: this policy acts while the engine preconditions "
                                            r"\(hook choose_gc_victim\)"):
        flashrr.simulate(cfg, TRACE, policy=LastGreedyGC, snapshot=path)


def test_a_snapshot_path_that_is_a_file_but_not_npz_is_refused(tmp_path):
    f = tmp_path / "plain"
    f.write_text("x")
    with pytest.raises(SnapshotError, match=rf"snapshot directory {f}: not a directory"):
        flashrr.simulate(_device(), TRACE, snapshot=f)
    with pytest.raises(ValueError, match="snapshot: expected a directory or a .npz path, got int"):
        flashrr.simulate(_device(), TRACE, snapshot=3)


def test_a_snapshot_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    d = tmp_path / "snaps"

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", boom)
    res = _count(lambda: _same(flashrr.simulate(_device(), TRACE, snapshot=d), flashrr.simulate(_device(), TRACE)))
    assert res == {"unsaved": 1}
    assert [p.name for p in d.iterdir() if not p.name.endswith(".lock")] == []


def test_a_directory_that_cannot_be_made_means_preconditioning(tmp_path):
    (tmp_path / "file").write_text("x")  # a directory below a file cannot be made, even by root
    got = _count(lambda: _same(flashrr.simulate(_device(), TRACE, snapshot=tmp_path / "file" / "snaps"),
                               flashrr.simulate(_device(), TRACE)))
    assert got == {"unwritable": 1}


def _same(a, b):
    assert_identical(a, b, ignore=WALL_FIELDS)


# ------------------------------------------------------------------------------ reuse by sweeps and compare

def _count(fn):
    before = dict(STATS)
    fn()
    return {k: STATS[k] - before.get(k, 0) for k in STATS if STATS[k] != before.get(k, 0)}


def test_a_sweep_store_reuses_one_snapshot(tmp_path):
    pytest.importorskip("pyarrow")
    dev = tmp_path / "dev.toml"
    dev.write_text(_device().to_toml())
    spec = {"traces": ["synth:lun0?n_requests=300&seed=2&fold=modulo"], "devices": [str(dev)],
            "policies": {"baseline": {}, "shuffler": {}, "page": {}}, "seeds": [0], "repeat": 1}
    out = tmp_path / "store"
    got = _count(lambda: flashrr.sweep(spec, out, jobs=0, progress=False))
    assert got == {"made": 1, "loaded": 2}
    assert len(list((out / "snapshots").glob("*.npz"))) == 1
    spec["seeds"] = [0, 1]  # seed 1 warms up with other writes: a second snapshot
    assert _count(lambda: flashrr.sweep(spec, out, jobs=0, progress=False)) == {"made": 1, "loaded": 2}
    assert len(list((out / "snapshots").glob("*.npz"))) == 2
    fresh = tmp_path / "fresh"
    assert _count(lambda: flashrr.sweep(spec, fresh, jobs=0, progress=False, snapshots=False)) == {}
    assert not (fresh / "snapshots").exists()
    a = flashrr.sweep(spec, out, jobs=0, progress=False).drop(columns=list(WALL_FIELDS), errors="ignore")
    b = flashrr.sweep(spec, fresh, jobs=0, progress=False).drop(columns=list(WALL_FIELDS), errors="ignore")
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


def test_compare_reuses_one_snapshot_across_its_policies():
    from flashrr.compare import compare

    cfg = _device()
    got = _count(lambda: compare(["baseline", "shuffler", "hotr"], trace="synth:lun0?n_requests=300&fold=modulo",
                                 preset=cfg, repeat=1, jobs=0))
    assert got == {"made": 1, "loaded": 2}


def test_compare_cli_keeps_snapshots_in_the_directory_given(tmp_path):
    dev = tmp_path / "dev.toml"
    dev.write_text(_device().to_toml())
    d = tmp_path / "snaps"
    args = ["compare", "--policies", "baseline,shuffler", "--preset", str(dev), "--trace",
            "synth:lun0?n_requests=300&fold=modulo", "--repeat", "1", "--jobs", "0", "--snapshots", str(d), "--csv"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert len(list(d.glob("*.npz"))) == 1
    assert _count(lambda: CliRunner().invoke(main, args)) == {"loaded": 2}


def test_sweep_cli_no_snapshots_keeps_none(tmp_path):
    pytest.importorskip("pyarrow")
    dev = tmp_path / "dev.toml"
    dev.write_text(_device().to_toml())
    spec = tmp_path / "spec.toml"
    spec.write_text(f'traces = ["synth:lun0?n_requests=300&fold=modulo"]\ndevices = ["{dev}"]\nseeds = [0]\n'
                    'repeat = 1\n[policies.baseline]\n[policies.shuffler]\n')
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["sweep", str(spec), "-o", str(out), "--jobs", "0", "--no-snapshots"])
    assert r.exit_code == 0, r.output
    assert not (out / "snapshots").exists()
    out2 = tmp_path / "out2"
    r = CliRunner().invoke(main, ["sweep", str(spec), "-o", str(out2), "--jobs", "0"])
    assert r.exit_code == 0, r.output
    assert len(list((out2 / "snapshots").glob("*.npz"))) == 1


@pytest.mark.parametrize("warmup, kept", [(0.0, 0), (0.02, 0), (0.05, 1)])
def test_a_directory_keeps_no_snapshot_of_a_device_with_little_warm_up(tmp_path, warmup, kept,
                                                                        _snapshot_every_device, monkeypatch):
    """A fill without random warm-up writes costs less than a restore, so a snapshot
    directory keeps none for it (below a thirty-second of the fill); the results are those
    of preconditioning either way."""
    import flashrr.snapshots.cache as cache

    assert _snapshot_every_device == 1 / 32
    monkeypatch.setattr(cache, "MIN_WARMUP_SHARE", _snapshot_every_device)
    cfg = _device().replace(warmup_random_writes_ratio=warmup)
    d = tmp_path / "snaps"
    got = _count(lambda: flashrr.simulate(cfg, TRACE, snapshot=d))
    assert got == ({"made": 1} if kept else {"cheap": 1})
    assert len(list(d.glob("*.npz"))) == kept
    plain = flashrr.simulate(cfg, TRACE)
    again = flashrr.simulate(cfg, TRACE, snapshot=d)
    assert_identical(plain, again, ignore=WALL_FIELDS)


def test_a_sweep_gives_the_snapshot_directory_only_to_runs_that_share_an_aged_device(tmp_path):
    """A run on an aged device no other run of the sweep has would write a snapshot no run
    loads: a sweep gives the directory to the runs with the device, seed and engine of
    another, and the same trace unless the device fills its whole logical space (then the
    trace does not change the fill); the others precondition."""
    pytest.importorskip("pyarrow")
    traces = ["synth:lun0?n_requests=300&seed=2&fold=modulo", "synth:lun0?n_requests=300&seed=3&fold=modulo"]

    def spec(cfg, name, traces, policies, seeds):
        dev = tmp_path / f"{name}.toml"
        dev.write_text(cfg.to_toml())
        return {"traces": traces, "devices": [str(dev)], "policies": {p: {} for p in policies}, "seeds": seeds,
                "repeat": 1}

    def count(s, name):
        return _count(lambda: flashrr.sweep(s, tmp_path / name, jobs=0, progress=False))

    full = _device()  # fill_ratio 1: both traces start from one aged device per seed
    assert count(spec(full, "full", traces, ["baseline", "shuffler"], [0, 1]), "a") == {"made": 2, "loaded": 6}
    assert count(spec(full, "full", traces[:1], ["baseline"], [0, 1]), "b") == {}  # no snapshot path at all
    part = _device().replace(fill_ratio=0.5)  # the fill may depend on the trace: runs are paired by trace
    assert count(spec(part, "part", traces, ["baseline"], [0]), "c") == {}
    # each trace has two runs; both traces' highest pages are below the half fill, so their
    # aged devices are one, and the second trace loads the first's snapshot
    assert count(spec(part, "part", traces, ["baseline", "shuffler"], [0]), "d") == {"made": 1, "loaded": 3}
    assert not list((tmp_path / "b" / "snapshots").glob("*.npz"))
