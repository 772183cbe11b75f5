"""The --out folder across runs: never files of two runs, nothing left by a killed one.

A run that is killed (SIGKILL) while it writes its report leaves the earlier
run's files as they were, and a staging folder that the next run removes; a
run stopped by SIGTERM ends like Ctrl-C (one line, exit code 143, the
searched subgroups kept) and leaves nothing behind; a run whose report fails
leaves its own table and nothing of the earlier run; a run without
``--export-rows`` removes an earlier ``rows.csv``.
"""

import errno
import os
import signal
import subprocess
import sys

import pandas as pd
import pytest
from synthetic import scored_frame

from subroc_ext.cli import commands, main
from subroc_ext.utils.atomic import STAGING_PREFIX

pytest.importorskip("matplotlib")

#: Each test runs the command line in a subprocess and closes, kills or interrupts it:
#: `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

SETTINGS = ["--label", "y", "--score", "p", "--depth", "1", "--samples", "20", "--quiet"]
FILES = ["curves.png", "findings.json", "report.html", "subgroups.csv"]

#: Runs the command with write_report replaced by one that writes half the
#: curves into the staging folder and then sends this process the signal argv[1].
DYING = """
import os, signal, sys
from subroc_ext.cli import commands, main

def dying(table, data, folder, **settings):
    (folder / "curves.png").write_bytes(b"half a png")
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))

commands.write_report = dying
sys.exit(main(sys.argv[2:]))
"""


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    scored_frame(0, n=1500).to_csv(folder / "one.csv", index=False)
    scored_frame(1, n=1500).to_csv(folder / "two.csv", index=False)
    return folder


def earlier_run(data, out, *extra):
    assert main(["run", str(data / "one.csv"), *SETTINGS, *extra, "--out", str(out)]) == 0
    return {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}


def dying_run(data, out, signal_name):
    """The finished process (``Popen``: its ``pid`` names its staging folder); ``stderr`` its text."""
    process = subprocess.Popen([sys.executable, "-c", DYING, signal_name, "run", str(data / "two.csv"), *SETTINGS,
                                "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    _, process.stderr_text = process.communicate(timeout=600)
    return process


def staging_folders(out):
    return [name for name in os.listdir(out) if name.startswith(STAGING_PREFIX)]


def test_killed_run_leaves_the_earlier_run_and_the_next_run_cleans_up(data, tmp_path, capsys):
    out = tmp_path / "out"
    before = earlier_run(data, out)
    process = dying_run(data, out, "SIGKILL")
    assert process.returncode == -signal.SIGKILL
    assert {name: (out / name).read_bytes() for name in FILES} == before  # the earlier run, whole
    left = staging_folders(out)
    assert len(left) == 1 and left[0].startswith(f"{STAGING_PREFIX}{process.pid}-")
    assert main(["run", str(data / "two.csv"), *SETTINGS, "--out", str(out)]) == 0
    assert sorted(os.listdir(out)) == FILES  # the staging folder is gone
    assert (out / "subgroups.csv").read_bytes() != before["subgroups.csv"]


def test_terminated_run_ends_like_ctrl_c_and_leaves_nothing(data, tmp_path):
    out = tmp_path / "out"
    earlier_run(data, out)
    process = dying_run(data, out, "SIGTERM")
    assert process.returncode == 143 and "Traceback" not in process.stderr_text
    assert process.stderr_text.splitlines()[-1] == (
        f"subroc-ext: terminated during the report; the table was kept in {(out / 'subgroups.csv').resolve()}, "
        "the report was not written"
    )
    assert os.listdir(out) == ["subgroups.csv"]  # this run's table, nothing of the earlier run
    table = pd.read_csv(out / "subgroups.csv")
    expected = pd.read_csv(data / "two.csv")
    assert len(table) > 0 and table["size_search"].max() < len(expected)


def test_sigterm_during_the_test_keeps_the_searched_subgroups(data, tmp_path):
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "subroc_ext.cli", "run", data / "one.csv", "--label", "y", "--score", "p",
         "--samples", "1000000", "--out", out],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    seen = b""
    try:
        while b"testing" not in seen:
            chunk = os.read(process.stderr.fileno(), 4096)
            assert chunk, f"ended before the test: {seen.decode()}"
            seen += chunk
        process.terminate()
        _, stderr = process.communicate(timeout=600)
    finally:
        process.kill()
    stderr = (seen + stderr).decode()
    table = pd.read_csv(out / "subgroups.csv")
    assert process.returncode == 143 and "Traceback" not in stderr
    assert stderr.splitlines()[-1].startswith(f"subroc-ext: terminated during the significance test; the {len(table)}")
    assert table["p_value"].isna().all() and os.listdir(out) == ["subgroups.csv"]


def test_failed_report_keeps_its_table_and_nothing_of_the_earlier_run(data, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    earlier_run(data, out)
    capsys.readouterr()

    def full_disk(table, data, folder, **settings):
        (folder / "curves.png").write_bytes(b"png")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / "report.html"))

    monkeypatch.setattr(commands, "write_report", full_disk)
    assert main(["run", str(data / "two.csv"), *SETTINGS, "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"subroc-ext: error: cannot write '{out / 'report.html'}': No space left on device"
    assert sorted(os.listdir(out)) == ["findings.json", "subgroups.csv"]
    fresh = tmp_path / "fresh"
    monkeypatch.undo()
    assert main(["run", str(data / "two.csv"), *SETTINGS, "--out", str(fresh)]) == 0
    assert (out / "subgroups.csv").read_bytes() == (fresh / "subgroups.csv").read_bytes()


def test_an_earlier_rows_file_goes(data, tmp_path):
    out = tmp_path / "out"
    (out / "notes").mkdir(parents=True)
    (out / "notes.txt").write_text("the user's")
    assert "rows.csv" in earlier_run(data, out, "--export-rows")
    assert main(["run", str(data / "two.csv"), *SETTINGS, "--out", str(out)]) == 0
    assert sorted(os.listdir(out)) == sorted([*FILES, "notes", "notes.txt"])  # the user's files stay
