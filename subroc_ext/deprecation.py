"""Renamed public names keep working for one release, with a warning.

One name per idea (``label``, ``score``, ``positive_label``, ``size_weight``,
``balance_weight``, ``mode``): where an older release of subroc-ext used
another keyword, :func:`renamed_keywords` maps it to the new one and warns.
The old names are removed in the release after :data:`REMOVED_IN`.
"""

import functools
import warnings

__all__ = ["REMOVED_IN", "renamed_keywords"]

#: The release that removes the old keyword names.
REMOVED_IN = "0.3"


def renamed_keywords(**renames):
    """Decorator: accept each old keyword ``old=new`` for one release.

    Calling the function with ``old`` warns (``FutureWarning``, shown to
    users by default, as in scikit-learn) and passes the value as ``new``;
    passing both is a ``TypeError``.

    Examples
    --------
    >>> import warnings
    >>> @renamed_keywords(pos_label="positive_label")
    ... def positives(labels, *, positive_label=1):
    ...     return sum(label == positive_label for label in labels)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     positives([1, 2, 2], pos_label=2)
    2
    >>> print(caught[0].message)
    positives(): 'pos_label' is deprecated and will be removed in subroc-ext 0.3; use 'positive_label'
    """

    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(f"{function.__qualname__}() got both {old!r} (deprecated) and {new!r}")
                warnings.warn(
                    f"{function.__qualname__}(): {old!r} is deprecated and will be removed in "
                    f"subroc-ext {REMOVED_IN}; use {new!r}",
                    FutureWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper

    return decorate
