"""Measures on covers: bitsets and their compiled kernels, the Measure classes, weights, optimistic-estimate arithmetic, AUC_mu, null values on random subsets."""
