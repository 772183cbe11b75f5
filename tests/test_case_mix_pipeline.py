"""``find_subgroups`` with the expected ROC AUC: its columns, the range-restriction
and complement flags, the probabilities, and ``case_mix=True``.

The data: scores that are the true probabilities, driven by a strong
predictor ``age``, and (``planted``) scores shuffled inside ``g == 'c' AND
h == 'x'``: a real failure.
"""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

import subroc_ext
from subroc_ext.metrics.expected_auc import expected_roc_auc
from subroc_ext.metrics.kernels import roc_auc_score
from subroc_ext.inputs.validated import split_validation
from subroc_ext.workflow.case_mix import complements, range_restriction
from synthetic import risk_frame

FAST = dict(progress=False, result_set_size=20)


def split_rows(table, data, split):
    """The rows of each subgroup in the given split (the same split find_subgroups draws)."""
    search, validation = split_validation(data, 0.5, 0)
    rows = search if split == "search" else validation
    return rows, [np.asarray(sg.covers(rows), dtype=bool) for sg in table["subgroup"]]


@pytest.fixture(scope="module")
def plain():
    data = risk_frame(0)
    return data, subroc_ext.find_subgroups(data, label="y", score="p", **FAST)


def test_expected_columns_are_the_expected_auc_of_each_subgroup(plain):
    data, table = plain
    for split in ("search", "validation"):
        rows, covers = split_rows(table, data, split)
        expected = [expected_roc_auc(rows["p"][cover]) for cover in covers]
        np.testing.assert_allclose(table[f"expected_roc_auc_{split}"], expected, atol=1e-12)
        whole = table.attrs["dataset_values"][f"expected_roc_auc_{split}"]
        assert whole == pytest.approx(expected_roc_auc(rows["p"]), abs=1e-12)
    columns = list(table.columns)
    assert columns.index("expected_roc_auc_validation") == columns.index("roc_auc_validation") + 1
    assert table.attrs["probabilities"] == (
        "the scores as given (score column 'p' is in [0, 1] and calibrated on the search split)"
    )
    assert (table.attrs["case_mix"], table.attrs["calibrate"]) == (False, "auto")


def test_slices_of_the_strong_predictor_are_flagged_as_range_restriction(plain):
    """Without case_mix the age slices lead the table and are significant (the
    problem); each says its drop is mostly what its scores promise."""
    data, table = plain
    slices = table[table["description"].str.fullmatch(r"[\d. <=]*age[\d. <>=]*")]
    worse = slices[slices["roc_auc_validation"] < table.attrs["dataset_values"]["roc_auc_validation"] - 0.02]
    assert len(worse) >= 3 and worse["significant"].all()
    assert worse["range_restricted"].all()
    observed = table.attrs["dataset_values"]["roc_auc_validation"] - worse["roc_auc_validation"]
    promised = table.attrs["dataset_values"]["expected_roc_auc_validation"] - worse["expected_roc_auc_validation"]
    np.testing.assert_allclose(worse["expected_share"], promised / observed, rtol=1e-9)


def test_both_sides_of_one_cut_are_marked_as_complements(plain):
    data, table = plain
    ranks = {d: r for r, d in enumerate(table["description"], 1)}
    pairs = 0
    for rank, (description, partner) in enumerate(zip(table["description"], table["complement_of"]), 1):
        if pd.isna(partner):
            continue
        other = table["description"].iloc[partner - 1]
        assert table["complement_of"].iloc[partner - 1] == rank
        lower, upper = sorted([description, other], key=lambda text: "<" not in text)
        assert lower.replace("<", ">=") == upper  # 'age < c' and 'age >= c'
        pairs += 1
    assert pairs >= 2
    assert all(pd.isna(table["complement_of"].iloc[ranks[d] - 1]) for d in ranks if "AND" in d)


def test_range_restriction_and_complements_on_their_own():
    whole = {"roc_auc_validation": 0.80, "expected_roc_auc_validation": 0.82}
    table = pd.DataFrame({"roc_auc_validation": [0.70, 0.70, 0.85, 0.80],
                          "expected_roc_auc_validation": [0.77, 0.80, 0.70, 0.82]})  # fmt: skip
    worse = range_restriction(table, whole, "worse")
    assert worse["expected_share"].round(9).tolist()[:2] == [0.5, 0.2]  # 0.05 of 0.10 is "mostly"
    assert worse["range_restricted"].tolist() == [True, False, False, False]
    better = range_restriction(table, whole, "better")
    assert better["expected_share"].isna().tolist() == [True, True, False, True]
    assert better["range_restricted"].tolist() == [False] * 4  # the scores promise less, not more
    both = range_restriction(table, whole, "both")
    assert both["range_restricted"].tolist() == [True, False, False, False]
    data = risk_frame(1, n=200)
    data.loc[:5, "age"] = np.nan  # missing ages belong to neither side
    dataset = subroc_ext.inputs.sorted_data.SortedDataset(data, "y", "p", 1)
    import pysubgroup as ps

    cut = [ps.Conjunction([ps.IntervalSelector("age", -np.inf, 50)]),
           ps.Conjunction([ps.EqualitySelector("g", "a")]),
           ps.Conjunction([ps.IntervalSelector("age", 50, np.inf)]),
           ps.Conjunction([ps.IntervalSelector("age", 60, np.inf)])]  # fmt: skip
    assert complements(cut, dataset).tolist() == [3, pd.NA, 1, pd.NA]


def test_probabilities_come_from_a_map_fitted_on_the_search_split():
    data = risk_frame(2)
    data["margin"] = 2 * np.log(data["p"] / (1 - data["p"])) - 1
    table = subroc_ext.find_subgroups(data.drop(columns="p"), label="y", score="margin", **FAST)
    assert table.attrs["probabilities"] == (
        "a sigmoid fitted on the search split (score column 'margin' is not in [0, 1])"
    )
    rows, covers = split_rows(table, data, "validation")
    np.testing.assert_allclose(
        table["expected_roc_auc_validation"], [expected_roc_auc(rows["p"][c]) for c in covers], atol=0.01
    )
    kept = subroc_ext.find_subgroups(data.drop(columns="p"), label="y", score="margin", calibrate="none", **FAST)
    assert kept["expected_roc_auc_validation"].isna().all() and not kept["range_restricted"].any()
    assert kept.attrs["probabilities"].startswith("none: score column 'margin' cannot be read as probabilities")
    with pytest.raises(ValueError, match="score column 'margin' cannot be read as probabilities"):
        subroc_ext.find_subgroups(data.drop(columns="p"), label="y", score="margin", calibrate="none",
                                  case_mix=True, **FAST)  # fmt: skip
    with pytest.raises(ValueError, match="case_mix=True searches by the shortfall from the promise.*not of measure 'arl'"):
        subroc_ext.find_subgroups(data, label="y", score="p", measure="arl", case_mix=True, **FAST)
    with pytest.raises(ValueError, match="calibrate must be one of"):
        subroc_ext.find_subgroups(data, label="y", score="p", calibrate="platt", **FAST)


def test_case_mix_finds_the_planted_failure_above_the_slices():
    data = risk_frame(3, planted=True)
    table = subroc_ext.find_subgroups(data, label="y", score="p", case_mix=True, progress=False,
                                      result_set_size=20, calibrate="none")  # fmt: skip
    top = table.head(5)
    planted = top[top["description"].isin(["g=='c' AND h=='x'", "h=='x' AND g=='c'"])]
    assert len(planted) == 1 and planted["significant"].all()
    slices = table["description"].str.fullmatch(r"[\d. <=]*age[\d. <>=]*")
    assert planted.index[0] < slices.idxmax()  # the failure outranks every slice of age
    # the statistic is q_cm on the validation rows, and the effect is it too
    rows, covers = split_rows(table, data, "validation")
    whole = expected_roc_auc(rows["p"]) - roc_auc_score(rows["y"], rows["p"])
    q_cm = [expected_roc_auc(rows["p"][c]) - roc_auc_score(rows["y"][c], rows["p"][c]) - whole for c in covers]
    np.testing.assert_allclose(table["statistic"], q_cm, atol=1e-12)
    np.testing.assert_allclose(table["delta"], q_cm, atol=1e-12)
    assert (table["delta_ci_low"] <= table["delta"]).all() and (table["delta"] <= table["delta_ci_high"]).all()
    assert table.attrs["case_mix"] is True and table.attrs["measure"] == "roc_auc"


# --------------------------------------------------------------------------
# the command line and the report
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def planted_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("case_mix") / "risk.csv"
    data = risk_frame(4, planted=True)
    data["margin"] = 2 * np.log(data["p"] / (1 - data["p"]))
    data.to_csv(path, index=False)
    return path


@pytest.mark.extended  # the command line end to end, twice
def test_the_command_line_runs_with_and_without_case_mix(planted_csv, tmp_path, capsys):
    from subroc_ext.cli import main

    run = ["run", str(planted_csv), "--label", "y", "--score", "p", "--ignore", "margin", "--quiet",
           "--top", "15"]  # fmt: skip
    assert main([*run, "--out", str(tmp_path / "plain")]) == 0
    plain = capsys.readouterr().out
    assert "where the roc_auc is worse than on the whole data" in plain
    assert "expected_roc_auc_validation" in plain and "range-restricted" in plain
    # the planted failure leaves the scores uncalibrated on the whole search split: recalibrated first
    assert "probabilities: a sigmoid of the scores' logit fitted on the search split (the scores as given " \
           "are not calibrated there: they promise a ROC AUC of " in " ".join(plain.split())
    assert main([*run, "--case-mix", "--out", str(tmp_path / "case_mix")]) == 0
    adjusted = capsys.readouterr().out
    assert "falls further short of what the scores promise than on the whole data" in adjusted
    assert "label draws in all" in adjusted
    table = pd.read_csv(tmp_path / "case_mix" / "subgroups.csv")
    assert {"expected_roc_auc_search", "expected_roc_auc_validation", "range_restricted",
            "complement_of"} <= set(table.columns)  # fmt: skip
    page = (tmp_path / "case_mix" / "report.html").read_text(encoding="utf-8")
    assert "case-mix-adjusted</strong> drop" in page and "what the scores promise" in page
    assert "case_mix" in page.split('id="settings"')[1]


def test_the_command_line_says_in_one_line_what_cannot_be_probabilities(planted_csv, tmp_path, capsys):
    from subroc_ext.cli import main

    run = ["run", str(planted_csv), "--label", "y", "--quiet", "--out", str(tmp_path / "out")]
    assert main([*run, "--score", "margin", "--ignore", "p", "--case-mix", "--calibrate", "none"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith("subroc-ext: error: score column 'margin' cannot be read as probabilities")
    assert main([*run, "--score", "margin", "--ignore", "p", "--case-mix", "--calibrate", "isotonic",
                 "--top", "5"]) == 0  # fmt: skip
    assert "probabilities: an isotonic regression fitted on the search split" in capsys.readouterr().out
    assert main(["run", str(planted_csv), "--label", "y", "--score-columns", "p,margin", "--case-mix",
                 "--out", str(tmp_path / "multi")]) == 2  # fmt: skip
    assert "--case-mix does not apply" in capsys.readouterr().err


def test_the_report_marks_range_restriction_and_what_the_scores_promise(plain, tmp_path):
    import matplotlib.pyplot as plt

    from subroc_ext.reporting.plotting import plot_forest
    from subroc_ext.reporting.report import write_report

    data, table = plain
    figure = plot_forest(table)
    labels = [handle.get_label() for handle in figure.axes[0].get_legend().legend_handles]
    plt.close(figure)
    whole = table.attrs["dataset_values"]["expected_roc_auc_validation"]
    assert labels[-2:] == [f"promised on the whole data {whole:.3f}", "what the scores promise"]
    validation = split_validation(data, 0.5, 0)[1]
    page = write_report(table, validation, tmp_path, label="y", score="p").html.read_text(encoding="utf-8")
    restricted = table[table["range_restricted"]].iloc[0]
    share = restricted["expected_share"]
    assert (f"mostly range restriction (its scores promise {share:.0%} of this drop)" if share <= 1 else
            f"all range restriction (its scores promise a larger drop, {share:.0%} of it)") in page
    partner = table["complement_of"].dropna().iloc[0]
    assert f"the other side of this cut is #{partner}" in page
    assert "Blue diamonds: <code>expected_roc_auc_validation</code>" in page
    assert "run with <code>case_mix=True</code>" in page


def test_comparisons_have_each_sides_expected_auc():
    """find_regressions: the new model's and the baseline's; find_drift: each period's."""
    rng = np.random.default_rng(6)
    data = risk_frame(6)
    data["old"] = np.clip(data["p"] + rng.normal(scale=0.05, size=len(data)), 0, 1)
    table = subroc_ext.find_regressions(data, label="y", score="p", baseline="old", depth=1, progress=False)
    _, validation = split_validation(data, 0.5, 0)
    for column, name in (("p", "expected_roc_auc_validation"), ("old", "expected_roc_auc_baseline_validation")):
        covers = [np.asarray(sg.covers(validation), dtype=bool) for sg in table["subgroup"]]
        np.testing.assert_allclose(table[name], [expected_roc_auc(validation[column][c]) for c in covers], atol=1e-12)
    assert table.attrs["dataset_values"]["expected_roc_auc_new_validation"] == pytest.approx(
        expected_roc_auc(validation["p"])
    )
    reference, current = risk_frame(7), risk_frame(8)
    drift = subroc_ext.find_drift(reference, current, label="y", score="p", depth=1, progress=False)
    assert {f"expected_roc_auc_{period}_{split}" for period in ("reference", "current")
            for split in ("search", "validation")} <= set(drift.columns)  # fmt: skip
    assert drift.attrs["probabilities"] == (
        "p: the scores as given (score column 'p' is in [0, 1] and calibrated on the search split)"
    )


def test_case_mix_on_two_threads_gives_the_same_table():
    data = risk_frame(9, n=2000, planted=True)
    settings = dict(label="y", score="p", case_mix=True, progress=False, result_set_size=15)
    one = subroc_ext.find_subgroups(data, **settings)
    two = subroc_ext.find_subgroups(data, n_jobs=2, **settings)
    pd.testing.assert_frame_equal(one.drop(columns="subgroup"), two.drop(columns="subgroup"))


def test_without_a_holdout_the_flags_come_from_all_rows():
    """No holdout: the expected AUC of the searched rows only, the range-restriction
    flags computed on them."""
    data = risk_frame(0).head(1500)
    table = subroc_ext.find_subgroups(data, label="y", score="p", validation=None, depth=1, **FAST)
    assert "expected_roc_auc_search" in table.columns and "expected_roc_auc_validation" not in table.columns
    whole = table.attrs["dataset_values"]
    assert whole["expected_roc_auc_search"] == pytest.approx(expected_roc_auc(data["p"]), abs=1e-12)
    flags = range_restriction(table, whole, "worse", split="search")
    pd.testing.assert_series_equal(table["range_restricted"], flags["range_restricted"], check_names=False)


def test_case_mix_without_a_holdout_is_tested_by_labels_drawn_over_the_whole_search():
    """case_mix=True, validation=None: the search's own quality, tested by the
    max-T of the whole case-mix search on labels drawn from the probabilities
    (permuting scores is no null of a promise). 800 rows: the shuffled g = c
    AND h = x is the one failure; no slice of age is significant."""
    data = risk_frame(1, n=800, planted=True)
    table = subroc_ext.find_subgroups(data, label="y", score="p", validation=None, case_mix=True, **FAST)
    assert table.attrs["method"] == "max-T over label draws" and table.attrs["null_samples_drawn"] >= 190
    assert table.loc[table["failure"], "description"].tolist() == ["g=='c' AND h=='x'"]
    ages = table[table["description"].str.fullmatch(r"[\d. <=]*age[\d. <>=]*")]
    assert len(ages) >= 3 and not ages["significant"].any()
    plant = table[table["description"] == "g=='c' AND h=='x'"].iloc[0]
    assert plant["statistic"] == plant["quality"] and plant["p_value"] <= 0.05


@pytest.mark.parametrize("measure", ["pr_auc", "pr_auc_normalized"])
def test_the_pr_aucs_are_searched_by_their_shortfall_and_tested_by_label_draws(measure):
    """The planted failure is in the top 5, significant; the quality is the shortfall of
    the measure from its ratio-of-expectations promise on the search rows,
    beyond the whole data's (the search ranks), and the headline's rule 2 is
    the label-draw test (the test decides)."""
    from sklearn.metrics import auc, precision_recall_curve

    from subroc_ext.metrics.expected_auc import expected_pr_auc_of_sorted
    from subroc_ext.metrics.normalized_pr_auc import normalized_pr_auc

    def value(y, s):
        precision, recall, _ = precision_recall_curve(y, s)
        area = auc(recall, precision)
        return area if measure == "pr_auc" else normalized_pr_auc(area, int(y.sum()), int((1 - y).sum()))

    def promised(y, p):
        area = expected_pr_auc_of_sorted(np.sort(p))
        return area if measure == "pr_auc" else normalized_pr_auc(area, int(y.sum()), int((1 - y).sum()))

    data = risk_frame(3, planted=True)
    table = subroc_ext.find_subgroups(data, label="y", score="p", measure=measure, case_mix=True,
                                      progress=False, result_set_size=20, calibrate="none")  # fmt: skip
    unweighted = subroc_ext.find_subgroups(data, label="y", score="p", measure=measure, case_mix=True,
                                           progress=False, result_set_size=20, calibrate="none", size_weight=0,
                                           balance_weight=0, generalization_aware=False)  # fmt: skip
    planted = table.head(5)["description"].isin(["g=='c' AND h=='x'", "h=='x' AND g=='c'"])
    assert planted.sum() == 1 and table.head(5)["significant"][planted].all()
    assert table.attrs["case_mix"] is True and table.attrs["measure"] == measure
    rows, covers = split_rows(unweighted, data, "search")
    y, p = rows["y"].to_numpy(), rows["p"].to_numpy()
    whole = promised(y, p) - value(y, p)
    shortfall = [promised(y[c], p[c]) - value(y[c], p[c]) - whole for c in covers]
    np.testing.assert_allclose(unweighted["quality"], shortfall, atol=1e-9)
    assert table[f"expected_{measure}_validation"].notna().all()


def test_the_pr_aucs_case_mix_needs_a_holdout():
    with pytest.raises(ValueError, match="needs a holdout"):
        subroc_ext.find_subgroups(risk_frame(0, n=400), label="y", score="p", measure="pr_auc", case_mix=True,
                                  validation=None)  # fmt: skip


def test_each_pattern_reads_the_held_out_promise_through_the_map_fitted_without_its_search_rows():
    """Over-confident scores (logit x 1.6) whose promised risk is halved in
    ``g == 'c'``: the held-out rows' probabilities a pattern reads
    (:func:`~subroc_ext.workflow.case_mix.own_maps`) are Platt's
    sigmoid of the logit fitted by hand (scikit-learn, smoothed targets) on
    the search rows outside the pattern, in the held-out data's row order;
    the map of all search rows, bent towards the halved labels of ``g ==
    'c'`` (a third of the rows), promises 7 points less risk there."""
    from scipy.special import expit, logit
    from sklearn.linear_model import LogisticRegression

    from subroc_ext.inputs.probabilities import fit_probabilities
    from subroc_ext.inputs.sorted_data import SortedDataset
    from subroc_ext.workflow.case_mix import own_maps, split_probabilities

    data = risk_frame(6, n=3000)
    halved = (data["g"] == "c").to_numpy()
    data["y"] = (np.random.default_rng(9).random(3000) < np.where(halved, data["p"] / 2, data["p"])).astype(int)
    data["s"] = expit(1.6 * logit(np.clip(data["p"], 1e-6, 1 - 1e-6)))
    search, held = (SortedDataset(part, "y", "s", 1) for part in split_validation(data, 0.5, 0))
    pattern = ps.Conjunction([ps.EqualitySelector("g", "c")])
    maps = own_maps(search, "auto", fit_probabilities(search.scores, search.is_positive))
    got = split_probabilities(held, maps(pattern))
    outside = search.data[(search.data["g"] != "c").to_numpy()]
    y, x = outside["y"].to_numpy(), logit(outside["s"].to_numpy())
    targets = np.where(y == 1, (y.sum() + 1) / (y.sum() + 2), 1 / (len(y) - y.sum() + 2))
    by_hand = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(
        np.r_[x, x][:, None], np.r_[np.ones(len(x)), np.zeros(len(x))], sample_weight=np.r_[targets, 1 - targets])
    expected = by_hand.predict_proba(logit(held.data["s"].to_numpy())[:, None])[:, 1]
    np.testing.assert_allclose(got, expected, atol=2e-5)
    in_c = (held.data["g"] == "c").to_numpy()
    whole = split_probabilities(held, maps(ps.Conjunction([])))  # no rows left out: the map of all
    assert np.mean(whole[in_c] - got[in_c]) == pytest.approx(-0.0709, abs=1e-3)


def test_a_shift_of_the_risk_the_check_passes_is_mapped_for_the_headlines_promise():
    """Scores promising ``logit p + 0.4`` on 1,000 search rows: the calibration
    check of ``calibrate='auto'`` (Spiegelhalter's test, nearly blind to a
    shift) reads them as given, Cox's test rejects (p 1.5e-6), so each
    pattern's held-out promise reads them through the sigmoid refitted
    without its rows (Platt's, by hand), not as given."""
    from scipy.special import expit, logit
    from sklearn.linear_model import LogisticRegression

    from subroc_ext.inference.whole_calibration import whole_calibration
    from subroc_ext.inputs.probabilities import fit_probabilities
    from subroc_ext.inputs.sorted_data import SortedDataset
    from subroc_ext.workflow.case_mix import own_maps, split_probabilities

    rng = np.random.default_rng(1)
    x = rng.normal(size=1000) * 1.5
    y = rng.random(1000) < expit(x)
    frame = pd.DataFrame({"y": y.astype(int), "s": expit(x + 0.4), "g": np.where(np.arange(1000) < 150, "a", "b")})
    search = SortedDataset(frame, "y", "s", 1)
    held = SortedDataset(frame.iloc[::2].reset_index(drop=True), "y", "s", 1)
    assert fit_probabilities(frame["s"].to_numpy(), y).method == "none"
    assert whole_calibration(y, frame["s"].to_numpy()).p_value == pytest.approx(1.46e-6, rel=0.01)
    maps = own_maps(search, "auto", fit_probabilities(search.scores, search.is_positive))
    got = split_probabilities(held, maps(ps.Conjunction([ps.EqualitySelector("g", "a")])))
    outside = np.arange(1000) >= 150
    z, labels = logit(frame["s"].to_numpy()[outside]), y[outside]
    targets = np.where(labels, (labels.sum() + 1) / (labels.sum() + 2), 1 / (len(labels) - labels.sum() + 2))
    by_hand = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(
        np.r_[z, z][:, None], np.r_[np.ones(len(z)), np.zeros(len(z))], sample_weight=np.r_[targets, 1 - targets])
    np.testing.assert_allclose(got, by_hand.predict_proba(logit(held.data["s"].to_numpy())[:, None])[:, 1], atol=2e-5)
    assert np.mean(held.data["s"].to_numpy() - got) == pytest.approx(0.0640, abs=1e-4)  # the shift, undone
