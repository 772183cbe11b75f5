"""The checks of the data named before the results (inputs.data_checks)."""

import numpy as np
import pandas as pd

from subroc_ext.inputs.data_checks import data_checks
from subroc_ext.inputs.search_space import make_search_space
from subroc_ext.inputs.sorted_data import SortedDataset


def _checks(data):
    data = data.assign(y=np.random.default_rng(1).integers(0, 2, len(data)), p=np.random.default_rng(2).random(len(data)))
    space = make_search_space(data, ignore=["y", "p"], min_support=20)
    return data_checks(SortedDataset(data, "y", "p", 1), space, label="y", positive_label=1)


def test_a_count_named_number_of_something_is_no_code():
    """Issue 58: ``number_vmail_messages`` (0-51 messages) was called a code cut
    as a number for its first word; a name that ends in one still is."""
    rng = np.random.default_rng(0)
    n = 3000
    lines = _checks(pd.DataFrame({"number_vmail_messages": rng.integers(0, 52, n),
                                  "account_number": rng.integers(1000, 9000, n)}))  # fmt: skip
    assert not any("number_vmail_messages" in line for line in lines)
    assert any(line.startswith("code cut as a number: 'account_number'") for line in lines)


def test_charges_in_cents_of_minutes_are_duplicates_but_a_noisy_copy_is_not():
    """Issue 58: day and international charges (exact multiples of the minutes)
    were named duplicates, evening and night charges (rounded to cents) not."""
    rng = np.random.default_rng(0)
    n = 3000
    minutes = pd.DataFrame({name: rng.normal(200, 50, n).round(2) for name in ("day", "eve", "night")})
    data = minutes.assign(day_charge=minutes["day"] * 0.17, eve_charge=(minutes["eve"] * 0.085).round(2),
                          night_charge=(minutes["night"] * 0.045).round(2),
                          other=minutes["day"] + rng.normal(0, 5, n))  # fmt: skip
    lines = [line for line in _checks(data) if line.startswith("duplicate column")]
    assert lines[0] == "duplicate column: 'day_charge' has the same conditions' rows as 'day'."
    assert [line.split(" but for ")[0] for line in lines[1:]] == [
        "duplicate column: 'eve_charge' has the same conditions' rows as 'eve'",
        "duplicate column: 'night_charge' has the same conditions' rows as 'night'",
    ]
    assert all(line.endswith("rows each (the same values, rounded).") for line in lines[1:])
    assert len(lines) == 3  # 'other', the day's minutes with noise, is a column of its own
