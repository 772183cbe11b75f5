"""FastSearch on threads (``n_jobs``): the same result as on one thread, as
ps.BestFirstSearch and as brute force, ties at the k-th place included; the
randomization test on threads: the same p-values as on one.

The threads switch every microsecond here (``sys.setswitchinterval``), so
their work interleaves far more often than in a real search.
"""

import itertools
import sys
import threading

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_helpers import TARGET, assert_same_top_k, make_qf
from synthetic import multiclass_frame, scored_frame
from test_comparison import TARGETS, comparison_frame

import subroc_ext
from subroc_ext.engine import evaluators
from subroc_ext.engine.search_run import SearchRun
from subroc_ext.objective.comparison import ComparisonQF
from subroc_ext.scoring.measures import ROCAUC, KernelMeasure


@pytest.fixture(autouse=True)
def fast_switching():
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def listed(algorithm, qf, data, selectors, target=TARGET, *, depth, min_support, k):
    """(quality, description) of the result, in its order (pysubgroup's: by
    quality, then ties by description)."""
    task = ps.SubgroupDiscoveryTask(
        data, target, list(selectors), qf, result_set_size=k, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    return [(float(q), str(sg)) for q, sg, _ in algorithm.execute(task).results]


def by_tie_rule(qf, data, selectors, *, depth, min_support, k):
    """The oracle: every pattern evaluated, the top k by quality and, among
    equal qualities, by the selectors' indices in refinement order."""
    order = [s for group in ps.StaticSpecializationOperator(selectors).search_space for s in group]
    qf.calculate_constant_statistics(data, TARGET)
    found = []
    for size in range(1, depth + 1):
        for indices in itertools.combinations(range(len(order)), size):
            combination = [order[i] for i in indices]
            if len({s.attribute_name for s in combination}) < size:
                continue
            stats = qf.calculate_statistics(ps.Conjunction(combination), TARGET, data)
            if stats.size_sg >= min_support and stats.quality > -np.inf:
                found.append((-stats.quality, indices, str(ps.Conjunction(combination))))
    return [(-q, description) for q, _, description in sorted(found)[:k]]


@given(
    name=st.sampled_from(("roc", "pr", "arl", "attribution")),
    mode=st.sampled_from(("worse", "better", "both")),
    weights=st.sampled_from(((0, 0), (1, 1), (0.5, 2))),
    generalization_aware=st.booleans(),
    min_support=st.sampled_from((2, 10, 30)),
    depth=st.integers(1, 3),
    k=st.sampled_from((1, 7, 30)),
    ties=st.sampled_from(("none", "heavy")),
    jobs=st.integers(2, 4),
    seed=st.integers(0, 3),
)
@settings(max_examples=40, derandomize=True, deadline=None)
def test_threads_equal_one_thread_best_first_search_and_the_tie_rule(
    name, mode, weights, generalization_aware, min_support, depth, k, ties, jobs, seed
):
    data = scored_frame(seed, 200, attributes=5, ties=ties)
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])
    settings_ = {"depth": depth, "min_support": min_support, "k": k}

    def qf():
        return make_qf(name, mode, weights, generalization_aware=generalization_aware)

    one = listed(subroc_ext.FastSearch(), qf(), data, selectors, **settings_)
    threaded = listed(subroc_ext.FastSearch(n_jobs=jobs), qf(), data, selectors, **settings_)
    assert threaded == one  # same patterns, qualities and order, ties included
    best_first = listed(ps.BestFirstSearch(), qf(), data, selectors, **settings_)
    assert [q for q, _ in one] == [q for q, _ in best_first]  # bit-identical
    assert_same_top_k(
        [(q, frozenset(d.split(" AND "))) for q, d in one],
        [(q, frozenset(d.split(" AND "))) for q, d in best_first], k,
    )  # fmt: skip
    if depth <= 2:
        assert sorted(one) == sorted(by_tie_rule(qf(), data, selectors, **settings_))


def test_ties_at_the_cut_off_follow_the_rule_on_any_number_of_threads():
    """Weights 0 and heavily tied scores: three patterns share the k-th
    quality, two are kept; every run keeps the same ones, those the rule names."""
    data = scored_frame(0, 200, attributes=6, ties="heavy")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])
    settings_ = {"depth": 2, "min_support": 2, "k": 11}
    expected = by_tie_rule(make_qf("roc"), data, selectors, **{**settings_, "k": 12})
    assert expected[-1][0] == expected[-2][0], "the case must tie across the cut-off"
    expected = expected[:-1]
    for jobs in (1, 2, 3, 2):
        found = listed(subroc_ext.FastSearch(n_jobs=jobs), make_qf("roc"), data, selectors, **settings_)
        assert sorted(found) == sorted(expected)  # (pysubgroup orders ties by description)


@pytest.mark.parametrize("target_name", list(TARGETS))
@pytest.mark.parametrize("aware", [False, True])
def test_comparisons_on_threads_equal_one_thread(target_name, aware):
    data = comparison_frame(1, "some")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score", "old", "period"])

    def qf():
        function = ComparisonQF(ROCAUC(), "label", size_weight=1, balance_weight=1, mode="both")
        return subroc_ext.GeneralizationAwareQF(function) if aware else function

    settings_ = {"target": TARGETS[target_name], "depth": 3, "min_support": 8, "k": 15}
    one = listed(subroc_ext.FastSearch(), qf(), data, selectors, **settings_)
    assert listed(subroc_ext.FastSearch(n_jobs=3), qf(), data, selectors, **settings_) == one
    assert len(one) == 15


@pytest.mark.parametrize("aware", [False, True])
def test_auc_mu_on_threads_equals_one_thread(aware):
    data, mapping = multiclass_frame(seed=1)
    selectors = ps.create_selectors(data, ignore=["grade", *mapping.values()])

    def qf():
        function = subroc_ext.AUCMuQF("grade", mapping, 1, 1, mode="both")
        return subroc_ext.GeneralizationAwareQF(function) if aware else function

    settings_ = {"target": subroc_ext.MultiClassTarget("grade", mapping), "depth": 3, "min_support": 10, "k": 12}
    one = listed(subroc_ext.FastSearch(), qf(), data, selectors, **settings_)
    assert listed(subroc_ext.FastSearch(n_jobs=2), qf(), data, selectors, **settings_) == one


def test_a_measure_of_the_users_runs_on_one_thread():
    """Its Python code need not be thread-safe: every call on the caller's thread."""
    threads = set()

    def kernel(y, s):
        threads.add(threading.get_ident())
        return float(np.mean(s[y])) if y.any() else np.nan

    def qf():
        return subroc_ext.SoftClassifierQF(
            KernelMeasure(kernel, kind="score", name="mean", min_positives=1), "label"
        )  # fmt: skip

    data = scored_frame(0, 200, attributes=5)
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])
    settings_ = {"depth": 2, "min_support": 5, "k": 5}
    one = listed(subroc_ext.FastSearch(), qf(), data, selectors, **settings_)
    assert listed(subroc_ext.FastSearch(n_jobs=3), qf(), data, selectors, **settings_) == one
    assert threads == {threading.get_ident()}


def test_an_error_on_a_thread_stops_the_search_and_is_raised(monkeypatch):
    calls = []
    expand = evaluators.CompiledEvaluator.expand_nodes

    def failing(self, *args, **kwargs):
        calls.append(threading.get_ident())
        if len(calls) == 3:
            raise RuntimeError("kernel failed")
        return expand(self, *args, **kwargs)

    monkeypatch.setattr(evaluators.CompiledEvaluator, "expand_nodes", failing)
    monkeypatch.setattr(SearchRun, "batch_size", 1)  # a call per node
    data = scored_frame(0, 300, attributes=6)
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score"])
    before = threading.active_count()
    with pytest.raises(RuntimeError, match="kernel failed"):
        listed(subroc_ext.FastSearch(n_jobs=3), make_qf("roc"), data, selectors, depth=3, min_support=1, k=5)
    assert threading.active_count() == before  # the helper threads ended


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_jobs": 0}, "n_jobs must be a positive integer, got 0"),
        ({"n_jobs": 1.5}, "n_jobs must be a positive integer"),
        ({"n_jobs": True}, "n_jobs must be a positive integer"),
        ({"n_jobs": 2, "client": object()}, "pass client= or n_jobs=, not both"),
    ],
)
def test_bad_n_jobs_is_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        subroc_ext.FastSearch(**kwargs)


@pytest.mark.parametrize("n_samples", [800, "adaptive"])
def test_randomization_test_on_threads_equals_one_thread(n_samples):
    data = scored_frame(4, 600, attributes=6, ties="some")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])
    task = ps.SubgroupDiscoveryTask(data, TARGET, selectors, make_qf("roc"), result_set_size=12, depth=2)
    result = subroc_ext.FastSearch().execute(task)
    validation = scored_frame(5, 600, attributes=6, ties="some")
    settings_ = {"target": TARGET, "n_samples": n_samples, "random_state": 3, "max_samples": 5000}
    expected = subroc_ext.randomization_test(result, validation, make_qf("roc"), **settings_)
    assert expected["size"].nunique() > 5  # many null distributions to share out
    threaded = subroc_ext.randomization_test(result, validation, make_qf("roc"), n_jobs=3, **settings_)
    pd.testing.assert_frame_equal(threaded, expected)
    with pytest.raises(ValueError, match="pass client= or n_jobs=, not both"):
        subroc_ext.randomization_test(result, validation, make_qf("roc"), n_jobs=2, client=object(), **settings_)


def test_auc_mu_randomization_test_on_threads_equals_one_thread():
    data, mapping = multiclass_frame(seed=2, n=400)
    target = subroc_ext.MultiClassTarget("grade", mapping)
    selectors = ps.create_selectors(data, ignore=["grade", *mapping.values()])
    qf = subroc_ext.AUCMuQF("grade", mapping, 0, 0, mode="both")
    task = ps.SubgroupDiscoveryTask(data, target, selectors, qf, result_set_size=8, depth=2,
                                    constraints=[ps.MinSupportConstraint(10)])  # fmt: skip
    result = subroc_ext.FastSearch().execute(task)
    validation, _ = multiclass_frame(seed=3, n=400)
    settings_ = {"target": target, "n_samples": 500, "random_state": 0}
    expected = subroc_ext.randomization_test(result, validation, qf, **settings_)
    pd.testing.assert_frame_equal(subroc_ext.randomization_test(result, validation, qf, n_jobs=2, **settings_), expected)
