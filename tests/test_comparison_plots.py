"""Tests of :func:`subroc_ext.reporting.comparison_plots.plot_comparison_roc_curves`:
each panel's curves and legend AUCs are each side's on the subgroup and on
the whole data (scikit-learn as the oracle)."""

import numpy as np
import pytest
from sklearn import metrics
from test_comparison_pipeline import regression_data, scored_rows

import subroc_ext
from subroc_ext.reporting.comparison_plots import plot_comparison_roc_curves
from subroc_ext.reporting.conditions import readable_description

pytest.importorskip("matplotlib")
SETTINGS = {"depth": 1, "result_set_size": 3, "n_samples": 50, "random_state": 0, "progress": False}


def legend_aucs(ax):
    return {text.get_text().rsplit(":", 1)[0]: float(text.get_text().rsplit(":", 1)[1])
            for text in ax.get_legend().get_texts()}  # fmt: skip


def test_paired_panels_show_both_models():
    data = regression_data(2, n=1200)
    table = subroc_ext.find_regressions(data, label="y", score="new", baseline="old", **SETTINGS)
    figure = plot_comparison_roc_curves(table, data, top=2)
    assert len(figure.axes) == 2
    first = table["subgroup"][0]
    inside = first.covers(data)
    aucs = legend_aucs(figure.axes[0])
    for side, column in (("baseline", "old"), ("new", "new")):
        expected = metrics.roc_auc_score(data["y"][inside], data[column][inside])
        assert aucs[f"{side}, subgroup"] == pytest.approx(expected, abs=5e-4)
        assert aucs[f"{side}, all"] == pytest.approx(metrics.roc_auc_score(data["y"], data[column]), abs=5e-4)
    assert figure.axes[0].get_title() == (
        f"#1 {readable_description(first)}\nΔ validation {table['delta_validation'][0]:+.3f}"
    )


def test_unpaired_panels_show_both_periods():
    rng = np.random.default_rng(4)
    reference, current = scored_rows(rng, 1000, False), scored_rows(rng, 1000, True)
    table = subroc_ext.find_drift(reference, current, label="y", score="p", **SETTINGS)
    figure = plot_comparison_roc_curves(table, reference, current, top=1)
    aucs = legend_aucs(figure.axes[0])
    inside = table["subgroup"][0].covers(current)
    expected = metrics.roc_auc_score(current["y"][inside], current["p"][inside])
    assert aucs["current, subgroup"] == pytest.approx(expected, abs=5e-4)
    assert set(aucs) == {"reference, all", "reference, subgroup", "current, all", "current, subgroup"}
