"""Benchmark of the multi-class AUC_mu code (issue 11).

1. ``auc_mu_score`` against the K(K-1)/2 binary ROC AUCs it is made of
   (Kleiman & Page: "computable in about the time of K(K-1)/2 binary AUCs"),
   on random data, best of ``--repeat`` runs.
2. ``AUCMuQF`` with ``ps.BestFirstSearch`` on the Adult marital-status task
   (search split of 12,211 rows), with and without pruning: time, evaluated
   candidates, and whether the top-k agree.
3. ``randomization_test`` of the top-k on the validation split.

Usage::

    python benchmarks/bench_multiclass.py                 # the full run
    python benchmarks/bench_multiclass.py --smoke         # seconds, for the tests
"""

import argparse
import time

import numpy as np
import pysubgroup as ps

import subroc_ext
from subroc_ext.demo import datasets, modelling
from subroc_ext.workflow import steps


def best_of(repeat, function):
    """Smallest wall time of ``repeat`` calls, and the last result."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def bench_kernel(n_rows, classes, repeat):
    rng = np.random.default_rng(0)
    print("| K | rows | auc_mu_score [s] | K(K-1)/2 binary AUCs [s] | ratio |")
    print("|---|---|---|---|---|")
    for k in classes:
        labels = rng.integers(0, k, n_rows)
        scores = rng.random((n_rows, k))

        def binary(k=k, labels=labels, scores=scores):
            for i in range(k):
                for j in range(i + 1, k):
                    pair = (labels == i) | (labels == j)
                    subroc_ext.roc_auc_score(labels[pair] == i, scores[pair, i] - scores[pair, j])

        ours, _ = best_of(repeat, lambda l=labels, s=scores: subroc_ext.auc_mu_score(l, s))
        pairs, _ = best_of(repeat, binary)
        print(f"| {k} | {n_rows:,} | {ours:.3f} | {pairs:.3f} | {ours / pairs:.2f} |")


def bench_search(rows, depth, top, samples):
    frame = datasets.load_adult_marital_status()
    if rows:
        frame = frame.iloc[:rows]
    train, search, validation, _ = modelling.split_parts(frame, 4, random_state=0)
    columns, (search, validation) = modelling.fit_and_score_multiclass(train, "marital", search, validation)
    target = subroc_ext.MultiClassTarget("marital", columns)
    selectors = ps.create_selectors(search, ignore=["marital", *columns.values()])
    print(f"\nsearch split: {len(search):,} rows, {len(selectors)} selectors, depth {depth}, top {top}\n")
    print("| weights (alpha, beta) | pruned [s] | candidates | unpruned [s] | candidates | same top-k |")
    print("|---|---|---|---|---|---|")
    agree = True
    for alpha, beta in [(0, 0), (1, 1)]:
        results = {}
        for name, prune in (("pruned", True), ("unpruned", False)):
            found = steps.search(
                search, subroc_ext.AUCMuQF("marital", columns, beta, alpha), target,
                selectors=selectors, depth=depth, min_support=20, result_set_size=top,
                prune=prune, algorithm=ps.BestFirstSearch(),
            )  # fmt: skip
            results[name] = (found.seconds, found.candidates, found.qualities, found.subgroups)
        same = np.allclose(results["pruned"][2], results["unpruned"][2], rtol=1e-9, atol=1e-12)
        agree &= same
        print(
            f"| ({alpha}, {beta}) | {results['pruned'][0]:.2f} | {results['pruned'][1]:,} | "
            f"{results['unpruned'][0]:.2f} | {results['unpruned'][1]:,} | {'yes' if same else 'NO'} |"
        )
    seconds, table = best_of(1, lambda: subroc_ext.randomization_test(
        results["pruned"][3], validation, subroc_ext.AUCMuQF("marital", columns), target=target,
        n_samples=samples, random_state=0,
    ))  # fmt: skip
    print(
        f"\nrandomization test: {len(table)} patterns x {samples:,} random subsets on "
        f"{len(validation):,} validation rows: {seconds:.2f} s"
    )
    return agree


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, for the tests")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.smoke:
        bench_kernel(2_000, [3], 1)
        agree = bench_search(4_000, 1, 5, 50)
    else:
        bench_kernel(200_000, [3, 4, 5], args.repeat)
        agree = bench_search(None, 2, 10, 1_000)
    print("\nagreement check: " + ("OK" if agree else "RESULTS DIFFER"))
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
