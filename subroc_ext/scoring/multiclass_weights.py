"""Subgroup weights for K classes and their extremes over subsets.

SPEC's weight ``w(S) = n^alpha * cb^beta`` generalised to class counts
``c_1..c_K`` of a subset (``n = sum c_k``):

    cb_K(S) = min_k c_k / max_k c_k,   and 0 when some class is absent,

so ``cb_K`` lies in ``[0, 1]``, is 1 exactly for equal class counts and
equals SPEC's ``min(P, N) / max(P, N)`` for K = 2. ``0^0 = 1``, so
``beta = 0`` switches the balance term off. AUC_mu needs every class, so the
bounds below range over subsets ``d <= c`` (element-wise) with ``d_k >= 1``.

Largest weight (the cover's smallest count ``a = min c_k >= 1``). Fix the
largest subset count ``M``; then ``min d <= min(a, M)`` and
``n <= g(M) = sum_k min(c_k, M)``, and ``d_k = min(c_k, M)`` reaches both, so
``max w = max over M of f(M) = g(M)^alpha * (min(a, M) / M)^beta``. ``f``
grows on ``M <= a``; between two consecutive counts ``g(M) = s + r M`` and
``d/dM log f = alpha r / (s + r M) - beta / M`` changes sign at most once,
from negative to positive, so ``f`` has no interior maximum there: the
maximum is at one of the counts ``c_k >= a``. For K = 2 this is SPEC's
``max((2a)^alpha, (a + b)^alpha * (a / b)^beta)``.

Smallest weight (``beta > 0``). For a fixed largest count ``M`` the weight
grows with the smallest count ``m`` (``n >= (K - 1) m + M``), so ``m = 1`` and
``min w = min over 1 <= M <= max c of (K - 1 + M)^alpha * M^-beta``, whose
log-derivative vanishes only at ``M* = beta (K - 1) / (alpha - beta)``: the
minimum is at 1, ``max c`` or the integers next to ``M*``. With
``beta = 0`` it is ``K^alpha`` (one row per class).

Both are checked against enumeration of every count vector in
``tests/test_multiclass_weights.py``.
"""

import math

import numpy as np

__all__ = [
    "multiclass_balance",
    "multiclass_weight",
    "multiclass_max_weight",
    "multiclass_min_weight",
]


def multiclass_balance(counts):
    """``min c_k / max c_k`` over the last axis, 0 when a class is absent (vectorized).

    Examples
    --------
    >>> multiclass_balance([2, 4, 8])
    0.25
    >>> multiclass_balance([[3, 3], [0, 5]])
    array([1., 0.])
    """
    counts = np.asarray(counts, dtype=float)
    largest = counts.max(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        balance = np.where(largest > 0, counts.min(axis=-1) / largest, 0.0)
    return balance if balance.ndim else float(balance)


def multiclass_weight(counts, size_weight, balance_weight):
    """``n^alpha * cb_K^beta`` with ``0^0 = 1`` (vectorized over leading axes).

    Examples
    --------
    >>> multiclass_weight([2, 4], 1, 1)  # 6 rows, balance 2 / 4
    3.0
    """
    counts = np.asarray(counts, dtype=float)
    weight = np.power(counts.sum(axis=-1), size_weight) * np.power(
        multiclass_balance(counts), balance_weight
    )
    return weight if np.ndim(weight) else float(weight)


def multiclass_max_weight(counts, size_weight, balance_weight):
    """Largest weight of a subset with every class present, for a cover with these counts.

    Returns 0 when a class is absent from the cover (no such subset).

    Examples
    --------
    For K = 2 this is SPEC's ``max((2a)^alpha, (a + b)^alpha * (a / b)^beta)``
    = max(4, 3) for counts (2, 4):

    >>> multiclass_max_weight([2, 4], 1, 1)
    4.0
    >>> multiclass_max_weight([0, 4], 1, 1)
    0.0
    """
    counts = np.asarray(counts, dtype=np.int64)
    smallest = int(counts.min())
    if smallest == 0:
        return 0.0
    if balance_weight == 0:
        return float(counts.sum()) ** size_weight
    largest = np.unique(counts)  # candidate M values, all >= smallest
    sizes = np.minimum(counts[None, :], largest[:, None]).sum(axis=1).astype(float)
    return float(np.max(sizes**size_weight * (smallest / largest) ** balance_weight))


def multiclass_min_weight(counts, size_weight, balance_weight):
    """Smallest weight of a subset with every class present (0 when there is none).

    Examples
    --------
    Of the subsets of counts (2, 4) with both classes, (1, 4) weighs least,
    ``5 * (1 / 4)``:

    >>> multiclass_min_weight([2, 4], 1, 1)
    1.25
    """
    counts = np.asarray(counts, dtype=np.int64)
    n_classes = len(counts)
    if counts.min() == 0:
        return 0.0
    if balance_weight == 0:
        return float(n_classes) ** size_weight
    largest = int(counts.max())
    candidates = {1, largest}
    if size_weight > balance_weight:
        turning_point = balance_weight * (n_classes - 1) / (size_weight - balance_weight)
        candidates |= {
            min(max(math.floor(turning_point), 1), largest),
            min(max(math.ceil(turning_point), 1), largest),
        }
    return min(
        (n_classes - 1.0 + m) ** size_weight * float(m) ** -balance_weight for m in candidates
    )
