"""Write files whole or not at all: to a temporary name in the same folder,
then ``os.replace`` (atomic on POSIX and Windows).

A reader, a crash, a full disk or Ctrl-C never leaves half a file under the
final name: either the earlier file is still there or the new one is,
complete. The temporary file is removed on any error. An ``OSError`` raised
while writing names the final file (``error.filename``), not the temporary
one, so that a message built from it tells the user which file failed.
"""

import contextlib
import os
import shutil
import tempfile
import uuid
from pathlib import Path

__all__ = ["atomic_path", "atomic_directory"]


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
    part = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.part")
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
def atomic_directory(out_dir):
    """A fresh hidden folder inside ``out_dir`` whose files move to ``out_dir``
    when the block succeeds, each by ``os.replace`` (in name order).

    For writers that put several files into one folder (e.g.
    :func:`~subroc_ext.write_report`): if any of them fails, no file in
    ``out_dir`` is touched.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        An existing folder.

    Yields
    ------
    pathlib.Path
        The folder to write into.

    Raises
    ------
    OSError
        A write or a move failed; ``filename`` is the file's final path in
        ``out_dir`` where known. The hidden folder is removed.
    """
    out_dir = Path(out_dir)
    staging = Path(tempfile.mkdtemp(prefix=".subroc-ext-", dir=out_dir))
    try:
        try:
            yield staging
            for written in sorted(staging.iterdir()):
                os.replace(written, out_dir / written.name)
        except OSError as error:
            raise _named(error, _final_name(error, staging, out_dir)) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _final_name(error, staging, out_dir):
    """The path in ``out_dir`` of the file whose writing in ``staging`` raised ``error``."""
    if error.filename:
        failed = Path(error.filename)
        return out_dir / failed.relative_to(staging) if failed.is_relative_to(staging) else failed
    started = sorted(staging.iterdir(), key=lambda path: path.stat().st_mtime_ns)
    return out_dir / started[-1].name if started else out_dir
