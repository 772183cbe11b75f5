"""Shared helpers of the quality-function and search tests."""

from importlib.metadata import version

import pysubgroup as ps
import pytest

import subroc_ext

#: Skips a test that compares with pysubgroup's own soft-classifier quality
#: functions, which pysubgroup 0.8 (the one pip installs on Python >= 3.13) lacks.
needs_pysubgroup_qfs = pytest.mark.skipif(
    not hasattr(ps, "ROCAUCQF"),
    reason=f"pysubgroup {version('pysubgroup')} has no ROCAUCQF/PRAUCQF/ARLQF/permutation_test "
    "(added in pysubgroup 0.9.0) to compare with",
)


def make_qf(name, mode="worse", weights=(0, 0), positive=1, label="label"):
    """One of the four built-in quality functions, from pysubgroup-style arguments.

    ``name`` is 'roc', 'pr', 'arl' or 'attribution'; ``weights`` is
    ``(size_weight, balance_weight)``.
    """
    size, balance = weights
    if name == "roc":
        return subroc_ext.ROCAUCQF(label, balance, size, positive_label_value=positive, mode=mode)
    cls = {
        "pr": subroc_ext.PRAUCQF,
        "arl": subroc_ext.ARLQF,
        "attribution": subroc_ext.AttributionMeanQF,
    }[name]
    return cls(label, positive, balance, size, mode=mode)


def apriori(vectorized):
    """pysubgroup's Apriori, vectorized or not, without numba."""
    algorithm = ps.Apriori(use_numba=False)
    algorithm.use_vectorization = vectorized
    return algorithm


#: Exhaustive algorithms that prune with optimistic estimates.
EXHAUSTIVE = {
    "BestFirstSearch": ps.BestFirstSearch,
    "DFS": ps.DFS,
    "SimpleDFS": ps.SimpleDFS,
    "Apriori": lambda: apriori(True),
    "Apriori-unvectorized": lambda: apriori(False),
}
#: DFS and SimpleDFS also evaluate the empty description ("Dataset", quality 0).
EVALUATES_ROOT = {"DFS", "SimpleDFS"}
