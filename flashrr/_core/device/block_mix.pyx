# cython: language_level=3
"""Pages programmed per block since its erase, by kind (compiled; twin
``block_mix_py.py``)."""
from libc.stdint cimport int32_t, int64_t

import functools

import numpy as np
cimport numpy as cnp

from ..buffers import owned_array, restore_arrays, saved_arrays

cnp.import_array()


cdef class BlockMix:
    def __init__(self, int64_t n_blocks):
        cdef cnp.ndarray a
        self._keep = keep = {}
        arr = functools.partial(owned_array, keep)
        a = arr("mix_user", n_blocks, np.int32); self.user = <int32_t*>a.data
        a = arr("mix_rr", n_blocks, np.int32); self.rr = <int32_t*>a.data
        a = arr("mix_gc", n_blocks, np.int32); self.gc = <int32_t*>a.data

    def array(self, name):
        """``mix_user``, ``mix_rr`` or ``mix_gc``: pages programmed per block since its erase."""
        return self._keep[name]

    def state(self):
        """Copies of the three arrays, for a snapshot."""
        return saved_arrays(self._keep, ("mix_user", "mix_rr", "mix_gc"))

    def restore(self, state):
        restore_arrays(self._keep, state, ("mix_user", "mix_rr", "mix_gc"), "block_mix")
