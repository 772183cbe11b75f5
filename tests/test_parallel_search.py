"""Tests of :mod:`subroc_ext.parallel_search` without a cluster (those on a
Dask cluster are in ``test_cluster.py``).

* Exactness: any split of the first-level subtrees into parts, run one after
  another from the merged threshold, gives the single-process result (many
  random tasks).
* The split: every subtree in one part, balanced totals, the cost estimate's
  pattern counts equal enumeration.
* Without dask installed, ``client=`` and ``n_jobs=`` name the extra.
"""

import itertools
import sys

import numpy as np
import pysubgroup as ps
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subroc_ext
from search_helpers import SCORES, TARGET, make_qf, make_task, synthetic
from subroc_ext.parallel_search import kth_best, search_part, split_subtrees, top_k
from subroc_ext.search import SearchProblem

# -- without a cluster ----------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    score=st.sampled_from(SCORES),
    weights=st.sampled_from([(0, 0), (1, 1), (0.5, 2)]),
    generalization_aware=st.booleans(),
    depth=st.integers(2, 3),
    min_support=st.integers(1, 30),
    k=st.integers(1, 15),
    ties=st.sampled_from(["none", "some", "heavy"]),
    n_parts=st.integers(1, 12),
    pilot=st.booleans(),
)
def test_parts_merged_equal_the_single_process_search(
    seed, score, weights, generalization_aware, depth, min_support, k, ties, n_parts, pilot
):
    data = synthetic(seed, n=200, ties=ties)
    qf = make_qf(score, weights=weights)
    if generalization_aware:
        qf = subroc_ext.GeneralizationAwareQF(qf)
    task = make_task(data, qf, depth, min_support, k)
    problem = SearchProblem.from_task(task)
    single = problem.run()
    single.search(None)
    expected = sorted((-q, p) for q, _, p in single.results)
    # random parts (not only balanced ones), run in a random order
    rng = np.random.default_rng(seed)
    roots, _ = problem.subtrees()
    labels = rng.integers(0, n_parts, size=len(roots))
    found = {}
    if pilot:  # a shallower search first, as on a cluster
        outcome = search_part(problem, None, problem.min_quality, depth - 1)
        found.update({pattern: quality for quality, pattern in outcome["results"]})
    for part in rng.permutation(n_parts):
        outcome = search_part(problem, roots[labels == part], kth_best(found, k, problem.min_quality))
        found.update({pattern: quality for quality, pattern in outcome["results"]})
    merged = top_k(found, k)
    assert [found[p] for p in merged] == [-q for q, _ in expected]
    cutoff = -expected[-1][0] if len(expected) == k else -np.inf
    assert {p for p in merged if found[p] > cutoff} == {p for q, p in expected if -q > cutoff}


def test_subtrees_cover_every_pattern_once_and_count_them():
    data = synthetic(3, n=300)
    task = make_task(data, make_qf("roc"), depth=3, min_support=1, k=5)
    problem = SearchProblem.from_task(task)
    roots, costs = problem.subtrees()
    space = problem.space
    attribute = [s.attribute_name for s in space.selectors]
    covered = np.unpackbits(space.words.view(np.uint8), axis=1).sum(axis=1) / space.n_rows
    for root, cost in zip(roots, costs):
        later = range(space.next_start[root], len(space.selectors))
        count = 1  # the root itself
        for size in (1, 2):
            for extra in itertools.combinations(later, size):
                if len({attribute[i] for i in extra}) == size:
                    count += 1
        assert cost == pytest.approx(count * covered[root])
    # every selector of a later attribute than the last is a root; the last attribute's are not
    assert set(roots) == set(np.flatnonzero(space.next_start < len(space.selectors)))
    depth_one = make_task(data, make_qf("roc"), depth=1, min_support=1, k=5)
    assert len(SearchProblem.from_task(depth_one).subtrees()[0]) == 0


@settings(max_examples=50, deadline=None)
@given(
    costs=st.lists(st.floats(0, 100), min_size=0, max_size=40),
    n_parts=st.integers(1, 10),
)
def test_split_subtrees_is_a_balanced_partition(costs, n_parts):
    costs = np.array(costs)
    roots = np.arange(len(costs)) * 3 + 1
    parts = split_subtrees(roots, costs, n_parts)
    assert len(parts) == max(1, min(n_parts, len(roots)))
    members = np.concatenate([part for part, _ in parts]) if parts else np.zeros(0)
    assert sorted(members.tolist()) == roots.tolist()
    totals = [total for _, total in parts]
    assert totals == sorted(totals, reverse=True)
    for part, total in parts:
        assert total == pytest.approx(costs[(part - 1) // 3].sum())
    if len(roots):
        # longest processing time first: within the largest cost of the ideal
        assert totals[0] - totals[-1] <= costs.max() + 1e-9


def test_kth_best_and_top_k():
    found = {(1,): 3.0, (0,): 5.0, (2,): 3.0, (0, 4): 1.0}
    assert kth_best(found, 2, -np.inf) == 3.0
    assert kth_best(found, 5, -1.0) == -1.0
    assert kth_best(found, 1, 7.0) == 7.0
    assert top_k(found, 2) == [(0,), (1,)]  # ties by pattern
    assert top_k(found, 10) == [(0,), (1,), (2,), (0, 4)]


@pytest.mark.parametrize("call", [
    lambda: subroc_ext.FastSearch(client=object()).execute(
        make_task(synthetic(0, n=100), make_qf("roc"), 2, 1, 3)),
    lambda: subroc_ext.randomization_test([], synthetic(0, n=100), make_qf("roc"), target=TARGET,
                                          client=object()),
    lambda: subroc_ext.find_subgroups(synthetic(0, n=200), label="label", score="score",
                                      n_jobs=2, progress=False),
])  # fmt: skip
def test_without_dask_client_and_n_jobs_name_the_extra(monkeypatch, call):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(ImportError, match=r"pip install 'subroc-ext\[dask\]'"):
        call()


@pytest.mark.parametrize("option", [["--jobs", "2"], ["--scheduler", "tcp://127.0.0.1:8786"]])
def test_without_dask_the_command_line_names_the_extra(monkeypatch, tmp_path, capsys, option):
    from subroc_ext.cli import main

    synthetic(0, n=200).to_csv(tmp_path / "data.csv", index=False)
    monkeypatch.setitem(sys.modules, "distributed", None)
    arguments = ["run", str(tmp_path / "data.csv"), "--label", "label", "--score", "score",
                 "--quiet", "--out", str(tmp_path / "out"), *option]  # fmt: skip
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert f"{option[0]} needs dask.distributed" in error and "subroc-ext[dask]" in error
    assert not (tmp_path / "out").exists()
