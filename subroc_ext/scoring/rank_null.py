"""The null distribution of ROC AUC and ARL, refined only as far as a test needs.

A random subset with ``p`` positives and ``n`` negatives of a score-sorted
dataset has ``2U`` (twice the Mann-Whitney count, :func:`~subroc_ext.scoring.cover_kernels.rank_measure`)
determined by how many of its rows of each class fall in each tie group:
the positives of a group beat every chosen negative of the groups below and
tie with those of their own group. :func:`rank_null_draws` draws these counts
top-down over a binary tree of the tie groups: the root holds ``(p, n)``;
splitting a node draws how many of its chosen positives (negatives) lie in
its left half, a hypergeometric draw (:func:`hypergeometric`), exactly the
distribution of a uniformly random subset with those class counts. After
any number of splits ``2U`` is known to lie in ``[fixed, fixed + slack]``:
``fixed`` counts the pairs of rows in different nodes, and a node with ``a``
positives and ``b`` negatives adds between 0 and ``2ab``. A test only asks
whether each draw's ``2U`` reaches the statistic's cut, so a draw is refined
level by level only until its interval no longer straddles a cut; far in
the tail of the null (every significant pattern at scale) a few dozen splits
decide it, whatever the number of rows.

Each draw has its own random stream (SplitMix64 seeded from the call's seed
and the draw's index) and the splits follow one fixed order (level by
level, left to right), so refining a draw further only reveals more of the
same subset: the decision for one cut does not depend on which other cuts
were asked for, and :func:`rank_null_draws` without cuts returns the exact
``2U`` of the very subsets whose decisions it gives with cuts.

References
----------
.. [1] E. Stadlober, "Sampling from Poisson, binomial and hypergeometric
   distributions: ratio of uniforms as a simple and fast alternative",
   Bericht 303, Mathematisch-Statistische Sektion, Forschungsgesellschaft
   Joanneum, Graz, 1989 (the ratio-of-uniforms sampler, as in NumPy).
.. [2] G. L. Steele, D. Lea and C. H. Flood, "Fast splittable pseudorandom
   number generators", OOPSLA 2014 (SplitMix64).
"""

import math

import numpy as np
from numba import njit

__all__ = [
    "GOLDEN_GAMMA",
    "UNREACHED",
    "LOG_UNREACHED",
    "log_reach_bound",
    "splitmix64",
    "random_below",
    "uniform",
    "hypergeometric",
    "rank_null_draws",
]

#: The increment of SplitMix64's state.
GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)

#: The chance below which a call's draws are known not to reach their cuts
#: without drawing them (:func:`log_reach_bound`; the promise's label draws
#: use the same, :mod:`subroc_ext.inference.promise`).
UNREACHED = 1e-9
#: Its log, which the screens compare with (a test sets it to ``-inf`` to draw everything).
LOG_UNREACHED = math.log(UNREACHED)


def log_reach_bound(auc, positives, negatives, low_cuts, high_cuts):
    """The log of an upper bound on the chance that one random subset with
    ``positives`` and ``negatives`` of data whose ROC AUC is ``auc`` reaches
    any cut (``2U <= low_cuts[j]`` or ``2U >= high_cuts[j]``); 0 where no bound
    applies.

    The subset's ``U / (PN)`` (its ROC AUC) has mean the data's: each of its
    positive-negative pairs is a random pair of the data's. Swapping one of
    its positives for another of the data's moves it by at most ``1/P``, one
    negative by at most ``1/N``; for a subset drawn without replacement the
    Doob martingale of its rows drawn one by one then has increments of those
    ranges (coupling the rest of the draw by the transposition of the two
    rows), and the Azuma-Hoeffding inequality bounds a deviation ``t`` by
    ``exp(-2 t**2 / (1/P + 1/N))`` (McDiarmid's bounded differences [3]_).

    Parameters
    ----------
    auc : float
        The ROC AUC of the data the subsets are drawn from (ties counting
        one half).
    positives, negatives : int
        The subset's class counts (both at least 1).
    low_cuts, high_cuts : numpy.ndarray of int

    Returns
    -------
    float

    References
    ----------
    .. [3] C. McDiarmid, "On the method of bounded differences", Surveys in
       Combinatorics, 1989, pp. 148-188.

    Examples
    --------
    Subsets of 200 positives and 200 negatives of data whose ROC AUC is 0.8
    hardly ever rank at most as well as chance (``2U <= 2PN / 2``):

    >>> float(np.exp(log_reach_bound(0.8, 200, 200, np.array([40_000]), np.array([80_001])))) < 1e-7
    True
    """
    pairs = 2.0 * positives * negatives
    spread = 1.0 / positives + 1.0 / negatives
    mean = pairs * auc
    low, high = np.asarray(low_cuts, dtype=float), np.asarray(high_cuts, dtype=float)
    logs = []
    for gap, outside in ((mean - low, low < 0), (high - mean, high > pairs)):  # outside [0, 2PN]: never reached
        bound = np.where(gap > 0, -2.0 * (np.clip(gap, 0.0, None) / pairs) ** 2 / spread, 0.0)
        logs.append(np.where(outside, -np.inf, bound))
    return float(min(np.logaddexp.reduce(np.concatenate(logs)), 0.0)) if len(low_cuts) else -np.inf


@njit(cache=True, inline="always")
def splitmix64(state):
    """The next 64 random bits of the SplitMix64 stream in ``state`` (uint64[1])."""
    state[0] += GOLDEN_GAMMA
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def random_below(state, bound):
    """Uniform integer in ``[0, bound)`` (``bound < 2**32``): Lemire's
    multiply-shift with rejection on :func:`splitmix64`, so exactly uniform."""
    while True:
        product = (splitmix64(state) >> np.uint64(32)) * np.uint64(bound)
        low = product & np.uint64(0xFFFFFFFF)
        if low >= np.uint64(bound) or low >= (np.uint64(0x100000000) - np.uint64(bound)) % np.uint64(bound):
            return np.int64(product >> np.uint64(32))


@njit(cache=True, inline="always")
def uniform(state):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(splitmix64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _log_terms(k, smaller, sample, larger):
    return (
        math.lgamma(k + 1.0) + math.lgamma(smaller - k + 1.0)
        + math.lgamma(sample - k + 1.0) + math.lgamma(larger - sample + k + 1.0)
    )  # fmt: skip


@njit(cache=True)
def hypergeometric(state, good, bad, sample):
    """Good items among ``sample`` drawn without replacement from ``good +
    bad`` (compiled, exact).

    Small samples (fewer than 10 drawn or left) one item at a time;
    otherwise Stadlober's ratio-of-uniforms method [1]_ with NumPy's
    constants and squeezes (its tail beyond 16 standard deviations, of
    probability below 1e-50, is cut).

    Parameters
    ----------
    state : uint64[1]
        The SplitMix64 stream (:func:`splitmix64`).
    good, bad, sample : int
        ``0 <= sample <= good + bad < 2**32``.

    Returns
    -------
    int
    """
    total = good + bad
    if sample == 0 or good == 0:
        return np.int64(0)
    if bad == 0:
        return np.int64(sample)
    drawn = min(sample, total - sample)  # draw the rows left out when they are fewer
    if drawn < 10:
        left, found = total, np.int64(0)
        remaining_good = good
        for _ in range(drawn):
            if random_below(state, left) < remaining_good:
                found += 1
                remaining_good -= 1
            left -= 1
    else:
        smaller, larger = min(good, bad), max(good, bad)
        p = smaller / total
        mean = drawn * p
        a = mean + 0.5
        variance = (total - drawn) * drawn * p * (larger / total) / (total - 1)
        c = math.sqrt(variance + 0.5)
        h = 1.7155277699214135 * c + 0.8989161620588988
        mode = np.int64(math.floor((drawn + 1.0) * (smaller + 1.0) / (total + 2.0)))
        g = _log_terms(mode, smaller, drawn, larger)
        b = min(min(drawn, smaller) + 1.0, math.floor(a + 16.0 * c))
        while True:
            u = uniform(state)
            v = uniform(state)
            if u == 0.0:
                continue
            x = a + h * (v - 0.5) / u
            if x < 0.0 or x >= b:
                continue
            k = np.int64(math.floor(x))
            t = g - _log_terms(k, smaller, drawn, larger)
            if u * (4.0 - u) - 3.0 <= t:
                break
            if u * (u - t) >= 1.0:
                continue
            if 2.0 * math.log(u) <= t:
                break
        found = k if good <= bad else drawn - k  # k counted the smaller class
    return found if drawn == sample else good - found


@njit(cache=True, inline="always")
def _undecided(fixed, slack, low_cuts, high_cuts):
    """Whether some cut lies inside ``[fixed, fixed + slack]``: a draw reaches
    cut ``j`` when its ``2U <= low_cuts[j]`` or ``2U >= high_cuts[j]``."""
    top = fixed + slack
    for j in range(len(low_cuts)):
        if top <= low_cuts[j] or fixed >= high_cuts[j]:
            continue  # reached
        if fixed > low_cuts[j] and top < high_cuts[j]:
            continue  # missed
        return True
    return False


@njit(cache=True, nogil=True)
def rank_null_draws(seed, first_draw, cum_positives, cum_negatives, positives, negatives, low_cuts,
                    high_cuts, twice, reached):  # fmt: skip
    """``2U`` of random subsets with fixed class counts, each refined until
    its relation to every cut is known (see the module's description).

    Parameters
    ----------
    seed : int
        Seeds every draw's stream together with the draw's index.
    first_draw : int
        Index of the first draw (``out[i]`` is draw ``first_draw + i``), so
        that draws can be computed in parts.
    cum_positives, cum_negatives : int64[G + 1]
        Rows of each class in the tie groups below each group (cumulative
        counts, starting at 0) of the data drawn from.
    positives, negatives : int
        Class counts of every subset.
    low_cuts, high_cuts : int64[k]
        Cut ``j`` is reached by a draw whose ``2U <= low_cuts[j]`` or
        ``2U >= high_cuts[j]``. Without cuts every draw is refined to the
        tie groups, so ``twice`` is exact.
    twice : int64[B]
        Output: ``2U`` of each draw where exact, else the lower end of the
        interval that decided it.
    reached : bool[k, B]
        Output: whether draw ``i`` reached cut ``j``.
    """
    groups = len(cum_positives) - 1
    capacity = 64
    nodes = np.empty((capacity, 4), dtype=np.int64)  # first group, end group, positives, negatives
    children = np.empty((2 * capacity, 4), dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    exact = len(low_cuts) == 0
    for i in range(len(twice)):
        state[0] = np.uint64(seed) ^ (np.uint64(first_draw + i) * GOLDEN_GAMMA)
        state[0] = splitmix64(state)  # a hashed start: the draws' streams do not overlap in practice
        fixed = np.int64(0)
        slack = np.int64(0)
        count = 0
        if positives > 0 and negatives > 0:
            if groups == 1:
                fixed = positives * negatives  # all tied
            else:
                nodes[0, 0], nodes[0, 1], nodes[0, 2], nodes[0, 3] = 0, groups, positives, negatives
                slack = 2 * positives * negatives
                count = 1
        while count > 0 and (exact or _undecided(fixed, slack, low_cuts, high_cuts)):
            if 2 * count > len(children):
                children = np.empty((4 * count, 4), dtype=np.int64)
            made = 0
            for k in range(count):
                lo, hi, a, b = nodes[k, 0], nodes[k, 1], nodes[k, 2], nodes[k, 3]
                slack -= 2 * a * b
                mid = (lo + hi) >> 1
                a_left = hypergeometric(
                    state, cum_positives[mid] - cum_positives[lo], cum_positives[hi] - cum_positives[mid], a
                )  # fmt: skip
                b_left = hypergeometric(
                    state, cum_negatives[mid] - cum_negatives[lo], cum_negatives[hi] - cum_negatives[mid], b
                )  # fmt: skip
                fixed += 2 * (a - a_left) * b_left  # right positives above left negatives
                for first, end, ca, cb in ((lo, mid, a_left, b_left), (mid, hi, a - a_left, b - b_left)):
                    if ca == 0 or cb == 0:
                        continue
                    if end - first == 1:
                        fixed += ca * cb  # one tie group: every pair ties
                        continue
                    children[made, 0], children[made, 1], children[made, 2], children[made, 3] = first, end, ca, cb
                    slack += 2 * ca * cb
                    made += 1
            nodes, children = children, nodes
            count = made
        twice[i] = fixed
        top = fixed + slack
        for j in range(len(low_cuts)):
            reached[j, i] = top <= low_cuts[j] or fixed >= high_cuts[j]
