"""A shareable report of a :func:`~subroc_ext.find_regressions` or
:func:`~subroc_ext.find_drift` table.

:func:`write_comparison_report` writes, like :func:`~subroc_ext.write_report`
for one model, the table as CSV, the curves as PNG and one self-contained
HTML page (:mod:`subroc_ext.reporting.page`): a forest plot of each subgroup's
``Δ`` (with its simultaneous interval when the table has the effect columns
``delta``, ``delta_ci_low`` and ``delta_ci_high``), the table (both sides'
measure and ``Δ`` on the search and the validation split), both ROC curves
of the top subgroups (:func:`~subroc_ext.plot_comparison_roc_curves`: new vs
baseline model, or reference vs current period), how to read it all, and the
settings.
"""

import datetime
import math
from pathlib import Path

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multitest_alias, multitest_methods_names

from ..utils.spreadsheet import write_csv
from ..workflow.diversity import cover_words, select_diverse
from .cells import description_cell, effect_cell, number_cell, overlap_cell, rank_cell, size_cell, verdict_notes
from .comparison_plots import plot_comparison_roc_curves
from .findings import findings_section, significant_count
from .page import (
    Column,
    Html,
    Section,
    format_number,
    format_p_value,
    png_image,
    render_page,
    subgroups_table,
)
from .reading import EFFECT_COLUMNS, effect_text, has_effects
from .report import CURVE_MAX_OVERLAP, ReportFiles, forest_section, settings_html

__all__ = ["write_comparison_report", "comparison_columns", "CURVE_PANELS"]

#: What the second side does relative to the first, by mode.
_DIRECTION = {"worse": "falls behind", "better": "gains on"}
#: Panels of both ROC curves per row of the curves figure (4 inches each).
CURVE_PANELS = 3


def _sides(table):
    """``(paired, (name A, name B), (column infix A, column infix B))`` of a comparison table."""
    if "baseline" in table.attrs:
        return True, ("baseline", "new"), ("_baseline", "")
    if "size_current_validation" in table.columns:
        return False, ("reference", "current"), ("_reference", "_current")
    raise ValueError(
        "table is not a comparison table: its attrs name no baseline (find_regressions) and it "
        "has no column size_current_validation (find_drift)"
    )


def _both_sizes_cell(record):
    """``reference / current`` rows of the validation split (sorts by their sum)."""
    sizes = [int(record[f"size_{side}_validation"]) for side in ("reference", "current")]
    return f"{sizes[0]:,} / {sizes[1]:,}", float(sum(sizes))


def _plain_delta_cell(column):
    def cell(record):
        value = record[column]
        return effect_text(value, sign=True), float(value)

    return cell


def comparison_columns(table, n_rows=None):
    """The columns of a comparison report's subgroups table.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`~subroc_ext.find_regressions` or
        :func:`~subroc_ext.find_drift` table with a ``rank`` column.
    n_rows : int, optional
        Rows of the (paired) validation split, to show sizes as shares.

    Returns
    -------
    list of html_page.Column
        Shown: rank, conditions, size on the validation split (unpaired:
        reference / current), each side's measure on the validation split,
        ``Δ`` on the validation split (with its simultaneous interval when the
        table has ``delta``, ``delta_ci_low`` and ``delta_ci_high``), ``Δ`` on
        the search split, corrected p-value, significant. Behind the chooser:
        every other numeric column.
    """
    paired, names, infixes = _sides(table)
    measure = table.attrs["measure"]
    effects = has_effects(table)
    size = (Column("size_validation", "size (validation)", size_cell("size_validation", n_rows),
                   help="rows of the validation split in the subgroup (and their share)")
            if paired else
            Column("size_validation", "size reference / current", _both_sizes_cell,
                   help="rows of each period's validation split in the subgroup"))  # fmt: skip
    measures = [
        Column(f"{measure}{infix}_validation", f"{measure} {name}", number_cell(f"{measure}{infix}_validation"),
               help=f"{measure} of the {name} {'model' if paired else 'period'} on the subgroup's "
                    "validation rows")
        for name, infix in zip(names, infixes)
    ]  # fmt: skip
    delta_help = (f"Δ on the validation split: how much more the {names[1]} falls behind the "
                  f"{names[0]} in the subgroup than on the whole data")  # fmt: skip
    columns = [
        Column("rank", "#", rank_cell, help="rank by quality on the search split (1 = best)"),
        Column("description", "conditions", description_cell(table.attrs.get("mode", "worse")), text=True,
               help="the subgroup: rows meeting every condition"),
        size, *measures,
        Column("delta", "Δ validation [interval]", effect_cell,
               help=delta_help + ", with its simultaneous interval (delta_ci_low to delta_ci_high)")
        if effects else
        Column("delta_validation", "Δ validation", _plain_delta_cell("delta_validation"), help=delta_help),
        Column("delta_search", "Δ search", _plain_delta_cell("delta_search"),
               help="Δ on the search split, where the subgroup was found"),
        Column("p_value_corrected", "p (corrected)", number_cell("p_value_corrected", format_p_value),
               help="p-value of the randomization test, corrected for testing every subgroup"),
        Column("significant", "significant", number_cell("significant"),
               help="corrected p-value at most alpha"),
    ]  # fmt: skip
    if "overlap" in table.columns:
        columns.append(Column("overlap", "overlap", overlap_cell, shown=False,
                              help="largest Jaccard index with a better-ranked subgroup, and which"))  # fmt: skip
    listed = {c.key for c in columns} | set(EFFECT_COLUMNS) | {
        "delta_validation", "overlaps_with", "testable", "statistic", "rank",
    }  # fmt: skip
    for name in table.columns:
        if name in listed or not pd.api.types.is_numeric_dtype(table[name]):
            continue
        fmt = format_p_value if name.startswith("p_value") else format_number
        columns.append(Column(name, name.replace("_", " "), number_cell(name, fmt), shown=False))
    return columns


def _how_to_read(attrs, paired, names):
    measure, mode = attrs["measure"], attrs.get("mode", "worse")
    method = multitest_alias.get(attrs.get("method", "fdr_by"))
    method_name = multitest_methods_names.get(method, attrs.get("method"))
    direction = _DIRECTION.get(mode, "differs from")
    a, b = names
    if paired:
        rows = f"the same rows, scored by the {a} and the {b} model"
        null = ("random subsets of the validation rows with the subgroup's size and number of "
                "negatives, each scored by both models")  # fmt: skip
        weight = "the rows it covers"
    else:
        rows = f"the rows of the {a} and of the {b} period that meet its conditions"
        null = ("random subsets of each period's validation rows with the subgroup's size and "
                "number of negatives in that period")  # fmt: skip
        weight = "the rows it covers in both periods together"
    return Html("""<p>A subgroup covers {rows}. Its <strong>Δ</strong> is
<code>[{measure}<sub>{a}</sub>(S) − {measure}<sub>{b}</sub>(S)] − [{measure}<sub>{a}</sub>(D) −
{measure}<sub>{b}</sub>(D)]</code> (for losses such as ARL the sign is flipped): how much more the
{b} {direction} the {a} inside the subgroup than on the whole data D. Δ = 0 means the subgroup
changed exactly as much as the whole data; with mode <code>{mode}</code>,
{sign}.</p>
<p>Subgroups were found on the <em>search</em> split and ranked by their <strong>quality</strong>:
Δ on the search split weighted by the size and class balance of {weight}
(<code>size<sup>{size_weight}</sup> &times;
balance<sup>{balance_weight}</sup></code>){aware}. The table shows each on the held-out
<em>validation</em> split (Δ on the search split is next to it: a subgroup whose Δ shrinks
much on the validation split was partly luck).</p>
<p>Each subgroup's Δ on the validation split is compared with that of {null}; the p-value is
the share of random subsets with at least as large a Δ, and <em>p (corrected)</em> corrects all
of them together with the {method_name} method. Highlighted rows are
<strong>significant</strong> (corrected p-value at most {alpha}).</p>""").format(
        rows=rows, measure=measure, a=a, b=b, direction=direction, mode=mode, weight=weight, null=null,
        sign={"worse": "a positive Δ is where it got worse", "better": "a positive Δ is where it got better"}.get(
            mode, "Δ is the size of the change in either direction"),
        size_weight=format_number(attrs.get("size_weight", 1.0)),
        balance_weight=format_number(attrs.get("balance_weight", 1.0)),
        aware=(", counting only how much more a subgroup changed than its best shorter pattern"
               if attrs.get("generalization_aware") else ""),
        method_name=method_name, alpha=format_number(attrs.get("alpha", 0.05)))  # fmt: skip


def _curves(table, data, current, figure_path, names, paired):
    """Write both ROC curves of the top subgroups to ``figure_path``; the section's HTML."""
    from matplotlib.figure import Figure  # plot_comparison_roc_curves needs matplotlib too

    kept = select_diverse(cover_words(list(table["subgroup"]), data), CURVE_MAX_OVERLAP)
    table = table.iloc[kept[: 2 * CURVE_PANELS]]
    top = len(table)
    rows = max(1, math.ceil(top / CURVE_PANELS))
    figure = Figure(figsize=(4 * CURVE_PANELS, 4.6 * rows), layout="constrained")
    axes = figure.subplots(rows, CURVE_PANELS, squeeze=False).ravel()
    for ax in axes[top:]:
        ax.set_axis_off()
    plot_comparison_roc_curves(table, data, current, top=top, axes=axes[: max(top, 1)])
    figure.savefig(figure_path, dpi=100)
    where = (f"the validation split ({len(data):,} rows)" if paired else
             f"each period's validation split ({len(data):,} and {len(current):,} rows)")  # fmt: skip
    what = "model" if paired else "period"
    return Html(
        '{}<p class="note">One panel per subgroup, best first, on {}: the thick curves are the '
        "subgroup's ROC curves of the {} (blue) and the {} {} (red), the thin ones those of the whole "
        "data; the legend gives each ROC AUC. Near-copies (rows overlapping a drawn subgroup's by a "
        "Jaccard index above {}) are skipped.</p>"
    ).format(png_image(figure_path.read_bytes(), "ROC curves of both sides of the top subgroups"), where,
             names[0], names[1], what, CURVE_MAX_OVERLAP)  # fmt: skip


def write_comparison_report(table, data, out_dir, *, current=None, title=None, runtime=None):
    """Write a comparison table as CSV, both ROC curves of its top subgroups as
    PNG, and an HTML report.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`~subroc_ext.find_regressions` or
        :func:`~subroc_ext.find_drift` (its ``attrs`` give the settings and
        columns); with ``delta``, ``delta_ci_low`` and ``delta_ci_high`` the
        forest plot and the table show ``delta`` with its simultaneous
        interval, else ``delta_validation`` alone.
    data : pandas.DataFrame
        Paired: the validation split (both models' scores). Unpaired: the
        reference period's validation split.
    out_dir : str or pathlib.Path
        Directory for the files; created if needed, files overwritten.
    current : pandas.DataFrame, optional
        Unpaired (and required there): the current period's validation split.
    title : str, optional
        Heading of the page.
    runtime : float, optional
        Seconds the analysis took, shown with the settings.

    Returns
    -------
    ReportFiles
        Paths of ``subgroups.csv`` (without the ``subgroup`` column),
        ``curves.png`` (not written for an empty table) and ``report.html``
        (one self-contained file).

    Examples
    --------
    >>> table = subroc_ext.find_regressions(search, label="y", score="new", baseline="old",
    ...                                     validation=held_out)               # doctest: +SKIP
    >>> write_comparison_report(table, held_out, "compare").html              # doctest: +SKIP
    PosixPath('compare/report.html')
    """
    paired, names, infixes = _sides(table)
    if paired == (current is not None):
        raise ValueError(
            "current is needed for a find_drift table (the current period's validation rows) and "
            "only there" if not paired else
            "current is only for find_drift tables; a find_regressions table has both models in data"
        )  # fmt: skip
    if "subgroup" not in table.columns:
        raise ValueError("table needs its 'subgroup' column (a table as returned, not read back from CSV)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out_dir / "subgroups.csv", out_dir / "curves.png", out_dir / "report.html")
    write_csv(table.drop(columns="subgroup"), files.csv)
    attrs, measure = table.attrs, table.attrs["measure"]
    shown = table.assign(rank=np.arange(1, len(table) + 1))
    n_rows = len(data) if paired else len(current)
    effects = has_effects(table)
    value, interval = ("delta", EFFECT_COLUMNS[1:]) if effects else ("delta_validation", ())
    forest = forest_section(shown, n_rows=n_rows, value=value, interval=interval, reference=0.0,
                            size="size_validation" if paired else "size_current_validation")  # fmt: skip
    whole = attrs.get("dataset_values", {})
    values = [whole.get(f"{measure}_{name}_validation", np.nan) for name in names]
    what = "model" if paired else "period"
    note = Html(
        '<p class="note"><em>Δ validation [interval]</em>: Δ on the validation split with its '
        "{:.0%} <strong>simultaneous</strong> interval over all rows, so it holds for any rows you pick.</p>"
    ).format(1 - attrs.get("alpha", 0.05)) if effects else ""  # fmt: skip
    n_significant, by_promise = significant_count(table)
    created = datetime.datetime.now().isoformat(timespec="seconds")
    summary = Html(
        '<p class="note">{:,} distinct subgroups ranked by how much more the {} {} {} the {} than on the '
        "whole data, {:,} of them significant{}. On the whole validation split, {} is {} ({}) and {} ({}). "
        "Created {}{}; the full table is in <code>{}</code>.</p>"
    ).format(len(table), names[1], what, _DIRECTION.get(attrs.get("mode", "worse"), "differs from"), names[0],
             n_significant, by_promise, measure, format_number(values[0]), names[0], format_number(values[1]), names[1],
             created, f" in {runtime:.1f} s" if runtime is not None else "", files.csv.name)  # fmt: skip
    sections = [
        findings_section(table, n_rows=n_rows),
        Section(f"Δ of each subgroup ({names[1]} vs {names[0]})", forest, "forest"),
        Section("Subgroups", subgroups_table(shown, comparison_columns(shown, n_rows)) + note + verdict_notes(shown),
                "subgroups"),
        Section(f"ROC curves of the {names[0]} and the {names[1]} {what}",
                _curves(shown, data, current, files.png, names, paired) if len(table) else Html(""), "curves"),
        Section("How to read this", _how_to_read(attrs, paired, names), "how-to-read"),
        Section("Settings", settings_html(attrs, runtime), "settings"),
    ]  # fmt: skip
    default = ("Where does the new model fall behind the baseline?" if paired
               else "Where did the model degrade from the reference to the current period?")  # fmt: skip
    files.html.write_text(render_page(title or default, summary, sections), encoding="utf-8")
    return files
