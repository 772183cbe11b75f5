"""One rule for the positive class when none is given (API and command line)."""

import numpy as np
import pandas as pd
import pytest

import subroc_ext
from subroc_ext.cli import main
from subroc_ext.inputs.labels import infer_positive_label
from synthetic import scored_frame


@pytest.mark.parametrize(
    "labels, positive",
    [
        ([0, 1, 1], 1),
        ([0.0, 1.0], 1),
        ([-1, 1, -1], 1),
        ([True, False], True),
        (np.array([True, False], dtype=object), True),
        (pd.Series([0, 1], dtype="category"), 1),
        (pd.Series([1, 0], dtype="Int64"), 1),
    ],
)  # fmt: skip
def test_numeric_and_boolean_labels_take_one_or_true(labels, positive):
    found = infer_positive_label(labels, "y")
    assert found == positive and type(found) is type(positive)


@pytest.mark.parametrize(
    "labels, message",
    [
        (["yes", "no"], "label column 'y' has values 'no' and 'yes'; pass positive_label to say"),
        ([">50K", "<=50K"], "label column 'y' has values '<=50K' and '>50K'; pass positive_label"),
        ([1, 2], "label column 'y' has values 1 and 2; pass positive_label"),
        ([1, 1], "label column 'y' must be binary but has only one value, 1"),
        (["yes"], "label column 'y' must be binary but has only one value, 'yes'"),
        ([], "label column 'y' must be binary but has no values"),
        ([0, 1, 2], "label column 'y' must be binary but has 3 distinct values (0, 1 and 2)"),
        ([0, None, 1], "label column 'y' contains 1 missing value(s)"),
    ],
)  # fmt: skip
def test_other_labels_are_an_error_naming_the_column(labels, message):
    with pytest.raises(ValueError) as error:
        infer_positive_label(pd.Series(labels, dtype=object if not labels else None), "y")
    assert message in str(error.value)


def test_the_option_is_named_as_the_user_writes_it():
    with pytest.raises(ValueError, match="pass --positive-label to say"):
        infer_positive_label(["a", "b"], "y", option="--positive-label")


def test_api_and_command_line_follow_the_rule(tmp_path, capsys):
    """Labels -1/1: both infer 1; one class only: both name the column."""
    frame = scored_frame(1, n=400).assign(y=lambda f: f["y"] * 2 - 1)
    table = subroc_ext.find_subgroups(frame, label="y", score="p", depth=1, n_samples=20,
                                      result_set_size=3, progress=False, random_state=0)  # fmt: skip
    assert table.attrs["positive_label"] == 1 and len(table) > 0
    frame.to_csv(tmp_path / "signs.csv", index=False)
    run = ["run", "--label", "y", "--score", "p", "--quiet", "--depth", "1", "--samples", "20",
           "--top", "3", "--out", str(tmp_path / "report")]  # fmt: skip
    assert main([*run[:1], str(tmp_path / "signs.csv"), *run[1:]]) == 0
    capsys.readouterr()
    one_class = frame.assign(y=1)
    one_class.to_csv(tmp_path / "one.csv", index=False)
    message = "label column 'y' must be binary but has only one value, 1"
    with pytest.raises(ValueError, match=message):
        subroc_ext.find_subgroups(one_class, label="y", score="p", progress=False)
    assert main([*run[:1], str(tmp_path / "one.csv"), *run[1:]]) == 2
    assert message in capsys.readouterr().err
