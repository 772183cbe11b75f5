"""Null distributions: a measure on random subsets with fixed class counts.

The randomization test (:mod:`subroc_ext.inference.significance`) compares a pattern's
statistic with the measure on many subsets of the validation data drawn
uniformly at random among those with the pattern's numbers of positives and
negatives. :func:`null_values` draws them through the measure's
:meth:`~subroc_ext.scoring.measures.Measure.null_values` hook, whose default
(:func:`sample_null_values`) goes by measure type:

* a built-in measure (:func:`subroc_ext.scoring.measures.compiled_kind`): the
  compiled sampler (:func:`subroc_ext.scoring.cover_kernels.null_values`), which
  draws each subset as a bitset and evaluates it with the search engine's
  kernels, so a random subset equal to a pattern's cover gets exactly the
  pattern's value;
* any other measure: batches of random dataset positions
  (:func:`subroc_ext.utils.subsets.random_positions`) evaluated by the measure's
  :meth:`~subroc_ext.scoring.measures.Measure.batch_values` hook (by default
  :func:`values_one_by_one`).

:func:`reference_null_values` is the same distribution in ten plain lines:
the oracle the tests compare every sampler with.
"""

import numpy as np

from ..utils.subsets import ClassTables, random_positions
from .measures import Measure, compiled_kind, compiled_null_values

__all__ = [
    "null_values",
    "paired_null_values",
    "sample_null_values",
    "values_one_by_one",
    "reference_null_values",
]


def null_values(measure, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
    """The measure on random subsets of ``dataset`` with fixed class counts.

    Parameters
    ----------
    measure : Measure
        Prepared on ``dataset`` (:meth:`Measure.prepare`).
    dataset : Cover
        The whole dataset.
    positives, negatives : int
        Class counts of every subset; the measure must be defined there.
    n_samples : int
        Number of subsets. Each is drawn uniformly at random among the
        subsets of ``dataset`` with these class counts, independently of
        the others.
    rng : numpy.random.Generator
        Source of randomness (the values are reproducible from its state).
    batch_elements : int, default=4_000_000
        Rough upper bound on the number of array elements held at once.

    Returns
    -------
    numpy.ndarray of float, shape (n_samples,)
        From the measure's :meth:`~subroc_ext.scoring.measures.Measure.null_values`
        hook (by default :func:`sample_null_values`).

    Examples
    --------
    >>> from subroc_ext.scoring.measures import ROCAUC, Cover
    >>> whole = Cover.from_arrays([True, False] * 5, np.arange(10.0))
    >>> values = null_values(ROCAUC(), whole, 3, 3, 1000, np.random.default_rng(0))
    >>> values.shape, bool(((values >= 0) & (values <= 1)).all())
    ((1000,), True)
    """
    values = measure.null_values(
        dataset, positives, negatives, n_samples, rng, batch_elements=batch_elements
    )
    return np.asarray(values, dtype=float)


def sample_null_values(measure, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
    """The default of :meth:`~subroc_ext.scoring.measures.Measure.null_values`.

    The compiled sampler for a built-in measure
    (:func:`subroc_ext.scoring.measures.compiled_kind`), else batches of random
    positions evaluated by the measure's ``batch_values``. Parameters as in
    :func:`null_values`.
    """
    return Measure.null_values(
        measure, dataset, positives, negatives, n_samples, rng, batch_elements=batch_elements
    )


def paired_null_values(measures, datasets, first_positions, positives, negatives, n_samples, rng,
                       *, batch_elements=4_000_000):  # fmt: skip
    """Two rankings of the same rows on the same random subsets with fixed class counts.

    The null distribution of the paired comparison (a new model against a
    baseline on the same rows): each random subset of the rows is evaluated
    with both models' scores.

    Parameters
    ----------
    measures : (Measure, Measure)
        The measure prepared on each dataset (two different measures, e.g.
        the expected ROC AUC and the ROC AUC of one model, work too).
    datasets : (Cover, Cover)
        The same rows sorted by the first and by the second model's score.
    first_positions : numpy.ndarray of int
        For each position in ``datasets[1]``, the position of that row in
        ``datasets[0]``.
    positives, negatives, n_samples, rng, batch_elements
        As in :func:`null_values`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The measure on each subset for the first and for the second dataset.

    Notes
    -----
    Built-in measures: the compiled sampler runs once per dataset (each
    with its measure's kernel) from one seed, with the pools of the first dataset the rows of those of the
    second in the same order; its draws depend only on the seed and on
    indices into the pools, so both runs draw the same rows. Other measures:
    :func:`subroc_ext.utils.subsets.random_positions` in the second dataset,
    mapped to the first, evaluated by each measure's ``batch_values``.

    Examples
    --------
    >>> from subroc_ext.scoring.measures import ROCAUC, Cover
    >>> labels = np.array([True, False] * 4)
    >>> new, old = Cover.from_arrays(labels, np.arange(8.0)), Cover.from_arrays(labels, -np.arange(8.0))
    >>> first = np.arange(8)[::-1]  # the row at new position i is at old position 7 - i
    >>> a, b = paired_null_values((ROCAUC(), ROCAUC()), (old, new), first, 2, 2, 100,
    ...                           np.random.default_rng(0))
    >>> bool(np.allclose(a + b, 1.0))  # reversed scores: AUC and 1 - AUC on every subset
    True
    """
    first, second = datasets
    first_positions = np.asarray(first_positions, dtype=np.int64)
    kinds = [compiled_kind(measure) for measure in measures]
    if None not in kinds:
        positions = np.arange(len(second.rows), dtype=np.int64)
        pools = positions[second.is_positive], positions[~second.is_positive]
        seed = int(rng.integers(2**63))  # one generator state per run: the same draws
        mapped = tuple(first_positions[pool] for pool in pools)
        return tuple(
            compiled_null_values(
                kind, measure, dataset, positives, negatives, n_samples,
                np.random.default_rng(seed), rows,
            )  # fmt: skip
            for kind, measure, dataset, rows in zip(kinds, measures, datasets, (mapped, pools))
        )
    tables = ClassTables(second.is_positive)
    values = ([], [])
    for positions in random_positions(tables, positives, negatives, n_samples, rng, batch_elements):
        mapped = np.sort(first_positions[positions], axis=1)
        values[0].append(np.asarray(measures[0].batch_values(first, mapped), dtype=float))
        values[1].append(np.asarray(measures[1].batch_values(second, positions), dtype=float))
    return tuple(np.concatenate(v) if v else np.zeros(0) for v in values)


def values_one_by_one(measure, dataset, positions):
    """The default of :meth:`~subroc_ext.scoring.measures.Measure.batch_values`:
    :meth:`~subroc_ext.scoring.measures.Measure.value` on one subset after another.

    Parameters
    ----------
    measure : Measure
        Prepared on ``dataset``.
    dataset : Cover
        The whole dataset the positions index into.
    positions : numpy.ndarray of int, shape (n_subsets, subset_size)
        Each row holds one subset's positions in ``dataset``, ascending.

    Returns
    -------
    numpy.ndarray of float, shape (n_subsets,)
    """
    return Measure.batch_values(measure, dataset, positions)


def reference_null_values(measure, dataset, positives, negatives, n_samples, rng):
    """:func:`null_values` in plain NumPy, one subset at a time: the test oracle.

    Draws ``positives`` of the positive rows and ``negatives`` of the negative
    rows without replacement and evaluates the measure on them. Slow, but
    obviously right; a sampler of your own should match its distribution.

    Examples
    --------
    >>> from subroc_ext.scoring.measures import ROCAUC, Cover
    >>> whole = Cover.from_arrays([True, False] * 5, np.arange(10.0))
    >>> reference_null_values(ROCAUC(), whole, 5, 5, 2, np.random.default_rng(0)).tolist()  # all rows
    [0.4, 0.4]
    """
    positive_rows = np.flatnonzero(dataset.is_positive)
    negative_rows = np.flatnonzero(~dataset.is_positive)
    values = np.empty(n_samples)
    for sample in range(n_samples):
        rows = np.sort(np.concatenate((
            rng.choice(positive_rows, positives, replace=False),
            rng.choice(negative_rows, negatives, replace=False),
        )))  # fmt: skip
        values[sample] = measure.value(dataset.subset(rows))
    return values
