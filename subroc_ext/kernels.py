"""Measure kernels: ROC AUC, PR AUC, average ranking loss and AUC attributions.

Naming follows scikit-learn: ``*_score`` is higher-is-better, ``*_loss`` is
lower-is-better.

Every measure is a function of the per-tie-group class counts of the rows
sorted by score: for each distinct score (ascending), how many positives and
negatives carry it. The ``*_from_counts`` kernels work on those
counts (:class:`TieCounts`) and are what the quality functions call on data
presorted once per search; the functions on ``(y_true, y_score)`` take plain
``(y_true, y_score)`` arrays, validate them, and delegate. Ties are handled
exactly: a tied positive-negative pair counts one half, and the precision-recall
curve has one point per distinct score, as in scikit-learn.
"""

import warnings
from typing import NamedTuple

import numpy as np

from ._validation import check_binary_arrays
from .exceptions import UndefinedMeasureWarning

__all__ = [
    "TieCounts",
    "tie_counts",
    "sort_by_score",
    "roc_auc_from_counts",
    "pr_auc_from_counts",
    "arl_from_counts",
    "attributions_from_sorted",
    "roc_auc_score",
    "pr_auc_score",
    "average_ranking_loss",
    "example_attributions",
    "attribution_mean_score",
]


class TieCounts(NamedTuple):
    """Class counts per distinct score, in ascending score order.

    Attributes
    ----------
    positives, negatives : numpy.ndarray of int64
        ``positives[g]`` and ``negatives[g]`` count the rows of the g-th
        smallest distinct score. Every group holds at least one row.
    """

    positives: np.ndarray
    negatives: np.ndarray


def tie_counts(is_positive, group_ids):
    """Count positives and negatives per tie group of rows sorted by score.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool
        Labels of rows sorted by ascending score.
    group_ids : numpy.ndarray of int
        Non-decreasing tie-group id of each of those rows (equal ids for equal
        scores).

    Returns
    -------
    TieCounts
    """
    size = len(group_ids)
    if size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return TieCounts(empty, empty)
    changes = (group_ids[1:] != group_ids[:-1]).nonzero()[0]
    starts = np.empty(len(changes) + 1, dtype=np.intp)
    starts[0] = 0
    np.add(changes, 1, out=starts[1:])
    positives = np.add.reduceat(is_positive, starts, dtype=np.int64)
    sizes = np.empty_like(positives)
    np.subtract(starts[1:], starts[:-1], out=sizes[:-1])
    sizes[-1] = size - starts[-1]
    return TieCounts(positives, sizes - positives)


def sort_by_score(scores):
    """Stable ascending order of ``scores`` and the tie-group id of each sorted row."""
    order = np.argsort(scores, kind="stable")
    sorted_scores = scores[order]
    group_ids = np.concatenate(([0], np.cumsum(sorted_scores[1:] != sorted_scores[:-1])))
    # [: len(scores)]: no rows, no ids (else tie_counts fails on empty input)
    return order, group_ids[: len(scores)]


def _counts_of(y_true, y_score, pos_label):
    is_positive, scores = check_binary_arrays(y_true, y_score, pos_label)
    order, group_ids = sort_by_score(scores)
    return tie_counts(is_positive[order], group_ids)


# --------------------------------------------------------------------------
# kernels on tie counts
# --------------------------------------------------------------------------


def roc_auc_from_counts(counts):
    """ROC AUC: P(positive scored above negative), ties counting one half."""
    negatives_up_to = np.cumsum(counts.negatives)
    # negatives strictly below a group + half the tied ones = cumsum - neg/2
    wins = counts.positives @ negatives_up_to - 0.5 * (counts.positives @ counts.negatives)
    return float(wins / (counts.positives.sum() * negatives_up_to[-1]))


def arl_from_counts(counts):
    """Average ranking loss: mean over positives of the negatives ranked above."""
    negatives_up_to = np.cumsum(counts.negatives)
    # negatives strictly above a group + half the tied ones = N - cumsum + neg/2
    penalty = counts.positives @ (negatives_up_to[-1] - negatives_up_to) + 0.5 * (
        counts.positives @ counts.negatives
    )
    return float(penalty / counts.positives.sum())


def pr_auc_from_counts(counts):
    """Trapezoidal area under the precision-recall curve, as scikit-learn's
    ``auc(recall, precision)`` of ``precision_recall_curve``: one point per
    distinct score, starting from (recall 0, precision 1)."""
    true_pos = np.cumsum(counts.positives[::-1])
    false_pos = np.cumsum(counts.negatives[::-1])
    precision = np.concatenate(([1.0], true_pos / (true_pos + false_pos)))
    recall = np.concatenate(([0.0], true_pos / true_pos[-1]))
    # Summed in curve order (cumsum adds sequentially, unlike np.sum): the
    # search engine's bitset kernel adds the same terms in the same order.
    return float(np.cumsum(np.diff(recall) * (precision[1:] + precision[:-1]))[-1] / 2)


def attributions_from_sorted(is_positive, group_ids):
    """Normalized example attributions of rows sorted by score (see
    :func:`example_attributions`)."""
    counts = tie_counts(is_positive, group_ids)
    n_pos = counts.positives.sum()
    n_neg = counts.negatives.sum()
    positives_above = n_pos - np.cumsum(counts.positives)
    with np.errstate(invalid="ignore", divide="ignore"):
        negatives_below = np.cumsum(counts.negatives) - counts.negatives
        of_positive = 0.5 * (negatives_below + 0.5 * counts.negatives) / n_neg
        of_negative = 0.5 * (positives_above + 0.5 * counts.positives) / n_pos
    return np.where(is_positive, of_positive[group_ids], of_negative[group_ids])


# --------------------------------------------------------------------------
# public kernels on (y_true, y_score)
# --------------------------------------------------------------------------


def _undefined(measure, reason):
    warnings.warn(
        f"{measure} is undefined: {reason}; returning NaN", UndefinedMeasureWarning, stacklevel=3
    )
    return float("nan")


def roc_auc_score(y_true, y_score, *, pos_label=1):
    """Area under the ROC curve, with tied pairs counting one half.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in any encoding.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    pos_label : object, default=1
        The label of the positive class.

    Returns
    -------
    float
        The AUC, or NaN (with a warning) if only one class is present.

    Examples
    --------
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    counts = _counts_of(y_true, y_score, pos_label)
    if counts.positives.sum() == 0 or counts.negatives.sum() == 0:
        return _undefined("ROC AUC", "y_true holds only one class")
    return roc_auc_from_counts(counts)


def pr_auc_score(y_true, y_score, *, pos_label=1):
    """Area under the linearly interpolated precision-recall curve.

    Equals ``sklearn.metrics.auc(recall, precision)`` for
    ``precision, recall, _ = sklearn.metrics.precision_recall_curve(y_true, y_score)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in any encoding.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    pos_label : object, default=1
        The label of the positive class.

    Returns
    -------
    float
        The PR AUC, or NaN (with a warning) if there is no positive.

    Examples
    --------
    >>> round(pr_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.7917
    """
    counts = _counts_of(y_true, y_score, pos_label)
    if counts.positives.sum() == 0:
        return _undefined("PR AUC", "y_true holds no positive")
    return pr_auc_from_counts(counts)


def average_ranking_loss(y_true, y_score, *, pos_label=1):
    """SCaPE average ranking loss: the mean, over positives, of the number of
    negatives scored above them (tied negatives counting one half).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in any encoding.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    pos_label : object, default=1
        The label of the positive class.

    Returns
    -------
    float
        The loss, or NaN (with a warning) if there is no positive.

    Examples
    --------
    >>> average_ranking_loss([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.5
    """
    counts = _counts_of(y_true, y_score, pos_label)
    if counts.positives.sum() == 0:
        return _undefined("ARL", "y_true holds no positive")
    return arl_from_counts(counts)


def example_attributions(y_true, y_score, *, pos_label=1):
    """Normalized example attributions of ROC AUC (Tafvizi et al.).

    A positive ``i`` gets ``1/2 * mean over negatives j of ([s_i > s_j] + 1/2 [s_i = s_j])``,
    a negative ``j`` gets ``1/2 * mean over positives i`` of the same; their
    mean over all rows is ``AUC / 2``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in any encoding.
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    pos_label : object, default=1
        The label of the positive class.

    Returns
    -------
    numpy.ndarray of shape (n_samples,)
        Attributions in the input order; NaN everywhere (with a warning) if
        only one class is present.

    Examples
    --------
    >>> example_attributions([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).tolist()
    [0.5, 0.25, 0.25, 0.5]
    """
    is_positive, scores = check_binary_arrays(y_true, y_score, pos_label)
    if is_positive.all() or not is_positive.any():
        _undefined("example attributions", "y_true holds only one class")
        return np.full(len(scores), np.nan)
    order, group_ids = sort_by_score(scores)
    attributions = np.empty(len(scores))
    attributions[order] = attributions_from_sorted(is_positive[order], group_ids)
    return attributions


def attribution_mean_score(y_true, y_score, subset=None, *, pos_label=1):
    """Mean example attribution over ``subset``, attributions computed on all rows.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n_samples,)
        Labels and scores of the whole dataset.
    subset : array-like of bool or int, optional
        Rows of the subgroup (a mask or positions); all rows when omitted,
        giving ``roc_auc_score / 2``.
    pos_label : object, default=1
        The label of the positive class.

    Returns
    -------
    float
    """
    attributions = example_attributions(y_true, y_score, pos_label=pos_label)
    if subset is None:
        chosen = attributions
    else:
        subset = np.asarray(subset)
        # an empty list becomes a float array, which NumPy refuses as an index
        chosen = attributions[subset if subset.size else subset.astype(np.intp)]
    if len(chosen) == 0:
        return _undefined("attribution mean", "the subset is empty")
    return float(chosen.mean())
