"""Significance without a holdout: the whole search, permuted (Westfall-Young max-T).

The holdout test (:mod:`subroc_ext.inference.significance`) spends half the
data on validation. This test searches all rows and asks of each found
pattern ``S`` whether its quality ``φ(S)`` (weighted, generalization-aware:
what the search ranks by) is larger than what the best pattern of the whole
search reaches on data where the scores carry no information about the
attributes.

* **Null**: within each class the scores are exchangeable across rows,
  independent of the attributes - SubROC's null for every pattern at once.
  A permutation shuffles the scores among the positives and, separately,
  among the negatives; every cover keeps its size and class counts and its
  scores become a random draw from each class's pool: exactly the
  random-subset null of the holdout test. Moving the attributes instead of
  the scores gives the same data up to the order of the rows, so each
  permutation moves the selectors' bitsets
  (:meth:`~subroc_ext.engine.search.SearchProblem.moved`) and keeps the data
  sorted by score. The strata (:meth:`~subroc_ext.engine.search.SearchProblem.strata`):
  the classes; paired comparisons (:func:`~subroc_ext.find_regressions`): the
  classes, both models' scores of a row moving together; drift
  (:func:`~subroc_ext.find_drift`): the classes within each period (the null
  of the holdout test: in neither period does an attribute tell anything
  about the score); AUC_mu: every class.
* **Single-step max-T** [1]_: ``M_b``, the best quality of the whole search
  (same space, minimum support, weights, generalization awareness) on
  permutation ``b``, is a top-1 search, which prunes hard. The adjusted
  p-value of ``S`` counts the ``M_b >= φ(S)``. It controls the family-wise
  error rate over *every* pattern of the search space (not only the
  reported ones): under the complete null always, strongly under subset
  pivotality.
* **Step-down** [1]_: the ``j``-th best pattern of the data is compared with
  ``u_b,j``, the best quality on permutation ``b`` of the patterns other
  than the ``j - 1`` better ones (a top-``j`` search), and the adjusted
  p-values are made non-decreasing down the ranking. Uniformly more
  powerful; it is run when the single-step test rejects some but not all
  patterns and a rejected pattern was the best of some permutation
  (otherwise ``u_b,j = M_b`` for every permutation drawn and every step up
  to the first not rejected, and the step-down test decides the same), as
  a second pass over the same permutations, with top-``K`` searches (``K``
  one more than the single-step rejections; ``u_b,K`` for the patterns
  below the ``K``-th, which is conservative). Each search of the first
  pass keeps its top :data:`KEPT_TOP`, from which the second reads
  ``u_b,j`` where ``K`` is no more and its floor no lower, instead of
  searching that permutation again.
* **Sequential stopping** on the shared ``M_b``: the permutations are drawn
  in rounds and each pattern's count runs as a Besag-Clifford p-value
  (:class:`~subroc_ext.inference.sequential.SequentialPValues`); a pattern
  stops when its count has ``exceedances`` hits, when the cap is reached,
  or when its decision is settled (``p <= alpha`` even at its upper bound,
  or ``> alpha`` at its lower bound or for a better-ranked pattern). A
  stopped pattern reports its upper bound (valid). Each permuted search
  skips everything below the smallest ``φ`` of a pattern still drawing (its
  minimum quality), which is what makes the later rounds cheap.

Each permutation ``b`` is drawn from its own generator (seed, ``b``), and the
rounds do not depend on the threads or workers, so the p-values are the same
for any ``n_jobs`` and on a Dask cluster.

The patterns are chosen and tested on the same rows: their effect sizes,
estimated on those rows, are biased upwards (the winner's curse), so this
test comes without intervals.

References
----------
.. [1] P. H. Westfall and S. S. Young, "Resampling-Based Multiple Testing:
   Examples and Methods for p-Value Adjustment", Wiley, 1993 (single-step and
   step-down max-T).
.. [2] F. Llinares-López, M. Sugiyama, L. Papaxanthos and K. Borgwardt, "Fast
   and memory-efficient significant pattern mining via permutation testing",
   KDD 2015.
.. [3] L. Pellegrina and F. Vandin, "Efficient mining of the most significant
   patterns with permutation testing", Data Mining and Knowledge Discovery
   34, 2020.
.. [4] J. Besag and P. Clifford, "Sequential Monte Carlo p-values",
   Biometrika 78(2), 301-304, 1991.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..engine.evaluators import evaluator, thread_safe
from ..engine.search import SearchProblem
from ..engine.search_run import at_least
from ..utils.cluster import parallelism, shared
from ..utils.interrupts import kernel_interrupts
from ..utils.progress import progress_bar
from ..utils.validation import shown
from .sequential import SequentialPValues
from .significance import base_seed

__all__ = ["MAX_T", "PERMUTATION_COLUMNS", "check_permutation_settings", "max_t", "null_tops", "permutation_test",
           "permuted_positions", "tie_tolerances", "with_max_t"]

#: The name of the test (the table's ``attrs['method']``; with step-down, its top-k follows).
MAX_T = "max-T"

#: The columns of :func:`permutation_test`'s table.
PERMUTATION_COLUMNS = [
    "statistic", "p_value", "p_value_corrected", "significant", "testable", "null_samples",
    "p_value_exact",
]  # fmt: skip

#: Permutations in the first round; each later round doubles the total (see :func:`_round_size`).
FIRST_ROUND = 16

# Tags the permutations' generators apart from the holdout test's.
_STREAM = 0x5045524D


def permuted_positions(strata, seed, permutation):
    """Permutation number ``permutation``: the new position of each row, a
    uniformly random permutation within each stratum, from its own
    generator (``numpy.random.SeedSequence`` of ``(seed, tag, permutation)``).

    Parameters
    ----------
    strata : numpy.ndarray of int
        The stratum of each row.
    seed : int
    permutation : int

    Returns
    -------
    numpy.ndarray of int64

    Examples
    --------
    >>> moved = permuted_positions(np.array([0, 1, 0, 1, 0]), 0, 3)
    >>> sorted(moved[[0, 2, 4]].tolist()), sorted(moved[[1, 3]].tolist())
    ([0, 2, 4], [1, 3])
    """
    rng = np.random.default_rng(np.random.SeedSequence([seed, _STREAM, int(permutation)]))
    position = np.arange(len(strata), dtype=np.int64)
    for stratum in np.unique(strata):
        rows = np.flatnonzero(strata == stratum)
        position[rows] = rng.permutation(rows)
    return position


def _permuted_top(context, seed, permutation, k, floor):
    """The ``k`` best ``(quality, pattern)`` of the search ``context``
    (``(problem, strata)``) on permutation ``permutation``, best first, of
    quality at least ``floor``."""
    problem, strata = context
    moved = problem.moved(permuted_positions(strata, seed, permutation), k=k, min_quality=at_least(floor))
    run = moved.run()
    run.search(None)
    return [(quality, pattern) for quality, _, pattern in sorted(run.results, reverse=True)]


#: Each permuted search keeps at least its top this many: a step-down pass
#: of up to top-8 reads the permutations the single-step pass drew from it.
KEPT_TOP = 8


def _serves(searched, k, floor):
    """Whether a permutation's earlier search ``(k, floor, top)`` holds its
    top ``k`` of quality at least ``floor``: it kept at least as many from
    at most as high a floor."""
    return searched is not None and searched[0] >= k and searched[1] <= floor


def _shared_top(shared, seed, draw, k, floor):
    """A null search on a worker, from the shared ``(top, context)``."""
    top, context = shared
    return top(context, seed, draw, k, floor)


def _collected(futures, bar):
    """The results of ``futures``, in their order, counted on ``bar`` (or None)."""
    results = []
    for future in futures:
        results.append(future.result())
        if bar is not None:
            bar.update(1)
    return results


@kernel_interrupts()
def null_tops(top, context, seed, draws, k, floor, client, on_workers, threads, bar):
    """``top(context, seed, draw, k, floor)`` of each of ``draws`` (the best
    ``k`` of one null search), in their order: here (on ``threads`` threads,
    one search each) or on ``client``'s workers (``on_workers``, the shared
    ``(top, context)``)."""
    if client is not None:
        tops = {}
        for b, result in on_workers.results(_shared_top, ((b, (seed, b, k, floor)) for b in draws)):
            tops[b] = result
            if bar is not None:
                bar.update(1)
        return [tops[b] for b in draws]
    if threads > 1 and len(draws) > 1:
        with ThreadPoolExecutor(threads) as pool:
            futures = [pool.submit(top, context, seed, b, k, floor) for b in draws]
            try:
                return _collected(futures, bar)
            finally:
                pool.shutdown(cancel_futures=True)  # Ctrl-C: only the running searches finish
    tops = []
    for b in draws:
        tops.append(top(context, seed, b, k, floor))
        if bar is not None:
            bar.update(1)
    return tops


def _step_maxima(top, patterns, k):
    """``u_j`` for every step ``j`` from one permutation's top ``k``: the best
    quality of a pattern other than the ``j - 1`` first ``patterns`` (for
    ``j <= k``; ``u_k`` below, an upper bound), ``-inf`` where none of the
    top reaches the search's minimum quality."""
    maxima = np.full(len(patterns), -np.inf)
    for j in range(min(k, len(patterns))):
        better = set(patterns[:j])
        maxima[j] = next((quality for quality, pattern in top if pattern not in better), -np.inf)
    if k < len(patterns):
        maxima[k:] = maxima[k - 1]
    return maxima


def _stopped(state, alpha):
    """Steps whose decision no further permutation changes (see the module
    notes): finished, ``p <= alpha`` at the upper bound, or ``p > alpha`` at
    the lower bound, here or for a better-ranked step."""
    upper, lower = state.p_values(), state.lower()
    failed = np.maximum.accumulate(lower > alpha)
    return state.finished | (upper <= alpha) | failed


def _round_size(state, stopped, alpha):
    """Permutations in the next round: the total doubles from
    :data:`FIRST_ROUND`, but the round ends early where a step still drawing
    could first be settled as significant (its upper bound ``h / (L + h -
    G)`` reaching ``alpha`` if no more permuted maximum reaches it: 190
    permutations for ``h = 10``, ``alpha = 0.05`` and none so far), and at
    the cap. It depends only on the counts so far: the same for any threads."""
    drawn = int(state.drawn.max())
    size = max(FIRST_ROUND, drawn)
    drawing = ~stopped & ~state.finished
    if drawing.any():
        h = state.exceedances
        settled = np.ceil(h / alpha - h + state.exceeded[drawing] - 1e-9) - state.drawn[drawing]
        if settled.min() >= FIRST_ROUND:
            size = min(size, int(settled.min()))
    return min(size, state.max_samples - drawn)


def tie_tolerances(statistics):
    """How far below each statistic a null maximum still counts as reaching it:
    a null value equal to the statistic counts, and sums in another order may
    differ in the last bits."""
    return 100 * np.finfo(float).eps * np.maximum(np.abs(statistics), 1.0)


def with_max_t(table, rows, result, alpha):
    """``table`` with the :func:`max_t` ``result`` of its steps ``rows`` (index
    labels, in the ranking's order): ``p_value`` (= ``p_value_corrected``, the
    max-T's p-values are adjusted), ``null_samples``, ``p_value_exact``,
    ``significant`` and ``attrs['null_searches']``."""
    adjusted, exact, counted, drawn, _ = result
    table.loc[rows, "p_value"] = adjusted
    table.loc[rows, "null_samples"] = counted
    table.loc[rows, "p_value_exact"] = exact
    table["p_value_corrected"] = table["p_value"]
    table["significant"] = table["p_value"] <= alpha
    table.attrs["null_searches"] = int(drawn)
    return table


def max_t(draw, statistics, tolerances, patterns, k, max_permutations, exceedances, alpha):
    """Sequential max-T p-values of the steps (patterns ranked by
    ``statistics``, best first) with top-``k`` null searches
    (``draw(draws, k, floor)``: the top ``k`` of each of ``draws``); also the
    patterns that were the best of some null search (at or above the floor).

    Returns ``(adjusted, exact, counted, drawn, best)``: the adjusted
    p-values (non-decreasing down the ranking), whether each is exact (not
    the upper bound of a step stopped once settled), the null searches each
    step counted, those drawn in all, and the best patterns."""
    state = SequentialPValues(len(statistics), exceedances=exceedances, max_samples=max_permutations)
    stopped = np.zeros(len(statistics), dtype=bool)
    first, best = 0, set()
    while first < max_permutations and not stopped.all():
        size = _round_size(state, stopped, alpha)
        floor = statistics[~stopped].min() - tolerances[~stopped].max()
        tops = draw(range(first, first + size), k, floor)
        first += size
        maxima = np.array([_step_maxima(top, patterns, k) for top in tops]).reshape(size, -1)
        best.update(top[0][1] for top in tops if top)
        for step in np.flatnonzero(~stopped):
            state.add(step, maxima[:, step] >= statistics[step] - tolerances[step])
        stopped |= _stopped(state, alpha)
    p_values = state.p_values()
    adjusted = np.minimum(np.maximum.accumulate(p_values), 1.0)
    # exact where the largest p-value of the steps at or above is a finished one
    exact = np.maximum.accumulate(np.where(state.finished, p_values, 0.0)) >= np.maximum.accumulate(
        np.where(state.finished, 0.0, p_values)
    )  # fmt: skip
    return adjusted, exact, state.drawn, first, best


def check_permutation_settings(max_permutations, exceedances, alpha):
    """Raise one ``ValueError`` naming a bad setting of :func:`permutation_test`."""
    for name, value in (("max_permutations", max_permutations), ("exceedances", exceedances)):
        if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1):
            raise ValueError(f"{name} must be a positive integer, got {shown(value)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")


def permutation_test(
    subgroups, qualities, data, quality_function, target, *, selectors, depth, min_support,
    rows=None, max_permutations=10_000, exceedances=10, alpha=0.05, step_down=True,
    random_state=None, progress=False, client=None, n_jobs=None,
):  # fmt: skip
    """The whole-search permutation test (max-T) of the patterns a search found on ``data``.

    Parameters
    ----------
    subgroups : list of pysubgroup conjunctions
        What the search of ``quality_function`` over ``selectors`` on
        ``data`` found, best first (its exact top: the step-down test
        compares each with the patterns ranked above it).
    qualities : sequence of float
        Their qualities, in the same order.
    data : pandas.DataFrame
        The searched rows (all of them: there is no holdout).
    quality_function : pysubgroup quality function
        The search's own (weights, generalization awareness): any that
        :class:`~subroc_ext.FastSearch` runs.
    target : SoftClassifierTarget, ComparisonTarget, DriftTarget or MultiClassTarget
    selectors : sequence of pysubgroup selectors
        The search space.
    depth, min_support : int
        The search's maximum depth and minimum support.
    rows : sequence of int, optional
        Positions in ``subgroups`` of the patterns to report (e.g. those
        left after merging identical covers); all by default. The steps
        below the last of them are not drawn.
    max_permutations : int, default=10_000
        The cap on permutations: the smallest p-value is ``1 / (1 +
        max_permutations)``.
    exceedances : int, default=10
        ``h`` of the Besag-Clifford p-values.
    alpha : float, default=0.05
        The family-wise error rate.
    step_down : bool, default=True
        Run the step-down pass when the single-step test rejects some but
        not all patterns.
    random_state : None, int or numpy.random.Generator
        Seeds the permutations (see :func:`~subroc_ext.inference.significance.base_seed`).
    progress : bool, default=False
        Show a progress bar (permuted searches).
    client : dask.distributed.Client, optional
        Run the permuted searches on this cluster's workers, one task each.
    n_jobs : int, optional
        Run this many permuted searches at once on threads (a measure of
        your own, evaluated by its Python methods, runs on one).

    Returns
    -------
    pandas.DataFrame
        One row per reported pattern, in ``rows`` order: ``statistic``
        (``φ``), ``p_value`` and ``p_value_corrected`` (both the max-T
        adjusted p-value: already corrected for the whole search),
        ``significant`` (``<= alpha``), ``testable`` (True), ``null_samples``
        (the permutations it counted) and ``p_value_exact`` (False where it
        stopped once its decision was settled: the p-value is an upper
        bound). ``attrs``: ``permutations`` (drawn in the last pass),
        ``null_searches`` (permuted searches in all), ``method`` (``'max-T'`` or
        ``'max-T step-down (top-K)'``).

    Examples
    --------
    >>> import subroc_ext
    >>> from subroc_ext.workflow import steps
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west", "north"], 600),
    ...                      "label": rng.integers(0, 2, 600)})
    >>> data["score"] = np.where(data["region"] == "east", rng.random(600),  # east: chance
    ...                          0.5 * data["label"] + 0.5 * rng.random(600))
    >>> target = subroc_ext.SoftClassifierTarget("label", "score")
    >>> qf = subroc_ext.make_quality_function("roc_auc", "label", size_weight=1, balance_weight=1)
    >>> space = subroc_ext.make_search_space(data, ignore=["label", "score"])
    >>> found = steps.search(data, qf, target, selectors=space, depth=1, min_quality=0)
    >>> tested = permutation_test(found.subgroups, found.qualities, data, qf, target,
    ...                           selectors=space, depth=1, min_support=20, random_state=0)
    >>> print(found.subgroups[0], bool(tested["significant"][0]), tested["p_value"][0] <= 0.05)
    region=='east' True True
    """
    check_permutation_settings(max_permutations, exceedances, alpha)
    if len(subgroups) != len(qualities):
        raise ValueError(f"subgroups and qualities differ in length: {len(subgroups)} and {len(qualities)}")
    rows = np.arange(len(subgroups)) if rows is None else np.asarray(rows, dtype=np.int64)
    seed = base_seed(random_state)
    client, threads = parallelism(client, n_jobs)
    task = ps.SubgroupDiscoveryTask(
        data, target, list(selectors), quality_function, result_set_size=1, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    problem = SearchProblem.from_task(task)
    if not thread_safe(evaluator(problem.qf, problem.space)):
        threads = 1
    strata = problem.strata()
    steps = int(rows.max()) + 1 if len(rows) else 0
    patterns = problem.patterns_of(subgroups[:steps])
    statistics = np.asarray(qualities[:steps], dtype=float)
    tolerances = tie_tolerances(statistics)
    searches = 0
    with shared(client, (_permuted_top, (problem, strata))) as on_workers:
        bar = progress_bar(iter(()), enabled=True, desc="permuted searches") if progress else None

        searched = {}  # permutation -> (k, floor, top) of its search

        def draw(permutations, k, floor):
            nonlocal searches
            wanted = [b for b in permutations if not _serves(searched.get(b), k, floor)]
            searches += len(wanted)
            run_k = max(k, min(KEPT_TOP, steps))
            tops = null_tops(_permuted_top, (problem, strata), seed, wanted, run_k, floor, client, on_workers,
                             threads, bar)  # fmt: skip
            searched.update((b, (run_k, floor, top)) for b, top in zip(wanted, tops))
            return [[entry for entry in searched[b][2] if entry[0] >= floor][:k] for b in permutations]

        try:
            settings = (max_permutations, exceedances, alpha)
            k, method = 1, MAX_T
            adjusted, exact, counted, drawn, best = max_t(draw, statistics, tolerances, patterns, k, *settings)
            rejected = int(np.sum(adjusted <= alpha))
            # step-down changes a decision only if a rejected pattern was some permutation's best
            if step_down and 0 < rejected < steps and best & set(patterns[:rejected]):
                k, method = rejected + 1, f"{MAX_T} step-down (top-{rejected + 1})"
                adjusted, exact, counted, drawn, _ = max_t(draw, statistics, tolerances, patterns, k, *settings)
        finally:
            if bar is not None:
                bar.close()
    table = pd.DataFrame({"statistic": statistics[rows], "p_value": adjusted[rows]})
    table["p_value_corrected"] = table["p_value"]
    table["significant"] = table["p_value"] <= alpha
    table["testable"] = True
    table["null_samples"] = counted[rows]
    table["p_value_exact"] = exact[rows]
    table.attrs.update(permutations=int(drawn), null_searches=int(searches), method=method)
    return table
