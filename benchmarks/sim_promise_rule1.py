"""Rule 2's family fixed on the search split, and rule 1 answered by rule 2's test, on the held-out rows (issue 55).

The default headline names a row only where the table's test (its measure
against random subsets of the held-out rows, Benjamini-Yekutieli over the
whole table) finds it worse than the whole data (rule 1), and then tests
its promise (rule 2) on the rows that passed. Without a holdout a row can
pass rule 1 *by its promise*: its label-draw test, with a statistic that
is its distance beyond both its promise and the whole data's value, says
both at once (``promise_family``). This script measures that route on the
held-out rows, composed from the package's steps, beside two more ways
to judge the same table:

* ``default``: the table of ``find_subgroups`` (defaults but the measure),
  rule 2 corrected over the rows rule 1 chose (on the held-out labels that
  rule 2 tests too);
* ``table``: rule 2 corrected over every row of the table, the rows rule 1
  did not choose with p-value 1 (``FailureRules(promise_family='table')``):
  a family fixed before any held-out label is read, so where the scores
  keep their promise everywhere the headline names a failure with
  probability at most ``alpha``;
* ``by_promise``: every row with at least 10 held-out positives and negatives and an
  interval (rule 4's evidence) is tested for its promise, read through the
  map fitted on the search split without its rows
  (``workflow.case_mix.own_maps``); a row the table's test found
  significant falls short of its promise beyond the whole data's shortfall,
  any other also beyond the whole data's value (``Promise.test(...,
  beyond_whole=...)``); one Benjamini-Yekutieli correction over every row
  of the table (as ``table``), weighted by each row's shortfall on the
  search split (``failures.promise_weights``); the walk of rule 4 as the
  headline's (``judge_failures`` given these tests as its
  ``whole_search_promise``).

One CSV row per data set: per way, its failures and whether it names the
plant (``failures_<way>``, ``named_<way>``, ``headline_<way>``).

Examples
--------
The run of benchmarks/RESULTS.md::

    python benchmarks/sim_promise_rule1.py --null 50 --planted 50 --jobs 2 --out benchmarks/sim_promise_rule1.csv
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pysubgroup as ps

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import subroc_ext  # noqa: E402
from sim_headline import names_the_plant  # noqa: E402
from sim_promise import _share, data_set_jobs, make_data, run_jobs  # noqa: E402
from subroc_ext.inference.failures import (  # noqa: E402
    FAILURE_COLUMNS, FailureRules, dataset_rows, judge_failures, promise_weights)
from subroc_ext.inference.promise import Promise  # noqa: E402
from subroc_ext.inputs.sorted_data import SortedDataset  # noqa: E402
from subroc_ext.inputs.validated import split_validation  # noqa: E402
from subroc_ext.inputs.probabilities import fit_probabilities  # noqa: E402
from subroc_ext.workflow.case_mix import own_maps, search_shortfall, split_probabilities  # noqa: E402
from subroc_ext.workflow.settings import measure_of  # noqa: E402


#: The ways of judging a table (module documentation).
WAYS = ["default", "table", "by_promise"]


def judged(table, frame, measure_name, seed, way, alpha=0.05):
    """The headline's columns of the table judged the ``way`` named ('table' or
    'by_promise'; module documentation)."""
    measure = measure_of(measure_name)
    search, held = (SortedDataset(part, "y", "score", 1) for part in split_validation(frame, 0.5, seed))
    own = own_maps(search, "auto", fit_probabilities(search.scores, search.is_positive))
    rows = dataset_rows(held, measure, "worse", probabilities=split_probabilities(held, own(ps.Conjunction([]))),
                        own_maps=own)  # fmt: skip
    subgroups = list(table["subgroup"])
    masks = [np.asarray(rows.cover(sg), dtype=bool) for sg in subgroups]
    counts = np.array([rows.kinds.to_numpy()[mask].sum(axis=0).min() for mask in masks])
    tested = np.flatnonzero((counts >= 10) & table["delta_ci_low"].notna().to_numpy())
    significant = table["significant"].fillna(False).to_numpy(dtype=bool)
    rules = FailureRules(alpha=alpha, random_state=seed, promise_family="table")
    if way == "table":
        return judge_failures(table.drop(columns=FAILURE_COLUMNS), subgroups, rows, "worse", rules=rules,
                              search_shortfall=search_shortfall(table, table.attrs["dataset_values"], measure))
    whole = pd.DataFrame({"p_value": 1.0, "significant": False}, index=table.index)
    if len(tested):
        promise = Promise(measure, *rows.promise, seed=seed)
        readings = [promise.reading(rows.own_maps(subgroups[i])) for i in tested]
        shortfall = search_shortfall(table, table.attrs["dataset_values"], measure)
        result = promise.test([masks[i] for i in tested], alpha=alpha, readings=readings,
                              beyond_whole=~significant[tested], untested=len(table) - len(tested),
                              weights=None if shortfall is None else promise_weights(shortfall)[tested])  # fmt: skip
        whole.iloc[tested, 0] = result["p_value_corrected"].to_numpy()
        whole.iloc[tested, 1] = result["significant"].to_numpy()
        whole["significant"] = whole["significant"].astype(bool)
    return judge_failures(table.drop(columns=FAILURE_COLUMNS), subgroups, rows, "worse",
                          whole_search_promise=whole, rules=rules)  # fmt: skip


def run_one(job):
    measure, seed, planted = job
    frame, plant = make_data(seed, 2000, planted, measure)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = subroc_ext.find_subgroups(frame, label="y", score="score", measure=measure, progress=False,
                                          random_state=seed)  # fmt: skip
        verdicts = {"default": table["failure"], **{way: judged(table, frame, measure, seed, way)["failure"]
                                                    for way in WAYS[1:]}}  # fmt: skip
    out = {"measure": measure, "seed": seed, "planted": planted}
    for way, failure in verdicts.items():
        failures = np.flatnonzero(failure.fillna(False).to_numpy(dtype=bool))
        out[f"failures_{way}"] = len(failures)
        out[f"named_{way}"] = bool(planted and names_the_plant(table, frame, failures, plant))
        out[f"headline_{way}"] = "; ".join(table["description"].iloc[failures])
    out["named_by_promise_only"] = int((verdicts["by_promise"] & ~table["significant"].fillna(False)).sum())
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--null", type=int, default=50)
    parser.add_argument("--planted", type=int, default=50)
    parser.add_argument("--measures", default="brier,log_loss")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    frame = run_jobs(run_one, data_set_jobs(args.measures, args.null, args.planted), args.jobs)
    frame.to_csv(args.out, index=False)
    for measure, rows in frame.groupby("measure", sort=False):
        null, planted = rows[~rows["planted"]], rows[rows["planted"]]
        for way in WAYS:
            print(f"{measure}, {way}: null {_share((null[f'failures_{way}'] > 0).sum(), len(null))}; "
                  f"planted named {_share(planted[f'named_{way}'].sum(), len(planted))}")
    print(f"per data set: {args.out}")


if __name__ == "__main__":
    main()
