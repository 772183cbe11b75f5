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
  still above the k-th best get their own ``g``. A node two levels above
  the maximum depth takes one call for its children and their leaves
  together (:func:`~subroc_ext.engine.search_kernels.expand_to_leaves`),
  and up to eight such nodes taken from the queue together take one call
  in all (:mod:`subroc_ext.engine.batch_kernels`, which raises its own
  threshold by the exact qualities it finds, so later nodes of a batch
  prune by earlier ones), so the Python code that holds the GIL runs once
  per batch.
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
* ROC AUC and ARL at the maximum depth, before the measure: a child's
  class counts per word (64 rows in score order) decide every pair of a
  positive and a negative in two words with no tie group across, so they
  bound its Mann-Whitney count, hence its quality, within the pairs that
  share a word (:func:`subroc_ext.engine.child_kernels.ranked_in_reach`);
  a child that cannot enter is not measured (Census at depth 4: a quarter
  of the children measured before).
* ROC AUC: a child whose estimate still exceeds the k-th best quality gets
  the joint, minimum-support-aware bound (:mod:`subroc_ext.scoring.joint_bounds`,
  offset ``max(q, g)`` of the child under generalization awareness) before
  it is queued or expanded (for the nodes one level above the maximum
  depth, in the leaves' call, only if still open when their turn comes).
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

import copy

import numpy as np
import pysubgroup as ps

from ..objective.comparison import ComparisonQF
from ..objective.generalization import GeneralizationAwareQF
from ..objective.multiclass import AUCMuQF
from ..objective.quality import SoftClassifierQF
from ..scoring import bitset
from ..utils.cluster import check_client
from ..utils.progress import progress_bar
from ..utils.validation import shown
from .parallel_search import search_on_cluster
from .search_run import SearchRun, at_least

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
            bar = progress_bar(
                iter(()), enabled=True, desc=f"searching the top {task.result_set_size:,} (candidates evaluated)"
            )
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
            if bar is not None:  # the last line says what was found, not the status before it
                bar.set_postfix_str(f"{len(patterns):,} of {task.result_set_size:,} results found")
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
        raise ValueError(f"{owner}{name} must be a positive integer, got {shown(value)}")
    return int(value)


def _packed(selector_mask):
    """``selector_mask`` (a selector's boolean cover) giving bitset words instead."""
    return lambda selector: bitset.pack(selector_mask(selector))


class _SearchSpace:
    """Selectors in pysubgroup's refinement order, their bitsets, and the
    first selector of every later attribute (one selector per attribute)."""

    def __init__(self, selectors, n_rows, selector_words):
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
        for i, selector in enumerate(self.selectors):  # one selector at a time: 1 bit a row
            self.words[i] = selector_words(selector)
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
            space = _SearchSpace(task.search_space, len(task.data), _packed(base.selector_mask))
        elif isinstance(base, ComparisonQF):  # rows in the comparison's canonical order
            space = _SearchSpace(task.search_space, len(base.sides), _packed(base.selector_mask))
        else:  # rows in ascending score order, each selector's words kept by the dataset
            space = _SearchSpace(task.search_space, len(base.dataset), base.dataset.selector_words)
        return cls(base, space, depth, result_set_size, min_support, task.min_quality,
                   generalization_aware)  # fmt: skip

    def relabelled(self, quality_function, data, target, k=None, min_quality=None):
        """The same search space with ``quality_function`` (not yet prepared)
        prepared on ``data``: the rows this search was prepared on, in the same
        order, with other labels (a label draw: the rows' order is their
        scores', which the labels do not move, so the selectors' bitsets
        stay); ``k`` and the minimum quality replaced."""
        base, generalization_aware = _quality_function(quality_function)
        quality_function.calculate_constant_statistics(data, target)
        return SearchProblem(
            base, self.space, self.depth, self.k if k is None else k, self.min_support,
            self.min_quality if min_quality is None else min_quality, generalization_aware,
        )  # fmt: skip

    def run(self, floor=-np.inf, depth=None, floor_pattern=None):
        """A new search; ``floor``, a quality that at least ``k`` patterns are
        known to exceed or reach, raises the minimum quality (nothing below
        it can enter the result, and subtrees whose estimate is below it are
        pruned; ties with it are kept, see the tie rule above);
        ``floor_pattern``, the worst of those ``k`` patterns by the tie rule,
        lets ties after it in refinement order be pruned too; ``depth``
        lowers the maximum depth."""
        depth = self.depth if depth is None else min(depth, self.depth)
        run = SearchRun(self, depth, max(self.min_quality, at_least(floor)))
        if floor_pattern is not None:
            run.cut = (run.min_quality, max(self.min_quality, floor), run.rank(tuple(floor_pattern)))
        return run

    def strata(self):
        """The stratum of each row, in the order of the selectors' bitsets:
        rows whose scores are exchangeable under the null of the tests (the
        holdout's random subsets, the whole-search permutations of
        :mod:`subroc_ext.inference.permutation`).

        Returns
        -------
        numpy.ndarray of int
            The class (``0`` negative, ``1`` positive) for a
            :class:`SoftClassifierQF` (one stratum, ``0``, if its measure's
            ``null_by_size`` is True) and a paired :class:`ComparisonQF`
            (both models score the same rows); ``2 * period + class`` for an
            unpaired one (a period's rows stay in it); the class's index for
            an :class:`~subroc_ext.AUCMuQF`.
        """
        qf = self.qf
        if isinstance(qf, AUCMuQF):
            return np.asarray(qf.projections.codes, dtype=np.int64)
        if isinstance(qf, ComparisonQF):
            sides = qf.sides
            codes = np.zeros(len(sides), dtype=np.int64)
            for side, (dataset, index) in enumerate(zip(sides.datasets, sides.indices)):
                codes[index] = 2 * (0 if sides.paired else side) + dataset.is_positive
            return codes
        if qf.measure.null_by_size:  # the calibration measures: every row exchangeable
            return np.zeros(len(qf.dataset), dtype=np.int64)
        return qf.dataset.is_positive.astype(np.int64)

    def moved(self, position, k=None, min_quality=None):
        """The same search with every selector's cover moved: the row at
        ``r`` to ``position[r]`` (scores and labels stay where they are).

        With ``position`` a permutation within each of the :meth:`strata`,
        this is the search on data whose scores were shuffled within the
        strata (the attributes moving instead gives the same patterns and
        qualities).

        Parameters
        ----------
        position : numpy.ndarray of int64
            A permutation of the rows.
        k, min_quality : optional
            Replace the result set size and the minimum quality.

        Returns
        -------
        SearchProblem
        """
        space = copy.copy(self.space)
        space.words = np.empty_like(self.space.words)
        for selector, words in enumerate(self.space.words):
            bitset.permute(words, position, space.words[selector])
        return SearchProblem(
            self.qf, space, self.depth, self.k if k is None else k, self.min_support,
            self.min_quality if min_quality is None else min_quality, self.generalization_aware,
        )  # fmt: skip

    def patterns_of(self, subgroups):
        """The selector indices (in refinement order) of pysubgroup
        conjunctions of this search's selectors, as :meth:`run` returns them.

        Raises ``ValueError`` naming a subgroup with a selector outside the space.
        """
        index = {selector: i for i, selector in enumerate(self.space.selectors)}
        patterns = []
        for subgroup in subgroups:
            try:
                patterns.append(tuple(sorted(index[selector] for selector in subgroup.selectors)))
            except KeyError:
                raise ValueError(f"subgroup {subgroup} has a condition outside the search space") from None
        return patterns

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
