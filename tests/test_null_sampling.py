"""Tests of :mod:`subroc_ext.scoring.null_sampling`: null distributions by measure type.

* The compiled sampler of every built-in measure is exact: drawing every row
  gives the measure on the data bit for bit, and values on random positions
  equal ``Measure.value`` subset by subset.
* Every sampler (compiled, and the default of other measures) follows the
  exact null distribution of tiny data, and matches the ten-line reference
  sampler (:func:`reference_null_values`) on larger data with and without
  ties: two-sample tests on the values, and uniform inclusion of each row.
* A measure's own ``batch_values`` / ``null_values`` hooks are used; the
  default hooks are the module's functions.
"""

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

import subroc_ext
from subroc_ext.scoring import measures
from subroc_ext.scoring.case_mix import ExpectedROCAUC
from subroc_ext.scoring.measures import Cover
from subroc_ext.scoring.null_sampling import null_values, reference_null_values, values_one_by_one
from subroc_ext.utils.subsets import ClassTables, random_positions

TIES = pytest.mark.parametrize("ties", [True, False], ids=["ties", "continuous"])
BUILT_IN = {
    "roc_auc": measures.ROCAUC,
    "pr_auc": measures.PRAUC,
    "arl": measures.AverageRankingLoss,
    "attribution_mean": measures.attribution_mean,
    "brier": measures.squared_error,
    "expected_roc_auc": ExpectedROCAUC,
}
EXACT = {"roc_auc", "arl"}  # integer pair counts: the same floats as the kernels


def random_cover(rng, size, ties):
    """A cover of ``size`` rows holding both classes; scores in [0, 1]."""
    while True:
        is_positive = rng.random(size) < rng.uniform(0.2, 0.8)
        if 0 < is_positive.sum() < size:
            break
    if ties:
        scores = rng.integers(0, rng.integers(2, 6), size) / 5.0
    else:
        scores = rng.random(size)
    return Cover.from_arrays(is_positive, scores)


def sub_cover(cover, rows):
    """The cover of the given dataset positions."""
    rows = np.sort(np.asarray(rows, dtype=np.intp))
    return Cover(cover.is_positive[rows], cover.all_scores, cover.group_ids[rows], cover.rows[rows])


def prepared(measure, cover):
    return measure.prepare(cover)


# --------------------------------------------------------------------------
# exactness of the fast null statistics
# --------------------------------------------------------------------------


@TIES
@pytest.mark.parametrize("name", list(BUILT_IN))
def test_compiled_null_of_the_whole_data_is_its_value_bit_for_bit(name, ties):
    """A random subset equal to a cover gets exactly the cover's value: with
    every row of both classes drawn, each null value is the measure on the data."""
    rng = np.random.default_rng(len(name) + 5 * ties)
    for _ in range(10):
        cover = random_cover(rng, int(rng.integers(4, 200)), ties)
        measure = prepared(BUILT_IN[name](), cover)
        values = null_values(measure, cover, cover.positives, cover.negatives, 5, rng)
        assert values.tolist() == [measure.value(cover)] * 5


@TIES
@pytest.mark.parametrize("name", list(BUILT_IN))
def test_batch_values_equal_value(name, ties):
    """On random positions (small and complement-sized subsets) the batch
    values equal the per-subset value: bitwise for the pair-counting
    measures, to rounding for the others."""
    rng = np.random.default_rng(len(name) + 7 * ties)
    for _ in range(12):
        cover = random_cover(rng, int(rng.integers(4, 60)), ties)
        measure = prepared(BUILT_IN[name](), cover)
        tables = ClassTables(cover.is_positive)
        positives = int(rng.integers(1, tables.size[1] + 1))
        negatives = int(rng.integers(0 if name not in EXACT else 1, tables.size[0] + 1))
        batches = random_positions(tables, positives, negatives, 20, rng, 10**6)
        positions = np.concatenate(list(batches))
        assert (np.diff(positions.astype(int), axis=1) > 0).all()
        got = measure.batch_values(cover, positions)
        want = np.array([measure.value(sub_cover(cover, rows)) for rows in positions])
        if name in EXACT:
            assert got.tolist() == want.tolist()
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def exact_null(measure, cover, positives, negatives):
    """Counter of the measure over all subsets with these class counts."""
    positive_rows = np.flatnonzero(cover.is_positive)
    negative_rows = np.flatnonzero(~cover.is_positive)
    counter = Counter()
    for chosen_positives in itertools.combinations(positive_rows, positives):
        for chosen_negatives in itertools.combinations(negative_rows, negatives):
            rows = np.concatenate([chosen_positives, chosen_negatives]).astype(np.intp)
            counter[round(measure.value(sub_cover(cover, rows)), 9)] += 1
    return counter


@TIES
@pytest.mark.parametrize("name", list(BUILT_IN) + ["kernel_measure"])
def test_null_values_follow_the_exact_null(name, ties):
    """The null values (fast paths and the default one of a KernelMeasure)
    take only values of the exact null distribution, with its frequencies."""
    rng = np.random.default_rng(3 * len(name) + ties)
    if name == "kernel_measure":
        def make():
            return measures.KernelMeasure(
                lambda y, s: subroc_ext.roc_auc_score(y, s), kind="score", name="auc",
                min_positives=1, min_negatives=1,
            )  # fmt: skip
    else:
        make = BUILT_IN[name]
    for case in range(4):
        cover = random_cover(rng, int(rng.integers(6, 10)), ties)
        measure = prepared(make(), cover)
        n_positive = int(cover.is_positive.sum())
        # small and complement-sized subsets of each class
        positives = [1, n_positive, int(rng.integers(1, n_positive + 1)), max(1, n_positive - 1)][case]
        negatives = int(rng.integers(1, len(cover.rows) - n_positive + 1))
        exact = exact_null(measure, cover, positives, negatives)
        n_samples = 2000
        values = null_values(measure, cover, positives, negatives, n_samples, np.random.default_rng(case))
        assert values.shape == (n_samples,)
        seen = Counter(np.round(values, 9).tolist())
        assert set(seen) <= set(exact)
        if len(exact) > 1:
            total = sum(exact.values())
            support = sorted(exact)
            observed = [seen[v] for v in support]
            expected = [exact[v] / total * n_samples for v in support]
            assert stats.chisquare(observed, expected).pvalue > 1e-3


# --------------------------------------------------------------------------
# the reference sampler as oracle
# --------------------------------------------------------------------------


class PythonRowMean(measures.RowMeanMeasure):
    """A subclass: not compiled, so sampled by the default (NumPy) path."""


def kernel_auc():
    return measures.KernelMeasure(
        lambda y, s: subroc_ext.roc_auc_score(y, s), kind="score", name="auc",
        min_positives=1, min_negatives=1,
    )  # fmt: skip


SAMPLED = {**BUILT_IN, "kernel_measure": kernel_auc}


def assert_same_distribution(got, want):
    """Two-sample test: chi-square on the value counts when there are few
    distinct values (ties), else Kolmogorov-Smirnov."""
    got, want = np.round(got, 9), np.round(want, 9)
    support = np.union1d(got, want)
    if len(support) <= 40:
        table = np.array([[np.sum(got == v) for v in support], [np.sum(want == v) for v in support]])
        keep = table.sum(axis=0) >= 10
        table = np.column_stack([table[:, keep], table[:, ~keep].sum(axis=1)])
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] > 1:
            assert stats.chi2_contingency(table).pvalue > 1e-3
    else:
        assert stats.ks_2samp(got, want).pvalue > 1e-3


@pytest.mark.extended  # a seeded simulation (the null in distribution)
@TIES
@pytest.mark.parametrize("name", list(SAMPLED))
def test_null_values_match_the_reference_sampler(name, ties):
    rng = np.random.default_rng(17 * len(name) + ties)
    cover = random_cover(rng, 60, ties)
    measure = SAMPLED[name]().prepare(cover)
    n_positive = cover.positives
    for positives, negatives in [(2, 3), (n_positive - 1, cover.negatives // 2), (n_positive, 1)]:
        if name == "kernel_measure":
            n_samples = 1500
        else:
            n_samples = 4000
        got = null_values(measure, cover, positives, negatives, n_samples, np.random.default_rng(1))
        want = reference_null_values(measure, cover, positives, negatives, n_samples, np.random.default_rng(2))
        assert_same_distribution(got, want)


def row_identity(size):
    """A row mean whose value identifies the rows drawn (a sum of distinct
    powers of two), on a dataset whose sorted order is the given order."""
    return measures.RowMeanMeasure(lambda y, s: 2.0 ** -np.arange(size), kind="score", name="rows")


@TIES
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_every_row_is_drawn_equally_often(compiled, ties):
    size = 24
    rng = np.random.default_rng(5 + ties)
    is_positive = rng.random(size) < 0.4
    is_positive[:2] = True, False
    scores = np.sort(rng.integers(0, 4, size) / 4 if ties else rng.random(size))
    cover = Cover.from_arrays(is_positive, scores)
    measure = row_identity(size) if compiled else PythonRowMean(
        lambda y, s: 2.0 ** -np.arange(size), kind="score", name="rows"
    )
    measure = measure.prepare(cover)
    for positives, negatives in [(1, 2), (cover.positives - 1, cover.negatives - 3)]:
        n_samples = 5000
        values = null_values(measure, cover, positives, negatives, n_samples, np.random.default_rng(3))
        codes = np.rint(values * (positives + negatives) * 2.0 ** (size - 1)).astype(np.int64)
        drawn = (codes[:, None] >> (size - 1 - np.arange(size))) & 1
        assert (drawn[:, is_positive].sum(axis=1) == positives).all()
        assert (drawn[:, ~is_positive].sum(axis=1) == negatives).all()
        for rows in (is_positive, ~is_positive):
            counts = drawn[:, rows].sum(axis=0)
            assert stats.chisquare(counts).pvalue > 1e-3


# --------------------------------------------------------------------------
# hooks and deprecated callers
# --------------------------------------------------------------------------


class VectorizedAUC(measures.Measure):
    """ROC AUC with a ``batch_values`` hook (and a counter)."""

    name = "auc"
    min_positives = min_negatives = 1
    batches = 0

    def value(self, cover):
        return measures.ROCAUC().value(cover)

    def batch_values(self, dataset, positions):
        VectorizedAUC.batches += 1
        return np.array([self.value(sub_cover(dataset, rows)) for rows in positions])


class FixedNull(measures.Measure):
    name = "fixed"

    def value(self, cover):
        return 0.0

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements):
        return np.full(n_samples, 0.25)


def test_hooks_are_used():
    cover = random_cover(np.random.default_rng(0), 30, ties=True)
    VectorizedAUC.batches = 0
    values = null_values(VectorizedAUC(), cover, 2, 2, 100, np.random.default_rng(0))
    assert VectorizedAUC.batches >= 1 and values.shape == (100,)
    assert null_values(FixedNull(), cover, 2, 2, 3, np.random.default_rng(0)).tolist() == [0.25] * 3


@pytest.mark.parametrize("name", ["roc_auc", "brier"])
def test_default_hooks_are_the_module_functions(name):
    cover = random_cover(np.random.default_rng(1), 30, ties=True)
    measure = BUILT_IN[name]().prepare(cover)
    got = measure.null_values(cover, 2, 3, 50, np.random.default_rng(7))
    assert got.tolist() == null_values(measure, cover, 2, 3, 50, np.random.default_rng(7)).tolist()
    positions = np.array([[0, 1, 2], [3, 4, 5]])
    assert measure.batch_values(cover, positions).tolist() == values_one_by_one(
        measure, cover, positions
    ).tolist()
