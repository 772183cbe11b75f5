"""Tests of :mod:`subroc_ext.diversity` against brute-force set computations."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

from subroc_ext.diversity import (
    collapse_identical,
    cover_matrix,
    jaccard_matrix,
    overlap_with_better,
    select_diverse,
)


def random_covers(seed, k=12, n=30):
    """Random covers with planted duplicates, an empty one, subsets and supersets."""
    rng = np.random.default_rng(seed)
    covers = rng.random((k, n)) < rng.uniform(0.1, 0.7, size=(k, 1))
    covers[3] = covers[1]
    covers[7] = covers[1]
    covers[5] = covers[2] & (rng.random(n) < 0.8)
    covers[9] = False
    covers[10] = False
    return covers


def jaccard(first, second):
    first, second = set(np.flatnonzero(first)), set(np.flatnonzero(second))
    return len(first & second) / len(first | second) if first | second else 1.0


@pytest.mark.parametrize("seed", range(10))
def test_jaccard_matrix_is_the_set_definition(seed):
    covers = random_covers(seed)
    expected = [[jaccard(a, b) for b in covers] for a in covers]
    np.testing.assert_allclose(jaccard_matrix(covers), expected, rtol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_collapse_identical_keeps_the_first_of_each_cover(seed):
    covers = random_covers(seed)
    kept, alternatives = collapse_identical(covers)
    assert kept[:3] == [0, 1, 2] and alternatives[1] == [3, 7] and alternatives[kept.index(9)] == [10]
    seen = {}
    for row, cover in enumerate(covers):
        seen.setdefault(tuple(cover), []).append(row)
    assert kept == sorted(rows[0] for rows in seen.values())
    assert alternatives == [seen[tuple(covers[row])][1:] for row in kept]


@pytest.mark.parametrize("threshold", [0.0, 0.1, 0.3, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("seed", range(6))
def test_select_diverse_is_the_greedy_filter(seed, threshold):
    covers = random_covers(seed)
    kept = select_diverse(covers, threshold)
    assert kept[0] == 0
    for row in range(len(covers)):
        earlier = [other for other in kept if other < row]
        allowed = all(jaccard(covers[row], covers[other]) <= threshold for other in earlier)
        assert (row in kept) == allowed
    if threshold == 1.0:
        assert kept == list(range(len(covers)))


@pytest.mark.parametrize("seed", range(10))
def test_overlap_with_better_is_the_largest_earlier_jaccard(seed):
    covers = random_covers(seed)
    overlap, partner = overlap_with_better(covers)
    assert np.isnan(overlap[0]) and partner[0] == -1
    for row in range(1, len(covers)):
        values = [jaccard(covers[row], covers[other]) for other in range(row)]
        assert overlap[row] == pytest.approx(max(values))
        assert partner[row] == int(np.argmax(values))  # the best-ranked among equals


def test_cover_matrix_uses_row_positions_on_any_index():
    data = pd.DataFrame({"a": list("xyxz")}, index=["r3", "r1", "r1", "r0"])
    subgroups = [ps.Conjunction([ps.EqualitySelector("a", "x")]), ps.Conjunction([])]
    np.testing.assert_array_equal(
        cover_matrix(subgroups, data), [[True, False, True, False], [True] * 4]
    )
