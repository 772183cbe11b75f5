"""Benchmark subroc-ext's quality functions against pysubgroup 0.9.0's own.

On the search split of UCI Adult (a quarter of the rows, scored by a model
trained on another quarter) run ``ps.BestFirstSearch`` with the ROC AUC, PR AUC
and average ranking loss (ARL) quality functions of subroc-ext and of
pysubgroup 0.9.0, on the same data and task, and report

* the wall time of each search (the one-off model training is excluded) and
  our speed-up over pysubgroup,
* whether the top results agree (qualities ``np.isclose``, same descriptions
  except among tied qualities at the cut-off); any disagreement is printed
  loudly and makes the script exit with status 1,
* the number of candidates each quality function evaluated (calls of
  ``calculate_statistics``), for ours with optimistic-estimate pruning on and
  off (off: no estimate is computed, ``subroc_ext.engine.counting.CountingQF``),
  which also checks that pruning never changes the result.

Examples
--------
The recorded run (see ``RESULTS.md``)::

    python benchmarks/bench_search.py --depths 2 3 --pysubgroup-depths 2 \\
        --repeat 5 --markdown table.md

A few seconds, for the test suite::

    python benchmarks/bench_search.py --smoke
"""

import argparse
import os
import sys
from importlib.metadata import version

import numpy as np
import pandas as pd
import pysubgroup as ps
from threadpoolctl import threadpool_limits

import subroc_ext
from subroc_ext.workflow import steps
from subroc_ext.demo.datasets import TARGETS, load_adult
from subroc_ext.demo.modelling import fit_and_score, split_parts

LABEL = "label"
SCORE = "score"

#: Command-line name -> (display name, our class, pysubgroup's class, whether
#: the constructor takes the positive label after the label column).
#: pysubgroup's classes are None where it has none (before 0.9.0).
MEASURES = {
    "roc_auc": ("ROC AUC", subroc_ext.ROCAUCQF, getattr(ps, "ROCAUCQF", None), False),
    "pr_auc": ("PR AUC", subroc_ext.PRAUCQF, getattr(ps, "PRAUCQF", None), True),
    "arl": ("ARL", subroc_ext.ARLQF, getattr(ps, "ARLQF", None), True),
}
#: Said (and the comparison skipped) when pysubgroup has no quality functions to compare with.
PYSUBGROUP_ABSENT = (
    f"pysubgroup {version('pysubgroup')} has no ROCAUCQF/PRAUCQF/ARLQF (they came with "
    "pysubgroup 0.9.0): timing subroc-ext only, without the comparison"
)

AGREEMENT_OK = "agreement check: OK"
AGREEMENT_FAILED = "agreement check: FAILED"


def make_quality_function(measure, implementation, size_weight, balance_weight):
    """A fresh quality function.

    Parameters
    ----------
    measure : {'roc_auc', 'pr_auc', 'arl'}
    implementation : {'ours', 'unpruned', 'pysubgroup'}
        subroc-ext's class (also searched without pruning) or pysubgroup 0.9.0's.
    size_weight, balance_weight : float
        The exponents alpha and beta of the SubROC weight.

    Returns
    -------
    pysubgroup.BoundedInterestingnessMeasure
    """
    _, ours, theirs, takes_positive_label = MEASURES[measure]
    cls = theirs if implementation == "pysubgroup" else ours
    positive_label = (1,) if takes_positive_label else ()
    return cls(LABEL, *positive_label, balance_weight, size_weight)


def search_split(seed, rows=None):
    """Adult's search split, scored by a model fitted on its training split.

    Parameters
    ----------
    seed : int
        Seeds the four-way split and the subsample.
    rows : int, optional
        Keep a random subsample of this many rows.

    Returns
    -------
    pandas.DataFrame
        Index ``0..n-1``, the 14 attributes, ``label`` in {0, 1} and ``score``
        (pysubgroup 0.9.0's quality functions need both the index and labels).
    """
    column, positive = TARGETS["adult"]
    parts = split_parts(load_adult(), 4, random_state=seed)
    # One thread: on a busy machine OpenMP's spinning threads make the fit
    # 5-20 times slower (0.6 s vs 3-13 s measured on 2 shared cores).
    with threadpool_limits(1):
        (search,) = fit_and_score(parts[0], column, positive, parts[1], score=SCORE)
    if rows is not None and rows < len(search):
        search = search.sample(n=rows, random_state=seed)
    search = search.reset_index(drop=True)
    search[LABEL] = (search.pop(column) == positive).astype(int)
    return search


def run_search(data, selectors, qf, depth, result_set_size, min_support, timeout=None, prune=True):
    """Run ``ps.BestFirstSearch``, timed and with its candidates counted.

    Parameters
    ----------
    data : pandas.DataFrame
        With the ``label`` and ``score`` columns.
    selectors : list of pysubgroup selectors
    qf : pysubgroup.BoundedInterestingnessMeasure
        A fresh quality function (see :func:`make_quality_function`).
    depth, result_set_size, min_support : int
        The task: maximal number of selectors, top-k size, minimal cover size.
    timeout : float, optional
        Stop the search after this many seconds (with ``SIGALRM``).
    prune : bool, default=True
        Optimistic-estimate pruning; off, no estimate is computed
        (:class:`subroc_ext.engine.counting.CountingQF`).

    Returns
    -------
    subroc_ext.workflow.steps.SearchResult
        Its ``seconds`` include the quality function's one-off preparation
        (``calculate_constant_statistics``); its ``cpu_seconds`` hardly grow
        when other processes compete for the cores.
    """
    return steps.search(
        data, qf, subroc_ext.SoftClassifierTarget(LABEL, SCORE), selectors=selectors,
        depth=depth, result_set_size=result_set_size, min_support=min_support, prune=prune,
        algorithm=ps.BestFirstSearch(), timeout=timeout,
    )  # fmt: skip


def _ranked(result):
    """(quality, selector-set key, text) of each result, best first."""
    rows = [
        (float(quality), frozenset(map(str, description.selectors)), str(description))
        for quality, description in zip(result.qualities, result.subgroups)
    ]
    return sorted(rows, key=lambda row: (-row[0], row[2]))


def compare_results(expected, actual):
    """Differences between two top-k results, ignoring the order of ties.

    Qualities must agree position by position (``np.isclose``). Descriptions
    must agree as sets within each group of tied qualities, except the group
    at the cut-off, whose members beyond the cut-off are unknown.

    Parameters
    ----------
    expected, actual : subroc_ext.workflow.steps.SearchResult

    Returns
    -------
    list of str
        Human-readable problems; empty when the results agree.
    """
    left, right = _ranked(expected), _ranked(actual)
    if len(left) != len(right):
        return [f"{len(left)} results vs {len(right)}"]
    problems = [
        f"rank {rank}: quality {a[0]!r} ({a[2]}) vs {b[0]!r} ({b[2]})"
        for rank, (a, b) in enumerate(zip(left, right), start=1)
        if not np.isclose(a[0], b[0])
    ]
    if problems:
        return problems
    start = 0
    while start < len(left):
        stop = start + 1
        while stop < len(left) and np.isclose(left[stop][0], left[start][0]):
            stop += 1
        ours = {row[1] for row in left[start:stop]}
        theirs = {row[1] for row in right[start:stop]}
        if stop < len(left) and ours != theirs:
            problems.append(
                f"ranks {start + 1}-{stop} (quality {left[start][0]:.6g}): "
                f"{sorted(map(sorted, ours - theirs))} vs {sorted(map(sorted, theirs - ours))}"
            )
        start = stop
    return problems


def _check(name, expected, actual, failures):
    """Compare two results, print the verdict, and collect any failure."""
    if expected is None or actual is None:
        return "n/a"
    problems = compare_results(expected, actual)
    if problems:
        failures.append(name)
        print(f"!!! RESULTS DIFFER: {name}", file=sys.stderr)
        for problem in problems:
            print(f"!!!   {problem}", file=sys.stderr)
        return "NO"
    return "yes"


def _timed_runs(data, selectors, args, measure, implementation, depth, weights):
    """Search with a fresh quality function; ours runs ``args.repeat`` times.

    Returns
    -------
    result, seconds, cpu_seconds, candidates
        The result (None if stopped), the best wall and CPU times over the
        repeats, and the number of candidates evaluated.
    """
    repeats, timeout = args.repeat, None
    if implementation == "pysubgroup":
        repeats, timeout = 1, args.pysubgroup_timeout
    times = []
    for _ in range(repeats):
        qf = make_quality_function(measure, implementation, *weights)
        result = run_search(
            data, selectors, qf, depth, args.result_set_size, args.min_support, timeout,
            prune=implementation != "unpruned",
        )  # fmt: skip
        times.append((result.seconds, result.cpu_seconds))
    seconds, cpu_seconds = min(wall for wall, _ in times), min(cpu for _, cpu in times)
    status = "" if result.finished else f" (stopped after {timeout:g} s)"
    print(f"   {implementation:>10}: {seconds:9.3f} s wall, {cpu_seconds:9.3f} s CPU, "
          f"{result.candidates:>8} candidates{status}", flush=True)  # fmt: skip
    return (result if result.finished else None), seconds, cpu_seconds, result.candidates


def _seconds(value, stopped=False):
    """A time for the table: three decimals, "–" if not run, ">" if stopped."""
    return "–" if np.isnan(value) else f"{'>' if stopped else ''}{value:.3f}"


def _count(value, stopped=False):
    """A candidate count for the table."""
    return "–" if np.isnan(value) else f"{'>' if stopped else ''}{value:d}"


def _ratio(numerator, denominator, stopped=False):
    """A speed-up for the table, rounded to a whole number."""
    return "–" if np.isnan(numerator) else f"{'>' if stopped else ''}{numerator / denominator:.0f}"


def benchmark(data, selectors, args):
    """Run every requested configuration.

    Returns
    -------
    table : pandas.DataFrame
        One row per measure, depth and weights, formatted for display ("–":
        not run, ">": pysubgroup stopped by the timeout, a lower bound).
    failures : list of str
        The comparisons whose results differ.
    """
    rows, failures = [], []
    for weights in args.weights:
        for depth in args.depths:
            for measure in args.measures:
                label = f"{MEASURES[measure][0]}, depth {depth}, weights ({weights[0]:g}, {weights[1]:g})"
                print(f"-- {label}", flush=True)
                ours, ours_s, ours_cpu, ours_n = _timed_runs(
                    data, selectors, args, measure, "ours", depth, weights
                )
                unpruned = theirs = None
                unpruned_s = theirs_s = theirs_cpu = np.nan
                unpruned_n = theirs_n = np.nan
                if depth in args.unpruned_depths:
                    unpruned, unpruned_s, _, unpruned_n = _timed_runs(
                        data, selectors, args, measure, "unpruned", depth, weights
                    )
                if depth in args.pysubgroup_depths:
                    theirs, theirs_s, theirs_cpu, theirs_n = _timed_runs(
                        data, selectors, args, measure, "pysubgroup", depth, weights
                    )
                stopped = depth in args.pysubgroup_depths and theirs is None
                same_unpruned = _check(f"{label}: pruning on vs off", unpruned, ours, failures)
                same_theirs = _check(f"{label}: pysubgroup vs ours", theirs, ours, failures)
                if same_theirs == "NO" and same_unpruned == "yes":
                    print("!!!   ours equals the exhaustive search (no pruning): pysubgroup's "
                          "result is the wrong one", file=sys.stderr)  # fmt: skip
                rows.append({
                    "measure": MEASURES[measure][0],
                    "depth": depth,
                    "weights (α, β)": f"({weights[0]:g}, {weights[1]:g})",
                    "ours [s]": _seconds(ours_s),
                    "ours CPU [s]": _seconds(ours_cpu),
                    "ours candidates": _count(ours_n),
                    "no pruning [s]": _seconds(unpruned_s),
                    "no pruning candidates": _count(unpruned_n),
                    "pysubgroup [s]": _seconds(theirs_s, stopped),
                    "pysubgroup CPU [s]": _seconds(theirs_cpu, stopped),
                    "pysubgroup candidates": _count(theirs_n, stopped),
                    "speed-up (wall)": _ratio(theirs_s, ours_s, stopped),
                    "speed-up (CPU)": _ratio(theirs_cpu, ours_cpu, stopped),
                    "same as no pruning": same_unpruned,
                    "same as pysubgroup": same_theirs,
                })  # fmt: skip
                for quality, _, text in _ranked(ours)[:3]:
                    print(f"   top: {quality:.6f}  {text}")
    return pd.DataFrame(rows), failures


def to_markdown(table):
    """A DataFrame as a GitHub Markdown table."""
    lines = ["| " + " | ".join(map(str, table.columns)) + " |"]
    lines.append("|" + "---|" * len(table.columns))
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _weights(text):
    try:
        size_weight, balance_weight = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ALPHA,BETA (e.g. 1,1), got {text!r}") from None
    return size_weight, balance_weight


def parse_args(argv=None):
    """Command-line options (see ``--help``)."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--measures", nargs="+", choices=list(MEASURES), default=list(MEASURES))
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3],
                        help="search depths (default: 2 3)")
    parser.add_argument("--pysubgroup-depths", nargs="*", type=int, default=[2],
                        help="depths at which pysubgroup 0.9.0 runs too (default: 2; it takes "
                             "~30 s per measure at depth 2 and far longer at depth 3)")
    parser.add_argument("--pysubgroup-timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a pysubgroup search after this long and report a lower bound")
    parser.add_argument("--unpruned-depths", nargs="*", type=int, default=None,
                        help="depths at which ours also runs with pruning off (default: all)")
    parser.add_argument("--weights", nargs="+", type=_weights, default=[(0.0, 0.0)],
                        metavar="ALPHA,BETA",
                        help="size and class-balance weight exponents (default: 0,0)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="run ours this many times and keep the best time (default: 3; "
                             "pysubgroup runs once)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", type=int, default=None,
                        help="subsample the search split to this many rows")
    parser.add_argument("--max-selectors", type=int, default=None,
                        help="keep only the first this many selectors")
    parser.add_argument("--nbins", type=int, default=5)
    parser.add_argument("--min-support", type=int, default=20)
    parser.add_argument("--result-set-size", type=int, default=10)
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    parser.add_argument("--smoke", action="store_true",
                        help="a few seconds: 1,000 rows, 25 selectors, depths 1 and 2")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows, args.max_selectors = args.rows or 1000, args.max_selectors or 25
        args.repeat = 1
        args.depths = args.pysubgroup_depths = [1, 2]
    if args.unpruned_depths is None:
        args.unpruned_depths = args.depths
    if not hasattr(ps, "ROCAUCQF") and args.pysubgroup_depths:
        print(f"NOTE: {PYSUBGROUP_ABSENT}", flush=True)
        args.pysubgroup_depths = []
    return args


def main(argv=None):
    """Run the benchmark; return the exit status (1 if any results differ)."""
    args = parse_args(argv)
    data = search_split(args.seed, args.rows)
    selectors = ps.create_selectors(data, nbins=args.nbins, ignore=[LABEL, SCORE])
    selectors = selectors[: args.max_selectors]
    print(f"Adult search split: {len(data)} rows, {int(data[LABEL].sum())} positives, "
          f"{len(selectors)} selectors, seed {args.seed}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)  # fmt: skip
    table, failures = benchmark(data, selectors, args)
    with pd.option_context("display.width", 250, "display.max_columns", None):
        print(table.to_string(index=False))
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(to_markdown(table))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if failures:
        print(f"{AGREEMENT_FAILED}: {len(failures)} comparison(s) differ: {failures}", file=sys.stderr)
        return 1
    print(f"{AGREEMENT_OK}: every top-{args.result_set_size} result agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
