"""Conditions on numeric and time columns: cut-points, mass points, labels.

:func:`cut_conditions` gives a numeric, datetime or timedelta column with more
than ``nbins`` distinct values its conditions (the rules are documented in
:mod:`subroc_ext.inputs.search_space`):

* **cut-points**: pysubgroup's equal-frequency rule
  (:func:`equal_frequency_cuts`), each replaced by the shortest number (the
  coarsest round time) between it and the next smaller value in the column,
  used as thresholds (``age < 38``, ``age >= 38``) and as bins between
  neighbouring cut-points (``38 <= age < 52``); ``thresholds=False`` gives
  the bins of pysubgroup's ``create_selectors`` and nothing else;
* **mass points** (with thresholds): a value holding more than
  ``1 / nbins`` of the non-missing rows is its own condition
  (``capital_gain == 0``, ``capital_gain != 0``), its two edges are
  cut-points (``x < v`` and ``x >= w``, ``w`` the next value above ``v``),
  and the remaining ``nbins - m - 1`` equal-frequency cut-points (``m`` mass
  points) are spread over the other values;
* **one value** (with thresholds): a bin of a column of whole numbers
  that holds one whole number is that value (``hospital == 1``, not
  ``1 <= hospital < 2``);
* **no near copies** (with thresholds, :func:`without_near_copies`): of two
  overlapping conditions of one column whose covers differ in fewer than
  :data:`NEAR_COPY_SHARE` of the table's rows, only the first is kept.
"""

import math
from decimal import ROUND_FLOOR, Decimal

import numpy as np
import pandas as pd
import pysubgroup as ps

from .selectors import MissingCondition, PointCondition, RangeCondition

__all__ = ["NEAR_COPY_SHARE", "cut_conditions", "distinct_counts", "equal_frequency_cuts", "without_near_copies"]

#: Two overlapping conditions of one column are near copies when their covers
#: differ in fewer than this share of the table's rows (always when in none).
NEAR_COPY_SHARE = 0.005


# --------------------------------------------------------------------------
# cut-points
# --------------------------------------------------------------------------


def equal_frequency_cuts(sorted_values, nbins):
    """pysubgroup's equal-frequency cut-points of ascending values, vectorized.

    The value at position ``i * n // nbins``, ``i = 1 .. nbins - 1``, or,
    where it is a cut-point already, the next larger value: what
    ``ps.equal_frequency_discretization`` returns, without its Python sort
    and walk over repeated values.

    Parameters
    ----------
    sorted_values : numpy.ndarray
        Ascending, no missing values.
    nbins : int

    Returns
    -------
    list
        Ascending cut-points (values of ``sorted_values``).

    Examples
    --------
    >>> equal_frequency_cuts(np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 2]), 5)
    [0, 1, 2]
    """
    n = len(sorted_values)
    cuts = []
    for i in range(1, nbins):
        position = i * n // nbins
        if position >= n:
            break
        value = sorted_values[position]
        if cuts and value <= cuts[-1]:
            position = int(np.searchsorted(sorted_values, cuts[-1], side="right"))
            if position >= n:
                break
            value = sorted_values[position]
        cuts.append(value.item() if isinstance(value, np.generic) else value)
    return cuts


def _pysubgroup_cuts(numbers, nbins):
    """pysubgroup's own equal-frequency cut-points (the bins-only space keeps them)."""
    frame = pd.DataFrame({"x": numbers})
    return [v.item() if isinstance(v, np.generic) else v
            for v in ps.equal_frequency_discretization(frame, "x", nbins)]  # fmt: skip


# --------------------------------------------------------------------------
# labels
# --------------------------------------------------------------------------


def _shortest_number(low, high):
    """The shortest decimal in ``(low, high]`` (``low`` None: ``high``), and its text."""
    exact = Decimal(repr(float(high)))
    if low is not None:
        magnitude = max(abs(float(high)), abs(float(low)))
        first = -math.floor(math.log10(magnitude)) - 1 if magnitude > 0 else 0
        for places in range(first, first + 20):
            step = Decimal(1).scaleb(-places)
            candidate = (exact / step).to_integral_value(rounding=ROUND_FLOOR) * step
            if low < float(candidate) <= high:
                return float(candidate), _decimal_text(candidate)
    return float(exact), _decimal_text(exact)


def _decimal_text(number):
    if not number.is_finite():
        return str(float(number))
    text = format(number.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _time_value(nanoseconds, domain, tz):
    """A point of the time axis (int64 nanoseconds) as a Timedelta or Timestamp in ``tz``."""
    if domain == "timedelta":
        return pd.Timedelta(nanoseconds, unit="ns")
    value = pd.Timestamp(nanoseconds, unit="ns", tz="UTC")
    return value.tz_convert(tz) if tz is not None else value.tz_localize(None)


def _shortest_time(low, high, domain, tz):
    """The coarsest round time (or duration) in ``(low, high]`` (nanoseconds), and its text."""
    exact = _time_value(high, domain, tz)
    if domain == "timedelta":
        rounders = [lambda t, step=step: t.floor(step) for step in ("D", "h", "min", "s", "ms", "us")]
    else:
        rounders = [
            lambda t: t.normalize().replace(month=1, day=1),
            lambda t: t.normalize().replace(day=1),
            lambda t: t.normalize(),
            *(lambda t, step=step: t.floor(step) for step in ("h", "min", "s", "ms", "us")),
        ]
    for rounder in rounders:
        try:
            candidate = rounder(exact)
        except (ValueError, OverflowError):  # e.g. a wall time that a DST change skips
            continue
        if (low is None or low < candidate.value) and candidate.value <= high:
            return candidate.value, _time_text(candidate, domain)
    return exact.value, _time_text(exact, domain)


def _time_text(value, domain):
    if domain == "timedelta":
        text = str(value)
        return text[: -len(" 00:00:00")] if text.endswith(" 00:00:00") else text
    if value.nanosecond or value.microsecond:
        text = value.tz_localize(None).isoformat(sep=" ")
    elif value == value.normalize():
        text = value.strftime("%Y-%m-%d")
    else:
        text = value.strftime("%Y-%m-%d %H:%M" if value.second == 0 else "%Y-%m-%d %H:%M:%S")
    return f"{text} {value.tzname()}" if value.tzinfo is not None else text


def _shortest(low, high, domain, tz):
    """The shortest point in ``(low, high]`` of the domain, and its text."""
    if domain == "number":
        return _shortest_number(low, high)
    return _shortest_time(low, high, domain, tz)


def _exact_text(value, domain, tz):
    """A value of the column, written exactly (the label of a mass point)."""
    if domain == "number":
        return _decimal_text(Decimal(repr(float(value))))
    return _time_text(_time_value(value, domain, tz), domain)


# --------------------------------------------------------------------------
# the conditions of one column
# --------------------------------------------------------------------------


def cut_conditions(name, numbers, domain, nbins, thresholds, tz=None):
    """The cut-point conditions of one numeric or time column.

    Parameters
    ----------
    name : str
        The column.
    numbers : numpy.ndarray
        Its non-missing values as :func:`~subroc_ext.inputs.selectors.comparable_values`
        gives them (float64, or int64 nanoseconds), at least two distinct;
        sorted here unless already ascending.
    domain : {'number', 'datetime', 'timedelta'}
    nbins : int
    thresholds : bool
        Thresholds, bins and mass points; False: pysubgroup's bins only.
    tz : tzinfo, optional
        The zone tz-aware datetimes are labelled in.

    Returns
    -------
    list of Condition
        The mass points' (``x == v``, ``x != v``), then the thresholds in
        cut order, then the bins (``x == v`` where a column of whole numbers
        has one whole number in a bin); near copies not yet removed
        (:func:`without_near_copies`).
    """
    sorted_numbers = _ascending(numbers)
    distinct, counts = distinct_counts(sorted_numbers)
    if not thresholds:
        cuts = _pysubgroup_cuts(sorted_numbers.astype(float) if domain == "number" else sorted_numbers, nbins)
        cuts = [c for c in cuts if np.isfinite(c)] if domain == "number" else [int(c) for c in cuts]
        return _bins(name, _labelled(cuts, distinct, domain, tz), domain)
    mass = distinct[counts * nbins > len(sorted_numbers)]
    rest = sorted_numbers[~np.isin(sorted_numbers, mass)]
    cuts = set(equal_frequency_cuts(rest, nbins - len(mass)))
    for value in mass:  # both edges of each mass point
        above = np.searchsorted(distinct, value, side="right")
        cuts.update([value.item(), *(distinct[above : above + 1].tolist())])
    # a cut at the minimum would give an empty and an everything condition
    cuts = sorted(c for c in cuts if c > distinct[0] and (domain != "number" or np.isfinite(c)))
    edges = _labelled(cuts, distinct, domain, tz)
    conditions = []
    for value in mass.tolist():
        text = _exact_text(value, domain, tz)
        conditions += [PointCondition(name, value, domain, text), PointCondition(name, value, domain, text, equal=False)]
    for point, text in edges:
        conditions.append(RangeCondition(name, None, point, domain, (None, text)))
        conditions.append(RangeCondition(name, point, None, domain, (text, None)))
    whole = domain == "number" and bool(np.all(distinct == np.round(distinct)))
    for (low, low_text), (high, high_text) in zip(edges, edges[1:]):
        if whole and math.ceil(high) - math.ceil(low) == 1:  # one whole number between: ``x == 1``, not ``1 <= x < 2``
            value = float(math.ceil(low))
            conditions.append(PointCondition(name, value, domain, _exact_text(value, domain, tz)))
        else:
            conditions.append(RangeCondition(name, low, high, domain, (low_text, high_text)))
    return conditions


def _labelled(cuts, distinct, domain, tz):
    """Each cut-point as ``(shortest point, its text)``: the shortest number
    (coarsest time) above the column's next smaller value."""
    edges = []
    for cut in cuts:
        below = np.searchsorted(distinct, cut, side="left")
        low = distinct[below - 1].item() if below > 0 else None
        edges.append(_shortest(low, cut, domain, tz))
    return edges


def _bins(name, edges, domain):
    """pysubgroup's bins: below the first cut-point, between neighbours, above the last."""
    bounds = [(None, None), *edges, (None, None)]
    return [RangeCondition(name, low, high, domain, (low_text, high_text))
            for (low, low_text), (high, high_text) in zip(bounds, bounds[1:])]  # fmt: skip


def _ascending(values):
    """``values`` sorted: themselves where they already are (one pass, no copy)."""
    return values if len(values) < 2 or bool(np.all(values[1:] >= values[:-1])) else np.sort(values)


def distinct_counts(sorted_values):
    """The distinct values of an ascending array and how often each occurs
    (``np.unique(..., return_counts=True)`` without sorting again).

    Examples
    --------
    >>> [a.tolist() for a in distinct_counts(np.array([1.0, 1.0, 2.0, 5.0, 5.0, 5.0]))]
    [[1.0, 2.0, 5.0], [2, 1, 3]]
    """
    first = np.ones(len(sorted_values), dtype=bool)
    first[1:] = sorted_values[1:] != sorted_values[:-1]
    starts = np.flatnonzero(first)
    return sorted_values[starts], np.diff(np.append(starts, len(sorted_values)))


def without_near_copies(conditions, values, n_missing):
    """``conditions`` of one column without near copies of an earlier one.

    A condition is dropped when its cover and that of an earlier kept
    condition are the same rows, or overlap and differ in fewer than
    ``NEAR_COPY_SHARE * n_rows`` rows. Disjoint conditions are never copies of
    each other (``x is missing`` and a small ``x != 0`` both stay).

    The covers are counted on *atoms*, not rows: every condition compares
    the column with finitely many points (its bounds, its mass value), so
    the values between two neighbouring points, and each point itself,
    satisfy the same conditions; one representative value per atom and the
    number of rows in it give every cover's size and every difference
    exactly.

    Parameters
    ----------
    conditions : list of Condition
        Range, point and missing conditions of one column, in the order of
        preference.
    values : numpy.ndarray
        The column's non-missing comparable values, ascending.
    n_missing : int
        Its missing values (the table's rows are these and ``values``).

    Returns
    -------
    list of Condition
    """
    if not conditions:
        return conditions
    points = set()
    for condition in conditions:
        for point in (getattr(condition, "lower_bound", None), getattr(condition, "upper_bound", None),
                      getattr(condition, "value", None)):  # fmt: skip
            if point is not None:
                points.add(point)
    points = np.array(sorted(points), dtype=values.dtype)
    starts = np.unique(np.concatenate([
        [0], np.searchsorted(values, points, side="left"), np.searchsorted(values, points, side="right"),
    ]))  # fmt: skip
    starts = starts[starts < len(values)]
    weights = np.diff(np.append(starts, len(values))).astype(np.int64)
    atom_numbers = np.append(values[starts], values[:1] if len(values) else np.zeros(1, values.dtype))
    atom_present = np.append(np.ones(len(starts), dtype=bool), False)
    weights = np.append(weights, int(n_missing))
    members = np.array([
        condition.mask_of_values(~atom_present) if isinstance(condition, MissingCondition)
        else condition.mask_of_values((atom_numbers, atom_present))
        for condition in conditions
    ])  # fmt: skip
    limit = NEAR_COPY_SHARE * (len(values) + n_missing)
    kept = []
    for i, member in enumerate(members):
        differences = [weights @ (member ^ members[j]) for j in kept]
        overlaps = [weights @ (member & members[j]) for j in kept]
        if not any(d == 0 or (d < limit and o > 0) for d, o in zip(differences, overlaps)):
            kept.append(i)
    return [conditions[i] for i in kept]
