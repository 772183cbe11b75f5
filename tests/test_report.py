"""write_report: CSV without objects, the PNG embedded in one HTML file."""

import base64

import pandas as pd
import pytest

from subroc_ext import report, write_report

pytest.importorskip("matplotlib")


@pytest.fixture
def analysis(audit_analysis):
    return audit_analysis.table, audit_analysis.validation


def test_files(analysis, tmp_path):
    table, validation = analysis
    files = write_report(table, validation, tmp_path / "new" / "dir", label="y", score="p",
                         title="Audit <of> p", runtime=1.25)  # fmt: skip
    assert all(path.is_file() for path in files)

    csv = pd.read_csv(files.csv)
    assert list(csv.columns) == [c for c in table.columns if c != "subgroup"]
    assert csv["description"].tolist() == table["description"].tolist()

    page = files.html.read_text(encoding="utf-8")
    assert "data:image/png;base64," + base64.b64encode(files.png.read_bytes()).decode() in page
    assert page.count('<tr class="significant"') == table["significant"].sum() > 0
    assert "region==&#x27;east&#x27;" in page
    assert "Audit &lt;of&gt; p" in page and "1.2 s" in page
    assert "How to read this" in page
    assert "FDR Benjamini-Yekutieli method, which controls the false discovery rate under " \
           "any dependence" in " ".join(page.split())
    assert "roc_auc_validation" in page and "min_support" in page


def test_pr_auc_draws_pr_curves(analysis, tmp_path, monkeypatch):
    drawn, original = [], report.plot_pr_curves

    def spy(*args, **kwargs):
        drawn.append("pr")
        return original(*args, **kwargs)

    monkeypatch.setattr(report, "plot_pr_curves", spy)
    table, validation = analysis
    write_report(table, validation, tmp_path, label="y", score="p", measure="roc_auc")
    assert drawn == []
    write_report(table, validation, tmp_path, label="y", score="p", measure="pr_auc", top=2)
    assert drawn == ["pr"]


def test_page_names_the_split_and_sorts_and_filters_without_a_server(analysis, tmp_path):
    table, validation = analysis
    page = write_report(table, validation, tmp_path, label="y", score="p").html.read_text(
        encoding="utf-8"
    )
    assert "Curves of the top 5 subgroups on the validation split" in page
    assert f"Drawn on the validation split ({len(validation):,} rows)" in page
    # sortable and filterable in the page itself: no external script, no server
    assert '<table id="subgroups">' in page and 'id="filter-text"' in page
    assert "<script>" in page and "<script src" not in page and "http" not in page.split("<script>")[1]
    assert '<div class="scroll">' in page and "overflow-x: auto" in page
    rows = page.split("<tbody>")[1].split("</tbody>")[0].split("<tr")[1:]
    assert len(rows) == len(table)
    # every numeric cell carries its raw value to sort by, and the CI and overlap are shown
    first = table.iloc[1]
    assert f'data-value="{float(first["quality"])!r}"' in rows[1]
    ci = f'{first["roc_auc_validation_ci_low"]:.3f}–{first["roc_auc_validation_ci_high"]:.3f}'
    assert ci in rows[1]
    assert f'{first["overlap"]:.2f} with #{first["overlaps_with"]}' in rows[1]
    assert "roc_auc_validation 95% CI" in page and "overlap (Jaccard, search)" in page


def test_alternatives_are_listed_under_their_row(analysis, tmp_path):
    table, validation = analysis
    table = table.copy()
    table.loc[0, "alternatives"] = "a=='<x>'; b==1"
    page = write_report(table, validation, tmp_path, label="y", score="p").html.read_text(
        encoding="utf-8"
    )
    assert '<div class="also">same rows: a==&#x27;&lt;x&gt;&#x27;; b==1</div>' in page


@pytest.mark.parametrize(
    "method, name",
    [("b", "Bonferroni method, which controls the family-wise error rate"),
     ("fdr_gbs", "FDR adaptive Gavrilov-Benjamini-Sarkar method, which is documented with")],
)  # fmt: skip
def test_methods_are_named_from_statsmodels_table(analysis, tmp_path, method, name):
    table, validation = analysis
    table = table.copy()
    table.attrs = {**table.attrs, "method": method}
    page = write_report(table, validation, tmp_path, label="y", score="p").html.read_text(
        encoding="utf-8"
    )
    assert name in " ".join(page.split())
