"""Whatever ends a command, what it computed is kept (:mod:`subroc_ext.cli.kept`).

SIGINT or SIGTERM at the start of each stage of a run (search, test,
describe, report) leaves in --out the table computed so far, never an earlier
run's files, and one line saying what was kept; an error in the description
keeps the searched and tested table; ``compare`` and ``drift`` write
``rows.csv`` with ``--export-rows``; ``--out ''`` is refused.
"""

import os
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from synthetic import scored_frame
from test_comparison_pipeline import regression_data, scored_rows

from subroc_ext.cli import main
from subroc_ext.cli.output import RESULT_FILES
from subroc_ext.inference.failures import FAILURE_COLUMNS
from subroc_ext.workflow import steps

pytest.importorskip("matplotlib")

SETTINGS = ["--label", "y", "--score", "p", "--depth", "1", "--samples", "20", "--quiet"]
COMPARE = ["--depth", "1", "--top", "5", "--samples", "20", "--quiet"]

#: Runs the command line with the function argv[1] (of workflow.steps, or
#: write_report of cli.commands) first sending this process the signal argv[2]:
#: the signal arrives exactly as that stage starts.
SIGNALLED = """
import os, signal, sys
from subroc_ext.cli import commands, main
from subroc_ext.workflow import steps

stage, name = sys.argv[1:3]
module = commands if stage == "write_report" else steps
started = getattr(module, stage)

def signalled(*args, **kwargs):
    os.kill(os.getpid(), getattr(signal, name))
    return started(*args, **kwargs)

setattr(module, stage, signalled)
sys.exit(main(sys.argv[3:]))
"""


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kept")
    scored_frame(0, n=1500).to_csv(folder / "data.csv", index=False)
    assert main(["run", str(folder / "data.csv"), *SETTINGS, "--out", str(folder / "whole")]) == 0
    return folder


def earlier_files(out):
    """An earlier run's files in ``out``, each reading 'earlier'."""
    out.mkdir()
    for name in RESULT_FILES:
        (out / name).write_text("earlier")


@pytest.mark.extended  # a subprocess per stage and signal
@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143)])
@pytest.mark.parametrize("stage", ["search", "test", "describe", "write_report"])
def test_a_signal_as_a_stage_starts_keeps_what_was_computed(data, tmp_path, stage, name, code):
    out = tmp_path / "out"
    earlier_files(out)
    process = subprocess.run(
        [sys.executable, "-c", SIGNALLED, stage, name, "run", str(data / "data.csv"), *SETTINGS, "--out", str(out)],
        capture_output=True, text=True, timeout=600,
        # as typed in a terminal: a command started in the background of a
        # script (CI) inherits SIGINT ignored, and Python then never sees it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    ended = "interrupted" if name == "SIGINT" else "terminated"
    assert process.returncode == code and "Traceback" not in process.stderr, process.stderr
    line = process.stderr.splitlines()[-1]
    assert all((out / name).read_text(errors="replace") != "earlier" for name in os.listdir(out))
    if stage == "search":
        assert os.listdir(out) == []
        assert line == (f"subroc-ext: {ended} before the search finished; nothing to keep, and the earlier "
                        f"run's files were removed from {out.resolve()} (none is this run's)")  # fmt: skip
        return
    assert os.listdir(out) == ["subgroups.csv"]
    kept = pd.read_csv(out / "subgroups.csv")
    whole = pd.read_csv(data / "whole" / "subgroups.csv")
    path = (out / "subgroups.csv").resolve()
    assert kept["description"].tolist() == whole["description"].tolist()
    if stage == "test":
        assert line == (f"subroc-ext: {ended} during the significance test; the {len(kept)} searched "
                        f"subgroups are in {path}, untested (no p-values)")  # fmt: skip
        assert kept["p_value"].isna().all()
        untested = [*steps.TEST_COLUMNS, *FAILURE_COLUMNS]  # the failure rules judge tested rows only
        pd.testing.assert_frame_equal(kept.drop(columns=steps.TEST_COLUMNS), whole.drop(columns=untested))
    elif stage == "describe":
        assert line == (f"subroc-ext: {ended} during the description of the subgroups; the {len(kept)} searched "
                        f"and tested subgroups are in {path}, undescribed (no sizes, class counts, measures or "
                        "intervals per split)")  # fmt: skip
        assert "size_search" not in kept.columns and "roc_auc_validation" not in kept.columns
        pd.testing.assert_frame_equal(kept, whole[kept.columns])
    else:
        assert line == f"subroc-ext: {ended} during the report; the table was kept in {path}, the report was not written"
        pd.testing.assert_frame_equal(kept, whole)


def test_an_error_in_the_description_keeps_the_searched_and_tested_table(data, tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(steps, "describe", broken)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="a bug"):
        main(["run", str(data / "data.csv"), *SETTINGS, "--out", str(out)])
    kept = pd.read_csv(out / "subgroups.csv")
    whole = pd.read_csv(data / "whole" / "subgroups.csv")
    pd.testing.assert_frame_equal(kept, whole[kept.columns])
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"subroc-ext: error during the description of the subgroups; the {len(kept)} searched and tested "
        f"subgroups are in {(out / 'subgroups.csv').resolve()}, undescribed (no sizes, class counts, measures or "
        "intervals per split)"
    )


def test_compare_interrupted_during_the_test_keeps_the_searched_subgroups(tmp_path, monkeypatch, capsys):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(steps, "test", interrupt)
    regression_data(5, n=1500).to_csv(tmp_path / "scored.csv", index=False)
    out = tmp_path / "out"
    code = main(["compare", str(tmp_path / "scored.csv"), "--label", "y", "--score", "new",
                 "--baseline", "old", "--out", str(out), *COMPARE])  # fmt: skip
    assert code == 130
    kept = pd.read_csv(out / "subgroups.csv")
    assert len(kept) > 0 and kept["p_value"].isna().all()
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"subroc-ext: interrupted during the significance test; the {len(kept)} searched subgroups are in "
        f"{(out / 'subgroups.csv').resolve()}, untested and undescribed (no p-values, no measures per split)"
    )


def assert_rows(out, splits):
    """rows.csv in ``out`` lists the rows of each split (``{name: frame}``) and
    marks each subgroup's: as many as its size there (``size_<name>``)."""
    rows = pd.read_csv(out / "rows.csv")
    table = pd.read_csv(out / "subgroups.csv")
    assert rows["split"].unique().tolist() == list(splits)
    for name, frame in splits.items():
        part = rows[rows["split"] == name]
        assert part["row"].tolist() == frame.index.tolist()
        assert part[list(table["description"])].sum().tolist() == table[f"size_{name}"].tolist()


def test_compare_and_drift_export_rows(tmp_path):
    from subroc_ext.inputs.tables import read_table
    from subroc_ext.workflow.comparison import split_periods
    from subroc_ext.workflow.pipeline import split_validation

    data = regression_data(5, n=1500)
    data.to_csv(tmp_path / "scored.csv", index=False)
    assert main(["compare", str(tmp_path / "scored.csv"), "--label", "y", "--score", "new", "--baseline", "old",
                 "--export-rows", "--out", str(tmp_path / "compare"), *COMPARE]) == 0  # fmt: skip
    search, validation = split_validation(read_table(tmp_path / "scored.csv", "data"), 0.5, 0)
    assert_rows(tmp_path / "compare", {"search": search, "validation": validation})

    rng = np.random.default_rng(8)
    reference, current = scored_rows(rng, 1500, False), scored_rows(rng, 1200, True)
    reference.to_csv(tmp_path / "ref.csv", index=False)
    current.to_csv(tmp_path / "cur.csv", index=False)
    assert main(["drift", str(tmp_path / "ref.csv"), str(tmp_path / "cur.csv"), "--label", "y", "--score", "p",
                 "--export-rows", "--out", str(tmp_path / "drift"), *COMPARE]) == 0  # fmt: skip
    (reference_search, reference_validation), (current_search, current_validation) = split_periods(
        read_table(tmp_path / "ref.csv", "reference"), read_table(tmp_path / "cur.csv", "current"), 0.5, 0
    )
    assert_rows(tmp_path / "drift", {"reference_search": reference_search, "reference_validation": reference_validation,
                                     "current_search": current_search, "current_validation": current_validation})


@pytest.mark.parametrize("command", [
    ["demo"],
    ["run", "{data}", "--label", "y", "--score", "p"],
    ["compare", "{data}", "--label", "y", "--score", "p", "--baseline", "p"],
    ["drift", "{data}", "{data}", "--label", "y", "--score", "p"],
])  # fmt: skip
def test_an_empty_out_is_refused(data, tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)  # where an empty --out would write
    argv = [part.format(data=data / "data.csv") for part in command]
    assert main([*argv, "--out", "", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "subroc-ext: error: --out is empty; name the folder for the results (e.g. --out report)\n"
    )
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_during_the_splits_writes_the_aggregate_of_those_finished(tmp_path, monkeypatch, capsys,
                                                                          default_sigint, name, code):  # fmt: skip
    """Ctrl-C (SIGTERM) while split 5 of 8 runs: the 4 finished are aggregated and
    every file written, the report and the headline as a finished run's, and the
    last line says how many splits of how many finished; the exit code of Ctrl-C."""
    from test_many_splits import _cut_at, _planted

    from subroc_ext.workflow.many_splits import split_seeds

    _planted(800).to_csv(tmp_path / "data.csv", index=False)
    _, stopped = _cut_at(monkeypatch, split_seeds(0, 8), 4, name)
    out = tmp_path / "out"
    earlier_files(out)
    assert main(["run", str(tmp_path / "data.csv"), "--label", "label", "--score", "score", "--depth", "1",
                 "--splits", "8", "--jobs", "2", "--quiet", "--out", str(out)]) == code  # fmt: skip
    assert sorted(stopped) == [4, 5]  # the split signalling and the one beside it: stopped
    printed = capsys.readouterr()
    ended = "interrupted" if name == "SIGINT" else "terminated"
    assert printed.err.splitlines()[-1] == (
        f"subroc-ext: {ended} after 4 of 8 splits; the aggregate of those 4 is written to {out.resolve()}: "
        "e-BH over the 8 random splits planned (interrupted after 4: the 4 unfinished count as rejecting nothing)")  # fmt: skip
    assert {"subgroups.csv", "findings.json", "report.html"} <= set(os.listdir(out))
    assert all((out / file).read_text(errors="replace") != "earlier" for file in os.listdir(out))
    table = pd.read_csv(out / "subgroups.csv")
    assert table["splits_found"].max() == 4 and table["significant"].notna().all()
    said = "e-BH over the 8 random splits planned (interrupted after 4: the 4 unfinished count as rejecting nothing)"
    assert said in printed.out and said in (out / "report.html").read_text()


def test_ctrl_c_after_one_split_keeps_its_table(tmp_path, monkeypatch, capsys, default_sigint):
    from test_many_splits import _cut_at, _planted

    from subroc_ext.workflow.many_splits import split_seeds

    _planted(800).to_csv(tmp_path / "data.csv", index=False)
    _cut_at(monkeypatch, split_seeds(0, 8), 1, "SIGINT")
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "data.csv"), "--label", "label", "--score", "score", "--depth", "1",
                 "--splits", "8", "--jobs", "2", "--quiet", "--out", str(out)]) == 130  # fmt: skip
    table = pd.read_csv(out / "subgroups.csv")
    assert os.listdir(out) == ["subgroups.csv"] and "splits_found" not in table.columns
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"subroc-ext: interrupted after 1 of 8 splits; the {len(table)} tested subgroups are in "
        f"{(out / 'subgroups.csv').resolve()}, that split's own (its test at alpha 0.015), not aggregated")  # fmt: skip
