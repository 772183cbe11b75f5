"""One run of :class:`~subroc_ext.FastSearch` (:mod:`subroc_ext.engine.search`,
whose docstring describes the search): the result heap and its threshold,
the queue of nodes, the threads that take nodes from it, and the expansion
of a node, through its evaluator's compiled calls and, with generalization
awareness, the memo (:mod:`subroc_ext.engine.generalization_memo`).
"""

import heapq
import itertools
import threading
from types import SimpleNamespace

import numpy as np

from ..utils.interrupts import kernel_interrupts
from ..utils.progress import search_status
from .evaluators import BinaryEvaluator, CompiledEvaluator, evaluator, thread_safe
from .generalization_memo import GeneralizationMemo

__all__ = ["SearchRun", "at_least"]


def at_least(quality):
    """The largest float below ``quality``: ``x > at_least(q)`` is ``x >= q``."""
    return np.nextafter(quality, -np.inf)


class SearchRun:
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
        self._ascending = None  # the results' qualities for the compiled calls (None: to be sorted again)
        self.sequence = itertools.count()
        self.counted = 0
        self.evaluated = 0
        self.memo = GeneralizationMemo(self.space, self.evaluator) if self.generalization_aware else None
        # the length of the patterns expanded in batches (none when -1)
        compiled = isinstance(self.evaluator, CompiledEvaluator)
        self.batch_length = depth - 2 if compiled and depth >= 3 else -1
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

    #: From this many patterns on, :meth:`offer_all` merges them with the heap
    #: in one :func:`heapq.nlargest` instead of one heap operation each.
    merge_from = 16

    def offer_all(self, qualities, patterns):
        """Put the patterns whose quality (a sequence of floats, one per
        pattern) exceeds the threshold into the result heap, under one lock,
        and raise the threshold: the ``k`` best of the heap and them by
        ``(quality, rank)``, whatever order they come in."""
        threshold = self.threshold()
        entries = [(float(q), self.rank(p), p) for q, p in zip(qualities, patterns) if q > threshold]
        if not entries:
            return
        with self.lock:
            if len(entries) >= self.merge_from:
                self.results = heapq.nlargest(self.k, itertools.chain(self.results, entries))[::-1]  # a heap
            else:
                for entry in entries:
                    if len(self.results) < self.k:
                        heapq.heappush(self.results, entry)
                    elif entry > self.results[0]:
                        heapq.heapreplace(self.results, entry)
            self._ascending = None
            if len(self.results) == self.k:
                kth, worst, _ = self.results[0]
                self.cut = (max(self.min_quality, at_least(kth)), max(self.min_quality, kth), worst)
                self.live[0] = self.cut[0]

    # -- search ----------------------------------------------------------------

    @kernel_interrupts()
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
            node = heapq.heappop(queue)
            if not -node[0] > self.threshold():
                break
            if self.promising(-node[0], node[2]):
                self.expand_taken(self.take(node, queue), queue)
        return [pattern for _, _, pattern in sorted(self.results, reverse=True)]

    #: At most this many nodes of one kind (:meth:`batch_kind`) are taken
    #: from the queue and expanded together.
    batch_size = 8

    #: At most this many of the root's children are taken together where
    #: they are one level above the maximum depth (depth 2): a compiled call
    #: for their leaves takes microseconds, the Python around it more.
    leaf_batch_size = 16

    def batch_kind(self, pattern):
        """How ``pattern`` (a queued node whose whole subtree is searched
        here) is expanded with others: ``'nodes'`` two levels above the
        maximum depth (:meth:`expand_nodes`), ``'leaves'`` for the root's
        children one level above it (their leaves in one
        :meth:`_offer_leaves`; compiled measures), None alone."""
        if self.partial is not None and pattern in self.partial:
            return None
        if len(pattern) == self.batch_length:
            return "nodes"
        if self.depth == 2 and len(pattern) == 1 and isinstance(self.evaluator, CompiledEvaluator):
            return "leaves"
        return None

    def take(self, node, queue):
        """``node`` (a queue entry just taken, promising) and the next entries
        of ``queue`` of its :meth:`batch_kind`, if it has one, up to that
        kind's batch size (those no longer promising dropped): a list of
        ``(pattern, raw_bound, best, estimate)``."""
        batch = [(*node[2:], -node[0])]
        kind = self.batch_kind(node[2])
        if kind is None:
            return batch
        size = self.batch_size if kind == "nodes" else self.leaf_batch_size
        while queue and len(batch) < size and self.batch_kind(queue[0][2]) == kind:
            if not -queue[0][0] > self.threshold():
                break
            entry = heapq.heappop(queue)
            if self.promising(-entry[0], entry[2]):
                batch.append((*entry[2:], -entry[0]))
        return batch

    def expand_taken(self, batch, queue):
        """Expand what :meth:`take` returned."""
        kind = self.batch_kind(batch[0][0])
        if kind == "nodes":
            self.expand_nodes([node[:3] for node in batch])
        elif kind == "leaves":
            selectors = np.array([pattern[0] for pattern, _, _, _ in batch], dtype=np.int64)
            self._offer_leaves((), self.space.all_rows, selectors, np.arange(len(batch)),
                               np.array([node[3] for node in batch]), np.full(len(batch), -np.inf),
                               np.array([node[1] for node in batch], dtype=float),
                               np.array([node[2] for node in batch], dtype=float))  # fmt: skip
        else:
            self.expand(*batch[0][:3], queue)

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
                        batch = self.take(node, queue)
                        state.busy += 1
                    found = []
                    try:
                        self.expand_taken(batch, found)
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
            order = np.zeros(1, dtype=np.int64)
            self._offer_leaves(pattern[:-1], space.cover(pattern[:-1]), node, order, np.full(1, np.inf),
                               np.full(1, -np.inf), np.full(1, float(raw_bound)), np.full(1, float(best)))  # fmt: skip
            return
        if self.batch_kind(pattern) == "nodes":
            self.expand_nodes([(pattern, raw_bound, best)])
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
        binary = {}  # what only a binary evaluator takes
        if isinstance(self.evaluator, BinaryEvaluator):
            binary = {"offset": max(best, 0.0), "aware": self.generalization_aware}
        candidates, stats = self.evaluator.children(
            parent, candidates, self._cap(raw_bound, best), threshold, self.min_support, expandable, **binary
        )
        if stats is None:
            return
        self._count(0, len(candidates))
        if self.generalization_aware:
            quality, estimate, bests = self.memo.children(pattern, candidates, stats, best, expandable, threshold)
        else:
            quality, estimate, bests = stats.quality, stats.optimistic_estimate, None
        offers = ([], [])
        self._child_offers([pattern], np.zeros(len(candidates), dtype=np.int64), candidates, quality, threshold, offers)
        self.offer_all(*offers)
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
            self._offer_leaves(pattern, parent, candidates, order, estimate, quality, stats.raw_bound, bests)
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

    def _child_offers(self, patterns, node, selectors, quality, threshold, offers):
        """Add to ``offers`` (a list of qualities and one of patterns) the
        children ``patterns[node[i]] + (selectors[i],)`` whose quality is above
        ``threshold`` (one for all or one per child; the others cannot enter)."""
        above = np.flatnonzero(quality > threshold)
        offers[0].extend(quality[above].tolist())
        offers[1].extend(patterns[b] + (s,) for b, s in zip(node[above].tolist(), selectors[above].tolist()))

    def _cap(self, raw_bound, best):
        """Bound of the raw quality gain of a node's children (floats or
        arrays): a child's raw quality is at most the node's raw bound, and
        (with generalization awareness) its ``g`` at least the node's ``max(q, g)``."""
        return np.maximum(raw_bound - best if self.generalization_aware else raw_bound, 0.0)

    def _count(self, counted, evaluated=0):
        """Add ``counted`` counted and ``evaluated`` measured candidates (and show them)."""
        with self.lock:
            self.counted += counted
            self.evaluated += evaluated
            if self.bar is not None:
                self.bar.set_postfix_str(search_status(len(self.results), self.k, self.threshold()), refresh=False)
                self.bar.update(evaluated)

    def expand_nodes(self, nodes):
        """:meth:`expand` of nodes two levels above the maximum depth
        (:meth:`batch_kind` ``'nodes'``; ``(pattern, raw_bound, best)`` each) in one
        compiled call (:meth:`CompiledEvaluator.expand_nodes`): their
        children, offered and (with generalization awareness) made the
        nodes' memo rows, and their children at the maximum depth, offered.
        Where some child's ``g`` must first be found
        (:meth:`GeneralizationMemo.complete`), its node's leaves take a
        second call (:meth:`_offer_leaves`)."""
        memo = self.memo
        patterns = [pattern for pattern, _, _ in nodes]
        selectors = np.array(patterns, dtype=np.int64)
        # two arrays of their own: rows of the transposed pair would be strided,
        # another type for the compiled call, compiled again
        raw_bounds = np.array([node[1] for node in nodes], dtype=float)
        bests = np.array([node[2] for node in nodes], dtype=float)
        thresholds = np.array([self.threshold(pattern) for pattern in patterns])
        if memo is None:
            shorter, starts = np.empty((len(nodes), 0, 0)), np.zeros(len(nodes), dtype=np.int64)
        else:
            shorter, starts = memo.shorter_rows(patterns), self.space.next_start[selectors[:, -1]]
        (child_start, children, fields, (quality, estimate, child_bests), pending, row_start, rows, node_start,
         searched, leaf_node, leaf_children, leaf_fields, counted, evaluated) = self.evaluator.expand_nodes(
            selectors, self._cap(raw_bounds, bests), thresholds, bests, shorter, starts, self.live, self._top(),
            self.min_quality, self.min_support, memo is not None,
        )  # fmt: skip
        self._count(counted, evaluated)
        waiting = np.flatnonzero(np.diff(np.searchsorted(pending, child_start)))  # nodes with pending children
        if memo is not None:
            complete = np.ones(len(nodes), dtype=bool)
            complete[waiting] = False
            for b in np.flatnonzero(complete).tolist():
                memo.store(patterns[b], int(starts[b]), *rows[:, row_start[b] : row_start[b + 1]])
        for b in waiting.tolist():  # g found first, then the leaves in a second call
            first, last = child_start[b], child_start[b + 1]
            children_b, quality_b, estimate_b, bests_b = (
                children[first:last], quality[first:last], estimate[first:last], child_bests[first:last]
            )  # fmt: skip
            statistics = (fields[2][first:last], fields[1][first:last], fields[4][first:last], fields[5][first:last])
            memo.complete(
                patterns[b], children_b, statistics, bests[b], quality_b, estimate_b, bests_b,
                pending[(pending >= first) & (pending < last)] - first, *rows[:, row_start[b] : row_start[b + 1]],
                True,
            )  # fmt: skip
            self._offer_leaves(patterns[b], self.space.cover(patterns[b]), children_b,
                               np.argsort(-estimate_b, kind="stable"), estimate_b, quality_b,
                               fields[4][first:last], bests_b)  # fmt: skip
        offers = ([], [])
        per_node = np.diff(child_start)
        self._child_offers(patterns, np.repeat(np.arange(len(patterns)), per_node), children, quality,
                           np.repeat(thresholds, per_node), offers)  # fmt: skip
        leaf_start = np.searchsorted(leaf_node, node_start)
        for b in np.flatnonzero(np.diff(leaf_start)).tolist():
            leaves = slice(leaf_start[b], leaf_start[b + 1])
            self._leaf_offers(
                patterns[b], searched[node_start[b] : node_start[b + 1]], leaf_node[leaves] - node_start[b],
                leaf_children[leaves], *leaf_fields[:, leaves], offers,
            )  # fmt: skip
        self.offer_all(*offers)

    def _offer_leaves(self, pattern, parent, selectors, order, estimates, qualities, raw_bounds, bests):
        """Offer the children at the maximum depth of the nodes ``pattern +
        (s,)`` for the selectors ``s`` in ``selectors``, taken in ``order``
        (those whose estimate no longer exceeds the threshold left out;
        ``parent`` is the cover of ``pattern``; arrays of the nodes'
        estimates, qualities, raw bounds and ``max(q, g)`` go with them), in
        one compiled call (:meth:`CompiledEvaluator.leaves`). With
        generalization awareness the call bounds each child's ``g`` from below by its node's ``max(q, g)``
        and the row of ``pattern`` (:meth:`GeneralizationMemo.sibling_row`),
        and the children still above the threshold get their own
        (:meth:`GeneralizationMemo.leaf_qualities`)."""
        order = order[estimates[order] > self.threshold()]
        nodes, bests = selectors[order], bests[order]
        sibling = (np.empty(0), 0) if self.memo is None else self.memo.sibling_row(pattern)
        leaves = self.evaluator.leaves(
            parent, nodes, estimates[order], qualities[order], self._cap(raw_bounds[order], bests), bests,
            *sibling, self.live, self.min_support,
        )  # fmt: skip
        node, children, raw, weight, quality, counted, evaluated = leaves
        self._count(counted, evaluated)
        offers = ([], [])
        self._leaf_offers(pattern, nodes, node, children, raw, weight, quality, offers)
        self.offer_all(*offers)

    def _top(self):
        """The qualities of the result, ascending, ``-inf`` in the places not yet taken: float64[k]."""
        with self.lock:  # another thread may be changing the heap
            if self._ascending is None:
                qualities = sorted(quality for quality, _, _ in self.results)
                self._ascending = np.full(self.k, -np.inf)
                self._ascending[self.k - len(qualities) :] = qualities
            return self._ascending.copy()  # the compiled call changes its copy

    def _leaf_offers(self, pattern, nodes, node, children, raw, weight, quality, offers):
        """Add to ``offers`` (a list of qualities and one of patterns) the
        children at the maximum depth :func:`~subroc_ext.engine.search_kernels.leaves_of_nodes`
        returned for the nodes ``pattern + (s,)`` of the selectors
        ``nodes`` that exceed the threshold, with generalization awareness
        each by its own ``g`` (:meth:`GeneralizationMemo.leaf_qualities`)."""
        if self.memo is not None and len(children):
            quality = self.memo.leaf_qualities(pattern, nodes, node, children, weight, raw)
        above = np.flatnonzero(quality > self.threshold())
        offers[0].extend(quality[above].tolist())
        offers[1].extend(
            pattern + (node_selector, child)
            for node_selector, child in zip(nodes[node[above]].tolist(), children[above].tolist())
        )
