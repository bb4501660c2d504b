"""The simulation engines: ``engine`` (compiled, Cython) and ``_reference`` (pure Python)."""


def load_compiled_engine():
    """The compiled engine class, or a clear ImportError saying how to build it."""
    try:
        from .engine import CompiledEngine
    except ImportError as e:
        raise ImportError(
            "flashrr's compiled engine (flashrr._core.engine) is not built. Install with "
            "`pip install .` (needs a C compiler), or build in place with "
            "`python setup.py build_ext --inplace`; or pass engine='reference' to use the slow "
            f"pure-Python engine. ({e})") from None
    return CompiledEngine
