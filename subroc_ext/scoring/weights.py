"""Subgroup weights ``w(S) = n^alpha * cb^beta`` and their extremes over subsets.

``cb = min(P, N) / max(P, N)`` is the class balance (0 when a class is
absent) and ``0 ** 0 == 1``, so ``beta = 0`` switches the balance term off.
The bounds give the largest and smallest weight that any subset of a cover
with ``P`` positives and ``N`` negatives can have; the optimistic estimates
multiply them with bounds on the raw quality.

Each function is one compiled scalar definition that works element-wise
on scalars and arrays (with broadcasting; a NumPy ufunc built at the first
call from Python, :func:`subroc_ext.scoring.elementwise.elementwise`) and can
be called from compiled code, so a quality function
evaluating one subgroup (:mod:`subroc_ext.objective.quality`) and the search engine
evaluating a batch get the same floating-point numbers. The powers are the C
library's ``pow``, as Python's ``**``; ``numpy.power`` on arrays is not
(on CPUs with AVX-512 it uses a vectorized approximation that differs in the
last bit for about a quarter of the arguments, even for exponent 1 or 2).

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (the weight and its bounds).
"""

import numpy as np
from llvmlite import ir
from numba import boolean, float64, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .elementwise import elementwise

__all__ = ["power", "class_balance", "subgroup_weight", "max_weight", "min_weight"]

_COUNTS_AND_EXPONENTS = float64(float64, float64, float64, float64)


@intrinsic
def _c_pow(typingctx, base, exponent):
    """C's ``pow`` called as the library function it is (compiled code only).

    ``base ** exponent`` compiles to LLVM's ``pow`` intrinsic, which LLVM
    may evaluate ahead of a branch (it has no side effects there), so a test
    of the exponent does not spare the call; the library function sets
    ``errno`` and is called only where the code calls it. Same function,
    same float.
    """
    signature = types.float64(types.float64, types.float64)

    def codegen(context, builder, sig, args):
        double = ir.DoubleType()
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(double, [double, double]), "pow")
        return builder.call(function, args)

    return signature, codegen


@njit(cache=True, inline="always")
def power(base, exponent):
    """``base ** exponent`` (C's ``pow``), with the exponents 0 and 1, the
    defaults and the paper's, answered without calling it (compiled code only).

    ``pow(x, 0) = 1`` and ``pow(x, 1) = x`` for every ``x`` (IEEE 754), so the
    result is the same float; calling ``pow`` was a tenth of a search's time
    at ``alpha = beta = 1``.
    """
    if exponent == 1.0:
        return base
    if exponent == 0.0:
        return 1.0
    return _c_pow(base, exponent)


@elementwise(float64(float64, float64))
def class_balance(positives, negatives):
    """``min(P, N) / max(P, N)``, and 0 when either class is absent (element-wise).

    Examples
    --------
    >>> class_balance(3, 6), class_balance(0, 5)
    (0.5, 0.0)
    """
    larger = max(positives, negatives)
    return min(positives, negatives) / larger if larger > 0 else 0.0


@elementwise(_COUNTS_AND_EXPONENTS)
def subgroup_weight(positives, negatives, size_weight, balance_weight):
    """``(P + N)^size_weight * class_balance^balance_weight`` with ``0^0 = 1``
    (element-wise).

    Examples
    --------
    >>> subgroup_weight(2, 8, 1.0, 1.0)
    2.5
    """
    return power(positives + negatives, size_weight) * power(class_balance(positives, negatives), balance_weight)


@elementwise(_COUNTS_AND_EXPONENTS)
def max_weight(positives, negatives, size_weight, balance_weight):
    """Largest weight of any subset of a cover with the given class counts (element-wise).

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
    a = min(positives, negatives)
    b = max(positives, negatives)
    if a == 0:
        return 0.0 if balance_weight > 0 else power(b, size_weight)
    return max(power(2.0 * a, size_weight), power(a + b, size_weight) * power(a / b, balance_weight))


@elementwise(float64(float64, float64, float64, float64, boolean))
def min_weight(positives, negatives, size_weight, balance_weight, needs_both_classes):
    """A lower bound on the weight of any subset on which the measure is defined
    (element-wise).

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

    Examples
    --------
    >>> min_weight(2, 8, 1.0, 1.0, True)  # one positive and all 8 negatives
    1.125
    """
    if balance_weight == 0:
        return power(2.0 if needs_both_classes else 1.0, size_weight)
    if not needs_both_classes:
        return 0.0
    largest = max(max(positives, negatives), 1.0)
    weight = min(power(2.0, size_weight), power(1.0 + largest, size_weight) / power(largest, balance_weight))
    if size_weight > balance_weight:
        turning_point = balance_weight / (size_weight - balance_weight)
        for rounded in (np.floor(turning_point), np.ceil(turning_point)):
            m = min(max(rounded, 1.0), largest)
            weight = min(weight, power(1.0 + m, size_weight) / power(m, balance_weight))
    return weight
