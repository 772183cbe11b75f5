"""Small tables without a holdout: the headline against the valid whole-search max-T (issue 56, item 2).

An independent audit of issue 56 simulated small tables and found that the
headline without a holdout names a planted failure less often than a valid
whole-search test of the promise does. This is that simulation, seeded:

* **Rows**: a strong predictor ``risk`` (uniform), a weaker one ``dose``
  (normal), noise ``noise`` (normal), ``group`` (five values, one of them,
  ``'p'``, holding a share of 10-15 % drawn per data set), ``site``
  (three values) and ``flag`` (two). The true probability is
  ``expit(1.3 risk + 0.7 dose - 0.4)``, each label a draw from it.
* **Scores**: the true probabilities through a monotone distortion drawn
  per data set (over- or under-confident, ``expit(a logit(p) + b)`` with
  ``a`` in [0.6, 1.6] and ``b`` in [-0.6, 0.6]; or a power ``p ** g``, ``g``
  in [0.6, 1.6]): the same ranking, other probabilities.
* **Plant**: the scores shuffled among the rows of ``group == 'p'``
  (the labels stay): a real failure of the model there. Null data sets
  keep every score.

Per data set, ``find_subgroups(validation=None)`` with its defaults; the
headline *names the plant* when one of its failures is mostly inside the
plant and covers most of it (``sim_headline.names_the_plant``), and a null
data set *alarms* when the headline names any failure. Beside it, the
**reference**: the studentised whole-search max-T of the promise
(:mod:`subroc_ext.inference.promise_family`, the audit's method: each
cover's shortfall from its promise over its label-draw standard deviation,
the family the covers with at least 10 expected positives and negatives)
run on every cover of the family (the 30 of the largest statistic tested:
the single-step max-T's significant covers are the top of that ranking;
at most 1,000 draws), the probabilities a map fitted on all rows
(``calibrate='auto'``): it names the plant when one of its significant
covers does. ``--headline-only`` skips the reference (to run
the headline of an older tree: ``PYTHONPATH=<tree>``); ``--summary A.csv
B.csv`` prints the table of two runs on the same data sets, with
Clopper-Pearson 95 % intervals and McNemar's exact test.

Examples
--------
The recorded run (benchmarks/RESULTS.md)::

    git archive 4a0fafb | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before python benchmarks/sim_small_no_holdout.py --headline-only --jobs 2 \\
        --out benchmarks/sim_small_no_holdout_before.csv
    python benchmarks/sim_small_no_holdout.py --jobs 2 --out benchmarks/sim_small_no_holdout.csv
    python benchmarks/sim_small_no_holdout.py --summary benchmarks/sim_small_no_holdout_before.csv \\
        benchmarks/sim_small_no_holdout.csv

The false alarms on 200 null data sets of each size::

    python benchmarks/sim_small_no_holdout.py --nulls 200 --jobs 2 --out benchmarks/sim_small_no_holdout_nulls.csv
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, logit
from scipy.stats import beta, binomtest

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE))

import subroc_ext  # noqa: E402
from job_pool import mapped  # noqa: E402
from sim_headline import names_the_plant  # noqa: E402

#: (rows, planted data sets, null data sets) of the recorded run.
DESIGN = ((300, 100, 40), (600, 40, 40))


def small_table(seed, rows, planted):
    """One data set and the mask of its plant (``group == 'p'``)."""
    rng = np.random.default_rng([56, rows, seed])
    share = rng.uniform(0.10, 0.15)
    frame = pd.DataFrame({
        "risk": rng.uniform(-2.5, 2.5, rows).round(2), "dose": rng.normal(size=rows).round(2),
        "noise": rng.normal(size=rows).round(2),
        "group": rng.choice(list("pabcd"), rows, p=[share, *[(1 - share) / 4] * 4]),
        "site": rng.choice(list("xyz"), rows), "flag": rng.choice(["u", "v"], rows),
    })  # fmt: skip
    truth = expit(1.3 * frame["risk"] + 0.7 * frame["dose"] - 0.4).to_numpy()
    frame["y"] = (rng.random(rows) < truth).astype(int)
    if rng.random() < 0.5:
        scores = expit(rng.uniform(0.6, 1.6) * logit(truth) + rng.uniform(-0.6, 0.6))
    else:
        scores = truth ** rng.uniform(0.6, 1.6)
    plant = (frame["group"] == "p").to_numpy()
    if planted:
        scores[plant] = rng.permutation(scores[plant])
    frame["score"] = scores
    return frame, plant


def reference(frame, plant, seed):
    """The studentised whole-search max-T of every cover of the family: (does a
    significant cover name the plant, is any significant, the family's size)."""
    from subroc_ext.inference.promise_family import promise_family, promise_family_test
    from subroc_ext.inputs.probabilities import fit_probabilities
    from subroc_ext.inputs.sorted_data import SortedDataset

    data = SortedDataset(frame, "y", "score", 1)
    p = np.maximum.accumulate(fit_probabilities(data.scores, data.is_positive, "auto")(data.scores))
    space = subroc_ext.make_search_space(frame, ignore=["y", "score"])
    family = promise_family([data.selector_mask(s) for s in space], data.group_ids, p, depth=2, min_support=20)
    masks = np.zeros((len(family), len(frame)), dtype=bool)
    for i in range(len(family)):
        masks[i, family.rows[family.starts[i]:family.starts[i + 1]]] = True
    # single-step max-T: the significant covers are the top of the ranking by statistic; test the first 30
    statistics = promise_family_test(masks, family, data.is_positive, data.group_ids, p, max_draws=0)["statistic"]
    top = masks[np.argsort(-statistics.fillna(-np.inf).to_numpy(), kind="stable")[:30]]
    tested = promise_family_test(top, family, data.is_positive, data.group_ids, p, max_draws=1000,
                                 random_state=seed)  # fmt: skip
    plant_sorted = plant[data.order]
    named = False
    for mask in top[tested["significant"].to_numpy()]:
        inside = (mask & plant_sorted).sum()
        named |= bool(inside >= 0.5 * mask.sum() and inside >= 0.5 * plant_sorted.sum())
    return named, bool(tested["significant"].any()), len(family)


def run_one(job):
    """One data set, ``(seed, rows, planted, headline_only)``: its CSV row."""
    seed, rows, planted, headline_only = job
    frame, plant = small_table(seed, rows, planted)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = subroc_ext.find_subgroups(frame, label="y", score="score", validation=None, progress=False,
                                          random_state=seed)  # fmt: skip
    seconds = time.perf_counter() - start
    failures = np.flatnonzero(table["failure"].fillna(False).to_numpy(dtype=bool))
    row = {"seed": seed, "rows": rows, "planted": planted, "plant_rows": int(plant.sum()),
           "failures": len(failures), "headline_names_plant": planted and names_the_plant(table, frame, failures, plant),
           "headline": "; ".join(table["description"].iloc[failures]), "seconds": round(seconds, 2)}  # fmt: skip
    if not headline_only:
        named, alarm, family = reference(frame, plant, seed)
        row.update(reference_names_plant=planted and named, reference_alarm=alarm, family=family)
    return row


def interval(successes, trials):
    """The Clopper-Pearson 95 % interval of a binomial proportion."""
    low = beta.ppf(0.025, successes, trials - successes + 1) if successes else 0.0
    high = beta.ppf(0.975, successes + 1, trials - successes) if successes < trials else 1.0
    return f"{successes}/{trials} = {successes / trials:.2f} [{low:.2f}, {high:.2f}]"


def summary(before, after):
    """The table of RESULTS: recall and null alarms of the headline before and after, and of the reference."""
    merged = after.merge(before[["seed", "rows", "planted", "headline_names_plant", "failures", "seconds"]],
                         on=["seed", "rows", "planted"], suffixes=("", "_before"))  # fmt: skip
    lines = ["| rows | data sets | headline before | headline after | reference max-T | McNemar after vs before "
             "| after vs reference | s per data set before / after |", "|---|---|---|---|---|---|---|---|"]
    for (rows, planted), part in merged.groupby(["rows", "planted"]):
        if planted:
            old, new, ref = (part[c].astype(bool) for c in ("headline_names_plant_before", "headline_names_plant",
                                                               "reference_names_plant"))  # fmt: skip
        else:
            old, new, ref = part["failures_before"] > 0, part["failures"] > 0, part["reference_alarm"].astype(bool)
        tests = [binomtest(int((a & ~b).sum()), int((a ^ b).sum())).pvalue if (a ^ b).any() else 1.0
                 for a, b in ((new, old), (new, ref))]  # fmt: skip
        kind = "planted: named" if planted else "null: an alarm"
        lines.append(f"| {rows} | {len(part)} {kind} | {interval(int(old.sum()), len(part))} | "
                     f"{interval(int(new.sum()), len(part))} | {interval(int(ref.sum()), len(part))} | "
                     f"p {tests[0]:.2g} | p {tests[1]:.2g} | {part['seconds_before'].mean():.1f} / "
                     f"{part['seconds'].mean():.1f} |")  # fmt: skip
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--headline-only", action="store_true", help="skip the reference max-T")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0, help="a share of the design's data sets")
    parser.add_argument("--nulls", type=int, metavar="N",
                        help="instead: N null data sets of each size, the headline only (its false alarms)")
    parser.add_argument("--out", type=Path, default=HERE / "sim_small_no_holdout.csv")
    parser.add_argument("--summary", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(*(pd.read_csv(path) for path in args.summary)))
        return
    counts = {(rows, planted): max(1, round(count * args.scale)) for rows, n_planted, n_null in DESIGN
              for planted, count in ((True, n_planted), (False, n_null))}  # fmt: skip
    if args.nulls:
        counts = {(rows, False): args.nulls for rows, _, _ in DESIGN}
        args.headline_only = True
    # every kind of data set in turn: a run cut short keeps a share of each
    jobs = [(seed, rows, planted, args.headline_only) for seed in range(max(counts.values()))
            for (rows, planted), count in counts.items() if seed < count]  # fmt: skip
    args.out.unlink(missing_ok=True)
    for row in mapped(run_one, jobs, args.jobs):  # each row on disk as it comes
        pd.DataFrame([row]).to_csv(args.out, mode="a", header=not args.out.exists(), index=False)
    print(f"per data set: {args.out}")


if __name__ == "__main__":
    main()
