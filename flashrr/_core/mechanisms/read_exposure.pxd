# Read exposure: how far toward its RR threshold each flash-read page's block had
# come, as a histogram of the run's flash reads (a read observer; the example of
# docs/policies.md, "Writing a compiled mechanism").  Twin: read_exposure_py.py.

from libc.stdint cimport int32_t, int64_t
cimport cython

from ..roles cimport Mechanism


@cython.final
cdef class ReadExposure(Mechanism):
    # roles (roles.pxd): read observer (page_read)
    cdef int64_t counts[4]             # flash reads whose block count was in quarter q of its threshold
