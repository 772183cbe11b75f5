"""How strong a halved promised risk is on held-out rows: the z of the Brier plant for rules 1 and 2 (issue 55).

The planted Brier data of :mod:`sim_promise` (2,000 rows, a value of
``c1`` holding 10-15 % of them with its promised risk halved), split in two
random halves. On the held-out half:

* rule 1, the table's test: the plant's mean Brier score minus the half's,
  over its standard deviation under random subsets of the same size;
* rule 2, the promise's label-draw test: the plant's Brier minus its
  promise (labels drawn from ``p``, scores fixed), ``sum (y - s)^2 - sum
  [p (1 - s)^2 + (1 - p) s^2]``, over its standard deviation
  ``sqrt(sum p (1 - p) (1 - 2 s)^2)``, with ``p`` a sigmoid of the logit
  of the scores fitted on the other half (as ``calibrate='auto'`` does):
  with the plant's rows in the fit, or (``--without-plant``) without them.

Examples
--------
The runs of benchmarks/RESULTS.md::

    python benchmarks/sim_promise_power.py
    python benchmarks/sim_promise_power.py --without-plant
"""

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sim_promise import make_data  # noqa: E402


def plant_z(seed, without_plant):
    """The rule-1 and rule-2 z of one data set's plant on its held-out half."""
    frame, plant = make_data(seed, 2000, True, "brier")
    held_out = np.random.default_rng(seed).random(2000) < 0.5
    y, s = frame["y"].to_numpy(float), frame["score"].to_numpy()
    logit = np.log(s / (1 - s))[:, None]
    fitted = ~held_out & ~plant if without_plant else ~held_out
    p = LogisticRegression(C=1e6).fit(logit[fitted], y[fitted]).predict_proba(logit[held_out])[:, 1]
    y, s, plant = y[held_out], s[held_out], plant[held_out]
    brier = (y - s) ** 2
    n, total = plant.sum(), len(brier)
    rule_1 = (brier[plant].mean() - brier.mean()) / (brier.std() / np.sqrt(n) * np.sqrt(1 - n / total))
    shortfall = brier - (p * (1 - s) ** 2 + (1 - p) * s**2)
    rule_2 = shortfall[plant].sum() / np.sqrt((p * (1 - p) * (1 - 2 * s) ** 2)[plant].sum())
    return rule_1, rule_2


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--without-plant", action="store_true", help="fit the map without the plant's rows")
    args = parser.parse_args(argv)
    z = np.array([plant_z(seed, args.without_plant) for seed in range(args.tables)])
    for name, values in zip(("rule 1 (Brier vs the whole half)", "rule 2 (Brier vs its promise)"), z.T):
        print(f"{name}: median z {np.median(values):.2f}, share > 3.0 {np.mean(values > 3):.2f}, "
              f"> 3.5 {np.mean(values > 3.5):.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
