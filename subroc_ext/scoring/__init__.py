"""Measures on covers: bitsets and their compiled kernels, the Measure classes, weights, optimistic-estimate arithmetic, AUC_mu, null values on random subsets."""

from ..utils.kernel_cache import use_kernel_cache

# before any kernel module below is imported: the kernels are cached in the
# user's cache folder, per version of their sources
use_kernel_cache()
