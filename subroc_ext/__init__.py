"""subroc-ext: fast, exact SubROC subgroup discovery for pysubgroup.

Find interpretable subgroups of a dataset where a binary classifier's ROC AUC,
PR AUC, average ranking loss or AUC attribution is exceptional.
"""

from .kernels import (
    attribution_mean_score,
    average_ranking_loss,
    example_attributions,
    pr_auc_score,
    roc_auc_score,
)
from .confidence import ROCAUCInterval, roc_auc_confidence_interval
from .exceptions import InterruptedTest, LowPowerWarning, UndefinedMeasureWarning
from .auc_mu import auc_mu_score
from .comparison import ComparisonQF, ComparisonTarget, DriftTarget
from .comparison_pipeline import find_drift, find_regressions
from .comparison_plots import plot_comparison_roc_curves
from .comparison_report import write_comparison_report
from .cross_auc import CrossAUC, cross_auc, subgroup_bias_aucs
from .diagnostics import generalization_diagnostics
from .generalization import GeneralizationAwareQF
from .measures import KernelMeasure, Measure, RowMeanMeasure
from .measure_check import MeasureCheck, check_measure
from .multiclass import AUCMuQF, MultiClassTarget
from .multiclass_pipeline import find_multiclass_subgroups
from .pipeline import find_subgroups, make_quality_function
from .plotting import (
    plot_cross_auc,
    plot_forest,
    plot_generalization_diagnostics,
    plot_pr_curves,
    plot_roc_curves,
)
from .report import write_report
from .multiclass_report import write_multiclass_report
from .notebook import SubgroupsAccessor  # registers the table.subroc accessor
from .covers import subgroup_membership
from .operating_point import threshold_rates
from .search import FastSearch
from .search_space import SearchSpace, SearchSpaceWarning, make_search_space
from .validated import ValidatedData, validate_data
from .significance import randomization_test
from .target import SoftClassifierTarget
from .quality import (
    ARLQF,
    PRAUCQF,
    ROCAUCQF,
    AttributionMeanQF,
    SoftClassifierQF,
)
from .statistics import SubgroupStatistics

__version__ = "0.1.0"

__all__ = [
    "ARLQF",
    "PRAUCQF",
    "ROCAUCQF",
    "AttributionMeanQF",
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
    "randomization_test",
    "find_subgroups",
    "make_quality_function",
    "plot_roc_curves",
    "plot_pr_curves",
    "plot_forest",
    "write_report",
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
    "InterruptedTest",
    "LowPowerWarning",
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
]
