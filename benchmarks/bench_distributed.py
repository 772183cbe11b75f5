"""Benchmark the search and the randomization test on a Dask cluster: one
process, then a ``LocalCluster`` of 1 and of 2 worker processes.

Suites
------
``search``
    Census-Income KDD search split (49,881 rows, 445 selectors; xgboost
    scores as in ``experiments/``), ROC AUC, alpha = beta = 1,
    generalization aware, top 100, min support 20, ``--depth`` (4):
    ``FastSearch()`` and ``FastSearch(client=...)``. Reports wall and CPU
    time (this process and the workers), the candidates counted and
    evaluated, each part's work, the load imbalance (busiest worker's CPU
    over the mean), and whether the result is identical (same subgroups,
    qualities, statistics and order; a difference prints ``!!! RESULTS
    DIFFER`` and the script exits with status 1).
``test``
    The randomization test of ``bench_significance.py``: the top 100 patterns
    of a depth-2 search on Adult's search split, 10,000 samples each, ROC AUC
    on the validation split; one process and the clusters, identical p-values.

Projection
----------
With ``--project 8 32 128``, the parts that ``FastSearch`` would form for W
workers (4 per worker; the largest first-level subtrees split at the second
level) run on the largest cluster: each from the final k-th best quality (a
perfectly shared threshold), and the first W of them also from the depth-2
pilot's k-th best quality (what they get in a real run, where they start
together). They are then scheduled on W simulated workers in FastSearch's
order, each part on the first free worker: the first W at their pilot-
threshold cost, the others at their shared-threshold cost, after the pilot.
The null distributions of the test are scheduled the same way from their
measured task times. The makespan gives the projected speed-up over one
process.

Examples
--------
The recorded run (``RESULTS.md``)::

    nice python benchmarks/bench_distributed.py --project 8 32 128 --markdown distributed.md

A few seconds, for the test suite (synthetic data)::

    python benchmarks/bench_distributed.py --smoke
"""

import argparse
import heapq
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pysubgroup as ps
from threadpoolctl import threadpool_limits

import subroc_ext
from subroc_ext.engine.parallel_search import PILOT_DEPTH, kth_best, plan_parts, search_part
from subroc_ext.engine.search import SearchProblem

AGREEMENT_OK = "agreement check: OK"
SCORE = "score"


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------


def smoke_frame(seed, n=3000):
    """Synthetic scored data: eight categorical attributes, a planted failure."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"a{i}": rng.choice(list("pqrstu")[: 2 + i % 4], n) for i in range(8)})
    label = rng.random(n) < 0.3
    signal = rng.normal(size=n) + 1.5 * label
    failing = ((frame["a0"] == "p") & (frame["a1"] == "q")).to_numpy()
    signal[failing] = -signal[failing]
    frame["label"] = label.astype(int)
    frame[SCORE] = 1 / (1 + np.exp(-signal))
    return frame


def search_task(args):
    """The Census task (or the smoke task)."""
    if args.smoke:
        frame, label, positive = smoke_frame(0), "label", 1
    else:
        from bench_engine import census_split

        frame, label, positive = census_split()
    return _task(frame, label, positive, args.depth, args.top, args.min_support)


def _task(frame, label, positive, depth, top, min_support):
    selectors = ps.create_selectors(frame, nbins=5, ignore=[label, SCORE])
    qf = subroc_ext.make_quality_function(
        "roc_auc", label, positive_label=positive, size_weight=1.0, balance_weight=1.0,
        generalization_aware=True,
    )  # fmt: skip
    return ps.SubgroupDiscoveryTask(
        frame, subroc_ext.SoftClassifierTarget(label, SCORE), selectors, qf, result_set_size=top,
        depth=depth, constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip


def warm_up_search(client=None):
    """Load every compiled kernel of the search (here or on every worker of
    ``client``) with a small task of the same kind, deep enough for the
    kernels that only depths above 2 call: the first search in a process
    loads them from numba's cache, about a second, which is not the search's."""
    task = _task(smoke_frame(9, 400), "label", 1, depth=4, top=5, min_support=5)
    if client is None:
        subroc_ext.FastSearch().execute(task)
        return
    for _ in range(2):  # parts land on every worker
        subroc_ext.FastSearch(client=client, parts_per_worker=8).execute(task)


def test_inputs(args):
    """Patterns, validation split and quality function of the test suite."""
    if args.smoke:
        search, validation = smoke_frame(1), smoke_frame(2)
    else:
        from bench_significance import splits

        search, validation = splits(0)
    target = subroc_ext.SoftClassifierTarget("label", SCORE)
    selectors = ps.create_selectors(search, nbins=5, ignore=["label", SCORE])
    qf = subroc_ext.GeneralizationAwareQF(subroc_ext.ROCAUCQF("label", 1, 1))
    task = ps.SubgroupDiscoveryTask(search, target, selectors, qf, result_set_size=args.top,
                                    depth=2, constraints=[ps.MinSupportConstraint(20)])  # fmt: skip
    result = subroc_ext.FastSearch().execute(task)
    return result, validation, subroc_ext.ROCAUCQF("label")


# --------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------


def worker_cpu(client):
    """CPU seconds each worker process has used so far."""
    return client.run(time.process_time)


def timed(function, client=None):
    """``function()``, wall time, this process's CPU time and the workers' CPU
    time (per worker)."""
    before = worker_cpu(client) if client is not None else {}
    wall, cpu = time.perf_counter(), time.process_time()
    value = function()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = worker_cpu(client) if client is not None else {}
    return value, wall, cpu, {w: after[w] - before.get(w, 0.0) for w in after}


def listed(result):
    return [(float(q), str(sg), tuple(stats)) for q, sg, stats in result.results]


def schedule(costs, workers):
    """Makespan of running ``costs`` in order, each on the first free worker."""
    free = [0.0] * workers
    for cost in costs:
        heapq.heapreplace(free, free[0] + cost)
    return max(free)


def start_cluster(n_workers):
    import distributed

    started = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    client = distributed.Client(cluster)
    client.wait_for_workers(n_workers)
    # warm up: imports and the compiled kernels' caches on every worker
    warm = smoke_frame(9, 400)
    subroc_ext.find_subgroups(warm, label="label", score=SCORE, depth=2, n_samples=50,
                              result_set_size=5, progress=False, client=client)  # fmt: skip
    warm_up_search(client)
    return cluster, client, time.perf_counter() - started


# --------------------------------------------------------------------------
# suites
# --------------------------------------------------------------------------


def search_reference(args):
    """The task and the single-process search (run before any cluster starts)."""
    task = search_task(args)
    warm_up_search()
    with threadpool_limits(1):
        single = subroc_ext.FastSearch()
        expected, wall, cpu, _ = timed(lambda: single.execute(task))
    row = {"run": "one process", "wall_s": wall, "cpu_s": cpu, "worker_cpu_s": 0.0,
           "counted": single.candidates_counted, "evaluated": single.candidates_evaluated,
           "parts": 1, "imbalance": 1.0, "identical": "reference"}  # fmt: skip
    return task, expected, row


def search_suite(args, reference_run, clusters, lines, problems):
    task, expected, single = reference_run
    n_selectors = len(task.search_space)
    lines.append(f"### Search: {len(task.data):,} rows, {n_selectors} selectors, depth "
                 f"{args.depth}, ROC AUC, alpha = beta = 1, generalization aware, top "
                 f"{args.top}, min support {args.min_support}\n")  # fmt: skip
    rows = [single]
    reference = listed(expected)
    part_tables = {}
    for n_workers, client in clusters.items():
        search = subroc_ext.FastSearch(client=client)
        found, wall, cpu, workers = timed(lambda search=search: search.execute(task), client)
        identical = listed(found) == reference
        if not identical:
            problems.append(f"search on {n_workers} worker(s)")
        parts = search.parts
        busy = parts[parts["part"] >= 0].groupby("worker")["cpu_seconds"].sum()
        rows.append({
            "run": f"{n_workers} worker(s)", "wall_s": wall, "cpu_s": cpu,
            "worker_cpu_s": sum(workers.values()), "counted": search.candidates_counted,
            "evaluated": search.candidates_evaluated, "parts": len(parts),
            "imbalance": busy.max() / busy.mean() if len(busy) == n_workers else float("nan"),
            "identical": "yes" if identical else "NO",
        })  # fmt: skip
        part_tables[n_workers] = parts
    table = pd.DataFrame(rows)  # (the search suite)
    lines += [markdown(table, {"wall_s": ".1f", "cpu_s": ".1f", "worker_cpu_s": ".1f",
                               "counted": ",", "evaluated": ",", "imbalance": ".2f"}), ""]  # fmt: skip
    lines += speedups(table, clusters)
    lines.append("Work vs one process (candidates counted): " + ", ".join(
        f"{r['run']} {r['counted'] / rows[0]['counted']:.3f}x" for r in rows[1:]) + "\n")  # fmt: skip
    for n_workers, parts in part_tables.items():
        shown = parts[["part", "subtrees", "estimated_cost", "start_threshold", "counted",
                       "evaluated", "cpu_seconds", "wall_seconds", "worker"]].copy()  # fmt: skip
        shown["worker"] = shown["worker"].str.rsplit(":", n=1).str[-1]
        lines += [f"Parts on {n_workers} worker(s) (worker = its port):\n",
                  markdown(shown, {"estimated_cost": ".0f", "start_threshold": ".2f",
                                   "counted": ",", "evaluated": ",", "cpu_seconds": ".2f",
                                   "wall_seconds": ".2f"}), ""]  # fmt: skip


def project_search(args, client, task, expected, single, lines):
    """The parts FastSearch would form for W workers, run on this cluster, and
    scheduled on W simulated workers."""
    import distributed

    problem = SearchProblem.from_task(task)
    final = min(q for q, *_ in expected.results) if len(expected.results) == problem.k else -np.inf
    pilot = search_part(problem, None, problem.min_quality, PILOT_DEPTH)
    start = kth_best({p: q for q, p in pilot["results"]}, problem.k, problem.min_quality)
    shared = client.scatter(problem, broadcast=True, hash=False)
    lines += [
        "### Projection of the search\n",
        (f"For W workers FastSearch forms 4 W parts; here they run on the cluster above, "
        f"each from the final k-th best quality ({final:.3f}: a perfectly shared threshold), "
        f"and the first W (which start together) also from the depth-2 pilot's "
        f"({start:.3f}; the pilot: {pilot['cpu_seconds']:.2f} s CPU, run first). Makespan: "
        f"the parts in FastSearch's order on W simulated workers, each part on the first "
        f"free one (CPU seconds); one process: {single['cpu_s']:.1f} s.\n"),
        (
            "| workers | parts | second-level subtrees | work vs one process | largest part (s) "
            "| makespan, shared threshold (s) | makespan, first wave from the pilot (s) "
            "| projected speed-up | parallel efficiency |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for workers in args.project:
        parts = plan_parts(problem, 4 * workers)
        floors = [final] * len(parts) + [start] * min(workers, len(parts))
        futures = [client.submit(search_part, shared, prefixes, floor, pure=False)
                   for (prefixes, _), floor in zip(parts + parts[:workers], floors)]  # fmt: skip
        cpu = [o["cpu_seconds"] for o in client.gather(futures)]
        distributed.wait(futures)
        ideal, wave = cpu[: len(parts)], cpu[len(parts):]  # the first W parts from the pilot's
        first = wave + ideal[len(wave):]
        makespan_ideal = schedule(ideal, workers)
        makespan = pilot["cpu_seconds"] + schedule(first, workers)
        speedup = single["cpu_s"] / makespan
        pairs = sum(len(p) == 2 for prefixes, _ in parts for p in prefixes)
        lines.append(f"| {workers} | {len(parts)} | {pairs} | {sum(first) / single['cpu_s']:.2f}x "
                     f"| {max(ideal):.2f} | {makespan_ideal:.2f} | {makespan:.2f} "
                     f"| {speedup:.1f}x | {speedup / workers:.0%} |")  # fmt: skip
    client.cancel(shared)
    lines.append("")


def test_reference(args):
    """The test's inputs and the single-process run (before any cluster starts)."""
    result, validation, qf = test_inputs(args)

    def run(client=None):
        return subroc_ext.randomization_test(result, validation, qf, n_samples=args.samples,
                                             random_state=0, client=client)  # fmt: skip

    with threadpool_limits(1):
        expected, wall, cpu, _ = timed(run)
    keys = expected.loc[expected["testable"], ["size", "negatives"]].drop_duplicates()
    row = {"run": "one process", "wall_s": wall, "cpu_s": cpu, "worker_cpu_s": 0.0,
           "null_distributions": len(keys), "identical": "reference"}  # fmt: skip
    return run, expected, row, (len(result.results), len(validation))


def test_suite(args, reference_run, clusters, lines, problems, project):
    import distributed

    run, expected, single, (n_patterns, n_rows) = reference_run
    lines.append(f"### Randomization test: {n_patterns} patterns x {args.samples:,} "
                 f"samples, ROC AUC, validation split of {n_rows:,} rows\n")  # fmt: skip
    rows = [single]
    durations = None
    for n_workers, client in clusters.items():
        with distributed.get_task_stream(client) as stream:
            found, wall, cpu, workers = timed(lambda client=client: run(client), client)
        identical = found.equals(expected)
        if not identical:
            problems.append(f"randomization test on {n_workers} worker(s)")
        rows.append({"run": f"{n_workers} worker(s)", "wall_s": wall, "cpu_s": cpu,
                     "worker_cpu_s": sum(workers.values()), "null_distributions": single["null_distributions"],
                     "identical": "yes" if identical else "NO"})  # fmt: skip
        tasks = [t for t in stream.data if "null_distribution" in t["key"]]
        durations = [sum(s["stop"] - s["start"] for s in t["startstops"] if s["action"] == "compute")
                     for t in tasks]  # fmt: skip
    table = pd.DataFrame(rows)
    lines += [markdown(table, {"wall_s": ".1f", "cpu_s": ".1f", "worker_cpu_s": ".1f"}), ""]
    lines += [line + "\n" for line in speedups(table, clusters)]
    if project and durations:
        lines += [(f"Null distributions on the last cluster: {len(durations)} tasks, "
                  f"{sum(durations):.1f} s in all, largest {max(durations):.2f} s. Projected "
                  "(the same tasks on W workers, in submission order):\n"),
                  "| workers | makespan (s) | speed-up vs one worker's total |", "|---|---|---|"]  # fmt: skip
        for workers in project:
            makespan = schedule(durations, workers)
            lines.append(f"| {workers} | {makespan:.2f} | {sum(durations) / makespan:.1f}x |")
        lines.append("")


def speedups(table, clusters):
    """One line per cluster size above 1: its wall-time speed-up over 1 worker
    and over one process (rows of ``table`` named by ``run``)."""
    walls = dict(zip(table["run"], table["wall_s"]))
    return [
        f"Speed-up, {n} workers vs 1 worker: {walls['1 worker(s)'] / walls[f'{n} worker(s)']:.2f}x "
        f"wall; vs one process: {walls['one process'] / walls[f'{n} worker(s)']:.2f}x"
        for n in clusters
        if n > 1 and "1 worker(s)" in walls
    ]


def markdown(table, formats):
    header = "| " + " | ".join(table.columns) + " |"
    rule = "|" + "---|" * len(table.columns)
    body = []
    for _, row in table.iterrows():
        cells = []
        for column in table.columns:
            value = row[column]
            spec = formats.get(column)
            cells.append(format(value, spec) if spec and pd.notna(value) else str(value))
        body.append("| " + " | ".join(cells) + " |")
    return "\n".join([header, rule, *body])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", nargs="+", default=["search", "test"], choices=["search", "test"])
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2],
                        help="cluster sizes to run (default: 1 2)")  # fmt: skip
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--top", type=int, default=100)
    parser.add_argument("--min-support", type=int, default=20)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--project", nargs="*", type=int, default=[],
                        help="project the search and the test to these numbers of workers")
    parser.add_argument("--markdown", type=Path, help="also write the report here")
    parser.add_argument("--smoke", action="store_true", help="synthetic data, a few seconds")
    args = parser.parse_args(argv)
    if args.smoke:
        args.depth, args.top, args.samples = 3, 20, 300
        args.project = args.project or [8]

    lines = [(f"Machine: {os.cpu_count()} cores; load average at the start "
             f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}.\n")]  # fmt: skip
    problems = []
    # one process first, while no cluster runs in this process
    searched = search_reference(args) if "search" in args.suites else None
    tested = test_reference(args) if "test" in args.suites else None
    clusters, started = {}, []
    try:
        for n_workers in args.workers:
            cluster, client, seconds = start_cluster(n_workers)
            started.append((cluster, client))
            clusters[n_workers] = client
            lines.append(f"LocalCluster with {n_workers} worker process(es) started and warmed "
                         f"up in {seconds:.1f} s (not counted below).")  # fmt: skip
        lines.append("")
        if searched is not None:
            search_suite(args, searched, clusters, lines, problems)
            if args.project:
                project_search(args, clusters[max(clusters)], *searched, lines)
        if tested is not None:
            test_suite(args, tested, clusters, lines, problems, args.project)
    finally:
        for cluster, client in started:
            client.close()
            cluster.close()
    lines.append(f"Load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}.")
    report = "\n".join(lines)
    print(report)
    if args.markdown:
        args.markdown.write_text(report + "\n")
    if problems:
        print("!!! RESULTS DIFFER: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(AGREEMENT_OK)
    return 0


if __name__ == "__main__":
    sys.exit(main())
