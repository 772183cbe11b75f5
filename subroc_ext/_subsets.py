"""Uniform random subsets with fixed class counts, for null distributions.

The randomization test (:mod:`subroc_ext.significance`) compares a pattern with
many random subsets of the validation data that have the pattern's numbers of
positives and negatives. These helpers draw such subsets fast and exactly:
each class's rows are drawn separately, as the drawn rows or as the left-out
complement (whichever is smaller), with procedures that treat all rows alike,
so every subset is equally likely. The measures in :mod:`subroc_ext.measures`
use them in ``Measure.null_values``. Class 0 is negative, class 1 positive.
"""

import numpy as np

# Bytes of per-batch working arrays that should stay in a core's cache.
_CACHE_BYTES = 1 << 20


def _random_bytes(rng, shape):
    """Uniform random bytes, taken from the generator's raw 64-bit outputs."""
    count = int(np.prod(shape))
    raw = rng.bit_generator.random_raw(-(-count // 8)).view(np.uint8)
    return raw[:count].reshape(shape)


class _Scratch:
    """Reusable work arrays. Fresh large arrays cost page faults (the
    allocator hands freed memory back to the system); reusing a few buffers
    across batches avoids most of them."""

    def __init__(self):
        self._buffers = {}

    def __call__(self, name, shape, dtype):
        """A C-contiguous array of this shape and dtype (contents arbitrary)."""
        dtype = np.dtype(dtype)
        count = int(np.prod(shape))
        buffer = self._buffers.get(name)
        if buffer is None or buffer.dtype != dtype or buffer.size < count:
            buffer = self._buffers[name] = np.empty(count, dtype=dtype)
        return buffer[:count].reshape(shape)


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


def _distinct_values(rng, population, size, marks, scratch=None):
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
    scratch = _Scratch() if scratch is None else scratch
    # Enough draws for about four standard deviations more distinct values than needed.
    share = min(0.99, (size + 4 * np.sqrt(size * size / (2 * population)) + 4) / population)
    count = int(min(np.iinfo(marks.dtype).max - 1, max(size, np.ceil(-population * np.log1p(-share)))))
    draws = rng.integers(0, population, (rows, count))
    cells = scratch("cells", (rows, count), np.intp)
    np.add(draws, (np.arange(rows) * population)[:, None], out=cells)
    flat = marks.reshape(-1)
    ids = np.arange(1, count + 1, dtype=marks.dtype)
    flat[cells] = ids
    read = scratch("read", (rows, count), marks.dtype)
    np.take(flat, cells, out=read, mode="clip")
    won = scratch("won", (rows, count), bool)
    np.equal(read, ids, out=won)
    rank = scratch("rank", (rows, count), np.int32)
    np.cumsum(won, axis=1, dtype=np.int32, out=rank)
    keep = scratch("keep", (rows, count), bool)
    np.less_equal(rank, size, out=keep)
    keep &= won
    if count > size:
        flat[cells[won & ~keep]] = 0
    found = np.minimum(rank[:, -1], size)
    if (found == size).all():
        values = scratch("values", (rows, size), draws.dtype)
        np.compress(keep.reshape(-1), draws.reshape(-1), out=values.reshape(-1))
        return values
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
    if 8 * size >= population:
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


def _marks_cost(population, size):
    """Rough cost (ns) of :func:`_distinct_marks` for one row."""
    return 1.2 * population if 8 * size >= population else 5.0 * size + 0.8 * population


def _values_dtype(size):
    return np.int16 if 2 * size + 64 < np.iinfo(np.int16).max else np.int32


def _batch_rows(n_samples, row_bytes, row_elements, batch_elements):
    """Rows per batch: about a cache's worth, but enough to make the Python
    overhead per batch small, within the caller's memory bound."""
    rows = max(64, _CACHE_BYTES // max(row_bytes, 1))
    return int(max(1, min(n_samples, rows, batch_elements // max(row_elements, 1))))


class _ClassTables:
    """What sampling subsets class by class needs to know about a dataset.

    Class ``c`` has ``size[c]`` rows, at dataset positions ``rows[c]``
    (ascending, hence by score). For its ``i``-th row, ``below[c][i]`` and
    ``up_to[c][i]`` count the rows of the other class scored strictly lower,
    and lower or equal. ``mixed_bounds[c]`` holds, for each tie group with
    rows of both classes, the index of its first row among the rows of class
    ``c`` and one past its last. ``rank`` orders the dataset by score,
    negatives before positives within a tie, and ``rank_positives_first``
    the other way round.
    """

    def __init__(self, dataset):
        counts = dataset.counts
        per_group = (counts.negatives, counts.positives)
        up_to_group = tuple(np.cumsum(c) for c in per_group)
        is_positive = dataset.is_positive
        self.rows = (np.flatnonzero(~is_positive), np.flatnonzero(is_positive))
        self.size = (len(self.rows[0]), len(self.rows[1]))
        self.below, self.up_to = [], []
        for c in (0, 1):
            groups = dataset.group_ids[self.rows[c]]
            self.up_to.append(up_to_group[1 - c][groups])
            self.below.append(self.up_to[c] - per_group[1 - c][groups])
        mixed = np.flatnonzero((counts.positives > 0) & (counts.negatives > 0))
        self.mixed_bounds = [
            (up_to_group[c][mixed] - per_group[c][mixed], up_to_group[c][mixed]) for c in (0, 1)
        ]
        self.rank = np.empty(len(is_positive), dtype=np.intp)
        self.rank[np.lexsort((is_positive, dataset.group_ids))] = np.arange(len(is_positive))
        self.rank_positives_first = np.empty_like(self.rank)
        self.rank_positives_first[np.lexsort((~is_positive, dataset.group_ids))] = np.arange(
            len(is_positive)
        )
        self._runs = {}

    def runs(self, c):
        """Runs of consecutive rows of class ``c`` with equal ``below`` and
        ``up_to``: their first rows and those two counts."""
        if c not in self._runs:
            below, up_to = self.below[c], self.up_to[c]
            change = np.ones(len(below), dtype=bool)
            change[1:] = (below[1:] != below[:-1]) | (up_to[1:] != up_to[:-1])
            starts = np.flatnonzero(change)
            self._runs[c] = starts, below[starts], up_to[starts]
        return self._runs[c]


def _class_tables(holder, dataset):
    """The :class:`_ClassTables` of ``dataset``, cached on ``holder``."""
    cached = getattr(holder, "_class_tables_cache", None)
    if cached is None or cached[0] is not dataset:
        cached = (dataset, _ClassTables(dataset))
        holder._class_tables_cache = cached
    return cached[1]


def _drawn(tables, positives, negatives):
    """Per class: whether to draw the rows left out rather than those chosen
    (whichever are fewer), and how many rows to draw."""
    wanted = (negatives, positives)
    complement = [2 * wanted[c] > tables.size[c] for c in (0, 1)]
    drawn = [tables.size[c] - wanted[c] if complement[c] else wanted[c] for c in (0, 1)]
    return complement, drawn


def _random_positions(tables, positives, negatives, n_samples, rng, batch_elements):
    """Batches of uniformly random subsets with the given class counts.

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


class _PairCounts:
    """How to count the pairs of random subsets with fixed class counts.

    With ``A`` the rows drawn of one class (the *prefix* class) and ``B``
    those of the other, ``G(A, B)``, the sum over pairs of ``2 [a below b] +
    [a tied with b]``, comes from the running count of ``A`` over the prefix
    class's rows (in score order) at each row of ``B``; drawn sets that are
    complements of the chosen ones (see :func:`_drawn`) enter by linearity.
    ``A`` is drawn as marks; ``B`` as a list of rows (*sparse*; cost per
    drawn row) or as marks summed over the runs of rows between prefix rows
    (*dense*; cost per row of the class), whichever is estimated cheaper.

    Parameters
    ----------
    tables : _ClassTables
    positives, negatives : int
        Class counts of the subsets.
    prefix : {0, 1}, optional
        The prefix class; chosen by cost if omitted (as is ``dense``).
    dense : bool, optional
    """

    def __init__(self, tables, positives, negatives, prefix=None, dense=None):
        self.positives, self.negatives = positives, negatives
        self.complement, self.drawn = _drawn(tables, positives, negatives)
        size, drawn = tables.size, self.drawn
        if prefix is None or dense is None:
            costs = {}
            for first in (0, 1) if prefix is None else (prefix,):
                second = 1 - first
                # rough nanoseconds per subset
                marks = _marks_cost(size[first], drawn[first]) + 0.5 * size[first]
                costs[first, False] = marks + 20.0 * drawn[second] + 0.3 * size[second]
                costs[first, True] = (
                    marks + _marks_cost(size[second], drawn[second]) + 1.6 * size[second]
                    + 3.0 * len(tables.runs(second)[0])
                )  # fmt: skip
                if dense is not None:
                    del costs[first, not dense]
            prefix, dense = min(costs, key=costs.get)
        self.prefix, self.dense = prefix, dense
        other = 1 - prefix
        self.sizes = size[prefix], size[other]
        self.starts, self.run_below, self.run_up_to = tables.runs(other)
        self.run_bounds = np.append(self.starts, size[other])
        self.tied_runs = bool(np.any(self.run_below != self.run_up_to))
        self.below, self.up_to = tables.below[other], tables.up_to[other]
        # G(V1, {b}) for each row b of the other class, G({a}, V2) for each prefix row a
        self.with_all_prefix = self.below + self.up_to
        self.with_all_other = 2 * size[other] - tables.below[prefix] - tables.up_to[prefix]
        self.total = int(self.with_all_prefix.sum())
        # tie groups with rows of both classes
        self.low1, self.high1 = tables.mixed_bounds[prefix]
        low2, high2 = tables.mixed_bounds[other]
        lengths = high2 - low2
        self.tied = np.repeat(low2 - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        self.tied_starts = np.cumsum(lengths) - lengths
        self.scratch = _Scratch()

    def batch_rows(self, n_samples, batch_elements):
        size1, size2 = self.sizes
        drawn2 = self.drawn[1 - self.prefix]
        if self.dense:
            # streams through its arrays: a larger batch costs no cache misses
            row_bytes = (6 * (size1 + size2) + 24 * len(self.starts)) // 8
        else:
            # reads and writes its marks at random: keep them in the cache
            row_bytes = 5 * size1 + 2 * size2 + 48 * drawn2
        return _batch_rows(n_samples, row_bytes, size1 + size2 + drawn2, batch_elements)

    def buffers(self, rows):
        """Zeroed marks of the prefix class and, if dense, of the other class."""
        size1, size2 = self.sizes
        dtype = np.uint8 if self.dense else _values_dtype(self.drawn[1 - self.prefix])
        return np.zeros((rows, size1), dtype=np.uint8), np.zeros((rows, size2), dtype=dtype)

    def draw(self, rng, marks1, marks2):
        """Draw ``A`` (marks) and ``B`` (marks if dense, else rows) into the
        zeroed buffers; returns ``B``."""
        size1, size2 = self.sizes
        _distinct_marks(rng, size1, self.drawn[self.prefix], marks1)
        if self.dense:
            _distinct_marks(rng, size2, self.drawn[1 - self.prefix], marks2)
            return marks2
        return _distinct_values(rng, size2, self.drawn[1 - self.prefix], marks2, self.scratch)

    def double_wins(self, marks1, drawn2, marks2=None):
        """Twice the Mann-Whitney U of each row's subset, from its draws.

        ``marks1`` marks ``A`` (0/1, one row per subset); ``drawn2`` marks
        ``B`` (dense) or lists its rows (sparse; ``marks2`` then marks them
        with non-zero values, which ties between the classes need).
        """
        n, scratch = len(marks1), self.scratch
        counts = scratch("counts", (n, self.sizes[0] + 1), np.int32)
        counts[:, 0] = 0
        np.cumsum(marks1, axis=1, dtype=np.int32, out=counts[:, 1:])  # drawn among the first t
        if self.dense:
            runs = len(self.starts)
            weights = scratch("weights", (n, runs), np.int32)
            np.take(counts, self.run_below, axis=1, out=weights, mode="clip")
            if self.tied_runs:
                more = scratch("more", (n, runs), np.int32)
                weights += np.take(counts, self.run_up_to, axis=1, out=more, mode="clip")
            else:
                weights *= 2
            if self.complement[self.prefix]:
                np.subtract(self.run_below + self.run_up_to, weights, out=weights)
            # drawn rows per run, from running counts (faster than np.add.reduceat)
            running = scratch("running", (n, self.sizes[1] + 1), np.int32)
            running[:, 0] = 0
            np.cumsum(drawn2, axis=1, dtype=np.int32, out=running[:, 1:])
            bounds = scratch("bounds", (n, runs + 1), np.int32)
            np.take(running, self.run_bounds, axis=1, out=bounds, mode="clip")
            in_runs = scratch("in_runs", (n, runs), np.int32)
            np.subtract(bounds[:, 1:], bounds[:, :-1], out=in_runs)
            pairs = np.einsum("ij,ij->i", weights, in_runs, dtype=np.int64)
        else:
            offsets = (np.arange(n) * (self.sizes[0] + 1))[:, None]
            flat = counts.reshape(-1)
            index = scratch("index", drawn2.shape, np.intp)
            np.take(self.below, drawn2, out=index, mode="clip")
            index += offsets
            gathered = scratch("gathered", drawn2.shape, np.int32)
            pairs = 2 * np.take(flat, index, out=gathered, mode="clip").sum(axis=1, dtype=np.int64)
            if len(self.tied) and len(self.tied) <= drawn2.shape[1]:
                in_b = np.add.reduceat(
                    np.take(marks2, self.tied, axis=1) != 0, self.tied_starts, axis=1, dtype=np.int64
                )
                in_a = np.take(counts, self.high1, axis=1) - np.take(counts, self.low1, axis=1)
                pairs += np.einsum("ij,ij->i", in_a, in_b)
            elif len(self.tied):
                index = np.take(self.up_to, drawn2)
                index += offsets
                pairs = pairs // 2 + np.take(flat, index).sum(axis=1, dtype=np.int64)
            if self.complement[self.prefix]:
                pairs = np.take(self.with_all_prefix, drawn2).sum(axis=1, dtype=np.int64) - pairs
        if self.complement[1 - self.prefix]:
            with_a = np.einsum("ij,j->i", marks1, self.with_all_other)  # no BLAS: exact, one thread
            pairs = (self.total - with_a - pairs) if self.complement[self.prefix] else (with_a - pairs)
        # G counts prefix rows below rows of the other class: 2U if the prefix is negative.
        return pairs if self.prefix == 0 else 2 * self.positives * self.negatives - pairs


def _null_double_wins(tables, positives, negatives, n_samples, rng, batch_elements):
    """Twice the Mann-Whitney U (positive above negative, ties one half) of
    ``n_samples`` uniformly random subsets with the given class counts (int64)."""
    plan = _PairCounts(tables, positives, negatives)
    rows = plan.batch_rows(n_samples, batch_elements)
    marks1, marks2 = plan.buffers(rows)
    out = np.empty(n_samples, dtype=np.int64)
    for start in range(0, n_samples, rows):
        n = min(rows, n_samples - start)
        m1, m2 = marks1[:n], marks2[:n]
        if start:
            m1.fill(0)
            m2.fill(0)
        out[start : start + n] = plan.double_wins(m1, plan.draw(rng, m1, m2), m2)
    return out


def _batch_wins(tables, positions):
    """Mann-Whitney U (positive above negative, ties one half) of each row's
    subset, and its numbers of positives and negatives.

    Sorting a row by rank with negatives first within a tie, the column of a
    positive counts the negatives at or below it plus the positives below
    it; with positives first, only the negatives strictly below. U is the
    mean of the two sums, less the positives' own part.
    """
    width = positions.shape[1]
    twice = np.zeros(len(positions), dtype=np.int64)
    for rank in (tables.rank, tables.rank_positives_first):
        positive_at = np.zeros(len(rank), dtype=bool)
        positive_at[rank[tables.rows[1]]] = True
        ranks = np.sort(rank[positions], axis=1)
        twice += np.where(positive_at[ranks], np.arange(width), 0).sum(axis=1)
    positive = np.zeros(len(tables.rank), dtype=bool)
    positive[tables.rows[1]] = True
    n_positive = positive[positions].sum(axis=1)
    twice -= n_positive * (n_positive - 1)
    return twice / 2, n_positive, width - n_positive
