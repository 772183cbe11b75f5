"""Quality functions with ``optimistic_estimates = False`` (unpruned timing runs).

Every statistic but the bounds must be the same as with estimates, the bound
code (the measure's extremes and size-aware bound) must never run, and an
unpruned experiment search must find what the pruned one finds.
"""

import sys
from pathlib import Path

import numpy as np
import pysubgroup as ps
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subroc_ext
from subroc_ext.workflow.pipeline import make_quality_function

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from search_helpers import make_qf
from synthetic import scored_frame

from experiments import common

MEASURES = ("roc_auc", "pr_auc", "arl", "attribution_mean")
BOUND_FIELDS = ("raw_bound", "max_weight", "optimistic_estimate")


def frame_of(seed, n):
    """Three attributes ``a0..a2`` (2, 3 and 4 values) and tied scores."""
    return scored_frame(seed, n, attributes=3, ties="some")


#: Every value of every attribute of :func:`frame_of`, present or not (empty covers too).
SELECTORS = [ps.EqualitySelector(f"a{i}", value) for i in range(3) for value in "pqrs"[: 2 + i]]
TARGET = subroc_ext.SoftClassifierTarget("label", "score")


def qf_pair(measure, alpha, beta, frame):
    qfs = [make_qf(measure, "worse", (alpha, beta)) for _ in range(2)]
    qfs[1].optimistic_estimates = False
    for qf in qfs:
        qf.calculate_constant_statistics(frame, TARGET)
    return qfs


def forbid_bounds(qf):
    """Make the measure's bound computations fail loudly."""

    def forbidden(*args, **kwargs):
        raise AssertionError("the optimistic estimate was computed")

    for measure in (qf.measure, qf.prepared_measure):  # the one evaluated, once prepared
        if measure is not None:
            measure.extremes = measure.size_aware_bound = forbidden


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(4, 60),
    measure=st.sampled_from(MEASURES),
    alpha=st.sampled_from([0.0, 0.3, 1.0]),
    beta=st.sampled_from([0.0, 0.3, 1.0]),
)
def test_statistics_without_estimates_equal_those_with(seed, n, measure, alpha, beta):
    frame = frame_of(seed, n)
    if frame["label"].nunique() < 2:
        return
    with_bounds, without = qf_pair(measure, alpha, beta, frame)
    forbid_bounds(without)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        picked = rng.choice(len(SELECTORS), rng.integers(0, 3), replace=False)
        subgroup = ps.Conjunction([SELECTORS[i] for i in picked])
        a = with_bounds.calculate_statistics(subgroup, TARGET, frame)
        b = without.calculate_statistics(subgroup, TARGET, frame)
        for field in a._fields:
            if field in BOUND_FIELDS:
                assert getattr(b, field) == np.inf
            else:
                np.testing.assert_equal(getattr(b, field), getattr(a, field), err_msg=field)
        assert without.optimistic_estimate(subgroup, TARGET, frame) == np.inf


def evaluated_by_its_methods(qf, frame):
    """Make ``qf`` evaluate its measure by the measure's Python methods, as for
    any measure without compiled kernels (a subclass of a built-in has none:
    :func:`subroc_ext.scoring.compiled_measures.compiled_kind`). The built-ins' compiled path
    skips the extremes in the kernel itself (``measure_children(...,
    with_extremes=False)``)."""
    qf.measure.__class__ = type("Uncompiled", (type(qf.measure),), {})
    qf.calculate_constant_statistics(frame, TARGET)
    assert qf._kernel_data is None


@pytest.mark.parametrize("measure", MEASURES)
def test_the_bound_code_runs_only_with_estimates(measure):
    frame = frame_of(1, 80)
    with_bounds, without = qf_pair(measure, 1.0, 0.0, frame)
    for qf in (with_bounds, without):
        evaluated_by_its_methods(qf, frame)
    forbid_bounds(with_bounds)
    forbid_bounds(without)
    subgroup = ps.Conjunction([ps.EqualitySelector("a0", "p")])
    without.calculate_statistics(subgroup, TARGET, frame)  # no AssertionError
    with pytest.raises(AssertionError, match="optimistic estimate was computed"):
        with_bounds.calculate_statistics(subgroup, TARGET, frame)


@pytest.mark.parametrize("measure", MEASURES)
def test_unpruned_experiment_search_finds_the_same_and_computes_no_estimate(measure):
    frame = scored_frame(7, n=400)  # the model is no better than chance where region == 'east'
    target = subroc_ext.SoftClassifierTarget("y", "p")
    selectors = ps.create_selectors(frame, ignore=["y", "p"])
    kwargs = {"depth": 2, "result_set_size": 5, "min_support": 10}
    qf = make_quality_function(measure, "y", size_weight=0.3, balance_weight=0.3, mode="both")
    pruned = common.run_search(frame, target, selectors, qf, **kwargs)
    qf = make_quality_function(measure, "y", size_weight=0.3, balance_weight=0.3, mode="both")
    forbid_bounds(qf)  # without_estimates copies qf, sharing its measure
    unpruned = common.run_search(frame, target, selectors, qf, prune=False, **kwargs)
    assert [q for q, _ in unpruned.results] == pytest.approx([q for q, _ in pruned.results], abs=1e-12)
    assert unpruned.candidates >= pruned.candidates
    assert unpruned.finished and len(unpruned.results) > 0


@pytest.mark.parametrize("measure", MEASURES)
def test_the_fast_search_switch_finds_what_best_first_finds(measure):
    frame = scored_frame(3, n=400)
    target = subroc_ext.SoftClassifierTarget("y", "p")
    selectors = ps.create_selectors(frame, ignore=["y", "p"])
    kwargs = {"depth": 2, "result_set_size": 5, "min_support": 10}
    runs = {
        (search, prune): common.run_search(
            frame, target, selectors, make_quality_function(measure, "y", size_weight=0.3, mode="both"),
            search=search, prune=prune, **kwargs,
        )
        for search in ("best_first", "fast")
        for prune in (True, False)
    }  # fmt: skip
    reference = [q for q, _ in runs["best_first", True].results]
    assert len(reference) == 5
    for run in runs.values():
        assert [q for q, _ in run.results] == pytest.approx(reference, abs=1e-12)
    assert 0 < runs["fast", True].candidates <= runs["fast", False].candidates
