"""libCacheSim's formats (csv with a header, oracleGeneral and its op-carrying
variants, vscsi): the real CloudPhysics samples in each, hand-written records,
the reading options, bad input, streaming and the CLI."""
from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashrr.cli.trace_cmds import trace as trace_cli
from flashrr.trace import Trace, TraceError
from flashrr.trace import io as trace_io
from flashrr.trace.formats import FORMATS, get_format
from flashrr.trace.io import open_trace, read_trace, read_trace_report, sniff_format
from flashrr.trace.pipeline import open_trace_spec, parse_trace_spec

DATA = Path(__file__).parent / "data"
VSCSI_SAMPLE = DATA / "cloudphysics-io-sample.vscsi"
ORACLE_SAMPLE = DATA / "cloudphysics-io-sample.oracleGeneral.bin"
CSV_SAMPLE = DATA / "cloudphysics-io-sample.csv"
MQSIM_CONVERTED = DATA / "cloudphysics-io.mqsim.txt.gz"
N_SAMPLE = 10_000

# The layouts as libCacheSim's readers state them (little endian, packed).
GENERAL = np.dtype([("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
OPNS = np.dtype([("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("op", "u1"), ("ns", "<u2"), ("next", "<i8")])
SYSTWRNS = np.dtype([("t", "<u4"), ("id", "<u8"), ("ksize", "<u2"), ("vsize", "<u4"), ("op", "<u2"), ("ns", "<u2"),
                     ("ttl", "<i4"), ("next", "<i8")])
VSCSI2 = np.dtype([("cmd", "<u2"), ("ver", "<u2"), ("sn", "<u4"), ("len", "<u4"), ("nsg", "<u4"), ("lbn", "<u8"),
                   ("ts", "<u8"), ("rt", "<u8")])


def _read(path, **kw):
    kw.setdefault("cache", False)
    return read_trace_report(path, **kw)


def _sorted_trace(t, offset, size, is_write) -> Trace:
    """Columns in file order as flashrr returns them: stably sorted by time, rebased to 0."""
    t = np.asarray(t, dtype=np.int64)
    order = np.argsort(t, kind="stable")
    return Trace(t[order] - t[order][0], np.asarray(offset, np.int64)[order], np.asarray(size, np.int64)[order],
                 np.asarray(is_write, bool)[order])


def _same(a: Trace, b: Trace) -> None:
    for col in ("time_ns", "offset", "size", "is_write"):
        np.testing.assert_array_equal(getattr(a, col), getattr(b, col), err_msg=col)


@pytest.fixture(scope="module")
def converted() -> np.ndarray:
    """The first 10,000 lines of the mqsim conversion of the same vscsi file
    (arrival_ns device start_sector size_sectors type, type 0 = write)."""
    lines = gzip.decompress(MQSIM_CONVERTED.read_bytes()).decode().splitlines()[:N_SAMPLE]
    return np.array([[int(x) for x in ln.split()] for ln in lines], dtype=np.int64)


# ---------------------------------------------------------------------------
# The real samples
# ---------------------------------------------------------------------------

def test_vscsi_sample_matches_the_converted_mqsim_sample_record_by_record(converted):
    trace, report = _read(VSCSI_SAMPLE)
    assert report.fmt == "vscsi" and report.n_skipped == 0
    assert len(trace) == N_SAMPLE
    want = _sorted_trace(converted[:, 0], converted[:, 2] * 512, converted[:, 3] * 512, converted[:, 4] == 0)
    _same(trace, want)
    assert trace.name == "cloudphysics-io-sample"


def test_oracle_general_sample_is_the_same_requests_in_seconds_all_reads(converted):
    trace, report = _read(ORACLE_SAMPLE)
    assert report.fmt == "oracleGeneral" and len(trace) == N_SAMPLE
    lbn = converted[:, 2]
    # libCacheSim's oracleGeneral keeps one size per object: its first request's
    _, first = np.unique(lbn, return_index=True)
    first_size = dict(zip(lbn[first].tolist(), (converted[first, 3] * 512).tolist()))
    sizes = [first_size[x] for x in lbn.tolist()]
    want = _sorted_trace(converted[:, 0] // 10**9 * 10**9, lbn * 512, sizes, np.zeros(N_SAMPLE, bool))
    _same(trace, want)
    # the vscsi sample's sizes differ where an object was later read or written with another length
    assert np.count_nonzero(np.array(sizes) != converted[:, 3] * 512) > 0


def test_oracle_general_options_set_the_op_and_block_size():
    base = read_trace(ORACLE_SAMPLE, cache=False)
    writes = read_trace(ORACLE_SAMPLE, cache=False, options={"op": "write", "block_bytes": 4096})
    assert not base.is_write.any() and writes.is_write.all()
    np.testing.assert_array_equal(writes.offset, base.offset // 512 * 4096)
    np.testing.assert_array_equal(writes.size, base.size)


def test_csv_sample_reads_its_header_roles(converted):
    trace, report = _read(CSV_SAMPLE)  # header version,time,op,size,lbn; time in whole seconds, op in hex
    assert report.fmt == "csv" and len(trace) == N_SAMPLE
    want = _sorted_trace(converted[:, 0] // 10**9 * 10**9, converted[:, 2] * 512, converted[:, 3] * 512,
                         converted[:, 4] == 0)
    _same(trace, want)


def test_csv_time_unit_option():
    s = read_trace(CSV_SAMPLE, cache=False)
    ms = read_trace(CSV_SAMPLE, cache=False, options={"time_unit": "ms"})
    np.testing.assert_array_equal(ms.time_ns * 1000, s.time_ns)


@pytest.mark.parametrize("path", [VSCSI_SAMPLE, ORACLE_SAMPLE, CSV_SAMPLE])
def test_samples_stream_in_chunks_to_the_in_memory_read(tmp_path, monkeypatch, path):
    whole = read_trace(path, cache=False)
    monkeypatch.setattr(trace_io, "FAST_BLOCK_BYTES", 4096 + 7)  # many blocks, none a whole number of records
    monkeypatch.setattr(trace_io, "BLOCK_BYTES", 1000)
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    source, report = open_trace(copy)
    assert not report.from_cache
    chunks = list(source.chunks(777))
    assert len(chunks) > 1
    _same(Trace(*(np.concatenate([getattr(c, k) for c in chunks]) for k in ("time_ns", "offset", "size",
                                                                             "is_write"))), whole)
    again, report = open_trace(copy)
    assert report.from_cache and again.to_trace() == whole


def test_compressed_binary_sample_reads_the_same(tmp_path):
    p = tmp_path / "cp.oracleGeneral.bz2"
    p.write_bytes(bz2.compress(ORACLE_SAMPLE.read_bytes()))
    assert sniff_format(p) == "oracleGeneral"
    assert read_trace(p, cache=False) == read_trace(ORACLE_SAMPLE, cache=False)


# ---------------------------------------------------------------------------
# Naming and sniffing
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name,fmt", [
    ("a.oracleGeneral", "oracleGeneral"), ("a.oracleGeneral.bin", "oracleGeneral"),
    ("a.oracleGeneral.zst", "oracleGeneral"), ("x.bin.oracleGeneral", "oracleGeneral"),
    ("a.oracleGeneralOpNS.bin", "oracleGeneralOpNS"), ("a.oracleSysTwrNS", "oracleSysTwrNS"),
    ("w.vscsi", "vscsi"), ("w.vscsi.gz", "vscsi")])
def test_binary_formats_are_told_by_libcachesim_names(tmp_path, name, fmt):
    p = tmp_path / name
    p.write_bytes(b"")
    assert sniff_format(p) == fmt


def test_unnamed_binary_file_needs_a_format(tmp_path):
    p = tmp_path / "mystery.dat"
    p.write_bytes(ORACLE_SAMPLE.read_bytes()[:2400])
    with pytest.raises(TraceError, match=r"mystery\.dat: cannot tell the trace format.*x\.oracleGeneral\.bin"):
        read_trace(p, cache=False)
    assert len(read_trace(p, fmt="oracleGeneral", cache=False)) == 100


def test_vscsi_version_2_and_unknown_versions(tmp_path):
    rec = np.zeros(3, dtype=VSCSI2)
    rec["ver"] = 2 << 8
    rec["cmd"] = [0x28, 0x2A, 0x12]  # READ(10), WRITE(10), INQUIRY (no data)
    rec["len"], rec["lbn"], rec["ts"] = [4096, 512, 36], [8, 16, 0], [10, 25, 30]
    p = tmp_path / "v2.vscsi"
    p.write_bytes(rec.tobytes())
    trace = read_trace(p, cache=False)
    _same(trace, Trace([0, 15_000], [8 * 512, 16 * 512], [4096, 512], [False, True]))
    p.write_bytes(np.zeros(2, dtype=VSCSI2).tobytes())
    with pytest.raises(TraceError, match=r"v2\.vscsi: not a vscsi trace: .*neither version 1"):
        read_trace(p, cache=False)


# ---------------------------------------------------------------------------
# Hand-written records of the op-carrying variants
# ---------------------------------------------------------------------------

def test_oracle_general_opns_ops(tmp_path):
    rec = np.zeros(6, dtype=OPNS)
    rec["t"] = [100, 100, 101, 102, 103, 104]
    rec["id"] = [1, 2, 3, 4, 5, 6]
    rec["size"] = [4096, 100, 4096, 512, 0, 8192]
    rec["op"] = [1, 3, 9, 13, 12, 14]  # get, set, delete (skipped), write, read of size 0 (skipped), update
    p = tmp_path / "t.oracleGeneralOpNS.bin"
    p.write_bytes(rec.tobytes())
    trace, report = _read(p)
    assert report.fmt == "oracleGeneralOpNS" and report.n_skipped == 0
    _same(trace, Trace([0, 0, 2 * 10**9, 4 * 10**9], [512, 1024, 2048, 3072], [4096, 100, 512, 8192],
                       [False, True, True, True]))


def test_oracle_sys_twrns_size_is_key_plus_value(tmp_path):
    rec = np.zeros(3, dtype=SYSTWRNS)
    rec["t"], rec["id"] = [7, 8, 9], [10, 11, 12]
    rec["ksize"], rec["vsize"] = [16, 20, 8], [4000, 0, 100]
    rec["op"] = [1, 3, 0]  # get, set, nop (skipped)
    rec["ttl"], rec["next"] = [-1, 5, 0], [-1, -1, 3]
    p = tmp_path / "kv.oracleSysTwrNS"
    p.write_bytes(rec.tobytes())
    trace = read_trace(p, cache=False, options={"block_bytes": 64})
    _same(trace, Trace([0, 10**9], [640, 704], [4016, 20], [False, True]))


def test_bad_op_code_names_the_record_and_field(tmp_path):
    rec = np.zeros(4, dtype=OPNS)
    rec["t"], rec["id"], rec["size"] = 1, [1, 2, 3, 4], 512
    rec["op"] = [1, 1, 77, 3]
    p = tmp_path / "bad.oracleGeneralOpNS"
    p.write_bytes(rec.tobytes())
    with pytest.raises(TraceError, match=r"bad\.oracleGeneralOpNS record 3 \(byte 54\): field 'op': expected a "
                                         r"libCacheSim op code \(0-14\), got 77"):
        read_trace(p, cache=False)
    trace, report = _read(p, skip_bad=True)
    assert len(trace) == 3 and report.n_skipped == 1 and "record 3" in report.skipped_examples[0]


def test_object_id_beyond_the_address_space_is_a_bad_record(tmp_path):
    rec = np.zeros(2, dtype=GENERAL)
    rec["id"], rec["size"] = [5, 2**62], 4096
    p = tmp_path / "hashed.oracleGeneral"
    p.write_bytes(rec.tobytes())
    with pytest.raises(TraceError, match=r"hashed\.oracleGeneral record 2 \(byte 24\): field 'obj_id': expected "
                                         r"an id below 18014398509481984 \(obj_id x block_bytes=512"):
        read_trace(p, cache=False)
    assert len(read_trace(p, cache=False, options={"block_bytes": 1})) == 2


@pytest.mark.parametrize("compress,note", [(lambda b: b, ""), (gzip.compress, r" \(decompressed\)")])
def test_size_not_a_whole_number_of_records(tmp_path, compress, note):
    p = tmp_path / "cut.oracleGeneral.bin"
    p.write_bytes(compress(ORACLE_SAMPLE.read_bytes()[:24 * 50 + 10]))
    with pytest.raises(TraceError, match=rf"cut\.oracleGeneral\.bin: 1210 bytes{note} is not a whole number of "
                                         r"24-byte oracleGeneral records \(50 records and 10 bytes over\)"):
        read_trace(p, cache=False)


def _records(draw_ids, draw_sizes, draw_times) -> np.ndarray:
    rec = np.zeros(len(draw_ids), dtype=GENERAL)
    rec["id"], rec["size"], rec["t"] = draw_ids, draw_sizes, draw_times
    rec["next"] = -1
    return rec


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_records_read_back_through_the_binary_reader(tmp_path_factory, data):
    n = data.draw(st.integers(0, 60))
    ids = data.draw(st.lists(st.integers(0, 2**54 - 1), min_size=n, max_size=n))
    sizes = data.draw(st.lists(st.integers(1, 2**32 - 1), min_size=n, max_size=n))
    times = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=n, max_size=n))
    rec = _records(ids, sizes, times)
    p = tmp_path_factory.mktemp("h") / "r.oracleGeneral"
    p.write_bytes(rec.tobytes())
    got = read_trace(p, cache=False)
    if not n:
        assert len(got) == 0
        return
    _same(got, _sorted_trace(np.array(times, np.int64) * 10**9, np.array(ids, np.int64) * 512, sizes,
                             np.zeros(n, bool)))


# ---------------------------------------------------------------------------
# csv: hand-written files, headers, options
# ---------------------------------------------------------------------------

def test_csv_without_time_or_op_uses_the_gap_and_op_options(tmp_path):
    p = tmp_path / "ids.csv"
    p.write_text("obj_id,obj_size\n3,4096\n1,512\n\n7,100\n")
    trace, report = _read(p)
    assert report.fmt == "csv"
    _same(trace, Trace([0, 200_000, 400_000], [1536, 512, 3584], [4096, 512, 100], [False] * 3))
    trace = read_trace(p, cache=False, options={"gap_ns": 10, "op": "write", "block_bytes": 1})
    _same(trace, Trace([0, 10, 20], [3, 1, 7], [4096, 512, 100], [True] * 3))


def test_csv_gap_continues_across_blocks(tmp_path, monkeypatch):
    p = tmp_path / "many.csv"
    p.write_text("id,size\n" + "".join(f"{i},512\n" for i in range(5000)))
    monkeypatch.setattr(trace_io, "FAST_BLOCK_BYTES", 1000)
    trace = read_trace(p, cache=False, options={"gap_ns": 3})
    np.testing.assert_array_equal(trace.time_ns, np.arange(5000) * 3)
    np.testing.assert_array_equal(trace.offset, np.arange(5000) * 512)


def test_csv_ops_times_and_unused_columns(tmp_path):
    p = tmp_path / "kv.csv"
    p.write_text("Timestamp, Key ,Op,ttl,Obj-Size\n"
                 "1000.5,10,get,0,100\n"
                 "1001,11,SET,5,200\n"
                 "1001.25,12,delete,0,300\n"
                 "1002,13,w,0,400\n"
                 "1003,14,28,0,500\n")
    trace = read_trace(p, cache=False)
    _same(trace, Trace([0, 500_000_000, 1_500_000_000, 2_500_000_000], [5120, 5632, 6656, 7168],
                       [100, 200, 400, 500], [False, True, True, False]))


def test_csv_bad_line_names_file_line_and_field(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("time,obj_id,obj_size,op\n1,2,512,read\n2,3,512,erase\n")
    with pytest.raises(TraceError, match=r"bad\.csv line 3: field 'op': expected an op \(get, gets, read"):
        read_trace(p, cache=False)
    trace, report = _read(p, skip_bad=True)
    assert len(trace) == 1 and report.n_skipped == 1


@pytest.mark.parametrize("header,missing", [("time,obj_id,op", "lacks the column obj_size"),
                                            ("time,op", "lacks the columns obj_id, obj_size"),
                                            ("size,len,obj_id", "names obj_size twice")])
def test_csv_header_without_the_needed_columns(tmp_path, header, missing):
    p = tmp_path / "h.csv"
    p.write_text(f"{header}\n1,2,3\n")
    with pytest.raises(TraceError, match=rf"h\.csv line 1: the csv header '{header}' {missing}; .*obj_id: obj_id, "):
        read_trace(p, fmt="csv", cache=False)


def test_csv_given_a_file_without_header():
    with pytest.raises(TraceError, match=r"wsrch-small\.mqsim\.txt line 1: the csv header '11413000 0 657728 16 "
                                         r"1' lacks the columns obj_id, obj_size"):
        read_trace(DATA / "wsrch-small.mqsim.txt", fmt="csv", cache=False)


# ---------------------------------------------------------------------------
# Options: checks and the pipeline route
# ---------------------------------------------------------------------------

def test_options_are_checked_against_the_format(tmp_path):
    with pytest.raises(TraceError, match=r"format 'vscsi' takes no option 'op' \(its options: block_bytes\)"):
        read_trace(VSCSI_SAMPLE, cache=False, options={"op": "write"})
    with pytest.raises(TraceError, match=r"option block_bytes=0: expected a positive integer"):
        read_trace(VSCSI_SAMPLE, cache=False, options={"block_bytes": 0})
    with pytest.raises(TraceError, match=r"format 'mqsim' takes no option 'gap_ns'"):
        read_trace(DATA / "wsrch-small.mqsim.txt", cache=False, options={"gap_ns": 5})


def test_pipeline_passes_reading_options(tmp_path):
    copy = tmp_path / ORACLE_SAMPLE.name
    copy.write_bytes(ORACLE_SAMPLE.read_bytes())
    spec = parse_trace_spec(f"{copy}?op=write&block_bytes=4096&first=100")
    assert spec.options == {"op": "write", "block_bytes": 4096}
    assert spec.canonical(base="B") == "B?block_bytes=4096&op=write&first=100"
    source, report = open_trace_spec(spec)
    got = source.to_trace()
    assert len(got) == 100 and got.is_write.all()
    plain, _ = open_trace_spec(str(copy))  # same file, other options: another cache key
    assert not plain.to_trace().is_write.any()
    with pytest.raises(TraceError, match=r"op='erase': expected read or write"):
        parse_trace_spec(f"{copy}?op=erase")
    with pytest.raises(TraceError, match=r"applies to trace files only"):
        parse_trace_spec("synth:lun0?block_bytes=4096")


def test_cli_converts_vscsi_to_mqsim(tmp_path, converted):
    out = tmp_path / "cp.mqsim"
    res = CliRunner().invoke(trace_cli, ["convert", "--no-cache", str(VSCSI_SAMPLE), str(out)])
    assert res.exit_code == 0, res.output
    assert "10,000 requests (vscsi -> mqsim)" in res.output
    assert read_trace(out, cache=False) == read_trace(VSCSI_SAMPLE, cache=False)
    res = CliRunner().invoke(trace_cli, ["convert", "--no-cache", "--from", "oracleGeneral", f"{CSV_SAMPLE}",
                                         str(out)])
    # text read as records: the first record's id is ASCII bytes, far beyond any address
    assert res.exit_code != 0 and "cloudphysics-io-sample.csv record 1 (byte 0): field 'obj_id'" in res.output


def test_libcachesim_formats_are_read_only_and_documented():
    for name in ("csv", "oracleGeneral", "oracleGeneralOpNS", "oracleSysTwrNS", "vscsi"):
        f = get_format(name)
        assert f is FORMATS[name] and not f.writable
        assert f.fields and all(col and meaning for col, meaning in f.fields)
    assert get_format("oracleGeneral").record_dtype.itemsize == 24
    assert get_format("oracleGeneralOpNS").record_dtype.itemsize == 27
    assert get_format("oracleSysTwrNS").record_dtype.itemsize == 34
