"""Subgroups as named boolean covers of a DataFrame, by row position.

The per-subgroup reports (:func:`subroc_ext.cross_auc`,
:func:`subroc_ext.generalization_diagnostics`) accept subgroups in any form a
user has at hand and turn them into masks here, once.
"""

from collections.abc import Mapping

import numpy as np
import pandas as pd
import pysubgroup as ps

__all__ = ["named_covers", "subgroup_covers", "subgroup_membership"]


def _cover(subgroup, data, name):
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
    subgroups : pysubgroup result, mapping or sequence
        A ``pysubgroup.SubgroupDiscoveryResult`` (its descriptions, best
        first), a mapping ``{name: description or mask}``, or a sequence of
        descriptions (named by ``str``) or boolean masks (named
        ``subgroup <i>``). A description is anything with ``covers(data)``;
        a mask has one entry per row of ``data``.
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
    if isinstance(subgroups, ps.SubgroupDiscoveryResult):
        subgroups = [description for _, description, *_ in subgroups.results]
    if isinstance(subgroups, Mapping):
        items = [(str(name), subgroup) for name, subgroup in subgroups.items()]
    else:
        items = [
            (str(sg) if hasattr(sg, "covers") else f"subgroup {i}", sg)
            for i, sg in enumerate(subgroups)
        ]
    names = [name for name, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"subgroup names must be distinct, got {names!r}")
    return names, (_cover(subgroup, data, name) for name, subgroup in items)


def subgroup_membership(subgroups, data):
    """Which rows of ``data`` each subgroup holds: a row id x subgroup table.

    Parameters
    ----------
    subgroups : pandas.DataFrame, pysubgroup result, mapping or sequence
        A table of :func:`~subroc_ext.find_subgroups` (its ``subgroup`` column,
        named by its ``description`` column; the table's order), or anything
        :func:`subgroup_covers` takes.
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
    if isinstance(subgroups, pd.DataFrame):
        if not {"subgroup", "description"} <= set(subgroups.columns):
            raise ValueError(
                "the table needs its 'subgroup' and 'description' columns (a table read back "
                "from CSV has lost the 'subgroup' objects); pass the table find_subgroups returned"
            )
        subgroups = dict(zip(subgroups["description"], subgroups["subgroup"]))
    names, masks = subgroup_covers(subgroups, data)
    return pd.DataFrame(masks.T, index=data.index, columns=pd.Index(names, name="subgroup"))
