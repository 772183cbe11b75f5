"""What a practitioner reports per subgroup: error rates at one operating point.

An AUC summarises every threshold; a deployed model uses one. At a threshold
``tau`` (``s >= tau`` predicts positive) each group of rows has

* false-positive rate ``FP / (FP + TN)`` (its negatives flagged),
* false-negative rate ``FN / (FN + TP)`` (its positives missed),
* precision ``TP / (TP + FP)`` (flagged rows that are positive),

NaN where the denominator is zero. The threshold is the user's, or the Youden
threshold of the whole data (:func:`~subroc_ext.metrics.diagnostics.youden_threshold`:
the one maximising sensitivity + specificity - 1), the same for every
subgroup, so that the rates compare the groups at the model's operating point.
"""

import numpy as np
import pandas as pd

from ..utils.validation import check_columns, finite_scores, positive_mask
from .covers import named_covers
from .diagnostics import youden_threshold

__all__ = ["RATE_COLUMNS", "threshold_rates"]

#: The rate columns of :func:`threshold_rates`.
RATE_COLUMNS = ("false_positive_rate", "false_negative_rate", "precision")


def threshold_rates(subgroups, data, *, label, score, positive_label=1, threshold=None):
    """False-positive rate, false-negative rate and precision at one threshold.

    Parameters
    ----------
    subgroups : pysubgroup result, mapping or sequence of descriptions
        The subgroups (see :func:`subroc_ext.metrics.covers.subgroup_covers`), e.g.
        the table of :func:`~subroc_ext.find_subgroups`.
    data : pandas.DataFrame
        Rows with the label and score columns.
    label, score : str
    positive_label : object, default=1
    threshold : float, optional
        ``s >= threshold`` predicts positive; default the Youden threshold
        of the whole ``data``.

    Returns
    -------
    pandas.DataFrame
        One row for ``'all'`` (the whole data) and one per subgroup:
        ``subgroup``, ``size``, ``threshold``, ``false_positive_rate``,
        ``false_negative_rate`` and ``precision`` (NaN where undefined).

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"y": [1, 1, 0, 0, 1, 0], "p": [0.9, 0.4, 0.6, 0.1, 0.8, 0.3],
    ...                      "g": ["a", "a", "a", "b", "b", "b"]})
    >>> rates = threshold_rates({"g = a": data["g"].eq("a").to_numpy()}, data,
    ...                         label="y", score="p", threshold=0.5)
    >>> rates[["subgroup", "false_positive_rate", "false_negative_rate", "precision"]].round(3)
      subgroup  false_positive_rate  false_negative_rate  precision
    0      all                0.333                0.333      0.667
    1    g = a                1.000                0.500      0.500
    """
    check_columns(data, [label, score])
    is_positive = positive_mask(data[label], positive_label, label)
    scores = finite_scores(data[score], score)
    if threshold is None:
        threshold = youden_threshold(is_positive, scores)
    elif not (isinstance(threshold, (int, float, np.integer, np.floating)) and np.isfinite(threshold)):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    names, covers = named_covers(subgroups, data)
    # each row's outcome: 0 true negative, 1 false negative, 2 false positive, 3 true positive
    outcome = (2 * (scores >= threshold) + is_positive).astype(np.int8)
    counts = np.array([np.bincount(outcome, minlength=4)]
                      + [np.bincount(outcome[mask], minlength=4) for mask in covers]).reshape(-1, 4)  # fmt: skip
    false_positive, true_positive = counts[:, 2], counts[:, 3]
    positives, negatives = counts[:, 1] + true_positive, counts[:, 0] + false_positive
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = {
            "false_positive_rate": false_positive / negatives,
            "false_negative_rate": (positives - true_positive) / positives,
            "precision": true_positive / (true_positive + false_positive),
        }
    return pd.DataFrame(
        {"subgroup": ["all", *names], "size": counts.sum(axis=1), "threshold": float(threshold),
         **{name: np.asarray(values, dtype=float) for name, values in rates.items()}}
    )  # fmt: skip
