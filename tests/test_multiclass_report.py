"""The multi-class report: class-pair AUCs against scikit-learn, the page and the CLI."""

from itertools import combinations

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import roc_auc_score

from subroc_ext import auc_mu_score, write_multiclass_report
from subroc_ext.cli import main
from subroc_ext.reporting.multiclass import class_pair_aucs

pytest.importorskip("matplotlib")
CLASSES = ["a", "b", "c"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    n = 900
    frame = pd.DataFrame({"town": rng.choice(["x", "y", "z"], n), "age": rng.integers(18, 80, n),
                          "label": rng.choice(CLASSES, n)})  # fmt: skip
    logits = rng.normal(size=(n, 3)) + 1.5 * (frame["label"].to_numpy()[:, None] == np.array(CLASSES))
    logits[frame["town"].eq("x").to_numpy()] = rng.normal(size=(int(frame["town"].eq("x").sum()), 3))
    scores = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    frame[CLASSES] = np.round(scores, 2)  # ties in the projected scores
    return frame


def test_class_pair_aucs_are_sklearns_and_average_to_auc_mu(data):
    town = ps.Conjunction([ps.EqualitySelector("town", "x")])
    only_a = data["label"].eq("a").to_numpy()
    auc, pairs = class_pair_aucs({"town x": town, "class a": only_a}, data, label="label",
                                 score_columns={c: c for c in CLASSES})  # fmt: skip
    assert list(auc.columns) == ["a vs b", "a vs c", "b vs c"] and list(auc.index) == ["all", "town x", "class a"]
    for name, mask in (("all", np.ones(len(data), bool)), ("town x", data["town"].eq("x").to_numpy())):
        rows = data[mask]
        for i, j in combinations(CLASSES, 2):
            pair = rows[rows["label"].isin([i, j])]
            expected = roc_auc_score(pair["label"] == i, pair[i] - pair[j])
            assert auc.loc[name, f"{i} vs {j}"] == pytest.approx(expected)
            assert pairs.loc[name, f"{i} vs {j}"] == (pair["label"] == i).sum() * (pair["label"] == j).sum()
        assert auc.loc[name].mean() == pytest.approx(auc_mu_score(rows["label"], rows[CLASSES]))
    # one class only: no pair has both classes
    assert auc.loc["class a"].isna().all() and (pairs.loc["class a"] == 0).all()


def test_cli_writes_the_multiclass_report_and_rows(data, tmp_path, capsys):
    data.to_csv(tmp_path / "scored.csv", index=False)
    code = main(["run", str(tmp_path / "scored.csv"), "--label", "label", "--score-columns", "a,b,c",
                 "--samples", "100", "--top", "5", "--depth", "1", "--quiet", "--export-rows",
                 "--out", str(tmp_path / "out")])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "(with subgroups.csv, findings.json, rows.csv)" in printed.out
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert 'id="forest"' in page and 'id="class-pairs"' in page and "a vs b" in page
    assert page.index('alt="forest plot"') < page.index('<div class="results">')
    table = pd.read_csv(tmp_path / "out" / "subgroups.csv")
    rows = pd.read_csv(tmp_path / "out" / "rows.csv")
    assert list(rows.columns) == ["split", "row", *table["description"]]
    assert sorted(rows["row"]) == list(range(len(data)))  # every row of the file once
    first = table["description"][0]
    attribute, value = first.split("==")
    in_data = data[attribute].astype(str).eq(value.strip("'")).to_numpy()
    np.testing.assert_array_equal(rows.sort_values("row")[first].to_numpy(), in_data.astype(int))


def test_report_of_a_table_without_rows(data, tmp_path):
    table = pd.DataFrame(columns=["subgroup", "description", "quality", "size_validation",
                                  "auc_mu_validation", "p_value_corrected", "significant"])  # fmt: skip
    table.attrs = {"measure": "auc_mu", "label": "label", "score_columns": {c: c for c in CLASSES}}
    files = write_multiclass_report(table, data, tmp_path)
    page = files.html.read_text(encoding="utf-8")
    assert "0 distinct subgroups" in page and 'id="class-pairs"' not in page
