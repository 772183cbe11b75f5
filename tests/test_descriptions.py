"""Descriptions say exactly one thing: names and values quoted and escaped, read back to the same rows."""

import warnings

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import subroc_ext
from subroc_ext.cli import main
from subroc_ext.inputs.search_space import make_search_space
from subroc_ext.inputs.selectors import MissingCondition, ValueCondition
from subroc_ext.metrics.covers import subgroup_covers
from subroc_ext.reporting.conditions import condition_texts, readable_description
from subroc_ext.utils.descriptions import (
    describe,
    literal_value,
    parse_condition,
    split_conditions,
    value_text,
)

FORGED = "b' AND c=='d"


def test_ordinary_names_and_values_are_written_as_before():
    pair = ps.Conjunction([ValueCondition("relationship", "Husband"), ValueCondition("occupation", "Transport-moving")])
    assert describe(pair) == "occupation=='Transport-moving' AND relationship=='Husband'"
    theirs = ps.Conjunction([ps.EqualitySelector("sex", "Female"), ps.EqualitySelector("grade", 3)])
    assert describe(theirs) == str(theirs) == "grade==3 AND sex=='Female'"
    assert describe(ps.Conjunction([])) == "Dataset"
    assert readable_description(pair) == "relationship = Husband & occupation = Transport-moving"
    mass_point = ps.Conjunction([ValueCondition("mtr", 0.7214999794960022)])  # a float column's mass point
    assert describe(mass_point) == "mtr==0.7214999794960022"  # exact: read back by recheck
    assert readable_description(mass_point) == "mtr = 0.7215"


def test_a_value_or_name_cannot_forge_a_condition():
    forged = ps.Conjunction([ValueCondition("a", FORGED)])
    two = ps.Conjunction([ValueCondition("a", "b"), ValueCondition("c", "d")])
    assert describe(two) == "a=='b' AND c=='d'"
    assert describe(forged) == "a=='b\\' AND c==\\'d'"
    assert split_conditions(describe(forged)) == [describe(forged)]
    assert parse_condition(describe(forged)).operands == (FORGED,)
    assert condition_texts(describe(forged)) == ["a = 'b\\' AND c==\\'d'"]
    # control characters and a bidi override are written visibly
    assert value_text("x\x1b[31m\n\u202e") == "'x\\x1b[31m\\n\\u202e'"
    assert describe(ps.Conjunction([ValueCondition("a AND b", "x")])) == "`a AND b`=='x'"
    assert condition_texts(ps.Conjunction([ValueCondition("hours per week", "<=50K")])) == ["hours per week = <=50K"]
    assert condition_texts(ps.Conjunction([ValueCondition("a == b", "x & y")])) == ["`a == b` = 'x & y'"]
    assert describe(ps.Conjunction([MissingCondition("n`\n")])) == "`n\\`\\n` is missing"


def test_repeated_names_of_different_covers_are_numbered_not_fatal():
    data = pd.DataFrame({"g": ["a", "b", "a"]})
    with pytest.warns(UserWarning, match=r"1 subgroup name\(s\) repeat an earlier one; shown numbered: 'x' as 'x \(2\)'"):
        names, masks = subgroup_covers(pd.DataFrame({"description": ["x", "x"], "subgroup": [
            ps.Conjunction([ValueCondition("g", "a")]), ps.Conjunction([ValueCondition("g", "b")])]}), data)
    assert names == ["x", "x (2)"]
    assert masks.tolist() == [[True, False, True], [False, True, False]]


def _forging_frame(n=600, seed=0):
    """``a=='b' AND c=='d'`` and ``a==FORGED`` both rank badly; elsewhere the score separates."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["b", FORGED, "x"], n)
    c = rng.choice(["d", "e"], n)
    y = rng.integers(0, 2, n)
    p = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    noise = (a == FORGED) | ((a == "b") & (c == "d"))
    p[noise] = rng.random(noise.sum())
    return pd.DataFrame({"a": a, "c": c, "y": y, "p": p})


def _check_rows(rows, table, frame):
    """One membership column per subgroup, named by its description, holding its rows."""
    assert list(rows.columns) == list(table["description"])
    forged = rows[describe(ps.Conjunction([ValueCondition("a", FORGED)]))]
    np.testing.assert_array_equal(forged.to_numpy(dtype=bool), frame["a"].to_numpy() == FORGED)
    both = rows["a=='b' AND c=='d'"]
    np.testing.assert_array_equal(both.to_numpy(dtype=bool), (frame["a"] == "b").to_numpy() & (frame["c"] == "d").to_numpy())


def test_a_forging_value_through_the_api_and_the_report(tmp_path):
    """Issue 45: the report crashed (``subgroup names must be distinct``) and
    ``table.subroc.rows`` returned 4 columns for 5 subgroups."""
    frame = _forging_frame()
    search, validation = frame.iloc[:300], frame.iloc[300:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = subroc_ext.find_subgroups(search, label="y", score="p", validation=validation, n_samples=20,
                                          max_overlap=None, progress=False)  # fmt: skip
        subroc_ext.write_report(table, validation, tmp_path, label="y", score="p")
    assert table["description"].is_unique
    _check_rows(table.subroc.rows(validation), table, validation)
    assert {"subgroups.csv", "curves.png", "report.html"} <= {p.name for p in tmp_path.iterdir()}
    assert """<span class="cond">a = 'b\\' AND c==\\'d'</span>""" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_a_forging_value_through_the_command_line(tmp_path, capsys):
    frame = _forging_frame()
    frame.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "data.csv"), "--label", "y", "--score", "p", "--quiet", "--samples", "20",
                 "--max-overlap", "1", "--export-rows", "--out", str(out)]) == 0  # fmt: skip
    table = pd.read_csv(out / "subgroups.csv", keep_default_na=False)
    assert (out / "report.html").is_file() and table["description"].is_unique
    rows = pd.read_csv(out / "rows.csv", keep_default_na=False)
    data = frame.loc[rows["row"]].reset_index(drop=True)
    _check_rows(rows.drop(columns=["split", "row"]), table, data)


# --------------------------------------------------------------------------
# fuzz: any name and value, every description unique and read back to its rows
# --------------------------------------------------------------------------

_PIECES = ["'", '"', "`", "==", "!=", "<", ">=", " <= ", " AND ", " OR ", "AND", "(", ")", "[", "]", "\\", " ",
           "\x1b", "\n", "\t", "\x00", "\u202e", "; ", " & ", ":", ".isnull()", " is missing", "a", "b", "1", "é"]  # fmt: skip
_TEXT = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map("".join)
_VALUE = st.one_of(_TEXT, _TEXT, st.integers(-2, 2), st.sampled_from([2.5, -0.5]))


def _rebuilt(description):
    """The conditions a description says, built again from its text alone."""
    conditions = []
    for text in split_conditions(description):
        parsed = parse_condition(text)
        assert parsed is not None, text
        if parsed.op == "value":
            conditions.append(ValueCondition(parsed.name, parsed.operands[0]))
        else:
            conditions.append(MissingCondition(parsed.name, missing=parsed.op == "missing"))
    return ps.Conjunction(conditions)


def _check_frame(names, values, rng_seed):
    rng = np.random.default_rng(rng_seed)
    frame = pd.DataFrame({name: pd.Series(rng.choice(np.array(vals + [None], dtype=object), 40), dtype=object)
                          for name, vals in zip(names, values)})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        space = list(make_search_space(frame, keep_ids=True))
    subgroups = [ps.Conjunction([s]) for s in space] + [
        ps.Conjunction([s, t]) for i, s in enumerate(space) for t in space[i + 1 :] if s.attribute_name != t.attribute_name
    ]  # fmt: skip
    descriptions = [describe(sg) for sg in subgroups]
    assert len(set(descriptions)) == len(descriptions)
    for subgroup, description in zip(subgroups, descriptions):
        assert describe(_rebuilt(description)) == description
        np.testing.assert_array_equal(_rebuilt(description).covers(frame), subgroup.covers(frame))
        assert len(condition_texts(description)) == len(subgroup.selectors)
        assert literal_value(value_text(FORGED)) == FORGED


_FRAMES = dict(
    names=st.lists(_TEXT, min_size=2, max_size=2, unique=True),
    values=st.lists(st.lists(_VALUE, min_size=1, max_size=4), min_size=2, max_size=2),
    rng_seed=st.integers(0, 2**16),
)


@given(**_FRAMES)
@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_name_and_value_is_described_once_and_read_back(names, values, rng_seed):
    _check_frame(names, values, rng_seed)


@pytest.mark.extended
@given(**_FRAMES)
@settings(max_examples=1500, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_name_and_value_is_described_once_and_read_back_many(names, values, rng_seed):
    _check_frame(names, values, rng_seed)


def test_columns_named_alike_are_refused_at_the_boundary():
    frame = pd.DataFrame({"y": [0, 1] * 20, "p": np.linspace(0, 1, 40), 0: ["a", "b"] * 20, "0": ["c", "d"] * 20})
    with pytest.raises(ValueError, match=r"data has columns named alike: 0, '0'; descriptions write a name as text"):
        subroc_ext.find_subgroups(frame, label="y", score="p", progress=False)
