"""What :class:`~subroc_ext.FastSearch` remembers of the patterns it has seen,
for generalization awareness.

Under :class:`~subroc_ext.GeneralizationAwareQF` a pattern's quality is
``w * (q - g)``, where ``g`` is the largest ``max(q, g)`` of the patterns one
selector shorter (:mod:`subroc_ext.objective.generalization`). The search
expands a node by evaluating all its children at once, so the memo keeps,
per expanded node, one *row*: the ``q`` and ``max(q, g)`` of each child, by
selector (NaN where not known). A child ``S + (c,)`` of ``S`` then finds
its shorter patterns in the rows of ``S``'s own parents: ``S`` without its
``i``-th selector, plus ``c``, is in the row of ``S`` without its ``i``-th
selector, column ``c`` (:meth:`GeneralizationMemo.children`, vectorized over
the children). Patterns found in no row are evaluated one at a time
(:meth:`GeneralizationMemo.generalization`) and kept in a dictionary.

With threads, the rows and the dictionary are shared; a pattern's entry is
written once with its final value (two threads may both compute it and write
the same float), so readers never see a wrong one.
"""

import numpy as np

# the compiled loop of generalization_aware_quality, without its argument checks
from ..objective.generalization import _generalization_aware_arrays as _aware_kernel
from ..objective.generalization import generalization_aware_kernel
from .search_kernels import aware_children

__all__ = ["GeneralizationMemo", "aware_quality"]


def aware_quality(weight, raw_quality, raw_bound, max_weight, generalization):
    """:func:`~subroc_ext.objective.generalization.generalization_aware_quality` of
    float arrays of one length, without its argument handling: ``(quality,
    estimate)``."""
    out = np.empty((2, len(weight)))
    _aware_kernel(weight, raw_quality, raw_bound, max_weight, generalization, out)
    return out[0], out[1]


class GeneralizationMemo:
    """``q`` and ``max(q, g)`` of the patterns of one search.

    Parameters
    ----------
    space
        The search's selectors (``words``, ``next_start``, ``cover``).
    evaluator
        Its evaluator (``raw_quality`` of a pattern not evaluated as a child).
    """

    def __init__(self, space, evaluator):
        self.space = space
        self.evaluator = evaluator
        self.best_raw = {(): 0.0}  # max(q, g) of patterns found one at a time
        self.rows = {}  # pattern -> (first selector, q of its children, max(q, g) of its children)

    def children(self, pattern, candidates, stats, parent_best, expandable, threshold):
        """Qualities and estimates of the children ``pattern + (c,)`` of
        ``candidates``, and (``expandable``) their ``max(q, g)``.

        A child's ``g`` is the largest ``max(q, g)`` of the patterns one
        selector shorter: ``pattern`` itself (``parent_best``) and, for each
        selector of ``pattern``, ``pattern`` without it plus ``c``, read from
        the row of ``pattern`` without it. Where one of them is not known, the
        others bound ``g`` from below, and ``g`` is found one pattern at a time
        only where that bound does not already rule the child out (at or below
        ``threshold``). With ``expandable``, the children's ``q`` and ``max(q,
        g)`` become the row of ``pattern``
        (:func:`~subroc_ext.engine.search_kernels.aware_children` does all but
        the patterns found one at a time).

        Returns
        -------
        quality, estimate : numpy.ndarray of float
        bests : numpy.ndarray of float or None
            ``max(q, g)`` of each child (``parent_best``, a lower bound,
            where ``g`` is not known); None unless ``expandable``.
        """
        shorter = np.empty((len(pattern), len(candidates)))
        for i in range(len(pattern)):
            shorter[i] = self._row_values(pattern[:i] + pattern[i + 1 :], candidates)
        start = int(self.space.next_start[pattern[-1]]) if pattern else 0
        weight, raw_quality, raw_bound, max_weight = (np.ascontiguousarray(field, dtype=float) for field in
                                                      (stats.weight, stats.raw_quality, stats.raw_bound, stats.max_weight))
        fields, pending, raw_row, best_row = aware_children(
            candidates, weight, raw_quality, raw_bound, max_weight, float(parent_best), shorter, float(threshold),
            expandable, start, len(self.space.words),
        )  # fmt: skip
        quality, estimate, _, bests = fields
        for i in pending.tolist():
            generalization = self.generalization(pattern + (int(candidates[i]),))
            if np.isnan(generalization):
                continue
            raw = float(raw_quality[i])
            quality[i], estimate[i] = generalization_aware_kernel(
                float(weight[i]), raw, float(raw_bound[i]), float(max_weight[i]), generalization
            )  # fmt: skip
            if expandable:
                bests[i] = best_row[candidates[i] - start] = max(raw, generalization)
        if not expandable:
            return quality, estimate, None
        self.rows[pattern] = (start, raw_row, best_row)
        return quality, estimate, bests

    def sibling_row(self, pattern):
        """``max(q, g)`` of ``pattern + (c,)`` for the selectors ``c`` from
        ``start`` on (NaN where not known; empty when no row), and ``start``:
        a lower bound of ``g`` of every pattern ``pattern + (s, c)``."""
        known = self.rows.get(pattern)
        if known is None:
            return np.empty(0), len(self.space.words)
        start, _, best_row = known
        return best_row, start

    def leaf_qualities(self, pattern, nodes, bests, node, children, weight, raw_quality):
        """The quality ``w * (q - g)`` of each pattern ``pattern + (nodes[node[k]],
        children[k])``, with its own ``g``.

        Its patterns one selector shorter are its node (``max(q, g)`` in
        ``bests``), ``pattern + (children[k],)`` (the row of ``pattern``) and,
        for each selector of ``pattern``, ``pattern`` without it plus the two
        (the row of ``pattern`` without it plus the node's selector): one row
        lookup per node, not per pattern (``node`` is non-decreasing, as
        :func:`~subroc_ext.engine.search_kernels.leaves_of_nodes` returns it);
        where one of them is not known, the pattern's ``g`` is found alone.
        """
        generalization = np.maximum(bests[node], self._row_values(pattern, children))
        starts = np.flatnonzero(np.diff(node, prepend=-1))
        ends = np.append(starts[1:], len(node))
        for start, end in zip(starts.tolist(), ends.tolist()):
            selector = (int(nodes[node[start]]),)
            for i in range(len(pattern)):
                shorter = pattern[:i] + pattern[i + 1 :] + selector
                generalization[start:end] = np.maximum(
                    generalization[start:end], self._row_values(shorter, children[start:end])
                )  # fmt: skip
        for k in np.flatnonzero(np.isnan(generalization)).tolist():  # NaN: not known
            generalization[k] = self.generalization(pattern + (int(nodes[node[k]]), int(children[k])))
        infinite = np.full(len(children), np.inf)
        return aware_quality(weight, raw_quality, infinite, infinite, generalization)[0]

    def _row_values(self, pattern, selectors):
        """``max(q, g)`` of ``pattern + (s,)`` for each of ``selectors`` (NaN where not known)."""
        row = self.rows.get(pattern)
        if row is None:
            return np.full(len(selectors), np.nan)
        start, _, best_row = row
        return best_row[selectors - start]

    def generalization(self, pattern):
        """``g``: the largest ``max(q, g)`` of the patterns one selector shorter."""
        return max(self._best_raw(pattern[:i] + pattern[i + 1 :]) for i in range(len(pattern)))

    def _best_raw(self, pattern):
        """``max(q, g)`` of ``pattern`` (from its node's row, memoized, or evaluated on demand)."""
        best = self.best_raw.get(pattern)
        if best is not None:
            return best
        raw = np.nan
        row = self.rows.get(pattern[:-1])
        if row is not None:
            start, raw_row, best_row = row
            raw, best = float(raw_row[pattern[-1] - start]), float(best_row[pattern[-1] - start])
            if not np.isnan(best):
                return best
        if np.isnan(raw):
            raw = self.evaluator.raw_quality(self.space.cover(pattern[:-1]), pattern[-1])
        best = max(raw, self.generalization(pattern))
        self.best_raw[pattern] = best
        return best
