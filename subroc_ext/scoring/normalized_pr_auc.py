"""The normalized PR AUC as a measure (:mod:`subroc_ext.metrics.normalized_pr_auc`)."""

from ..metrics import kernels, label_draws
from ..metrics.normalized_pr_auc import normalized_pr_auc
from . import cover_kernels
from .measures import Cover, Measure

__all__ = ["NormalizedPRAUC"]


class NormalizedPRAUC(Measure):
    """The PR AUC above the least any ranking of the subgroup's class counts
    reaches: ``(PR AUC - min) / (1 - min)``, 0 for the worst ranking, 1 for a
    perfect one (:mod:`subroc_ext.metrics.normalized_pr_auc`).

    The PR AUC is the package's (:class:`PRAUC`: trapezoidal, through
    ``(recall 0, precision 1)``, ties exact), and ``min`` its exact floor for
    the subgroup's ``P`` positives and ``N`` negatives among rankings without
    ties between the classes, Boyd et al.'s minimum average precision (the
    interpolation-free one) less ``1 / (2 (N + P))``; on many rows it is
    their ``1 + (1 - pi) ln(1 - pi) / pi`` at prevalence ``pi``. A tie group
    of both classes can take the linearly interpolated PR AUC below it: such
    a value counts as the floor, 0. It removes
    the PR AUC's skew towards subgroups of high prevalence (the paper's
    future work, §4.3) and needs both classes.

    References
    ----------
    .. [1] K. Boyd, V. Santos Costa, J. Davis and C. D. Page, "Unachievable
       region in precision-recall space and its effect on empirical
       evaluation", ICML 2012.
    .. [2] Siegl et al., SubROC, 2025, §4.3 (the normalized PR AUC as future work).

    Examples
    --------
    >>> cover = Cover.from_arrays([False, True, False, True], [0.1, 0.35, 0.4, 0.8])
    >>> round(NormalizedPRAUC().value(cover), 4), NormalizedPRAUC().extremes(cover)
    (0.7059, (0.0, 1.0))
    """

    name = "pr_auc_normalized"
    min_positives = 1
    min_negatives = 1
    compiled_code = cover_kernels.PR_AUC_NORMALIZED

    def value(self, cover):
        return float(normalized_pr_auc(kernels.pr_auc_from_counts(cover.counts), cover.positives, cover.negatives))

    def drawn_values(self, labels, scores):
        return label_draws.pr_auc_normalized_of_draws(labels, scores)

    def extremes(self, cover):
        """Lowest: 0 if a negative is scored at or above a positive (the pair
        reversed reaches it), else 1 (every subset is perfect); highest: 1 if
        a positive is scored at or above a negative, else 0 (every subset is
        reversed). Both are exact when the cover has a positive strictly
        below a negative and one strictly above a negative (always on
        continuous scores), and bounds otherwise."""
        positives, negatives = cover.counts.positives > 0, cover.counts.negatives > 0
        if not (positives.any() and negatives.any()):  # no defined subset: any bounds hold
            return 0.0, 1.0
        lowest_positive, highest_negative = positives.argmax(), len(negatives) - 1 - negatives[::-1].argmax()
        highest_positive, lowest_negative = len(positives) - 1 - positives[::-1].argmax(), negatives.argmax()
        return (0.0 if lowest_positive <= highest_negative else 1.0,
                1.0 if highest_positive >= lowest_negative else 0.0)  # fmt: skip
