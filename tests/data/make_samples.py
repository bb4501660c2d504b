"""Rebuild the real block I/O trace samples in tests/data from their sources.

Not a test and never run by the test suite: run it by hand when a sample has
to be rebuilt or checked.

Every sample is read from a git snapshot of the repository that publishes it,
pinned to one commit, with ``git --git-dir DIR show COMMIT:PATH``. The
snapshots are git directories named ``owner+name`` (or ``owner+name/repo``)
under a root directory, ``/work/.mirror`` by default; any clone of the same
repository that holds the pinned commit works:

    python tests/data/make_samples.py                       # write every sample
    python tests/data/make_samples.py --root /path/to/repos # snapshots elsewhere
    python tests/data/make_samples.py --check               # rebuild in memory, compare with tests/data
    python tests/data/make_samples.py cloudphysics-io.mqsim.txt.gz   # one sample

After writing, each sample is read back with
``flashrr.read_trace(cache=False)`` (when flashrr is importable) and compared,
request by request, with the columns taken straight from the source.

The samples, their sources and what is done to them:

==================================================  ===================================  ==========================================
sample                                              source (repository @ commit: path)   conversion
==================================================  ===================================  ==========================================
cloudphysics-io.mqsim.txt.gz                        1a1a11a/libCacheSim @ aa0fc409...:   vscsi (v1) binary records written as
                                                    data/cloudPhysicsIO.vscsi, checked   ``mqsim`` lines: arrival = vscsi
                                                    against data/cloudPhysicsIO.csv      timestamp (microseconds) x 1000 ns,
                                                                                         device 0, start = lbn (512-byte sectors),
                                                                                         size = length / 512, type 0 for SCSI
                                                                                         WRITE(10) (0x2a), 1 for READ(10) (0x28)
cloudphysics-io-sample.vscsi                        1a1a11a/libCacheSim @ aa0fc409...:   the first 10,000 records (32 bytes each),
                                                    data/cloudPhysicsIO.vscsi            bytes unchanged
cloudphysics-io-sample.oracleGeneral.bin            1a1a11a/libCacheSim @ aa0fc409...:   the first 10,000 records (24 bytes each),
                                                    data/cloudPhysicsIO.oracleGeneral.   bytes unchanged; checked to hold the same
                                                    bin                                  requests as the vscsi records (time =
                                                                                         ts // 1,000,000 s, obj_id = lbn,
                                                                                         obj_size = len of the first vscsi
                                                                                         request of that lbn)
cloudphysics-io-sample.csv                          1a1a11a/libCacheSim @ aa0fc409...:   the header and the first 10,000 records,
                                                    data/cloudPhysicsIO.csv              bytes unchanged
msr-hm_0-sample.msr.csv.gz                          ben-manes/caffeine @ b479ff7d...:    none (gzip of the original bytes)
                                                    .../snia_cambridge/msr-cambridge1-
                                                    sample.csv
systor17-traces-sample.systor.csv.gz                ben-manes/caffeine @ b479ff7d...:    none (the original .gz file, byte for
                                                    .../snia_systor/systor17-traces-     byte)
                                                    sample.csv.gz
systor17-additional-sample.systor.csv.gz            ben-manes/caffeine @ b479ff7d...:    none (the original .gz file, byte for
                                                    .../snia_systor/systor17-additional- byte)
                                                    sample.csv.gz
tencent-cbs-sample.tencent.csv.gz                   ben-manes/caffeine @ b479ff7d...:    bzip2 decompressed, gzip compressed;
                                                    .../snia_tencent_block/cloud_        the CSV bytes are unchanged
                                                    storage-sample.bz2
tencent-cbs-sample.tencent.csv.bz2                  ben-manes/caffeine @ b479ff7d...:    none (the original .bz2 file, byte for
                                                    .../snia_tencent_block/cloud_        byte)
                                                    storage-sample.bz2
tpcc-small.mqsim.txt                                CMU-SAFARI/MQSim @ 7ec40e3b...:      none (the original bytes)
                                                    traces/tpcc-small.trace
cloudphysics-w106-sample.csv.gz                     ben-manes/caffeine @ ccef9554...:    the first 100,000 4-byte little-endian
                                                    .../cloud_physics/w106.trace.xz      block numbers written as ``csv`` lines
                                                                                         ``lba,size``: lba = block x 8 (4 KiB
                                                                                         blocks), size 4096
lirs-{cpp,cs,gli,ps,sprite}.csv.gz                  ben-manes/caffeine @ ccef9554...:    the block numbers (one a line, ``*``
                                                    .../lirs/NAME.trace.gz               lines dropped) written as w106's
==================================================  ===================================  ==========================================

(``...`` in the caffeine paths stands for
``simulator/src/main/resources/com/github/benmanes/caffeine/cache/simulator/parser``.)
The first caffeine commit is the head of pull request 1797 and is not on a
branch: in a clone, fetch it with ``git fetch origin pull/1797/head``; the
second (``CAFFEINE_HEAD``) is on its main branch.
The full commits are the ``LIBCACHESIM``, ``CAFFEINE`` and ``MQSIM``
constants below; tests/data/README.md credits each sample's collector and
licence.

Time unit of the CloudPhysics trace. libCacheSim's vscsi reader
(``libCacheSim/traceReader/customizedReader/vscsi.h``) reads the record's
``ts`` field as microseconds and divides it by 1,000,000 to get seconds, and
the ``time`` column of ``data/cloudPhysicsIO.csv`` equals ``ts // 1_000_000``
for every one of the 113,872 records (this script checks it, together with
op, size and lbn). So the CSV holds the same trace with times truncated to
whole seconds, and the binary holds them in microseconds; the sample keeps
the microseconds. The trace spans 7,200.09 s (about two hours). Arrival
times keep the tracer's clock (the first is 5,633,898,368,802,000 ns);
flashrr rebases them to 0 when it reads the file.

gzip output is written with compression level 9, no file name and a zero
modification time, so the same input always gives the same bytes.
"""
from __future__ import annotations

import argparse
import bz2
import gzip
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_ROOT = Path("/work/.mirror")

LIBCACHESIM = ("1a1a11a/libCacheSim", "aa0fc40914b2b786f4b9f4dafb099f8f332b216a")
CAFFEINE = ("ben-manes/caffeine", "b479ff7d4d91f120771bd0d4fd636f47177e8ed3")
CAFFEINE_HEAD = ("ben-manes/caffeine", "ccef95542a9181182a60f5c6c33d2a0642c73574")
MQSIM = ("CMU-SAFARI/MQSim", "7ec40e3b198e8bd117f992f051cd610e330e079e")
CAFFEINE_PARSER = "simulator/src/main/resources/com/github/benmanes/caffeine/cache/simulator/parser"

SECTOR = 512
SCSI_READ10, SCSI_WRITE10 = 0x28, 0x2A


@dataclass(frozen=True)
class Columns:
    """A trace as the source states it, in file order: arrival in ns (from the
    earliest arrival, since some sources' absolute times overflow int64 in ns),
    byte offset, byte size, write flag."""

    time_ns: np.ndarray
    offset: np.ndarray
    size: np.ndarray
    is_write: np.ndarray


@dataclass(frozen=True)
class Sample:
    name: str
    repo: str
    commit: str
    path: str
    build: Callable[["Sources"], bytes]          # the sample file's bytes
    expect: Callable[["Sources"], Columns]       # what flashrr must read from it


class Sources:
    """Reads files from the pinned commits of the snapshot git directories."""

    def __init__(self, root: Path):
        self.root = root

    def git_dir(self, repo: str) -> Path:
        base = self.root / repo.replace("/", "+")
        for cand in (base / "repo", base / "repo" / ".git", base):
            if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
                return cand
        raise SystemExit(f"no git directory for {repo} under {self.root} (looked in {base})")

    def read(self, repo: str, commit: str, path: str) -> bytes:
        out = subprocess.run(["git", "--git-dir", str(self.git_dir(repo)), "show", f"{commit}:{path}"],
                             capture_output=True, check=False)
        if out.returncode:
            raise SystemExit(f"git show {repo}@{commit}:{path} failed: {out.stderr.decode().strip()}")
        return out.stdout


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


# ---------------------------------------------------------------------------
# CloudPhysics (libCacheSim): vscsi v1 binary -> mqsim
# ---------------------------------------------------------------------------

# vscsi version-1 record, little endian: sn u32, len u32, nSG u32, cmd u16,
# ver u16, lbn u64, ts u64 (32 bytes); the version is ver >> 8.
VSCSI1 = np.dtype([("sn", "<u4"), ("len", "<u4"), ("nsg", "<u4"), ("cmd", "<u2"), ("ver", "<u2"),
                   ("lbn", "<u8"), ("ts", "<u8")])
CP_VSCSI = "data/cloudPhysicsIO.vscsi"
CP_CSV = "data/cloudPhysicsIO.csv"


def _cloudphysics_records(src: Sources) -> np.ndarray:
    raw = src.read(*LIBCACHESIM, CP_VSCSI)
    if len(raw) % VSCSI1.itemsize:
        raise SystemExit(f"{CP_VSCSI}: {len(raw)} bytes is not a whole number of 32-byte records")
    rec = np.frombuffer(raw, dtype=VSCSI1)
    if not np.all(rec["ver"] >> 8 == 1):
        raise SystemExit(f"{CP_VSCSI}: not every record is vscsi version 1")
    if not np.all((rec["cmd"] == SCSI_READ10) | (rec["cmd"] == SCSI_WRITE10)):
        raise SystemExit(f"{CP_VSCSI}: a command other than READ(10)/WRITE(10)")
    if np.any(rec["len"] == 0) or np.any(rec["len"] % SECTOR):
        raise SystemExit(f"{CP_VSCSI}: a length that is not a positive multiple of 512 bytes")
    # The CSV export of the same trace: version,time,op,size,lbn with time in
    # whole seconds, op in hex. Every record must agree with it.
    lines = src.read(*LIBCACHESIM, CP_CSV).decode("ascii").splitlines()
    if lines[0].strip().lower() != "version,time,op,size,lbn" or len(lines) - 1 != len(rec):
        raise SystemExit(f"{CP_CSV}: header or record count differs from {CP_VSCSI}")
    csv = np.array([ln.split(",") for ln in lines[1:]])
    same = ((csv[:, 1].astype(np.uint64) == rec["ts"] // 1_000_000)
            & (np.array([int(x, 16) for x in csv[:, 2]]) == rec["cmd"])
            & (csv[:, 3].astype(np.uint64) == rec["len"])
            & (csv[:, 4].astype(np.uint64) == rec["lbn"]))
    if not np.all(same):
        raise SystemExit(f"{CP_CSV} and {CP_VSCSI} disagree at record {int(np.argmin(same))}")
    return rec


def build_cloudphysics(src: Sources) -> bytes:
    rec = _cloudphysics_records(src)
    out = [f"{int(r['ts']) * 1000} 0 {int(r['lbn'])} {int(r['len']) // SECTOR} "
           f"{0 if r['cmd'] == SCSI_WRITE10 else 1}\n" for r in rec]
    return gzip_bytes("".join(out).encode("ascii"))


def expect_cloudphysics(src: Sources) -> Columns:
    rec = _cloudphysics_records(src)
    ts = rec["ts"].astype(np.int64)
    return Columns((ts - ts.min()) * 1000, rec["lbn"].astype(np.int64) * SECTOR,
                   rec["len"].astype(np.int64), rec["cmd"] == SCSI_WRITE10)


# The same trace in libCacheSim's own formats, cut to the first records.
CP_ORACLE = "data/cloudPhysicsIO.oracleGeneral.bin"
CP_CUT = 10_000  # records kept of each
ORACLE_GENERAL = np.dtype([("real_time", "<u4"), ("obj_id", "<u8"), ("obj_size", "<u4"),
                           ("next_access_vtime", "<i8")])


def _oracle_records(src: Sources) -> np.ndarray:
    raw = src.read(*LIBCACHESIM, CP_ORACLE)
    rec = np.frombuffer(raw, dtype=ORACLE_GENERAL)
    vs = _cloudphysics_records(src)
    # An oracleGeneral object keeps one size: the length of its lbn's first vscsi request.
    lbns, first = np.unique(vs["lbn"], return_index=True)
    first_len = vs["len"][first][np.searchsorted(lbns, vs["lbn"])]
    if (len(raw) % ORACLE_GENERAL.itemsize or len(rec) != len(vs)
            or not np.array_equal(rec["real_time"], vs["ts"] // 1_000_000)
            or not np.array_equal(rec["obj_id"], vs["lbn"]) or not np.array_equal(rec["obj_size"], first_len)):
        raise SystemExit(f"{CP_ORACLE} does not hold the requests of {CP_VSCSI}")
    return rec


def build_cp_vscsi(src: Sources) -> bytes:
    _cloudphysics_records(src)  # checks the whole file
    return src.read(*LIBCACHESIM, CP_VSCSI)[:CP_CUT * VSCSI1.itemsize]


def build_cp_oracle(src: Sources) -> bytes:
    return _oracle_records(src)[:CP_CUT].tobytes()


def build_cp_csv(src: Sources) -> bytes:
    _cloudphysics_records(src)  # checks the CSV against the binary records
    lines = src.read(*LIBCACHESIM, CP_CSV).split(b"\n")
    return b"\n".join(lines[:CP_CUT + 1]) + b"\n"


def _cp_columns(rec: np.ndarray, time_ns: np.ndarray, is_write: np.ndarray) -> Columns:
    return Columns(time_ns - time_ns.min(), rec["lbn"].astype(np.int64) * SECTOR, rec["len"].astype(np.int64),
                   is_write)


def expect_cp_vscsi(src: Sources) -> Columns:
    rec = _cloudphysics_records(src)[:CP_CUT]
    return _cp_columns(rec, rec["ts"].astype(np.int64) * 1000, rec["cmd"] == SCSI_WRITE10)


def expect_cp_oracle(src: Sources) -> Columns:
    # oracleGeneral has no op: flashrr reads every request as a read (its default, op=read)
    rec = _oracle_records(src)[:CP_CUT]
    t = rec["real_time"].astype(np.int64) * 1_000_000_000
    return Columns(t - t.min(), rec["obj_id"].astype(np.int64) * SECTOR, rec["obj_size"].astype(np.int64),
                   np.zeros(len(rec), bool))


def expect_cp_csv(src: Sources) -> Columns:
    # version,time,op,size,lbn: time in whole seconds, op a SCSI code in hex
    rec = _cloudphysics_records(src)[:CP_CUT]
    return _cp_columns(rec, (rec["ts"] // 1_000_000).astype(np.int64) * 1_000_000_000, rec["cmd"] == SCSI_WRITE10)


# ---------------------------------------------------------------------------
# Samples kept as they are (only the compression may change)
# ---------------------------------------------------------------------------

def _text_of(sample_path: str, repo=CAFFEINE) -> Callable[[Sources], str]:
    def text(src: Sources) -> str:
        raw = src.read(*repo, sample_path)
        if sample_path.endswith(".gz"):
            raw = gzip.decompress(raw)
        elif sample_path.endswith(".bz2"):
            raw = bz2.decompress(raw)
        return raw.decode("ascii")
    return text


def _columns(rows: list[tuple[int, int, int, bool]]) -> Columns:
    t, o, s, w = zip(*rows)
    t0 = min(t)
    return Columns(np.array([x - t0 for x in t], np.int64), np.array(o, np.int64), np.array(s, np.int64),
                   np.array(w, bool))


def _seconds_ns(tok: str) -> int:
    whole, _, frac = tok.strip().partition(".")
    if len(frac) > 9 and frac[9:].strip("0"):
        raise SystemExit(f"time {tok!r} has more than 9 decimals")
    return int(whole) * 1_000_000_000 + int((frac + "000000000")[:9])


def expect_msr(text: str) -> Columns:
    # Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime; Timestamp in 100-ns ticks
    rows = []
    for ln in text.splitlines():
        f = ln.split(",")
        rows.append((int(f[0]) * 100, int(f[4]), int(f[5]), f[3].strip().lower() == "write"))
    return _columns(rows)


def expect_systor(text: str) -> Columns:
    # Timestamp,Response,IOType,LUN,Offset,Size (header first); Timestamp in seconds
    rows = []
    for ln in text.splitlines()[1:]:
        f = ln.split(",")
        rows.append((_seconds_ns(f[0]), int(f[4]), int(f[5]), f[2].strip().upper() == "W"))
    return _columns(rows)


def expect_tencent(text: str) -> Columns:
    # Timestamp,Offset,Size,IOType,VolumeID; seconds, 512-byte sectors, 1 = write
    rows = []
    for ln in text.splitlines():
        f = ln.split(",")
        rows.append((_seconds_ns(f[0]), int(f[1]) * SECTOR, int(f[2]) * SECTOR, int(f[3]) == 1))
    return _columns(rows)


def expect_mqsim(text: str) -> Columns:
    # arrival_ns device start_sector size_sectors type (0 = write)
    rows = []
    for ln in text.splitlines():
        f = ln.split()
        if f:
            rows.append((int(f[0]), int(f[2]) * SECTOR, int(f[3]) * SECTOR, int(f[4]) == 0))
    return _columns(rows)


# ---------------------------------------------------------------------------
# Key-only reference streams (caffeine's LIRS and CloudPhysics traces) -> csv
# ---------------------------------------------------------------------------

# A key is a block number; flashrr reads each as one read of a 4 KiB block, 200 us after the previous one (the
# csv reader's gap_ns without a time column).  The csv's lba column counts 512-byte sectors.
KEY_BLOCK_BYTES = 4096
KEY_GAP_NS = 200_000
W106_PATH = f"{CAFFEINE_PARSER}/cloud_physics/w106.trace.xz"
W106_CUT = 100_000  # records kept of its 5,292,456


def _lirs_keys(path: str) -> Callable[[Sources], np.ndarray]:
    def keys(src: Sources) -> np.ndarray:
        # one block number a line; "*" lines are the LIRS simulator's breakpoints, not references
        lines = gzip.decompress(src.read(*CAFFEINE_HEAD, path)).decode("ascii").split()
        return np.array([int(x) for x in lines if x != "*"], dtype=np.int64)
    return keys


def _w106_keys(src: Sources) -> np.ndarray:
    import lzma

    # 4-byte block numbers, little endian (read so, consecutive numbers follow each other a third of the time)
    raw = lzma.decompress(src.read(*CAFFEINE_HEAD, W106_PATH))
    return np.frombuffer(raw, dtype="<u4")[:W106_CUT].astype(np.int64)


def _key_csv(keys: Callable[[Sources], np.ndarray]) -> Callable[[Sources], bytes]:
    def build(src: Sources) -> bytes:
        k = keys(src)
        sectors = KEY_BLOCK_BYTES // SECTOR
        return gzip_bytes(("lba,size\n" + "".join(f"{b * sectors},{KEY_BLOCK_BYTES}\n" for b in k)).encode("ascii"))
    return build


def _key_columns(keys: Callable[[Sources], np.ndarray]) -> Callable[[Sources], Columns]:
    def expect(src: Sources) -> Columns:
        k = keys(src)
        n = len(k)
        return Columns(np.arange(n, dtype=np.int64) * KEY_GAP_NS, k * KEY_BLOCK_BYTES,
                       np.full(n, KEY_BLOCK_BYTES, np.int64), np.zeros(n, bool))
    return expect


LIRS = ("cpp", "cs", "gli", "ps", "sprite")  # the recorded application traces (not the synthetic ones)
MSR_PATH = f"{CAFFEINE_PARSER}/snia_cambridge/msr-cambridge1-sample.csv"
SYSTOR_PATH = f"{CAFFEINE_PARSER}/snia_systor/systor17-traces-sample.csv.gz"
SYSTOR_ADD_PATH = f"{CAFFEINE_PARSER}/snia_systor/systor17-additional-sample.csv.gz"
TENCENT_PATH = f"{CAFFEINE_PARSER}/snia_tencent_block/cloud_storage-sample.bz2"
TPCC_PATH = "traces/tpcc-small.trace"

SAMPLES = [
    Sample("cloudphysics-io.mqsim.txt.gz", *LIBCACHESIM, CP_VSCSI, build_cloudphysics, expect_cloudphysics),
    Sample("cloudphysics-io-sample.vscsi", *LIBCACHESIM, CP_VSCSI, build_cp_vscsi, expect_cp_vscsi),
    Sample("cloudphysics-io-sample.oracleGeneral.bin", *LIBCACHESIM, CP_ORACLE, build_cp_oracle, expect_cp_oracle),
    Sample("cloudphysics-io-sample.csv", *LIBCACHESIM, CP_CSV, build_cp_csv, expect_cp_csv),
    Sample("msr-hm_0-sample.msr.csv.gz", *CAFFEINE, MSR_PATH,
           lambda s: gzip_bytes(s.read(*CAFFEINE, MSR_PATH)),
           lambda s: expect_msr(_text_of(MSR_PATH)(s))),
    Sample("systor17-traces-sample.systor.csv.gz", *CAFFEINE, SYSTOR_PATH,
           lambda s: s.read(*CAFFEINE, SYSTOR_PATH),
           lambda s: expect_systor(_text_of(SYSTOR_PATH)(s))),
    Sample("systor17-additional-sample.systor.csv.gz", *CAFFEINE, SYSTOR_ADD_PATH,
           lambda s: s.read(*CAFFEINE, SYSTOR_ADD_PATH),
           lambda s: expect_systor(_text_of(SYSTOR_ADD_PATH)(s))),
    Sample("tencent-cbs-sample.tencent.csv.gz", *CAFFEINE, TENCENT_PATH,
           lambda s: gzip_bytes(bz2.decompress(s.read(*CAFFEINE, TENCENT_PATH))),
           lambda s: expect_tencent(_text_of(TENCENT_PATH)(s))),
    Sample("tencent-cbs-sample.tencent.csv.bz2", *CAFFEINE, TENCENT_PATH,
           lambda s: s.read(*CAFFEINE, TENCENT_PATH),
           lambda s: expect_tencent(_text_of(TENCENT_PATH)(s))),
    Sample("tpcc-small.mqsim.txt", *MQSIM, TPCC_PATH,
           lambda s: s.read(*MQSIM, TPCC_PATH),
           lambda s: expect_mqsim(_text_of(TPCC_PATH, MQSIM)(s))),
    Sample("cloudphysics-w106-sample.csv.gz", *CAFFEINE_HEAD, W106_PATH, _key_csv(_w106_keys),
           _key_columns(_w106_keys)),
    *(Sample(f"lirs-{name}.csv.gz", *CAFFEINE_HEAD, f"{CAFFEINE_PARSER}/lirs/{name}.trace.gz",
             _key_csv(_lirs_keys(f"{CAFFEINE_PARSER}/lirs/{name}.trace.gz")),
             _key_columns(_lirs_keys(f"{CAFFEINE_PARSER}/lirs/{name}.trace.gz"))) for name in LIRS),
]
SOURCES = {s.name: (s.repo, s.commit, s.path) for s in SAMPLES}


def verify(path: Path, want: Columns) -> str:
    """Read ``path`` with flashrr and compare it with ``want`` (sorted stably by
    time and rebased to the first arrival, as flashrr does)."""
    try:
        import flashrr
    except ImportError:
        return "not verified (flashrr not importable)"
    got = flashrr.read_trace(str(path), cache=False)
    order = np.argsort(want.time_ns, kind="stable")
    t = want.time_ns[order]
    for name, a, b in (("time_ns", got.time_ns, t - t[0]), ("offset", got.offset, want.offset[order]),
                       ("size", got.size, want.size[order]), ("is_write", got.is_write, want.is_write[order])):
        if len(a) != len(b) or not np.array_equal(a, b):
            raise SystemExit(f"{path.name}: flashrr reads a different {name} than the source states")
    return f"verified: {len(got)} requests"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="samples to build (default: all)")
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="directory of owner+name git snapshots")
    ap.add_argument("--out", type=Path, default=HERE, help="output directory (default: tests/data)")
    ap.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = ap.parse_args(argv)
    src = Sources(args.root)
    chosen = [s for s in SAMPLES if not args.names or s.name in args.names]
    unknown = set(args.names) - {s.name for s in SAMPLES}
    if unknown:
        ap.error(f"unknown samples: {', '.join(sorted(unknown))}")
    bad = 0
    for s in chosen:
        data = s.build(src)
        dest = args.out / s.name
        if args.check:
            same = dest.is_file() and dest.read_bytes() == data
            bad += not same
            print(f"{s.name}: {'same' if same else 'DIFFERS'}")
            continue
        dest.write_bytes(data)
        print(f"{s.name}: {len(data):,} bytes; {verify(dest, s.expect(src))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
