"""Supp. Table 5: the basic setting with significance filtering.

For each dataset and measure: weights alpha = beta = 0, no generalization
awareness, the top-100 patterns (``top_full``) tested on the validation split
(randomization test, Benjamini-Yekutieli over the 100), the top-5 significant
ones reported (``report``). Statistics of the reported patterns as in Table 1
(mean exceptionality on the search and evaluation splits, mean pairwise IoU,
mean cover, mean NCR, reported / significant / found), next to the paper's.

The runs share Table 1's cache in ``--out/cache``.

Outputs in ``--out``: ``table5.csv|md`` (ours) and ``table5_vs_paper.md``.

    python -m experiments.table5_basic_tested [--smoke] [--out DIR] [--datasets adult ...]
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd

from experiments import common, config, datasets
from experiments.table1 import ours_and_paper, summarize

SETTING = "basic_tested"


def versus_paper(summary):
    """Ours (paper) per statistic, one row per dataset and measure."""
    rows = []
    for _, ours in summary.iterrows():
        paper = ["-" if value is None else value  # the paper reports nothing there
                 for value in config.PAPER_TABLE5.get((ours.dataset, ours.measure), (None,) * 5)]  # fmt: skip
        rows.append(
            {
                "dataset": ours.dataset,
                "measure": config.MEASURE_NAMES[ours.measure],
                "exceptionality": ours_and_paper(ours.mean_exceptionality_search, paper[0]),
                "IoU": ours_and_paper(ours.mean_iou, paper[1]),
                "cover": ours_and_paper(ours.mean_cover, paper[2], digits=1),
                "NCR": ours_and_paper(ours.mean_ncr, paper[3]),
                "reported/significant/found": ours_and_paper(ours.significant, paper[4]),
                "exceptionality (evaluation)": common._format(ours.mean_exceptionality_evaluation, 2),
            }
        )
    return pd.DataFrame(rows)


def main(argv=None):
    args = common.parser(__doc__.splitlines()[0]).parse_args(argv)
    st = common.settings_from(args)
    summary = []
    for dataset in st["datasets"]:
        try:
            prepared = common.prepare(dataset, st)
        except datasets.DatasetUnavailable as error:
            common.log(f"table5: {dataset} not run: {error}")
            continue
        for measure in config.MEASURES:
            common.log(f"table5: {dataset} {measure}")
            outcome = common.run_setting(prepared, measure, SETTING, st, args.out)
            row = summarize(outcome, SETTING, st)
            summary.append({"dataset": dataset, "measure": measure, **row})
            common.log(
                f"  search {outcome['search_seconds']:.1f}s, test {outcome['test_seconds']:.1f}s, "
                f"reported/significant/found {row['significant']}"
            )
    summary = pd.DataFrame(summary)
    common.write_table(summary, args.out, "table5", title="Supp. Table 5 (ours)")
    common.write_table(
        versus_paper(summary), args.out, "table5_vs_paper",
        title="Supp. Table 5: ours (paper); basic weights, top-100 tested, top-5 significant reported",
    )  # fmt: skip
    common.log("table5: done")


if __name__ == "__main__":
    main()
