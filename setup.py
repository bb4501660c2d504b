"""Build script: compiles the Cython core in ``flashrr/_core``.

Set ``FLASHRR_NO_EXTENSIONS=1`` to build a pure-Python install (only the
reference engine then works).  Set ``FLASHRR_CYTHON_DEBUG=1`` to compile with
bounds and wraparound checks back on, for debugging the core.
"""
import os
import sys

from setuptools import setup

NO_EXT = os.environ.get("FLASHRR_NO_EXTENSIONS", "") not in ("", "0")
DEBUG = os.environ.get("FLASHRR_CYTHON_DEBUG", "") not in ("", "0")
# Cython and the C compiler run one module per core: the install of the README's
# main command is mostly this build
JOBS = os.cpu_count() or 1


def extensions():
    if NO_EXT:
        print("flashrr: building WITHOUT compiled extensions (FLASHRR_NO_EXTENSIONS set)", file=sys.stderr)
        return []
    import numpy
    from Cython.Build import cythonize
    from setuptools import Extension

    names = ["sched", "pvtiming", "ftl", "cache", "features", "phased", "early", "replica", "placement", "redundancy",
             "wpool", "streams", "stall", "reclaim", "engine"]
    exts = [
        Extension(
            f"flashrr._core.{name}",
            [f"flashrr/_core/{name}.pyx"],
            include_dirs=[numpy.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3"],
        )
        for name in names
    ]
    # the stack-distance kernel of flashrr.trace.locality (a Fenwick-tree count NumPy cannot vectorise)
    exts.append(Extension(
        "flashrr.trace._locality_kernel",
        ["flashrr/trace/_locality_kernel.pyx"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    ))
    # the request generator of the workload model (flashrr.trace.model)
    exts.append(Extension(
        "flashrr.trace.model._kernel",
        ["flashrr/trace/model/_kernel.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    ))
    directives = {
        "language_level": 3,
        "boundscheck": DEBUG,
        "wraparound": DEBUG,
        "cdivision": not DEBUG,
        "initializedcheck": DEBUG,
    }
    print(f"flashrr: building compiled extensions {names} and the trace kernels (debug checks: {DEBUG})",
          file=sys.stderr)
    return cythonize(exts, compiler_directives=directives, nthreads=JOBS)


setup(ext_modules=extensions(), options={"build_ext": {"parallel": JOBS}})
