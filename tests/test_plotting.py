"""ROC and PR curves: the drawn points are scikit-learn's, one line per subgroup."""

import sys

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import precision_recall_curve, roc_auc_score, roc_curve

from subroc_ext import (
    UndefinedMeasureWarning,
    plot_pr_curves,
    plot_roc_curves,
    pr_auc_score,
)
from subroc_ext.reporting.plotting import CURVE_TOLERANCE, thinned_curve
from synthetic import scored_frame

plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def data():
    """Tied scores, labels 'pos'/'neg' and a permuted index (covers must go by position)."""
    return scored_frame(7, n=400, ties="some", labels=("pos", "neg"), index="permuted")


SUBGROUPS = [
    ps.Conjunction([ps.EqualitySelector("region", "east")]),
    ps.Conjunction([ps.IntervalSelector("age", 40, 60)]),
    ps.Conjunction([ps.EqualitySelector("region", "north"), ps.IntervalSelector("age", 18, 40)]),
]


def curves(figure):
    """The whole-data and subgroup curves (the first line is the reference)."""
    return figure.axes[0].get_lines()[1:]


def position_mask(subgroup, data):
    """The cover computed independently of pysubgroup, by position."""
    mask = np.ones(len(data), dtype=bool)
    for selector in subgroup.selectors:
        column = data[selector.attribute_name].to_numpy()
        if isinstance(selector, ps.EqualitySelector):
            mask &= column == selector.attribute_value
        else:
            mask &= (column >= selector.lower_bound) & (column < selector.upper_bound)
    return mask


def test_roc_points_are_sklearns(data):
    figure = plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")
    masks = [np.ones(len(data), dtype=bool)] + [position_mask(sg, data) for sg in SUBGROUPS]
    assert len(curves(figure)) == len(masks)
    for line, mask in zip(curves(figure), masks):
        y, p = data["y"].to_numpy()[mask], data["p"].to_numpy()[mask]
        fpr, tpr, _ = roc_curve(y, p, pos_label="pos", drop_intermediate=False)
        np.testing.assert_allclose(line.get_xydata(), np.column_stack([fpr, tpr]))
        assert f"n={mask.sum():,}" in line.get_label()
        assert f"AUC {roc_auc_score(y == 'pos', p):.3f}" in line.get_label()


def test_pr_points_are_sklearns(data):
    figure = plot_pr_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")
    masks = [np.ones(len(data), dtype=bool)] + [position_mask(sg, data) for sg in SUBGROUPS]
    for line, mask in zip(curves(figure), masks):
        y, p = data["y"].to_numpy()[mask], data["p"].to_numpy()[mask]
        precision, recall, _ = precision_recall_curve(y, p, pos_label="pos")
        np.testing.assert_allclose(line.get_xydata(), np.column_stack([recall, precision])[::-1])
        assert f"PR AUC {pr_auc_score(y, p, positive_label='pos'):.3f}" in line.get_label()


def _distances_to_polyline(points, line):
    """Each point's distance to the polyline ``line`` (both ``(n, 2)``) along
    the segment between the kept points around it (``points`` in drawing order,
    ``line`` a subset of them)."""
    kept, at = [], 0
    for point in line:  # each drawn point is an exact point, in order
        while not (points[at] == point).all():
            at += 1
        kept.append(at)
    kept = np.array(kept)
    segment = np.clip(np.searchsorted(kept, np.arange(len(points)), side="right") - 1, 0, len(kept) - 2)
    start, end = points[kept[segment]], points[kept[segment + 1]]
    along = end - start
    length = np.maximum((along**2).sum(axis=1), 1e-300)
    t = np.clip(((points - start) * along).sum(axis=1) / length, 0, 1)
    return np.hypot(*(points - start - t[:, None] * along).T)


@pytest.mark.parametrize("plot,curve,order", [(plot_roc_curves, roc_curve, 1), (plot_pr_curves, None, -1)])
def test_long_curves_are_drawn_thinned_within_the_tolerance(plot, curve, order):
    rng = np.random.default_rng(3)
    n = 60_000
    y = rng.random(n) < 0.3
    frame = pd.DataFrame({"y": y.astype(int), "p": np.round(rng.random(n) + 0.3 * y, 5), "g": "a"})
    figure = plot([], frame, label="y", score="p", positive_label=1)
    line = curves(figure)[0].get_xydata()
    if curve is roc_curve:
        fpr, tpr, _ = roc_curve(y, frame["p"], drop_intermediate=False)
        exact = np.column_stack([fpr, tpr])
    else:
        precision, recall, _ = precision_recall_curve(y, frame["p"])
        exact = np.column_stack([recall, precision])[::-1]
    length = np.abs(np.diff(exact, axis=0)).sum()  # a ROC curve's at most 2; a PR curve's zigzags
    assert 2_000 < len(line) <= length / CURVE_TOLERANCE + 2 < len(exact) / 4
    np.testing.assert_array_equal(line[[0, -1]], exact[[0, -1]])
    distances = _distances_to_polyline(exact, line)
    assert distances.max() <= CURVE_TOLERANCE
    assert distances.max() > CURVE_TOLERANCE / 10  # points were left out, not only collinear ones


def test_short_curves_keep_every_point():
    x, y = np.array([0.0, 0.1, 0.1, 1.0]), np.array([0.0, 0.0, 0.5, 1.0])
    assert thinned_curve(x, y) == (x, y)
    kept = thinned_curve(np.linspace(0, 1, 10_001), np.zeros(10_001), tolerance=0.25)
    np.testing.assert_array_equal(kept[0], [0, 0.25, 0.5, 0.75, 1])


def test_index_does_not_matter(data):
    a = plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")
    b = plot_roc_curves(SUBGROUPS, data.reset_index(drop=True), label="y", score="p",
                        positive_label="pos")  # fmt: skip
    for line_a, line_b in zip(curves(a), curves(b)):
        np.testing.assert_array_equal(line_a.get_xydata(), line_b.get_xydata())


def test_top_table_names_and_axes(data):
    table = pd.DataFrame({"subgroup": SUBGROUPS, "description": ["red", "large", "small blue"]})
    figure = plot_pr_curves(table, data, label="y", score="p", positive_label="pos", top=2)
    labels = [line.get_label() for line in curves(figure)]
    assert len(labels) == 3  # whole data and the top 2
    assert labels[0].startswith("whole data") and labels[1].startswith("red (")
    assert labels[2].startswith("large (")

    _, ax = plt.subplots()
    figure = plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos",
                             top=None, ax=ax, names=["a", "b", "c"])  # fmt: skip
    assert figure is ax.figure
    assert [line.get_label().split(" (")[0] for line in curves(figure)][1:] == ["a", "b", "c"]


def test_undefined_curve_is_skipped_with_a_warning(data):
    only_negatives = ps.Conjunction([ps.EqualitySelector("y", "neg")])
    with pytest.warns(UndefinedMeasureWarning, match="one class only"):
        figure = plot_roc_curves([only_negatives, SUBGROUPS[0]], data, label="y", score="p",
                                 positive_label="pos")  # fmt: skip
    assert len(curves(figure)) == 2


def test_bad_input(data, monkeypatch):
    with pytest.raises(ValueError, match="no 'subgroup' column"):
        plot_roc_curves(pd.DataFrame({"description": ["red"]}), data, label="y", score="p",
                        positive_label="pos")  # fmt: skip
    with pytest.raises(ValueError, match="names has 1 entries but 3"):
        plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos", names=["x"])
    with pytest.raises(KeyError, match="'label'"):
        plot_roc_curves(SUBGROUPS, data, label="label", score="p")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install subroc-ext\[plot\]"):
        plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos")


@pytest.mark.parametrize("plot", [plot_roc_curves, plot_pr_curves])
def test_the_split_is_named_in_title_and_legend(data, plot):
    figure = plot(SUBGROUPS, data, label="y", score="p", positive_label="pos", split="validation")
    axes = figure.axes[0]
    assert axes.get_title().endswith("curves on the validation split")
    assert axes.get_legend().get_texts()[1].get_text().startswith("whole validation split (n=400,")
    unnamed = plot(SUBGROUPS, data, label="y", score="p", positive_label="pos").axes[0]
    assert "split" not in unnamed.get_title()


def test_distinct_curves_skip_near_copies(data):
    east = SUBGROUPS[0]
    near_copy = ps.Conjunction([ps.EqualitySelector("region", "east"), ps.IntervalSelector("age", 0, 70)])
    covers = [position_mask(sg, data) for sg in (east, near_copy, SUBGROUPS[1])]
    overlap = (covers[0] & covers[1]).sum() / (covers[0] | covers[1]).sum()
    assert 0.8 < overlap < 1  # a near-copy by the report's rule
    plotted = [east, near_copy, SUBGROUPS[1], SUBGROUPS[2]]
    figure = plot_roc_curves(plotted, data, label="y", score="p", positive_label="pos", top=2,
                             max_overlap=0.8, names=["east", "copy", "middle-aged", "young north"])  # fmt: skip
    assert [line.get_label().split(" (")[0] for line in curves(figure)][1:] == ["east", "middle-aged"]
    everything = plot_roc_curves(plotted, data, label="y", score="p", positive_label="pos", top=None,
                                 max_overlap=1.0)  # fmt: skip
    assert len(curves(everything)) == 5
    with pytest.raises(ValueError, match="max_overlap must be a Jaccard index"):
        plot_roc_curves(plotted, data, label="y", score="p", positive_label="pos", max_overlap=2)


def forest_table(n, seed=0):
    """A find_subgroups-like table of ``n`` subgroups with intervals and significance."""
    rng = np.random.default_rng(seed)
    value = rng.uniform(0.5, 0.9, n)
    table = pd.DataFrame({
        "subgroup": [ps.Conjunction([ps.EqualitySelector("code", i)]) for i in range(n)],
        "description": [f"code=={i}" for i in range(n)],
        "size_validation": rng.integers(20, 500, n), "roc_auc_validation": value,
        "roc_auc_validation_ci_low": value - 0.05, "roc_auc_validation_ci_high": value + 0.04,
        "significant": rng.random(n) < 0.5, "delta": value - 0.8,
        "delta_ci_low": value - 0.86, "delta_ci_high": value - 0.75,
    })  # fmt: skip
    table.attrs = {"measure": "roc_auc", "dataset_values": {"roc_auc_validation": 0.8}}
    return table


def test_forest_plot_draws_each_value_interval_and_size():
    from subroc_ext import plot_forest

    table = forest_table(30)
    figure = plot_forest(table, top=25, n_rows=1000)
    (ax,) = figure.axes  # one axes: the sizes are texts beside it, not a twin's ticks
    dots = {line.get_label(): line for line in ax.get_lines()}
    significant = table.head(25)["significant"].to_numpy()
    y = np.arange(25)[::-1]
    # dots at the values, on the rows of their rank; filled exactly for the significant ones
    for label, chosen in (("significant", significant), ("not significant", ~significant)):
        np.testing.assert_allclose(dots[label].get_xdata(), table["roc_auc_validation"][:25][chosen])
        np.testing.assert_array_equal(dots[label].get_ydata(), y[chosen])
    assert dots["significant"].get_fillstyle() == "full" and dots["not significant"].get_fillstyle() == "none"
    segments = ax.collections[0].get_segments()
    np.testing.assert_allclose([s[0][0] for s in segments], table["roc_auc_validation_ci_low"][:25])
    np.testing.assert_allclose([s[1][0] for s in segments], table["roc_auc_validation_ci_high"][:25])
    np.testing.assert_allclose(dots["whole data 0.800"].get_xdata(), [0.8, 0.8])
    # texts beside the axes (not ticks, which draw several times slower): names left, sizes right
    names = {t.get_position()[1]: t.get_text() for t in ax.texts if t.get_position()[0] < 0}
    sizes = {t.get_position()[1]: t.get_text() for t in ax.texts if t.get_position()[0] > 1}
    assert sorted(names) == sorted(sizes) == list(range(25)) and not ax.get_yticks().size
    assert names[24] == "#1 code = 0" and names[0] == "#25 code = 24"  # top to bottom
    first = table["size_validation"][0]
    assert sizes[24] == f"n={first:,} ({first / 1000:.0%})"
    # a hundred rows: the figure grows, a row keeps its height
    tall = plot_forest(forest_table(100), top=None)
    assert tall.get_figheight() - figure.get_figheight() == pytest.approx(0.27 * 75)


def test_the_forest_plot_of_many_splits_draws_the_aggregate():
    """A table of splits=B: its delta, interval and verdicts are the aggregate's, its
    roc_auc_validation one split's; the plot draws the aggregate by default and says so."""
    from subroc_ext import plot_forest

    table = forest_table(6)
    table.attrs["splits"] = {"n": 5, "shown": 2}
    ax = plot_forest(table).axes[0]
    dots = {line.get_label(): line for line in ax.get_lines()}
    significant = table["significant"].to_numpy()
    np.testing.assert_allclose(dots["significant"].get_xdata(), table["delta"][significant])
    np.testing.assert_allclose(dots["not significant"].get_xdata(), table["delta"][~significant])
    segments = ax.collections[0].get_segments()
    np.testing.assert_allclose([s[0][0] for s in segments], table["delta_ci_low"])
    np.testing.assert_allclose([s[1][0] for s in segments], table["delta_ci_high"])
    np.testing.assert_allclose(dots["whole data 0.000"].get_xdata(), [0, 0])
    assert ax.get_xlabel().startswith("delta, the aggregate over 5 splits")
    # asked for, one split's measure is drawn as before
    ax = plot_forest(table, value="roc_auc_validation").axes[0]
    np.testing.assert_allclose(ax.collections[0].get_segments()[0][0][0], table["roc_auc_validation_ci_low"][0])


def test_forest_plot_takes_other_interval_columns():
    from subroc_ext import plot_forest

    table = forest_table(5)
    figure = plot_forest(table, value="delta", interval=("delta_ci_low", "delta_ci_high"), reference=0.0)
    ax = figure.axes[0]
    segments = ax.collections[0].get_segments()
    np.testing.assert_allclose([s[0][0] for s in segments], table["delta_ci_low"])
    np.testing.assert_allclose([s[1][0] for s in segments], table["delta_ci_high"])
    dots = {line.get_label(): line for line in ax.get_lines()}
    significant = table["significant"].to_numpy()
    np.testing.assert_allclose(dots["significant"].get_xdata(), table["delta"][significant])
    np.testing.assert_allclose(dots["whole data 0.000"].get_xdata(), [0, 0])
    sizes = [t.get_text() for t in ax.texts if t.get_position()[0] > 1]  # the effects' split: validation
    assert sizes == [f"n={s:,}" for s in table["size_validation"]]
    assert "whole data 0.000" in [line.get_label() for line in ax.get_lines()]
    assert "line: delta_ci_low to delta_ci_high" in ax.get_xlabel()
    plain = plot_forest(table.drop(columns=["roc_auc_validation_ci_low"]), size="size_validation")
    assert not plain.axes[0].collections  # no interval without both columns
    with pytest.raises(KeyError, match="'nope'"):
        plot_forest(table, value="nope")
    with pytest.raises(ValueError, match="interval must be two column names"):
        plot_forest(table, interval=("delta_ci_low",))
    with pytest.raises(ValueError, match="top must be a positive integer"):
        plot_forest(table, top=0)


def test_cross_auc_cells_hold_short_pair_counts():
    from subroc_ext import plot_cross_auc
    from subroc_ext.reporting.plotting import _compact_count

    assert [_compact_count(n) for n in (999, 1_234, 56_789, 2_500_000)] == ["999", "1.23k", "56.8k", "2.5M"]
    auc = pd.DataFrame([[0.5, np.nan], [0.75, 1.0]], index=["a", "b"], columns=["a", "b"])
    pairs = pd.DataFrame([[100, 0], [12_345, 7]], index=["a", "b"], columns=["a", "b"])
    figure = plot_cross_auc(type("Cross", (), {"auc": auc, "pairs": pairs})())
    texts = sorted(t.get_text() for t in figure.axes[0].texts)
    assert texts == ["0.50\n100 pairs", "0.75\n12.3k pairs", "1.00\n7 pairs", "n/a\n0 pairs"]


def dollar_frame(seed):
    """Column names and values with ``$`` (two of them make matplotlib read math)."""
    frame = scored_frame(seed, n=1200)
    frame["region"] = frame["region"].map(
        {"north": "$0-$25k", "south": "$25k-$50k", "east": "$50k-$1M", "west": "none"})
    return frame.rename(columns={"region": "revenue_$", "age": "margin_$", "p": "p_$"})


def assert_drawn_as_spelled(figure):
    """Draw ``figure``; no text of it (tick labels made while drawing too) is read as math."""
    from matplotlib.text import Text

    figure.canvas.draw()
    texts = [t for t in figure.findobj(Text) if t.get_text()]
    assert texts and not [t.get_text() for t in texts if t._preprocess_math(t.get_text())[1]]
    return [t.get_text() for t in texts]


def test_dollar_signs_are_text_in_every_figure(tmp_path):
    """'revenue_$ & margin_$' stopped the report (ParseSyntaxException); '$0-$25k' was drawn
    as an italic 0−25k. Every plotting function draws them as they are spelled."""
    import subroc_ext
    from subroc_ext.reporting.comparison_plots import plot_comparison_roc_curves

    search, validation = dollar_frame(0), dollar_frame(1)
    table = subroc_ext.find_subgroups(search, label="y", score="p_$", validation=validation, n_samples=50,
                                      result_set_size=8, random_state=0, progress=False)  # fmt: skip
    assert table["description"].str.count(r"\$").max() >= 4  # two conditions with '$' in one row
    texts = assert_drawn_as_spelled(subroc_ext.plot_forest(table))
    assert any("revenue_$ = $50k-$1M" in t for t in texts)
    for plot in (subroc_ext.plot_roc_curves, subroc_ext.plot_pr_curves):
        assert_drawn_as_spelled(plot(table, validation, label="y", score="p_$", split="$plit"))
    top = dict(zip(table["description"][:3], table["subgroup"][:3]))
    assert_drawn_as_spelled(subroc_ext.plot_cross_auc(subroc_ext.cross_auc(top, validation, label="y", score="p_$")))
    diagnostics = subroc_ext.generalization_diagnostics(top, search, validation, label="y", score="p_$")
    assert_drawn_as_spelled(subroc_ext.plot_generalization_diagnostics(diagnostics))
    both = search.assign(old=search["p_$"].round(1))
    compared = subroc_ext.find_regressions(both, label="y", score="p_$", baseline="old", n_samples=50,
                                           result_set_size=3, depth=1, random_state=0, progress=False)  # fmt: skip
    assert_drawn_as_spelled(plot_comparison_roc_curves(compared, both, top=2))
    files = subroc_ext.write_report(table, validation, tmp_path, label="y", score="p_$", search=search)
    assert "revenue_$" in files.html.read_text(encoding="utf-8")


#: A name of control characters and full-width and CJK letters, which DejaVu Sans lacks.
UNDRAWABLE = "Ｆｕｌｌ東京\t\r\x1b\x00 & a"


def test_every_name_is_drawn_without_a_missing_glyph(data):
    """Tab, CR, ESC, NUL and full-width letters in a name: drawn as escapes, not as
    missing glyphs with a "Glyph ... missing from font(s)" warning each."""
    import io
    import warnings

    from subroc_ext import plot_cross_auc

    auc = pd.DataFrame([[0.5, 0.6], [0.75, 1.0]], index=[UNDRAWABLE, "b"], columns=[UNDRAWABLE, "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figures = [plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos",
                                   names=[UNDRAWABLE, "b", "c"]), plot_cross_auc(auc)]  # fmt: skip
        for figure in figures:
            figure.savefig(io.BytesIO(), format="png")
    legend = [t.get_text() for t in figures[0].axes[0].get_legend().get_texts()]
    assert legend[2].startswith("\\uff26\\uff55\\uff4c\\uff4c\\u6771\\u4eac\\t\\r\\x1b\\x00 & a (n=")
    assert figures[1].axes[0].get_yticklabels()[0].get_text() == "\\uff26\\uff55\\uff4c\\uff4c\\u6771\\u4eac\\t\\…\na"  # 40 characters


@pytest.mark.parametrize("letter", ["x", "W", "東"])
def test_a_long_name_keeps_the_legend_in_the_figure(data, letter):
    """A name of 10,000 characters pushed the legend out of curves.png: it is cut with
    an ellipsis to the figure's width, measured glyph by glyph."""
    figure = plot_roc_curves(SUBGROUPS, data, label="y", score="p", positive_label="pos",
                             names=[letter * 10_000, "b", "c"])  # fmt: skip
    figure.canvas.draw()
    legend = figure.axes[0].get_legend()
    box, inside = legend.get_window_extent(), figure.bbox
    assert inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0
    name = legend.get_texts()[2].get_text()
    assert "…" in name and name.endswith(")") and len(name) > 40


def test_the_forest_plot_shows_every_failure_of_the_headline_ringed_with_its_rank():
    """Issue 58: a headline failure ranked 27 was not in the forest plot of the top 20."""
    from subroc_ext import plot_forest

    table = forest_table(30).assign(failure=False)
    table.loc[[3, 26], ["significant", "failure"]] = True
    figure = plot_forest(table, top=20)
    (ax,) = figure.axes
    names = [t.get_text() for t in sorted((t for t in ax.texts if t.get_position()[0] < 0),
                                          key=lambda t: -t.get_position()[1])]  # fmt: skip
    assert len(names) == 21 and names[19] == "#20 code = 19" and names[20] == "#27 code = 26"
    rings = {line.get_label(): line for line in ax.get_lines()}["failure (the headline's)"]
    np.testing.assert_allclose(rings.get_xdata(), table["roc_auc_validation"][[3, 26]])
    np.testing.assert_array_equal(rings.get_ydata(), [17, 0])  # #4 and, at the bottom, #27


def test_an_undefined_curve_is_named_in_the_tables_notation(data):
    """Issue 58: the warning named the subgroup as the legend does (``y = neg``), the table as ``y=='neg'``."""
    only_negatives = ps.Conjunction([ps.EqualitySelector("y", "neg")])
    with pytest.warns(UndefinedMeasureWarning, match="not plotting subgroup y=='neg': its ROC curve"):
        plot_roc_curves([only_negatives], data, label="y", score="p", positive_label="pos", names=["y = neg"])
