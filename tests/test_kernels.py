"""Tests of :mod:`subroc_ext.metrics.kernels` against independent oracles.

Oracles: scikit-learn's ``roc_auc_score``, ``auc(recall, precision)`` of
``precision_recall_curve``, and brute-force pairwise counting written here
from the definitions in SPEC.md.
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

from subroc_ext import UndefinedMeasureWarning
from subroc_ext.metrics import kernels

N_CASES = 1000
TOL = 1e-12
PUBLIC_KERNELS = (
    kernels.roc_auc_score,
    kernels.pr_auc_score,
    kernels.average_ranking_loss,
    kernels.example_attributions,
    kernels.attribution_mean_score,
)


# --------------------------------------------------------------------------
# oracles
# --------------------------------------------------------------------------


def oracle_pairs(is_positive, scores):
    """Matrices ``[s_i > s_j]`` and ``[s_i = s_j]`` over positives i and negatives j."""
    pos, neg = scores[is_positive], scores[~is_positive]
    return pos[:, None] > neg[None, :], pos[:, None] == neg[None, :]


def oracle_roc_auc(is_positive, scores):
    """ROC AUC by counting all positive-negative pairs (ties count 1/2)."""
    above, tied = oracle_pairs(is_positive, scores)
    return (above.sum() + 0.5 * tied.sum()) / above.size


def oracle_arl(is_positive, scores):
    """Mean over positives of #negatives above + 1/2 #negatives tied."""
    penalties = [
        (scores[~is_positive] > s).sum() + 0.5 * (scores[~is_positive] == s).sum()
        for s in scores[is_positive]
    ]
    return float(np.mean(penalties))


def oracle_attributions(is_positive, scores):
    """SPEC's normalized example attributions, one row at a time."""
    n_pos, n_neg = is_positive.sum(), (~is_positive).sum()
    result = np.empty(len(scores))
    for i, s in enumerate(scores):
        others = scores[~is_positive] if is_positive[i] else scores[is_positive]
        wins = (s > others).sum() if is_positive[i] else (others > s).sum()
        result[i] = 0.5 * (wins + 0.5 * (others == s).sum()) / (n_neg if is_positive[i] else n_pos)
    return result


def sklearn_pr_auc(is_positive, scores):
    """``auc(recall, precision)`` of scikit-learn's precision-recall curve."""
    precision, recall, _ = metrics.precision_recall_curve(is_positive.astype(int), scores)
    return metrics.auc(recall, precision)


def random_case(rng, ties, need_negative=True, max_size=40):
    """Random labels (at least one positive, and one negative if asked) and
    scores, drawn from few values (``ties``) or continuous."""
    size = int(rng.integers(1 + need_negative, max_size + 1))
    is_positive = rng.random(size) < rng.uniform(0.05, 0.95)
    first, second = rng.permutation(size)[:2] if size > 1 else (0, 0)
    is_positive[first] = True
    if need_negative:
        is_positive[second] = False
    if ties:
        scores = rng.integers(0, rng.integers(1, 6), size).astype(float) / 4
    else:
        scores = rng.normal(size=size)
    return is_positive, scores


TIES = pytest.mark.parametrize("ties", [True, False], ids=["ties", "continuous"])


# --------------------------------------------------------------------------
# agreement with the oracles
# --------------------------------------------------------------------------


@TIES
def test_roc_auc_score_matches_sklearn_and_pairwise_oracle(ties):
    rng = np.random.default_rng(100 + ties)
    for case in range(N_CASES):
        is_positive, scores = random_case(rng, ties)
        value = kernels.roc_auc_score(is_positive.astype(int), scores)
        assert value == pytest.approx(oracle_roc_auc(is_positive, scores), abs=TOL)
        if case % 10 == 0:  # sklearn (its argument checks: 80 % of the time) on every 10th
            assert value == pytest.approx(metrics.roc_auc_score(is_positive, scores), abs=TOL)


@TIES
def test_pr_auc_score_matches_sklearn(ties):
    rng = np.random.default_rng(200 + ties)
    no_negative = 0
    for _ in range(N_CASES):
        is_positive, scores = random_case(rng, ties, need_negative=False)
        no_negative += is_positive.all()
        value = kernels.pr_auc_score(is_positive.astype(int), scores)
        assert value == pytest.approx(sklearn_pr_auc(is_positive, scores), abs=TOL)
    assert no_negative > 10  # the one-class case was exercised


@TIES
def test_average_ranking_loss_matches_pairwise_oracle(ties):
    rng = np.random.default_rng(300 + ties)
    for _ in range(N_CASES):
        is_positive, scores = random_case(rng, ties, need_negative=False)
        value = kernels.average_ranking_loss(is_positive.astype(int), scores)
        assert value == pytest.approx(oracle_arl(is_positive, scores), abs=TOL)
        if not is_positive.all():
            # ARL = N (1 - AUC): an identity linking two kernels
            expected = (~is_positive).sum() * (1 - oracle_roc_auc(is_positive, scores))
            assert value == pytest.approx(expected, abs=1e-9)


@TIES
def test_example_attributions_match_pairwise_oracle(ties):
    rng = np.random.default_rng(400 + ties)
    for _ in range(N_CASES):
        is_positive, scores = random_case(rng, ties)
        values = kernels.example_attributions(is_positive.astype(int), scores)
        np.testing.assert_allclose(values, oracle_attributions(is_positive, scores), rtol=0, atol=TOL)
        assert values.mean() == pytest.approx(oracle_roc_auc(is_positive, scores) / 2, abs=TOL)


@TIES
def test_attribution_mean_score_matches_pairwise_oracle(ties):
    rng = np.random.default_rng(500 + ties)
    for case in range(N_CASES):
        is_positive, scores = random_case(rng, ties)
        attributions = oracle_attributions(is_positive, scores)
        mask = rng.random(len(scores)) < 0.5
        mask[rng.integers(len(scores))] = True
        labels = is_positive.astype(int)
        expected = attributions[mask].mean()
        assert kernels.attribution_mean_score(labels, scores, mask) == pytest.approx(expected, abs=TOL)
        positions = rng.permutation(np.flatnonzero(mask))
        assert kernels.attribution_mean_score(labels, scores, positions) == pytest.approx(expected, abs=TOL)
        if case % 10 == 0:
            whole = kernels.attribution_mean_score(labels, scores)
            assert whole == pytest.approx(oracle_roc_auc(is_positive, scores) / 2, abs=TOL)


def test_documented_examples():
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    assert kernels.roc_auc_score(y, s) == 0.75
    assert kernels.pr_auc_score(y, s) == pytest.approx(0.7916666666666667, abs=TOL)
    assert kernels.average_ranking_loss(y, s) == 0.5
    assert kernels.example_attributions(y, s).tolist() == [0.5, 0.25, 0.25, 0.5]


@pytest.mark.parametrize(
    "labels, scores, roc, pr, arl",
    [
        # all tied: AUC 1/2, PR AUC = (1 + P/n) / 2, every positive half-penalized per negative
        ([1, 0, 1, 0, 0], [3, 3, 3, 3, 3], 0.5, (1 + 0.4) / 2, 1.5),
        # perfect ranking
        ([0, 0, 1, 1], [0, 1, 2, 3], 1.0, 1.0, 0.0),
        # perfectly reversed ranking
        # (PR points (0,1) (0,0) (0,0) (1/2,1/3) (1,1/2): area 1/12 + 5/24)
        ([1, 1, 0, 0], [0, 1, 2, 3], 0.0, 7 / 24, 2.0),
        # one positive tied with one negative, one negative above:
        # PR points (0,1) (0,0) (1,1/3)
        ([0, 1, 0], [1, 1, 2], 0.25, 1 / 6, 1.5),
        # one positive tied with one negative, nothing above: (0,1) (1,1/2)
        ([0, 1], [1, 1], 0.5, 0.75, 0.5),
    ],
)
def test_tie_table(labels, scores, roc, pr, arl):
    """Hand-computed values on small tables with ties."""
    scores = np.asarray(scores, dtype=float)
    assert kernels.roc_auc_score(labels, scores) == pytest.approx(roc, abs=TOL)
    assert kernels.pr_auc_score(labels, scores) == pytest.approx(pr, abs=TOL)
    assert kernels.average_ranking_loss(labels, scores) == pytest.approx(arl, abs=TOL)
    is_positive = np.asarray(labels, bool)
    assert pr == pytest.approx(sklearn_pr_auc(is_positive, scores), abs=TOL)


# --------------------------------------------------------------------------
# invariances
# --------------------------------------------------------------------------


@st.composite
def labelled_scores(draw):
    """Binary labels holding both classes and scores (few values or any floats)."""
    size = draw(st.integers(2, 30))
    labels = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    labels[0], labels[1] = True, False
    if draw(st.booleans()):
        values = st.integers(0, 3).map(float)
    else:
        values = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    scores = draw(st.lists(values, min_size=size, max_size=size))
    return np.array(labels), np.array(scores, dtype=float)


def all_kernel_values(is_positive, scores):
    """The values of every public kernel, as a tuple of floats and arrays."""
    labels = is_positive.astype(int)
    return (
        kernels.roc_auc_score(labels, scores),
        kernels.pr_auc_score(labels, scores),
        kernels.average_ranking_loss(labels, scores),
        kernels.example_attributions(labels, scores),
        kernels.attribution_mean_score(labels, scores, scores >= np.median(scores)),
    )


@settings(derandomize=True, deadline=None, max_examples=200)
@given(data=labelled_scores(), increments=st.lists(st.floats(1e-3, 1e3), min_size=30, max_size=30))
def test_invariance_under_strictly_increasing_transform(data, increments):
    is_positive, scores = data
    distinct = np.unique(scores)
    new_values = np.cumsum(increments[: len(distinct)]) - 500.0
    transformed = new_values[np.searchsorted(distinct, scores)]
    before = all_kernel_values(is_positive, scores)
    # the median split in all_kernel_values picks the same rows after the transform
    after = all_kernel_values(is_positive, transformed)
    for old, new in zip(before, after):
        np.testing.assert_array_equal(old, new)


@settings(derandomize=True, deadline=None, max_examples=200)
@given(data=labelled_scores(), seed=st.integers(0, 2**32 - 1))
def test_invariance_under_row_permutation(data, seed):
    is_positive, scores = data
    permutation = np.random.default_rng(seed).permutation(len(scores))
    before = all_kernel_values(is_positive, scores)
    after = all_kernel_values(is_positive[permutation], scores[permutation])
    for old, new in zip(before[:3], after[:3]):
        assert old == new  # tie counts do not depend on the row order
    np.testing.assert_array_equal(before[3][permutation], after[3])
    assert before[4] == pytest.approx(after[4], abs=TOL)


def test_exp_transform_keeps_auc_with_ties():
    rng = np.random.default_rng(7)
    for _ in range(200):
        is_positive, scores = random_case(rng, ties=True)
        labels = is_positive.astype(int)
        assert kernels.roc_auc_score(labels, np.exp(scores)) == kernels.roc_auc_score(labels, scores)
        assert kernels.pr_auc_score(labels, 3 * scores + 1) == kernels.pr_auc_score(labels, scores)


# --------------------------------------------------------------------------
# label encodings
# --------------------------------------------------------------------------

ENCODINGS = {
    "zero_one": (lambda p: p.astype(int), {}),
    "bool": (lambda p: p, {}),
    "minus_plus_one": (lambda p: np.where(p, 1, -1), {}),
    "strings": (lambda p: np.where(p, "spam", "ham"), {"positive_label": "spam"}),
    "positive_label_zero": (lambda p: np.where(p, 0, 1), {"positive_label": 0}),
    "positive_label_minus_one": (lambda p: np.where(p, -1, 1), {"positive_label": -1}),
    "list_of_strings": (lambda p: list(np.where(p, "yes", "no")), {"positive_label": "yes"}),
    "series_with_index": (lambda p: pd.Series(p.astype(int), index=np.arange(len(p))[::-1] * 3), {}),
}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_label_encodings(encoding):
    encode, keywords = ENCODINGS[encoding]
    rng = np.random.default_rng(600)
    for _ in range(50):
        is_positive, scores = random_case(rng, ties=bool(rng.integers(2)))
        labels = encode(is_positive)
        assert kernels.roc_auc_score(labels, scores, **keywords) == pytest.approx(
            oracle_roc_auc(is_positive, scores), abs=TOL
        )
        assert kernels.pr_auc_score(labels, scores, **keywords) == pytest.approx(
            sklearn_pr_auc(is_positive, scores), abs=TOL
        )
        assert kernels.average_ranking_loss(labels, scores, **keywords) == pytest.approx(
            oracle_arl(is_positive, scores), abs=TOL
        )
        np.testing.assert_allclose(
            kernels.example_attributions(labels, scores, **keywords),
            oracle_attributions(is_positive, scores),
            rtol=0, atol=TOL,
        )
        mask = scores <= np.median(scores)
        assert kernels.attribution_mean_score(labels, scores, mask, **keywords) == pytest.approx(
            oracle_attributions(is_positive, scores)[mask].mean(), abs=TOL
        )


def test_positive_label_zero_flips_the_classes():
    rng = np.random.default_rng(601)
    for _ in range(100):
        is_positive, scores = random_case(rng, ties=True)
        labels = is_positive.astype(int)
        assert kernels.roc_auc_score(labels, scores, positive_label=0) == pytest.approx(
            1 - kernels.roc_auc_score(labels, scores), abs=TOL
        )


# --------------------------------------------------------------------------
# undefined cases and input validation
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel, labels, match",
    [
        (kernels.roc_auc_score, [1, 1, 1], "ROC AUC is undefined"),
        (kernels.roc_auc_score, [0, 0, 0], "ROC AUC is undefined"),
        (kernels.roc_auc_score, [], "ROC AUC is undefined"),
        (kernels.pr_auc_score, [0, 0, 0], "PR AUC is undefined"),
        (kernels.pr_auc_score, [], "PR AUC is undefined"),
        (kernels.average_ranking_loss, [0, 0, 0], "ARL is undefined"),
        (kernels.average_ranking_loss, [], "ARL is undefined"),
        (kernels.attribution_mean_score, [1, 1, 1], "example attributions is undefined"),
    ],
)
def test_undefined_measures_warn_and_return_nan(kernel, labels, match):
    scores = np.arange(len(labels), dtype=float)
    with pytest.warns(UndefinedMeasureWarning, match=match):
        value = kernel(labels, scores)
    assert np.isnan(value)


@pytest.mark.parametrize("labels", [[1, 1, 1], [0, 0, 0], ["a", "a", "a"]])
def test_example_attributions_undefined_with_one_class(labels):
    with pytest.warns(UndefinedMeasureWarning, match="example attributions is undefined"):
        values = kernels.example_attributions(labels, [0.1, 0.2, 0.3], positive_label=labels[0])
    assert values.shape == (3,) and np.isnan(values).all()


@pytest.mark.parametrize("subset", [np.zeros(4, dtype=bool), [], np.array([], dtype=int)])
def test_attribution_mean_of_empty_subset_warns(subset):
    with pytest.warns(UndefinedMeasureWarning, match="attribution mean is undefined: the subset is empty"):
        value = kernels.attribution_mean_score([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], subset)
    assert np.isnan(value)


def test_pr_auc_and_arl_are_defined_without_negatives():
    assert kernels.pr_auc_score([1, 1], [0.2, 0.1]) == 1.0
    assert kernels.average_ranking_loss([1, 1], [0.2, 0.1]) == 0.0


@pytest.mark.parametrize("kernel", PUBLIC_KERNELS)
@pytest.mark.parametrize(
    "labels, scores, match",
    [
        ([0, 1, 1], [0.1, 0.2], r"inconsistent numbers of samples: \[3, 2\]"),
        ([0, 1], [0.1, 0.2, 0.3], r"inconsistent numbers of samples: \[2, 3\]"),
        ([0, 1, 1], [0.1, np.nan, 0.3], r"'score' contains 1 NaN or infinite value\(s\), e.g. at position 1"),
        ([0, 1, 1], [np.inf, 0.2, -np.inf], r"'score' contains 2 NaN or infinite"),
        ([0, 1, 2], [0.1, 0.2, 0.3], r"'label' must be binary but has 3 distinct values \(0, 1 and 2\)"),
        (["a", "b", "c"], [0.1, 0.2, 0.3], r"'label' must be binary but has 3 distinct values"),
        ([0, None, 1], [0.1, 0.2, 0.3], r"'label' contains 1 missing value"),
        ([0, 2, 2], [0.1, 0.2, 0.3], r"positive label 1 does not occur in label column 'label'"),
        ([0, 1, 1], ["a", "b", "c"], r"'score' must be numeric"),
    ],
)
def test_invalid_input_raises_naming_the_problem(kernel, labels, scores, match):
    with pytest.raises(ValueError, match=match):
        kernel(labels, scores)


def test_undefined_measure_warnings_can_be_filtered_by_class():
    """A dedicated class (a UserWarning, as before): users silence or escalate it."""
    assert issubclass(UndefinedMeasureWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMeasureWarning)
        with pytest.raises(UndefinedMeasureWarning, match="ROC AUC is undefined"):
            kernels.roc_auc_score([1, 1], [0.1, 0.2])
        assert kernels.roc_auc_score([0, 1], [0.1, 0.2]) == 1.0  # defined: no warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UndefinedMeasureWarning)
        assert np.isnan(kernels.pr_auc_score([0, 0], [0.1, 0.2]))
    assert caught == []


def test_readme_defines_pr_auc_as_computed():
    """The guide: PR AUC is the trapezoidal area, not average precision (its example)."""
    readme = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "your-own-data.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())
    assert "PR AUC** is the trapezoidal area under the precision-recall curve" in text
    assert "**not** average precision" in text
    labels, scores = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    precision, recall, _ = metrics.precision_recall_curve(labels, scores)
    assert kernels.pr_auc_score(labels, scores) == pytest.approx(metrics.auc(recall, precision))
    assert "the PR AUC is 0.792, the average precision 0.833" in text
    assert round(kernels.pr_auc_score(labels, scores), 3) == 0.792
    assert round(metrics.average_precision_score(labels, scores), 3) == 0.833


# --------------------------------------------------------------------------
# curves
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
def test_curves_match_sklearn(ties):
    rng = np.random.default_rng(707)
    for _ in range(200):
        is_positive, scores = random_case(rng, ties)
        labels = is_positive.astype(int)
        fpr, tpr, thresholds = kernels.roc_curve(labels, scores)
        expected = metrics.roc_curve(labels, scores, drop_intermediate=False)
        for got, want in zip((fpr, tpr, thresholds), expected):
            np.testing.assert_allclose(got, want, atol=TOL)
        recall, precision, pr_thresholds = kernels.pr_curve(labels, scores)
        want_precision, want_recall, want_thresholds = metrics.precision_recall_curve(labels, scores)
        np.testing.assert_allclose(recall, want_recall[::-1], atol=TOL)
        np.testing.assert_allclose(precision, want_precision[::-1], atol=TOL)
        np.testing.assert_array_equal(pr_thresholds[1:], want_thresholds[::-1])
        # each AUC is the trapezoidal area under its curve
        assert metrics.auc(fpr, tpr) == pytest.approx(kernels.roc_auc_score(labels, scores), abs=TOL)
        assert metrics.auc(recall, precision) == pytest.approx(
            kernels.pr_auc_score(labels, scores), abs=TOL
        )


def test_curves_need_their_classes():
    with pytest.raises(ValueError, match="both classes"):
        kernels.roc_curve([1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="a positive"):
        kernels.pr_curve([0, 0], [0.1, 0.2])


# --------------------------------------------------------------------------
# deprecated keyword names (removed in 0.3)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", PUBLIC_KERNELS + (kernels.roc_curve, kernels.pr_curve))
@pytest.mark.parametrize("old, new", [("y_true", "label"), ("y_score", "score"), ("pos_label", "positive_label")])
def test_old_keyword_names_warn_and_give_the_same_result(kernel, old, new):
    arguments = {"label": ["no", "yes", "yes", "no"], "score": [0.1, 0.7, 0.3, 0.5], "positive_label": "yes"}
    expected = kernel(**arguments)
    arguments[old] = arguments.pop(new)
    with pytest.warns(FutureWarning, match=f"'{old}' is deprecated.*use '{new}'"):
        got = kernel(**arguments)
    np.testing.assert_equal(got, expected)
