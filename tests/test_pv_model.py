"""The generative PV model: structure, determinism, P/E drift and calibration."""
from __future__ import annotations

import numpy as np
import pytest

from flashrr.pv import PVModel, PVParams, assemble, evaluate, superblock_extras
from flashrr.pv.calibrate import (CONFIGS, PGM_IMPROVEMENT_PCT, PGM_REDUCTION_US, RANDOM_PGM_US, TABLE_V,
                                  TOLERANCES, calibration_report)


def test_latencies_are_on_the_quantization_grid():
    p = PVParams()
    tp, te = PVModel(p, dies=2, blocks=20).die_latencies(1)
    k = tp / p.q_us
    assert np.abs(k - np.round(k)).max() <= 1e-9 * np.abs(k).max()
    assert tp.shape == (4, 20, 96, 4) and te.shape == (4, 20)
    q = PVParams(qe_us=5.0)
    _, te = PVModel(q, dies=1, blocks=20).die_latencies(0)
    assert np.allclose(te / 5.0, np.round(te / 5.0))


def test_same_seed_same_latencies_and_die_independent_of_die_count():
    a = PVModel(dies=3, blocks=30, seed=4).latencies(200)
    b = PVModel(dies=3, blocks=30, seed=4).latencies(200)
    assert np.array_equal(a.tprog_us, b.tprog_us) and np.array_equal(a.tbers_us, b.tbers_us)
    one = PVModel(dies=5, blocks=30, seed=4).latencies(200, dies=[2])
    assert np.array_equal(one.tprog_us[0], a.tprog_us[2])
    assert not np.array_equal(PVModel(dies=1, blocks=30, seed=5).latencies(0).tprog_us, a.tprog_us[:1])


def test_erase_tracks_program_speed():
    lat = PVModel(dies=4, blocks=400, seed=1).latencies(0)
    bsum = lat.lwl().sum(axis=-1)
    r = [np.corrcoef(bsum[d, p], lat.tbers_us[d, p])[0, 1] for d in range(4) for p in range(4)]
    assert np.mean(r) > 0.5
    flat = PVModel(PVParams(rho_ers=0.0), dies=4, blocks=400, seed=1).latencies(0)
    r0 = [np.corrcoef(bsum[d, p], flat.tbers_us[d, p])[0, 1] for d in range(4) for p in range(4)]
    assert abs(np.mean(r0)) < 0.15


def test_same_index_blocks_are_more_alike_than_random_pairs():
    lat = PVModel(dies=2, blocks=400, seed=2).latencies(0).lwl()
    lwl = lat - lat.mean(axis=-1, keepdims=True)  # layer profile shape only
    same = np.abs(lwl[:, 0] - lwl[:, 1]).mean()
    shuffled = np.abs(lwl[:, 0] - lwl[:, 1, ::-1]).mean()
    assert same < shuffled
    no_id = PVModel(PVParams(sigma_id_us=0.0), dies=2, blocks=400, seed=2).latencies(0).lwl()
    no_id = no_id - no_id.mean(axis=-1, keepdims=True)
    same0 = np.abs(no_id[:, 0] - no_id[:, 1]).mean()
    shuffled0 = np.abs(no_id[:, 0] - no_id[:, 1, ::-1]).mean()
    assert abs(same0 / shuffled0 - 1) < 0.5 * (1 - same / shuffled)  # without the shared term, no such gain


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="sigma_noise_us"):
        PVParams(sigma_noise_us=-1.0)
    with pytest.raises(ValueError, match="phi_block"):
        PVParams(phi_block=1.0)
    with pytest.raises(ValueError, match="string_class_probs"):
        PVParams(string_class_probs=(0.5, 0.2))
    with pytest.raises(ValueError, match="blocks"):
        PVModel(blocks=0)
    with pytest.raises(ValueError, match="unknown parameter"):
        PVParams().replace(sigma=1.0)


def test_pe_drift_qstr_stays_flat_and_fixed_random_grows():
    model = PVModel(dies=4, blocks=400, seed=3)
    lat0, lat3k = model.latencies(0), model.latencies(3000)
    q0 = superblock_extras(lat0, assemble("qstr_med", lat0))[0].mean()
    q3 = superblock_extras(lat3k, assemble("qstr_med", lat3k))[0].mean()
    assert abs(q3 / q0 - 1) < 0.05
    # with strongly block-dependent wear (nu > 0), a superblock assembled once at 0 cycles drifts apart
    worn = PVModel(PVParams(nu_p=0.5, nu_e=0.5), dies=4, blocks=400, seed=3)
    w0, w3k = worn.latencies(0), worn.latencies(3000)
    fixed = assemble("random", w0, seed=1)
    r0 = superblock_extras(w0, fixed)
    r3 = superblock_extras(w3k, fixed)
    assert r3[0].mean() > r0[0].mean() and r3[1].mean() > r0[1].mean()


def test_paper_tables_are_self_consistent():
    # Table I/II reductions and improvements agree (reduction / 13,084.17); Table V's
    # Sequential, Optimal and STR-MED rows equal 13,084.17 minus Table I's reductions.
    for label, red in PGM_REDUCTION_US.items():
        assert 100 * red / RANDOM_PGM_US == pytest.approx(PGM_IMPROVEMENT_PCT[label], abs=0.01)
    for label in ("Sequential", "Optimal (8)", "STR-MED (4)"):
        assert RANDOM_PGM_US - PGM_REDUCTION_US[label] == pytest.approx(TABLE_V[label][0], abs=0.01)


def test_evaluate_reports_means_of_its_per_superblock_arrays():
    r = evaluate("str_med", dies=2, seed=1, pe_points=(0, 1000), blocks=50)
    assert r["n_superblocks"] == 2 * 2 * 50
    assert r["extra_pgm_us"] == pytest.approx(r["per_sb"]["extra_pgm_us"].mean())
    assert r["checks_nominal_per_sb"] == 1536 and 0 < r["checks_per_sb"] <= 1536
    assert sorted(set(r["per_sb"]["pe"].tolist())) == [0, 1000]
    assert r["metadata_bytes_per_block"] == 52 and r["wall_s"] > 0


def test_calibration_fast_subset_on_4_dies():
    # the cheap configurations on 4 dies: seed-to-seed spread is about 1 pp here, hence the wider bounds
    cfgs = [c for c in CONFIGS if c.method in ("random", "sequential", "pgm_ltn", "qstr_med")]
    imp, table = calibration_report(dies=4, seed=2024, configs=cfgs)
    gaps = table.set_index("target")["gap"]
    assert abs(gaps["random extra PGM"]) < 3 and abs(gaps["random extra ERS"]) < 6  # % of the paper's
    for target in ("Sequential PGM improvement", "PGM-LTN PGM improvement", "QSTR-MED (4) PGM improvement"):
        assert abs(gaps[target]) < 3.0, (target, gaps[target])  # pp; slow test: 1.5 on 24 dies
    assert abs(gaps["QSTR-MED (4) ERS improvement"]) < 5.0  # pp; slow test: 4 on 24 dies


# Targets the calibrated defaults miss on the validation run (seed 2024, 24 dies),
# with the gap bound documented in docs/superblock-pv.md.
KNOWN_GAPS = {"ERS-LTN PGM improvement": 2.0, "Optimal (8) ERS improvement": 5.0}


@pytest.mark.slow
def test_calibration_targets_hold_on_24_dies():
    imp, table = calibration_report(dies=24, seed=2024)
    for r in table.itertuples():
        bound = KNOWN_GAPS.get(r.target, r.tolerance)
        assert abs(r.gap) <= bound, (r.target, r.gap, bound)
    by = imp.set_index("label")["pgm_improvement_pct"]
    assert by["Optimal (8)"] > by["STR-rank (8)"] > by["STR-rank (6)"] > by["STR-rank (4)"] > by["STR-rank (2)"]
    assert by["STR-rank (2)"] > by["LWL-rank (8)"] and by["PGM-LTN"] > by["ERS-LTN"] > 0
    assert abs(by["STR-MED (4)"] - by["QSTR-MED (4)"]) <= 1.5  # paper 0.13 pp; documented gap
    ers = imp.set_index("label")["ers_improvement_pct"]
    assert ers["Sequential"] < 8 and min(ers["PGM-LTN"], ers["STR-MED (4)"], ers["QSTR-MED (4)"]) > 30
    assert len(imp) == len(CONFIGS) and TOLERANCES["pgm_pp"] == 1.5
