"""Sequential Monte Carlo p-values that stop once the test decision is known.

The randomization test (:mod:`subroc_ext.inference.significance`) compares each
pattern's statistic with null values drawn one after another. With a fixed
number ``B`` of draws the smallest p-value is ``1 / (1 + B)``, so after a
Benjamini-Yekutieli correction over ``m`` patterns a lone real finding needs
``B >= m H(m) / alpha - 1`` (10,374 for ``m = 100``): with ``B = 10,000`` it
can never be significant. Drawing more for every pattern is wasteful: most
patterns are clearly null after a few dozen draws.

:class:`SequentialPValues` follows each pattern's stream of draws:

* **Besag-Clifford p-values** [1]_. Fix ``h`` (``exceedances``) and a cap
  ``n`` (``max_samples``). Drawing stops at the first ``L`` where ``h`` null
  values reach the statistic, with ``p = h / L``; if ``n`` draws pass with
  ``G < h`` such values, ``p = (G + 1) / (n + 1)`` (the fixed-sample
  formula). This p-value is valid: ``P(p <= u) <= u`` under the null. Null
  patterns stop after about ``h / p`` draws.
* **Stopping once the decision is known**, in the spirit of Gandy and
  Hahn's MMCTest [2]_, but with deterministic rather than probabilistic
  bounds. After ``L`` draws with ``G < h`` exceedances the final
  Besag-Clifford p-value lies in ``[lower, upper]``: ``lower = (G + 1) /
  (n + 1)`` (no further exceedance) and ``upper = h / (L + h - G)`` (the
  next ``h - G`` draws all exceed; ``(G + n - L + 1) / (n + 1)`` when that
  cannot happen before the cap). Step-up and step-down corrections are
  monotone: smaller p-values never reject fewer hypotheses. So a pattern
  rejected with every unfinished p-value at its upper bound is rejected
  whatever the remaining draws, and one not rejected with all at their
  lower bounds never is. Such *decided* patterns stop; the others draw on.
* **Which undecided patterns draw next** (:meth:`SequentialPValues.wanted`)
  changes only the cost. Under Holm's step-down correction the finding
  ranked ``k`` faces ``alpha / (m - k + 1)``, and with ``G = 0`` its upper
  bound ``h / (L + h)`` falls below that only after ``L >= h (m - k + 1) /
  alpha - h`` draws; drawing every finding to the first rank's ``alpha /
  m`` (``h m / alpha - h``, 19,990 for ``m = 100``) would waste up to half
  the draws, so a pattern waits while the patterns ranked before it are
  what its decision needs.

A pattern that stops early reports its upper bound. It is at least the
Besag-Clifford p-value of the full procedure, hence still valid, and the
corrected decisions of the reported p-values are exactly those the full
procedure (every pattern run to ``h`` exceedances or the cap) would make.

References
----------
.. [1] J. Besag and P. Clifford, "Sequential Monte Carlo p-values",
   Biometrika 78(2), 301-304, 1991.
.. [2] A. Gandy and G. Hahn, "MMCTest - a safe algorithm for implementing
   multiple Monte Carlo tests", Scandinavian Journal of Statistics 41(4),
   1083-1101, 2014.
"""

import numpy as np
from statsmodels.stats.multitest import multipletests

__all__ = ["SequentialPValues", "rejected", "round_sizes", "step_down_thresholds", "weighted_p_values"]


class SequentialPValues:
    """Besag-Clifford p-values of several patterns, with decision-based stopping.

    Parameters
    ----------
    n_patterns : int
    exceedances : int
        ``h``: a pattern's sampling ends with its ``h``-th null value at or
        above its statistic.
    max_samples : int
        ``n``: the cap on draws per pattern.

    Attributes
    ----------
    exceeded : numpy.ndarray of int
        ``G``: null values at or above each pattern's statistic so far.
    drawn : numpy.ndarray of int
        ``L``: draws counted for each pattern.
    finished : numpy.ndarray of bool
        Sampling reached ``h`` exceedances or the cap: the p-value is exact.

    Examples
    --------
    >>> state = SequentialPValues(2, exceedances=2, max_samples=100)
    >>> state.add(0, np.array([False, True, False, True, True]))  # 2nd exceedance at draw 4
    >>> state.add(1, np.zeros(5, dtype=bool))
    >>> state.drawn.tolist(), state.finished.tolist(), state.p_values().tolist()
    ([4, 5], [True, False], [0.5, 0.2857142857142857])
    """

    def __init__(self, n_patterns, *, exceedances, max_samples):
        self.exceedances = int(exceedances)
        self.max_samples = int(max_samples)
        self.exceeded = np.zeros(n_patterns, dtype=np.int64)
        self.drawn = np.zeros(n_patterns, dtype=np.int64)
        self.finished = np.zeros(n_patterns, dtype=bool)

    def add(self, pattern, exceeds):
        """Count the next draws of ``pattern``'s stream.

        Parameters
        ----------
        pattern : int
        exceeds : numpy.ndarray of bool
            For each next null value in drawing order, whether it is at or
            above the pattern's statistic. Draws past the ``h``-th
            exceedance or the cap are ignored.
        """
        if self.finished[pattern]:
            return
        exceeds = exceeds[: self.max_samples - self.drawn[pattern]]
        running = self.exceeded[pattern] + np.cumsum(exceeds)
        hit = int(np.searchsorted(running, self.exceedances))  # first index reaching h
        if hit < len(exceeds):
            self.drawn[pattern] += hit + 1
            self.exceeded[pattern] = self.exceedances
            self.finished[pattern] = True
            return
        self.drawn[pattern] += len(exceeds)
        if len(exceeds):
            self.exceeded[pattern] = running[-1]
        self.finished[pattern] = self.drawn[pattern] >= self.max_samples

    def lower(self):
        """The smallest p-value each pattern can still end with."""
        return np.where(self.finished, self.p_values(), (self.exceeded + 1) / (self.max_samples + 1))

    def p_values(self):
        """The Besag-Clifford p-value where finished, else its upper bound (valid)."""
        h, n = self.exceedances, self.max_samples
        reached = self.exceeded >= h
        with np.errstate(divide="ignore", invalid="ignore"):
            stopped = np.where(reached, h / self.drawn, (self.exceeded + 1) / (n + 1))
            # unfinished: the earliest the h-th exceedance can come, if before the cap
            earliest = self.drawn + h - self.exceeded
            upper = np.where(
                earliest <= n, h / earliest, (self.exceeded + n - self.drawn + 1) / (n + 1)
            )
        return np.where(self.finished, stopped, upper)

    def decided(self, method, alpha, *, untestable=0, weights=None):
        """Patterns whose corrected decision no further draw can change.

        Parameters
        ----------
        method : str
            A monotone ``statsmodels.stats.multitest.multipletests`` method
            (all step-up and step-down ones are).
        alpha : float
        untestable : int, default=0
            Further hypotheses in the correction, with p-value 1.
        weights : numpy.ndarray of float, optional
            Positive weights of the patterns (mean 1, fixed before any draw):
            the correction runs on ``p / weight`` (weighted procedures,
            :func:`weighted_p_values`).

        Returns
        -------
        numpy.ndarray of bool
            Finished, or rejected even at the upper bounds, or not rejected
            even at the lower bounds.
        """
        if not len(self.drawn):
            return np.zeros(0, dtype=bool)
        ones = np.ones((2, untestable))
        bounds = [weighted_p_values(self.p_values(), weights), weighted_p_values(self.lower(), weights)]
        surely, possibly = rejected(np.hstack([bounds, ones]), alpha, method)
        n = len(self.drawn)
        return self.finished | surely[:n] | ~possibly[:n]

    def wanted(self, stopped, method, alpha, *, untestable=0, order=None):
        """Undecided patterns whose next draws can bring the decisions nearer.

        Patterns are ranked by their upper bound (ties by ``order``). An
        undecided pattern waits while it would already be rejected at its
        upper bound ``u`` if every pattern ranked before it were at its lower
        bound and every one after it at ``max(u, lower)``: only the patterns
        before it can then decide it. With Holm's step-down thresholds
        ``alpha / (m - k + 1)`` this draws each finding only up to the
        threshold of its rank ``k`` rather than all of them to ``alpha / m``.
        Which patterns draw affects only the cost: the decisions are those
        of :meth:`decided`.

        Parameters
        ----------
        stopped : numpy.ndarray of bool
            Patterns decided so far (they draw no more).
        method, alpha, untestable
            As in :meth:`decided`.
        order : numpy.ndarray of int, optional
            Ranks breaking ties of the upper bounds (default: the patterns'
            order); give ranks that do not depend on the patterns' order
            for p-values that do not either.

        Returns
        -------
        numpy.ndarray of bool
            The undecided patterns that do not wait; all undecided ones if
            every one would wait, or if ``method`` is not a step-down one
            (:func:`step_down_thresholds`): under a step-up correction tied
            p-values are rejected together, so a pattern seldom has anything
            to wait for, and the check would cost a correction per pattern
            (a quadratic one for Hommel's).
        """
        if step_down_thresholds(method, alpha, 1) is None:
            return ~stopped
        upper, lower = self.p_values(), self.lower()
        n = len(upper)
        ties = np.arange(n) if order is None else np.asarray(order)
        rank = np.empty(n, dtype=np.int64)
        rank[np.lexsort((ties, upper))] = np.arange(n)
        undecided = np.flatnonzero(~stopped)
        before = rank[None, :] < rank[undecided, None]
        worlds = np.where(before, lower, np.maximum(upper[undecided, None], lower))
        worlds = np.hstack([worlds, np.ones((len(undecided), untestable))])
        waits = np.zeros(n, dtype=bool)
        waits[undecided] = rejected(worlds, alpha, method)[np.arange(len(undecided)), undecided]
        wanted = ~stopped & ~waits
        return wanted if wanted.any() else ~stopped


def step_down_thresholds(method, alpha, m):
    """The thresholds of the ``k``-th smallest of ``m`` p-values (``k = 1..m``)
    under a step-down correction, as statsmodels computes them: Holm's
    ``alpha / (m - k + 1)`` and Holm-Sidak's ``1 - (1 - alpha) ** (1 / (m -
    k + 1))``; None for the other methods.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 65-70, 1979.

    Examples
    --------
    >>> step_down_thresholds("holm", 0.06, 3).tolist()
    [0.02, 0.03, 0.06]
    >>> step_down_thresholds("fdr_by", 0.05, 3) is None
    True
    """
    method = method.lower()
    if method in ("h", "holm"):
        return alpha / np.arange(m, 0, -1)
    if method in ("hs", "holm-sidak"):
        return 1 - np.power(1.0 - alpha, 1.0 / np.arange(m, 0, -1))
    return None


def rejected(p_values, alpha, method):
    """The hypotheses ``multipletests(row, alpha, method)`` rejects, for each row.

    The step-down procedures (:func:`step_down_thresholds`) are evaluated
    here, on all rows at once: statsmodels' Holm runs a full garbage
    collection at every call (``gc.collect`` in ``multipletests``,
    statsmodels 0.14-0.15), which in a large process takes longer than the
    rest of a round of the sequential test. Other methods: statsmodels, one
    row at a time.

    Parameters
    ----------
    p_values : numpy.ndarray of float, shape (rows, m)
    alpha : float
    method : str
        A ``statsmodels.stats.multitest.multipletests`` method.

    Returns
    -------
    numpy.ndarray of bool, shape (rows, m)

    Examples
    --------
    >>> rejected(np.array([[0.01, 0.04, 0.03], [0.02, 0.01, 0.5]]), 0.05, "holm").tolist()
    [[True, False, False], [True, True, False]]
    """
    rows, m = p_values.shape
    thresholds = step_down_thresholds(method, alpha, m)
    if thresholds is None:
        return np.array([multipletests(row, alpha=alpha, method=method)[0] for row in p_values], dtype=bool)
    order = np.argsort(p_values, axis=1)
    # rejection stops at the first ordered p-value above its threshold
    passed = np.take_along_axis(p_values, order, axis=1) <= thresholds
    reject = np.empty((rows, m), dtype=bool)
    np.put_along_axis(reject, order, np.logical_and.accumulate(passed, axis=1), axis=1)
    return reject


def weighted_p_values(p_values, weights=None):
    """``p / weight``, at most 1: the p-values a weighted correction corrects.

    Weights fixed before the p-values are seen (from independent data) and
    averaging 1 keep the correction's guarantee: the weighted
    Benjamini-Hochberg procedure rejects ``p_i <= alpha w_i k / m`` [1]_,
    and with the Benjamini-Yekutieli factor under any dependence [2]_; a
    monotone correction of ``p / w`` is exactly that.

    References
    ----------
    .. [1] C. R. Genovese, K. Roeder and L. Wasserman, "False discovery
       control with p-value weighting", Biometrika 93(3), 509-524, 2006.
    .. [2] G. Blanchard and E. Roquain, "Two simple sufficient conditions for
       FDR control", Electronic Journal of Statistics 2, 963-992, 2008.

    Examples
    --------
    >>> weighted_p_values(np.array([0.01, 0.5]), np.array([2.0, 0.5])).tolist()
    [0.005, 1.0]
    """
    p_values = np.asarray(p_values, dtype=float)
    return p_values if weights is None else np.minimum(p_values / np.asarray(weights, dtype=float), 1.0)


def round_sizes(cap, first):
    """Draws in each round of a sequential test: the totals double from
    ``first`` up to ``cap``.

    Examples
    --------
    >>> round_sizes(1000, 128)
    [128, 128, 256, 488]
    """
    sizes, total = [], 0
    while total < cap:
        sizes.append(min(cap, max(first, 2 * total)) - total)
        total += sizes[-1]
    return sizes
