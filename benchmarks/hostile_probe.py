"""Probe ``subroc-ext run``, ``recheck`` and ``find_subgroups`` with hostile inputs (issues 45 and 59).

Every case runs in this one Python process (the compiled kernels load once):
the command line through :func:`subroc_ext.cli.main` with stdout and stderr
captured, the API through :func:`subroc_ext.find_subgroups`. Each case is
tiny (at most 400 rows, ``--depth 1``, ``--samples 200``) and has a time
limit (``signal.alarm``). A case's verdict:

* OK: the expected outcome - a run that writes its report, or one clean
  error line (exit code 2, or for the API a ``ValueError``/``TypeError``/
  ``KeyError``) that names the column, option or file at fault;
* DEFECT: a traceback (an exception escaping ``main``, or an unexpected
  exception type from the API), a time-out, an input accepted that should
  have been refused, a refusal of valid input, or an error line that does not
  name what is wrong.

Issue 59's cases (``--skip 215`` runs them alone) also recheck edited
findings, run without a holdout, write to a full or closed standard output,
interrupt a command in a subprocess 0.3 s after its start and fill the disk;
such a case may require an exit code and check what it printed or left.

usage: PYTHONPATH=. python benchmarks/hostile_probe.py [--skip N] [--limit N] [--out benchmarks/hostile_probe.md]
(``PYTHONPATH=.``: the package of this checkout, whatever is installed)
"""

import argparse
import bz2
import contextlib
import copy
import errno
import gzip
import io
import json
import lzma
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

QUICK = ["--depth", "1", "--samples", "200", "--top", "5", "--min-support", "10", "--quiet"]
API_QUICK = dict(depth=1, n_samples=200, result_set_size=5, min_support=10, progress=False)
TIMEOUT = 90
CLEAN_API_ERRORS = (ValueError, TypeError, KeyError)
#: A longer stderr line (a warning listing 10,000 columns) is unreadable.
LONGEST_LINE = 5000


#: DEFECTs the first run found that are fixed now (subroc_ext/inputs, subroc_ext/utils/validation.py).
FIXED = [
    "- file / mixed delimiters: was \"label column 'y' contains 101 missing value(s)\"; now names the rows split by"
    " ';' (tables.py)",
    "- option / --decimal ',' with --sep ',': was \"score column 'p' must be numeric\"; now refused as the field"
    " separator (tables.py)",
    "- option / --validation other types: was \"could not convert string to float: 'text'\"; now names column 'b'"
    " and both splits (validated.py)",
    "- api / complex score: was accepted, the imaginary parts dropped; now refused (validation.py)",
    "- api / ignore='ab': was read as the columns 'a' and 'b' (an empty search, silently); now one column name"
    " (validated.py)",
    "- api / nullable Float64 attribute (found by tests/test_search_space.py's hypothesis test at the same time):"
    " was \"TypeError: Cannot interpret 'Float64Dtype()' as a data type\"; now searched (data_checks.py)",
    "- file / 10,000 columns: the warning listed all 10,000 left-out columns on one line (198,947 characters);"
    " now the first 10 and a count by reason (search_space.py)",
    "- file / zip of two files, .csv.zst without zstandard: the error did not name the file; now it does (tables.py)",
]

#: Issue 59's cases as they ended before their fixes (the same cases, run on the code before them).
FIXED_59 = [
    "- no holdout / nothing found, 2 rows, ID-like columns only, 200 unique-string columns, and the API's"
    " validation=None: was KeyError 'method' (exit 1); now the empty table (workflow/without_holdout.py)",
    "- recheck / deeply nested JSON, a directory, a symlink loop: were RecursionError, IsADirectoryError, OSError"
    " tracebacks; now one line naming the file (inputs/findings_file.py)",
    "- recheck / domain datetime, timedelta or unknown with a number: was AttributeError 'float' object has no"
    " attribute 'value'; now the key (the schema, inputs/condition_records.py)",
    "- recheck / description not its conditions, a bound printed as another: were exit 0, region=='east' printed"
    " with the numbers of age >= 70; now refused naming the key",
    "- recheck / interval_level 7 or -1, schema_version true, min_delta NaN: were accepted (exit 0); now refused"
    " naming the key (data/findings.schema.json, utils/json_schema.py)",
    "- recheck / no label, no measure, unknown measure, findings of text, settings null, conditions null: were"
    " 'error: label', 'error: measure', 'string indices must be integers', ''NoneType' object is not"
    " subscriptable'; now the key",
    "- recheck / a pipe: read twice, 'is not JSON' (here: no answer); now read once",
    "- recheck / region now integers, region missing everywhere: were exit 0 with every size 0; age now text:"
    " was \"could not convert string to float: '56y'\"; now the column (workflow/recheck.py)",
    "- recheck / >/dev/full: said 'every file was written' (it writes none); gate / failing gate with stdout full"
    " or closed: was exit 3 and the gate's line lost; now exit 2, the gate's line on stderr (cli/__init__.py,"
    " cli/gate.py)",
    "- signal / Ctrl-C at 0.3 s: left the earlier run's four files in --out; now removes them (cli/streams.py)",
    "- output / full disk: named the staging folder '.subroc-ext-1-abc'; now subgroups.csv (utils/atomic.py)",
    "- attribute / 10,000-character name: console lines of 10,000-30,000 characters and a report wider than the"
    " window; now descriptions cut in their middle (cli/output.py, reporting/page.py)",
    "- parquet / decimal attribute, binary attribute (found by this probe's first full run since findings.json):"
    " writing findings.json was a TypeError traceback; now {\"decimal\": ...}, {\"bytes\": ...}"
    " (inputs/condition_records.py)",
    "- signal / Ctrl-C at 0.3 s, in three runs on the loaded machine: the interrupt landed where Python"
    " ignores exceptions ('Exception ignored in: <function _get_module_lock.<locals>.cb>') and the run went on"
    " to exit 0; now delivered again (utils/interrupts.py)",
]


class Timeout(Exception):
    """A case ran past its time limit."""


def base(n=200, seed=0):
    """A small scored table: attributes a (text), b (numeric), label y, score p."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.choice(list("xyz"), n)
    b = rng.normal(size=n).round(3)
    p = (1 / (1 + np.exp(-(2 * y - 1) * (1 + (a != "x")) + rng.normal(size=n)))).round(4)
    return pd.DataFrame({"a": a, "b": b, "y": y, "p": p})


class Case:
    """One hostile input.

    Parameters
    ----------
    category, name, what : str
        Its group, a short name and the input in words.
    make : callable
        ``make(folder)``: writes what the case needs into ``folder`` and returns
        the CLI's argument list (``kind='cli'``) or a function of no arguments
        (``kind='api'``).
    expect : {'ok', 'error', 'either'}
        A correct run, a clean refusal, or either.
    names : sequence of str
        For a refusal: at least one must appear in the error (case-insensitive).
    kind : {'cli', 'api', 'process'}
        ``process``: ``make`` returns ``(argv, seconds)``; the command runs in a
        subprocess, sent SIGINT after ``seconds``.
    code : int, optional
        The exit code the case must end with (else any non-zero for 'error').
    writes : bool, default=True
        Whether a successful run writes ``subgroups.csv`` (``recheck`` does not).
    stdout : {None, 'full', 'closed'}
        The command line's standard output: captured, a full disk, or closed.
    check : callable, optional
        ``check(folder, stdout, stderr)``: why the outcome is wrong, or None.
    around : callable, optional
        A context manager the case runs in (a full disk).
    """

    def __init__(self, category, name, what, make, expect="error", names=(), kind="cli", code=None, writes=True,
                 stdout=None, check=None, around=contextlib.nullcontext):  # fmt: skip
        self.category, self.name, self.what, self.make = category, name, what, make
        self.expect, self.names, self.kind = expect, tuple(names), kind
        self.code, self.writes, self.stdout, self.check, self.around = code, writes, stdout, check, around


CASES = []


def case(category, name, what, expect="error", names=(), kind="cli", **options):
    """Register the decorated ``make`` function as a case (``options``: :class:`Case`'s)."""

    def register(make):
        CASES.append(Case(category, name, what, make, expect, names, kind, **options))
        return make

    return register


def write(folder, name, frame, **keywords):
    """Write ``frame`` as CSV to ``folder / name``; its path as a string."""
    path = folder / name
    frame.to_csv(path, index=False, **keywords)
    return str(path)


def raw(folder, name, data):
    """Write bytes or text to ``folder / name``; its path as a string."""
    path = folder / name
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return str(path)


def cli(path, folder, *extra, label="y", score="p"):
    """The argument list of ``run`` on ``path``."""
    return ["run", str(path), "--label", label, "--score", score, "--out", str(folder / "out"), *QUICK, *extra]


def with_column(folder, column, values, name="d.csv", n=200):
    """``cli`` on the base table with one more column."""
    frame = base(n)
    frame[column] = values
    return cli(write(folder, name, frame), folder)


# ---------------------------------------------------------------- file formats
@case("file", "empty file", "a 0-byte .csv", names=["empty", "no column", "no data", "no rows"])
def _(f):
    return cli(raw(f, "d.csv", b""), f)


@case("file", "header only", "'a,b,y,p' and no rows", names=["row", "empty"])
def _(f):
    return cli(raw(f, "d.csv", "a,b,y,p\n"), f)


@case("file", "UTF-8 BOM", "the header starts with a byte-order mark", expect="ok")
def _(f):
    return cli(raw(f, "d.csv", b"\xef\xbb\xbf" + base().to_csv(index=False).encode()), f)


@case("file", "UTF-16 undeclared", "UTF-16 text, no --encoding", names=["encoding", "utf", "decode"])
def _(f):
    return cli(raw(f, "d.csv", base().to_csv(index=False).encode("utf-16")), f)


@case("file", "UTF-16 declared", "UTF-16 text with --encoding utf-16", expect="ok")
def _(f):
    return cli(raw(f, "d.csv", base().to_csv(index=False).encode("utf-16")), f, "--encoding", "utf-16")


@case("file", "latin-1 undeclared", "latin-1 bytes (é) in a value, no --encoding", expect="either",
      names=["encoding", "utf", "decode"])
def _(f):
    frame = base().assign(a=lambda d: d["a"].replace("x", "caf\u00e9"))
    return cli(raw(f, "d.csv", frame.to_csv(index=False).encode("latin-1")), f)


@case("file", "CRLF", "Windows line endings", expect="ok")
def _(f):
    return cli(raw(f, "d.csv", base().to_csv(index=False).replace("\n", "\r\n")), f)


@case("file", "mixed delimiters", "half the rows separated by ';'", names=["line", "field", "row", "token", "expected"])
def _(f):
    text = base().to_csv(index=False).splitlines()
    text = text[:100] + [line.replace(",", ";") for line in text[100:]]
    return cli(raw(f, "d.csv", "\n".join(text) + "\n"), f)


@case("file", "quoted newlines", "category values with a newline inside quotes", expect="ok")
def _(f):
    return cli(write(f, "d.csv", base().assign(a=lambda d: d["a"] + "\nsecond line")), f)


@case("file", "duplicate header", "two columns named 'a'", names=["'a'", "a", "duplicate"])
def _(f):
    return cli(raw(f, "d.csv", base().to_csv(index=False).replace("a,b,y,p", "a,a,y,p", 1)), f)


@case("file", "duplicate label header", "two columns named 'y'", names=["'y'", "duplicate"])
def _(f):
    return cli(raw(f, "d.csv", base().to_csv(index=False).replace("a,b,y,p", "y,b,y,p", 1)), f)


@case("file", "10,000 columns", "10,000 constant attribute columns, 100 rows", expect="either",
      names=["column", "constant", "no subgroup"])
def _(f):
    frame = base(100)
    wide = pd.DataFrame(np.zeros((100, 10_000), dtype=np.int8), columns=[f"c{i}" for i in range(10_000)])
    return cli(write(f, "d.csv", pd.concat([frame, wide], axis=1)), f)


@case("file", "very long line", "one value of 1,000,000 characters", expect="ok")
def _(f):
    frame = base()
    frame.loc[0, "a"] = "L" * 1_000_000
    return cli(write(f, "d.csv", frame), f)


@case("file", "binary garbage", "random bytes named .csv", names=["d.csv", "decode", "encoding", "read", "column"])
def _(f):
    return cli(raw(f, "d.csv", np.random.default_rng(1).bytes(5000)), f)


@case("file", "directory", "a directory as DATA", names=["director", "dir.csv"])
def _(f):
    (f / "dir.csv").mkdir()
    return cli(f / "dir.csv", f)


@case("file", "/dev/null", "/dev/null as DATA", names=["empty", "/dev/null", "no column", "no data"])
def _(f):
    return cli("/dev/null", f, "--sep", ",")


@case("file", "missing file", "a path that does not exist", names=["nope.csv", "no such", "not found"])
def _(f):
    return cli(f / "nope.csv", f)


@case("file", "FIFO", "a named pipe fed by a thread", expect="either", names=["fifo", "pipe", "d.csv"])
def _(f):
    path = f / "d.csv"
    os.mkfifo(path)
    text = base().to_csv(index=False).encode()

    def feed():
        with contextlib.suppress(OSError), open(path, "wb") as pipe:
            pipe.write(text)

    threading.Thread(target=feed, daemon=True).start()
    return cli(path, f)


@case("file", "unreadable (chmod 000)", "a file without read permission (root can still read it)",
      expect="either", names=["permission", "d.csv"])
def _(f):
    path = write(f, "d.csv", base())
    os.chmod(path, 0)
    return cli(path, f)


@case("file", ".csv.bz2", "bzip2-compressed CSV", expect="ok")
def _(f):
    return cli(raw(f, "d.csv.bz2", bz2.compress(base().to_csv(index=False).encode())), f)


@case("file", ".csv.xz", "xz-compressed CSV", expect="ok")
def _(f):
    return cli(raw(f, "d.csv.xz", lzma.compress(base().to_csv(index=False).encode())), f)


@case("file", ".csv.zip", "a zip holding one CSV", expect="ok")
def _(f):
    path = f / "d.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("d.csv", base().to_csv(index=False))
    return cli(path, f)


@case("file", "zip of two files", "a .csv.zip holding two CSVs", names=["d.csv.zip"])
def _(f):
    path = f / "d.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("d.csv", base().to_csv(index=False))
        archive.writestr("e.csv", base().to_csv(index=False))
    return cli(path, f)


@case("file", "gzip named .csv", "gzip bytes under a plain .csv name", expect="either",
      names=["d.csv", "decode", "encoding", "compress"])
def _(f):
    return cli(raw(f, "d.csv", gzip.compress(base().to_csv(index=False).encode())), f)


@case("file", ".csv.zst unsupported", "zstd name without the zstandard package (plain bytes)",
      names=["d.csv.zst"])
def _(f):
    return cli(raw(f, "d.csv.zst", base().to_csv(index=False)), f)


@case("file", "CSV named .parquet", "CSV text under a .parquet name", names=["parquet", "d.parquet"])
def _(f):
    return cli(raw(f, "d.parquet", base().to_csv(index=False)), f)


@case("file", "Excel .xlsx", "a zip archive named .xlsx", names=["xlsx", "format", "excel", "d.xlsx", "--sep"])
def _(f):
    path = f / "d.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
    return cli(path, f)


@case("file", ".tsv with commas", "a comma-separated file named .tsv", names=["'y'", "column", "--sep"])
def _(f):
    return cli(write(f, "d.tsv", base()), f)


@case("file", "trailing commas", "every line ends with ',' (an unnamed empty column)", expect="either",
      names=["without a name"])
def _(f):
    text = "\n".join(line + "," for line in base().to_csv(index=False).splitlines()) + "\n"
    return cli(raw(f, "d.csv", text), f)


@case("file", "ragged rows", "some rows have an extra field", names=["line", "field", "row", "expected"])
def _(f):
    lines = base().to_csv(index=False).splitlines()
    lines[50] += ",extra"
    return cli(raw(f, "d.csv", "\n".join(lines) + "\n"), f)


@case("file", "comment line first", "'# exported by X' above the header", names=["'y'", "column", "line", "field"])
def _(f):
    return cli(raw(f, "d.csv", "# exported by X\n" + base().to_csv(index=False)), f)


@case("file", "blank lines only", "five empty lines", names=["empty", "column", "no data", "row"])
def _(f):
    return cli(raw(f, "d.csv", "\n\n\n\n\n"), f)


@case("file", "JSON file", "a .json file", names=["json", "format", "d.json", "--sep", "csv"])
def _(f):
    path = f / "d.json"
    base().to_json(path)
    return cli(path, f)


@case("file", "no extension", "CSV text in a file without an extension", expect="either",
      names=["--sep", "extension", "format", "csv"])
def _(f):
    return cli(raw(f, "data", base().to_csv(index=False)), f)


@case("file", "semicolon with --sep ';'", "a ';'-separated file, --sep ';' and --decimal ','", expect="ok")
def _(f):
    return cli(raw(f, "d.csv", base().to_csv(index=False, sep=";", decimal=",")), f, "--sep", ";", "--decimal", ",")


def parquet(folder, table):
    """Write a pyarrow table to ``folder / d.parquet``; its ``cli`` arguments."""
    import pyarrow.parquet as pq

    path = folder / "d.parquet"
    pq.write_table(table, path)
    return cli(path, folder)


def arrow_base(**columns):
    """The base table as a pyarrow table, with extra or replaced columns."""
    import pyarrow as pa

    table = pa.Table.from_pandas(base(), preserve_index=False)
    for name, column in columns.items():
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, column)
        else:
            table = table.append_column(name, column)
    return table


@case("parquet", "decimal score", "the score as decimal128(10, 4)", expect="either", names=["'p'", "decimal"])
def _(f):
    import decimal

    import pyarrow as pa

    scores = [decimal.Decimal(str(v)) for v in base()["p"]]
    return parquet(f, arrow_base(p=pa.array(scores, pa.decimal128(10, 4))))


@case("parquet", "decimal attribute", "an attribute as decimal128", expect="ok")
def _(f):
    import decimal

    import pyarrow as pa

    return parquet(f, arrow_base(dec=pa.array([decimal.Decimal(i % 7) for i in range(200)], pa.decimal128(5, 1))))


@case("parquet", "time attribute", "time64 values", expect="either", names=["'t'", "time"])
def _(f):
    import datetime

    import pyarrow as pa

    values = [datetime.time(i % 24, i % 60) for i in range(200)]
    return parquet(f, arrow_base(t=pa.array(values, pa.time64("us"))))


@case("parquet", "duration attribute", "duration values", expect="ok")
def _(f):
    import pyarrow as pa

    return parquet(f, arrow_base(dur=pa.array(np.arange(200) * 1_000_000, pa.duration("us"))))


@case("parquet", "dictionary attribute", "a dictionary-encoded string column", expect="ok")
def _(f):
    import pyarrow as pa

    return parquet(f, arrow_base(a=pa.array(base()["a"]).dictionary_encode()))


@case("parquet", "struct with nulls", "a struct column with null members", expect="either",
      names=["'s'", "struct", "nested"])
def _(f):
    import pyarrow as pa

    values = [None if i % 5 == 0 else {"u": i % 3, "v": None} for i in range(200)]
    return parquet(f, arrow_base(s=pa.array(values, pa.struct([("u", pa.int64()), ("v", pa.string())]))))


@case("parquet", "zero rows", "a Parquet file with the columns and no rows", names=["row", "empty"])
def _(f):
    import pyarrow as pa

    return parquet(f, pa.Table.from_pandas(base().iloc[:0], preserve_index=False))


@case("parquet", "dictionary label", "the label dictionary-encoded strings 'yes'/'no'", expect="ok")
def _(f):
    import pyarrow as pa

    labels = pa.array(np.where(base()["y"] == 1, "yes", "no")).dictionary_encode()
    return parquet(f, arrow_base(y=labels)) + ["--positive-label", "yes"]


@case("parquet", "float16 score", "the score as half-precision floats", expect="ok")
def _(f):
    import pyarrow as pa

    return parquet(f, arrow_base(p=pa.array(base()["p"].to_numpy(np.float16), pa.float16())))


@case("parquet", "uint64 huge attribute", "uint64 values near 2**64", expect="ok")
def _(f):
    import pyarrow as pa

    values = np.uint64(2**64 - 1) - np.arange(200, dtype=np.uint64) * np.uint64(10**15)
    return parquet(f, arrow_base(u=pa.array(values, pa.uint64())))


@case("parquet", "null-typed column", "an attribute of pyarrow type null", expect="ok")
def _(f):
    import pyarrow as pa

    return parquet(f, arrow_base(nothing=pa.nulls(200)))


@case("parquet", "binary attribute", "raw bytes values", expect="either", names=["'bin'", "bytes", "binary"])
def _(f):
    import pyarrow as pa

    return parquet(f, arrow_base(bin=pa.array([bytes([i % 3, 0, 255]) for i in range(200)], pa.binary())))


# ---------------------------------------------------------------------- labels
def labels(folder, values, *extra, name="y"):
    frame = base()
    frame["y"] = values
    frame = frame.rename(columns={"y": name})
    return cli(write(folder, "d.csv", frame), folder, *extra, label=name)


@case("label", "one class", "every label 0", names=["'y'", "class", "positive"])
def _(f):
    return labels(f, 0)


@case("label", "three classes", "labels 0/1/2, no --positive-label", names=["'y'", "--positive-label", "class"])
def _(f):
    return labels(f, np.arange(200) % 3)


@case("label", "three classes, positive 2", "labels 0/1/2 with --positive-label 2", expect="either",
      names=["'y'", "class", "binary"])
def _(f):
    return labels(f, np.arange(200) % 3, "--positive-label", "2")


@case("label", "yes/no undeclared", "labels 'yes'/'no', no --positive-label", names=["'y'", "--positive-label"])
def _(f):
    return labels(f, np.where(base()["y"] == 1, "yes", "no"))


@case("label", "yes/no declared", "labels 'yes'/'no' with --positive-label yes", expect="ok")
def _(f):
    return labels(f, np.where(base()["y"] == 1, "yes", "no"), "--positive-label", "yes")


@case("label", "booleans", "labels True/False", expect="ok")
def _(f):
    return labels(f, base()["y"] == 1)


@case("label", "NaN labels", "10 labels missing", names=["'y'", "missing", "nan"])
def _(f):
    return labels(f, base()["y"].where(np.arange(200) % 20 != 0))


@case("label", "0/2 undeclared", "labels 0/2, no --positive-label", names=["'y'", "--positive-label"])
def _(f):
    return labels(f, base()["y"] * 2)


@case("label", "0/2 declared", "labels 0/2 with --positive-label 2", expect="ok")
def _(f):
    return labels(f, base()["y"] * 2, "--positive-label", "2")


@case("label", "label = score", "--label p --score p", names=["'p'", "same", "label", "score"])
def _(f):
    return cli(write(f, "d.csv", base()), f, label="p")


@case("label", "label named 'description'", "the label column called 'description'", expect="ok")
def _(f):
    return labels(f, base()["y"], name="description")


@case("label", "label named 'significant'", "the label column called 'significant'", expect="ok")
def _(f):
    return labels(f, base()["y"], name="significant")


@case("label", "absent positive label", "labels 0/1 with --positive-label 5", names=["'y'", "5"])
def _(f):
    return labels(f, base()["y"], "--positive-label", "5")


@case("label", "float labels", "labels 0.0/1.0", expect="ok")
def _(f):
    return labels(f, base()["y"].astype(float))


@case("label", "padded labels", "labels ' 1'/' 0' (a space before)", expect="either", names=["'y'", "--positive-label"])
def _(f):
    return labels(f, " " + base()["y"].astype(str))


@case("label", "-1/1 labels", "labels -1/1", expect="ok")
def _(f):
    return labels(f, base()["y"] * 2 - 1)


@case("label", "label missing", "--label nope", names=["nope"])
def _(f):
    return cli(write(f, "d.csv", base()), f, label="nope")


@case("label", "'true'/'false' text", "labels 'TRUE'/'FALSE' written as text", expect="ok")
def _(f):
    return labels(f, np.where(base()["y"] == 1, "TRUE", "FALSE"))


@case("label", "positive 1.0 on ints", "labels 0/1 with --positive-label 1.0", expect="either", names=["'y'", "1.0"])
def _(f):
    return labels(f, base()["y"], "--positive-label", "1.0")


@case("label", "one positive", "a single positive label", names=["'y'", "positive", "validation", "split", "class"])
def _(f):
    return labels(f, (np.arange(200) == 7).astype(int))


# ---------------------------------------------------------------------- scores
def scores(folder, values, *extra):
    frame = base()
    frame["p"] = values
    return cli(write(folder, "d.csv", frame), folder, *extra)


@case("score", "constant", "every score 0.5", expect="either", names=["'p'", "constant", "tie"])
def _(f):
    return scores(f, 0.5)


@case("score", "some NaN", "10 scores missing", names=["'p'"])
def _(f):
    return scores(f, base()["p"].where(np.arange(200) % 20 != 0))


@case("score", "inf", "one score +inf", names=["'p'"])
def _(f):
    return scores(f, base()["p"].where(np.arange(200) != 3, np.inf))


@case("score", "text", "scores 'high'/'low'", names=["'p'"])
def _(f):
    return scores(f, np.where(base()["y"] == 1, "high", "low"))


@case("score", "huge", "scores times 1e300 with a sign", expect="ok")
def _(f):
    return scores(f, (base()["p"] - 0.5) * 1e307)


@case("score", "denormal", "scores times 1e-320", expect="ok")
def _(f):
    return scores(f, base()["p"] * 1e-320)


@case("score", "negative", "scores minus 10", expect="ok")
def _(f):
    return scores(f, base()["p"] - 10)


@case("score", "two values", "scores 0/1 only (all ties)", expect="ok")
def _(f):
    return scores(f, (base()["p"] > 0.5).astype(int))


@case("score", "booleans", "scores True/False", expect="either", names=["'p'"])
def _(f):
    return scores(f, base()["p"] > 0.5)


@case("score", "dates", "scores as dates", names=["'p'"])
def _(f):
    return scores(f, pd.date_range("2020-01-01", periods=200).astype(str))


@case("score", "decimal comma", "scores like 0,37 without --decimal", names=["'p'", "--decimal"])
def _(f):
    frame = base()
    frame["p"] = frame["p"].map(lambda v: f"{v}".replace(".", ","))
    return cli(write(f, "d.csv", frame, sep=";"), f, "--sep", ";")


@case("score", "score missing", "--score nope", names=["nope"])
def _(f):
    return cli(write(f, "d.csv", base()), f, score="nope")


@case("score", "signed zeros", "scores -0.0 and 0.0 only", expect="either", names=["'p'", "constant"])
def _(f):
    return scores(f, np.where(base()["y"] == 1, "-0.0", "0.0"))


@case("score", "exponent text", "scores written as '5e-1'-style text", expect="ok")
def _(f):
    return scores(f, base()["p"].map(lambda v: f"{v:e}"))


@case("score", "calibration out of [0,1]", "--measure brier with scores in [-10, -9]", names=["'p'", "[0, 1]"])
def _(f):
    return scores(f, base()["p"] - 10, "--measure", "brier")


@case("score", "log_loss at 0 and 1", "--measure log_loss with scores exactly 0 and 1", expect="either",
      names=["'p'", "0", "1"])
def _(f):
    return scores(f, (base()["p"] > 0.5).astype(float), "--measure", "log_loss")


@case("score", "thousands separators", "scores like '1,234.5' quoted", names=["'p'"])
def _(f):
    return scores(f, base()["p"].map(lambda v: f"{v * 1e6:,.1f}"))


@case("score", "percent text", "scores like '37%'", names=["'p'"])
def _(f):
    return scores(f, base()["p"].map(lambda v: f"{v * 100:.0f}%"))


# ------------------------------------------------------------------ attributes
@case("attribute", "all NaN", "an attribute with no values", expect="ok")
def _(f):
    return with_column(f, "empty", np.nan)


@case("attribute", "one value", "an attribute that is 'same' everywhere", expect="ok")
def _(f):
    return with_column(f, "same", "same")


@case("attribute", "unique IDs", "an ID column 0..199", expect="ok")
def _(f):
    return with_column(f, "id", [f"id{i}" for i in range(200)])


@case("attribute", "mixed types", "numbers and words in one column", expect="ok")
def _(f):
    return with_column(f, "mixed", [i % 4 if i % 3 else "word" for i in range(200)])


@case("attribute", "dates with time zones", "ISO timestamps with +02:00 and Z", expect="ok")
def _(f):
    return with_column(f, "when", [f"2024-01-{1 + i % 28:02d}T10:00:00{'+02:00' if i % 2 else 'Z'}" for i in range(200)])


@case("attribute", "out-of-range dates", "dates 0001-01-01 and 9999-12-31", expect="ok")
def _(f):
    return with_column(f, "when", np.where(np.arange(200) % 2, "0001-01-01", "9999-12-31"))


@case("attribute", "timedelta text", "values like '3 days 04:00:00'", expect="ok")
def _(f):
    return with_column(f, "wait", [f"{i % 9} days 04:00:00" for i in range(200)])


@case("attribute", "10,000 levels", "400 rows, a category of 10,000 possible levels (all distinct)", expect="ok")
def _(f):
    return with_column(f, "level", [f"L{i * 25}" for i in range(400)], n=400)


@case("attribute", "very long strings", "values of 5,000 characters", expect="ok")
def _(f):
    return with_column(f, "long", [("abc"[i % 3]) * 5000 for i in range(200)])


@case("attribute", "leading zeros", "codes '007', '010' (text that looks numeric)", expect="ok")
def _(f):
    return with_column(f, "code", [f"{i % 4:03d}" for i in range(200)])


@case("attribute", "'1e5' text", "values '1e5', '2e5', '-0'", expect="ok")
def _(f):
    return with_column(f, "sci", np.array(["1e5", "2e5", "-0"])[np.arange(200) % 3])


@case("attribute", "emoji", "values '\U0001f600' and '\U0001f44d\U0001f3fd'", expect="ok")
def _(f):
    return with_column(f, "mood", np.where(np.arange(200) % 2, "\U0001f600", "\U0001f44d\U0001f3fd"))


@case("attribute", "NUL character", "values with an embedded NUL", expect="either", names=["nul", "line", "'z'"])
def _(f):
    return with_column(f, "z", np.where(np.arange(200) % 2, "a\x00b", "c"))


@case("attribute", "lone surrogate bytes", "CESU bytes ED A0 80 in a value", names=["encoding", "utf", "decode"],
      expect="either")
def _(f):
    text = base().to_csv(index=False).encode()
    return cli(raw(f, "d.csv", text.replace(b"\nx,", b"\n\xed\xa0\x80,")), f)


@case("attribute", "empty column name", "a column whose header is ''", expect="either", names=["without a name"])
def _(f):
    return with_column(f, "", np.arange(200) % 3)


@case("attribute", "whitespace name", "a column named '   '", expect="either", names=["without a name"])
def _(f):
    return with_column(f, "   ", np.arange(200) % 3)


for _reserved in ["description", "delta", "subgroup", "quality", "size_search", "p_value", "significant", "note"]:
    case("attribute", f"named '{_reserved}'", f"an attribute column called '{_reserved}'", expect="ok")(
        lambda f, name=_reserved: with_column(f, name, np.arange(200) % 3))


@case("attribute", "dots, brackets, backticks", "a column named 'a.b[0]`c`'", expect="ok")
def _(f):
    return with_column(f, "a.b[0]`c`", np.arange(200) % 3)


@case("attribute", "numeric names", "columns named '0' and '1'", expect="ok")
def _(f):
    frame = base()
    frame["0"], frame["1"] = np.arange(200) % 3, np.arange(200) % 2
    return cli(write(f, "d.csv", frame), f)


@case("attribute", "label's name in capitals", "an attribute 'Y' beside the label 'y'", expect="ok")
def _(f):
    return with_column(f, "Y", np.arange(200) % 2)


@case("attribute", "quote and == in name", "a column named \"it's == 'x'\"", expect="ok")
def _(f):
    return with_column(f, "it's == 'x'", np.arange(200) % 3)


@case("attribute", "one value, rest NaN", "a numeric column with a single non-missing value", expect="ok")
def _(f):
    return with_column(f, "lone", np.where(np.arange(200) == 5, 1.0, np.nan))


@case("attribute", "booleans", "an attribute True/False", expect="ok")
def _(f):
    return with_column(f, "flag", np.arange(200) % 2 == 0)


@case("attribute", "inf values", "a numeric attribute with +inf and -inf", expect="ok")
def _(f):
    return with_column(f, "inf", np.where(np.arange(200) % 10 == 0, np.inf, np.where(np.arange(200) % 10 == 1, -np.inf,
                                                                                     np.arange(200.0))))


@case("attribute", "extreme magnitudes", "values ±1e308", expect="ok")
def _(f):
    return with_column(f, "big", np.where(np.arange(200) % 2, 1e308, -1e308) * ((np.arange(200) % 5) / 4))


@case("attribute", "named 'nan'", "a column named 'nan' and one named 'None'", expect="ok")
def _(f):
    frame = base()
    frame["nan"], frame["None"] = np.arange(200) % 3, np.arange(200) % 2
    return cli(write(f, "d.csv", frame), f)


@case("attribute", "'NA' as a value", "a category whose values are 'NA' and 'None' (read as missing)", expect="ok")
def _(f):
    return with_column(f, "country", np.where(np.arange(200) % 2, "NA", "None"))


@case("attribute", "near-unique numeric", "a float attribute with 199 distinct values", expect="ok")
def _(f):
    return with_column(f, "x", np.r_[np.arange(199.0), 0.0])


@case("attribute", "100 random attributes", "100 extra numeric columns", expect="ok")
def _(f):
    frame = base()
    extra = pd.DataFrame(np.random.default_rng(2).normal(size=(200, 100)).round(2), columns=[f"r{i}" for i in range(100)])
    return cli(write(f, "d.csv", pd.concat([frame, extra], axis=1)), f)


# --------------------------------------------------------------------- options
def option(*extra):
    return lambda f: cli(write(f, "d.csv", base()), f, *extra)


_OPTIONS = [
    ("--depth -1", ["--depth", "-1"], "error", ["--depth", "depth"]),
    ("--depth 0", ["--depth", "0"], "error", ["--depth", "depth"]),
    ("--depth 1000", ["--depth", "1000"], "either", ["--depth", "depth"]),
    ("--min-support 0", ["--min-support", "0"], "either", ["--min-support", "min_support"]),
    ("--min-support 1", ["--min-support", "1"], "either", ["--min-support", "min_support"]),
    ("--min-support 10000", ["--min-support", "10000"], "either", ["--min-support", "min_support", "rows"]),
    ("--min-support -5", ["--min-support", "-5"], "error", ["--min-support", "min_support"]),
    ("--min-support 1.5", ["--min-support", "1.5"], "error", ["--min-support", "min_support"]),
    ("--min-support nan", ["--min-support", "nan"], "error", ["--min-support", "min_support"]),
    ("--nbins 0", ["--nbins", "0"], "error", ["--nbins", "nbins"]),
    ("--nbins 1", ["--nbins", "1"], "either", ["--nbins", "nbins"]),
    ("--nbins 10000", ["--nbins", "10000"], "either", ["--nbins", "nbins"]),
    ("--seed 2**70", ["--seed", str(2**70)], "either", ["--seed", "seed"]),
    ("--seed -1", ["--seed", "-1"], "either", ["--seed", "seed"]),
    ("--measure unknown", ["--measure", "gini"], "error", ["--measure"]),
    ("--validation-fraction 0", ["--validation-fraction", "0"], "error", ["--validation-fraction", "validation"]),
    ("--validation-fraction 1", ["--validation-fraction", "1"], "error", ["--validation-fraction", "validation"]),
    ("--validation-fraction nan", ["--validation-fraction", "nan"], "error", ["--validation-fraction", "validation"]),
    ("--validation-fraction 0.99", ["--validation-fraction", "0.99"], "either",
     ["--validation-fraction", "validation", "search", "rows", "min"]),
    ("--top 0", ["--top", "0"], "error", ["--top"]),
    ("--top -1", ["--top", "-1"], "error", ["--top"]),
    ("--samples 0", ["--samples", "0"], "error", ["--samples"]),
    ("--samples -5", ["--samples", "-5"], "error", ["--samples"]),
    ("--max-overlap 2", ["--max-overlap", "2"], "error", ["--max-overlap", "max_overlap"]),
    ("--min-delta nan", ["--min-delta", "nan"], "error", ["--min-delta", "min_delta"]),
    ("--threshold nan", ["--threshold", "nan"], "error", ["--threshold"]),
    ("--threshold inf", ["--threshold", "inf"], "either", ["--threshold"]),
    ("--size-weight nan", ["--size-weight", "nan"], "error", ["--size-weight", "size_weight"]),
    ("--balance-weight -inf", ["--balance-weight", "-inf"], "error", ["--balance-weight", "balance_weight"]),
    ("--jobs 0", ["--jobs", "0"], "error", ["--jobs", "n_jobs"]),
    ("--jobs -1", ["--jobs", "-1"], "either", ["--jobs", "n_jobs"]),
    ("--ignore the label", ["--ignore", "y"], "either", ["'y'", "--ignore", "label"]),
    ("--ignore unknown", ["--ignore", "nope"], "error", ["nope"]),
    ("--ignore every attribute", ["--ignore", "a", "b"], "either", ["attribute", "column", "subgroup", "search space"]),
    ("--sep ''", ["--sep", ""], "error", ["--sep"]),
    ("--sep '::'", ["--sep", "::"], "either", ["--sep", "'y'"]),
    ("--encoding bogus", ["--encoding", "klingon"], "error", ["--encoding", "klingon"]),
    ("--decimal ','  with --sep ','", ["--decimal", ","], "error", ["--decimal", "--sep"]),
    ("--label ''", ["--label", ""], "error", ["--label", "''", "column"]),
    ("--mode under with roc_auc", ["--mode", "under"], "error", ["--mode", "under"]),
    ("--calibrate isotonic without --case-mix", ["--calibrate", "isotonic"], "either", ["--calibrate", "--case-mix"]),
    ("--positive-label 1 explicit", ["--positive-label", "1"], "ok", []),
]
for _name, _extra, _expect, _names in _OPTIONS:
    case("option", _name, f"base table with {' '.join(_extra) or repr(_extra)}", expect=_expect, names=_names)(option(*_extra))


@case("option", "--out is a file", "--out names an existing file", names=["--out", "out", "file", "director"])
def _(f):
    (f / "out").write_text("keep me")
    return cli(write(f, "d.csv", base()), f)


@case("option", "--out read-only folder", "--out inside a chmod 555 folder (root may still write)", expect="either",
      names=["--out", "permission", "locked"])
def _(f):
    locked = f / "locked"
    locked.mkdir()
    os.chmod(locked, 0o555)
    return cli(write(f, "d.csv", base()), f)[:-len(QUICK) - 2] + ["--out", str(locked / "r"), *QUICK]


@case("option", "--out with spaces and unicode", "--out 'my répört ✓/'", expect="ok")
def _(f):
    return [*cli(write(f, "d.csv", base()), f), "--out", str(f / "my r\u00e9p\u00f6rt \u2713")]


@case("option", "--out under a file", "--out 'file.txt/report'", names=["--out", "file.txt", "director"])
def _(f):
    (f / "file.txt").write_text("x")
    return [*cli(write(f, "d.csv", base()), f), "--out", str(f / "file.txt" / "report")]


@case("option", "--validation other columns", "--validation lacking the score column", names=["'p'", "validation"])
def _(f):
    return cli(write(f, "d.csv", base()), f, "--validation", write(f, "v.csv", base(100, seed=3).drop(columns="p")))


@case("option", "--validation same file", "--validation pointing at DATA itself (a test on the searched rows)",
      names=["same", "validation"])
def _(f):
    path = write(f, "d.csv", base())
    return cli(path, f, "--validation", path)


@case("option", "--validation new category", "--validation with a category never seen in DATA", expect="ok")
def _(f):
    return cli(write(f, "d.csv", base()), f, "--validation", write(f, "v.csv", base(100, seed=3).assign(a="new")))


@case("option", "--validation other types", "--validation whose attribute 'b' is text", expect="either",
      names=["'b'", "validation"])
def _(f):
    return cli(write(f, "d.csv", base()), f, "--validation", write(f, "v.csv", base(100, seed=3).assign(b="text")))


@case("option", "--no-holdout with --validation-fraction", "both options", names=["--no-holdout", "not allowed"])
def _(f):
    return cli(write(f, "d.csv", base()), f, "--no-holdout", "--validation-fraction", "0.3")


@case("option", "--score-columns one column", "--score-columns p only", names=["--score-columns", "'p'", "class"])
def _(f):
    args = cli(write(f, "d.csv", base()), f)
    at = args.index("--score")
    return [*args[:at], "--score-columns", "p", *args[at + 2:]]


@case("option", "--score-columns absent class", "--score-columns 0=p,7=b for labels 0/1",
      names=["7", "--score-columns", "class"])
def _(f):
    args = cli(write(f, "d.csv", base()), f)
    at = args.index("--score")
    return [*args[:at], "--score-columns", "0=p,7=b", *args[at + 2:]]


# ------------------------------------------------------------------------- API
def api(data, **keywords):
    """A case function calling ``find_subgroups`` on ``data``."""
    from subroc_ext import find_subgroups

    options = {"label": "y", "score": "p", **API_QUICK, **keywords}
    return lambda: find_subgroups(data, **options)


def api_case(name, what, build, expect="error", names=()):
    case("api", name, what, expect=expect, names=names, kind="api")(lambda f: build())


api_case("Series", "a Series instead of a DataFrame", lambda: api(base()["p"]), names=["DataFrame", "Series", "data"])
api_case("numpy array", "base().to_numpy()", lambda: api(base().to_numpy()), names=["DataFrame", "ndarray", "data"])
api_case("dict", "a dict of lists", lambda: api(base().to_dict("list")), expect="either", names=["DataFrame", "dict"])
api_case("empty DataFrame", "pd.DataFrame()", lambda: api(pd.DataFrame()), names=["'y'", "row", "empty", "column"])
api_case("MultiIndex columns", "columns as (group, name) pairs",
         lambda: api(base().set_axis(pd.MultiIndex.from_product([["g"], list("abyp")]), axis=1)),
         names=["MultiIndex", "column", "'y'"])
api_case("non-unique index", "index 0,0,1,1,...", lambda: api(base().set_axis(np.arange(200) // 2)), expect="ok")
api_case("string index", "index of text labels", lambda: api(base().set_axis([f"r{i}" for i in range(200)])), expect="ok")
api_case("nullable Int64 label with NA", "label Int64 with pd.NA",
         lambda: api(base().assign(y=lambda d: d["y"].astype("Int64").mask(d.index % 20 == 0))), names=["'y'"])
api_case("nullable Int64 label", "label Int64 without missing values",
         lambda: api(base().assign(y=lambda d: d["y"].astype("Int64"))), expect="ok")
api_case("nullable Float64 score with NA", "score Float64 with pd.NA",
         lambda: api(base().assign(p=lambda d: d["p"].astype("Float64").mask(d.index % 20 == 0))), names=["'p'"])
api_case("nullable Float64 attribute", "attribute 'Float64' with pd.NA",
         lambda: api(base().assign(b=lambda d: d["b"].astype("Float64").mask(d.index % 20 == 0))), expect="ok")
api_case("nullable boolean attribute", "attribute 'boolean' with pd.NA",
         lambda: api(base().assign(flag=pd.array([True, False, None, True] * 50, dtype="boolean"))), expect="ok")
api_case("Arrow string attribute", "attribute string[pyarrow]",
         lambda: api(base().assign(a=lambda d: d["a"].astype("string[pyarrow]"))), expect="ok")
api_case("Arrow float score", "score double[pyarrow]",
         lambda: api(base().assign(p=lambda d: d["p"].astype("double[pyarrow]"))), expect="ok")
api_case("Arrow bool label", "label bool[pyarrow]",
         lambda: api(base().assign(y=lambda d: (d["y"] == 1).astype("bool[pyarrow]"))), expect="ok")
api_case("sparse attribute", "attribute Sparse[float]",
         lambda: api(base().assign(s=pd.arrays.SparseArray(np.where(np.arange(200) % 4 == 0, 1.0, 0.0)))),
         expect="either", names=["'s'", "sparse"])
api_case("categorical label", "label category dtype ['no', 'yes']",
         lambda: api(base().assign(y=lambda d: pd.Categorical(np.where(d["y"] == 1, "yes", "no"))), positive_label="yes"),
         expect="ok")
api_case("categorical attribute, unused levels", "attribute category with 50 unused levels",
         lambda: api(base().assign(a=lambda d: pd.Categorical(d["a"], categories=[*"xyz", *map(str, range(50))]))),
         expect="ok")
api_case("integer column names", "columns 0,1,2,3 with label=2, score=3",
         lambda: api(base().set_axis([0, 1, 2, 3], axis=1), label=2, score=3), expect="either", names=["2", "str"])
api_case("pyarrow Table", "pa.Table.from_pandas(base())",
         lambda: api(__import__("pyarrow").Table.from_pandas(base(), preserve_index=False)), expect="ok")
api_case("validation 1.5", "validation=1.5", lambda: api(base(), validation=1.5), names=["validation"])
api_case("validation other columns", "validation frame lacking 'a'",
         lambda: api(base(), validation=base(100, seed=4).drop(columns="a")), names=["'a'", "validation"])
api_case("label None", "label=None", lambda: api(base(), label=None), names=["label", "None"])
api_case("depth True", "depth=True (a bool)", lambda: api(base(), depth=True), names=["depth"])
api_case("min_support np.int64", "min_support=np.int64(10)", lambda: api(base(), min_support=np.int64(10)), expect="ok")
api_case("n_jobs 0", "n_jobs=0", lambda: api(base(), n_jobs=0), names=["n_jobs"])
api_case("measure object", "measure=42", lambda: api(base(), measure=42), names=["measure"])
api_case("alpha 0", "alpha=0", lambda: api(base(), alpha=0), names=["alpha"])
api_case("alpha 1", "alpha=1", lambda: api(base(), alpha=1), expect="either", names=["alpha"])
api_case("alpha NaN", "alpha=nan", lambda: api(base(), alpha=float("nan")), names=["alpha"])
api_case("method unknown", "method='holm-ish'", lambda: api(base(), method="holm-ish"), names=["method", "holm-ish"])
api_case("ignore a string", "ignore='ab' (one name, not a list; no such column)", lambda: api(base(), ignore="ab"),
         names=["'ab'"])
api_case("duplicate column labels", "two columns named 'a' in the DataFrame",
         lambda: api(base().set_axis(["a", "a", "y", "p"], axis=1)), names=["'a'", "duplicate"])
api_case("object score of floats", "score dtype object holding floats",
         lambda: api(base().assign(p=lambda d: d["p"].astype(object))), expect="either", names=["'p'"])
api_case("object score of Decimals", "score dtype object holding decimal.Decimal",
         lambda: api(base().assign(p=lambda d: d["p"].map(lambda v: __import__("decimal").Decimal(str(v))))),
         expect="either", names=["'p'"])
api_case("complex score", "score complex128", lambda: api(base().assign(p=lambda d: d["p"] + 1j)), names=["'p'"])
api_case("timedelta score", "score timedelta64",
         lambda: api(base().assign(p=lambda d: pd.to_timedelta(d["p"], unit="s"))), names=["'p'"])
api_case("tz-aware datetime attribute", "attribute datetime64[ns, Europe/Berlin]",
         lambda: api(base().assign(t=pd.date_range("2024-03-30", periods=200, freq="h", tz="Europe/Berlin"))),
         expect="ok")
api_case("period attribute", "attribute Period[M]",
         lambda: api(base().assign(t=pd.period_range("2020-01", periods=200, freq="M"))), expect="either",
         names=["'t'", "period"])
api_case("interval attribute", "attribute of pd.Interval values",
         lambda: api(base().assign(t=pd.cut(np.arange(200), 4))), expect="ok")
api_case("tuple column name", "the score column named ('a', 1)",
         lambda: api(base().set_axis(["a", "b", "y", ("a", 1)], axis=1), score=("a", 1)), expect="either",
         names=["('a', 1)", "column"])


# ------------------------------------------------- issue 59: recheck, no holdout, streams, signals
def issue_table(n=2000, seed=0):
    """Issue 59's table: region (4 values), age 18-79, kind (3 values), a label y and a score p
    random inside region == 'east' and informative elsewhere."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"region": rng.choice(["east", "west", "north", "south"], n),
                          "age": rng.integers(18, 80, n), "kind": rng.choice(["a", "b", "c"], n),
                          "y": rng.integers(0, 2, n)})  # fmt: skip
    informative = np.clip(0.6 * frame["y"] + 0.4 * rng.random(n), 0, 1)
    frame["p"] = np.where(frame["region"] == "east", rng.random(n), informative).round(4)
    return frame


_FINDINGS = {}


def findings():
    """The findings.json document of ``find_subgroups`` on :func:`issue_table` (made once, then copied)."""
    if not _FINDINGS:
        from subroc_ext import find_subgroups, findings_document

        table = find_subgroups(issue_table(), label="y", score="p", validation=issue_table(seed=1), depth=1,
                               result_set_size=5, random_state=0, progress=False)  # fmt: skip
        _FINDINGS["document"] = json.loads(json.dumps(findings_document(table)))
    return copy.deepcopy(_FINDINGS["document"])


def recheck_cli(folder, document=None, data=None, *extra):
    """``recheck`` of ``document`` (edited findings, or a path) on ``data`` (default: :func:`issue_table`)."""
    path = folder / "findings.json"
    if document is None or isinstance(document, dict):
        path.write_text(json.dumps(findings() if document is None else document), encoding="utf-8")
    else:
        path = document
    return ["recheck", str(path), write(folder, "new.csv", issue_table(seed=2) if data is None else data), *extra]


def edited(change):
    """:func:`findings` changed by ``change`` (a function of the document)."""
    document = findings()
    change(document)
    return document


def recheck_case(name, what, change, names, **options):
    """A case: ``recheck`` of the findings edited by ``change``, refused naming one of ``names``."""
    case("recheck", name, what, names=names, writes=False, code=2, **options)(
        lambda f: recheck_cli(f, edited(change)))


def _condition(document, **changes):
    """The first finding's condition replaced by ``age >= 70`` (with ``changes``)."""
    document["findings"][0]["conditions"] = [{"column": "age", "operator": ">=", "value": 70.0, "value_text": "70",
                                              "domain": "number", "text": "age >= 70", **changes}]  # fmt: skip


def no_line_over(width):
    """A check: no line of stdout or stderr longer than ``width``."""
    def check(folder, stdout, stderr):
        longest = max(map(len, (stdout + stderr).splitlines()), default=0)
        return f"a line of {longest:,} characters" if longest > width else None
    return check


def said(*texts, absent=()):
    """A check: stderr says each of ``texts`` and none of ``absent``."""
    def check(folder, stdout, stderr):
        missing = [text for text in texts if text not in stderr] + [text for text in absent if text in stderr]
        return f"stderr: {missing[0]!r} {'missing' if missing[0] in texts else 'said'}" if missing else None
    return check


@case("no holdout", "nothing found", "--no-holdout --fail-on failure --min-support 0.99", expect="ok", code=0)
def _(f):
    return cli(write(f, "d.csv", issue_table()), f, "--no-holdout", "--fail-on", "failure", "--min-support", "0.99")


@case("no holdout", "2 rows", "--no-holdout --fail-on failure on 2 rows (labels 0 and 1)", expect="ok", code=0)
def _(f):
    return cli(write(f, "d.csv", issue_table().head(2).assign(y=[0, 1])), f, "--no-holdout", "--fail-on", "failure")


@case("no holdout", "ID-like columns only", "--no-holdout, two ID-like columns", expect="ok", code=0)
def _(f):
    table = issue_table()[["y", "p"]].assign(id=range(2000), code=[f"c{i}" for i in range(2000)])
    return cli(write(f, "d.csv", table), f, "--no-holdout", "--fail-on", "failure")


@case("no holdout", "200 unique-string columns", "--no-holdout, 200 text columns of distinct values", expect="ok",
      code=0)
def _(f):
    table = pd.DataFrame({f"s{j}": [f"v{j}_{i}" for i in range(400)] for j in range(200)})
    return cli(write(f, "d.csv", table.assign(**issue_table(400)[["y", "p"]])), f, "--no-holdout")


api_case("no holdout, nothing found", "find_subgroups(validation=None, min_support=0.99)",
         lambda: api(issue_table(), validation=None, min_support=0.99), expect="ok")

@case("recheck", "deeply nested JSON", "100,000 nested arrays", names=["deep.json"], writes=False, code=2)
def _(f):
    (f / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    return recheck_cli(f, f / "deep.json")


@case("recheck", "a directory", "a folder as FINDINGS", names=["directory"], writes=False, code=2)
def _(f):
    (f / "folder.json").mkdir()
    return recheck_cli(f, f / "folder.json")


@case("recheck", "a symlink loop", "FINDINGS a link to itself", names=["loop.json", "symbolic"], writes=False, code=2)
def _(f):
    (f / "loop.json").symlink_to(f / "loop.json")
    return recheck_cli(f, f / "loop.json")


for domain in ("datetime", "timedelta", "money"):
    recheck_case(f"domain {domain} with a number", f"a condition's domain '{domain}', its value 70.0",
                 lambda d, domain=domain: _condition(d, domain=domain), ["conditions[0]"])
recheck_case("description not its conditions", "description region=='east', condition age >= 70", _condition,
             ["findings[0].description"])
recheck_case("a bound printed as another", "value 70, value_text '18'",
             lambda d: (_condition(d, value_text="18", text="age >= 18"),
                        d["findings"][0].update(description="age >= 18")), ["value_text"])
recheck_case("interval_level 7", "settings.interval_level 7", lambda d: d["settings"].update(interval_level=7),
             ["settings.interval_level"])
recheck_case("interval_level -1", "settings.interval_level -1", lambda d: d["settings"].update(interval_level=-1),
             ["settings.interval_level"])
recheck_case("schema_version true", "schema_version: true", lambda d: d.update(schema_version=True),
             ["'schema_version'"])
recheck_case("min_delta NaN", "settings.min_delta NaN", lambda d: d["settings"].update(min_delta=float("nan")),
             ["settings.min_delta"])
recheck_case("no label", "settings without label", lambda d: d["settings"].pop("label"), ["settings.label"])
recheck_case("no measure", "settings without measure", lambda d: d["settings"].pop("measure"), ["settings.measure"])
recheck_case("unknown measure", "settings.measure 'gini'", lambda d: d["settings"].update(measure="gini"),
             ["settings.measure"])
recheck_case("findings of text", "findings: ['x']", lambda d: d.update(findings=["x"]), ["findings[0]"])
recheck_case("settings null", "settings: null", lambda d: d.update(settings=None), ["'settings'"])
recheck_case("conditions null", "a finding's conditions: null", lambda d: d["findings"][0].update(conditions=None),
             ["conditions"])


@case("recheck", "a pipe", "FINDINGS a named pipe fed once (as <(cat findings.json))", expect="ok", writes=False,
      code=0)
def _(f):
    path = f / "fifo.json"
    os.mkfifo(path)
    text = json.dumps(findings()).encode()

    def feed():
        with contextlib.suppress(OSError), open(path, "wb") as pipe:
            pipe.write(text)

    threading.Thread(target=feed, daemon=True).start()
    return recheck_cli(f, path)


for name, change, column in (
    ("region now integers", lambda d: d.assign(region=d["region"].map({"east": 1, "west": 2, "north": 3, "south": 4})),
     "'region'"),
    ("region missing everywhere", lambda d: d.assign(region=np.nan), "'region'"),
    ("age now text", lambda d: d.assign(age=d["age"].astype(str) + "y"), "'age'"),
    ("label column missing", lambda d: d.drop(columns="y"), "'y'"),
):  # fmt: skip
    case("recheck", name, f"the new rows: {name}", names=[column], writes=False, code=2)(
        lambda f, change=change: recheck_cli(f, findings(), change(issue_table(seed=2))))


case("recheck", ">/dev/full", "recheck with a full stdout", names=["standard output"], writes=False, code=2,
     stdout="full", check=said("cannot write to standard output", absent=["every file was written"]))(
    lambda f: recheck_cli(f))
case("gate", "failing gate, stdout full", "--fail-on failure with a failing model and >/dev/full", code=2,
     stdout="full", names=["standard output"],
     check=said("gate failed (exit code 3)", "every file was written"))(
    lambda f: cli(write(f, "d.csv", issue_table()), f, "--fail-on", "failure", "--samples", "adaptive"))
case("gate", "failing gate, stdout closed", "--fail-on failure with a failing model and >&-", code=2,
     stdout="closed", names=["standard output"], check=said("gate failed (exit code 3)", "every file was written"))(
    lambda f: cli(write(f, "d.csv", issue_table()), f, "--fail-on", "failure", "--samples", "adaptive"))


def _earlier_run_removed(folder, stdout, stderr):
    left = sorted(path.name for path in (folder / "out").iterdir())
    return f"the earlier run's {', '.join(left)} left in --out" if left else None


@case("signal", "Ctrl-C at 0.3 s", "SIGINT 0.3 s after the start, an earlier run's four files in --out", code=130,
      kind="process", names=["interrupted"], check=_earlier_run_removed)
def _(f):
    (f / "out").mkdir()
    for name in ("subgroups.csv", "findings.json", "curves.png", "report.html"):
        (f / "out" / name).write_text("an earlier run's")
    return cli(write(f, "d.csv", issue_table()), f), 0.3


@contextlib.contextmanager
def full_disk():
    """A disk with no room for the staging folder (``tempfile.mkdtemp`` raises ENOSPC, naming it)."""
    mkdtemp = tempfile.mkdtemp

    def full(*args, dir=None, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(Path(dir) / ".subroc-ext-1-abc"))

    tempfile.mkdtemp = full
    try:
        yield
    finally:
        tempfile.mkdtemp = mkdtemp


case("output", "full disk", "no room for the staging folder (mkdtemp: ENOSPC)", code=2, names=["subgroups.csv"],
     around=full_disk)(lambda f: cli(write(f, "d.csv", issue_table(400)), f))


case("attribute", "10,000-character name", "the column 'region' named by 10,000 characters, depth 2",
     expect="ok", check=no_line_over(1000))(
    lambda f: cli(write(f, "d.csv", issue_table().rename(columns={"region": "r" * 10_000})), f, "--depth", "2"))


# ---------------------------------------------------------------------- runner
def _alarm(signum, frame):
    raise Timeout


class FullStream(io.StringIO):
    """A standard output on a full disk (``>/dev/full``)."""

    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _stdout(kind, out):
    """The stream the case's standard output is: ``out``, a full disk or none (closed)."""
    return {"full": FullStream(), "closed": None}.get(kind, out) if kind else out


def _in_process(item, target, out, err):
    """Run a ``cli`` or ``api`` case in this process; the exit code."""
    with contextlib.redirect_stdout(_stdout(item.stdout, out)), contextlib.redirect_stderr(err), item.around():
        if item.kind == "cli":
            from subroc_ext.cli import main

            return main(target)
        target()
        return 0


def _in_subprocess(target, out, err):
    """Run ``subroc-ext argv`` in a subprocess, sent SIGINT after ``seconds``; the exit code."""
    argv, seconds = target
    process = subprocess.Popen([sys.executable, "-m", "subroc_ext.cli", *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    time.sleep(seconds)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=TIMEOUT)
    out.write(stdout)
    err.write(stderr)
    return process.returncode


def run_case(item, folder):
    """Run one case; a dict of what it got."""
    signal.signal(signal.SIGALRM, _alarm)
    out, err = io.StringIO(), io.StringIO()
    code, exception, escaped = None, None, False
    start = time.perf_counter()
    try:
        target = item.make(folder)
        signal.alarm(TIMEOUT)
        code = _in_subprocess(target, out, err) if item.kind == "process" else _in_process(item, target, out, err)
    except Timeout:
        exception = "timeout"
    except BaseException as error:  # noqa: BLE001 - every escape is recorded
        exception = error
        escaped = item.kind != "api" or not isinstance(error, CLEAN_API_ERRORS)
        if escaped:
            err.write("".join(traceback.format_exception(error)))
    finally:
        signal.alarm(0)
    seconds = time.perf_counter() - start
    stderr = err.getvalue()
    lines = [line for line in stderr.splitlines() if line.strip()]
    if exception is not None and not escaped and exception != "timeout":
        message = f"{type(exception).__name__}: {exception}".splitlines()[0]
    else:
        message = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")
    written = (folder / "out" / "subgroups.csv").exists() or any(folder.glob("*/subgroups.csv")) or any(
        folder.glob("*/*/subgroups.csv"))
    failed = exception is not None or code not in (0, None)
    traceback_shown = escaped or "Traceback (most recent call last)" in stderr
    checked = None if item.check is None or exception is not None else item.check(folder, out.getvalue(), stderr)
    verdict, why = "OK", ""
    if exception == "timeout":
        verdict, why = "DEFECT", f"no answer within {TIMEOUT} s"
    elif traceback_shown:
        verdict, why = "DEFECT", "traceback"
    elif item.code is not None and code != item.code:
        verdict, why = "DEFECT", f"exit code {code}, not {item.code}"
    elif checked:
        verdict, why = "DEFECT", checked
    elif failed and item.expect == "ok":
        verdict, why = "DEFECT", "valid input refused"
    elif not failed and item.expect == "error":
        verdict, why = "DEFECT", "accepted silently"
    elif failed and item.names and not any(n.lower() in message.lower() for n in item.names):
        verdict, why = "DEFECT", "error does not name the problem"
    elif max(map(len, lines), default=0) > LONGEST_LINE:
        verdict, why = "DEFECT", f"a stderr line of {max(map(len, lines)):,} characters"
    elif not failed and item.kind == "cli" and item.writes and not written:
        verdict, why = "DEFECT", "exit 0 without subgroups.csv"
    outcome = "timeout" if exception == "timeout" else (
        type(exception).__name__ if exception is not None else f"exit {code}")
    return {"category": item.category, "case": item.name, "input": item.what, "expect": item.expect,
            "got": outcome, "message": message, "traceback": "yes" if traceback_shown else "no",
            "written": "yes" if written else "no", "verdict": verdict, "why": why, "seconds": seconds,
            "stderr": stderr}  # fmt: skip


def cell(text, width=160):
    """``text`` as one Markdown table cell."""
    text = " ".join(str(text).split())
    text = text if len(text) <= width else text[: width - 1] + "\u2026"
    return text.replace("|", "\\|").replace("`", "'")


def markdown(results, command, seconds, skipped=0):
    """The report: the table, the command and the summary."""
    defects = [r for r in results if r["verdict"] == "DEFECT"]
    lines = [
        "# Hostile-input probe (issues 45 and 59)", "",
        f"Produced by `{command}` in one Python process ({seconds:.0f} s wall on a shared 2-core machine).",
        "Every case of issue 45: at most 400 rows, `--depth 1 --samples 200 --top 5 --min-support 10 --quiet`",
        "(API: `depth=1, n_samples=200, result_set_size=5, min_support=10`). Issue 59's (from #216) use its table",
        "of 2,000 rows (region, age, kind, y, p random inside region=='east'): recheck of edited findings, no",
        "holdout, a full or closed stdout, Ctrl-C in a subprocess at 0.3 s, a full disk; some require an exit code",
        "(2 for a refusal, 130 for Ctrl-C) and check what was printed or left in --out.", "",
        "Verdict OK: the report was written for valid input, or one clean error line (exit 2; API: ValueError,",
        "TypeError or KeyError) naming the column, option or file. DEFECT: a traceback, a time-out, bad input",
        "accepted, valid input refused, or an error that does not name the problem. 'either' cases accept a run",
        "or a clean refusal.", "",
        "The chmod cases run as root here, which reads and writes regardless of permissions: they record that",
        "the run went on, not a refusal.", "",
        f"## Summary: {len(results)} cases, {len(results) - len(defects)} OK, {len(defects)} DEFECT", "",
    ]  # fmt: skip
    lines += [f"- **{r['category']} / {r['case']}** ({r['input']}): {r['why']}; got {r['got']}: {cell(r['message'], 300)}"
              for r in defects] or ["- none"]  # fmt: skip
    lines += ["", "Fixed at the input boundary after the first run of this probe (each with a test that failed before):",
              *FIXED, "", "Issue 59's cases, fixed after the run that found them (each with a test that failed before):",
              *FIXED_59, "", "## All cases", "",
              "| # | category | case | input | expect | got | first error line / message | traceback | written | verdict |",
              "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for number, r in enumerate(results, skipped + 1):
        lines.append(f"| {number} | {r['category']} | {cell(r['case'])} | {cell(r['input'])} | {r['expect']} | "
                     f"{r['got']} | {cell(r['message'])} | {r['traceback']} | {r['written']} | "
                     f"{r['verdict']}{': ' + r['why'] if r['why'] else ''} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="run only the first N cases")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N cases (issue 59's: --skip 215)")
    parser.add_argument("--out", default=str(Path(__file__).with_name("hostile_probe.md")), help="Markdown report")
    args = parser.parse_args(argv)
    cases = CASES[args.skip :][: args.limit]
    start = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory(prefix="hostile-probe-") as root:
        for number, item in enumerate(cases, args.skip + 1):
            folder = Path(root) / f"case{number:03d}"
            folder.mkdir()
            result = run_case(item, folder)
            results.append(result)
            print(f"{number:3d} {result['verdict']:6s} {result['seconds']:5.1f}s {item.category}/{item.name}: "
                  f"{result['got']} {cell(result['message'], 120)}", file=sys.__stderr__, flush=True)  # fmt: skip
            for path in Path(folder).rglob("*"):  # chmod'ed cases: let the cleanup remove them
                with contextlib.suppress(OSError):
                    os.chmod(path, 0o755)
    command = "PYTHONPATH=. python benchmarks/hostile_probe.py" + (f" --skip {args.skip}" if args.skip else "") + (
        f" --limit {args.limit}" if args.limit else "")
    Path(args.out).write_text(markdown(results, command, time.perf_counter() - start, args.skip), encoding="utf-8")
    defects = sum(r["verdict"] == "DEFECT" for r in results)
    print(f"{len(results)} cases, {len(results) - defects} OK, {defects} DEFECT -> {args.out}", file=sys.__stderr__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
