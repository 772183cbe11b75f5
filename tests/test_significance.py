"""Tests of :mod:`subroc_ext.inference.significance`: the randomization test.

* p-values are uniform where the model's performance is unrelated to the
  attributes; a planted weak subgroup is found.
* p-values, corrections, validation, reproducibility and input forms.

The null distributions behind it are tested in ``test_null_sampling.py``,
the random subsets in ``test_subsets.py``.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import subroc_ext
from subroc_ext.scoring.null_sampling import rank_null_values
from subroc_ext.inference.significance import (
    base_seed,
    null_rng,
    randomization_test,
    sample_subsets,
)

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_significance.py"


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
    # replay: the generator of the key (size, negatives) draws the same random
    # subsets, whose exact values the refined rank sampler gives to the end
    qf.calculate_constant_statistics(data, TARGET)
    stats_ = qf.calculate_statistics(pattern, TARGET, data)
    null = qf.raw_quality(
        rank_null_values(
            qf.prepared_measure, qf.dataset.cover(), stats_.positives_count,
            stats_.negatives_count, 300, null_rng(9, (stats_.size_sg, stats_.negatives_count)),
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
        "p_value_corrected", "significant", "testable", "null_samples", "p_value_exact",
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
        ({"n_samples": 0}, "n_samples must be 'adaptive' or a positive integer"),
        ({"n_samples": 10.5}, "n_samples must be 'adaptive' or a positive integer"),
        ({"n_samples": "auto"}, "n_samples must be 'adaptive' or a positive integer"),
        ({"max_samples": 0}, "max_samples must be a positive integer"),
        ({"exceedances": 2.5}, "exceedances must be a positive integer"),
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


def test_benchmark_smoke_run(capsys):
    """The benchmark's smoke mode, by its ``main`` (what its ``__main__`` guard
    calls) in this process."""
    spec = importlib.util.spec_from_file_location("bench_significance", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    status = bench.main(["--smoke"])
    printed = capsys.readouterr()
    assert status == 0, printed.out + printed.err
    assert "randomization_test" in printed.out
    if hasattr(ps, "permutation_test"):
        assert "speed-up" in printed.out
    else:  # pysubgroup 0.8 (Python >= 3.13): nothing to compare with, and it says so
        assert "has no permutation_test" in printed.out and "speed-up" not in printed.out
