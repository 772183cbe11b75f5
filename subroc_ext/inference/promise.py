"""Does a subgroup fall short of what its own scores promise? The label-draw test, for every measure.

The promise of any measure is its value on the subgroup's rows were their
labels drawn from the rows' probabilities (:class:`Promise`, SPEC "The
promise of every measure"); the ROC AUC's, below, is the model-based
concordance, and the test is the same for every measure, on its size-free
scale (the ARL per negative).

A slice of the strongest predictor (``age >= 66``) has a narrower spread of
risk, so every model, the true probabilities included, ranks worse in it
(range restriction). Its scores promise that: the model-based concordance
``mbc(S)`` [1]_ is the ROC AUC the rows of ``S`` would have on average if
their scores were the true probabilities. SPEC ("What the headline may call
a failure", rule 2) names ``S`` a failure only when it falls short of that
promise by more than the whole data does:

``q_cm(S) = [mbc(S) - AUC(S)] - [mbc(D) - AUC(D)] > 0``, significantly.

The null is the promise itself: the scores of ``S``'s rows are their true
probabilities. Under it the labels of ``S`` are independent draws
``y_i ~ Bernoulli(p_i)``, so the test draws them again and again, with the
rows' scores (hence their ranks) fixed, and counts the draws whose ROC AUC
is at most the observed one plus the whole data's shortfall (``worse``;
``better`` mirrors it; ``both`` compares distances from ``mbc(S)``). Only
a shortfall of the whole data counts in the row's favour (``max(c, 0)``
with ``c = mbc(D) - AUC(D)``): a row must fall short of its own promise
either way. A draw whose labels are all one class has no ROC AUC and
counts as reaching the statistic (conservative).

The randomization test of ``mbc(T) - AUC(T)`` over random subsets ``T``
of the whole data (:class:`~subroc_ext.objective.case_mix.CaseMixQF`, the
test of ``case_mix=True``) asks another question: whether ``S`` falls short
more than rows drawn from the whole data do. The label draws ask the
headline's: whether ``S``'s own rows could deliver so little if their
scores were the truth. On the planted real tables of
``benchmarks/bench_headline.py`` the slices of the risk that passed the
former as failures passed none of the latter.

The draws are sequential (:class:`~subroc_ext.inference.sequential.SequentialPValues`,
Besag-Clifford p-values that stop once the corrected decision is known),
each subgroup from its own stream (derived from the seed and its rows), so
a p-value does not depend on which other subgroups are tested.

References
----------
.. [1] D. van Klaveren, M. Gönen, E. W. Steyerberg and Y. Vergouwe, "A new
   concordance measure for risk prediction models in external validation
   settings", Statistics in Medicine 35(23), 4136-4152, 2016.
"""

import copy
import functools
import hashlib
import itertools
import zlib

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar

from ..metrics.expected_auc import expected_roc_auc
from ..metrics.kernels import sort_by_score
from ..metrics.label_draws import drawn_sums
from ..scoring import bitset
from ..scoring.measures import ROCAUC, Measure, RowMeanMeasure
from ..scoring.rank_null import LOG_UNREACHED
from .sequential import SequentialPValues, round_sizes, weighted_p_values

__all__ = ["EXPECTATION_DRAWS", "MAX_SAMPLES", "Promise", "promise_test", "shortfall"]

#: Label draws per subgroup at most (a lone finding among about 300 rows can
#: still be significant after Benjamini-Yekutieli).
MAX_SAMPLES = 200_000
#: Draws of each subgroup in the first round; later rounds double the total.
FIRST_ROUND = 256
#: Label draws that estimate a promise without a formula (PR AUC, ARL, a user's measure).
EXPECTATION_DRAWS = 256
#: Rows times draws in one block of random numbers (32 MB of float64 where the labels are a matrix); a
#: subgroup's draws stop at the end of a block.
_BLOCK = 1 << 22
#: Label draws of a subgroup's first block in a round (most subgroups' draws reach their statistic at once).
_FIRST_BLOCK = 32
#: Tags the label draws' generators apart from the other tests'.
_STREAM = 0x50524F4D
#: Tags the draws that estimate a promise apart from the test's.
_EXPECTATION_STREAM = 0x45585043
#: Rows of one step of :func:`_log_chernoff`'s sums.
_CHUNK = 1 << 16
#: Slack for values equal up to rounding.
_TOLERANCE = 1e-12


def _seed(seed, tag, mask):
    """The entropy of the draws of the rows of ``mask``: the seed, a tag and the rows themselves."""
    return [int(seed), tag, zlib.crc32(np.packbits(mask).tobytes()), int(mask.sum())]


class Promise:
    """What a measure's scores promise on subsets of some rows (SPEC, "The
    promise of every measure").

    The promise of the measure ``M`` on rows ``S`` is ``E[M(S; y*, s)]``, the
    labels drawn ``y*_i ~ Bernoulli(p_i)`` independently, the scores ``s``
    fixed. Exact where a formula exists: the ROC AUC's is the expected ROC
    AUC (van Klaveren's model-based concordance [1]_), a row mean's (Brier:
    ``mean p(1 - p)`` on calibrated scores, the log loss the mean binary
    entropy, the calibration gap ``mean(p - s)``, 0 on calibrated scores)
    the mean of each row's two values (:meth:`RowMeanMeasure.class_values`)
    weighted by its probability; by :data:`EXPECTATION_DRAWS` label draws
    otherwise (PR AUC, ARL, a user's measure).

    The test compares the measure on a subgroup's rows with its values on
    label draws of them, on the measure's size-free scale
    (:meth:`~subroc_ext.scoring.measures.Measure.size_free`) and oriented so
    that higher is better (a loss negated): :meth:`observed`,
    :meth:`drawn`, :meth:`expected`.

    Parameters
    ----------
    measure : Measure
    is_positive, scores, probabilities : numpy.ndarray
        The rows' classes, scores and probabilities (one order).
    seed : int, default=0
        The draws that estimate a promise without a formula.

    References
    ----------
    .. [1] D. van Klaveren, M. Gönen, E. W. Steyerberg and Y. Vergouwe, "A new
       concordance measure for risk prediction models in external validation
       settings", Statistics in Medicine 35(23), 4136-4152, 2016.

    Examples
    --------
    A Brier score promises ``mean p(1 - p)`` on calibrated probabilities:
    more where they are near one half.

    >>> from subroc_ext.scoring.calibration import brier_score
    >>> p = np.array([0.5, 0.5, 0.1, 0.1])
    >>> promise = Promise(brier_score(), np.array([True, False, False, False]), p, p)
    >>> [round(promise.promised(np.arange(4) < 2), 4), round(promise.promised(np.arange(4) >= 2), 4)]
    [0.25, 0.09]
    """

    def __init__(self, measure, is_positive, scores, probabilities, seed=0):
        self.measure = measure
        self.is_positive = np.asarray(is_positive, dtype=bool)
        self.scores = np.asarray(scores, dtype=float)
        self.probabilities = np.asarray(probabilities, dtype=float)
        self.sign = 1.0 if measure.kind == "score" else -1.0
        self.seed = int(seed)
        self.classes = measure.class_values(self.is_positive, self.scores) if isinstance(measure, RowMeanMeasure) \
            else None  # fmt: skip
        # the ROC AUC itself (a subclass may change its value) and the row means have a formula
        self._has_formula = type(measure) is ROCAUC or self.classes is not None
        # a measure of its positives' rank sum (ROC AUC, ARL): drawn and observed from the mid-ranks
        self._of_rank_sums = self.classes is None and type(measure).rank_sum_values is not Measure.rank_sum_values
        self._observed = {}  # :meth:`observed`'s, by a digest of the rows' bits
        self._to_probabilities = None  # a :meth:`reading`'s map

    def reading(self, to_probabilities):
        """The promise of the same measure, rows, scores and seed read through
        another map of the scores, ``to_probabilities`` (e.g. the map fitted
        without a pattern's rows,
        :func:`~subroc_ext.inputs.probabilities.maps_without`): the
        probabilities of the rows asked are made when asked and not kept (100
        readings of a million held-out rows held 800 MB). What does not
        depend on the probabilities is shared: the rows' sort, their class
        values and their measure as labelled (100 readings sorted a million
        held-out scores each, 20 s at 2 M rows)."""
        read = copy.copy(self)
        read.__dict__["_by_score"] = self._by_score  # sorted once, for this promise and every reading of it
        read.__dict__.pop("shortfall", None)  # the one value kept that the probabilities decide
        read.probabilities, read._to_probabilities = None, to_probabilities
        return read

    def probabilities_of(self, mask):
        """The probabilities of the rows of ``mask`` (theirs, or through a :meth:`reading`'s map)."""
        if self._to_probabilities is None:
            return self.probabilities[mask]
        return np.asarray(self._to_probabilities(self.scores[mask]), dtype=float)

    def drawn_values(self, mask, labels):
        """The measure on the rows of ``mask`` for each draw of their labels
        (``labels``: draws x rows of ``mask``); NaN where undefined."""
        if self.classes is not None:
            positive, negative = (values[mask] for values in self.classes)
            return (labels @ (positive - negative) + negative.sum()) / max(int(mask.sum()), 1)
        return np.asarray(self.measure.drawn_values(labels, self.scores[mask]), dtype=float)

    def drawn(self, mask, labels):
        """:meth:`drawn_values` on the size-free scale, higher better."""
        positives = labels.sum(axis=1)
        return self.sign * self.measure.size_free(self.drawn_values(mask, labels), positives,
                                                  labels.shape[1] - positives)  # fmt: skip

    def draw_weights(self, mask):
        """The rows' weights whose sum over a draw's positives gives, with the
        draw's class counts, the measure on the rows of ``mask``
        (:meth:`drawn_of_sums`: no matrix of labels): a row mean's difference
        of its class values, the scores' mid-ranks for a measure of their sum
        (:meth:`~subroc_ext.scoring.measures.Measure.rank_sum_values`); None
        for any other measure."""
        if self.classes is not None:
            positive, negative = (values[mask] for values in self.classes)
            return positive - negative
        return self.mid_ranks(mask) if self._of_rank_sums else None

    @functools.cached_property
    def _by_score(self):
        """The rows in ascending stable score order and the tie group of each."""
        return sort_by_score(self.scores)

    def mid_ranks(self, mask):
        """The mid-ranks of the scores of the rows of ``mask`` among themselves
        (``scipy.stats.rankdata``'s), from the rows sorted once: no sort per
        subset (a subset of half a million rows ranked in a tenth of the time).

        >>> promise = Promise(ROCAUC(), np.zeros(5, bool), np.array([0.3, 0.1, 0.3, 0.9, 0.1]), np.full(5, 0.5))
        >>> promise.mid_ranks(np.array([True, True, True, False, False])).tolist()
        [2.5, 1.0, 2.5]
        """
        order, groups = self._by_score
        inside = mask[order]
        tied = groups[inside]
        count = len(tied)
        if not count:
            return np.zeros(0)
        first = np.empty(count, dtype=bool)  # the first of each tie group among them
        first[0] = True
        np.not_equal(tied[1:], tied[:-1], out=first[1:])
        del tied
        starts = np.flatnonzero(first)
        sizes = np.diff(starts, append=count)
        at = np.cumsum(mask, dtype=np.int32)[order[inside]]  # each one's place among them in row order, from 1
        at -= 1
        ranks = np.empty(count)
        ranks[at] = np.repeat(starts + (sizes + 1) / 2, sizes)  # (start + 1 + end) / 2
        return ranks

    def drawn_of_sums(self, mask, positives, sums):
        """:meth:`drawn` of draws given by their positives and the sums of their
        positives' :meth:`draw_weights`."""
        rows = int(mask.sum())
        negatives = rows - positives
        if self.classes is not None:
            values = (sums + self.classes[1][mask].sum()) / max(rows, 1)
        else:
            values = self.measure.rank_sum_values(sums, positives, negatives)
        return self.sign * self.measure.size_free(values, positives, negatives)

    def observed(self, mask, ranks=None):
        """The measure on the rows of ``mask`` as labelled, size-free, higher
        better; ``ranks``: their scores' :meth:`mid_ranks` where the caller
        has them (a measure of their sum), not ranked again. Kept by the
        rows' bits: the headline's walk asks again of the rows its test
        measured (100 rankings of a million rows at 2 M rows)."""
        key = hashlib.blake2b(np.packbits(mask).tobytes(), digest_size=16).digest()
        if key not in self._observed:
            if self._of_rank_sums:  # exact sums of half-integers: the value the labels' matrix gives
                ranks = self.mid_ranks(mask) if ranks is None else ranks
                positive = self.is_positive[mask]
                sums = np.array([ranks[positive].sum()])
                self._observed[key] = float(self.drawn_of_sums(mask, np.array([int(positive.sum())]), sums)[0])
            else:
                self._observed[key] = float(self.drawn(mask, self.is_positive[mask][None, :])[0])
        return self._observed[key]

    def promised(self, mask):
        """The promise of the measure on the rows of ``mask`` (its own scale)."""
        if self._has_formula:
            return self._exact(mask)
        return float(np.nanmean(self._expectation_draws(mask, self.drawn_values)))

    def expected(self, mask):
        """The promise on the size-free scale, higher better (the mean of
        :meth:`drawn` over label draws)."""
        if self._has_formula and type(self.measure).size_free is Measure.size_free:
            return self.sign * self._exact(mask)
        return float(np.nanmean(self._expectation_draws(mask, self.drawn)))

    @functools.cached_property
    def shortfall(self):
        """How far the measure on all the rows falls short of their promise
        (size-free, higher better; computed once: the test of every subset
        gives it in the subset's favour)."""
        every = np.ones(len(self.scores), dtype=bool)
        return self.expected(every) - self.observed(every)

    @functools.cached_property
    def whole(self):
        """The measure on all the rows, size-free, higher better."""
        return self.observed(np.ones(len(self.scores), dtype=bool))

    def test(self, masks, *, mode="worse", method="fdr_by", alpha=0.05, weights=None, max_samples=MAX_SAMPLES,
             exceedances=10, readings=None, beyond_whole=None, untested=0):  # fmt: skip
        """:func:`promise_test` of subsets of these rows (``masks``: any
        iterable, taken once), its draws seeded by this promise's seed.

        ``readings``: per mask, the :class:`Promise` (:meth:`reading`) whose
        probabilities its promise and its label draws are read from (this
        one by default); the whole data's shortfall, which every mask may
        fall short by, is this promise's. ``beyond_whole``: per mask, whether
        it must also fall short of the measure on all the rows
        (:attr:`whole`; ``'better'``: exceed it): its statistic is its
        distance beyond both its promise (plus the whole data's shortfall)
        and the whole data's value, so that a rejection says both at once
        (rule 1 following from rule 2's test, as without a holdout,
        :mod:`~subroc_ext.inference.promise_family`). ``untested``: further
        hypotheses of the correction, not tested (p-value 1): a family fixed
        before the masks were chosen from it on the same rows' labels."""
        from statsmodels.stats.multitest import multipletests

        shortfall = self.shortfall
        readings = itertools.repeat(self) if readings is None else readings
        beyond_whole = itertools.repeat(False) if beyond_whole is None else beyond_whole
        # one subgroup at a time, its mask taken as it comes (a generator's masks are not all held at once; on
        # two threads their ranks and bounds took 100 MB more at 2 M rows, and no less wall time)
        subgroups = [_Subgroup(np.asarray(mask, dtype=bool), reading, mode, shortfall, self.seed, max_samples,
                               whole=self.whole if beyond else None)
                     for mask, reading, beyond in zip(masks, readings, beyond_whole)]  # fmt: skip
        state = SequentialPValues(len(subgroups), exceedances=exceedances, max_samples=max_samples)
        stopped = np.zeros(len(subgroups), dtype=bool)
        for batch, size in enumerate(round_sizes(max_samples, FIRST_ROUND)):
            if stopped.all():
                break
            for i in np.flatnonzero(~stopped):
                state.add(i, subgroups[i].reaches(size, batch, needed=state.exceedances - state.exceeded[i]))
            stopped |= state.decided(method, alpha, weights=weights, untestable=untested)
        p_values = state.p_values()
        if len(p_values):
            padded = np.r_[weighted_p_values(p_values, weights), np.ones(untested)]
            significant, corrected, _, _ = multipletests(padded, alpha=alpha, method=method)
            significant, corrected = significant[: len(p_values)], corrected[: len(p_values)]
        else:
            significant, corrected = np.zeros(0, dtype=bool), np.zeros(0)
        return pd.DataFrame({"p_value": p_values, "p_value_corrected": corrected, "significant": significant,
                             "draws": state.drawn})  # fmt: skip

    def _exact(self, mask):
        if self.classes is not None:
            positive, negative = (values[mask] for values in self.classes)
            p = self.probabilities_of(mask)
            return float(np.mean(p * positive + (1 - p) * negative)) if mask.any() else np.nan
        return float(expected_roc_auc(self.probabilities_of(mask)))

    def _expectation_draws(self, mask, values):
        rng = np.random.default_rng(np.random.SeedSequence(_seed(self.seed, _EXPECTATION_STREAM, mask)))
        rows = max(int(mask.sum()), 1)
        draws = min(EXPECTATION_DRAWS, max(64, (_BLOCK >> 2) // rows))
        return values(mask, rng.random((draws, rows)) < self.probabilities_of(mask))


def shortfall(is_positive, scores, probabilities, measure=None):
    """How far the measure on the rows given falls short of what their scores
    promise, on its size-free scale, higher better (negative: it exceeds it):
    ``mbc - AUC`` for the ROC AUC (the default).

    Examples
    --------
    >>> round(shortfall(np.array([True, False, True]), np.array([0.9, 0.5, 0.1]), np.array([0.9, 0.5, 0.1])), 4)
    0.4396
    """
    return Promise(ROCAUC() if measure is None else measure, is_positive, scores, probabilities).shortfall


def _log_chernoff(ranks, probabilities, cut):
    """The log of an upper bound on the chance that the ROC AUC of labels drawn
    from ``probabilities`` (the rows' ``ranks`` fixed) is at most ``cut`` or
    undefined, for ``cut >= 1/2`` (0, no bound, otherwise).

    With ``P`` drawn positives, ``AUC <= cut`` (or one class) is
    ``sum_i y_i (r_i - 1/2 - cut n) + (cut - 1/2) P**2 <= 0``; as ``P**2 >=
    2 mu P - mu**2`` (``mu`` the expected positives), that event lies inside
    ``sum_i y_i w_i <= (cut - 1/2) mu**2`` with ``w_i = r_i - 1/2 - cut n +
    (2 cut - 1) mu``, a sum of independent terms whose chance Chernoff's bound
    limits: ``min_t exp(t (cut - 1/2) mu**2) prod_i (1 - p_i + p_i
    exp(-t w_i))``, ``t >= 0``.

    Examples
    --------
    Rows whose scores rank them perfectly (the draws' AUC is near 1) hardly
    ever draw an AUC of at most 0.6:

    >>> p = np.linspace(0.01, 0.99, 400)
    >>> bool(np.exp(_log_chernoff(np.arange(1.0, 401), p, 0.6)) < 1e-20)
    True
    """
    n, mu = len(probabilities), float(probabilities.sum())
    if cut < 0.5 or n < 2:
        return 0.0
    weights = ranks - (0.5 + cut * n - (2 * cut - 1) * mu)  # one array of its rows, scaled in place
    scale = float(max(weights.max(), -weights.min())) or 1.0
    weights /= scale
    chunks = range(0, n, _CHUNK)

    def log_bound(t):  # in chunks: no temporary arrays of all the rows (two threads of 800,000 rows each)
        return t * (cut - 0.5) * mu**2 / scale + sum(
            float(np.log1p(probabilities[k : k + _CHUNK] * np.expm1(-t * weights[k : k + _CHUNK])).sum())
            for k in chunks)  # fmt: skip

    return min(float(minimize_scalar(log_bound, bounds=(0, 50), method="bounded").fun), 0.0)


class _Subgroup:
    """One subgroup's rows, observed value and the rule that a drawn value reaches it.

    A ROC AUC in mode 'worse' has a Chernoff bound (:func:`_log_chernoff`)
    on the chance that one draw reaches the statistic. A round whose draws,
    with every draw asked of the subgroup before it, reach it with a chance
    below :data:`~subroc_ext.scoring.rank_null.UNREACHED` by that bound is
    all "not reached" without being drawn, as it would be but with that
    chance over the whole test of the subgroup (a subgroup of hundreds of
    thousands of rows many standard deviations short of its promise drew
    4,096 labels of each row before the test's decision was known).
    ``surely_unreached``: so for ``max_samples`` draws. Its rows'
    probabilities and weights are not kept but taken again for a round
    that is drawn (100 subgroups of up to 800,000 rows at 2 M rows).

    ``whole``: the measure on all rows (size-free, higher better), which the
    observed value must also fall short of (``'better'``: exceed): a draw
    reaches the statistic when it falls as far short of the promise as the
    observed value falls short of both, ``min(e - c, whole) - observed``
    (``e`` the promise, ``c`` the whole data's shortfall); None: of the
    promise alone."""

    def __init__(self, mask, promise, mode, shortfall, seed, max_samples=MAX_SAMPLES, whole=None):
        self.promise, self.mode, self._bits, self._rows_in = promise, mode, bitset.pack(mask), len(mask)
        probabilities, weights = self._rows(mask)
        observed = promise.observed(mask, ranks=weights)
        expected = None if whole is None and mode != "both" else promise.expected(mask)
        if mode == "worse":  # at most the observed value plus the whole data's shortfall
            margin = max(shortfall, 0.0) if whole is None else max(shortfall, 0.0, expected - whole)
            self.cut = observed + margin + _TOLERANCE
        elif mode == "better":
            margin = max(-shortfall, 0.0) if whole is None else max(-shortfall, 0.0, whole - expected)
            self.cut = observed - margin - _TOLERANCE
        else:  # both: at least as far from the promise, less the whole data's distance (and beyond the whole's)
            self.expected, low, high = expected, expected - abs(shortfall), expected + abs(shortfall)
            if whole is not None:
                low, high = min(low, whole), max(high, whole)
            self.cut = max(low - observed, observed - high) - _TOLERANCE
        self.seed = _seed(seed, _STREAM, mask)
        self.log_reach = _log_chernoff(weights, probabilities, self.cut) \
            if mode == "worse" and type(promise.measure) is ROCAUC else 0.0  # fmt: skip
        self.asked = 0  # draws asked of it in the rounds so far
        self.surely_unreached = self.log_reach + np.log(max_samples) <= LOG_UNREACHED

    @property
    def mask(self):
        """Its rows, a boolean mask (kept as bits: 100 masks of a million rows were 100 MB)."""
        return bitset.unpack(self._bits, self._rows_in)

    def _rows(self, mask):
        """Its rows' (``mask``'s) probabilities and draw weights (:meth:`Promise.draw_weights`:
        the ROC AUC's mid-ranks; None where the measure has none)."""
        return self.promise.probabilities_of(mask), self.promise.draw_weights(mask)

    def reaches(self, draws, batch, needed=None):
        """Whether each of ``draws`` label draws of round ``batch`` reaches the
        statistic; once ``needed`` of them have, the rest are not drawn (marked
        reached: a sequential p-value ignores the draws after its last
        exceedance, :class:`~subroc_ext.inference.sequential.SequentialPValues`).
        The draws come in blocks of one stream, small ones first, so the
        values drawn are the same whatever is skipped."""
        self.asked += draws
        if self.log_reach + np.log(self.asked) <= LOG_UNREACHED:
            return np.zeros(draws, dtype=bool)
        sequence = np.random.SeedSequence(self.seed, spawn_key=(int(batch),))
        rng = np.random.default_rng(sequence)
        mask = self.mask
        probabilities, weights = self._rows(mask)
        per_block = max(1, _BLOCK // max(len(probabilities), 1))
        out = np.ones(draws, dtype=bool)
        start, block, reached_so_far = 0, min(per_block, _FIRST_BLOCK), 0
        while start < draws and (needed is None or reached_so_far < needed):
            stop = min(draws, start + block)
            value = self._drawn(rng, stop - start, mask, probabilities, weights)
            if self.mode == "worse":
                reached = value <= self.cut
            elif self.mode == "better":
                reached = value >= self.cut
            else:
                reached = np.abs(value - self.expected) >= self.cut
            out[start:stop] = reached | np.isnan(value)
            reached_so_far += int(out[start:stop].sum())
            start, block = stop, per_block
        return out

    def _drawn(self, rng, draws, mask, probabilities, weights):
        """The measure (:meth:`Promise.drawn`) on the next ``draws`` label draws
        of ``rng``: its uniform numbers below the ``probabilities`` of the rows
        of ``mask``, a draw's labels one after the other, without a matrix where
        the measure is a sum of ``weights`` (:meth:`Promise.draw_weights`)."""
        if weights is None:
            return self.promise.drawn(mask, rng.random((draws, len(probabilities))) < probabilities)
        return self.promise.drawn_of_sums(mask, *drawn_sums(rng, probabilities, weights, draws))


def promise_test(masks, is_positive, scores, probabilities, *, measure=None, mode="worse", method="fdr_by",
                 alpha=0.05, weights=None, random_state=0, max_samples=MAX_SAMPLES, exceedances=10):  # fmt: skip
    """Which subgroups fall short of what their own scores promise, by label draws.

    Parameters
    ----------
    masks : list of numpy.ndarray of bool
        Each subgroup's rows among the rows given.
    is_positive : numpy.ndarray of bool
        The rows' classes.
    scores : numpy.ndarray of float
        The model's scores (only their order within a subgroup counts).
    probabilities : numpy.ndarray of float
        The scores read as probabilities (calibrated on other rows), the
        same order as ``scores``.
    measure : Measure, optional
        The measure whose promise is tested (:class:`Promise`); the ROC AUC
        by default.
    mode : {"worse", "better", "both"}, default="worse"
    method : str, default="fdr_by"
        The correction over the subgroups (a
        ``statsmodels.stats.multitest.multipletests`` method).
    alpha : float, default=0.05
    weights : numpy.ndarray of float, optional
        Positive weights of the subgroups, averaging 1, fixed before these
        rows' labels are seen (from the search split): the correction runs
        on ``p / weight`` (:func:`~subroc_ext.inference.sequential.weighted_p_values`).
    random_state : int, default=0
        The seed of every subgroup's stream of draws.
    max_samples : int, default=MAX_SAMPLES
        Label draws per subgroup at most.
    exceedances : int, default=10
        A subgroup's draws stop at its ``exceedances``-th draw reaching the
        statistic (Besag-Clifford).

    Returns
    -------
    pandas.DataFrame
        One row per mask: ``p_value`` (valid: at least the Besag-Clifford
        p-value of the full procedure), ``p_value_corrected`` (of the
        weighted p-value), ``significant`` and ``draws``.

    Examples
    --------
    Calibrated scores that are the true probabilities, except in the first
    300 rows, where they are noise:

    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 3000)
    >>> y = rng.random(3000) < p
    >>> scores = np.where(np.arange(3000) < 300, rng.random(3000), p)
    >>> first, rest = np.arange(3000) < 300, np.arange(3000) >= 2700
    >>> promise_test([first, rest], y, scores, scores)["significant"].tolist()
    [True, False]
    """
    promise = Promise(ROCAUC() if measure is None else measure, is_positive, scores, probabilities, int(random_state))
    return promise.test(masks, mode=mode, method=method, alpha=alpha, weights=weights, max_samples=max_samples,
                        exceedances=exceedances)
