"""The compiled batch calls of one search, replayed on several source trees in turn.

A change inside :func:`subroc_ext.engine.batch_kernels.expand_nodes_to_leaves`
(the measures' kernels, the bounds) that saves 5% is below what whole
searches on this shared machine can tell apart (the same search varies by
15% from run to run). This script records the arguments of every batch call
of one FastSearch (the Census-Income KDD search split, ROC AUC at depth 4
by default), then times each call on every tree given, in a fresh random order
per call, for several rounds: the trees share every moment of the machine's
noise, and the median over rounds of each tree's time over the first's is
the ratio. The trees' results must be identical (else ``!!! RESULTS
DIFFER`` and exit status 1).

Each tree's ``subroc_ext`` is copied to a temporary folder under its own
package name (``replay_0``, ``replay_1``, ...: every mention of
``subroc_ext`` in its sources renamed), so all load in one process with
their own compiled kernels. The calls are recorded with the first tree.

Examples
--------
This checkout against the code before a change (a worktree), and this
checkout's kernels with the tie-group bounds as wide as before stop 41
(RESULTS.md)::

    python benchmarks/bench_kernel_replay.py --trees . ../before --int64-bounds --rounds 8

The calibration gap's batch calls at depth 3 (``--measure``: any of
bench_engine.py's measures)::

    python benchmarks/bench_kernel_replay.py --measure calibration_gap --depth 3 --trees . ../before

A few seconds, for the test suite::

    python benchmarks/bench_kernel_replay.py --smoke
"""

import argparse
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]


def renamed_copy(tree, name, folder):
    """``tree``'s ``subroc_ext`` copied into ``folder`` as package ``name``."""
    target = folder / name
    shutil.copytree(Path(tree) / "subroc_ext", target, ignore=shutil.ignore_patterns("__pycache__"))
    for source in target.rglob("*.py"):
        source.write_text(source.read_text().replace("subroc_ext", name))
    return importlib.import_module(name)


def record(package, frame, label, positive, depth, measure="roc_auc"):
    """The arguments of every batch call of a FastSearch of ``package`` (bench_engine.py's
    census settings at ``depth``, by ``measure``), and the search's data."""
    from bench_engine import CENSUS_SEARCH, search_task

    kernels = importlib.import_module(package.__name__ + ".engine.batch_kernels")
    calls, data = [], {}
    original = kernels.expand_nodes_to_leaves

    def recording(*args):
        calls.append([a.copy() if isinstance(a, np.ndarray) else a for a in args])
        data["data"] = args[9]
        return original(*args)

    task = search_task(package, frame, label, positive, {**CENSUS_SEARCH, "measure": measure, "nbins": 5, "depth": depth})
    kernels.expand_nodes_to_leaves = recording
    try:
        package.FastSearch(n_jobs=1).execute(task)
    finally:
        kernels.expand_nodes_to_leaves = original
    return calls, data.get("data")


def replay(kernel, call, data):
    """One call on fresh copies of its arrays (it changes some in place) and
    the search's ``data``: (seconds, result)."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in call]
    args[9] = data
    start = time.perf_counter()
    result = kernel(*args)
    return time.perf_counter() - start, result


def identical(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    return a == b


def problem(args):
    """``(frame, label, positive)``: Census (needs ``experiments/``'s data) or, with
    ``--smoke``, a small generated table."""
    if not args.smoke:
        from bench_engine import census_split

        return census_split()
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame({f"x{i}": rng.integers(0, 4, n) for i in range(6)})
    frame["score"] = np.round(rng.random(n) + 0.3 * (frame.x0 == 1), 2)
    frame["label"] = (rng.random(n) < frame.score / 1.5).astype(int)
    return frame, "label", 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", default=[str(HERE.parent)], help="source trees (the first records)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--measure", default="roc_auc", help="the search's measure (bench_engine.py's names)")
    parser.add_argument("--smoke", action="store_true", help="a small generated table, depth 3, one round")
    parser.add_argument("--int64-bounds", action="store_true",
                        help="also the first tree with the tie-group bounds widened to int64 (as before stop 41)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.depth, args.rounds = 3, 1
    frame, label, positive = problem(args)
    with tempfile.TemporaryDirectory() as folder:
        sys.path.insert(0, folder)
        try:
            packages = [renamed_copy(tree, f"replay_{i}", Path(folder)) for i, tree in enumerate(args.trees)]
            calls, data = record(packages[0], frame, label, positive, args.depth, args.measure)
            kernels = [importlib.import_module(p.__name__ + ".engine.batch_kernels").expand_nodes_to_leaves
                       for p in packages]  # fmt: skip
            cases = [(kernel, data) for kernel in kernels]
            names = list(args.trees)
            if args.int64_bounds:  # data[4], data[5]: the tie-group bounds
                wide = (*data[:4], data[4].astype(np.int64), data[5].astype(np.int64), *data[6:])
                cases.append((kernels[0], wide))
                names.append(f"{args.trees[0]} (int64 tie-group bounds)")
            first = [[replay(kernel, call, tables)[1] for call in calls] for kernel, tables in cases]  # compiles
            same = [all(identical(a, b) for a, b in zip(first[0], results)) for results in first]
            seconds = np.zeros((args.rounds, len(cases)))
            rng = np.random.default_rng(0)
            for r in range(args.rounds):
                for call in calls:
                    for k in rng.permutation(len(cases)):
                        kernel, tables = cases[k]
                        seconds[r, k] += replay(kernel, call, tables)[0]
        finally:
            sys.path.remove(folder)
    print(f"{len(calls)} batch calls, {args.measure}, depth {args.depth}, {args.rounds} rounds")
    print("| tree | seconds per round | median | ratio to the first (median over rounds) |")
    print("|---|---|---|---|")
    for tree, column in zip(names, seconds.T):
        rounds = " ".join(f"{s:.3f}" for s in column)
        ratio = np.median(column / seconds[:, 0])
        print(f"| {tree} | {rounds} | {np.median(column):.3f} | {ratio:.3f} |")
    if not all(same):
        print("!!! RESULTS DIFFER: " + ", ".join(t for t, s in zip(names, same) if not s))
        return 1
    print("agreement check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
