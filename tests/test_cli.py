"""The ``subroc-ext`` command: through ``main()`` in process, and once as a
subprocess of the installed console script, as a new user runs it."""

import base64
import errno
import io
import os
import runpy
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import subroc_ext
from subroc_ext.cli import commands as cli_module
from subroc_ext.workflow import steps
from subroc_ext.cli import main
from subroc_ext.inference.failures import FAILURE_COLUMNS
from subroc_ext.workflow.pipeline import split_validation
from synthetic import scored_frame

pytest.importorskip("matplotlib")

MODULE = [sys.executable, "-m", "subroc_ext.cli"]
RUN = ["--label", "y", "--score", "p", "--quiet"]


def without_power_warning(err):
    """``err`` without the one-line power warning a small ``--samples`` gives
    (``LowPowerWarning``, tested in test_demo and tests/test_sequential.py)."""
    return "".join(
        line for line in err.splitlines(keepends=True)
        if not line.startswith("subroc-ext: warning: a lone finding cannot be significant")
    )


def cli(*args, cwd, command=MODULE):
    """Run the command line; returns the finished process."""
    return subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=600
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A directory holding ``data.csv``, its halves and variants with bad input."""
    path = tmp_path_factory.mktemp("cli")
    frame = scored_frame(0)
    frame.to_csv(path / "data.csv", index=False)
    frame.iloc[:1000].assign(y=frame["y"].map({1: "yes", 0: "no"})).to_csv(path / "search.csv", index=False)
    frame.iloc[1000:].assign(y=frame["y"].map({1: "yes", 0: "no"})).to_csv(path / "held_out.csv", index=False)
    frame.assign(y=frame["y"] + (frame.index < 3)).to_csv(path / "three.csv", index=False)
    frame.assign(p=frame["p"].mask(frame.index == 5)).to_csv(path / "nan.csv", index=False)
    frame.assign(y=frame["y"].map({1: "yes", 0: "no"})).to_csv(path / "strings.csv", index=False)
    frame.assign(y=frame["y"].astype(bool)).to_csv(path / "booleans.csv", index=False)
    (path / "empty.csv").write_text("")
    (path / "data.parquet").write_bytes(b"PAR1")
    return path


def test_demo(tmp_path, capsys):
    out = tmp_path / "demo"
    out.mkdir()
    (out / "report.html").write_text("an earlier report")
    assert main(["demo", "--samples", "20", "--quiet", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    # 20 random subsets cannot make a lone finding significant: one warning line
    warning, = captured.err.splitlines()
    assert warning.startswith("subroc-ext: warning: a lone finding cannot be significant")
    assert "use n_samples='adaptive' or n_samples >= " in warning
    # where the report went, and that it replaced the earlier one
    assert f"Report: {out.resolve() / 'report.html'} (with subgroups.csv, curves.png); it " \
           "replaces the report an earlier run wrote there." in captured.out
    table = pd.read_csv(out / "subgroups.csv", keep_default_na=False)
    # 100 distinct subgroups: identical covers collapsed into one row, near copies
    # (Jaccard index above 0.8 with a better row) listed under it, the search
    # repeated for a longer ranking until 100 are left
    assert len(table) == 100 and table["overlap"].iloc[1:].astype(float).max() <= 0.8
    assert f"Top 10 of {len(table)} distinct subgroups" in captured.out
    assert (table["alternatives"] != "").any() and (table["near_copies"] != "").any()
    # the whole data's calibration first (its scores, slightly too extreme), then the headline:
    # here (20 random subsets) the honest verdict
    calibration, verdict = captured.out.splitlines()[:2]
    assert calibration.startswith("Calibration on the whole data (24,421 rows): its risks are too extreme ")
    assert verdict.startswith(
        "No subgroup where the ROC AUC is significantly worse than the whole data: 0 of 100 "
        "subgroups significant (fdr_by, alpha 0.05). The largest observed effect, "
    )
    assert "roc_auc_validation" in captured.out and "Whole data: roc_auc 0.9" in captured.out
    assert "Runtime:" in captured.out

    table = pd.read_csv(out / "subgroups.csv")
    for column in ("description", "quality", "size_search", "ncr_search", "roc_auc_search",
                   "roc_auc_validation", "p_value", "p_value_corrected", "significant"):  # fmt: skip
        assert column in table.columns
    assert "subgroup" not in table.columns
    assert table["quality"].is_monotonic_decreasing
    image = base64.b64encode((out / "curves.png").read_bytes()).decode()
    assert f"data:image/png;base64,{image}" in (out / "report.html").read_text(encoding="utf-8")


def test_run_finds_the_planted_subgroup(workdir, tmp_path, capsys):
    assert main(["run", str(workdir / "data.csv"), *RUN, "--samples", "2000",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    first_row = capsys.readouterr().out.split("\n1 ")[1].split("\n")[0]
    assert "region=='east'" in first_row and first_row.split()[-2:] == ["yes", "failure"]
    table = pd.read_csv(tmp_path / "subgroups.csv")
    east = table[table["description"] == "region=='east'"].iloc[0]
    assert east["significant"] and east["roc_auc_validation"] < 0.6
    assert (tmp_path / "report.html").is_file()


@pytest.mark.extended  # the permutation test through the command line
def test_no_holdout_min_delta_and_intervals_options(workdir, tmp_path, capsys):
    data = [str(workdir / "data.csv"), *RUN, "--depth", "1"]
    assert main(["run", *data, "--no-holdout", "--out", str(tmp_path / "all")]) == 0
    out = capsys.readouterr().out
    assert "searched 2,000 rows, tested on the same rows" in out
    assert "permutation test, family-wise error <= 0.05" in out and "permuted searches" in out
    assert "no intervals: the subgroups were found and tested on the same rows" in out
    first_row = out.split("\n1 ")[1].split("\n")[0]
    assert "region=='east'" in first_row and "(stopped)" in first_row and first_row.split()[-2:] == ["yes", "failure"]
    table = pd.read_csv(tmp_path / "all" / "subgroups.csv")
    assert "roc_auc_validation" not in table and table["delta_ci_low"].isna().all()
    assert table["verdict_note"].str.contains("winner's curse").all()
    assert "no holdout" in (tmp_path / "all" / "report.html").read_text()

    assert main(["run", *data, "--min-delta", "0.2", "--out", str(tmp_path / "large")]) == 0
    out = capsys.readouterr().out
    assert "p <= 0.05 and the interval beyond 0.2" in out and "level that matches the selection" in out
    table = pd.read_csv(tmp_path / "large" / "subgroups.csv")
    assert (table.loc[table["significant"], "delta_ci_low"] > 0.2).all()
    assert main(["run", *data, "--intervals", "simultaneous", "--out", str(tmp_path / "old")]) == 0
    assert "95% simultaneous over all rows (max-t)" in capsys.readouterr().out

    assert main(["run", *data, "--no-holdout", "--min-delta", "0.1", "--out", str(tmp_path / "x")]) == 2
    assert "min_delta needs a holdout" in capsys.readouterr().err
    assert main(["run", *data, "--min-delta", "-1"]) == 2
    assert "argument --min-delta: expected a finite number >= 0" in capsys.readouterr().err
    assert main(["run", *data, "--no-holdout", "--validation-fraction", "0.3"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.extended  # the installed entry point in a subprocess
def test_run_with_validation_file_string_labels_and_pr_auc(workdir, tmp_path):
    """The one subprocess test: the installed entry point, where available (else
    ``python -m subroc_ext.cli``); '--positive-label yes' for text labels."""
    entry_point = shutil.which(
        "subroc-ext", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    )
    command = [entry_point] if entry_point else MODULE
    process = cli("run", workdir / "search.csv", "--validation", workdir / "held_out.csv",
                  "--label", "y", "--score", "p", "--positive-label", "yes", "--measure",
                  "pr_auc", "--depth", 1, "--samples", 100, "--out", tmp_path, cwd=tmp_path,
                  command=command)  # fmt: skip
    assert process.returncode == 0, process.stderr
    assert "pr_auc_validation" in process.stdout
    assert "(searched 1,000 rows, tested on 1,000 held-out rows)" in process.stdout
    assert pd.read_csv(tmp_path / "subgroups.csv")["description"].iloc[0] == "region=='east'"


def test_main_in_process_converts_the_positive_label(workdir, tmp_path, capsys):
    """main() returns 0; 'true' selects True in a boolean label column."""
    assert main(["run", str(workdir / "booleans.csv"), *RUN, "--positive-label", "true",
                 "--depth", "1", "--samples", "50", "--mode", "better", "--out", str(tmp_path)]) == 0  # fmt: skip
    assert "is better than on the whole data" in capsys.readouterr().out


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"subroc-ext {subroc_ext.__version__}"


def test_python_m_subroc_ext_runs_the_command(monkeypatch, capsys):
    """``python -m subroc_ext`` is the command, as ``python -m subroc_ext.cli`` is."""
    monkeypatch.setattr(sys, "argv", ["subroc_ext", "--version"])
    with pytest.raises(SystemExit) as ended:
        runpy.run_module("subroc_ext", run_name="__main__")
    assert ended.value.code == 0
    assert capsys.readouterr().out.strip() == f"subroc-ext {subroc_ext.__version__}"


def test_label_values_are_quoted_as_by_the_api(workdir, capsys):
    """One style for label values: the API's message and the command's agree."""
    assert main(["run", str(workdir / "strings.csv"), *RUN]) == 2
    from_cli = capsys.readouterr().err
    strings = pd.read_csv(workdir / "strings.csv")
    with pytest.raises(ValueError) as from_api:
        subroc_ext.find_subgroups(strings, label="y", score="p", progress=False)
    assert "label column 'y' has values 'no' and 'yes'; pass " in from_cli
    assert "label column 'y' has values 'no' and 'yes'; pass " in str(from_api.value)


def test_min_support_as_a_fraction(workdir, tmp_path, capsys):
    """--min-support 0.1: a tenth of the 1,000 searched rows."""
    assert main(["run", str(workdir / "data.csv"), *RUN, "--min-support", "0.1", "--depth", "1",
                 "--samples", "20", "--top", "5", "--out", str(tmp_path)]) == 0  # fmt: skip
    capsys.readouterr()
    table = pd.read_csv(tmp_path / "subgroups.csv")
    assert (table["size_search"] >= 100).all()
    assert "min_support" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_demo_says_where_its_report_goes_and_git_ignores_it(tmp_path, monkeypatch, capsys):
    """The default directory is in the current one: say so, and keep it out of git."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli_module, "load_adult", stop_here)
    with pytest.raises(AssertionError, match="stopped"):
        main(["demo"])
    assert f"report will be written to {tmp_path.resolve() / 'subroc-ext-demo'}/" in (
        capsys.readouterr().err
    )
    ignored = (Path(__file__).resolve().parents[1] / ".gitignore").read_text().splitlines()
    assert "subroc-ext-demo/" in ignored and "subroc-ext-report/" in ignored


def stop_here(*args, **kwargs):
    raise AssertionError("stopped: the search would run now")


@pytest.mark.parametrize("options, case_mix", [([], False), (["--case-mix"], True)])
def test_demo_searches_by_case_mix_on_request(tmp_path, monkeypatch, options, case_mix):
    """``demo --case-mix`` asks find_subgroups for the case-mix-adjusted search (the
    demo's top rows are all mostly range restriction: this shows what is left)."""
    asked = {}

    def record(*args, **keywords):
        asked.update(keywords)
        raise AssertionError("stopped: the search would run now")

    monkeypatch.setattr(cli_module, "find_subgroups", record)
    with pytest.raises(AssertionError, match="stopped"):
        main(["demo", *options, "--quiet", "--out", str(tmp_path)])
    assert asked["case_mix"] is case_mix


@pytest.mark.parametrize("command", ["run", "demo"])
def test_unwritable_out_fails_before_the_search(workdir, tmp_path, monkeypatch, capsys, command):
    """--out that cannot hold files (here: an existing file) fails in a second,
    not after the search. (A read-only directory would do, but not as root.)"""
    monkeypatch.setattr(cli_module, "find_subgroups", stop_here)
    monkeypatch.setattr(cli_module, "load_adult", stop_here)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    arguments = [str(workdir / "data.csv"), *RUN] if command == "run" else ["--quiet"]
    assert main([command, *arguments, "--out", str(blocker)]) == 2
    captured = capsys.readouterr()
    assert f"cannot write the report to '{blocker}'" in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and captured.out == ""


def write_half_then_fail(write_the_rest_to):
    """A writer that puts half a file at its target, then fails as a full disk does."""

    def write(self_or_path, path=None, *args, **kwargs):
        target = path if path is not None else self_or_path
        Path(target).write_bytes(b"half of the fi")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return write


@pytest.mark.parametrize(
    "failing, patch",
    [("subgroups.csv", (pd.DataFrame, "to_csv")), ("curves.png", ("figure", "savefig"))],
)
def test_a_failing_write_is_one_line_and_leaves_no_partial_file(workdir, tmp_path, monkeypatch,
                                                                capsys, failing, patch):  # fmt: skip
    """A full disk while writing one file: one line naming that file, exit code 2,
    no hidden part left, and the results still printed; a failing table leaves
    the earlier run whole, a failing report leaves the new table alone (never
    beside the earlier run's report)."""
    import matplotlib.figure

    owner, name = patch
    owner = matplotlib.figure.Figure if owner == "figure" else owner
    out = tmp_path / "out"
    out.mkdir()
    (out / failing).write_text("an earlier run's complete file")
    monkeypatch.setattr(owner, name, write_half_then_fail(out / failing))
    code = main(["run", str(workdir / "data.csv"), *RUN, "--depth", "1", "--samples", "50",
                 "--out", str(out)])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2
    assert without_power_warning(captured.err) == (
        f"subroc-ext: error: cannot write '{out / failing}': No space left on device\n"
    )
    if failing == "subgroups.csv":
        assert os.listdir(out) == [failing] and (out / failing).read_text() == "an earlier run's complete file"
    else:
        # the table and its findings; the earlier run's curves.png went with it
        assert sorted(os.listdir(out)) == ["findings.json", "subgroups.csv"]
    assert "region=='east'" in captured.out and "Runtime:" in captured.out
    assert "Report:" not in captured.out
    if failing == "curves.png":  # written first, complete
        written = pd.read_csv(out / "subgroups.csv")
        assert f"Top {min(10, len(written))} of {len(written)} distinct subgroups" in captured.out
        assert not (out / "report.html").exists()


def subroc_ext_command(*args):
    """The command line as a new user runs it (the installed script, else ``python -m``)."""
    entry_point = shutil.which(
        "subroc-ext", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    )
    return [*([entry_point] if entry_point else MODULE), *map(str, args)]


def assert_every_file_written(out):
    table = pd.read_csv(out / "subgroups.csv")
    assert len(table) > 0 and table["p_value"].notna().all()
    assert (out / "curves.png").read_bytes().startswith(b"\x89PNG")
    assert (out / "report.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert sorted(os.listdir(out)) == ["curves.png", "findings.json", "report.html", "subgroups.csv"]


@pytest.mark.extended  # a subprocess on a pipe
def test_head_keeps_every_file(workdir, tmp_path):
    """``subroc-ext run ... | head -1``: the first line, no traceback, every file."""
    command = " ".join(shlex.quote(part) for part in subroc_ext_command(
        "run", workdir / "data.csv", *RUN, "--depth", 1, "--samples", 20, "--out", tmp_path / "out"
    ))  # fmt: skip
    process = subprocess.run(
        ["bash", "-c", f"{command} | head -1; exit ${{PIPESTATUS[0]}}"], capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert process.returncode in (0, 141) and without_power_warning(process.stderr) == ""
    assert process.stdout.startswith(("Calibration on the whole data", "Where the ROC AUC", "No subgroup where"))
    assert process.stdout.count("\n") == 1
    assert_every_file_written(tmp_path / "out")


@pytest.mark.extended  # a subprocess on a pipe
def test_closed_pipe_ends_quietly_with_141(workdir, tmp_path):
    """Output to a pipe closed before the first line (a closed pipe for sure,
    unlike ``| head -1``, which may read everything): exit code 141 as for
    SIGPIPE, nothing on stderr, every file written."""
    read, write = os.pipe()
    os.close(read)
    try:
        process = subprocess.run(
            subroc_ext_command("run", workdir / "data.csv", *RUN, "--depth", 1, "--samples", 20,
                               "--out", tmp_path / "out"),
            stdout=write, stderr=subprocess.PIPE, text=True, timeout=600,
        )  # fmt: skip
    finally:
        os.close(write)
    assert process.returncode == 141 and without_power_warning(process.stderr) == ""
    assert_every_file_written(tmp_path / "out")


@pytest.mark.extended  # a subprocess interrupted while it tests (about 45 s)
def test_ctrl_c_during_the_test_keeps_the_searched_subgroups(workdir, tmp_path):
    """SIGINT to a running command during the significance test: one line
    (below the progress bar it cuts short), exit code 130, subgroups.csv with the searched
    subgroups, untested."""
    out = tmp_path / "out"
    process = subprocess.Popen(
        subroc_ext_command("run", workdir / "data.csv", "--label", "y", "--score", "p",
                           "--samples", 1_000_000, "--out", out),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # as typed in a terminal: a command started in the background of a
        # script (CI) inherits SIGINT ignored, and Python then never sees it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    seen = b""
    try:
        while b"testing" not in seen:  # the test's progress bar
            chunk = os.read(process.stderr.fileno(), 4096)
            assert chunk, f"ended before the test: {seen.decode()}"
            seen += chunk
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=600)
    finally:
        process.kill()
    stderr = (seen + stderr).decode()
    lines = [line for line in stderr.replace("\r", "\n").splitlines() if "subroc-ext" in line]
    table = pd.read_csv(out / "subgroups.csv")
    assert process.returncode == 130 and stdout == b"" and "Traceback" not in stderr
    assert lines == [
        f"subroc-ext: interrupted during the significance test; the {len(table)} searched "
        f"subgroups are in {(out / 'subgroups.csv').resolve()}, untested (no p-values)"
    ]
    assert len(table) > 10 and table["description"].str.contains("region=='east'").any()
    assert table[["p_value", "p_value_corrected", "significant"]].isna().all().all()
    assert (table["size_search"] >= 20).all() and not (out / "report.html").exists()


def test_ctrl_c_in_process_and_before_the_test(workdir, tmp_path, monkeypatch, capsys):
    """Ctrl-C during the test through main(): the untested table equals a tested
    run's but for the test columns; Ctrl-C during the search: one line, nothing written."""
    arguments = ["run", str(workdir / "data.csv"), *RUN, "--depth", "1", "--samples", "20"]
    assert main([*arguments, "--out", str(tmp_path / "tested")]) == 0
    capsys.readouterr()

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(steps, "test", interrupt)
    assert main([*arguments, "--out", str(tmp_path / "untested")]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert "interrupted during the significance test; the " in captured.err
    tested = pd.read_csv(tmp_path / "tested" / "subgroups.csv")
    untested = pd.read_csv(tmp_path / "untested" / "subgroups.csv")
    test_columns = steps.TEST_COLUMNS
    pd.testing.assert_frame_equal(untested.drop(columns=test_columns),
                                  tested.drop(columns=[*test_columns, *FAILURE_COLUMNS]))  # fmt: skip
    assert untested[test_columns].isna().all().all()

    monkeypatch.setattr(steps, "search", interrupt)
    assert main([*arguments, "--out", str(tmp_path / "none")]) == 130
    assert capsys.readouterr().err == "subroc-ext: interrupted before the search finished; nothing was written\n"
    assert os.listdir(tmp_path / "none") == []


def test_ctrl_c_that_an_extensions_import_turns_into_an_import_error_is_an_interrupt(workdir, tmp_path, monkeypatch,
                                                                                   capsys):
    """Ctrl-C landing inside an extension module's import (pandas' C part,
    PyCapsule_Import) comes out as an ImportError that does not carry the
    KeyboardInterrupt (the hostile probe's 'Ctrl-C at 0.3 s' on a loaded
    machine: exit 1 and a traceback): read as the interrupt, one line, exit
    130, the earlier run's files removed. An ImportError without a signal
    stays an error."""
    import subroc_ext.cli as cli

    def replaced(name, package=None):
        signalled = False
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            signalled = True
        assert signalled
        raise ImportError('PyCapsule_Import could not import module "pandas"')  # the interrupt not chained

    monkeypatch.setattr(cli.importlib, "import_module", replaced)
    out = tmp_path / "out"
    out.mkdir()
    (out / "subgroups.csv").write_text("an earlier run's")
    assert main(["run", str(workdir / "data.csv"), *RUN, "--out", str(out)]) == 130
    assert capsys.readouterr().err.startswith("subroc-ext: interrupted before the search finished; nothing to keep")
    assert os.listdir(out) == []

    def failing(name, package=None):
        raise ImportError("no module named 'pandas'")

    monkeypatch.setattr(cli.importlib, "import_module", failing)
    with pytest.raises(ImportError, match="no module named"):
        main(["run", str(workdir / "data.csv"), *RUN, "--out", str(out)])


def test_ctrl_c_while_the_command_is_imported_is_one_line(workdir, tmp_path, monkeypatch, capsys):
    """Ctrl-C while the command's modules are imported (numba half imported,
    say): one line and exit code 130, importing nothing more to say so (a half
    imported module would fail that import with a traceback); the earlier
    run's files are removed from --out, as when cut before the search."""
    import subroc_ext.cli as cli

    def interrupted(name, package=None):
        if name == ".commands":
            raise KeyboardInterrupt
        raise AssertionError(f"{name} imported after Ctrl-C")

    monkeypatch.setattr(cli.importlib, "import_module", interrupted)
    out = tmp_path / "out"
    out.mkdir()
    for name in ("subgroups.csv", "findings.json", "report.html", "notes.txt"):
        (out / name).write_text("an earlier run's")
    assert main(["run", str(workdir / "data.csv"), *RUN, "--out", str(out)]) == 130
    # issue 59: the earlier run's files were left, although the documentation said they are removed
    assert capsys.readouterr().err == (  # --quiet: no progress line to end
        "subroc-ext: interrupted before the search finished; nothing to keep, and the earlier run's files were "
        f"removed from {out.resolve()} (none is this run's)\n"
    )
    assert os.listdir(out) == ["notes.txt"]
    assert main(["recheck", str(out / "findings.json"), str(workdir / "data.csv")]) == 130
    assert capsys.readouterr().err == "\nsubroc-ext: interrupted\n"  # recheck writes no file


class FullStream(io.StringIO):
    """A standard output on a full disk (``>/dev/full``)."""

    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failing_gate_on_a_full_stdout_is_exit_code_2_with_its_line_on_stderr(workdir, tmp_path, monkeypatch,
                                                                                capsys):  # fmt: skip
    # issue 59: was exit code 3, and the gate's line lost
    monkeypatch.setattr(sys, "stdout", FullStream())
    out = tmp_path / "out"
    code = main(["run", str(workdir / "data.csv"), *RUN, "--depth", "1", "--fail-on", "failure", "--out", str(out)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and lines[-2].startswith("subroc-ext: gate failed (exit code 3): 1 failure: region=='east'")
    assert lines[-1] == "subroc-ext: error: cannot write to standard output: No space left on device; every file was written"
    assert sorted(os.listdir(out)) == ["curves.png", "findings.json", "report.html", "subgroups.csv"]
    # recheck writes no file: it does not say every file was written
    assert main(["recheck", str(out / "findings.json"), str(workdir / "data.csv")]) == 2
    assert capsys.readouterr().err == "subroc-ext: error: cannot write to standard output: No space left on device\n"


def test_collapse_and_max_overlap_options(workdir, tmp_path, capsys):
    common = [str(workdir / "data.csv"), *RUN, "--depth", "2", "--samples", "20", "--top", "30"]
    assert main(["run", *common, "--no-collapse", "--max-overlap", "none", "--out", str(tmp_path / "all")]) == 0
    assert main(["run", *common, "--max-overlap", "0.2", "--out", str(tmp_path / "diverse")]) == 0
    capsys.readouterr()
    every = pd.read_csv(tmp_path / "all" / "subgroups.csv", keep_default_na=False)
    diverse = pd.read_csv(tmp_path / "diverse" / "subgroups.csv", keep_default_na=False)
    # 20 of the top 30 have quality > 0 (are findings)
    assert len(every) == 20 and (every["alternatives"] == "").all() and (every["quality"] > 0).all()
    assert len(diverse) < 20 and (diverse["overlap"].iloc[1:].astype(float) <= 0.2).all()
    assert main(["run", *common, "--max-overlap", "2"]) == 2
    assert "argument --max-overlap: expected a Jaccard index between 0 and 1, or none" in (
        capsys.readouterr().err
    )


def test_help(capsys):
    assert main(["run", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--validation-fraction" in out and "example" in out
    assert main(["demo", "--help"]) == 0
    assert "10,000" in capsys.readouterr().out



@pytest.mark.parametrize(
    "args, message",
    [
        (["three.csv", *RUN], "label column 'y' must be binary but has 3 distinct values"),
        (["nan.csv", *RUN], "score column 'p' contains 1 NaN or infinite value(s)"),
        (["data.csv", "--label", "target", "--score", "p"], "column(s) ['target'] not found"),
        (["missing.csv", *RUN], "data file 'missing.csv' not found"),
        (["empty.csv", *RUN], "data file 'empty.csv' is empty"),
        (["data.csv", *RUN, "--validation-fraction", "1.5"],
         "argument --validation-fraction: expected a fraction strictly between 0 and 1, got '1.5'"),
        (["data.csv", *RUN, "--ignore", "nope"], "column(s) ['nope'] not found"),
        (["data.csv", "--validation", "gone.csv", *RUN], "validation file 'gone.csv' not found"),
        (["data.csv", *RUN, "--validation-fraction", "0.0001"], "the validation split is empty"),
        (["data.csv", *RUN, "--samples", "many"],
         "argument --samples: expected 'adaptive' or a positive integer, got 'many'"),
        (["data.csv", *RUN, "--balance-weight", "-1"],
         "argument --balance-weight: expected a finite number >= 0, got '-1'"),
        (["data.csv", *RUN, "--min-support", "1.5"],
         "argument --min-support: expected a number of rows (integer >= 0) or a fraction "
         "strictly between 0 and 1, got '1.5'"),
        (["data.csv", *RUN, "--min-support", "-3"], "argument --min-support: expected"),
        (["strings.csv", *RUN], "pass --positive-label to say which one is the positive class"),
        (["strings.csv", *RUN, "--positive-label", "maybe"],
         "positive label 'maybe' does not occur in label column 'y'"),
        (["data.csv", *RUN, "--positive-label", "yes"],
         "--positive-label 'yes' is not an integer, but label column 'y' holds int64 values"),
        (["booleans.csv", *RUN, "--positive-label", "maybe"],
         "--positive-label 'maybe' is not a boolean"),
        (["data.csv", "--label", "y", "--score", "region"], "score column 'region' must be numeric"),
        (["data.parquet", *RUN], "'data.parquet'"),
        (["data.xlsx", *RUN], "data file 'data.xlsx' not found"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_code_2(workdir, monkeypatch, capsys, args, message):
    """Bad input: exit code 2, one line on stderr naming the problem, nothing on
    stdout (through main(), in process: an uncaught exception fails the test)."""
    monkeypatch.chdir(workdir)
    assert main(["run", *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and captured.out == ""


@pytest.fixture(scope="module")
def csv_result(workdir, tmp_path_factory):
    """subgroups.csv of a quick run on data.csv, and the options it used."""
    options = [*RUN, "--depth", "1", "--samples", "20", "--top", "10"]
    out = tmp_path_factory.mktemp("csv-result")
    assert main(["run", str(workdir / "data.csv"), *options, "--out", str(out)]) == 0
    return pd.read_csv(out / "subgroups.csv"), options


@pytest.mark.parametrize(
    "name, write, sep",
    [
        ("data.tsv", lambda frame, path: frame.to_csv(path, sep="\t", index=False), []),
        ("data.csv", lambda frame, path: frame.to_csv(path, sep=";", index=False), ["--sep", ";"]),
        ("data.txt", lambda frame, path: frame.to_csv(path, sep="\t", index=False), ["--sep", "\\t"]),
        ("data.parquet", lambda frame, path: frame.to_parquet(path), []),
    ],
)  # fmt: skip
def test_every_format_gives_the_same_result(workdir, csv_result, tmp_path, capsys, name, write,
                                            sep):  # fmt: skip
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    expected, options = csv_result
    write(pd.read_csv(workdir / "data.csv"), tmp_path / name)
    assert main(["run", str(tmp_path / name), *options, *sep, "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "out" / "subgroups.csv"), expected)


def test_semicolon_file_without_sep_says_what_to_pass(workdir, tmp_path, capsys):
    """The issue's semicolon file: one line naming the separator to pass, not
    'available columns: ['year;age;...']'."""
    pd.read_csv(workdir / "data.csv").to_csv(tmp_path / "data.csv", sep=";", index=False)
    assert main(["run", str(tmp_path / "data.csv"), *RUN]) == 2
    assert capsys.readouterr().err == (
        f"subroc-ext: error: data file '{tmp_path / 'data.csv'}' has one column, "
        "'region;age;plan;y;p': its fields look separated by ';', not ','; pass --sep ';'\n"
    )


def test_nbins_and_the_seed_reach_the_api(workdir, tmp_path, capsys):
    """--nbins 3 and the default seed: the table of find_subgroups(nbins=3)
    (seeded 0 by default), whose conditions on age use 2 cut-points."""
    assert main(["run", str(workdir / "data.csv"), *RUN, "--depth", "1", "--samples", "30",
                 "--nbins", "3", "--no-collapse", "--mode", "both", "--out", str(tmp_path)]) == 0  # fmt: skip
    capsys.readouterr()
    written = pd.read_csv(tmp_path / "subgroups.csv", keep_default_na=False)
    expected = subroc_ext.find_subgroups(
        pd.read_csv(workdir / "data.csv"), label="y", score="p", depth=1, n_samples=30, nbins=3,
        collapse_identical=False, mode="both", progress=False,
    ).drop(columns="subgroup")  # fmt: skip
    assert written["description"].tolist() == expected["description"].tolist()
    np.testing.assert_allclose(written["p_value"].astype(float), expected["p_value"])
    ages = written["description"][written["description"].str.startswith("age")]
    assert len(ages) and len(set(ages.str.findall(r"\d+").sum())) == 2


@pytest.mark.parametrize(
    "options, reason",
    [
        (["--min-support", "0.6"], "every condition covers fewer rows than the minimum support of "
                                   "600 (the largest, {largest}, covers {size}); lower --min-support"),
        (["--ignore", "region", "age", "plan"], "no column is left to describe subgroups with "
                                                "(every column is the label, a score or --ignore'd)"),
    ],
)  # fmt: skip
def test_empty_result_says_why(workdir, tmp_path, capsys, options, reason):
    """Nothing found: the reason, with the largest condition counted here from
    the search split (--bins-only: values and bins of a fifth of the rows); an
    empty subgroups.csv and the report still written."""
    assert main(["run", str(workdir / "data.csv"), *RUN, *options, "--bins-only",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    search, _ = split_validation(pd.read_csv(workdir / "data.csv"), 0.5, 0)
    counts = pd.concat([search[column].value_counts().rename(lambda v, c=column: f"{c}=='{v}'")
                        for column in ("region", "plan")])  # fmt: skip
    reason = reason.format(largest=counts.idxmax(), size=counts.max())
    calibration, nothing = out.splitlines()[:2]  # the whole data's calibration first: its scores over-promise
    assert calibration.startswith("Calibration on the whole data (2,000 rows): the model overestimates the risk ")
    assert nothing == f"No subgroup found in the 1,000 searched rows: {reason}."
    assert len(pd.read_csv(tmp_path / "subgroups.csv")) == 0 and (tmp_path / "report.html").is_file()
