"""Time FastSearch on one thread and on several, in pairs, and the machine's ceiling.

A shared machine's speed drifts by 10-30 % within minutes, more than the
difference being measured, so one run per thread count (``bench_engine.py``)
can land a fast run against a slow one. Here one process alternates the two
(``FastSearch(n_jobs=1)``, then ``FastSearch(n_jobs=--jobs)``, ``--pairs``
times, after a warm-up run) and reports every pair's wall-time ratio, their
median and the ratio of the best walls, with CPU times, and checks that
every run returns the same patterns and qualities.

``--ceiling`` also measures what the hardware allows: one single-thread
search alone in a fresh process, then ``--jobs`` of them at once in as many
processes (started together once each has warmed up); the throughput ratio,
``jobs * alone / slowest``, bounds what threads can reach on this machine.

Data: the Census-Income KDD search split of ``bench_engine.py`` (49,881
rows, 445 selectors; needs the experiments' data), top 100, min support 20,
alpha = beta = 1, generalization aware; ``--smoke``: 1,500 Adult rows at
depth 2 (seconds, for the tests).

Examples
--------
::

    python benchmarks/bench_threads.py --measure roc_auc --depth 4 --pairs 7 --ceiling 3
    python benchmarks/bench_threads.py --smoke
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pysubgroup as ps

import subroc_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import adult_split, census_split  # noqa: E402 - the benchmarks' folder


def make_task(data, measure, depth):
    """The census suite's task (``bench_engine.py``) on ``data``."""
    frame, label, positive = data
    selectors = ps.create_selectors(frame, nbins=5, ignore=[label, "score"])
    qf = subroc_ext.make_quality_function(
        measure, label, positive_label=positive, size_weight=1, balance_weight=1, generalization_aware=True
    )  # fmt: skip
    return ps.SubgroupDiscoveryTask(
        frame, subroc_ext.SoftClassifierTarget(label, "score"), selectors, qf, result_set_size=100,
        depth=depth, constraints=[ps.MinSupportConstraint(20)],
    )  # fmt: skip


def timed(task, jobs):
    """Wall and CPU seconds of one search on ``jobs`` threads, and its top-k."""
    search = subroc_ext.FastSearch(n_jobs=jobs)
    cpu, wall = time.process_time(), time.perf_counter()
    result = search.execute(task)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, [(float(q), str(sg)) for q, sg, _ in result.results]


def pairs(task, jobs, count):
    """``count`` pairs of runs on 1 and on ``jobs`` threads, alternating."""
    expected = timed(task, 1)[2]  # warm-up, and the reference top-k
    rows = []
    for pair in range(count):
        one, many = timed(task, 1), timed(task, jobs)
        rows.append({
            "pair": pair + 1, "wall_1": one[0], "cpu_1": one[1], "wall_n": many[0], "cpu_n": many[1],
            "ratio": one[0] / many[0], "same": one[2] == expected and many[2] == expected,
        })  # fmt: skip
    return rows


_ONE_RUN = """
import sys, time
sys.path.insert(0, {folder!r})
from bench_threads import make_task, timed
import pickle
task = make_task(pickle.load(open({data!r}, "rb")), {measure!r}, {depth})
timed(task, 1)
print("ready", flush=True)
sys.stdin.readline()
print(timed(task, 1)[0], flush=True)
"""


def ceiling(data_file, measure, depth, jobs, rounds):
    """Per round: a single-thread search alone, then ``jobs`` at once, each
    in its own process (started together once all have warmed up)."""

    def at_once(n):
        code = _ONE_RUN.format(folder=str(Path(__file__).resolve().parent), data=str(data_file),
                               measure=measure, depth=depth)  # fmt: skip
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True}
        processes = [subprocess.Popen([sys.executable, "-c", code], **pipes) for _ in range(n)]
        for process in processes:
            if process.stdout.readline().strip() != "ready":
                raise RuntimeError("a ceiling run failed to start")
        for process in processes:
            process.stdin.write("go\n")
            process.stdin.flush()
        walls = [float(process.stdout.readline()) for process in processes]
        for process in processes:
            process.wait()
        return walls

    rows = []
    for round_ in range(rounds):
        alone, together = at_once(1)[0], at_once(jobs)
        rows.append({"round": round_ + 1, "alone": alone, "slowest_together": max(together),
                     "throughput": jobs * alone / max(together)})  # fmt: skip
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", default="roc_auc",
                        choices=["roc_auc", "pr_auc", "arl", "attribution_mean"])  # fmt: skip
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--ceiling", type=int, default=0, metavar="ROUNDS",
                        help="also this many rounds of the hardware ceiling")  # fmt: skip
    parser.add_argument("--smoke", action="store_true", help="1,500 Adult rows at depth 2, a few seconds")
    parser.add_argument("--markdown", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    if args.smoke:
        data, args.depth, args.pairs = adult_split(rows=1500), 2, min(args.pairs, 2)
    else:
        data = census_split()
    with open("/proc/loadavg") as file:
        load = file.read().split()[:3]
    lines = [
        f"FastSearch, {args.measure}, depth {args.depth}, {len(data[0]):,} rows: 1 vs {args.jobs} threads, "
        f"alternating in one process (load average at the start {', '.join(load)})",
        "",
        f"| pair | 1 thread wall s | CPU s | {args.jobs} threads wall s | CPU s | speed-up | same top-k |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = pairs(make_task(data, args.measure, args.depth), args.jobs, args.pairs)
    for row in rows:
        lines.append(
            f"| {row['pair']} | {row['wall_1']:.2f} | {row['cpu_1']:.2f} | {row['wall_n']:.2f} | "
            f"{row['cpu_n']:.2f} | {row['ratio']:.2f}x | {'yes' if row['same'] else 'NO'} |"
        )  # fmt: skip
    ratios = [row["ratio"] for row in rows]
    best = min(row["wall_1"] for row in rows) / min(row["wall_n"] for row in rows)
    lines += ["", f"Speed-up: median of the pairs {statistics.median(ratios):.2f}x (range "
              f"{min(ratios):.2f}-{max(ratios):.2f}x); best walls {best:.2f}x"]  # fmt: skip
    if args.ceiling:
        import pickle
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            data_file = Path(folder) / "data.pkl"
            data_file.write_bytes(pickle.dumps(data))
            bound = ceiling(data_file, args.measure, args.depth, args.jobs, args.ceiling)
        lines += [
            "", f"Ceiling: one single-thread search alone vs {args.jobs} at once in separate processes", "",
            "| round | alone wall s | slowest of them at once, wall s | throughput |", "|---|---|---|---|",
        ]  # fmt: skip
        lines += [
            f"| {r['round']} | {r['alone']:.2f} | {r['slowest_together']:.2f} | {r['throughput']:.2f}x |"
            for r in bound
        ]  # fmt: skip
    same = all(row["same"] for row in rows)
    lines += ["", "agreement check: OK" if same else "!!! RESULTS DIFFER between thread counts"]
    report = "\n".join(lines)
    print(report)
    if args.markdown:
        args.markdown.write_text(report + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
