"""Shared test fixtures: small device configs and both engines."""
import os

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
