"""CSV cells a spreadsheet would run as formulas get an apostrophe; numbers stay numbers.

Every CSV file written (subgroups.csv of each report, the CLI's subgroups.csv
and rows.csv) is read back cell by cell: no text cell or column name starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return unless it is a plain
number, and removing the apostrophe gives the table's text back.
"""

import csv

import numpy as np
import pandas as pd
import pytest
from synthetic import multiclass_frame, scored_frame

import subroc_ext
from subroc_ext.cli import main
from subroc_ext.utils.spreadsheet import FORMULA_STARTS, _PLAIN_NUMBER, spreadsheet_safe, spreadsheet_text

pytest.importorskip("matplotlib")
FORMULAS = ['=HYPERLINK("http://example.com","click")', "@SUM(1+1)", "+1+cmd|' /C calc'!A0", "-2+3",
            "\t=1", "\r=1"]  # fmt: skip
SETTINGS = {"n_samples": 50, "result_set_size": 8, "random_state": 0, "progress": False}


def test_text_that_starts_a_formula_gets_an_apostrophe():
    assert [spreadsheet_text(text) for text in FORMULAS] == ["'" + text for text in FORMULAS]
    readable = ["-0.23 <= x < 0.229", "-inf", "+ 5", "-"]
    assert [spreadsheet_text(text) for text in readable] == ["'" + text for text in readable]
    unchanged = ["-5", "+1.5e3", "-.5", "3", "age < 30", "x=='=1'", "", "'=1", -5, -0.5, None, np.nan, True]
    assert [spreadsheet_text(value) for value in unchanged[:-2]] == unchanged[:-2]
    assert np.isnan(spreadsheet_text(np.nan)) and spreadsheet_text(True) is True


def test_frames_keep_numbers_and_change_text_by_position():
    frame = pd.DataFrame([["=1", -0.5, -3, True, "-1 <= x < 2", "-7"]],
                         columns=["@a", "delta", "n", "ok", "description", "description"])  # fmt: skip
    frame["kind"] = pd.Categorical(["+x"])
    safe = spreadsheet_safe(frame)
    assert list(safe.columns) == ["'@a", "delta", "n", "ok", "description", "description", "kind"]
    assert safe.iloc[0].tolist() == ["'=1", -0.5, -3, True, "'-1 <= x < 2", "-7", "'+x"]
    assert frame.iloc[0, 0] == "=1" and list(frame.columns)[0] == "@a"  # the input is not changed


def hostile(seed, n=1200):
    """Category values that are formulas, a column named like one, and negative numbers
    (so that descriptions such as '-0.23 <= x < 0.229' appear)."""
    frame = scored_frame(seed, n=n)
    frame["region"] = frame["region"].map(dict(zip(["north", "south", "east", "west"], FORMULAS)))
    frame["age"] = (frame["age"] - 50) / 100
    return frame.rename(columns={"plan": "=cmd|' /C calc'!A0"})


def csv_cells(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def assert_safe(path):
    """No cell of ``path`` runs as a formula; the changed ones, all of them text."""
    cells = csv_cells(path)
    running = [c for c in cells if c.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(c)]
    assert running == [], (path, running[:5])
    return cells


@pytest.mark.extended  # every pipeline run to write every CSV
def test_every_csv_written_is_safe(tmp_path):
    search, validation = hostile(0), hostile(1)
    table = subroc_ext.find_subgroups(search, label="y", score="p", validation=validation,
                                      **{**SETTINGS, "result_set_size": 50})  # fmt: skip
    descriptions = list(table["description"])
    assert any(d.startswith("-") for d in descriptions)  # an interval with a negative lower bound
    cells = assert_safe(subroc_ext.write_report(table, validation, tmp_path / "api", label="y", score="p").csv)
    read = pd.read_csv(tmp_path / "api" / "subgroups.csv")
    assert list(read["description"].str.removeprefix("'")) == descriptions  # readable, and the same text
    assert any(c.startswith("-0.") and float(c) < 0 for c in cells)  # negative numbers stay numbers

    both = search.assign(old=search["p"].round(1))
    compared = subroc_ext.find_regressions(both, label="y", score="p", baseline="old", depth=1, **SETTINGS)
    assert_safe(subroc_ext.write_comparison_report(compared, both, tmp_path / "compare").csv)

    frame, score_columns = multiclass_frame(0, n=900)
    frame["a0"] = frame["a0"].map(dict(zip("pq", FORMULAS)))
    multiclass = subroc_ext.find_multiclass_subgroups(frame, label="grade", score_columns=score_columns,
                                                      depth=1, **SETTINGS)  # fmt: skip
    assert any(d.startswith("a0=='=") for d in multiclass["description"])
    assert_safe(subroc_ext.write_multiclass_report(multiclass, frame, tmp_path / "multiclass").csv)

    pd.concat([search, validation]).to_csv(tmp_path / "data.csv", index=False)
    code = main(["run", str(tmp_path / "data.csv"), "--label", "y", "--score", "p", "--samples", "50", "--top", "50",
                 "--quiet", "--export-rows", "--out", str(tmp_path / "cli")])  # fmt: skip
    assert code == 0
    header = assert_safe(tmp_path / "cli" / "rows.csv")[:30]
    assert any(name.startswith("'-") for name in header) or any(name.startswith("'=") for name in header)
    assert_safe(tmp_path / "cli" / "subgroups.csv")
