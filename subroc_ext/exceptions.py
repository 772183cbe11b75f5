"""Warnings of subroc-ext, as classes users can filter."""

__all__ = ["UndefinedMeasureWarning"]


class UndefinedMeasureWarning(UserWarning):
    """A measure is undefined on the given rows (e.g. ROC AUC with one class only).

    The measure is then NaN (or the curve is not drawn). Like scikit-learn's
    ``UndefinedMetricWarning``, it can be silenced or turned into an error:

    >>> import warnings
    >>> from subroc_ext import UndefinedMeasureWarning
    >>> warnings.simplefilter("ignore", UndefinedMeasureWarning)
    """
