"""Subgroup weights ``w(S) = n^alpha * cb^beta`` and their extremes over subsets.

``cb = min(P, N) / max(P, N)`` is the class balance (0 when a class is
absent) and ``0 ** 0 == 1``, so ``beta = 0`` switches the balance term off.
The bounds give the largest and smallest weight that any subset of a cover
with ``P`` positives and ``N`` negatives can have; the optimistic estimates
multiply them with bounds on the raw quality.
References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (the weight and its bounds).
"""

import math

import numpy as np

__all__ = ["class_balance", "subgroup_weight", "max_weight", "min_weight"]


def class_balance(positives, negatives):
    """``min(P, N) / max(P, N)``, and 0 when either class is absent (vectorized)."""
    positives = np.asarray(positives, dtype=float)
    negatives = np.asarray(negatives, dtype=float)
    larger = np.maximum(positives, negatives)
    with np.errstate(invalid="ignore", divide="ignore"):
        balance = np.where(larger > 0, np.minimum(positives, negatives) / larger, 0.0)
    return balance if balance.ndim else float(balance)


def subgroup_weight(positives, negatives, size_weight, balance_weight):
    """``(P + N)^size_weight * class_balance^balance_weight`` with ``0^0 = 1``
    (vectorized; plain Python arithmetic for scalar counts).

    Examples
    --------
    >>> subgroup_weight(2, 8, 1.0, 1.0)
    2.5
    """
    if isinstance(positives, int) and isinstance(negatives, int):
        larger = max(positives, negatives)
        balance = min(positives, negatives) / larger if larger else 0.0
        return float(positives + negatives) ** size_weight * balance**balance_weight
    size = np.asarray(positives, dtype=float) + np.asarray(negatives, dtype=float)
    weight = np.power(size, size_weight) * np.power(
        class_balance(positives, negatives), balance_weight
    )
    return weight if np.ndim(weight) else float(weight)


def max_weight(positives, negatives, size_weight, balance_weight):
    """Largest weight of any subset of a cover with the given class counts (vectorized).

    With ``a = min(P, N) >= 1`` and ``b = max(P, N)`` it is
    ``max((2a)^alpha, (a + b)^alpha * (a / b)^beta)``: for a fixed larger
    class the smaller one should be as large as possible, and over the larger
    class the log-weight has no interior maximum. Without one of the classes
    every subset weighs ``0`` when ``beta > 0`` and at most ``n^alpha`` else.

    Examples
    --------
    >>> max_weight(2, 8, 1.0, 1.0)
    4.0
    """
    a = np.minimum(positives, negatives).astype(float)
    b = np.maximum(positives, negatives).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        both = np.maximum(
            np.power(2.0 * a, size_weight),
            np.power(a + b, size_weight) * np.power(a / b, balance_weight),
        )
    one_class = np.zeros_like(b) if balance_weight > 0 else np.power(b, size_weight)
    weight = np.where(a == 0, one_class, both)
    return weight if weight.ndim else float(weight)


def min_weight(positives, negatives, size_weight, balance_weight, needs_both_classes):
    """A lower bound on the weight of any subset on which the measure is defined
    (vectorized).

    Parameters
    ----------
    positives, negatives : int or array of int
        Class counts of the cover.
    size_weight, balance_weight : float
        The exponents alpha and beta.
    needs_both_classes : bool
        Whether the measure is defined only on subsets holding both classes
        (ROC AUC); otherwise single rows are defined subsets.

    Returns
    -------
    float or numpy.ndarray
        Exact when ``beta = 0`` or single rows are defined subsets. For
        two-class measures with ``beta > 0`` it is the minimum over subsets
        with one row of the smaller class, ``min_M (1 + M)^alpha * M^-beta``
        for ``1 <= M <= max(P, N)``, which is the exact minimum: the function
        of ``M`` decreases up to ``beta / (alpha - beta)`` and increases after.
    """
    shape = np.broadcast(positives, negatives).shape
    smallest_size = 2 if needs_both_classes else 1
    if balance_weight == 0:
        weight = np.full(shape, float(smallest_size) ** size_weight)
    elif not needs_both_classes:
        weight = np.zeros(shape)
    else:
        largest = np.maximum(np.maximum(positives, negatives), 1).astype(float)
        candidates = [np.ones(shape), largest]
        if size_weight > balance_weight:
            turning_point = balance_weight / (size_weight - balance_weight)
            for rounded in (math.floor(turning_point), math.ceil(turning_point)):
                candidates.append(np.minimum(max(rounded, 1), largest))
        weight = np.min(
            [np.power(1.0 + m, size_weight) * np.power(m, -balance_weight) for m in candidates], axis=0
        )
    return weight if weight.ndim else float(weight)
