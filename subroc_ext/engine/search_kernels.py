"""Compiled steps of :class:`~subroc_ext.FastSearch`'s node expansion.

One call per node does what would otherwise be a dozen small NumPy
operations holding the GIL: the class counts of every child
(:func:`subroc_ext.scoring.cover_kernels.count_children`) and the test of which
children may enter the result or lead to a pattern that may. The arithmetic
is that of :class:`subroc_ext.engine.evaluators.BinaryEvaluator` (the same weight
functions, :mod:`subroc_ext.scoring.weights`, on the same floats), so both keep the
same children. Releasing the GIL for the whole step is what lets
``FastSearch(n_jobs=...)`` threads run side by side.
"""

import numpy as np
from numba import njit

from ..scoring.cover_kernels import count_children
from ..scoring.weights import max_weight, subgroup_weight

__all__ = ["promising_children"]


@njit(cache=True, nogil=True)
def promising_children(
    parent, selector_words, candidates, positive_words, negative_words, min_support,
    min_positives, min_negatives, cap, threshold, size_weight, balance_weight, expandable,
):  # fmt: skip
    """Class counts of every child and whether it is worth evaluating.

    Parameters
    ----------
    parent, selector_words, candidates, positive_words, negative_words
        As in :func:`subroc_ext.scoring.cover_kernels.count_children`.
    min_support : int
        Smallest cover a pattern may have.
    min_positives, min_negatives : int
        The measure is defined on covers with at least these class counts
        (and at least one row), as
        :meth:`subroc_ext.scoring.measures.Measure.is_defined`.
    cap : float
        Bound of every child's raw quality gain (``inf``: no bound, keep
        every defined child).
    threshold : float
        Keep a child if ``weight * cap`` exceeds it, or (``expandable``) its
        largest subset weight times ``cap`` does.
    size_weight, balance_weight : float
    expandable : bool

    Returns
    -------
    keep : bool[K]
    positives, negatives : int64[K]

    Examples
    --------
    >>> from subroc_ext.scoring.bitset import pack
    >>> is_positive = np.array([True, False, True, False, True])
    >>> selectors = pack(np.array([[True, True, True, False, False],
    ...                            [False, False, True, True, True]]))
    >>> keep, p, n = promising_children(
    ...     pack(np.ones(5, bool)), selectors, np.array([0, 1]), pack(is_positive),
    ...     pack(~is_positive), 3, 1, 1, np.inf, 0.0, 1.0, 1.0, False)
    >>> keep.tolist(), p.tolist(), n.tolist()
    ([True, True], [2, 2], [1, 1])
    """
    k = len(candidates)
    positives = np.empty(k, dtype=np.int64)
    negatives = np.empty(k, dtype=np.int64)
    count_children(parent, selector_words, candidates, positive_words, negative_words, positives, negatives)
    keep = np.empty(k, dtype=np.bool_)
    bounded = np.isfinite(cap)
    for i in range(k):
        p, n = positives[i], negatives[i]
        ok = p + n >= min_support and p >= min_positives and n >= min_negatives and p + n >= 1
        if ok and bounded:
            ok = subgroup_weight(float(p), float(n), size_weight, balance_weight) * cap > threshold
            if expandable and not ok:
                ok = max_weight(float(p), float(n), size_weight, balance_weight) * cap > threshold
        keep[i] = ok
    return keep, positives, negatives
