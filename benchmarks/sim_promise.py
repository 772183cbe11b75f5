"""Every measure keeps its promise: the headline on null and planted data, per measure (issue 55).

The data (the issue's generator): risk from one strong numeric attribute
``x1`` and two weaker ones (``x2``, ``x3``), three to six categorical
attributes ``c1``, ``c2``, ... unrelated to it, labels drawn from the risk,
and scores that are the true probabilities or a monotone distortion of them
(``sigmoid(a * logit(p) + b)``, ``a`` in [0.7, 1.5], ``b`` in [-0.5, 0.5]:
the same ranking, another calibration). On such data no subgroup is a
failure of the model, so a headline naming one is a false alarm.

Planted: one value of ``c1`` holding 10-15 % of the rows is the failure.
For the ranking measures (ROC AUC, PR AUC, ARL, attribution mean) its
scores are shuffled among its rows; for Brier and log loss the promised
risk is halved there (the scores before the distortion). A data set
*names the plant* when a headline failure has at least half of its rows in
the plant and covers at least half of it.

``find_subgroups`` runs with its defaults (holdout 50 %, depth 2) but the
measure; ``--no-holdout`` with ``validation=None``. One CSV row per data
set; one summary line per measure and kind with a Clopper-Pearson 95 %
interval.

Examples
--------
The recorded runs (benchmarks/RESULTS.md)::

    python benchmarks/sim_promise.py --null 100 --planted 100 --jobs 2
    python benchmarks/sim_promise.py --null 100 --planted 0 --rows 500 --no-holdout --jobs 2
    python benchmarks/sim_promise.py --null 20 --planted 0 --measures arl --mode better

Each summary line also counts the rows whose effect interval lies beyond 0
while the test does not find them significant (one verdict per row: 0
expected).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import subroc_ext  # noqa: E402
from job_pool import mapped  # noqa: E402
from sim_headline import names_the_plant  # noqa: E402  (the same rule as the headline's simulation)

#: Every measure the issue names, and which of them plant a halved risk instead of shuffled scores.
MEASURES = ["roc_auc", "pr_auc", "arl", "attribution_mean", "brier", "log_loss"]
CALIBRATION = {"brier", "log_loss"}


def make_data(seed, rows, planted, measure):
    """One data set: ``(frame, plant mask)``."""
    rng = np.random.default_rng([55, seed])
    x = rng.normal(size=(rows, 3))
    logit = 1.8 * x[:, 0] + 0.6 * x[:, 1] + 0.4 * x[:, 2] - 0.3
    p = 1 / (1 + np.exp(-logit))
    frame = pd.DataFrame({"x1": x[:, 0].round(3), "x2": x[:, 1].round(3), "x3": x[:, 2].round(3)})
    share = rng.uniform(0.10, 0.15)
    frame["c1"] = np.where(rng.random(rows) < share, "v0", rng.choice(["v1", "v2", "v3"], rows))
    for j in range(2, 2 + int(rng.integers(2, 6))):
        frame[f"c{j}"] = rng.choice([f"u{k}" for k in range(int(rng.integers(2, 6)))], rows)
    frame["y"] = (rng.random(rows) < p).astype(int)
    plant = (frame["c1"] == "v0").to_numpy()
    scores = p.copy()
    if planted and measure in CALIBRATION:
        scores[plant] = scores[plant] / 2
    elif planted:
        scores[plant] = rng.permutation(scores[plant])
    a, b = rng.uniform(0.7, 1.5), rng.uniform(-0.5, 0.5)
    clipped = np.clip(scores, 1e-9, 1 - 1e-9)
    frame["score"] = 1 / (1 + np.exp(-(a * np.log(clipped / (1 - clipped)) + b)))
    return frame, plant


def run_one(job):
    """One data set, ``(measure, seed, planted, rows, holdout[, mode])``: its CSV row (a dict)."""
    measure, seed, planted, rows, holdout, mode = (*job, "worse")[:6]
    frame, plant = make_data(seed, rows, planted, measure)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # low-power notes: the counts say what matters here
        table = subroc_ext.find_subgroups(frame, label="y", score="score", measure=measure, progress=False,
                                          random_state=seed, validation=0.5 if holdout else None, mode=mode)  # fmt: skip
    failures = np.flatnonzero(table["failure"].fillna(False).to_numpy(dtype=bool)) if "failure" in table else []
    significant = table["significant"].fillna(False).to_numpy(dtype=bool) if len(table) else np.zeros(0, bool)
    # one verdict per row: an interval beyond 0 on a row the test does not find significant contradicts it
    beyond = ((table["delta_ci_low"] > 0) | (table["delta_ci_high"] < 0)).to_numpy(dtype=bool) \
        if "delta_ci_low" in table else np.zeros(len(table), bool)  # fmt: skip
    return {
        "measure": measure, "mode": mode, "seed": seed, "planted": planted, "rows": rows, "holdout": holdout,
        "tested": len(table), "interval_without_test": int((beyond & ~significant).sum()),
        "significant": int(significant.sum()), "failures": len(failures),
        "names_plant": bool(planted and names_the_plant(table, frame, failures, plant)),
        "headline": "; ".join(table["description"].iloc[failures]) if len(failures) else "",
        "cpu_seconds": round(time.process_time() - start, 2),
    }  # fmt: skip


def data_set_jobs(measures, null, planted, *settings, first_seed=0):
    """``(measure, seed, planted, *settings)`` of each data set: ``null`` null
    and ``planted`` planted ones per measure (``measures``: comma-separated)."""
    return [(measure, seed, is_planted, *settings) for measure in measures.split(",")
            for is_planted, count in ((False, null), (True, planted))
            for seed in range(first_seed, first_seed + count)]  # fmt: skip


def run_jobs(run, jobs, processes):
    """A frame of ``run(job)`` for each of ``jobs``, on ``processes`` processes (1: here)."""
    return pd.DataFrame(list(mapped(run, jobs, processes)))


def _share(count, total):
    low, high = stats.binomtest(int(count), int(total)).proportion_ci(method="exact") if total else (np.nan, np.nan)
    return f"{count}/{total} = {count / max(total, 1):.1%} [{low:.1%}, {high:.1%}]"


def summary(frame):
    """One line per measure and kind of data set."""
    lines = []
    for measure, rows in frame.groupby("measure", sort=False):
        null, planted = rows[~rows["planted"]], rows[rows["planted"]]
        parts = [measure]
        if len(null):
            parts.append(f"null: a headline failure in {_share((null['failures'] > 0).sum(), len(null))}")
        if len(planted):
            other = int((planted["failures"] - planted["names_plant"]).clip(lower=0).sum())
            parts.append(f"planted: named in {_share(planted['names_plant'].sum(), len(planted))}, "
                         f"{other} other failures")  # fmt: skip
        parts.append(f"intervals beyond 0 on rows not significant: {rows['interval_without_test'].sum():,} of "
                     f"{rows['tested'].sum():,}")
        parts.append(f"{rows['cpu_seconds'].mean():.1f} CPU s per data set")
        lines.append("; ".join(parts))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--null", type=int, default=100, help="null data sets per measure")
    parser.add_argument("--planted", type=int, default=100, help="planted data sets per measure")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--no-holdout", action="store_true", help="validation=None")
    parser.add_argument("--measures", default=",".join(MEASURES))
    parser.add_argument("--mode", choices=["worse", "better", "both"], default="worse")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed, first-seed + 1, ...")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    holdout = not args.no_holdout
    jobs = data_set_jobs(args.measures, args.null, args.planted, args.rows, holdout, args.mode,
                         first_seed=args.first_seed)  # fmt: skip
    frame = run_jobs(run_one, jobs, args.jobs)
    out = args.out or HERE / f"sim_promise{'' if holdout else '_no_holdout'}.csv"
    frame.to_csv(out, index=False)
    print(summary(frame))
    print(f"per data set: {out}")


if __name__ == "__main__":
    main()
