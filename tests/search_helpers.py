"""Shared helpers of the quality-function and search tests."""

import itertools
import os
from importlib.metadata import version

import numpy as np
import pysubgroup as ps
import pytest

import subroc_ext

#: Set (to 1) by .ci/run in its environment that pins pysubgroup 0.9.0: there
#: the reference must be tested, and the session fails at its start without it
#: (see conftest.py) instead of skipping the parity tests.
REQUIRE_REFERENCE = os.environ.get("SUBROC_EXT_REQUIRE_REFERENCE") == "1"

#: Skips a test that compares with pysubgroup's own soft-classifier quality
#: functions, which pysubgroup 0.8 (the one pip installs on Python >= 3.13) lacks;
#: never skips where the reference is required.
needs_pysubgroup_qfs = pytest.mark.skipif(
    not hasattr(ps, "ROCAUCQF") and not REQUIRE_REFERENCE,
    reason=f"pysubgroup {version('pysubgroup')} has no ROCAUCQF/PRAUCQF/ARLQF/permutation_test "
    "(added in pysubgroup 0.9.0) to compare with",
)


#: Short names of the built-in measures, and their names in
#: :func:`subroc_ext.make_quality_function`.
MEASURE_NAMES = {"roc": "roc_auc", "pr": "pr_auc", "arl": "arl", "attribution": "attribution_mean"}


def make_qf(name, mode="worse", weights=(0, 0), positive=1, label="label", *,
            generalization_aware=False):  # fmt: skip
    """One of the four built-in quality functions, built with its class's
    pysubgroup-style constructor (the quality-function factory of the tests).

    Parameters
    ----------
    name : str
        'roc', 'pr', 'arl' or 'attribution' (or the long measure names
        'roc_auc', 'pr_auc', 'attribution_mean').
    mode : {'worse', 'better', 'both'}
    weights : tuple
        ``(size_weight, balance_weight)``, i.e. (alpha, beta).
    positive, label
        The positive label value and the label column.
    generalization_aware : bool
        Wrap the function in :class:`subroc_ext.GeneralizationAwareQF`.
    """
    name = {long: short for short, long in MEASURE_NAMES.items()}.get(name, name)
    size, balance = weights
    if name == "roc":
        qf = subroc_ext.ROCAUCQF(label, balance, size, positive_label_value=positive, mode=mode)
    else:
        cls = {
            "pr": subroc_ext.PRAUCQF,
            "arl": subroc_ext.ARLQF,
            "attribution": subroc_ext.AttributionMeanQF,
        }[name]
        qf = cls(label, positive, balance, size, mode=mode)
    assert (qf.size_weight, qf.balance_weight, qf.mode) == (size, balance, mode)
    return subroc_ext.GeneralizationAwareQF(qf) if generalization_aware else qf


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

#: The target of every synthetic search.
TARGET = subroc_ext.SoftClassifierTarget("label", "score")


def run(algorithm, qf, data, selectors, *, depth, min_support, k, min_quality=-np.inf, **execute):
    task = ps.SubgroupDiscoveryTask(
        data, TARGET, list(selectors), qf, result_set_size=k, depth=depth,
        min_quality=min_quality, constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    result = algorithm.execute(task, **execute)
    return [(float(q), frozenset(map(str, sg.selectors))) for q, sg, _ in result.results]


def with_root(result, k, min_quality=-np.inf):
    """The top-k once the empty description (quality 0) competes too."""
    if not 0.0 > min_quality:
        return result
    merged = sorted(result + [(0.0, frozenset())], key=lambda item: -item[0])
    return merged[:k]


def assert_same_top_k(found, expected, k):
    """Same sorted qualities; same descriptions except those tied at the cut-off."""
    found_q = [q for q, _ in found]
    expected_q = [q for q, _ in expected]
    assert len(found_q) == len(expected_q), (found, expected)
    np.testing.assert_allclose(found_q, expected_q, rtol=1e-9, atol=1e-12)
    if len(expected) == k:
        cutoff = expected_q[-1]

        def untied(items):
            return {d for q, d in items if not np.isclose(q, cutoff, rtol=1e-9, atol=1e-12)}
    else:  # fewer than k subgroups qualify: every one must be found

        def untied(items):
            return {d for _, d in items}

    assert untied(found) == untied(expected)


def brute_force_top_k(qf, data, selectors, depth, min_support, k, include_root):
    """Top-k by evaluating every conjunction of selectors of distinct attributes
    (pysubgroup's search space: at most one condition per attribute)."""
    qf.calculate_constant_statistics(data, TARGET)
    found = []
    for size in range(0 if include_root else 1, depth + 1):
        for combination in itertools.combinations(selectors, size):
            if len({selector.attribute_name for selector in combination}) < size:
                continue
            statistics = qf.calculate_statistics(ps.Conjunction(list(combination)), TARGET, data)
            if statistics.size_sg >= min_support and statistics.quality > -np.inf:
                found.append((statistics.quality, frozenset(map(str, combination))))
    found.sort(key=lambda item: -item[0])
    return found[:k]


# -- distributed search: the same results as one process ----------------------

SCORES = ["roc", "pr", "arl", "attribution"]


def make_task(data, qf, depth, min_support, k, min_quality=-np.inf):
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    return ps.SubgroupDiscoveryTask(
        data, TARGET, selectors, qf, result_set_size=k, depth=depth, min_quality=min_quality,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip


def listed(result):
    """(quality, description) of each subgroup, in the result's order."""
    return [(float(q), str(sg)) for q, sg, _ in result.results]


def tie_at_cutoff(task):
    """Whether the (k+1)-th best quality equals the k-th (which ones are
    kept then depends on the search order)."""
    k = task.result_set_size
    task.result_set_size = k + 1
    try:
        qualities = [q for q, *_ in subroc_ext.FastSearch().execute(task).results]
    finally:
        task.result_set_size = k
    return len(qualities) > k and qualities[k] == qualities[k - 1]


def assert_identical(found, expected, task):
    """The same list, or where patterns tie at the k-th quality, the same
    qualities and the same patterns above the tie."""
    if tie_at_cutoff(task):
        assert_same_top_k(
            [(q, frozenset(d.split(" AND "))) for q, d in found],
            [(q, frozenset(d.split(" AND "))) for q, d in expected],
            task.result_set_size,
        )
        assert [q for q, _ in found] == [q for q, _ in expected]
    else:
        assert found == expected
