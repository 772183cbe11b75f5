"""The input of one audit, checked once: :class:`ValidatedData`.

:func:`validate_data` is the boundary of :func:`~subroc_ext.find_subgroups`
(and of the command line): it converts a polars or pyarrow table to pandas,
checks the label, score and attribute columns, splits off the validation
rows, sorts each split by score once (:class:`~subroc_ext.inputs.sorted_data.SortedDataset`)
and builds the search space (:func:`~subroc_ext.make_search_space`). The
steps (:func:`subroc_ext.workflow.steps.search`, ``describe``, ``test``) take the
sorted splits as they are, so nothing is checked or sorted twice.
"""

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..utils.validation import check_column_names, check_columns, check_distinct_columns, min_support_count, shown
from .labels import infer_positive_label
from .search_space import SearchSpace, make_search_space
from .selectors import ISO_DATE
from .sorted_data import SortedDataset
from .target import SoftClassifierTarget

__all__ = ["ValidatedData", "as_frame", "compact_text", "split_validation", "validate_data"]


def as_frame(data, name="data"):
    """``data`` as a pandas DataFrame: a DataFrame as is, a polars DataFrame or
    a pyarrow Table converted (neither library is needed otherwise).

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or pyarrow.Table
    name : str, default='data'
        The argument's name, for the error message.

    Returns
    -------
    pandas.DataFrame
    """
    if isinstance(data, pd.DataFrame):
        return data
    module = type(data).__module__.split(".")[0]
    if module in ("polars", "pyarrow") and hasattr(data, "to_pandas"):
        return data.to_pandas()
    raise TypeError(
        f"{name} must be a pandas DataFrame (or a polars DataFrame or pyarrow Table), "
        f"got {type(data).__name__}"
    )


def split_validation(data, validation, random_state=None):
    """Split ``data`` into search and validation parts.

    Parameters
    ----------
    data : pandas.DataFrame
    validation : pandas.DataFrame, float or None
        A held-out frame (then ``data`` is returned whole as the search
        part), the fraction of ``data`` to hold out at random, or None (no
        holdout: ``data`` whole and None).
    random_state : int or numpy.random.Generator, optional

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame or None)
        The search and validation parts, rows in their original order. Split
        off at random, their text columns of repeated values are categoricals
        (:func:`compact_text`): the same values in a fraction of the memory.
    """
    if validation is None or isinstance(validation, pd.DataFrame):
        return data, validation
    if not (
        isinstance(validation, numbers.Real)
        and not isinstance(validation, bool)
        and 0 < validation < 1
    ):
        raise ValueError(
            f"validation must be a DataFrame or a fraction in (0, 1), got {validation!r}"
        )
    shuffled = np.random.default_rng(random_state).permutation(len(data))
    cut = int(round(len(data) * (1 - validation)))
    data = compact_text(data)
    return data.iloc[np.sort(shuffled[:cut])], data.iloc[np.sort(shuffled[cut:])]


def compact_text(data):
    """``data`` with its text columns of repeated values as categoricals.

    A text column (pandas' string dtype, or objects that are all strings)
    whose distinct values number at most half its rows is stored as a
    categorical of the same values: a small integer code per row instead of
    a string (2,000,000 rows of a 12-valued column: 2 MB instead of 20 MB).
    The search treats both alike (one condition per value observed), so
    the subgroups found do not change. Text columns of mostly distinct
    values (IDs, free text) and of ISO 8601 dates (searched as datetimes)
    are left as they are.

    Parameters
    ----------
    data : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        ``data`` itself when no column changes, else a new frame sharing
        the other columns' memory with ``data`` (copy on write).
    """
    compact = {}
    for position, (name, column) in enumerate(data.items()):
        if not (pd.api.types.is_string_dtype(column.dtype) or column.dtype == object):
            continue
        try:
            codes, uniques = pd.factorize(column, use_na_sentinel=True)
        except TypeError:  # unhashable values (lists, arrays, dicts): no text; the search space leaves them out
            continue
        if not 0 < len(uniques) <= len(column) // 2 or not all(isinstance(u, str) for u in uniques):
            continue
        if all(ISO_DATE.match(u) for u in uniques):
            continue
        compact[position] = pd.Categorical.from_codes(codes, categories=pd.Index(uniques, dtype=column.dtype))
    if not compact:
        return data
    data = data.copy(deep=False)
    for position, values in compact.items():
        data.isetitem(position, values)
    return data


def _sorted_split(frame, label, score, positive_label, split):
    """A split checked (both classes present) and sorted by score."""
    if len(frame) == 0:
        raise ValueError(f"the {split} split is empty")
    check_columns(frame, [label, score], what=f"the {split} split")
    dataset = SortedDataset(frame, label, score, positive_label)
    for present, kind in ((dataset.is_positive.any(), "positives"), ((~dataset.is_positive).any(), "negatives")):
        if not present:
            raise ValueError(
                f"the {split} split has no {kind} in label column {label!r} (positive label "
                f"{shown(positive_label)}); the measures need both classes"
            )
    return dataset


@dataclass(frozen=True)
class ValidatedData:
    """A binary audit's input, checked once.

    Attributes
    ----------
    search, validation : SortedDataset
        The two splits, each sorted by score once; ``.data`` is the frame.
        ``validation`` is None without a holdout (``search`` is all rows).
    label, score : str
    positive_label : object
    space : SearchSpace
        The conditions searched (built on the search split, or given).
    """

    search: SortedDataset
    validation: SortedDataset
    label: str
    score: str
    positive_label: object
    space: SearchSpace

    @property
    def target(self):
        """The pysubgroup target of the label and score columns."""
        return SoftClassifierTarget(self.label, self.score)

    def split(self, validation, random_state):
        """The rows of a table checked without a holdout, split into search and
        validation parts, each checked (both classes) and sorted; the search
        space stays (conditions from all rows' attributes, never their labels).

        Parameters
        ----------
        validation : float
            The fraction of rows held out, in (0, 1).
        random_state : int or numpy.random.Generator

        Returns
        -------
        ValidatedData
        """
        search, held_out = split_validation(self.search.data, validation, random_state)
        return ValidatedData(
            _sorted_split(search, self.label, self.score, self.positive_label, "search"),
            _sorted_split(held_out, self.label, self.score, self.positive_label, "validation"),
            self.label, self.score, self.positive_label, self.space,
        )  # fmt: skip


def _check_same_kinds(search, held_out, columns):
    """Refuse a column holding numbers in one split and other values in the other
    (a selector of one kind cannot be read on the other: a crash or no rows);
    a column missing in every row of either split is no evidence either way,
    nor are booleans (True/False with gaps read from text are objects)."""
    for column in columns:
        kinds = [pd.api.types.is_numeric_dtype(part[column]) and not pd.api.types.is_bool_dtype(part[column])
                 for part in (search, held_out)]  # fmt: skip
        if kinds[0] != kinds[1] and search[column].notna().any() and held_out[column].notna().any():
            numbers, other = ("search", "validation") if kinds[0] else ("validation", "search")
            frames = {"search": search, "validation": held_out}
            raise ValueError(
                f"column {column!r} holds numbers ({frames[numbers][column].dtype}) in the {numbers} data but not "
                f"in the {other} data ({frames[other][column].dtype}); give both the same kind of values"
            )


def validate_data(
    data, *, label, score, positive_label=None, validation=0.5, random_state=0, ignore=(),
    nbins=5, thresholds=True, keep_ids=False, min_support=None, selectors=None,
):  # fmt: skip
    """Check a table once and prepare it for the steps of an audit.

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        Attributes, label and score (the search split when ``validation``
        is a table).
    label, score : str
    positive_label : object, optional
        Inferred for labels {0, 1}, {-1, 1} and booleans
        (:func:`~subroc_ext.inputs.labels.infer_positive_label`).
    validation : table, float or None, default=0.5
        The validation split, the fraction of ``data`` to hold out, or None
        (no holdout).
    random_state : int or numpy.random.Generator, default=0
        Seeds the split.
    ignore : sequence of str, default=()
        Columns without conditions.
    nbins, thresholds, keep_ids
        The search space (:func:`~subroc_ext.make_search_space`), built on
        the attributes of every row, search and validation alike: which
        rows search does not change the conditions (SPEC, "One answer,
        whatever the seed": the hypotheses are fixed before any split).
    min_support : int or float, optional
        The search's minimum support (rows, or a fraction of the search
        split's): values of nominal columns in fewer rows (of all) get no
        condition.
    selectors : sequence of pysubgroup selectors, optional
        A search space of your own instead.

    Returns
    -------
    ValidatedData

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"g": list("abab") * 5, "y": [0, 0, 1, 1] * 5,
    ...                       "s": [0.1, 0.2, 0.3, 0.4] * 5})
    >>> checked = validate_data(frame, label="y", score="s", validation=0.5)
    >>> len(checked.search), len(checked.validation), [str(c) for c in checked.space]
    (10, 10, ["g=='a'", "g=='b'"])
    """
    data = as_frame(data)
    if hasattr(validation, "to_pandas") and not isinstance(validation, pd.DataFrame):
        validation = as_frame(validation, "validation")
    ignore = (ignore,) if isinstance(ignore, str) else tuple(ignore)  # one name, not its letters
    check_distinct_columns(label=label, score=score)
    check_column_names(data, ignore=ignore)
    if isinstance(validation, pd.DataFrame):
        check_column_names(validation, "validation", ignore=ignore)
    check_columns(data, [label, score, *ignore])
    if len(data) == 0:
        raise ValueError("data is empty")
    if positive_label is None:
        positive_label = infer_positive_label(data[label], label)
    search, held_out = split_validation(data, validation, random_state)
    search_data = _sorted_split(search, label, score, positive_label, "search")
    validation_data = None
    if held_out is not None:
        validation_data = _sorted_split(held_out, label, score, positive_label, "validation")
    missing = [] if held_out is None else [
        c for c in search.columns if c not in held_out.columns and c not in ignore
    ]  # fmt: skip
    if missing:
        raise KeyError(f"validation data lacks column(s) {missing!r} of the search data")
    if held_out is not None:
        _check_same_kinds(search, held_out, [c for c in search.columns if c not in (label, score, *ignore)])
    if selectors is None:
        if min_support is not None:
            min_support = min_support_count(min_support, len(search))
        space = make_search_space(  # of every row: the same conditions whichever rows search
            search, ignore=[label, score, *ignore], nbins=nbins, thresholds=thresholds,
            keep_ids=keep_ids, min_support=min_support, held_out=held_out,
        )  # fmt: skip
    else:
        space = selectors if isinstance(selectors, SearchSpace) else SearchSpace(tuple(selectors))
    return ValidatedData(search_data, validation_data, label, score, positive_label, space)
