"""Significance against the interval beside it, on real tables (issue 31).

For each table, ``find_subgroups`` with its defaults (50/50 holdout) runs
twice: with the intervals that match the decision (``intervals='fcr'``, the
default) and with the simultaneous intervals of before
(``intervals='simultaneous'``, where the test alone decides); then once
without a holdout (``validation=None``). It prints, per run, the rows
significant, the rows whose interval excludes 0, the significant rows whose
interval includes 0, the rows not significant whose interval excludes 0, and
how many of those disagreements carry no ``verdict_note`` (0 is the rule).

Tables: Adult as the demo scores it (the search and validation parts, the
model fitted on the first quarter), palmerpenguins (``pip download --no-deps
palmerpenguins``, unzip, pass the CSV with ``--penguins``), German credit and
statsmodels' ``fair`` and ``star98`` (label and score as
``tests/test_corpus.py`` derives them: the first binary column, a logistic
regression on three numeric columns).

Example::

    python benchmarks/verdict_tables.py --penguins palmerpenguins/data/penguins.csv
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

import subroc_ext
from subroc_ext.demo.datasets import load_adult
from subroc_ext.demo.modelling import fit_and_score, split_parts

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_corpus import TABLES, labelled  # noqa: E402


def demo():
    """Adult scored by the demo's model: the search and validation parts together."""
    train, search, validation, _ = split_parts(load_adult(), 4, random_state=0)
    search, validation = fit_and_score(train, "income", ">50K", search, validation, random_state=0)
    frame = pd.concat([search, validation])
    return frame.assign(label=(frame.pop("income") == ">50K").astype(int))


def counts(table, seconds):
    """What one run says about significance and intervals."""
    significant = table["significant"].astype(bool).to_numpy()
    low, high = table["delta_ci_low"].to_numpy(), table["delta_ci_high"].to_numpy()
    noted = table["verdict_note"].fillna("").str.len().to_numpy() > 0
    inside = significant & ~(low > 0)
    outside = ~significant & ((low > 0) | (high < 0))
    return dict(rows=len(table), significant=int(significant.sum()), significant_0_inside=int(inside.sum()),
                not_significant_0_outside=int(outside.sum()), unnoted=int(((inside | outside) & ~noted).sum()),
                level=round(float(table.attrs.get("interval_level", float("nan"))), 5),
                seconds=round(seconds, 1))  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--penguins", type=Path, help="penguins.csv of the palmerpenguins wheel")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    tables = {"Adult (demo)": demo, "German credit": lambda: labelled(TABLES["credit_g"]()),
              "statsmodels fair": lambda: labelled(TABLES["fair"]()),
              "statsmodels star98": lambda: labelled(TABLES["star98"]())}  # fmt: skip
    if args.penguins:
        tables["palmerpenguins"] = lambda: labelled(pd.read_csv(args.penguins))
    for name, load in tables.items():
        frame = load()
        print(f"{name} ({len(frame):,} rows)")
        for intervals in ("fcr", "simultaneous"):
            start = time.perf_counter()
            table = subroc_ext.find_subgroups(frame, label="label", score="score", intervals=intervals,
                                              progress=False)  # fmt: skip
            print(f"  holdout, intervals={intervals}: {counts(table, time.perf_counter() - start)}")
        start = time.perf_counter()
        table = subroc_ext.find_subgroups(frame, label="label", score="score", validation=None, progress=False)
        print(f"  no holdout ({table.attrs['method']}): {int(table['significant'].sum())} of {len(table)} "
              f"significant, {time.perf_counter() - start:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
