"""A calibration search after the global fix: where a monotone map of the scores is not enough.

An expert reads calibration in two steps (SPEC, "Calibration: the whole
first, then where it is still wrong"): the whole data first
(:mod:`subroc_ext.inference.whole_calibration`), then the subgroups that
no global fix repairs, the question of multicalibration [1]_. A model that
over-promises on every row by 14 points is wrong everywhere, and a subgroup
search on its raw scores names its largest slices (or, against the whole
data's gap, their complements). :func:`globally_fixed` replaces each
split's scores by probabilities after a monotone map fitted on the search
split where its scores are miscalibrated (:func:`fix_method`), cross-fitted
there (:func:`~subroc_ext.inputs.probabilities.cross_fitted_probabilities`),
and the map of all search rows on the held-out rows. Every calibration gap of the
search, the test and the headline is then one the global fix leaves, and
the whole data's gap is 0 up to chance.

References
----------
.. [1] U. Hébert-Johnson, M. P. Kim, O. Reingold and G. N. Rothblum,
   "Multicalibration: calibration for the (computationally-identifiable)
   masses", ICML 2018.
"""

import numpy as np

from ..inference.whole_calibration import whole_calibration, whole_calibration_of
from ..inputs.probabilities import Probabilities, cross_fitted_probabilities
from ..inputs.sorted_data import SortedDataset
from ..utils.validation import probability_scores

__all__ = ["calibration_first", "default_mode", "fix_method", "fixed_probabilities", "globally_fixed", "fixed_scores"]


def fix_method(calibrate, search):
    """The map of the global fix for a ``calibrate`` setting (None: no fix).

    'auto': a centred isotonic regression where the search split's scores
    are miscalibrated (Cox's test rejects,
    :func:`~subroc_ext.inference.whole_calibration.whole_calibration`), none
    where they are not (a fix fitted to calibrated scores only adds its own
    error, which the held-out rows would show as miscalibration); 'none': no
    fix; 'isotonic' and 'sigmoid': that map."""
    if calibrate == "auto":
        return None if whole_calibration(search.is_positive, search.scores).calibrated else "isotonic"
    return None if calibrate == "none" else calibrate


def globally_fixed(search, held_out, method, random_state=0):
    """The splits with their scores replaced by the probabilities after the global fix.

    Parameters
    ----------
    search : SortedDataset
    held_out : SortedDataset or None
        Their scores in [0, 1].
    method : {'isotonic', 'sigmoid'}
    random_state : int, default=0
        The folds' seed.

    Returns
    -------
    (SortedDataset, SortedDataset or None, dict)
        The fixed splits (the same frames, the score column replaced) and the
        fix's record: ``description`` (a sentence), ``scores`` and
        ``probabilities`` (the map at each distinct score of the search
        split, for :func:`fixed_scores`).
    """
    label, score = search.columns
    scores = search.data[score].to_numpy(dtype=float)
    is_positive = np.empty(len(search), dtype=bool)
    is_positive[search.order] = search.is_positive  # the data's row order
    fixed, fitted = cross_fitted_probabilities(scores, is_positive, method, random_state=random_state, name=score)

    def replaced(dataset, values):
        return SortedDataset(dataset.data.assign(**{score: values}), label, score, search.positive_label)

    held = None if held_out is None else replaced(held_out, fitted(held_out.data[score].to_numpy(dtype=float)))
    knots = np.unique(scores)
    record = {"description": fitted.description, "scores": knots.tolist(), "probabilities": fitted(knots).tolist()}
    return replaced(search, fixed), held, record


def fixed_scores(record, scores):
    """Scores through the global fix of a table (``attrs['global_fix']``): the map
    interpolated between its knots (exact at them; the report's diagram after the fix).

    Examples
    --------
    >>> fixed_scores({"scores": [0.0, 0.5, 1.0], "probabilities": [0.0, 0.2, 0.6]}, [0.25, 0.75])
    array([0.1, 0.4])
    """
    return np.interp(np.asarray(scores, dtype=float), record["scores"], record["probabilities"])


def default_mode(measure):
    """The mode of ``find_subgroups(mode=None)`` for a Measure: 'both' for the
    calibration gap (a risk under- or overestimated), 'worse' for every other."""
    return "both" if measure.name == "calibration_gap" else "worse"


def calibration_first(search, held_out, measure, calibrate, random_state=0):
    """The whole data's calibration, and the splits a search of ``measure`` runs
    on: for the calibration gap, :func:`globally_fixed` where :func:`fix_method`
    asks for a fix (scores outside [0, 1]: a one-line ``ValueError`` naming
    the score column).

    Returns
    -------
    (SortedDataset, SortedDataset or None, dict or None, dict or None)
        The splits, :func:`~subroc_ext.inference.whole_calibration.whole_calibration_of`
        all their rows as given, and the fix's record (None: the splits as given).
    """
    whole = whole_calibration_of(search, held_out)
    if measure.name != "calibration_gap" or calibrate == "none":
        return search, held_out, whole, None
    for dataset in (search, held_out):
        if dataset is not None:
            probability_scores(dataset.scores, dataset.columns[1], measure.name)
    method = fix_method(calibrate, search)
    if not method:
        return search, held_out, whole, None
    fixed_search, fixed_held_out, record = globally_fixed(search, held_out, method, random_state)
    return fixed_search, fixed_held_out, whole, record


def fixed_probabilities(search, held_out, record):
    """The probabilities of a run after a global fix (``record``): the fixed
    scores themselves, whose promise is a calibration gap of 0 (SPEC: the gap
    against perfect calibration).

    Returns
    -------
    (str, Probabilities, (numpy.ndarray, numpy.ndarray or None))
        The fix's description, the map of the fixed scores to probabilities
        (the identity) and each split's probabilities (data row order).
    """
    score = search.columns[1]
    return record["description"], Probabilities("none", record["description"], np.asarray), tuple(
        None if dataset is None else dataset.data[score].to_numpy(dtype=float) for dataset in (search, held_out))
