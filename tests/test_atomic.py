"""Tests of :mod:`subroc_ext.utils.atomic`: a file is replaced whole or not at all,
nothing is left behind, and an error names the final file."""

import errno
import os

import pytest

from subroc_ext.utils.atomic import atomic_directory, atomic_path


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
