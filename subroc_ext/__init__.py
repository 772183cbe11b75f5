"""subroc-ext: fast, exact SubROC subgroup discovery for pysubgroup.

Find interpretable subgroups of a dataset where a binary classifier's ROC AUC,
PR AUC, average ranking loss or AUC attribution is exceptional.
"""

import sys
from pathlib import Path

from .utils.deprecation import MOVED_MODULES, register_moved_modules
from .utils.kernel_cache import refresh_kernel_caches

from .utils.names import VERSION as __version__

# compiled kernels cached on disk are dropped when any kernel source changed
# (numba checks only each module's own file), before any kernel runs
refresh_kernel_caches(Path(__file__).parent)


def _load_api():
    """Import the public API into this module (and register the
    ``table.subroc`` accessor): on first use of any of its names, so that
    ``import subroc_ext`` and ``subroc-ext --version`` load nothing heavy."""
    from .engine.search import FastSearch
    from .exceptions import (
        InterruptedRun,
        InterruptedSplits,
        InterruptedTest,
        LowPowerWarning,
        SearchSizeWarning,
        UndefinedMeasureWarning,
    )
    from .inference.permutation import permutation_test
    from .inference.significance import randomization_test
    from .inputs.search_space import SearchSpace, SearchSpaceWarning, make_search_space
    from .inputs.target import SoftClassifierTarget
    from .inputs.validated import ValidatedData, validate_data
    from .metrics.confidence import ROCAUCInterval, roc_auc_confidence_interval
    from .metrics.covers import subgroup_membership
    from .metrics.cross_auc import CrossAUC, cross_auc, subgroup_bias_aucs
    from .metrics.diagnostics import generalization_diagnostics
    from .metrics.expected_auc import expected_roc_auc
    from .metrics.kernels import (
        attribution_mean_score,
        average_ranking_loss,
        example_attributions,
        pr_auc_score,
        roc_auc_score,
    )
    from .metrics.operating_point import threshold_rates
    from .objective.calibration import BrierQF, CalibrationGapQF, LogLossQF
    from .objective.case_mix import CaseMixQF, CaseMixTarget
    from .objective.comparison import ComparisonQF, ComparisonTarget, DriftTarget
    from .objective.generalization import GeneralizationAwareQF
    from .objective.measure_check import MeasureCheck, check_measure
    from .objective.multiclass import AUCMuQF, MultiClassTarget
    from .objective.quality import ARLQF, PRAUCQF, ROCAUCQF, AttributionMeanQF, SoftClassifierQF
    from .objective.statistics import SubgroupStatistics
    from .reporting.comparison_plots import plot_comparison_roc_curves
    from .reporting.comparison_report import write_comparison_report
    from .reporting.findings import Headline, headline
    from .reporting.findings_json import findings_document, write_findings
    from .reporting.gate import assert_no_failures
    from .reporting.multiclass import write_multiclass_report
    from .reporting.notebook import SubgroupsAccessor  # noqa: F401 (registers table.subroc)
    from .reporting.plotting import (
        plot_cross_auc,
        plot_forest,
        plot_generalization_diagnostics,
        plot_pr_curves,
        plot_roc_curves,
    )
    from .reporting.report import write_report
    from .scoring.auc_mu import auc_mu_score
    from .scoring.measures import KernelMeasure, Measure, RowMeanMeasure
    from .workflow.comparison import find_drift, find_regressions
    from .workflow.multiclass import find_multiclass_subgroups
    from .workflow.pipeline import find_subgroups, make_quality_function
    from .workflow.recheck import recheck

    names = locals()
    globals().update({name: names[name] for name in __all__})
    # cross_auc is also a function here, so its old module path is a plain alias
    sys.modules.setdefault(__name__ + ".cross_auc", sys.modules[__name__ + ".metrics.cross_auc"])


# The flat module paths of 0.1 stay importable for one release (with a warning).
_moved_module = register_moved_modules(__name__, MOVED_MODULES)


def __getattr__(name):
    """A public name (the whole API is imported on first use), or a module
    path of 0.1."""
    if name in __all__:
        _load_api()
        return globals()[name]
    return _moved_module(name)


def __dir__():
    return sorted({*globals(), *__all__})


__all__ = [
    "ARLQF",
    "PRAUCQF",
    "ROCAUCQF",
    "AttributionMeanQF",
    "CalibrationGapQF",
    "BrierQF",
    "LogLossQF",
    "SoftClassifierQF",
    "SubgroupStatistics",
    "SoftClassifierTarget",
    "GeneralizationAwareQF",
    "FastSearch",
    "make_search_space",
    "SearchSpace",
    "SearchSpaceWarning",
    "validate_data",
    "ValidatedData",
    "permutation_test",
    "randomization_test",
    "find_subgroups",
    "make_quality_function",
    "plot_roc_curves",
    "plot_pr_curves",
    "plot_forest",
    "write_report",
    "headline",
    "Headline",
    "write_multiclass_report",
    "write_comparison_report",
    "plot_comparison_roc_curves",
    "subgroup_membership",
    "threshold_rates",
    "Measure",
    "KernelMeasure",
    "RowMeanMeasure",
    "check_measure",
    "MeasureCheck",
    "roc_auc_score",
    "pr_auc_score",
    "average_ranking_loss",
    "example_attributions",
    "attribution_mean_score",
    "InterruptedRun",
    "InterruptedSplits",
    "InterruptedTest",
    "LowPowerWarning",
    "SearchSizeWarning",
    "UndefinedMeasureWarning",
    "roc_auc_confidence_interval",
    "ROCAUCInterval",
    "auc_mu_score",
    "AUCMuQF",
    "MultiClassTarget",
    "find_multiclass_subgroups",
    "ComparisonQF",
    "ComparisonTarget",
    "DriftTarget",
    "find_regressions",
    "find_drift",
    "CrossAUC",
    "cross_auc",
    "subgroup_bias_aucs",
    "plot_cross_auc",
    "generalization_diagnostics",
    "plot_generalization_diagnostics",
    "expected_roc_auc",
    "CaseMixQF",
    "CaseMixTarget",
    "assert_no_failures",
    "findings_document",
    "write_findings",
    "recheck",
]
