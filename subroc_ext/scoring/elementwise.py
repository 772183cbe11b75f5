"""Compiled scalar functions that also work element-wise on arrays, with
nothing built at import.

``numba.vectorize`` with a signature compiles (or loads from the cache) the
scalar function and builds the NumPy ufunc's loop around it when the module
is imported; numba caches the first, not the loop, so every import built
the loops again (0.1-0.2 s of CPU each, about 1 s for the package's seven).
:func:`elementwise` gives a function that, called from Python, is that
ufunc, built at its first call, and in compiled code is the scalar function
compiled for the signature (arguments converted to its types, as a ufunc
converts them): the same floats either way.
"""

import functools

from numba import njit, vectorize
from numba.extending import overload

__all__ = ["elementwise"]


def elementwise(signature):
    """Decorator: the scalar function compiled for ``signature``, element-wise
    from Python.

    Parameters
    ----------
    signature : numba signature
        Of scalars, e.g. ``float64(float64, float64)``.

    Returns
    -------
    callable
        From Python: the NumPy ufunc of the function (scalars and arrays,
        broadcast), built at the first call. In compiled code: the function
        compiled for ``signature``.

    Examples
    --------
    :func:`subroc_ext.scoring.weights.class_balance` is
    ``@elementwise(float64(float64, float64))``:

    >>> from subroc_ext.scoring.weights import class_balance
    >>> class_balance([3, 0], 6), class_balance(3, 6)
    (array([0.5, 0. ]), 0.5)
    """

    def decorate(function):
        kernel = njit([signature], cache=True)(function)

        @functools.wraps(function)
        def elementwise_function(*args):
            return _ufunc(function, signature)(*args)

        @overload(elementwise_function)
        def _in_compiled_code(*args):
            return lambda *args: kernel(*args)

        return elementwise_function

    return decorate


@functools.lru_cache(maxsize=None)
def _ufunc(function, signature):
    """The ufunc of ``function`` for ``signature``, built once per process."""
    return vectorize([signature])(function)
