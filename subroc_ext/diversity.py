"""Redundancy among found subgroups: identical covers and overlapping ones.

A search returns descriptions, and different descriptions often select the
same rows (``education=='HS-grad'`` and ``education_num: [9:10[``) or nearly
the same rows (``relationship=='Husband'`` and
``marital_status=='Married-civ-spouse'``). The functions here work on the
covers of a ranked list of subgroups, best first, as a boolean matrix with
one row per subgroup; overlap is the Jaccard index
``|A & B| / |A | B|`` of two covers.
"""

import numpy as np

__all__ = [
    "cover_matrix",
    "jaccard_matrix",
    "collapse_identical",
    "select_diverse",
    "overlap_with_better",
]


def cover_matrix(subgroups, data):
    """Covers of pysubgroup descriptions on ``data``, by row position.

    Parameters
    ----------
    subgroups : sequence of pysubgroup descriptions
    data : pandas.DataFrame or SortedDataset
        For a :class:`~subroc_ext.dataset.SortedDataset` the columns are its
        rows in score order (covers from its cached selector masks).

    Returns
    -------
    numpy.ndarray of bool, shape (len(subgroups), len(data))
    """
    covers = np.zeros((len(subgroups), len(data)), dtype=bool)
    for row, subgroup in enumerate(subgroups):
        if hasattr(data, "mask_of"):
            covers[row] = data.mask_of(subgroup)
        else:
            covers[row] = np.asarray(subgroup.covers(data), dtype=bool)
    return covers


def jaccard_matrix(covers):
    """Jaccard index of every pair of covers (1 for two empty covers).

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (k, n)

    Returns
    -------
    numpy.ndarray of float, shape (k, k)
    """
    counts = covers.astype(np.float64)
    intersections = counts @ counts.T
    sizes = counts.sum(axis=1)
    unions = sizes[:, None] + sizes[None, :] - intersections
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(unions > 0, intersections / unions, 1.0)


def collapse_identical(covers):
    """Group subgroups with identical covers under their best-ranked member.

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (k, n)
        Covers in rank order, best first.

    Returns
    -------
    kept : list of int
        Row of the first (best) subgroup of each distinct cover, ascending.
    alternatives : list of list of int
        For each kept row, the later rows with the same cover.
    """
    first_of = {}
    kept, alternatives = [], []
    for row, cover in enumerate(covers):
        key = np.packbits(cover).tobytes()
        if key in first_of:
            alternatives[first_of[key]].append(row)
        else:
            first_of[key] = len(kept)
            kept.append(row)
            alternatives.append([])
    return kept, alternatives


def select_diverse(covers, max_overlap):
    """Greedily keep subgroups that overlap no better kept one by more than ``max_overlap``.

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (k, n)
        Covers in rank order, best first.
    max_overlap : float
        Largest Jaccard index allowed with any better-ranked kept subgroup,
        in [0, 1]: 1 keeps everything, 0 keeps only disjoint covers.

    Returns
    -------
    list of int
        The kept rows, ascending (the best row is always kept).
    """
    jaccard = jaccard_matrix(covers)
    kept = []
    for row in range(len(covers)):
        if all(jaccard[row, other] <= max_overlap for other in kept):
            kept.append(row)
    return kept


def overlap_with_better(covers):
    """For each subgroup, its largest overlap with a better-ranked one, and which.

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (k, n)
        Covers in rank order, best first.

    Returns
    -------
    overlap : numpy.ndarray of float, shape (k,)
        Largest Jaccard index with any earlier row (NaN for the first row).
    partner : numpy.ndarray of int, shape (k,)
        The earlier row reaching it (the best-ranked one among equals; -1 for
        the first row).
    """
    k = len(covers)
    overlap, partner = np.full(k, np.nan), np.full(k, -1)
    jaccard = jaccard_matrix(covers)
    for row in range(1, k):
        partner[row] = int(np.argmax(jaccard[row, :row]))
        overlap[row] = jaccard[row, partner[row]]
    return overlap, partner
