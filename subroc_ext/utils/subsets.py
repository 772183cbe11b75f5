"""Uniform random subsets in vectorized NumPy batches.

The randomization test (:mod:`subroc_ext.inference.significance`) compares a pattern with
many random subsets of the validation data that have the pattern's numbers of
positives and negatives. These functions draw such subsets fast and exactly:
each class's rows are drawn separately, as the drawn rows or as the left-out
complement (whichever is smaller), with procedures that treat all rows alike,
so every subset is equally likely. :mod:`subroc_ext.scoring.null_sampling` uses
:func:`random_positions` for measures without a compiled sampler, and
:class:`~subroc_ext.AUCMuQF` uses :func:`sample_subsets` per class. Class 0 is
negative, class 1 positive. :func:`all_subsets` enumerates every subset of a
few rows instead (:func:`subroc_ext.check_measure` and the exhaustive tests).

Performance knobs
-----------------
The numeric constants below only trade speed for memory; none affects which
subsets are drawn with which probability (the tests check uniformity for
several settings of each regime):

* ``_CACHE_BYTES``: per-batch working arrays are sized to stay in a core's cache.
* ``_DENSE_SHARE``: a class is drawn by byte masks once a draw takes at least
  this share of it (:func:`_distinct_marks`), else by drawing values.
* In :func:`_fill`, ``1.25 * missing + 2`` candidates per missing cell per
  round and at most ``4096`` per row: few rounds, small arrays.
* In :func:`_distinct_values`, about four standard deviations more draws than
  needed, so the top-up of :func:`_fill` is rare.
"""

import numpy as np

__all__ = ["ClassTables", "all_subsets", "random_positions", "sample_subsets"]

# Bytes of per-batch working arrays that should stay in a core's cache.
_CACHE_BYTES = 1 << 20
# Share of a population from which a draw marks cells densely (byte masks).
_DENSE_SHARE = 1 / 8


def _random_bytes(rng, shape):
    """Uniform random bytes, taken from the generator's raw 64-bit outputs."""
    count = int(np.prod(shape))
    raw = rng.bit_generator.random_raw(-(-count // 8)).view(np.uint8)
    return raw[:count].reshape(shape)


def _fill(rng, population, marks, missing, free_share=0.5):
    """Mark ``missing[r]`` more free (zero) cells of each row ``r`` of ``marks``.

    Each round draws a few candidate cells per missing one; a candidate counts
    if its cell is free and no other candidate of the round claims it (each
    writes its number, then reads it back), and a row keeps its first
    ``missing`` such cells in drawing order. No rule depends on which cell a
    candidate is, so all free cells are treated alike and every set of new
    cells is equally likely. ``free_share`` (a lower estimate of the share
    of free cells) sets how many candidates to draw.

    Returns
    -------
    numpy.ndarray of int
        The new cells (flat: ``row * population + column``), set to 1, in
        ascending row order.
    """
    flat = marks.reshape(-1)
    id_limit = min(int(np.iinfo(marks.dtype).max) - 1, 4096)
    missing = np.asarray(missing, dtype=np.int64)
    active = np.flatnonzero(missing)
    missing = missing[active]
    found = []
    while active.size:
        tries = np.minimum(id_limit, ((1.25 * missing + 2) / max(free_share, 0.01)).astype(np.int64))
        rows = np.repeat(active, tries)
        first = np.cumsum(tries) - tries
        cells = rng.integers(0, population, rows.size)
        cells += rows * population
        ids = (np.arange(1, rows.size + 1) - np.repeat(first, tries)).astype(marks.dtype)
        free = np.take(flat, cells) == 0
        cells, rows, ids = cells[free], rows[free], ids[free]
        flat[cells] = ids
        won = np.take(flat, cells) == ids
        cells, rows = cells[won], rows[won]
        # keep the first missing[row] winners of each row: a winner's rank in
        # its row is its index less the row's first index
        index = np.searchsorted(rows, active)
        counts = np.diff(np.append(index, rows.size))
        rank = np.arange(rows.size) - np.repeat(index, counts)
        keep = rank < np.repeat(missing, counts)
        flat[cells[~keep]] = 0
        kept = cells[keep]
        flat[kept] = 1
        found.append(kept)
        missing = missing - np.minimum(counts, missing)
        still = missing > 0
        active, missing = active[still], missing[still]
    if len(found) == 1:
        return found[0]
    cells = np.concatenate(found)
    return cells[np.argsort(cells // population, kind="stable")]


def _distinct_values(rng, population, size, marks):
    """``size`` distinct uniform values of ``range(population)`` per row.

    ``marks`` is a zeroed integer buffer of shape (rows, population) whose
    dtype holds ``2 * size + 64``; the chosen cells are left non-zero. A few
    more values than needed are drawn with replacement; each row keeps its
    first ``size`` distinct ones in drawing order (a repeated value counts
    for its last drawing) and tops up in the rare case of a shortfall.

    Returns
    -------
    numpy.ndarray of int, shape (rows, size)
        The values of each row, unordered.
    """
    rows = marks.shape[0]
    if size == 0:
        return np.zeros((rows, 0), dtype=np.intp)
    # Enough draws for about four standard deviations more distinct values than needed.
    share = min(0.99, (size + 4 * np.sqrt(size * size / (2 * population)) + 4) / population)
    count = int(min(np.iinfo(marks.dtype).max - 1, max(size, np.ceil(-population * np.log1p(-share)))))
    draws = rng.integers(0, population, (rows, count))
    cells = draws + (np.arange(rows) * population)[:, None]
    flat = marks.reshape(-1)
    ids = np.arange(1, count + 1, dtype=marks.dtype)
    flat[cells] = ids
    won = np.take(flat, cells) == ids
    rank = np.cumsum(won, axis=1, dtype=np.int32)
    keep = (rank <= size) & won
    if count > size:
        flat[cells[won & ~keep]] = 0
    found = np.minimum(rank[:, -1], size)
    if (found == size).all():
        return draws[keep].reshape(rows, size)
    values = np.empty((rows, size), dtype=np.intp)
    values.reshape(-1)[np.repeat(np.arange(rows) * size, found) + rank[keep] - 1] = draws[keep]
    short = size - found
    new = _fill(rng, population, marks, short)
    new_rows = new // population
    slot = np.arange(new.size) - np.repeat(np.cumsum(short) - short, short) + np.repeat(found, short)
    values.reshape(-1)[new_rows * size + slot] = new - new_rows * population
    return values


def _distinct_marks(rng, population, size, marks):
    """Set ``size`` distinct uniform cells to 1 in each row of the zeroed uint8
    buffer ``marks`` of shape (rows, population).

    Dense case: each cell is marked with a probability (in steps of 1/256)
    about one standard deviation short of ``size / population`` (rows that
    overshoot are drawn again), then each row is topped up. Cells are treated alike throughout,
    so every set is equally likely.
    """
    rows = marks.shape[0]
    if size == 0:
        return
    if size >= _DENSE_SHARE * population:
        spread = np.sqrt(size * (1 - size / population))
        threshold = np.uint8(max(0, np.floor(256 * (size - spread) / population)))
        np.less(_random_bytes(rng, marks.shape), threshold, out=marks.view(bool))
        missing = size - np.count_nonzero(marks, axis=1)
        redo = np.flatnonzero(missing < 0)
        while redo.size:
            drawn = _random_bytes(rng, (redo.size, population)) < threshold
            marks[redo] = drawn
            missing[redo] = size - np.count_nonzero(drawn, axis=1)
            redo = redo[missing[redo] < 0]
    else:
        cells = rng.integers(0, population, (rows, size))
        cells += (np.arange(rows) * population)[:, None]
        marks.reshape(-1)[cells] = 1
        missing = size - np.count_nonzero(marks, axis=1)
    if missing.any():
        _fill(rng, population, marks, missing, 1 - size / population)


def _values_dtype(size):
    return np.int16 if 2 * size + 64 < np.iinfo(np.int16).max else np.int32


def _batch_rows(n_samples, row_bytes, row_elements, batch_elements):
    """Rows per batch: about a cache's worth, but enough to make the Python
    overhead per batch small, within the caller's memory bound."""
    rows = max(64, _CACHE_BYTES // max(row_bytes, 1))
    return int(max(1, min(n_samples, rows, batch_elements // max(row_elements, 1))))


class ClassTables:
    """The rows of each class: class ``c`` has ``size[c]`` rows, at dataset
    positions ``rows[c]`` (ascending, hence by score).

    Parameters
    ----------
    is_positive : numpy.ndarray of bool
        Labels of the dataset's rows.
    """

    def __init__(self, is_positive):
        self.rows = (np.flatnonzero(~is_positive), np.flatnonzero(is_positive))
        self.size = (len(self.rows[0]), len(self.rows[1]))


def _drawn(tables, positives, negatives):
    """Per class: whether to draw the rows left out rather than those chosen
    (whichever are fewer), and how many rows to draw."""
    wanted = (negatives, positives)
    complement = [2 * wanted[c] > tables.size[c] for c in (0, 1)]
    drawn = [tables.size[c] - wanted[c] if complement[c] else wanted[c] for c in (0, 1)]
    return complement, drawn


def random_positions(tables, positives, negatives, n_samples, rng, batch_elements):
    """Batches of uniformly random subsets with the given class counts.

    Parameters
    ----------
    tables : ClassTables
        The rows of each class.
    positives, negatives : int
        Class counts of every subset.
    n_samples : int
        Number of subsets, drawn independently.
    rng : numpy.random.Generator
    batch_elements : int
        Rough upper bound on the number of array elements held at once.

    Yields
    ------
    numpy.ndarray of int, shape (rows, positives + negatives)
        Dataset positions, ascending in each row.
    """
    complement, drawn = _drawn(tables, positives, negatives)
    wanted = (negatives, positives)
    width = positives + negatives
    row_bytes = 4 * sum(tables.size) + 40 * width
    rows = _batch_rows(n_samples, row_bytes, sum(tables.size) + width, batch_elements)
    dtype = np.uint16 if sum(tables.size) <= np.iinfo(np.uint16).max + 1 else np.intp
    for start in range(0, n_samples, rows):
        n = min(rows, n_samples - start)
        picked = np.empty((n, width), dtype=dtype)
        column = 0
        for c in (0, 1):
            size = tables.size[c]
            if complement[c]:
                marks = np.zeros((n, size), dtype=np.uint8)
                _distinct_marks(rng, size, drawn[c], marks)
                chosen = np.nonzero(marks == 0)[1].reshape(n, wanted[c])
            else:
                marks = np.zeros((n, size), dtype=_values_dtype(drawn[c]))
                chosen = _distinct_values(rng, size, drawn[c], marks)
            picked[:, column : column + wanted[c]] = tables.rows[c][chosen]
            column += wanted[c]
        picked.sort(axis=1, kind="stable")
        yield picked


def sample_subsets(rng, population, size, n_subsets):
    """Uniform random ``size``-subsets of ``range(population)``, one per row.

    Parameters
    ----------
    rng : numpy.random.Generator
    population : int
        Number of items to choose from.
    size : int
        Items per subset (``0 <= size <= population``).
    n_subsets : int
        Number of subsets (rows), drawn independently.

    Returns
    -------
    numpy.ndarray of int, shape (n_subsets, size)
        Each row sorted ascending, without repeated items.

    Notes
    -----
    Up to half the population, values are drawn with replacement and each
    row keeps its first ``size`` distinct ones; beyond, the items left out
    are drawn that way. The procedure treats all items alike, so every
    ``size``-subset is equally likely. :func:`random_positions` applies it to
    each class.

    Examples
    --------
    >>> rows = sample_subsets(np.random.default_rng(0), 10, 3, 2)
    >>> rows.shape, bool((np.diff(rows, axis=1) > 0).all())
    ((2, 3), True)
    """
    if not 0 <= size <= population:
        raise ValueError(f"size must be between 0 and population={population}, got {size}")
    if 2 * size > population:
        marks = np.zeros((n_subsets, population), dtype=np.uint8)
        _distinct_marks(rng, population, population - size, marks)
        return np.nonzero(marks == 0)[1].reshape(n_subsets, size)
    marks = np.zeros((n_subsets, population), dtype=_values_dtype(size))
    chosen = _distinct_values(rng, population, size, marks)
    return np.sort(chosen, axis=1).astype(np.intp, copy=False)


def all_subsets(size):
    """Every non-empty subset of ``size`` items, as a boolean matrix.

    Row ``code - 1`` is the subset whose items are the set bits of ``code``
    (item ``i`` is bit ``i``), for ``code = 1, ..., 2**size - 1``; so the
    whole set is the last row, and a subset's code is smaller than that of
    any proper superset.

    Examples
    --------
    >>> all_subsets(2).astype(int).tolist()
    [[1, 0], [0, 1], [1, 1]]
    """
    codes = np.arange(1, 2**size)
    return ((codes[:, None] >> np.arange(size)) & 1).astype(bool)
