"""Real tables nobody on this project prepared, through ``find_subgroups`` and
the command line.

The corpus: every table that ships inside an installed package we depend on
(statsmodels' datasets, read from their CSV files as they come;
scikit-learn's bundled datasets; pysubgroup's Titanic and German credit;
matplotlib's stock prices; our own Adult sample). Each is scored by a quick
model, with a binary label derived by one documented rule
(:func:`labelled`), and must come through: no crash and no traceback, a
refused input as one line, unique descriptions, missing-value conditions for
every attribute with missing values, no row of quality <= 0, never the whole
split. The default run takes a sample of each table at depth 1; the full
tables at depth 2 run with ``-m slow``.
"""

import io
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import subroc_ext
from subroc_ext import SearchSpaceWarning, UndefinedMeasureWarning, make_search_space
from subroc_ext.demo import datasets
from subroc_ext.cli import main
from subroc_ext.utils.descriptions import name_text

#: A longer check (real tables, scripts, a cluster): `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

STATSMODELS = Path(resources.files("statsmodels")) / "datasets"
PYSUBGROUP = Path(resources.files("pysubgroup")) / "data"
MATPLOTLIB = Path(resources.files("matplotlib")) / "mpl-data" / "sample_data"


def _sklearn(name):
    import sklearn.datasets

    return getattr(sklearn.datasets, f"load_{name}")(as_frame=True).frame


def _credit_g():
    from scipy.io import arff

    records, _ = arff.loadarff(io.StringIO((PYSUBGROUP / "credit-g.arff").read_text()))
    frame = pd.DataFrame(records)
    for column in frame.select_dtypes(object):  # arff gives bytes
        frame[column] = frame[column].str.decode("utf-8")
    return frame


#: name -> loader of the raw table
TABLES = {
    **{
        path.parent.name + ("" if path.stem in (path.parent.name, "data") else f"_{path.stem}"):
        (lambda path=path: pd.read_csv(path, sep=None, engine="python"))  # sniffs , ; tab space
        for path in sorted(STATSMODELS.glob("*/*.csv"))
        if path.parent.name != "template_data" and path.stem != "E6_jmulti"
    },
    "interest_inflation_jmulti": lambda: pd.read_csv(
        STATSMODELS / "interest_inflation" / "E6_jmulti.csv", sep=" ", header=None, names=["Dp", "R"]
    ),
    **{name: (lambda name=name: _sklearn(name))
       for name in ("breast_cancer", "iris", "wine", "diabetes", "digits", "linnerud")},  # fmt: skip
    "titanic": lambda: pd.read_csv(PYSUBGROUP / "titanic.csv", sep="\t"),
    "credit_g": _credit_g,
    "stocks": lambda: pd.read_csv(MATPLOTLIB / "Stocks.csv", comment="#", parse_dates=["Date"]),
    "msft": lambda: pd.read_csv(MATPLOTLIB / "msft.csv"),
    "adult": datasets.load_adult,
}


def labelled(frame, seed=0):
    """The table with a binary ``label`` and a model's ``score``.

    The label: the first column with exactly two distinct values (the
    positive class is the larger value); without one, the last numeric column with more values, above
    its median. That column is dropped (it is the label), rows where it is
    missing too. The score: a logistic regression on at most three other
    numeric columns (missing values set to the column median), fitted on the
    same rows; seeded noise where the table has no other numeric column.
    """
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    binary = [c for c in frame if frame[c].nunique(dropna=True) == 2]
    numeric = [c for c in frame.select_dtypes("number") if frame[c].nunique() > 2]
    source = binary[0] if binary else numeric[-1]
    frame = frame[frame[source].notna()]
    values = frame[source]
    if binary:
        label = (values == max(values.unique())).astype(int)
    else:
        label = (values > values.median()).astype(int)
    frame = frame.drop(columns=source).assign(label=label.to_numpy())
    features = [c for c in frame.select_dtypes("number") if c not in ("label",)][:3]
    rng = np.random.default_rng(seed)
    if features and frame["label"].nunique() == 2:
        x = frame[features].astype(float)
        x = x.fillna(x.median()).fillna(0.0).to_numpy()
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
        score = model.fit(x, frame["label"]).predict_proba(x)[:, 1]
    else:
        score = rng.random(len(frame))
    return frame.assign(score=np.round(score, 6))


def _sample(frame, rows, seed=0):
    if len(frame) <= rows:
        return frame
    return frame.sample(rows, random_state=seed).sort_index()


def _check_table(table, search_rows):
    assert (table["quality"] > 0).all(), table[["description", "quality"]]
    descriptions = [d for row in table.itertuples() for d in [row.description, *filter(None, row.alternatives.split("; "))]]
    assert len(set(descriptions)) == len(descriptions)
    assert (table["size_search"] < search_rows).all()


#: Each table is audited with one measure, in turn (ARL's complaint: rows of quality <= 0).
MEASURE_OF = {name: ["roc_auc", "pr_auc", "arl", "attribution_mean"][i % 4] for i, name in enumerate(sorted(TABLES))}


def _audit(name, rows, depth, n_samples, tmp_path, capsys):
    frame = labelled(TABLES[name]())
    if rows is not None:
        frame = _sample(frame, rows)
    settings = {"depth": depth, "min_support": 5, "measure": MEASURE_OF[name]}
    # the search space: a missing-value condition for every attribute with missing values
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        space = make_search_space(frame, ignore=["label", "score"])
    # one line naming the columns left out, and a line per note (numbers written as text, ...)
    messages = [str(w.message) for w in caught if issubclass(w.category, SearchSpaceWarning)]
    assert sum(m.startswith("columns left out") for m in messages) <= 1
    assert messages == list(space.notes)
    labels = {str(c) for c in space}
    assert len(labels) == len(space)
    for column in space.used:
        if frame[column].isna().any():
            assert f"{name_text(column)} is missing" in labels
    # the API
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SearchSpaceWarning)
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        try:
            table = subroc_ext.find_subgroups(frame, label="label", score="score", n_samples=n_samples,
                                              progress=False, **settings)  # fmt: skip
        except (ValueError, KeyError) as error:  # refused: one line
            assert "\n" not in str(error)
            table = None
    if table is not None:
        _check_table(table, round(len(frame) * 0.5) + 1)
    # the command line, on the table written as CSV
    path = tmp_path / f"{name}.csv"
    frame.to_csv(path, index=False)
    capsys.readouterr()
    code = main(["run", str(path), "--label", "label", "--score", "score", "--depth", str(depth),
                 "--min-support", "5", "--measure", MEASURE_OF[name], "--samples", str(n_samples),
                 "--quiet", "--out", str(tmp_path / name)])  # fmt: skip
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    if code == 0:
        written = pd.read_csv(tmp_path / name / "subgroups.csv", keep_default_na=False)
        if len(written):
            written["quality"] = written["quality"].astype(float)
            _check_table(written, round(len(frame) * 0.5) + 1)
    else:
        assert code == 2
        assert len(captured.err.strip().splitlines()) == 1, captured.err
    return table


def test_the_corpus_has_at_least_30_tables():
    assert len(TABLES) >= 30


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_sample(name, tmp_path, capsys):
    _audit(name, rows=300, depth=1, n_samples=20, tmp_path=tmp_path, capsys=capsys)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TABLES))
def test_whole_table(name, tmp_path, capsys):
    _audit(name, rows=None if name not in ("adult", "randhie") else 5000, depth=2, n_samples=200,
           tmp_path=tmp_path, capsys=capsys)  # fmt: skip


def test_missing_values_are_found_as_a_subgroup():
    """Titanic: the cabin is missing mostly in third class; a model that
    ignores it ranks the passengers without a cabin worse."""
    frame = labelled(TABLES["titanic"]())
    table = subroc_ext.find_subgroups(frame.drop(columns=["PassengerId", "Name", "Ticket"]), label="label",
                                      score="score", depth=1, n_samples=200, progress=False)  # fmt: skip
    assert any("is missing" in d or "is not missing" in d for d in table["description"])
