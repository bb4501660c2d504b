"""Twin equivalence of single layers, driven directly rather than through a whole run:
the scheduler's transaction booking (device/sched.pyx against device/sched_py.py) on
hypothesis-drawn sequences of reads, programs and erases over several dies and
channels, with the horizon moving as the replay loop moves it."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_helpers import tiny_config
from flashrr._core import load_compiled_engine
from flashrr._core.device.sched_py import PH_ERASE, PH_PROG, PH_READ
from flashrr._core.engine_py import ReferenceEngine
from flashrr._core.layout import CAUSE_GC, CAUSE_USER, build_layout

OPS = st.tuples(st.integers(0, 3), st.sampled_from([PH_READ, PH_PROG, PH_ERASE]), st.integers(0, 3),
                st.integers(0, 4_000), st.integers(0, 3_000), st.sampled_from([CAUSE_USER, CAUSE_GC]))


@settings(max_examples=60, deadline=None)
@given(ops=st.lists(OPS, min_size=1, max_size=120), channels=st.sampled_from([1, 2]),
       model=st.sampled_from(["gap-fill", "busy-until"]), lag=st.sampled_from([0, 500, 5_000]))
def test_scheduler_twins_book_every_transaction_alike(ops, channels, model, lag):
    """Each op (die, phase, pages, ready gap, duration, cause): the two schedulers return
    the same end for every booking, and keep the same per-die free and busy times."""
    cfg = tiny_config(channels=channels, chips=4 // channels, t_xfer=100).replace(channel_model=model)
    L = build_layout(cfg)
    a = load_compiled_engine()(L, None, 0, False).sched
    b = ReferenceEngine(L, None, 0, False).sched
    t = 0
    for die, phase, pages, gap, dur, cause in ops:
        t += gap
        for sc in (a, b):
            sc.set_horizon(max(0, t - lag))
        chan = int(L.comp_chan[list(L.comp_die).index(die)])
        n_xfer = 0 if phase == PH_ERASE else pages
        ends = [sc.book_op(die, chan, phase, n_xfer, t, dur, cause) for sc in (a, b)]
        assert ends[0] == ends[1]
    assert np.array_equal(a.array("die_free")[:L.n_dies], np.asarray(b.die_free))
    assert np.array_equal(a.array("die_busy")[:L.n_dies], np.asarray(b.die_busy))
