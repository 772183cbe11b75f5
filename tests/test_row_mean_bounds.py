"""The bounds of a row mean's quality from a child's class counts (proved by
enumeration) and from its class counts per word (on random children)."""

import itertools

import numpy as np
import pytest

from subroc_ext.objective.statistics import relative_quality
from subroc_ext.scoring.bitset import pack
from subroc_ext.scoring.row_mean_bounds import (
    class_profile,
    row_mean_count_bounds,
    row_mean_joint_bound,
    row_mean_word_bounds,
    word_extremes,
)
from subroc_ext.scoring.weights import subgroup_weight

MODES = {"worse": (False, True), "better": (True, False), "both": (True, True)}


def profile(parent, labels, values):
    """:func:`class_profile` of the rows of ``parent`` (masks by row)."""
    order = np.argsort(values, kind="stable")
    rank = np.empty(len(values), np.int64)
    rank[order] = np.arange(len(values))
    return class_profile(pack(parent), pack(labels), pack(~labels), rank, values[order])


def bound(parent, labels, values, positives, negatives, reference, offset, signs, alpha, beta):
    out = np.empty(len(positives))
    row_mean_count_bounds(*profile(parent, labels, values), np.asarray(positives, np.int64),
                          np.asarray(negatives, np.int64), reference, offset, *signs, alpha, beta, out)  # fmt: skip
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_profile_is_each_class_sorted_and_summed(seed):
    """The prefix sums of each class's values in ascending order, bit for bit
    those of a sort (ties and signed zeros in half of the cases), and the
    largest magnitude, on parents of 0 to 300 rows."""
    rng = np.random.default_rng(seed)
    n = 300
    values = rng.normal(size=n) if seed % 2 else np.round(rng.normal(size=n), 0) * rng.choice([-0.0, 1.0], n)
    labels = rng.random(n) < 0.3
    for share in (0.0, 0.02, 0.5, 1.0):
        parent = rng.random(n) < share
        positive_sums, negative_sums, largest = profile(parent, labels, values)
        for sums, rows in ((positive_sums, parent & labels), (negative_sums, parent & ~labels)):
            expected = np.zeros(rows.sum() + 1)
            for i, value in enumerate(np.sort(values[rows])):
                expected[i + 1] = expected[i] + value
            assert sums.tolist() == expected.tolist()
        assert largest == (np.abs(values[parent]).max() if parent.any() else 0.0)


@pytest.mark.parametrize("seed", range(6))
def test_no_subset_of_the_parent_exceeds_the_bound_of_its_class_counts(seed):
    """Every subset of a parent of up to 9 rows (ties among values in half of
    the cases), each mode, weight pair and offset: the subset's quality as
    the kernels compute it (values added in row order) is at most the bound
    at its class counts, and the extreme subset (the largest values of each
    class) reaches it to rounding."""
    rng = np.random.default_rng(seed)
    n = 12
    values = rng.normal(size=n) if seed % 2 else np.round(rng.normal(size=n), 0)
    labels = rng.random(n) < 0.5
    parent = rng.random(n) < 0.75
    rows = np.flatnonzero(parent)
    reference = float(values.mean())
    for mode, alpha, beta, offset in itertools.product(MODES, (0.0, 0.5, 1.0), (0.0, 1.0), (0.0, 0.3)):
        signs = MODES[mode]
        reached = {}
        for size in range(1, len(rows) + 1):
            for subset in itertools.combinations(rows, size):
                subset = np.array(subset)
                p, n_ = int(labels[subset].sum()), size - int(labels[subset].sum())
                total = 0.0
                for value in values[subset]:  # row order, as the kernels add
                    total += value
                raw = relative_quality(total / size, reference, *signs)
                quality = subgroup_weight(float(p), float(n_), alpha, beta) * (raw - offset)
                reached[(p, n_)] = max(reached.get((p, n_), -np.inf), quality)
        counts = np.array(list(reached))
        limits = bound(parent, labels, values, counts[:, 0], counts[:, 1], reference, offset, signs, alpha, beta)
        best = np.array(list(reached.values()))
        assert np.all(best <= limits), (mode, alpha, beta, offset)  # valid, exactly
        np.testing.assert_allclose(limits, best, rtol=0, atol=1e-9)  # and tight


def test_an_empty_child_has_no_bound_and_a_child_is_bounded_by_its_classes_largest_values():
    labels = np.array([True, True, False, False, True])
    values = np.array([0.9, 0.1, -0.2, -0.6, 0.4])
    parent = np.ones(5, bool)
    out = bound(parent, labels, values, [0, 2], [0, 1], 0.0, 0.0, (False, True), 1.0, 0.0)
    assert out[0] == -np.inf
    assert out[1] == pytest.approx(3 * (0.9 + 0.4 - 0.2) / 3)  # weight 3, mean of the largest 2 + 1


@pytest.mark.parametrize("seed, n, share", [(0, 12, 0.5), (1, 12, 0.2), (2, 12, 0.5), (3, 15, 0.1), (4, 15, 0.9)])
def test_the_joint_bound_holds_for_every_subset_with_the_minimum_support(seed, n, share):
    """The best quality (as the kernels compute it) over the subsets of at
    least ``m`` rows of a parent of up to 15 rows (a class of more than 8
    in the last two: blocks of several counts) is at most the joint bound,
    for each mode, weights, offset and ``m``; where the parent's classes have
    at most 8 rows (one-count blocks) it is exact."""
    rng = np.random.default_rng(100 + seed)
    values = rng.normal(size=n) if seed % 2 else np.round(rng.normal(size=n), 0)
    labels = rng.random(n) < share
    parent = rng.random(n) < 0.85
    rows = np.flatnonzero(parent)
    reference = float(values.mean())
    node = profile(parent, labels, values)
    subsets = [np.array(t) for size in range(1, len(rows) + 1) for t in itertools.combinations(rows, size)]
    means = []
    for subset in subsets:
        total = 0.0
        for value in values[subset]:
            total += value
        means.append(total / len(subset))
    sizes = np.array([len(t) for t in subsets])
    positives = np.array([labels[t].sum() for t in subsets], dtype=float)
    for mode, alpha, beta, offset, m in itertools.product(MODES, (0.0, 0.5, 1.0, 1.5), (0.0, 1.0), (0.0, 0.3),
                                                          (1, 4)):  # fmt: skip
        signs = MODES[mode]
        raw = relative_quality(np.array(means), reference, *signs)
        quality = subgroup_weight(positives, sizes - positives, alpha, beta) * (raw - offset)
        best = max(quality[sizes >= m].max(), 0.0)
        joint = row_mean_joint_bound(*node, reference, offset, *signs, alpha, beta, m)
        assert best <= joint, (mode, alpha, beta, offset, m)
        if max(labels[rows].sum(), (~labels[rows]).sum()) <= 8:  # one-count blocks: the bound is reached
            assert joint == pytest.approx(best, abs=1e-9), (mode, alpha, beta, offset, m)


@pytest.mark.parametrize("values_kind", ["score order", "constant per word", "any"])
def test_no_child_exceeds_its_bound_from_counts_per_word(values_kind):
    """Random children of a parent of 3,000 rows (47 words): each child's
    quality as the kernels compute it (values added in row order) is at most
    its bound from counts per word, in each mode, weights and offset; the
    bound's mean exceeds the child's by at most the largest spread of a
    word's values of one class: to rounding where each is one value (0.1:
    sums that round), by about 64 / 3,000 where they follow the score order
    (a calibration gap's ``y - p`` on rows sorted by ``p``)."""
    rng = np.random.default_rng(7)
    n = 3000
    labels = rng.random(n) < 0.4
    if values_kind == "score order":
        values = labels - np.sort(rng.random(n))
    elif values_kind == "constant per word":
        values = np.where(labels, 0.1, -0.1) * (1 + np.arange(n) // 64)
    else:
        values = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, n)
    parent = rng.random(n) < 0.9
    children = parent & (rng.random((60, n)) < rng.uniform(0.01, 1.0, size=(60, 1)))
    children = children[children.any(axis=1)]
    positives = (children & labels).sum(axis=1)
    negatives = (children & ~labels).sum(axis=1)
    means = []
    for child in children:
        total = 0.0
        for value in values[child]:  # row order, as the kernels add
            total += value
        means.append(total / child.sum())
    extremes, largest = word_extremes(values, pack(labels), pack(~labels))
    spread = max(np.ptp(values[w : w + 64][labels[w : w + 64] == c])
                 for w in range(0, n, 64) for c in (True, False))  # fmt: skip (each word has both classes)
    reference = float(values.mean())
    for mode, alpha, beta, offset in itertools.product(MODES, (0.0, 1.0), (0.0, 1.0), (0.0, 0.05)):
        signs = MODES[mode]
        out = np.empty(len(children))
        row_mean_word_bounds(pack(parent), pack(children), np.arange(len(children)), pack(labels), pack(~labels),
                             extremes, largest, positives, negatives, reference, offset, *signs, alpha, beta,
                             out)  # fmt: skip
        weight = subgroup_weight(positives.astype(float), negatives.astype(float), alpha, beta)
        quality = weight * (relative_quality(np.array(means), reference, *signs) - offset)
        assert np.all(quality <= out), (mode, alpha, beta, offset)  # valid, exactly
        if values_kind != "any":
            assert np.all(out - quality <= weight * (spread + 1e-9)), (mode, alpha, beta, offset)  # and tight


def test_word_extremes_are_each_words_classes_largest_and_smallest_values():
    rng = np.random.default_rng(3)
    n = 150  # the last word part full
    values = rng.normal(size=n)
    labels = rng.random(n) < 0.3
    labels[128:] = False  # a word without positives: 0, which no child counts
    extremes, largest = word_extremes(values, pack(labels), pack(~labels))
    for w in range(3):
        rows = slice(64 * w, 64 * (w + 1))
        for c, mask in ((0, labels[rows]), (2, ~labels[rows])):
            expected = (values[rows][mask].max(), values[rows][mask].min()) if mask.any() else (0.0, 0.0)
            assert (extremes[c, w], extremes[c + 1, w]) == expected
    assert largest == np.abs(values).max()
