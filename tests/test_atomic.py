"""Tests of :mod:`subroc_ext.utils.atomic`: a file is replaced whole or not at all,
nothing is left behind, an error names the final file, a folder never mixes
two runs, and what killed runs left is removed (only theirs)."""

import errno
import os
import subprocess
import sys
import tempfile

import pytest

from subroc_ext.utils.atomic import STAGING_PREFIX, atomic_directory, atomic_path, remove_stale


def full_disk():
    """The error a write to a full disk raises (no file name: a write, not an open)."""
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_atomic_path_replaces_the_file_with_usual_permissions(tmp_path):
    target = tmp_path / "table.csv"
    target.write_text("old")
    (tmp_path / "plain.txt").write_text("")
    with atomic_path(target) as part:
        assert part.parent == tmp_path and part.name.startswith(".table.csv.")
        assert not part.exists() and target.read_text() == "old"  # old file until the end
        part.write_text("new")
    assert target.read_text() == "new" and sorted(os.listdir(tmp_path)) == ["plain.txt", "table.csv"]
    assert target.stat().st_mode == (tmp_path / "plain.txt").stat().st_mode


@pytest.mark.parametrize("error", [full_disk(), KeyboardInterrupt()])
def test_atomic_path_keeps_the_old_file_and_no_part_on_any_error(tmp_path, error):
    target = tmp_path / "table.csv"
    target.write_text("old, complete")
    with pytest.raises(type(error)) as raised:
        with atomic_path(target) as part:
            part.write_text("half of the ne")
            raise error
    assert target.read_text() == "old, complete" and os.listdir(tmp_path) == ["table.csv"]
    if isinstance(error, OSError):  # named after the final file
        assert raised.value.filename == str(target) and raised.value.errno == errno.ENOSPC


def test_atomic_path_in_a_missing_folder_names_the_file(tmp_path):
    with pytest.raises(OSError) as raised:
        with atomic_path(tmp_path / "gone" / "table.csv") as part:
            part.write_text("x")
    assert raised.value.filename == str(tmp_path / "gone" / "table.csv")


def test_atomic_directory_moves_every_file(tmp_path):
    (tmp_path / "report.html").write_text("old")
    with atomic_directory(tmp_path) as folder:
        assert folder.parent == tmp_path and folder.name.startswith(".")
        (folder / "report.html").write_text("new")
        (folder / "curves.png").write_bytes(b"png")
        assert (tmp_path / "report.html").read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["curves.png", "report.html"]
    assert (tmp_path / "report.html").read_text() == "new"


def test_atomic_directory_moves_nothing_when_a_write_fails(tmp_path):
    """The error names the file being written (the last one started), in the final folder."""
    (tmp_path / "report.html").write_text("old")
    with pytest.raises(OSError) as raised:
        with atomic_directory(tmp_path) as folder:
            (folder / "subgroups.csv").write_text("complete")
            os.utime(folder / "subgroups.csv", ns=(0, 0))
            (folder / "curves.png").write_bytes(b"half a pn")
            raise full_disk()
    assert raised.value.filename == str(tmp_path / "curves.png")
    assert os.listdir(tmp_path) == ["report.html"] and (tmp_path / "report.html").read_text() == "old"


def test_atomic_directory_error_with_a_file_name(tmp_path):
    with pytest.raises(OSError) as raised:
        with atomic_directory(tmp_path) as folder:
            open(folder / "missing" / "x.png", "rb")
    assert raised.value.filename == str(tmp_path / "missing" / "x.png")
    assert raised.value.errno == errno.ENOENT and os.listdir(tmp_path) == []


def test_atomic_directory_replaces_an_earlier_runs_files(tmp_path):
    for name in ("report.html", "rows.csv", "notes.txt"):
        (tmp_path / name).write_text("earlier")
    with atomic_directory(tmp_path, replaces=["report.html", "rows.csv", "curves.png"]) as folder:
        (folder / "report.html").write_text("new")
    assert sorted(os.listdir(tmp_path)) == ["notes.txt", "report.html"]  # rows.csv was the earlier run's
    assert (tmp_path / "report.html").read_text() == "new"


@pytest.mark.parametrize("error", [full_disk(), KeyboardInterrupt()])
def test_atomic_directory_keeps_what_it_is_told_when_the_block_fails(tmp_path, error):
    for name in ("table.csv", "report.html"):
        (tmp_path / name).write_text("earlier")
    with pytest.raises(type(error)):
        with atomic_directory(tmp_path, replaces=["table.csv", "report.html"], keep=["table.csv"]) as folder:
            (folder / "table.csv").write_text("new")
            (folder / "report.html").write_text("half")
            raise error
    assert os.listdir(tmp_path) == ["table.csv"] and (tmp_path / "table.csv").read_text() == "new"
    with pytest.raises(OSError):  # nothing to keep yet: the earlier run stays whole
        with atomic_directory(tmp_path, replaces=["table.csv"], keep=["table.csv"]):
            raise full_disk()
    assert (tmp_path / "table.csv").read_text() == "new"


def gone_pid():
    """The id of a process that has ended."""
    process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(process.stdout)


def test_remove_stale_removes_only_what_ended_runs_left(tmp_path):
    dead, alive = gone_pid(), os.getppid()
    left = [f"{STAGING_PREFIX}{dead}-ab_c12de", f"{STAGING_PREFIX}xyz_0123",  # 0.1's names: no process id
            f".subroc.csv.{dead}-0123456789ab.part", ".subroc.csv.0123456789ab.part"]  # fmt: skip
    kept = [f"{STAGING_PREFIX}{alive}-ab_c12de", f"{STAGING_PREFIX}{os.getpid()}-q",
            f".report.html.{alive}-0123456789ab.part", ".subroc-ext-notes.txt", "report.html", ".hidden.part"]  # fmt: skip
    for name in left + kept:
        if name.startswith(STAGING_PREFIX) and "." not in name[1:]:
            (tmp_path / name).mkdir()
            (tmp_path / name / "report.html").write_text("half")
        else:
            (tmp_path / name).write_text("")
    assert remove_stale(tmp_path) == sorted(left)
    assert sorted(os.listdir(tmp_path)) == sorted(kept)


def test_atomic_directory_on_a_full_disk_names_the_first_file(tmp_path, monkeypatch):
    # issue 59: a full disk refused the hidden folder, and the error named that folder, not a file
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / ".subroc-ext-1-abc"))

    monkeypatch.setattr(tempfile, "mkdtemp", full)
    with pytest.raises(OSError) as raised:
        with atomic_directory(tmp_path, keep=["subgroups.csv", "findings.json"]):
            pass
    assert raised.value.filename == str(tmp_path / "subgroups.csv") and raised.value.errno == errno.ENOSPC
