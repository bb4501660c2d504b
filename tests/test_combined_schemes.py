"""Combined schemes (flashrr/policy_combine.py, flashrr/_core/assembly.py): a part whose
partner is inert gives that part's own result, a clash is refused with the role named,
and both engines agree on random pairs."""
import numpy as np
import pytest
from hypothesis import given, settings

import flashrr
from flashrr.policies import make_policy, policy_class
from flashrr.policy import Policy, register_policy
from flashrr.policy_combine import CombineError, CombinedPolicy

from engine_helpers import CAPACITY_ERROR, assert_identical, comparable, page_trace, run_both, tiny_config
from strategies import combined_pair_case


@settings(max_examples=40, deadline=None)
@given(combined_pair_case())
def test_engines_identical_on_random_pairs(case):
    cfg, trace, name, params = case
    a, b = run_both(cfg, trace, make_policy(name, **params), check_invariants=True)
    assert_identical(a, b, allow_error=CAPACITY_ERROR, ignore=("policy_time_s",))


def _hot_reads(n=3000, span=24, seed=3):
    rng = np.random.default_rng(seed)
    lpn = np.where(rng.random(n) < 0.8, rng.integers(0, 4, n), rng.integers(0, span, n))
    return page_trace(lpn, writes=rng.random(n) < 0.05, gap_ns=20_000)


# HotR with a hot threshold no page reaches makes no replica and redirects no read; its
# R-LRU still tracks (and evicts) pages, which is its own diagnostic
INERT_HOTR = {"hotr.hot_threshold": 10 ** 9, "hotr.staging_pages": 4}


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("name, alone, own", [
    ("shuffler+hotr", "shuffler", {}),
    ("hotr+phasedrr", "phasedrr", {"delta_reads": 4}),
    ("rl-rr+hotr", "rl-rr", {"start_reads": 20}),
])
def test_a_combination_with_an_inert_part_equals_the_other_part_alone(engine, name, alone, own):
    """The defining behaviour of composition: adding a part that never acts changes
    nothing of the other part's run (device, latencies, RRs, GCs, event tables)."""
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=32, pages=8, rr=40, op=0.4, gc_ratio=0.1)
    trace = _hot_reads()
    both = flashrr.simulate(cfg, trace, make_policy(name, **INERT_HOTR, **{f"{alone}.{k}": v for k, v in own.items()}),
                            engine=engine)
    one = flashrr.simulate(cfg, trace, make_policy(alone, **own), engine=engine)
    assert one.summary["rr_count"] > 0 and both.summary["redirected_reads"] == 0
    drop = ("policy", "policy_metadata_bytes", "policy_time_s", "rlru_evictions")
    a = {k: v for k, v in comparable(both.summary).items() if k not in drop and k in one.summary}
    b = {k: v for k, v in comparable(one.summary).items() if k not in drop}
    assert a == b
    assert both.rr_events.equals(one.rr_events)
    assert both.gc_events.equals(one.gc_events)
    for kind in ("read", "write"):
        assert np.array_equal(both.hist[kind], one.hist[kind])


def test_a_combination_acts_with_both_parts():
    """Shuffler's placement and PhasedRR's working sets both act in one run."""
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=32, pages=8, rr=40, op=0.4, gc_ratio=0.1)
    s = flashrr.simulate(cfg, _hot_reads(), make_policy("shuffler+phasedrr", **{"phasedrr.delta_reads": 4})).summary
    ph = flashrr.simulate(cfg, _hot_reads(), make_policy("phasedrr", delta_reads=4)).summary
    assert s["ws_classify_scans"] > 0 and s["idle_moves"] + s["rr_forced_moves"] > 0
    assert s["rr_count"] != ph["rr_count"] or s["rr_page_moves"] != ph["rr_page_moves"]


@pytest.mark.parametrize("name, role, a, b", [
    ("cocktail+redftl", "user_placer", "cocktail", "redftl"),
    ("hotr+rails", "read_redirector", "hotr", "rails"),
    ("page+shuffler", "migration_placer", "page", "shuffler"),
    ("shuffler+cocktail", "migration_placer", "shuffler", "cocktail"),
    ("cocktail+rails", "user_placer", "cocktail", "rails"),  # Rails places user pages by its own layout
])
def test_a_clash_names_both_parts_and_the_role(name, role, a, b):
    with pytest.raises(CombineError, match=rf"'{a}'.*'{b}'.*'{role}'"):
        make_policy(name)


class _LastVictim(Policy):
    """Chooses the GC victim: the last candidate."""

    name = "test-last-victim"

    def choose_gc_victim(self, state, lane, candidates, valid):
        return int(candidates[-1])


class _FirstVictim(Policy):
    """Chooses the GC victim: the first candidate."""

    name = "test-first-victim"

    def choose_gc_victim(self, state, lane, candidates, valid):
        return int(candidates[0])


class _MoreChannels(Policy):
    """Runs on the device with one channel more."""

    name = "test-more-channels"

    def device_config(self, config):
        return config.replace(channels=config.geometry.channels + 1)


class _MoreBlocks(Policy):
    """Runs on the device with twice the blocks per plane."""

    name = "test-more-blocks"

    def device_config(self, config):
        return config.replace(blocks_per_plane=2 * config.geometry.blocks_per_plane)


class _OwnWritePath(Policy):
    """Declares a mechanism of its own that fills the write path (never run: it only meets the check)."""

    name = "test-own-write-path"

    def mechanism_specs(self):
        from flashrr._core.mechanism_entry import MechanismEntry

        return {MechanismEntry("test_write_path", "read_exposure", "ReadExposure", ("write_path",)): True}


def test_two_gc_victim_choosers_are_refused():
    """choose_gc_victim fills the GC-victim role, which takes one part: two parts that
    both override it are refused, both named, rather than the first silently winning.
    One chooser beside a part that does not choose is a valid combination."""
    for cls in (_LastVictim, _FirstVictim):
        register_policy(cls)
    with pytest.raises(CombineError, match=r"'test-last-victim' and 'test-first-victim' both fill the exclusive role "
                                           r"'gc_victim_chooser'"):
        make_policy("test-last-victim+test-first-victim")
    assert make_policy("test-last-victim+phasedrr").hooks().choose_gc_victim is not None


def test_two_parts_that_change_the_device_are_refused():
    """At most one part may change the device (device_config): two that both do are
    refused, both named.  One that does beside one that does not is a valid combination,
    and runs on the device the first returns."""
    for cls in (_MoreChannels, _MoreBlocks):
        register_policy(cls)
    with pytest.raises(CombineError, match=r"'test-more-channels' and 'test-more-blocks' both change the device"):
        make_policy("test-more-channels+test-more-blocks")
    cfg = tiny_config(channels=2)
    assert make_policy("test-more-channels+phasedrr").device_config(cfg).geometry.channels == 3


def test_two_write_paths_are_refused():
    """The write path is an exclusive role: Rails fills it (with the read redirector and
    the user-page placer), so a part with another mechanism on the write path is refused,
    with both parts and the role named."""
    register_policy(_OwnWritePath)
    with pytest.raises(CombineError, match=r"'rails'.*'test-own-write-path'.*'write_path'"):
        make_policy("rails+test-own-write-path")
    make_policy("test-own-write-path+phasedrr")  # no other write path: accepted


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_the_order_of_the_parts_changes_nothing_but_the_name(engine):
    """The compiled mechanisms' observers run in registry order whatever the order of the
    parts (and only Shuffler labels its RR routine here): PhasedRR's working sets with
    Shuffler's placement give the same run named either way."""
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=32, pages=8, rr=40, op=0.4, gc_ratio=0.1)
    kw = {"phasedrr.delta_reads": 4}
    a = flashrr.simulate(cfg, _hot_reads(), make_policy("shuffler+phasedrr", **kw), engine=engine)
    b = flashrr.simulate(cfg, _hot_reads(), make_policy("phasedrr+shuffler", **kw), engine=engine)
    assert a.summary["rr_count"] > 0 and a.summary["idle_moves"] + a.summary["rr_forced_moves"] > 0
    drop = ("policy", "policy_time_s")
    assert {k: v for k, v in comparable(a.summary).items() if k not in drop} == \
        {k: v for k, v in comparable(b.summary).items() if k not in drop}
    assert a.rr_events.equals(b.rr_events) and a.gc_events.equals(b.gc_events)


def test_the_metadata_of_a_combination_is_the_sum_of_its_parts():
    """RL-RR keeps a 2-byte counter per logical page; PhasedRR its bitmaps: together they
    charge the cache both, PhasedRR's plus 2 x the logical pages."""
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=32, pages=8, rr=40, op=0.4, gc_ratio=0.1,
                      cache_pages=64)
    phased = make_policy("phasedrr").metadata_bytes(cfg)
    assert phased > 0
    assert make_policy("rl-rr").metadata_bytes(cfg) == 2 * cfg.logical_pages
    assert make_policy("phasedrr+rl-rr").metadata_bytes(cfg) == phased + 2 * cfg.logical_pages


def test_the_same_mechanism_twice_is_refused():
    with pytest.raises(CombineError, match=r"'rails' and 'ttflash' both switch on the mechanism 'redundancy'"):
        make_policy("rails+ttflash")


def test_page_counters_of_different_groups_are_refused():
    with pytest.raises(CombineError, match=r"different group sizes.*page-8: 8.*rl-rr: 1"):
        make_policy("page-8+rl-rr")


def test_parameters_go_to_their_part_and_an_unrouted_one_is_refused():
    p = make_policy("shuffler+phasedrr", **{"phasedrr.delta_reads": 7})
    assert isinstance(p, CombinedPolicy) and p.parts[1].params()["delta_reads"] == 7
    assert p.params()["phasedrr.delta_reads"] == 7 and "shuffler.delta_f" in p.params()
    with pytest.raises(TypeError, match="PART.PARAM"):
        make_policy("shuffler+phasedrr", delta_reads=7)
    with pytest.raises(ValueError, match="unknown policy 'nope'"):
        policy_class("shuffler+nope")


class _LabelA(Policy):
    name = "test-label-a"
    place_kinds = ()

    def on_read_reclaim(self, state, sb):
        return "a"


class _LabelB(_LabelA):
    name = "test-label-b"

    def on_read_reclaim(self, state, sb):
        return f"b{sb}"


def test_python_hooks_of_both_parts_run_and_rr_labels_join_in_part_order():
    for cls in (_LabelA, _LabelB):
        register_policy(cls)
    cfg = tiny_config(channels=2, planes=2, sb_planes=2, blocks=32, pages=8, rr=40, op=0.4, gc_ratio=0.1)
    res = flashrr.simulate(cfg, _hot_reads(), make_policy("test-label-b+test-label-a"))
    ev = res.rr_events
    assert len(ev) and (ev["routine"] == [f"b{sb}+a" for sb in ev["superblock"]]).all()


def test_sweeps_and_compare_accept_combinations(tmp_path):
    from flashrr.compare import CompareError, plan_rows
    from flashrr.sweep.spec import load_spec

    rows = plan_rows("baseline,shuffler+phasedrr", preset="shuffler")
    assert [r.policy for r in rows] == ["baseline", "shuffler+phasedrr"]
    assert plan_rows("shuffler+phasedrr")[0].preset == "shuffler"  # the common device, as any policy
    assert plan_rows("phasedrr+rl-rr", preset="paper")[0].preset == "phasedrr"  # parts of one paper: its device
    with pytest.raises(CompareError, match="different papers.*POLICY@PRESET"):
        plan_rows("shuffler+phasedrr", preset="paper")
    spec = load_spec({"traces": ["synth:lun0?n_requests=100"], "devices": ["shuffler"],
                      "policies": {"shuffler+phasedrr": {"phasedrr.delta_reads": [64, 128]}}})
    assert len(spec.policies) == 2


def test_composable_pairs_split_the_cross_paper_schemes():
    from flashrr.compare import CROSS_PAPER_POLICIES, composable_pairs

    ok, clash = composable_pairs()
    n = len([p for p in CROSS_PAPER_POLICIES if p != "baseline"])
    assert len(ok) + len(clash) == n * (n - 1) // 2
    assert "shuffler+phasedrr" in ok and "cocktail+hotr" in ok
    assert "'user_placer'" in clash["cocktail+redftl"] and "'read_redirector'" in clash["hotr+rails"]
    assert not any(p.startswith("baseline") for p in ok)
