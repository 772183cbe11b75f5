"""Write files whole or not at all: to a temporary name in the same folder,
then ``os.replace`` (atomic on POSIX and Windows).

A reader, a crash, a full disk or Ctrl-C never leaves half a file under the
final name: either the earlier file is still there or the new one is,
complete. The temporary file is removed on any error. An ``OSError`` raised
while writing names the final file (``error.filename``), not the temporary
one, so that a message built from it tells the user which file failed.

A run's several files are written into a hidden staging folder
(:func:`atomic_directory`) and moved out together, after the earlier run's
files of the same names are removed, so that a folder never holds files of
two runs. Only SIGKILL (or a power cut) can leave a staging folder or a
temporary file behind; their names carry the writing process's id, and
:func:`remove_stale` removes those whose process is gone.
"""

import contextlib
import os
import re
import shutil
import tempfile
import uuid
from pathlib import Path

__all__ = ["STAGING_PREFIX", "atomic_path", "atomic_directory", "remove_stale"]

#: Start of the name of every staging folder (then the process id and a random part).
STAGING_PREFIX = ".subroc-ext-"
#: Names of what a run leaves while it writes: staging folders and temporary
#: files, each with the process id where known (names of subroc-ext 0.1 have none).
_LEFT_BEHIND = (
    re.compile(re.escape(STAGING_PREFIX) + r"(?:(\d+)-)?[a-z0-9_]+"),
    re.compile(r"\..+\.(?:(\d+)-)?[0-9a-f]{12}\.part"),
)


def _named(error, path):
    """``error`` (an ``OSError``) as one about ``path``."""
    return OSError(error.errno, error.strerror or str(error), str(path))


@contextlib.contextmanager
def atomic_path(path):
    """A temporary path beside ``path``, renamed to ``path`` when the block succeeds.

    Parameters
    ----------
    path : str or pathlib.Path
        The file to write; its folder must exist.

    Yields
    ------
    pathlib.Path
        Where to write (a hidden name in the same folder, not created yet, so
        the writer creates it with the usual permissions).

    Raises
    ------
    OSError
        Writing or renaming failed; ``filename`` is ``path``. The temporary
        file is removed (also on any other exception, e.g. Ctrl-C).

    Examples
    --------
    >>> import pandas as pd
    >>> with atomic_path(tmp / "table.csv") as part:                   # doctest: +SKIP
    ...     pd.DataFrame({"a": [1]}).to_csv(part, index=False)
    """
    path = Path(path)
    part = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.part")
    try:
        yield part
        os.replace(part, path)
    except OSError as error:
        part.unlink(missing_ok=True)
        raise _named(error, path) from error
    except BaseException:
        part.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_directory(out_dir, *, replaces=(), keep=()):
    """A fresh hidden folder inside ``out_dir`` whose files move to ``out_dir``
    when the block succeeds, each by ``os.replace``.

    For writers that put several files into one folder (e.g.
    :func:`~subroc_ext.write_report`): if any of them fails, no file in
    ``out_dir`` is touched, but for the files named in ``keep``.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        An existing folder.
    replaces : sequence of str, default=()
        Names of an earlier run's files: those in ``out_dir`` are removed
        before the new files move in, so that the folder never mixes files
        of two runs (an earlier ``rows.csv`` does not stay beside a new
        table written without one).
    keep : sequence of str, default=()
        Files that move in (first, in this order, after the same removal)
        even when the block fails, if they are in the folder by then: e.g.
        the table of a run whose report failed. Write them whole (with
        :func:`atomic_path` inside the folder).

    Yields
    ------
    pathlib.Path
        The folder to write into (named ``.subroc-ext-<process id>-...``).

    Raises
    ------
    OSError
        A write or a move failed; ``filename`` is the file's final path in
        ``out_dir`` where known (the first of ``keep`` when not even the
        hidden folder could be made, as on a full disk). The hidden folder
        is removed.
    """
    out_dir = Path(out_dir)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=out_dir))
    except OSError as error:  # a full disk: the first file to write is the one that cannot be written
        raise _named(error, out_dir / keep[0] if keep else out_dir) from error
    try:
        try:
            try:
                yield staging
            except BaseException:
                _move_in(staging, out_dir, [name for name in keep if (staging / name).exists()], replaces)
                raise
            names = sorted(path.name for path in staging.iterdir())
            _move_in(staging, out_dir, [*[n for n in keep if n in names], *[n for n in names if n not in keep]],
                     replaces)  # fmt: skip
        except OSError as error:
            raise _named(error, _final_name(error, staging, out_dir)) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _move_in(staging, out_dir, names, replaces):
    """Remove the files ``replaces`` from ``out_dir``, then move ``names`` there (none: nothing)."""
    if not names:
        return
    for name in replaces:
        (out_dir / name).unlink(missing_ok=True)
    for name in names:
        os.replace(staging / name, out_dir / name)


def _owner_is_gone(pid):
    """Whether no process ``pid`` (a string of digits) runs; None, a name without a
    process id (subroc-ext 0.1), counts as gone. On Windows, where signal 0 is
    Ctrl-C, only names without a process id count as gone."""
    if pid is None:
        return True
    if os.name == "nt":
        return False
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, OverflowError):
        return True
    except PermissionError:  # another user's process
        return False
    return False


def remove_stale(out_dir):
    """Remove the staging folders and temporary files that killed runs left in ``out_dir``.

    Only names this module makes (``.subroc-ext-<pid>-...`` folders,
    ``.<file>.<pid>-<hex>.part`` files) whose process is gone (or that carry
    no process id) are removed; a run writing into the same folder at the
    same time keeps its own.

    Parameters
    ----------
    out_dir : str or pathlib.Path

    Returns
    -------
    list of str
        The names removed.
    """
    removed = []
    for entry in sorted(Path(out_dir).iterdir()):
        for pattern in _LEFT_BEHIND:
            match = pattern.fullmatch(entry.name)
            if match and _owner_is_gone(match.group(1)):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
                removed.append(entry.name)
                break
    return removed


def _final_name(error, staging, out_dir):
    """The path in ``out_dir`` of the file whose writing in ``staging`` raised ``error``."""
    if error.filename:
        failed = Path(error.filename)
        return out_dir / failed.relative_to(staging) if failed.is_relative_to(staging) else failed
    started = sorted(staging.iterdir(), key=lambda path: path.stat().st_mtime_ns)
    return out_dir / started[-1].name if started else out_dir
