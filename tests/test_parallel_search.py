"""Tests of :mod:`subroc_ext.engine.parallel_search` without a cluster (those on a
Dask cluster are in ``test_cluster.py``).

* Exactness: any split of the first-level subtrees into parts, run one after
  another from the merged threshold, gives the single-process result (many
  random tasks).
* The split: every subtree in one part, balanced totals, the cost estimate's
  pattern counts equal enumeration.
* Without dask installed, ``client=`` names the extra; ``n_jobs=`` (threads) needs no dask.
"""

import itertools
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_helpers import SCORES, TARGET, make_qf, make_task
from synthetic import scored_frame

import subroc_ext
from subroc_ext.engine.parallel_search import (
    kth_best,
    plan_parts,
    search_part,
    split_subtrees,
    top_k,
)
from subroc_ext.engine.search import SearchProblem

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
    data = scored_frame(seed, 200, attributes=6, ties=ties)
    qf = make_qf(score, weights=weights, generalization_aware=generalization_aware)
    task = make_task(data, qf, depth, min_support, k)
    problem = SearchProblem.from_task(task)
    single = problem.run()
    single.search(None)
    expected = sorted((-q, p) for q, _, p in single.results)
    # random parts (not only balanced ones) of first- and second-level
    # subtrees, run in a random order
    rng = np.random.default_rng(seed)
    prefixes, _ = problem.subtrees()
    split = [p for p in prefixes if rng.random() < 0.5]
    finer, _ = problem.subtrees(split)
    parents = {p[:-1] for p in finer}
    prefixes = [p for p in prefixes if p not in parents] + finer
    labels = rng.integers(0, n_parts, size=len(prefixes))
    found = {}
    if pilot:  # a shallower search first, as on a cluster
        outcome = search_part(problem, None, problem.min_quality, depth - 1)
        found.update({pattern: quality for quality, pattern in outcome["results"]})
    for part in rng.permutation(n_parts):
        mine = [p for p, label in zip(prefixes, labels) if label == part]
        worst = top_k(found, k)[-1] if len(found) >= k else None
        outcome = search_part(problem, mine, kth_best(found, k, problem.min_quality), None, worst)
        found.update({pattern: quality for quality, pattern in outcome["results"]})
    merged = top_k(found, k)
    # the tie rule: the same patterns, ties at the k-th quality included
    assert [(-found[p], p) for p in merged] == expected


def patterns_below(space, prefix, extra):
    """Patterns ``prefix + up to extra selectors`` (later attributes, one each), by enumeration."""
    attribute = [s.attribute_name for s in space.selectors]
    later = range(space.next_start[prefix[-1]], len(space.selectors))
    count = 1  # the prefix itself
    for size in range(1, extra + 1):
        for chosen in itertools.combinations(later, size):
            count += len({attribute[i] for i in chosen}) == size
    return count


def test_subtrees_count_their_patterns_and_cover_each_once():
    data = scored_frame(3, 300, attributes=6)
    problem = SearchProblem.from_task(make_task(data, make_qf("roc"), depth=4, min_support=1, k=5))
    space = problem.space
    prefixes, costs = problem.subtrees()
    # every selector but the last attribute's heads a subtree
    assert prefixes == [(i,) for i in np.flatnonzero(space.next_start < len(space.selectors))]
    for prefix, cost in zip(prefixes, costs):
        share = np.unpackbits(space.cover(prefix).view(np.uint8)).sum() / space.n_rows
        assert cost == pytest.approx(patterns_below(space, prefix, 3) * share)
    finer, finer_costs = problem.subtrees(prefixes[:4])
    assert {p[:1] for p in finer} == set(prefixes[:4])
    for prefix, cost in zip(finer, finer_costs):
        share = np.unpackbits(space.cover(prefix).view(np.uint8)).sum() / space.n_rows
        assert cost == pytest.approx(patterns_below(space, prefix, 2) * share)
    # every pattern of 2-4 selectors under exactly one prefix of a mixed split
    mixed = prefixes[4:] + finer
    attribute = [s.attribute_name for s in space.selectors]
    for size in (2, 3, 4):
        for pattern in itertools.combinations(range(len(space.selectors)), size):
            if len({attribute[i] for i in pattern}) < size:
                continue
            owners = [p for p in mixed if pattern[: len(p)] == p]
            covered_by_parent = len(pattern) == 2 and pattern[:1] in {p[:1] for p in finer}
            assert len(owners) == 1 or (not owners and covered_by_parent), (pattern, owners)
    for depth in (1, 2):
        shallow = SearchProblem.from_task(make_task(data, make_qf("roc"), depth, 1, 5))
        assert len(shallow.subtrees()[0]) == (0 if depth == 1 else len(prefixes))
        assert shallow.subtrees(prefixes[:2])[0] == []


@settings(max_examples=50, deadline=None)
@given(
    costs=st.lists(st.floats(0, 100), min_size=0, max_size=40),
    n_parts=st.integers(1, 10),
)
def test_split_subtrees_is_a_balanced_partition(costs, n_parts):
    costs = np.array(costs)
    prefixes = [(i, 3 * i + 1) for i in range(len(costs))]
    parts = split_subtrees(prefixes, costs, n_parts)
    assert len(parts) == max(1, min(n_parts, len(prefixes)))
    members = [p for part, _ in parts for p in part]
    assert sorted(members) == prefixes
    totals = [total for _, total in parts]
    assert totals == sorted(totals, reverse=True)
    for part, total in parts:
        assert total == pytest.approx(sum(costs[i] for i, _ in part))
    if len(prefixes):
        # longest processing time first: within the largest cost of the ideal
        assert totals[0] - totals[-1] <= costs.max() + 1e-9


def test_plan_parts_splits_the_largest_subtrees():
    data = scored_frame(4, 400, attributes=6)
    problem = SearchProblem.from_task(make_task(data, make_qf("roc"), depth=3, min_support=1, k=5))
    prefixes, costs = problem.subtrees()
    assert plan_parts(problem, 1) == [(sorted(prefixes), pytest.approx(costs.sum()))]
    n_parts = 8
    parts = plan_parts(problem, n_parts)
    planned = [p for part, _ in parts for p in part]
    large = {p for p, c in zip(prefixes, costs) if c > costs.sum() / n_parts}
    assert large and all(len(p) == 2 and p[:1] in large for p in planned if len(p) == 2)
    assert {p for p in planned if len(p) == 1} == set(prefixes) - large
    assert sum(total for _, total in parts) == pytest.approx(
        costs[[p not in large for p in prefixes]].sum() + problem.subtrees(sorted(large))[1].sum()
    )


def test_kth_best_and_top_k():
    found = {(1,): 3.0, (0,): 5.0, (2,): 3.0, (0, 4): 1.0}
    assert kth_best(found, 2, -np.inf) == 3.0
    assert kth_best(found, 5, -1.0) == -1.0
    assert kth_best(found, 1, 7.0) == 7.0
    assert top_k(found, 2) == [(0,), (1,)]  # ties by pattern
    assert top_k(found, 10) == [(0,), (1,), (2,), (0, 4)]


@pytest.mark.parametrize("call", [
    lambda: subroc_ext.FastSearch(client=object()).execute(
        make_task(scored_frame(0, 100, attributes=6), make_qf("roc"), 2, 1, 3)),
    lambda: subroc_ext.randomization_test([], scored_frame(0, 100, attributes=6), make_qf("roc"), target=TARGET,
                                          client=object()),
])  # fmt: skip
def test_without_dask_client_names_the_extra(monkeypatch, call):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(ImportError, match=r"pip install 'subroc-ext\[dask\]'"):
        call()


def test_n_jobs_runs_threads_without_dask_and_gives_the_same_table(monkeypatch):
    """n_jobs (once a Dask LocalCluster) is threads now: no dask needed, same table."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    data = scored_frame(3, 600, attributes=6, ties="some")
    settings_ = {"label": "label", "score": "score", "depth": 2, "result_set_size": 5,
                 "n_samples": 400, "random_state": 1, "progress": False}  # fmt: skip
    expected = subroc_ext.find_subgroups(data, **settings_)
    assert len(expected) > 2
    pd.testing.assert_frame_equal(subroc_ext.find_subgroups(data, n_jobs=2, **settings_), expected)
    with pytest.raises(ValueError, match="n_jobs must be a positive integer"):
        subroc_ext.find_subgroups(data, n_jobs=0, **settings_)


@pytest.mark.parametrize("option", [["--scheduler", "tcp://127.0.0.1:8786"]])
def test_without_dask_the_command_line_names_the_extra(monkeypatch, tmp_path, capsys, option):
    from subroc_ext.cli import main

    scored_frame(0, 200, attributes=6).to_csv(tmp_path / "data.csv", index=False)
    monkeypatch.setitem(sys.modules, "distributed", None)
    arguments = ["run", str(tmp_path / "data.csv"), "--label", "label", "--score", "score",
                 "--quiet", "--out", str(tmp_path / "out"), *option]  # fmt: skip
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert f"{option[0]} needs dask.distributed" in error and "subroc-ext[dask]" in error
    assert not (tmp_path / "out").exists()
