"""A subgroup's rows as the measures read them: :class:`Cover` (re-exported by
:mod:`subroc_ext.scoring.measures`, where the measures that evaluate it live)."""

import numpy as np

from ..metrics import kernels

__all__ = ["Cover"]


class Cover:
    """The rows of a subgroup, in ascending score order.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool
        Labels of the covered rows, sorted by ascending score.
    all_scores : numpy.ndarray of float
        Scores of the whole presorted dataset (``rows`` index into it).
    group_ids : numpy.ndarray of int
        Their tie-group ids (non-decreasing, equal for equal scores).
    rows : numpy.ndarray of int
        Their positions in the whole presorted dataset, for measures that
        look up per-row values computed once on the whole data.

    Attributes
    ----------
    counts : kernels.TieCounts
        Positives and negatives per distinct score.
    positives, negatives : int
        Class counts.
    """

    __slots__ = ("is_positive", "all_scores", "group_ids", "rows", "counts", "positives", "negatives")

    def __init__(self, is_positive, all_scores, group_ids, rows):
        self.is_positive = is_positive
        self.all_scores = all_scores
        self.group_ids = group_ids
        self.rows = rows
        self.counts = kernels.tie_counts(is_positive, group_ids)
        self.positives = int(self.counts.positives.sum())
        self.negatives = len(rows) - self.positives

    @property
    def scores(self):
        """Scores of the covered rows, ascending."""
        return self.all_scores[self.rows]

    @classmethod
    def from_arrays(cls, is_positive, scores):
        """A cover of all the given rows (any order)."""
        scores = np.asarray(scores, dtype=float)
        order, group_ids = kernels.sort_by_score(scores)
        sorted_scores = scores[order]
        return cls(np.asarray(is_positive, bool)[order], sorted_scores, group_ids, np.arange(len(scores)))

    def subset(self, positions):
        """The cover of the rows at ``positions`` (ascending positions in this cover)."""
        return Cover(self.is_positive[positions], self.all_scores, self.group_ids[positions], self.rows[positions])
