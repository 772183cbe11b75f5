"""Warnings and exceptions of subroc-ext, as classes users can filter or catch."""

__all__ = ["InterruptedTest", "LowPowerWarning", "SearchMemoryError", "SearchSizeWarning", "UndefinedMeasureWarning"]


class InterruptedTest(KeyboardInterrupt):
    """Ctrl-C during the significance test of :func:`~subroc_ext.find_subgroups`
    or :func:`~subroc_ext.find_multiclass_subgroups`: the search had finished.

    A ``KeyboardInterrupt`` (so an interrupted call ends as before) that
    carries what was finished.

    Attributes
    ----------
    table : pandas.DataFrame
        The result table of the searched patterns, untested: ``statistic``
        and the p-values NaN, ``significant`` and ``testable`` missing
        (``pd.NA``).
    """

    def __init__(self, table):
        super().__init__("interrupted during the significance test")
        self.table = table


class UndefinedMeasureWarning(UserWarning):
    """A measure is undefined on the given rows (e.g. ROC AUC with one class only).

    The measure is then NaN (or the curve is not drawn). Like scikit-learn's
    ``UndefinedMetricWarning``, it can be silenced or turned into an error:

    >>> import warnings
    >>> from subroc_ext import UndefinedMeasureWarning, roc_auc_confidence_interval
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", UndefinedMeasureWarning)
    ...     roc_auc_confidence_interval([1, 1], [0.2, 0.7]).roc_auc
    nan
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", UndefinedMeasureWarning)
    ...     roc_auc_confidence_interval([1, 1], [0.2, 0.7])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    subroc_ext.exceptions.UndefinedMeasureWarning: ROC AUC is undefined: ... holds only one class; returning NaN
    """


class LowPowerWarning(UserWarning):
    """The randomization test's settings cannot make a lone finding significant.

    Its smallest p-value is ``1 / (1 + n_samples)``; after correcting for
    many tests it can still be above ``alpha`` (see
    :func:`subroc_ext.inference.significance.smallest_corrected_p_value`): then a
    subgroup can be significant only together with many others (with the
    Benjamini-Hochberg or -Yekutieli corrections), or not at all (e.g.
    Bonferroni). The message names the setting that fixes it.
    """


class SearchMemoryError(MemoryError):
    """A search would need more memory than the machine has available
    (:func:`subroc_ext.inputs.search_size.check_memory`), refused before it
    starts: one line with the estimate and the ways out (``allow_large=True``
    starts it anyway)."""


class SearchSizeWarning(UserWarning):
    """A search is large before it starts: its candidates (an upper bound
    from the conditions per column, at most one per column) or the memory of
    its condition bitsets or its CPU time pass a threshold
    (:func:`subroc_ext.inputs.search_size.estimate_search_size`). One line
    with the estimate; the search still runs."""
