"""Tests of :mod:`subroc_ext.scoring.auc_mu` against a brute-force oracle.

The oracle counts every pair of rows of different classes with the paper's
orientation function (Kleiman & Page, Eq. 3): one-hot label vectors, the
partition matrix's row difference ``v_ij`` and ``I(O)`` with ties 1/2, then
Eq. 4's mean over class pairs. Scores and matrices are small integers, so
all arithmetic is exact and ties are real ties.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

import subroc_ext
from multiclass_oracles import oracle_auc_mu, random_case, random_partition_matrix
from subroc_ext.scoring.auc_mu import auc_mu_score, check_partition_matrix


@pytest.mark.parametrize("n_classes", [2, 3, 4, 5])
def test_matches_brute_force_argmax_with_ties(n_classes):
    rng = np.random.default_rng(100 + n_classes)
    for _ in range(60):
        codes, scores = random_case(rng, n_classes, int(rng.integers(n_classes, 30)), int(rng.integers(2, 6)))
        expected = oracle_auc_mu(codes, scores, check_partition_matrix(None, n_classes))
        assert auc_mu_score(codes, scores) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3, 4, 5])
def test_matches_brute_force_other_partition_matrix(n_classes):
    rng = np.random.default_rng(200 + n_classes)
    differs = 0
    for _ in range(60):
        codes, scores = random_case(rng, n_classes, int(rng.integers(n_classes, 30)), int(rng.integers(2, 8)))
        matrix = random_partition_matrix(rng, n_classes)
        expected = oracle_auc_mu(codes, scores, matrix)
        assert auc_mu_score(codes, scores, partition_matrix=matrix) == pytest.approx(expected, abs=1e-12)
        differs += not np.isclose(expected, auc_mu_score(codes, scores))
    if n_classes > 2:  # the matrix matters for K > 2 (paper's Theorem 5.2)
        assert differs > 0


def test_non_normal_form_matrix_equals_its_normal_form():
    """Subtracting A[j, j] from column j leaves every v_ij, hence AUC_mu, unchanged."""
    rng = np.random.default_rng(3)
    codes, scores = random_case(rng, 4, 40, 5)
    normal = random_partition_matrix(rng, 4)
    shifted = normal + rng.integers(-3, 4, size=4)[None, :].astype(float)
    assert auc_mu_score(codes, scores, partition_matrix=shifted) == pytest.approx(
        oracle_auc_mu(codes, scores, normal), abs=1e-12
    )


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 5),
    st.lists(st.tuples(st.integers(0, 4), st.lists(st.integers(0, 3), min_size=5, max_size=5)), min_size=1, max_size=25),
)
def test_hypothesis_brute_force(n_classes, rows):
    codes = np.array([c % n_classes for c, _ in rows] + list(range(n_classes)))
    scores = np.array([s[:n_classes] for _, s in rows] + [[1] * n_classes] * n_classes, dtype=float)
    expected = oracle_auc_mu(codes, scores, check_partition_matrix(None, n_classes))
    assert auc_mu_score(codes, scores) == pytest.approx(expected, abs=1e-12)


def test_two_classes_equals_binary_auc_on_score_difference():
    rng = np.random.default_rng(7)
    for _ in range(100):
        n = int(rng.integers(2, 60))
        labels = np.where(rng.random(n) < 0.4, "yes", "no")
        labels[:2] = ["yes", "no"]
        probs = np.round(rng.random(n), 1)  # ties
        frame = pd.DataFrame({"no": 1 - probs, "yes": probs})
        expected = metrics.roc_auc_score(labels == "no", frame["no"] - frame["yes"])
        assert auc_mu_score(labels, frame) == pytest.approx(expected, abs=1e-12)
        # with floats: any 2 x 2 partition matrix gives the same ranking (Theorem 5.1)
        assert auc_mu_score(labels, frame, partition_matrix=[[0, 3], [0.5, 0]]) == pytest.approx(
            expected, abs=1e-12
        )


def test_perfect_and_reversed_and_public():
    labels = ["a", "b", "c", "a"]
    scores = pd.DataFrame({"a": [5, 0, 0, 4], "b": [0, 5, 1, 0], "c": [0, 1, 5, 1]})
    assert subroc_ext.auc_mu_score(labels, scores) == 1.0
    assert auc_mu_score(labels, -scores) == 0.0
    # classes= maps labels onto array columns
    assert auc_mu_score([2, 1, 0, 2], scores.to_numpy(), classes=[2, 1, 0]) == 1.0


def test_labelled_partition_matrix_is_reordered_to_the_classes():
    rng = np.random.default_rng(12)
    codes, scores = random_case(rng, 3, 40, 4)
    matrix = random_partition_matrix(rng, 3)
    labels = np.array(["x", "y", "z"])[codes]
    frame = pd.DataFrame(scores, columns=["x", "y", "z"])
    shuffled = pd.DataFrame(matrix, index=["x", "y", "z"], columns=["x", "y", "z"]).loc[["z", "x", "y"], ["y", "z", "x"]]
    assert auc_mu_score(labels, frame, partition_matrix=shuffled) == pytest.approx(
        oracle_auc_mu(codes, scores, matrix), abs=1e-12
    )
    with pytest.raises(ValueError, match="must be the classes"):
        auc_mu_score(labels, frame, partition_matrix=shuffled.rename(index={"z": "w"}))


def test_invariant_to_shared_shift_and_scaling():
    rng = np.random.default_rng(11)
    codes, scores = random_case(rng, 4, 50, 7)
    assert auc_mu_score(codes, scores * 3 + 2) == auc_mu_score(codes, scores)


def test_missing_class_warns_nan():
    with pytest.warns(UserWarning, match=r"class\(es\) \['c'\] have no row"):
        value = auc_mu_score(["a", "b"], pd.DataFrame({"a": [1, 0], "b": [0, 1], "c": [0, 0]}))
    assert np.isnan(value)


@pytest.mark.parametrize(
    "labels, scores, kwargs, message",
    [
        ([0, 1], np.zeros((2, 1)), {}, "K >= 2"),
        ([0, 1], np.zeros(2), {}, "two-dimensional"),
        ([[0, 1]], np.zeros((2, 2)), {}, r"labels must be one-dimensional, got shape \(1, 2\)"),
        ([0, 1, 0], np.zeros((2, 2)), {}, "inconsistent numbers of samples"),
        ([0, 5], np.zeros((2, 2)), {}, "value.*5.*name no score column"),
        ([0, None], np.zeros((2, 2)), {}, "missing"),
        ([0, 1], np.array([[0, np.nan], [1, 0]]), {}, "column 1 contains 1 NaN"),
        ([0, 1], pd.DataFrame({0: ["x", "y"], 1: [1, 2]}), {}, r"\[0\] must be numeric"),
        ([0, 1], np.zeros((2, 2)), {"classes": [0]}, "classes has 1 entries"),
        ([0, 1], np.zeros((2, 2)), {"classes": [0, 0]}, "distinct"),
        ([0, 1, 2], np.zeros((3, 3)), {"partition_matrix": np.ones((2, 2))}, r"shape \(3, 3\)"),
        ([0, 1], np.zeros((2, 2)), {"partition_matrix": [[0, 1], [-1, 0]]}, "decision boundary"),
        ([0, 1], np.zeros((2, 2)), {"partition_matrix": [[0, np.inf], [1, 0]]}, "infinite"),
    ],
)
def test_bad_input_raises(labels, scores, kwargs, message):
    with pytest.raises(ValueError, match=message):
        auc_mu_score(labels, scores, **kwargs)


def test_no_warning_when_defined():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auc_mu_score([0, 1, 2], np.eye(3))
