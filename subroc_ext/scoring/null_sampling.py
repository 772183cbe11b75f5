"""Null distributions: a measure on random subsets with fixed class counts.

The randomization test (:mod:`subroc_ext.inference.significance`) compares a pattern's
statistic with the measure on many subsets of the validation data drawn
uniformly at random among those with the pattern's numbers of positives and
negatives. :func:`null_values` draws them through the measure's
:meth:`~subroc_ext.scoring.measures.Measure.null_values` hook, whose default
(:func:`sample_null_values`) goes by measure type:

* a built-in measure (:func:`subroc_ext.scoring.compiled_measures.compiled_kind`): the
  compiled sampler (:func:`subroc_ext.scoring.cover_kernels.null_values`), which
  draws each subset as a bitset and evaluates it with the search engine's
  kernels, so a random subset equal to a pattern's cover gets exactly the
  pattern's value;
* any other measure: batches of random dataset positions
  (:func:`subroc_ext.utils.subsets.random_positions`) evaluated by the measure's
  :meth:`~subroc_ext.scoring.measures.Measure.batch_values` hook (by default
  :func:`values_one_by_one`).

The randomization test needs less than the values: only whether each
reaches the statistic. :func:`null_exceedances` answers that. For ROC AUC
and ARL (:data:`RANK_KINDS`) it draws each random subset top-down over the
tie groups and stops as soon as the answer is known
(:mod:`subroc_ext.scoring.rank_null`), so its cost does not grow with the
rows far from the statistic; for the other measures it compares the values
of :func:`null_values`. :func:`rank_null_values` gives the exact values of
the very subsets whose answers :func:`null_exceedances` gives.

:func:`reference_null_values` is the same distribution in ten plain lines:
the oracle the tests compare every sampler with.
"""

import numpy as np

from ..metrics.kernels import roc_auc_from_counts
from ..utils.parts import cores, run_parts
from ..utils.subsets import ClassTables, random_positions
from . import cover_kernels
from .compiled_measures import compiled_kind, compiled_null_values
from .measures import Measure
from .rank_null import LOG_UNREACHED, log_reach_bound, rank_null_draws

__all__ = [
    "RANK_KINDS",
    "null_values",
    "null_exceedances",
    "rank_null_values",
    "rank_cuts",
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


#: The measures (:func:`~subroc_ext.scoring.compiled_measures.compiled_kind` codes)
#: whose :func:`null_exceedances` come from the refined rank sampler.
RANK_KINDS = frozenset({cover_kernels.ROC_AUC, cover_kernels.ARL})


def null_exceedances(measure, dataset, positives, negatives, n_samples, rng, quality, thresholds,
                     *, batch_elements=4_000_000, cut_memo=None):  # fmt: skip
    """Whether ``quality`` of the measure on random subsets reaches each threshold.

    Parameters
    ----------
    measure, dataset, positives, negatives, n_samples, rng, batch_elements
        As in :func:`null_values`.
    quality : callable
        Vectorized: measure values to the test statistic (e.g.
        :meth:`~subroc_ext.SoftClassifierQF.raw_quality`). It must not
        increase up to some value and not decrease from there on (as the
        relative quality of every mode), so that the values below any
        threshold form an interval.
    thresholds : array_like of float, shape (k,)
    cut_memo : dict, optional
        Keeps the cuts of a rank measure (:func:`rank_cuts`) by class counts
        and thresholds, for calls that ask again with the same ``quality``
        (the rounds of one test, which ask each pattern's thresholds once a
        round); ``quality`` must not change while the dict is used.

    Returns
    -------
    numpy.ndarray of bool, shape (k, n_samples)
        ``quality(value of subset b) >= thresholds[j]``.

    Notes
    -----
    For a measure of :data:`RANK_KINDS` the subsets are drawn by
    :func:`~subroc_ext.scoring.rank_null.rank_null_draws`, each only as far
    as its answers need: the same answers as comparing its exact value
    (:func:`rank_null_values` from the same ``rng`` state), bit for bit, but
    where the draws are known to reach no threshold but with a chance below
    :data:`~subroc_ext.scoring.rank_null.UNREACHED` (then none is drawn).
    Otherwise the values of :func:`null_values` are compared.

    Examples
    --------
    >>> from subroc_ext.scoring.measures import ROCAUC, Cover
    >>> whole = Cover.from_arrays([True, False] * 50, np.arange(100.0))
    >>> reached = null_exceedances(ROCAUC(), whole, 10, 10, 1000, np.random.default_rng(0),
    ...                            lambda auc: 0.5 - auc, [0.0, 0.5])
    >>> reached.shape, 0.3 < reached[0].mean() < 0.7, reached[1].any()
    ((2, 1000), True, False)
    """
    thresholds = np.atleast_1d(np.asarray(thresholds, dtype=float))
    kind = compiled_kind(measure)
    if kind in RANK_KINDS:
        known = (kind, int(positives), int(negatives), thresholds.tobytes())
        cuts = None if cut_memo is None else cut_memo.get(known)
        if cuts is None:
            cuts = rank_cuts(kind, positives, negatives, quality, thresholds)
            if cut_memo is not None:
                cut_memo[known] = cuts
        return _rank_draws(dataset, positives, negatives, n_samples, rng, *cuts)[1]
    values = null_values(
        measure, dataset, positives, negatives, n_samples, rng, batch_elements=batch_elements
    )
    return np.asarray(quality(values)) >= thresholds[:, None]


def rank_null_values(measure, dataset, positives, negatives, n_samples, rng):
    """ROC AUC or ARL (:data:`RANK_KINDS`) on random subsets with fixed class
    counts, drawn by the refined rank sampler to the end: the exact values of
    the subsets of :func:`null_exceedances` from the same ``rng`` state.

    Parameters as in :func:`null_values`.

    Examples
    --------
    >>> from subroc_ext.scoring.measures import ROCAUC, Cover
    >>> whole = Cover.from_arrays([True, False] * 5, np.arange(10.0))
    >>> rank_null_values(ROCAUC(), whole, 5, 5, 2, np.random.default_rng(0)).tolist()  # all rows
    [0.4, 0.4]
    """
    kind = compiled_kind(measure)
    if kind not in RANK_KINDS:
        raise ValueError(f"measure must be ROC AUC or ARL, got {measure!r}")
    none = np.zeros(0, dtype=np.int64)
    twice = _rank_draws(dataset, positives, negatives, n_samples, rng, none, none)[0]
    return cover_kernels.rank_measures(kind, twice, positives, negatives)


def rank_cuts(kind, positives, negatives, quality, thresholds):
    """The cuts in ``2U`` of :func:`~subroc_ext.scoring.rank_null.rank_null_draws`:
    ``quality(rank_measure(2U)) >= thresholds[j]`` exactly when ``2U <=
    low[j]`` or ``2U >= high[j]``.

    Found by bisection on the floating-point values the kernels compute
    (:func:`~subroc_ext.scoring.cover_kernels.rank_measures`), so a draw is
    counted as exactly as its value would be: first the ``2U`` of the
    smallest quality, then each threshold's last ``2U`` below it and first
    above it.

    Returns
    -------
    (numpy.ndarray of int64, numpy.ndarray of int64)
    """
    top = 2 * int(positives) * int(negatives)

    def statistic(twice):
        twice = np.asarray(twice, dtype=np.int64)
        return np.asarray(quality(cover_kernels.rank_measures(kind, twice, positives, negatives)))

    lo, hi = 0, top  # the first 2U from which the quality no longer falls
    while lo < hi:
        mid = (lo + hi) // 2
        pair = statistic([mid, mid + 1])
        lo, hi = (lo, mid) if pair[1] >= pair[0] else (mid + 1, hi)
    lowest = lo
    count = len(thresholds)
    reached_everywhere = statistic([lowest])[0] >= thresholds
    falling = _boundary(statistic, thresholds, np.full(count, -1), np.full(count, lowest), top, True)
    rising = _boundary(statistic, thresholds, np.full(count, lowest), np.full(count, top + 1), top, False)
    low = np.where(reached_everywhere, top, falling)
    high = np.where(reached_everywhere, top + 1, rising)
    return low.astype(np.int64), high.astype(np.int64)


def _boundary(statistic, thresholds, lo, hi, top, reached_below):
    """Bisection per threshold between ``lo`` and ``hi`` (``reached_below``:
    ``lo`` reaches it or is -1 and ``hi`` does not, returns the last ``2U``
    reaching it; else ``lo`` does not and ``hi`` does or is past ``top``,
    returns the first)."""
    while (hi - lo > 1).any():
        active = hi - lo > 1
        mid = (lo + hi) // 2
        reached = statistic(np.clip(mid, 0, top)) >= thresholds
        raise_lo = reached if reached_below else ~reached
        lo = np.where(active & raise_lo, mid, lo)
        hi = np.where(active & ~raise_lo, mid, hi)
    return lo if reached_below else hi


#: Draws times rows (of the subsets, at most the tie groups) from which
#: :func:`_rank_draws` cuts its draws in parts, one a core
#: (:func:`~subroc_ext.utils.parts.run_parts`): each draw has its own stream,
#: so the draws are the same in any number of parts.
PART_WORK = 1 << 20

#: The cumulative class counts of the last dataset drawn from (its counts
#: array, then the two cumulative arrays), and its ROC AUC.
_CUMULATIVE = [None]


def _rank_draws(dataset, positives, negatives, n_samples, rng, low, high):
    """:func:`~subroc_ext.scoring.rank_null.rank_null_draws` on ``dataset``, seeded from ``rng``.

    Not drawn where no draw reaches a cut but with a chance below
    :data:`~subroc_ext.scoring.rank_null.UNREACHED`
    (:func:`~subroc_ext.scoring.rank_null.log_reach_bound`): a subgroup far
    in the tail of its null, as every failure at scale, is then decided
    without drawing the thousands of subsets its p-value counts (150 tests of
    a 2 M-row run drew 62 s of them, benchmarks/RESULTS.md)."""
    cached = _CUMULATIVE[0]
    if cached is None or cached[0] is not dataset.counts.positives:
        cumulative = [np.concatenate(([0], np.cumsum(c))).astype(np.int64) for c in dataset.counts]
        cached = (dataset.counts.positives, *cumulative, roc_auc_from_counts(dataset.counts))
        _CUMULATIVE[0] = cached  # one entry: the data of the test running
    seed, groups = int(rng.integers(2**63)), len(cached[1]) - 1
    if len(low) and positives > 0 and negatives > 0 and \
            log_reach_bound(cached[3], positives, negatives, low, high) + np.log(n_samples) <= LOG_UNREACHED:
        return np.zeros(n_samples, dtype=np.int64), np.zeros((len(low), n_samples), dtype=bool)  # fmt: skip
    parts = max(1, min(cores(), n_samples * min(int(positives) + int(negatives), groups) // PART_WORK))
    starts = [n_samples * part // parts for part in range(parts + 1)]
    twice = np.empty(n_samples, dtype=np.int64)
    reached = [np.empty((len(low), stop - start), dtype=bool) for start, stop in zip(starts, starts[1:])]

    def part(number):
        rank_null_draws(
            seed, starts[number], cached[1], cached[2], int(positives), int(negatives), low, high,
            twice[starts[number] : starts[number + 1]], reached[number],
        )  # fmt: skip

    run_parts(part, parts)
    return twice, reached[0] if parts == 1 else np.concatenate(reached, axis=1)


def sample_null_values(measure, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
    """The default of :meth:`~subroc_ext.scoring.measures.Measure.null_values`.

    The compiled sampler for a built-in measure
    (:func:`subroc_ext.scoring.compiled_measures.compiled_kind`), else batches of random
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
