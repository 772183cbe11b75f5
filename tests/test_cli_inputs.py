"""Inputs the command line used to change silently or blame on the wrong file.

Each case ran before (searching a renamed column, using the label as the
score) or named no file or the wrong one (an error in the ``--validation``
file or in drift's current period reported as one of "the search split");
now each is one line naming the file and the column.
"""

import numpy as np
import pytest
from synthetic import scored_frame

from subroc_ext.cli import main

pytest.importorskip("matplotlib")
QUICK = ["--samples", "20", "--depth", "1", "--quiet"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("inputs")
    frame = scored_frame(0, n=1200)
    frame.to_csv(path / "data.csv", index=False)
    frame.iloc[:600].to_csv(path / "search.csv", index=False)
    held = frame.iloc[600:]
    held.assign(p=np.nan).to_csv(path / "nan.csv", index=False)
    held.assign(p="x").to_csv(path / "text.csv", index=False)
    held.assign(y=0).to_csv(path / "negatives.csv", index=False)
    held.drop(columns="p").to_csv(path / "no_score.csv", index=False)
    frame.assign(p=frame["p"].map(lambda v: f"{v:.3f}".replace(".", ","))).to_csv(
        path / "commas.csv", index=False, sep=";")  # fmt: skip
    frame.to_csv(path / "with_index.csv")  # an empty first header: pandas reads 'Unnamed: 0'
    return path


def run(*arguments, capsys):
    code = main([*map(str, arguments), *QUICK])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("name, message", [
    ("nan.csv", "score column 'p' contains 600 NaN or infinite value(s), e.g. at position 0"),
    ("text.csv", "score column 'p' must be numeric, got dtype"),
    ("negatives.csv", "it has no positives (positive label 1) in label column 'y'"),
    ("no_score.csv", "column(s) ['p'] not found in the file"),
])  # fmt: skip
def test_errors_in_the_validation_file_name_it(folder, tmp_path, capsys, name, message):
    code, err = run("run", folder / "search.csv", "--validation", folder / name, "--label", "y", "--score", "p",
                    "--out", tmp_path, capsys=capsys)  # fmt: skip
    assert code == 2 and err.startswith(f"subroc-ext: error: validation file '{folder / name}': {message}")


@pytest.mark.parametrize("name, message", [
    ("nan.csv", "score column 'p' contains 600 NaN"),
    ("text.csv", "score column 'p' must be numeric"),
    ("negatives.csv", "it has no positives (positive label 1) in label column 'y'"),
])  # fmt: skip
def test_errors_in_drifts_current_file_name_it(folder, tmp_path, capsys, name, message):
    code, err = run("drift", folder / "data.csv", folder / name, "--label", "y", "--score", "p", "--out", tmp_path,
                    capsys=capsys)  # fmt: skip
    assert code == 2 and err.startswith(f"subroc-ext: error: current file '{folder / name}': {message}")


def test_the_label_as_score_is_refused(folder, tmp_path, capsys):
    code, err = run("run", folder / "data.csv", "--label", "y", "--score", "y", "--out", tmp_path, capsys=capsys)
    assert code == 2 and err == "subroc-ext: error: label and score are the same column 'y'; each needs a column of its own\n"


def test_decimal_commas_get_a_hint_and_an_option(folder, tmp_path, capsys):
    arguments = ["run", folder / "commas.csv", "--sep", ";", "--label", "y", "--score", "p", "--out", tmp_path]
    code, err = run(*arguments, capsys=capsys)
    assert code == 2 and "its values look like numbers written with a decimal comma (e.g. '0," in err
    assert "--decimal ','" in err
    code, err = run(*arguments, "--decimal", ",", capsys=capsys)
    assert code == 0


def test_a_saved_index_is_refused(folder, tmp_path, capsys):
    code, err = run("run", folder / "with_index.csv", "--label", "y", "--score", "p", "--out", tmp_path,
                    capsys=capsys)  # fmt: skip
    assert code == 2 and "has a column without a name (column 1 of its header)" in err


def test_a_decimal_mark_equal_to_the_separator_is_refused(folder, tmp_path, capsys):
    code, err = run("run", folder / "data.csv", "--decimal", ",", "--label", "y", "--score", "p", "--out", tmp_path,
                    capsys=capsys)  # fmt: skip
    assert code == 2
    assert err == f"subroc-ext: error: data file '{folder / 'data.csv'}': --decimal ',' is also its field separator; pass --sep\n"


def test_a_validation_column_of_another_kind_is_named(folder, tmp_path, capsys):
    scored_frame(0, n=1200).iloc[600:].assign(age="text").to_csv(tmp_path / "typed.csv", index=False)
    code, err = run("run", folder / "search.csv", "--validation", tmp_path / "typed.csv", "--label", "y", "--score", "p",
                    "--out", tmp_path / "out", capsys=capsys)  # fmt: skip
    assert code == 2
    assert err == ("subroc-ext: error: column 'age' holds numbers (int64) in the search data but not in the validation "
                   "data (str); give both the same kind of values\n")


def test_rows_with_another_separator_are_named_not_blamed_on_the_label(folder, tmp_path, capsys):
    lines = (folder / "data.csv").read_text().splitlines()
    lines[601:] = [line.replace(",", ";") for line in lines[601:]]  # the second half appended from another export
    (tmp_path / "mixed.csv").write_text("\n".join(lines) + "\n")
    code, err = run("run", tmp_path / "mixed.csv", "--label", "y", "--score", "p", "--out", tmp_path / "out",
                    capsys=capsys)  # fmt: skip
    assert code == 2
    assert err == (f"subroc-ext: error: data file '{tmp_path / 'mixed.csv'}': 600 row(s) hold all their fields in "
                   "column 'region', separated by ';', not ','; give the whole file one separator (the first: "
                   "data row 601)\n")  # fmt: skip


def test_a_zip_of_two_files_names_the_file(folder, tmp_path, capsys):
    import zipfile

    with zipfile.ZipFile(tmp_path / "two.csv.zip", "w") as archive:
        archive.write(folder / "data.csv", "a.csv")
        archive.write(folder / "search.csv", "b.csv")
    code, err = run("run", tmp_path / "two.csv.zip", "--label", "y", "--score", "p", "--out", tmp_path / "out",
                    capsys=capsys)  # fmt: skip
    assert code == 2
    assert err.startswith(f"subroc-ext: error: cannot read data file '{tmp_path / 'two.csv.zip'}': Multiple files")


def test_a_leak_that_leaves_nothing_to_find_is_still_named_first(tmp_path, capsys):
    """Scores that rank perfectly because a column records the outcome: no
    subgroup ranks worse, and the leak is named before saying so."""
    import pandas as pd

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    data = pd.DataFrame({"age": rng.integers(20, 70, 600), "hours": y * rng.integers(1, 40, 600), "y": y,
                         "p": np.clip(0.1 + 0.8 * y + rng.normal(0, 0.02, 600), 0, 1)})  # fmt: skip
    data.to_csv(tmp_path / "leak.csv", index=False)
    assert main(["run", str(tmp_path / "leak.csv"), "--label", "y", "--score", "p", "--out", str(tmp_path / "out"),
                 "--quiet"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert out.index("Check the data: possible leak: hours != 0") < out.index("No subgroup found in the")
