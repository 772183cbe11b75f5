"""A row mean beyond its promise: the case-mix measure of the Brier score, the
log loss, the calibration gap and the attribution mean.

The promise of a row mean ``mean_S v_i(y_i)`` is exact
(:class:`~subroc_ext.inference.promise.Promise`): each row's value were it
positive, ``a_i``, and were it negative, ``b_i``
(:meth:`~subroc_ext.scoring.measures.RowMeanMeasure.class_values`), weighted
by its probability ``p_i``: ``e_i = p_i a_i + (1 - p_i) b_i``. So a
subgroup's shortfall from its promise is itself a row mean, of
``v_i(y_i) - e_i``, and searching, ranking and testing by it
(``find_subgroups(case_mix=True)``) inherits the row mean's exact optimistic
estimate, its null and its intervals: what the case-mix quality
``q_cm`` of SPEC ("Case mix") is for the ROC AUC, for every row mean.

Examples
--------
>>> import numpy as np
>>> from subroc_ext.scoring.calibration import brier_score
>>> beyond = shortfall_measure(brier_score(), lambda scores: scores)
>>> beyond.name, beyond.row_values(np.array([True, False]), np.array([0.5, 0.2])).round(2).tolist()
('brier_beyond_promise', [0.0, -0.12])
"""

import copy

import numpy as np

from .measures import RowMeanMeasure

__all__ = ["SUFFIX", "shortfall_measure"]

#: Appended to the name of the measure whose shortfall is measured.
SUFFIX = "_beyond_promise"


def shortfall_measure(measure, probabilities):
    """``measure`` less its promise, row by row: a row mean of the same kind.

    Parameters
    ----------
    measure : RowMeanMeasure
        A row mean (the calibration measures, the attribution mean, a
        user's), not changed.
    probabilities : callable
        The scores' probabilities: ``probabilities(scores) -> array``, the map
        fitted on the search split
        (:func:`~subroc_ext.inputs.probabilities.fit_probabilities`).

    Returns
    -------
    RowMeanMeasure
        Of the same class, named ``<name>_beyond_promise``, whose row values
        are ``v_i(y_i) - e_i`` and whose class values are ``a_i - e_i`` and
        ``b_i - e_i``: its promise is 0 everywhere.
    """
    if not isinstance(measure, RowMeanMeasure):
        raise TypeError(f"the shortfall of measure {measure.name!r} from its promise is no row mean")
    original = measure.class_values

    def class_values(is_positive, scores):
        positive, negative = original(is_positive, scores)
        p = np.asarray(probabilities(scores), dtype=float)
        promised = p * positive + (1 - p) * negative
        return positive - promised, negative - promised

    def row_values(is_positive, scores):
        positive, negative = class_values(is_positive, scores)
        return np.where(is_positive, positive, negative)

    beyond = copy.copy(measure)
    beyond.name = measure.name + SUFFIX
    beyond.row_values = row_values
    beyond._class_values = class_values
    return beyond
