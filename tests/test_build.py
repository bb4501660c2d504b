"""Build switches: a missing compiled engine is a clear error, never a silent fallback."""
import sys

import pytest

import flashrr
from engine_helpers import page_trace, tiny_config


def test_missing_extension_gives_build_instructions(monkeypatch):
    monkeypatch.setitem(sys.modules, "flashrr._core.engine", None)  # as if never built
    with pytest.raises(ImportError, match="pip install .*build_ext --inplace.*engine='reference'"):
        flashrr.simulate(tiny_config(), page_trace([0, 1]))
    # the pure-Python engine still works when asked for
    assert flashrr.simulate(tiny_config(), page_trace([0, 1]), engine="reference").summary["reads"] == 2


def test_unknown_engine_name():
    with pytest.raises(ValueError, match="engine: expected one of"):
        flashrr.simulate(tiny_config(), page_trace([0]), engine="fast")
