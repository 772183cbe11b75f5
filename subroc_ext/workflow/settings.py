"""The settings of one audit, checked once: :class:`AuditSettings`.

:func:`~subroc_ext.find_subgroups` keeps a flat signature, as scipy's and
scikit-learn's functions do; its first step gathers the keywords that are not
about the table into one :class:`AuditSettings`, whose construction checks
each of them and resolves the defaults that depend on another (the mode of a
measure, the threads of ``n_jobs``). Every later step takes this one object.
"""

import numbers
from dataclasses import dataclass

import numpy as np

from ..inference.significance import check_test_settings
from ..inference.verdicts import check_verdict_settings
from ..inputs.probabilities import check_calibrate
from ..scoring import measures as _measures
from ..utils.cluster import parallelism
from ..utils.validation import check_mode, check_weights
from . import case_mix as _case_mix
from . import diversity as _diversity
from .global_fix import default_mode
from .steps import CALIBRATION_MEASURES, MEASURES, REQUESTED_MEASURES

__all__ = ["AuditSettings", "check_holdout_settings", "measure_of", "validation_kind"]


def measure_of(measure):
    """The :class:`~subroc_ext.Measure` named ``measure`` (or ``measure`` itself)."""
    if isinstance(measure, _measures.Measure):
        return measure
    named = {**MEASURES, **REQUESTED_MEASURES, **CALIBRATION_MEASURES}
    if measure not in named:
        raise ValueError(f"measure must be one of {sorted(named)} or a Measure, got {measure!r}")
    return named[measure]()


def check_holdout_settings(validation, intervals, min_delta):
    """Raise one ``ValueError`` naming a bad ``intervals`` or ``min_delta``,
    or ``min_delta`` without a holdout (``validation=None``: no interval to
    show an effect beyond it, and the permutation null says nothing about
    effect sizes)."""
    check_verdict_settings(intervals, min_delta)
    if validation is None and min_delta > 0:
        raise ValueError(
            "min_delta needs a holdout (validation): without one the effects are measured on the "
            "rows that chose them (the winner's curse) and get no interval"
        )


@dataclass(frozen=True)
class AuditSettings:
    """What an audit searches and how it tests, checked on construction.

    The attributes are :func:`~subroc_ext.find_subgroups`' keywords of the
    same names (see there), with ``mode`` resolved (``None``: the measure's
    default) and ``n_jobs`` the number of threads (``client`` checked). The
    table's keywords (label, score, the split, the search space) go to
    :func:`~subroc_ext.inputs.validated.validate_data` instead.
    ``measure_name`` is the name given (a string) or the Measure itself;
    ``validation_kind`` says what ``validation`` was: 'fraction', 'table'
    or 'none' (no holdout).
    """

    measure_name: object = "roc_auc"
    mode: str = None
    size_weight: float = 1.0
    balance_weight: float = 1.0
    generalization_aware: bool = True
    depth: int = 2
    min_support: object = 20
    min_quality: float = 0.0
    result_set_size: int = 100
    collapse_identical: bool = True
    max_overlap: object = 0.8
    n_samples: object = "adaptive"
    max_samples: int = 1_000_000
    method: str = "fdr_by"
    alpha: float = 0.05
    intervals: str = "fcr"
    min_delta: float = 0.0
    random_state: object = 0
    algorithm: object = None
    progress: bool = True
    client: object = None
    n_jobs: object = None
    case_mix: bool = False
    calibrate: str = "auto"
    allow_large: bool = False
    splits: object = 1
    validation_kind: str = "fraction"

    def __post_init__(self):
        measure = measure_of(self.measure_name)
        mode = default_mode(measure) if self.mode is None else self.mode
        object.__setattr__(self, "mode", check_mode(mode, measure.mode_aliases))
        check_weights(self.size_weight, self.balance_weight)
        check_test_settings(self.n_samples, self.method, self.alpha, self.max_samples)
        check_holdout_settings(None if self.validation_kind == "none" else 0.5, self.intervals, self.min_delta)
        if not (self.splits == "auto" or isinstance(self.splits, (int, np.integer))
                and not isinstance(self.splits, bool) and self.splits >= 1):  # fmt: skip
            raise ValueError(f"splits must be a positive integer or 'auto', got {self.splits!r}")
        if self.splits != 1 and self.validation_kind != "fraction":
            raise ValueError(f"splits={self.splits} splits the rows at random: validation must be the fraction to "
                             f"hold out, not {'None' if self.validation_kind == 'none' else 'a table'}")
        if not (isinstance(self.depth, (int, np.integer)) and self.depth >= 1):
            raise ValueError(f"depth must be a positive integer, got {self.depth!r}")
        if not (isinstance(self.result_set_size, (int, np.integer)) and self.result_set_size >= 1):
            raise ValueError(f"result_set_size must be a positive integer, got {self.result_set_size!r}")
        if not (isinstance(self.min_quality, numbers.Real) and not np.isnan(self.min_quality)):
            raise ValueError(f"min_quality must be a number (or -inf), got {self.min_quality!r}")
        _diversity.check_max_overlap(self.max_overlap)
        check_calibrate(self.calibrate)
        _case_mix.check_case_mix(self.measure_name, measure, self.case_mix,
                                 None if self.validation_kind == "none" else self.validation_kind)
        client, n_jobs = parallelism(self.client, self.n_jobs)
        object.__setattr__(self, "client", client)
        object.__setattr__(self, "n_jobs", n_jobs)

    @property
    def measure(self):
        """A fresh :class:`~subroc_ext.Measure` of ``measure_name``."""
        return measure_of(self.measure_name)


def validation_kind(validation):
    """What ``validation`` is: 'none' (no holdout), 'table' or 'fraction' (checked later)."""
    if validation is None:
        return "none"
    return "fraction" if isinstance(validation, numbers.Real) else "table"
