"""The search space: conditions on the attribute columns of any table.

:func:`make_search_space` turns every attribute column into pysubgroup
selectors (*conditions*), deciding by column type in one place:

==========================  ===================================================
column                      conditions
==========================  ===================================================
nominal: object, string,    one per value observed: ``region=='east'``,
category, bool, nullable    ``smoker==True``, ``grade==3`` (categories that
Int/boolean/string, period  occur in no row get none; with ``min_support``,
                            values in fewer rows get none)
numeric with at most        one per value, as nominal
``nbins`` distinct values
numeric                     cut-points ``c`` (the quantile rule below), used as
                            thresholds ``age < 38``, ``age >= 38`` and as bins
                            between neighbouring cut-points ``38 <= age < 52``
a mass point of one         ``capital_gain == 0``, ``capital_gain != 0`` (a value
(thresholds only)           in more than ``1 / nbins`` of the non-missing rows)
datetime (naive or          as numeric, on the time axis: ``signup < 2021-06-01``;
tz-aware), ISO date         tz-aware columns are labelled in their own zone;
strings, timedelta          strings like ``2021-06-01`` or ``2021-06-01T10:00``
                            are read as datetimes; ``wait >= 3 days``
any column with missing     ``income is missing`` and, where it differs from
values (NaN, None, NA, NaT) every other condition, ``income is not missing``
==========================  ===================================================

Left out, with one :class:`SearchSpaceWarning` naming them all: constant
columns (one value in every row, or missing everywhere: no condition would
separate rows), ID-like columns (with at least 95 % distinct values: strings,
or integers that count rows or are named like a key, :func:`named_like_a_key`;
floats never; ``keep_ids=True`` keeps them), columns whose values tell two
periods apart (``periods``, for :func:`~subroc_ext.find_drift`), nominal
columns whose every value is rarer than ``min_support``, and columns of other
types (complex numbers; nested values: lists, arrays, dicts, sets, as
Parquet's list and struct columns are read). Further :class:`SearchSpaceWarning`
notes name columns that lost 100 or more values to ``min_support``, and text
columns of numbers with a few words (``'unknown'``), which are searched as
categories.

**Cut-points** (the documented rule): pysubgroup's equal-frequency rule
(``ps.equal_frequency_discretization``, what ``ps.create_selectors`` uses) on
the non-missing values: the value at position ``i * n // nbins`` of the
sorted values, ``i = 1 .. nbins - 1``, the next larger one where it repeats.
Each cut-point ``c`` is then replaced by the shortest number in ``(p, c]``,
``p`` the largest value below ``c`` (for dates: the coarsest of year, month,
day, hour, ... starts): ``x < 38`` instead of ``x < 37.9132``. The condition
selects the same rows of the table it was built from, and the label is the
exact condition: labels carry exactly as many digits as it takes to tell the
cut-points apart, and two conditions never print the same.

**Mass points** (with thresholds): a value ``v`` in more than ``1 / nbins``
of the non-missing rows (the zeros of ``capital_gain``) is its own condition,
``x == v`` and ``x != v``; ``v`` and the next larger value are cut-points,
and the other ``nbins - m - 1`` cut-points (``m`` mass points) follow the
rule above on the values other than the mass points. Equal-frequency cuts
inside a mass point gave conditions a handful of rows apart
(``capital_gain < 100``, ``< 400``, ``< 500``).

**No near copies** (with thresholds, numeric and time columns): of two
overlapping conditions of one column whose covers differ in fewer than
0.5 % of the table's rows (:data:`~subroc_ext.inputs.cuts.NEAR_COPY_SHARE`),
or in none, only the first in the order of the table above is kept (mass
points before thresholds before bins); disjoint conditions are never copies.

``thresholds=False`` gives the bins-only space of the SubROC paper and of
pysubgroup's ``create_selectors(data, nbins)``: the same rows for every
condition (``nbins`` bins per numeric column, ``x is missing`` where values
are missing, no thresholds, no mass points and no ``is not missing``), with
these labels and covers that handle every dtype.

Every condition is a pysubgroup selector (``covers(data)``,
``attribute_name``; at most one condition per column in a pattern, as in
pysubgroup), so :class:`~subroc_ext.FastSearch` and every pysubgroup
algorithm search it; :class:`~subroc_ext.inputs.sorted_data.SortedDataset` computes its
covers from the column converted once
(:meth:`subroc_ext.inputs.selectors.Condition.column_values`), the masks of
all values of a nominal column from one factorization
(:class:`~subroc_ext.inputs.selectors.ValueCodes`).
"""

import re
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from ..utils.callers import user_stacklevel
from ..utils.validation import shown
from .cuts import cut_conditions, distinct_counts, without_near_copies
from .selectors import ISO_DATE, MissingCondition, ValueCodes, ValueCondition, as_datetime, comparable_values

__all__ = [
    "SearchSpace",
    "SearchSpaceWarning",
    "make_search_space",
    "named_like_a_key",
]


class SearchSpaceWarning(UserWarning):
    """Columns were left out of the search space (ID-like, constant, unsupported)."""


# --------------------------------------------------------------------------
# column types
# --------------------------------------------------------------------------

#: Words that name a key, and words a key's name may put before one
#: (``patient_id``, ``PatientNo``, ``pidnum`` = p + id + num, ``usubjid``).
_KEY_WORDS = "id|ids|key|idx|index|uuid|guid|no|nr|num|number|code|row|rownames|seq|serial"
_ENTITY_WORDS = (
    "p|u|s|pat|patient|subj|usubj|subject|cust|customer|client|user|case|emp|employee|acct|"
    "account|rec|record|order|item|member|person|visit|sample|site|study"
)
_KEY_TOKEN = re.compile(rf"(?:{_ENTITY_WORDS}|{_KEY_WORDS})*(?:{_KEY_WORDS})")
#: A name's words: snake_case, kebab-case, dotted, camelCase, CAPS and digits.
_NAME_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_TIME_NAME = re.compile(r"year|date|time|month|day|week|quarter|period", re.IGNORECASE)

#: Share of distinct values from which a string or integer column can be an ID.
ID_DISTINCT_SHARE = 0.95

#: A column with this many values too rare for a condition is named in a note.
RARE_VALUES_NOTED = 100

#: Left-out columns a warning names at most (the rest it counts by reason).
LEFT_OUT_LISTED = 10


def _kind(column):
    """``'nominal'``, ``'number'``, ``'datetime'``, ``'timedelta'`` or a reason to leave it out."""
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype):
        return "nominal"
    if pd.api.types.is_complex_dtype(dtype):
        return f"unsupported dtype {dtype}"
    if pd.api.types.is_numeric_dtype(dtype):
        return "number"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return _in_range(column, "datetime")
    if pd.api.types.is_timedelta64_dtype(dtype):
        return _in_range(column, "timedelta")
    if isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
        return "nominal"
    present = column.dropna()
    try:
        pd.unique(present)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in present})
        return f"nested values ({', '.join(kinds)}): flatten them into columns of single values to search them"
    if len(present) and all(isinstance(v, str) and ISO_DATE.match(v) for v in present):
        try:
            as_datetime(column)
        except (ValueError, TypeError, OverflowError):  # e.g. 2021-02-30: not dates after all
            return "nominal"
        return _in_range(column, "datetime")
    return "nominal"


def named_like_a_key(name):
    """Whether one word of a column name names a key.

    The name is split into words (``patient_id``, ``PatientNo``, ``ID2``); a
    word names a key if it is one of id, no, num, key, code, index, ... or
    made of such words and a few words for what is numbered (``pidnum``,
    ``rowid``, ``usubjid``). A word that merely ends in the letters ``id``
    (``amount_paid``, ``covid``, ``fluid``, ``acid``) does not.

    Examples
    --------
    >>> [named_like_a_key(n) for n in ("pidnum", "patient_id", "ID", "PatientNo", "covid", "amount_paid")]
    [True, True, True, True, False, False]
    """
    return any(_KEY_TOKEN.fullmatch(word.lower()) for word in _NAME_TOKEN.findall(str(name)))


def _in_range(column, domain):
    """``domain``, or why its values cannot be compared in nanoseconds."""
    try:
        comparable_values(column, domain)
    except (ValueError, OverflowError):  # pandas' OutOfBoundsDatetime is a ValueError
        return "times outside the years 1677-2262" if domain == "datetime" else "durations beyond 292 years"
    return domain


def _separates_periods(column, kind, periods):
    """Why a column tells two periods apart (None if it does not): no value
    (for numbers and times: no range) in common, and missing values in at
    most one of them; a constant in each period that differs is a case."""
    missing = column.isna().to_numpy(dtype=bool)
    if (missing & periods).any() and (missing & ~periods).any():
        return None
    if kind == "nominal":
        values = [set(pd.unique(column[~missing & rows])) for rows in (~periods, periods)]
        if values[0] & values[1]:
            return None
        return "separates the periods: no value in common"
    numbers, present = comparable_values(column, kind)
    ranges = [numbers[present & rows] for rows in (~periods, periods)]
    if all(len(r) for r in ranges) and ranges[0].max() >= ranges[1].min() and ranges[1].max() >= ranges[0].min():
        return None
    return "separates the periods: their ranges do not overlap"


def _id_like(name, column, kind, distinct, present):
    """Why an integer or string column looks like an ID (None if it does not)."""
    if present < 2 or distinct < ID_DISTINCT_SHARE * present:
        return None
    text = f"ID-like: {distinct} distinct values in {present} rows"
    if kind == "nominal":
        if pd.api.types.is_bool_dtype(column.dtype):
            return None
        values = column.dropna()
        if isinstance(column.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        if all(isinstance(v, str) for v in values):
            return text
        return None
    if kind != "number" or not pd.api.types.is_integer_dtype(column.dtype):
        return None
    if _TIME_NAME.search(str(name)):
        return None
    if named_like_a_key(name):
        return text + ", named like a key"
    numbers = np.sort(column.dropna().to_numpy(dtype=np.int64))
    if numbers[-1] - numbers[0] + 1 <= 2 * distinct:
        return text + ", running like a row number"
    return None


# --------------------------------------------------------------------------
# the space
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchSpace:
    """The conditions of a search and what was left out.

    Iterating over it (or ``list(space)``) gives the conditions, so it can be
    passed wherever pysubgroup expects a list of selectors.

    Attributes
    ----------
    selectors : tuple of pysubgroup selectors
        The conditions, nominal columns first, then numeric, then time
        columns (as pysubgroup orders them), each column's in the order of
        the table above.
    used : dict
        ``{column: how it is used}`` (``'nominal'``, ``'number'``,
        ``'datetime'``, ``'timedelta'``), for the columns with conditions.
    left_out : dict
        ``{column: why}`` for the columns without conditions (``ignore``
        and the target columns are not listed).
    rare_values : dict
        ``{column: number of values}`` in fewer rows than the minimum
        support, which got no condition.
    notes : tuple of str
        What the :class:`SearchSpaceWarning` said: the columns left out,
        the columns whose values were mostly too rare, text columns of
        numbers with a few other values.
    """

    selectors: tuple
    used: dict = field(default_factory=dict)
    left_out: dict = field(default_factory=dict)
    rare_values: dict = field(default_factory=dict)
    notes: tuple = ()

    def __iter__(self):
        return iter(self.selectors)

    def __len__(self):
        return len(self.selectors)

    def __getitem__(self, index):
        return self.selectors[index]


def _column_conditions(name, column, kind, nbins, thresholds, min_support):
    """The conditions of one column (possibly none), how many of its values
    were too rare for one, and a note for the user (or None)."""
    missing = column.isna().to_numpy(dtype=bool)
    n_missing = int(missing.sum())
    conditions = [MissingCondition(name)] if n_missing else []
    present = column[~missing]
    rare, note = 0, None
    if kind == "nominal":
        codes = ValueCodes(present.astype(object) if isinstance(column.dtype, pd.CategoricalDtype) else present)
        distinct = len(codes.uniques)
        values, rare = _frequent_values(codes, min_support)
        conditions += _value_conditions(name, values)
        note = _numbers_as_text(name, codes, nbins)
    else:
        numbers, present_mask = comparable_values(column, kind)
        ascending = np.sort(numbers[present_mask])  # once: the cut-points and the near copies read it
        distinct = len(distinct_counts(ascending)[0])
        if distinct <= nbins and kind == "number":
            values, rare = _frequent_values(ValueCodes(present), min_support)
            conditions += _value_conditions(name, values)
        elif distinct > 1:
            tz = getattr(as_datetime(column).dtype, "tz", None) if kind == "datetime" else None
            conditions += cut_conditions(name, ascending, kind, nbins, thresholds, tz)
    if thresholds and n_missing and distinct >= 2:
        conditions.append(MissingCondition(name, missing=False))
    if thresholds and kind != "nominal" and distinct > nbins:
        conditions = without_near_copies(conditions, ascending, n_missing)
    return conditions, rare, note


def _frequent_values(codes, min_support):
    """The distinct values in at least ``min_support`` rows (all if None), and
    how many are in fewer: a pattern with one of those could never reach the
    minimum support, so they get no condition and no mask."""
    if not min_support:
        return codes.uniques, 0
    frequent = codes.counts() >= min_support
    return codes.uniques[frequent], int((~frequent).sum())


def _numbers_as_text(name, codes, nbins):
    """A note when a text column is mostly numbers with a few other values
    (``age`` with some ``'unknown'``): it is searched as categories, value by
    value, where without them it would be cut into ranges."""
    values = codes.uniques
    if not len(values) or not all(isinstance(v, str) for v in values):
        return None
    is_number = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").notna().to_numpy()
    counts = codes.counts()
    others = int(counts[~is_number].sum())
    if is_number.sum() <= nbins or others == 0 or others * 2 > len(codes):
        return None  # as values they give the same conditions; or no numbers; or mostly text
    order = np.argsort(-counts[~is_number], kind="stable")
    more = ", ..." if len(order) > 3 else ""
    return (
        f"column {name!r}: {others:,} of {len(codes):,} values are not numbers "
        f"({', '.join(map(shown, values[~is_number][order][:3]))}{more}): "
        "treated as categorical; convert them to NaN to cut it numerically"
    )


def _value_conditions(name, values):
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    conditions = [ValueCondition(name, v) for v in values]
    if len({str(c) for c in conditions}) < len(conditions):  # e.g. a Period and its text: add the type
        conditions = [ValueCondition(name, v, exact=True) for v in values]
        alike = [text for text, n in Counter(str(c) for c in conditions).items() if n > 1]
        if alike:
            raise ValueError(
                f"column {name!r} holds different values written alike ({', '.join(alike)}); "
                "convert them to text or numbers, or ignore the column"
            )
    return conditions


def _index_order(frame, held_out):
    """The rows of ``frame`` and then ``held_out`` in the order of their index
    labels (stable; None where they do not sort): two splits of one table
    are that table again, so its values come first where they came first."""
    try:
        return np.argsort(np.concatenate([frame.index.to_numpy(), held_out.index.to_numpy()]), kind="stable")
    except TypeError:
        return None


def _joined(column, held_out, order):
    """``column`` and the same column of the held-out rows as one column, in
    ``order`` (a categorical keeps being one, its categories the union of both)."""
    if isinstance(column.dtype, pd.CategoricalDtype) and isinstance(held_out.dtype, pd.CategoricalDtype):
        joined = pd.Series(union_categoricals([column, held_out], ignore_order=True), name=column.name)
    else:
        joined = pd.concat([column, held_out], ignore_index=True)
    return joined if order is None else joined.take(order).reset_index(drop=True)


def make_search_space(
    frame, *, ignore=(), nbins=5, thresholds=True, keep_ids=False, min_support=None, periods=None,
    warn=True, held_out=None,
):  # fmt: skip
    """The conditions on every attribute column of ``frame``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The data the conditions are built from: cut-points and values come
        from its attribute columns (never from labels or scores).
    ignore : sequence of str, default=()
        Columns without conditions (the label and score columns, ...).
    nbins : int, default=5
        Quantile bins per numeric column (``nbins - 1`` cut-points); numeric
        columns with at most ``nbins`` distinct values get one condition per
        value.
    thresholds : bool, default=True
        Use the cut-points as thresholds (``x < c``, ``x >= c``) and bins
        between them, and add ``x is not missing``; ``False`` gives the
        paper's bins-only space (the conditions of pysubgroup's
        ``create_selectors(frame, nbins)``).
    keep_ids : bool, default=False
        Keep ID-like columns (left out by default).
    min_support : int, optional
        The search's minimum support (rows): values of nominal columns in
        fewer rows get no condition (no pattern with one could reach it);
        by default every value gets one.
    periods : array-like of bool, optional
        Marks the rows of the second of two periods (:func:`~subroc_ext.find_drift`;
        ``frame``'s rows, then ``held_out``'s): a column whose values tell
        the periods apart is left out.
    warn : bool, default=True
        Emit one :class:`SearchSpaceWarning` naming the columns left out,
        and one for each note (they are in :attr:`SearchSpace.left_out` and
        :attr:`SearchSpace.notes` either way).
    held_out : pandas.DataFrame, optional
        Rows held out from the search (its validation split) with the same
        attribute columns: their values count as ``frame``'s do, so the
        conditions are those of all rows, whichever rows search (one column
        joined at a time: neither frame is copied whole). The rows are taken
        in the order of their index labels, so the splits of one table give
        that table's space, its values in the same order.

    Returns
    -------
    SearchSpace

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": [23, 35, 41, 52, 67, None],
    ...                       "city": ["a", "b", "a", "b", "a", "b"]})
    >>> [str(c) for c in make_search_space(frame, nbins=2)]
    ["city=='a'", "city=='b'", 'age is missing', 'age < 40', 'age >= 40', 'age is not missing']
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if not (isinstance(nbins, (int, np.integer)) and not isinstance(nbins, bool) and nbins >= 1):
        raise ValueError(f"nbins must be a positive integer (quantile bins per numeric column), got {nbins!r}")
    duplicated = frame.columns[frame.columns.duplicated()].unique().tolist()
    if duplicated:
        raise ValueError(f"column names must be unique; repeated: {duplicated!r}")
    ignored = set(ignore)
    if periods is not None:
        periods = np.asarray(periods, dtype=bool)
        rows = len(frame) + (0 if held_out is None else len(held_out))
        if periods.shape != (rows,):
            raise ValueError(f"periods must be one boolean per row ({rows}), got shape {periods.shape}")
    order = None if held_out is None else _index_order(frame, held_out)
    if periods is not None and order is not None:
        periods = periods[order]  # as the joined columns
    by_kind = {"nominal": [], "number": [], "datetime": [], "timedelta": []}
    used, left_out, rare_values, notes, distinct_values = {}, {}, {}, [], {}
    for name in frame.columns:
        if name in ignored:
            continue
        column = frame[name] if held_out is None else _joined(frame[name], held_out[name], order)
        if isinstance(column.dtype, pd.SparseDtype):
            column = column.sparse.to_dense()
        kind = _kind(column)
        if kind not in by_kind:
            left_out[name] = kind
            continue
        present = int(column.notna().sum())
        distinct = int(column.nunique(dropna=True)) if kind != "datetime" or present == 0 else int(
            as_datetime(column).nunique(dropna=True)
        )
        distinct_values[name] = distinct
        if distinct + (present < len(column)) <= 1:
            left_out[name] = "constant" if present else "missing in every row"
            continue
        reason = None if periods is None else _separates_periods(column, kind, periods)
        if not reason and not keep_ids:
            reason = _id_like(name, column, kind, distinct, present)
        if reason:
            left_out[name] = reason
            continue
        conditions, rare, note = _column_conditions(name, column, kind, nbins, thresholds, min_support)
        if rare:
            rare_values[name] = rare
        if note:
            notes.append(note)
        if conditions:
            by_kind[kind].append(conditions)
            used[name] = kind
        elif rare:
            left_out[name] = f"every value in fewer than {min_support:,} rows, the minimum support"
        else:
            left_out[name] = f"no cut-point with nbins={nbins}"
    selectors = tuple(c for kind in by_kind.values() for conditions in kind for c in conditions)
    many_rare = {name: rare for name, rare in rare_values.items() if rare >= RARE_VALUES_NOTED and name in used}
    if many_rare:
        listed = ", ".join(f"{name!r} {rare:,} of {distinct_values[name]:,}" for name, rare in many_rare.items())
        notes.insert(0, f"values in fewer than {min_support:,} rows (the minimum support) get no condition: {listed}")
    if left_out:
        listed = _left_out_text(left_out)
        hint = (" - keep_ids=True (--keep-ids) keeps ID-like columns"
                if any(why.startswith("ID-like") for why in left_out.values()) else "")  # fmt: skip
        notes.insert(0, f"columns left out of the search space: {listed}{hint}")
    if warn:
        for note in notes:
            warnings.warn(note, SearchSpaceWarning, stacklevel=user_stacklevel())
    return SearchSpace(selectors, used, left_out, rare_values, tuple(notes))


def _left_out_text(left_out):
    """The first :data:`LEFT_OUT_LISTED` left-out columns with their reasons, then
    how many more for each kind of reason (the whole list is ``left_out``): a
    warning about 10,000 constant columns stays one readable line."""
    items = list(left_out.items())
    listed = "; ".join(f"{name!r} ({why})" for name, why in items[:LEFT_OUT_LISTED])
    if len(items) <= LEFT_OUT_LISTED:
        return listed
    kinds = Counter(why.split(":")[0] for _, why in items[LEFT_OUT_LISTED:])
    counted = ", ".join(f"{count:,} {kind}" for kind, count in kinds.most_common())
    return f"{listed}; and {len(items) - LEFT_OUT_LISTED:,} more ({counted})"
