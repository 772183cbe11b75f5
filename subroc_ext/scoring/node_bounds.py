"""A node's bounds for any measure: the row means' own or the ranking measures'.

The search kernels call these two instead of choosing between
:mod:`~subroc_ext.scoring.row_mean_bounds` and
:mod:`~subroc_ext.scoring.joint_bounds` themselves: a measure without
per-row values passes ``row_values=None``, and numba drops the row means'
branch before compiling (it prunes a branch on whether an argument is
None), so a ROC AUC run never compiles the row-mean code.
"""

from numba import njit

from .cover_kernels import ROW_MEAN
from .joint_bounds import count_bounds, roc_auc_joint_of_words
from .row_mean_bounds import row_mean_count_bounds, row_mean_joint_of_words

__all__ = ["children_count_bounds", "joint_of_words"]


@njit(cache=True, nogil=True)
def children_count_bounds(kind, row_values, parent, positive_words, negative_words, group_start, group_end,
                          positives, negatives, reference, offset, downward, upward, size_weight, balance_weight,
                          out):  # fmt: skip
    """The bound of each child of ``parent`` from its class counts, into ``out``:
    :func:`~subroc_ext.scoring.row_mean_bounds.row_mean_count_bounds` for a row
    mean, else :func:`~subroc_ext.scoring.joint_bounds.count_bounds`."""
    if row_values is not None:
        if kind == ROW_MEAN:
            row_mean_count_bounds(parent, positive_words, negative_words, row_values, positives, negatives,
                                  reference, offset, downward, upward, size_weight, balance_weight, out)  # fmt: skip
            return
    count_bounds(kind, parent, positive_words, negative_words, group_start, group_end, positives, negatives,
                 reference, offset, downward, upward, size_weight, balance_weight, out)  # fmt: skip


@njit(cache=True, nogil=True)
def joint_of_words(kind, row_values, parent, positive_words, negative_words, group_start, group_end, reference,
                   generalization, downward, upward, size_weight, balance_weight, min_support, live, estimate,
                   cpos, cneg):  # fmt: skip
    """The bound of every subset of ``parent`` at once:
    :func:`~subroc_ext.scoring.row_mean_bounds.row_mean_joint_of_words` for a
    row mean, else :func:`~subroc_ext.scoring.joint_bounds.roc_auc_joint_of_words`."""
    if row_values is not None:
        if kind == ROW_MEAN:
            return row_mean_joint_of_words(parent, positive_words, negative_words, row_values, reference,
                                           generalization, downward, upward, size_weight, balance_weight,
                                           min_support)  # fmt: skip
    return roc_auc_joint_of_words(parent, positive_words, negative_words, group_start, group_end, reference,
                                  generalization, downward, upward, size_weight, balance_weight, min_support, live,
                                  estimate, cpos, cneg)  # fmt: skip
