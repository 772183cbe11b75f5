"""Metrics on plain arrays: the tie-aware kernels (ROC AUC, PR AUC, ARL, attributions, curves), the expected ROC AUC, DeLong intervals, cross AUCs, generalization diagnostics, error rates at a threshold, subgroups as boolean masks."""

from ..utils.kernel_cache import use_kernel_cache

# before metrics.expected_auc's kernels are compiled: cached in the user's
# cache folder, per version of their sources (as subroc_ext.scoring's)
use_kernel_cache()
