"""A wide small table without a holdout: issue 56's 1,000 rows and 50 columns.

Builds 1,000 rows with 25 numeric and 25 four-valued categorical attributes
(seeded), a label drawn from a risk of two of the numeric ones and the true
probability as the score (so no subgroup is a failure of the model), and
times ``find_subgroups(validation=None)`` with its defaults, warm (a first
run compiles or loads the kernels and is not counted): the wall and CPU
seconds of each run, and the permuted searches of the table's max-T test.

Compare two trees by running each tree's copy of this script in turn (the
machine is shared: alternate them and read the ratios, not one number).

Examples
--------
::

    python benchmarks/bench_wide_no_holdout.py --runs 3
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from subroc_ext import find_subgroups  # noqa: E402


def wide_table(rows=1000, numeric=25, categorical=25, seed=0):
    """``rows`` rows: ``x0..`` numeric, ``c0..`` with four values, ``y`` drawn
    from the risk ``logistic(-0.5 + 1.2 x0 + 0.5 x1)`` and ``p`` that risk."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"x{i}": rng.normal(size=rows) for i in range(numeric)})
    for i in range(categorical):
        frame[f"c{i}"] = rng.choice(list("abcd"), rows)
    risk = 1 / (1 + np.exp(-(-0.5 + 1.2 * frame["x0"] + 0.5 * frame["x1"])))
    frame["y"] = (rng.random(rows) < risk).astype(int)
    frame["p"] = risk.round(6)
    return frame


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs timed")
    args = parser.parse_args(argv)
    frame = wide_table()
    find_subgroups(frame, label="y", score="p", validation=None, progress=False)  # the kernels, warm
    for run in range(args.runs):
        wall, cpu = time.perf_counter(), time.process_time()
        table = find_subgroups(frame, label="y", score="p", validation=None, progress=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"run {run + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, {table.attrs['null_samples_drawn']} permuted "
              f"searches, {int(table['failure'].sum()) if 'failure' in table else 0} failures named")


if __name__ == "__main__":
    main()
