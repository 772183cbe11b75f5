"""FastSearch: exhaustive subgroup search with optimistic-estimate pruning,
compiled candidate evaluation and bounded memory.

:class:`FastSearch` runs a ``ps.SubgroupDiscoveryTask`` whose quality
function is one of subroc-ext's and returns what ``ps.BestFirstSearch`` and
``ps.DFS`` return for it: the ``result_set_size`` best patterns (at most
``depth`` selectors, one per attribute, at least the minimum support) with
the same qualities and statistics.

How it differs from pysubgroup's loop
-------------------------------------
* Covers are bitsets over the rows sorted once by score, and every
  refinement of a node is evaluated in one compiled call
  (:func:`subroc_ext.engine.search_kernels.scored_children`): first the
  class counts of all children, then the measure for those that survive a
  bound computed from the counts alone, then their statistics
  (:func:`subroc_ext.objective.statistics.statistics_kernel`, the code the
  quality function runs for one candidate).
* The children at the maximum depth, most of the candidates, are never
  expanded: for the compiled measures those of all the nodes one level
  above, that share a parent, take one call in all
  (:func:`subroc_ext.engine.search_kernels.leaves_of_nodes`; no extremes,
  no estimates), which returns only the children that may enter the result.
  With generalization awareness it bounds each child's ``g`` from below by
  its parent's ``max(q, g)`` and the sibling row of the memo
  (:mod:`subroc_ext.engine.generalization_memo`), and only the children
  still above the k-th best get their own ``g``.
* Before counting, a child has at most the positives and the negatives
  of both its parent and its selector (counted once), so one whose largest
  possible weight times the cap below cannot reach the k-th best quality is
  not counted at all.
* The bound from counts: a child ``C`` of ``S`` has ``q(C) <= R(S)`` (the
  parent's raw bound covers every subset of its cover) and, with
  generalization awareness, ``g(C) >= max(q(S), g(S))``. So
  ``w(C) * (R(S) - G(S))`` bounds the child's quality and
  ``W_max(C) * max(R(S) - G(S), 0)`` everything below it; when both are at
  most the current k-th best quality, the child is neither evaluated nor
  expanded. Only the class counts are needed for that.
* ROC AUC and ARL, tighter from the same counts: a child with ``p``
  positives and ``n`` negatives is a subset of its parent, so its AUC lies
  between the parent's lowest and highest AUC over subsets of exactly those
  counts, and its ARL, ``n (1 - AUC)``, between the matching extremes
  (:func:`subroc_ext.scoring.joint_bounds.count_bounds`, one profile of the
  parent and a binary search per child); ``w(C)`` times that gain (less the
  parent's ``max(q, g)``) replaces ``w(C) * (R(S) - G(S))``.
* ROC AUC: a child whose estimate still exceeds the k-th best quality gets
  the joint, minimum-support-aware bound (:mod:`subroc_ext.scoring.joint_bounds`,
  offset ``max(q, g)`` of the child under generalization awareness) before
  it is queued or expanded.
* Nodes are expanded best first (highest optimistic estimate first) as in
  ``ps.BestFirstSearch``, except that the nodes one level above the maximum
  depth are expanded as soon as they are evaluated, so the queue holds no
  pattern longer than ``depth - 2`` and memory stays small.

* With ``n_jobs > 1``, that many threads take nodes from the one shared
  queue and expand them; the compiled kernels release the GIL, and the
  threads share the result heap (so the k-th best quality that prunes, also
  read by the kernels while they run) and the generalization memo. Only the
  order of the work changes.

Ties at the k-th place: the result is the ``result_set_size`` best patterns
by quality and, among equal qualities, by pattern in pysubgroup's refinement
order (the selectors' order in the search space, a pattern before its
extensions). A pattern tied with the current k-th best is therefore still
evaluated and its subtree still searched, and the result does not depend on
the search order: it is the same for any ``n_jobs`` and on a Dask cluster.
``ps.BestFirstSearch`` keeps whichever tied patterns it meets first, so among
patterns tied exactly at the k-th quality its choice may differ; all other
patterns and all qualities are the same.
"""

import heapq
import itertools
import threading
from types import SimpleNamespace

import numpy as np
import pysubgroup as ps

from ..objective.comparison import ComparisonQF
from ..objective.generalization import GeneralizationAwareQF
from ..objective.multiclass import AUCMuQF
from ..objective.quality import SoftClassifierQF
from ..scoring import bitset
from ..utils.cluster import check_client
from ..utils.progress import progress_bar, search_status
from .evaluators import BinaryEvaluator, CompiledEvaluator, evaluator, thread_safe
from .generalization_memo import GeneralizationMemo
from .parallel_search import search_on_cluster

__all__ = ["FastSearch", "SearchProblem"]


class FastSearch:
    """Exhaustive search with pruning for subroc-ext quality functions.

    Used like pysubgroup's algorithms: ``FastSearch().execute(task)``.

    Parameters
    ----------
    progress : bool, default=False
        Show a progress bar (evaluated candidates and the current k-th best
        quality) on stderr.
    client : dask.distributed.Client, optional
        Run the search on this Dask cluster (optional extra ``dask``): the
        subtrees of the first-level selectors are grouped into parts of about
        equal estimated cost, which run on the workers and share the k-th
        best quality as they finish (:mod:`subroc_ext.engine.parallel_search`). The
        result is the same as without a client.
    parts_per_worker : int, default=4
        With ``client``: parts per worker.
    n_jobs : int, default=1
        Threads in this process (not with ``client``). The compiled measures
        (ROC AUC, PR AUC, ARL, row means, and the counting of every
        candidate) run in parallel; the Python code between kernel calls
        (about a sixth of the work at Census depth 4 for ROC AUC, most of
        it for ARL) holds the GIL, which limits the speed-up (README,
        "Several cores").
        A measure evaluated by its own
        Python methods runs on one thread whatever ``n_jobs`` (its code need
        not be thread-safe). The result is the same for any ``n_jobs``.

    Notes
    -----
    Supported tasks: the quality function is a :class:`SoftClassifierQF`
    (the four built-in classes, or any measure), an
    :class:`~subroc_ext.AUCMuQF` (multi-class; its own statistics per
    candidate, no bound from class counts) or a :class:`GeneralizationAwareQF`
    around one; constraints are
    ``ps.MinSupportConstraint`` only; selectors are any pysubgroup selectors
    (``covers(data)`` and ``attribute_name``). ROC AUC, PR AUC, the average
    ranking loss and row means such as the attribution mean run compiled;
    any other measure is evaluated by its own Python methods on the
    candidates that survive the count bound. Anything else raises
    ``TypeError`` naming what is unsupported.

    Examples
    --------
    >>> import pysubgroup as ps, subroc_ext
    >>> task = ps.SubgroupDiscoveryTask(                      # doctest: +SKIP
    ...     data, subroc_ext.SoftClassifierTarget("label", "score"), selectors,
    ...     subroc_ext.ROCAUCQF("label", 1, 1), result_set_size=10, depth=3,
    ...     constraints=[ps.MinSupportConstraint(20)])
    >>> result = subroc_ext.FastSearch().execute(task)       # doctest: +SKIP
    """

    def __init__(self, *, progress=False, client=None, parts_per_worker=4, n_jobs=1):
        self.progress = progress
        self.client = client
        self.parts_per_worker = _positive_int(parts_per_worker, "parts_per_worker", "")
        self.n_jobs = _positive_int(n_jobs, "n_jobs", "")
        if client is not None and self.n_jobs > 1:
            raise ValueError("pass client= or n_jobs=, not both")
        #: Candidates considered in the last run: their class counts computed,
        #: or ruled out by their selector's and their parent's counts alone.
        self.candidates_counted = 0
        #: Candidates whose measure was computed in the last run.
        self.candidates_evaluated = 0
        #: The parts of the last distributed run (a DataFrame, see
        #: :func:`subroc_ext.engine.parallel_search.search_on_cluster`); None after a
        #: run in this process.
        self.parts = None

    def execute(self, task):
        """Run ``task``; returns a ``ps.SubgroupDiscoveryResult``."""
        if self.client is not None:
            check_client(self.client)
        problem = SearchProblem.from_task(task)
        space = problem.space
        bar = None
        if self.progress:
            bar = progress_bar(iter(()), enabled=True, desc="searching (candidates)")
        try:
            if self.client is None:
                run = problem.run()
                patterns = run.search(bar, threads=self.n_jobs)
                self.candidates_counted, self.candidates_evaluated = run.counted, run.evaluated
                self.parts = None
            else:
                patterns, self.parts = search_on_cluster(
                    self.client, problem, self.parts_per_worker, bar
                )
                self.candidates_counted = int(self.parts["counted"].sum())
                self.candidates_evaluated = int(self.parts["evaluated"].sum())
        finally:
            if bar is not None:
                bar.close()
        results = []
        for pattern in patterns:
            subgroup = ps.Conjunction([space.selectors[i] for i in pattern])
            statistics = task.qf.calculate_statistics(subgroup, task.target, task.data)
            quality = task.qf.evaluate(subgroup, task.target, task.data, statistics)
            results.append((quality, subgroup, statistics))
        return ps.SubgroupDiscoveryResult(ps.prepare_subgroup_discovery_result(results, task), task)


def _quality_function(qf):
    """The quality function that computes the statistics, and whether ``qf`` wraps it."""
    wrapped = isinstance(qf, GeneralizationAwareQF)
    if isinstance(qf.qf if wrapped else qf, (SoftClassifierQF, AUCMuQF, ComparisonQF)):
        return (qf.qf, True) if wrapped else (qf, False)
    raise TypeError(
        f"FastSearch runs subroc-ext quality functions (SoftClassifierQF and its subclasses, "
        f"AUCMuQF, ComparisonQF, or GeneralizationAwareQF around one), not {qf!r}; use a pysubgroup "
        "algorithm such as ps.BestFirstSearch for other quality functions"
    )


def _min_support(constraints):
    """The minimum cover size the constraints demand (1 without constraints)."""
    support = 1
    for constraint in constraints:
        if type(constraint) is not ps.MinSupportConstraint:
            raise TypeError(
                f"FastSearch supports only ps.MinSupportConstraint, not {type(constraint).__name__}"
            )
        support = max(support, constraint.min_support)
    return support


def _positive_int(value, name, owner="task."):
    if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1):
        raise ValueError(f"{owner}{name} must be a positive integer, got {value!r}")
    return int(value)


class _SearchSpace:
    """Selectors in pysubgroup's refinement order, their bitsets, and the
    first selector of every later attribute (one selector per attribute)."""

    def __init__(self, selectors, n_rows, selector_mask):
        for selector in selectors:
            if not hasattr(selector, "attribute_name") or not hasattr(selector, "covers"):
                raise TypeError(
                    f"selector {selector!r} needs covers(data) and attribute_name to be searched"
                )
        groups = ps.StaticSpecializationOperator(selectors).search_space
        self.selectors = [selector for group in groups for selector in group]
        sizes = [len(group) for group in groups]
        starts = np.concatenate(([0], np.cumsum(sizes)))
        self.group_sizes = np.array(sizes, dtype=np.int64)
        # first selector index of the attributes after each selector's own
        self.next_start = np.repeat(starts[1:], sizes).astype(np.int64)
        self.n_rows = n_rows
        self.words = np.empty((len(self.selectors), -(-self.n_rows // 64)), dtype=np.uint64)
        for i, selector in enumerate(self.selectors):  # one mask at a time: 1 bit a row
            self.words[i] = bitset.pack(selector_mask(selector))
        self.all_rows = bitset.pack(np.ones(self.n_rows, dtype=bool))

    def __getstate__(self):
        """Pickled without the selectors (a worker needs only their bitsets;
        pysubgroup selectors do not always pickle)."""
        return {**self.__dict__, "selectors": None}

    def cover(self, pattern):
        words = self.all_rows.copy()
        for i in pattern:
            words &= self.words[i]
        return words

    def refinements(self, pattern):
        start = self.next_start[pattern[-1]] if pattern else 0
        return np.arange(start, len(self.words), dtype=np.int64)


class SearchProblem:
    """A search prepared once: the quality function (after
    ``calculate_constant_statistics``), the selectors' bitsets and the task's
    limits. It pickles, so a cluster's workers can run parts of the search
    (:mod:`subroc_ext.engine.parallel_search`).
    """

    def __init__(self, qf, space, depth, result_set_size, min_support, min_quality,
                 generalization_aware):  # fmt: skip
        self.qf = qf
        self.space = space
        self.depth = depth
        self.k = result_set_size
        self.min_support = min_support
        self.min_quality = min_quality
        self.generalization_aware = generalization_aware

    @classmethod
    def from_task(cls, task):
        """Check ``task`` (a ``ps.SubgroupDiscoveryTask``) and prepare it:
        ``calculate_constant_statistics`` and the selectors' bitsets."""
        base, generalization_aware = _quality_function(task.qf)
        min_support = _min_support(task.constraints)
        depth, result_set_size = _positive_int(task.depth, "depth"), _positive_int(
            task.result_set_size, "result_set_size"
        )
        task.qf.calculate_constant_statistics(task.data, task.target)
        if isinstance(base, AUCMuQF):  # rows in the data's order
            space = _SearchSpace(task.search_space, len(task.data), base.selector_mask)
        elif isinstance(base, ComparisonQF):  # rows in the comparison's canonical order
            space = _SearchSpace(task.search_space, len(base.sides), base.selector_mask)
        else:  # rows in ascending score order
            space = _SearchSpace(task.search_space, len(base.dataset), base.dataset.selector_mask)
        return cls(base, space, depth, result_set_size, min_support, task.min_quality,
                   generalization_aware)  # fmt: skip

    def run(self, floor=-np.inf, depth=None, floor_pattern=None):
        """A new search; ``floor``, a quality that at least ``k`` patterns are
        known to exceed or reach, raises the minimum quality (nothing below
        it can enter the result, and subtrees whose estimate is below it are
        pruned; ties with it are kept, see the tie rule above);
        ``floor_pattern``, the worst of those ``k`` patterns by the tie rule,
        lets ties after it in refinement order be pruned too; ``depth``
        lowers the maximum depth."""
        depth = self.depth if depth is None else min(depth, self.depth)
        run = _Run(self, depth, max(self.min_quality, _at_least(floor)))
        if floor_pattern is not None:
            run.cut = (run.min_quality, max(self.min_quality, floor), run.rank(tuple(floor_pattern)))
        return run

    def subtrees(self, parents=((),)):
        """The subtrees one level below ``parents`` that hold longer patterns,
        and an estimate of each subtree's cost.

        Parameters
        ----------
        parents : sequence of tuple, default=((),)
            Patterns (selector indices); by default the empty pattern, whose
            subtrees are those of the first-level selectors.

        Returns
        -------
        prefixes : list of tuple
            ``parent + (selector,)`` for every refinement of every parent
            that has refinements itself (and room for them below ``depth``).
        costs : numpy.ndarray of float
            The number of patterns in each subtree (at most ``depth``
            selectors, one per attribute, without pruning) times the share of
            rows its prefix covers (the work per pattern grows with it).
        """
        space = self.space
        sizes = space.group_sizes
        n_groups = len(sizes)
        # patterns[g, j]: ways to choose j selectors from the attributes g, g+1, ...
        patterns = np.zeros((n_groups + 1, self.depth), dtype=float)
        patterns[:, 0] = 1.0
        for g in range(n_groups - 1, -1, -1):
            patterns[g, 1:] = patterns[g + 1, 1:] + sizes[g] * patterns[g + 1, :-1]
        group_of_next = np.searchsorted(np.cumsum(sizes), space.next_start, side="right")
        prefixes, costs = [], []
        for parent in parents:
            if len(parent) + 2 > self.depth:
                continue
            children = space.refinements(parent)
            children = children[space.next_start[children] < len(space.words)]
            covers = space.cover(parent) & space.words[children]
            rows = np.unpackbits(covers.view(np.uint8), axis=1).sum(axis=1)
            below = patterns[group_of_next[children], : self.depth - len(parent)].sum(axis=1)
            prefixes += [parent + (int(child),) for child in children]
            costs.append(below * rows / max(space.n_rows, 1))
        return prefixes, np.concatenate(costs) if costs else np.zeros(0)


def _at_least(quality):
    """The largest float below ``quality``: ``x > _at_least(q)`` is ``x >= q``."""
    return np.nextafter(quality, -np.inf)


class _Run:
    """One search: the result heap, the node queue and the generalization memo.

    The heap's entries are ``(quality, rank, pattern)``, where ``rank``
    orders equal qualities: the pattern first in refinement order ranks
    highest (the selector indices negated, padded with 1 so that a pattern
    ranks above its extensions), so the heap's root is the worst pattern by
    the tie rule of the module.
    """

    def __init__(self, problem, depth, min_quality):
        self.space, self.k = problem.space, problem.k
        self.min_support = problem.min_support
        self.generalization_aware = problem.generalization_aware
        self.evaluator = evaluator(problem.qf, problem.space)
        self.depth = depth
        self.min_quality = min_quality
        self.results = []  # min-heap of (quality, rank, pattern)
        self.sequence = itertools.count()
        self.counted = 0
        self.evaluated = 0
        self.memo = GeneralizationMemo(self.space, self.evaluator) if self.generalization_aware else None
        self.lock = threading.Lock()  # the heap and the counters, with threads
        # (threshold with ties, without ties, rank of the worst kept pattern):
        # replaced as one tuple, so threads read a consistent (if older) state
        self.cut = (min_quality, min_quality, None)
        # the threshold with ties, for compiled code that runs while it rises
        self.live = np.array([min_quality], dtype=float)

    # -- the result set -------------------------------------------------------

    def rank(self, pattern):
        """Orders patterns of equal quality: higher for the one first in
        refinement order (a pattern before its extensions)."""
        return tuple(-i for i in pattern) + (1,) * (self.depth - len(pattern))

    def threshold(self, pattern=None):
        """Quality a pattern in the subtree of ``pattern`` (the whole search
        if None) must exceed to enter the result: the minimum quality, or
        just below the k-th best quality where a tie may still rank higher
        than the worst kept pattern, or the k-th best quality itself where it
        cannot (every pattern of the subtree comes after ``pattern`` in
        refinement order, so after the worst kept one if ``pattern`` does)."""
        ties, no_ties, worst = self.cut
        if pattern is None or worst is None or self.rank(pattern) > worst:
            return ties
        return no_ties

    def promising(self, estimate, pattern):
        """Whether the subtree of ``pattern`` (``pattern`` itself excluded)
        may hold a pattern that enters, by its optimistic estimate."""
        ties, no_ties, worst = self.cut
        if estimate > no_ties:
            return True
        return estimate > ties and self.rank(pattern) > worst

    def offer(self, quality, pattern):
        if not quality > self.threshold():
            return
        entry = (quality, self.rank(pattern), pattern)
        with self.lock:
            if len(self.results) < self.k:
                heapq.heappush(self.results, entry)
            elif entry > self.results[0]:
                heapq.heapreplace(self.results, entry)
            else:
                return
            if len(self.results) == self.k:
                kth, worst, _ = self.results[0]
                self.cut = (max(self.min_quality, _at_least(kth)), max(self.min_quality, kth), worst)
                self.live[0] = self.cut[0]

    # -- search ----------------------------------------------------------------

    def search(self, bar, prefixes=None, threads=1):
        """The patterns of the result, best first (by the tie rule); ``bar``
        counts candidates (or None).

        ``prefixes``: search only the subtrees of these patterns (tuples of
        one or two selectors; every pattern of one selector, and every child
        of a one-selector prefix of a two-selector prefix, is still evaluated
        and offered); all subtrees by default. ``threads``: expand nodes on
        this many threads (this one included) when the evaluator is
        thread-safe.
        """
        self.bar = bar
        self.partial = self.owned = None  # patterns whose subtrees are owned in part, or at all
        if prefixes is not None:
            whole = set(map(tuple, prefixes))
            self.partial = {(), *(p[:i] for p in whole for i in range(1, len(p)))} - whole
            self.owned = whole | self.partial
        queue = []
        self.expand((), np.inf, 0.0 if self.generalization_aware else -np.inf, queue)
        if threads > 1 and thread_safe(self.evaluator):
            self._expand_on_threads(queue, threads)
        while queue:
            negative_estimate, _, pattern, raw_bound, best = heapq.heappop(queue)
            if not -negative_estimate > self.threshold():
                break
            if self.promising(-negative_estimate, pattern):
                self.expand(pattern, raw_bound, best, queue)
        return [pattern for _, _, pattern in sorted(self.results, reverse=True)]

    def _expand_on_threads(self, queue, threads):
        """Expand the nodes of ``queue`` (and those they add) best first on
        ``threads`` threads, this one included, until none is left that may
        lead to a result. An exception on any thread (Ctrl-C here) stops all
        of them and is raised here."""
        condition = threading.Condition()
        state = SimpleNamespace(busy=0, stop=False, error=None)

        def work():
            try:
                while True:
                    with condition:
                        while not queue and state.busy and not state.stop:
                            condition.wait()
                        if state.stop or not queue:
                            return
                        node = heapq.heappop(queue)
                        if not -node[0] > self.threshold():
                            queue.clear()  # the others' estimates are at most this one's
                            continue
                        if not self.promising(-node[0], node[2]):
                            continue
                        state.busy += 1
                    found = []
                    try:
                        self.expand(*node[2:], found)
                    finally:
                        with condition:
                            state.busy -= 1
                            for entry in found:
                                heapq.heappush(queue, entry)
                            condition.notify_all()
            except BaseException as error:  # noqa: BLE001 - raised again on this thread
                with condition:
                    state.stop = True
                    state.error = state.error or error
                    condition.notify_all()

        helpers = [threading.Thread(target=work, daemon=True) for _ in range(threads - 1)]
        for helper in helpers:
            helper.start()
        try:
            work()
        finally:  # done, failed, or Ctrl-C while waiting: every helper stops
            with condition:
                state.stop = True
                condition.notify_all()
            for helper in helpers:
                helper.join()
        if state.error is not None:
            raise state.error

    def expand(self, pattern, raw_bound, best, queue):
        """Evaluate the refinements of ``pattern``; queue or expand the promising ones.

        ``raw_bound`` is the pattern's largest raw quality over subsets and
        ``best`` is ``max(q, g)`` of the pattern (-inf without generalization
        awareness).
        """
        space = self.space
        if pattern and len(pattern) + 1 == self.depth and isinstance(self.evaluator, CompiledEvaluator):
            node = np.array(pattern[-1:], dtype=np.int64)
            self._offer_leaves(pattern[:-1], space.cover(pattern[:-1]), node, np.full(1, np.inf),
                               np.full(1, -np.inf), np.full(1, float(raw_bound)), np.full(1, float(best)))  # fmt: skip
            return
        parent = space.cover(pattern)
        candidates = space.refinements(pattern)
        if not len(candidates):
            return
        self._count(len(candidates))
        child_depth = len(pattern) + 1
        expandable = child_depth < self.depth
        threshold = self.threshold(pattern)
        compiled = isinstance(self.evaluator, CompiledEvaluator)
        owned = self.partial is None or pattern not in self.partial  # else only some children's subtrees
        if compiled and pattern and child_depth == self.depth - 1 and owned:
            self._expand_to_leaves(pattern, parent, candidates, raw_bound, best, threshold)
            return
        offset = {"offset": max(best, 0.0)} if isinstance(self.evaluator, BinaryEvaluator) else {}
        candidates, stats = self.evaluator.children(
            parent, candidates, self._cap(raw_bound, best), threshold, self.min_support, expandable, **offset
        )
        if stats is None:
            return
        with self.lock:
            self.evaluated += len(candidates)
        if self.generalization_aware:
            quality, estimate, bests = self.memo.children(pattern, candidates, stats, best, expandable, threshold)
        else:
            quality, estimate, bests = stats.quality, stats.optimistic_estimate, None
        for i in np.flatnonzero(quality > threshold):  # the others cannot enter
            self.offer(quality[i], pattern + (int(candidates[i]),))
        if not expandable:
            return
        # the root's children are queued (threads share them), deeper nodes'
        # children expanded at once one level above the maximum depth: with
        # compiled kernels all in one call (ties with the k-th best included),
        # which tightens their estimates itself
        now = child_depth == self.depth - 1 and len(pattern) > 0
        leaves = now and compiled
        if isinstance(self.evaluator, BinaryEvaluator) and not leaves:
            estimate = self.evaluator.tightened(
                parent, candidates, quality, estimate, bests, self.threshold(), self.min_support
            )
        order = np.argsort(-estimate, kind="stable")
        if self.partial is not None and pattern in self.partial:  # expand owned subtrees only
            order = [i for i in order if pattern + (int(candidates[i]),) in self.owned]
        bests = np.full(len(candidates), -np.inf) if bests is None else bests
        if leaves:
            order = np.asarray(order, dtype=np.int64)
            order = order[estimate[order] > self.threshold()]
            self._offer_leaves(pattern, parent, candidates[order], estimate[order], quality[order],
                               stats.raw_bound[order], bests[order])  # fmt: skip
            return
        for i in order:
            if not estimate[i] > self.threshold():
                break
            child = pattern + (int(candidates[i]),)
            if not self.promising(estimate[i], child):
                continue
            if now:
                self.expand(child, stats.raw_bound[i], bests[i], queue)
            else:
                heapq.heappush(queue, (-estimate[i], next(self.sequence), child, stats.raw_bound[i], bests[i]))

    def _cap(self, raw_bound, best):
        """Bound of the raw quality gain of a node's children (floats or
        arrays): a child's raw quality is at most the node's raw bound, and
        (with generalization awareness) its ``g`` at least the node's ``max(q, g)``."""
        return np.maximum(raw_bound - best if self.generalization_aware else raw_bound, 0.0)

    def _count(self, candidates):
        """Add ``candidates`` counted candidates (and show them)."""
        with self.lock:
            self.counted += candidates
            if self.bar is not None:
                self.bar.set_postfix_str(search_status(len(self.results), self.k, self.threshold()), refresh=False)
                self.bar.update(candidates)

    def _expand_to_leaves(self, pattern, parent, candidates, raw_bound, best, threshold):
        """:meth:`expand` of a node two levels above the maximum depth (the
        compiled measures) in one call
        (:meth:`CompiledEvaluator.expand_to_leaves`): its children, offered
        and (with generalization awareness) made the node's memo row, and
        their children at the maximum depth, offered. Where some child's
        ``g`` must first be found (:meth:`GeneralizationMemo.complete`), the
        leaves take a second call (:meth:`_offer_leaves`)."""
        memo = self.memo
        rows = (np.empty((0, 0)), 0) if memo is None else (memo.shorter_rows(pattern), memo.start(pattern))
        children, stats, quality, estimate, bests, pending, raw_row, best_row, nodes, leaves = (
            self.evaluator.expand_to_leaves(
                parent, candidates, self._cap(raw_bound, best), threshold, max(best, 0.0), best, *rows,
                self.live, self.min_support, memo is not None,
            )
        )  # fmt: skip
        with self.lock:
            self.evaluated += len(children)
        if memo is not None:
            statistics = (stats.weight, stats.raw_quality, stats.raw_bound, stats.max_weight)
            memo.complete(pattern, children, statistics, best, quality, estimate, bests, pending, raw_row,
                          best_row, True)  # fmt: skip
        for i in np.flatnonzero(quality > threshold):  # the others cannot enter
            self.offer(quality[i], pattern + (int(children[i]),))
        if not len(pending):
            self._take_leaves(pattern, nodes, leaves)
            return
        order = np.argsort(-estimate, kind="stable")
        order = order[estimate[order] > self.threshold()]
        self._offer_leaves(pattern, parent, children[order], estimate[order], quality[order],
                           stats.raw_bound[order], bests[order])  # fmt: skip

    def _offer_leaves(self, pattern, parent, nodes, estimates, qualities, raw_bounds, bests):
        """Offer the children at the maximum depth of the nodes ``pattern +
        (s,)`` for the selectors ``s`` in ``nodes`` (``parent`` is the cover of
        ``pattern``; arrays of the nodes' estimates, qualities, raw bounds and
        ``max(q, g)`` go with them), in one compiled call
        (:meth:`CompiledEvaluator.leaves`). With generalization awareness the
        call bounds each child's ``g`` from below by its node's ``max(q, g)``
        and the row of ``pattern`` (:meth:`GeneralizationMemo.sibling_row`),
        and the children still above the threshold get their own
        (:meth:`GeneralizationMemo.leaf_qualities`)."""
        sibling = (np.empty(0), 0) if self.memo is None else self.memo.sibling_row(pattern)
        leaves = self.evaluator.leaves(
            parent, nodes, estimates, qualities, self._cap(raw_bounds, bests), bests, *sibling, self.live,
            self.min_support,
        )  # fmt: skip
        self._take_leaves(pattern, nodes, leaves)

    def _take_leaves(self, pattern, nodes, leaves):
        """Count and offer what :func:`~subroc_ext.engine.search_kernels.leaves_of_nodes`
        returned for the nodes ``pattern + (s,)`` of the selectors ``nodes``,
        with generalization awareness each with its own ``g``
        (:meth:`GeneralizationMemo.leaf_qualities`)."""
        node, children, raw, weight, quality, counted, evaluated = leaves
        self._count(counted)
        with self.lock:
            self.evaluated += evaluated
        if self.memo is not None and len(children):
            quality = self.memo.leaf_qualities(pattern, nodes, node, children, weight, raw)
        for i in np.flatnonzero(quality > self.threshold()).tolist():
            self.offer(quality[i], pattern + (int(nodes[node[i]]), int(children[i])))
