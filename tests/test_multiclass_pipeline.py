"""The multi-class demo: Adult's marital status (3 classes), a gradient-boosting
model, :func:`find_multiclass_subgroups` and ``subroc-ext run --score-columns``."""

import re

import numpy as np
import pandas as pd
import pytest

import subroc_ext
from subroc_ext.demo import datasets, modelling
from subroc_ext.workflow import steps
from subroc_ext.cli import main
from subroc_ext.cli.arguments import build_parser
from subroc_ext.exceptions import InterruptedTest
from subroc_ext.workflow.multiclass import find_multiclass_subgroups
from subroc_ext.workflow.pipeline import split_validation
from synthetic import multiclass_frame

CLASSES = ["married", "never-married", "previously-married"]


@pytest.fixture(scope="module")
def scored():
    """6,000 Adult rows: a model fit on 2,000, the search and validation
    splits (2,000 each) scored with one probability column per class."""
    pytest.importorskip("threadpoolctl")
    frame = datasets.load_adult_marital_status().iloc[:6000]
    train, search, validation = modelling.split_parts(frame, 3, random_state=0)
    columns, (search, validation) = modelling.fit_and_score_multiclass(
        train, "marital", search, validation, prefix=""
    )
    assert columns == {c: c for c in CLASSES}
    return search, validation


def test_adult_marital_status_task():
    frame = datasets.load_adult_marital_status()
    assert len(frame) == 48842 and sorted(frame["marital"].unique()) == CLASSES
    assert "relationship" not in frame and "marital_status" not in frame


def test_fit_and_score_multiclass_probabilities(scored):
    search, _ = scored
    np.testing.assert_allclose(search[CLASSES].sum(axis=1), 1.0)
    assert 0.75 < subroc_ext.auc_mu_score(search["marital"], search[CLASSES]) < 0.95


@pytest.fixture(scope="module")
def table(scored):
    search, validation = scored
    return find_multiclass_subgroups(
        search, label="marital", score_columns=CLASSES, validation=validation, depth=2,
        result_set_size=8, n_samples=200, random_state=0, progress=False,
    )  # fmt: skip


def test_table_columns_and_values(table, scored):
    counts = [f"count_{c}" for c in CLASSES]
    assert list(table.columns) == [
        "subgroup", "description", "alternatives", "near_copies", "quality", "overlap", "overlaps_with",
        "size_search", *(f"{c}_search" for c in counts), "auc_mu_search",
        "size_validation", *(f"{c}_validation" for c in counts), "auc_mu_validation",
        "statistic", "p_value", "p_value_corrected", "significant", "testable", "null_samples",
        "p_value_exact", "delta", "delta_ci_low", "delta_ci_high", "verdict", "verdict_note",
        "failure", "failure_note", "failure_of", "promise_p_value",
    ]  # fmt: skip
    assert len(table) == 8 and table["quality"].is_monotonic_decreasing
    whole = table.attrs["dataset_values"]
    for split, frame in zip(("search", "validation"), scored):
        assert whole[f"auc_mu_{split}"] == pytest.approx(
            subroc_ext.auc_mu_score(frame["marital"], frame[CLASSES])
        )
        for row in table.itertuples():
            mask = np.asarray(row.subgroup.covers(frame), dtype=bool)
            assert getattr(row, f"size_{split}") == mask.sum()
            labels = frame["marital"].to_numpy()[mask]
            assert table.loc[row.Index, f"count_married_{split}"] == (labels == "married").sum()
            expected = subroc_ext.auc_mu_score(labels, frame[CLASSES][mask])
            assert getattr(row, f"auc_mu_{split}") == pytest.approx(expected)
    # the test statistic: how much worse the subgroup is on the validation split
    np.testing.assert_allclose(table["statistic"], whole["auc_mu_validation"] - table["auc_mu_validation"])
    np.testing.assert_allclose(table["delta"], table["statistic"])  # mode 'worse'
    assert (table["delta_ci_low"] <= table["delta"]).all() and (table["delta"] <= table["delta_ci_high"]).all()
    assert table["p_value"].between(1 / 201, 1).all() and table["significant"].any()


def test_cli_score_columns(scored, tmp_path, capsys):
    search, validation = scored
    search.to_csv(tmp_path / "search.csv", index=False)
    validation.to_csv(tmp_path / "validation.csv", index=False)
    code = main([
        "run", str(tmp_path / "search.csv"), "--validation", str(tmp_path / "validation.csv"),
        "--label", "marital", "--score-columns", ",".join(CLASSES), "--samples", "100",
        "--top", "5", "--depth", "1", "--quiet", "--out", str(tmp_path / "out"),
    ])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "Top 5 of 5 distinct subgroups by quality, where the auc_mu is worse than on the whole data" in printed.out
    assert printed.out.startswith("Where the AUC_mu is worse than on the whole data: ")
    assert "auc_mu_validation" in printed.out
    assert re.search(r"\n1 .* \d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\]", printed.out), printed.out
    written = pd.read_csv(tmp_path / "out" / "subgroups.csv")
    assert len(written) == 5 and "count_married_search" in written.columns


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--score-columns", "married"], "at least two score columns"),
        (["--score-columns", "married,single"], "'single'.*not found"),
        (["--score-columns", ",".join(CLASSES), "--positive-label", "x"], "does not apply"),
        (["--score", "married", "--score-columns", ",".join(CLASSES)], "not allowed with"),
    ],
)
def test_cli_score_columns_errors(scored, tmp_path, capsys, arguments, message):
    scored[0].to_csv(tmp_path / "search.csv", index=False)
    code = main(["run", str(tmp_path / "search.csv"), "--label", "marital", "--quiet", *arguments])
    assert code == 2
    assert re.search(message, capsys.readouterr().err)


# -- parity with the binary pipeline: redundancy filters, Ctrl-C, the command line's options


@pytest.fixture(scope="module")
def graded():
    """2,000 rows of :func:`synthetic.multiclass_frame` (classes low/mid/high,
    score columns p_<class>, the model wrong where a0 == 'p'), and ``A0``, a
    copy of ``a0`` in capitals (so that some descriptions cover the same rows)."""
    frame, columns = multiclass_frame(0, n=2000)
    return frame.assign(A0=frame["a0"].str.upper()), columns


def run_graded(graded, **settings):
    frame, columns = graded
    settings = {"depth": 2, "result_set_size": 30, "n_samples": 50, "random_state": 0,
                "progress": False, **settings}  # fmt: skip
    return find_multiclass_subgroups(frame, label="grade", score_columns=columns, **settings)


def covered_rows(subgroup, frame):
    return frozenset(np.flatnonzero(np.asarray(subgroup.covers(frame), dtype=bool)))


@pytest.mark.parametrize("max_overlap", [None, 0.3])
def test_redundancy_filters_as_for_binary_models(graded, max_overlap):
    """collapse_identical and max_overlap: the first description of each distinct
    cover (the others its alternatives), then greedily those overlapping no kept
    one by more than the threshold (Jaccard index from Python sets), in rank order."""
    every = run_graded(graded, collapse_identical=False, max_overlap=None, result_set_size=1000)
    search, _ = split_validation(graded[0], 0.5, 0)
    # every pattern of quality > 0 (only real findings), not 1,000
    assert 20 <= len(every) < 1000 and (every["quality"] > 0).all()
    assert (every["alternatives"] == "").all()
    if max_overlap is None:  # the exact top 30, identical covers merged
        every = every.head(30)
    distinct, same = {}, {}
    for subgroup in every["subgroup"]:
        rows = covered_rows(subgroup, search)
        first = next((d for d, other in distinct.items() if other == rows), None)
        if first is None:
            distinct[str(subgroup)], same[str(subgroup)] = rows, []
        else:
            same[first].append(str(subgroup))
    kept = []
    for description, rows in distinct.items():
        if max_overlap is None or all(
            len(rows & distinct[other]) / len(rows | distinct[other]) <= max_overlap for other in kept
        ):  # fmt: skip
            kept.append(description)
    kept = kept[:30]  # the diverse search goes down the ranking until 30 are kept
    filtered = run_graded(graded, max_overlap=max_overlap)
    assert filtered["description"].tolist() == kept
    assert filtered["alternatives"].tolist() == ["; ".join(same[d]) for d in kept]
    assert (filtered["alternatives"] != "").any()
    if max_overlap is not None:
        assert (filtered["overlap"].iloc[1:] <= max_overlap).all() and len(kept) < len(distinct)
    assert len(kept) < len(every)
    assert filtered.attrs["max_overlap"] == max_overlap and filtered.attrs["collapse_identical"]


def test_ctrl_c_during_the_test_keeps_the_patterns_untested(graded, monkeypatch):
    tested = run_graded(graded)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(steps, "test", interrupt)
    with pytest.raises(InterruptedTest) as interrupted:
        run_graded(graded)
    assert isinstance(interrupted.value, KeyboardInterrupt)
    untested = interrupted.value.table
    assert untested.columns.tolist() == tested.columns.tolist()
    test_columns = [column for column in steps.TEST_COLUMNS if column in tested.columns]
    pd.testing.assert_frame_equal(untested.drop(columns=[*test_columns, "subgroup"]),
                                  tested.drop(columns=[*test_columns, "subgroup"]))  # fmt: skip
    assert untested[test_columns].isna().all().all()


GRADED_RUN = ["--label", "grade", "--score-columns", "low=p_low,mid=p_mid,high=p_high",
              "--samples", "50", "--top", "30", "--quiet"]  # fmt: skip


@pytest.fixture(scope="module")
def graded_csv(graded, tmp_path_factory):
    path = tmp_path_factory.mktemp("graded") / "graded.csv"
    graded[0].to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "options, settings",
    [
        (["--no-collapse"], {"collapse_identical": False}),
        (["--max-overlap", "0.3", "--min-support", "0.05", "--nbins", "3", "--mode", "both"],
         {"max_overlap": 0.3, "min_support": 0.05, "nbins": 3, "mode": "both"}),
        (["--jobs", "2", "--max-overlap", "0.5"], {"max_overlap": 0.5}),
    ],
)  # fmt: skip
def test_cli_options_of_multiclass_runs(graded, graded_csv, tmp_path, capsys, options, settings):
    """The command's options reach find_multiclass_subgroups: the same table
    (--jobs: on two local worker processes, the same as in one)."""
    assert main(["run", str(graded_csv), *GRADED_RUN, *options, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    written = pd.read_csv(tmp_path / "subgroups.csv", keep_default_na=False)
    expected = run_graded(graded, **settings).drop(columns="subgroup")
    assert written["description"].tolist() == expected["description"].tolist()
    np.testing.assert_allclose(written["p_value"].astype(float), expected["p_value"])
    assert written["alternatives"].tolist() == expected["alternatives"].tolist()


@pytest.mark.parametrize(
    "options, message",
    [
        (["--measure", "pr_auc"], "--measure does not apply: a multi-class model (--score-columns) "
                                  "is measured by AUC_mu, which compares the scores of every pair "
                                  "of classes"),
        (["--positive-label", "low"], "--positive-label does not apply: AUC_mu compares every pair "
                                      "of classes of a multi-class model (--score-columns); no "
                                      "class is the positive one"),
        (["--threshold", "0.5"], "--threshold does not apply: a multi-class model "
                                 "(--score-columns) predicts the class of the highest score"),
        (["--score-columns", "low=p_low,p_mid"], "argument --score-columns: plain column names mixed "
                                                 "with CLASS=COLUMN pairs in 'low=p_low,p_mid'"),
    ],
)  # fmt: skip
def test_cli_refuses_what_does_not_apply_saying_why(graded_csv, capsys, options, message):
    arguments = [*GRADED_RUN[:2], *(GRADED_RUN[2:4] if "--score-columns" not in options else []),
                 "--quiet", *options]  # fmt: skip
    assert main(["run", str(graded_csv), *arguments]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and len(captured.err.splitlines()) == 1 and captured.out == ""


def test_cli_classes_take_the_label_columns_type(graded, tmp_path, capsys):
    """Integer labels 0/1/2: columns named 0,1,2 or CLASS=COLUMN pairs work; other
    names get a line saying how to name the classes (no advice the command
    cannot follow)."""
    frame, columns = graded
    codes = frame["grade"].map({"low": 0, "mid": 1, "high": 2})
    numbered = frame.assign(grade=codes).rename(columns={"p_low": "0", "p_mid": "1", "p_high": "2"})
    numbered.to_csv(tmp_path / "numbered.csv", index=False)
    frame.assign(grade=codes).to_csv(tmp_path / "coded.csv", index=False)
    common = ["--label", "grade", "--samples", "50", "--top", "5", "--quiet", "--depth", "1"]
    assert main(["run", str(tmp_path / "numbered.csv"), *common, "--score-columns", "0,1,2",
                 "--out", str(tmp_path / "a")]) == 0  # fmt: skip
    assert main(["run", str(tmp_path / "coded.csv"), *common, "--score-columns",
                 "0=p_low,1=p_mid,2=p_high", "--out", str(tmp_path / "b")]) == 0  # fmt: skip
    capsys.readouterr()
    first, second = (pd.read_csv(tmp_path / out / "subgroups.csv") for out in "ab")
    pd.testing.assert_frame_equal(first.drop(columns=["count_0_search"], errors="ignore"),
                                  second.drop(columns=["count_0_search"], errors="ignore"))  # fmt: skip
    assert first["description"].iloc[0] == "a0=='p'"
    assert main(["run", str(tmp_path / "coded.csv"), *common, "--score-columns", "p_low,p_mid,p_high"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("subroc-ext: error: --score-columns class 'p_low' is not an integer, but "
                          "label column 'grade' holds int64 values; name the class each column "
                          "scores: --score-columns 0=COLUMN,1=COLUMN,2=COLUMN")  # fmt: skip
    assert "mapping" not in err and len(err.splitlines()) == 1


def test_cli_empty_multiclass_result_says_why(graded, graded_csv, tmp_path, capsys):
    """--min-support above every condition's size: which condition is largest and
    how large it is (counted here with value_counts), not pandas' 'Empty DataFrame'."""
    assert main(["run", str(graded_csv), *GRADED_RUN, "--min-support", "0.9", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    search, _ = split_validation(graded[0], 0.5, 0)
    counts = pd.concat([search[f"a{i}"].value_counts().rename(lambda v, i=i: f"a{i}=='{v}'")
                        for i in range(4)])  # fmt: skip
    assert out.startswith(
        f"No subgroup found in the 1,000 searched rows: every condition covers fewer rows than "
        f"the minimum support of 900 (the largest, {counts.idxmax()}, covers {counts.max():,}); "
        "lower --min-support."
    )
    assert "Empty DataFrame" not in out and len(pd.read_csv(tmp_path / "subgroups.csv")) == 0


def test_cli_unknown_class_in_the_validation_file(graded, tmp_path, capsys):
    """A class only the --validation file has: the command's advice, not the API's."""
    frame, _ = graded
    frame.iloc[:1000].to_csv(tmp_path / "search.csv", index=False)
    frame.iloc[1000:].assign(grade=frame["grade"].iloc[1000:].replace("mid", "medium")).to_csv(
        tmp_path / "validation.csv", index=False
    )
    assert main(["run", str(tmp_path / "search.csv"), "--validation", str(tmp_path / "validation.csv"),
                 *GRADED_RUN]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err == ("subroc-ext: error: label column 'grade' has value(s) 'medium' that no score "
                   "column scores (classes ['low', 'mid', 'high']); name the class each column "
                   "scores: --score-columns high=COLUMN,low=COLUMN,medium=COLUMN,mid=COLUMN\n")  # fmt: skip


@pytest.mark.parametrize("texts, expected", [
    (["a,b , c"], ["a", "b", "c"]),
    (["yes=p_yes,no=p_no"], {"yes": "p_yes", "no": "p_no"}),
    (["p,yes", "p,no"], ["p,yes", "p,no"]),
    (["yes=p=yes", "no=p,no"], {"yes": "p=yes", "no": "p,no"}),
])  # fmt: skip
def test_cli_score_columns_with_commas_and_equals_signs_are_given_one_at_a_time(texts, expected):
    """Column names with ',' or '=' could not be passed at all."""
    arguments = ["run", "data.csv", "--label", "y"] + [part for text in texts for part in ("--score-columns", text)]
    assert build_parser().parse_args(arguments).score_columns == expected


@pytest.mark.parametrize("texts, message", [
    (["p=yes,p=no"], "class 'p' is given twice in 'p=yes,p=no'; for names with ',' or '=', give --score-columns "
                     "once per class, as COLUMN or CLASS=COLUMN"),
    (["a,a"], "column 'a' is given twice in 'a,a'"),
    (["a,b=c"], "plain column names mixed with CLASS=COLUMN pairs in 'a,b=c'"),
    (["a", "b="], "an empty column or class name in 2 --score-columns"),
    (["a"], "a multi-class model needs at least two score columns"),
])  # fmt: skip
def test_cli_score_columns_errors_say_why(texts, message, capsys):
    arguments = ["run", "data.csv", "--label", "y"] + [part for text in texts for part in ("--score-columns", text)]
    assert main(arguments) == 2
    assert capsys.readouterr().err.startswith(f"subroc-ext run: error: argument --score-columns: {message}")
