"""Time model comparison and drift search against single-model search.

On one dataset (Adult, bundled; or Census-Income KDD once it is downloaded)
two gradient-boosting models score the search split
(:func:`subroc_ext.demo.comparison.two_models`: every column vs without
``--dropped``). For each depth, ``subroc_ext.workflow.steps.search`` with
FastSearch runs (ROC AUC, α = β = 1, generalization aware, top 100, min
support 20, ``ps.create_selectors(nbins=5)``):

* ``single``: one model (``new``) on the search split;
* ``paired``: :class:`~subroc_ext.ComparisonQF`, new vs baseline, same rows;
* ``single (2n rows)`` and ``unpaired``: the search and validation splits
  stacked as a reference and a current period (scored by ``baseline`` and
  ``new``), once as one model on all rows and once as a drift search.

It prints CPU and wall seconds (best of ``--repeat``), candidates evaluated,
and the ratio to the single-model search on the same rows.

    python benchmarks/bench_comparison.py --dataset adult --depths 3 4
"""

import argparse
import time

import pandas as pd
import pysubgroup as ps

from subroc_ext import ComparisonQF, ComparisonTarget, DriftTarget, SoftClassifierTarget
from subroc_ext.workflow import steps
from subroc_ext.demo.comparison import two_models
from subroc_ext.demo.datasets import load
from subroc_ext.objective.generalization import GeneralizationAwareQF
from subroc_ext.scoring.measures import ROCAUC
from subroc_ext.workflow.pipeline import make_quality_function

DROPPED = {"adult": ["relationship", "marital_status"], "census_kdd": ["marital_stat", "sex"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(DROPPED), default="adult")
    parser.add_argument("--depths", nargs="+", type=int, default=[3, 4])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--rows", type=int, help="use only this many rows of the dataset")
    args = parser.parse_args(argv)
    frame, label, positive = load(args.dataset)
    if "instance_weight" in frame.columns:
        frame = frame.drop(columns="instance_weight")
    if args.rows:
        frame = frame.sample(args.rows, random_state=0)
    start = time.process_time()
    search, validation = (f.reset_index(drop=True) for f in two_models(frame, label, positive, DROPPED[args.dataset]))
    print(f"models: {time.process_time() - start:.1f} s CPU; search split {len(search):,} rows")
    stacked = pd.concat([search.assign(score=search["baseline"], period="reference"),
                         validation.assign(score=validation["new"], period="current")],
                        ignore_index=True)  # fmt: skip
    ignore = [label, "baseline", "new", "score", "period"]
    selectors = ps.create_selectors(search.drop(columns=ignore[1:3]), nbins=5, ignore=[label])

    def full(qf):
        return GeneralizationAwareQF(qf)

    cases = {
        "single": (search, full(make_quality_function("roc_auc", label, positive_label=positive,
                                                      size_weight=1, balance_weight=1)),
                   SoftClassifierTarget(label, "new")),
        "paired": (search, full(ComparisonQF(ROCAUC(), label, positive_label=positive,
                                             size_weight=1, balance_weight=1)),
                   ComparisonTarget(label, "new", "baseline")),
        "single (2n rows)": (stacked, full(make_quality_function(
            "roc_auc", label, positive_label=positive, size_weight=1, balance_weight=1)),
            SoftClassifierTarget(label, "score")),
        "unpaired": (stacked, full(ComparisonQF(ROCAUC(), label, positive_label=positive,
                                                size_weight=1, balance_weight=1)),
                     DriftTarget(label, "score", "period", current="current")),
    }  # fmt: skip
    rows = []
    for depth in args.depths:
        for name, (data, qf, target) in cases.items():
            runs = [
                steps.search(data, qf, target, selectors=selectors, depth=depth, min_support=20,
                             result_set_size=100)
                for _ in range(args.repeat)
            ]  # fmt: skip
            best = min(runs, key=lambda run: run.cpu_seconds)
            rows.append({"depth": depth, "search": name, "rows": len(data),
                         "CPU s": round(best.cpu_seconds, 2), "wall s": round(best.seconds, 2),
                         "candidates": best.candidates})  # fmt: skip
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    single = {(r["depth"], r["rows"]): r["CPU s"] for r in rows if r["search"].startswith("single")}
    table["vs single"] = [round(r["CPU s"] / single[(r["depth"], r["rows"])], 2) for r in rows]
    print(f"\n{args.dataset}: {len(selectors)} selectors\n")
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
