"""Tests of :mod:`subroc_ext.inputs.condition_records`: conditions as JSON and back."""

import datetime
import decimal
import json

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

from subroc_ext import make_search_space
from subroc_ext.inputs.condition_records import (
    condition_from_record,
    condition_record,
    decode_value,
    encode_value,
    subgroup_from_records,
    subgroup_records,
)
from subroc_ext.inputs.selectors import RangeCondition
from subroc_ext.utils.descriptions import describe


def mixed_frame(n=400, seed=0):
    """Every column type the search space cuts: text with missing values, numbers with a
    mass point and missing values, datetimes, durations, booleans and integers."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "region": rng.choice(["east", "west", None], n),
        "age": rng.integers(18, 80, n).astype(float),
        "gain": np.where(rng.random(n) < 0.5, 0.0, rng.random(n) * 100),
        "when": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10**6, n), unit="s"),
        "wait": pd.to_timedelta(rng.integers(0, 10**5, n), unit="ms"),
        "flag": rng.random(n) < 0.3,
        "grade": rng.integers(1, 4, n),
    })  # fmt: skip
    frame.loc[::7, "age"] = np.nan
    return frame


def test_every_condition_of_a_search_space_survives_json():
    """Each condition, written to JSON text and rebuilt, has the same label and
    covers the same rows (missing values included)."""
    data = mixed_frame()
    conditions = list(make_search_space(data, warn=False))
    operators = set()
    for condition in conditions:
        record = json.loads(json.dumps(condition_record(condition), allow_nan=False))
        rebuilt = condition_from_record(record)
        operators.add((record["operator"], record.get("domain")))
        assert type(rebuilt) is type(condition) and str(rebuilt) == str(condition) == record["text"]
        np.testing.assert_array_equal(rebuilt.covers(data), condition.covers(data))
    # every operator, on numbers, datetimes and durations
    assert {("==", None), ("is missing", None), ("!=", "number"), ("<", "number"), (">=", "number"),
            ("between", "number"), ("<", "datetime"), ("between", "timedelta")} <= operators  # fmt: skip


def test_records_are_data_not_text():
    data = mixed_frame()
    conditions = {str(c): c for c in make_search_space(data, warn=False)}
    east = condition_record(conditions["region=='east'"])
    assert east == {"column": "region", "operator": "==", "value": "east", "text": "region=='east'"}
    assert condition_record(conditions["flag==True"])["value"] is True
    assert condition_record(conditions["grade==1"])["value"] == 1
    when = next(record for record in map(condition_record, conditions.values())
                if record["column"] == "when" and record["operator"] == "<")  # fmt: skip
    assert set(when["value"]) == {"datetime"}
    assert pd.Timestamp(when["value"]["datetime"]) < pd.Timestamp("2024-01-13")


def test_a_datetime_bound_comes_back_to_the_nanosecond():
    bound = pd.Timestamp("2024-01-05 15:00:00.123456789").value
    condition = RangeCondition("when", bound, None, "datetime", ("2024-01-05 15:00:00.123456789", None))
    rebuilt = condition_from_record(json.loads(json.dumps(condition_record(condition))))
    assert rebuilt.lower_bound == bound and str(rebuilt) == "when >= 2024-01-05 15:00:00.123456789"


@pytest.mark.parametrize("domain, bound, printed, forged", [
    ("number", 70.0, "70", "18"),
    ("datetime", pd.Timestamp("2024-03-01").value, "2024-03-01", "2023-03-01"),
    ("datetime", pd.Timestamp("2024-03-01", tz="Europe/Berlin").value, "2024-03-01 CET", "2024-03-01 12:07 CET"),
    ("timedelta", pd.Timedelta("3D").value, "3 days", "4 days"),
])  # fmt: skip
def test_a_printed_bound_must_be_the_bound(domain, bound, printed, forged):
    # issue 59: value_text is printed in the description, value is measured: they must agree
    record = condition_record(RangeCondition("x", bound, None, domain, (printed, None)))
    assert str(condition_from_record(record)) == f"x >= {printed}"
    with pytest.raises(ValueError, match=f"value_text '{forged}' is not how the bound .* is printed"):
        condition_from_record({**record, "value_text": forged})


@pytest.mark.parametrize("domain, value", [("datetime", 55.0), ("timedelta", 3), ("number", {"datetime": "2024-03-01"}),
                                           ("money", 1.0)])  # fmt: skip
def test_a_bound_of_another_kind_than_its_domain_is_refused(domain, value):
    # issue 59: was AttributeError: 'float' object has no attribute 'value'
    record = {"column": "age", "operator": ">=", "value": value, "value_text": "55", "domain": domain, "text": "age >= 55"}
    with pytest.raises(ValueError, match="is not a bound of domain|domain must be one of"):
        condition_from_record(record)


@pytest.mark.parametrize("value, encoded", [
    ("east", "east"), (True, True), (np.bool_(False), False), (np.int64(3), 3), (2.5, 2.5),
    (float("nan"), None), (None, None), (pd.NA, None), (pd.NaT, None), (float("inf"), {"number": "inf"}),
    (pd.Timestamp("2024-03-01 12:00"), {"datetime": "2024-03-01T12:00:00"}),
    (pd.Timedelta("1D"), {"timedelta": "P1DT0H0M0S"}), (datetime.date(2024, 3, 1), {"date": "2024-03-01"}),
    (decimal.Decimal("1.2345"), {"decimal": "1.2345"}), (b"\x00\xff", {"bytes": "AP8="}),  # issue 59: Parquet's
])  # fmt: skip
def test_values_encode_as_json_and_decode_to_equal_values(value, encoded):
    assert encode_value(value) == encoded
    decoded = decode_value(json.loads(json.dumps(encoded)))
    assert decoded is None if encoded is None else decoded == value


def test_unknown_values_and_records_are_refused_by_name():
    with pytest.raises(TypeError, match=r"cannot write the value \{1, 2\} \(set\)"):
        encode_value({1, 2})
    with pytest.raises(ValueError, match="unknown value .* expected one of the keys"):
        decode_value({"complex": "1j"})
    with pytest.raises(ValueError, match="operator must be one of .* got 'like'"):
        condition_from_record({"column": "a", "operator": "like", "value": "x", "text": "a like x"})
    with pytest.raises(ValueError, match="has no 'value'"):
        condition_from_record({"column": "a", "operator": "==", "text": "a==?"})


def test_pysubgroup_selectors_are_written_the_same_way():
    data = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.0, 5.0, 9.0]})
    subgroup = ps.Conjunction([ps.EqualitySelector("a", "x"), ps.IntervalSelector("b", 2.0, float("inf"))])
    records = subgroup_records(subgroup)
    assert [record["operator"] for record in records] == ["==", ">="]
    rebuilt = subgroup_from_records(json.loads(json.dumps(records)))
    np.testing.assert_array_equal(rebuilt.covers(data), subgroup.covers(data))
    assert describe(rebuilt) == describe(subgroup) == "a=='x' AND b>=2"  # rebuilt as pysubgroup's selectors
    assert subgroup_records(ps.Conjunction([])) == []
