"""Trace pipelines: spec parsing and checking, streaming stages against the
in-memory transforms, subsets, sweep keys and the command line.

The real trace ``tests/data/wsrch-small.mqsim.txt`` comes from the MQSim
repository (CMU-SAFARI/MQSim, MIT licence; see tests/data/README.md)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from engine_helpers import comparable, tiny_config
from hypothesis import given, settings
from hypothesis import strategies as st

from flashrr import simulate
from flashrr.cli import main
from flashrr.config import SimConfig
from flashrr.sweep import load_spec, plan
from flashrr.sweep.store import ResultStore
from flashrr.trace import Trace, TraceError
from flashrr.trace.io import read_trace
from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec
from flashrr.trace.source import MemorySource
from flashrr.trace.stages import AmplifyReads, FirstRequests, Fold, Repeat, ScaleTime, TimeWindow
from flashrr.trace.stats import trace_stats
from flashrr.trace.transform import amplify_reads, fold, repeat, scale_time
from strategies import busy_traces
from trace_helpers import joined_chunks

DATA = Path(__file__).parent / "data"
MQSIM_SAMPLE = DATA / "wsrch-small.mqsim.txt"  # from the MQSim repository (see tests/data/README.md)
CFG = tiny_config(blocks=48, pages=16, rr=8)


@pytest.fixture
def sample(tmp_path):
    p = tmp_path / MQSIM_SAMPLE.name
    shutil.copy(MQSIM_SAMPLE, p)
    return p


# ---------------------------------------------------------------------------
# Parsing and checking
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,pattern", [
    ("t.csv?folds=modulo", r"unknown key 'folds'; expected one of format, skip_bad, block_bytes, op, gap_ns, "
                           r"time_unit, time_resolution_s, start_s"),
    ("t.csv?fold=wrap", r"fold='wrap': expected one of modulo"),
    ("t.csv?repeat=0", r"repeat='0': expected a positive integer"),
    ("t.csv?repeat=2.5", r"repeat='2.5': expected a positive integer"),
    ("t.csv?amplify_reads=x", r"amplify_reads='x': expected a positive integer"),
    ("t.csv?scale_time=-1", r"scale_time='-1': expected a finite number > 0"),
    ("t.csv?scale_time=nan", r"scale_time='nan'"),
    ("t.csv?start_s=-3", r"start_s='-3': expected a number of seconds >= 0"),
    ("t.csv?duration_s=0", r"duration_s='0': expected a number of seconds > 0"),
    ("t.csv?first=1e6", r"first='1e6': expected a positive integer"),
    ("t.csv?skip_bad=maybe", r"skip_bad='maybe': expected 1 or 0"),
    ("t.csv?format=parquet", r"format='parquet': expected a trace format name"),
    ("t.csv?repeat=2&repeat=3", r"key 'repeat' is given twice"),
    ("t.csv?repeat", r"'repeat': expected name=value"),
    ("synth:lun0?skip_bad=1", r"key 'skip_bad' applies to trace files only"),
    ("synth:lun0?repeats=2", r"parameter 'repeats' is unknown; expected a pipeline key"),
    ("synth:nosuch?repeat=2", r"unknown preset 'nosuch'"),
])
def test_bad_specs_name_the_key(text, pattern):
    with pytest.raises(TraceError, match=pattern):
        parse_trace_spec(text)


def test_canonical_form_orders_keys_and_drops_identities():
    a = parse_trace_spec("u.csv?repeat=8&fold=modulo&scale_time=0.50&amplify_reads=4&skip_bad=1&start_s=0")
    b = parse_trace_spec("u.csv? fold = MODULO &skip_bad=true&amplify_reads=4&scale_time=.5&repeat=8")
    assert a.canonical() == b.canonical() == "u.csv?skip_bad=1&fold=modulo&amplify_reads=4&scale_time=0.5&repeat=8"
    assert parse_trace_spec("u.csv?repeat=1&amplify_reads=1&scale_time=1&skip_bad=0").canonical() == "u.csv"
    assert parse_trace_spec("u.csv?start_s=3600.0&duration_s=0.5").canonical() == "u.csv?start_s=3600&duration_s=0.5"
    s = parse_trace_spec("synth:lun0?seed=1&repeat=4&n_requests=10")
    assert s.canonical() == "synth:lun0?n_requests=10&seed=1&repeat=4"
    assert s.synth_params == {"seed": 1, "n_requests": 10} and s.steps == {"repeat": 4}


def test_an_existing_file_name_with_a_question_mark_is_a_plain_path(tmp_path):
    p = tmp_path / "odd?name.mqsim"
    p.write_text("0 0 0 8 1\n")
    spec = parse_trace_spec(str(p))
    assert (spec.kind, spec.base, spec.steps) == ("file", str(p), {})


def test_fold_without_a_device_fails_before_reading(tmp_path):
    with pytest.raises(TraceError, match="key 'fold'.*no device"):
        open_trace_spec(str(tmp_path / "missing.csv") + "?fold=modulo")


# ---------------------------------------------------------------------------
# Stages equal the in-memory transforms, for any chunk size
# ---------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(tr=busy_traces(), chunk=st.integers(1, 120), raf=st.integers(1, 4), n=st.integers(1, 4),
       factor=st.sampled_from([0.5, 1, 3, 0.123, 1.7]), cap_pages=st.integers(40, 5000))
def test_stages_equal_in_memory_transforms(tr, chunk, raf, n, factor, cap_pages):
    src = MemorySource(tr)
    page = 4096

    def streamed(stage):
        got = joined_chunks(stage, chunk)
        info = stage.info()
        assert (info.n_requests, info.n_writes, info.duration_ns) == (len(got), got.n_writes, got.duration_ns)
        return got

    assert streamed(AmplifyReads(src, raf)) == amplify_reads(tr, raf)
    assert streamed(ScaleTime(src, factor)) == scale_time(tr, factor)
    assert streamed(Repeat(src, n)) == repeat(tr, n)
    if int(((tr.offset % page + tr.size + page - 1) // page).max()) <= cap_pages:
        assert streamed(Fold(src, cap_pages * page, page)) == fold(tr, cap_pages * page, page)
    chained = Repeat(ScaleTime(AmplifyReads(src, raf), factor), n)
    assert streamed(chained) == repeat(scale_time(amplify_reads(tr, raf), factor), n)


def test_fold_error_names_the_request_index_of_the_whole_trace():
    tr = Trace(np.arange(10), np.zeros(10, np.int64), [4096] * 9 + [40960], np.zeros(10, bool))
    with pytest.raises(TraceError, match="request 9 .*touches 10 pages, more than the 4 pages"):
        list(Fold(MemorySource(tr), 4 * 4096, 4096).chunks(3))


@settings(max_examples=40, deadline=None)
@given(tr=busy_traces(), chunk=st.integers(1, 80), start=st.integers(0, 3 * 10**7), dur=st.none() | st.integers(1, 10**8),
       first=st.none() | st.integers(1, 400))
def test_subsets_select_exactly_the_right_requests(tr, chunk, start, dur, first):
    """Independent model: the indices whose time is in [start, start+dur), then the first N of them."""
    t = tr.time_ns.tolist()
    idx = [i for i, ti in enumerate(t) if ti >= start and (dur is None or ti < start + dur)]
    if first is not None:
        idx = idx[:first]
    stage = TimeWindow(MemorySource(tr), start, dur)
    if first is not None:
        stage = FirstRequests(stage, first)
    got = joined_chunks(stage, chunk) if idx else None
    if not idx:
        assert list(stage.chunks(chunk)) == [] and stage.info().n_requests == 0
        return
    assert got.offset.tolist() == [tr.offset[i] for i in idx]
    assert got.is_write.tolist() == [tr.is_write[i] for i in idx]
    assert got.time_ns.tolist() == [t[i] - t[idx[0]] for i in idx]


def test_window_in_seconds_on_a_real_trace(sample):
    whole = read_trace(sample, cache=False)
    src, _ = open_trace_spec(f"{sample}?start_s=10&duration_s=5.5")
    got = src.to_trace()
    keep = (whole.time_ns >= 10 * 10**9) & (whole.time_ns < 15_500_000_000)
    np.testing.assert_array_equal(got.offset, whole.offset[keep])
    assert got.time_ns[0] == 0 and len(got) == int(keep.sum()) > 0
    src2, _ = open_trace_spec(f"{sample}?first=1000")
    assert src2.to_trace() == whole.slice(0, 1000)


# ---------------------------------------------------------------------------
# simulate, sweeps and the command line
# ---------------------------------------------------------------------------

def test_does_not_fit_error_gives_a_command_line_answer_that_works(sample):
    advice = r"does not fit.*trace pipeline '.*wsrch-small\.mqsim\.txt\?first=500&fold=modulo'"
    with pytest.raises(TraceError, match=advice):
        simulate(CFG, f"{sample}?first=500")
    folded = simulate(CFG, f"{sample}?first=500&fold=modulo")
    whole = read_trace(sample, cache=False).slice(0, 500)
    direct = simulate(CFG, fold(whole, CFG.logical_bytes, CFG.geometry.page_size_bytes))
    assert comparable(folded.summary) == comparable(direct.summary)


def test_synth_spec_pipeline_equals_in_memory():
    from flashrr.trace.synth import synth_trace

    cfg = tiny_config(blocks=256, pages=64, rr=50)
    a = simulate(cfg, "synth:lun0?n_requests=300&seed=2&fold=modulo&amplify_reads=2&repeat=2", chunk_requests=111)
    tr = synth_trace("lun0", n_requests=300, seed=2)
    mem = repeat(amplify_reads(fold(tr, cfg.logical_bytes, cfg.geometry.page_size_bytes), 2), 2)
    b = simulate(cfg, mem)
    assert comparable(a.summary) == comparable(b.summary)


def _sweep_spec(tmp_path, traces):
    return load_spec({"traces": traces, "devices": [{"preset": "shuffler", "name": "s"}],
                      "policies": {"baseline": {}}}, base_dir=tmp_path)


def test_sweep_keys_cover_the_pipeline(tmp_path, sample):
    spec = _sweep_spec(tmp_path, [sample.name, f"{sample.name}?repeat=2", f"{sample.name}?first=100",
                                  f"{sample.name}?first=100&repeat=1", f"{sample.name}?fold=modulo&skip_bad=1"])
    tasks = plan(spec, ResultStore(tmp_path / "results", create=True))
    keys = [t.key for t in tasks]
    assert len(keys) == 4  # '?first=100&repeat=1' is the same run as '?first=100'
    ids = [t.trace_id for t in tasks]
    assert ids[0].startswith("sha256:") and "?" not in ids[0]
    assert ids[1] == ids[0] + "?repeat=2" and ids[3] == ids[0] + "?skip_bad=1&fold=modulo"


def test_sweep_spec_rejects_a_bad_pipeline_naming_entry_and_key(tmp_path, sample):
    from flashrr.sweep import SpecError

    with pytest.raises(SpecError, match=r"traces\[1\]: '.*\?repaet=2': unknown key 'repaet'"):
        _sweep_spec(tmp_path, [sample.name, f"{sample.name}?repaet=2"])


def test_sweep_runs_a_pipeline(tmp_path, sample):
    from flashrr.sweep import sweep

    spec = load_spec({"traces": [f"{sample.name}?first=2000&fold=modulo"],
                      "device": [{"preset": "shuffler", "name": "small", "capacity_bytes": 1 << 30}],
                      "policies": {"baseline": {}}}, base_dir=tmp_path)
    df = sweep(spec, tmp_path / "res", jobs=1, progress=False)
    row = df.iloc[0]
    assert row["requests"] == 2000 and row["trace_id"].endswith("?first=2000&fold=modulo")


def test_cli_run_and_trace_commands_take_pipelines(tmp_path, sample):
    r = CliRunner()
    bad = r.invoke(main, ["run", "--trace", f"{sample}?amplify=2"])
    assert bad.exit_code == 1 and "unknown key 'amplify'" in bad.output
    ok = r.invoke(main, ["run", "--preset", "shuffler", "--trace", f"{sample}?first=300&amplify_reads=2&repeat=2",
                         "--json", "--chunk-requests", "100"])
    assert ok.exit_code == 0, ok.output
    reads = int(np.count_nonzero(~read_trace(sample, cache=False).is_write[:300]))
    assert json.loads(ok.output)["requests"] == 2 * (300 + reads)
    st = r.invoke(main, ["trace", "stats", f"{sample}?start_s=20&duration_s=10", "--json"])
    assert st.exit_code == 0, st.output
    whole = read_trace(sample, cache=False)
    keep = (whole.time_ns >= 20 * 10**9) & (whole.time_ns < 30 * 10**9)
    win = Trace(whole.time_ns[keep], whole.offset[keep], whole.size[keep], whole.is_write[keep])
    got = json.loads(st.output)[0]
    assert got["requests"] == int(keep.sum())
    assert got["footprint_bytes"] == trace_stats(win)["footprint_bytes"]
    need_dev = r.invoke(main, ["trace", "convert", f"{sample}?fold=modulo", str(tmp_path / "o.msr.csv")])
    assert need_dev.exit_code == 1 and "--device" in need_dev.output
    conv = r.invoke(main, ["trace", "convert", f"{sample}?fold=modulo&scale_time=2", str(tmp_path / "o.mqsim"),
                           "--device", "shuffler"])
    assert conv.exit_code == 0, conv.output
    cfg = SimConfig.preset("shuffler")
    expect = scale_time(fold(whole, cfg.logical_bytes, cfg.geometry.page_size_bytes), 2)
    assert read_trace(tmp_path / "o.mqsim", cache=False) == expect
