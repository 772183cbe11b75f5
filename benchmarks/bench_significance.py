"""Benchmark subroc-ext's randomization test against pysubgroup 0.9.0's ``permutation_test``.

UCI Adult is split into four equal random parts (model training, subgroup
search, validation, evaluation). A gradient-boosting model fitted on the
training part scores the search and validation parts; a depth-2
:class:`~subroc_ext.FastSearch` (the top-k of ``ps.BestFirstSearch``) with the full SubROC quality (generalization-aware
``ROCAUCQF`` with size and class-balance weights 1) finds the top patterns on
the search part. Both implementations then test those patterns on the
validation part:

* ``subroc_ext.randomization_test`` with ``--samples`` random subsets per
  pattern (default 10,000, the paper's setting), on one thread;
* ``pysubgroup.permutation_test(qf, result, target, data, num_random_samples,
  np_rng=...)`` with ``--pysubgroup-samples`` subsets (default 20), its time
  extrapolated linearly to ``--samples`` (it draws and evaluates one subset
  after another, so its time is proportional to the number of samples).

It prints both times (wall and CPU), the extrapolated ratio, how many
patterns each finds significant (Benjamini-Yekutieli, alpha 0.05) and how
many random subsets subroc-ext drew in all. ``--samples adaptive`` runs the
default adaptive test (:mod:`subroc_ext.inference.sequential`) instead of a fixed
number per pattern; ``--dataset census_kdd`` uses UCI Census-Income KDD
(downloaded once, see :func:`subroc_ext.demo.datasets.load_census_kdd`) instead
of Adult.

Examples
--------
The recorded run::

    python benchmarks/bench_significance.py

The adaptive test (the default of ``randomization_test``) against the fixed 10,000, on
Adult and on Census::

    python benchmarks/bench_significance.py --samples adaptive --pysubgroup-samples 0
    python benchmarks/bench_significance.py --samples 10000 --pysubgroup-samples 0
    python benchmarks/bench_significance.py --dataset census_kdd --samples adaptive \
        --pysubgroup-samples 0

Holm's correction against Benjamini-Yekutieli's, adaptive::

    python benchmarks/bench_significance.py --samples adaptive --methods fdr_by holm

All four measures, without pysubgroup::

    python benchmarks/bench_significance.py --measures roc_auc pr_auc arl attribution_mean \\
        --pysubgroup-samples 0

A few seconds, for the test suite::

    python benchmarks/bench_significance.py --smoke
"""

import argparse
import sys
import time
from importlib.metadata import version

import numpy as np
import pysubgroup as ps
from threadpoolctl import threadpool_limits

import subroc_ext
from subroc_ext.demo.datasets import TARGETS, load_adult, load_census_kdd
from subroc_ext.demo.modelling import fit_and_score, split_parts

LABEL = "label"
SCORE = "score"

#: Command-line name -> (our quality function, pysubgroup's, or None).
MEASURES = {
    "roc_auc": (lambda: subroc_ext.ROCAUCQF(LABEL), lambda: ps.ROCAUCQF(LABEL)),
    "pr_auc": (lambda: subroc_ext.PRAUCQF(LABEL, 1), lambda: ps.PRAUCQF(LABEL, 1)),
    "arl": (lambda: subroc_ext.ARLQF(LABEL, 1), lambda: ps.ARLQF(LABEL, 1)),
    "attribution_mean": (lambda: subroc_ext.AttributionMeanQF(LABEL, 1), None),
}
#: Said (and the comparison skipped) when pysubgroup has nothing to compare with.
PYSUBGROUP_ABSENT = (
    f"pysubgroup {version('pysubgroup')} has no permutation_test or ROCAUCQF/PRAUCQF/ARLQF "
    "(they came with pysubgroup 0.9.0): timing subroc-ext only, without the comparison"
)


LOADERS = {"adult": load_adult, "census_kdd": load_census_kdd}


def splits(seed, rows=None, dataset="adult"):
    """The data set's search and validation splits, scored by a model fitted on the
    training split; index ``0..n-1`` and ``label`` in {0, 1} (pysubgroup's
    quality functions need both)."""
    column, positive = TARGETS[dataset]
    frame = LOADERS[dataset]()
    if dataset == "census_kdd":
        frame = frame.drop(columns="instance_weight")  # UCI: not for classification
    parts = split_parts(frame, 4, random_state=seed)
    # One thread: on a busy machine OpenMP's spinning threads slow the fit down.
    with threadpool_limits(1):
        scored = fit_and_score(parts[0], column, positive, parts[1], parts[2], score=SCORE)
    frames = []
    for frame in scored:
        if rows is not None and rows < len(frame):
            frame = frame.sample(n=rows, random_state=seed)
        frame = frame.reset_index(drop=True)
        frame[LABEL] = (frame.pop(column) == positive).astype(int)
        frames.append(frame)
    return frames


def top_patterns(search, depth, top, min_support):
    """The ``top`` patterns of a generalization-aware, weighted ROC AUC search."""
    target = subroc_ext.SoftClassifierTarget(LABEL, SCORE)
    qf = subroc_ext.GeneralizationAwareQF(subroc_ext.ROCAUCQF(LABEL, 1, 1))
    selectors = ps.create_selectors(search, nbins=5, ignore=[LABEL, SCORE])
    task = ps.SubgroupDiscoveryTask(
        search, target, selectors, qf, result_set_size=top, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    return subroc_ext.FastSearch().execute(task)  # the same top-k as ps.BestFirstSearch, faster


def timed(function, *args, **kwargs):
    """``function(*args, **kwargs)``, its wall time and its CPU time (s)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - wall, time.process_time() - cpu


def describe_covers(result, validation):
    target = subroc_ext.SoftClassifierTarget(LABEL, SCORE)
    qf = subroc_ext.ROCAUCQF(LABEL)
    qf.calculate_constant_statistics(validation, target)
    stats = [qf.calculate_statistics(d, target, validation) for _, d, *_ in result.results]
    sizes = np.array([s.size_sg for s in stats])
    keys = {(s.size_sg, s.negatives_count) for s in stats}
    return (
        f"{len(sizes)} patterns; validation covers: mean {sizes.mean():.0f}, median "
        f"{np.median(sizes):.0f}, max {sizes.max()} rows; {len(keys)} distinct (size, negatives)"
    )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measures", nargs="+", choices=list(MEASURES), default=["roc_auc"],
                        help="statistics to test with (default: roc_auc)")
    parser.add_argument("--samples", type=lambda text: text if text == "adaptive" else int(text),
                        default=10_000,
                        help="random subsets per pattern for subroc-ext, or 'adaptive' "
                             "(default 10000)")
    parser.add_argument("--methods", nargs="+", default=["fdr_by"],
                        help="multiple-testing corrections, each a test of its own (default fdr_by)")
    parser.add_argument("--dataset", choices=list(LOADERS), default="adult")
    parser.add_argument("--pysubgroup-samples", type=int, default=20,
                        help="random subsets per pattern for pysubgroup, extrapolated to "
                             "--samples (default 20; 0 skips pysubgroup)")
    parser.add_argument("--top", type=int, default=100, help="patterns to test (default 100)")
    parser.add_argument("--depth", type=int, default=2, help="search depth (default 2)")
    parser.add_argument("--min-support", type=int, default=20)
    parser.add_argument("--rows", type=int, default=None,
                        help="subsample each split to this many rows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true",
                        help="a few seconds: 2000 rows, 10 patterns, 300 and 2 samples")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows, args.top, args.samples = 2000, 10, 300
        args.pysubgroup_samples = min(args.pysubgroup_samples, 2)
    if args.samples == "adaptive":
        args.pysubgroup_samples = 0  # nothing to extrapolate to
    if not hasattr(ps, "permutation_test") and args.pysubgroup_samples > 0:
        print(f"NOTE: {PYSUBGROUP_ABSENT}", flush=True)
        args.pysubgroup_samples = 0
    return args


def main(argv=None):
    args = parse_args(argv)
    search, validation = splits(args.seed, args.rows, args.dataset)
    result = top_patterns(search, args.depth, args.top, args.min_support)
    target = subroc_ext.SoftClassifierTarget(LABEL, SCORE)
    print(f"{args.dataset}, seed {args.seed}: search split {len(search)} rows, validation split "
          f"{len(validation)} rows; depth-{args.depth} search")
    print(describe_covers(result, validation))
    for name in args.measures:
        ours, theirs = MEASURES[name]
        for method in args.methods:
            with threadpool_limits(1):
                table, wall, cpu = timed(
                    subroc_ext.randomization_test, result, validation, ours(),
                    n_samples=args.samples, method=method, random_state=args.seed,
                )  # fmt: skip
            print(f"[{name}, {method}] subroc_ext.randomization_test, {args.samples} samples per "
                  f"pattern: {wall:.1f} s wall, {cpu:.1f} s CPU; {int(table['significant'].sum())} "
                  f"of {len(table)} significant; {table.attrs['null_samples_drawn']:,} random "
                  f"subsets drawn (per pattern: median {table['null_samples'].median():,.0f}, max "
                  f"{table['null_samples'].max():,})")
        if theirs is None or args.pysubgroup_samples <= 0:
            continue
        qf = theirs()
        qf.calculate_constant_statistics(validation, target)
        with threadpool_limits(1):
            _, their_wall, their_cpu = timed(
                ps.permutation_test, qf, result, target, validation, args.pysubgroup_samples,
                np_rng=np.random.default_rng(args.seed),
            )  # fmt: skip
        scale = args.samples / args.pysubgroup_samples
        print(f"[{name}] pysubgroup.permutation_test, {args.pysubgroup_samples} samples per "
              f"pattern: {their_wall:.1f} s wall, {their_cpu:.1f} s CPU; extrapolated to "
              f"{args.samples}: {their_wall * scale:.0f} s wall")
        print(f"[{name}] speed-up (extrapolated wall time): {their_wall * scale / wall:.0f}x, "
              f"CPU: {their_cpu * scale / cpu:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
