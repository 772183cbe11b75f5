"""A table with a high-cardinality string column, end to end (issue 32, item 6).

The probe that found it: 500,000 rows, a string column with 285,000 distinct
values, depth 1, default settings: 580 s without a word. This script builds
such a table (seeded) and times ``find_subgroups`` on it, and optionally the
command line (``python -m subroc_ext.cli run``) on the same table written as
CSV::

    python benchmarks/bench_high_cardinality.py                 # find_subgroups, 500k rows
    python benchmarks/bench_high_cardinality.py --cli           # and the command line
    python benchmarks/bench_high_cardinality.py --rows 50000 --distinct 28500   # smaller

The string column ``city`` takes its values with a Zipf-like law (a few
frequent values, most seen once or twice), so some values reach the minimum
support and most do not; ``--uniform`` draws them uniformly instead (then no
value does). The other columns: a numeric ``age``, a nominal ``region`` and a
``capital`` with a mass point at 0. The model's score is worse on the
frequent cities. Results are in ``benchmarks/RESULTS.md``.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import subroc_ext  # noqa: E402


def make_table(rows=500_000, distinct=285_000, uniform=False, seed=0):
    """The seeded table: ``label``, ``score``, ``city`` (about ``distinct``
    distinct strings), ``age``, ``region`` and ``capital``."""
    rng = np.random.default_rng(seed)
    if uniform:
        # n draws from m values give m (1 - exp(-n / m)) distinct ones: solve for m
        pool = _pool_for(rows, distinct)
        city = rng.integers(0, pool, rows)
    else:
        # most rows: values seen about once; a few hundred frequent values
        is_rare = rng.random(rows) >= 0.35
        frequent = rng.zipf(1.6, rows) % 2_000
        rare = 10_000 + rng.integers(0, _pool_for(int(is_rare.sum()), distinct - 2_000), rows)
        city = np.where(is_rare, rare, frequent)
    label = rng.integers(0, 2, rows)
    noise = rng.random(rows)
    broken = city % 7 == 0
    score = np.where(broken, noise, 0.6 * label + 0.4 * noise)
    capital = np.where(rng.random(rows) < 0.9, 0, rng.lognormal(8, 1, rows).round())
    return pd.DataFrame({
        "city": pd.Series(city).map("c{:d}".format).astype("str"),
        "age": rng.integers(17, 90, rows),
        "region": rng.choice(["north", "south", "east", "west"], rows),
        "capital": capital,
        "label": label,
        "score": score,
    })  # fmt: skip


def _pool_for(rows, distinct):
    low, high = distinct, 50 * rows
    while high - low > 1:
        middle = (low + high) // 2
        if middle * (1 - np.exp(-rows / middle)) < distinct:
            low = middle
        else:
            high = middle
    return high


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--distinct", type=int, default=285_000)
    parser.add_argument("--uniform", action="store_true")
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--cli", action="store_true", help="time the command line too")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    table = make_table(args.rows, args.distinct, args.uniform)
    print(f"table: {len(table):,} rows, city: {table['city'].nunique():,} distinct values, "
          f"{(table['city'].value_counts() >= 20).sum():,} of them in 20 rows or more "
          f"({time.perf_counter() - start:.1f} s to build)")  # fmt: skip
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = subroc_ext.find_subgroups(table, label="label", score="score", depth=args.depth,
                                           progress=False, n_jobs=1)  # fmt: skip
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"find_subgroups depth {args.depth}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
          f"{len(result)} rows, {result.attrs['search_space']['conditions']:,} conditions")  # fmt: skip
    for warning in caught:
        print(f"  warning: {warning.message}")
    print(result[["description", "size_search", "quality"]].head(5).to_string())
    if args.cli:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "table.csv")
            table.to_csv(path, index=False)
            command = [sys.executable, "-m", "subroc_ext.cli", "run", path, "--label", "label",
                       "--score", "score", "--depth", str(args.depth), "--out",
                       os.path.join(folder, "out")]  # fmt: skip
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=False,
                                  env={**os.environ, "PYTHONPATH": os.path.dirname(HERE)})  # fmt: skip
            print(f"command line run, depth {args.depth}: {time.perf_counter() - start:.1f} s wall, "
                  f"exit {done.returncode}")  # fmt: skip
            print("  stderr: " + "\n  stderr: ".join(done.stderr.strip().splitlines()[-6:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
