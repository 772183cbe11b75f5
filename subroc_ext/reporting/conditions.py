"""Subgroup descriptions as readable conditions, for tables and figures.

pysubgroup writes ``capital_gain: [0:114[ AND marital_status=='Married-civ-spouse'``;
reports show ``0 ≤ capital_gain < 114`` and ``marital_status = Married-civ-spouse``,
one condition at a time; the conditions of :func:`~subroc_ext.make_search_space`
likewise (``age ≥ 38``, ``region = east``, ``capital_gain ≠ 0``). A name or value
that could be misread (quotes, operators, separators, invisible characters) keeps the
quotes and escapes of its description (``a = 'b\\' AND c==\\'d'``). Both notations are
written by :mod:`subroc_ext.utils.descriptions`. Selectors of other kinds (a search
space with its own labels) are shown as their ``str``, which is their label.
"""

from ..utils.descriptions import parse_condition, selector_text, split_conditions

__all__ = ["condition_texts", "readable_description"]


def _written_text(text):
    """A written condition (``a=='x'``, ``b: [1:2[``, ``age >= 38``) made readable; other text as is."""
    parsed = parse_condition(text)
    return text if parsed is None else parsed.text(readable=True)


def condition_texts(subgroup):
    """The conditions of a subgroup, each as readable text.

    Parameters
    ----------
    subgroup : pysubgroup description or str
        A ``ps.Conjunction`` (anything with ``selectors``), or a
        description already written out (split at its ``' AND '`` outside
        quotes; its conditions made readable, the rest kept as written).

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
        return [selector_text(selector, readable=True) for selector in subgroup.selectors]
    return [_written_text(part) for part in split_conditions(str(subgroup))]


def readable_description(subgroup, separator=" & "):
    """:func:`condition_texts` joined by ``separator`` (``'whole data'`` without conditions)."""
    return separator.join(condition_texts(subgroup)) or "whole data"
