"""read_trace / write_trace: files, compression, sniffing, ordering, empty and
missing files, the parse cache and the progress bar."""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import zstandard

from flashrr.trace import Trace, TraceError
from flashrr.trace import io as trace_io
from flashrr.trace.formats import get_format
from flashrr.trace.io import (CACHE_SUFFIX, TraceNotFoundError, cache_path, format_from_filename, read_trace,
                              read_trace_report, sniff_format, write_trace)

DATA = Path(__file__).parent / "data"
MQSIM_SAMPLE = DATA / "wsrch-small.mqsim.txt"

SMALL = Trace([0, 1_000, 1_000, 5_000_000], [0, 4096, 8192, 1 << 30], [4096, 512, 8192, 65536],
              [False, True, False, True], name="small")


@pytest.fixture
def sample_copy(tmp_path) -> Path:
    """The MQSim sample copied to a writable temp dir (so caches land there)."""
    p = tmp_path / "wsrch-small.mqsim.txt"
    shutil.copyfile(MQSIM_SAMPLE, p)
    return p


# ---------------------------------------------------------------------------
# Empty, missing, odd files
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("content", [b"", b"\n\n   \n", b"Timestamp,Response,IOType,LUN,Offset,Size\n"])
def test_empty_file_gives_an_empty_trace(tmp_path, content):
    p = tmp_path / "empty.csv"
    p.write_bytes(content)
    trace = read_trace(p, cache=False)
    assert len(trace) == 0
    assert trace.time_ns.dtype == np.int64


def test_empty_file_with_a_format(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_bytes(b"")
    trace, report = read_trace_report(p, fmt="msr", cache=False)
    assert (len(trace), report.fmt) == (0, "msr")


def test_missing_file_names_the_path(tmp_path):
    missing = tmp_path / "no_such_trace.csv"
    with pytest.raises(TraceNotFoundError, match=r"no_such_trace\.csv: no such trace file") as info:
        read_trace(missing)
    assert isinstance(info.value, FileNotFoundError)
    assert isinstance(info.value, TraceError)


def test_directory_is_not_a_trace(tmp_path):
    with pytest.raises(TraceError, match="not a regular file"):
        read_trace(tmp_path)


def test_unsniffable_file_names_file_and_lists_formats(tmp_path):
    p = tmp_path / "mystery.dat"
    p.write_text("hello world\nthis is not a trace\n")
    with pytest.raises(TraceError) as info:
        read_trace(p, cache=False)
    msg = str(info.value)
    assert "mystery.dat: cannot tell the trace format" in msg
    for name in ("msr", "systor", "alibaba", "tencent", "spc", "mqsim", "blkparse"):
        assert name in msg


def test_unknown_format_argument(tmp_path):
    with pytest.raises(TraceError, match="unknown trace format 'parquet'"):
        read_trace(MQSIM_SAMPLE, fmt="parquet", cache=False)


# ---------------------------------------------------------------------------
# Sniffing
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["msr", "systor", "alibaba", "tencent", "spc", "mqsim"])
def test_sniffing_ignores_the_file_name(tmp_path, fmt):
    p = tmp_path / "anything.log"
    write_trace(SMALL, p, fmt)
    assert sniff_format(p) == fmt


def test_sniffing_accepts_a_minority_of_bad_lines(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("garbage first line\n100 0 8 8 1\n200 0 16 8 1\n300 0 24 8 0\n")
    assert sniff_format(p) == "mqsim"
    with pytest.raises(TraceError, match=r"t\.txt line 1: expected 5 whitespace-separated fields"):
        read_trace(p, cache=False)


def test_sniffing_ties_are_broken_by_the_file_name(tmp_path):
    lines = "100,h,0,Read,0,4096,5\n0,R,0,4096,10\n"  # one msr line, one alibaba line
    for name, fmt in (("usr_0.csv", "msr"), ("io_traces.csv", "alibaba"), ("x.csv", "msr")):
        p = tmp_path / name
        p.write_text(lines)
        assert sniff_format(p) == fmt


def test_format_from_filename():
    assert format_from_filename("run.mqsim") == "mqsim"
    assert format_from_filename("/a/b/usr_0.msr.csv.gz") == "msr"
    assert format_from_filename("lun0.systor.csv.zst") == "systor"
    assert format_from_filename("trace.csv") is None
    assert format_from_filename("x.blkparse") is None  # read-only: never an output format


# ---------------------------------------------------------------------------
# Compression
# ---------------------------------------------------------------------------

_COMPRESSORS = {".gz": gzip.compress, ".zst": zstandard.ZstdCompressor().compress, ".bz2": bz2.compress,
                ".xz": lzma.compress}


def test_compressed_inputs_are_transparent(tmp_path):
    data = MQSIM_SAMPLE.read_bytes()
    plain = read_trace(MQSIM_SAMPLE, cache=False)
    names = []
    for suffix, compress in _COMPRESSORS.items():
        (tmp_path / f"w.mqsim{suffix}").write_bytes(compress(data))
        (tmp_path / f"misnamed{suffix}.txt").write_bytes(compress(data))  # recognised by content
        names += [f"w.mqsim{suffix}", f"misnamed{suffix}.txt"]
    for name in names:
        assert read_trace(tmp_path / name, cache=False) == plain, name


def test_multi_frame_zstd(tmp_path):
    c = zstandard.ZstdCompressor()
    (tmp_path / "m.zst").write_bytes(c.compress(b"100 0 8 8 1\n") + c.compress(b"200 0 16 8 0\n"))
    trace = read_trace(tmp_path / "m.zst", cache=False)
    np.testing.assert_array_equal(trace.time_ns, [0, 100])


def test_multi_stream_bzip2(tmp_path):
    (tmp_path / "m.bz2").write_bytes(bz2.compress(b"100 0 8 8 1\n") + bz2.compress(b"200 0 16 8 0\n"))
    trace = read_trace(tmp_path / "m.bz2", fmt="mqsim", cache=False)
    np.testing.assert_array_equal(trace.time_ns, [0, 100])


@pytest.mark.parametrize("suffix", sorted(_COMPRESSORS))
@pytest.mark.parametrize("cache", [False, True])
def test_truncated_compressed_file_is_an_error(tmp_path, suffix, cache):
    p = tmp_path / f"cut.mqsim{suffix}"
    p.write_bytes(_COMPRESSORS[suffix](MQSIM_SAMPLE.read_bytes())[:4000])
    with pytest.raises(TraceError, match=rf"cut\.mqsim\{suffix}: cannot read the file"):
        read_trace(p, cache=cache)


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_truncated_bzip2_and_xz_say_the_data_ends_early(tmp_path, suffix):
    p = tmp_path / f"cut.mqsim{suffix}"
    p.write_bytes(_COMPRESSORS[suffix](MQSIM_SAMPLE.read_bytes())[:4000])
    with pytest.raises(TraceError, match=rf"cut\.mqsim\{suffix}: .*ends early \(truncated"):
        read_trace(p, cache=False)


def test_corrupt_xz_is_an_error_naming_the_file(tmp_path):
    data = bytearray(lzma.compress(MQSIM_SAMPLE.read_bytes()))
    data[100:140] = bytes(40)
    p = tmp_path / "bad.mqsim.xz"
    p.write_bytes(bytes(data))
    with pytest.raises(TraceError, match=r"bad\.mqsim\.xz: cannot read the file"):
        read_trace(p, cache=False)


def test_tencent_sample_as_distributed_in_bzip2_reads():
    """caffeine ships the Tencent CBS sample as .bz2; it reads to the same
    requests as the gzip copy of the same CSV bytes."""
    got = read_trace(DATA / "tencent-cbs-sample.tencent.csv.bz2", cache=False)
    assert len(got) == 50_000
    assert got == read_trace(DATA / "tencent-cbs-sample.tencent.csv.gz", cache=False)


@pytest.mark.parametrize("suffix,magic", [(".gz", b"\x1f\x8b"), (".zst", b"\x28\xb5\x2f\xfd"), (".bz2", b"BZh"),
                                          (".xz", b"\xfd7zXZ\x00")])
def test_compressed_output(tmp_path, suffix, magic):
    p = tmp_path / f"out.msr.csv{suffix}"
    write_trace(SMALL, p)
    assert p.read_bytes()[:len(magic)] == magic
    assert read_trace(p, cache=False) == SMALL


def test_gzip_output_is_deterministic(tmp_path):
    p = tmp_path / "a.mqsim.gz"
    write_trace(SMALL, p)
    first = p.read_bytes()
    assert first[4:8] == b"\0\0\0\0"  # the gzip header's MTIME field is zero
    write_trace(SMALL, p)
    assert p.read_bytes() == first


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def test_write_needs_a_format_it_can_name(tmp_path):
    with pytest.raises(TraceError, match="cannot tell the output format"):
        write_trace(SMALL, tmp_path / "trace.csv")
    with pytest.raises(TraceError, match="unknown trace format"):
        write_trace(SMALL, tmp_path / "trace.csv", "parquet")


def test_write_into_a_missing_directory_names_the_path(tmp_path):
    with pytest.raises(TraceError, match=r"nodir/t\.mqsim: cannot write the trace"):
        write_trace(SMALL, tmp_path / "nodir" / "t.mqsim")


def test_write_leaves_no_temporary_files(tmp_path):
    write_trace(SMALL, tmp_path / "t.mqsim")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.mqsim"]


def test_write_rejects_non_traces(tmp_path):
    with pytest.raises(TraceError, match="needs a Trace"):
        write_trace([1, 2, 3], tmp_path / "t.mqsim")


# ---------------------------------------------------------------------------
# Order, names
# ---------------------------------------------------------------------------

def test_decreasing_timestamps_are_sorted_stably(tmp_path):
    p = tmp_path / "o.mqsim"
    # times 300, 100, 200, 100: the two requests at 100 keep their file order (sectors 2 then 4)
    p.write_text("300 0 1 8 1\n100 0 2 8 1\n200 0 3 8 0\n100 0 4 8 0\n")
    trace, report = read_trace_report(p, cache=False)
    np.testing.assert_array_equal(trace.time_ns, [0, 0, 100, 200])
    np.testing.assert_array_equal(trace.offset // 512, [2, 4, 3, 1])
    np.testing.assert_array_equal(trace.is_write, [False, True, True, False])
    assert report.n_out_of_order == 2


def test_sorted_input_reports_no_reordering():
    assert read_trace_report(MQSIM_SAMPLE, cache=False)[1].n_out_of_order == 0


def test_trace_name_drops_extensions(tmp_path):
    p = tmp_path / "usr_0.msr.csv.gz"
    write_trace(SMALL, p)
    assert read_trace(p, cache=False).name == "usr_0"


# ---------------------------------------------------------------------------
# Skipping bad lines
# ---------------------------------------------------------------------------

def test_skip_bad_counts_every_bad_line_and_keeps_three_examples(tmp_path):
    p = tmp_path / "many.mqsim"
    p.write_text("".join("100 0 8 8 1\n" if i % 2 else f"bad line {i}\n" for i in range(10)))
    trace, report = read_trace_report(p, fmt="mqsim", skip_bad=True, cache=False)
    assert len(trace) == 5
    assert report.n_skipped == 5
    assert len(report.skipped_examples) == 3
    assert report.skipped_examples[0].startswith(f"{p} line 1: ")
    assert "line 3: " in report.skipped_examples[1]


def test_without_skip_bad_no_lines_are_skipped():
    assert read_trace_report(MQSIM_SAMPLE, cache=False)[1].n_skipped == 0


# ---------------------------------------------------------------------------
# Cache
# ---------------------------------------------------------------------------

def test_cache_is_written_and_reused(sample_copy):
    first, r1 = read_trace_report(sample_copy)
    assert not r1.from_cache
    assert cache_path(sample_copy).exists()
    assert cache_path(sample_copy).name == "wsrch-small.mqsim.txt" + CACHE_SUFFIX
    second, r2 = read_trace_report(sample_copy)
    assert r2.from_cache
    assert second == first
    assert second.name == first.name
    assert (r2.fmt, r2.n_requests) == ("mqsim", len(first))


def test_cache_is_invalidated_when_the_source_changes(sample_copy):
    read_trace(sample_copy)
    st = sample_copy.stat()
    with open(sample_copy, "a") as f:
        f.write("\n60066626000 0 8 8 0\n")
    os.utime(sample_copy, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    trace, report = read_trace_report(sample_copy)
    assert not report.from_cache
    assert len(trace) == 24_784
    assert read_trace_report(sample_copy)[1].from_cache


def test_cache_is_invalidated_by_mtime_alone(sample_copy):
    read_trace(sample_copy)
    st = sample_copy.stat()
    os.utime(sample_copy, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert not read_trace_report(sample_copy)[1].from_cache


def test_cache_key_includes_format_and_skip_bad(tmp_path):
    p = tmp_path / "t.mqsim"
    p.write_text("100 0 8 8 1\nbad\n200 0 16 8 0\n")
    t1, r1 = read_trace_report(p, skip_bad=True)
    assert (len(t1), r1.n_skipped, r1.from_cache) == (2, 1, False)
    t2, r2 = read_trace_report(p, skip_bad=True)
    assert (len(t2), r2.n_skipped, r2.from_cache) == (2, 1, True)   # the skip count is cached too
    with pytest.raises(TraceError, match="line 2"):
        read_trace(p, skip_bad=False)                                  # a cache made with skip_bad is not used
    q = tmp_path / "t.csv"
    q.write_text("0,R,0,4096,10\n0,W,4096,4096,20\n")
    read_trace(q, fmt="alibaba")
    assert not read_trace_report(q, fmt="alibaba", skip_bad=True)[1].from_cache
    with pytest.raises(TraceError, match="line 1"):
        read_trace(q, fmt="msr")                                       # a cache of another format is not used


def test_cache_false_neither_reads_nor_writes(sample_copy):
    read_trace(sample_copy, cache=False)
    assert not cache_path(sample_copy).exists()
    read_trace(sample_copy)
    assert not read_trace_report(sample_copy, cache=False)[1].from_cache


def test_corrupt_cache_is_ignored_and_replaced(sample_copy):
    cache_path(sample_copy).write_bytes(b"not a zip file")
    trace, report = read_trace_report(sample_copy)
    assert not report.from_cache
    assert len(trace) == 24_783
    assert read_trace_report(sample_copy)[1].from_cache


def test_unwritable_cache_location_means_no_cache(sample_copy, monkeypatch):
    # Simulate a directory we may not write to (the tests may run as root, which
    # ignores permission bits): every temporary file next to the source lands in a
    # missing directory; the private temporary cache elsewhere still works.
    from flashrr.trace import cache as trace_cache

    real = trace_cache.temp_sibling
    monkeypatch.setattr(trace_cache, "temp_sibling", lambda path: path.parent / "missing-dir" / "x.tmp"
                        if path.parent == sample_copy.parent else real(path))
    trace, report = read_trace_report(sample_copy)
    assert len(trace) == 24_783
    assert not cache_path(sample_copy).exists()
    assert not read_trace_report(sample_copy)[1].from_cache


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permission bits")
def test_read_only_directory_means_no_cache(sample_copy):
    os.chmod(sample_copy.parent, 0o555)
    try:
        assert len(read_trace(sample_copy)) == 24_783
        assert not cache_path(sample_copy).exists()
    finally:
        os.chmod(sample_copy.parent, 0o755)


# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------

def test_progress_bar_reports_bytes(sample_copy, monkeypatch, capsys):
    monkeypatch.setattr(trace_io, "PROGRESS_DELAY_S", 0)
    trace = read_trace(sample_copy, cache=False, progress=True)
    assert trace == read_trace(sample_copy, cache=False)
    err = capsys.readouterr().err
    assert "wsrch-small.mqsim.txt" in err
    assert "668k" in err or "668" in err  # 683,630 bytes = 667.6 KiB, shown with unit_scale


def test_no_progress_output_by_default(sample_copy, capsys):
    read_trace(sample_copy, cache=False)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------------
# The block-wise fallback agrees with the reference line parser
# ---------------------------------------------------------------------------

def _bad_sprinkled_file(tmp_path, newline: str) -> Path:
    lines = []
    for i in range(400):
        if i in (5, 123, 124, 399):
            lines.append(f"{i} oops")
        elif i % 50 == 7:
            lines.append("")
        else:
            lines.append(f"{(i * 7919) % 1000} 0 {i} 8 {i % 3}")
    p = tmp_path / "sprinkled.mqsim"
    p.write_bytes(newline.join(lines).encode() + newline.encode())
    return p


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_blockwise_fallback_matches_the_reference_parser(tmp_path, monkeypatch, newline):
    monkeypatch.setattr(trace_io, "BLOCK_BYTES", 256)  # many small blocks
    p = _bad_sprinkled_file(tmp_path, newline)
    tf = get_format("mqsim")
    sample = trace_io._sample_lines(p)
    blockwise = trace_io._parse(p, tf, sample, True, False)
    reference = trace_io._parse(p, tf, sample, True, False, force_slow=True)
    assert blockwise[1] == reference[1] == 4
    assert blockwise[2] == reference[2]
    for col in ("time", "offset", "size", "is_write"):
        np.testing.assert_array_equal(getattr(blockwise[0], col), getattr(reference[0], col))
    assert [m.split(":")[0] for m in blockwise[2]] == [f"{p} line 6", f"{p} line 124", f"{p} line 125"]
    with pytest.raises(TraceError, match=r"sprinkled\.mqsim line 6: expected 5 whitespace-separated fields"):
        read_trace(p, cache=False)


def test_a_trace_survives_pickling_with_its_name_and_stays_immutable():
    import pickle

    tr = Trace([5, 7, 9], [0, 4096, 8192], [4096, 512, 4096], [True, False, True], name="pick")
    back = pickle.loads(pickle.dumps(tr))
    assert back == tr and back.name == "pick" and list(back.time_ns) == [0, 2, 4]
    with pytest.raises(AttributeError):
        back.name = "other"
    assert not back.offset.flags.writeable
