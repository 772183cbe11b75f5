"""Tests of :mod:`subroc_ext.workflow.diversity` against brute-force set computations."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from synthetic import scored_frame

import subroc_ext
from subroc_ext.workflow import steps
from subroc_ext.workflow.diversity import (
    check_max_overlap,
    collapse_identical,
    cover_matrix,
    jaccard_matrix,
    keep_patterns,
    overlap_with_better,
    search_distinct,
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


def _greedy_on_everything(data, qf, target, *, depth, k, max_overlap):
    """The oracle: every pattern above quality 0 ranked by one exhaustive search
    (no result-size limit that matters), then the greedy rule written out."""
    everything = steps.search(data, qf, target, depth=depth, min_support=5,
                              result_set_size=100_000, min_quality=0.0)  # fmt: skip
    assert len(everything.subgroups) < 100_000
    covers = [frozenset(np.flatnonzero(cover_matrix([sg], data)[0])) for sg in everything.subgroups]
    kept, dropped, whole = [], [], set(range(len(data)))
    distinct = []
    for row, cover in enumerate(covers):
        if cover == whole or any(cover == covers[other] for other in distinct):
            continue  # the whole split; an identical cover is an alternative, not a row
        distinct.append(row)
        overlaps = [(len(cover & covers[other]) / len(cover | covers[other]), other) for other in kept]
        if all(value <= max_overlap for value, _ in overlaps):
            kept.append(row)
            if len(kept) == k:
                break
        else:
            dropped.append(row)
    near = {row: [] for row in kept}
    for row in dropped:  # a near copy of the kept pattern it overlaps most, the best-ranked among equals
        overlaps = [len(covers[row] & covers[other]) / len(covers[row] | covers[other]) for other in kept]
        near[kept[int(np.argmax(overlaps))]].append((str(everything.subgroups[row]), max(overlaps)))
    return [str(everything.subgroups[row]) for row in kept], [near[row] for row in kept]


@pytest.mark.parametrize("mode", ["worse", "better", "both"])
@pytest.mark.parametrize("generalization_aware", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_search_distinct_is_the_greedy_rule_on_the_complete_ranking(seed, mode, generalization_aware):
    """The doubling search keeps exactly what the greedy rule keeps on the
    whole ranking, with each dropped pattern listed under the kept one it
    overlaps most; it searched again where the first top-2k was not enough."""
    data = scored_frame(seed, n=150, attributes=5, ties="none")
    target = subroc_ext.SoftClassifierTarget("label", "score")
    qf = subroc_ext.make_quality_function("roc_auc", "label", size_weight=1, balance_weight=1,
                                          mode=mode, generalization_aware=generalization_aware)  # fmt: skip
    k, max_overlap = 6, 0.3
    expected, expected_near = _greedy_on_everything(data, qf, target, depth=2, k=k, max_overlap=max_overlap)

    def search_top(size):
        return steps.search(data, qf, target, depth=2, min_support=5, result_set_size=size,
                            min_quality=0.0)  # fmt: skip

    found, kept = search_distinct(search_top, k, data, max_overlap=max_overlap)
    assert [str(sg) for sg in kept.subgroups] == expected
    assert len(expected) == k  # the space holds k distinct patterns: never fewer rows
    assert [[text for text, _ in near] for near in kept.near_copies] == [
        [text for text, _ in near] for near in expected_near
    ]
    for near, oracle in zip(kept.near_copies, expected_near):
        np.testing.assert_allclose([j for _, j in near], [j for _, j in oracle], rtol=1e-12)
    assert found.result_set_sizes[0] == 2 * k
    assert found.result_set_sizes == [2 * k * 2**i for i in range(len(found.result_set_sizes))]


def test_search_distinct_stops_when_the_space_is_exhausted_and_sums_the_searches():
    data = scored_frame(0, n=150, attributes=2, ties="none")
    target = subroc_ext.SoftClassifierTarget("label", "score")
    qf = subroc_ext.make_quality_function("roc_auc", "label", mode="both")
    calls = []

    def search_top(size):
        calls.append(size)
        return steps.search(data, qf, target, depth=2, min_support=5, result_set_size=size,
                            min_quality=0.0)  # fmt: skip

    found, kept = search_distinct(search_top, 500, data, max_overlap=0.0)
    assert calls == [1000]  # fewer than 1000 patterns exist: no second search
    assert len(kept.subgroups) < 500
    assert found.result_set_sizes == [1000]


def test_search_distinct_doubles_until_k_are_kept_and_sums_the_searches():
    """40 ranked patterns, all one cover but those ranked 1, 16 and 31: the top 3
    distinct need the top 31, found by searching the top 6, 12, 24 and 48."""
    covers = np.zeros((40, 30), dtype=bool)
    covers[:, :10] = True
    covers[15] = np.arange(30) >= 20
    covers[30] = (np.arange(30) >= 10) & (np.arange(30) < 20)
    patterns = [Rows(f"g{row}", cover) for row, cover in enumerate(covers)]
    frame = pd.DataFrame(index=range(30))

    def search_top(size):
        return steps.SearchResult(patterns[:size], list(np.linspace(1, 0.1, 40)[:size]), candidates=size,
                                  seconds=1.0, cpu_seconds=0.5, result_set_sizes=[size])  # fmt: skip

    found, kept = search_distinct(search_top, 3, frame, collapse=False, max_overlap=0.0)
    assert [str(sg) for sg in kept.subgroups] == ["g0", "g15", "g30"]
    assert found.result_set_sizes == [6, 12, 24, 48]
    assert (found.candidates, found.seconds, found.cpu_seconds) == (90, 4.0, 2.0)
    assert [len(near) for near in kept.near_copies] == [28, 0, 0]  # g1..g29 but g15; none below g30


def test_search_distinct_without_max_overlap_is_the_exact_top_k():
    data = scored_frame(1, n=150, attributes=4, ties="some")
    target = subroc_ext.SoftClassifierTarget("label", "score")
    qf = subroc_ext.make_quality_function("roc_auc", "label", size_weight=1, balance_weight=1)
    top = steps.search(data, qf, target, depth=2, min_support=5, result_set_size=10)
    found, kept = search_distinct(
        lambda size: steps.search(data, qf, target, depth=2, min_support=5, result_set_size=size),
        10, data, max_overlap=None,
    )  # fmt: skip
    assert found.result_set_sizes == [10]
    expected = keep_patterns(top.subgroups, top.qualities, data)
    assert [str(sg) for sg in kept.subgroups] == [str(sg) for sg in expected.subgroups]


def test_keep_patterns_lists_near_copies_in_the_table():
    covers = np.zeros((4, 10), dtype=bool)
    covers[0, :6] = True      # kept
    covers[1, :5] = True      # Jaccard 5/6 with row 0: a near copy
    covers[2, 5:] = True      # Jaccard 1/10 with row 0: kept
    covers[3, 6:] = True      # Jaccard 0 with row 0, 4/5 with row 2: near copy of row 2
    subgroups = [Rows(f"g{row}", cover) for row, cover in enumerate(covers)]
    kept = keep_patterns(subgroups, [4, 3, 2, 1], pd.DataFrame(index=range(10)), max_overlap=0.5)
    frame = kept.frame()
    assert frame["description"].tolist() == ["g0", "g2"]
    assert frame["near_copies"].tolist() == ["g1 (Jaccard 0.83)", "g3 (Jaccard 0.80)"]
    stopped = keep_patterns(subgroups, [4, 3, 2, 1], pd.DataFrame(index=range(10)), max_overlap=0.5, k=1)
    assert stopped.frame()["near_copies"].tolist() == [""]  # g1 ranks below the first kept
