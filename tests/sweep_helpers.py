"""Shared by the sweep tests."""

# test-only policies that kill or stall their worker (see the fault_policies fixture in conftest.py)
FAULTS = "flashrr.sweep._faults"
