"""Tests of :mod:`subroc_ext.significance` and of the null distributions behind it.

* The fast null statistics of every built-in measure are exact: pair counts
  from hand-made draws equal brute-force counting, batch values on random
  positions equal ``Measure.value`` subset by subset, and the null values
  follow the exact null distribution (all subsets of tiny data).
* The samplers never repeat an item and draw every subset equally often.
* p-values are uniform where the model's performance is unrelated to the
  attributes; a planted weak subgroup is found.
* p-values, corrections, validation, reproducibility and input forms.
"""

import itertools
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import subroc_ext
from subroc_ext import _subsets, measures
from subroc_ext.measures import Cover
from subroc_ext.significance import (
    base_seed,
    null_rng,
    randomization_test,
    sample_subsets,
)

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_significance.py"
TIES = pytest.mark.parametrize("ties", [True, False], ids=["ties", "continuous"])
BUILT_IN = {
    "roc_auc": measures.ROCAUC,
    "pr_auc": measures.PRAUC,
    "arl": measures.AverageRankingLoss,
    "attribution_mean": measures.attribution_mean,
    "brier": measures.brier_score,
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
    measure.prepare(cover)
    return measure


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
        values = measure.null_values(cover, cover.positives, cover.negatives, 5, rng)
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
        tables = _subsets.ClassTables(cover)
        positives = int(rng.integers(1, tables.size[1] + 1))
        negatives = int(rng.integers(0 if name not in EXACT else 1, tables.size[0] + 1))
        batches = _subsets.random_positions(tables, positives, negatives, 20, rng, 10**6)
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
        values = measure.null_values(cover, positives, negatives, n_samples, np.random.default_rng(case))
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
# samplers
# --------------------------------------------------------------------------


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
    _subsets._distinct_marks(np.random.default_rng(size), population, size, marks)
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
    values = _subsets._distinct_values(rng, population, size, marks)
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
    new = _subsets._fill(rng, population, marks, np.full(rows, 2))
    assert (marks.sum(axis=1) == 4).all() and (marks[:, [1, 4]] == 1).all()
    assert (np.diff(new // population) >= 0).all()
    free = np.nonzero(marks[:, [0, 2, 3, 5, 6]])[1].reshape(rows, 2)
    assert_uniform_subsets(free, 5, 2)


# --------------------------------------------------------------------------
# the randomization test
# --------------------------------------------------------------------------


def null_data(rng, n_rows=3000, n_attributes=150):
    """A model whose performance does not depend on the binary attributes."""
    label = rng.random(n_rows) < 0.3
    score = 1 / (1 + np.exp(-(1.5 * label + rng.normal(size=n_rows))))
    attributes = {
        f"a{i}": rng.random(n_rows) < rng.uniform(0.02, 0.7) for i in range(n_attributes)
    }
    return pd.DataFrame({"label": label.astype(int), "score": score, **attributes})


def attribute_patterns(data):
    return [
        ps.Conjunction([ps.EqualitySelector(column, True)])
        for column in data.columns
        if column.startswith("a")
    ]


TARGET = subroc_ext.SoftClassifierTarget("label", "score")
QUALITY_FUNCTIONS = {
    "roc_auc": lambda: subroc_ext.ROCAUCQF("label"),
    "pr_auc": lambda: subroc_ext.PRAUCQF("label", 1),
    "arl": lambda: subroc_ext.ARLQF("label", 1),
    "attribution_mean": lambda: subroc_ext.AttributionMeanQF("label", 1),
}


@pytest.mark.parametrize("name", list(QUALITY_FUNCTIONS))
def test_p_values_are_uniform_under_the_null(name):
    rng = np.random.default_rng(2024 + len(name))
    data = null_data(rng)
    table = randomization_test(
        attribute_patterns(data), data, QUALITY_FUNCTIONS[name](), target=TARGET,
        n_samples=150, random_state=1,
    )  # fmt: skip
    assert table["testable"].all()
    assert stats.kstest(table["p_value"], "uniform").pvalue > 0.01
    # Benjamini-Yekutieli keeps the false discovery rate at 5%: with every
    # hypothesis true, it rejects none with probability at least 95%.
    assert table["significant"].sum() <= 1


def planted_data(rng, n_rows=3000):
    data = null_data(rng, n_rows, n_attributes=5)
    planted = np.zeros(n_rows, dtype=bool)
    planted[rng.choice(n_rows, 120, replace=False)] = True
    data["planted"] = planted
    data.loc[planted, "score"] = 1 - data.loc[planted, "score"]  # the model fails there
    return data


def test_planted_weak_subgroup_is_significant():
    rng = np.random.default_rng(7)
    data = planted_data(rng)
    patterns = [ps.Conjunction([ps.EqualitySelector("planted", True)]), *attribute_patterns(data)]
    table = randomization_test(patterns, data, subroc_ext.ROCAUCQF("label"), target=TARGET,
                               n_samples=500, random_state=0)  # fmt: skip
    assert table.loc[0, "significant"]
    assert table.loc[0, "p_value"] == 1 / 501  # no random subset is as bad
    assert table.loc[0, "measure"] < 0.5
    assert not table.loc[1:, "significant"].any()


def test_p_value_counts_the_null_values_and_is_never_zero():
    rng = np.random.default_rng(3)
    data = planted_data(rng, 800)
    pattern = ps.Conjunction([ps.EqualitySelector("a0", True)])
    qf = subroc_ext.ROCAUCQF("label")
    table = randomization_test([pattern], data, qf, target=TARGET, n_samples=300, random_state=9)
    # replay: the generator of the key (size, negatives) draws the same null values
    qf.calculate_constant_statistics(data, TARGET)
    stats_ = qf.calculate_statistics(pattern, TARGET, data)
    null = qf.raw_quality(
        qf.measure.null_values(
            qf._dataset.cover(), stats_.positives_count, stats_.negatives_count, 300,
            null_rng(9, (stats_.size_sg, stats_.negatives_count)),
        )
    )  # fmt: skip
    count = np.count_nonzero(null >= stats_.raw_quality - 1e-12)
    assert table.loc[0, "p_value"] == (1 + count) / 301
    assert table.loc[0, "statistic"] == stats_.raw_quality
    # the whole data: every random subset is the data itself
    whole = randomization_test([ps.Conjunction([])], data, qf, target=TARGET, n_samples=50)
    assert whole.loc[0, "p_value"] == 1.0
    # the planted subgroup: no random subset reaches it, yet p > 0
    planted = ps.Conjunction([ps.EqualitySelector("planted", True)])
    table = randomization_test([planted], data, qf, target=TARGET, n_samples=50, random_state=0)
    assert table.loc[0, "p_value"] == 1 / 51


#: Canonical names, statsmodels-only methods (fdr_gbs, lfdr) and aliases (b, fdrcorr)
#: all come from statsmodels' own table.
@pytest.mark.parametrize(
    "method", ["fdr_by", "fdr_bh", "bonferroni", "holm", "hommel", "fdr_gbs", "lfdr", "b", "fdrcorr"]
)
def test_corrected_p_values_are_statsmodels(method):
    rng = np.random.default_rng(4)
    data = planted_data(rng, 1500)
    patterns = [ps.Conjunction([ps.EqualitySelector("planted", True)]), *attribute_patterns(data)]
    table = randomization_test(patterns, data, subroc_ext.ROCAUCQF("label"), target=TARGET,
                               n_samples=100, method=method, alpha=0.1, random_state=0)  # fmt: skip
    rejected, corrected, _, _ = multipletests(table["p_value"], alpha=0.1, method=method)
    np.testing.assert_array_equal(table["p_value_corrected"], corrected)
    np.testing.assert_array_equal(table["significant"], rejected)
    assert list(table.columns) == [
        "subgroup", "size", "positives", "negatives", "measure", "statistic", "p_value",
        "p_value_corrected", "significant", "testable",
    ]  # fmt: skip


def test_untestable_patterns_get_p_one():
    rng = np.random.default_rng(5)
    data = planted_data(rng, 600)
    data["only_negative"] = data["label"] == 0
    patterns = [
        ps.Conjunction([ps.EqualitySelector("only_negative", True)]),  # ROC AUC undefined
        ps.Conjunction([ps.EqualitySelector("planted", True)]),
    ]
    table = randomization_test(patterns, data, subroc_ext.ROCAUCQF("label"), target=TARGET,
                               n_samples=200, random_state=0)  # fmt: skip
    assert table["testable"].tolist() == [False, True]
    assert table.loc[0, "p_value"] == 1.0
    assert not table.loc[0, "significant"]
    assert table.loc[1, "significant"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"method": "fdr_xx"}, "method must be one of"),
        ({"alpha": 0.0}, "alpha must be in"),
        ({"alpha": 1.5}, "alpha must be in"),
        ({"n_samples": 0}, "n_samples must be a positive integer"),
        ({"n_samples": 10.5}, "n_samples must be a positive integer"),
    ],
)
def test_bad_arguments_raise(kwargs, message):
    data = planted_data(np.random.default_rng(6), 300)
    with pytest.raises(ValueError, match=message):
        randomization_test(attribute_patterns(data), data, subroc_ext.ROCAUCQF("label"),
                           target=TARGET, **kwargs)  # fmt: skip


def test_empty_data_and_missing_target_raise():
    data = planted_data(np.random.default_rng(6), 300)
    with pytest.raises(ValueError, match="validation data is empty"):
        randomization_test(attribute_patterns(data), data.iloc[:0], subroc_ext.ROCAUCQF("label"),
                           target=TARGET)  # fmt: skip
    with pytest.raises(ValueError, match="pass target="):
        randomization_test(attribute_patterns(data), data, subroc_ext.ROCAUCQF("label"))
    with pytest.raises(ValueError, match="size must be between"):
        sample_subsets(np.random.default_rng(0), 3, 4, 1)


def test_reproducible_and_accepts_results_and_descriptions():
    rng = np.random.default_rng(8)
    data = planted_data(rng, 1500)
    qf = subroc_ext.ROCAUCQF("label")
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    task = ps.SubgroupDiscoveryTask(data, TARGET, selectors, qf, result_set_size=8, depth=1)
    result = ps.BestFirstSearch().execute(task)
    first = randomization_test(result, data, qf, n_samples=200, random_state=3)
    again = randomization_test(result, data, qf, n_samples=200, random_state=3)
    pd.testing.assert_frame_equal(first, again)
    descriptions = [description for _, description, *_ in result.results]
    listed = randomization_test(descriptions, data, qf, target=TARGET, n_samples=200,
                                random_state=3)  # fmt: skip
    pd.testing.assert_frame_equal(first, listed)
    other = randomization_test(result, data, qf, n_samples=200, random_state=4)
    assert not np.array_equal(first["p_value"], other["p_value"])
    # a Generator gives one base seed: the same generator state, the same table
    from_generator = randomization_test(result, data, qf, n_samples=200,
                                        random_state=np.random.default_rng(3))  # fmt: skip
    pd.testing.assert_frame_equal(
        from_generator,
        randomization_test(result, data, qf, n_samples=200, random_state=np.random.default_rng(3)),
    )
    assert base_seed(np.random.default_rng(3)) == base_seed(np.random.default_rng(3))
    # no seed: fresh entropy, drawn once per call
    assert base_seed(None) != base_seed(None)


@pytest.mark.parametrize("name", ["roc_auc", "pr_auc", "arl", "attribution_mean"])
def test_p_values_do_not_depend_on_the_order_or_the_other_subgroups(name):
    rng = np.random.default_rng(12)
    data = planted_data(rng, 1200)
    patterns = [ps.Conjunction([ps.EqualitySelector("planted", True)]), *attribute_patterns(data)]
    qf = QUALITY_FUNCTIONS[name]()
    table = randomization_test(patterns, data, qf, target=TARGET, n_samples=300, random_state=5)
    assert table["size"].nunique() > 1  # several null distributions
    order = rng.permutation(len(patterns))
    shuffled = randomization_test([patterns[i] for i in order], data, qf, target=TARGET,
                                  n_samples=300, random_state=5)  # fmt: skip
    columns = ["subgroup", "size", "negatives", "statistic", "p_value", "testable"]
    pd.testing.assert_frame_equal(
        shuffled[columns], table[columns].iloc[order].reset_index(drop=True)
    )
    # each subgroup alone gets the p-value it has among the others
    for i in rng.choice(len(patterns), 3, replace=False):
        alone = randomization_test([patterns[i]], data, qf, target=TARGET, n_samples=300,
                                   random_state=5)  # fmt: skip
        assert alone.loc[0, "p_value"] == table.loc[i, "p_value"]


@pytest.mark.parametrize("random_state, error", [
    (-1, ValueError), (1.5, TypeError), ("seed", TypeError), (True, TypeError),
])  # fmt: skip
def test_bad_random_state_is_rejected(random_state, error):
    with pytest.raises(error, match="random_state"):
        base_seed(random_state)


def test_benchmark_smoke_run():
    process = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke"], capture_output=True, text=True, timeout=300,
        check=False,
    )
    assert process.returncode == 0, process.stdout + process.stderr
    assert "randomization_test" in process.stdout
    if hasattr(ps, "permutation_test"):
        assert "speed-up" in process.stdout
    else:  # pysubgroup 0.8 (Python >= 3.13): nothing to compare with, and it says so
        assert "has no permutation_test" in process.stdout and "speed-up" not in process.stdout
