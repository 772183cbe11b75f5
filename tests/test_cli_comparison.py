"""Tests of ``subroc-ext compare`` and ``subroc-ext drift``: the printed
table and subgroups.csv are those of :func:`subroc_ext.find_regressions` /
:func:`subroc_ext.find_drift` with the same settings, and bad input ends
with exit code 2 and one line naming the problem."""

import re

import numpy as np
import pandas as pd
import pytest
from test_comparison_pipeline import regression_data, scored_rows

import subroc_ext
from subroc_ext.cli import main
from subroc_ext.inputs.tables import EXACT_FLOATS

SETTINGS = {"depth": 2, "result_set_size": 15, "n_samples": 300, "random_state": 3, "progress": False}
OPTIONS = ["--depth", "2", "--top", "15", "--samples", "300", "--seed", "3", "--quiet"]


def read_back(path):
    return pd.read_csv(path, **EXACT_FLOATS, keep_default_na=False, na_values=[""])


def api_table(table):
    """The API's table as subgroups.csv holds it."""
    return table.drop(columns="subgroup").reset_index(drop=True)


def test_compare_writes_the_api_table(tmp_path, capsys):
    data = regression_data(5, n=1500)
    data.to_csv(tmp_path / "scored.csv", index=False)
    out = tmp_path / "out"
    code = main(["compare", str(tmp_path / "scored.csv"), "--label", "y", "--score", "new",
                 "--baseline", "old", "--out", str(out), *OPTIONS])  # fmt: skip
    assert code == 0
    expected = subroc_ext.find_regressions(data, label="y", score="new", baseline="old", **SETTINGS)
    found = read_back(out / "subgroups.csv")
    pd.testing.assert_frame_equal(found[["description", "quality", "p_value"]],
                                  api_table(expected)[["description", "quality", "p_value"]])  # fmt: skip
    printed = capsys.readouterr().out
    assert re.search(r"\n1 +region=='south' ", printed) and "baseline (validation)" in printed
    page = (out / "report.html").read_text(encoding="utf-8")
    assert f"Report: {(out / 'report.html').resolve()} (with subgroups.csv, curves.png, findings.json)." in printed
    first = expected.iloc[0]
    assert f"{first['delta']:+.3f} <span class=\"ci\">[{first['delta_ci_low']:+.3f}, " in page
    assert f"{first['delta_search']:+.3f}</td>" in page
    assert_effect_printed(expected, found, printed)


def assert_effect_printed(expected, found, printed):
    """The written effects are the API's, and the top row's prints as ``delta [low, high]``."""
    columns = ["delta", "delta_ci_low", "delta_ci_high"]
    pd.testing.assert_frame_equal(found[columns], api_table(expected)[columns], check_exact=False)
    delta, low, high = expected[columns].iloc[0]
    first = next(line for line in printed.splitlines() if line.startswith("1 "))
    assert f"{delta:.3f} [{low:.3f}, {high:.3f}]" in first, printed
    assert "level that matches the selection (Benjamini-Yekutieli" in printed


def test_drift_writes_the_api_table(tmp_path, capsys):
    rng = np.random.default_rng(8)
    reference, current = scored_rows(rng, 1500, False), scored_rows(rng, 1200, True)
    reference.to_csv(tmp_path / "ref.csv", index=False)
    current.to_csv(tmp_path / "cur.csv", index=False)
    code = main(["drift", str(tmp_path / "ref.csv"), str(tmp_path / "cur.csv"), "--label", "y",
                 "--score", "p", "--out", str(tmp_path), *OPTIONS])  # fmt: skip
    assert code == 0
    expected = subroc_ext.find_drift(reference, current, label="y", score="p", **SETTINGS)
    found = read_back(tmp_path / "subgroups.csv")
    pd.testing.assert_frame_equal(found[["description", "quality", "statistic"]],
                                  api_table(expected)[["description", "quality", "statistic"]])  # fmt: skip
    printed = capsys.readouterr().out
    assert "current (validation)" in printed
    assert_effect_printed(expected, found, printed)
    header = next(line for line in printed.splitlines() if "current (validation)" in line)
    assert header.split()[-1] == "note"  # what the headline's rules said of each row
    first_row = next(line for line in printed.splitlines() if line.split()[:1] == ["1"])
    assert expected["failure"].iloc[0] and first_row.split()[-1] == "failure"  # region=='south', broken
    whole = expected.attrs["dataset_values"]
    assert (f"Whole data: roc_auc {whole['roc_auc_reference_search']:.3f} (reference) and "
            f"{whole['roc_auc_current_search']:.3f} (current) on the search split") in printed
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    first = expected.iloc[0]
    assert f"{first['size_reference_validation']:,} / {first['size_current_validation']:,}</td>" in page


def test_a_failing_report_keeps_the_table(tmp_path, capsys, monkeypatch):
    from subroc_ext.cli import output as cli

    def fail(table, data, folder, **kwargs):
        (folder / "report.html").write_text("half")
        raise OSError(28, "No space left on device", str(folder / "report.html"))

    monkeypatch.setattr(cli, "write_comparison_report", fail)
    regression_data(5, n=1500).to_csv(tmp_path / "scored.csv", index=False)
    code = main(["compare", str(tmp_path / "scored.csv"), "--label", "y", "--score", "new",
                 "--baseline", "old", "--out", str(tmp_path), *OPTIONS])  # fmt: skip
    assert code == 2
    assert sorted(path.name for path in tmp_path.iterdir()) == ["findings.json", "scored.csv", "subgroups.csv"]
    assert f"cannot write '{tmp_path / 'report.html'}': No space left on device" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["compare", "{data}", "--label", "y", "--score", "new", "--baseline", "nope"], "['nope'] not found"),
    (["compare", "{data}", "--label", "y", "--score", "new", "--baseline", "new"], "score and baseline are the same column"),
    (["drift", "{data}", "{missing}", "--label", "y", "--score", "new"], "not found"),
    (["drift", "{data}", "{data}", "--label", "y", "--score", "new", "--positive-label", "7"],
     "7"),
])  # fmt: skip
def test_bad_input_is_one_line(tmp_path, capsys, argv, message):
    regression_data(6, n=200).to_csv(tmp_path / "d.csv", index=False)
    argv = [a.format(data=tmp_path / "d.csv", missing=tmp_path / "x.csv") for a in argv]
    assert main([*argv, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("subroc-ext: error:") and message in error and error.count("\n") == 1
