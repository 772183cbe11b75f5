"""Subgroup descriptions as readable conditions, for tables and figures.

pysubgroup writes ``capital_gain: [0:114[ AND marital_status=='Married-civ-spouse'``;
reports show ``0 ≤ capital_gain < 114`` and ``marital_status = Married-civ-spouse``,
one condition at a time; the conditions of :func:`~subroc_ext.make_search_space`
likewise (``age ≥ 38``, ``region = east``, ``capital_gain ≠ 0``). Selectors of other
kinds (a search space with its own labels) are shown as their ``str``, which is their label.
"""

import math
import re

import pysubgroup as ps

from ..inputs.selectors import PointCondition, RangeCondition, ValueCondition

__all__ = ["condition_texts", "readable_description"]


def _number(value):
    """A bound as written in the data: ``114`` rather than ``114.0``."""
    value = float(value)
    return f"{value:.0f}" if value.is_integer() and abs(value) < 1e15 else f"{value:g}"


def _selector_text(selector):
    if isinstance(selector, ps.IntervalSelector):
        name = selector.attribute_name
        low, high = selector.lower_bound, selector.upper_bound
        if math.isinf(low) and math.isinf(high):
            return f"{name} is not missing"
        if math.isinf(low):
            return f"{name} < {_number(high)}"
        if math.isinf(high):
            return f"{name} ≥ {_number(low)}"
        return f"{_number(low)} ≤ {name} < {_number(high)}"
    if isinstance(selector, ps.EqualitySelector):
        value = selector.attribute_value
        if isinstance(value, float) and math.isnan(value):
            return f"{selector.attribute_name} is missing"
        return f"{selector.attribute_name} = {value}"
    if isinstance(selector, ps.NegatedSelector):
        return f"not ({_selector_text(selector._selector)})"
    if isinstance(selector, ValueCondition):  # subroc_ext.make_search_space's, as EqualitySelector
        value = selector.attribute_value
        shown = int(value) if isinstance(value, float) and value.is_integer() else value
        return f"{selector.attribute_name} = {shown}"
    if isinstance(selector, RangeCondition):  # its label, with this notation's signs
        return str(selector).replace(" >= ", " ≥ ").replace(" <= ", " ≤ ")
    if isinstance(selector, PointCondition):
        return f"{selector.attribute_name} {'=' if selector.equal else '≠'} {selector.text}"
    return str(selector)


#: pysubgroup's written selectors (``str`` of a selector) and their readable form.
_NUMBER = r"([-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf))"
_WRITTEN = (
    (re.compile(rf"^(.*\S): \[{_NUMBER}:{_NUMBER}\[$"), "{1} ≤ {0} < {2}"),
    (re.compile(r"^(.*\S)=='(.*)'$"), "{0} = {1}"),
    (re.compile(r"^(.*\S)==(\S.*)$"), "{0} = {1}"),
    (re.compile(rf"^(.*\S)>={_NUMBER}$"), "{0} ≥ {1}"),
    (re.compile(rf"^(.*\S)<{_NUMBER}$"), "{0} < {1}"),
    (re.compile(r"^(.*\S)\.isnull\(\)$"), "{0} is missing"),
)


def _written_text(text):
    """A selector as pysubgroup writes it (``a=='x'``, ``b: [1:2[``), made readable."""
    for pattern, form in _WRITTEN:
        match = pattern.match(text)
        if match:
            return form.format(*(_number_text(group) for group in match.groups()))
    return text


def _number_text(text):
    """A written bound as :func:`_number` writes it (``2.50`` -> ``2.5``); other text as is."""
    try:
        return _number(float(text))
    except ValueError:
        return text


def condition_texts(subgroup):
    """The conditions of a subgroup, each as readable text.

    Parameters
    ----------
    subgroup : pysubgroup description or str
        A ``ps.Conjunction`` (or anything with ``selectors``), or a
        description already written out by pysubgroup (split at its
        ``' AND '``; its equality and interval conditions made readable, the
        rest kept as written).

    Returns
    -------
    list of str
        One text per condition (empty for the whole data).

    Examples
    --------
    >>> import pysubgroup as ps
    >>> condition_texts(ps.Conjunction([ps.IntervalSelector("age", 30, 45),
    ...                                 ps.EqualitySelector("sex", "Female")]))
    ['30 ≤ age < 45', 'sex = Female']
    """
    if hasattr(subgroup, "selectors"):
        return [_selector_text(selector) for selector in subgroup.selectors]
    text = str(subgroup)
    return [] if text in ("", "Dataset") else [_written_text(part) for part in text.split(" AND ")]


def readable_description(subgroup, separator=" & "):
    """:func:`condition_texts` joined by ``separator`` (``'whole data'`` without conditions)."""
    return separator.join(condition_texts(subgroup)) or "whole data"
