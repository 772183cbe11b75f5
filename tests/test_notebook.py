"""``table.subroc``: the compact view Jupyter shows, and the report's pieces as methods."""

import pandas as pd
import pytest

import subroc_ext
from subroc_ext.inference.verdicts import level_text

pytest.importorskip("matplotlib")


def test_repr_html_is_the_forest_plot_and_the_default_columns(audit_analysis):
    table = audit_analysis.table
    assert isinstance(table, pd.DataFrame)  # find_subgroups still returns a DataFrame
    view = table.subroc._repr_html_()
    assert view.count("<img") == 1 and 'alt="forest plot"' in view
    header = view.split("<thead>")[1].split("</thead>")[0]
    columns = [part.split('"')[0] for part in header.split('data-col="')[1:]]
    assert columns == ["rank", "description", "size_validation", "roc_auc_validation",
                       "expected_roc_auc_validation", "delta",
                       "p_value_corrected", "significant", "failure"]  # fmt: skip
    assert view.split("<tbody>")[1].count("<tr") == min(10, len(table))
    assert "<script" not in view and "<details" not in view  # static: no chooser in a notebook
    whole = table.attrs["dataset_values"]["roc_auc_validation"]
    assert f"roc_auc is {whole:.3f}" in view
    first = table.iloc[0]
    assert f'{first["delta"]:+.3f} <span class="ci">[{first["delta_ci_low"]:+.3f}, ' in view
    assert f"each interval is at the {level_text(table.attrs['interval_level'])} level that matches" in view


def test_methods_and_refusal(audit_analysis):
    table, validation = audit_analysis.table, audit_analysis.validation
    pd.testing.assert_frame_equal(table.subroc.rows(validation), subroc_ext.subgroup_membership(table, validation))
    assert table.subroc.forest(top=3).axes[0].texts[0].get_text().startswith("#1 ")
    with pytest.raises(AttributeError, match="needs a table returned by find_subgroups"):
        pd.DataFrame({"a": [1]}).subroc
