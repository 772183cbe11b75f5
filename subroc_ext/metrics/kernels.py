"""Measure kernels: ROC AUC, PR AUC, average ranking loss and AUC attributions.

Naming follows scikit-learn: ``*_score`` is higher-is-better, ``*_loss`` is
lower-is-better.

Every measure is a function of the per-tie-group class counts of the rows
sorted by score: for each distinct score (ascending), how many positives and
negatives carry it. The ``*_from_counts`` kernels (and the curves
:func:`roc_curve_from_counts`, :func:`pr_curve_from_counts`) work on those
counts (:class:`TieCounts`) and are what the quality functions, the plots and
the measures call on data presorted once per search; the functions on
``(label, score)`` take plain arrays, validate them, and delegate. Ties are
handled exactly: a tied positive-negative pair counts one half, and each curve
has one point per distinct score, as in scikit-learn. The compiled kernels on
bitsets (:mod:`subroc_ext.scoring.cover_kernels`) add the same terms in the same
order, so both give the same floating-point numbers.
"""

import warnings
from typing import NamedTuple

import numpy as np

from ..exceptions import UndefinedMeasureWarning
from ..utils.deprecation import renamed_keywords
from ..utils.docstrings import insert_parts
from ..utils.validation import check_binary_arrays

__all__ = [
    "TieCounts",
    "tie_counts",
    "sort_by_score",
    "score_tie_counts",
    "roc_curve_from_counts",
    "pr_curve_from_counts",
    "roc_auc_from_counts",
    "pr_auc_from_counts",
    "arl_from_counts",
    "attributions_from_sorted",
    "roc_curve",
    "pr_curve",
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

    Examples
    --------
    >>> tie_counts(np.array([False, True, True]), np.array([0, 0, 1]))
    TieCounts(positives=array([1, 1]), negatives=array([1, 0]))
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
    """Stable ascending order of ``scores`` and the tie-group id of each sorted row.

    Examples
    --------
    >>> order, group_ids = sort_by_score(np.array([0.5, 0.1, 0.5]))
    >>> order.tolist(), group_ids.tolist()
    ([1, 0, 2], [0, 1, 1])
    """
    order = np.argsort(scores, kind="stable")
    sorted_scores = scores[order]
    group_ids = np.concatenate(([0], np.cumsum(sorted_scores[1:] != sorted_scores[:-1])))
    # [: len(scores)]: no rows, no ids (else tie_counts fails on empty input)
    return order, group_ids[: len(scores)]


def score_tie_counts(is_positive, scores):
    """:class:`TieCounts` of rows in any order (labels bool, scores finite).

    Examples
    --------
    >>> score_tie_counts(np.array([True, False, True]), np.array([0.2, 0.9, 0.2]))
    TieCounts(positives=array([2, 0]), negatives=array([0, 1]))
    """
    order, group_ids = sort_by_score(np.asarray(scores))
    return tie_counts(np.asarray(is_positive, dtype=bool)[order], group_ids)


def _counts_of(label, score, positive_label):
    return score_tie_counts(*check_binary_arrays(label, score, positive_label, names=_NAMES))


# --------------------------------------------------------------------------
# kernels on tie counts
# --------------------------------------------------------------------------


def roc_auc_from_counts(counts):
    """ROC AUC: P(positive scored above negative), ties counting one half.

    The trapezoidal area under :func:`roc_curve_from_counts`, computed as one
    dot product (the Mann-Whitney statistic).

    Examples
    --------
    >>> roc_auc_from_counts(TieCounts(np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0])))
    0.75
    """
    negatives_up_to = np.cumsum(counts.negatives)
    # negatives strictly below a group + half the tied ones = cumsum - neg/2
    wins = counts.positives @ negatives_up_to - 0.5 * (counts.positives @ counts.negatives)
    return float(wins / (counts.positives.sum() * negatives_up_to[-1]))


def arl_from_counts(counts):
    """Average ranking loss: mean over positives of the negatives ranked above
    (tied ones counting one half).

    Examples
    --------
    >>> arl_from_counts(TieCounts(np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0])))
    0.5
    """
    negatives_up_to = np.cumsum(counts.negatives)
    # negatives strictly above a group + half the tied ones = N - cumsum + neg/2
    penalty = counts.positives @ (negatives_up_to[-1] - negatives_up_to) + 0.5 * (
        counts.positives @ counts.negatives
    )
    return float(penalty / counts.positives.sum())


def roc_curve_from_counts(counts):
    """The ROC curve: one point per distinct score, from the highest down.

    Parameters
    ----------
    counts : TieCounts
        Class counts per distinct score (at least one positive and one negative).

    Returns
    -------
    false_positive_rate, true_positive_rate : numpy.ndarray of float
        Starting at (0, 0) and ending at (1, 1), ``len(counts.positives) + 1``
        points: the rates when every row scored at or above the next lower
        distinct score is called positive. Tied scores give one straight
        segment, so the trapezoidal area is :func:`roc_auc_from_counts`.

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 861-874, 2006 (Algorithm 2: one point per distinct score).

    Examples
    --------
    >>> counts = TieCounts(np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0]))
    >>> fpr, tpr = roc_curve_from_counts(counts)
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    true_pos = np.cumsum(counts.positives[::-1])
    false_pos = np.cumsum(counts.negatives[::-1])
    return (
        np.concatenate(([0.0], false_pos / false_pos[-1])),
        np.concatenate(([0.0], true_pos / true_pos[-1])),
    )


def pr_curve_from_counts(counts):
    """The precision-recall curve: one point per distinct score, from the highest down.

    Parameters
    ----------
    counts : TieCounts
        Class counts per distinct score (at least one positive).

    Returns
    -------
    recall, precision : numpy.ndarray of float
        Starting at (recall 0, precision 1), then the point of each distinct
        score as the threshold, highest first: the points of scikit-learn's
        ``precision_recall_curve`` in reverse order.

    References
    ----------
    .. [1] J. Davis and M. Goadrich, "The relationship between precision-recall
       and ROC curves", ICML 2006. (They show that linear interpolation between
       PR points is optimistic; SPEC.md keeps it, as scikit-learn's
       ``auc(recall, precision)`` does.)

    Examples
    --------
    >>> counts = TieCounts(np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0]))
    >>> recall, precision = pr_curve_from_counts(counts)
    >>> recall.tolist(), precision.round(3).tolist()
    ([0.0, 0.5, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.667, 0.5])
    """
    true_pos = np.cumsum(counts.positives[::-1])
    false_pos = np.cumsum(counts.negatives[::-1])
    return (
        np.concatenate(([0.0], true_pos / true_pos[-1])),
        np.concatenate(([1.0], true_pos / (true_pos + false_pos))),
    )


def pr_auc_from_counts(counts):
    """Trapezoidal area under :func:`pr_curve_from_counts`, as scikit-learn's
    ``auc(recall, precision)`` of ``precision_recall_curve``.

    Examples
    --------
    >>> pr_auc_from_counts(TieCounts(np.array([0, 1]), np.array([1, 0])))
    1.0
    """
    recall, precision = pr_curve_from_counts(counts)
    # Summed in curve order (cumsum adds sequentially, unlike np.sum): the
    # search engine's bitset kernel adds the same terms in the same order.
    return float(np.cumsum(np.diff(recall) * (precision[1:] + precision[:-1]))[-1] / 2)


def attributions_from_sorted(is_positive, group_ids):
    """Normalized example attributions of rows sorted by score (see
    :func:`example_attributions`).

    Examples
    --------
    >>> attributions_from_sorted(np.array([False, True]), np.array([0, 1])).tolist()
    [0.5, 0.5]
    """
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


_NAMES = ("label", "score")
_OLD_NAMES = dict(y_true="label", y_score="score", pos_label="positive_label")

_PARAMETERS = """
    label : array-like of shape (n_samples,)
        Binary labels in any encoding.
    score : array-like of shape (n_samples,)
        Scores, higher meaning more likely positive.
    positive_label : object, default=1
        The label of the positive class. (``y_true``, ``y_score`` and
        ``pos_label`` are deprecated aliases of the three arguments.)"""


def _documented(function):
    function.__doc__ = insert_parts(function.__doc__, parameters=_PARAMETERS)
    return function


@renamed_keywords(**_OLD_NAMES)
@_documented
def roc_curve(label, score, *, positive_label=1):
    """The ROC curve, one point per distinct score (scikit-learn's
    ``roc_curve(..., drop_intermediate=False)``).

    Parameters
    ----------
    {parameters}

    Returns
    -------
    false_positive_rate, true_positive_rate, thresholds : numpy.ndarray
        From (0, 0) to (1, 1); ``thresholds`` are the distinct scores from
        the highest down, after ``inf`` for the first point.

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 861-874, 2006.

    Examples
    --------
    >>> fpr, tpr, thresholds = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    is_positive, scores = check_binary_arrays(label, score, positive_label, names=_NAMES)
    if is_positive.all() or not is_positive.any():
        raise ValueError("the ROC curve needs both classes in label")
    return (*roc_curve_from_counts(score_tie_counts(is_positive, scores)), _thresholds(scores))


@renamed_keywords(**_OLD_NAMES)
@_documented
def pr_curve(label, score, *, positive_label=1):
    """The precision-recall curve, one point per distinct score.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    recall, precision, thresholds : numpy.ndarray
        From (recall 0, precision 1); ``thresholds`` are the distinct scores
        from the highest down, after ``inf`` for the first point (the points
        of scikit-learn's ``precision_recall_curve`` in reverse order).

    References
    ----------
    .. [1] J. Davis and M. Goadrich, "The relationship between precision-recall
       and ROC curves", ICML 2006.

    Examples
    --------
    >>> recall, precision, _ = pr_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> recall.tolist(), precision.round(3).tolist()
    ([0.0, 0.5, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.667, 0.5])
    """
    is_positive, scores = check_binary_arrays(label, score, positive_label, names=_NAMES)
    if not is_positive.any():
        raise ValueError("the precision-recall curve needs a positive in label")
    return (*pr_curve_from_counts(score_tie_counts(is_positive, scores)), _thresholds(scores))


def _thresholds(scores):
    return np.concatenate(([np.inf], np.unique(scores)[::-1]))


@renamed_keywords(**_OLD_NAMES)
@_documented
def roc_auc_score(label, score, *, positive_label=1):
    """Area under the ROC curve, with tied pairs counting one half.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    float
        The AUC, or NaN (with a warning) if only one class is present.

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 861-874, 2006.

    Examples
    --------
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    counts = _counts_of(label, score, positive_label)
    if counts.positives.sum() == 0 or counts.negatives.sum() == 0:
        return _undefined("ROC AUC", "label holds only one class")
    return roc_auc_from_counts(counts)


@renamed_keywords(**_OLD_NAMES)
@_documented
def pr_auc_score(label, score, *, positive_label=1):
    """Area under the linearly interpolated precision-recall curve.

    Equals ``sklearn.metrics.auc(recall, precision)`` for
    ``precision, recall, _ = sklearn.metrics.precision_recall_curve(label, score)``.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    float
        The PR AUC, or NaN (with a warning) if there is no positive.

    References
    ----------
    .. [1] J. Davis and M. Goadrich, "The relationship between precision-recall
       and ROC curves", ICML 2006.

    Examples
    --------
    >>> round(pr_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.7917
    """
    counts = _counts_of(label, score, positive_label)
    if counts.positives.sum() == 0:
        return _undefined("PR AUC", "label holds no positive")
    return pr_auc_from_counts(counts)


@renamed_keywords(**_OLD_NAMES)
@_documented
def average_ranking_loss(label, score, *, positive_label=1):
    """SCaPE average ranking loss: the mean, over positives, of the number of
    negatives scored above them (tied negatives counting one half).

    Parameters
    ----------
    {parameters}

    Returns
    -------
    float
        The loss, or NaN (with a warning) if there is no positive.

    References
    ----------
    .. [1] W. Duivesteijn and J. Thaele, "Understanding where your classifier
       does (not) work - the SCaPE model class for EMM", ICDM 2014.
    .. [2] T. Siegl et al., "SubROC: AUC-based discovery of exceptional subgroup
       performance for binary classifiers", 2025 (ties counting one half).

    Examples
    --------
    >>> average_ranking_loss([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.5
    """
    counts = _counts_of(label, score, positive_label)
    if counts.positives.sum() == 0:
        return _undefined("ARL", "label holds no positive")
    return arl_from_counts(counts)


@renamed_keywords(**_OLD_NAMES)
@_documented
def example_attributions(label, score, *, positive_label=1):
    """Normalized example attributions of ROC AUC.

    A positive ``i`` gets ``1/2 * mean over negatives j of ([s_i > s_j] + 1/2 [s_i = s_j])``,
    a negative ``j`` gets ``1/2 * mean over positives i`` of the same; their
    mean over all rows is ``AUC / 2``.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    numpy.ndarray of shape (n_samples,)
        Attributions in the input order; NaN everywhere (with a warning) if
        only one class is present.

    References
    ----------
    .. [1] A. Tafvizi, B. Avci and M. Sundararajan, "Attributing AUC-ROC to
       analyze binary classifier performance", arXiv:2205.11781, 2022.

    Examples
    --------
    >>> example_attributions([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).tolist()
    [0.5, 0.25, 0.25, 0.5]
    """
    is_positive, scores = check_binary_arrays(label, score, positive_label, names=_NAMES)
    if is_positive.all() or not is_positive.any():
        _undefined("example attributions", "label holds only one class")
        return np.full(len(scores), np.nan)
    order, group_ids = sort_by_score(scores)
    attributions = np.empty(len(scores))
    attributions[order] = attributions_from_sorted(is_positive[order], group_ids)
    return attributions


@renamed_keywords(**_OLD_NAMES)
@_documented
def attribution_mean_score(label, score, subset=None, *, positive_label=1):
    """Mean example attribution over ``subset``, attributions computed on all rows.

    Parameters
    ----------
    {parameters}
    subset : array-like of bool or int, optional
        Rows of the subgroup (a mask or positions); all rows when omitted,
        giving ``roc_auc_score / 2``.

    Returns
    -------
    float

    References
    ----------
    .. [1] A. Tafvizi, B. Avci and M. Sundararajan, "Attributing AUC-ROC to
       analyze binary classifier performance", arXiv:2205.11781, 2022.

    Examples
    --------
    >>> attribution_mean_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [True, False, False, True])
    0.5
    """
    attributions = example_attributions(label, score, positive_label=positive_label)
    if subset is None:
        chosen = attributions
    else:
        subset = np.asarray(subset)
        # an empty list becomes a float array, which NumPy refuses as an index
        chosen = attributions[subset if subset.size else subset.astype(np.intp)]
    if len(chosen) == 0:
        return _undefined("attribution mean", "the subset is empty")
    return float(chosen.mean())
