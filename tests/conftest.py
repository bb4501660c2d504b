"""Shared test fixtures: small device configs and both engines."""
import importlib
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")

ENGINES = ("compiled", "reference")


@pytest.fixture(params=ENGINES)
def engine(request):
    """Each test using this fixture runs once per engine."""
    return request.param


@pytest.fixture
def fault_policies():
    """Make the sweep's fault-injection policies importable by name, and forget them afterwards."""
    import flashrr.policies  # noqa: F401  (built-in policies registered before the snapshot)
    from flashrr.policy import POLICIES
    from sweep_helpers import FAULTS

    saved = dict(POLICIES)
    importlib.import_module(FAULTS)
    yield
    POLICIES.clear()
    POLICIES.update(saved)
    sys.modules.pop(FAULTS, None)
