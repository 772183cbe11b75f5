"""The command line when its streams or its input fail: every file written, one line, no traceback.

* stderr closed while the command runs (``2>&1 | head -1``, a pipe closed
  before the first status line) or at its start (``2>&-``): the work goes
  on silently and every file is written;
* stdout closed (``>&-``) or full (``>/dev/full``): every file written, then
  one line on stderr and exit code 2;
* an input that cannot be read (a cut-short or corrupt ``.gz``, ``.bz2``,
  ``.xz`` or ``.zip``, no permission): one line naming the file, exit code 2.
"""

import gzip
import os
import shlex
import subprocess
import sys

import pandas as pd
import pytest
from synthetic import scored_frame

from subroc_ext.cli import main

#: Each test runs the command line in a subprocess and closes, kills or interrupts it:
#: `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

pytest.importorskip("matplotlib")

COMMAND = [sys.executable, "-m", "subroc_ext.cli", "run"]
SETTINGS = ["--label", "y", "--score", "p", "--depth", "1", "--samples", "20"]
FILES = ["curves.png", "findings.json", "report.html", "subgroups.csv"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "data.csv"
    scored_frame(0, n=1500).to_csv(path, index=False)
    return path


def shell(command, **kwargs):
    """Run ``command`` (a bash line); the finished process."""
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=600, **kwargs)


def run_line(data, out, *extra):
    return " ".join(shlex.quote(str(part)) for part in [*COMMAND, data, *SETTINGS, *extra, "--out", out])


def assert_every_file_written(out):
    assert sorted(os.listdir(out)) == FILES
    assert len(pd.read_csv(out / "subgroups.csv")) > 0
    assert (out / "report.html").read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_stderr_into_head_keeps_every_file(data, tmp_path):
    """``... 2>&1 | head -1`` (status lines on): the first line, then every file."""
    process = shell(f"{run_line(data, tmp_path / 'out')} 2>&1 | head -1; exit ${{PIPESTATUS[0]}}")
    assert process.returncode in (0, 141) and process.stderr == ""
    assert process.stdout.count("\n") == 1
    assert_every_file_written(tmp_path / "out")


def test_stderr_closed_before_the_first_line(data, tmp_path):
    """A stderr pipe closed for sure: the results on stdout, exit code 0, every file
    (it ended with exit code 141 and an empty folder)."""
    read, write = os.pipe()
    os.close(read)
    try:
        process = subprocess.run([*COMMAND, data, *SETTINGS, "--out", tmp_path / "out"], stdout=subprocess.PIPE,
                                 stderr=write, text=True, timeout=600)  # fmt: skip
    finally:
        os.close(write)
    assert process.returncode == 0 and "\nRuntime: " in process.stdout
    assert_every_file_written(tmp_path / "out")


def test_stderr_closed_at_the_start(data, tmp_path):
    """``2>&-``: nothing meant for stderr ends up on stdout."""
    process = shell(f"{run_line(data, tmp_path / 'out')} 2>&-")
    assert process.returncode == 0 and "\nRuntime: " in process.stdout
    assert "warning" not in process.stdout and "searching" not in process.stdout
    assert_every_file_written(tmp_path / "out")


@pytest.mark.parametrize("redirect, reason", [(">&-", "it is closed"), (">/dev/full", "No space left on device")])
def test_stdout_that_cannot_be_written(data, tmp_path, redirect, reason):
    if redirect == ">/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    process = shell(f"{run_line(data, tmp_path / 'out', '--quiet')} {redirect}")
    lines = [line for line in process.stderr.splitlines() if "lone finding" not in line]
    assert process.returncode == 2 and "Traceback" not in process.stderr
    assert lines == [f"subroc-ext: error: cannot write to standard output: {reason}; every file was written"]
    assert_every_file_written(tmp_path / "out")


def cut(data, path):
    path.write_bytes(gzip.compress(data.read_bytes())[:3000])


def corrupt(data, path):
    packed = bytearray(gzip.compress(data.read_bytes()))
    packed[2000:2040] = bytes(40)
    path.write_bytes(bytes(packed))


BROKEN = {
    "cut.csv.gz": (cut, "the compressed file ends early"),  # EOFError
    "corrupt.csv.gz": (corrupt, "the compressed data is corrupt"),  # zlib.error
    "plain.csv.gz": (lambda data, path: path.write_bytes(data.read_bytes()), "not a valid gzip file"),  # BadGzipFile
    "bad.csv.bz2": (lambda data, path: path.write_bytes(b"BZh91AY&SY" + bytes(20)), "Invalid data stream"),
    "bad.csv.xz": (lambda data, path: path.write_bytes(b"not xz"), "the compressed data is corrupt"),
    "bad.csv.zip": (lambda data, path: path.write_bytes(b"not zip"), "the compressed data is corrupt"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_unreadable_compressed_input_is_one_line(data, tmp_path, capsys, name):
    make, reason = BROKEN[name]
    make(data, tmp_path / name)
    code = main(["run", str(tmp_path / name), *SETTINGS, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"subroc-ext: error: cannot read data file '{tmp_path / name}': {reason}")


def test_input_without_permission_is_one_line(data, tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked.csv"
    locked.write_bytes(data.read_bytes())
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads anything: the error open() gives everyone else
        def refuse(path, *args, **kwargs):
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(pd, "read_csv", refuse)
    code = main(["run", str(locked), *SETTINGS, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err == f"subroc-ext: error: cannot read data file '{locked}': Permission denied\n"
