"""Nodes expanded in batches (``engine.batch_kernels``): the qualities a
batch takes into its running top ``k`` are exact qualities of patterns it
found, never the upper bounds a leaf has under generalization awareness,
and so the threshold they raise within the batch never passes the ``k``-th
best pattern found; searches in batches of any size equal pysubgroup's
BestFirstSearch, on one thread and two."""

import numpy as np
import pysubgroup as ps
import pytest
from search_helpers import TARGET, make_qf, run
from synthetic import scored_frame

import subroc_ext
from subroc_ext.engine import batch_kernels
from subroc_ext.engine.search import SearchProblem
from subroc_ext.engine.search_run import SearchRun


def _qf(qf_name, aware):
    qf = make_qf(qf_name, "both", (1, 1))
    return subroc_ext.GeneralizationAwareQF(qf) if aware else qf


def _problem(qf_name, aware, seed):
    data = scored_frame(seed, 200, attributes=5, ties="some")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])
    qf = _qf(qf_name, aware)
    task = ps.SubgroupDiscoveryTask(data, TARGET, selectors, qf, result_set_size=4, depth=3,
                                    constraints=[ps.MinSupportConstraint(5)])  # fmt: skip
    return SearchProblem.from_task(task), qf, data


def _true_quality(problem, qf, data):
    selectors = problem.space.selectors

    def quality(pattern):
        subgroup = ps.Conjunction([selectors[i] for i in pattern])
        return float(qf.evaluate(subgroup, TARGET, data, qf.calculate_statistics(subgroup, TARGET, data)))

    return quality


@pytest.mark.parametrize("qf_name", ["roc", "pr", "arl", "attribution"])
@pytest.mark.parametrize("rows", [None, "known", "unknown"])
@pytest.mark.parametrize("seed", range(3))
def test_a_batch_takes_in_only_exact_qualities_of_what_it_found(qf_name, rows, seed):
    """Without generalization awareness, and with it when the shorter rows
    know every child's ``g`` (then a leaf's quality is still a bound) or none."""
    aware = rows is not None
    problem, qf, data = _problem(qf_name, aware, seed)
    quality = _true_quality(problem, qf, data)
    search = problem.run()
    space, k = problem.space, 3
    # the first-level nodes with children, as the search's batches take them (depth 3: one selector each)
    patterns = [(int(s),) for s in range(len(space.words)) if space.next_start[s] < len(space.words)]
    selectors = np.array(patterns, dtype=np.int64)
    if aware:
        bests = search.memo.bests((), selectors[:, 0])  # the root's row, as the search has it by now
        if rows == "known":
            search.memo.bests((), np.arange(len(space.words)))
        else:
            search.memo.rows.clear()
        shorter, starts = search.memo.shorter_rows(patterns), space.next_start[selectors[:, -1]]
    else:
        shorter, starts = np.empty((len(patterns), 0, 0)), np.zeros(len(patterns), dtype=np.int64)
        bests = np.full(len(patterns), -np.inf)
    top = np.full(k, -np.inf)
    floor = -np.inf
    (child_start, children, _, (found, _, _), pending, _, _, node_start, searched, leaf_node, leaf_children,
     _, counted, evaluated) = search.evaluator.expand_nodes(
        selectors, np.full(len(patterns), np.inf), np.full(len(patterns), -np.inf), bests, shorter, starts,
        np.array([-np.inf]), top, floor, problem.min_support, aware,
    )  # fmt: skip
    owner = np.repeat(np.arange(len(patterns)), np.diff(child_start))
    child_patterns = [patterns[b] + (int(c),) for b, c in zip(owner, children)]
    leaf_owner = np.searchsorted(node_start, leaf_node, side="right") - 1
    leaf_patterns = [patterns[b] + (int(searched[n]), int(c)) for b, n, c in zip(leaf_owner, leaf_node, leaf_children)]
    true = [quality(p) for p in child_patterns + leaf_patterns]
    kth_found = sorted(true)[-k] if len(true) >= k else -np.inf
    # never above the k-th best of the patterns found: pruning by it is safe
    assert top[0] <= kth_found
    # each value in it is the exact quality of a pattern found
    assert all(value in true for value in top if value > -np.inf)
    if not aware:  # every quality exact: it is the k best of them
        assert top.tolist() == sorted(true)[-k:]
    elif rows == "known":  # each child is in, its g known
        assert len(pending) == 0
        known = sorted(quality(p) for p in child_patterns)[-k:]
        assert top.tolist() == sorted(set(top.tolist()) | set(known))[-k:]
        np.testing.assert_array_equal(found, [quality(p) for p in child_patterns])
    else:  # no child's g known, no quality exact
        assert top.tolist() == [-np.inf] * k
    assert counted >= evaluated > 0


def test_nothing_at_or_below_the_floor_enters_the_top():
    problem, _, _ = _problem("roc", False, 0)
    search = problem.run()
    space = problem.space
    patterns = [(int(s),) for s in range(len(space.words)) if space.next_start[s] < len(space.words)]
    selectors = np.array(patterns, dtype=np.int64)
    args = (selectors, np.full(len(patterns), np.inf), np.full(len(patterns), -np.inf),
            np.full(len(patterns), -np.inf), np.empty((len(patterns), 0, 0)), np.zeros(len(patterns), dtype=np.int64),
            np.array([-np.inf]))  # fmt: skip
    top = np.full(50, -np.inf)
    search.evaluator.expand_nodes(*args, top, -np.inf, problem.min_support, False)
    floor = float(np.median(top[top > -np.inf]))
    high = np.full(50, -np.inf)
    search.evaluator.expand_nodes(*args, high, floor, problem.min_support, False)
    assert (high[high > -np.inf] > floor).all()
    assert high[high > -np.inf].tolist() == [q for q in top.tolist() if q > floor]


@pytest.mark.parametrize("batch_size", [1, 3, 8])
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("aware", [False, True])
def test_searches_in_batches_of_any_size_equal_best_first_search(batch_size, n_jobs, aware, monkeypatch):
    batches = []
    expand_nodes = SearchRun.expand_nodes

    def spy(self, nodes):
        batches.append(len(nodes))
        return expand_nodes(self, nodes)

    monkeypatch.setattr(SearchRun, "batch_size", batch_size)
    monkeypatch.setattr(SearchRun, "expand_nodes", spy)
    for seed, qf_name, depth in [(0, "roc", 3), (1, "pr", 4), (2, "arl", 3), (3, "attribution", 4)]:
        data = scored_frame(seed, 260, attributes=6, ties="some")
        selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score"])

        settings = {"depth": depth, "min_support": 5, "k": 7}
        fast = run(subroc_ext.FastSearch(n_jobs=n_jobs), _qf(qf_name, aware), data, selectors, **settings)
        best_first = run(ps.BestFirstSearch(), _qf(qf_name, aware), data, selectors, **settings)
        assert fast == best_first
    assert max(batches) == batch_size


@pytest.mark.parametrize("leaf_batch_size", [1, 3, 16])
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("aware", [False, True])
def test_depth_two_searches_with_the_roots_children_in_batches_equal_best_first_search(
    leaf_batch_size, n_jobs, aware, monkeypatch
):
    """At depth 2 the root's children are taken from the queue together,
    their leaves in one compiled call: whatever the batch, the result is
    BestFirstSearch's, and the batches fill up to their size."""
    batches = []
    offer_leaves = SearchRun._offer_leaves

    def spy(self, pattern, parent, selectors, *rest):
        if pattern == ():
            batches.append(len(selectors))
        return offer_leaves(self, pattern, parent, selectors, *rest)

    monkeypatch.setattr(SearchRun, "leaf_batch_size", leaf_batch_size)
    monkeypatch.setattr(SearchRun, "_offer_leaves", spy)
    for seed, qf_name, k in [(0, "roc", 1), (1, "pr", 7), (2, "arl", 3), (3, "attribution", 7)]:
        data = scored_frame(seed, 260, attributes=6, ties="some")
        selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score"])
        settings = {"depth": 2, "min_support": 5, "k": k}
        fast = run(subroc_ext.FastSearch(n_jobs=n_jobs), _qf(qf_name, aware), data, selectors, **settings)
        best_first = run(ps.BestFirstSearch(), _qf(qf_name, aware), data, selectors, **settings)
        assert fast == best_first
    assert max(batches) == leaf_batch_size


def test_the_batch_kernel_gets_contiguous_arrays_whatever_the_batch_size(monkeypatch):
    """A strided array is another type to numba: the search would compile
    its largest kernel once more for batches of more than one node."""
    calls = []
    kernel = batch_kernels.expand_nodes_to_leaves

    def spy(*args):
        calls.append([arg for arg in args if isinstance(arg, np.ndarray)])
        return kernel(*args)

    monkeypatch.setattr(SearchRun, "batch_size", 3)
    monkeypatch.setattr(batch_kernels, "expand_nodes_to_leaves", spy)
    data = scored_frame(0, 260, attributes=6, ties="some")
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score"])
    run(subroc_ext.FastSearch(), _qf("roc", True), data, selectors, depth=3, min_support=5, k=7)
    assert max(len(arrays[0]) for arrays in calls) == 3
    assert all(array.flags.c_contiguous for arrays in calls for array in arrays)
