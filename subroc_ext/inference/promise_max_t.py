"""Worse than its own scores promise, without a holdout: the whole case-mix search on drawn labels.

With a holdout, the headline's promise rule (SPEC, "What the headline may
call a failure", rule 2) runs the label-draw test of
:mod:`~subroc_ext.inference.promise` on held-out rows. Without one, the rows
that chose a subgroup would also test it: a slice of the strongest
predictor whose ROC AUC came out low by chance also comes out short of its
promise by the same chance. This test asks the question of every pattern of
the search space at once, as the permutation test
(:mod:`~subroc_ext.inference.permutation`) asks SubROC's:

* **Null**: the probabilities are the truth. Each row's label is an
  independent draw ``y_i ~ Bernoulli(p_i)``; scores and attributes stay.
  Under it no subgroup falls short of what its scores promise, however
  narrow its spread of risk.
* **Statistic**: the case-mix quality ``T(S) = w(S) * q_cm(S)``
  (:class:`~subroc_ext.objective.case_mix.CaseMixQF`), with the weight
  ``w(S) = sqrt(n(S) * cb(S))`` (size and balance weights 1/2, no
  generalization awareness). The standard deviation of a ROC AUC of ``P``
  positives and ``N`` negatives is about ``sqrt((n + 1) / (12 P N))`` [2]_,
  and ``sqrt(n * cb)`` is within a factor 2 of ``sqrt(P N / n)``
  (``cb = min(P, N) / max(P, N)``): ``T`` is nearly standardized, so the
  null maximum is not set by the largest covers. Max-T with pivotal
  statistics is Westfall and Young's own advice [1]_. The search's weight
  (``n * cb`` by default) is the wrong one here: on the small tables of
  ``benchmarks/bench_headline.py`` a planted failure of 50-130 rows in
  300-1,000 fell short of its promise by 0.3 and stayed below the null
  maximum (adjusted p 0.08-0.9), with this weight 5 of 9 such plants reach
  p <= 0.03 (``benchmarks/RESULTS.md``).
* **Max-T**: ``M_b``, the largest ``T`` of the whole search (the same
  selectors, depth and minimum support) on draw ``b``, a top-1 search; the
  adjusted p-value of ``S`` counts the ``M_b >= T(S)``, sequentially
  (Besag-Clifford, :func:`~subroc_ext.inference.permutation.max_t`). It
  controls the family-wise error over every pattern of the space when the
  probabilities are the truth.

**Worse than the whole data too.** ``AUC(D) - AUC(S) = q_cm(S) + [mbc(D) -
mbc(S)]``, and ``mbc`` is a function of the scores alone, fixed under the
null. So ``S`` ranks worse than the whole data exactly when ``q_cm(S)``
exceeds the margin ``m(S) = mbc(S) - mbc(D)``, and both claims (short of its
promise, worse than the whole data) hold when ``q_cm(S) > max(0, m(S))``.
A pattern's null ``q_cm(S) <= max(0, m(S))`` is tested with the statistic
``w(S) * (q_cm(S) - max(0, m(S))) = w(S) * min(q_cm(S), AUC(D) - AUC(S))``
(``beyond_whole``) against the same maxima ``M_b``: max-T's simultaneous
bound (exact when the law of ``w(S) * (q_cm(S) - E q_cm(S))`` does not
depend on the shortfall, approximately here [1]_). ``mode='better'`` mirrors
it (``w(S) * min(-q_cm(S), AUC(S) - AUC(D))``: above its promise and better
than the whole data), ``'both'`` takes the larger of the two, each no more
than ``w(S) * |q_cm(S)|``. Under the complete null these statistics are at
most the pattern's ``T(S)``, so the family-wise error stays at most
``alpha``.

References
----------
.. [1] P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing:
   Examples and Methods for p-Value Adjustment", Wiley, 1993.
.. [2] J. A. Hanley and B. J. McNeil, "The meaning and use of the area under
   a receiver operating characteristic (ROC) curve", Radiology 143(1),
   29-36, 1982.
"""

import copy
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..engine.search import SearchProblem
from ..engine.search_run import at_least
from ..objective.case_mix import CaseMixQF, CaseMixTarget
from ..utils.cluster import parallelism, shared
from ..utils.progress import progress_bar
from .permutation import max_t, null_tops, tie_tolerances, with_max_t
from .significance import base_seed

__all__ = ["METHOD", "PROMISE_WEIGHT", "promise_max_t", "promise_quality_function"]

#: The size and balance weight exponents of the statistic.
PROMISE_WEIGHT = 0.5
#: The test's name in a table's ``attrs``.
METHOD = "max-T over label draws"
#: Tags the label draws' generators apart from the other tests'.
_STREAM = 0x44524157


def promise_quality_function(label, *, positive_label=1, mode="worse"):
    """The statistic of :func:`promise_max_t` by default: the case-mix quality
    weighted by ``sqrt(n * cb)`` (:data:`PROMISE_WEIGHT`), without
    generalization awareness."""
    return CaseMixQF(label, positive_label=positive_label, mode=mode, size_weight=PROMISE_WEIGHT,
                     balance_weight=PROMISE_WEIGHT)  # fmt: skip


@dataclass(frozen=True)
class _Draws:
    """What one null search needs: the rows (with the probability column), the
    target, the classes' label values, the statistic's quality function (not
    prepared: a copy per search) and the search on the observed labels,
    whose selectors' bitsets every draw shares."""

    frame: pd.DataFrame
    target: CaseMixTarget
    positive_label: object
    negative_label: object
    quality_function: object
    observed: SearchProblem

    def problem(self, frame, k, floor):
        return self.observed.relabelled(copy.deepcopy(self.quality_function), frame, self.target, k=k,
                                        min_quality=at_least(floor))  # fmt: skip


def _drawn_labels(draws, seed, draw):
    """The frame of ``draws`` with its labels drawn from the probabilities, from
    the generator of ``(seed, tag, draw)``."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, _STREAM, int(draw)]))
    probabilities = draws.frame[draws.target.probability_column].to_numpy(dtype=float)
    positive = rng.random(len(probabilities)) < probabilities
    labels = np.where(positive, draws.positive_label, draws.negative_label)
    return draws.frame.assign(**{draws.target.label_column: labels})


def _drawn_top(draws, seed, draw, k, floor):
    """The ``k`` best ``(quality, pattern)`` of the search on label draw ``draw``,
    best first, of quality at least ``floor``."""
    run = draws.problem(_drawn_labels(draws, seed, draw), k, floor).run()
    run.search(None)
    return [(quality, pattern) for quality, _, pattern in sorted(run.results, reverse=True)]


def _beyond_whole(mode, pattern, dataset_values):
    """The unweighted statistic of ``pattern`` (case-mix statistics) falling short
    of its promise *and* of the whole data's ROC AUC, in the direction of
    ``mode`` (module documentation): ``min(q_cm, AUC(D) - AUC(S))`` for
    'worse', mirrored for 'better', the larger of the two for 'both'."""
    expected, auc = dataset_values  # mbc(D) and AUC(D): the case-mix quality's sides A and B
    drop = auc - pattern.measure
    shortfall = (pattern.baseline_measure - expected) + drop  # q_cm of mode 'worse'
    worse, better = min(shortfall, drop), min(-shortfall, -drop)
    return {"worse": worse, "better": better}.get(mode, max(worse, better))


def promise_max_t(subgroups, frame, target, *, positive_label, selectors, depth, min_support, mode="worse",
                  quality_function=None, statistics=None, beyond_whole=None, alpha=0.05, max_draws=10_000,
                  exceedances=10,
                  random_state=0, progress=False, client=None, n_jobs=None):  # fmt: skip
    """Which subgroups fall short of their own scores' promise: the max-T test
    of the whole case-mix search on labels drawn from the probabilities.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
        The patterns to test (any of the search space, in any order).
    frame : pandas.DataFrame
        All rows, with the label, score and probability columns of ``target``.
    target : CaseMixTarget
    positive_label : object
        The label value of a positive row (a draw's negatives get another
        value of the label column).
    selectors, depth, min_support
        The search space and its limits.
    mode : {"worse", "better", "both"}, default="worse"
        The direction of the default statistic.
    quality_function : CaseMixQF, optional
        The statistic (weighted, maybe generalization-aware; not yet
        prepared, it is copied for each search): by default
        :func:`promise_quality_function`. ``find_subgroups(case_mix=True,
        validation=None)`` tests by the search's own.
    statistics : sequence of float, optional
        The subgroups' statistics when known (the search's qualities).
    beyond_whole : sequence of bool, optional
        The subgroups tested for ranking worse (with ``mode='better'``:
        better) than the whole data as well as short of (above) their
        promise: statistic ``w(S) * min(q_cm(S), AUC(D) - AUC(S))`` (module
        documentation). Needs the default ``quality_function``. Default: none.
    alpha : float, default=0.05
        The family-wise error rate.
    max_draws : int, default=10_000
        The cap on label draws (null searches).
    exceedances : int, default=10
        ``h`` of the Besag-Clifford p-values.
    random_state : None, int or numpy.random.Generator, default=0
    progress : bool, default=False
        Show a progress bar (null searches).
    client : dask.distributed.Client, optional
    n_jobs : int, optional
        Null searches at once, on threads.

    Returns
    -------
    pandas.DataFrame
        One row per subgroup, in their order: the
        :data:`~subroc_ext.inference.permutation.PERMUTATION_COLUMNS`,
        ``statistic`` (``T``), ``p_value`` and ``p_value_corrected`` (both the
        max-T adjusted p-value: corrected for the whole search),
        ``significant`` (``<= alpha``), ``testable`` (False where ``T`` is
        undefined), ``null_samples`` (the null searches it counted) and
        ``p_value_exact``. ``attrs``: ``null_searches`` (label draws in all)
        and ``method``.

    Examples
    --------
    The scores are the true probabilities except in region ``east``,
    where they are noise:

    >>> import subroc_ext
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 600)
    >>> frame = pd.DataFrame({"region": rng.choice(["east", "west", "north"], 600), "p": p,
    ...                       "label": (rng.random(600) < p).astype(int)})
    >>> frame["score"] = np.where(frame["region"] == "east", rng.random(600), p)
    >>> space = subroc_ext.make_search_space(frame, ignore=["label", "score", "p"])
    >>> tested = promise_max_t(space[:3], frame.assign(p=frame["score"]), CaseMixTarget("label", "score", "p"),
    ...                        positive_label=1, selectors=space, depth=1, min_support=20)
    >>> [str(s) for s in space[:3]], tested["significant"].tolist()
    (["region=='west'", "region=='east'", "region=='north'"], [False, True, False])
    """
    if beyond_whole is not None and quality_function is not None:
        raise ValueError("beyond_whole needs the default quality function (its statistic is weighted by it)")
    seed = base_seed(random_state)
    labels = frame[target.label_column]
    negative = next(value for value in pd.unique(labels) if value != positive_label)
    if quality_function is None:
        quality_function = promise_quality_function(target.label_column, positive_label=positive_label, mode=mode)
    task = ps.SubgroupDiscoveryTask(
        frame, target, list(selectors), copy.deepcopy(quality_function), result_set_size=1, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    draws = _Draws(frame, target, positive_label, negative, quality_function, SearchProblem.from_task(task))
    measured = statistics is None
    statistics = np.zeros(len(subgroups)) if measured else np.array(statistics, dtype=float)  # a copy: set below
    beyond_whole = np.zeros(len(subgroups), bool) if beyond_whole is None else np.asarray(beyond_whole, bool)
    observed = draws.observed.qf
    for i in np.flatnonzero(measured | beyond_whole):  # each pattern's statistics computed once
        pattern = observed.calculate_statistics(subgroups[i], target, frame)
        statistics[i] = pattern.weight * _beyond_whole(mode, pattern, observed.dataset_values) if beyond_whole[i] \
            else pattern.quality  # fmt: skip
    order = np.argsort(-statistics, kind="stable")  # max-T runs down the ranking
    ranked = statistics[order]
    defined = np.isfinite(ranked)
    table = pd.DataFrame({"statistic": statistics, "p_value": 1.0, "p_value_corrected": 1.0, "significant": False,
                          "testable": np.isfinite(statistics), "null_samples": 0, "p_value_exact": True})  # fmt: skip
    table.attrs.update(null_searches=0, method=METHOD)
    if not defined.any():
        return table
    client, threads = parallelism(client, n_jobs)
    with shared(client, (_drawn_top, draws)) as on_workers:
        bar = progress_bar(iter(()), enabled=True, desc="label-draw searches") if progress else None

        def draw(batch, k, floor):
            return null_tops(_drawn_top, draws, seed, batch, k, floor, client, on_workers, threads, bar)

        try:
            result = max_t(draw, ranked[defined], tie_tolerances(ranked[defined]), list(range(int(defined.sum()))),
                           1, max_draws, exceedances, alpha)  # fmt: skip
        finally:
            if bar is not None:
                bar.close()
    return with_max_t(table, order[defined], result, alpha)
