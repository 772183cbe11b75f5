"""Tests of :func:`subroc_ext.find_subgroups`, the whole SubROC framework in one call.

* Acceptance: on Adult, a planted weakness (a two-condition subgroup whose
  predictions are negated) is ranked first or second and marked significant
  by the full framework, and not by the basic setting; plus the two findings
  that explain why this needs depth >= 3 and a size weight below 1.
* Output contract: columns, sort order, every value against a direct
  computation on the covers, reproducibility, both ways of giving the
  validation data, ``table.attrs``.
* Input validation: every bad input fails up front (before the search) with
  a message naming the column or argument and the problem.
"""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import auc, precision_recall_curve
from sklearn.metrics import roc_auc_score as sklearn_roc_auc
from statsmodels.stats.multitest import multipletests

import subroc_ext
from subroc_ext import find_subgroups, make_quality_function
from subroc_ext.demo import datasets, modelling
from subroc_ext.workflow import pipeline, steps

COLUMNS = [
    "subgroup", "description", "alternatives", "near_copies", "quality", "overlap", "overlaps_with",
    "size_search", "positives_search", "negatives_search", "ncr_search",
    "roc_auc_search", "expected_roc_auc_search", "pr_auc_search", "arl_search", "attribution_mean_search",
    "bpsn_auc_search", "bnsp_auc_search",
    "size_validation", "positives_validation", "negatives_validation", "ncr_validation",
    "roc_auc_validation", "expected_roc_auc_validation", "pr_auc_validation", "arl_validation",
    "attribution_mean_validation", "bpsn_auc_validation", "bnsp_auc_validation",
    "roc_auc_validation_ci_low", "roc_auc_validation_ci_high",
    "statistic", "p_value", "p_value_corrected", "significant", "testable", "null_samples",
    "p_value_exact", "delta", "delta_ci_low", "delta_ci_high", "verdict", "verdict_note",
    "expected_share", "range_restricted", "complement_of", "failure", "failure_note", "failure_of",
    "promise_p_value",
]  # fmt: skip
MEASURE_NAMES = ("roc_auc", "pr_auc", "arl", "attribution_mean")
BASIC = dict(size_weight=0, balance_weight=0, generalization_aware=False)


def cover(subgroup, frame):
    return np.asarray(subgroup.covers(frame), dtype=bool)


def iou(first, second):
    return (first & second).sum() / (first | second).sum()


# ---------------------------------------------------------------------------
# acceptance: a planted weakness in Adult
# ---------------------------------------------------------------------------

ADULT_CATEGORICAL = (
    "workclass", "education", "marital_status", "occupation", "relationship", "race",
    "sex", "native_country",
)  # fmt: skip


def choose_plant(search):
    """The first seeded random pattern of two equality conditions on
    categorical columns that covers 50-150 rows of the search split, at least
    10 of each class, and at most half of each single condition's cover.

    The last condition makes the plant identifiable as a two-condition
    pattern: when it fills most of one condition's cover (the first two
    candidates without it: 'race == Amer-Indian-Eskimo and sex == Male', 77 of
    that race's 124 rows; 'education == Doctorate and occupation ==
    Prof-specialty', 106 of 140), the single condition is an equally good
    description, and the full framework reports it instead (IoU 0.62, 0.76).
    """
    labels = (search["income"] == ">50K").to_numpy()
    for seed in range(1000):
        rng = np.random.default_rng(seed)
        first, second = rng.choice(ADULT_CATEGORICAL, size=2, replace=False)
        value_1 = rng.choice(sorted(search[first].dropna().unique()))
        value_2 = rng.choice(sorted(search[second].dropna().unique()))
        mask_1 = (search[first] == value_1).to_numpy()
        mask_2 = (search[second] == value_2).to_numpy()
        mask = mask_1 & mask_2
        size, positives = mask.sum(), labels[mask].sum()
        if (
            50 <= size <= 150
            and min(positives, size - positives) >= 10
            and size <= 0.5 * min(mask_1.sum(), mask_2.sum())
        ):
            return seed, ps.Conjunction(
                [ps.EqualitySelector(first, value_1), ps.EqualitySelector(second, value_2)]
            )
    raise AssertionError("no pattern satisfies the constraints")


def negate_inside(frame, pattern):
    """The model's scores with predictions negated (s -> 1 - s) in the pattern's cover."""
    mask = cover(pattern, frame)
    frame = frame.copy()
    frame.loc[mask, "score"] = 1.0 - frame.loc[mask, "score"]
    return frame


@pytest.fixture(scope="module")
def adult():
    """Adult in four parts: model fit on part 0, parts 1 (search) and 2
    (validation) scored, the weakness planted in both."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    frame = datasets.load_adult()
    parts = modelling.split_parts(frame, 4, random_state=0)
    # One thread: much faster than an oversubscribed pool on a busy machine.
    with threadpoolctl.threadpool_limits(1):
        search, validation = modelling.fit_and_score(parts[0], "income", ">50K", parts[1], parts[2])
    seed, plant = choose_plant(search)
    return {
        "search": negate_inside(search, plant),
        "validation": negate_inside(validation, plant),
        "plant": plant,
        "seed": seed,
        "mask": cover(plant, search),
    }


def adult_search(adult, **settings):
    """find_subgroups on the planted Adult splits, with modest test effort."""
    settings = {"depth": 2, "n_samples": 1000, "result_set_size": 20, **settings}
    return find_subgroups(
        adult["search"], validation=adult["validation"], label="income", score="score",
        positive_label=">50K", random_state=0, progress=False, **settings,
    )  # fmt: skip


def test_planted_weakness_is_as_intended(adult):
    search, mask = adult["search"], adult["mask"]
    labels = (search["income"] == ">50K").to_numpy()
    scores = search["score"].to_numpy()
    assert adult["seed"] == 162
    assert str(adult["plant"]) == "occupation=='Exec-managerial' AND workclass=='Local-gov'"
    assert (mask.sum(), labels[mask].sum()) == (77, 38)
    assert subroc_ext.roc_auc_score(labels[mask], scores[mask]) < 0.3
    assert subroc_ext.roc_auc_score(labels[~mask], scores[~mask]) > 0.9
    validation_mask = cover(adult["plant"], adult["validation"])
    assert 50 <= validation_mask.sum() <= 110


def test_full_framework_finds_the_planted_weakness_and_the_basic_setting_does_not(adult):
    """The paper's section 4.3 (Figure 2), at depth 3 with alpha = beta = 0.3.

    Depth 3 (the paper: 4) lets the basic setting reach small specializations
    of the two-condition plant; alpha = beta = 1 cannot work for a plant of
    at most 150 rows (see the two tests below)."""
    full = adult_search(adult, depth=3, size_weight=0.3, balance_weight=0.3)
    assert full.attrs["generalization_aware"]
    ious = [iou(cover(sg, adult["search"]), adult["mask"]) for sg in full["subgroup"]]
    top = [i for i in range(2) if ious[i] >= 0.8]
    assert top, ious[:5]
    assert full["significant"].iloc[top[0]]
    # no random subset of the validation split is as bad: the smallest p-value
    assert full["p_value"].iloc[top[0]] == pytest.approx(1 / (1000 + 1))
    assert full["roc_auc_validation"].iloc[top[0]] < 0.3

    basic = adult_search(adult, depth=3, **BASIC)
    basic_ious = [iou(cover(sg, adult["search"]), adult["mask"]) for sg in basic["subgroup"]]
    for i in range(2):
        assert basic_ious[i] < 0.8 or not basic["significant"].iloc[i]
    # the basic setting's best are small fragments (here specializations of the plant)
    assert (basic["size_search"].head(2) < 30).all()
    assert max(basic_ious[:2]) < 0.5


def top_two_at_depth_two(search, target, qf):
    """The two best (quality, description, statistics) of a depth-2
    BestFirstSearch on Adult's search split, best first."""
    selectors = ps.create_selectors(search, nbins=5, ignore=["income", "score"])
    task = ps.SubgroupDiscoveryTask(
        search, target, selectors, qf, result_set_size=2, depth=2,
        constraints=[ps.MinSupportConstraint(20)],
    )  # fmt: skip
    return sorted(ps.BestFirstSearch().execute(task).results, key=lambda r: -r[0])


def test_size_weight_one_ranks_large_subgroups_above_any_plant_sized_one(adult):
    """Why the default weights (alpha = beta = 1) cannot find the plant: the
    best subgroups are thousands of rows with a slightly lower AUC, e.g.
    'marital_status == Married-civ-spouse' (about 5,500 rows, quality about
    300), while w * (q - g) <= n * AUC(D) <= 150 for any cover of <= 150 rows."""
    search = adult["search"]
    target = subroc_ext.SoftClassifierTarget("income", "score")
    qf = make_quality_function(
        "roc_auc", "income", positive_label=">50K", size_weight=1, balance_weight=1,
        generalization_aware=True,
    )  # fmt: skip
    result = top_two_at_depth_two(search, target, qf)
    assert result[1][0] > 2 * 150
    assert all(cover(sg, search).sum() > 1000 for _, sg, _ in result)
    assert all(iou(cover(sg, search), adult["mask"]) < 0.1 for _, sg, _ in result)
    plant_quality = qf.calculate_statistics(adult["plant"], target, search).quality
    assert 0 < plant_quality <= adult["mask"].sum() < result[1][0] / 2


def test_basic_setting_at_depth_two_ranks_a_two_condition_plant_first(adult):
    """Why the contrast needs depth >= 3: at depth 2 the basic setting cannot
    reach the plant's specializations, and the plant itself is the worst
    two-condition pattern."""
    search = adult["search"]
    target = subroc_ext.SoftClassifierTarget("income", "score")
    qf = make_quality_function("roc_auc", "income", positive_label=">50K")
    result = top_two_at_depth_two(search, target, qf)
    assert iou(cover(result[0][1], search), adult["mask"]) == 1.0


# ---------------------------------------------------------------------------
# output contract (synthetic data)
# ---------------------------------------------------------------------------


def synthetic(seed=0, n=800):
    """Four categorical attributes, a numeric one, a 0/1 label and a score
    that fails where a0 == 'p' and a1 == 'q'."""
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({f"a{i}": rng.choice(list("pqrs")[: 2 + i % 3], size=n) for i in range(4)})
    data["x"] = rng.normal(size=n)
    label = rng.random(n) < 0.35
    signal = rng.normal(size=n) + 1.5 * label
    planted = ((data["a0"] == "p") & (data["a1"] == "q")).to_numpy()
    signal[planted] = -signal[planted]
    data["y"] = label.astype(int)
    data["s"] = np.round(1.0 / (1.0 + np.exp(-signal)), 3)  # a few ties
    data.index = rng.permutation(n) + 1000  # a messy index
    return data


SETTINGS = dict(label="y", score="s", depth=2, min_support=20, result_set_size=12,
                n_samples=300, random_state=0, progress=False)  # fmt: skip


@pytest.fixture(scope="module")
def frames():
    data = synthetic()
    return data.iloc[:500], data.iloc[500:]


@pytest.fixture(scope="module")
def table(frames):
    search, validation = frames
    return find_subgroups(search, validation=validation, **SETTINGS)


def brute_measures(labels, scores, mask, attributions):
    """ROC AUC, PR AUC, ARL and attribution mean of the rows in ``mask``, by
    pairwise counting and sklearn (NaN where undefined)."""
    y, s = labels[mask], scores[mask]
    positives, negatives = y.sum(), (~y).sum()
    wins = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
    roc = wins[y][:, ~y].mean() if positives and negatives else np.nan
    arl = wins[~y][:, y].sum(0).mean() if positives else np.nan
    if positives:
        precision, recall, _ = precision_recall_curve(y, s)
        pr = auc(recall, precision)
    else:
        pr = np.nan
    return {
        "roc_auc": roc, "pr_auc": pr, "arl": arl,
        "attribution_mean": attributions[mask].mean() if mask.any() else np.nan,
    }  # fmt: skip


def brute_attributions(labels, scores):
    wins = (scores[:, None] > scores[None, :]) + 0.5 * (scores[:, None] == scores[None, :])
    of_positive = 0.5 * wins[:, ~labels].sum(1) / (~labels).sum()
    of_negative = 0.5 * wins[labels, :].sum(0) / labels.sum()
    return np.where(labels, of_positive, of_negative)


def test_columns_and_order(table):
    assert list(table.columns) == COLUMNS
    assert len(table) == SETTINGS["result_set_size"]
    assert table.index.tolist() == list(range(len(table)))
    assert np.all(np.diff(table["quality"].to_numpy()) <= 0)
    assert table["description"].tolist() == [str(sg) for sg in table["subgroup"]]
    assert table["description"].is_unique
    assert table["significant"].dtype == bool and table["testable"].dtype == bool


@pytest.mark.parametrize("split", ["search", "validation"])
def test_descriptive_columns_equal_direct_computation(table, frames, split):
    frame = frames[0] if split == "search" else frames[1]
    labels = frame["y"].to_numpy() == 1
    scores = frame["s"].to_numpy()
    attributions = brute_attributions(labels, scores)
    for _, row in table.iterrows():
        mask = cover(row["subgroup"], frame)
        assert row[f"size_{split}"] == mask.sum()
        assert row[f"positives_{split}"] == labels[mask].sum()
        assert row[f"negatives_{split}"] == (~labels[mask]).sum()
        assert row[f"ncr_{split}"] == pytest.approx((~labels[mask]).mean())
        expected = brute_measures(labels, scores, mask, attributions)
        for name in MEASURE_NAMES:
            assert row[f"{name}_{split}"] == pytest.approx(expected[name], rel=1e-10, nan_ok=True)
        # Borkan et al.'s bias AUCs: the rows outside the subgroup are the background
        for name, positives, negatives in (("bpsn", ~mask, mask), ("bnsp", mask, ~mask)):
            pos, neg = scores[positives & labels], scores[negatives & ~labels]
            wins = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
            expected_bias = wins.mean() if wins.size else np.nan
            assert row[f"{name}_auc_{split}"] == pytest.approx(expected_bias, nan_ok=True)
        if split == "validation" and labels[mask].any() and not labels[mask].all():
            auc_value = subroc_ext.roc_auc_score(labels[mask], scores[mask])
            assert row["roc_auc_validation"] == pytest.approx(auc_value)
            assert auc_value == pytest.approx(sklearn_roc_auc(labels[mask], scores[mask]))
    assert table[f"size_{split}"].min() > 0


def test_quality_and_statistic_equal_direct_computation(table, frames):
    """quality: the GA, weighted quality on the search split (full framework
    by default); statistic: the raw relative quality AUC(V) - AUC(cover) on
    the validation split."""
    search, validation = frames
    target = subroc_ext.SoftClassifierTarget("y", "s")
    qf = make_quality_function(
        "roc_auc", "y", positive_label=1, size_weight=1, balance_weight=1, generalization_aware=True
    )
    qf.calculate_constant_statistics(search, target)
    labels = validation["y"].to_numpy() == 1
    scores = validation["s"].to_numpy()
    overall = sklearn_roc_auc(labels, scores)
    for _, row in table.iterrows():
        assert row["quality"] == pytest.approx(
            qf.calculate_statistics(row["subgroup"], target, search).quality, rel=1e-12
        )
        mask = cover(row["subgroup"], validation)
        expected = overall - sklearn_roc_auc(labels[mask], scores[mask])
        assert row["statistic"] == pytest.approx(expected)
    # the planted pattern is among the top 2 (behind its generalization
    # a1 == 'q', which holds it), significantly
    planted = ((search["a0"] == "p") & (search["a1"] == "q")).to_numpy()
    top = [i for i in range(2) if iou(cover(table["subgroup"].iloc[i], search), planted) >= 0.8]
    assert top and table["significant"].iloc[top[0]]


def test_significance_columns(table):
    n_samples = SETTINGS["n_samples"]
    p = table["p_value"].to_numpy()
    assert np.all((p >= 1 / (n_samples + 1)) & (p <= 1))
    # (1 + count) / (1 + B): an integer count
    counts = p * (n_samples + 1) - 1
    assert np.allclose(counts, np.round(counts))
    rejected, corrected, _, _ = multipletests(p, alpha=0.05, method="fdr_by")
    assert np.allclose(table["p_value_corrected"], corrected)
    assert np.array_equal(table["significant"], rejected & table["testable"].to_numpy())
    assert np.array_equal(table["testable"], np.isfinite(table["statistic"]))
    assert table["significant"].any() and not table["significant"].all()


def test_attrs(table, frames):
    search, validation = frames
    attrs = table.attrs
    expected = dict(
        measure="roc_auc", mode="worse", label="y", score="s", size_weight=1.0,
        balance_weight=1.0, generalization_aware=True, depth=2, min_support=20,
        n_samples=300, method="fdr_by", alpha=0.05,
    )  # fmt: skip
    assert {key: attrs[key] for key in expected} == expected
    assert attrs["positive_label"] == 1
    values = attrs["dataset_values"]
    assert set(values) == {f"{m}_{s}" for m in (*MEASURE_NAMES, "expected_roc_auc") for s in ("search", "validation")}
    for split, frame in (("search", search), ("validation", validation)):
        labels = frame["y"].to_numpy() == 1
        scores = frame["s"].to_numpy()
        everything = np.ones(len(frame), dtype=bool)
        direct = brute_measures(labels, scores, everything, brute_attributions(labels, scores))
        for name in MEASURE_NAMES:
            assert values[f"{name}_{split}"] == pytest.approx(direct[name])
    assert values["attribution_mean_search"] == pytest.approx(values["roc_auc_search"] / 2)


def test_pysubgroup_algorithm_gives_the_default_engines_table(frames, table):
    """find_subgroups searches with FastSearch by default; ps.BestFirstSearch
    with the same quality function gives the same table."""
    search, validation = frames
    other = find_subgroups(search, validation=validation, algorithm=ps.BestFirstSearch(), **SETTINGS)
    pd.testing.assert_frame_equal(other.drop(columns="subgroup"), table.drop(columns="subgroup"))


def test_reproducible_with_the_same_random_state():
    data = synthetic(1, n=600)
    settings = {**SETTINGS, "result_set_size": 8}
    first = find_subgroups(data, validation=0.5, **settings)
    second = find_subgroups(data, validation=0.5, **settings)
    pd.testing.assert_frame_equal(first.drop(columns="subgroup"), second.drop(columns="subgroup"))
    assert first.attrs == second.attrs
    other = find_subgroups(data, validation=0.5, **{**settings, "random_state": 1})
    assert not first["size_search"].equals(other["size_search"])


@pytest.mark.parametrize("fraction", [0.25, 0.5])
def test_validation_fraction_splits_the_rows(fraction):
    data = synthetic(2, n=600)
    table = find_subgroups(data, validation=fraction, **{**SETTINGS, "result_set_size": 8})
    assert len(table) == 8
    labels = data["y"].to_numpy() == 1
    for _, row in table.iterrows():
        mask = cover(row["subgroup"], data)
        assert row["size_search"] + row["size_validation"] == mask.sum()
        assert row["positives_search"] + row["positives_validation"] == labels[mask].sum()
        assert row["size_search"] >= SETTINGS["min_support"]
    share = table["size_validation"].sum() / (table["size_search"] + table["size_validation"]).sum()
    assert share == pytest.approx(fraction, abs=0.08)
    # the whole-split values reflect the sizes of the split
    values = table.attrs["dataset_values"]
    assert np.isfinite(values["roc_auc_validation"]) and np.isfinite(values["roc_auc_search"])


def test_validation_dataframe_is_used_as_given(frames):
    """With a DataFrame, ``data`` is the whole search split: no rows are held out of it."""
    search, validation = frames
    table = find_subgroups(search, validation=validation, **{**SETTINGS, **BASIC})
    for _, row in table.iterrows():
        assert row["size_search"] == cover(row["subgroup"], search).sum()
        assert row["size_validation"] == cover(row["subgroup"], validation).sum()
    labels = validation["y"].to_numpy() == 1
    assert table.attrs["dataset_values"]["roc_auc_validation"] == pytest.approx(
        sklearn_roc_auc(labels, validation["s"])
    )


def test_basic_setting_quality_is_the_raw_quality(frames):
    search, validation = frames
    table = find_subgroups(search, validation=validation, **{**SETTINGS, **BASIC})
    assert table.attrs["size_weight"] == 0 and not table.attrs["generalization_aware"]
    overall = table.attrs["dataset_values"]["roc_auc_search"]
    assert np.allclose(table["quality"], overall - table["roc_auc_search"])


@pytest.mark.parametrize("measure", ["pr_auc", "arl", "attribution_mean"])
def test_other_measures(frames, measure):
    search, validation = frames
    table = find_subgroups(search, validation=validation, measure=measure, **{**SETTINGS, **BASIC})
    assert table.attrs["measure"] == measure
    overall = table.attrs["dataset_values"][f"{measure}_validation"]
    difference = table[f"{measure}_validation"] - overall
    expected = difference if measure == "arl" else -difference  # ARL is a loss
    assert np.allclose(table["statistic"], expected)
    overall_search = table.attrs["dataset_values"][f"{measure}_search"]
    difference = table[f"{measure}_search"] - overall_search
    if measure == "arl":  # searched size-free, per negative (1 - AUC); the effect against the test's null
        whole_auc = table.attrs["dataset_values"]
        per_negative = table["arl_search"] / table["negatives_search"] - (1 - whole_auc["roc_auc_search"])
        assert np.allclose(table["quality"], per_negative)
        null = table["negatives_validation"] * (1 - whole_auc["roc_auc_validation"])
        assert np.allclose(table["null_arl_validation"], null)
        assert np.allclose(table["delta"], table["arl_validation"] - null)
    else:
        assert np.allclose(table["quality"], -difference)


def test_mode_better_and_string_labels(frames):
    search, validation = (
        frame.assign(y=np.where(frame["y"] == 1, "bad", "good")) for frame in frames
    )
    table = find_subgroups(
        search, validation=validation, positive_label="bad", mode="better", **{**SETTINGS, **BASIC}
    )
    assert table.attrs["positive_label"] == "bad" and table.attrs["mode"] == "better"
    overall = table.attrs["dataset_values"]["roc_auc_search"]
    assert np.allclose(table["quality"], table["roc_auc_search"] - overall)
    assert (table["quality"] > 0).all()


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------


@pytest.fixture
def no_search(monkeypatch):
    """Fail the test if find_subgroups reaches the search: checks come first."""

    def reached(*args, **kwargs):
        raise AssertionError("input validation must happen before the search")

    monkeypatch.setattr(steps, "search", reached)


def small(n=200, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"a": rng.choice(list("xyz"), n), "y": rng.integers(0, 2, n), "s": rng.random(n)}
    )


def with_value(frame, column, position, value):
    frame = frame.copy()
    column_values = np.array(frame[column], dtype=float)
    column_values[position] = value
    frame[column] = column_values
    return frame


INVALID = {
    "missing label": (dict(label="label"), KeyError, r"\['label'\] not found"),
    "missing score": (dict(score="prob"), KeyError, r"\['prob'\] not found"),
    "missing ignored column": (dict(ignore=["zz"]), KeyError, r"\['zz'\] not found"),
    "three labels": (dict(data=small().assign(y=np.arange(200) % 3), positive_label=1),
                     ValueError, r"label column 'y' must be binary but has 3 distinct values"),
    "three labels, no positive_label": (dict(data=small().assign(y=np.arange(200) % 3)),
                                        ValueError, r"label column 'y' must be binary"),
    "continuous labels": (dict(data=small().assign(y=np.linspace(0, 1, 200))),
                          ValueError, r"label column 'y' must be binary but has 200 distinct"),
    "missing label value": (dict(data=with_value(small(), "y", 4, np.nan)),
                            ValueError, r"label column 'y' contains 1 missing value"),
    "NaN score": (dict(data=with_value(small(), "s", 7, np.nan)),
                  ValueError, r"score column 's' contains 1 NaN or infinite"),
    "inf score": (dict(data=with_value(small(), "s", 9, np.inf)),
                  ValueError, r"score column 's' contains 1 NaN or infinite"),
    "text score": (dict(data=small().assign(s="high")), ValueError, r"score column 's' must be numeric"),
    "string labels without positive_label": (
        dict(data=small().assign(y=np.where(small()["y"] == 1, "yes", "no"))),
        ValueError, r"label column 'y' has values 'no' and 'yes'; pass positive_label"),
    "unknown positive_label": (dict(positive_label=2), ValueError, r"positive label 2 does not occur"),
    "bad measure": (dict(measure="auc"), ValueError, r"measure must be one of .*got 'auc'"),
    "bad mode": (dict(mode="worst"), ValueError, r"mode must be one of .*got 'worst'"),
    "negative size weight": (dict(size_weight=-1), ValueError, r"size_weight must be .*>= 0, got -1"),
    "negative balance weight": (dict(balance_weight=-0.5), ValueError, r"balance_weight must be .*got -0.5"),
    "NaN weight": (dict(size_weight=np.nan), ValueError, r"size_weight must be a finite number"),
    "validation 0": (dict(validation=0.0), ValueError, r"validation must be a DataFrame or a fraction in \(0, 1\), got 0.0"),
    "validation 1": (dict(validation=1.0), ValueError, r"fraction in \(0, 1\), got 1.0"),
    "validation 1.5": (dict(validation=1.5), ValueError, r"fraction in \(0, 1\), got 1.5"),
    "validation negative": (dict(validation=-0.2), ValueError, r"fraction in \(0, 1\), got -0.2"),
    "validation string": (dict(validation="half"), ValueError, r"fraction in \(0, 1\), got 'half'"),
    "empty data": (dict(data=small().iloc[:0]), ValueError, r"data is empty"),
    "empty data with positive_label": (dict(data=small().iloc[:0], positive_label=1), ValueError, r"data is empty"),
    "empty search split": (dict(data=small().iloc[:1], positive_label=1), ValueError, r"the search split is empty"),
    "empty validation split": (dict(data=small().iloc[:3], validation=0.1, positive_label=1),
                               ValueError, r"the validation split is empty"),
    "empty validation frame": (dict(validation=small().iloc[:0]), ValueError, r"the validation split is empty"),
    "validation frame without score": (dict(validation=small().drop(columns="s")), KeyError,
                                       r"\['s'\] not found in the validation split"),
    "validation frame without label": (dict(validation=small().drop(columns="y")), KeyError,
                                       r"\['y'\] not found in the validation split"),
    "validation frame without attribute": (dict(validation=small().drop(columns="a")),
                                           KeyError, r"validation data lacks column\(s\) \['a'\]"),
    "one class in search split": (dict(data=small().assign(y=0), positive_label=1),
                                  ValueError, r"search split has no positives"),
    "one class in validation frame": (dict(validation=small().assign(y=0)),
                                      ValueError, r"validation split has no positives"),
    "only positives in validation, pr_auc": (dict(validation=small().assign(y=1), measure="pr_auc"),
                                             ValueError, r"validation split has no negatives"),
    "depth 0": (dict(depth=0), ValueError, r"depth must be a positive integer, got 0"),
    "depth -1": (dict(depth=-1), ValueError, r"depth must be a positive integer, got -1"),
    "depth 1.5": (dict(depth=1.5), ValueError, r"depth must be a positive integer, got 1.5"),
    "result_set_size 0": (dict(result_set_size=0), ValueError, r"result_set_size must be a positive integer, got 0"),
    "max_overlap 1.5": (dict(max_overlap=1.5), ValueError, r"max_overlap must be None or a number in \[0, 1\], got 1.5"),
    "max_overlap -0.1": (dict(max_overlap=-0.1), ValueError, r"max_overlap must be .*got -0.1"),
    "max_overlap text": (dict(max_overlap="high"), ValueError, r"max_overlap must be .*got 'high'"),
    "nbins 0": (dict(nbins=0), ValueError, r"nbins must be a positive integer .*got 0"),
    "nbins -2": (dict(nbins=-2), ValueError, r"nbins must be a positive integer .*got -2"),
    "nbins 2.5": (dict(nbins=2.5), ValueError, r"nbins must be a positive integer .*got 2.5"),
    "min_support -1": (dict(min_support=-1), ValueError, r"min_support must be a number of rows .*got -1"),
    "min_support 1.5": (dict(min_support=1.5), ValueError, r"min_support must be .*fraction .*got 1.5"),
    "min_support 0.0": (dict(min_support=0.0), ValueError, r"min_support must be .*got 0.0"),
    "min_support True": (dict(min_support=True), ValueError, r"min_support must be .*got True"),
    "min_support text": (dict(min_support="1%"), ValueError, r"min_support must be .*got '1%'"),
    "not a DataFrame": (dict(data={"y": [0, 1], "s": [0.1, 0.2]}), TypeError, r"data must be a pandas DataFrame"),
}  # fmt: skip


@pytest.mark.parametrize("case", INVALID)
def test_invalid_input_fails_up_front(no_search, case):
    changes, error, message = INVALID[case]
    arguments = {"data": small(), "label": "y", "score": "s", "progress": False, **changes}
    with pytest.raises(error, match=message):
        find_subgroups(arguments.pop("data"), **arguments)


def with_copies(frame):
    """``frame`` with ``b`` a copy of ``a1`` and ``c`` a 0/1 code of ``a0 == 'p'``:
    several descriptions of the same rows."""
    return frame.assign(b=frame["a1"], c=(frame["a0"] == "p").astype(int))


def test_identical_covers_collapse_into_one_row(frames):
    search, validation = (with_copies(frame) for frame in frames)
    settings = {**SETTINGS, "result_set_size": 20, "max_overlap": None}  # the exact top 20
    table = find_subgroups(search, validation=validation, **settings)
    full = find_subgroups(search, validation=validation, collapse_identical=False, **settings)
    assert table.attrs["collapse_identical"] and not full.attrs["collapse_identical"]
    covers = {row.description: cover(row.subgroup, search) for row in full.itertuples()}
    # every description of the uncollapsed table is a row or an alternative of one
    alternatives = [text.split("; ") for text in table["alternatives"] if text]
    assert sorted(table["description"].tolist() + sum(alternatives, [])) == sorted(covers)
    assert len(table) < len(full) and sum(map(len, alternatives)) == len(full) - len(table)
    names = [{row.description, *row.alternatives.split("; ")} for row in table.itertuples()]
    assert {"a1=='q'", "b=='q'"} in [n - {""} for n in names]  # a copied column
    assert {"a0=='p'", "c==1"} in [n - {""} for n in names]  # a 0/1 code of a condition
    for row in table.itertuples():
        assert (full["description"] == row.description).any()  # the best-ranked one stays
        for other in filter(None, row.alternatives.split("; ")):
            np.testing.assert_array_equal(covers[other], covers[row.description])
            assert full.index[full["description"] == other][0] > full.index[
                full["description"] == row.description
            ][0]
    distinct = {cover(sg, search).tobytes() for sg in table["subgroup"]}
    assert len(distinct) == len(table)
    assert (full["alternatives"] == "").all()


@pytest.mark.parametrize("max_overlap", [0.0, 0.2, 0.5])
def test_max_overlap_keeps_a_diverse_subsequence(frames, max_overlap):
    """The rows are the greedy rule on the whole ranking: of an exact top 1,000
    (every pattern above quality 0 here) with identical covers merged, walk
    down and keep a row unless it overlaps a kept one by more than
    ``max_overlap``, until 20 are kept; each dropped row is a near copy."""
    search, validation = frames
    settings = {**SETTINGS, "result_set_size": 20}
    table = find_subgroups(search, validation=validation, max_overlap=max_overlap, **settings)
    full = find_subgroups(search, validation=validation, **{**settings, "result_set_size": 1000,
                                                            "n_samples": 10}, max_overlap=None)  # fmt: skip
    assert table.attrs["max_overlap"] == max_overlap and len(full) < 1000
    masks = [cover(sg, search) for sg in full["subgroup"]]
    kept, dropped = [], []
    for row, mask in enumerate(masks):
        if all(iou(mask, masks[other]) <= max_overlap for other in kept):
            kept.append(row)
            if len(kept) == 20:
                break
        else:
            dropped.append(row)
    assert table["description"].tolist() == full["description"][kept].tolist()
    assert len(table) == min(20, len(kept))
    near = sum(len(text.split("; ")) for text in table["near_copies"] if text)
    assert near == len(dropped) and dropped  # every dropped row is listed once
    # tested after the filter: as many tests as rows
    assert table["p_value_corrected"].ge(table["p_value"]).all()


def test_overlap_columns_name_the_most_overlapping_better_row(table, frames):
    search, _ = frames
    masks = [cover(sg, search) for sg in table["subgroup"]]
    assert np.isnan(table["overlap"].iloc[0]) and pd.isna(table["overlaps_with"].iloc[0])
    for row in range(1, len(table)):
        values = [iou(masks[row], masks[other]) for other in range(row)]
        assert table["overlap"].iloc[row] == pytest.approx(max(values))
        assert table["overlaps_with"].iloc[row] == int(np.argmax(values)) + 1


def test_roc_auc_confidence_intervals_are_delong_on_the_validation_split(table, frames):
    """Against a brute-force DeLong computation (pairwise placement values)."""
    _, validation = frames
    labels = validation["y"].to_numpy() == 1
    scores = validation["s"].to_numpy()
    z = 1.959963984540054
    for row in table.itertuples():
        mask = cover(row.subgroup, validation)
        y, s = labels[mask], scores[mask]
        psi = (s[y][:, None] > s[~y][None, :]) + 0.5 * (s[y][:, None] == s[~y][None, :])
        error = np.sqrt(psi.mean(1).var(ddof=1) / y.sum() + psi.mean(0).var(ddof=1) / (~y).sum())
        assert row.roc_auc_validation == pytest.approx(psi.mean())
        assert row.roc_auc_validation_ci_low == pytest.approx(max(0, psi.mean() - z * error))
        assert row.roc_auc_validation_ci_high == pytest.approx(min(1, psi.mean() + z * error))


@pytest.mark.parametrize(
    "fraction, rows, count", [(0.1, 100, 10), (0.01, 12211, 123), (0.5, 3, 2), (1e-9, 10, 1)]
)
def test_min_support_fraction_is_a_count_rounded_up(fraction, rows, count):
    assert pipeline.min_support_count(fraction, rows) == count
    assert pipeline.min_support_count(np.int64(count), rows) == count


def test_min_support_as_a_fraction_of_the_search_rows(frames):
    """0.1 of the 500 search rows is the count 50: the same table."""
    search, validation = frames
    settings = {**SETTINGS, **BASIC, "result_set_size": 8}
    by_fraction = find_subgroups(search, validation=validation, **{**settings, "min_support": 0.1})
    by_count = find_subgroups(search, validation=validation, **{**settings, "min_support": 50})
    assert by_fraction.attrs["min_support"] == 50
    assert by_fraction["description"].tolist() == by_count["description"].tolist()
    assert (by_fraction["size_search"] >= 50).all()
    smaller = find_subgroups(search, validation=validation, **{**settings, "min_support": 20})
    assert (smaller["size_search"] < 50).any()  # the constraint binds


def test_numpy_fraction_is_accepted():
    data = synthetic(2, n=400)
    settings = {**SETTINGS, **BASIC, "result_set_size": 5}
    with_float = find_subgroups(data, validation=0.3, **settings)
    with_numpy = find_subgroups(data, validation=np.float32(0.3), **settings)
    assert with_float["description"].tolist() == with_numpy["description"].tolist()


def test_valid_input_reaches_the_search(no_search):
    """The guard above is not vacuous."""
    with pytest.raises(AssertionError, match="before the search"):
        find_subgroups(small(), label="y", score="s", progress=False)


@pytest.mark.parametrize(
    "setting, message",
    [
        ({"n_samples": 0}, "n_samples must be 'adaptive' or a positive integer"),
        ({"max_samples": 0}, "max_samples must be a positive integer"),
        ({"method": "bogus"}, "method must be one of"),
        ({"alpha": 1.5}, r"alpha must be in \(0, 1\)"),
    ],
)
def test_test_settings_are_checked_before_the_search(monkeypatch, setting, message):
    """Bad randomization-test settings fail before any search work is done."""
    rng = np.random.default_rng(3)
    data = pd.DataFrame(
        {"a": rng.integers(0, 3, 100), "y": rng.integers(0, 2, 100), "s": rng.random(100)}
    )

    def no_search(*args, **kwargs):
        raise AssertionError("the search ran before the settings were checked")

    monkeypatch.setattr(steps, "search", no_search)
    with pytest.raises(ValueError, match=message):
        subroc_ext.find_subgroups(data, label="y", score="s", progress=False, **setting)


def test_describe_subgroups_is_deprecated_for_steps_describe():
    """The old name warns (FutureWarning) and returns the same table."""
    data = small(300)
    target = subroc_ext.SoftClassifierTarget("y", "s")
    subgroups = [ps.Conjunction([ps.EqualitySelector("a", value)]) for value in "xyz"]
    expected = steps.describe(subgroups, data, target, suffix="_search")
    with pytest.warns(FutureWarning, match=r"describe_subgroups\(\) is deprecated .*steps\.describe"):
        old = pipeline.describe_subgroups(subgroups, data, target, mode="better", suffix="_search")
    pd.testing.assert_frame_equal(old, expected)
    assert expected["size_search"].sum() == 300


def test_describe_holds_a_few_covers_at_a_time_and_gives_each_subgroups_own_row():
    """More subgroups than :func:`steps.describe` covers at once: every row is
    the one that subgroup gets alone (sizes against pandas, the ROC AUC
    against scikit-learn), the suffix after each measure's name."""
    rng = np.random.default_rng(1)
    data = pd.DataFrame({"a": rng.integers(0, 8, 3000), "b": rng.choice(list("wxyz"), 3000),
                         "y": rng.integers(0, 2, 3000)})  # fmt: skip
    data["s"] = 0.3 * data["y"] + rng.random(3000)
    target = subroc_ext.SoftClassifierTarget("y", "s")
    subgroups = [ps.Conjunction([ps.EqualitySelector("a", a), ps.EqualitySelector("b", b)])
                 for a in range(8) for b in "wxyz"] + [ps.Conjunction([])]  # fmt: skip
    assert len(subgroups) > 2 * steps._DESCRIBED_AT_ONCE
    table = steps.describe(subgroups, data, target, intervals=True, suffix="_validation")
    assert list(table.columns[:5]) == ["size_validation", "positives_validation", "negatives_validation",
                                       "ncr_validation", "roc_auc_validation"]  # fmt: skip
    assert list(table.columns[-2:]) == ["roc_auc_validation_ci_low", "roc_auc_validation_ci_high"]
    alone = pd.concat([steps.describe([subgroup], data, target, intervals=True, suffix="_validation")
                       for subgroup in subgroups], ignore_index=True)  # fmt: skip
    pd.testing.assert_frame_equal(table, alone)
    for row, subgroup in zip(table.itertuples(), subgroups):
        rows = subgroup.covers(data)
        assert row.size_validation == rows.sum()
        assert row.roc_auc_validation == pytest.approx(sklearn_roc_auc(data["y"][rows], data["s"][rows]))
    assert steps.describe([], data, target, suffix="_search").columns[0] == "size_search"
