"""Error rates at one threshold, against scikit-learn's confusion matrix per subgroup."""

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix, roc_curve

from subroc_ext.metrics.operating_point import threshold_rates
from synthetic import scored_frame


@pytest.fixture
def data():
    return scored_frame(3, n=600, ties="some", labels=("pos", "neg"), index="permuted")


def oracle(labels, scores, threshold):
    tn, fp, fn, tp = confusion_matrix(labels, scores >= threshold, labels=[False, True]).ravel()
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.array([fp / (fp + tn), fn / (fn + tp), tp / (tp + fp)], dtype=float)


def test_rates_are_the_confusion_matrix_of_each_subgroup(data):
    masks = {"east": data["region"].eq("east").to_numpy(), "old": data["age"].ge(60).to_numpy(),
             "nobody flagged": data["p"].lt(0.05).to_numpy()}  # fmt: skip
    rates = threshold_rates(masks, data, label="y", score="p", positive_label="pos", threshold=0.5)
    assert rates["subgroup"].tolist() == ["all", *masks]
    labels, scores = data["y"].eq("pos").to_numpy(), data["p"].to_numpy()
    for row, mask in enumerate([np.ones(len(data), bool), *masks.values()]):
        expected = oracle(labels[mask], scores[mask], 0.5)
        got = rates.loc[row, ["false_positive_rate", "false_negative_rate", "precision"]].to_numpy(float)
        np.testing.assert_allclose(got, expected, equal_nan=True)
        assert rates.loc[row, "size"] == mask.sum()
    assert np.isnan(rates.loc[3, "precision"])  # nothing predicted positive there


def test_default_threshold_is_the_youden_threshold_of_the_whole_data(data):
    labels, scores = data["y"].eq("pos").to_numpy(), data["p"].to_numpy()
    fpr, tpr, thresholds = roc_curve(labels, scores, drop_intermediate=False)
    best = thresholds[1:][np.argmax((tpr - fpr)[1:])]
    rates = threshold_rates([], data, label="y", score="p", positive_label="pos")
    assert rates.loc[0, "threshold"] == best
    np.testing.assert_allclose(
        rates.loc[0, ["false_positive_rate", "false_negative_rate", "precision"]].to_numpy(float),
        oracle(labels, scores, best),
    )


@pytest.mark.parametrize("threshold", [np.nan, np.inf, "0.5"])
def test_threshold_must_be_a_finite_number(data, threshold):
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        threshold_rates([], data, label="y", score="p", positive_label="pos", threshold=threshold)
