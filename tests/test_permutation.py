"""The whole-search permutation test (no holdout): the permuted searches, the
max-T p-values, the family-wise error on null data and the power on small data.

* Each permuted search is the search on data whose scores were shuffled
  within the classes (brute force over every pattern of the shuffled frame).
* The p-values are the Besag-Clifford p-values of the permuted maxima,
  recomputed here from the maxima themselves.
* Null data (scores independent of the attributes within each class): the
  family-wise error is at most alpha within Monte Carlo error (500 data sets
  at depth 1 and 2, ROC AUC and PR AUC, with ``-m slow``; a shorter run by
  default).
* A planted subgroup in small data: found significant much more often than
  by the 50/50 holdout with Benjamini-Yekutieli on the same data.
"""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from scipy import stats
from search_helpers import brute_force_top_k
from synthetic import multiclass_frame

import subroc_ext
from subroc_ext.engine.search import SearchProblem
from subroc_ext.inference import permutation
from subroc_ext.inference.permutation import (
    max_t,
    _permuted_top,
    _step_maxima,
    permutation_test,
    permuted_positions,
)
from subroc_ext.workflow import steps

TARGET = subroc_ext.SoftClassifierTarget("label", "score")


def null_frame(seed, n=400):
    """Three categorical attributes and a numeric one; the scores depend on
    the label only (null: independent of the attributes within each class)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(list("pqr"), n), "b": rng.choice(list("pq"), n),
                          "c": rng.choice(list("pqrs"), n), "x": rng.normal(size=n).round(2)})  # fmt: skip
    frame["label"] = (rng.random(n) < 0.3).astype(int)
    frame["score"] = frame["label"] + rng.normal(size=n)
    return frame


def planted_frame(seed, n, strength=1.0):
    """As :func:`null_frame`, but where ``a == 'p'`` (a third of the rows) the
    scores separate the classes ``1 - strength`` as well as elsewhere (at
    chance for strength 1)."""
    frame = null_frame(seed, n)
    rng = np.random.default_rng([seed, 1])
    separation = np.where(frame["a"] == "p", 1.0 - strength, 1.0)
    return frame.assign(score=separation * frame["label"] + rng.normal(size=n))


def _problem(data, qf, depth, min_support=10):
    space = subroc_ext.make_search_space(data, ignore=["label", "score"])
    task = ps.SubgroupDiscoveryTask(data, TARGET, list(space), qf, result_set_size=1, depth=depth,
                                    constraints=[ps.MinSupportConstraint(min_support)])  # fmt: skip
    return SearchProblem.from_task(task), list(space)


def _shuffled(data, qf, strata, seed, permutation):
    """``data`` in score order with the attributes moved as the permutation
    moves them (the label and score columns stay): the data the permuted
    search searches."""
    dataset = qf.dataset if hasattr(qf, "dataset") else qf.qf.dataset
    ordered = data.iloc[dataset.order].reset_index(drop=True)
    position = permuted_positions(strata, seed, permutation)
    source = np.empty_like(position)
    source[position] = np.arange(len(position))  # the row whose attributes land at each position
    attributes = ordered.drop(columns=["label", "score"]).iloc[source].reset_index(drop=True)
    return attributes.assign(label=ordered["label"], score=ordered["score"])


@pytest.mark.parametrize("measure", ["roc_auc", "pr_auc", "arl", "attribution_mean"])
@pytest.mark.parametrize("generalization_aware", [False, True])
def test_a_permuted_search_is_the_search_of_data_with_shuffled_scores(measure, generalization_aware):
    data = null_frame(3, 300)
    qf = subroc_ext.make_quality_function(measure, "label", size_weight=1, balance_weight=1,
                                          generalization_aware=generalization_aware)  # fmt: skip
    problem, selectors = _problem(data, qf, depth=2)
    strata = problem.strata()
    assert (strata == qf_dataset(qf).is_positive).all()
    for permutation in range(3):
        top = _permuted_top((problem, strata), 7, permutation, 3, -np.inf)
        shuffled = _shuffled(data, qf, strata, 7, permutation)
        fresh = subroc_ext.make_quality_function(measure, "label", size_weight=1, balance_weight=1,
                                                 generalization_aware=generalization_aware)  # fmt: skip
        expected = brute_force_top_k(fresh, shuffled, selectors, 2, 10, 3, include_root=False)
        assert [quality for quality, _ in top] == pytest.approx([quality for quality, _ in expected], rel=1e-9)
        # every class keeps its scores, and every attribute its values
        assert sorted(shuffled["score"]) == sorted(data["score"])
        assert not shuffled["a"].equals(data.iloc[qf_dataset(qf).order]["a"].reset_index(drop=True))


def qf_dataset(qf):
    return qf.dataset if hasattr(qf, "dataset") else qf.qf.dataset


def test_permuted_positions_stay_within_each_stratum_and_depend_on_the_seed_and_number():
    strata = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0] * 5)
    moved = permuted_positions(strata, 5, 2)
    assert (strata[moved] == strata).all() and sorted(moved) == list(range(len(strata)))
    assert (moved == permuted_positions(strata, 5, 2)).all()
    assert not (moved == permuted_positions(strata, 5, 3)).all()
    assert not (moved == permuted_positions(strata, 6, 2)).all()


def test_strata_of_comparisons_and_multiclass_keep_classes_and_periods_apart():
    data = planted_frame(0, 200).assign(old=lambda f: f["score"] + 0.1)
    paired = subroc_ext.ComparisonQF(subroc_ext.scoring.measures.ROCAUC(), "label")
    target = subroc_ext.ComparisonTarget("label", "score", "old")
    task = ps.SubgroupDiscoveryTask(data, target, ps.create_selectors(data, ignore=["label", "score", "old"]),
                                    paired, depth=1)  # fmt: skip
    problem = SearchProblem.from_task(task)
    labels = data["label"].to_numpy()[paired.sides.positions]
    assert (problem.strata() == labels).all()  # the classes (both models share the rows)

    period = np.where(np.arange(200) < 120, "reference", "current")
    drift_data = data.assign(period=period)
    drift = subroc_ext.ComparisonQF(subroc_ext.scoring.measures.ROCAUC(), "label")
    target = subroc_ext.DriftTarget("label", "score", "period", current="current")
    task = ps.SubgroupDiscoveryTask(drift_data, target, ps.create_selectors(data, ignore=["label", "score"]),
                                    drift, depth=1)  # fmt: skip
    strata = SearchProblem.from_task(task).strata()
    rows = drift.sides.positions
    expected = 2 * (period[rows] == "current") + data["label"].to_numpy()[rows]
    assert (strata == expected).all()  # the class within each period

    frame, columns = multiclass_frame(0, n=240)
    qf = subroc_ext.AUCMuQF("grade", columns)
    target = subroc_ext.MultiClassTarget("grade", columns)
    task = ps.SubgroupDiscoveryTask(frame, target, ps.create_selectors(frame, ignore=["grade", *columns.values()]),
                                    qf, depth=1)  # fmt: skip
    strata = SearchProblem.from_task(task).strata()
    assert (np.asarray(qf.classes)[strata] == frame["grade"].to_numpy()).all()


def test_step_maxima_leave_out_the_better_patterns():
    top = [(9.0, (1,)), (7.0, (2,)), (5.0, (3,))]
    patterns = [(2,), (1,), (4,), (5,)]
    # u_1: the best of all; u_2: without (2,); u_3: without (2,) and (1,); u_4 = u_3 (k = 3)
    assert _step_maxima(top, patterns, 3).tolist() == [9.0, 9.0, 5.0, 5.0]
    assert _step_maxima(top, patterns, 1).tolist() == [9.0] * 4
    assert _step_maxima([], patterns, 2).tolist() == [-np.inf] * 4  # nothing above the floor


def _searched(data, depth):
    """The full framework's quality function, the search space and what the search finds."""
    qf = subroc_ext.make_quality_function("roc_auc", "label", size_weight=1, balance_weight=1,
                                          generalization_aware=True)  # fmt: skip
    space = subroc_ext.make_search_space(data, ignore=["label", "score"])
    return qf, space, steps.search(data, qf, TARGET, selectors=space, depth=depth, min_support=10, min_quality=0)


def test_p_values_are_the_besag_clifford_p_values_of_the_permuted_maxima():
    data = planted_frame(1, 400, strength=1.0)
    qf, space, found = _searched(data, depth=1)
    tested = permutation_test(found.subgroups, found.qualities, data, qf, TARGET, selectors=space, depth=1,
                              min_support=10, exceedances=5, random_state=4, step_down=False)  # fmt: skip
    assert tested.attrs["method"] == "max-T"
    problem, _ = _problem(data, qf, depth=1)
    strata = problem.strata()
    maxima = np.array([_permuted_top((problem, strata), 4, b, 1, -np.inf)[0][0]
                       for b in range(tested["null_samples"].max())])  # fmt: skip
    p_values = []
    for quality, counted in zip(found.qualities, tested["null_samples"]):
        hits = int(np.sum(maxima[:counted] >= quality))
        if hits == 5:  # finished at the 5th exceedance: h / L, the last draw a hit
            assert maxima[counted - 1] >= quality
            p_values.append(5 / counted)
        else:  # stopped once settled: the upper bound h / (L + h - G)
            p_values.append(5 / (counted + 5 - hits))
    assert tested["p_value"].to_numpy() == pytest.approx(np.maximum.accumulate(p_values))
    assert tested["significant"].tolist() == (tested["p_value"] <= 0.05).tolist()
    assert tested["significant"].iloc[0] and not tested["significant"].all()


def test_step_down_rejects_at_least_what_the_single_step_test_does():
    data = planted_frame(2, 600, strength=0.7)
    qf, space, found = _searched(data, depth=2)
    settings = dict(selectors=space, depth=2, min_support=10, random_state=0)
    single = permutation_test(found.subgroups, found.qualities, data, qf, TARGET, step_down=False, **settings)
    down = permutation_test(found.subgroups, found.qualities, data, qf, TARGET, **settings)
    assert single["significant"].sum() >= 1
    assert (down["significant"] >= single["significant"]).all()
    assert down.attrs["method"] == f"max-T step-down (top-{single['significant'].sum() + 1})"
    exact = single["p_value_exact"] & down["p_value_exact"]
    assert (down["p_value"][exact] <= single["p_value"][exact] + 1e-12).all()


@pytest.mark.parametrize("kept_top", [1, 2, 8])
def test_the_step_down_pass_reuses_the_single_step_passs_searches(kept_top, monkeypatch):
    """The single-step pass keeps each permutation's top ``KEPT_TOP``;
    the step-down pass reads the top it needs from it where that holds it
    (no new search) and searches again where not: the same p-values as
    searching every permutation afresh in each pass (``KEPT_TOP = 1``,
    a top-1 search each), fewer searches where the step-down fits."""
    data = planted_frame(2, 600, strength=0.7)
    qf, space, found = _searched(data, depth=2)
    settings = dict(selectors=space, depth=2, min_support=10, random_state=0)
    monkeypatch.setattr(permutation, "KEPT_TOP", 1)
    afresh = permutation_test(found.subgroups, found.qualities, data, qf, TARGET, **settings)
    monkeypatch.setattr(permutation, "KEPT_TOP", kept_top)
    reused = permutation_test(found.subgroups, found.qualities, data, qf, TARGET, **settings)
    pd.testing.assert_frame_equal(reused, afresh, check_like=False)
    k = int(afresh.attrs["method"].rsplit("top-", 1)[1].rstrip(")"))
    searches = reused.attrs["null_searches"], afresh.attrs["null_searches"]
    assert searches[0] < searches[1] if kept_top >= k else searches[0] == searches[1]


def test_step_down_is_skipped_only_where_it_decides_as_the_single_step_test():
    """Where no pattern the single-step test rejects was the best of a
    permutation, the step-down pass gives the same p-values up to the first
    pattern not rejected (so the same decisions); where one was, it may not."""
    skipped = 0
    for seed in range(6):
        data = planted_frame(seed, 500, strength=0.8)
        qf, space, found = _searched(data, depth=1)
        problem, _ = _problem(data, qf, depth=1)
        strata = problem.strata()
        patterns = problem.patterns_of(found.subgroups)
        statistics = np.array(found.qualities)
        tolerances = 1e-12 * np.maximum(np.abs(statistics), 1)

        def draw(permutations, k, floor):
            return [_permuted_top((problem, strata), seed, b, k, floor) for b in permutations]

        single, _, _, _, best = max_t(draw, statistics, tolerances, patterns, 1, 10_000, 10, 0.05)
        rejected = int(np.sum(single <= 0.05))
        if not 0 < rejected < len(patterns):
            continue
        down, *_ = max_t(draw, statistics, tolerances, patterns, rejected + 1, 10_000, 10, 0.05)
        if not best & set(patterns[:rejected]):
            skipped += 1
            np.testing.assert_array_equal(down[: rejected + 1], single[: rejected + 1])
        assert (down[: rejected + 1] <= single[: rejected + 1]).all()
    assert skipped >= 1


def test_the_same_p_values_on_any_number_of_threads():
    data = planted_frame(5, 500, strength=0.6)
    tables = [
        subroc_ext.find_subgroups(data, label="label", score="score", validation=None, depth=2,
                                  progress=False, random_state=3, n_jobs=jobs)  # fmt: skip
        for jobs in (1, 2)
    ]
    columns = ["description", "statistic", "p_value", "null_samples", "significant", "p_value_exact"]
    pd.testing.assert_frame_equal(tables[0][columns], tables[1][columns])
    assert tables[0].attrs["null_samples_drawn"] == tables[1].attrs["null_samples_drawn"]


def test_find_subgroups_without_a_holdout_says_why_there_is_no_interval():
    data = planted_frame(6, 600)
    table = subroc_ext.find_subgroups(data, label="label", score="score", validation=None, depth=1,
                                      progress=False, random_state=0)  # fmt: skip
    assert table["description"].iloc[0] == "a=='p'" and table["significant"].iloc[0]
    assert table["delta_ci_low"].isna().all() and table["delta_ci_high"].isna().all()
    assert table["verdict_note"].str.contains("winner's curse").all()
    assert not any(column.endswith("_validation") for column in table.columns)
    assert table["size_search"].max() < len(data) and not table.attrs["holdout"]
    assert table["statistic"].tolist() == table["quality"].tolist()  # the searched quality is the statistic
    with pytest.raises(ValueError, match="min_delta needs a holdout"):
        subroc_ext.find_subgroups(data, label="label", score="score", validation=None, min_delta=0.01)


@pytest.mark.parametrize("kind", ["regressions", "drift", "multiclass"])
def test_comparisons_and_multiclass_without_a_holdout_find_the_planted_subgroup(kind):
    if kind == "multiclass":
        frame, columns = multiclass_frame(0, n=300)
        table = subroc_ext.find_multiclass_subgroups(frame, label="grade", score_columns=columns, validation=None,
                                                     depth=1, progress=False)  # fmt: skip
        assert table["description"].iloc[0] == "a0=='p'" and table["significant"].iloc[0]
        assert table["verdict_note"].str.contains("winner's curse").all()
        return
    data = planted_frame(7, 800)
    if kind == "regressions":
        old = data["label"] + np.random.default_rng(1).normal(size=len(data))
        table = subroc_ext.find_regressions(data.assign(old=old), label="label", score="score", baseline="old",
                                            validation=None, depth=1, progress=False)  # fmt: skip
    else:
        reference = null_frame(8, 800)
        table = subroc_ext.find_drift(reference, data, label="label", score="score", validation=None, depth=1,
                                      progress=False)  # fmt: skip
    assert table["description"].iloc[0] == "a=='p'" and table["significant"].iloc[0]
    assert table["verdict_note"].str.contains("winner's curse").all()


def _family_wise_rejections(n_datasets, depth, measure, n=400):
    rejected = 0
    for seed in range(n_datasets):
        table = subroc_ext.find_subgroups(null_frame(seed, n), label="label", score="score", measure=measure,
                                          validation=None, depth=depth, progress=False, random_state=seed)  # fmt: skip
        rejected += bool(table["significant"].any())
    return rejected


def _at_most_alpha(rejected, n_datasets, alpha=0.05):
    """At most ``alpha`` within Monte Carlo error: the one-sided binomial test
    at level 0.01 does not reject ``P(reject) <= alpha``."""
    return stats.binomtest(rejected, n_datasets, alpha, alternative="greater").pvalue > 0.01


@pytest.mark.extended  # a seeded simulation
def test_family_wise_error_on_null_data():
    rejected = _family_wise_rejections(40, 1, "roc_auc")
    assert _at_most_alpha(rejected, 40)
    assert rejected <= 6


@pytest.mark.slow
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("measure", ["roc_auc", "pr_auc"])
def test_family_wise_error_on_500_null_data_sets(depth, measure):
    rejected = _family_wise_rejections(500, depth, measure)
    print(f"FWER {measure} depth {depth}: {rejected}/500 = {rejected / 500:.3f}")
    assert _at_most_alpha(rejected, 500)


def _power(n_datasets, n, strength, depth):
    """Share of data sets where each test finds ``a=='p'`` significant."""
    found = {None: 0, 0.5: 0}
    for seed in range(n_datasets):
        frame = planted_frame(seed, n, strength)
        for validation in found:
            table = subroc_ext.find_subgroups(frame, label="label", score="score", validation=validation,
                                              depth=depth, progress=False, random_state=seed)  # fmt: skip
            found[validation] += bool(table.loc[table["significant"].astype(bool), "description"].eq("a=='p'").any())
    return found[None] / n_datasets, found[0.5] / n_datasets


def test_more_power_than_the_holdout_on_small_data():
    without, holdout = _power(8, 300, 1.0, depth=1)
    assert without - holdout >= 0.2


@pytest.mark.slow
@pytest.mark.parametrize("n, strength", [(300, 1.0), (1000, 0.6), (2000, 0.4)])
def test_more_power_than_the_holdout_on_small_data_200_data_sets(n, strength):
    without, holdout = _power(200, n, strength, depth=2)
    print(f"power n={n} strength={strength}: no holdout {without:.3f}, 50/50 holdout with BY {holdout:.3f}")
    assert without - holdout >= 0.2


@pytest.mark.parametrize("case_mix, method", [(False, "max-T"), (True, "max-T over label draws")])
def test_without_a_holdout_a_search_that_finds_nothing_is_an_empty_table(case_mix, method):
    # was KeyError: 'method' (issue 59): the empty test named no test
    data = planted_frame(6, 300)
    table = subroc_ext.find_subgroups(data, label="label", score="score", validation=None, depth=1,
                                      min_support=0.99, case_mix=case_mix, progress=False)  # fmt: skip
    assert len(table) == 0 and table.attrs["method"] == method and not table.attrs["holdout"]
    assert subroc_ext.findings_document(table)["headline"]["failures"] == []
