"""Does a subgroup fall short of what its own scores promise? The label-draw test.

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

import zlib

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ..metrics.expected_auc import expected_roc_auc
from .sequential import SequentialPValues, round_sizes, weighted_p_values

__all__ = ["MAX_SAMPLES", "promise_test", "shortfall"]

#: Label draws per subgroup at most (a lone finding among about 300 rows can
#: still be significant after Benjamini-Yekutieli).
MAX_SAMPLES = 200_000
#: Draws of each subgroup in the first round; later rounds double the total.
FIRST_ROUND = 256
#: Rows times draws in one block of random numbers (32 MB of float64).
_BLOCK = 1 << 22
#: Tags the label draws' generators apart from the other tests'.
_STREAM = 0x50524F4D
#: Slack for ROC AUCs equal up to rounding.
_TOLERANCE = 1e-12


def _roc_auc(labels, ranks):
    """The ROC AUC of each row of ``labels`` (bool, draws x rows) from the rows'
    mid-ranks; NaN where a draw has one class only."""
    positives = labels.sum(axis=1)
    negatives = labels.shape[1] - positives
    with np.errstate(divide="ignore", invalid="ignore"):
        return (labels @ ranks - positives * (positives + 1) / 2) / (positives * negatives)


def shortfall(is_positive, scores, probabilities):
    """``mbc - AUC`` of the rows given: how far their ROC AUC falls short of
    what their scores promise (negative: it exceeds it).

    Examples
    --------
    >>> round(shortfall(np.array([True, False, True]), np.array([0.9, 0.5, 0.1]), np.array([0.9, 0.5, 0.1])), 4)
    0.4396
    """
    ranks = rankdata(scores)
    return expected_roc_auc(probabilities) - _roc_auc(np.asarray(is_positive, dtype=float)[None, :], ranks)[0]


class _Subgroup:
    """One subgroup's rows, observed ROC AUC and the rule that a drawn ROC AUC reaches it."""

    def __init__(self, mask, is_positive, scores, probabilities, mode, shortfall, seed):
        self.ranks = rankdata(scores[mask])  # mid-ranks: ties count 1/2, as in the ROC AUC
        self.probabilities = probabilities[mask]
        observed = _roc_auc(is_positive[mask][None, :].astype(float), self.ranks)[0]
        self.mode = mode
        if mode == "worse":  # at most the observed ROC AUC plus the whole data's shortfall
            self.cut = observed + max(shortfall, 0.0) + _TOLERANCE
        elif mode == "better":
            self.cut = observed - max(-shortfall, 0.0) - _TOLERANCE
        else:  # both: at least as far from the promise, less the whole data's distance
            self.promise = expected_roc_auc(self.probabilities)
            self.cut = abs(observed - self.promise) - abs(shortfall) - _TOLERANCE
        self.seed = [seed, _STREAM, zlib.crc32(np.packbits(mask).tobytes()), int(mask.sum())]

    def reaches(self, draws, batch):
        """Whether each of ``draws`` label draws of round ``batch`` reaches the statistic."""
        sequence = np.random.SeedSequence(self.seed, spawn_key=(int(batch),))
        rng = np.random.default_rng(sequence)
        per_block = max(1, _BLOCK // max(len(self.ranks), 1))
        out = np.empty(draws, dtype=bool)
        for start in range(0, draws, per_block):
            stop = min(draws, start + per_block)
            labels = rng.random((stop - start, len(self.ranks))) < self.probabilities
            auc = _roc_auc(labels.astype(float), self.ranks)
            if self.mode == "worse":
                reached = auc <= self.cut
            elif self.mode == "better":
                reached = auc >= self.cut
            else:
                reached = np.abs(auc - self.promise) >= self.cut
            out[start:stop] = reached | np.isnan(auc)
        return out


def promise_test(masks, is_positive, scores, probabilities, *, mode="worse", method="fdr_by", alpha=0.05,
                 weights=None, random_state=0, max_samples=MAX_SAMPLES, exceedances=10):  # fmt: skip
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
    from statsmodels.stats.multitest import multipletests

    is_positive = np.asarray(is_positive, dtype=bool)
    scores, probabilities = np.asarray(scores, dtype=float), np.asarray(probabilities, dtype=float)
    whole = shortfall(is_positive, scores, probabilities)
    seed = int(random_state)
    subgroups = [_Subgroup(np.asarray(m, dtype=bool), is_positive, scores, probabilities, mode, whole, seed)
                 for m in masks]  # fmt: skip
    state = SequentialPValues(len(subgroups), exceedances=exceedances, max_samples=max_samples)
    stopped = np.zeros(len(subgroups), dtype=bool)
    for batch, size in enumerate(round_sizes(max_samples, FIRST_ROUND)):
        if stopped.all():
            break
        for i in np.flatnonzero(~stopped):
            state.add(i, subgroups[i].reaches(size, batch))
        stopped |= state.decided(method, alpha, weights=weights)
    p_values = state.p_values()
    if len(p_values):
        significant, corrected, _, _ = multipletests(weighted_p_values(p_values, weights), alpha=alpha,
                                                     method=method)  # fmt: skip
    else:
        significant, corrected = np.zeros(0, dtype=bool), np.zeros(0)
    return pd.DataFrame({"p_value": p_values, "p_value_corrected": corrected, "significant": significant,
                         "draws": state.drawn})  # fmt: skip
