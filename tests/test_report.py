"""write_report: CSV without objects, the PNG embedded in one HTML file."""

import base64

import numpy as np
import pandas as pd
import pytest

import subroc_ext
from subroc_ext import write_report
from subroc_ext.inference.verdicts import level_text
from subroc_ext.reporting import reading, report
from subroc_ext.scoring.measures import RowMeanMeasure
from synthetic import scored_frame

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
    assert page.count('<tr class="significant') == table["significant"].sum() > 0
    assert page.count('<tr class="significant failure"') == table["failure"].sum()  # failures marked apart
    assert '<span class="cond">region = east</span>' in page
    assert "Audit &lt;of&gt; p" in page and "1.2 s" in page
    assert "How to read this" in page
    assert "FDR Benjamini-Yekutieli method, which controls the false discovery rate under " \
           "any dependence" in " ".join(page.split())
    assert "roc_auc_validation" in page and "min_support" in page


def test_the_heading_counts_the_significant_rows_as_the_headline_does(analysis, tmp_path):
    table, validation = analysis
    table = table.copy()
    table.attrs = dict(analysis[0].attrs)
    quiet = ~table["significant"].astype(bool)
    assert quiet.any() and "failure" in table.columns
    row = quiet.idxmax()  # a row the table's test did not find: a failure by its promise (no holdout)
    table.loc[row, ["failure", "failure_note"]] = [True, "by its promise: it falls short of ..."]
    n = int(table["significant"].sum()) + 1
    page = " ".join(write_report(table, validation, tmp_path, label="y", score="p").html
                    .read_text(encoding="utf-8").split())
    assert f"{len(table):,} distinct subgroups, {n:,} of them significant (1 by its promise)." in page
    assert f"among {n:,} significant (1 by its promise) of" in page


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
    assert "ROC curves of the top 5 distinct subgroups on the validation split" in page
    assert f"Drawn on the validation split ({len(validation):,} rows)" in page
    # sortable and filterable in the page itself: no external script, no server
    assert '<div class="results">' in page and 'type="search"' in page
    assert "<script>" in page and "<script src" not in page and "http" not in page.split("<script>")[1]
    assert '<div class="scroll">' in page and "overflow-x: auto" in page
    body = page.split('<div class="results">')[1].split("<tbody>")[1].split("</tbody>")[0]
    rows = body.split("<tr")[1:]
    assert len(rows) == len(table)
    # every numeric cell carries its raw value to sort by; the CI sits with the AUC
    first = table.iloc[1]
    assert f'data-value="{float(first["quality"])!r}"' in rows[1]
    ci = f'[{first["roc_auc_validation_ci_low"]:.3f}, {first["roc_auc_validation_ci_high"]:.3f}]'
    assert ci in rows[1]
    assert f'{first["overlap"]:.2f} with #{first["overlaps_with"]}' in rows[1]
    # the effect with its simultaneous interval, and the note saying what it is
    effect = f'{first["delta"]:+.3f} <span class="ci">[{first["delta_ci_low"]:+.3f}, {first["delta_ci_high"]:+.3f}]</span>'
    assert f'data-value="{float(first["delta"])!r}">{effect}<' in rows[1]
    header = page.split('<div class="results">')[1].split("<tbody>")[0]
    assert "Δ [interval]" in header and "Δ whole data" not in header
    assert ("positive = roc_auc worse in the subgroup than on the whole split; each interval is at the "
            f"{level_text(table.attrs['interval_level'])} level that matches the selection") in page
    # eight columns shown (the ROC AUC the scores promise among them), every other
    # numeric column one click away in the chooser
    chooser = page.split('<details class="columns">')[1].split("</details>")[0]
    assert chooser.count(" checked>") == 9  # with what the headline's rules said of each row
    assert 'value="expected_roc_auc_validation" checked>' in chooser
    assert f'>{first["expected_roc_auc_validation"]:.3f}<' in rows[1]
    for hidden in ("quality", "size_search", "bpsn_auc_validation", "false_positive_rate", "p_value"):
        assert f'value="{hidden}">' in chooser


def test_the_headline_then_the_forest_plot_come_first(analysis, tmp_path):
    table, validation = analysis
    page = write_report(table, validation, tmp_path, label="y", score="p").html.read_text(
        encoding="utf-8"
    )
    sections = [part.split('"')[0] for part in page.split('<section id="')[1:]]
    assert sections[:4] == ["findings", "forest", "subgroups", "curves"]
    assert '<p class="headline">' in page.split('<section id="forest"')[0]
    assert 'alt="forest plot"' in page.split('<section id="subgroups"')[0]


def test_rates_at_the_youden_threshold_of_the_search_split(audit_analysis, tmp_path):
    from subroc_ext.metrics.diagnostics import youden_threshold
    from subroc_ext.metrics.operating_point import threshold_rates

    table, search, validation = audit_analysis.table, audit_analysis.search, audit_analysis.validation
    page = write_report(table, validation, tmp_path, label="y", score="p", search=search).html
    page = page.read_text(encoding="utf-8")
    tau = youden_threshold(search["y"].to_numpy() == 1, search["p"].to_numpy())
    rates = threshold_rates(list(table["subgroup"]), validation, label="y", score="p", threshold=tau)
    assert f"At the threshold {tau:.3g}" in page
    assert f"false-positive rate of {rates['false_positive_rate'][0]:.3f}" in page
    first_row = page.split('<div class="results">')[1].split("<tbody>")[1].split("</tr>")[0]
    assert f'data-col="precision" data-value="{float(rates["precision"][1])!r}"' in first_row


def test_alternatives_are_listed_under_their_row(analysis, tmp_path):
    table, validation = analysis
    table = table.copy()
    table.loc[0, "alternatives"] = "a=='<x>'; b==1"
    page = write_report(table, validation, tmp_path, label="y", score="p").html.read_text(
        encoding="utf-8"
    )
    assert '<div class="also">same rows: a = &lt;x&gt;; b = 1</div>' in page
    assert '<span class="cond">region = east</span>' in page


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


def test_cli_threshold_and_rows(tmp_path, capsys):
    from subroc_ext.cli import main
    from subroc_ext.metrics.operating_point import threshold_rates
    from synthetic import scored_frame

    data = scored_frame(0)
    data.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    code = main(["run", str(tmp_path / "data.csv"), "--label", "y", "--score", "p", "--quiet",
                 "--samples", "50", "--top", "5", "--threshold", "0.3", "--export-rows",
                 "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "At the threshold 0.3 (score ≥ threshold predicts positive; the user's threshold)" in page
    rows = pd.read_csv(out / "rows.csv")
    table = pd.read_csv(out / "subgroups.csv")
    assert sorted(rows["row"]) == list(range(len(data))) and set(rows["split"]) == {"search", "validation"}
    whole = threshold_rates([], data.iloc[rows.loc[rows["split"] == "validation", "row"]], label="y",
                            score="p", threshold=0.3)  # fmt: skip
    assert f"false-positive rate of {whole['false_positive_rate'][0]:.3f}" in page
    # each subgroup's column marks exactly its rows (the size on each split)
    for split in ("search", "validation"):
        counted = rows[rows["split"] == split][list(table["description"])].sum().to_numpy()
        assert counted.tolist() == table[f"size_{split}"].tolist()
    assert main(["run", str(tmp_path / "data.csv"), "--label", "y", "--score", "p", "--threshold", "nan"]) == 2


def test_effects_in_the_forest_plot_and_older_tables(analysis, tmp_path, monkeypatch):
    table, validation = analysis
    drawn, original = [], report.plot_forest

    def spy(*args, **kwargs):
        figure = original(*args, **kwargs)
        drawn.append((kwargs, figure.axes[0]))
        return figure

    monkeypatch.setattr(report, "plot_forest", spy)
    page = write_report(table, validation, tmp_path, label="y", score="p", value="delta").html.read_text(
        encoding="utf-8"
    )
    kwargs, ax = drawn[0]
    assert kwargs["value"] == "delta" and kwargs["reference"] == 0.0
    segments = ax.collections[0].get_segments()
    assert [s[0][0] for s in segments] == pytest.approx(table["delta_ci_low"].tolist())
    assert [s[1][0] for s in segments] == pytest.approx(table["delta_ci_high"].tolist())
    assert "Δ ROC AUC of each subgroup" in page and "dashed line is 0 (no difference" in page
    # the table's measure keeps DeLong's interval
    first = table.iloc[0]
    assert f'[{first["roc_auc_validation_ci_low"]:.3f}, {first["roc_auc_validation_ci_high"]:.3f}]' in page

    # a table of older code (no effect columns): the plain difference, no note
    drawn.clear()
    older = table.drop(columns=["delta", "delta_ci_low", "delta_ci_high"])
    older.attrs = table.attrs
    page = write_report(older, validation, tmp_path, label="y", score="p").html.read_text(encoding="utf-8")
    assert drawn[0][0]["value"] == "roc_auc_validation"
    rows = page.split('<div class="results">')[1].split("<tbody>")[1].split("<tr")[1:]
    difference = first["roc_auc_validation"] - table.attrs["dataset_values"]["roc_auc_validation"]
    assert f">{difference:+.3f}<" in rows[0]
    assert "Δ whole data" in page and "Δ [interval]" not in page and "simultaneous" not in page


def test_many_splits_the_forest_plot_draws_the_aggregate_the_table_shows(tmp_path, monkeypatch):
    """With splits=B the table's delta, interval and verdicts are the aggregate's and its
    measure columns one split's: the forest plot draws the aggregate (the table's Δ
    [interval]), and the page says whose values are whose."""
    from test_many_splits import _planted

    from subroc_ext.workflow.pipeline import split_validation

    frame = _planted(800)
    table = subroc_ext.find_subgroups(frame, label="label", score="score", splits=3, depth=1, progress=False,
                                      random_state=0)  # fmt: skip
    shown = table.attrs["splits"]
    _, validation = split_validation(frame, 0.5, shown["seeds"][shown["shown"]])
    drawn, original = [], report.plot_forest

    def spy(*args, **kwargs):
        figure = original(*args, **kwargs)
        drawn.append(figure.axes[0])
        return figure

    monkeypatch.setattr(report, "plot_forest", spy)
    page = write_report(table, validation, tmp_path, label="label", score="score").html.read_text(encoding="utf-8")
    ax = drawn[-1]  # every row
    dots = {line.get_label(): line for line in ax.get_lines()}
    significant = table["significant"].to_numpy(bool)
    y = np.arange(len(table))[::-1]
    for label, chosen in (("significant", significant), ("not significant", ~significant)):
        np.testing.assert_allclose(dots[label].get_xdata(), table.loc[chosen, "delta"])
        np.testing.assert_array_equal(dots[label].get_ydata(), y[chosen])
    ends = np.array([(s[0][0], s[1][0]) if len(s) else (np.nan, np.nan)  # a row no split's interval bounds: none
                     for s in ax.collections[0].get_segments()])  # fmt: skip
    np.testing.assert_allclose(ends, table[["delta_ci_low", "delta_ci_high"]].to_numpy(float))
    assert np.isfinite(ends).all(axis=1).sum() >= 5
    assert "the aggregate over 3 splits" in ax.get_xlabel()
    assert "Δ ROC AUC of each subgroup (the aggregate over 3 splits)" in page
    assert "Dots, lines and colours are the aggregate over the 3 splits" in page
    assert f"roc_auc (validation, split {shown['shown']})" in page


def test_effect_note_follows_the_mode():
    table = pd.DataFrame({"delta": [0.1], "delta_ci_low": [0.0], "delta_ci_high": [0.2]})
    table.attrs = {"measure": "arl", "mode": "better", "alpha": 0.1}
    assert "positive = arl better in the subgroup than on the whole split; the intervals are 90%" \
        in reading.effect_note(table)
    table.attrs["mode"] = "both"
    assert "positive = the size of the deviation of arl;" in reading.effect_note(table)
    assert reading.effect_note(table.drop(columns="delta_ci_high")) == ""


def test_a_measure_of_ones_own_gets_its_columns_and_its_report(tmp_path):
    """A user's measure had no <name>_search/_validation columns: write_report(measure=it) raised KeyError."""
    search, validation = scored_frame(0, n=1000), scored_frame(1, n=1000)
    brier = RowMeanMeasure(lambda y, p: (p - y) ** 2, kind="loss", name="my_brier")
    with pytest.warns(subroc_ext.LowPowerWarning):
        table = subroc_ext.find_subgroups(search, label="y", score="p", validation=validation, measure=brier,
                                          n_samples=20, random_state=0, progress=False)  # fmt: skip
    rows = validation[np.asarray(table["subgroup"][0].covers(validation), bool)]
    assert table["my_brier_validation"][0] == pytest.approx(((rows["p"] - rows["y"]) ** 2).mean())
    whole = table.attrs["dataset_values"]
    assert whole["my_brier_validation"] == pytest.approx(((validation["p"] - validation["y"]) ** 2).mean())
    assert whole["my_brier_search"] == pytest.approx(((search["p"] - search["y"]) ** 2).mean())
    for measure in (brier, "my_brier"):
        page = write_report(table, validation, tmp_path / "report", label="y", score="p",
                            measure=measure).html.read_text(encoding="utf-8")  # fmt: skip
        assert "my_brier (validation)" in page and 'alt="forest plot"' in page
