"""Read the command line's input tables: CSV, TSV and other delimited text, Parquet.

The format comes from the file's extension (``.csv``, ``.tsv``/``.tab``, each
also compressed, e.g. ``.csv.gz``; ``.parquet``/``.pq``) or, for delimited
text with any extension, from ``sep``. Every problem is one ``ValueError``
(``FileNotFoundError`` for a missing file) whose message names the file and
says what to do, in terms of the command's options (``--sep``,
``--encoding``): also a file that cannot be opened (permissions) and a
compressed file that is cut short or corrupt, which the decompressors report
as ``EOFError``, ``gzip.BadGzipFile``, ``zlib.error``, ``lzma.LZMAError``,
``zipfile.BadZipFile`` or ``tarfile.TarError``.
"""

import errno
import gzip
import lzma
import re
import tarfile
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["EXACT_FLOATS", "PARQUET_EXTRA", "parse_separator", "read_table"]

#: ``pandas.read_csv`` keywords that read numbers exactly as Python writes them:
#: before pandas 3.1 the C parser's default may change the last digit (1,413 of
#: 2,000 random floats in a round trip), which can break or create ties in
#: scores; pandas 3.1 parses exactly by default and deprecates the keyword.
EXACT_FLOATS = (
    {"float_precision": "round_trip"}
    if tuple(int(part) for part in pd.__version__.split(".")[:2]) < (3, 1)
    else {}
)

#: What to install to read Parquet files.
PARQUET_EXTRA = "pip install 'subroc-ext[parquet]'"

_PARQUET = (".parquet", ".pq")
_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
#: Compression extensions pandas recognises after the format's.
_COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst", ".tar")
#: Separators a one-column table may really be split by.
_LIKELY = {";": "';'", "\t": "tab ('\\t')", "|": "'|'"}
#: Names pandas gives a column it renamed: an empty header, a second column of one name.
_UNNAMED, _NUMBERED = re.compile(r"Unnamed: \d+"), re.compile(r".+\.\d+")
#: What the decompressors raise for data that is not what its extension says.
_CORRUPT = (zlib.error, lzma.LZMAError, zipfile.BadZipFile, tarfile.TarError)
#: Characters of the data (a column name, a library's message) a message quotes at most.
_QUOTED = 60
#: Repeated column names a message lists at most.
_LISTED = 3


def _clip(text, limit=_QUOTED):
    """``text`` on one line, cut to ``limit`` characters (``...`` marks a cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else f"{text[:limit]}..."


def parse_separator(text):
    """A field separator given on the command line: one character, where
    ``\\t`` and ``tab`` mean the tab character.

    Raises ``ValueError`` for anything else.
    """
    separator = {"\\t": "\t", "tab": "\t"}.get(text.lower() if len(text) > 1 else text, text)
    if len(separator) != 1:
        raise ValueError(f"expected one character (or \\t or tab), got {text!r}")
    return separator


def _format(path, sep, name):
    """``'parquet'`` or the separator of the delimited text ``path`` (called ``name``)."""
    suffixes = [suffix.lower() for suffix in path.suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    last = suffixes[-1] if suffixes else ""
    if last in _PARQUET:
        if sep is not None:
            raise ValueError(f"--sep does not apply to the Parquet {name}")
        return "parquet"
    if sep is not None:
        return sep
    if last in _SEPARATORS:
        return _SEPARATORS[last]
    raise ValueError(
        f"cannot tell the format of {name} from its extension; use .csv or .tsv (also "
        "compressed, e.g. .csv.gz) or .parquet, or give the field separator with --sep"
    )


def _read_parquet(path, encoding, decimal, name):
    for option, value in (("--encoding", encoding), ("--decimal", decimal)):
        if value is not None:
            raise ValueError(f"{option} does not apply to the Parquet {name}")
    try:
        return pd.read_parquet(path)
    except ImportError as error:
        raise ValueError(
            f"reading the Parquet {name} needs pyarrow or fastparquet: {PARQUET_EXTRA} "
            f"({' '.join(str(error).split())})"
        ) from None
    except (ValueError, OSError) as error:
        raise ValueError(f"cannot read {name} as Parquet: {_clip(error, 200)}") from None


def _read_text(path, sep, encoding, decimal, name):
    try:
        frame = pd.read_csv(path, sep=sep, encoding=encoding, decimal=decimal or ".", **EXACT_FLOATS)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{name} is empty") from None
    except LookupError:
        raise ValueError(f"--encoding {encoding!r} is not an encoding Python knows") from None
    except UnicodeDecodeError as error:
        raise ValueError(
            f"cannot read {name} as {encoding or 'utf-8'} text ({error.reason} at byte "
            f"{error.start}); give its encoding with --encoding, e.g. --encoding latin-1"
        ) from None
    except pd.errors.ParserError as error:
        shown = {"\t": "tab"}.get(sep, repr(sep))
        raise ValueError(f"cannot parse {name} with separator {shown}: {_clip(error, 200)}") from None
    except EOFError:
        raise ValueError(f"cannot read {name}: the compressed file ends early (cut short?)") from None
    except _CORRUPT as error:
        raise ValueError(f"cannot read {name}: the compressed data is corrupt ({_clip(error)})") from None
    except gzip.BadGzipFile:
        with open(path, "rb") as file:
            gzipped = file.read(2) == b"\x1f\x8b"
        what = "it has data after its compressed stream (trailing junk?)" if gzipped else "it is not gzip data"
        raise ValueError(f"cannot read {name}: not a valid gzip file: {what}") from None
    except OSError as error:  # PermissionError; bz2's "Invalid data stream"
        raise ValueError(f"cannot read {name}: {_clip(error.strerror or error)}") from None
    except (ValueError, ImportError) as error:  # a zip of two files; .zst without zstandard
        raise ValueError(f"cannot read {name}: {_clip(error, 200)}") from None
    if frame.shape[1] == 1:
        column = str(frame.columns[0])
        for candidate, shown in _LIKELY.items():
            if candidate != sep and candidate in column:
                option = "--sep '\\t'" if candidate == "\t" else f"--sep '{candidate}'"
                raise ValueError(
                    f"{name} has one column, {_clip(column)!r}: "
                    f"its fields look separated by {shown}, not {sep!r}; pass {option}"
                )
    _check_collapsed_rows(frame, sep, name)
    return frame


def _check_collapsed_rows(frame, sep, name):
    """Raise ``ValueError`` if rows hold all their fields in the first column,
    split by another likely separator (rows pasted from another export): else
    the other columns read as missing and the label is blamed."""
    if frame.shape[1] < 2:
        return
    alone = frame.iloc[:, 1:].isna().all(axis=1).to_numpy() & frame.iloc[:, 0].notna().to_numpy()
    text = frame.iloc[:, 0][alone].astype(str)
    for candidate, shown in _LIKELY.items():
        collapsed = text.str.count(re.escape(candidate)).to_numpy() >= frame.shape[1] - 1 if candidate != sep else []
        if len(collapsed) and collapsed.any():
            first = int(np.flatnonzero(alone)[np.argmax(collapsed)]) + 1
            raise ValueError(
                f"{name}: {int(collapsed.sum()):,} row(s) hold all their fields in column "
                f"{_clip(frame.columns[0])!r}, separated by {shown}, not {sep!r}; give the whole file one "
                f"separator (the first: data row {first:,})"
            )


def _check_header(path, sep, encoding, frame, name):
    """Raise ``ValueError`` if pandas renamed a column of ``path``: a name that
    is there twice (the second read as ``p.1``) or none (``Unnamed: 3``)."""
    renamed = [str(c) for c in frame.columns if _UNNAMED.fullmatch(str(c)) or _NUMBERED.fullmatch(str(c))]
    if not renamed:
        return
    header = pd.read_csv(path, sep=sep, encoding=encoding, header=None, nrows=1, dtype=str,
                         keep_default_na=False).iloc[0].tolist()  # fmt: skip
    positions = {}
    for position, text in enumerate(header, 1):
        positions.setdefault(text.strip(), []).append(position)
    twice = {text: where for text, where in positions.items() if text and len(where) > 1}
    if twice:
        listed = list(twice.items())[:_LISTED]
        shown = "; ".join(f"{_clip(text)!r} (columns {_positions(where)})" for text, where in listed)
        more = f" and {len(twice) - _LISTED:,} more" if len(twice) > _LISTED else ""
        raise ValueError(f"{name} has more than one column named {shown}{more}; give each column its own name")
    if "" in positions:
        shown = ", ".join(map(str, positions[""]))
        raise ValueError(
            f"{name} has a column without a name (column {shown} of its header); name it, or drop "
            "it (a row index saved with the table? save it with index=False)"
        )


def _positions(where):
    """``'2, 5'``; ``'2, 147, 1217, ... (13 in all)'``."""
    shown = ", ".join(map(str, where[:_LISTED]))
    return shown if len(where) <= _LISTED else f"{shown}, ... ({len(where):,} in all)"


def _check_path(path, what):
    """Raise ``FileNotFoundError`` if ``path`` is missing (also a link to a missing
    file) and ``ValueError`` if it is a folder, a symlink loop or cannot be looked at."""
    try:
        path.stat()
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ValueError(f"{what} file '{path}' is a symlink loop (its links lead back to themselves)") from None
        if error.errno != errno.ENOENT:
            raise ValueError(f"cannot read {what} file '{path}': {error.strerror or error}") from None
        link = f" (a symbolic link to the missing '{path.readlink()}')" if path.is_symlink() else ""
        raise FileNotFoundError(f"{what} file '{path}' not found{link}") from None
    if not path.is_file():
        raise ValueError(f"{what} file '{path}' is not a file")


def read_table(path, what="data", *, sep=None, encoding=None, decimal=None):
    """Read a table from a file, in the format its extension or ``sep`` says.

    Parameters
    ----------
    path : str or pathlib.Path
    what : str, default='data'
        What the file is, for messages (``'data'``, ``'validation'``).
    sep : str, optional
        Field separator of delimited text (then any extension is read as
        text); by default ``','`` for ``.csv`` and tab for ``.tsv``/``.tab``.
    encoding : str, optional
        Text encoding (default UTF-8).
    decimal : str, optional
        Decimal mark of delimited text (default ``'.'``; ``','`` reads ``0,37``).

    Returns
    -------
    pandas.DataFrame
        At least one row. Numbers in text are read exactly as Python writes
        them (:data:`EXACT_FLOATS`): scores tied in the file stay
        tied, untied ones untied.

    Raises
    ------
    FileNotFoundError
        No such file (or a symbolic link to none).
    ValueError
        Anything else, one line naming the file: unknown format, Parquet
        without pyarrow or fastparquet (naming the extra to install), a
        decoding or parsing error, a likely wrong separator (one column whose
        name holds ``;``, a tab or ``|``), no rows, a symlink loop. What a
        message quotes from the data is cut short (:func:`_clip`).

    Examples
    --------
    >>> read_table("scores.tsv").columns.tolist()                   # doctest: +SKIP
    ['age', 'y', 'p']
    >>> read_table("scores.txt", sep=";", encoding="latin-1")       # doctest: +SKIP
    """
    path = Path(path)
    _check_path(path, what)
    name = f"{what} file '{path}'"
    kind = _format(path, sep, name)
    if decimal is not None and decimal == kind:  # each number would be split into two fields
        raise ValueError(f"{name}: --decimal {decimal!r} is also its field separator; pass --sep")
    if kind == "parquet":
        frame = _read_parquet(path, encoding, decimal, name)
    else:
        frame = _read_text(path, kind, encoding, decimal, name)
        _check_header(path, kind, encoding, frame, name)
    if len(frame) == 0:
        raise ValueError(f"{name} has no rows")
    return frame
