"""Config dataclasses: validation names the field and rule; presets; TOML."""
import pytest

import flashrr
from flashrr.config import (ConfigError, GeometryConfig, PlacementConfig, ProcessVariationConfig, SimConfig,
                            SuperblockConfig)
from flashrr.presets import DEVICE_PRESETS


@pytest.mark.parametrize("name", sorted(DEVICE_PRESETS))
def test_presets_build_and_round_trip_through_toml(name, tmp_path):
    cfg = SimConfig.preset(name)
    assert cfg.name == name
    path = tmp_path / f"{name}.toml"
    cfg.save(path)
    assert SimConfig.load(path) == cfg


def test_a_registered_preset_is_found_by_name_and_an_unknown_one_is_named():
    """The configuration holds the registry; flashrr.presets registers the papers' devices
    into it (the configuration never imports its presets)."""
    from flashrr import config

    assert config.DEVICE_PRESETS is DEVICE_PRESETS and "shuffler" in DEVICE_PRESETS
    with pytest.raises(ConfigError, match=r"preset: unknown device preset 'tiny-lab'; expected one of \['cocktail'"):
        SimConfig.preset("tiny-lab")
    config.register_preset("tiny-lab", lambda: SimConfig(name="tiny-lab"))
    try:
        assert SimConfig.preset("tiny-lab") == SimConfig(name="tiny-lab")
        assert SimConfig.from_toml('preset = "tiny-lab"\n[cache]\ncapacity_bytes = 0').cache.capacity_bytes == 0
    finally:
        del config.DEVICE_PRESETS["tiny-lab"]


def test_shuffler_preset_is_table_1():
    c = SimConfig.preset("shuffler")
    g = c.geometry
    assert (g.channels, g.chips_per_channel, g.planes_per_die, g.blocks_per_plane, g.pages_per_block) == (8, 4, 4, 64,
                                                                                                        1024)
    assert g.capacity_bytes == 64 << 30 and c.cache.capacity_bytes == 64 << 20
    assert (c.timing.t_read_ns, c.timing.t_program_ns, c.timing.t_erase_ns) == (38_000, 350_000, 3_500_000)
    assert c.read_reclaim.rr_threshold_reads == 10_000 and c.k == 4 and c.n_lanes == 32
    assert SimConfig.preset("shuffler-32").k == 32


@pytest.mark.parametrize("name, copyback", [("shuffler", False), ("shuffler-32", False), ("cocktail", False),
                                            ("phasedrr", True), ("hotr", True)])
def test_the_mqsim_papers_presets_move_gc_and_rr_pages_through_the_controller(name, copyback):
    # Shuffler and Cocktail ran MQSim, whose shipped ssdconfig.xml has Use_Copyback_for_GC false; PhasedRR (SSDsim)
    # and HotR (the MSR SSD model) keep the default copyback
    assert SimConfig.preset(name).gc.copyback is copyback


@pytest.mark.parametrize("changes, field, rule", [
    ({"sb_planes": 3}, "superblock.sb_planes", "must divide geometry.planes_per_die"),
    ({"sb_channels": 3}, "superblock.sb_channels", "must divide geometry.channels"),
    ({"rr_threshold_reads": 0}, "read_reclaim.rr_threshold_reads", "positive integer"),
    ({"t_read_ns": -5}, "timing.t_read_ns", "positive integer"),
    ({"gc_threshold_ratio": 1.5}, "gc.gc_threshold_ratio", "number in"),
    ({"overprovisioning_ratio": 0.001}, "gc.overprovisioning_ratio", "spare superblocks"),
    ({"capacity_bytes": 100}, "cache.capacity_bytes", "at least one page"),
    ({"retry_model": "magic"}, "read_retry.retry_model", "must be one of"),
    ({"retry_model": "custom", "retry_step_fractions": [0.9, 0.5]}, "read_retry.retry_step_fractions",
     "increasing"),
    ({"page_size_bytes": 0}, "geometry.page_size_bytes", "positive integer"),
    ({"read_priority": "yes"}, "timing.read_priority", "true or false"),
    ({"read_priority": True}, "timing.read_priority", "capacity_bytes = 0"),
    ({"read_priority": True, "capacity_bytes": 0, "scheduler": "fcfs"}, "timing.read_priority", "'gc-first' or"),
    ({"join_writes": "yes"}, "timing.join_writes", "true or false"),
    ({"join_writes": True}, "timing.join_writes", "read_priority = true"),
    ({"copyback": 1}, "gc.copyback", "true or false"),
    ({"join_reads": "no"}, "timing.join_reads", "true or false"),
])
def test_impossible_configs_name_field_and_rule(changes, field, rule):
    with pytest.raises(ConfigError, match=rule) as err:
        SimConfig.preset("shuffler").replace(**changes)
    assert field in str(err.value)


def test_read_priority_round_trips_through_toml(tmp_path):
    cfg = SimConfig.preset("shuffler").replace(capacity_bytes=0, scheduler="gc-first", read_priority=True,
                                               join_writes=True)
    assert "read_priority = true" in cfg.to_toml() and "join_writes = true" in cfg.to_toml()
    cfg.save(tmp_path / "rp.toml")
    back = SimConfig.load(tmp_path / "rp.toml")
    assert back == cfg and back.timing.read_priority is True and back.timing.join_writes is True
    assert SimConfig.preset("shuffler").timing.read_priority is False  # off by default
    assert SimConfig.preset("shuffler").timing.join_writes is False


def test_replace_finds_sections_by_field_name():
    c = SimConfig.preset("shuffler").replace(capacity_bytes=32 << 20, rr_threshold_reads=5000, name="x")
    assert c.cache.capacity_bytes == 32 << 20 and c.read_reclaim.rr_threshold_reads == 5000 and c.name == "x"
    c2 = c.replace(superblock=SuperblockConfig(sb_planes=1))
    assert c2.k == 1 and c2.n_lanes == 128
    with pytest.raises(ConfigError, match="unknown configuration field"):
        c.replace(cache_size=1)


def test_toml_errors_name_the_file_and_field(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('preset = "shuffler"\n[cache]\ncapacity = 5\n')
    with pytest.raises(ConfigError, match=r"bad\.toml: cache\.capacity: unknown field"):
        SimConfig.load(bad)
    bad.write_text('[geometry]\nchannels = "eight"\n')
    with pytest.raises(ConfigError, match=r"bad\.toml: .*geometry\.channels"):
        SimConfig.load(bad)
    bad.write_text("[geometry\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        SimConfig.load(bad)
    with pytest.raises(ConfigError, match="cannot read config file"):
        SimConfig.load(tmp_path / "missing.toml")


def test_superblock_shape_process_variation_and_placement_are_three_sections(tmp_path):
    """Each field has one section; SimConfig.replace finds it by name, and a TOML that puts
    a field under another section (as the single [superblock] section once held them
    all) names the section it belongs to."""
    c = SimConfig.preset("shuffler").replace(sb_planes=1, pv_model="generative", assembly="qstr_med",
                                             placement="static_lane")
    assert c.superblock == SuperblockConfig(sb_planes=1)
    assert c.process_variation == ProcessVariationConfig(pv_model="generative", assembly="qstr_med")
    assert c.page_placement == PlacementConfig(placement="static_lane")
    assert [f for f in c.to_dict()["superblock"]] == ["sb_planes", "sb_dies", "sb_chips", "sb_channels"]
    path = tmp_path / "pv.toml"
    c.save(path)
    assert SimConfig.load(path) == c
    path.write_text('preset = "shuffler"\n[superblock]\nsb_planes = 4\npv_model = "generative"\n')
    with pytest.raises(ConfigError, match=r"pv\.toml: superblock\.pv_model: not a field of \[superblock\]; it "
                                          r"belongs to section \[process_variation\]"):
        SimConfig.load(path)
    path.write_text('[superblock]\nplacement = "static_die"\n')
    with pytest.raises(ConfigError, match=r"superblock\.placement: .* belongs to section \[page_placement\]"):
        SimConfig.load(path)
    with pytest.raises(ConfigError, match=r"superblock\.assembly: .* belongs to section \[process_variation\]"):
        c.replace(superblock={"assembly": "random"})
    with pytest.raises(ConfigError, match=r"page_placement\.placement: 'static_die' needs every superblock inside "
                                          r"one die"):
        c.replace(sb_chips=2, placement="static_die", pv_model="off", assembly="sequential")


def test_toml_preset_with_overrides(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('preset = "shuffler"\nname = "small-cache"\n[cache]\ncapacity_bytes = 33554432\n')
    c = SimConfig.load(p)
    assert c.name == "small-cache" and c.cache.capacity_bytes == 32 << 20 and c.geometry == GeometryConfig()


def test_unknown_preset():
    with pytest.raises(ConfigError, match="unknown device preset 'nope'"):
        flashrr.SimConfig.preset("nope")
