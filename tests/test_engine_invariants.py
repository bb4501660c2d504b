"""The invariant checker itself can fail (with a real exception, also under
``python -O``), and the invariants hold on long random runs."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashrr
from flashrr._core.engine_py import ReferenceEngine
from flashrr._core.invariants import InvariantError
from flashrr._core.layout import build_layout
from flashrr.policy import Baseline
from engine_helpers import page_trace, tiny_config


def _engine(cfg):
    eng = ReferenceEngine(build_layout(cfg), Baseline().hooks(), 0, check=True)
    eng.precondition(50, np.zeros(0, np.int64))
    return eng


def test_checker_detects_a_lost_lpn():
    eng = _engine(tiny_config(planes=2, sb_planes=2))
    eng.check_invariants()
    ppn = int(eng.ftl.l2p[7])
    eng.ftl.l2p[7] = -1
    eng.ftl.p2l[ppn] = -1
    with pytest.raises(InvariantError, match="LPN 7 was lost"):
        eng.check_invariants()


def test_checker_detects_a_broken_bijection():
    eng = _engine(tiny_config(planes=2, sb_planes=2))
    eng.ftl.l2p[3] = eng.ftl.l2p[4]
    with pytest.raises(InvariantError, match="same physical page"):
        eng.check_invariants()


def test_checker_detects_wrong_valid_counts():
    eng = _engine(tiny_config())
    eng.ftl.sb_valid[0] += 1
    with pytest.raises(InvariantError, match="valid counts"):
        eng.check_invariants()


def test_checker_detects_a_free_superblock_with_valid_pages():
    eng = _engine(tiny_config())
    sb = int(eng.ftl.l2p[0]) // (eng.L.pages_per_block * eng.L.k)
    eng.ftl.sb_state[sb] = 0  # SB_FREE, while it still holds LPN 0
    with pytest.raises(InvariantError, match="free superblock holds valid pages"):
        eng.check_invariants()


def test_invariant_error_is_an_engine_error():
    """Callers that catch flashrr.EngineError also catch invariant failures."""
    assert issubclass(InvariantError, flashrr.EngineError)


def test_checker_raises_under_python_optimize(tmp_path):
    """``python -O`` strips asserts; the checker must still raise."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "lost.py"
    script.write_text(
        "import numpy as np\n"
        "from flashrr._core.engine_py import ReferenceEngine\n"
        "from flashrr._core.invariants import InvariantError\n"
        "from flashrr._core.layout import build_layout\n"
        "from flashrr.policy import Baseline\n"
        "from engine_helpers import tiny_config\n"
        "import sys\n"
        "if not sys.flags.optimize:\n"
        "    sys.exit('run me under python -O')\n"
        "eng = ReferenceEngine(build_layout(tiny_config()), Baseline().hooks(), 0, check=True)\n"
        "eng.precondition(20, np.zeros(0, np.int64))\n"
        "eng.ftl.p2l[int(eng.ftl.l2p[5])] = -1\n"
        "eng.ftl.l2p[5] = -1\n"
        "try:\n"
        "    eng.check_invariants()\n"
        "except InvariantError as e:\n"
        "    print('raised', e)\n")
    root = Path(__file__).resolve().parents[1]
    env = {"PYTHONPATH": f"{root}:{root / 'tests'}", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-O", str(script)], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "raised invariant: LPN 5 was lost", out


def test_stale_read_is_detected(engine):
    """Version stamps catch a read that would return old data."""
    from flashrr._core import load_compiled_engine

    cfg = tiny_config()
    cls = ReferenceEngine if engine == "reference" else load_compiled_engine()
    eng = cls(build_layout(cfg), Baseline().hooks(), 0, True)
    eng.precondition(4, np.zeros(0, np.int64))
    eng.run(np.array([0]), np.array([0]), np.array([4096]), np.array([True]))  # LPN 0 rewritten
    # point LPN 0 back at a stale physical page by hand
    view = eng.state_view(0)
    new, old = int(view.l2p[0]), 0
    assert new != old
    view.p2l[old], view.p2l[new] = 0, -1
    view.l2p[0] = old
    with pytest.raises(flashrr.EngineError, match="did not return its latest write"):
        eng.run(np.array([10]), np.array([0]), np.array([4096]), np.array([False]))


@pytest.mark.parametrize("check", [False, True])
def test_read_of_a_never_written_page_is_an_error(engine, check):
    """An engine driven directly (not through simulate, which fills the trace's span)
    may be asked for a page that has no flash copy: a clear error naming the LPN, not a
    read at physical page -1 (the compiled engine used to index out of its arrays)."""
    from flashrr._core import load_compiled_engine

    cfg = tiny_config()
    cls = ReferenceEngine if engine == "reference" else load_compiled_engine()
    eng = cls(build_layout(cfg), Baseline().hooks(), 0, check)
    eng.precondition(4, np.zeros(0, np.int64))
    eng.run(np.array([0]), np.array([3 * 4096]), np.array([4096]), np.array([False]))  # written by the fill
    with pytest.raises(flashrr.EngineError, match="read of LPN 8, which was never written"):
        eng.run(np.array([10]), np.array([8 * 4096]), np.array([2 * 4096]), np.array([False]))
    assert eng.results()["counters"]["reads"] == 2


@pytest.mark.parametrize("page_offset, pages, what", [(-3, 1, "before the space"), (None, 1, "past its end"),
                                                       (None, 2, "across its end"), (0, 0, "empty")])
def test_requests_outside_the_logical_space_are_an_error(engine, page_offset, pages, what):
    """A request the engine cannot map stops the run with an error naming it (the compiled
    engine used to write outside its mapping arrays, silently), and nothing of its chunk
    is replayed."""
    from flashrr._core import load_compiled_engine

    cfg = tiny_config()
    cls = ReferenceEngine if engine == "reference" else load_compiled_engine()
    eng = cls(build_layout(cfg), Baseline().hooks(), 0, False)
    eng.precondition(4, np.zeros(0, np.int64))
    lp = cfg.logical_pages
    start = page_offset if page_offset is not None else (lp if pages == 1 else lp - 1)
    offsets = np.array([0, start * 4096])
    with pytest.raises(flashrr.EngineError, match=r"request 1: offset .* must lie in the device's logical space"):
        eng.run(np.array([0, 10]), offsets, np.array([4096, pages * 4096]), np.array([True, True]))
    assert eng.results()["counters"]["requests"] == 0
    eng.run(np.array([20]), np.array([(lp - 1) * 4096]), np.array([4096]), np.array([True]))  # the last page is fine
    assert eng.results()["counters"]["requests"] == 1


def test_arrivals_that_go_back_in_time_are_an_error(engine):
    """Within a chunk and across chunks: the engines' clocks only move forward."""
    from flashrr._core import load_compiled_engine

    cfg = tiny_config()
    cls = ReferenceEngine if engine == "reference" else load_compiled_engine()
    eng = cls(build_layout(cfg), Baseline().hooks(), 0, False)
    eng.precondition(4, np.zeros(0, np.int64))
    one = (np.array([0, 4096]), np.array([4096, 4096]), np.array([False, False]))
    with pytest.raises(flashrr.EngineError, match=r"request 1: arrival time 5 ns is before the previous arrival \(9 ns\)"):
        eng.run(np.array([9, 5]), *one)
    eng.run(np.array([100, 100]), *one)  # equal times are fine
    with pytest.raises(flashrr.EngineError, match=r"request 0: arrival time 50 ns is before the previous arrival \(100 ns\)"):
        eng.run(np.array([50, 200]), *one)
    assert eng.results()["counters"]["requests"] == 2


@pytest.mark.parametrize("fill, warm, match", [(-1, [], "fill_pages must lie in"), ("over", [], "fill_pages must lie in"),
                                               (4, [2, -1], r"warm-up LPN -1 \(entry 1\)"),
                                               (4, ["top"], "warm-up LPN .* is outside")])
def test_a_precondition_outside_the_logical_space_is_an_error(engine, fill, warm, match):
    from flashrr._core import load_compiled_engine

    cfg = tiny_config()
    lp = cfg.logical_pages
    cls = ReferenceEngine if engine == "reference" else load_compiled_engine()
    eng = cls(build_layout(cfg), Baseline().hooks(), 0, False)
    with pytest.raises(flashrr.EngineError, match=match):
        eng.precondition(lp + 1 if fill == "over" else fill, np.array([lp if w == "top" else w for w in warm], np.int64))
    eng.precondition(lp, np.array([0, lp - 1], np.int64))  # the whole space is fine
    eng.check_invariants()


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.sampled_from([0, 4]), st.sampled_from([0.3, 0.8]))
def test_long_random_runs_keep_every_invariant(seed, cache_pages, write_ratio):
    """GC, RR and cache write-back all active, invariants checked after every migration."""
    cfg = tiny_config(planes=2, sb_planes=2, blocks=24, pages=8, op=0.4, rr=6, cache_pages=cache_pages)
    rng = np.random.default_rng(seed)
    n = 600
    lpn = rng.integers(0, 120, n)
    trace = page_trace(lpn, writes=rng.random(n) < write_ratio, pages=rng.integers(1, 3, n))
    s = flashrr.simulate(cfg, trace, check_invariants=True, seed=seed).summary
    assert s["gc_count"] + s["rr_count"] > 0
