"""Calibration: the whole data first, then where a global fix is not enough (issue 57).

A semi-synthetic benchmark on UCI Adult's attributes (bundled): each dataset
draws ``--rows`` people (half searched, half held out), gives them a true
risk from a logistic model of their age, schooling, hours and marriage
(about 30 % positives), draws their labels from it, and scores them with a
distortion of that risk. Settings (``find_subgroups(measure=
"calibration_gap")`` with its defaults: mode 'both', the global fix an
isotonic map cross-fitted on the search split):

* ``calibrated``: the scores are the true risks;
* ``intercept +1`` / ``intercept -1`` / ``slope 1.6``: ``logit s = logit t + 1``
  (the risk overestimated everywhere), ``- 1``, ``1.6 logit t`` (too extreme);
* ``+1 and pocket x2`` / ``+1 and pocket x0.5``: the first distortion, and in
  the pocket ``occupation=='Sales' AND sex=='Male'`` (7 % of the rows) the
  true odds twice (half) those of the model's risk (``logit t``), so twice
  (half) the odds of the scores after the global fix undoes the distortion.

Per setting: datasets with a whole-data warning (Cox's test rejects), with
the warning in the right direction (over / under in the large, 'too extreme'
for the slope), with any finding (a row the headline names), with the pocket
named (a finding whose held-out rows have a Jaccard index of at least 0.5
with the pocket's), and the findings whose held-out rows are mostly outside
the pocket, of all findings.

Examples
--------
The recorded run (benchmarks/RESULTS.md)::

    python benchmarks/bench_global_fix.py --datasets 10

A few datasets, for the tests::

    python benchmarks/bench_global_fix.py --datasets 1 --rows 1200 --settings calibrated "slope 1.6"
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.special import expit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import subroc_ext  # noqa: E402
from subroc_ext.demo import datasets  # noqa: E402

#: The attributes subgroups are made of.
ATTRIBUTES = ["age", "workclass", "education", "marital_status", "occupation", "relationship", "race", "sex",
              "hours_per_week"]  # fmt: skip
POCKET = "occupation=='Sales' AND sex=='Male'"

#: Each setting: the scores' logit from the true one, the pocket's odds ratio (truth / scores), the
#: direction the whole data's sentence must say (in the large, or the spread).
SETTINGS = {
    "calibrated": (lambda z: z, 1.0, None),
    "intercept +1": (lambda z: z + 1, 1.0, "over"),
    "intercept -1": (lambda z: z - 1, 1.0, "under"),
    "slope 1.6": (lambda z: 1.6 * z, 1.0, "too extreme"),
    "+1 and pocket x2": (lambda z: z + 1, 2.0, "over"),
    "+1 and pocket x0.5": (lambda z: z + 1, 0.5, "over"),
}


def true_logit(frame):
    """The true risk's logit of Adult's people (about 30 % positives)."""
    return (-2.7 + 0.04 * (frame["age"] - 38) + 0.3 * (frame["education_num"] - 10)
            + 0.03 * (frame["hours_per_week"] - 40)
            + 1.2 * (frame["marital_status"] == "Married-civ-spouse")).to_numpy(dtype=float)  # fmt: skip


def dataset(population, setting, rows, seed):
    """One dataset of ``setting``: the searched half, the held-out half and the pocket's mask of the latter."""
    distort, odds, _ = SETTINGS[setting]
    rng = np.random.default_rng([57, seed])
    frame = population.iloc[rng.choice(len(population), rows, replace=False)].reset_index(drop=True)
    pocket = ((frame["occupation"] == "Sales") & (frame["sex"] == "Male")).to_numpy()
    z = true_logit(frame)
    scores = expit(distort(z))
    truth = expit(z + np.log(odds) * pocket)
    data = frame[ATTRIBUTES].assign(y=(rng.random(rows) < truth).astype(int), p=scores)
    half = rows // 2
    return data.iloc[:half], data.iloc[half:], pocket[half:]


def outcome(table, pocket, direction):
    """One dataset's answer: the warning, its direction, the findings and the pocket."""
    whole = table.attrs["whole_calibration"]
    said = whole["in_the_large"] if direction in ("over", "under") else whole["spread"]
    held_out = table.attrs["validation_masks"]
    findings = np.flatnonzero(table["failure"].to_numpy(dtype=bool))
    named = outside = 0
    for i in findings:
        cover = held_out[i]
        named |= (cover & pocket).sum() / max((cover | pocket).sum(), 1) >= 0.5
        outside += (cover & ~pocket).sum() > cover.sum() / 2
    return {"warning": not whole["calibrated"], "right": direction is not None and said == direction,
            "findings": len(findings), "any": len(findings) > 0, "pocket": bool(named), "outside": int(outside)}


def run(setting, seed, rows, population):
    search, held_out, pocket = dataset(population, setting, rows, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = subroc_ext.find_subgroups(search, validation=held_out, label="y", score="p",
                                          measure="calibration_gap", progress=False, random_state=seed)  # fmt: skip
    sorted_held = subroc_ext.inputs.sorted_data.SortedDataset(held_out.reset_index(drop=True), "y", "p", 1)
    masks = sorted_held.masks_of(table["subgroup"])
    table.attrs["validation_masks"] = [mask[np.argsort(sorted_held.order)] for mask in masks]
    return outcome(table, pocket, SETTINGS[setting][2])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    args = parser.parse_args(argv)
    population = datasets.load_adult()
    print(f"{args.datasets} datasets of {args.rows:,} rows per setting (half searched, half held out)\n")
    print("| setting | whole-data warning | in the right direction | any finding | pocket named | "
          "findings mostly outside the pocket / all | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for setting in args.settings:
        start = time.process_time()
        results = [run(setting, seed, args.rows, population) for seed in range(args.datasets)]
        total = sum(r["findings"] for r in results)
        direction = SETTINGS[setting][2]
        odds = SETTINGS[setting][1]
        print(f"| {setting} | {sum(r['warning'] for r in results)}/{len(results)} | "
              f"{sum(r['right'] for r in results) if direction else '-'}/{len(results)} | "
              f"{sum(r['any'] for r in results)}/{len(results)} | "
              f"{sum(r['pocket'] for r in results) if odds != 1 else '-'}/{len(results)} | "
              f"{sum(r['outside'] for r in results)}/{total} | {time.process_time() - start:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
