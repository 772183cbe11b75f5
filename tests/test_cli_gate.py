"""The release gate on the command line, in subprocesses: the exit codes of
``--fail-on failure`` (0 clean, 3 a failure, 2 bad input, 130 Ctrl-C), the
files on disk in every case, ``--format json``, and the CI example of
docs/guide/release-pipeline.md run as the script it shows."""

import json
import os
import pathlib
import re
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from synthetic import scored_frame

from subroc_ext.cli.arguments import GATE_FAILED

pytest.importorskip("matplotlib")

#: Each test runs the command line in a subprocess: `python -m pytest -m "extended and not slow"`.
pytestmark = pytest.mark.extended

COMMAND = [sys.executable, "-m", "subroc_ext.cli"]
SETTINGS = ["--label", "y", "--score", "p", "--depth", "1", "--top", "5"]
FILES = ["curves.png", "findings.json", "report.html", "subgroups.csv"]
PAGE = pathlib.Path(__file__).parents[1] / "docs" / "guide" / "release-pipeline.md"


def mended(frame, seed):
    """``frame`` with the planted failure gone: scores in ``region == 'east'`` as good as elsewhere."""
    frame = frame.copy()
    east = (frame["region"] == "east").to_numpy()
    rng = np.random.default_rng(seed)
    frame.loc[east, "p"] = 1 / (1 + np.exp(-(2.5 * frame.loc[east, "y"] - 1.2 + rng.normal(0, 1, east.sum()))))
    return frame


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gate")
    failing = scored_frame(0, n=1500)
    failing.to_csv(folder / "failing.csv", index=False)
    mended(failing, 1).to_csv(folder / "clean.csv", index=False)
    return folder


def command(*args, **kwargs):
    """Run the command line; the finished process (text output)."""
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True, timeout=600, **kwargs)


def assert_every_file_written(out):
    assert sorted(os.listdir(out)) == FILES
    assert len(pd.read_csv(out / "subgroups.csv")) > 0
    assert (out / "report.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    return json.loads((out / "findings.json").read_text(encoding="utf-8"))


def test_a_failure_fails_the_gate_after_every_file(data, tmp_path):
    process = command("run", data / "failing.csv", *SETTINGS, "--quiet", "--fail-on", "failure", "--out", tmp_path)
    assert process.returncode == GATE_FAILED == 3, process.stderr
    last = process.stdout.rstrip().splitlines()[-1]
    assert last == "subroc-ext: gate failed (exit code 3): 1 failure: region=='east' " \
                   f"(delta {pd.read_csv(tmp_path / 'subgroups.csv')['delta'].iloc[0]:.3f})"
    document = assert_every_file_written(tmp_path)
    assert document["headline"]["failures"] == [1] and document["findings"][0]["description"] == "region=='east'"


def test_a_clean_model_passes(data, tmp_path):
    process = command("run", data / "clean.csv", *SETTINGS, "--quiet", "--fail-on", "failure", "--out", tmp_path)
    assert process.returncode == 0, process.stderr
    assert process.stdout.rstrip().splitlines()[-1] == (
        "subroc-ext: gate passed (exit code 0): the headline names no failure"
    )
    assert assert_every_file_written(tmp_path)["headline"]["failures"] == []


def test_without_fail_on_a_failure_is_no_error_and_json_is_the_file(data, tmp_path):
    process = command("run", data / "failing.csv", *SETTINGS, "--quiet", "--format", "json", "--out", tmp_path)
    assert process.returncode == 0, process.stderr
    document = assert_every_file_written(tmp_path)
    assert json.loads(process.stdout) == document and document["headline"]["failures"] == [1]
    assert "Top 5 of 5 distinct subgroups" in process.stderr  # the console table went to stderr


def test_json_with_the_gate_keeps_stdout_json_and_says_why_on_stderr(data, tmp_path):
    process = command("run", data / "failing.csv", *SETTINGS, "--quiet", "--format", "json", "--fail-on", "failure",
                      "--out", tmp_path)  # fmt: skip
    assert process.returncode == 3
    assert json.loads(process.stdout)["headline"]["failures"] == [1]
    assert process.stderr.rstrip().splitlines()[-1].startswith("subroc-ext: gate failed (exit code 3): 1 failure")


def test_bad_input_is_exit_code_2_not_the_gates(data, tmp_path):
    process = command("run", data / "failing.csv", "--label", "target", "--score", "p", "--quiet", "--fail-on",
                      "failure", "--out", tmp_path)  # fmt: skip
    assert process.returncode == 2 and process.stdout == ""
    assert process.stderr.strip().splitlines()[-1] == (  # after a line on compiling the kernels, if not cached
        "subroc-ext: error: column(s) ['target'] not found in data; available columns: "
        "['region', 'age', 'plan', 'y', 'p']"
    )
    unknown = command("run", data / "failing.csv", *SETTINGS, "--fail-on", "anything", "--out", tmp_path)
    assert unknown.returncode == 2 and "argument --fail-on: invalid choice: 'anything'" in unknown.stderr


def test_ctrl_c_is_130_and_keeps_the_searched_subgroups(data, tmp_path):
    process = subprocess.Popen(
        [*COMMAND, "run", data / "failing.csv", *SETTINGS, "--samples", "1000000", "--fail-on", "failure",
         "--out", tmp_path],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # also when pytest runs in the background
    )  # fmt: skip
    seen = b""
    try:
        while b"testing" not in seen:
            chunk = os.read(process.stderr.fileno(), 4096)
            assert chunk, f"ended before the test: {seen.decode()}"
            seen += chunk
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=600)
    finally:
        process.kill()
    stderr = (seen + stderr).decode()
    assert process.returncode == 130 and "Traceback" not in stderr
    assert stderr.rstrip().splitlines()[-1].startswith("subroc-ext: interrupted during the significance test")
    assert os.listdir(tmp_path) == ["subgroups.csv"] and pd.read_csv(tmp_path / "subgroups.csv")["p_value"].isna().all()


def ci_script():
    """The shell lines of the page's CI example (between ``<!-- ci:gate -->`` markers)."""
    block = re.search(r"<!-- ci:gate -->\n```bash\n(.*?)```\n<!-- /ci:gate -->", PAGE.read_text(), re.DOTALL)
    assert block, "no CI example marked in docs/guide/release-pipeline.md"
    return block.group(1)


def two_models(regression):
    """Labelled rows scored by production and by a candidate (that ranks at random in
    ``region == 'east'`` when ``regression``)."""
    frame = mended(scored_frame(3, n=2000), 2).rename(columns={"p": "production"})
    rng = np.random.default_rng(4)
    frame["candidate"] = np.clip(frame["production"] + rng.normal(0, 0.01, len(frame)), 0, 1)
    if regression:
        east = (frame["region"] == "east").to_numpy()
        frame.loc[east, "candidate"] = rng.random(east.sum())
    return frame


@pytest.mark.parametrize("regression, code", [(True, 3), (False, 0)])
def test_the_documented_ci_job_fails_on_a_regression_and_passes_a_clean_model(tmp_path, regression, code):
    two_models(regression).to_csv(tmp_path / "scored.csv", index=False)
    script = f'subroc-ext() {{ {" ".join(COMMAND)} "$@"; }}\n{ci_script()}'  # the installed command, offline
    process = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert process.returncode == code, process.stdout + process.stderr
    assert process.stdout.rstrip().splitlines()[-1].startswith(
        "subroc-ext: gate failed (exit code 3): " if regression else "subroc-ext: gate passed (exit code 0)"
    )
    document = json.loads((tmp_path / "audit" / "findings.json").read_text(encoding="utf-8"))
    assert (tmp_path / "audit" / "report.html").exists() and document["kind"] == "paired"
    assert bool(document["headline"]["failures"]) == regression
    if regression:
        assert document["findings"][document["headline"]["failures"][0] - 1]["description"] == "region=='east'"


@pytest.mark.parametrize("name", ["run", "compare", "drift"])
def test_help_documents_the_exit_codes(name):
    process = command(name, "--help")
    assert process.returncode == 0
    assert "exit codes:" in process.stdout and re.search(r"\n  3 +--fail-on failure: the headline names a", process.stdout)
    assert "--fail-on failure" in process.stdout and "--format {text,json}" in process.stdout
