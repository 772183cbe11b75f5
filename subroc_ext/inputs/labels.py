"""Which label value is the positive class, when the user does not say.

One rule for the API (:func:`~subroc_ext.find_subgroups`) and the command
line, scikit-learn's (``_check_pos_label_consistency``): a label column whose
two values are ``{0, 1}``, ``{-1, 1}`` or ``{False, True}`` has the positive
class ``1`` (``True``); any other labels (``'yes'``/``'no'``, ``'>50K'``/
``'<=50K'``, ``{1, 2}``) must name it, since guessing would silently flip
every measure. A column with missing values, one value or more than two is an
error naming the column.
"""

import numpy as np
import pandas as pd

from ..utils.validation import positive_mask, quoted_values

__all__ = ["infer_positive_label"]


def infer_positive_label(labels, name="label", *, option="positive_label"):
    """The positive class of a binary label column that does not name it.

    Parameters
    ----------
    labels : pandas.Series or array-like
        The label column.
    name : str, default='label'
        The column's name, for error messages.
    option : str, default='positive_label'
        How the user names the positive class (``'--positive-label'`` on the
        command line), for error messages.

    Returns
    -------
    bool or int
        ``True`` for a boolean column, else ``1``.

    Raises
    ------
    ValueError
        If the column has missing values, fewer or more than two distinct
        values, or two values other than {0, 1} and {-1, 1}.

    Examples
    --------
    >>> infer_positive_label([0, 1, 1, 0])
    1
    >>> infer_positive_label([True, False])
    True
    >>> infer_positive_label(["yes", "no"], "approved")
    Traceback (most recent call last):
    ...
    ValueError: label column 'approved' has values 'no' and 'yes'; pass positive_label to say which one is the positive class
    """
    labels = labels if isinstance(labels, pd.Series) else pd.Series(labels)
    values = pd.unique(labels.dropna())
    if labels.isna().any() or len(values) > 2:
        positive_mask(labels, None, name)  # raises, naming the column and the problem
    if len(values) < 2:
        found = f"only one value, {quoted_values(values)}" if len(values) else "no values"
        raise ValueError(f"label column {name!r} must be binary but has {found}")
    if set(values) <= {0, 1} or set(values) == {-1, 1}:
        is_boolean = all(isinstance(value, (bool, np.bool_)) for value in values)
        return True if is_boolean else 1
    raise ValueError(
        f"label column {name!r} has values {quoted_values(values)}; pass {option} to say "
        "which one is the positive class"
    )
