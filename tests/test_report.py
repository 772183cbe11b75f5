"""write_report: CSV without objects, the PNG embedded in one HTML file."""

import base64

import numpy as np
import pandas as pd
import pytest

from subroc_ext import find_subgroups, report, write_report
from synthetic import scored_frame

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def analysis():
    search, validation = scored_frame(0, n=1500), scored_frame(1, n=1500)
    validation.index = np.arange(len(validation))[::-1] * 2  # any index works
    table = find_subgroups(search, label="y", score="p", validation=validation, n_samples=200,
                           result_set_size=10, random_state=0, progress=False)  # fmt: skip
    return table, validation


def test_files(analysis, tmp_path):
    table, validation = analysis
    files = write_report(table, validation, tmp_path / "new" / "dir", label="y", score="p",
                         title="Audit <of> p", runtime=1.25)  # fmt: skip
    assert all(path.is_file() for path in files)

    csv = pd.read_csv(files.csv)
    assert list(csv.columns) == [c for c in table.columns if c != "subgroup"]
    assert csv["description"].tolist() == table["description"].tolist()

    page = files.html.read_text(encoding="utf-8")
    assert "data:image/png;base64," + base64.b64encode(files.png.read_bytes()).decode() in page
    assert page.count('<tr class="significant">') == table["significant"].sum() > 0
    assert "region==&#x27;east&#x27;" in page
    assert "Audit &lt;of&gt; p" in page and "1.2 s" in page
    assert "Benjamini–Yekutieli" in page and "How to read this" in page
    assert "roc_auc_validation" in page and "min_support" in page


def test_pr_auc_draws_pr_curves(analysis, tmp_path, monkeypatch):
    drawn, original = [], report.plot_pr_curves

    def spy(*args, **kwargs):
        drawn.append("pr")
        return original(*args, **kwargs)

    monkeypatch.setattr(report, "plot_pr_curves", spy)
    table, validation = analysis
    write_report(table, validation, tmp_path, label="y", score="p", measure="roc_auc")
    assert drawn == []
    write_report(table, validation, tmp_path, label="y", score="p", measure="pr_auc", top=2)
    assert drawn == ["pr"]
