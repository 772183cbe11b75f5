"""Smoke runs of every experiment script (``experiments/``).

Each script runs with ``--smoke`` (a few hundred rows, depth 1-2, few
randomization samples, no Census: no network) with its default output
directory, which for a smoke run is a new temporary directory (here inside
pytest's ``tmp_path``, through ``TMPDIR`` and ``tempfile.tempdir``); the test
checks the exit status, the expected output files, and that no file of the
repository was created, changed or deleted. The scripts run in this process
(their ``main(argv)``: no interpreter start and no imports per script); the
``python -m experiments.<script>`` entry point is exercised by ``run_all``,
which starts each script as a subprocess. Without xgboost
the scripts fall back to scikit-learn's HistGradientBoostingClassifier, so
these tests need only the test extra.
"""

import importlib
import json
import os
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import pandas as pd
import pysubgroup as ps
import pytest

#: A longer check (real tables, scripts, a cluster): `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = {
    "table1": ["table1.csv", "table1.md", "table1_vs_paper.md", "table1_datasets.csv",
               "table1_patterns_adult.csv", "table1_patterns_german_credit.csv"],
    "table2_runtimes": ["table2_runtimes.csv", "table2_runtimes.md", "table2_speedups.md",
                        "table2_pysubgroup.csv", "table2_pysubgroup.md"],
    "figure2_injection": ["figure2_injection.png", "figure2_injection_roc_auc.png",
                          "figure2_patterns.csv", "figure2_summary.md", "figure2_injected.md",
                          "figure2_recovery.md"],
    "figure3_skew": ["figure3_skew.png", "figure3_skew.csv"],
    "case_study_adult": ["case_study_adult.md", "case_study_adult.csv"],
    "table5_basic_tested": ["table5.csv", "table5.md", "table5_vs_paper.md"],
}  # fmt: skip


#: Directories whose contents may change while the tests run (not outputs).
SCRATCH = {".git", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache"}


def repository_files():
    """Every file of the checkout (outside caches) with its size and modification time."""
    files = {}
    for directory, subdirectories, names in os.walk(ROOT):
        subdirectories[:] = [d for d in subdirectories if d not in SCRATCH and not d.endswith(".egg-info")]
        for name in names:
            path = Path(directory) / name
            stat = path.stat()
            files[str(path.relative_to(ROOT))] = (stat.st_size, stat.st_mtime_ns)
    return files


@pytest.fixture
def repository_unchanged():
    """Fail if the test creates, changes or deletes a file of the repository."""
    before = repository_files()
    yield
    after = repository_files()
    changed = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    assert not changed, f"a smoke run wrote into the repository: {changed[:20]}"


def run(module, tmp_path, monkeypatch, capsys, *extra):
    """Run ``experiments.<module> --smoke`` in this process, with temporary
    files under ``tmp_path``; return its output directory (the one temporary
    directory it created) and what it printed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.chdir(ROOT)  # as ``python -m`` from the checkout
    monkeypatch.setenv("MPLBACKEND", "Agg")  # for the subprocesses of run_all
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    common = importlib.import_module("experiments.common")
    monkeypatch.setattr(common, "_PREPARED", {})  # no model shared with an earlier run
    script = importlib.import_module(f"experiments.{module}")
    try:
        status = script.main(["--smoke", *extra])
    finally:
        plt.close("all")
    stdout = capsys.readouterr().out
    assert not status, f"{module} failed:\n{stdout[-3000:]}"
    (out,) = tmp_path.glob("subroc-ext-smoke-*")
    assert str(out) in stdout  # the run says where its outputs are
    return out, stdout


#: pysubgroup 0.8 (Python >= 3.13) has no quality functions of its own to time.
PYSUBGROUP_HAS_QFS = hasattr(ps, "ROCAUCQF")
PYSUBGROUP_FILES = {"table2_pysubgroup.csv", "table2_pysubgroup.md"}


@pytest.mark.parametrize("module", sorted(EXPECTED))
def test_script_smoke(module, tmp_path, monkeypatch, capsys, repository_unchanged):
    out, stdout = run(module, tmp_path, monkeypatch, capsys)
    expected = EXPECTED[module]
    if module == "table2_runtimes" and not PYSUBGROUP_HAS_QFS:
        assert f"pysubgroup {version('pysubgroup')} has no ROCAUCQF" in stdout
        assert not any((out / name).exists() for name in PYSUBGROUP_FILES)
        expected = [name for name in expected if name not in PYSUBGROUP_FILES]
    for name in expected:
        path = out / name
        assert path.exists() and path.stat().st_size > 0, f"{module} did not write {name}"
    if module == "table1":
        table = pd.read_csv(out / "table1.csv")
        assert set(table["setting"]) == {"basic", "full"}
        assert set(table["measure"]) == {"roc_auc", "pr_auc", "arl", "attribution_mean"}
        assert "census_kdd" not in set(table["dataset"])  # smoke mode needs no network
        # the basic setting's patterns respect the smoke run's minimum support
        assert (table.loc[table.setting == "basic", "mean_cover"].dropna() >= 10).all()
    if module == "table5_basic_tested":
        table = pd.read_csv(out / "table5.csv")
        assert (table["setting"] == "basic_tested").all()
        for reported, significant, found in table["significant"].str.split("/"):
            assert int(reported) == min(int(significant), 5) and int(significant) <= int(found) <= 20
    if module == "table2_runtimes":
        table = pd.read_csv(out / "table2_runtimes.csv")
        # pruning never changes the result and never evaluates more candidates
        assert table["same_result"].all()
        assert (table["on_candidates"] <= table["off_candidates"]).all()


def test_model_falls_back_without_xgboost(monkeypatch):
    sys.path.insert(0, str(ROOT))
    from experiments import common

    monkeypatch.setitem(sys.modules, "xgboost", None)  # import xgboost now raises ImportError
    assert common.model_kind("xgboost") == "hist_gradient_boosting"
    assert common.model_kind("gaussian_nb") == "gaussian_nb"


def test_run_all_smoke_only(tmp_path, monkeypatch, capsys, repository_unchanged):
    """run_all --smoke runs the selected scripts (as ``python -m experiments.<script>``
    subprocesses) into a temporary directory and records their status."""
    out, _ = run("run_all", tmp_path, monkeypatch, capsys, "--only", "figure3_skew")
    summary = json.loads((out / "run_all.json").read_text())
    assert [s["script"] for s in summary["scripts"]] == ["figure3_skew"]
    assert summary["scripts"][0]["status"] == 0
    assert f"--out {out}" in summary["scripts"][0]["command"]
    assert (out / "figure3_skew.png").exists()


def test_smoke_refuses_the_committed_results(monkeypatch):
    """An explicit --out inside experiments/results/ is refused in smoke mode, before any work."""
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.chdir(ROOT)  # the relative --out below is the committed results' directory
    from experiments import figure3_skew

    monkeypatch.setattr(figure3_skew, "compute", lambda st: pytest.fail("the run started"))
    # SystemExit with a message: ``python -m`` prints it to stderr and exits with status 1
    with pytest.raises(SystemExit, match="committed results") as refused:
        figure3_skew.main(["--smoke", "--out", "experiments/results/smoke"])
    assert refused.value.code not in (0, None)
    assert not (ROOT / "experiments" / "results" / "smoke").exists()


def test_median_run_of_repetitions():
    sys.path.insert(0, str(ROOT))
    from experiments import common
    from experiments.table2_runtimes import median_run

    runs = [common.SearchRun([(1.0, "a")], s, c, 7, True) for s, c in ((3.0, 2.0), (1.0, 4.0), (2.0, 3.0))]
    median = median_run(runs)
    assert (median.seconds, median.cpu_seconds, median.candidates, median.results) == (2.0, 3.0, 7, [(1.0, "a")])
    stopped = common.SearchRun([], 9.0, 9.0, 3, False)
    assert median_run([runs[0], stopped]) is stopped  # a stopped repetition stops the configuration
    with pytest.raises(RuntimeError, match="different numbers of candidates"):
        median_run([runs[0], common.SearchRun([], 1.0, 1.0, 8, True)])
