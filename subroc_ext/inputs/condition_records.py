"""Conditions as JSON-safe records, and back: a subgroup's description as data.

A finding written to ``findings.json``
(:mod:`subroc_ext.reporting.findings_json`) names its subgroup by conditions
a program can read and apply again
(:func:`~subroc_ext.workflow.recheck.recheck`), made from the condition
objects themselves, never parsed from their text. One record per condition::

    {"column": "age", "operator": "between", "value": [38.0, 52.0],
     "domain": "number", "value_text": ["38", "52"], "text": "38 <= age < 52"}

``operator`` is one of :data:`OPERATORS`: ``==`` (:class:`ValueCondition`, or
a mass point: :class:`PointCondition` with ``domain``), ``!=`` (a mass
point's complement), ``<``, ``>=`` and ``between`` (``lower <= column <
upper``, :class:`RangeCondition`), ``is missing`` and ``is not missing``
(:class:`MissingCondition`, no ``value``). A value is JSON itself where JSON
holds it exactly (text, true/false, integers, finite floats; ``null`` for a
missing value) and otherwise an object naming its kind:
``{"datetime": "2024-03-01T00:00:00"}``, ``{"timedelta": "P1DT0H0M0S"}``,
``{"date": "2024-03-01"}``, ``{"number": "inf"}``, ``{"decimal": "1.2345"}``,
``{"bytes": "<base64>"}`` (Parquet's decimal and binary columns). The bounds of a range or a
point on a time column are kept as the instants they compare
(``{"datetime": ...}``, ``{"timedelta": ...}``) and rebuilt to the same
nanosecond. pysubgroup's own ``EqualitySelector`` and ``IntervalSelector``
are written the same way (as ``==`` and a numeric range).
"""

import base64
import binascii
import datetime
import decimal
import math
import numbers
import re

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..utils.descriptions import name_text
from .selectors import MissingCondition, PointCondition, RangeCondition, ValueCondition

__all__ = ["OPERATORS", "condition_record", "condition_from_record", "decode_value", "encode_value",
           "subgroup_from_records", "subgroup_records"]  # fmt: skip

#: The operators of a condition record.
OPERATORS = ("==", "!=", "<", ">=", "between", "is missing", "is not missing")


def encode_value(value):
    """``value`` as JSON: itself where JSON holds it exactly, else a one-key object.

    Parameters
    ----------
    value : str, bool, int, float, datetime, timedelta, date, Decimal, bytes or missing
        NumPy and pandas scalars too.

    Returns
    -------
    object
        ``str``, ``bool``, ``int``, finite ``float``, ``None`` (missing) or
        ``{"datetime" | "timedelta" | "date" | "number" | "decimal" | "bytes": str}``.

    Raises
    ------
    TypeError
        For any other kind of value, naming it.

    Examples
    --------
    >>> encode_value(np.int64(3)), encode_value(float("nan")), encode_value(float("-inf"))
    (3, None, {'number': '-inf'})
    >>> encode_value(pd.Timestamp("2024-03-01"))
    {'datetime': '2024-03-01T00:00:00'}
    """
    if value is None or value is pd.NaT or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (str, bool)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return None
        return number if math.isfinite(number) else {"number": "inf" if number > 0 else "-inf"}
    if isinstance(value, (pd.Timestamp, datetime.datetime, np.datetime64)):
        return {"datetime": pd.Timestamp(value).isoformat()}
    if isinstance(value, (pd.Timedelta, datetime.timedelta, np.timedelta64)):
        return {"timedelta": pd.Timedelta(value).isoformat()}
    if isinstance(value, datetime.date):
        return {"date": value.isoformat()}
    if isinstance(value, decimal.Decimal):  # Parquet's decimal columns: exact, as text
        return {"decimal": str(value)}
    if isinstance(value, bytes):  # Parquet's binary columns
        return {"bytes": base64.b64encode(value).decode("ascii")}
    raise TypeError(f"cannot write the value {value!r} ({type(value).__name__}) to JSON")


#: How each kind of encoded value is read back.
_DECODERS = {"datetime": pd.Timestamp, "timedelta": pd.Timedelta, "date": datetime.date.fromisoformat,
             "number": float, "decimal": decimal.Decimal, "bytes": lambda text: base64.b64decode(text, validate=True)}  # fmt: skip


def decode_value(encoded):
    """The value :func:`encode_value` wrote (``None`` for a missing one).

    Raises
    ------
    ValueError
        For an object that is not one of :func:`encode_value`'s.
    """
    if isinstance(encoded, dict):
        if len(encoded) != 1 or next(iter(encoded)) not in _DECODERS:
            raise ValueError(f"unknown value {encoded!r}: expected one of the keys {sorted(_DECODERS)}")
        (kind, text), = encoded.items()
        try:
            return _DECODERS[kind](text)
        except (ValueError, TypeError, ArithmeticError, binascii.Error) as error:  # decimal's errors too
            raise ValueError(f"{encoded!r} is not a {kind}: {error}") from None
    return encoded


def _compared(value, domain):
    """A bound as compared (float, or int64 nanoseconds) encoded as what it means."""
    if domain == "number":
        return encode_value(float(value))
    kind = pd.Timestamp if domain == "datetime" else pd.Timedelta
    return encode_value(kind(int(value), unit="ns"))


#: The kind of value a bound of each domain decodes to.
_BOUND_KINDS = {"number": (float, int), "datetime": (pd.Timestamp,), "timedelta": (pd.Timedelta,)}


def _comparing(encoded, domain, text=None):
    """A bound of :func:`_compared` as the condition compares it; ``ValueError``
    unless it is a bound of ``domain``, printed as ``text`` (when given)."""
    if domain not in _BOUND_KINDS:
        raise ValueError(f"domain must be one of {sorted(_BOUND_KINDS)}, got {domain!r}")
    value = decode_value(encoded)
    if isinstance(value, bool) or not isinstance(value, _BOUND_KINDS[domain]) or value is pd.NaT:
        raise ValueError(f"value {encoded!r} is not a bound of domain {domain!r}")
    if text is not None and not _prints(text, value, domain):
        raise ValueError(f"value_text {text!r} is not how the bound {encoded!r} is printed")
    return float(value) if domain == "number" else int(value.value)


#: A time as :mod:`~subroc_ext.inputs.cuts` prints it in a tz-aware column's zone: the time, then the zone.
_ZONED = re.compile(r"(\d{4}-\d{2}-\d{2}(?: [\d:.]+)?) ([A-Za-z][\w+\-:/]*|[+-]\d{2}(?::?\d{2})?)")


def _prints(text, value, domain):
    """Whether ``text`` is how a bound ``value`` of ``domain`` is printed: the
    same number, duration or time (a tz-aware column's time in its zone: an
    offset from the instant of at most 18 hours, in whole quarter hours)."""
    try:
        if domain == "number":
            return float(text) == value
        if domain == "timedelta":
            return pd.Timedelta(text) == value
        zoned = _ZONED.fullmatch(text)
        if zoned is None:
            return pd.Timestamp(text) == value
        offset = pd.Timestamp(zoned.group(1)) - value
    except (ValueError, TypeError, OverflowError):
        return False
    return abs(offset) <= pd.Timedelta(hours=18) and offset % pd.Timedelta(minutes=15) == pd.Timedelta(0)


def condition_record(condition):
    """One condition as a JSON-safe record (the module notes).

    Parameters
    ----------
    condition : Condition or pysubgroup EqualitySelector / IntervalSelector

    Returns
    -------
    dict
        ``column``, ``operator``, ``value`` (absent for ``is missing``),
        ``domain`` and ``value_text`` (ranges and mass points: how the
        bounds are printed) and ``text`` (the condition as the table
        writes it).

    Raises
    ------
    TypeError
        For another kind of selector, naming it.
    """
    record = {"column": str(condition.attribute_name)}
    if isinstance(condition, MissingCondition):
        record["operator"] = "is missing" if condition.missing else "is not missing"
    elif isinstance(condition, (ValueCondition, ps.EqualitySelector)):
        record.update(operator="==", value=encode_value(condition.attribute_value))
    elif isinstance(condition, PointCondition):
        record.update(operator="==" if condition.equal else "!=", value=_compared(condition.value, condition.domain),
                      domain=condition.domain, value_text=condition.text)  # fmt: skip
    elif isinstance(condition, RangeCondition):
        lower, upper, domain = condition.lower_bound, condition.upper_bound, condition.domain
        texts = _range_texts(condition)
        if lower is None:
            record.update(operator="<", value=_compared(upper, domain), value_text=texts[1])
        elif upper is None:
            record.update(operator=">=", value=_compared(lower, domain), value_text=texts[0])
        else:
            record.update(operator="between", value=[_compared(lower, domain), _compared(upper, domain)],
                          value_text=list(texts))  # fmt: skip
        record["domain"] = domain
    elif isinstance(condition, ps.IntervalSelector):
        lower, upper = condition.lower_bound, condition.upper_bound
        if lower == -np.inf:
            record.update(operator="<", value=encode_value(upper))
        elif upper == np.inf:
            record.update(operator=">=", value=encode_value(lower))
        else:
            record.update(operator="between", value=[encode_value(lower), encode_value(upper)])
        record["domain"] = "number"
    else:
        raise TypeError(f"cannot write the condition {condition} ({type(condition).__name__}) as a record")
    record["text"] = str(condition)
    return record


def _range_texts(condition):
    """The printed lower and upper bound of a :class:`RangeCondition` (None where unbounded)."""
    text, column = str(condition), name_text(condition.attribute_name)  # the name as the text writes it
    if condition.lower_bound is None:
        return None, text[len(f"{column} < ") :]
    if condition.upper_bound is None:
        return text[len(f"{column} >= ") :], None
    low, high = text.split(f" <= {column} < ")
    return low, high


def condition_from_record(record):
    """The condition object a :func:`condition_record` describes.

    Raises
    ------
    ValueError
        For a record with an unknown operator or missing fields, naming them.
    """
    try:
        column, operator = record["column"], record["operator"]
        if operator not in OPERATORS:
            raise ValueError(f"condition record {record!r}: operator must be one of {list(OPERATORS)}, "
                             f"got {operator!r}")  # fmt: skip
        if operator in ("is missing", "is not missing"):
            return MissingCondition(column, missing=operator == "is missing")
        domain = record.get("domain")
        if operator == "==" and domain is None:
            return ValueCondition(column, decode_value(record["value"]))
        if operator in ("==", "!="):
            text = record["value_text"]
            return PointCondition(column, _comparing(record["value"], domain, text), domain, text,
                                  equal=operator == "==")  # fmt: skip
        if "value_text" not in record and domain == "number":  # pysubgroup's IntervalSelector wrote it
            return _interval_selector(column, operator, record["value"])
        texts = record["value_text"]
        if operator == "<":
            return RangeCondition(column, None, _comparing(record["value"], domain, texts), domain, (None, texts))
        if operator == ">=":
            return RangeCondition(column, _comparing(record["value"], domain, texts), None, domain, (texts, None))
        (low, high), (low_text, high_text) = record["value"], texts  # between
        return RangeCondition(column, _comparing(low, domain, low_text), _comparing(high, domain, high_text),
                              domain, (low_text, high_text))  # fmt: skip
    except KeyError as missing:
        raise ValueError(f"condition record {record!r} has no {missing.args[0]!r}") from None


def _interval_selector(column, operator, value):
    """The ``ps.IntervalSelector`` a record without ``value_text`` describes (its text is pysubgroup's)."""
    low, high = -np.inf, np.inf
    if operator == "<":
        high = _comparing(value, "number")
    elif operator == ">=":
        low = _comparing(value, "number")
    else:  # between
        low, high = (_comparing(bound, "number") for bound in value)
    return ps.IntervalSelector(column, low, high)


def subgroup_records(subgroup):
    """The records of a subgroup's conditions (``[]`` for the whole data)."""
    return [condition_record(condition) for condition in getattr(subgroup, "selectors", ())]


def subgroup_from_records(records):
    """The ``pysubgroup.Conjunction`` of :func:`subgroup_records`' records."""
    return ps.Conjunction([condition_from_record(record) for record in records])
