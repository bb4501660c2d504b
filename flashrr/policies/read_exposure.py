"""``read-exposure``: Baseline plus the read-exposure histogram
(``flashrr/_core/mechanisms/read_exposure.pyx``).  Combine it with any scheme to
see where that scheme's flash reads land: ``"phasedrr+read-exposure"``.

Summary columns: ``reads_exposure_q1`` .. ``reads_exposure_q4``, the flash page
reads whose block had, after the read, used up to 1/4, 2/4, 3/4 and all of its
RR threshold."""
from __future__ import annotations

from .._core.mechanism_entry import MechanismEntry
from ..policy import Policy, register_policy

READ_EXPOSURE = MechanismEntry("read_exposure", "read_exposure", "ReadExposure", ("read_observer",),
                               counters=tuple(f"reads_exposure_q{q}" for q in range(1, 5)))


@register_policy
class ReadExposure(Policy):
    name = "read-exposure"

    def mechanism_specs(self) -> dict:
        return {READ_EXPOSURE: True}
