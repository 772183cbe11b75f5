"""Tests of :func:`subroc_ext.reporting.comparison_report.write_comparison_report` and of
the report ``subroc-ext compare`` / ``drift`` write: the cells are the
table's values (each side's measure, Δ on both splits), the forest plot draws
Δ around 0 (with the simultaneous interval when the table has the effect
columns, read from the drawn segments), both ROC curves are drawn on the
validation rows, and a failing report leaves the table."""

import numpy as np
import pytest
from test_comparison_pipeline import regression_data, scored_rows

import subroc_ext
from subroc_ext.reporting import comparison_plots, report
from subroc_ext.workflow.comparison import split_periods
from subroc_ext.reporting.comparison_report import write_comparison_report
from subroc_ext.workflow.pipeline import split_validation

pytest.importorskip("matplotlib")
SETTINGS = {"depth": 2, "result_set_size": 8, "n_samples": 500, "random_state": 0, "progress": False}


@pytest.fixture(scope="module")
def paired():
    search, validation = split_validation(regression_data(5, n=2000), 0.5, 0)
    table = subroc_ext.find_regressions(search, validation=validation, label="y", score="new",
                                        baseline="old", **SETTINGS)  # fmt: skip
    return table, validation


@pytest.fixture(scope="module")
def unpaired():
    rng = np.random.default_rng(8)
    splits = split_periods(scored_rows(rng, 1500, False), scored_rows(rng, 1200, True), 0.5, 0)
    (reference, held_reference), (current, held_current) = splits
    table = subroc_ext.find_drift(reference, current, validation=(held_reference, held_current),
                                  label="y", score="p", **SETTINGS)  # fmt: skip
    return table, held_reference, held_current


def body_rows(page):
    """The <tr> parts of the subgroups table."""
    return page.split('<div class="results">')[1].split("<tbody>")[1].split("</tbody>")[0].split("<tr")[1:]


def cell(row, key):
    return row.split(f'data-col="{key}"')[1].split(">", 1)[1].split("</td>")[0]


@pytest.fixture
def drawn(monkeypatch):
    """The keywords and axes of every forest plot and comparison curve figure drawn."""
    found = {"forest": [], "curves": []}
    forest, curves = report.plot_forest, comparison_plots.plot_comparison_roc_curves

    def forest_spy(*args, **kwargs):
        figure = forest(*args, **kwargs)
        found["forest"].append((kwargs, figure.axes[0]))
        return figure

    def curves_spy(*args, **kwargs):
        figure = curves(*args, **kwargs)
        found["curves"].append((args, kwargs, figure))
        return figure

    monkeypatch.setattr(report, "plot_forest", forest_spy)
    monkeypatch.setattr(subroc_ext.reporting.comparison_report, "plot_comparison_roc_curves", curves_spy)
    return found


def test_paired_report_cells_forest_and_curves(paired, tmp_path, drawn):
    found, validation = paired
    table = found.drop(columns=["delta", "delta_ci_low", "delta_ci_high"])  # a table without effects
    table.attrs = found.attrs
    files = write_comparison_report(table, validation, tmp_path)
    page = files.html.read_text(encoding="utf-8")
    assert files.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert files.csv.read_text().splitlines()[0].startswith("description,")
    rows = body_rows(page)
    assert len(rows) == len(table)
    for row, (_, record) in zip(rows, table.iterrows()):
        assert cell(row, "delta_validation") == f"{record['delta_validation']:+.3f}"
        assert cell(row, "delta_search") == f"{record['delta_search']:+.3f}"
        assert cell(row, "roc_auc_baseline_validation") == f"{record['roc_auc_baseline_validation']:.4g}"
        assert cell(row, "roc_auc_validation") == f"{record['roc_auc_validation']:.4g}"
        assert cell(row, "size_validation").startswith(f"{record['size_validation']:,} (")
    kwargs, ax = drawn["forest"][0]
    assert (kwargs["value"], kwargs["interval"], kwargs["reference"]) == ("delta_validation", (), 0.0)
    dots = np.concatenate([line.get_xdata() for line in ax.get_lines()[1:] if "the headline's" not in line.get_label()])
    assert sorted(dots) == pytest.approx(sorted(table["delta_validation"].head(20)))
    args, kwargs, figure = drawn["curves"][0]
    assert args[1] is validation and args[2] is None
    # distinct subgroups, best first: no drawn pair overlaps by a Jaccard index above 0.8
    ranks = args[0]["rank"].tolist()
    assert ranks[0] == 1 and ranks == sorted(ranks) and 1 <= kwargs["top"] == len(ranks) <= 6
    covers = [sg.covers(validation) for sg in args[0]["subgroup"]]
    for i, a in enumerate(covers):
        for b in covers[:i]:
            assert (a & b).sum() / (a | b).sum() <= 0.8
    assert [ax.get_title().split(" ")[0] for ax in figure.axes[: len(ranks)]] == [f"#{r}" for r in ranks]
    assert "simultaneous" not in page and "Δ validation [interval]" not in page
    assert "Where does the new model fall behind the baseline?" in page
    assert "scored by both models" in page  # the paired test, explained


def test_effect_columns_show_their_simultaneous_interval(paired, tmp_path, drawn):
    table, validation = paired
    effects = table.assign(delta=table["delta_validation"] * 0.9, delta_ci_low=table["delta_validation"] - 0.1,
                           delta_ci_high=table["delta_validation"] + 0.2)  # fmt: skip
    effects.attrs = table.attrs
    page = write_comparison_report(effects, validation, tmp_path).html.read_text(encoding="utf-8")
    kwargs, ax = drawn["forest"][0]
    assert (kwargs["value"], tuple(kwargs["interval"])) == ("delta", ("delta_ci_low", "delta_ci_high"))
    segments = ax.collections[0].get_segments()
    assert [s[0][0] for s in segments] == pytest.approx(effects["delta_ci_low"].head(20).tolist())
    assert [s[1][0] for s in segments] == pytest.approx(effects["delta_ci_high"].head(20).tolist())
    first = effects.iloc[0]
    shown = cell(body_rows(page)[0], "delta")
    assert shown == (f'{first["delta"]:+.3f} <span class="ci">'
                     f'[{first["delta_ci_low"]:+.3f}, {first["delta_ci_high"]:+.3f}]</span>')  # fmt: skip
    assert "Δ validation [interval]" in page and "95% <strong>simultaneous</strong>" in page


def test_rows_whose_test_and_interval_disagree_are_explained_under_the_table(paired, tmp_path, drawn):
    """As the console does ("Where the test and the interval disagree")."""
    table, validation = paired
    said = "the test rejects (corrected p 0.029) but the interval reaches 0: not credibly beyond it"
    noted = table.assign(verdict_note=["", said] + [""] * (len(table) - 2))
    noted.attrs = table.attrs
    page = write_comparison_report(noted, validation, tmp_path).html.read_text(encoding="utf-8")
    assert "Notes (where the test and the interval disagree):" in page and f"<li>#2: {said}</li>" in page


def test_drift_report_shows_both_periods(unpaired, tmp_path, drawn):
    table, held_reference, held_current = unpaired
    page = write_comparison_report(table, held_reference, tmp_path, current=held_current).html.read_text(
        encoding="utf-8"
    )
    first = table.iloc[0]
    row = body_rows(page)[0]
    assert cell(row, "size_validation") == (
        f"{first['size_reference_validation']:,} / {first['size_current_validation']:,}"
    )
    assert cell(row, "roc_auc_current_validation") == f"{first['roc_auc_current_validation']:.4g}"
    assert drawn["forest"][0][0]["size"] == "size_current_validation"
    args, _, _ = drawn["curves"][0]
    assert args[1] is held_reference and args[2] is held_current
    assert "Where did the model degrade from the reference to the current period?" in page
    assert "each period's validation rows" in page


def test_bad_calls_name_the_problem(paired, unpaired, tmp_path):
    table, validation = paired
    with pytest.raises(ValueError, match="current is only for find_drift tables"):
        write_comparison_report(table, validation, tmp_path, current=validation)
    drift, held_reference, _ = unpaired
    with pytest.raises(ValueError, match="current is needed for a find_drift table"):
        write_comparison_report(drift, held_reference, tmp_path)
    with pytest.raises(ValueError, match="'subgroup' column"):
        write_comparison_report(table.drop(columns="subgroup"), validation, tmp_path)
    single = table.copy()
    single.attrs = {"measure": "roc_auc"}  # as find_subgroups' (no baseline, one period)
    with pytest.raises(ValueError, match="not a comparison table"):
        write_comparison_report(single, validation, tmp_path)
