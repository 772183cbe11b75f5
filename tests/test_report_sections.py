"""The cross AUC and generalization diagnostics sections of the HTML report."""

import numpy as np
import pytest

from subroc_ext import cross_auc, write_report
from subroc_ext.reporting.sections import cross_auc_section, diagnostics_section, top_diagnostics

pytest.importorskip("matplotlib")


@pytest.fixture
def analysis(audit_analysis):
    return audit_analysis.table, audit_analysis.validation


def test_section_shows_the_top_subgroups(analysis):
    table, validation = analysis
    section = cross_auc_section(table, validation, label="y", score="p", top=3)
    assert section.startswith('<p class="note">The top 3 subgroups.</p>')
    assert section.count("data:image/svg+xml;base64,") == 1
    assert f"on {len(validation):,} rows" in section
    assert cross_auc_section(table.drop(columns="subgroup"), validation, label="y", score="p") == ""
    assert cross_auc_section(table.head(0), validation, label="y", score="p") == ""


def test_report_includes_section_and_bias_columns(analysis, tmp_path):
    table, validation = analysis
    page = write_report(table, validation, tmp_path, label="y", score="p", top=2).html.read_text()
    assert '<section id="cross-auc"><h2>Cross AUCs</h2>' in page and "The top 2 subgroups." in page
    chooser = page.split('<details class="columns">')[1].split("</details>")[0]
    assert 'value="bpsn_auc_validation">' in chooser and 'value="bnsp_auc_validation">' in chooser
    # the table's BPSN column is the cross AUC of the background vs. the subgroup
    first = table.iloc[0]
    single = cross_auc({"s": first["subgroup"]}, validation, label="y", score="p")
    assert first["bpsn_auc_validation"] == pytest.approx(single.auc.loc["background", "s"])
    assert np.isfinite(first["bnsp_auc_validation"])


def test_diagnostics_section_with_the_search_split(audit_analysis, tmp_path):
    search, validation, table = audit_analysis.search, audit_analysis.validation, audit_analysis.table
    page = write_report(table, validation, tmp_path, label="y", score="p", top=3,
                        search=search).html.read_text()  # fmt: skip
    assert "<h2>Will it hold on new data?</h2>" in page and "the top 3 subgroups." in page
    assert 'alt="generalization diagnostics"' in page and "W2 negatives vs positives (search)" in page
    without = write_report(table, validation, tmp_path / "b", label="y", score="p").html.read_text()
    assert "Will it hold on new data?" not in without


def test_diagnostics_are_computed_beside_the_figures_and_their_error_is_raised(audit_analysis, tmp_path):
    """write_report computes the diagnostics in a thread: the same section as computed in
    line, and an error there is the report's error."""
    search, validation, table = audit_analysis.search, audit_analysis.validation, audit_analysis.table
    diagnostics = top_diagnostics(table, search, validation, label="y", score="p", top=2)
    assert list(diagnostics["subgroup"]) == ["all", "#1 region = east", "#2 plan = basic"]
    page = write_report(table, validation, tmp_path, label="y", score="p", top=2, search=search).html.read_text()
    section = str(diagnostics_section(diagnostics, top=2))
    assert section.split("data:image")[0] in page and section.split('alt="generalization diagnostics"')[1][300:] in page
    assert top_diagnostics(table.head(0), search, validation, label="y", score="p") is None
    assert diagnostics_section(None) == ""
    with pytest.raises(KeyError, match="'p'"):
        write_report(table, validation, tmp_path / "b", label="y", score="p", search=search.drop(columns="p"))


@pytest.mark.parametrize("mode, share, said", [
    ("worse", 0.6, "mostly range restriction (its scores promise 60% of this drop)"),
    ("worse", 1.15, "all range restriction (its scores promise a larger drop, 115% of it)"),
    ("better", 0.6, "mostly wider spread of risk (its scores promise 60% of this gain)"),
    ("both", 0.6, "mostly range restriction (its scores promise 60% of this drop)"),
])  # fmt: skip
def test_a_range_restricted_row_says_how_much_of_its_change_the_scores_promise(mode, share, said):
    from subroc_ext.reporting.cells import description_cell

    cell = description_cell(mode, "roc_auc_validation", 0.8)
    html, _ = cell({"description": "age >= 41", "range_restricted": True, "expected_share": share,
                    "roc_auc_validation": 0.7})  # fmt: skip
    assert said in str(html)


@pytest.mark.parametrize("failure", [True, np.True_])
def test_a_failure_whose_scores_promise_part_of_its_drop_says_the_rest_is_not(failure):
    """A headline failure falls short of its promise: 'mostly range restriction' beside it read as if it were
    none (the demo's seed 1)."""
    from subroc_ext.reporting.cells import description_cell

    cell = description_cell("worse", "roc_auc_validation", 0.8)
    html, _ = cell({"description": "age >= 51", "range_restricted": True, "expected_share": 0.6,
                    "roc_auc_validation": 0.7, "failure": failure})  # fmt: skip
    assert "its scores promise 60% of this drop (range restriction), not the other 40%" in str(html)
    assert "mostly" not in str(html)
