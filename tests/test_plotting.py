"""ROC and PR curves: the drawn points are scikit-learn's, one line per subgroup."""

import sys

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import precision_recall_curve, roc_auc_score, roc_curve

from subroc_ext import (
    UndefinedMeasureWarning,
    plot_pr_curves,
    plot_roc_curves,
    pr_auc_score,
)
from synthetic import scored_frame

plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def data():
    """Tied scores, labels 'pos'/'neg' and a permuted index (covers must go by position)."""
    return scored_frame(7, n=400, ties="some", labels=("pos", "neg"), index="permuted")


SUBGROUPS = [
    ps.Conjunction([ps.EqualitySelector("region", "east")]),
    ps.Conjunction([ps.IntervalSelector("age", 40, 60)]),
    ps.Conjunction([ps.EqualitySelector("region", "north"), ps.IntervalSelector("age", 18, 40)]),
]


def curves(figure):
    """The whole-data and subgroup curves (the first line is the reference)."""
    return figure.axes[0].get_lines()[1:]


def position_mask(subgroup, data):
    """The cover computed independently of pysubgroup, by position."""
    mask = np.ones(len(data), dtype=bool)
    for selector in subgroup.selectors:
        column = data[selector.attribute_name].to_numpy()
        if isinstance(selector, ps.EqualitySelector):
            mask &= column == selector.attribute_value
        else:
            mask &= (column >= selector.lower_bound) & (column < selector.upper_bound)
    return mask


def test_roc_points_are_sklearns(data):
    figure = plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")
    masks = [np.ones(len(data), dtype=bool)] + [position_mask(sg, data) for sg in SUBGROUPS]
    assert len(curves(figure)) == len(masks)
    for line, mask in zip(curves(figure), masks):
        y, p = data["y"].to_numpy()[mask], data["p"].to_numpy()[mask]
        fpr, tpr, _ = roc_curve(y, p, pos_label="pos", drop_intermediate=False)
        np.testing.assert_allclose(line.get_xydata(), np.column_stack([fpr, tpr]))
        assert f"n={mask.sum():,}" in line.get_label()
        assert f"AUC {roc_auc_score(y == 'pos', p):.3f}" in line.get_label()


def test_pr_points_are_sklearns(data):
    figure = plot_pr_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")
    masks = [np.ones(len(data), dtype=bool)] + [position_mask(sg, data) for sg in SUBGROUPS]
    for line, mask in zip(curves(figure), masks):
        y, p = data["y"].to_numpy()[mask], data["p"].to_numpy()[mask]
        precision, recall, _ = precision_recall_curve(y, p, pos_label="pos")
        np.testing.assert_allclose(line.get_xydata(), np.column_stack([recall, precision])[::-1])
        assert f"PR AUC {pr_auc_score(y, p, positive_label='pos'):.3f}" in line.get_label()


def test_index_does_not_matter(data):
    a = plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")
    b = plot_roc_curves(SUBGROUPS, data.reset_index(drop=True), label="y", score="p",
                        positive_label="pos")  # fmt: skip
    for line_a, line_b in zip(curves(a), curves(b)):
        np.testing.assert_array_equal(line_a.get_xydata(), line_b.get_xydata())


def test_top_table_names_and_axes(data):
    table = pd.DataFrame({"subgroup": SUBGROUPS, "description": ["red", "large", "small blue"]})
    figure = plot_pr_curves(table, data, label="y", score="p", positive_label="pos", top=2)
    labels = [line.get_label() for line in curves(figure)]
    assert len(labels) == 3  # whole data and the top 2
    assert labels[0].startswith("whole data") and labels[1].startswith("red (")
    assert labels[2].startswith("large (")

    _, ax = plt.subplots()
    figure = plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos",
                             top=None, ax=ax, names=["a", "b", "c"])  # fmt: skip
    assert figure is ax.figure
    assert [line.get_label().split(" (")[0] for line in curves(figure)][1:] == ["a", "b", "c"]


def test_undefined_curve_is_skipped_with_a_warning(data):
    only_negatives = ps.Conjunction([ps.EqualitySelector("y", "neg")])
    with pytest.warns(UndefinedMeasureWarning, match="one class only"):
        figure = plot_roc_curves([only_negatives, SUBGROUPS[0]], data, label="y", score="p",
                                 positive_label="pos")  # fmt: skip
    assert len(curves(figure)) == 2


def test_bad_input(data, monkeypatch):
    with pytest.raises(ValueError, match="no 'subgroup' column"):
        plot_roc_curves(pd.DataFrame({"description": ["red"]}), data, label="y", score="p",
                        positive_label="pos")  # fmt: skip
    with pytest.raises(ValueError, match="names has 1 entries but 3"):
        plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos", names=["x"])
    with pytest.raises(KeyError, match="'label'"):
        plot_roc_curves(SUBGROUPS, data, label="label", score="p")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install subroc-ext\[plot\]"):
        plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")


@pytest.mark.parametrize("plot", [plot_roc_curves, plot_pr_curves])
def test_the_split_is_named_in_title_and_legend(data, plot):
    figure = plot(SUBGROUPS, data, label="y", score="p", positive_label="pos", split="validation")
    axes = figure.axes[0]
    assert axes.get_title().endswith("curves on the validation split")
    assert axes.get_legend().get_texts()[1].get_text().startswith("whole validation split (n=400,")
    unnamed = plot(SUBGROUPS, data, label="y", score="p", positive_label="pos").axes[0]
    assert "split" not in unnamed.get_title()
