"""Smoke runs of every experiment script (``experiments/``), as subprocesses.

Each script runs with ``--smoke`` (a few hundred rows, depth 1-2, few
randomization samples, no Census: no network) into a temporary directory; the
test checks the exit status and the expected output files. Without xgboost
the scripts fall back to scikit-learn's HistGradientBoostingClassifier, so
these tests need only the test extra.
"""

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pandas as pd
import pysubgroup as ps
import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = {
    "table1": ["table1.csv", "table1.md", "table1_vs_paper.md", "table1_datasets.csv",
               "table1_patterns_adult.csv", "table1_patterns_german_credit.csv"],
    "table2_runtimes": ["table2_runtimes.csv", "table2_runtimes.md", "table2_speedups.md",
                        "table2_pysubgroup.csv", "table2_pysubgroup.md"],
    "figure2_injection": ["figure2_injection.png", "figure2_injection_roc_auc.png",
                          "figure2_patterns.csv", "figure2_summary.md", "figure2_injected.md"],
    "figure3_skew": ["figure3_skew.png", "figure3_skew.csv"],
    "case_study_adult": ["case_study_adult.md", "case_study_adult.csv"],
}  # fmt: skip


def run(module, out, *extra):
    env = dict(os.environ, MPLBACKEND="Agg")
    process = subprocess.run(
        [sys.executable, "-m", f"experiments.{module}", "--smoke", "--out", str(out), *extra],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert process.returncode == 0, f"{module} failed:\n{process.stdout[-3000:]}\n{process.stderr[-3000:]}"
    return process


#: pysubgroup 0.8 (Python >= 3.13) has no quality functions of its own to time.
PYSUBGROUP_HAS_QFS = hasattr(ps, "ROCAUCQF")
PYSUBGROUP_FILES = {"table2_pysubgroup.csv", "table2_pysubgroup.md"}


@pytest.mark.parametrize("module", sorted(EXPECTED))
def test_script_smoke(module, tmp_path):
    process = run(module, tmp_path)
    expected = EXPECTED[module]
    if module == "table2_runtimes" and not PYSUBGROUP_HAS_QFS:
        assert f"pysubgroup {version('pysubgroup')} has no ROCAUCQF" in process.stdout
        assert not any((tmp_path / name).exists() for name in PYSUBGROUP_FILES)
        expected = [name for name in expected if name not in PYSUBGROUP_FILES]
    for name in expected:
        path = tmp_path / name
        assert path.exists() and path.stat().st_size > 0, f"{module} did not write {name}"
    if module == "table1":
        table = pd.read_csv(tmp_path / "table1.csv")
        assert set(table["setting"]) == {"basic", "full"}
        assert set(table["measure"]) == {"roc_auc", "pr_auc", "arl", "attribution_mean"}
        assert "census_kdd" not in set(table["dataset"])  # smoke mode needs no network
        # the basic setting's patterns respect the smoke run's minimum support
        assert (table.loc[table.setting == "basic", "mean_cover"].dropna() >= 10).all()
    if module == "table2_runtimes":
        table = pd.read_csv(tmp_path / "table2_runtimes.csv")
        # pruning never changes the result and never evaluates more candidates
        assert table["same_result"].all()
        assert (table["on_candidates"] <= table["off_candidates"]).all()


def test_model_falls_back_without_xgboost(monkeypatch):
    sys.path.insert(0, str(ROOT))
    from experiments import common

    monkeypatch.setitem(sys.modules, "xgboost", None)  # import xgboost now raises ImportError
    assert common.model_kind("xgboost") == "hist_gradient_boosting"
    assert common.model_kind("gaussian_nb") == "gaussian_nb"


def test_run_all_smoke_only(tmp_path):
    """run_all runs the selected scripts and records their status."""
    run_all = subprocess.run(
        [sys.executable, "-m", "experiments.run_all", "--smoke", "--out", str(tmp_path),
         "--only", "figure3_skew"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run_all.returncode == 0, run_all.stdout + run_all.stderr
    summary = json.loads((tmp_path / "run_all.json").read_text())
    assert [s["script"] for s in summary["scripts"]] == ["figure3_skew"]
    assert summary["scripts"][0]["status"] == 0
    assert (tmp_path / "figure3_skew.png").exists()
