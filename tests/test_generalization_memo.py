"""The generalization memo of FastSearch: every ``max(q, g)`` it returns, and
every leaf quality, equals the generalization-aware quality function's own
(``GeneralizationAwareQF``, pattern by pattern through pysubgroup
conjunctions), whichever rows it has when asked, and a row it fills for
patterns that were never evaluated as children keeps the values it had."""

import itertools

import numpy as np
import pysubgroup as ps
import pytest
from search_helpers import TARGET, make_qf
from synthetic import scored_frame

import subroc_ext
from subroc_ext.engine.evaluators import evaluator
from subroc_ext.engine.generalization_memo import GeneralizationMemo
from subroc_ext.engine.search import SearchProblem


def _problem(qf_name, seed):
    data = scored_frame(seed, 160, attributes=4, ties="some")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])
    qf = subroc_ext.GeneralizationAwareQF(make_qf(qf_name, "both", (1, 1)))
    task = ps.SubgroupDiscoveryTask(data, TARGET, selectors, qf, result_set_size=5, depth=3)
    problem = SearchProblem.from_task(task)
    return problem, qf, data


def _oracle(problem, qf, data):
    """``max(q, g)`` of a pattern of selector indices, from the quality function."""
    selectors = problem.space.selectors

    def best(pattern):
        return qf._best_raw_quality(tuple(selectors[i] for i in pattern), TARGET, data)

    return best


def _patterns(space, length):
    return [p for p in itertools.combinations(range(len(space.words)), length)
            if all(space.next_start[a] <= b for a, b in zip(p, p[1:]))]  # fmt: skip


@pytest.mark.parametrize("qf_name", ["roc", "pr", "arl", "attribution"])
@pytest.mark.parametrize("seed", range(2))
def test_bests_equal_the_quality_function_whatever_rows_are_known(qf_name, seed):
    problem, qf, data = _problem(qf_name, seed)
    space, best = problem.space, _oracle(problem, qf, data)
    memo = GeneralizationMemo(space, evaluator(problem.qf, space))
    rng = np.random.default_rng(seed)
    queries = [p for length in (0, 1, 2) for p in _patterns(space, length)]
    for index in rng.permutation(len(queries)):  # rows built in any order, each from what is known
        pattern = queries[index]
        selectors = space.refinements(pattern)
        if not len(selectors):
            continue
        chosen = np.sort(rng.choice(selectors, size=rng.integers(1, len(selectors) + 1), replace=False))
        values = memo.bests(pattern, chosen)
        assert values.tolist() == [best(pattern + (int(c),)) for c in chosen], pattern
    # every value in every row is exact; asking again changes nothing
    for pattern, (start, _, best_row) in list(memo.rows.items()):
        known = np.flatnonzero(~np.isnan(best_row))
        assert best_row[known].tolist() == [best(pattern + (int(start + c),)) for c in known]
        assert memo.bests(pattern, known + start).tolist() == best_row[known].tolist()


@pytest.mark.parametrize("qf_name", ["roc", "arl"])
def test_leaf_qualities_equal_the_quality_function(qf_name):
    """Leaves ``pattern + (s, c)`` with none of their shorter patterns known
    beforehand: each quality is ``w * (q - g)`` with its own ``g``, bit for bit."""
    problem, qf, data = _problem(qf_name, 3)
    space = problem.space
    memo = GeneralizationMemo(space, evaluator(problem.qf, space))
    leaves = _patterns(space, 3)[::3]
    pattern = leaves[0][:1]
    leaves = [leaf for leaf in leaves if leaf[:1] == pattern]
    nodes = np.array(sorted({leaf[1] for leaf in leaves}), dtype=np.int64)
    node = np.array([np.searchsorted(nodes, leaf[1]) for leaf in leaves], dtype=np.int64)
    children = np.array([leaf[2] for leaf in leaves], dtype=np.int64)
    stats = [qf.calculate_statistics(ps.Conjunction([space.selectors[i] for i in leaf]), TARGET, data)
             for leaf in leaves]  # fmt: skip
    weight = np.array([s.weight for s in stats])
    raw = np.array([s.raw_quality for s in stats])
    quality = memo.leaf_qualities(pattern, nodes, node, children, weight, raw)
    assert quality.tolist() == [s.quality for s in stats]
    # again, now that every shorter pattern is in a row
    assert memo.leaf_qualities(pattern, nodes, node, children, weight, raw).tolist() == quality.tolist()
    assert len(leaves) >= 5


@pytest.mark.parametrize("qf_name", ["roc", "pr", "attribution"])  # (ARL leaves none open here)
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_searches_stay_exact_when_no_shorter_pattern_is_known(qf_name, n_jobs, monkeypatch):
    """With the rows of every node's shorter patterns hidden, each open
    child's ``g`` is found on demand before its leaves are searched (the
    second path of ``SearchRun.expand_nodes``): the same top k, bit for bit,
    as pysubgroup's BestFirstSearch."""
    from search_helpers import run

    from subroc_ext.engine.search_run import SearchRun

    def unknown(self, patterns):
        return np.full((len(patterns), len(patterns[0]), len(self.space.words)), np.nan)

    second = []
    offer_leaves = SearchRun._offer_leaves

    def counted(self, *args):
        second.append(args[0])
        return offer_leaves(self, *args)

    monkeypatch.setattr(GeneralizationMemo, "shorter_rows", unknown)
    monkeypatch.setattr(SearchRun, "_offer_leaves", counted)
    data = scored_frame(1, 240, attributes=6, ties="some")
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score"])
    for depth in (3, 4):

        def qf():
            return subroc_ext.GeneralizationAwareQF(make_qf(qf_name, "both", (1, 1)))

        fast = run(subroc_ext.FastSearch(n_jobs=n_jobs), qf(), data, selectors, depth=depth, min_support=5, k=10)
        best_first = run(ps.BestFirstSearch(), qf(), data, selectors, depth=depth, min_support=5, k=10)
        assert [q for q, _ in fast] == [q for q, _ in best_first]
        assert [str(sg) for _, sg in fast] == [str(sg) for _, sg in best_first]
    assert len(second) >= 10  # the second path ran
