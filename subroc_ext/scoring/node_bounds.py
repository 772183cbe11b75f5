"""A node's bounds for any measure: the row means' own or the ranking measures'.

The search kernels call these instead of choosing between
:mod:`~subroc_ext.scoring.row_mean_bounds` and
:mod:`~subroc_ext.scoring.joint_bounds` themselves: a measure without
per-row values passes ``value_rank=None``, and numba drops the row means'
branch before compiling (it prunes a branch on whether an argument is
None), so a ROC AUC run never compiles the row-mean code. A row mean's
node is profiled once (:func:`node_profile`), and both its bounds read
that profile.
"""

import numpy as np
from numba import njit

from .cover_kernels import ROW_MEAN
from .joint_bounds import count_bounds, roc_auc_joint_of_words
from .row_mean_bounds import class_profile, row_mean_count_bounds, row_mean_joint_bound, row_mean_word_bounds

__all__ = ["node_profile", "children_count_bounds", "children_word_bounds", "joint_of_words"]


@njit(cache=True, nogil=True)
def node_profile(kind, value_rank, ascending_values, parent, positive_words, negative_words, wanted):
    """A row mean's :func:`~subroc_ext.scoring.row_mean_bounds.class_profile`
    of ``parent`` when ``wanted``; else (and for the other measures, whose
    ``value_rank`` is None) an empty one, which no bound reads."""
    if value_rank is not None:
        if kind == ROW_MEAN and wanted:
            return class_profile(parent, positive_words, negative_words, value_rank, ascending_values)
    return np.zeros(1), np.zeros(1), 0.0


@njit(cache=True, nogil=True)
def children_count_bounds(kind, value_rank, profile, parent, positive_words, negative_words, group_start, group_end,
                          positives, negatives, reference, offset, downward, upward, size_weight, balance_weight,
                          out):  # fmt: skip
    """The bound of each child of ``parent`` from its class counts, into ``out``:
    :func:`~subroc_ext.scoring.row_mean_bounds.row_mean_count_bounds` for a row
    mean (from the parent's ``profile``, :func:`node_profile`), else
    :func:`~subroc_ext.scoring.joint_bounds.count_bounds`."""
    if value_rank is not None:
        if kind == ROW_MEAN:
            row_mean_count_bounds(*profile, positives, negatives, reference, offset, downward, upward, size_weight,
                                  balance_weight, out)  # fmt: skip
            return
    count_bounds(kind, parent, positive_words, negative_words, group_start, group_end, positives, negatives,
                 reference, offset, downward, upward, size_weight, balance_weight, out)  # fmt: skip


@njit(cache=True, nogil=True)
def children_word_bounds(kind, word_bounds, parent, selector_words, candidates, positive_words, negative_words,
                         positives, negatives, reference, offset, downward, upward, size_weight, balance_weight,
                         out):  # fmt: skip
    """A row mean's bound of each child from its class counts per word
    (:func:`~subroc_ext.scoring.row_mean_bounds.row_mean_word_bounds`, with
    ``word_bounds`` its ``extremes, largest``) into ``out``: True; False
    (``out`` untouched) for the other measures, whose ``word_bounds`` is None."""
    if word_bounds is not None:
        if kind == ROW_MEAN:
            row_mean_word_bounds(parent, selector_words, candidates, positive_words, negative_words, *word_bounds,
                                 positives, negatives, reference, offset, downward, upward, size_weight,
                                 balance_weight, out)  # fmt: skip
            return True
    return False


@njit(cache=True, nogil=True)
def joint_of_words(kind, value_rank, profile, parent, positive_words, negative_words, group_start, group_end,
                   reference, generalization, downward, upward, size_weight, balance_weight, min_support, live,
                   estimate, cpos, cneg):  # fmt: skip
    """The bound of every subset of ``parent`` at once:
    :func:`~subroc_ext.scoring.row_mean_bounds.row_mean_joint_bound` for a
    row mean (from the parent's ``profile``, :func:`node_profile`), else
    :func:`~subroc_ext.scoring.joint_bounds.roc_auc_joint_of_words`."""
    if value_rank is not None:
        if kind == ROW_MEAN:
            return row_mean_joint_bound(*profile, reference, generalization, downward, upward, size_weight,
                                        balance_weight, min_support)  # fmt: skip
    return roc_auc_joint_of_words(parent, positive_words, negative_words, group_start, group_end, reference,
                                  generalization, downward, upward, size_weight, balance_weight, min_support, live,
                                  estimate, cpos, cneg)  # fmt: skip
