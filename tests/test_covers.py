"""subgroup_membership: the row id x subgroup table, by position, indexed like the data."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

from subroc_ext import subgroup_membership
from synthetic import scored_frame


def test_membership_of_a_table_keeps_the_row_ids(audit_analysis):
    table, validation = audit_analysis.table, audit_analysis.validation
    rows = subgroup_membership(table, validation)
    assert rows.index.equals(validation.index) and list(rows.columns) == list(table["description"])
    assert rows.dtypes.eq(bool).all()
    for description, subgroup in zip(table["description"], table["subgroup"]):
        expected = np.ones(len(validation), dtype=bool)
        for selector in subgroup.selectors:  # independently of pysubgroup's covers
            column = validation[selector.attribute_name].to_numpy()
            if hasattr(selector, "attribute_value"):  # ps.EqualitySelector, selectors.ValueCondition
                expected &= column == selector.attribute_value
            else:  # an interval; selectors.RangeCondition's open ends are None
                low = -np.inf if selector.lower_bound is None else selector.lower_bound
                high = np.inf if selector.upper_bound is None else selector.upper_bound
                expected &= (column >= low) & (column < high)
        np.testing.assert_array_equal(rows[description].to_numpy(), expected)


def test_membership_of_descriptions_and_masks():
    data = scored_frame(2, n=50, index="permuted")
    east = ps.Conjunction([ps.EqualitySelector("region", "east")])
    mask = data["age"].to_numpy() > 50
    rows = subgroup_membership({"east": east, "old": mask}, data)
    assert rows.loc[data.index[mask], "old"].all() and rows["old"].sum() == mask.sum()
    assert rows["east"].sum() == (data["region"] == "east").sum()


def test_a_table_read_back_from_csv_is_refused(audit_analysis):
    with pytest.raises(ValueError, match="'subgroup' and 'description' columns"):
        subgroup_membership(pd.DataFrame({"description": ["a"]}), audit_analysis.validation)
