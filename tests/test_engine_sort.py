"""The radix sort that orders a migration's program transactions (reclaim.pyx)."""
from hypothesis import given, settings, strategies as st

from flashrr._core.device.migration_txns import sort_order


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 7), st.integers(0, 2**40), st.integers(0, 2**62)), max_size=300))
def test_radix_order_is_by_key_then_position(keys):
    """Small keys give ties (kept in position order); large ones need several 11-bit digits."""
    assert sort_order(keys) == sorted(range(len(keys)), key=lambda i: (keys[i], i))
