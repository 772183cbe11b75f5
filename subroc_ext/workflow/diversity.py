"""Redundancy among found subgroups: identical covers, near copies, and the
exact diverse top-k.

A search returns descriptions, and different descriptions often select the
same rows (``education=='HS-grad'`` and ``education_num: [9:10[``) or nearly
the same rows (``relationship=='Husband'`` and
``marital_status=='Married-civ-spouse'``). The functions here work on the
covers of a ranked list of subgroups, best first; overlap is the Jaccard
index ``|A & B| / |A | B|`` of two covers. Covers are held as bitsets
(:mod:`subroc_ext.scoring.bitset`), so a list of a thousand covers of
millions of rows costs a few hundred megabytes at most, not gigabytes.

:func:`search_distinct` is the diverse top-k of ``../shared/SPEC.md``
("A list of distinct findings"): the greedy rule of diverse subgroup set
discovery (van Leeuwen & Knobbe 2012) made exact by searching the exact
top-K for K = 2k, 4k, ... until the greedy keeps k patterns.

References
----------
.. [1] M. van Leeuwen and A. Knobbe, "Diverse subgroup set discovery",
   Data Mining and Knowledge Discovery 25:208-242, 2012.
"""

import numbers
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..scoring import bitset
from ..utils.descriptions import describe, join_descriptions

__all__ = [
    "cover_matrix",
    "cover_words",
    "jaccard_matrix",
    "collapse_identical",
    "select_diverse",
    "overlap_with_better",
    "check_max_overlap",
    "KeptPatterns",
    "keep_patterns",
    "search_distinct",
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
        covers[row] = _mask(subgroup, data)
    return covers


def cover_words(subgroups, data):
    """The covers of :func:`cover_matrix` as bitsets, one row of words per subgroup.

    Parameters
    ----------
    subgroups : sequence of pysubgroup descriptions
    data : pandas.DataFrame or SortedDataset

    Returns
    -------
    numpy.ndarray of uint64, shape (len(subgroups), ceil(len(data) / 64))
    """
    words = np.zeros((len(subgroups), -(-len(data) // 64)), dtype=np.uint64)
    for row, subgroup in enumerate(subgroups):
        words[row] = data.words_of(subgroup) if hasattr(data, "words_of") else bitset.pack(_mask(subgroup, data))
    return words


def _mask(subgroup, data):
    if hasattr(data, "mask_of"):
        return data.mask_of(subgroup)
    return np.asarray(subgroup.covers(data), dtype=bool)


def _words(covers):
    """Bitsets of a boolean cover matrix (bitsets pass through)."""
    covers = np.asarray(covers)
    return covers if covers.dtype == np.uint64 else bitset.pack(np.atleast_2d(covers))


def _jaccard(intersections, first_sizes, second_sizes):
    """Jaccard indices from intersection sizes (1 for two empty covers)."""
    unions = first_sizes[:, None] + second_sizes[None, :] - intersections
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(unions > 0, intersections / np.maximum(unions, 1), 1.0)


def jaccard_matrix(covers):
    """Jaccard index of every pair of covers (1 for two empty covers).

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (k, n), or of uint64, shape (k, w)
        Boolean covers, or their bitsets (:func:`cover_words`).

    Returns
    -------
    numpy.ndarray of float, shape (k, k)
    """
    words = _words(covers)
    sizes = bitset.sizes(words)
    return _jaccard(bitset.intersection_sizes(words, words), sizes, sizes)


def collapse_identical(covers):
    """Group subgroups with identical covers under their best-ranked member.

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (k, n), or of uint64, shape (k, w)
        Covers (or their bitsets) in rank order, best first.

    Returns
    -------
    kept : list of int
        Row of the first (best) subgroup of each distinct cover, ascending.
    alternatives : list of list of int
        For each kept row, the later rows with the same cover.
    """
    first_of = {}
    kept, alternatives = [], []
    for row, words in enumerate(_words(covers)):
        key = words.tobytes()
        if key in first_of:
            alternatives[first_of[key]].append(row)
        else:
            first_of[key] = len(kept)
            kept.append(row)
            alternatives.append([])
    return kept, alternatives


def select_diverse(covers, max_overlap, k=None):
    """Greedily keep subgroups that overlap no better kept one by more than ``max_overlap``.

    Walk down the ranking and keep a subgroup iff its Jaccard index with
    every subgroup kept so far is at most ``max_overlap``; stop once ``k``
    are kept.

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (m, n), or of uint64, shape (m, w)
        Covers (or their bitsets) in rank order, best first.
    max_overlap : float
        Largest Jaccard index allowed with any better-ranked kept subgroup,
        in [0, 1]: 1 keeps everything, 0 keeps only disjoint covers.
    k : int, optional
        Stop after keeping this many (default: walk the whole list).

    Returns
    -------
    list of int
        The kept rows, ascending (the best row is always kept).
    """
    return _greedy(_words(covers), max_overlap, k)[0]


def _greedy(words, max_overlap, k=None):
    """:func:`select_diverse` on bitsets, and the last row it looked at
    (the ``k``-th kept row, or the last row of the list)."""
    sizes = bitset.sizes(words)
    kept, row = [], -1
    for row in range(len(words)):
        if kept:
            overlaps = _jaccard(bitset.intersection_sizes(words[row : row + 1], words[kept]),
                                sizes[row : row + 1], sizes[kept])  # fmt: skip
            if overlaps.max() > max_overlap:
                continue
        kept.append(row)
        if k is not None and len(kept) == k:
            break
    return kept, row


def overlap_with_better(covers):
    """For each subgroup, its largest overlap with a better-ranked one, and which.

    Parameters
    ----------
    covers : numpy.ndarray of bool, shape (k, n), or of uint64, shape (k, w)
        Covers (or their bitsets) in rank order, best first.

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
    near_copies : list of list of (str, float)
        For each, the dropped patterns it overlaps most (Jaccard index above
        ``max_overlap``), best-ranked first, with that Jaccard index.
    """

    subgroups: list
    qualities: list
    alternatives: list
    overlap: np.ndarray
    partner: np.ndarray
    near_copies: list = field(default=None)

    def __post_init__(self):
        if self.near_copies is None:
            self.near_copies = [[] for _ in self.subgroups]

    def frame(self):
        """The first columns of a result table: ``subgroup``, ``description``,
        ``alternatives`` (``'; '``-joined), ``near_copies`` (``'; '``-joined,
        each with its Jaccard index: ``"age >= 40 (Jaccard 0.93)"``),
        ``quality``, ``overlap`` and ``overlaps_with`` (the partner's rank,
        1 = first row; missing for the first row)."""
        return pd.DataFrame(
            {
                "subgroup": self.subgroups,
                "description": [describe(sg) for sg in self.subgroups],
                "alternatives": [join_descriptions(texts) for texts in self.alternatives],
                "near_copies": [
                    join_descriptions(f"{text} (Jaccard {jaccard:.2f})" for text, jaccard in copies)
                    for copies in self.near_copies
                ],
                "quality": self.qualities,
                "overlap": self.overlap,
                "overlaps_with": pd.array(
                    np.where(self.partner >= 0, self.partner + 1, None), dtype="Int64"
                ),
            }
        )


def keep_patterns(subgroups, qualities, data, *, collapse=True, max_overlap=None, k=None):
    """Drop the whole split, collapse identical covers and keep a diverse set
    of a ranked list.

    The redundancy filters of :func:`~subroc_ext.find_subgroups`,
    :func:`~subroc_ext.find_multiclass_subgroups`,
    :func:`~subroc_ext.find_regressions` and :func:`~subroc_ext.find_drift`.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
        Best first.
    qualities : list of float
        Their qualities.
    data : pandas.DataFrame or SortedDataset
        The rows on which covers are compared (the search split).
    collapse : bool, default=True
        Keep the best of each set of patterns with the same cover, the others
        as its ``alternatives`` (:func:`collapse_identical`).
    max_overlap : float, optional
        Then keep greedily, best first, each pattern whose Jaccard index with
        every kept one is at most ``max_overlap`` (:func:`select_diverse`);
        each dropped pattern is a near copy of the kept one it overlaps most.
    k : int, optional
        Keep at most this many (the greedy stops at the ``k``-th: patterns
        ranked below it are neither kept nor listed as near copies).

    Returns
    -------
    KeptPatterns
    """
    words = cover_words(subgroups, data)
    # the whole split is no subgroup (a user's selector may cover every row)
    subgroups, qualities, words = _take(
        np.flatnonzero(bitset.sizes(words) < len(data)), subgroups, qualities, words
    )
    alternatives = [[] for _ in subgroups]
    if collapse:
        kept, same = collapse_identical(words)
        alternatives = [[describe(subgroups[other]) for other in rows] for rows in same]
        subgroups, qualities, words = _take(kept, subgroups, qualities, words)
    near_copies = [[] for _ in subgroups]
    if max_overlap is not None:
        kept, last = _greedy(words, max_overlap, k)
        near_copies = _near_copies(words, kept, last, subgroups)
        subgroups, qualities, words, alternatives = _take(kept, subgroups, qualities, words, alternatives)
    elif k is not None:
        subgroups, qualities, words, alternatives, near_copies = _take(
            range(min(k, len(subgroups))), subgroups, qualities, words, alternatives, near_copies
        )
    overlap, partner = overlap_with_better(words)
    return KeptPatterns(subgroups, qualities, alternatives, overlap, partner, near_copies)


def _near_copies(words, kept, last, subgroups):
    """For each kept row, the dropped rows up to ``last`` that overlap it most
    (the best-ranked kept one among equals), with their Jaccard index."""
    copies = [[] for _ in kept]
    dropped = sorted(set(range(last + 1)) - set(kept))
    if dropped:
        sizes = bitset.sizes(words)
        jaccard = _jaccard(bitset.intersection_sizes(words[dropped], words[kept]),
                           sizes[dropped], sizes[kept])  # fmt: skip
        for row, overlaps in zip(dropped, jaccard):
            partner = int(np.argmax(overlaps))
            copies[partner].append((describe(subgroups[row]), float(overlaps[partner])))
    return copies


def search_distinct(search_top, k, data, *, collapse=True, max_overlap=None):
    """The exact diverse top-``k``: search the top ``K``, keep a diverse set,
    and double ``K`` until ``k`` patterns are kept or the space is exhausted.

    The greedy rule keeps the same patterns on any ranked list that holds
    the prefix up to its ``k``-th kept pattern, so the result equals the
    greedy rule on the complete ranking. (Pruning a search by the ``k``-th
    kept quality would not be valid: a later, better pattern can evict kept
    ones. Each search prunes by its own top-``K`` threshold.)

    Parameters
    ----------
    search_top : callable
        ``search_top(K)`` returns the :class:`~subroc_ext.workflow.steps.SearchResult`
        of the top ``K`` patterns (best first).
    k : int
        Patterns wanted.
    data : pandas.DataFrame or SortedDataset
        The search split (covers are compared on it).
    collapse : bool, default=True
        As in :func:`keep_patterns`.
    max_overlap : float, optional
        As in :func:`keep_patterns`; None searches the top ``k`` once and
        keeps what :func:`keep_patterns` keeps of it (fewer rows than ``k``
        when identical covers are collapsed).

    Returns
    -------
    found : SearchResult
        The last search, with ``candidates``, ``seconds`` and ``cpu_seconds``
        summed over all searches and ``result_set_sizes`` the ``K`` of each.
    kept : KeptPatterns
    """
    size = k if max_overlap is None else 2 * k
    searches = []
    while True:
        found = search_top(size)
        searches.append(found)
        kept = keep_patterns(found.subgroups, found.qualities, data, collapse=collapse,
                             max_overlap=max_overlap, k=k)  # fmt: skip
        exhausted = len(found.subgroups) < size or not found.finished
        if max_overlap is None or len(kept.subgroups) >= k or exhausted:
            break
        size *= 2
    found = replace(
        found,
        candidates=sum(search.candidates for search in searches),
        seconds=sum(search.seconds for search in searches),
        cpu_seconds=sum(search.cpu_seconds for search in searches),
        result_set_sizes=[size for search in searches for size in search.result_set_sizes],
    )
    return found, kept


def _take(rows, *sequences):
    """Keep ``rows`` of each list or array in ``sequences``."""
    rows = list(rows)
    return tuple(
        sequence[rows] if isinstance(sequence, np.ndarray) else [sequence[r] for r in rows]
        for sequence in sequences
    )
