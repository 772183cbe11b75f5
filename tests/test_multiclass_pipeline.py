"""The multi-class demo: Adult's marital status (3 classes), a gradient-boosting
model, :func:`find_multiclass_subgroups` and ``subroc-ext run --score-columns``."""

import re

import numpy as np
import pandas as pd
import pytest

import subroc_ext
from subroc_ext import datasets, modelling
from subroc_ext.cli import main
from subroc_ext.multiclass_pipeline import find_multiclass_subgroups

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
        "subgroup", "description", "alternatives", "quality", "overlap", "overlaps_with",
        "size_search", *(f"{c}_search" for c in counts), "auc_mu_search",
        "size_validation", *(f"{c}_validation" for c in counts), "auc_mu_validation",
        "statistic", "p_value", "p_value_corrected", "significant", "testable",
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
    assert "Top 5 of 5 subgroups where the auc_mu is worse than on the whole data" in printed.out
    assert "auc_mu_validation" in printed.out
    written = pd.read_csv(tmp_path / "out" / "subgroups.csv")
    assert len(written) == 5 and "count_married_search" in written.columns


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--score-columns", "married"], "at least two distinct"),
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
