"""synth_trace and its presets: determinism, validation, structure, and every paper row."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from flashrr.trace import Trace
from flashrr.trace.stats import trace_stats
from flashrr.trace.synth import KiB, MiB, SynthParams, _most_counted, synth_params, synth_trace
from flashrr.trace.synth_presets import GB, KB, SYNTH_PRESETS, get_synth_preset, list_synth_presets

# The names the brief fixes, by paper.
SHUFFLER = "ali0 ali1 lun0 lun1 lun2 lun3 lun4 lun5 gen0 gen1".split()
PHASEDRR = [f"phasedrr-{n}" for n in "ws_1 usr_0 web_0 lun1 lun2 lun3 lun4 ali".split()]
COCKTAIL = {  # name: (read ratio, RAF, repeat), Cocktail Table II
    "alibaba_206": (0.8648, 2, 1), "alibaba_188": (0.6539, 4, 1), "usr1": (0.9146, 8, 1),
    "systor1": (0.6217, 30, 5), "systor2": (0.5996, 30, 5), "ads1": (0.9052, 40, 10),
    "ads2": (0.5625, 40, 10), "nexus5": (0.3376, 50, 10), "msr_web": (0.9925, 50, 10),
    "websearch": (0.9997, 50, 10),
}
HOTR = {"fin2": (0.176, 450_068, 4.6), "msr_hm": (0.729, 999_997, 8.3),  # write ratio, I/Os, avg KB
        "hpc_46": (0.600, 499_999, 6.3), "hpc_28": (0.800, 999_997, 6.3)}

TOL_READ_RATIO = 0.01
TOL_SIZE = 0.05
TOL_HOT = 0.03
TOL_FOOTPRINT = 0.05


# --------------------------------------------------------------------------------------------- basics


def test_default_call_makes_a_valid_trace():
    tr = synth_trace(n_requests=5000)
    assert isinstance(tr, Trace)
    assert len(tr) == 5000
    assert tr.name == "synth"


def test_same_arguments_same_trace():
    assert synth_trace(n_requests=3000, seed=11) == synth_trace(n_requests=3000, seed=11)
    kw = dict(n_requests=4000, seed=5, hot_skew=0.5)
    assert synth_trace("lun1", **kw) == synth_trace("lun1", **kw)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60), st.data())
def test_most_counted_is_a_stable_sort_prefix(counts, data):
    counts = np.asarray(counts, dtype=np.int64)
    k = data.draw(st.integers(1, counts.size))
    assert np.array_equal(_most_counted(counts, k), np.argsort(-counts, kind="stable")[:k])


def test_same_trace_whatever_order_a_partition_leaves_ties_in(monkeypatch):
    """NumPy's partition kernels differ by instruction set, and so does the order in which
    they leave equal values; the synthetic trace of a seed must not follow it."""
    kw = dict(n_requests=20_000, seed=3)
    want = synth_trace("ali1", **kw)
    real = np.argpartition

    def reversed_sides(a, kth, *args, **kwargs):  # a valid partition, each side in another order
        idx = real(a, kth, *args, **kwargs)
        k = int(np.max(kth)) + 1
        return np.concatenate([idx[:k][::-1], idx[k:][::-1]])

    monkeypatch.setattr(np, "argpartition", reversed_sides)
    monkeypatch.setattr(np, "partition", lambda a, kth, *args, **kwargs: np.sort(a))
    assert synth_trace("ali1", **kw) == want


def test_different_seeds_differ():
    a, b = synth_trace(n_requests=3000, seed=1), synth_trace(n_requests=3000, seed=2)
    assert not np.array_equal(a.offset, b.offset)
    assert not np.array_equal(a.time_ns, b.time_ns)


def test_zero_requests():
    tr = synth_trace(n_requests=0)
    assert len(tr) == 0


def test_sizes_are_4k_multiples_and_extents_start_aligned():
    tr = synth_trace(n_requests=20_000, seed=3)
    assert np.all(tr.size % 4096 == 0)
    assert np.all(tr.size >= 4096) and np.all(tr.size <= SynthParams.max_size_bytes)
    assert np.all(tr.offset % SynthParams.align_bytes == 0)


def test_read_ratio_is_exact_up_to_rounding():
    n = 10_001
    tr = synth_trace(n_requests=n, read_ratio=0.37)
    assert abs(tr.n_reads - 0.37 * n) <= 0.5


def test_arrivals_are_poisson_with_the_requested_mean():
    tr = synth_trace(n_requests=50_000, interarrival_mean_ns=20_000.0, seed=4)
    gaps = np.diff(tr.time_ns)
    assert tr.time_ns[0] == 0
    assert gaps.mean() == pytest.approx(20_000, rel=0.03)
    assert gaps.std() == pytest.approx(20_000, rel=0.05)  # exponential: sd = mean


def test_size_spread_follows_cv():
    narrow = synth_trace(n_requests=20_000, read_size_mean_bytes=32 * KiB, read_size_cv=0.2, read_ratio=1.0)
    wide = synth_trace(n_requests=20_000, read_size_mean_bytes=32 * KiB, read_size_cv=1.5, read_ratio=1.0)
    assert narrow.size.std() < wide.size.std()
    for tr in (narrow, wide):
        assert tr.size.mean() == pytest.approx(32 * KiB, rel=TOL_SIZE)


# ---------------------------------------------------------------------- spatial structure of hot reads


def test_hot_reads_repeat_whole_extents_at_unaligned_page_offsets():
    tr = synth_trace(n_requests=200_000, seed=2, footprint_bytes=256 * MiB, hot_set_ratio=0.3)
    reads = ~tr.is_write
    off, size = tr.offset[reads], tr.size[reads]
    starts, counts = np.unique(off, return_counts=True)
    top = starts[np.argsort(-counts)[:50]]
    # Each popular start is always read with the same size: the same pages every time.
    for s in top:
        assert np.unique(size[off == s]).size == 1
    # Popularity is skewed: the hottest extent is read far more often than the median one.
    assert counts.max() > 20 * np.median(counts)
    # Hot extents start at arbitrary pages, not only at superpage (4-page) boundaries.
    assert np.unique((top // 8192) % 4).size == 4


def test_skew_zero_gives_flat_popularity():
    tr = synth_trace(n_requests=100_000, hot_skew=0.0, hot_set_ratio=1.0, read_ratio=1.0,
                     footprint_bytes=64 * MiB, seed=1)
    counts = np.unique(tr.offset, return_counts=True)[1]
    assert counts.max() < 5 * counts.mean()


def test_hot_set_ratio_and_footprint_are_what_was_asked():
    for hot_min, key in ((2, "hot_ratio"), (4, "hot_ratio_4")):
        tr = synth_trace(n_requests=100_000, footprint_bytes=200 * MiB, hot_set_ratio=0.35,
                         hot_min_reads=hot_min, seed=8)
        s = trace_stats(tr)
        assert s[key] == pytest.approx(0.35, abs=TOL_HOT)
        assert s["footprint_bytes"] == pytest.approx(200 * MiB, rel=TOL_FOOTPRINT)


def test_cold_reads_per_extent_makes_cold_data_warm():
    cold = trace_stats(synth_trace(n_requests=100_000, footprint_bytes=64 * MiB, hot_set_ratio=0.1, seed=1))
    warm = trace_stats(synth_trace(n_requests=100_000, footprint_bytes=64 * MiB, hot_set_ratio=0.1,
                                   cold_reads_per_extent=2.0, seed=1))
    assert cold["hot_ratio"] == pytest.approx(0.1, abs=TOL_HOT)
    assert warm["hot_ratio"] == pytest.approx(1.0)  # every cold extent is now read exactly twice
    assert warm["hot_ratio_4"] == pytest.approx(0.1, abs=TOL_HOT)


# -------------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("kwargs, name", [
    (dict(bogus=1), "bogus"),
    (dict(read_ratio=1.5), "read_ratio"),
    (dict(read_ratio=-0.1), "read_ratio"),
    (dict(read_ratio=True), "read_ratio"),
    (dict(read_ratio="0.5"), "read_ratio"),
    (dict(read_size_mean_bytes=100), "read_size_mean_bytes"),
    (dict(read_size_mean_bytes=2 * MiB), "read_size_mean_bytes"),
    (dict(write_size_mean_bytes=0), "write_size_mean_bytes"),
    (dict(read_size_cv=-1.0), "read_size_cv"),
    (dict(write_size_cv=math.nan), "write_size_cv"),
    (dict(size_unit_bytes=1000), "size_unit_bytes"),
    (dict(max_size_bytes=6000), "max_size_bytes"),
    (dict(align_bytes=6144), "align_bytes"),
    (dict(footprint_bytes=0), "footprint_bytes"),
    (dict(footprint_bytes=-1.0), "footprint_bytes"),
    (dict(footprint_bytes=math.inf), "footprint_bytes"),
    (dict(write_region_fraction=1.2), "write_region_fraction"),
    (dict(write_overlap_fraction=-0.5), "write_overlap_fraction"),
    (dict(hot_set_ratio=2.0), "hot_set_ratio"),
    (dict(hot_skew=-1.0), "hot_skew"),
    (dict(hot_min_reads=1), "hot_min_reads"),
    (dict(hot_min_reads=2.5), "hot_min_reads"),
    (dict(cold_reads_per_extent=0.5), "cold_reads_per_extent"),
    (dict(interarrival_mean_ns=0), "interarrival_mean_ns"),
    (dict(scale_footprint="yes"), "scale_footprint"),
    (dict(n_requests=-1), "n_requests"),
    (dict(n_requests=10.0), "n_requests"),
    (dict(seed=-3), "seed"),
])
def test_bad_parameters_raise_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        synth_trace(**kwargs)


def test_unknown_preset():
    with pytest.raises(ValueError, match="unknown preset 'nope'"):
        synth_trace("nope")
    with pytest.raises(ValueError, match="unknown preset"):
        get_synth_preset("ALI0")


def test_footprint_too_large_for_the_reads():
    # 1,000 requests cannot touch 1 GiB of 16 KiB extents.
    with pytest.raises(ValueError, match="footprint_bytes.*needs at least"):
        synth_trace(n_requests=1000, footprint_bytes=1 << 30)


def test_write_region_too_large_for_the_writes():
    with pytest.raises(ValueError, match="footprint_bytes: the write-only region"):
        synth_trace(n_requests=10_000, read_ratio=0.95, write_region_fraction=0.9, footprint_bytes=64 * MiB)


def test_write_region_must_leave_room_for_reads():
    with pytest.raises(ValueError, match="write_region_fraction.*< 1"):
        synth_trace(n_requests=1000, write_region_fraction=1.0)


def test_no_write_region_means_every_write_updates_read_data():
    tr = synth_trace(n_requests=20_000, write_region_fraction=0.0, seed=3)
    read_starts = np.unique(tr.offset[~tr.is_write])
    assert np.isin(tr.offset[tr.is_write], read_starts).all()


# --------------------------------------------------------------------------------------- footprint scaling


def test_footprint_scales_with_a_smaller_request_count():
    preset = get_synth_preset("phasedrr-ws_1")
    n = preset.n_requests // 10
    paper_fp = preset.row.footprint_bytes
    scaled = trace_stats(synth_trace("phasedrr-ws_1", n_requests=n))
    assert scaled["footprint_bytes"] == pytest.approx(paper_fp * n / preset.n_requests, rel=TOL_FOOTPRINT)
    assert scaled["hot_ratio_4"] == pytest.approx(preset.row.hot_ratio, abs=TOL_HOT)  # reuse structure kept
    unscaled = trace_stats(synth_trace("phasedrr-ws_1", n_requests=n, scale_footprint=False))
    assert unscaled["footprint_bytes"] == pytest.approx(paper_fp, rel=TOL_FOOTPRINT)


def test_explicit_footprint_is_not_scaled():
    s = trace_stats(synth_trace("ali1", n_requests=100_000, footprint_bytes=32 * MiB))
    assert s["footprint_bytes"] == pytest.approx(32 * MiB, rel=TOL_FOOTPRINT)


def test_larger_request_count_keeps_the_paper_footprint():
    preset = get_synth_preset("hotr-fin2")
    p, n = synth_params("hotr-fin2", n_requests=preset.n_requests * 2)
    assert n == preset.n_requests * 2
    assert p.footprint_bytes == preset.params["footprint_bytes"]


def test_preset_parameters_can_be_overridden():
    p, n = synth_params("gen0", n_requests=1000, read_ratio=0.5)
    assert p.read_ratio == 0.5 and n == 1000
    assert p.hot_set_ratio == get_synth_preset("gen0").row.hot_ratio


# ------------------------------------------------------------------------------------- the preset table


def test_preset_names_are_the_papers_rows():
    names = list_synth_presets()
    assert names == SHUFFLER + PHASEDRR + [f"cocktail-{n}" for n in COCKTAIL] + [f"hotr-{n}" for n in HOTR]
    assert set(names) == set(SYNTH_PRESETS)


def test_presets_cite_their_table_row():
    for name, p in SYNTH_PRESETS.items():
        assert p.name == name
        assert "Table" in p.source and "row" in p.source


def test_shuffler_rows():
    # Spot-check the transcription of Shuffler Table 2 (KB = 1024 B, GB = 2**30 B).
    row = get_synth_preset("lun3").row
    assert (row.n_requests, row.read_ratio, row.hot_ratio) == (1_147_164, 0.692, 0.293)
    assert row.read_size_bytes == pytest.approx(23.5 * KB)
    assert row.footprint_bytes == pytest.approx(17.9 * GB)
    assert row.hot_ratio_key == "hot_ratio"


def test_phasedrr_rows_use_the_four_reads_definition():
    for name in PHASEDRR:
        assert get_synth_preset(name).row.hot_ratio_key == "hot_ratio_4"
    row = get_synth_preset("phasedrr-lun2").row
    assert (row.n_requests, row.read_ratio, row.hot_ratio) == (2_683_696, 0.720, 0.004)
    assert row.footprint_bytes == pytest.approx(38.8 * GB)


def test_cocktail_rows_and_metadata():
    for name, (rr, raf, repeat) in COCKTAIL.items():
        p = get_synth_preset(f"cocktail-{name}")
        assert p.row.read_ratio == rr
        assert dict(p.metadata) == {"raf": raf, "repeat": repeat}
        assert p.assumptions  # request count, size and footprint are not in the paper
        assert p.row.n_requests is None and p.row.read_size_bytes is None and p.row.footprint_bytes is None
        assert p.n_requests > 0


def test_hotr_rows():
    for name, (wr, n, kb) in HOTR.items():
        p = get_synth_preset(f"hotr-{name}")
        assert p.row.n_requests == p.n_requests == n
        assert p.row.read_ratio == pytest.approx(1 - wr)
        assert p.row.request_size_bytes == pytest.approx(kb * KB)


def _check_against_row(name: str, n: int, seed: int = 0) -> None:
    preset = get_synth_preset(name)
    row = preset.row
    page = preset.params["align_bytes"]
    s = trace_stats(synth_trace(name, n_requests=n, seed=seed), page_size_bytes=page)
    scale = min(1.0, n / preset.n_requests)
    assert s["requests"] == n
    assert s["read_ratio"] == pytest.approx(row.read_ratio, abs=TOL_READ_RATIO)
    if row.read_size_bytes is not None:
        assert s["avg_read_size_bytes"] == pytest.approx(row.read_size_bytes, rel=TOL_SIZE)
    if row.request_size_bytes is not None:
        assert s["avg_request_size_bytes"] == pytest.approx(row.request_size_bytes, rel=TOL_SIZE)
    hot = row.hot_ratio if row.hot_ratio is not None else preset.params["hot_set_ratio"]
    assert s[row.hot_ratio_key] == pytest.approx(hot, abs=TOL_HOT)
    fp = row.footprint_bytes if row.footprint_bytes is not None else preset.params["footprint_bytes"]
    assert s["footprint_bytes"] == pytest.approx(fp * scale, rel=TOL_FOOTPRINT)


@pytest.mark.parametrize("name", list_synth_presets())
def test_preset_at_paper_request_count_matches_its_row(name):
    preset = get_synth_preset(name)
    if preset.row.n_requests is not None:  # Cocktail's table has no request counts
        assert preset.n_requests == preset.row.n_requests
    _check_against_row(name, preset.n_requests)


@pytest.mark.parametrize("name", list_synth_presets())
def test_preset_at_a_tenth_of_the_requests_keeps_its_statistics(name):
    _check_against_row(name, get_synth_preset(name).n_requests // 10, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", ["ali1", "lun0", "phasedrr-ws_1", "phasedrr-lun2", "hotr-fin2"])
def test_preset_rows_hold_for_other_seeds(name, seed):
    _check_against_row(name, get_synth_preset(name).n_requests, seed=seed)


# --------------------------------------------------------------------------------------------- properties


@st.composite
def synth_kwargs(draw):
    unit = 4096
    align = draw(st.sampled_from([4096, 8192, 16384]))
    hot_min = draw(st.integers(2, 6))
    n = draw(st.integers(0, 3000))
    kw = dict(
        n_requests=n,
        seed=draw(st.integers(0, 2**32)),
        read_ratio=draw(st.floats(0.0, 1.0)),
        read_size_mean_bytes=draw(st.floats(unit, 64 * KiB)),
        write_size_mean_bytes=draw(st.floats(unit, 64 * KiB)),
        read_size_cv=draw(st.floats(0.0, 3.0)),
        write_size_cv=draw(st.floats(0.0, 3.0)),
        align_bytes=align,
        write_region_fraction=draw(st.floats(0.0, 0.9)),
        write_overlap_fraction=draw(st.floats(0.0, 1.0)),
        hot_set_ratio=draw(st.floats(0.0, 1.0)),
        hot_skew=draw(st.floats(0.0, 2.0)),
        hot_min_reads=hot_min,
        interarrival_mean_ns=draw(st.floats(1.0, 1e7)),
    )
    # A footprint the requests can cover: at most one alignment slot per (hot_min_reads + 1) requests.
    kw["footprint_bytes"] = align * max(1.0, draw(st.floats(0.0, 1.0)) * n / (2 * (hot_min + 1)))
    return kw


def _generate_or_reject(kw):
    try:
        return synth_trace(**kw)
    except ValueError as e:
        # Only "the requests cannot cover this footprint" is an acceptable refusal here.
        assert "footprint_bytes" in str(e) or "write_region_fraction" in str(e), str(e)
        assume(False)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kw=synth_kwargs())
def test_random_parameters_give_valid_traces_with_the_requested_read_ratio(kw):
    tr = _generate_or_reject(kw)
    n = kw["n_requests"]
    assert len(tr) == n
    assert abs(tr.n_reads - kw["read_ratio"] * n) <= 0.5 + 1e-9
    if n:
        assert np.all(tr.size % 4096 == 0) and np.all(tr.size > 0)
        assert np.all(tr.offset % kw["align_bytes"] == 0)
        assert np.all(np.diff(tr.time_ns) >= 0) and tr.time_ns[0] == 0
        # Nothing lies beyond the footprint (plus the one extent by which filling a region may overshoot).
        end = int((tr.offset + tr.size).max())
        assert end <= kw["footprint_bytes"] + 2 * (SynthParams.max_size_bytes + kw["align_bytes"])
    assert synth_trace(**kw) == tr


def _size_tolerance(w, cv: float) -> float:
    """Relative tolerance of the mean read size, given the reads ``w`` of each read extent:
    TOL_SIZE, or four standard errors when the draw is noisier.  Extent sizes are drawn
    independently with coefficient of variation at most ``cv`` (clipping only narrows it),
    and a read's size is its extent's, so the mean over reads is a weighted mean of the
    extent sizes with weights w; its relative standard error is cv / sqrt(n_eff),
    n_eff = (sum w)^2 / sum w^2."""
    n_eff = float(w.sum()) ** 2 / float((w.astype(np.float64) ** 2).sum())
    return max(TOL_SIZE, 4 * cv / math.sqrt(n_eff))


def _read_extents(tr):
    """(size in bytes, reads) of each distinct read extent (offset) of ``tr``."""
    reads = ~np.asarray(tr.is_write)
    _, first, w = np.unique(np.asarray(tr.offset)[reads], return_index=True, return_counts=True)
    return np.asarray(tr.size)[reads][first], w


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(read_ratio=st.floats(0.3, 1.0), mean_kib=st.floats(4.0, 64.0), cv=st.floats(0.0, 2.0),
       hot=st.floats(0.05, 0.95), skew=st.floats(0.0, 1.5), seed=st.integers(0, 1000))
def test_random_parameters_hit_mean_size_hot_ratio_and_footprint(read_ratio, mean_kib, cv, hot, skew, seed):
    n = 50_000
    kw = dict(n_requests=n, read_ratio=read_ratio, read_size_mean_bytes=mean_kib * KiB, read_size_cv=cv,
              hot_set_ratio=hot, hot_skew=skew, seed=seed, write_region_fraction=(1 - read_ratio) / 2,
              footprint_bytes=n * read_ratio / 8 * (mean_kib + 8) * KiB)  # about 8 reads per read extent
    tr = synth_trace(**kw)
    s = trace_stats(tr)
    assert s["read_ratio"] == pytest.approx(read_ratio, abs=TOL_READ_RATIO)
    sizes, reads = _read_extents(tr)
    assert s["avg_read_size_bytes"] == pytest.approx(mean_kib * KiB, rel=_size_tolerance(reads, cv))
    # the read extents themselves: each drawn once, so the plain mean is the tighter check
    assert sizes.mean() == pytest.approx(mean_kib * KiB, rel=max(TOL_SIZE, 4 * cv / math.sqrt(len(sizes))))
    assert s["hot_ratio"] == pytest.approx(hot, abs=TOL_HOT)
    assert s["footprint_bytes"] == pytest.approx(kw["footprint_bytes"], rel=TOL_FOOTPRINT)


@pytest.mark.parametrize("name", ["lun1", "gen1"])
def test_superpage_aligned_extents_keep_the_touched_footprint(name):
    """align_bytes=32 KiB puts every extent on a superpage boundary (4 pages of 8 KiB);
    footprint_page_bytes=8 KiB then keeps the touched footprint at the Table 2 row, where
    slot counting alone would shrink it by the slots' unused tails."""
    row = get_synth_preset(name).row
    n = row.n_requests // 10
    aligned = synth_trace(name, n_requests=n, align_bytes=32 * KiB, footprint_page_bytes=8 * KiB)
    slots_only = synth_trace(name, n_requests=n, align_bytes=32 * KiB)
    assert np.all(aligned.offset % (32 * KiB) == 0)
    target = row.footprint_bytes * n / row.n_requests
    fp = trace_stats(aligned)["footprint_bytes"]
    assert abs(fp / target - 1) < 0.05
    assert trace_stats(slots_only)["footprint_bytes"] < 0.8 * target
    assert trace_stats(aligned)["hot_ratio"] == pytest.approx(row.hot_ratio, abs=0.03)


def test_footprint_page_bytes_must_divide_alignment():
    with pytest.raises(ValueError, match="footprint_page_bytes"):
        synth_trace(n_requests=100, align_bytes=32 * KiB, footprint_page_bytes=12 * KiB)


def test_synth_twin_keeps_the_table_statistics_and_the_arrival_times():
    """The twin of a trace (here a synthetic one with a known footprint and hot ratio, on irregular arrival
    times) has its request count and its arrival times exactly, its read ratio up to rounding, and its mean
    sizes, footprint and hot ratio within a few per cent; it is not the trace itself."""
    from flashrr.trace.synth import synth_twin

    base = synth_trace(n_requests=20_000, seed=3, read_ratio=0.7, hot_set_ratio=0.3,
                       footprint_bytes=200 * MiB, read_size_mean_bytes=16 * KiB, write_size_mean_bytes=24 * KiB)
    gaps = np.random.default_rng(5).exponential(50_000.0, len(base)).astype(np.int64)
    trace = Trace(np.cumsum(gaps), base.offset, base.size, base.is_write, name="irregular")
    twin = synth_twin(trace, seed=1)
    assert len(twin) == len(trace)
    assert np.array_equal(twin.time_ns, trace.time_ns)
    want, got = trace_stats(trace), trace_stats(twin)
    assert got["read_ratio"] == pytest.approx(want["read_ratio"], abs=1 / len(trace))
    for key in ("avg_read_size_bytes", "avg_write_size_bytes", "footprint_bytes"):
        assert got[key] == pytest.approx(want[key], rel=0.05), key
    assert got["hot_ratio"] == pytest.approx(want["hot_ratio"], abs=0.03)
    assert not np.array_equal(twin.offset, trace.offset)
