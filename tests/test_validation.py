"""Messages quote the user's values as Python writes them: a NumPy scalar as the
number it holds (NumPy 2 writes ``np.int64(7)``), in every message."""

import numpy as np
import pandas as pd
import pytest
from synthetic import scored_frame

import subroc_ext
from subroc_ext.utils.validation import check_search_settings, check_weights, min_support_count, positive_mask, shown


class Int64(np.int64):
    """An int64 written as NumPy 2 writes it (the installed NumPy may be 1.x)."""

    def __repr__(self):
        return f"np.int64({int(self)})"


class Float64(np.float64):
    """A float64 written as NumPy 2 writes it."""

    def __repr__(self):
        return f"np.float64({float(self)})"


def test_shown_writes_numpy_scalars_as_python_values():
    assert [shown(Int64(7)), shown(Float64(0.5)), shown(np.str_("yes")), shown("yes")] == ["7", "0.5", "'yes'", "'yes'"]


@pytest.mark.parametrize(
    "check, message",
    [
        (lambda: positive_mask(pd.Series([0, 1]), Int64(7), "y"), "positive label 7 does not occur in label column 'y'"),
        (lambda: check_search_settings(Int64(0), 10, 5), "depth must be a positive integer, got 0"),
        (lambda: check_weights(Float64(-1.0), 0), "size_weight must be a finite number >= 0, got -1.0"),
        (lambda: min_support_count(Float64(1.5), 10), "in (0, 1), got 1.5"),
    ],
)  # fmt: skip
def test_messages_write_numpy_scalars_as_numbers(check, message):
    with pytest.raises(ValueError) as error:
        check()
    assert message in str(error.value) and "np." not in str(error.value)


def test_the_api_names_a_numpy_positive_label_as_a_number():
    """positive_label taken from the data (a NumPy scalar) whose split lacks it."""
    data = scored_frame(0, n=300).assign(y=lambda frame: frame["y"].map({0: 3, 1: 7}))
    search, validation = data.iloc[:200], data.iloc[200:].assign(y=3)
    with pytest.raises(ValueError, match=r"positive label 7\)") as error:
        subroc_ext.find_subgroups(search, label="y", score="p", positive_label=Int64(7), validation=validation,
                                  progress=False)  # fmt: skip
    assert "np." not in str(error.value)
