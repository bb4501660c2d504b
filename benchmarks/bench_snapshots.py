"""Preconditioning with and without an aged-device snapshot, on a big device.

Each round builds a fresh compiled engine for the policy (``--policy``, default
Baseline), as ``flashrr.simulate`` does,
and times how it reaches the aged device: ``precondition`` (the fill, then the
random warm-up writes) or the snapshot path ``simulate(..., snapshot=DIR)`` takes
(the key, whose fields include a digest of the new engine's state, then loading the
``.npz`` and restoring it).  Rounds alternate between the two so a change in the
machine's load hits both; the 1-minute load average is printed before each.  The
first line times making the snapshot (precondition, then writing the file).

Run: ``python benchmarks/bench_snapshots.py`` (the Cocktail paper's 128-plane device,
``--device cocktail-paper``) or ``--device shuffler`` (the shuffler preset);
``--rounds N``; ``--dir`` keeps the snapshot (default: a temporary directory).
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def device(name: str):
    import flashrr

    if name == "cocktail-paper":
        from flashrr.reproduce import PAPERS

        return PAPERS["cocktail"].make_plan(paper_scale=True).device_config()
    return flashrr.SimConfig.preset(name)


def load1() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def fresh_engine(cfg, seed: int, policy: str):
    """An engine for ``policy`` on ``cfg`` and what preconditioning needs, as simulate() builds them."""
    from flashrr._core import load_compiled_engine
    from flashrr.engine_layout import engine_layout
    from flashrr.policies import make_policy

    pol = make_policy(policy)
    pol.bind(cfg, seed)
    layout = engine_layout(cfg, pol.metadata_bytes(cfg))
    fill = min(int(math.ceil(cfg.precondition.fill_ratio * cfg.logical_pages)), cfg.logical_pages)
    n_warm = int(round(cfg.precondition.warmup_random_writes_ratio * fill))
    warm = np.random.default_rng(seed).integers(0, fill, size=n_warm, dtype=np.int64)
    hooks = pol.hooks()
    return load_compiled_engine()(layout, hooks, seed, False), (cfg, layout, fill, warm, pol, hooks)


def timed(cfg, seed: int, policy: str, snapshot_dir) -> tuple:
    """``(how, wall s, CPU s)`` of bringing a fresh engine to the aged device."""
    from flashrr.simulate import _precondition_from_snapshot

    eng, (cfg, layout, fill, warm, pol, hooks) = fresh_engine(cfg, seed, policy)
    w0, c0 = time.perf_counter(), time.process_time()
    if snapshot_dir is None:
        eng.precondition(fill, warm)
        how = "precondition"
    else:
        how = _precondition_from_snapshot(eng, snapshot_dir, cfg, layout, fill, warm, "compiled", False, pol, hooks)
    out = (how, time.perf_counter() - w0, time.process_time() - c0)
    del eng
    gc.collect()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cocktail-paper", help="cocktail-paper or a preset name")
    ap.add_argument("--policy", default="baseline", help="a policy name (cocktail: a snapshot of its own)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", default=None, help="snapshot directory (default: a temporary one)")
    args = ap.parse_args()
    cfg = device(args.device)
    print(f"policy {args.policy}, device {args.device}: {cfg.geometry.n_pages:,} pages of "
          f"{cfg.geometry.page_size_bytes} B, {cfg.logical_pages:,} logical; fill {cfg.precondition.fill_ratio}, "
          f"warm-up {cfg.precondition.warmup_random_writes_ratio}")
    with tempfile.TemporaryDirectory(prefix="bench-snapshots-") as tmp:
        where = Path(args.dir or tmp)
        how, wall, cpu = timed(cfg, args.seed, args.policy, where)
        size = sum(p.stat().st_size for p in where.glob("*.npz"))
        print(f"load {load1()}  make snapshot ({how}): {wall:7.2f} s wall {cpu:7.2f} s CPU; "
              f"file {size / 2**20:,.0f} MiB")
        print(f"{'round':>5}  {'load':>5}  {'path':<12}  {'wall s':>7}  {'CPU s':>7}")
        for r in range(args.rounds):
            for use in (False, True):
                load = load1()
                how, wall, cpu = timed(cfg, args.seed, args.policy, where if use else None)
                print(f"{r:>5}  {load:>5}  {how:<12}  {wall:7.2f}  {cpu:7.2f}")


if __name__ == "__main__":
    main()
