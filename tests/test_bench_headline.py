"""Tests of the known truth (tests/known_truth.py) and of benchmarks/bench_headline.py.

The generator must plant what it says (a shuffled subgroup of the stated
share, labels from a risk of the stated strength, the null the same table
without the shuffle), the judge must count a finding inside the plant as
true and a slice of a risk column as false, and the script must run end to
end on two statsmodels tables (statsmodels is a dependency) and write its
columns.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from known_truth import COVERAGE, KINDS, PLANT_SHARE, headline_failures, judge, plant_failure, risk_like_columns
from test_benchmarks import load

import subroc_ext
from subroc_ext.inference.failures import MIN_CLASS_COUNT
from subroc_ext.metrics.expected_auc import expected_roc_auc

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_headline.py"


@pytest.fixture(scope="module")
def fair():
    from statsmodels.datasets import fair

    return fair.load_pandas().data


def test_plant_and_null_share_everything_but_the_shuffle(fair):
    planted = plant_failure(fair, 3, max_rows=2000)
    null = plant_failure(fair, 3, planted=False, max_rows=2000)
    data, mask = planted.data, planted.planted
    assert len(data) == 2000 and (mask == null.planted).all() and planted.plant == null.plant
    assert PLANT_SHARE[0] <= mask.mean() <= PLANT_SHARE[1]
    assert data.drop(columns="score").equals(null.data.drop(columns="score"))
    assert (data["score"][~mask] == null.data["score"][~mask]).all()
    assert (data["score"][mask] != null.data["score"][mask]).mean() > 0.5  # shuffled
    assert sorted(data["score"][mask]) == sorted(null.data["score"][mask])  # among its own rows
    assert 0.75 - 0.01 <= expected_roc_auc(planted.probability) <= 0.9 + 0.01
    assert set(planted.risk_columns) <= set(fair.columns) and len(planted.risk_columns) == 3
    assert 1 <= len(planted.plant_columns) <= 2 and all(column in planted.plant for column in planted.plant_columns)
    assert not set(planted.plant_columns) & set(risk_like_columns(fair, planted.risk_columns))


def test_confidence_keeps_the_ranking(fair):
    calibrated = plant_failure(fair, 4, planted=False, max_rows=500).data["score"]
    over = plant_failure(fair, 4, planted=False, max_rows=500, confidence=1.5).data["score"]
    assert (calibrated.rank() == over.rank()).all() and over.std() > calibrated.std()


def test_copies_of_risk_columns():
    frame = pd.DataFrame({"age": np.arange(50.0), "noise": np.tile([1.0, 5.0, 2.0, 9.0, 3.0], 10)})
    frame["agesq"] = frame["age"] ** 2
    assert risk_like_columns(frame, ["age"]) == ["age", "agesq"]


def test_judge_counts_findings_inside_the_plant(fair):
    truth = plant_failure(fair, 3, max_rows=2000)
    inside = truth.planted
    data = truth.data
    risk = truth.risk_columns[0]
    table = pd.DataFrame({
        "subgroup": [inside, ps.IntervalSelector(risk, data[risk].median(), np.inf)],
        "description": ["the plant", f"{risk} high"], "failure": [True, True],
    })  # fmt: skip
    findings, named = judge(table, truth)
    assert findings["kind"].tolist() == ["true", "risk"] and named
    assert findings["purity"].iloc[0] == 1 and findings["coverage"].iloc[0] == 1 >= COVERAGE
    null = plant_failure(fair, 3, planted=False, max_rows=2000)
    findings, named = judge(table, null)
    assert not findings["true"].any() and not named
    findings, named = judge(table.assign(failure=False), truth)  # a headline that names nothing
    assert findings.empty and list(findings.columns)[:2] == ["description", "share"] and not named


@pytest.mark.extended
def test_headline_failures_uses_the_failure_column_else_the_headline(fair):
    truth = plant_failure(fair, 3, planted=False, max_rows=600)
    table = subroc_ext.find_subgroups(truth.data, label="label", score="score", depth=1, progress=False)
    said = {finding.description for finding in subroc_ext.headline(table).findings}
    assert set(headline_failures(table)["description"]) == said
    flagged = table.assign(failure=False)
    flagged.loc[flagged.index[-1], "failure"] = True
    assert headline_failures(flagged)["description"].tolist() == [table["description"].iloc[-1]]


@pytest.mark.extended
def test_script_runs_on_statsmodels_tables(tmp_path, capsys):
    bench = load(SCRIPT)
    out = tmp_path / "rows.csv"
    status = bench.main([
        "--tables", "statsmodels:fair", "statsmodels:anes96", "--max-rows", "800",
        "--settings", "default", "case_mix", "--out", str(out),
    ])  # fmt: skip
    printed = capsys.readouterr().out
    assert status == 0
    rows = pd.read_csv(out)
    assert len(rows) == 2 * 2 * 2  # settings x tables x (planted, unplanted)
    assert set(rows["version"]) == {"planted", "unplanted"} and set(rows["setting"]) == {"default", "case_mix"}
    assert rows[list(KINDS)].sum(axis=1).eq(rows["headline"]).all()
    assert (rows.loc[rows["version"] == "unplanted", "true"] == 0).all()
    assert rows["plant_share"].between(*PLANT_SHARE).all() and rows["rows"].eq(800).all()
    half = rows[["plant_positives", "plant_negatives"]].min(axis=1) / 2  # validation=0.5: half of them tested
    assert rows["nameable"].eq(half >= MIN_CLASS_COUNT).all()
    assert (rows["roc_auc_plant"] < rows["roc_auc"]).groupby(rows["version"]).mean()["planted"] == 1
    assert len([line for line in printed.splitlines() if line.startswith("  ")]) == 8  # one per job, as it ends
    assert printed.splitlines()[8].split() == [
        "setting", "tables", "plants", "precision", "recall", "recall_nameable", "nameable", "recall_detectable",
        "detectable", "null_alarms", "findings_planted", "findings_null", "false_partial", "false_risk",
        "false_restricted", "false_other", "cpu_seconds",
    ]  # fmt: skip
    planted = rows[rows["version"] == "planted"]
    assert planted["plant_z"].notna().all() and rows.loc[rows["version"] == "unplanted", "plant_z"].isna().all()


def test_plant_z_is_the_plants_shortfall_in_standard_errors(fair):
    bench = load(SCRIPT)
    truth = plant_failure(fair, 3, max_rows=2000)
    y, scores, p, planted = (truth.data["label"].to_numpy().astype(bool), truth.data["score"].to_numpy(),
                             truth.probability, truth.planted)  # fmt: skip
    positives, negatives = y[planted].sum(), (~y[planted]).sum()
    whole = expected_roc_auc(p) - subroc_ext.roc_auc_score(y, scores)
    shortfall = expected_roc_auc(p[planted]) - subroc_ext.roc_auc_score(y[planted], scores[planted]) - whole
    expected = shortfall / np.sqrt((planted.sum() + 1) / (12 * positives * negatives))
    assert bench.plant_z(truth, 1.0) == pytest.approx(expected, rel=1e-12) and expected > 2
    half = np.sqrt((planted.sum() / 2 + 1) / (12 * positives / 2 * negatives / 2))
    assert bench.plant_z(truth, 0.5) == pytest.approx(shortfall / half, rel=1e-12)


def test_script_skips_a_missing_source(tmp_path, capsys):
    bench = load(SCRIPT)
    assert bench.main(["--tables", "statsmodels:no_such_table", "--out", str(tmp_path / "x.csv")]) == 1
    printed = capsys.readouterr().out
    assert "skipping statsmodels:no_such_table" in printed and "no table to run" in printed
