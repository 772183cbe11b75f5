"""Subgroups as named boolean covers of a DataFrame, by row position.

The per-subgroup reports (:func:`subroc_ext.cross_auc`,
:func:`subroc_ext.generalization_diagnostics`) accept subgroups in any form a
user has at hand and turn them into masks here, once.
"""

import warnings
from collections import Counter
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..utils.callers import user_stacklevel
from ..utils.descriptions import describe

__all__ = ["cover_of", "named_covers", "subgroup_covers", "subgroup_membership"]


def cover_of(subgroup, data, name=None):
    """The boolean cover (by row position; the index is never used) of one
    subgroup: a pysubgroup description, or a boolean mask taken as it is.

    Parameters
    ----------
    subgroup : pysubgroup description or array of bool
    data : pandas.DataFrame
    name : str, optional
        How an error names the subgroup; default its description (a mask: "mask").

    Returns
    -------
    numpy.ndarray of bool
        One flag per row of ``data``.

    Raises
    ------
    ValueError
        If the cover does not have one flag per row of ``data``.
    """
    if name is None:
        name = describe(subgroup) if hasattr(subgroup, "covers") else "mask"
    if hasattr(subgroup, "covers"):
        mask = np.asarray(subgroup.covers(data), dtype=bool)
    else:
        mask = np.asarray(subgroup)
        if mask.dtype != bool:
            raise TypeError(
                f"subgroup {name!r} must be a pysubgroup description or a boolean "
                f"mask, got an array of dtype {mask.dtype}"
            )
    if mask.shape != (len(data),):
        raise ValueError(
            f"subgroup {name!r} covers {mask.shape} rows, but data has {len(data)} rows"
        )
    return mask


def subgroup_covers(subgroups, data):
    """Names and boolean covers (by position) of subgroups on ``data``.

    Parameters
    ----------
    subgroups : pandas.DataFrame, pysubgroup result, mapping or sequence
        A table of :func:`~subroc_ext.find_subgroups` (its ``subgroup``
        column, named by its ``description`` column), a
        ``pysubgroup.SubgroupDiscoveryResult`` (its descriptions, best
        first), a mapping ``{name: description or mask}``, or a sequence of
        descriptions (named by :func:`~subroc_ext.utils.descriptions.describe`)
        or boolean masks (named ``subgroup <i>``). A description is anything
        with ``covers(data)``; a mask has one entry per row of ``data``.
        Names given twice are numbered (``name (2)``), with a warning.
    data : pandas.DataFrame

    Returns
    -------
    names : list of str
    masks : numpy.ndarray of bool, shape (n_subgroups, len(data))
    """
    names, covers = named_covers(subgroups, data)
    masks = np.zeros((len(names), len(data)), dtype=bool)
    for row, mask in enumerate(covers):
        masks[row] = mask
    return names, masks


def named_covers(subgroups, data):
    """:func:`subgroup_covers` one cover at a time: the names (checked
    first) and an iterator of the masks, for work that needs one at once.

    Examples
    --------
    >>> data = pd.DataFrame({"g": ["a", "b", "a"]})
    >>> names, covers = named_covers({"g = a": data["g"].eq("a").to_numpy()}, data)
    >>> names, [mask.tolist() for mask in covers]
    (['g = a'], [[True, False, True]])
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    items = _named(subgroups)
    names = _distinct([name for name, _ in items])
    return names, (cover_of(subgroup, data, name) for name, (_, subgroup) in zip(names, items))


def _named(subgroups):
    """``(name, subgroup)`` pairs of any input :func:`subgroup_covers` takes."""
    if isinstance(subgroups, pd.DataFrame):
        if not {"subgroup", "description"} <= set(subgroups.columns):
            raise ValueError(
                "the table needs its 'subgroup' and 'description' columns (a table read back "
                "from CSV has lost the 'subgroup' objects); pass the table find_subgroups returned"
            )
        return [(str(name), sg) for name, sg in zip(subgroups["description"], subgroups["subgroup"])]
    if isinstance(subgroups, ps.SubgroupDiscoveryResult):
        subgroups = [description for _, description, *_ in subgroups.results]
    if isinstance(subgroups, Mapping):
        return [(str(name), subgroup) for name, subgroup in subgroups.items()]
    return [(describe(sg) if hasattr(sg, "covers") else f"subgroup {i}", sg) for i, sg in enumerate(subgroups)]


def _distinct(names):
    """``names`` with each repeat numbered (``name (2)``), and one warning saying so.

    Descriptions of different subgroups differ
    (:mod:`subroc_ext.utils.descriptions`); a repeat comes from a user's own
    names, or a selector whose label says less than its cover. Its rows are
    kept, under a name of their own.
    """
    taken, seen, distinct = set(names), Counter(), []
    for name in names:
        seen[name] += 1
        renamed, number = name, seen[name]
        while seen[name] > 1 and renamed in taken:
            renamed, number = f"{name} ({number})", number + 1
        taken.add(renamed)
        distinct.append(renamed)
    renamed = [(old, new) for old, new in zip(names, distinct) if old != new]
    if renamed:
        warnings.warn(
            f"{len(renamed)} subgroup name(s) repeat an earlier one; shown numbered: "
            + ", ".join(f"{old!r} as {new!r}" for old, new in renamed[:3]) + (", ..." if len(renamed) > 3 else ""),
            stacklevel=user_stacklevel(),
        )
    return distinct


def subgroup_membership(subgroups, data):
    """Which rows of ``data`` each subgroup holds: a row id x subgroup table.

    Parameters
    ----------
    subgroups : pandas.DataFrame, pysubgroup result, mapping or sequence
        A table of :func:`~subroc_ext.find_subgroups` (its ``subgroup`` column,
        named by its ``description`` column; the table's order), or anything
        else :func:`subgroup_covers` takes.
    data : pandas.DataFrame
        The rows, e.g. the validation split or the whole data set.

    Returns
    -------
    pandas.DataFrame of bool
        Indexed like ``data`` (the row ids), one column per subgroup named by
        its description: ``True`` where the row is in the subgroup.

    Examples
    --------
    >>> rows = subgroup_membership(table, data)                 # doctest: +SKIP
    >>> data[rows.iloc[:, 0]]  # the rows of the best subgroup  # doctest: +SKIP
    """
    names, masks = subgroup_covers(subgroups, data)
    return pd.DataFrame(masks.T, index=data.index, columns=pd.Index(names, name="subgroup"))
