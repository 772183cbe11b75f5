"""Tests of :func:`subroc_ext.find_regressions` and :func:`subroc_ext.find_drift`:
planted regressions and drifts are found at rank 1 and significant, p-values
are calibrated without a planted effect (seeded simulation), the table is
the same with pysubgroup's BestFirstSearch, and bad input is named."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

import subroc_ext
from subroc_ext.objective.comparison import ComparisonQF, ComparisonTarget, DriftTarget
from subroc_ext.scoring.measures import ROCAUC, AverageRankingLoss

PLANTED = "region=='south'"  # with weights, a larger subgroup holding a planted one ranks first


def scored_rows(rng, n, scrambled):
    """Attributes, a label and a score of a good model; with ``scrambled``,
    the score is permuted among the rows of the planted subgroup."""
    frame = pd.DataFrame({
        "region": rng.choice(["north", "south", "east", "west"], n),
        "plan": rng.choice(["basic", "premium"], n),
        "age": rng.integers(18, 80, n),
        "y": (rng.random(n) < 0.4).astype(int),
    })  # fmt: skip
    score = 1 / (1 + np.exp(-(2.5 * frame["y"] - 1.2 + rng.normal(size=n))))
    if scrambled:
        inside = (frame["region"] == "south").to_numpy()
        score[inside] = rng.permutation(score[inside].to_numpy())
    frame["p"] = score
    return frame


def regression_data(seed, n=3000, planted=True):
    """Two models of comparable quality on the same rows; the new one
    ranks at random in the planted subgroup."""
    rng = np.random.default_rng(seed)
    data = scored_rows(rng, n, scrambled=planted).rename(columns={"p": "new"})
    data["old"] = 1 / (1 + np.exp(-(2.5 * data["y"] - 1.2 + rng.normal(size=n))))
    return data


SETTINGS = {"depth": 2, "result_set_size": 20, "n_samples": 4000, "random_state": 0, "progress": False}


@pytest.mark.parametrize("measure", ["roc_auc", "pr_auc", "attribution_mean"])
def test_planted_regression_is_found_first_and_significant(measure):
    table = subroc_ext.find_regressions(
        regression_data(0), label="y", score="new", baseline="old", measure=measure, **SETTINGS
    )
    first = table.iloc[0]
    assert first["description"] == PLANTED
    assert first["significant"]
    assert first["delta_validation"] == first["statistic"] > 0
    if measure == "roc_auc":
        assert first["roc_auc_validation"] < 0.65 < 0.8 < first["roc_auc_baseline_validation"]
    # no false discovery: every significant pattern lies in the planted subgroup
    significant = table.loc[table["significant"], "description"]
    assert significant.str.contains(PLANTED, regex=False).all(), significant.tolist()


def test_planted_drift_is_found_first_and_significant():
    rng = np.random.default_rng(1)
    reference, current = scored_rows(rng, 3000, False), scored_rows(rng, 2500, True)
    table = subroc_ext.find_drift(reference, current, label="y", score="p", **SETTINGS)
    first = table.iloc[0]
    assert first["description"] == PLANTED
    assert first["significant"]
    assert first["roc_auc_current_validation"] < 0.65 < 0.8 < first["roc_auc_reference_validation"]
    assert first["size_reference_search"] >= 20 and first["size_current_search"] >= 20
    significant = table.loc[table["significant"], "description"]
    assert significant.str.contains(PLANTED, regex=False).all(), significant.tolist()
    # validation given as a pair of frames: the same kind of result
    halves = [(frame.iloc[::2], frame.iloc[1::2]) for frame in (reference, current)]
    table = subroc_ext.find_drift(
        halves[0][0], halves[1][0], label="y", score="p", validation=(halves[0][1], halves[1][1]),
        **SETTINGS,
    )  # fmt: skip
    assert table.iloc[0]["description"] == PLANTED and table.iloc[0]["significant"]


@pytest.mark.extended  # a seeded simulation
@pytest.mark.parametrize("paired", [True, False])
def test_p_values_are_calibrated_without_a_planted_effect(paired):
    """A subgroup chosen independently of everything (``g == 'a'``) on data
    without any effect: over 400 seeded validation sets the p-value is at
    most ``u`` about ``u`` of the time (valid and not conservative)."""
    n_replicates, n_samples = 400, 199
    p_values = []
    for seed in range(n_replicates):
        rng = np.random.default_rng(seed)
        n = 300
        data = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "y": rng.integers(0, 2, n)})
        data["p"] = np.round(rng.normal(size=n) + data["y"], 1)  # ties
        data["old"] = data["p"] + 0.3 * rng.normal(size=n)  # correlated models: pairing matters
        data["period"] = rng.choice(["then", "now"], n)
        target = ComparisonTarget("y", "p", "old") if paired else DriftTarget("y", "p", "period", "now")
        qf = ComparisonQF(ROCAUC() if seed % 2 else AverageRankingLoss(), "y", mode="worse")
        tested = subroc_ext.randomization_test(
            [ps.Conjunction([ps.EqualitySelector("g", "a")])], data, qf, target=target,
            n_samples=n_samples, random_state=seed,
        )  # fmt: skip
        p_values.append(tested["p_value"][0])
    p_values = np.array(p_values)
    for u in (0.05, 0.2, 0.5, 0.8):
        rate = np.mean(p_values <= u)
        spread = 3.5 * np.sqrt(u * (1 - u) / n_replicates)
        assert abs(rate - u) <= spread, (u, rate)


def test_best_first_search_gives_the_same_table():
    data = regression_data(3, n=800)
    settings = {**SETTINGS, "n_samples": 100, "result_set_size": 8}
    ours = subroc_ext.find_regressions(data, label="y", score="new", baseline="old", **settings)
    theirs = subroc_ext.find_regressions(
        data, label="y", score="new", baseline="old", algorithm=ps.BestFirstSearch(), **settings
    )
    pd.testing.assert_frame_equal(ours.drop(columns="subgroup"), theirs.drop(columns="subgroup"))


def test_bad_input_is_named():
    data = regression_data(4, n=200)
    with pytest.raises(ValueError, match="score and baseline are the same column"):
        subroc_ext.find_regressions(data, label="y", score="new", baseline="new")
    with pytest.raises(KeyError, match="older"):
        subroc_ext.find_regressions(data, label="y", score="new", baseline="older")
    with pytest.raises(ValueError, match="the validation split: roc_auc is undefined on the baseline data"):
        subroc_ext.find_regressions(
            data, label="y", score="new", baseline="old", validation=data.assign(y=1), progress=False
        )
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        subroc_ext.find_regressions(data, label="y", score="new", baseline="old", depth=0)
    with pytest.raises(ValueError, match="pair of DataFrames"):
        subroc_ext.find_drift(data, data, label="y", score="new", validation=data)
    with pytest.raises(KeyError, match="current data lacks"):
        subroc_ext.find_drift(data, data.drop(columns="plan"), label="y", score="new")
    with pytest.raises(ValueError, match="the reference data is empty"):
        subroc_ext.find_drift(data.iloc[:0], data, label="y", score="new")


def test_a_period_column_in_the_data_is_kept_apart():
    """An input column named ``period`` is an attribute like any other."""
    rng = np.random.default_rng(2)
    reference, current = scored_rows(rng, 1500, False), scored_rows(rng, 1500, True)
    reference["period"], current["period"] = "x", rng.choice(["x", "y"], 1500)
    table = subroc_ext.find_drift(reference, current, label="y", score="p", **SETTINGS)
    assert table.iloc[0]["description"] == PLANTED


def test_comparison_tables_describe_their_search_space():
    """find_regressions and find_drift carry attrs['search_space'] as find_subgroups does."""
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 1200), "label": rng.integers(0, 2, 1200)})
    data["old"] = 0.5 * data["label"] + 0.5 * rng.random(1200)
    data["new"] = np.where(data["a"] == "x", rng.random(1200), data["old"])
    table = subroc_ext.find_regressions(data, label="label", score="new", baseline="old", depth=1,
                                        n_samples=50, progress=False)  # fmt: skip
    assert table.attrs["search_space"] == {"conditions": 3, "left_out": {}, "rare_values": {}, "notes": [],
                                           "candidates_bound": 3}  # fmt: skip
