"""How much evidence one held-out half holds of a halved promised risk: the plant's z for rules 1 and 2 (issue 55).

The planted data of :mod:`sim_promise` (2,000 rows, a value of ``c1``
holding 10-15 % of them with its promised risk halved), split as
``find_subgroups`` splits it (``split_validation(frame, 0.5, seed)``). On
the held-out half, for the plant's own cover ``c1 == 'v0'`` (the mean
``L`` of the per-row loss, Brier or log loss; ``e`` its promise,
``sigma`` its standard deviation under labels drawn from ``p``):

* ``table``: rule 1, the table's test: ``L(S) - L(V)`` over its standard
  deviation under random subsets of the half with ``S``'s class counts;
* ``labels_drawn``: rule 1 with the noise of a test that holds the rows
  fixed and draws their labels (as rule 2's test does), known exactly:
  ``L(S) - L(V)`` over the standard deviation of ``L(S)`` under the true
  probabilities (unknown to any method). It carries the labels' variance,
  which the table's test, holding the class counts, does not: a per-row
  residual test of rule 1 is no more powerful than the table's;
* ``promise_all``, ``promise_own``: rule 2, ``(L(S) - e(S) - max(c, 0)) /
  sigma(S)`` (``c`` the whole half's shortfall), ``p`` the map of
  ``calibrate='auto'`` fitted on the search split, with the plant's rows or
  without them (``maps_without``, 'auto' decided on all rows as the
  headline decides);
* ``beyond_whole``: rule 1 answered by rule 2's test,
  ``(L(S) - max(e(S) + max(c, 0), L(V))) / sigma(S)``, ``p`` the map
  without the plant.

A test that names the plant in 80 % of the tables must pass it at the
20 % quantile of its z: the summary gives, per statistic, its median, its
20 % quantile and the share above 2.5, 3.0 and 3.7 (a lone finding among
100 rows after Benjamini-Yekutieli).

Examples
--------
The runs of benchmarks/RESULTS.md::

    python benchmarks/sim_promise_ceiling.py --measure brier --out benchmarks/sim_promise_ceiling_brier.csv
    python benchmarks/sim_promise_ceiling.py --measure log_loss --out benchmarks/sim_promise_ceiling_log_loss.csv
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from sim_promise import make_data  # noqa: E402
from subroc_ext.inference.whole_calibration import whole_calibration  # noqa: E402
from subroc_ext.inputs.probabilities import fit_probabilities, maps_without  # noqa: E402
from subroc_ext.inputs.validated import split_validation  # noqa: E402

#: The statistics of the summary, in its order.
STATISTICS = ["table", "labels_drawn", "promise_all", "promise_own", "beyond_whole"]


def class_values(scores, measure):
    """Each row's loss were it positive and were it negative."""
    s = np.clip(scores, 1e-15, 1 - 1e-15)
    return ((1 - s) ** 2, s**2) if measure == "brier" else (-np.log(s), -np.log1p(-s))


def truth_of(seed, rows=2000):
    """The true probabilities of :func:`sim_promise.make_data`'s labels."""
    x = np.random.default_rng([55, seed]).normal(size=(rows, 3))
    return 1 / (1 + np.exp(-(1.8 * x[:, 0] + 0.6 * x[:, 1] + 0.4 * x[:, 2] - 0.3)))


def plant_z(seed, measure):
    """The plant's z of each of :data:`STATISTICS` on its table's held-out half."""
    frame, plant = make_data(seed, 2000, True, measure)
    frame["_truth"], frame["_plant"] = truth_of(seed), plant
    search, held = split_validation(frame, 0.5, seed)
    ys, ss, in_search = search["y"].to_numpy() == 1, search["score"].to_numpy(), search["_plant"].to_numpy()
    y, s, S, q = held["y"].to_numpy() == 1, held["score"].to_numpy(), held["_plant"].to_numpy(), held["_truth"].to_numpy()
    positive, negative = class_values(s, measure)
    loss, step = np.where(y, positive, negative), positive - negative
    n = S.sum()
    variance = sum((S & (y == c)).sum() * (1 - (S & (y == c)).sum() / (y == c).sum()) * loss[y == c].var()
                   for c in (True, False))  # fmt: skip
    out = {"seed": seed, "measure": measure, "rows": int(n)}
    out["table"] = (loss[S].mean() - loss.mean()) / (np.sqrt(variance) / n)
    out["labels_drawn"] = (loss[S].mean() - loss.mean()) / (np.sqrt((q * (1 - q) * step**2)[S].sum()) / n)
    as_given = fit_probabilities(ss, ys).method == "none" and whole_calibration(ys, ss).calibrated
    every = fit_probabilities(ss, ys) if as_given else maps_without(ss, ys, as_given=False)(np.zeros(len(ss), bool))
    for name, fitted in (("all", every), ("own", maps_without(ss, ys, as_given=as_given)(in_search))):
        p = fitted(s)
        promised = p * positive + (1 - p) * negative
        c = max(loss.mean() - (every(s) * positive + (1 - every(s)) * negative).mean(), 0.0)
        sigma = np.sqrt((p * (1 - p) * step**2)[S].sum()) / n
        out[f"promise_{name}"] = (loss[S].mean() - promised[S].mean() - c) / sigma
        if name == "own":
            out["beyond_whole"] = (loss[S].mean() - max(promised[S].mean() + c, loss.mean())) / sigma
    return out


def summary(frame):
    lines = []
    for name in STATISTICS:
        z = frame[name]
        lines.append(f"| {name} | {z.median():.2f} | {z.quantile(0.2):.2f} | {np.mean(z > 2.5):.2f} | "
                     f"{np.mean(z > 3.0):.2f} | {np.mean(z > 3.7):.2f} |")  # fmt: skip
    return "\n".join(["| z | median | 20 % quantile | > 2.5 | > 3.0 | > 3.7 |", "|---|---|---|---|---|---|", *lines])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--measure", choices=["brier", "log_loss"], default="brier")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    frame = pd.DataFrame([plant_z(seed, args.measure) for seed in range(args.tables)])
    if args.out:
        frame.to_csv(args.out, index=False)
    print(summary(frame))


if __name__ == "__main__":
    main()
