"""Tests of subroc_ext.demo.modelling: the random splits and the quick model."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from threadpoolctl import threadpool_limits

from subroc_ext.demo.datasets import load_german_credit
from subroc_ext.demo.modelling import fit_and_score, split_parts


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {"x": rng.normal(size=103), "c": rng.choice(["a", "b"], size=103)},
        index=rng.permutation(1000)[:103],  # an arbitrary, unsorted index
    )


@pytest.fixture(autouse=True)
def one_thread():
    """Fit on one thread: spinning OpenMP threads crawl on a busy machine."""
    with threadpool_limits(1):
        yield


@pytest.mark.parametrize("n_parts", [1, 2, 4, 7, 103])
def test_split_parts_sizes_and_disjointness(frame, n_parts):
    parts = split_parts(frame, n_parts, random_state=1)
    sizes = [len(part) for part in parts]
    assert len(parts) == n_parts
    assert sum(sizes) == len(frame)
    assert max(sizes) - min(sizes) <= 1
    indices = np.concatenate([part.index.to_numpy() for part in parts])
    assert sorted(indices) == sorted(frame.index)  # disjoint and covering
    for part in parts:  # rows keep their index and content
        pd.testing.assert_frame_equal(part, frame.loc[part.index])


def test_split_parts_is_reproducible(frame):
    first = split_parts(frame, 4, random_state=7)
    again = split_parts(frame, 4, random_state=7)
    other = split_parts(frame, 4, random_state=8)
    for a, b in zip(first, again):
        pd.testing.assert_frame_equal(a, b)
    assert any(not a.index.equals(b.index) for a, b in zip(first, other))


def test_split_parts_accepts_a_generator(frame):
    first = split_parts(frame, 3, random_state=np.random.default_rng(5))
    again = split_parts(frame, 3, random_state=np.random.default_rng(5))
    for a, b in zip(first, again):
        assert a.index.equals(b.index)


@pytest.mark.parametrize("n_parts", [0, -1, 104])
def test_split_parts_rejects_bad_counts(frame, n_parts):
    with pytest.raises(ValueError, match="n_parts must be between 1 and 103"):
        split_parts(frame, n_parts)


@pytest.fixture(scope="module")
def german_scored():
    """German credit split in two, scored by a model fitted on the first half."""
    data = load_german_credit()
    train, test = split_parts(data, 2, random_state=0)
    with threadpool_limits(1):
        (scored,) = fit_and_score(train, "class", "bad", test)
    return test, scored


def test_fit_and_score_returns_probabilities(german_scored):
    test, scored = german_scored
    assert scored.index.equals(test.index)
    pd.testing.assert_frame_equal(scored.drop(columns="score"), test)
    assert scored["score"].between(0, 1).all()
    assert roc_auc_score(scored["class"] == "bad", scored["score"]) > 0.7


def test_fit_and_score_several_frames_and_column_name(german_scored):
    test, scored = german_scored
    train = load_german_credit().drop(index=test.index)
    first, second = fit_and_score(train, "class", "bad", test, test.iloc[:10], score="p")
    np.testing.assert_allclose(first["p"], scored["score"])
    np.testing.assert_allclose(second["p"], scored["score"].iloc[:10])


def test_fit_and_score_old_keyword_warns_and_gives_the_same(german_scored):
    test, scored = german_scored
    train = load_german_credit().drop(index=test.index)
    with pytest.warns(FutureWarning, match="'score_column' is deprecated .* use 'score'"):
        (old,) = fit_and_score(train, "class", "bad", test, score_column="p")
    pd.testing.assert_series_equal(old["p"], scored["score"], check_names=False)


def test_fit_and_score_handles_categories_and_unseen_values():
    rng = np.random.default_rng(3)
    color = rng.choice(["red", "blue"], size=400)
    label = np.where(color == "red", "yes", "no")
    flip = rng.random(400) < 0.1
    label[flip] = np.where(label[flip] == "yes", "no", "yes")
    train = pd.DataFrame({"color": color, "noise": rng.normal(size=400), "label": label})
    new = pd.DataFrame(
        {"color": ["red", "blue", "green", None], "noise": 0.0, "label": ["yes", "no", "no", "no"]}
    )
    (scored,) = fit_and_score(train, "label", "yes", new)
    red, blue, unseen, missing = scored["score"]
    assert red > 0.7 and blue < 0.3  # the categorical column was used
    assert 0 <= unseen <= 1 and 0 <= missing <= 1  # unseen values do not crash
    assert np.isfinite(scored["score"]).all()


def test_fit_and_score_needs_the_label_column(frame):
    with pytest.raises(KeyError, match="'label'"):
        fit_and_score(frame, "label", 1, frame)
