"""search_kernels: promising_children's counts of every child and the
children kept, against plain NumPy on unpacked masks; leaves_of_nodes'
children above the threshold, against the quality function's own statistics
of every child (bit for bit); leaf_children keeps the extreme subsets of its
parent, whose quality the bound from counts (ROC AUC, ARL) equals, with the
threshold one ulp below it; twice_wins_range brackets the Mann-Whitney
count of a child from its class counts per word. scored_children is checked the same way in
test_fast_search.py, and both through whole searches there."""

import numpy as np
import pytest

from subroc_ext.engine.child_kernels import promising_children
from subroc_ext.scoring.bitset import pack
from subroc_ext.scoring.weights import max_weight, subgroup_weight


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("cap", [np.inf, 0.0, 0.01, 0.3])
@pytest.mark.parametrize("expandable", [False, True])
def test_counts_and_kept_children_equal_numpy(seed, cap, expandable):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    is_positive = rng.random(n) < rng.uniform(0.05, 0.95)
    selectors = rng.random((30, n)) < rng.uniform(0.02, 0.9, size=(30, 1))
    parent = rng.random(n) < [0.0, 0.01, 0.5, 1.0][seed % 4]
    candidates = np.sort(rng.choice(30, 20, replace=False)).astype(np.int64)
    min_support, min_positives, min_negatives = int(rng.integers(1, 15)), seed % 2, 1
    alpha, beta = [(0.0, 0.0), (1.0, 1.0), (0.5, 2.0), (2.0, 0.0)][seed % 4]
    threshold = float(rng.uniform(-1, 2))
    selector_counts = np.array([(selectors & is_positive).sum(axis=1), (selectors & ~is_positive).sum(axis=1)])
    keep, positives, negatives = promising_children(
        pack(parent), pack(selectors), candidates, pack(is_positive), pack(~is_positive), selector_counts,
        min_support, min_positives, min_negatives, cap, threshold, alpha, beta, expandable,
    )  # fmt: skip
    children = parent & selectors[candidates]
    expected_p = (children & is_positive).sum(axis=1)
    expected_n = (children & ~is_positive).sum(axis=1)
    # counted exactly, or ruled out by the selector's and the parent's counts alone: then those
    # bounds are returned (at least the true counts)
    bound_p = np.minimum((parent & is_positive).sum(), selector_counts[0, candidates])
    bound_n = np.minimum((parent & ~is_positive).sum(), selector_counts[1, candidates])
    counted = (positives == expected_p) & (negatives == expected_n)
    assert ((positives == bound_p) & (negatives == bound_n) | counted).all()
    assert (bound_p >= expected_p).all() and (bound_n >= expected_n).all()
    expected = (
        (expected_p + expected_n >= min_support) & (expected_p >= min_positives)
        & (expected_n >= min_negatives) & (expected_p + expected_n >= 1)
    )  # fmt: skip
    if np.isfinite(cap):
        promising = subgroup_weight(expected_p, expected_n, alpha, beta) * cap > threshold
        if expandable:
            promising |= max_weight(expected_p, expected_n, alpha, beta) * cap > threshold
        expected &= promising
    np.testing.assert_array_equal(keep, expected)  # nothing kept is lost by ruling out early


def test_children_too_small_to_reach_the_threshold_are_not_counted():
    """With weight = size (alpha = 1, beta = 0) and cap 1, a child of a
    selector with 3 rows cannot exceed threshold 5: ruled out from the
    selector's counts (returned as its counts), while the one of 8 rows is counted."""
    is_positive = np.array([True, False] * 5)
    selectors = np.zeros((2, 10), dtype=bool)
    selectors[0, :3] = True
    selectors[1, :8] = True
    counts = np.array([(selectors & is_positive).sum(axis=1), (selectors & ~is_positive).sum(axis=1)])
    keep, positives, negatives = promising_children(
        pack(np.ones(10, bool)), pack(selectors), np.array([0, 1]), pack(is_positive), pack(~is_positive),
        counts, 1, 0, 0, 1.0, 5.0, 1.0, 0.0, False,
    )  # fmt: skip
    assert keep.tolist() == [False, True]
    assert positives.tolist() == [2, 4] and negatives.tolist() == [1, 4]


@pytest.mark.parametrize("qf_name,joint_gate", [("roc", 0.0), ("roc", 1e9), ("pr", 0.0), ("arl", 0.0),
                                                 ("attribution", 0.0), ("attribution", 1e9)])  # fmt: skip
@pytest.mark.parametrize("aware", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_leaves_of_nodes_returns_every_child_above_the_threshold_bit_for_bit(qf_name, joint_gate, aware, seed):
    """The children at the maximum depth of several sibling nodes in one call:
    exactly those whose quality (its bound from the lower bound of ``g``,
    with generalization awareness) exceeds the threshold, with the quality
    function's own floats (:meth:`SoftClassifierQF.statistics_of_cover`), the
    nodes whose estimate is not above the threshold skipped; the bounds from
    counts (finite caps: each node's true raw bound) and the nodes' joint
    bounds (``joint_gate``; ROC AUC and a row mean, whose node's profile
    both its bounds read) lose none of them."""
    from search_helpers import TARGET, make_qf
    from synthetic import scored_frame

    from subroc_ext.engine.search_kernels import leaves_of_nodes
    from subroc_ext.objective.generalization import generalization_aware_kernel

    rng = np.random.default_rng(seed)
    data = scored_frame(seed, 190, attributes=4, ties="some")
    qf = make_qf(qf_name, ["worse", "better", "both"][seed], [(0, 0), (1, 1), (0.5, 2)][seed])
    qf.calculate_constant_statistics(data, TARGET)
    dataset, n = qf.dataset, len(data)
    n_selectors = 24
    selectors = rng.random((n_selectors, n)) < rng.uniform(0.3, 0.95, size=(n_selectors, 1))
    next_start = np.repeat(np.arange(4, n_selectors + 4, 4), 4).astype(np.int64)  # attributes of 4 selectors
    grandparent = rng.random(n) < 0.9
    nodes = np.array([0, 2, 5, 9, 14], dtype=np.int64)
    node_covers = [grandparent & selectors[s] for s in nodes]
    node_stats = [qf.statistics_of_cover(dataset.cover(mask)) for mask in node_covers]
    generalizations = rng.uniform(0, 0.05, len(nodes)) if aware else np.full(len(nodes), -np.inf)
    unknown = rng.choice([-np.inf, np.nan], n_selectors)  # both mean not known
    sibling_best = np.where(rng.random(n_selectors) < 0.5, rng.uniform(0, 0.1, n_selectors), unknown)
    if not aware:
        sibling_best[:] = -np.inf
    caps = np.array([max(s.raw_bound - max(g, 0.0), 0.0) for s, g in zip(node_stats, generalizations)])
    caps[0] = np.inf  # a node without a bound
    values = {}  # the oracle: (node, selector) -> (raw quality, weight, quality or its bound)
    for j, (selector, mask) in enumerate(zip(nodes, node_covers)):
        for c in range(next_start[selector], n_selectors):
            cover = dataset.cover(mask & selectors[c])
            if cover.positives + cover.negatives < 5 or not qf.measure.is_defined(cover.positives, cover.negatives):
                continue
            stats = qf.statistics_of_cover(cover)
            value = stats.quality
            if aware:
                known = np.fmax(generalizations[j], sibling_best[c])
                value = generalization_aware_kernel(stats.weight, stats.raw_quality, np.inf, np.inf, known)[0]
            values[(j, c)] = (stats.raw_quality, stats.weight, value)
    threshold = float(np.quantile([v[2] for v in values.values()], 0.6))
    estimates = np.array([np.inf, threshold, np.inf, np.inf, threshold + 1.0])  # node 1 skipped
    if joint_gate:  # finite estimates: each node's joint bound is computed (and tightens some)
        estimates[[0, 2, 3]] = [abs(threshold) * 3 + 1.0, abs(threshold) * 5 + 1.0, abs(threshold) + 1.0]
    reference, downward, upward, alpha, beta, needs_both, _ = qf._settings()
    qualities = np.array([s.quality for s in node_stats])
    first = int(next_start[nodes.min()])  # the row starts at the first child (as the memo's rows do)
    node, children, raw, weight, quality, counted, evaluated = leaves_of_nodes(
        bitset_pack(grandparent), nodes, estimates, qualities, caps, generalizations, sibling_best[first:], first,
        np.array([threshold]), joint_gate, next_start, bitset_pack(selectors), bitset_pack(dataset.is_positive),
        bitset_pack(~dataset.is_positive),
        np.array([(selectors & dataset.is_positive).sum(axis=1), (selectors & ~dataset.is_positive).sum(axis=1)]),
        *qf._kernel_data[2:6], *value_ranks(qf), 5, qf.measure.min_positives, qf.measure.min_negatives,
        reference, downward, upward, alpha, beta, needs_both, qf_name in ("roc", "arl", "attribution"),
    )  # fmt: skip
    expected = {key: v for key, v in values.items() if v[2] > threshold and key[0] != 1}
    expected_counted = sum(n_selectors - next_start[s] for j, s in enumerate(nodes) if j != 1)
    found = {
        (int(j), int(c)): (r, w, q) for j, c, r, w, q in zip(node, children, raw, weight, quality)
    }
    assert found == expected
    assert len(expected) <= evaluated <= counted
    assert counted == expected_counted if joint_gate == 0 else counted <= expected_counted
    assert len(expected) >= 5  # the case is not empty


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_twice_wins_range_brackets_the_mann_whitney_count(ties, seed):
    """``2U`` of a child (2 per positive above a negative, 1 per tie) lies
    within the bounds from its class counts per word; without ties the only
    pairs left open are those that share a word, each 0 or 2 (with ties, a
    word whose first row is inside a tie group is open to the words before)."""
    from subroc_ext.engine.child_kernels import twice_wins_range
    from subroc_ext.scoring.cover_kernels import tie_group_bounds

    rng = np.random.default_rng(seed)
    n = 300 + 37 * seed  # 5 to 7 words, the last one partial
    scores = np.sort(rng.integers(0, n // 3, n) if ties else rng.permutation(n))  # ties, some across words
    group_start, _ = tie_group_bounds(np.unique(scores, return_inverse=True)[1])
    positive = rng.random(n) < 0.3
    parent, selector = rng.random(n) < 0.7, rng.random((3, n)) < 0.5
    fresh = np.array([group_start[w * 64] == w * 64 for w in range((n + 63) // 64)])
    for c in range(3):
        child = parent & selector[c]
        pos, neg = scores[child & positive], scores[child & ~positive]
        twice = 2 * (pos[:, None] > neg[None, :]).sum() + (pos[:, None] == neg[None, :]).sum()
        low, high = twice_wins_range(bitset_pack(parent), bitset_pack(selector), c, bitset_pack(positive),
                                     bitset_pack(~positive), fresh)  # fmt: skip
        assert low <= twice <= high
        word = np.arange(n) // 64
        shared = sum(((word[child & positive] == w).sum() * (word[child & ~positive] == w).sum()) for w in range(7))
        if not ties:  # far narrower than [0, 2 p n]
            assert high - low == 2 * shared < len(pos) * len(neg)


def test_twice_wins_range_leaves_a_tie_across_words_open():
    """A negative at the end of a word tied with a positive at the start of
    the next: ``2U = 1``, which a bound that took every word boundary for a
    tie group's start would put at 2 from below."""
    from subroc_ext.engine.child_kernels import twice_wins_range
    from subroc_ext.scoring.cover_kernels import tie_group_bounds

    scores = np.arange(128)
    scores[64] = 63  # rows 63 and 64, one in each word, tie
    group_start, _ = tie_group_bounds(np.unique(scores, return_inverse=True)[1])
    fresh = np.array([group_start[0] == 0, group_start[64] == 64])
    positive, child = np.zeros(128, dtype=bool), np.zeros(128, dtype=bool)
    positive[64], child[[63, 64]] = True, True
    assert fresh.tolist() == [True, False]
    low, high = twice_wins_range(bitset_pack(child), bitset_pack(child[None]), 0, bitset_pack(positive),
                                 bitset_pack(~positive), fresh)  # fmt: skip
    assert (low, high) == (0, 2)


def bitset_pack(mask):
    return pack(np.asarray(mask, dtype=bool))


def value_ranks(qf):
    """A row mean's position of each row in ascending value order, the
    values in that order and the extremes of each word's classes (None,
    None, None for the other measures), as
    :class:`~subroc_ext.engine.evaluators.CompiledEvaluator` passes them."""
    from subroc_ext.scoring.row_mean_bounds import word_extremes

    positive_words, negative_words, *_, row_values, value_order, ascending_values = qf._kernel_data[:8]
    if value_order is None:
        return None, None, None
    rank = np.empty_like(value_order)
    rank[value_order] = np.arange(len(value_order))
    return rank, ascending_values, word_extremes(row_values, positive_words, negative_words)


@pytest.mark.parametrize("qf_name", ["roc", "arl"])
@pytest.mark.parametrize("seed", range(3))
def test_leaf_children_keep_the_extreme_subsets_the_count_bound_reaches(qf_name, seed):
    """The bound from counts is tight: a child that is an extreme subset of
    its parent (the ``p`` lowest-scored positives with the ``n`` highest
    negatives, or the reverse) has exactly that quality, so with the
    threshold one ulp below it ``leaf_children`` must still return it (a
    bound lowered by one part in 10^9 is caught), with and without an offset
    ``g`` (generalization awareness)."""
    import pandas as pd
    from search_helpers import TARGET, make_qf

    from subroc_ext.engine.search_kernels import leaf_children
    from subroc_ext.objective.generalization import generalization_aware_kernel

    rng = np.random.default_rng(seed)
    scores = rng.random(40) if seed == 0 else rng.integers(0, 6, 40) / 5  # ties for seeds 1, 2
    data = pd.DataFrame({"label": (rng.random(40) < 0.2 + 0.25 * seed).astype(int), "score": scores})
    mode, weights = ["worse", "better", "both"][seed], [(0, 0), (1, 1), (0.5, 2)][seed]
    qf = make_qf(qf_name, mode, weights)
    qf.calculate_constant_statistics(data, TARGET)
    dataset, size = qf.dataset, len(data)
    positives, negatives = np.flatnonzero(dataset.is_positive), np.flatnonzero(~dataset.is_positive)
    whole = np.ones(size, dtype=bool)
    cap = qf.statistics_of_cover(dataset.cover(whole)).raw_bound
    reference, downward, upward, alpha, beta, needs_both, _ = qf._settings()
    n_bound_decides = 0
    for p in range(1, len(positives) + 1):
        for n in range(1 if qf_name == "roc" else 0, len(negatives) + 1):
            for rows in (np.r_[positives[:p], negatives[len(negatives) - n:]],
                         np.r_[positives[len(positives) - p:], negatives[:n]]):  # fmt: skip
                child = np.zeros(size, dtype=bool)
                child[rows] = True
                stats = qf.statistics_of_cover(dataset.cover(child))
                for g in (-np.inf, 0.01):
                    quality = stats.quality
                    if g > -np.inf:
                        quality = generalization_aware_kernel(stats.weight, stats.raw_quality, np.inf,
                                                              np.inf, g)[0]  # fmt: skip
                    threshold = np.nextafter(quality, -np.inf)
                    kept, _, _, returned, evaluated = leaf_children(
                        pack(whole), pack(child[None]), np.array([0]), pack(dataset.is_positive),
                        pack(~dataset.is_positive), np.array([[p], [n]]), *qf._kernel_data[2:6], None,
                        (np.zeros(1), np.zeros(1), 0.0), None, 1, qf.measure.min_positives,
                        qf.measure.min_negatives, cap, threshold, reference, downward, upward, alpha,
                        beta, needs_both, g, np.full(1, -np.inf), 0, True, True,
                    )  # fmt: skip
                    assert kept.tolist() == [0] and returned[0] == quality, (p, n, g, quality)
                    n_bound_decides += stats.weight * (cap - max(g, 0.0)) > threshold
    assert n_bound_decides > 100  # the cap alone would keep these: the count bound was the test



@pytest.mark.parametrize("kind", [0, 1, 2])  # ROC AUC, ARL, PR AUC
def test_measures_without_per_row_values_take_none_for_them(kind):
    """A measure with no per-row values passes ``row_values=None`` (numba
    then compiles its kernels without the row mean's and expected ROC AUC's
    code): the same values, extremes and null values as with an empty array."""
    from subroc_ext.scoring import cover_kernels

    rng = np.random.default_rng(kind)
    n = 300
    is_positive = rng.random(n) < 0.4
    selectors = pack(rng.random((12, n)) < 0.4)
    group_start, group_end = cover_kernels.tie_group_bounds(np.sort(rng.integers(0, 60, n)))
    data = (pack(rng.random(n) < 0.8), selectors, np.arange(12), pack(is_positive), pack(~is_positive),
            group_start, group_end, kind)  # fmt: skip
    results = []
    for row_values in (None, np.zeros(0)):
        out = [np.empty(12) for _ in range(3)]
        cover_kernels.measure_children(*data, row_values, True, *out)
        null = np.empty(50)
        cover_kernels.null_values(kind, 7, np.flatnonzero(is_positive), np.flatnonzero(~is_positive), 30, 40,
                                  group_start, group_end, row_values, null)  # fmt: skip
        results.append(np.concatenate([*out, null]))
    np.testing.assert_array_equal(results[0], results[1])
    assert np.isfinite(results[0]).sum() > 30
