"""Benchmark the whole-search permutation test (no holdout) against the holdout test.

Data: the demo's (UCI Adult split into four equal random parts, a
gradient-boosting model fitted on the first scores the next two; the search
and validation parts together, 24,421 rows, are what a user without a
holdout audits) or UCI Census-Income KDD (``--dataset census_kdd``: the same
split, 99,762 rows audited; downloaded once, see
:func:`subroc_ext.demo.datasets.load_census_kdd`). ``find_subgroups`` runs
with its defaults (ROC AUC, weights 1 and 1, generalization-aware, the
diverse top 100) and ``validation=None``; the kernels are compiled by a
small run first. It prints, for each ``--jobs``:

* the wall and CPU time of the whole call, of its search and of the
  permuted searches (the call's time minus a search alone, run before);
* the permuted searches drawn, the method (single-step or step-down max-T)
  and how many rows are significant;

and, with ``--holdout``, the same for the default 50/50 holdout (search on
half, randomization test with Benjamini-Yekutieli and FCR intervals on the
other half).

Examples
--------
The recorded runs::

    python benchmarks/bench_permutation.py --jobs 1 2 --holdout
    python benchmarks/bench_permutation.py --dataset census_kdd --depth 3 --jobs 2

A few seconds, for the test suite::

    python benchmarks/bench_permutation.py --smoke
"""

import argparse
import time

import pandas as pd

import subroc_ext
from subroc_ext.demo.datasets import TARGETS, load_adult, load_census_kdd
from subroc_ext.demo.modelling import fit_and_score, split_parts
from subroc_ext.workflow import steps

LOADERS = {"adult": load_adult, "census_kdd": load_census_kdd}


def audited_rows(dataset, seed, rows=None):
    """The search and validation parts of the demo's split, scored, together."""
    frame = LOADERS[dataset]()
    if rows is not None:
        frame = frame.sample(rows, random_state=seed)
    label, positive = TARGETS[dataset]
    train, search, validation, _ = split_parts(frame, 4, random_state=seed)
    search, validation = fit_and_score(train, label, positive, search, validation, random_state=seed)
    return pd.concat([search, validation]), label, positive


def timed(function):
    start, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - start, time.process_time() - cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=sorted(LOADERS), default="adult")
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--holdout", action="store_true", help="also time the 50/50 holdout test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="a 3,000-row sample at depth 1")
    args = parser.parse_args(argv)
    if args.smoke:
        args.depth, args.jobs = 1, [1]
    data, label, positive = audited_rows(args.dataset, args.seed, 3000 if args.smoke else None)
    settings = dict(label=label, score="score", positive_label=positive, depth=args.depth,
                    progress=False, random_state=args.seed)  # fmt: skip
    subroc_ext.find_subgroups(data.head(2000), validation=None, **{**settings, "depth": 1})  # compile
    print(f"{args.dataset}: {len(data):,} rows, depth {args.depth}")
    for jobs in args.jobs:
        qf = subroc_ext.make_quality_function("roc_auc", label, positive_label=positive, size_weight=1,
                                              balance_weight=1, generalization_aware=True)  # fmt: skip
        space = subroc_ext.make_search_space(data, ignore=[label, "score"])
        target = subroc_ext.SoftClassifierTarget(label, "score")
        _, search_wall, search_cpu = timed(lambda: steps.search(
            data, qf, target, selectors=space, depth=args.depth, result_set_size=200, min_quality=0,
            n_jobs=jobs))  # fmt: skip
        table, wall, cpu = timed(lambda: subroc_ext.find_subgroups(data, validation=None, n_jobs=jobs, **settings))
        attrs = table.attrs
        print(f"no holdout, n_jobs={jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU (a top-200 search alone: "
              f"{search_wall:.1f} s wall, {search_cpu:.1f} s CPU); {attrs['null_samples_drawn']:,} "
              f"permuted searches, {attrs['method']}; {int(table['significant'].sum())} of "
              f"{len(table)} rows significant")  # fmt: skip
        if args.holdout:
            held, wall, cpu = timed(lambda: subroc_ext.find_subgroups(data, n_jobs=jobs, **settings))
            print(f"50/50 holdout, n_jobs={jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU; "
                  f"{held.attrs['null_samples_drawn']:,} random subsets; "
                  f"{int(held['significant'].sum())} of {len(held)} rows significant "
                  f"(intervals at {held.attrs['interval_level']:.5f})")  # fmt: skip


if __name__ == "__main__":
    main()
