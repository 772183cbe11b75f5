"""What the scores themselves promise: the expected ROC AUC as a measure.

:class:`ExpectedROCAUC` is the ROC AUC a cover would have if its scores were
the true probabilities (the model-based concordance ``mbc`` of van Klaveren
et al., :mod:`subroc_ext.metrics.expected_auc`). It reads only the scores of
the dataset it is prepared on, which must be probabilities in [0, 1]; the
case-mix quality (:class:`~subroc_ext.objective.case_mix.CaseMixQF`)
compares it with the ROC AUC of the model's scores on the same rows.

It is defined where the ROC AUC is (a positive and a negative), so that the
case-mix quality ``[mbc(S) - AUC(S)] - [mbc(D) - AUC(D)]`` is defined exactly
where the AUC is. Its extremes over subsets are exact and need no labels
(:func:`~subroc_ext.metrics.expected_auc.expected_auc_extremes`); over the
subsets with both classes they are still valid bounds.

References
----------
.. [1] D. van Klaveren, M. Gönen, E. W. Steyerberg and Y. Vergouwe, "A new
   concordance measure for risk prediction models in external validation
   settings", Statistics in Medicine 35(23), 4136-4152, 2016.
"""

import copy

import numpy as np
from numba import njit

from ..metrics.expected_auc import (
    check_probabilities,
    expected_auc_extremes,
    expected_auc_of_sorted,
    expected_pr_auc_of_sorted,
)
from ..metrics.normalized_pr_auc import normalized_pr_auc
from . import cover_kernels
from .measures import PRAUC, ROCAUC, Measure
from .normalized_pr_auc import NormalizedPRAUC

__all__ = ["ExpectedROCAUC", "ExpectedPRAUC", "ExpectedNormalizedPRAUC", "expected_measure", "simulated_auc_changes"]


class ExpectedROCAUC(Measure):
    """The ROC AUC the scores promise: ``mbc`` of the cover's scores read as probabilities.

    Prepare it on a dataset sorted by the probabilities (the scores of its
    :class:`~subroc_ext.scoring.measures.Cover` are the probabilities):
    :meth:`prepare` checks they lie in [0, 1].

    Examples
    --------
    >>> from subroc_ext.scoring.measures import Cover
    >>> whole = Cover.from_arrays([False, True, False, True], [0.1, 0.3, 0.6, 0.9])
    >>> measure = ExpectedROCAUC().prepare(whole)
    >>> round(measure.value(whole), 4), [round(x, 4) for x in measure.extremes(whole)]
    (0.9018, [0.7778, 0.9878])
    """

    name = "expected_roc_auc"
    min_positives = 1
    min_negatives = 1
    compiled_code = cover_kernels.EXPECTED_ROC_AUC

    def __init__(self):
        self._values = None

    def prepare(self, cover):
        """A copy holding the dataset's probabilities (its scores, checked in [0, 1])."""
        prepared = copy.copy(self)
        values = np.empty(len(cover.all_scores))
        values[cover.rows] = check_probabilities(cover.scores, "the probabilities (scores) of expected_roc_auc")
        prepared._values = values
        return prepared

    @property
    def prepared_values(self):
        """The probabilities of the prepared dataset, in its order (None before :meth:`prepare`)."""
        return self._values

    def value(self, cover):
        return float(expected_auc_of_sorted(np.ascontiguousarray(cover.scores, dtype=float)))

    def extremes(self, cover):
        """Exact over the subsets of at least two rows (reached by a pair)."""
        lowest, highest = expected_auc_extremes(np.ascontiguousarray(cover.scores, dtype=float))
        return float(lowest), float(highest)


class ExpectedPRAUC(ExpectedROCAUC):
    """The PR AUC the scores promise: the ratio of expectations of
    :func:`~subroc_ext.metrics.expected_auc.expected_pr_auc_of_sorted` on the
    cover's scores read as probabilities (defined where the PR AUC is).

    Examples
    --------
    >>> from subroc_ext.scoring.measures import Cover
    >>> whole = Cover.from_arrays([False, True, False, True], [0.1, 0.3, 0.6, 0.9])
    >>> round(ExpectedPRAUC().prepare(whole).value(whole), 4)
    0.925
    """

    name = "expected_pr_auc"
    min_negatives = 0
    compiled_code = None

    def value(self, cover):
        return float(expected_pr_auc_of_sorted(np.ascontiguousarray(cover.scores, dtype=float)))

    def extremes(self, cover):
        """0 and 1: valid for every subset (the ratio lies in [0, 1])."""
        return 0.0, 1.0


class ExpectedNormalizedPRAUC(ExpectedPRAUC):
    """The normalized PR AUC the scores promise: :class:`ExpectedPRAUC` above
    the floor of the cover's class counts
    (:func:`~subroc_ext.metrics.normalized_pr_auc.normalized_pr_auc`).

    The floor is that of the observed counts, the same as the measure's on
    these rows, so the shortfall of the normalized PR AUC is the PR AUC's
    divided by ``1 - floor``; the label draws' floors vary with their counts,
    whose share of positives tends to the observed one under the promise.
    """

    name = "expected_pr_auc_normalized"
    min_negatives = 1

    def value(self, cover):
        return float(normalized_pr_auc(super().value(cover), cover.positives, cover.negatives))


def expected_measure(measure):
    """The measure of what the scores promise for ``measure`` (a built-in
    ranking measure searched by its case mix), or None.

    Examples
    --------
    >>> from subroc_ext.scoring.measures import PRAUC, ROCAUC
    >>> expected_measure(ROCAUC()).name, expected_measure(PRAUC()).name
    ('expected_roc_auc', 'expected_pr_auc')
    """
    promised = {ROCAUC: ExpectedROCAUC, PRAUC: ExpectedPRAUC, NormalizedPRAUC: ExpectedNormalizedPRAUC}.get(type(measure))
    return None if promised is None else promised()


@njit(cache=True, nogil=True)
def simulated_auc_changes(seed, probabilities, group_ids, mask, out):
    """``AUC*(S) - AUC*(D)`` for labels drawn from the probabilities (compiled).

    The null distribution of the case-mix test: if the probabilities are the
    true ones, the labels are independent draws ``y_i ~ Bernoulli(p_i)``. For
    each draw, every row's label is drawn and the ROC AUC of the scores with
    those labels is computed on the whole data ``D`` and on the cover ``S``
    (ties in the score counting one half).

    Parameters
    ----------
    seed : int
        Seeds the generator (SplitMix64: the values are a function of the seed).
    probabilities : float64[n]
        Each row's probability, rows in ascending score order.
    group_ids : int64[n]
        The score's tie group of each row (non-decreasing).
    mask : bool[n]
        The cover.
    out : float64[B]
        Output: the change of each draw; NaN where ``S`` or ``D`` lacks a class.

    Notes
    -----
    A row is positive when the top 53 bits ``k`` of its random word are below
    ``ceil(p * 2**53)`` (exactly ``k / 2**53 < p``: the uniform in [0, 1)),
    and the counts are kept without branches on the label, which the
    processor cannot predict: 2.5 times faster than comparing floats.
    """
    n = len(probabilities)
    thresholds = np.empty(n, dtype=np.uint64)
    ends = np.empty(n, dtype=np.bool_)
    inside = np.empty(n, dtype=np.int64)
    for i in range(n):
        thresholds[i] = np.uint64(np.ceil(probabilities[i] * 2.0**53))
        ends[i] = i == n - 1 or group_ids[i + 1] != group_ids[i]
        inside[i] = 1 if mask[i] else 0
    state = np.uint64(seed)
    for b in range(len(out)):
        wins_d = wins_s = 0.0
        below_d = below_s = positives_d = positives_s = 0  # negatives below: of D, of S
        group_positives_d = group_negatives_d = group_positives_s = group_negatives_s = 0
        for i in range(n):
            state += np.uint64(0x9E3779B97F4A7C15)  # SplitMix64
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z ^= z >> np.uint64(31)
            positive = np.int64((z >> np.uint64(11)) < thresholds[i])
            group_positives_d += positive
            group_negatives_d += 1 - positive
            group_positives_s += positive * inside[i]
            group_negatives_s += (1 - positive) * inside[i]
            if ends[i]:  # the end of a tie group of the score
                wins_d += group_positives_d * (below_d + 0.5 * group_negatives_d)
                wins_s += group_positives_s * (below_s + 0.5 * group_negatives_s)
                below_d += group_negatives_d
                below_s += group_negatives_s
                positives_d += group_positives_d
                positives_s += group_positives_s
                group_positives_d = group_negatives_d = group_positives_s = group_negatives_s = 0
        if positives_s == 0 or below_s == 0 or positives_d == 0 or below_d == 0:
            out[b] = np.nan
        else:
            out[b] = wins_s / (positives_s * below_s) - wins_d / (positives_d * below_d)
