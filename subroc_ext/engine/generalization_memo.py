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
the children). Patterns found in no row (their node was not expanded, or
pruned them) are evaluated together, per row, when a pattern that needs
them may still enter the result (:meth:`GeneralizationMemo.bests`), and
added to the row.

With threads, the rows are shared. A row is never changed in place: adding
to it writes a new copy, so a reader sees a whole row, and every value in
one is exact (two threads may both compute a pattern and write the same
float; a row written from an older copy may lose another thread's
additions, which are then found again), so readers never see a wrong one.
"""

import numpy as np

# the compiled loop of generalization_aware_quality, without its argument checks
from ..objective.generalization import generalization_aware_arrays
from .search_kernels import aware_children

__all__ = ["GeneralizationMemo", "aware_quality"]


def aware_quality(weight, raw_quality, raw_bound, max_weight, generalization):
    """:func:`~subroc_ext.objective.generalization.generalization_aware_quality` of
    float arrays of one length, without its argument handling: ``(quality,
    estimate)``."""
    out = np.empty((2, len(weight)))
    generalization_aware_arrays(weight, raw_quality, raw_bound, max_weight, generalization, out)
    return out[0], out[1]


class GeneralizationMemo:
    """``q`` and ``max(q, g)`` of the patterns of one search.

    Parameters
    ----------
    space
        The search's selectors (``words``, ``next_start``, ``cover``).
    evaluator
        Its evaluator (``raw_qualities`` of patterns not evaluated as children).
    """

    def __init__(self, space, evaluator):
        self.space = space
        self.evaluator = evaluator
        self.rows = {}  # pattern -> (first selector, q of its children, max(q, g) of its children)

    def children(self, pattern, candidates, stats, parent_best, expandable, threshold):
        """Qualities and estimates of the children ``pattern + (c,)`` of
        ``candidates``, and (``expandable``) their ``max(q, g)``.

        A child's ``g`` is the largest ``max(q, g)`` of the patterns one
        selector shorter: ``pattern`` itself (``parent_best``) and, for each
        selector of ``pattern``, ``pattern`` without it plus ``c``, read from
        the row of ``pattern`` without it. Where one of them is not known, the
        others bound ``g`` from below, and ``g`` is found
        (:meth:`generalizations`) only where that bound does not already rule
        the child out (at or below ``threshold``). With ``expandable``, the
        children's ``q`` and ``max(q, g)`` become the row of ``pattern``
        (:func:`~subroc_ext.engine.search_kernels.aware_children` does all but
        finding the unknown ``g``).

        Returns
        -------
        quality, estimate : numpy.ndarray of float
        bests : numpy.ndarray of float or None
            ``max(q, g)`` of each child (``parent_best``, a lower bound,
            where ``g`` is not known); None unless ``expandable``.
        """
        start = self.start(pattern)
        weight, raw_quality, raw_bound, max_weight = (
            np.ascontiguousarray(field, dtype=float)
            for field in (stats.weight, stats.raw_quality, stats.raw_bound, stats.max_weight)
        )  # fmt: skip
        fields, pending, raw_row, best_row = aware_children(
            candidates, weight, raw_quality, raw_bound, max_weight, float(parent_best),
            self.shorter_rows([pattern])[0], float(threshold), expandable, start, len(self.space.words),
        )  # fmt: skip
        quality, estimate, bests = fields
        self.complete(pattern, candidates, (weight, raw_quality, raw_bound, max_weight), parent_best, quality,
                      estimate, bests, pending, raw_row, best_row, expandable)  # fmt: skip
        return quality, estimate, bests if expandable else None

    def shorter_rows(self, patterns):
        """The rows of each of ``patterns`` (of one length ``L``) without
        each of its selectors (:meth:`stacked_rows`): float64[len(patterns), L, S]."""
        length = len(patterns[0])
        shorter = [pattern[:i] + pattern[i + 1 :] for pattern in patterns for i in range(length)]
        return self.stacked_rows(shorter).reshape(len(patterns), length, len(self.space.words))

    def stacked_rows(self, patterns):
        """The ``max(q, g)`` rows of ``patterns``, all selectors wide (NaN where
        not known): float64[len(patterns), S]."""
        rows = np.full((len(patterns), len(self.space.words)), np.nan)
        for i, pattern in enumerate(patterns):
            row = self.rows.get(pattern)
            if row is not None:
                rows[i, row[0] :] = row[2]
        return rows

    def complete(self, pattern, candidates, statistics, parent_best, quality, estimate, bests, pending,
                 raw_row, best_row, expandable):  # fmt: skip
        """Finish what :func:`~subroc_ext.engine.search_kernels.aware_children`
        returned (its arrays, changed in place): the ``g`` of the ``pending``
        children (:meth:`generalizations`), their quality, estimate and
        ``max(q, g)``, and (``expandable``) the row of ``pattern``, merged
        with what an earlier row of it held. ``statistics``: the children's
        ``weight, raw_quality, raw_bound, max_weight``."""
        start = self.start(pattern)
        if len(pending):
            weight, raw_quality, raw_bound, max_weight = (field[pending] for field in statistics)
            generalization = self.generalizations(pattern, candidates[pending], parent_best)
            quality[pending], estimate[pending] = aware_quality(
                weight, raw_quality, raw_bound, max_weight, generalization
            )  # fmt: skip
            if expandable:
                best = np.maximum(raw_quality, generalization)
                bests[pending] = best_row[candidates[pending] - start] = best
        if expandable:
            self.store(pattern, start, raw_row, best_row)

    def store(self, pattern, start, raw_row, best_row):
        """Make ``raw_row`` and ``best_row`` (from selector ``start`` on) the
        row of ``pattern``, merged with what an earlier row of it held."""
        known = self.rows.get(pattern)  # patterns of this row found before (by leaves)
        if known is not None:
            raw_row = np.where(np.isnan(raw_row), known[1], raw_row)
            best_row = np.where(np.isnan(best_row), known[2], best_row)
        self.rows[pattern] = (start, raw_row, best_row)

    def sibling_row(self, pattern):
        """``max(q, g)`` of ``pattern + (c,)`` for the selectors ``c`` from
        ``start`` on (NaN where not known; empty when no row), and ``start``:
        a lower bound of ``g`` of every pattern ``pattern + (s, c)``."""
        known = self.rows.get(pattern)
        if known is None:
            return np.empty(0), len(self.space.words)
        start, _, best_row = known
        return best_row, start

    def leaf_qualities(self, pattern, nodes, node, children, weight, raw_quality):
        """The quality ``w * (q - g)`` of each pattern ``pattern + (nodes[node[k]],
        children[k])``, with its own ``g``.

        Its patterns one selector shorter are its node and ``pattern +
        (children[k],)`` (both in the row of ``pattern``) and, for each
        selector of ``pattern``, ``pattern`` without it plus the two (the row
        of ``pattern`` without it plus the node's selector): read from the
        rows of all nodes at once (``node`` is non-decreasing, as
        :func:`~subroc_ext.engine.search_kernels.leaves_of_nodes` returns
        it), those not known found per node (:meth:`bests`).
        """
        generalization = np.maximum(self.bests(pattern, nodes[node]), self.bests(pattern, children))
        segment = np.cumsum(np.diff(node, prepend=-1) != 0) - 1  # index of each pattern's node among them
        selectors = [(int(s),) for s in nodes[np.unique(node)]]
        for i in range(len(pattern)):
            others = pattern[:i] + pattern[i + 1 :]
            values = self.stacked_rows([others + s for s in selectors])[segment, children]
            unknown = np.isnan(values)
            for j in np.unique(segment[unknown]).tolist():
                found = unknown & (segment == j)
                values[found] = self.bests(others + selectors[j], children[found])
            generalization = np.maximum(generalization, values)
        infinite = np.full(len(children), np.inf)
        return aware_quality(weight, raw_quality, infinite, infinite, generalization)[0]

    def generalizations(self, pattern, selectors, pattern_best=None):
        """``g`` of ``pattern + (c,)`` for each of ``selectors``: the largest
        ``max(q, g)`` of ``pattern`` (``pattern_best`` if given) and of
        ``pattern`` without each of its selectors plus ``c``."""
        if pattern_best is None:
            last = np.array(pattern[-1:], dtype=np.int64)
            pattern_best = self.bests(pattern[:-1], last)[0] if pattern else 0.0
        generalization = np.full(len(selectors), float(pattern_best))
        for i in range(len(pattern)):
            generalization = np.maximum(generalization, self.bests(pattern[:i] + pattern[i + 1 :], selectors))
        return generalization

    def bests(self, pattern, selectors):
        """``max(q, g)`` of ``pattern + (c,)`` for each of ``selectors``
        (int64, after ``pattern``'s own in refinement order): read from the
        row of ``pattern``; those not in it evaluated together (their ``q``
        in one call of the evaluator, their ``g`` by :meth:`generalizations`)
        and added to the row, a new copy (other threads read whole rows)."""
        row = self.rows.get(pattern)
        if row is None:
            start = self.start(pattern)
            values = np.full(len(selectors), np.nan)
        else:
            start, raw_row, best_row = row
            values = best_row[selectors - start]
        missing = np.isnan(values)
        if not missing.any():
            return values
        need = selectors[missing]
        raw = np.full(len(need), np.nan) if row is None else raw_row[need - start]
        unknown = np.isnan(raw)
        if unknown.any():
            raw[unknown] = self.evaluator.raw_qualities(self.space.cover(pattern), need[unknown])
        values[missing] = best = np.maximum(raw, self.generalizations(pattern, need))
        if row is None:
            raw_row = best_row = np.full(len(self.space.words) - start, np.nan)
        raw_row, best_row = raw_row.copy(), best_row.copy()
        raw_row[need - start], best_row[need - start] = raw, best
        self.rows[pattern] = (start, raw_row, best_row)
        return values

    def start(self, pattern):
        """The first selector of a row of ``pattern``: the first that may follow it."""
        return int(self.space.next_start[pattern[-1]]) if pattern else 0
