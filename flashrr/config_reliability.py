"""The configuration sections of what reading does to the flash: read reclaim
(``read_reclaim``), read retry (``read_retry``) and the error model
(``error_model``, docs/reliability.md).  Part of :class:`flashrr.config.SimConfig`."""
from __future__ import annotations

from dataclasses import dataclass

from .config_checks import _finite, _nonneg_int, _positive_int, _require


@dataclass(frozen=True)
class ReadReclaimConfig:
    """Read reclaim: a block whose read count reaches its RR threshold triggers the
    policy's read reclaim of its superblock.

    ``trigger``: where that threshold comes from.

    * ``"count"``: ``rr_threshold_reads`` (reads) for every block, unless a policy
      raises it per block.
    * ``"rber"``: the error model's (section ``error_model``, which must be enabled):
      the block read count at which its worst page's predicted RBER reaches
      ``rber_fraction`` of the ECC capability, per block from its P/E cycles and the
      age of its data (docs/reliability.md).  ``rr_threshold_reads`` then only scales
      the thresholds policies raise (a policy's ``m * rr_threshold_reads`` becomes
      ``m`` times the model's).
    """

    _section = "read_reclaim"
    rr_threshold_reads: int = 10_000
    rr_enabled: bool = True
    trigger: str = "count"
    rber_fraction: float = 1.0

    def __post_init__(self):
        _positive_int(self, "rr_threshold_reads")
        _require(isinstance(self.rr_enabled, bool), "read_reclaim.rr_enabled", "must be true or false",
                 self.rr_enabled)
        _require(self.trigger in RR_TRIGGERS, "read_reclaim.trigger", f"must be one of {RR_TRIGGERS}", self.trigger)
        _finite(self, "rber_fraction", 0, 10, "must be a number in (0, 10] (fraction of the ECC capability)", True)


RR_TRIGGERS = ("count", "rber")


RETRY_MODELS = ("none", "cocktail", "ldpc", "custom", "rber")


@dataclass(frozen=True)
class ReadRetryConfig:
    """Read-retry latency as a step function of a block's read count.

    A flash read costs ``t_read_ns + retries * t_retry_ns``, where ``retries``
    is the number of entries of ``retry_step_fractions`` that are <= the
    block's read count divided by its RR threshold.  Models:

    * ``none``: no retries.
    * ``cocktail``: 1/2/3 retries at 70/80/90% of the threshold (Cocktail).
    * ``ldpc``: PhasedRR's seven LDPC soft-decision levels, one more level per
      1/8 of the threshold, so the worst case is ``t_read + 7 * t_retry``.
    * ``custom``: the fractions given.
    * ``rber``: the error model's (section ``error_model``, which must be enabled):
      a read takes as many steps as its block's worst page needs until its expected
      errors fall within the step's capability; past the last step it is
      uncorrectable.  ``retry_step_fractions`` must be empty and ``retry_extra_ns``
      gives the steps' latencies (:meth:`from_model`).

    ``retry_extra_ns`` (optional) replaces the linear cost by a table: entry
    ``i`` is the extra read time (ns) once ``i + 1`` steps are passed, so a read
    costs ``t_read_ns + retry_extra_ns[retries - 1]`` (``t_read_ns`` with no
    retry).  It must hold one non-decreasing, non-negative entry per step, and
    ``t_retry_ns`` is then unused (keep it 0).  :meth:`ldpc_progressive` builds
    PhasedRR's progressive-sensing table.
    """

    _section = "read_retry"
    retry_model: str = "none"
    retry_step_fractions: tuple = ()
    t_retry_ns: int = 0
    retry_extra_ns: tuple = ()

    def __post_init__(self):
        _require(self.retry_model in RETRY_MODELS, "read_retry.retry_model",
                 f"must be one of {RETRY_MODELS}", self.retry_model)
        steps = tuple(float(x) for x in self.retry_step_fractions)
        object.__setattr__(self, "retry_step_fractions", steps)
        if self.retry_model in ("none", "rber"):
            _require(not steps, "read_retry.retry_step_fractions",
                     f"must be empty for retry_model {self.retry_model!r}", steps)
        else:
            _require(len(steps) > 0, "read_retry.retry_step_fractions",
                     f"must be non-empty for retry_model {self.retry_model!r}", steps)
        _require(all(s > 0 for s in steps) and list(steps) == sorted(steps),
                 "read_retry.retry_step_fractions", "must be positive and increasing", steps)
        _nonneg_int(self, "t_retry_ns")
        table = tuple(self.retry_extra_ns)
        object.__setattr__(self, "retry_extra_ns", table)
        if self.retry_model == "rber":
            _require(len(table) > 0, "read_retry.retry_extra_ns",
                     "must hold the extra read time (ns) of each step of the model's ladder for retry_model 'rber'",
                     table)
        if table:
            _require(self.retry_model == "rber" or len(table) == len(steps), "read_retry.retry_extra_ns",
                     f"must hold one entry per retry step ({len(steps)})", table)
            _require(all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in table)
                     and list(table) == sorted(table), "read_retry.retry_extra_ns",
                     "must be non-negative integers (ns), non-decreasing", table)
            _require(self.t_retry_ns == 0, "read_retry.t_retry_ns", "must be 0 when retry_extra_ns is given",
                     self.t_retry_ns)

    def extra_ns_by_retries(self) -> tuple:
        """Extra read time (ns) after 0, 1, ..., len(steps) retries."""
        if self.retry_extra_ns:
            return (0,) + tuple(self.retry_extra_ns)
        return tuple(i * self.t_retry_ns for i in range(self.n_steps + 1))

    @property
    def n_steps(self) -> int:
        """Retry steps a read can take (the ladder's under ``rber``)."""
        return len(self.retry_extra_ns) if self.retry_model == "rber" else len(self.retry_step_fractions)

    @classmethod
    def from_model(cls, table: "ReadRetryConfig") -> "ReadRetryConfig":
        """Retry steps from the error model, each costing what ``table``'s step does
        (e.g. ``from_model(ReadRetryConfig.ldpc_progressive())``: PhasedRR's latencies)."""
        return cls("rber", (), 0, tuple(table.extra_ns_by_retries()[1:]))

    @classmethod
    def cocktail(cls, t_retry_ns: int) -> "ReadRetryConfig":
        return cls("cocktail", (0.7, 0.8, 0.9), t_retry_ns)

    @classmethod
    def ldpc(cls, t_retry_ns: int, levels: int = 7) -> "ReadRetryConfig":
        return cls("ldpc", tuple((i + 1) / (levels + 1) for i in range(levels)), t_retry_ns)

    @classmethod
    def ldpc_progressive(cls, t_first_ns: int = 85_000, t_step_ns: int = 24_000, levels: int = 7
                         ) -> "ReadRetryConfig":
        """Progressive LDPC soft-decision reading (PhasedRR, docs/phasedrr.md): sensing
        pass ``i`` (0-based) costs ``t_first_ns + i * t_step_ns`` and a read at level
        ``L`` (1..levels) needs ``L`` passes, so it costs
        ``L * t_first_ns + t_step_ns * L * (L - 1) / 2`` ns; the timing's ``t_read_ns``
        must be ``t_first_ns``.  Level ``1 + j`` is reached at ``j / levels`` of the RR
        threshold (``j = 1 .. levels - 1``)."""
        extra = tuple((lv - 1) * t_first_ns + t_step_ns * lv * (lv - 1) // 2 for lv in range(2, levels + 1))
        return cls("ldpc", tuple(j / levels for j in range(1, levels)), 0, extra)


ERROR_MODEL_PRESETS = ("mlc", "tlc", "qlc", "fit-phasedrr", "fit-ldpc", "fit-cocktail")
LADDER_GROWTHS = ("linear", "geometric")


@dataclass(frozen=True)
class ErrorModelConfig:
    """The error model the engine tracks per block (docs/reliability.md).  Off by
    default; when off, runs are what they are without it.

    * ``rber_preset``: the RBER model and ECC: ``"mlc"``, ``"tlc"``, ``"qlc"``
      (:func:`flashrr.reliability.rber_preset`), or ``"fit-phasedrr"``,
      ``"fit-ldpc"``, ``"fit-cocktail"``: TLC fitted to that paper's retry table
      (:func:`flashrr.reliability.fitted_to`, with its ladder factor).
    * ``ecc_t_bits``: hard-decision capability, bits per codeword (0: the preset's).
    * ``ladder_growth``, ``ladder_factor``: how each retry step raises the capability
      (:class:`flashrr.reliability.RetryLadder`; factor 0: the fit's, else 0.5).
    * ``initial_pe_mean``, ``initial_pe_sd``, ``initial_pe_seed``: each block's P/E
      cycles before the run, drawn once (:func:`flashrr.reliability.draw_initial_pe`);
      the engine adds its erases.
    * ``data_age_s``: age (s) of the preconditioned data when the trace starts.
    * ``retention_quantum_s``: the unit (s) of the retention buckets the engine looks
      its tables up in (docs/reliability.md, "In the engine").
    * ``worst_layer_factor``: RBER of a block's worst word-line layer over the mean
      of its layers (dimensionless, >= 1; 1: no layer variation, the default).
    """

    _section = "error_model"
    enabled: bool = False
    rber_preset: str = "tlc"
    ecc_t_bits: float = 0.0
    ladder_growth: str = "linear"
    ladder_factor: float = 0.0
    initial_pe_mean: float = 0.0
    initial_pe_sd: float = 0.0
    initial_pe_seed: int = 0
    data_age_s: float = 0.0
    retention_quantum_s: float = 3600.0
    worst_layer_factor: float = 1.0

    def __post_init__(self):
        _require(isinstance(self.enabled, bool), "error_model.enabled", "must be true or false", self.enabled)
        _require(self.rber_preset in ERROR_MODEL_PRESETS, "error_model.rber_preset",
                 f"must be one of {ERROR_MODEL_PRESETS}", self.rber_preset)
        _require(self.ladder_growth in LADDER_GROWTHS, "error_model.ladder_growth",
                 f"must be one of {LADDER_GROWTHS}", self.ladder_growth)
        for name in ("ecc_t_bits", "ladder_factor", "initial_pe_mean", "initial_pe_sd", "data_age_s"):
            _finite(self, name, 0)
        _require(self.ladder_growth == "linear" or self.ladder_factor == 0 or self.ladder_factor > 1,
                 "error_model.ladder_factor", "must be > 1 (or 0) for geometric growth", self.ladder_factor)
        _nonneg_int(self, "initial_pe_seed")
        _finite(self, "retention_quantum_s", 1e-6, rule="must be a finite number of seconds >= 1e-6")
        _finite(self, "worst_layer_factor", 1.0)
