"""Readable condition texts: each selector kind, and descriptions already written out."""

import numpy as np
import pysubgroup as ps

from subroc_ext.reporting.conditions import condition_texts, readable_description


def test_each_selector_kind_reads_as_its_cover():
    inf = np.inf
    selectors = [
        (ps.IntervalSelector("age", 30, 45), "30 ≤ age < 45"),
        (ps.IntervalSelector("age", -inf, 45.5), "age < 45.5"),
        (ps.IntervalSelector("gain", 114.0, inf), "gain ≥ 114"),
        (ps.EqualitySelector("sex", "Female"), "sex = Female"),
        (ps.EqualitySelector("flag", True), "flag = True"),
        (ps.EqualitySelector("city", np.nan), "city is missing"),
        (ps.NegatedSelector(ps.EqualitySelector("sex", "Male")), "not (sex = Male)"),
    ]
    subgroup = ps.Conjunction([selector for selector, _ in selectors])
    # pysubgroup keeps the selectors in its own order: compare as sets
    assert sorted(condition_texts(subgroup)) == sorted(text for _, text in selectors)


def test_written_descriptions_and_the_whole_data():
    assert condition_texts("a=='x' AND b>=3 AND c: [1:2.5[ AND d<0 AND e==True AND f.isnull()") == [
        "a = x", "b ≥ 3", "1 ≤ c < 2.5", "d < 0", "e = True", "f is missing",
    ]  # fmt: skip
    assert condition_texts("#1 anything else") == ["#1 anything else"]
    # readable text stays as it is: written out twice is written out once
    for readable in ("0 ≤ capital_gain < 114", "income = <=50K", "age ≥ 51"):
        assert condition_texts(readable) == [readable]
    # written the same as from the selectors themselves
    subgroup = ps.Conjunction([ps.EqualitySelector("a", "x"), ps.IntervalSelector("c", 1, 2.5)])
    assert condition_texts(str(subgroup)) == condition_texts(subgroup)
    assert readable_description(ps.Conjunction([])) == "whole data"
    assert readable_description("Dataset") == "whole data"
    two = ps.Conjunction([ps.EqualitySelector("a", "x"), ps.IntervalSelector("b", 1, 2)])
    assert readable_description(two, separator=" | ") == "a = x | 1 ≤ b < 2"


def test_other_selectors_show_their_own_label():
    class Labelled:
        def __str__(self):
            return "income in the top decile"

    assert condition_texts(type("Described", (), {"selectors": [Labelled()]})()) == [
        "income in the top decile"
    ]
