"""One compiled call for a batch of :class:`~subroc_ext.FastSearch`'s nodes
two levels above the maximum depth.

Such nodes are most of a search's nodes (about 6,700 of 7,200 for Census at
depth 4), and each takes under a millisecond in compiled code. The Python
around one call (passing arrays in and out, the memo's rows, the offers)
holds the GIL, so with threads it is what the threads wait for. Taking the
best few nodes of the queue together makes that Python once per batch
(:meth:`subroc_ext.engine.search_run.SearchRun.expand_nodes`), and the
compiled call, which holds no GIL, loops over them
(:func:`subroc_ext.engine.search_kernels.expand_to_leaves` for each).
"""

import numpy as np
from numba import njit

from .search_kernels import expand_to_leaves

__all__ = ["expand_nodes_to_leaves"]


@njit(cache=True, nogil=True)
def expand_nodes_to_leaves(patterns, caps, thresholds, bests, shorter_rows, starts, live_threshold, top, floor,
                           data, settings):  # fmt: skip
    """:func:`~subroc_ext.engine.search_kernels.expand_to_leaves` of each of
    ``B`` nodes, their results end to end.

    Parameters
    ----------
    patterns : int64[B, L]
        The nodes' selectors (``L >= 1``); node ``b``'s cover is the AND of
        their bitsets and its candidates every selector from the first that
        may follow its last.
    caps, thresholds, bests : float64[B]
        Each node's ``cap``, ``threshold`` and ``max(q, g)`` (``parent_best``;
        its offset is ``max(best, 0)``), as in ``expand_to_leaves``.
    shorter_rows : float64[B, L, S]
        Each node's shorter rows (``B`` empty rows without generalization
        awareness).
    starts : int64[B]
        The first selector of each node's row.
    live_threshold : float64[1]
        As in ``expand_to_leaves``: the threshold with ties of the whole
        search, which other threads raise.
    top : float64[k]
        The qualities of the result now, ascending (``-inf`` for the places
        not yet taken); changed in place.
    floor : float
        The minimum quality.
    data, settings
        As in ``expand_to_leaves``.

    Notes
    -----
    The nodes do not wait for one another's results, so that later nodes
    can prune by earlier ones as when expanded one by one, ``top`` takes in
    every exact quality found (above ``floor``): each child's whose ``g``
    is known and, without generalization awareness, each leaf's (with it a
    leaf's quality here is only an upper bound). Its smallest is then the
    ``k``-th best quality of patterns that will be offered, and just below
    it a threshold with ties for the next nodes.

    Returns
    -------
    child_start : int64[B + 1]
        Node ``b``'s children are ``child_start[b]:child_start[b + 1]`` of
        the arrays of children.
    children : int64[K]
    fields : float64[7, K]
        As ``expand_to_leaves``'s ``fields``.
    aware : float64[3, K]
        Each child's quality, estimate and ``max(q, g)``.
    pending : int64[P]
        The children (indices into ``children``) whose ``g`` must be found
        outside; a node with any has no leaves searched.
    row_start : int64[B + 1]
        Node ``b``'s row is ``rows[:, row_start[b]:row_start[b + 1]]``.
    rows : float64[2, R]
        ``raw_row`` and ``best_row`` of each node (nothing without
        generalization awareness).
    node_start : int64[B + 1]
        Node ``b``'s children whose leaves were searched are
        ``nodes[node_start[b]:node_start[b + 1]]``.
    nodes : int64[J]
    leaf_node : int64[M]
        Index into ``nodes`` of each leaf's node.
    leaf_children : int64[M]
    leaf_fields : float64[3, M]
        ``raw_quality, weight, quality`` of each leaf.
    counted, evaluated : int
        Candidates counted (the nodes' and the leaves') and measured.
    """
    selector_words, next_start, aware = data[0], data[9], settings[13]
    n_selectors = len(selector_words)
    count = len(patterns)
    results = []
    counted = 0
    live = np.array([live_threshold[0]])  # this call's: raised by its own results too
    for b in range(count):
        pattern = patterns[b]
        parent = selector_words[pattern[0]].copy()
        for i in range(1, len(pattern)):
            parent &= selector_words[pattern[i]]
        candidates = np.arange(next_start[pattern[-1]], n_selectors)
        counted += len(candidates)
        live[0] = max(live[0], live_threshold[0])
        result = expand_to_leaves(
            parent, candidates, caps[b], max(thresholds[b], live[0]), max(bests[b], 0.0), bests[b],
            shorter_rows[b], starts[b], live, data, settings,
        )  # fmt: skip
        results.append(result)
        children, quality, best_row, leaf_quality = result[0], result[2], result[7], result[9][4]
        for j in range(len(children)):
            if not aware or not np.isnan(best_row[children[j] - starts[b]]):
                _take_in(top, quality[j], floor)
        if not aware:
            for j in range(len(leaf_quality)):
                _take_in(top, leaf_quality[j], floor)
        if top[0] > -np.inf:
            live[0] = max(live[0], np.nextafter(top[0], -np.inf))
    child_start = np.zeros(count + 1, dtype=np.int64)
    row_start = np.zeros(count + 1, dtype=np.int64)
    node_start = np.zeros(count + 1, dtype=np.int64)
    leaf_start = np.zeros(count + 1, dtype=np.int64)
    n_pending = 0
    for b in range(count):
        result = results[b]
        child_start[b + 1] = child_start[b] + len(result[0])
        row_start[b + 1] = row_start[b] + len(result[6])
        node_start[b + 1] = node_start[b] + len(result[8])
        leaf_start[b + 1] = leaf_start[b] + len(result[9][0])
        n_pending += len(result[5])
    children = np.empty(child_start[count], dtype=np.int64)
    fields = np.empty((7, child_start[count]))
    aware = np.empty((3, child_start[count]))
    pending = np.empty(n_pending, dtype=np.int64)
    rows = np.empty((2, row_start[count]))
    nodes = np.empty(node_start[count], dtype=np.int64)
    leaf_node = np.empty(leaf_start[count], dtype=np.int64)
    leaf_children = np.empty(leaf_start[count], dtype=np.int64)
    leaf_fields = np.empty((3, leaf_start[count]))
    evaluated = child_start[count]
    n_pending = 0
    for b in range(count):
        kept, kept_fields, quality, estimate, best, waiting, raw_row, best_row, searched, leaves = results[b]
        first, last = child_start[b], child_start[b + 1]
        children[first:last] = kept
        fields[:, first:last] = kept_fields
        aware[0, first:last], aware[1, first:last], aware[2, first:last] = quality, estimate, best
        pending[n_pending : n_pending + len(waiting)] = waiting + first
        n_pending += len(waiting)
        rows[0, row_start[b] : row_start[b + 1]] = raw_row
        rows[1, row_start[b] : row_start[b + 1]] = best_row
        nodes[node_start[b] : node_start[b + 1]] = searched
        node, leaf, raw, weight, leaf_quality, leaf_counted, leaf_evaluated = leaves
        first, last = leaf_start[b], leaf_start[b + 1]
        leaf_node[first:last] = node + node_start[b]
        leaf_children[first:last] = leaf
        leaf_fields[0, first:last], leaf_fields[1, first:last], leaf_fields[2, first:last] = raw, weight, leaf_quality
        counted += leaf_counted
        evaluated += leaf_evaluated
    return (child_start, children, fields, aware, pending, row_start, rows, node_start, nodes, leaf_node,
            leaf_children, leaf_fields, counted, evaluated)  # fmt: skip


@njit(cache=True, nogil=True)
def _take_in(top, value, floor):
    """Put ``value`` into ``top`` (ascending), its smallest dropped, if it
    exceeds both (else nothing)."""
    if not (value > top[0] and value > floor):
        return
    i = 0
    while i + 1 < len(top) and top[i + 1] < value:
        top[i] = top[i + 1]
        i += 1
    top[i] = value
