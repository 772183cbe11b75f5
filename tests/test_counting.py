"""CountingQF and without_estimates: counted candidates, pruning off without estimates."""

import numpy as np
import pysubgroup as ps
import pytest

import subroc_ext
from subroc_ext.engine.counting import CountingQF, without_estimates
from subroc_ext.objective.generalization import GeneralizationAwareQF
from subroc_ext.workflow.pipeline import make_quality_function
from synthetic import scored_frame

TARGET = subroc_ext.SoftClassifierTarget("y", "p")


def test_without_estimates_copies_and_unwraps():
    qf = make_quality_function("roc_auc", "label", size_weight=1.0)
    copy = without_estimates(qf)
    assert copy is not qf and copy.optimistic_estimates is False
    assert qf.optimistic_estimates is True  # the caller's function is untouched
    aware = without_estimates(GeneralizationAwareQF(qf))
    assert isinstance(aware, GeneralizationAwareQF) and aware.qf.optimistic_estimates is False
    if hasattr(ps, "ROCAUCQF"):  # pysubgroup 0.8 (Python >= 3.13) has no quality classes of its own
        pysubgroup_qf = ps.ROCAUCQF("label", 1, 1)
        assert without_estimates(pysubgroup_qf) is pysubgroup_qf


def test_unpruned_estimate_is_infinite_in_the_statistics_shape():
    counting = CountingQF(subroc_ext.ARLQF("y", 1, 1, 1), prune=False)
    assert counting.optimistic_estimate(None, None, None) == np.inf
    frame = scored_frame(0, n=300)
    counting.calculate_constant_statistics(frame, TARGET)
    one = counting.calculate_statistics(ps.Conjunction([]), TARGET, frame)
    assert counting.optimistic_estimate(None, None, None, one) == np.inf
    stacked = type(one)._make(np.array([v, v]) for v in one)  # vectorized Apriori
    assert np.array_equal(counting.optimistic_estimate(None, None, None, stacked), [np.inf] * 2)
    assert counting.candidates == 1  # only calculate_statistics counts


@pytest.mark.parametrize("generalization_aware", [False, True])
def test_pruning_on_and_off_find_the_same_and_counts_differ(generalization_aware):
    frame = scored_frame(4, n=600)
    selectors = ps.create_selectors(frame, ignore=["y", "p"])
    found, counted = {}, {}
    for prune in (True, False):
        qf = make_quality_function("roc_auc", "y", size_weight=1, balance_weight=1, mode="better",
                                   generalization_aware=generalization_aware)  # fmt: skip
        counting = CountingQF(qf, prune)
        task = ps.SubgroupDiscoveryTask(
            frame, TARGET, selectors, counting, result_set_size=3, depth=3,
            constraints=[ps.MinSupportConstraint(20)],
        )  # fmt: skip
        result = ps.BestFirstSearch().execute(task)
        found[prune] = sorted(round(float(q), 12) for q, *_ in result.results)
        counted[prune] = counting.candidates
    assert found[True] == found[False] and len(found[True]) == 3
    assert counted[True] < counted[False]


def test_candidates_are_the_calls_of_calculate_statistics(monkeypatch):
    frame = scored_frame(4, n=600)
    qf = make_quality_function("roc_auc", "y", size_weight=1, balance_weight=1)
    calls = []
    statistics_of = qf.calculate_statistics
    monkeypatch.setattr(qf, "calculate_statistics", lambda *a: calls.append(a) or statistics_of(*a))
    counting = CountingQF(qf)
    task = ps.SubgroupDiscoveryTask(
        frame, TARGET, ps.create_selectors(frame, ignore=["y", "p"]), counting,
        result_set_size=3, depth=2, constraints=[ps.MinSupportConstraint(20)],
    )  # fmt: skip
    ps.BestFirstSearch().execute(task)
    assert counting.candidates == len(calls) > 0
    assert repr(CountingQF(qf, False)).endswith("prune=False)")
