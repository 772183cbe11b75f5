"""Table 1: the basic SubROC setting vs the full framework.

For each dataset and measure (ROC AUC, PR AUC, ARL, and our extra, the AUC
attribution mean):

* basic (b): weights alpha = beta = 0, no generalization awareness, top-5,
  then the 5 are tested (randomization test on the validation split,
  Benjamini-Yekutieli over the 5);
* full (f): alpha = beta = 1, generalization aware, top-100 tested, the top-5
  significant ones reported.

Statistics of the reported patterns: mean cover size, mean NCR (negatives /
size) and mean pairwise IoU of the covers on the search split, mean
exceptionality (the raw relative quality q = measure difference to the whole
split; on the search and on the evaluation split), and the number of
significant patterns (b: of 5; f: reported / significant / found).

Outputs in ``--out``: ``table1.csv|md`` (ours), ``table1_vs_paper.md``,
``table1_datasets.csv|md`` (rows, NCR, model AUC per split), and per-pattern
tables ``table1_patterns_<dataset>.csv``.

    python -m experiments.table1 [--smoke] [--out DIR] [--datasets adult ...]
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from experiments import common, config, datasets


def summarize(outcome, setting, st):
    """One Table 1 cell group for a setting."""
    table = outcome["table"]
    rows = common.reported_rows(outcome, setting, st)
    reported = table.iloc[rows]
    n_found = len(table)
    n_significant = int(table["significant"].sum()) if n_found else 0
    if setting == "basic":
        significant = f"{n_significant}/{n_found}"
    else:
        significant = f"{len(rows)}/{n_significant}/{n_found}"
    return {
        "setting": setting,
        "mean_cover": reported["size"].mean() if len(rows) else np.nan,
        "mean_ncr": reported["ncr"].mean() if len(rows) else np.nan,
        "mean_iou": common.mean_pairwise_iou(outcome["covers"][rows]),
        "mean_exceptionality_search": reported["q_search"].mean() if len(rows) else np.nan,
        "mean_exceptionality_evaluation": reported["q_evaluation"].mean() if len(rows) else np.nan,
        "significant": significant,
        "search_s": outcome["search_seconds"],
        "test_s": outcome["test_seconds"],
        "candidates": outcome["candidates"],
        "depth": outcome["depth"],
        "n_samples": outcome["n_samples"],
    }


def ours_and_paper(ours, paper, digits=2):
    """``ours (paper)`` for a table cell; just ``ours`` where ``paper`` is None."""
    text = common._format(ours, digits) if not isinstance(ours, str) else ours
    if paper is None:
        return text
    if isinstance(paper, str):
        paper_text = paper
    elif isinstance(paper, int):
        paper_text = str(paper)
    else:
        paper_text = common._format(float(paper), digits)
    return f"{text} ({paper_text})"


def versus_paper(summary):
    """Wide table: ours (paper) per statistic, b and f side by side."""
    rows = []
    for (dataset, measure), group in summary.groupby(["dataset", "measure"], sort=False):
        b = group[group.setting == "basic"].iloc[0]
        f = group[group.setting == "full"].iloc[0]
        paper = config.PAPER_TABLE1.get((dataset, measure))

        def p(field, i, paper=paper):
            return None if paper is None else getattr(paper, field)[i]

        rows.append(
            {
                "dataset": dataset,
                "measure": config.MEASURE_NAMES[measure],
                "cover b": ours_and_paper(b.mean_cover, p("cover", 0)),
                "cover f": ours_and_paper(f.mean_cover, p("cover", 1)),
                "NCR b": ours_and_paper(b.mean_ncr, p("ncr", 0)),
                "NCR f": ours_and_paper(f.mean_ncr, p("ncr", 1)),
                "IoU b": ours_and_paper(b.mean_iou, p("iou", 0)),
                "IoU f": ours_and_paper(f.mean_iou, p("iou", 1)),
                "exc. b": ours_and_paper(b.mean_exceptionality_search, p("exceptionality", 0)),
                "exc. f": ours_and_paper(f.mean_exceptionality_search, p("exceptionality", 1)),
                "signif. b": ours_and_paper(b.significant, p("significant", 0)),
                "signif. f": ours_and_paper(f.significant, p("significant", 1)),
            }
        )
    return pd.DataFrame(rows)


def main(argv=None):
    args = common.parser(__doc__.splitlines()[0]).parse_args(argv)
    st = common.settings_from(args)
    summary, info = [], []
    for dataset in st["datasets"]:
        common.log(f"table1: preparing {dataset}")
        try:
            prepared = common.prepare(dataset, st)
        except datasets.DatasetUnavailable as error:
            common.log(f"table1: {dataset} not run: {error}")
            info.append({"dataset": dataset, "status": f"not run: {error}"})
            continue
        values = {split: common.dataset_values(prepared, getattr(prepared, split))
                  for split in ("search", "validation", "evaluation")}  # fmt: skip
        info.append(
            {
                "dataset": dataset, "rows": prepared.n_rows, "ncr": prepared.ncr,
                "search_rows": len(prepared.search), "selectors": len(prepared.selectors),
                "depth": prepared.depth(st), "n_samples": prepared.n_samples(st), "model": prepared.model, "status": "ok",
                "model_fit_s": prepared.model_seconds,
                **{f"{m}_{split}": values[split][m] for split in values for m in config.MEASURES},
            }
        )  # fmt: skip
        patterns = []
        for measure in config.MEASURES:
            for setting in ("basic", "full"):
                common.log(f"table1: {dataset} {measure} {setting}")
                outcome = common.run_setting(prepared, measure, setting, st, args.out)
                row = summarize(outcome, setting, st)
                summary.append({"dataset": dataset, "measure": measure, **row})
                common.log(
                    f"  search {outcome['search_seconds']:.1f}s, test {outcome['test_seconds']:.1f}s, "
                    f"significant {row['significant']}, mean cover {row['mean_cover']}"
                )
                patterns.append(outcome["table"].assign(measure=measure, setting=setting))
        pd.concat(patterns).to_csv(args.out / f"table1_patterns_{dataset}.csv", index=False)
    summary = pd.DataFrame(summary)
    common.write_table(summary, args.out, "table1", title="Table 1 (ours)")
    common.write_table(
        versus_paper(summary), args.out, "table1_vs_paper",
        title="Table 1: ours (paper); cover, NCR, IoU, exceptionality on the search split",
    )  # fmt: skip
    common.write_table(pd.DataFrame(info), args.out, "table1_datasets", digits=3, title="Datasets and model")
    common.log("table1: done")


if __name__ == "__main__":
    main()
