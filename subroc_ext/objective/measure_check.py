"""A bound checker for measure authors: :func:`check_measure`.

A :class:`~subroc_ext.scoring.measures.Measure` promises more than its value: its
``extremes`` bound the value of every subset of a cover, its
``size_aware_bound`` the size-weighted difference, ``batch_values`` and
``null_values`` agree with ``value``, and ``prepare`` leaves the measure
itself alone. A bound that is too low does not fail loudly: pruning with it
silently loses the best subgroups. :func:`check_measure` proves these
promises where everything can be enumerated, the way the package's own
tests prove them for the built-in measures: on many small random datasets
(with and without tied scores, positives the minority or the majority) it
evaluates ``value`` on every subset of the rows, and checks every cover (every
set of rows) against every subset of it, in every mode and for several
weights, through the quality function the searches use
(:meth:`~subroc_ext.SoftClassifierQF.statistics_of_counts`). Violations are
reported, never raised, each with the smallest cover that shows it. The
checks themselves are in :mod:`subroc_ext.objective.bound_checks`.

A measure that compares scores with a threshold of its own (``score > 0.3``)
only shows a wrong bound on a row scored exactly there, which random
scores never are: :func:`probe_points` finds the scores at which the value
jumps (on a two-row dataset, moving one row's score and bisecting each jump
down to two adjacent floats), and every fourth dataset draws its scores
from them.
"""

import numpy as np
import pandas as pd

from ..inputs.sorted_data import SortedDataset
from ..scoring import measures as _measures
from ..utils.names import MODES
from ..utils.validation import check_mode, check_weights, shown
from .bound_checks import Checker, MeasureCheck, Violation

__all__ = ["check_measure", "probe_points", "MeasureCheck", "Violation", "MODES", "WEIGHTS"]

#: The (size_weight alpha, balance_weight beta) pairs checked by default.
WEIGHTS = ((0, 0), (0, 1), (1, 1), (0.3, 1), (1, 0.3), (0.5, 0.5), (2, 0))


def check_measure(
    measure,
    *,
    random_state=0,
    n_datasets=40,
    max_rows=9,
    modes=MODES,
    weights=WEIGHTS,
    tight=False,
    null_samples=400,
):
    """Check a measure's bounds and hooks by enumerating every subset of small data.

    On ``n_datasets`` random datasets of 4 to ``max_rows`` rows (scores in
    [0, 1]; every other one with tied scores, every fourth with scores at
    and next to the scores where the value jumps, :func:`probe_points`;
    positives the minority in half of them, the majority in the others) the
    measure is prepared on the
    dataset and ``value`` is computed on every subset of its rows on which
    the measure is defined. Then, for every cover (every set of rows):

    * ``value`` is finite on every defined subset;
    * ``batch_values`` equals ``value`` on every defined subset;
    * ``extremes(cover)`` is valid: no subset of the cover lies below the
      lowest or above the highest (with ``tight=True`` also: some subset
      reaches each);
    * ``size_aware_bound(cover, reference, sign, alpha)`` is at least
      ``|T|**alpha * sign * (value(T) - reference)`` on every subset ``T``;
    * the optimistic estimate of :class:`~subroc_ext.SoftClassifierQF` with
      each mode and weights is at least the quality of every subset: the
      guarantee pruning relies on;

    and per dataset ``null_values`` draws from the values of the subsets
    with the given class counts (the given size for a measure whose
    ``null_by_size`` is True), with their mean (within five standard
    errors), and ``prepare`` changes neither the measure nor a measure it
    prepared before.

    Parameters
    ----------
    measure : subroc_ext.Measure
        The measure to check (never changed; a measure that needs both
        classes in the data, ``dataset_is_defined``, is fine: every dataset
        has both).
    random_state : int, numpy.random.Generator or None, default=0
        Seed of the random datasets.
    n_datasets : int, default=40
        Random datasets; each has up to ``2**max_rows`` covers.
    max_rows : int, default=9
        Largest dataset, 4 to 14 rows (the time grows as ``2**max_rows``).
    modes : sequence of {'worse', 'better', 'both'}, default all (:data:`MODES`)
    weights : sequence of (size_weight, balance_weight), default :data:`WEIGHTS`
    tight : bool, default=False
        Also report ``extremes`` that no subset reaches (for measures that
        claim exact extremes, as the built-in ROC AUC, PR AUC and ARL do).
    null_samples : int, default=400
        Values drawn from ``null_values`` per class-count pair (0: not checked).

    Returns
    -------
    MeasureCheck
        ``ok``, the violations (each on the smallest cover that shows it,
        with the subset, the claimed and the reached value) and what was
        checked. A method of the measure that raises is reported as a
        violation ``'error'``, not raised.

    Raises
    ------
    TypeError
        If ``measure`` is not a :class:`~subroc_ext.Measure`.
    ValueError
        If a setting is out of range.

    Examples
    --------
    A balanced accuracy whose highest value adds NumPy booleans
    (``np.True_ + np.True_`` is ``True``, not 2):

    >>> import numpy as np, subroc_ext
    >>> class Broken(subroc_ext.Measure):
    ...     name, min_positives, min_negatives = "balanced_accuracy", 1, 1
    ...     def value(self, cover):
    ...         hit = cover.scores >= 0.5
    ...         return (hit[cover.is_positive].mean() + (~hit[~cover.is_positive]).mean()) / 2
    ...     def extremes(self, cover):
    ...         hit = cover.scores >= 0.5
    ...         pos, neg = hit[cover.is_positive], ~hit[~cover.is_positive]
    ...         return (pos.all() + neg.all()) / 2, (pos.any() + neg.any()) / 2
    >>> report = subroc_ext.check_measure(Broken(), n_datasets=4, modes=["better"],
    ...                                   weights=[(0, 0)])
    >>> report.ok, sorted({v.check for v in report.violations})
    (False, ['extremes', 'optimistic_estimate'])
    >>> print(report.violations[0])  # doctest: +NORMALIZE_WHITESPACE
    extremes: highest is below the value of a subset
        cover labels=[0, 1] scores=[0.0, 0.75], subset rows=[0, 1]: claimed 0.5, reached 1.0
    """
    _measures.check_measure_type(measure)
    n_datasets = _int_in(n_datasets, "n_datasets", 1, None)
    max_rows = _int_in(max_rows, "max_rows", 4, 14)
    null_samples = _int_in(null_samples, "null_samples", 0, None)
    modes = [check_mode(mode) for mode in modes]
    weights = [check_weights(*pair) for pair in weights]
    if not modes or not weights:
        raise ValueError("modes and weights must each name at least one setting")
    # one stream for the datasets, one for the null draws, one for the scores at
    # the probe points: the datasets do not depend on the other settings
    data_rng, null_rng, probe_rng = np.random.default_rng(random_state).spawn(3)
    checker = Checker(measure, modes, weights, tight, null_samples, null_rng)
    points = probe_points(measure)
    previous = None
    for index in range(n_datasets):
        labels, scores = _random_dataset(data_rng, index, max_rows)
        if index % 4 == 3 and len(points):  # in place of continuous scores
            scores = np.sort(probe_rng.choice(points, len(scores)))
        checked = checker.check_dataset(labels, scores)
        if previous is not None:
            checker.check_still_prepared(*previous)
        previous = checked or previous
    return checker.result()


#: Grid steps on which :func:`probe_points` looks for jumps, and the most jumps
#: of a value that is a step function of the score (more: it moves with the
#: score, and no threshold is to be found).
_PROBE_STEPS, _MOST_JUMPS = 32, 8


def probe_points(measure):
    """The scores at which ``measure``'s value jumps, with their neighbours.

    On a dataset of one positive and one negative (more where the measure
    needs them), all scored 0.5 but one, that one row's score moves over a
    grid on [0, 1]; each step where the value changes is bisected down to two
    adjacent floats, both of which are probe points (for ``score > 0.3``:
    0.3 and the float after it). Done for a positive and a negative row.

    Parameters
    ----------
    measure : subroc_ext.Measure

    Returns
    -------
    numpy.ndarray
        Sorted scores in [0, 1]; empty if the value moves with the score
        (more than :data:`_MOST_JUMPS` steps change) or cannot be computed.

    Examples
    --------
    >>> class Specificity(_measures.Measure):
    ...     name, min_negatives = "specificity", 1
    ...     def value(self, cover):
    ...         return float(np.mean(cover.scores[~cover.is_positive] <= 0.3))
    >>> [float(point) for point in probe_points(Specificity())]
    [0.3, 0.30000000000000004]
    """
    points = set()
    counts = (max(1, getattr(measure, "min_positives", 1)), max(1, getattr(measure, "min_negatives", 1)))
    for moved in (True, False):
        labels = np.array([moved] + [True] * counts[0] + [False] * counts[1])
        try:
            grid = np.linspace(0.0, 1.0, _PROBE_STEPS + 1)
            values = [_value_with_score(measure, labels, score) for score in grid]
        except Exception:  # the measure's own failures are check_measure's to report
            continue
        jumps = [i for i in range(_PROBE_STEPS) if not _same_value(values[i], values[i + 1])]
        if len(jumps) > _MOST_JUMPS:
            continue
        for i in jumps:
            points.update(_bisected(measure, labels, grid[i], grid[i + 1], values[i]))
    return np.array(sorted(point for point in points if 0.0 <= point <= 1.0))


def _value_with_score(measure, labels, score):
    """The measure on ``labels`` scored 0.5, but the first row ``score`` (prepared on it)."""
    scores = np.full(len(labels), 0.5)
    scores[0] = score
    dataset = SortedDataset(pd.DataFrame({"label": labels, "score": scores}), "label", "score", True)
    whole = dataset.cover()
    return measure.prepare(whole).value(whole)


def _same_value(a, b):
    return a == b or (np.isnan(a) and np.isnan(b))


def _bisected(measure, labels, low, high, low_value):
    """Adjacent floats ``low < high`` around a jump of the value between ``low`` and ``high``."""
    while True:
        middle = low + (high - low) / 2
        if not low < middle < high:
            return low, high
        if _same_value(_value_with_score(measure, labels, middle), low_value):
            low = middle
        else:
            high = middle


def _int_in(value, name, low, high):
    if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool)):
        raise ValueError(f"{name} must be an integer, got {shown(value)}")
    if value < low or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ValueError(f"{name} must be {bounds}, got {value}")
    return int(value)


def _random_dataset(rng, index, max_rows):
    """Labels and scores (ascending) of a random dataset with both classes."""
    size = int(rng.integers(4, max_rows + 1))
    if index % 2 == 0:  # tied scores, on a grid of 2 to 5 values in [0, 1]
        scores = rng.choice(np.linspace(0, 1, int(rng.integers(2, 6))), size)
    else:
        scores = rng.random(size)
    share = rng.uniform(0.15, 0.45) if index // 2 % 2 == 0 else rng.uniform(0.55, 0.85)
    labels = rng.random(size) < share
    positive, negative = rng.permutation(size)[:2]
    labels[positive], labels[negative] = True, False
    return labels, np.sort(scores)
