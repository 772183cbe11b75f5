"""Redundancy among found subgroups: identical covers and overlapping ones.

A search returns descriptions, and different descriptions often select the
same rows (``education=='HS-grad'`` and ``education_num: [9:10[``) or nearly
the same rows (``relationship=='Husband'`` and
``marital_status=='Married-civ-spouse'``). The functions here work on the
covers of a ranked list of subgroups, best first, as a boolean matrix with
one row per subgroup; overlap is the Jaccard index
``|A & B| / |A | B|`` of two covers.
"""

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "cover_matrix",
    "jaccard_matrix",
    "collapse_identical",
    "select_diverse",
    "overlap_with_better",
    "check_max_overlap",
    "KeptPatterns",
    "keep_patterns",
]


def cover_matrix(subgroups, data):
    """Covers of pysubgroup descriptions on ``data``, by row position.

    Parameters
    ----------
    subgroups : sequence of pysubgroup descriptions
    data : pandas.DataFrame or SortedDataset
        For a :class:`~subroc_ext.inputs.sorted_data.SortedDataset` the columns are its
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
    covers = np.asarray(covers, dtype=bool)
    intersections = np.zeros((len(covers), len(covers)))
    for start in range(0, covers.shape[1], 1 << 16):  # blocks of rows: exact integer sums, little memory
        counts = covers[:, start : start + (1 << 16)].astype(np.float64)
        intersections += counts @ counts.T
    sizes = covers.sum(axis=1).astype(np.float64)
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


def check_max_overlap(max_overlap):
    """Raise ``ValueError`` unless ``max_overlap`` is None or a number in [0, 1]."""
    if max_overlap is not None and not (
        isinstance(max_overlap, numbers.Real) and 0 <= max_overlap <= 1
    ):
        raise ValueError(f"max_overlap must be None or a number in [0, 1], got {max_overlap!r}")


@dataclass
class KeptPatterns:
    """The patterns left by :func:`keep_patterns`, best first, with their overlaps.

    Attributes
    ----------
    subgroups, qualities : list
        The kept descriptions and their qualities.
    alternatives : list of list of str
        For each, the other descriptions of the same rows.
    overlap, partner : numpy.ndarray
        As returned by :func:`overlap_with_better` for the kept covers.
    """

    subgroups: list
    qualities: list
    alternatives: list
    overlap: np.ndarray
    partner: np.ndarray

    def frame(self):
        """The first columns of a result table: ``subgroup``, ``description``,
        ``alternatives`` (``'; '``-joined), ``quality``, ``overlap`` and
        ``overlaps_with`` (the partner's rank, 1 = first row; missing for the
        first row)."""
        return pd.DataFrame(
            {
                "subgroup": self.subgroups,
                "description": [str(sg) for sg in self.subgroups],
                "alternatives": ["; ".join(texts) for texts in self.alternatives],
                "quality": self.qualities,
                "overlap": self.overlap,
                "overlaps_with": pd.array(
                    np.where(self.partner >= 0, self.partner + 1, None), dtype="Int64"
                ),
            }
        )


def keep_patterns(subgroups, qualities, data, *, collapse=True, max_overlap=None):
    """Drop the whole split, collapse identical covers and drop overlapping
    patterns of a ranked list.

    The redundancy filters of :func:`~subroc_ext.find_subgroups`,
    :func:`~subroc_ext.find_multiclass_subgroups`,
    :func:`~subroc_ext.find_regressions` and :func:`~subroc_ext.find_drift`.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
        Best first.
    qualities : list of float
        Their qualities.
    data : pandas.DataFrame
        The rows on which covers are compared (the search split).
    collapse : bool, default=True
        Keep the best of each set of patterns with the same cover, the others
        as its ``alternatives`` (:func:`collapse_identical`).
    max_overlap : float, optional
        Then drop each pattern whose Jaccard index with a better kept one
        exceeds ``max_overlap`` (:func:`select_diverse`).

    Returns
    -------
    KeptPatterns
    """
    covers = cover_matrix(subgroups, data)
    # the whole split is no subgroup (a user's selector may cover every row)
    subgroups, qualities, covers = _take(np.flatnonzero(~covers.all(axis=1)), subgroups, qualities, covers)
    alternatives = [[] for _ in subgroups]
    if collapse:
        kept, same = collapse_identical(covers)
        alternatives = [[str(subgroups[other]) for other in rows] for rows in same]
        subgroups, qualities, covers = _take(kept, subgroups, qualities, covers)
    if max_overlap is not None:
        kept = select_diverse(covers, max_overlap)
        subgroups, qualities, covers, alternatives = _take(
            kept, subgroups, qualities, covers, alternatives
        )
    overlap, partner = overlap_with_better(covers)
    return KeptPatterns(subgroups, qualities, alternatives, overlap, partner)


def _take(rows, *sequences):
    """Keep ``rows`` of each list or array in ``sequences``."""
    return tuple(
        sequence[rows] if isinstance(sequence, np.ndarray) else [sequence[r] for r in rows]
        for sequence in sequences
    )
