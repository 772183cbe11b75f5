"""Tests of :mod:`subroc_ext.inputs.tables`: each format read back equal to the frame
written, and each problem one message naming the file and what to do."""

import gzip
import re

import numpy as np
import pandas as pd
import pytest

from subroc_ext.inputs import tables
from subroc_ext.inputs.tables import PARQUET_EXTRA, parse_separator, read_table

FRAME = pd.DataFrame({
    "région": ["Zürich", "Genève", "Zürich", "Lugano"],
    "age group": [31, 45, 27, 60],
    "y": [1, 0, 0, 1],
    "p": [0.25, 0.5, 0.125, 0.75],
})  # fmt: skip


@pytest.mark.parametrize(
    "name, writer, sep",
    [
        ("data.csv", lambda frame, path: frame.to_csv(path, index=False), None),
        ("data.tsv", lambda frame, path: frame.to_csv(path, sep="\t", index=False), None),
        ("data.TAB", lambda frame, path: frame.to_csv(path, sep="\t", index=False), None),
        ("data.tsv.gz", lambda frame, path: frame.to_csv(path, sep="\t", index=False), None),
        ("data.csv", lambda frame, path: frame.to_csv(path, sep=";", index=False), ";"),
        ("export.txt", lambda frame, path: frame.to_csv(path, sep="|", index=False), "|"),
        ("export.dat", lambda frame, path: frame.to_csv(path, sep="\t", index=False), "\t"),
    ],
)  # fmt: skip
def test_delimited_text_reads_back_the_frame(tmp_path, name, writer, sep):
    writer(FRAME, tmp_path / name)
    pd.testing.assert_frame_equal(read_table(tmp_path / name, sep=sep), FRAME, check_dtype=False)


def test_compressed_csv_is_read_by_its_extension(tmp_path):
    with gzip.open(tmp_path / "data.csv.gz", "wt", encoding="utf-8") as file:
        FRAME.to_csv(file, index=False)
    pd.testing.assert_frame_equal(read_table(tmp_path / "data.csv.gz"), FRAME, check_dtype=False)


def test_parquet_reads_back_the_frame(tmp_path):
    pytest.importorskip("pyarrow")
    FRAME.to_parquet(tmp_path / "data.parquet")
    pd.testing.assert_frame_equal(read_table(tmp_path / "data.parquet"), FRAME, check_dtype=False)


def test_parquet_without_an_engine_names_the_extra(tmp_path, monkeypatch):
    def no_engine(*args, **kwargs):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")

    monkeypatch.setattr(tables.pd, "read_parquet", no_engine)
    (tmp_path / "data.pq").write_bytes(b"PAR1")
    with pytest.raises(ValueError) as error:
        read_table(tmp_path / "data.pq")
    message = str(error.value)
    assert message.startswith("reading the Parquet data file '") and PARQUET_EXTRA in message
    assert "Unable to find a usable engine" in message and "\n" not in message


def test_encoding(tmp_path):
    path = tmp_path / "latin.csv"
    FRAME.to_csv(path, index=False, encoding="latin-1")
    pd.testing.assert_frame_equal(read_table(path, encoding="latin-1"), FRAME, check_dtype=False)
    with pytest.raises(ValueError, match=r"cannot read data file '.*latin.csv' as utf-8 text "
                                         r"\(invalid .* at byte \d+\); give its encoding with "
                                         r"--encoding, e.g. --encoding latin-1"):  # fmt: skip
        read_table(path)
    with pytest.raises(ValueError, match="--encoding 'klingon' is not an encoding Python knows"):
        read_table(path, encoding="klingon")


@pytest.mark.parametrize(
    "sep, shown, option",
    [(";", "';'", "--sep ';'"), ("\t", r"tab \('\\t'\)", r"--sep '\\t'"), ("|", "'|'", "--sep '|'")],
)
def test_one_column_that_looks_separated_says_which_sep_to_pass(tmp_path, sep, shown, option):
    """The semicolon file of the issue: one column 'year;age;...' is never what was meant."""
    FRAME.to_csv(tmp_path / "data.csv", sep=sep, index=False)
    with pytest.raises(ValueError, match=rf"data file '.*data.csv' has one column, 'région.*': its "
                                         rf"fields look separated by {shown}, not ','; pass {option}$"):  # fmt: skip
        read_table(tmp_path / "data.csv")


@pytest.mark.parametrize(
    "name, content, kwargs, message",
    [
        ("data.xlsx", b"x", {}, r"cannot tell the format of data file '.*data.xlsx' from its "
                                r"extension; use .csv or .tsv .* or give the field separator with --sep"),
        ("data.parquet", b"PAR1", {"sep": ";"}, "--sep does not apply to the Parquet data file"),
        ("data.parquet", b"PAR1", {"encoding": "latin-1"}, "--encoding does not apply to the Parquet"),
        ("data.csv", b"", {}, r"data file '.*data.csv' is empty$"),
        ("data.csv", b"y,p\n", {}, r"data file '.*data.csv' has no rows$"),
        ("data.csv", b'y,p\n1,"0.5\n', {}, r"cannot parse data file '.*data.csv' with separator ','"),
    ],
)  # fmt: skip
def test_problems_are_one_line_naming_the_file(tmp_path, name, content, kwargs, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ValueError, match=message) as error:
        read_table(tmp_path / name, **kwargs)
    assert "\n" not in str(error.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"validation file '.*gone.csv' not found"):
        read_table(tmp_path / "gone.csv", "validation")
    with pytest.raises(ValueError, match="is not a file"):
        read_table(tmp_path)


@pytest.mark.parametrize("text, expected", [(";", ";"), ("\\t", "\t"), ("TAB", "\t"), ("\t", "\t")])
def test_parse_separator(text, expected):
    assert parse_separator(text) == expected


@pytest.mark.parametrize("text", ["", ";;", "comma"])
def test_parse_separator_refuses_other_text(text):
    with pytest.raises(ValueError, match=r"expected one character \(or \\t or tab\)"):
        parse_separator(text)


def test_text_numbers_are_read_exactly(tmp_path):
    """Scores written by Python come back bit for bit (pandas' default parser
    may change the last digit, which breaks or makes ties)."""
    scores = pd.DataFrame({"p": np.random.default_rng(0).random(2000) / 3})
    scores.to_csv(tmp_path / "scores.csv", index=False)
    np.testing.assert_array_equal(read_table(tmp_path / "scores.csv")["p"], scores["p"])


@pytest.mark.parametrize("header, message", [
    ("region,p,age,y,p", "has more than one column named 'p' (columns 2, 5); give each column"),
    ("region,p,,y,q", "has a column without a name (column 3 of its header)"),
    (",p,age,y,q", "has a column without a name (column 1 of its header); name it, or drop it (a row index"),
])  # fmt: skip
def test_renamed_columns_are_refused_with_their_names(tmp_path, header, message):
    """pandas reads a second 'p' as 'p.1' and an empty header as 'Unnamed: 2': both were searched."""
    path = tmp_path / "data.csv.gz"
    path.write_bytes(gzip.compress(f"{header}\nnorth,0.5,30,1,0.2\nsouth,0.1,40,0,0.3\n".encode()))
    with pytest.raises(ValueError, match=re.escape(f"data file '{path}' {message}")):
        read_table(path)


def test_numbered_names_that_are_in_the_file_are_read(tmp_path):
    (tmp_path / "data.csv").write_text("version.2,p.1,y\n1,0.5,1\n")
    assert list(read_table(tmp_path / "data.csv").columns) == ["version.2", "p.1", "y"]


def test_decimal_commas(tmp_path):
    (tmp_path / "data.csv").write_text("y;p\n1;0,37\n0;1,5\n")
    assert read_table(tmp_path / "data.csv", sep=";", decimal=",")["p"].tolist() == [0.37, 1.5]
    (tmp_path / "data.parquet").write_bytes(b"PAR1")
    with pytest.raises(ValueError, match="--decimal does not apply to the Parquet"):
        read_table(tmp_path / "data.parquet", decimal=",")


def test_a_table_that_is_not_delimited_text_is_one_short_line(tmp_path):
    """JSON read with --sep ',' repeats hundreds of 'column names': the message had
    quoted every one of them (45 KB on one line)."""
    path = tmp_path / "data.json"
    pd.DataFrame({"age": np.arange(300) % 7, "p": np.arange(300) / 300}).to_json(path, orient="records")
    with pytest.raises(ValueError, match=re.escape(f"data file '{path}' has more than one column named ")) as error:
        read_table(path, sep=",")
    message = str(error.value)
    assert len(message) < 400 and "\n" not in message
    assert re.search(r"\(columns \d+, \d+, \d+, \.\.\. \(\d+ in all\)\); .* and \d+ more; give each column", message)


def test_a_symlink_loop_and_a_dangling_link_say_so(tmp_path):
    (tmp_path / "a.csv").symlink_to(tmp_path / "b.csv")
    (tmp_path / "b.csv").symlink_to(tmp_path / "a.csv")
    with pytest.raises(ValueError, match=re.escape(f"data file '{tmp_path / 'a.csv'}' is a symlink loop")):
        read_table(tmp_path / "a.csv")
    (tmp_path / "c.csv").symlink_to(tmp_path / "gone.csv")
    with pytest.raises(FileNotFoundError, match=re.escape(f"not found (a symbolic link to the missing '{tmp_path}")):
        read_table(tmp_path / "c.csv")


@pytest.mark.parametrize("content, message", [
    (gzip.compress(b"y,p\n1,0.5\n") + b"garbage", "not a valid gzip file: it has data after its compressed stream"),
    (b"y,p\n1,0.5\n", "not a valid gzip file: it is not gzip data"),
], ids=["trailing junk", "not gzip"])  # fmt: skip
def test_a_bad_gzip_file_is_named_and_explained(tmp_path, content, message):
    """Trailing junk had given "Not a gzipped file (b'ga')"."""
    path = tmp_path / "data.csv.gz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(f"cannot read data file '{path}': {message}")):
        read_table(path)
