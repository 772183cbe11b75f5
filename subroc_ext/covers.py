"""Subgroups as named boolean covers of a DataFrame, by row position.

The per-subgroup reports (:func:`subroc_ext.cross_auc`,
:func:`subroc_ext.generalization_diagnostics`) accept subgroups in any form a
user has at hand and turn them into masks here, once.
"""

from collections.abc import Mapping

import numpy as np
import pandas as pd
import pysubgroup as ps

__all__ = ["subgroup_covers"]


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
    masks = np.zeros((len(items), len(data)), dtype=bool)
    for row, (name, subgroup) in enumerate(items):
        masks[row] = _cover(subgroup, data, name)
    return names, masks
