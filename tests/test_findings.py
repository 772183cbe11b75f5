"""Tests of :mod:`subroc_ext.reporting.findings`: the headline of every result."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

from subroc_ext.reporting.findings import failure_rows, findings_section, headline, headline_html
from subroc_ext.cli.output import _format_results, _notes_legend, _row_notes, _top_rows
from subroc_ext.reporting.cells import failure_label


def _subgroup(value):
    return ps.Conjunction([ps.EqualitySelector("region", value)])


def single_table(significant, deltas=(0.02, 0.09, 0.05), mode="worse"):
    """Three subgroups ranked by quality; the second has the largest effect."""
    values = [0.90 - delta for delta in deltas]
    table = pd.DataFrame({
        "subgroup": [_subgroup(v) for v in ("east", "west", "north")],
        "description": ["region=='east'", "region=='west'", "region=='north'"],
        "size_validation": [500, 250, 100],
        "roc_auc_validation": values,
        "significant": significant,
        "delta": list(deltas),
        "delta_ci_low": [d - 0.01 for d in deltas],
        "delta_ci_high": [d + 0.01 for d in deltas],
    })  # fmt: skip
    table.attrs.update(measure="roc_auc", mode=mode, method="fdr_by", alpha=0.05,
                       dataset_values={"roc_auc_validation": 0.9}, n_rows={"validation": 1000})  # fmt: skip
    return table


def test_significant_findings_by_effect_with_share_value_and_interval():
    said = headline(single_table([True, True, False]))
    assert said.summary == (
        "Where the ROC AUC is worse than on the whole data: 2 of 3 subgroups significant "
        "(fdr_by, alpha 0.05), largest effect first:"
    )
    assert [finding.sentence() for finding in said.findings] == [
        "region=='west' (25% of held-out rows): ROC AUC 0.810 vs 0.900 overall, 0.090 lower [0.080, 0.100]",
        "region=='east' (50% of held-out rows): ROC AUC 0.880 vs 0.900 overall, 0.020 lower [0.010, 0.030]",
    ]
    assert said.findings[0].sentence(readable=True).startswith("region = west (25% of held-out rows)")
    assert said.more == ""


def test_only_the_top_findings_are_named_and_the_rest_counted():
    said = headline(single_table([True, True, True]), top=1)
    assert len(said.findings) == 1 and said.findings[0].description == "region=='west'"
    assert said.more == "... and 2 more significant in the table."


def test_nothing_significant_says_so_and_names_the_largest_effect():
    said = headline(single_table([False, False, False]))
    assert said.findings == []
    assert said.summary == (
        "No subgroup where the ROC AUC is significantly worse than the whole data: 0 of 3 "
        "subgroups significant (fdr_by, alpha 0.05). The largest observed effect, "
        "region=='west' (delta 0.090), may be chance."
    )


def test_empty_and_untested_tables():
    empty = single_table([True, True, True]).iloc[:0]
    assert headline(empty).summary == "No subgroup found."
    untested = single_table([True, True, True]).assign(significant=np.nan)
    assert headline(untested).summary == "3 subgroups found, not tested."


def test_better_mode_says_higher():
    said = headline(single_table([True, False, False], deltas=(-0.05, 0.0, 0.0), mode="better"))
    assert said.summary.startswith("Where the ROC AUC is better than on the whole data: 1 of 3")
    assert "ROC AUC 0.950 vs 0.900 overall, 0.050 higher" in said.findings[0].sentence()


def comparison_table(kind, old, new, significant=(True, False)):
    """A find_regressions (paired) or find_drift table of two subgroups."""
    suffixes = ("baseline_validation", "validation") if kind == "paired" else (
        "reference_validation", "current_validation")  # fmt: skip
    size = "size_validation" if kind == "paired" else "size_current_validation"
    table = pd.DataFrame({
        "subgroup": [_subgroup("east"), _subgroup("west")],
        "description": ["region=='east'", "region=='west'"],
        size: [300, 700],
        f"roc_auc_{suffixes[0]}": [0.85, 0.9],
        f"roc_auc_{suffixes[1]}": [0.75, 0.88],
        "significant": list(significant),
        "delta": [0.06, 0.01], "delta_ci_low": [0.02, -0.01], "delta_ci_high": [0.1, 0.03],
    })  # fmt: skip
    sides = ("baseline", "new") if kind == "paired" else ("reference", "current")
    table.attrs.update(
        measure="roc_auc", mode="worse", method="fdr_by", alpha=0.05, n_rows={"validation": 1000},
        dataset_values={f"roc_auc_{sides[0]}_validation": old, f"roc_auc_{sides[1]}_validation": new},
    )  # fmt: skip
    if kind == "paired":
        table.attrs["baseline"] = "old"
    return table


def test_a_drift_without_overall_degradation_says_so_first():
    said = headline(comparison_table("drift", old=0.820, new=0.837, significant=(False, False)))
    assert said.summary.startswith(
        "On the whole validation data the current period is not worse: ROC AUC 0.837 vs 0.820 "
        "(the reference period). No subgroup where the change is significantly worse than the "
        "whole data: 0 of 2 subgroups significant"
    )


def test_paired_and_drift_findings():
    paired = headline(comparison_table("paired", old=0.92, new=0.89))
    assert paired.summary.startswith(
        "On the whole validation data the new model is worse: ROC AUC 0.890 vs 0.920 (the baseline). "
        "Where the change is worse than on the whole data: 1 of 2 subgroups significant"
    )
    assert paired.findings[0].sentence() == (
        "region=='east' (30% of held-out rows): ROC AUC 0.750 (new) vs 0.850 (baseline), a change 0.060 "
        "worse than on the whole data [0.020, 0.100]"
    )
    drift = headline(comparison_table("drift", old=0.92, new=0.89))
    assert drift.findings[0].sentence() == (
        "region=='east' (30% of held-out rows): ROC AUC 0.850 (reference) -> 0.750 (current), a change "
        "0.060 worse than on the whole data [0.020, 0.100]"
    )


def test_html_escapes_and_is_the_findings_section():
    table = single_table([True, False, False])
    table["subgroup"] = [ps.Conjunction([ps.EqualitySelector("note", "<script>x</script>")])] * 3
    body = headline_html(table)
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert body.startswith('<p class="headline">Where the ROC AUC is worse')
    section = findings_section(table)
    assert (section.title, section.anchor) == ("Findings", "findings") and section.body == body


@pytest.mark.parametrize("loss, old, new, verb", [(False, 0.9, 0.8, "worse"), (True, 10.0, 12.0, "worse"),
                                                  (True, 12.0, 10.0, "not worse")])  # fmt: skip
def test_a_loss_is_worse_when_higher(loss, old, new, verb):
    table = comparison_table("paired", old=old, new=new)
    if loss:
        table = table.rename(columns=lambda name: name.replace("roc_auc", "arl"))
        table.attrs["measure"] = "arl"
        table.attrs["dataset_values"] = {"arl_baseline_validation": old, "arl_validation": new,
                                         "arl_new_validation": new}  # fmt: skip
    assert f"the new model is {verb}:" in headline(table).summary


@pytest.mark.parametrize("mode, deltas, share, said", [
    ("worse", (0.02, 0.09, 0.05), 0.6, "0.090 lower [0.080, 0.100]; mostly range restriction (its scores promise 60% "
                                        "of the drop)"),
    ("worse", (0.02, 0.09, 0.05), 1.2, "0.090 lower [0.080, 0.100]; all range restriction (its scores promise a "
                                        "larger drop, 120% of it)"),
    ("better", (-0.02, -0.09, -0.05), 0.6, "0.020 higher [-0.030, -0.010]; mostly wider spread of risk (its scores "
                                           "promise 60% of the gain)"),
])  # fmt: skip
def test_a_finding_says_how_much_of_its_change_its_scores_promise(mode, deltas, share, said):
    table = single_table([True, True, False], deltas=deltas, mode=mode).assign(
        range_restricted=True, expected_share=share)
    assert headline(table).findings[0].sentence().endswith(said)


def test_a_failure_whose_scores_promise_part_of_its_drop_says_the_rest_is_not():
    """Not 'mostly range restriction' beside a failure, which falls short of its promise (the demo's seed 1)."""
    table = judged_table().assign(range_restricted=True, expected_share=0.6)
    sentence = headline(table).findings[0].sentence()
    assert sentence.endswith("; its scores promise 60% of the drop (range restriction), not the other 40%")


def judged_table():
    """Four significant rows judged by the failure rules: two failures (the
    second surer), a variant of the first, a slice of range restriction."""
    table = single_table([True, True, True], deltas=(0.10, 0.08, 0.05))
    extra = table.iloc[[0]].assign(description="region=='south'", subgroup=[_subgroup("south")], delta=0.04,
                                   delta_ci_low=0.03, delta_ci_high=0.05)  # fmt: skip
    table = pd.concat([table, extra], ignore_index=True)
    table.attrs = single_table([True] * 3).attrs
    table["delta_ci_low"] = [0.02, 0.06, 0.03, 0.03]
    table["failure"] = [True, True, False, False]
    table["failure_note"] = ["", "", "variant of row 1: not significantly worse than the rest of it (p 0.3)",
                             "range restriction: no worse than its own scores promise (case-mix p 0.4); ..."]
    table["failure_of"] = pd.array([None, None, 1, None], dtype="Int64")
    table["promise_p_value"] = [0.001, 0.002, 0.01, 0.4]
    return table


def test_a_judged_table_names_its_failures_surest_first_with_their_variants():
    said = headline(judged_table())
    assert said.summary == (
        "Where the ROC AUC is worse than on the whole data and than its scores promise: 2 failures among 4 "
        "significant of 4 subgroups (fdr_by, alpha 0.05), surest first:"
    )
    assert [finding.description for finding in said.findings] == ["region=='west'", "region=='east'"]
    assert [(description, rank) for _, description, rank in said.findings[1].variants] == [("region=='north'", 3)]
    assert said.more == (
        "Not failures: 1 slice where every model ranks worse (range restriction), 1 variant of a failure; "
        "in the table with their notes."
    )
    lines = said.text().splitlines()
    assert lines[3] == "     variants, not significantly worse than it: #3 region=='north'"
    html = str(headline_html(judged_table()))
    # the variants are written as their finding is: one chip per condition
    assert ('<br><span class="note">variants, not significantly worse than it: '
            '#3 <span class="cond">region = north</span></span>') in html


def test_a_failure_by_its_promise_is_counted_among_the_significant_and_labelled_in_the_console():
    table = judged_table()
    table.loc[1, ["significant", "failure_note"]] = [False, "by its promise: it falls short of ..."]
    assert headline(table).summary.startswith("Where the ROC AUC is worse than on the whole data and than its "
                                              "scores promise: 2 failures among 4 significant (1 by its promise) of 4 "
                                              "subgroups")
    assert failure_label(table.iloc[1], table.attrs) == "failure by its promise" and failure_label(table.iloc[0], table.attrs) == "failure"
    beside = table.iloc[3].copy()
    beside["failure_note"] = "beside a failure: worse than the whole data only because row 1's rows are in it, ..."
    beside["failure_of"] = 1
    assert failure_label(table.iloc[2], table.attrs) == "variant #1" and failure_label(beside, table.attrs) == "beside a failure #1"


def test_the_console_says_which_rows_could_not_be_tested():
    """A compare row whose held-out rows hold one class (ISLP's Default: no
    defaults below a balance of 698) printed "-" and p 1.0 without a word."""
    table = judged_table()
    table["verdict"] = ["significant", "significant", "significant", "untestable"]
    table.loc[3, ["significant", "failure", "failure_note"]] = [False, False, ""]
    assert _row_notes(table) == ["failure", "failure", "variant #1", "untestable"]
    assert "untestable = the measure is undefined on the rows it is tested on" in _notes_legend(table.attrs)


def test_a_failure_by_its_promise_is_named_where_the_tables_test_found_nothing():
    table = judged_table()
    table["significant"] = False
    table["failure"] = [False, True, False, False]
    table["failure_note"] = ["", "by its promise: it falls short of ...", "", ""]
    said = headline(table)
    assert said.summary.startswith("Where the ROC AUC is worse than on the whole data and than its scores promise: "
                                   "1 failure among 1 significant (1 by its promise) of 4 subgroups")
    assert [finding.description for finding in said.findings] == ["region=='west'"]


def test_the_report_names_the_data_checks_before_the_headline():
    table = judged_table()
    table.attrs["data_checks"] = ["possible leak: typur != 0 (48% of the search rows) is 100.0% approve = 1 <b>"]
    html = str(headline_html(table))
    check = html.index('<p class="check"><strong>Check the data:</strong> possible leak: typur != 0')
    assert check < html.index('<p class="headline">') and "approve = 1 &lt;b&gt;" in html  # escaped


def test_a_judged_table_without_failures_counts_what_its_significant_rows_are():
    table = judged_table().assign(failure=False)
    said = headline(table)
    assert said.findings == []
    assert said.summary == (
        "No subgroup where the ROC AUC is worse than on the whole data and than its scores promise: 0 failures "
        "among 4 significant of 4 subgroups (fdr_by, alpha 0.05)."
    )


def test_data_checks_come_first():
    table = judged_table()
    table.attrs["data_checks"] = ["possible leak: typur != 0 (48% of the search rows) is 100.0% approve = 1"]
    assert headline(table).text().splitlines()[0] == (
        "Check the data: possible leak: typur != 0 (48% of the search rows) is 100.0% approve = 1"
    )


def test_failure_rows_are_the_rows_the_headline_names():
    table = single_table([True, True, False], deltas=(0.02, 0.09, 0.05))
    table.index = [7, 7, 3]  # any index: rows by position
    failures = failure_rows(table)
    assert failures["description"].tolist() == ["region=='west'", "region=='east'"]
    assert [f.description for f in headline(table).findings] == failures["description"].tolist()
    assert failure_rows(table.assign(significant=None)).empty and failure_rows(table.iloc[:0]).empty


def test_failure_rows_of_a_judged_table_are_its_failures_surest_first():
    table = judged_table()
    assert failure_rows(table)["description"].tolist() == ["region=='west'", "region=='east'"]


def low_failure_table():
    """Fourteen rows by quality; the headline's one failure ranks 13th (its
    interval beyond 0 by less than 0.0005), a row explained by it 4th, a slice
    of range restriction 2nd."""
    n = 14
    table = pd.DataFrame({
        "subgroup": [_subgroup(f"r{i}") for i in range(n)], "description": [f"region=='r{i}'" for i in range(n)],
        "size_validation": 100, "roc_auc_validation": 0.85, "significant": False, "delta": 0.05,
        "delta_ci_low": -0.02, "delta_ci_high": 0.12, "p_value_corrected": 0.5, "failure": False,
        "failure_note": "", "failure_of": pd.array([None] * n, dtype="Int64"), "promise_p_value": np.nan,
    })  # fmt: skip
    table.loc[[1, 3, 12], ["significant", "p_value_corrected"]] = [True, 0.01]
    table.loc[12, ["failure", "roc_auc_validation", "delta", "delta_ci_low"]] = [True, 0.7, 0.2, 0.00031]
    table.loc[1, "failure_note"] = "range restriction: no worse than its own scores promise (case-mix p 0.4); ..."
    table.loc[3, ["failure_note", "failure_of"]] = ["explained by row 13: its 50 held-out rows outside ...", 13]
    table.attrs = single_table([True] * 3).attrs
    return table


def _printed_rows(text):
    """The printed table's rows by their first word (the rank), each as its words."""
    return {words[0]: words for words in (line.split() for line in text.splitlines()[1:])}


def test_a_failure_ranked_below_the_top_rows_is_printed_after_them_with_its_rank():
    """Issue 58: the mortgage table's one failure ranked 65th was in neither the
    console's top 10 nor the forest plot; the headline numbered it "1."."""
    table = low_failure_table()
    assert headline(table).text().splitlines()[1].split() == [
        "#13", "region=='r12'", "(10%", "of", "held-out", "rows):", "ROC", "AUC", "0.700", "vs", "0.900", "overall,",
        "0.200", "lower", "[0.00031,", "0.120]",
    ]  # fmt: skip
    assert _top_rows(table) == "Top 10 of 14 distinct subgroups by quality, then the failure ranked #13"
    rows = _printed_rows(_format_results(table, "roc_auc"))
    assert list(rows) == [str(rank) for rank in range(1, 11)] + ["...", "13"]
    assert rows["13"][1] == "region=='r12'" and rows["13"][-1] == "failure"
    assert rows["13"][-6:-3] == ["0.200", "[0.00031,", "0.120]"]  # not [0.000, ...]: beyond 0
    assert rows["4"][-2:] == ["explained", "#13"] and rows["2"][-2:] == ["range", "restriction"]
    assert "#k = the row's rank in the table and in subgroups.csv" in _notes_legend(table.attrs)
    assert '<li><span class="rank">#13</span> <span class="cond">region = r12</span>' in str(headline_html(table))


def test_the_reports_table_marks_failures_apart_from_significant_rows():
    from subroc_ext.reporting.page import subgroups_table
    from subroc_ext.reporting.report import result_columns

    table = low_failure_table().assign(rank=range(1, 15))
    rows = str(subgroups_table(table, result_columns(table, "roc_auc", n_rows=1000))).split("<tr")[2:]
    assert 'class="significant failure"' in rows[12] and 'class="significant"' in rows[1]
    assert '<td data-col="failure" class="text" data-value="1.0">failure</td>' in rows[12]
    assert '<td data-col="failure" class="text" data-value="0.0">explained #13</td>' in rows[3]
    assert "+0.00031" in rows[12]


def test_a_calibration_search_calls_its_rows_failures_either_way():
    """Issue 58: mode 'under' named "failures", mode 'over' "findings"; a risk
    overestimated is a failure of the model too."""
    table = judged_table().assign(failure=False)
    for mode in ("worse", "better"):
        table.attrs.update(measure="calibration_gap", mode=mode)
        said = headline(table)
        assert "0 failures among 4 significant" in said.summary and said.more.startswith("Not failures: ")
        legend = _notes_legend(table.attrs)
        assert "failure = named in the headline" in legend and "range restriction" not in legend


def test_without_a_holdout_the_console_shows_the_promise_of_the_searched_rows():
    """Issue 58: without a holdout the table had no promised column while its note spoke of the promise."""
    table = judged_table().assign(roc_auc_search=0.7, expected_roc_auc_search=0.8, size_search=250)
    table.attrs.update(holdout=False, dataset_values={"roc_auc_search": 0.9}, n_rows={"search": 1000})
    assert "expected_roc_auc_search" in _format_results(table, "roc_auc").splitlines()[0].split()
    assert "(25% of rows)" in headline(table).findings[0].text


def test_the_label_names_the_failure_of_failure_of_whichever_way_a_note_numbers_it():
    """The console's and the report's label take the number from ``failure_of``
    (one numbering: table ranks), for notes that say ``row 4`` or ``#4``."""
    for note in ("explained by row 5: its 728 held-out rows ...", "explained by #4: its 728 held-out rows ..."):
        record = pd.Series({"failure": False, "failure_note": note, "failure_of": 4})
        assert failure_label(record, {"mode": "worse"}) == "explained #4"


def test_the_reports_headline_column_is_chosen_only_where_the_rules_said_something():
    from subroc_ext.reporting.report import result_columns

    table = low_failure_table().assign(rank=range(1, 15))
    shown = {column.key: column.shown for column in result_columns(table, "roc_auc", n_rows=1000)}
    assert shown["failure"]
    quiet = table.assign(significant=False, failure=False, failure_note="")
    assert not {column.key: column.shown for column in result_columns(quiet, "roc_auc", n_rows=1000)}["failure"]


def test_no_view_writes_minus_zero_or_a_bound_beyond_zero_as_zero():
    """Issue 58: ``-0.000`` and ``[+0.000, +0.257]`` on a significant row."""
    from subroc_ext.reporting.cells import delta_cell, effect_cell

    record = pd.Series({"delta": -0.00004, "delta_ci_low": 0.00031, "delta_ci_high": 0.2567, "value": 0.89996})
    shown, _ = effect_cell(record)
    assert str(shown).split(" ")[0] == "-0.00004" and "[+0.00031, +0.257]" in str(shown)
    assert delta_cell("value", 0.9)(record)[0] == "-0.00004"
    table = low_failure_table()
    table.loc[0, "delta"] = -0.00004
    assert _printed_rows(_format_results(table, "roc_auc"))["1"][2:4] == ["0.850", "-0.00004"]


def test_a_calibration_search_words_its_variants_in_its_own_direction():
    """Issue 58: in mode 'over' the variants were "not significantly better than" their failure."""
    table = judged_table()
    table.attrs.update(measure="calibration_gap", mode="better",
                       dataset_values={"calibration_gap_validation": -0.02})  # fmt: skip
    table = table.assign(calibration_gap_validation=-0.2, positives_validation=50)
    assert headline(table).findings[1].variants_text().startswith(
        "variants, not significantly more overestimated than it: #3 region=='north'")
    assert "variant #k = not significantly more overestimated than the rest of failure #k" in _notes_legend(table.attrs)
