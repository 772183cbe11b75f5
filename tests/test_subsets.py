"""Tests of :mod:`subroc_ext.utils.subsets`: random subsets never repeat an item
and every subset is drawn equally often (chi-square over all subsets), in
each regime of the samplers (drawn values, dense marks, top-ups)."""

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from subroc_ext.utils import subsets
from subroc_ext.utils.subsets import ClassTables, random_positions, sample_subsets



def assert_uniform_subsets(rows_of_subsets, population, size):
    """Chi-square test of the frequencies of all ``size``-subsets."""
    assert rows_of_subsets.shape[1] == size
    ordered = np.sort(rows_of_subsets, axis=1)
    assert (np.diff(ordered, axis=1) > 0).all(), "an item repeats"
    assert ((ordered >= 0) & (ordered < population)).all()
    seen = Counter(map(tuple, ordered.tolist()))
    every = list(itertools.combinations(range(population), size))
    observed = np.array([seen[s] for s in every])
    assert observed.sum() == len(rows_of_subsets)
    if len(every) > 1:
        assert stats.chisquare(observed).pvalue > 1e-3


@pytest.mark.parametrize("population, size", [(7, 0), (7, 1), (7, 3), (7, 4), (7, 6), (8, 8), (9, 4)])
def test_sample_subsets_is_uniform_and_sorted(population, size):
    rng = np.random.default_rng(population * 10 + size)
    subsets = sample_subsets(rng, population, size, 20_000)
    assert subsets.shape == (20_000, size)
    assert (np.diff(subsets, axis=1) > 0).all()
    assert_uniform_subsets(subsets, population, size)


@pytest.mark.parametrize("population, size", [(8, 1), (8, 3), (8, 5), (16, 2), (16, 15)])
def test_distinct_marks_are_uniform(population, size):
    """Both branches (draws; per-cell marks topped up) mark exactly ``size``
    cells, uniformly."""
    marks = np.zeros((20_000, population), dtype=np.uint8)
    subsets._distinct_marks(np.random.default_rng(size), population, size, marks)
    assert set(np.unique(marks)) <= {0, 1}
    assert (marks.sum(axis=1) == size).all()
    if population <= 8:
        chosen = np.nonzero(marks)[1].reshape(len(marks), size)
        assert_uniform_subsets(chosen, population, size)


@pytest.mark.parametrize("dtype", [np.int16, np.int8], ids=["usual", "forced-top-up"])
def test_distinct_values_are_uniform(dtype):
    """Distinct values, marked in the buffer; an int8 buffer allows too few
    draws, so every row takes the top-up path."""
    rng = np.random.default_rng(5)
    population, size = (7, 3) if dtype == np.int16 else (300, 150)
    marks = np.zeros((20_000 if population == 7 else 200, population), dtype=dtype)
    values = subsets._distinct_values(rng, population, size, marks)
    assert values.shape == (len(marks), size)
    assert ((marks != 0).sum(axis=1) == size).all()
    assert (np.sort(np.nonzero(marks)[1].reshape(len(marks), size), axis=1) == np.sort(values, axis=1)).all()
    if population == 7:
        assert_uniform_subsets(values, population, size)
    else:  # each item equally often
        counts = np.bincount(values.ravel(), minlength=population)
        assert stats.chisquare(counts).pvalue > 1e-3


def test_fill_marks_free_cells_uniformly():
    rng = np.random.default_rng(11)
    rows, population = 20_000, 7
    marks = np.zeros((rows, population), dtype=np.uint8)
    marks[:, [1, 4]] = 1
    new = subsets._fill(rng, population, marks, np.full(rows, 2))
    assert (marks.sum(axis=1) == 4).all() and (marks[:, [1, 4]] == 1).all()
    assert (np.diff(new // population) >= 0).all()
    free = np.nonzero(marks[:, [0, 2, 3, 5, 6]])[1].reshape(rows, 2)
    assert_uniform_subsets(free, 5, 2)


@pytest.mark.parametrize("positives, negatives", [(1, 1), (2, 5), (4, 1), (3, 4)])
def test_random_positions_are_uniform_per_class(positives, negatives):
    """Small and complement-sized draws: each class's rows form a uniform
    subset of that class, and the positions of a row ascend."""
    is_positive = np.array([True, False, True, False, False, True, False, True, False])
    tables = ClassTables(is_positive)
    batches = random_positions(tables, positives, negatives, 20_000, np.random.default_rng(4), 10**5)
    positions = np.concatenate(list(batches)).astype(np.intp)
    assert positions.shape == (20_000, positives + negatives)
    assert (np.diff(positions, axis=1) > 0).all()
    for rows, count in ((tables.rows[1], positives), (tables.rows[0], negatives)):
        chosen = positions[np.isin(positions, rows)].reshape(len(positions), count)
        assert_uniform_subsets(np.searchsorted(rows, chosen), len(rows), count)
