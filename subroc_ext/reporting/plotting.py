"""ROC and precision-recall curves of the whole data and of its top subgroups.

The curves come from :func:`subroc_ext.metrics.kernels.roc_curve_from_counts` and
:func:`~subroc_ext.metrics.kernels.pr_curve_from_counts`, exactly as scikit-learn's
``roc_curve(..., drop_intermediate=False)`` and ``precision_recall_curve``:
one point per distinct score, so tied scores give
a straight segment and the area under the drawn curve is the tie-aware AUC
that the quality functions use. A curve of more points than the figure can
show is drawn through a subset of them (:func:`thinned_curve`: at most 1/4,000
of the axes away, a fifth of a pixel), so that a million rows do not draw a
million points. matplotlib (``pip install subroc-ext[plot]``)
is imported only when a plot is drawn. Every text is drawn as it is spelled
(:func:`~subroc_ext.reporting.figure_text.plain_text`): a column ``revenue_$`` or a value ``$0-$25k`` is never
read as math. Every name (a value, a column) enters a figure through
:mod:`~subroc_ext.reporting.figure_text`.
"""

import warnings

import numpy as np
import pandas as pd

from ..exceptions import UndefinedMeasureWarning
from ..metrics.covers import cover_of
from ..metrics.kernels import (
    pr_auc_from_counts,
    pr_curve_from_counts,
    roc_auc_from_counts,
    roc_curve_from_counts,
    score_tie_counts,
)
from ..utils.descriptions import describe
from ..utils.validation import check_columns, finite_scores, positive_mask, shown
from ..workflow.diversity import cover_words, select_diverse
from .conditions import readable_description
from .figure_text import fitted, plain_text, shortened, wrapped_name
from .findings import finding_noun, shown_positions
from .layout import fit_axes, widest
from .preload import pyplot
from .reading import aggregated_effects

__all__ = [
    "CURVE_TOLERANCE",
    "thinned_curve",
    "plot_forest",
    "plot_roc_curves",
    "plot_pr_curves",
    "plot_cross_auc",
    "plot_generalization_diagnostics",
]


#: How far (in units of the axes, 0 to 1) a drawn ROC or PR curve may pass from its exact points.
CURVE_TOLERANCE = 2.5e-4


def thinned_curve(x, y, tolerance=CURVE_TOLERANCE):
    """The points of a curve that draw it to within ``tolerance``.

    The first point, the last and each point where the curve's length so
    far (``|dx| + |dy|`` summed) enters a new multiple of ``tolerance``.
    Every left-out point lies within ``tolerance`` of the previous kept one
    along the curve, so the drawn line is everywhere within ``tolerance``
    of the exact one (and it keeps each kept point exactly). A curve of
    length ``L`` keeps at most ``L / tolerance + 2`` points: a ROC curve, of
    length at most 2, about 8,000 at the default.

    Parameters
    ----------
    x, y : numpy.ndarray of float
        The exact points, in drawing order.
    tolerance : float, default=CURVE_TOLERANCE

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The kept points' ``x`` and ``y``; the arrays themselves when all are kept.
    """
    if len(x) <= 2:
        return x, y
    bucket = np.floor(np.concatenate(([0.0], np.cumsum(np.abs(np.diff(x)) + np.abs(np.diff(y))))) / tolerance)
    keep = np.empty(len(x), dtype=bool)
    keep[0] = keep[-1] = True
    np.not_equal(bucket[1:-1], bucket[:-2], out=keep[1:-1])
    return (x, y) if keep.all() else (x[keep], y[keep])


def _roc_curve(is_positive, scores):
    """``(fpr, tpr, auc)``: the ROC curve from (0, 0), or None without both classes."""
    counts = score_tie_counts(is_positive, scores)
    if counts.positives.sum() == 0 or counts.negatives.sum() == 0:
        return None
    return (*roc_curve_from_counts(counts), roc_auc_from_counts(counts))


def _pr_curve(is_positive, scores):
    """``(recall, precision, auc)``: the PR curve from (0, 1), or None without positives."""
    counts = score_tie_counts(is_positive, scores)
    if counts.positives.sum() == 0:
        return None
    return (*pr_curve_from_counts(counts), pr_auc_from_counts(counts))


def _subgroups_iv(subgroups, top, names):
    """The first ``top`` descriptions of a list or ``find_subgroups`` table, and their names."""
    if isinstance(subgroups, pd.DataFrame):
        if "subgroup" not in subgroups.columns:
            raise ValueError(
                "the table has no 'subgroup' column of pysubgroup descriptions (a table "
                "read back from CSV has lost it); pass the table returned by "
                "find_subgroups or a list of descriptions"
            )
        descriptions = list(subgroups["subgroup"])
        default_names = (
            list(subgroups["description"])
            if "description" in subgroups.columns
            else [describe(sg) for sg in descriptions]
        )
    else:
        descriptions = list(subgroups)
        default_names = [describe(sg) for sg in descriptions]
    if top is not None:
        if not (isinstance(top, (int, np.integer)) and top >= 0):
            raise ValueError(f"top must be a non-negative integer or None, got {shown(top)}")
        descriptions, default_names = descriptions[:top], default_names[:top]
    if names is None:
        return descriptions, default_names
    names = [str(name) for name in names]
    if len(names) != len(descriptions):
        raise ValueError(
            f"names has {len(names)} entries but {len(descriptions)} subgroups are plotted"
        )
    return descriptions, names


def _distinct(subgroups, data, top, names, max_overlap):
    """The first ``top`` subgroups overlapping no earlier shown one by more than
    ``max_overlap`` (Jaccard index on ``data``), and their names."""
    if not (isinstance(max_overlap, (int, float, np.integer, np.floating)) and 0 <= max_overlap <= 1):
        raise ValueError(f"max_overlap must be a Jaccard index in [0, 1] or None, got {max_overlap!r}")
    descriptions, names = _subgroups_iv(subgroups, None, names)
    kept = select_diverse(cover_words(descriptions, data), max_overlap)[:top]
    return [descriptions[i] for i in kept], [names[i] for i in kept]


def _plot_curves(kind, subgroups, data, label, score, positive_label, top, ax, names, split,
                 max_overlap=None):  # fmt: skip
    """Shared body of :func:`plot_roc_curves` and :func:`plot_pr_curves`."""
    check_columns(data, [label, score])
    is_positive = positive_mask(data[label], positive_label, label)
    scores = finite_scores(data[score], score)
    if max_overlap is None:
        descriptions, names = _subgroups_iv(subgroups, top, names)
    else:
        descriptions, names = _distinct(subgroups, data, top, names, max_overlap)
    curve, measure = (_roc_curve, "AUC") if kind == "roc" else (_pr_curve, "PR AUC")
    whole = curve(is_positive, scores)
    if whole is None:
        needed = "both classes" if kind == "roc" else "a positive"
        raise ValueError(
            f"the {kind.upper()} curve of the whole data needs {needed} in label column {label!r}"
        )

    plt = pyplot()
    if ax is None:
        figure, ax = plt.subplots(figsize=(7.5, 7.2), layout="constrained")
    else:
        figure = ax.figure
    if kind == "roc":
        ax.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1, label="random ranking")
    else:
        rate = is_positive.mean()
        ax.axhline(rate, linestyle="--", color="0.6", linewidth=1,
                   label=f"random ranking (precision {rate:.2f})")  # fmt: skip
    whole_name = "whole data" if split is None else f"whole {split} split"
    ax.plot(*thinned_curve(whole[0], whole[1]), color="0.15", linewidth=3,
            label=f"{whole_name} (n={len(data):,}, {measure} {whole[2]:.3f})")  # fmt: skip
    for description, name in zip(descriptions, names):
        cover = cover_of(description, data)
        points = curve(is_positive[cover], scores[cover])
        if points is None:
            warnings.warn(
                f"not plotting subgroup {describe(description)}: its {kind.upper()} curve is undefined "
                f"(one class only among its {cover.sum()} rows)",
                UndefinedMeasureWarning,
                stacklevel=3,
            )
            continue
        ax.plot(*thinned_curve(points[0], points[1]), linewidth=1.5,
                label=fitted(name, f" (n={cover.sum():,}, {measure} {points[2]:.3f})", ax, "small"))  # fmt: skip
    where = "" if split is None else f" on the {split} split"
    if kind == "roc":
        ax.set(xlabel="false positive rate", ylabel="true positive rate",
               title=f"ROC curves{where}")  # fmt: skip
    else:
        ax.set(xlabel="recall", ylabel="precision", title=f"Precision-recall curves{where}")
    # below the axes, never over a curve
    ax.legend(loc="upper left", bbox_to_anchor=(0, -0.1), fontsize="small", frameon=False)
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01))
    ax.grid(alpha=0.3)
    return plain_text(figure)


def plot_roc_curves(
    subgroups, data, *, label, score, positive_label=1, top=5, ax=None, names=None, split=None,
    max_overlap=None,
):
    """ROC curves of the whole data (thick, dark) and of the top subgroups.

    The legend gives each curve's cover size and ROC AUC (tied scores count
    one half); the dashed diagonal is a random ranking. Subgroups with only
    one class have no ROC curve.

    Parameters
    ----------
    subgroups : pandas.DataFrame or sequence of pysubgroup descriptions
        A table returned by :func:`~subroc_ext.find_subgroups` (its
        ``subgroup`` column holds the descriptions, its ``description``
        column the names) or the descriptions themselves, best first.
    data : pandas.DataFrame
        Rows with the attributes, label and score, e.g. the validation split.
        Covers are matched by row position, so any index works.
    label, score : str
        Label and score columns.
    positive_label : object, default=1
        Label value of the positive class.
    top : int or None, default=5
        Plot the first ``top`` subgroups (all of them when None).
    ax : matplotlib.axes.Axes, optional
        Draw into these axes instead of a new figure.
    names : sequence of str, optional
        Legend names of the plotted subgroups (default: their descriptions).
    split : str, optional
        Which split ``data`` is (e.g. ``'validation'``), named in the title
        and the legend.
    max_overlap : float, optional
        Plot only distinct subgroups: skip any whose rows of ``data``
        overlap an earlier plotted one's by a Jaccard index above this
        (e.g. 0.8), so that ``top`` curves are not near-copies; ``names``
        then name all the given subgroups.

    Returns
    -------
    matplotlib.figure.Figure

    Warns
    -----
    UndefinedMeasureWarning
        For each subgroup whose curve is undefined (it is skipped).

    Examples
    --------
    >>> table = subroc_ext.find_subgroups(data, label="y", score="p")  # doctest: +SKIP
    >>> plot_roc_curves(table, data, label="y", score="p").savefig("roc.png")  # doctest: +SKIP
    """
    return _plot_curves(
        "roc", subgroups, data, label, score, positive_label, top, ax, names, split,
        max_overlap,
    )


def plot_pr_curves(
    subgroups, data, *, label, score, positive_label=1, top=5, ax=None, names=None, split=None,
    max_overlap=None,
):
    """Precision-recall curves of the whole data (thick, dark) and of the top subgroups.

    The legend gives each curve's cover size and PR AUC (trapezoidal, as
    :func:`~subroc_ext.pr_auc_score`); the dashed line is the precision of a
    random ranking of the whole data, its positive rate. Subgroups without
    positives have no PR curve.

    Parameters
    ----------
    subgroups : pandas.DataFrame or sequence of pysubgroup descriptions
        A table returned by :func:`~subroc_ext.find_subgroups` (its
        ``subgroup`` column holds the descriptions, its ``description``
        column the names) or the descriptions themselves, best first.
    data : pandas.DataFrame
        Rows with the attributes, label and score, e.g. the validation split.
        Covers are matched by row position, so any index works.
    label, score : str
        Label and score columns.
    positive_label : object, default=1
        Label value of the positive class.
    top : int or None, default=5
        Plot the first ``top`` subgroups (all of them when None).
    ax : matplotlib.axes.Axes, optional
        Draw into these axes instead of a new figure.
    names : sequence of str, optional
        Legend names of the plotted subgroups (default: their descriptions).
    split : str, optional
        Which split ``data`` is (e.g. ``'validation'``), named in the title
        and the legend.
    max_overlap : float, optional
        Plot only distinct subgroups: skip any whose rows of ``data``
        overlap an earlier plotted one's by a Jaccard index above this
        (e.g. 0.8), so that ``top`` curves are not near-copies; ``names``
        then name all the given subgroups.

    Returns
    -------
    matplotlib.figure.Figure

    Warns
    -----
    UndefinedMeasureWarning
        For each subgroup whose curve is undefined (it is skipped).

    Examples
    --------
    >>> table = subroc_ext.find_subgroups(data, label="y", score="p", measure="pr_auc")  # doctest: +SKIP
    >>> plot_pr_curves(table, data, label="y", score="p").savefig("pr.png")  # doctest: +SKIP
    """
    return _plot_curves(
        "pr", subgroups, data, label, score, positive_label, top, ax, names, split,
        max_overlap,
    )


def _compact_count(count):
    """``1,234,567`` as ``1.2M``: a pair count that fits into a heatmap cell."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if count >= limit:
            return f"{count / limit:.3g}{suffix}"
    return f"{count:,.0f}"


def plot_cross_auc(cross, *, ax=None, annotate=True, label_width=40):
    """Heatmap of cross AUCs (rows: positives' group, columns: negatives' group).

    Parameters
    ----------
    cross : CrossAUC or pandas.DataFrame
        The result of :func:`~subroc_ext.cross_auc` (or its ``auc`` matrix).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure otherwise, sized so that every cell
        holds its text.
    annotate : bool, default=True
        Write each AUC (and the number of pairs, when known, as e.g.
        ``12.3k``) into its cell.
    label_width : int, default=40
        Group names are written one condition a line, each shortened to this
        many characters with an ellipsis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    auc = getattr(cross, "auc", cross)
    pairs = getattr(cross, "pairs", None)
    plt = pyplot()
    names = [wrapped_name(name, label_width) for name in auc.columns]
    if ax is None:
        # 0.85 inch a cell (two short lines of text) plus room for the labels
        side = 0.85 * len(auc.columns)
        margin = 0.5 + 0.075 * max((len(line) for n in names for line in n.split("\n")), default=0)
        figure, ax = plt.subplots(figsize=(side + margin + 1.4, side + margin + 0.4),
                                  layout="constrained")  # fmt: skip
    else:
        figure = ax.figure
    image = ax.imshow(np.ma.masked_invalid(auc.to_numpy(dtype=float)), cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(auc.columns)), names, rotation=40, ha="right", fontsize="small")
    ax.set_yticks(range(len(auc.index)), [wrapped_name(i, label_width) for i in auc.index],
                  fontsize="small")  # fmt: skip
    ax.set(xlabel="negatives of", ylabel="positives of", title="Cross AUC")
    if annotate:
        for (row, column), value in np.ndenumerate(auc.to_numpy(dtype=float)):
            text = "n/a" if np.isnan(value) else f"{value:.2f}"
            if pairs is not None:
                text += f"\n{_compact_count(pairs.iat[row, column])} pairs"
            ax.text(column, row, text, ha="center", va="center", fontsize=7)
    figure.colorbar(image, ax=ax, label="AUC", shrink=0.8)
    return plain_text(figure)


def plot_generalization_diagnostics(table, *, top=5, axes=None, label_width=40):
    """Sensitivity and specificity on both splits, and the robustness scores.

    Parameters
    ----------
    table : pandas.DataFrame
        The result of :func:`~subroc_ext.generalization_diagnostics`.
    top : int, default=5
        Plot the whole data and the first ``top`` subgroups.
    axes : sequence of two matplotlib.axes.Axes, optional
        Where to draw; a new figure otherwise (10 inches wide, its height
        grows with the rows, the legends below the plots).
    label_width : int, default=40
        Subgroup names are written one condition a line, each shortened to
        this many characters with an ellipsis (the report's table next to the
        figure has them in full).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = pyplot()
    rows = table.iloc[: top + 1]
    if axes is None:
        figure, axes = plt.subplots(1, 2, figsize=(10, 2.2 + 0.55 * len(rows)), sharey=True,
                                    layout="constrained")  # fmt: skip
    figure = axes[0].figure
    positions = np.arange(len(rows))[::-1]
    for offset, (name, color) in enumerate((("sensitivity", "tab:red"), ("specificity", "tab:blue"))):
        y = positions + 0.15 * (1 - 2 * offset)
        start, end = rows[f"{name}_search"].to_numpy(), rows[f"{name}_validation"].to_numpy()
        axes[0].hlines(y, start, end, color=color, alpha=0.6)
        axes[0].plot(start, y, "o", color=color, fillstyle="none", label=f"{name}, search")
        axes[0].plot(end, y, "o", color=color, label=f"{name}, validation")
    axes[0].set(xlim=(-0.02, 1.02), title=f"At threshold {rows['threshold'].iloc[0]:.3g}")
    for offset, (name, marker) in enumerate((("bias", "s"), ("noise", "^"))):
        for split, fill in (("search", "none"), ("validation", "full")):
            axes[1].plot(
                rows[f"{name}_robustness_{split}"], positions + 0.15 * (1 - 2 * offset), marker,
                fillstyle=fill, color=f"C{offset + 2}", label=f"{name}, {split}",
            )  # fmt: skip
    axes[1].set(title="Robustness (Roberts et al.)")
    names = [wrapped_name(name, label_width) for name in rows["subgroup"]]
    axes[0].set_yticks(positions, names, fontsize="small")
    axes[0].set_ylim(-0.6, len(rows) - 0.4)
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0, -0.08), ncol=2,
                  frameon=False)  # fmt: skip
    return plain_text(figure)


def _effect_split(table):
    """The split the effects are measured on: validation, or (no holdout) search, all rows."""
    return "validation" if table.attrs.get("holdout", True) else "search"


def _forest_columns(table, value, interval, size):
    """The value, interval and size columns of :func:`plot_forest`, checked."""
    if value is None and aggregated_effects(table):  # the table's verdicts and effects: the aggregate's
        value = "delta"
    if value is None:
        if "measure" not in table.attrs:
            raise ValueError(
                "value is needed: the table's attrs name no measure (pass e.g. "
                "value='roc_auc_validation')"
            )
        value = f"{table.attrs['measure']}_{_effect_split(table)}"
    if interval is None:
        default = (f"{value}_ci_low", f"{value}_ci_high")
        interval = default if set(default) <= set(table.columns) else ()
    if size is None:
        split = value.rsplit("_", 1)[-1]
        split = _effect_split(table) if value == "delta" else split  # the split the effects are on
        size = f"size_{split}" if f"size_{split}" in table.columns else None
    interval = tuple(interval)
    if len(interval) not in (0, 2):
        raise ValueError(f"interval must be two column names (low, high) or None, got {interval!r}")
    check_columns(table, [value, *interval, *([size] if size else []), "description"])
    return value, interval, size


def plot_forest(
    table, *, value=None, interval=None, reference=None, size=None, n_rows=None, top=20, ax=None,
    label_width=72, expected=None,
):
    """Forest plot: each subgroup's measure with its interval against the whole data's.

    One row per subgroup, best first, named by its rank in the table: a dot
    at the subgroup's value (filled when the table marks it ``significant``,
    hollow otherwise; ringed when the headline names it a failure), a line
    over its interval, a dashed vertical line at the whole data's value; the
    subgroup's size (and share of the rows) on the right. Every failure the
    headline names is shown, below the first ``top`` rows if it ranks lower
    (:func:`~subroc_ext.reporting.findings.shown_positions`). Like fairlearn's
    ``MetricFrame.plot`` and TensorFlow Model Analysis' slicing views: a
    metric per group with its uncertainty at a glance.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`~subroc_ext.find_subgroups` (or
        :func:`~subroc_ext.find_multiclass_subgroups`), best first.
    value : str, optional
        Column plotted; default ``'<measure>_validation'`` with the measure
        of ``table.attrs``, and ``'delta'`` (its interval, 0 the reference)
        for a table aggregated over many splits (``splits=B``), whose
        ``delta``, interval and verdicts are the aggregate's while its
        measure columns are one split's.
    interval : pair of str, optional
        Columns of the interval's low and high end; default
        ``('<value>_ci_low', '<value>_ci_high')`` when the table has them
        (e.g. DeLong's intervals of ``roc_auc_validation``), else no interval.
        Any pair of columns works (e.g. ``('delta_ci_low', 'delta_ci_high')``
        with ``value='delta'`` and ``reference=0``).
    reference : float, optional
        The whole data's value, drawn as a dashed line; default
        ``table.attrs['dataset_values'][value]`` when present (0 for ``'delta'``).
    size : str, optional
        Column of subgroup sizes shown on the right; default
        ``'size_<split>'`` of the value's split (``size_validation`` for
        ``'delta'``).
    n_rows : int, optional
        Rows of that split: with it each size is also shown as a share.
    top : int or None, default=20
        Plot the first ``top`` subgroups (all when None), and the failures below them.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes; a new figure sized to the rows otherwise
        (12 inches wide: 1,200 pixels at the report's 100 dpi).
    label_width : int, default=72
        Descriptions longer than this many characters are shortened with an
        ellipsis.
    expected : str, optional
        Column of a second marker (a blue diamond) per subgroup, "what the
        scores promise": default ``'expected_<value>'`` when the table has it
        (``expected_roc_auc_validation`` next to ``roc_auc_validation``), with
        the whole data's value as a dotted line; ``''`` for none.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> table = subroc_ext.find_subgroups(search, label="y", score="p", validation=held_out)  # doctest: +SKIP
    >>> subroc_ext.plot_forest(table).savefig("forest.png")  # doctest: +SKIP
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    if top is not None and not (isinstance(top, (int, np.integer)) and top >= 1):
        raise ValueError(f"top must be a positive integer or None, got {shown(top)}")
    value, interval, size = _forest_columns(table, value, interval, size)
    if reference is None:
        reference = 0.0 if value == "delta" else table.attrs.get("dataset_values", {}).get(value)
    positions = shown_positions(table, top)
    rows = table.iloc[positions]
    n = len(rows)
    plt = pyplot()
    own = ax is None
    if own:
        figure, ax = plt.subplots(figsize=(12, 1.3 + 0.27 * max(n, 1)))
    else:
        figure = ax.figure
    y = np.arange(n)[::-1]
    values = rows[value].to_numpy(dtype=float)
    significant = (
        rows["significant"].to_numpy(dtype=bool) if "significant" in rows.columns else np.zeros(n, bool)
    )
    colors = np.where(significant, "tab:red", "0.45")
    if interval:
        low, high = (rows[c].to_numpy(dtype=float) for c in interval)
        ax.hlines(y, low, high, colors=colors, linewidth=1.6, alpha=0.8)
    handles = []
    if reference is not None and np.isfinite(reference):
        handles.append(ax.axvline(reference, color="0.25", linestyle="--", linewidth=1,
                                  label=f"whole data {reference:.3f}"))  # fmt: skip
    for flag, color, fill, text in ((True, "tab:red", "full", "significant"),
                                    (False, "0.45", "none", "not significant")):  # fmt: skip
        chosen = significant == flag
        handles.append(
            ax.plot(values[chosen], y[chosen], "o", color=color, fillstyle=fill, markersize=6,
                    label=text)[0]  # fmt: skip
        )
    failed = rows["failure"].fillna(False).to_numpy(dtype=bool) if "failure" in rows.columns else np.zeros(n, bool)
    for gap in np.flatnonzero(np.diff(positions) > 1):  # rows left out between: a dotted line
        ax.axhline(y[gap] - 0.5, color="0.6", linestyle=":", linewidth=1)
    if failed.any():
        ring = dict(color="black", fillstyle="none", markersize=12, markeredgewidth=1.5)
        handles.append(ax.plot(values[failed], y[failed], "o", label=f"{finding_noun(table.attrs)} (the headline's)",
                               **ring)[0])  # fmt: skip
    expected = f"expected_{value}" if expected is None else expected
    if expected and expected in rows.columns:
        promised = table.attrs.get("dataset_values", {}).get(expected)
        if promised is not None and np.isfinite(promised):
            handles.append(ax.axvline(promised, color="tab:blue", linestyle=":", linewidth=1,
                                      label=f"promised on the whole data {promised:.3f}"))  # fmt: skip
        handles.append(ax.plot(rows[expected].to_numpy(dtype=float), y, "D", color="tab:blue",
                               fillstyle="none", markersize=5, label="what the scores promise")[0])  # fmt: skip
    descriptions = rows["subgroup"] if "subgroup" in rows.columns else rows["description"]
    names = [
        f"#{position + 1} {shortened(readable_description(d), label_width)}"
        for position, d in zip(positions, descriptions)
    ]
    # each row's name left of the axes and its size right of them: texts, which draw several
    # times faster than as many ticks (a figure of 100 rows in well under a second)
    beside = ax.get_yaxis_transform()  # x in axes units, y in rows
    ax.set_yticks([])
    ax.set_ylim(-0.7, n - 0.3)
    left = [ax.text(-0.005, row, name, transform=beside, fontsize="small", ha="right", va="center")
            for row, name in zip(y, names)]  # fmt: skip
    right = []
    if size is not None:
        sizes = rows[size].to_numpy(dtype=float)
        shares = [f" ({s / n_rows:.0%})" if n_rows else "" for s in sizes]
        right = [ax.text(1.005, row, f"n={s:,.0f}{share}", transform=beside, fontsize="small", va="center")
                 for row, s, share in zip(y, sizes, shares)]  # fmt: skip
    ax.grid(axis="x", alpha=0.3)
    xlabel = value if not interval else f"{value} (line: {interval[0]} to {interval[1]})"
    if value == "delta" and aggregated_effects(table):
        xlabel = (f"delta, the aggregate over {table.attrs['splits']['n']} splits (dot: the median over the splits; "
                  f"line: {interval[0]} to {interval[1]}, their intervals aggregated)" if interval
                  else f"delta, the aggregate over {table.attrs['splits']['n']} splits")  # fmt: skip
    ax.set_xlabel(xlabel, fontsize="small")
    legend = ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=min(len(handles), 3),
                       fontsize="small", frameon=False, borderaxespad=0.2)  # fmt: skip
    plain_text(figure)
    if own:  # laid out once, measuring only what lies beside the axes (constrained layout measured it all)
        fit_axes(ax, [*widest(left), *widest(right), legend, ax.xaxis])
    return figure
