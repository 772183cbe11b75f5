"""Tests of :mod:`subroc_ext.workflow.diversity` against brute-force set computations."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

from subroc_ext.workflow.diversity import (
    check_max_overlap,
    collapse_identical,
    cover_matrix,
    jaccard_matrix,
    keep_patterns,
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


class Rows:
    """A stand-in description: covers the rows of a fixed mask, prints as its name."""

    def __init__(self, name, mask):
        self.name, self.mask = name, mask

    def covers(self, data):
        return self.mask

    def __str__(self):
        return self.name


@pytest.mark.parametrize("collapse, max_overlap", [(True, None), (False, 0.3), (True, 0.3), (False, None)])
@pytest.mark.parametrize("seed", range(4))
def test_keep_patterns_composes_the_filters(seed, collapse, max_overlap):
    """keep_patterns = collapse_identical, then select_diverse on what is left,
    with each kept pattern's alternatives and largest overlap with a better one."""
    covers = random_covers(seed)
    subgroups = [Rows(f"g{row}", cover) for row, cover in enumerate(covers)]
    qualities = list(np.linspace(1, 0, len(covers)))
    kept = keep_patterns(subgroups, qualities, pd.DataFrame(index=range(covers.shape[1])),
                         collapse=collapse, max_overlap=max_overlap)  # fmt: skip
    rows = list(range(len(covers)))
    same = {row: [] for row in rows}
    if collapse:
        rows = []
        for row, cover in enumerate(covers):
            first = next((other for other in rows if (covers[other] == cover).all()), None)
            if first is None:
                rows.append(row)
            else:
                same[first].append(f"g{row}")
    if max_overlap is not None:
        chosen = []
        for row in rows:
            if all(jaccard(covers[row], covers[other]) <= max_overlap for other in chosen):
                chosen.append(row)
        rows = chosen
    assert [str(sg) for sg in kept.subgroups] == [f"g{row}" for row in rows]
    assert kept.qualities == [qualities[row] for row in rows]
    assert kept.alternatives == [same[row] for row in rows]
    frame = kept.frame()
    assert frame["alternatives"].tolist() == ["; ".join(same[row]) for row in rows]
    for position in range(1, len(rows)):
        values = [jaccard(covers[rows[position]], covers[rows[other]]) for other in range(position)]
        assert frame["overlap"][position] == pytest.approx(max(values))
        assert frame["overlaps_with"][position] == int(np.argmax(values)) + 1
    assert np.isnan(frame["overlap"][0]) and pd.isna(frame["overlaps_with"][0])


@pytest.mark.parametrize("value", [-0.1, 1.5, "0.5", float("nan")])
def test_check_max_overlap(value):
    check_max_overlap(None)
    check_max_overlap(0.25)
    with pytest.raises(ValueError, match="max_overlap must be None or a number in \\[0, 1\\]"):
        check_max_overlap(value)
