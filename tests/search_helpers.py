"""Shared helpers of the quality-function and search tests."""

import pysubgroup as ps

import subroc_ext


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
