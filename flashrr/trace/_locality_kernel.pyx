"""Compiled kernel of :mod:`flashrr.trace.locality`.

The one loop NumPy cannot run fast: for a permutation ``ranks`` of
``0 .. m-1``, count for every position how many earlier positions hold a
larger rank.  A Fenwick (binary indexed) tree over the ranks seen so far
answers each count in O(log m), so the whole array takes O(m log m).
:func:`flashrr.trace.locality.stack_distances` reduces LRU stack distances to
these counts; the module there has a NumPy implementation of the same counts
for installs built without extensions.
"""
import numpy as np


def earlier_greater_counts(const int[::1] ranks):
    """``out[t] = #{s < t : ranks[s] > ranks[t]}`` (int64 array of len(ranks)).

    ``ranks`` must be a permutation of ``0 .. len(ranks)-1`` (int32); the
    caller checks this, the loop does not."""
    cdef Py_ssize_t m = ranks.shape[0]
    cdef Py_ssize_t t, j
    cdef long long below
    tree_arr = np.zeros(m + 1, np.int32)
    out_arr = np.empty(m, np.int64)
    cdef int[::1] tree = tree_arr
    cdef long long[::1] out = out_arr
    for t in range(m):
        # ranks seen so far that are <= ranks[t]: tree prefix sum up to index ranks[t] + 1
        below = 0
        j = ranks[t] + 1
        while j > 0:
            below += tree[j]
            j &= j - 1
        out[t] = t - below
        j = ranks[t] + 1
        while j <= m:
            tree[j] += 1
            j += j & -j
    return out_arr
