"""Build script: compiles the Cython core in ``flashrr/_core`` and the trace kernels.

Set ``FLASHRR_NO_EXTENSIONS=1`` to build a pure-Python install (only the
reference engine then works).  Set ``FLASHRR_CYTHON_DEBUG=1`` to compile with
bounds and wraparound checks back on, for debugging the core.
"""
import glob
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

    # every .pyx under flashrr/ is one extension named by its path (the engine's layers,
    # options and mechanisms; the trace kernels)
    sources = sorted(glob.glob("flashrr/**/*.pyx", recursive=True))
    exts = [
        Extension(
            src[:-len(".pyx")].replace("/", "."),
            [src],
            include_dirs=[numpy.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3"],
        )
        for src in sources
    ]
    directives = {
        "language_level": 3,
        "boundscheck": DEBUG,
        "wraparound": DEBUG,
        "cdivision": not DEBUG,
        "initializedcheck": DEBUG,
    }
    print(f"flashrr: building {len(exts)} compiled extensions (debug checks: {DEBUG})",
          file=sys.stderr)
    return cythonize(exts, compiler_directives=directives, nthreads=JOBS)


setup(ext_modules=extensions(), options={"build_ext": {"parallel": JOBS}})
