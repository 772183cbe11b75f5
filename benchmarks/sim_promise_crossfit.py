"""Both halves as held-out rows: two folds with their roles swapped, each at alpha / 2 (issue 55).

One random search/validation split tests each row on half of the rows. A
valid way to use the other half too: run the whole audit twice on the
same split, searching on one half and testing on the other, then the
other way round, each at the level ``alpha / 2``, and name the failures
either fold names. On data whose scores keep their promise everywhere each
fold names a failure with probability at most ``alpha / 2`` (as far as the
single-split headline is valid at its level), so the two together at most
``alpha`` (the union bound). The data are :mod:`sim_promise`'s; a data set
names the plant when either fold's headline does
(``sim_headline.names_the_plant``).

Examples
--------
The run of benchmarks/RESULTS.md::

    python benchmarks/sim_promise_crossfit.py --null 50 --planted 50 --jobs 2 --out benchmarks/sim_promise_crossfit.csv
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import subroc_ext  # noqa: E402
from sim_headline import names_the_plant  # noqa: E402
from sim_promise import _share, data_set_jobs, make_data, run_jobs  # noqa: E402
from subroc_ext.inputs.validated import split_validation  # noqa: E402


def run_one(job):
    """One data set, ``(measure, seed, planted, alpha)``: each fold's failures and whether it names the plant."""
    measure, seed, planted, alpha = job
    frame, plant = make_data(seed, 2000, planted, measure)
    first, second = split_validation(frame, 0.5, seed)
    out = {"measure": measure, "seed": seed, "planted": planted}
    for fold, (search, held_out) in enumerate(((first, second), (second, first))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = subroc_ext.find_subgroups(search, label="y", score="score", measure=measure, progress=False,
                                              random_state=seed, validation=held_out, alpha=alpha / 2)  # fmt: skip
        failures = np.flatnonzero(table["failure"].fillna(False).to_numpy(dtype=bool))
        out[f"failures_{fold}"] = len(failures)
        out[f"named_{fold}"] = bool(planted and names_the_plant(table, frame, failures, plant))
        out[f"headline_{fold}"] = "; ".join(table["description"].iloc[failures])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--null", type=int, default=50)
    parser.add_argument("--planted", type=int, default=50)
    parser.add_argument("--measures", default="brier,log_loss")
    parser.add_argument("--alpha", type=float, default=0.05, help="the level of both folds together")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    frame = run_jobs(run_one, data_set_jobs(args.measures, args.null, args.planted, args.alpha), args.jobs)
    frame.to_csv(args.out, index=False)
    for measure, rows in frame.groupby("measure", sort=False):
        null, planted = rows[~rows["planted"]], rows[rows["planted"]]
        either = planted["named_0"] | planted["named_1"]
        print(f"{measure}: null {_share(((null['failures_0'] + null['failures_1']) > 0).sum(), len(null))}; "
              f"planted named by either fold {_share(either.sum(), len(planted))} (fold 1 alone "
              f"{planted['named_0'].sum()}, fold 2 alone {planted['named_1'].sum()})")  # fmt: skip
    print(f"per data set: {args.out}")


if __name__ == "__main__":
    main()
