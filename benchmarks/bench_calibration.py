"""Calibration in subgroups against known truth: null alarms, power, false coverage (issue 44).

Seeded simulations of ``find_subgroups(measure="calibration_gap", mode="both",
calibrate="none")`` (the scores as given, no global fix; BY at ``alpha = 0.05``,
FCR intervals, the defaults otherwise) on
``tests/synthetic.py``'s risk data, whose true probabilities are known:

* **null** (``risk_frame``, scores = the true probabilities): the share of
  datasets with any significant row (the familywise error; target <= alpha);
* **planted** (``halved_risk_frame``: the promised risk halved in a random
  8 % of the rows, ``m == 'yes'``): the share of datasets where ``m == 'yes'``
  is among the top 5 by quality and significant (power; target >= 0.9);
* **false coverage rate** of both: a significant row's interval of ``delta``
  (``|g(S) - g(D)|``) misses the truth when it does not hold the subgroup's
  true difference (:func:`true_gap_difference` on a population of 10^6 rows
  drawn like the data); FCR = the mean over datasets of missed / significant
  (0 without a significant row; Benjamini & Yekutieli 2005; target <= alpha).
  Under the null every true difference is 0, so a significant row always
  misses and the FCR is the familywise error.

Examples
--------
The recorded run (benchmarks/RESULTS.md)::

    python benchmarks/bench_calibration.py --null 200 --planted 100

A few datasets, for the tests::

    python benchmarks/bench_calibration.py --null 2 --planted 2 --null-rows 600 --planted-rows 1000
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.append(str(HERE.parent / "tests"))  # synthetic: the generators the tests use too

import subroc_ext  # noqa: E402
from synthetic import halved_risk_frame, risk_frame, true_gap_difference  # noqa: E402

ALPHA = 0.05
PLANTED = "m=='yes'"
POPULATION_ROWS = 1_000_000


def search(data, seed):
    """The calibration search of every simulated dataset."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the scores as given: the estimand is the gap against the whole data's, whose truth
        # true_gap_difference knows (the gaps after a global fix: bench_global_fix.py)
        return subroc_ext.find_subgroups(data, label="y", score="p", measure="calibration_gap", mode="both",
                                         calibrate="none", alpha=ALPHA, progress=False, random_state=seed)  # fmt: skip


def record(table, population, truth):
    """One dataset's outcome: significant rows, those whose interval misses
    the true difference, and whether the planted subgroup is in the top 5
    and significant."""
    significant = table[table["significant"].astype(bool)]
    missed = 0
    if len(significant):
        true = true_gap_difference(list(significant["subgroup"]), population, truth)
        inside = (significant["delta_ci_low"].to_numpy() <= true) & (true <= significant["delta_ci_high"].to_numpy())
        missed = int((~inside).sum())
    top = table.sort_values("quality", ascending=False, kind="stable").head(5)
    planted = top[top["description"] == PLANTED]
    return {"significant": len(significant), "missed": missed,
            "found": bool(len(planted)) and bool(planted["significant"].iloc[0])}  # fmt: skip


def simulate(kind, n_datasets, rows):
    """Records of ``n_datasets`` seeded datasets of ``kind`` ('null' or 'planted')."""
    if kind == "null":
        population = risk_frame(10**6, POPULATION_ROWS)
        truth, make = population["p"].to_numpy(), lambda seed: (risk_frame(seed, rows), None)
    else:
        population, truth = halved_risk_frame(10**6, POPULATION_ROWS)
        make = lambda seed: halved_risk_frame(1000 + seed, rows)  # noqa: E731
    return [record(search(make(seed)[0], seed), population, truth) for seed in range(n_datasets)]


def summary(records):
    """FWER (any significant row), power (planted found), FCR and the counts."""
    significant = np.array([r["significant"] for r in records])
    missed = np.array([r["missed"] for r in records])
    return {
        "datasets": len(records),
        "any_significant": float(np.mean(significant > 0)),
        "found": float(np.mean([r["found"] for r in records])),
        "fcr": float(np.mean(np.where(significant > 0, missed / np.maximum(significant, 1), 0.0))),
        "significant_rows": int(significant.sum()),
        "missed_rows": int(missed.sum()),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null", type=int, default=200, help="null datasets")
    parser.add_argument("--planted", type=int, default=100, help="planted datasets")
    parser.add_argument("--null-rows", type=int, default=2000)
    parser.add_argument("--planted-rows", type=int, default=4000)
    args = parser.parse_args(argv)
    lines = ["| data | datasets | rows | any significant row | planted in top 5, significant | FCR "
             "| significant rows (missed) | CPU s |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for kind, count, rows in (("null", args.null, args.null_rows), ("planted", args.planted, args.planted_rows)):
        if not count:
            continue
        start = time.process_time()
        result = summary(simulate(kind, count, rows))
        found = f"{result['found']:.2f}" if kind == "planted" else "–"
        lines.append(f"| {kind} | {count} | {rows:,} | {result['any_significant']:.3f} | {found} | "
                     f"{result['fcr']:.3f} | {result['significant_rows']} ({result['missed_rows']}) | "
                     f"{time.process_time() - start:.0f} |")  # fmt: skip
        print(lines[-1], flush=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
