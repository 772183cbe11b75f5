"""The cross AUC section of the HTML report."""

import numpy as np
import pytest

from subroc_ext import cross_auc, find_subgroups, write_report
from subroc_ext.report_sections import cross_auc_section
from synthetic import scored_frame

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def analysis():
    search, validation = scored_frame(0, n=1200), scored_frame(1, n=1200)
    table = find_subgroups(search, label="y", score="p", validation=validation, n_samples=100,
                           result_set_size=6, random_state=0, progress=False)  # fmt: skip
    return table, validation


def test_section_shows_the_top_subgroups(analysis):
    table, validation = analysis
    section = cross_auc_section(table, validation, label="y", score="p", top=3)
    assert section.startswith("<h2>Cross AUCs of the top 3 subgroups</h2>")
    assert section.count("data:image/png;base64,") == 1
    assert f"on {len(validation):,} rows" in section
    assert cross_auc_section(table.drop(columns="subgroup"), validation, label="y", score="p") == ""
    assert cross_auc_section(table.head(0), validation, label="y", score="p") == ""


def test_report_includes_section_and_bias_columns(analysis, tmp_path):
    table, validation = analysis
    page = write_report(table, validation, tmp_path, label="y", score="p", top=2).html.read_text()
    assert "Cross AUCs of the top 2 subgroups" in page
    shown = page.replace("<wbr>", "")  # headers may wrap after underscores
    assert "<th>bpsn_auc_validation</th>" in shown and "<th>bnsp_auc_validation</th>" in shown
    # the table's BPSN column is the cross AUC of the background vs. the subgroup
    first = table.iloc[0]
    single = cross_auc({"s": first["subgroup"]}, validation, label="y", score="p")
    assert first["bpsn_auc_validation"] == pytest.approx(single.auc.loc["background", "s"])
    assert np.isfinite(first["bnsp_auc_validation"])


def test_diagnostics_section_with_the_search_split(tmp_path):
    search, validation = scored_frame(0, n=1200), scored_frame(1, n=1200)
    table = find_subgroups(search, label="y", score="p", validation=validation, n_samples=50,
                           result_set_size=4, random_state=0, progress=False)  # fmt: skip
    page = write_report(table, validation, tmp_path, label="y", score="p", top=3,
                        search=search).html.read_text()  # fmt: skip
    assert "Will it hold on new data? (top 3 subgroups)" in page
    assert 'alt="generalization diagnostics"' in page and "w2_search_neg__search_pos" in page
    without = write_report(table, validation, tmp_path / "b", label="y", score="p").html.read_text()
    assert "Will it hold on new data?" not in without
