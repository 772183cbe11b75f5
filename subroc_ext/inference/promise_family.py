"""Worse than its own scores promise, without a holdout: the studentised max-T over every pattern with enough cases.

Without a holdout the rows that chose a pattern also test it, so the
headline's promise rule (SPEC, "What the headline may call a failure",
rule 2) asks its question of every pattern of the search space at once.
:mod:`~subroc_ext.inference.promise_max_t` does so with a new search per
label draw, ranked by the case-mix quality weighted by ``sqrt(n * cb)``.
This module does it on the family of patterns fixed before any label is
seen, studentised, every draw evaluated for the whole family in one
compiled pass:

* **Family**: every cover of a conjunction of at most ``depth`` selectors
  with at least ``min_support`` rows and at least ``min_expected``
  expected positives and as many expected negatives (``sum p_i``, ``sum (1
  - p_i)``; :data:`~subroc_ext.inference.failures.MIN_CLASS_COUNT` by
  default: a headline failure needs that many of each class anyway),
  identical covers once. It depends on the attributes and the
  probabilities only, never on the labels.
* **Null**: the probabilities are the truth: each row's label is an
  independent draw ``y_i ~ Bernoulli(p_i)``, scores and attributes fixed.
* **Statistic**: the shortfall of a cover's ROC AUC from its promise in
  units of its standard deviation under the null,
  ``z(S) = (mu(S) - AUC(S)) / sigma(S)``. ``mu(S)`` is the promise
  ``E[U] / E[P N]`` (the expected Mann-Whitney count over the expected
  pairs, the model-based concordance of [2]_ with the scores' ranking),
  ``sigma(S)`` the delta method's standard deviation of ``AUC(S)``: with
  within-cover midranks ``r_j`` of the scores, ``U = sum_j y_j r_j - P (P +
  1) / 2`` is the Mann-Whitney count of any labelling, so ``AUC = U / (P
  N)`` is a smooth function of the labels and, linearised at ``y = p``,
  ``Var AUC ~ sum_j (r_j - a)^2 p_j (1 - p_j) / (P N)^2`` with ``a = P +
  1/2 + mu (n - 2 P)`` (``P = sum p_j``, ``N = n - P``). Both are
  functions of the scores and probabilities only, fixed under the null:
  studentising by them is Westfall and Young's advice for max-T [1]_ (a
  narrow plant of 30 rows competes with covers of 300 on one scale), and
  their accuracy moves only the power, never the level.
* **Max-T**: ``M_b = max_S z_b(S)`` over the family on label draw ``b``
  (``'better'``: ``-z``, ``'both'``: ``|z|``); the adjusted p-value of a
  tested pattern counts the ``M_b`` at or above its statistic, drawn in
  rounds until each decision is settled (Besag-Clifford,
  :func:`~subroc_ext.inference.permutation.max_t`). All draws share the
  family's covers and midranks; each draw is one pass over them
  (``sum |S|`` additions per draw), many draws at a time.

**Why the family-wise error is at most alpha.** ``z(S)`` depends only on
the labels of the rows of ``S`` (its centre and scale are fixed), so under
the hypotheses ``H_S`` "the labels of ``S``'s rows are draws from their
probabilities" the joint law of the statistics of the true ``H_S`` is the
same whether or not the others are true (subset pivotality), and the
single-step max-T controls the family-wise error strongly [1]_: the
largest of those statistics is exchangeable with the same largest on a
draw, which is at most ``M_b``. A tested statistic never exceeds the
cover's ``z`` (below), so it keeps that bound. The probabilities are those
of a monotone map of the scores fitted on the labels, so the null is "the
scores are the probabilities up to that map" and the bound holds as far as
the fitted map is the map. A pattern's own statistic may be read through
a map fitted without its rows (``own_probabilities``: its failure can then
neither trigger a recalibration nor bend the map its promise is read
through), while the draws come from the map of all rows: both estimate the
one map of the null, and the studentised maxima move little with it.

**Beyond the whole data's shortfall, and worse than the whole data.** The
tested statistic of a row is its studentised shortfall beyond the whole
data's, ``(mu(S) - max(c, 0) - AUC(S)) / sigma(S)`` with ``c = mu(D) -
AUC(D)`` (the promise test's on held-out rows,
:mod:`~subroc_ext.inference.promise`), at most ``z(S)``. A row tested
``beyond_whole`` must also rank worse than the whole data by the same
margin: ``(min(mu(S) - max(c, 0), AUC(D)) - AUC(S)) / sigma(S)``, again at
most ``z(S)``. Rejecting it says, by max-T's simultaneous bound ``E AUC(S)
>= AUC(S) - t sigma(S)`` for every cover at once (exact under the null;
approximate elsewhere, as a location-shift model is [1]_), that ``S``
falls short of its promise by more than the whole data does *and* ranks
worse than the whole data: rule 1 follows from rule 2's test, which
stands on its own where the size-weighted permutation test of the table
cannot separate a narrow failure from chance. ``mode='better'`` mirrors
both, ``'both'`` takes the larger side.

References
----------
.. [1] P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing:
   Examples and Methods for p-Value Adjustment", Wiley, 1993.
.. [2] D. van Klaveren, M. Gönen, E. W. Steyerberg and Y. Vergouwe, "A new
   concordance measure for risk prediction models in external validation
   settings", Statistics in Medicine 35(23), 4136-4152, 2016.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit, prange

from ..scoring.bitset import lowest_bit, pack, popcount
from .permutation import max_t, tie_tolerances, with_max_t
from .significance import base_seed

__all__ = ["FAMILY_CELLS", "METHOD", "MIN_EXPECTED", "PromiseFamily", "promise_family", "promise_family_test"]

#: The test's name in a table's ``attrs``.
METHOD = "studentised max-T over label draws"
#: The fewest expected positives, and negatives, of a pattern of the family.
MIN_EXPECTED = 10
#: The most cover rows (``sum |S|`` over the family) the family may hold: beyond, None (search per draw instead).
FAMILY_CELLS = 60_000_000
#: Label draws evaluated in one pass over the family.
_LANES = 64
#: Tags the label draws' generators apart from the other tests'.
_STREAM = 0x53545544
#: The modes' sides: (worse, better).
_SIDES = {"worse": (True, False), "better": (False, True), "both": (True, True)}


@dataclass(frozen=True)
class PromiseFamily:
    """Covers of rows in ascending score order, with what their statistic needs.

    Attributes
    ----------
    starts : numpy.ndarray of int64
        Cover ``i``'s rows are ``rows[starts[i]:starts[i + 1]]``.
    rows : numpy.ndarray of int64
        Positions in score order, ascending within each cover.
    ranks : numpy.ndarray of float
        Each cover row's midrank of its score within the cover.
    promise, scale : numpy.ndarray of float
        ``mu(S)`` and ``sigma(S)`` (module documentation).
    keys : frozenset of bytes
        Each cover's bitset words (:func:`~subroc_ext.scoring.bitset.pack`):
        which covers it holds.
    """

    starts: np.ndarray
    rows: np.ndarray
    ranks: np.ndarray
    promise: np.ndarray
    scale: np.ndarray
    keys: frozenset

    def __len__(self):
        return len(self.starts) - 1

    @classmethod
    def of_masks(cls, masks, group_ids, probabilities):
        """The family of ``masks`` (covers over score-ordered rows, one per row
        of a 2-d array) on rows with tie ids ``group_ids`` and
        ``probabilities`` (score order)."""
        return cls.of_words(pack(np.asarray(masks, dtype=bool).reshape(-1, len(group_ids))), group_ids, probabilities)

    @classmethod
    def of_words(cls, words, group_ids, probabilities):
        """:meth:`of_masks` of covers given as bitset words (one row each)."""
        starts, rows = _rows_of(words)
        ranks, promise, scale = _moments(starts, rows, np.asarray(group_ids, np.int64),
                                         np.asarray(probabilities, dtype=float))  # fmt: skip
        return cls(starts, rows, ranks, promise, scale, frozenset(cover.tobytes() for cover in words))

    def aucs(self, labels):
        """The ROC AUC of every cover on each labelling (columns of the 2-d
        ``labels``, score order; NaN where a cover holds one class)."""
        labels = np.ascontiguousarray(labels, dtype=np.uint8)
        return _aucs(self.starts, self.rows, self.ranks, labels)


def promise_family(selector_masks, group_ids, probabilities, *, depth, min_support, min_expected=MIN_EXPECTED,
                   max_cells=FAMILY_CELLS):  # fmt: skip
    """The family of the max-T: the distinct covers of the conjunctions of at
    most ``depth`` of ``selector_masks`` (score order) with at least
    ``min_support`` rows and ``min_expected`` expected positives and
    negatives; None where they would hold more than ``max_cells`` rows in all.

    Every condition only loses rows as a conjunction grows, so a conjunction
    that misses one is not extended (levelwise, each extended by the
    selectors after its last).
    """
    p = np.asarray(probabilities, dtype=float)
    selectors = pack(np.asarray(selector_masks, dtype=bool).reshape(-1, len(p)))  # no selector: (0, words)
    # the expected positives and negatives of any word's byte: sums of a few table entries per cover
    byte_sums = np.stack([_byte_sums(p, selectors.shape[1]), _byte_sums(1 - p, selectors.shape[1])])
    floors = (min_support - 1e-9, min_expected - 1e-9)
    level, last = pack(np.ones((1, len(p)), dtype=bool)), np.array([-1])
    levels, cells = [], 0
    for _ in range(depth):
        level, last, level_cells = _grown(level, last, selectors, byte_sums, *floors)
        levels.append(level)
        cells += level_cells
        if cells > max_cells:
            return None
        if not len(level):
            break
    grown = np.concatenate(levels)
    # identical covers once, the first grown kept (a cover's words as one opaque value)
    _, first = np.unique(grown.view(np.dtype((np.void, 8 * grown.shape[1]))).ravel(), return_index=True)
    return PromiseFamily.of_words(grown[np.sort(first)], group_ids, p)


def _byte_sums(values, n_words):
    """``table[w, b, v]``: the sum of ``values`` over the rows of byte ``b``
    of word ``w`` whose bits are set in ``v`` (rows past the last: 0)."""
    padded = np.zeros(64 * n_words)
    padded[: len(values)] = values
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (byte value, bit)
    return padded.reshape(n_words, 8, 8) @ bits.T


@njit(cache=True, nogil=True)
def _grown(parents, parent_last, selectors, byte_sums, min_support, min_expected):
    """The next level of :func:`promise_family`: each parent cover AND each
    selector after its last, where it holds at least ``min_support`` rows
    and ``min_expected`` expected positives and negatives (``byte_sums[c,
    w, b, v]``: those of class ``c`` among the rows of byte ``b`` of word
    ``w`` when its bits are ``v``). Their words, last selectors, and rows
    in all."""
    n_selectors, n_words = selectors.shape
    total = 0
    for i in range(len(parents)):
        total += n_selectors - 1 - parent_last[i]
    keep = np.zeros(total, dtype=np.bool_)
    cells = 0
    scratch = np.empty(n_words, dtype=np.uint64)
    at = 0
    for i in range(len(parents)):
        for selector in range(parent_last[i] + 1, n_selectors):
            size = 0
            for w in range(n_words):
                scratch[w] = parents[i, w] & selectors[selector, w]
                size += popcount(scratch[w])
            if size >= min_support:
                positives = negatives = 0.0
                for w in range(n_words):
                    for b in range(8):
                        value = (scratch[w] >> np.uint64(8 * b)) & np.uint64(255)
                        positives += byte_sums[0, w, b, value]
                        negatives += byte_sums[1, w, b, value]
                if positives >= min_expected and negatives >= min_expected:
                    keep[at] = True
                    cells += size
            at += 1
    kept = np.flatnonzero(keep)
    words = np.empty((len(kept), n_words), dtype=np.uint64)
    last = np.empty(len(kept), dtype=np.int64)
    at = k = 0
    for i in range(len(parents)):
        for selector in range(parent_last[i] + 1, n_selectors):
            if keep[at]:
                words[k] = parents[i] & selectors[selector]
                last[k] = selector
                k += 1
            at += 1
    return words, last, cells


@njit(cache=True, nogil=True)
def _rows_of(words):
    """Each cover's rows (ascending) end to end and where each starts."""
    starts = np.zeros(len(words) + 1, dtype=np.int64)
    for i in range(len(words)):
        size = 0
        for w in range(words.shape[1]):
            size += popcount(words[i, w])
        starts[i + 1] = starts[i] + size
    rows = np.empty(starts[-1], dtype=np.int64)
    at = 0
    for i in range(len(words)):
        for w in range(words.shape[1]):
            word = words[i, w]
            while word:
                rows[at] = 64 * w + lowest_bit(word)
                at += 1
                word &= word - np.uint64(1)
    return starts, rows


def promise_family_test(masks, family, is_positive, group_ids, probabilities, *, own_probabilities=None,
                        mode="worse", beyond_whole=None, alpha=0.05, max_draws=10_000, exceedances=10,
                        random_state=0):  # fmt: skip
    """Which patterns fall short of their own scores' promise beyond the whole
    data's shortfall: the studentised max-T over ``family`` (module
    documentation).

    Parameters
    ----------
    masks : sequence of numpy.ndarray of bool
        The tested patterns' covers, rows in score order. A pattern outside
        the family's conditions (too few rows or expected cases) is not
        testable (p 1).
    family : PromiseFamily
        :func:`promise_family` of the search space.
    is_positive, group_ids, probabilities : numpy.ndarray
        The rows' labels, tie ids of their scores and probabilities (those
        the label draws come from), in score order.
    own_probabilities : sequence of numpy.ndarray, optional
        Per pattern, the probabilities (score order, all rows) its own
        promise and scale are read from, e.g. of a map fitted without its
        rows; ``probabilities`` by default.
    mode : {"worse", "better", "both"}, default="worse"
    beyond_whole : sequence of bool, optional
        The patterns that must also rank worse (``'better'``: better) than
        the whole data (module documentation). Default: none.
    alpha : float, default=0.05
    max_draws : int, default=10_000
        The cap on label draws.
    exceedances : int, default=10
        ``h`` of the Besag-Clifford p-values.
    random_state : None, int or numpy.random.Generator, default=0

    Returns
    -------
    pandas.DataFrame
        One row per pattern: ``statistic``, ``p_value`` and
        ``p_value_corrected`` (the max-T adjusted p-value), ``significant``,
        ``testable``, ``null_samples`` and ``p_value_exact``. ``attrs``:
        ``null_searches`` (label draws), ``method`` and ``family`` (its
        covers).

    Examples
    --------
    The scores are the true probabilities except in ``g == 'c'``, where
    they are shuffled:

    >>> rng = np.random.default_rng(1)
    >>> p = np.sort(rng.uniform(0.05, 0.95, 600))
    >>> g = rng.choice(list("abc"), 600, p=[0.45, 0.43, 0.12])
    >>> y = rng.random(600) < p
    >>> shuffled = p.copy()
    >>> shuffled[g == "c"] = rng.permutation(p[g == "c"])
    >>> order = np.argsort(shuffled, kind="stable")
    >>> masks = np.array([g == v for v in "abc"])[:, order]
    >>> family = promise_family(masks, np.arange(600), shuffled[order], depth=1, min_support=20)
    >>> tested = promise_family_test(masks, family, y[order], np.arange(600), shuffled[order])
    >>> tested["significant"].tolist()
    [False, False, True]
    """
    worse, better = _SIDES[mode]
    seed = base_seed(random_state)
    is_positive = np.asarray(is_positive, dtype=bool)
    p = np.asarray(probabilities, dtype=float)
    masks = np.asarray(masks, dtype=bool).reshape(-1, len(p))
    beyond_whole = np.zeros(len(masks), bool) if beyond_whole is None else np.asarray(beyond_whole, bool)
    own = [p] * len(masks) if own_probabilities is None else own_probabilities
    statistics = np.array([_statistic(mask, is_positive, group_ids, q, whole, worse, better)
                           for mask, q, whole in zip(masks, own, beyond_whole)], dtype=float).reshape(-1)  # fmt: skip
    testable = np.array([key.tobytes() in family.keys for key in pack(masks)], dtype=bool) \
        & np.isfinite(statistics)  # fmt: skip
    statistics = np.where(testable, statistics, np.nan)
    table = pd.DataFrame({"statistic": statistics, "p_value": 1.0, "p_value_corrected": 1.0, "significant": False,
                          "testable": testable, "null_samples": 0, "p_value_exact": True})  # fmt: skip
    table.attrs.update(null_searches=0, method=METHOD, family=len(family))
    if not testable.any():
        return table
    order = np.argsort(-np.where(testable, statistics, -np.inf), kind="stable")[: int(testable.sum())]
    ranked = statistics[order]

    def draw(batch, k, floor):
        return [[(maximum, None)] for maximum in _null_maxima(family, p, seed, list(batch), worse, better)]

    result = max_t(draw, ranked, tie_tolerances(ranked), list(range(len(ranked))), 1, max_draws, exceedances, alpha)
    return with_max_t(table, order, result, alpha)


def _statistic(mask, is_positive, group_ids, probabilities, beyond_whole, worse, better):
    """The tested statistic of one cover (score order) read with ``probabilities``:
    its studentised shortfall beyond the whole data's (``beyond_whole``: and
    below the whole data's ROC AUC), or excess, or the larger (module
    documentation)."""
    both = PromiseFamily.of_masks(np.stack([np.ones(len(mask), dtype=bool), mask]), group_ids, probabilities)
    whole_auc, auc = both.aucs(is_positive[:, None])[:, 0]
    shortfall = both.promise[0] - whole_auc  # c = mu(D) - AUC(D)
    short, above = both.promise[1] - max(shortfall, 0.0), both.promise[1] + max(-shortfall, 0.0)
    if beyond_whole:
        short, above = min(short, whole_auc), max(above, whole_auc)
    return max((short - auc) / both.scale[1] if worse else -np.inf,
               (auc - above) / both.scale[1] if better else -np.inf)  # fmt: skip


def _null_maxima(family, probabilities, seed, draws, worse, better):
    """``M_b`` of each of ``draws``: the largest studentised shortfall (or
    excess, or either) of the family on labels drawn from the probabilities,
    each draw from the generator of ``(seed, tag, draw)``."""
    maxima = []
    ranks = family.ranks.astype(_label_type(len(probabilities)))  # the draws' sums in the labels' type
    for start in range(0, len(draws), _LANES):
        lanes = draws[start:start + _LANES]
        labels = np.empty((len(probabilities), len(lanes)), dtype=_label_type(len(probabilities)))
        for lane, b in enumerate(lanes):
            rng = np.random.default_rng(np.random.SeedSequence([seed, _STREAM, int(b)]))
            labels[:, lane] = rng.random(len(probabilities)) < probabilities
        maxima.extend(_largest(family.starts, family.rows, ranks, family.promise, family.scale, labels, worse,
                               better))  # fmt: skip
    return maxima


def _label_type(n):
    """float32 where every sum of midranks of ``n`` rows is exact in it (twice
    the sum, an integer, below 2 ** 24), float64 beyond: twice as many
    draws per instruction."""
    return np.float32 if n * (n + 1) < 2**24 else np.float64


@njit(cache=True, nogil=True)
def _moments(starts, rows, group_ids, probabilities):
    """Each cover's midranks, promise ``mu`` and delta-method scale ``sigma``
    (module documentation; NaN where undefined)."""
    ranks = np.empty(len(rows))
    promise = np.full(len(starts) - 1, np.nan)
    scale = np.full(len(starts) - 1, np.nan)
    for i in range(len(starts) - 1):
        first, end = starts[i], starts[i + 1]
        n = end - first
        expected_u, below = 0.0, 0.0  # sum of (1 - p) of the cover's rows of lower score
        positives, variance_sum = 0.0, 0.0
        j = first
        while j < end:  # one tie group at a time
            k = j
            tied = 0.0
            while k < end and group_ids[rows[k]] == group_ids[rows[j]]:
                tied += 1.0 - probabilities[rows[k]]
                k += 1
            rank = (j - first) + (k - j + 1) / 2.0
            for m in range(j, k):
                q = probabilities[rows[m]]
                ranks[m] = rank
                expected_u += q * (below + tied / 2.0) - q * (1.0 - q) / 2.0
                positives += q
                variance_sum += q * (1.0 - q)
            below += tied
            j = k
        negatives = n - positives
        pairs = positives * negatives - variance_sum  # E[P N]
        if n < 2 or pairs <= 0:
            continue
        mu = expected_u / pairs
        centre = positives + 0.5 + mu * (n - 2.0 * positives)
        spread = 0.0
        for m in range(first, end):
            q = probabilities[rows[m]]
            spread += (ranks[m] - centre) ** 2 * q * (1.0 - q)
        promise[i] = mu
        scale[i] = np.sqrt(spread) / (positives * negatives) if spread > 0 else np.nan
    return ranks, promise, scale


@njit(cache=True, nogil=True)
def _cover_sums(first, end, rows, ranks, labels, positives, rank_sum):
    """Add each labelling's positives and their mid-rank sum over the cover's
    rows ``rows[first:end]`` to ``positives`` and ``rank_sum`` (per column of ``labels``)."""
    for m in range(first, end):
        row, rank = rows[m], ranks[m]
        for lane in range(labels.shape[1]):
            y = labels[row, lane]
            positives[lane] += y
            rank_sum[lane] += rank * y


@njit(cache=True, nogil=True, parallel=True)
def _aucs(starts, rows, ranks, labels):
    """The ROC AUC of each cover on each column of ``labels`` (score order)."""
    lanes = labels.shape[1]
    out = np.full((len(starts) - 1, lanes), np.nan)
    for i in prange(len(starts) - 1):
        first, end = starts[i], starts[i + 1]
        positives = np.zeros(lanes)
        rank_sum = np.zeros(lanes)
        _cover_sums(first, end, rows, ranks, labels, positives, rank_sum)
        n = end - first
        for lane in range(lanes):
            pos = positives[lane]
            if 0 < pos < n:
                out[i, lane] = (rank_sum[lane] - pos * (pos + 1) / 2) / (pos * (n - pos))
    return out


@njit(cache=True, nogil=True, parallel=True)
def _largest(starts, rows, ranks, promise, scale, labels, worse, better):
    """The largest studentised statistic of the covers on each column of
    ``labels`` (score order; ``-inf`` where none is defined)."""
    lanes = labels.shape[1]
    covers = len(starts) - 1
    chunks = min(covers, 64)
    best = np.full((max(chunks, 1), lanes), -np.inf)
    for chunk in prange(chunks):
        positives = np.zeros(lanes, dtype=labels.dtype)
        rank_sum = np.zeros(lanes, dtype=labels.dtype)
        for i in range(chunk, covers, chunks):
            if not scale[i] > 0:
                continue
            first, end = starts[i], starts[i + 1]
            positives[:] = 0.0
            rank_sum[:] = 0.0
            _cover_sums(first, end, rows, ranks, labels, positives, rank_sum)
            n = end - first
            for lane in range(lanes):
                pos = positives[lane]
                if 0 < pos < n:
                    z = (promise[i] - (rank_sum[lane] - pos * (pos + 1) / 2) / (pos * (n - pos))) / scale[i]
                    value = max(z if worse else -np.inf, -z if better else -np.inf)
                    if value > best[chunk, lane]:
                        best[chunk, lane] = value
    out = np.full(lanes, -np.inf)
    for chunk in range(best.shape[0]):
        for lane in range(lanes):
            out[lane] = max(out[lane], best[chunk, lane])
    return out
