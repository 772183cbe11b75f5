"""FastSearch on a Dask cluster: the search split into independent parts.

Every pattern longer than one selector lies in the subtree of exactly one
first-level selector, its first selector in pysubgroup's refinement order, and
every pattern longer than two in the subtree of exactly one pair. The
first-level subtrees, with the largest ones (estimated above an average part)
replaced by their second-level subtrees, are grouped into parts of about equal
estimated cost (:meth:`~subroc_ext.engine.search.SearchProblem.subtrees`, longest
processing time first), and each part runs the single-process search
(:meth:`~subroc_ext.engine.search.SearchProblem.run`) restricted to its subtrees on a
worker. Every part also evaluates the patterns of one selector (and the
children of a first-level selector whose second-level subtrees it holds),
which is cheap and gives it a good threshold from the start.

Sharing the threshold: a part starts from the k-th best quality of the
results merged so far (a lower bound of the final k-th best quality), so it
prunes at least as well as a fresh search of its subtrees would. Before any
part starts, a search to depth 2 runs here (cheap: a few hundred thousand
candidates on 445 selectors), so that even the first parts start from a good
threshold. As many parts run at once as there are workers, each on a worker
that runs no other; when one ends, its results are merged and the next part
starts from the new threshold on a worker that is free.

Exactness: a pattern whose quality exceeds the final k-th best quality is in
the top k of its own part (all patterns that beat it are in the same top k or
in other parts) and is never pruned (its ancestors' estimates exceed every
threshold used), so the merged top k has the same patterns and qualities as
the single-process search; among patterns tied at the k-th quality, the
lexicographically smallest found are kept, as in the single-process search
the choice among such ties depends on the search order. The generalization
memo is per part: patterns outside a part's subtrees are evaluated there on
demand, which is the extra work of splitting.

The prepared problem (bitsets, sorted data, quality function) is sent to each
worker once (:class:`subroc_ext.utils.cluster.Shared`). A worker that dies while
running a part is replaced by Dask, and the part runs again elsewhere with the
same inputs (a replacement gets the data from another worker; if the last
worker holding it dies, the data is shared again and the parts that needed it
run again).
"""

import heapq
import os
import time

import numpy as np
import pandas as pd

from ..utils.cluster import LostShare, Shared, require_distributed, worker_count

__all__ = ["kth_best", "plan_parts", "search_on_cluster", "search_part", "split_subtrees", "top_k"]

#: Depth of the search run here first, whose k-th best quality every part
#: starts from (when the search is deeper).
PILOT_DEPTH = 2

#: Columns of the per-part table of :func:`search_on_cluster`.
PART_COLUMNS = [
    "part", "subtrees", "estimated_cost", "start_threshold", "counted", "evaluated",
    "results", "cpu_seconds", "wall_seconds", "worker",
]  # fmt: skip


def split_subtrees(prefixes, costs, n_parts):
    """Group subtrees into at most ``n_parts`` parts of about equal total cost.

    Longest processing time first: subtrees by decreasing cost, each to the
    part with the smallest total so far.

    Parameters
    ----------
    prefixes : list of tuple
        The subtrees' patterns.
    costs : numpy.ndarray of float
    n_parts : int

    Returns
    -------
    list of (list of tuple, float)
        Each part's prefixes (sorted) and total estimated cost, by decreasing
        cost. At least one part (with no prefixes when there are none).
    """
    n_parts = max(1, min(int(n_parts), len(prefixes)))
    bins = [(0.0, i, []) for i in range(n_parts)]
    heapq.heapify(bins)
    for index in np.argsort(-np.asarray(costs, dtype=float), kind="stable"):
        total, i, members = heapq.heappop(bins)
        members.append(tuple(prefixes[index]))
        heapq.heappush(bins, (total + float(costs[index]), i, members))
    parts = [(sorted(members), total) for total, _, members in bins]
    parts.sort(key=lambda part: (-part[1], part[0]))
    return parts


def plan_parts(problem, n_parts):
    """The parts of a search: the first-level subtrees, the largest of them
    (estimated above an average part) replaced by their second-level
    subtrees, grouped by :func:`split_subtrees`."""
    prefixes, costs = problem.subtrees()
    if n_parts > 1 and len(prefixes):
        large = costs > costs.sum() / n_parts
        finer, finer_costs = problem.subtrees([p for p, big in zip(prefixes, large) if big])
        split = {p[:-1] for p in finer}
        keep = [i for i, p in enumerate(prefixes) if p not in split]
        prefixes = [prefixes[i] for i in keep] + finer
        costs = np.concatenate((costs[keep], finer_costs))
    return split_subtrees(prefixes, costs, n_parts)


def search_part(problem, prefixes, floor, depth=None, floor_pattern=None):
    """Run one part on this process (on a worker): the subtrees of
    ``prefixes`` (all if None), starting from the threshold ``floor`` (and
    its pattern, see :meth:`~subroc_ext.engine.search.SearchProblem.run`), to
    ``depth`` (the problem's if None).

    Returns
    -------
    dict
        ``results`` (list of ``(quality, pattern)``), ``counted``,
        ``evaluated``, ``cpu_seconds``, ``wall_seconds``, ``worker``.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    run = problem.run(floor, depth, floor_pattern)
    run.search(None, prefixes)
    return {
        "results": [(float(quality), pattern) for quality, _, pattern in run.results],
        "counted": run.counted,
        "evaluated": run.evaluated,
        "cpu_seconds": time.process_time() - cpu,
        "wall_seconds": time.perf_counter() - wall,
        "worker": _worker_name(),
    }


def _worker_name():
    try:
        return require_distributed("client").get_worker().address
    except ValueError:  # not on a worker
        return f"pid {os.getpid()}"


def kth_best(found, k, min_quality):
    """The threshold the merged results give: their k-th best quality.

    ``found`` maps patterns to qualities (the results of parts so far).
    """
    if len(found) < k:
        return min_quality
    return max(min_quality, heapq.nlargest(k, found.values())[-1])


def top_k(found, k):
    """The ``k`` best patterns of ``found`` (pattern -> quality); ties by pattern."""
    best = sorted(found.items(), key=lambda item: (-item[1], item[0]))[:k]
    return [pattern for pattern, _ in best]


def _record(index, n_prefixes, cost, floor, outcome):
    """One row of the per-part table."""
    return {
        "part": index, "subtrees": n_prefixes, "estimated_cost": cost, "start_threshold": floor,
        "results": len(outcome["results"]),
        **{key: outcome[key] for key in
           ("counted", "evaluated", "cpu_seconds", "wall_seconds", "worker")},
    }  # fmt: skip


def search_on_cluster(client, problem, parts_per_worker, bar=None):
    """Run ``problem`` (a :class:`~subroc_ext.engine.search.SearchProblem`) on a cluster.

    Parameters
    ----------
    client : dask.distributed.Client
    problem : SearchProblem
    parts_per_worker : int
        Parts per worker (more: better balance and threshold sharing; fewer:
        less repeated work).
    bar : tqdm progress bar, optional
        Advanced by the candidates each part counted.

    Returns
    -------
    patterns : list of tuple
        The result's patterns (selector indices).
    parts : pandas.DataFrame
        One row per part: ``part``, ``subtrees`` (how many),
        ``estimated_cost``, ``start_threshold``, ``counted``, ``evaluated``,
        ``results``, ``cpu_seconds``, ``wall_seconds``, ``worker``; part -1
        is the depth-2 search run first in this process (worker ``'client'``)
        when the search is deeper.
    """
    distributed = require_distributed("client")
    workers = worker_count(client)
    parts = plan_parts(problem, parts_per_worker * workers)
    found = {}  # pattern -> quality, over all parts
    records = []
    if problem.depth > PILOT_DEPTH:
        pilot = {**search_part(problem, None, problem.min_quality, PILOT_DEPTH), "worker": "client"}
        found.update({pattern: quality for quality, pattern in pilot["results"]})
        records.append(_record(-1, 0, 0.0, problem.min_quality, pilot))
        if bar is not None:
            bar.update(pilot["evaluated"])
    shared = Shared(client, problem)
    pending = list(enumerate(parts))[::-1]
    running = {}
    completed = distributed.as_completed()

    def submit():
        # on a worker without a part (the scheduler, left to itself, may
        # queue a part behind a busy worker's while another idles); the
        # part may still run elsewhere, if that worker is gone
        index, (prefixes, cost) = pending.pop()
        floor = kth_best(found, problem.k, problem.min_quality)
        worst = top_k(found, problem.k)[-1] if len(found) >= problem.k else None
        busy = {worker for *_, worker in running.values()}
        free = [worker for worker in client.scheduler_info(n_workers=-1)["workers"] if worker not in busy]
        where = {"workers": free[:1], "allow_other_workers": True} if free else {}
        future = shared.submit(search_part, prefixes, floor, None, worst, **where)
        running[future] = (index, len(prefixes), cost, floor, free[0] if free else None)
        completed.add(future)

    try:
        for _ in range(min(workers, len(pending))):
            submit()
        for future in completed:
            index, n_prefixes, cost, floor, _ = running.pop(future)
            try:
                outcome = shared.result(future)
            except LostShare:  # shared again: the part runs again
                pending.append((index, parts[index]))
                submit()
                continue
            for quality, pattern in outcome["results"]:
                found[pattern] = quality
            records.append(_record(index, n_prefixes, cost, floor, outcome))
            if bar is not None:
                bar.update(outcome["evaluated"])
            if pending:
                submit()
    finally:
        client.cancel(list(running))
        shared.cancel()
    table = pd.DataFrame.from_records(records, columns=PART_COLUMNS)
    return top_k(found, problem.k), table.sort_values("part", ignore_index=True)
