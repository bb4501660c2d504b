"""Measured latencies from CSV, for users with real chip data.

Two long-format files (a header line, then one row per value):

* program: ``die, plane, block, pe, layer, string, tprog_us``
* erase:   ``die, plane, block, pe, tbers_us``

``block`` is the in-plane block index (``block_ids='in_plane'``, the default),
or a chip-wide id with ``plane = id mod planes`` and in-plane index ``id //
planes`` (``block_ids='interleaved'``, the numbering of the paper's Figs. 10
and 11; the ``plane`` column may then be omitted).  Every (die, plane, block,
pe) needs every layer x string of the program file and one erase value; every
plane of every die needs the same number of blocks.  A malformed file raises
:class:`PVDataError` naming the file, line and column.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .latencies import Latencies

if TYPE_CHECKING:
    import pandas as pd

PGM_COLUMNS = ("die", "plane", "block", "pe", "layer", "string", "tprog_us")
ERS_COLUMNS = ("die", "plane", "block", "pe", "tbers_us")
BLOCK_ID_MODES = ("in_plane", "interleaved")


class PVDataError(ValueError):
    """A measured-latency file that cannot be used (names file, line and column)."""


def _read(path: Path, columns: tuple, integer: tuple, interleaved: bool) -> pd.DataFrame:
    import pandas as pd

    if not path.is_file():
        raise PVDataError(f"{path}: no such file")
    try:
        # blank lines are kept (as empty fields) so a row's index always maps to its line number
        df = pd.read_csv(path, dtype=str, skipinitialspace=True, skip_blank_lines=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise PVDataError(f"{path}: not a readable CSV file ({e})") from None
    df.columns = [str(c).strip() for c in df.columns]
    need = [c for c in columns if not (interleaved and c == "plane")]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise PVDataError(f"{path}: line 1: missing column(s) {missing}; expected columns {list(need)}")
    if df.empty:
        raise PVDataError(f"{path}: no data rows")
    out = pd.DataFrame(index=df.index)
    for c in need:
        raw = df[c]
        vals = pd.to_numeric(raw, errors="coerce")
        bad = vals.isna() | ~np.isfinite(vals.fillna(0))
        if c in integer:
            bad |= (vals != np.round(vals)) | (vals < 0)
        elif not bad.any():
            bad |= vals <= 0
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            kind = "a non-negative integer" if c in integer else "a positive number of µs"
            got = "an empty field" if pd.isna(raw.iloc[i]) else repr(raw.iloc[i])
            raise PVDataError(f"{path}: line {i + 2}: column {c!r}: expected {kind}, got {got}")
        out[c] = vals.astype(np.int64) if c in integer else vals.astype(np.float64)
    return out


def _split_ids(df: pd.DataFrame, mode: str, planes: int) -> pd.DataFrame:
    if mode == "interleaved":
        df = df.copy()
        df["plane"] = df["block"] % planes
        df["block"] = df["block"] // planes
    return df


def _first_duplicate(df: pd.DataFrame, keys: list, path: Path) -> None:
    dup = df.duplicated(keys, keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        row = ", ".join(f"{k}={df[k].iloc[i]}" for k in keys)
        raise PVDataError(f"{path}: line {i + 2}: duplicate row for {row}")


def load_csv(pgm_path, ers_path, block_ids: str = "in_plane", planes: int = 4) -> list:
    """Measured latencies, one :class:`Latencies` per P/E point (ascending).
    ``planes`` is used only to split ``interleaved`` block ids."""
    if block_ids not in BLOCK_ID_MODES:
        raise PVDataError(f"block_ids must be one of {BLOCK_ID_MODES}, got {block_ids!r}")
    pgm_path, ers_path = Path(pgm_path), Path(ers_path)
    inter = block_ids == "interleaved"
    pgm = _split_ids(_read(pgm_path, PGM_COLUMNS, PGM_COLUMNS[:6], inter), block_ids, planes)
    ers = _split_ids(_read(ers_path, ERS_COLUMNS, ERS_COLUMNS[:4], inter), block_ids, planes)
    _first_duplicate(pgm, ["die", "plane", "block", "pe", "layer", "string"], pgm_path)
    _first_duplicate(ers, ["die", "plane", "block", "pe"], ers_path)
    L, S = int(pgm["layer"].max()) + 1, int(pgm["string"].max()) + 1
    counts = pgm.groupby(["die", "plane", "block", "pe"]).size()
    short = counts[counts != L * S]
    if len(short):
        key = dict(zip(counts.index.names, short.index[0]))
        raise PVDataError(f"{pgm_path}: block {key} has {int(short.iloc[0])} (layer, string) rows; expected "
                          f"{L} layers x {S} strings = {L * S}")
    pkeys = set(counts.index)
    ekeys = set(map(tuple, ers[["die", "plane", "block", "pe"]].to_numpy().tolist()))
    for a, b, path, what in ((pkeys, ekeys, ers_path, "erase"), (ekeys, pkeys, pgm_path, "program")):
        lack = sorted(a - b)
        if lack:
            d, p, blk, pe = lack[0]
            raise PVDataError(f"{path}: no {what} latency for die={d}, plane={p}, block={blk}, pe={pe} "
                              f"({len(lack)} such blocks)")
    dies = np.sort(pgm["die"].unique())
    planes_seen = np.sort(pgm["plane"].unique())
    out = []
    for pe in np.sort(pgm["pe"].unique()):
        sub = pgm[pgm["pe"] == pe]
        blocks = {(d, p): np.sort(sub.loc[(sub["die"] == d) & (sub["plane"] == p), "block"].unique())
                  for d in dies for p in planes_seen}
        sizes = {k: len(v) for k, v in blocks.items()}
        if len(set(sizes.values())) != 1:
            (d, p), n = min(sizes.items(), key=lambda kv: kv[1])
            raise PVDataError(f"{pgm_path}: pe={pe}: die {d} plane {p} has {n} blocks, others "
                              f"{max(sizes.values())}; every plane of every die needs the same number")
        N = next(iter(sizes.values()))
        pos = {}
        for (d, p), ids in blocks.items():
            pos.update({(d, p, int(b)): j for j, b in enumerate(ids)})
        di = {int(d): j for j, d in enumerate(dies)}
        pi = {int(p): j for j, p in enumerate(planes_seen)}
        tp = np.empty((len(dies), len(planes_seen), N, L, S))
        keys = sub[["die", "plane", "block"]].to_numpy()
        idx = np.array([(di[d], pi[p], pos[(d, p, b)]) for d, p, b in keys.tolist()]).reshape(-1, 3)
        tp[idx[:, 0], idx[:, 1], idx[:, 2], sub["layer"].to_numpy(), sub["string"].to_numpy()] = sub["tprog_us"]
        esub = ers[ers["pe"] == pe]
        te = np.empty((len(dies), len(planes_seen), N))
        ekeys_pe = esub[["die", "plane", "block"]].to_numpy().tolist()
        eidx = np.array([(di[d], pi[p], pos[(d, p, b)]) for d, p, b in ekeys_pe]).reshape(-1, 3)
        te[eidx[:, 0], eidx[:, 1], eidx[:, 2]] = esub["tbers_us"]
        out.append(Latencies(tp, te, int(pe)))
    return out


def write_csv(latencies: list, pgm_path, ers_path) -> None:
    """Write :class:`Latencies` (one per P/E point) in the long format :func:`load_csv` reads
    (in-plane block indices)."""
    import pandas as pd

    prow, erow = [], []
    for lat in latencies:
        D, P, N, L, S = lat.tprog_us.shape
        d, p, b, l, s = np.meshgrid(*(np.arange(n) for n in (D, P, N, L, S)), indexing="ij")
        prow.append(pd.DataFrame({"die": d.ravel(), "plane": p.ravel(), "block": b.ravel(), "pe": lat.pe,
                                  "layer": l.ravel(), "string": s.ravel(), "tprog_us": lat.tprog_us.ravel()}))
        d, p, b = np.meshgrid(np.arange(D), np.arange(P), np.arange(N), indexing="ij")
        erow.append(pd.DataFrame({"die": d.ravel(), "plane": p.ravel(), "block": b.ravel(), "pe": lat.pe,
                                  "tbers_us": lat.tbers_us.ravel()}))
    pd.concat(prow).to_csv(pgm_path, index=False)
    pd.concat(erow).to_csv(ers_path, index=False)
