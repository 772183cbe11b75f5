"""Where a planted failure is lost on its way to the headline (issue 55): one line per data set.

The planted data of :mod:`sim_promise` (a value of ``c1`` holding 10-15 %
of the rows; for Brier and log loss its promised risk halved). For each
data set the first table row that is the plant (the rule of
``sim_headline.names_the_plant``: at least half of its rows in the plant,
covering at least half of it) and the stage that drops it: not in the
table (the search), rule 1 (the table's test does not reject, or its
interval reaches 0), rule 2 (not shown worse than its promise), rule 4
(explained by, or a variant of, a row named before it), or named.

Examples
--------
The run of benchmarks/RESULTS.md::

    python benchmarks/sim_promise_stages.py --measures brier,log_loss --tables 20 --out /tmp/stages.csv
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import subroc_ext  # noqa: E402
from sim_headline import COVERAGE, PURITY  # noqa: E402
from sim_promise import make_data  # noqa: E402


def stage(row):
    """The stage that drops the plant's first row (a dict of its table's columns), or 'named'."""
    if row is None:
        return "not in the table"
    if row["failure"]:
        return "named"
    if not row["significant"]:
        return "rule 1: test p >= alpha" if row["p_value_corrected"] >= 0.05 else "rule 1: interval reaches 0"
    return "rule 2: promise" if "promise" in str(row["failure_note"]) else "rule 4: explained or a variant"


def run_one(measure, seed):
    frame, plant = make_data(seed, 2000, True, measure)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = subroc_ext.find_subgroups(frame, label="y", score="score", measure=measure, progress=False,
                                          random_state=seed)  # fmt: skip
    for rank in range(len(table)):
        cover = np.asarray(table["subgroup"].iloc[rank].covers(frame), dtype=bool)
        inside = (cover & plant).sum()
        if cover.sum() and inside >= PURITY * cover.sum() and inside >= COVERAGE * plant.sum():
            row = table.iloc[rank]
            return {"measure": measure, "seed": seed, "rank": rank + 1, "description": row["description"],
                    "stage": stage(row), "p_value_corrected": row["p_value_corrected"],
                    "promise_p_value": row["promise_p_value"], "note": row["failure_note"]}  # fmt: skip
    return {"measure": measure, "seed": seed, "rank": None, "stage": stage(None)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--measures", default="brier,log_loss")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    frame = pd.DataFrame([run_one(m, seed) for m in args.measures.split(",") for seed in range(args.tables)])
    frame.to_csv(args.out, index=False)
    print(frame.groupby(["measure", "stage"]).size().to_string())
    print(frame.groupby("measure")["rank"].describe().to_string())


if __name__ == "__main__":
    main()
