"""Conditions on one column: the pysubgroup selectors of the search space.

:class:`Condition` is a pysubgroup selector with a readable label that
computes its cover from the column converted once for all its conditions
(:meth:`Condition.column_values`, kept by
:class:`~subroc_ext.inputs.sorted_data.SortedDataset`): :class:`ValueCondition`
(``region=='east'``), :class:`RangeCondition` (``age < 38``,
``38 <= age < 52``, also on datetimes and durations), :class:`PointCondition`
(``capital_gain == 0``, ``capital_gain != 0``: a mass point of a numeric or
time column) and :class:`MissingCondition` (``income is missing``). :func:`comparable_values`
turns a column into the numbers its range conditions compare.
:mod:`subroc_ext.inputs.search_space` decides which conditions a column gets.
"""

import re

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..utils.descriptions import condition_text

__all__ = [
    "Condition",
    "ValueCodes",
    "ValueCondition",
    "RangeCondition",
    "PointCondition",
    "MissingCondition",
    "ISO_DATE",
    "as_datetime",
    "comparable_values",
]


class Condition(ps.SelectorBase):
    """A condition on one column: a pysubgroup selector with a readable label.

    ``parts`` (the column, the operator and the operands of
    :func:`~subroc_ext.utils.descriptions.condition_text`) say what it
    selects; its label is them written, so that no name or value can forge
    another condition. Subclasses define :meth:`column_values` (the column converted, kept by
    :class:`~subroc_ext.inputs.sorted_data.SortedDataset` under
    ``(values_kind, attribute_name)`` for the conditions on the column that
    follow) and :meth:`mask_of_values`;
    ``covers(data)`` is the two in a row. Conditions are equal when their
    labels are (pysubgroup compares selectors by ``repr``); unlike
    pysubgroup's selectors they are not shared through pysubgroup's instance
    cache, so building one never renames a selector elsewhere.
    """

    values_kind = None

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, attribute_name, op, operands=()):
        self._attribute_name = attribute_name
        self.parts = (attribute_name, op, tuple(operands))
        self._query = condition_text(*self.parts)
        self._hash = hash(self._query)

    def set_descriptions(self, *args, **kwargs):  # pysubgroup's abstract method; labels are fixed
        pass

    def __reduce__(self):
        return (_rebuild, (type(self), self.__dict__))

    @property
    def attribute_name(self):
        """The column."""
        return self._attribute_name

    @property
    def selectors(self):
        """The condition itself as a tuple (pysubgroup's protocol)."""
        return (self,)

    def __repr__(self):
        return self._query

    def __str__(self, open_brackets="", closing_brackets=""):
        return open_brackets + self._query + closing_brackets

    def __hash__(self):
        return self._hash

    def covers(self, data):
        """Boolean array: which rows of ``data`` the condition selects."""
        return self.mask_of_values(self.column_values(data[self.attribute_name]))

    def column_values(self, column):  # pragma: no cover - abstract
        raise NotImplementedError

    def mask_of_values(self, values):  # pragma: no cover - abstract
        raise NotImplementedError


def _rebuild(kind, state):
    condition = object.__new__(kind)
    condition.__dict__.update(state)
    return condition


class ValueCodes:
    """A column factorized once: integer codes, the distinct values, and each
    value's rows, so that the masks of all its values cost time linear in
    the rows together (not rows times values).

    Parameters
    ----------
    column : pandas.Series

    Attributes
    ----------
    codes : numpy.ndarray of int
        The code of each row's value (-1 where missing), in the smallest
        signed integer type that holds them: a dataset keeps the codes of
        every column it has covered, 1 byte a row for up to 127 values
        instead of 8 (FastSearch on 2 million Census rows: a peak of 1.1 GB
        instead of 1.8 GB).
    uniques : numpy.ndarray of object
        The distinct values, by code (objects, so that they compare like
        pysubgroup's ``data[attribute] == value``).
    """

    def __init__(self, column):
        # on the Series: 3x faster than on its values for Arrow strings
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        self.codes = codes.astype(_smallest_int(len(uniques)), copy=False)
        self.uniques = np.asarray(uniques, dtype=object)
        self._index = self._rows = self._starts = None
        self._compared = False

    def __len__(self):
        return len(self.codes)

    def counts(self):
        """Rows of each distinct value (by code)."""
        return np.bincount(self.codes[self.codes >= 0], minlength=len(self.uniques))

    def code_of(self, value):
        """The code of ``value`` (the first distinct value equal to it), or None."""
        if self._index is None:
            self._index = {}
            for code, unique in enumerate(self.uniques.tolist()):
                self._index.setdefault(unique, code)
        try:
            return self._index.get(value)
        except TypeError:  # unhashable: compare with each value
            found = np.flatnonzero([_same(u, value) for u in self.uniques])
            return int(found[0]) if len(found) else None

    def mask(self, value):
        """Boolean mask of the rows holding ``value`` (none if it does not occur).

        The first mask compares the codes of all rows; from the second on,
        the rows are grouped by value once (one sort) and each mask sets
        only its value's rows.
        """
        code = self.code_of(value)
        if code is None:
            return np.zeros(len(self.codes), dtype=bool)
        if self._rows is None:
            if not self._compared:  # the first mask of this column: maybe the only one
                self._compared = True
                return self.codes == code
            self._rows = np.argsort(self.codes, kind="stable").astype(_smallest_int(len(self.codes)), copy=False)
            self._starts = np.searchsorted(self.codes[self._rows], np.arange(len(self.uniques) + 1))
        mask = np.zeros(len(self.codes), dtype=bool)
        mask[self._rows[self._starts[code] : self._starts[code + 1]]] = True
        return mask


class ValueCondition(Condition):
    """``column == value`` (missing values never match); labelled as
    pysubgroup's ``EqualitySelector``: ``region=='east'``, ``grade==3``
    (:func:`~subroc_ext.utils.descriptions.value_text`: text quoted and
    escaped, ``grade==4`` for 4.0); ``exact=True`` adds the type of a value
    that is neither text nor a number (two values of one column written alike)."""

    values_kind = "codes"

    def __init__(self, attribute_name, value, exact=False):
        super().__init__(attribute_name, "exact value" if exact else "value", (value,))
        self.attribute_value = value

    def column_values(self, column):
        return ValueCodes(column)

    def mask_of_values(self, values):
        return values.mask(self.attribute_value)


def _smallest_int(largest):
    """The smallest signed integer type holding ``-1`` to ``largest``."""
    for kind in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(kind).max:
            return kind
    return np.int64


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


class MissingCondition(Condition):
    """``column is missing`` (NaN, None, NA, NaT) or, with
    ``missing=False``, ``column is not missing``."""

    values_kind = "missing"

    def __init__(self, attribute_name, missing=True):
        super().__init__(attribute_name, "missing" if missing else "not missing")
        self.missing = missing

    def column_values(self, column):
        return column.isna().to_numpy(dtype=bool)

    def mask_of_values(self, values):
        return values if self.missing else ~values


class RangeCondition(Condition):
    """``lower <= column < upper`` on a numeric, datetime or timedelta
    column (``lower``/``upper`` None: unbounded); missing values never match.

    ``domain`` says how the column is compared: ``'number'`` (as float),
    ``'datetime'`` or ``'timedelta'`` (as int64 nanoseconds, UTC for
    tz-aware datetimes; strings are parsed as ISO 8601 datetimes).
    ``texts`` are the bounds as printed.
    """

    def __init__(self, attribute_name, lower, upper, domain, texts):
        low, high = texts
        if lower is None and upper is None:  # a bin of a single cut-point's column: any value
            super().__init__(attribute_name, "not missing")
        elif lower is None:
            super().__init__(attribute_name, "<", (high,))
        elif upper is None:
            super().__init__(attribute_name, ">=", (low,))
        else:
            super().__init__(attribute_name, "range", (low, high))
        self.lower_bound, self.upper_bound, self.domain = lower, upper, domain
        self.values_kind = domain

    def column_values(self, column):
        return comparable_values(column, self.domain)

    def mask_of_values(self, values):
        numbers, present = values
        mask = present.copy()
        if self.lower_bound is not None:
            mask &= numbers >= self.lower_bound
        if self.upper_bound is not None:
            mask &= numbers < self.upper_bound
        return mask


class PointCondition(Condition):
    """``column == value`` or, with ``equal=False``, ``column != value`` on a
    numeric, datetime or timedelta column, compared as :func:`comparable_values`
    (float, or int64 nanoseconds); missing values never match.

    Labelled ``capital_gain == 0``, ``capital_gain != 0`` (``text``: the value
    as printed), in the notation of the range conditions.
    """

    def __init__(self, attribute_name, value, domain, text, equal=True):
        super().__init__(attribute_name, "==" if equal else "!=", (text,))
        self.value, self.domain, self.equal, self.text = value, domain, equal, text
        self.values_kind = domain

    def column_values(self, column):
        return comparable_values(column, self.domain)

    def mask_of_values(self, values):
        numbers, present = values
        equal = numbers == self.value
        return present & (equal if self.equal else ~equal)


def comparable_values(column, domain):
    """A column as comparable numbers and a mask of its non-missing rows.

    Parameters
    ----------
    column : pandas.Series
    domain : {'number', 'datetime', 'timedelta'}

    Returns
    -------
    numbers : numpy.ndarray of float64 (number) or int64 (nanoseconds)
    present : numpy.ndarray of bool
    """
    if domain == "number":
        numbers = column.to_numpy(dtype=float, na_value=np.nan)
        return numbers, ~np.isnan(numbers)
    if domain == "datetime":
        column = as_datetime(column)
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            column = column.dt.tz_convert("UTC").dt.tz_localize(None)
    column = column.dt.as_unit("ns")  # raises where a value is out of range (numpy would wrap)
    present = column.notna().to_numpy(dtype=bool)
    return column.to_numpy(dtype=f"{column.dtype}").view(np.int64), present


#: ISO 8601 dates and date-times, as strings that are read as datetimes.
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")


def as_datetime(column):
    """A datetime column as is; ISO 8601 strings parsed (as UTC if any has an offset)."""
    if pd.api.types.is_datetime64_any_dtype(column.dtype):
        return column
    strings = column.astype(object).where(column.notna(), None)
    offsets = strings.dropna().astype(str).str.contains(r"(?:Z|[+-]\d{2}:?\d{2})$").any()
    return pd.to_datetime(strings, format="ISO8601", utc=bool(offsets))
