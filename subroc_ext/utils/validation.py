"""Input validation at the public boundary.

Every check raises ``ValueError`` (or ``KeyError`` for a missing column) with a
message that names the offending column or argument and the problem, so that
bad input fails early instead of producing a silently wrong number.
"""

import math
import numbers
import re

import numpy as np
import pandas as pd

from .names import MODES

__all__ = [
    "check_columns",
    "check_column_names",
    "check_distinct_columns",
    "positive_mask",
    "finite_scores",
    "check_mode",
    "probability_scores",
    "check_weights",
    "check_search_settings",
    "min_support_count",
    "check_binary_arrays",
    "quoted_values",
    "shown",
]


def check_columns(data, columns, what="data"):
    """Raise ``KeyError`` naming every column of ``columns`` missing in ``data``.

    ``what`` names the frame in the message (e.g. ``'the validation split'``).
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(data).__name__}")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise KeyError(
            f"column(s) {missing!r} not found in {what}; available columns: "
            f"{list(data.columns)!r}"
        )


#: How pandas names a CSV column whose header is empty (``Unnamed: 3``; with a
#: multi-row header ``Unnamed: 3_level_1``).
_UNNAMED = re.compile(r"Unnamed: \d+(?:_level_\d+)?")
#: A number as written with a decimal comma: ``0,37``, ``-1,5``, ``1.234,5``, ``2``.
_DECIMAL_COMMA = re.compile(r"\s*[+-]?(?:\d+|\d{1,3}(?:\.\d{3})+)?(?:,\d+)?\s*")


def _has_no_name(name):
    if name is None or (isinstance(name, float) and np.isnan(name)):
        return True
    return isinstance(name, str) and (name.strip() == "" or bool(_UNNAMED.fullmatch(name)))


def check_column_names(data, what="data", ignore=()):
    """Raise ``ValueError`` naming the columns of ``data`` that share a name or have none.

    Two columns of one name make ``data[name]`` a table, not a column (and
    two whose names are the same text, ``0`` and ``'0'``, one name in a
    description); a
    column without a name (``''``, ``None``, or ``Unnamed: <position>``, the
    name pandas gives a CSV column with an empty header, often a row index
    saved with the table) would be searched as if it were an attribute. Both
    are refused; an unnamed column listed in ``ignore`` is accepted.

    Examples
    --------
    >>> check_column_names(pd.DataFrame([[1, 2]], columns=["p", "p"]))
    Traceback (most recent call last):
    ...
    ValueError: data has more than one column named 'p'; give each column its own name
    """
    index = pd.Index(data.columns)
    duplicated = list(dict.fromkeys(index[index.duplicated()]))
    if duplicated:
        names = ", ".join(repr(name) for name in duplicated)
        raise ValueError(f"{what} has more than one column named {names}; give each column its own name")
    texts = pd.Series(index.map(str), dtype=object)
    alike = list(dict.fromkeys(name for name, repeated in zip(index, texts.duplicated(keep=False)) if repeated))
    if alike:
        raise ValueError(
            f"{what} has columns named alike: {', '.join(repr(name) for name in alike)}; descriptions "
            "write a name as text, so give each column a name of its own"
        )
    unnamed = [name for name in index if _has_no_name(name) and name not in ignore]
    if unnamed:
        raise ValueError(
            f"{what} has column(s) without a name: {unnamed!r} ('Unnamed: <position>' is what "
            "pandas calls a CSV column with an empty header, e.g. a row index saved with the "
            "table); name or drop them, or ignore them"
        )


def check_distinct_columns(**columns):
    """Raise ``ValueError`` if two of the roles (``label=``, ``score=``, ...) name the same column.

    >>> check_distinct_columns(label="y", score="y")
    Traceback (most recent call last):
    ...
    ValueError: label and score are the same column 'y'; each needs a column of its own
    """
    seen = {}
    for role, column in columns.items():
        if column in seen:
            raise ValueError(f"{seen[column]} and {role} are the same column {column!r}; each needs a "
                             "column of its own")  # fmt: skip
        seen[column] = role


def shown(value):
    """A value as a message writes it: its ``repr``, a NumPy scalar as the
    Python value it holds (``7``, ``'yes'``, not ``np.int64(7)``,
    ``np.str_('yes')`` as NumPy 2 writes them); the one place every message
    that quotes a user's value (a label, an argument) formats it.

    >>> shown(np.int64(7)), shown(np.float64(0.5)), shown("yes")
    ('7', '0.5', "'yes'")
    """
    return repr(value.item() if isinstance(value, np.generic) else value)


def quoted_values(values):
    """Distinct label values for a message, one style everywhere: ``'bad' and 'good'``.

    Sorted as :func:`shown` writes them; at most five are shown.
    """
    texts = sorted(map(shown, values))
    if len(texts) > 5:
        return ", ".join(texts[:5]) + ", ..."
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def positive_mask(labels, positive_label, name="label"):
    """Boolean array marking the positive class of a binary label column.

    Parameters
    ----------
    labels : array-like or pandas.Series
        The label column: any encoding (bool, {0, 1}, {-1, 1}, strings,
        categoricals) with at most two distinct values and no missing values.
    positive_label : object
        The value denoting the positive class.
    name : str
        Column name used in error messages.

    Returns
    -------
    numpy.ndarray of bool
    """
    labels = pd.Series(labels) if not isinstance(labels, pd.Series) else labels
    if labels.isna().any():
        raise ValueError(
            f"label column {name!r} contains {int(labels.isna().sum())} missing value(s)"
        )
    values = pd.unique(labels.to_numpy())
    if len(values) > 2:
        raise ValueError(
            f"label column {name!r} must be binary but has {len(values)} distinct "
            f"values ({quoted_values(values)})"
        )
    is_positive = (labels == positive_label).to_numpy(dtype=bool)
    if len(values) == 2 and not is_positive.any():
        raise ValueError(
            f"positive label {shown(positive_label)} does not occur in label column "
            f"{name!r}, whose values are {quoted_values(values)}"
        )
    return is_positive


def finite_scores(scores, name="score"):
    """Return ``scores`` as a float array, rejecting non-numeric, NaN and inf values."""
    values = pd.Series(scores) if not isinstance(scores, pd.Series) else scores
    if not (pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)):
        raise ValueError(f"score column {name!r} must be numeric, got dtype {values.dtype}{_decimal_hint(values)}")
    if pd.api.types.is_complex_dtype(values):  # numeric to pandas; casting would drop the imaginary parts
        raise ValueError(f"score column {name!r} must be real numbers, got dtype {values.dtype}")
    array = values.to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(array)
    if bad.any():
        raise ValueError(
            f"score column {name!r} contains {int(bad.sum())} NaN or infinite "
            f"value(s), e.g. at position {int(np.flatnonzero(bad)[0])}"
        )
    return array


def _decimal_hint(values):
    """A hint for text that is numbers with a decimal comma (``'0,37'``), else ''."""
    text = values.dropna().astype(str)
    commas = text[text.str.contains(",", regex=False)]
    numbers = text.map(lambda item: bool(_DECIMAL_COMMA.fullmatch(item)) and any(map(str.isdigit, item)))
    if len(commas) == 0 or numbers.mean() < 0.9:  # a few typos are still a hint's business
        return ""
    example = commas.iloc[0]
    return (
        f": its values look like numbers written with a decimal comma (e.g. {example!r}); read "
        "them with a decimal point: pandas.read_csv(..., decimal=','), or subroc-ext's --decimal ','"
    )


def check_mode(mode, aliases=None):
    """``mode`` if it is one of 'worse', 'better', 'both', the mode it names
    if it is a key of ``aliases`` (a measure's ``mode_aliases``, e.g.
    ``{'under': 'worse'}``), else ``ValueError``."""
    aliases = aliases or {}
    if mode in aliases:
        return aliases[mode]
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES + tuple(aliases)}, got {mode!r}")
    return mode


def probability_scores(scores, name, measure_name):
    """``scores`` if they are all in [0, 1], else a one-line ``ValueError``
    naming the score column ``name`` and the measure ``measure_name`` that
    reads them as probabilities."""
    scores = np.asarray(scores, dtype=float)
    if len(scores) and (scores.min() < 0 or scores.max() > 1):
        raise ValueError(
            f"score column {name!r} cannot be read as probabilities, which measure "
            f"{measure_name!r} needs: its values run from {scores.min():.3g} to {scores.max():.3g}, "
            "outside [0, 1]; pass predicted probabilities (predict_proba) or calibrate the scores first"
        )
    return scores


def check_weights(size_weight, balance_weight):
    """Raise ``ValueError`` unless both weights are finite and non-negative."""
    for name, value in (("size_weight", size_weight), ("balance_weight", balance_weight)):
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {shown(value)}")
    return float(size_weight), float(balance_weight)


def check_search_settings(depth, result_set_size, nbins):
    """Raise ``ValueError`` unless the search's depth, result set size and
    number of quantile bins are positive integers."""
    for name, value, what in (
        ("depth", depth, ""),
        ("result_set_size", result_set_size, ""),
        ("nbins", nbins, " (quantile bins per numeric column)"),
    ):
        if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1):
            raise ValueError(f"{name} must be a positive integer{what}, got {shown(value)}")


def check_binary_arrays(y_true, y_score, pos_label, names=("y_true", "y_score")):
    """Validate a ``(labels, scores)`` pair and return (positive mask, scores);
    errors call the two arguments ``names``."""
    y_true = pd.Series(np.asarray(y_true))
    if y_true.ndim != 1 or np.ndim(y_score) != 1:
        raise ValueError(f"{names[0]} and {names[1]} must be one-dimensional")
    if len(y_true) != len(y_score):
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{len(y_true)}, {len(y_score)}]"
        )
    return positive_mask(y_true, pos_label, names[0]), finite_scores(
        np.asarray(y_score), names[1]
    )


def min_support_count(min_support, n_rows):
    """A minimum support given as a count or a fraction of ``n_rows``, as a count.

    Parameters
    ----------
    min_support : int or float
        A number of rows (integer >= 0) or a fraction of the rows in (0, 1).
    n_rows : int
        Number of rows the fraction refers to.

    Returns
    -------
    int
        ``min_support`` itself, or ``ceil(min_support * n_rows)``.
    """
    is_number = isinstance(min_support, numbers.Real) and not isinstance(
        min_support, (bool, np.bool_)
    )
    if is_number and isinstance(min_support, numbers.Integral) and min_support >= 0:
        return int(min_support)
    if is_number and 0 < min_support < 1:
        return math.ceil(round(min_support * n_rows, 9))  # 0.1 * 100 is 10, not 11
    raise ValueError(
        "min_support must be a number of rows (an integer >= 0) or a fraction of the "
        f"search rows in (0, 1), got {shown(min_support)}"
    )
