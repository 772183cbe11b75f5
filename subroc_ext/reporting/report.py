"""A shareable report of a :func:`~subroc_ext.find_subgroups` table.

:func:`write_report` writes three files into one directory: the tidy table as
CSV, the ROC (or precision-recall) curves of the top distinct subgroups as
PNG, and a self-contained HTML page made of sections
(:mod:`subroc_ext.reporting.page`): a forest plot of every subgroup's measure with
its interval first, then a table that fits the window (about eight columns,
the others behind a column chooser), the curves, cross AUCs, the
generalization diagnostics, how to read it all, and the settings.
"""

import datetime
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..metrics.diagnostics import youden_threshold
from ..metrics.operating_point import RATE_COLUMNS, threshold_rates
from ..utils.names import CALIBRATION_MEASURE_NAMES
from ..utils.spreadsheet import write_csv
from ..utils.validation import finite_scores, positive_mask
from .calibration_plots import reliability_section
from .cells import (
    delta_cell,
    description_cell,
    effect_cell,
    failure_cell,
    number_cell,
    overlap_cell,
    p_value_cell,
    rank_cell,
    size_cell,
    three_digits,
    value_cell,
    verdict_cell,
    verdict_notes,
)
from .conditions import readable_description
from .findings import findings_section, significant_count
from .page import (
    Column,
    Html,
    Section,
    embedded_figure,
    format_number,
    format_p_value,
    html_table,
    png_image,
    render_page,
    subgroups_table,
)
from .plotting import plot_forest, plot_pr_curves, plot_roc_curves
from .reading import (EFFECT_COLUMNS, STOPPED, aggregated_effects, effect_meaning, effect_note, has_effects,
                      how_to_read, measure_kind, measure_title)
from .sections import cross_auc_section, diagnostics_section, top_diagnostics

__all__ = [
    "ReportFiles", "forest_section", "result_columns", "settings_html", "write_report",
]  # fmt: skip

#: Rows of the forest plot shown at once; the full plot is one click away.
FOREST_ROWS = 20
#: Curves of subgroups overlapping a better-shown one by more than this are skipped.
CURVE_MAX_OVERLAP = 0.8


class ReportFiles(NamedTuple):
    """Paths of the files written by :func:`write_report`."""

    csv: Path
    png: Path
    html: Path


def result_columns(table, measure, *, n_rows=None, split="validation", interval=None):
    """The columns of the report's subgroups table: about eight shown, the rest chosen.

    Parameters
    ----------
    table : pandas.DataFrame
        A ``find_subgroups`` (or ``find_multiclass_subgroups``) table with a
        ``rank`` column (1 = best).
    measure : str
        The measure searched for (``roc_auc``, ``auc_mu``, ...).
    n_rows : int, optional
        Rows of the split, to show sizes as shares.
    split : str, default='validation'
        The split of the shown measure, size and interval.
    interval : pair of str, optional
        Interval columns of the measure (default ``<measure>_<split>_ci_low``
        and ``_ci_high`` when present).

    Returns
    -------
    list of html_page.Column
        Shown: rank, conditions, size (share), measure with interval, its
        effect ``delta`` with its simultaneous interval (tables without the
        effect columns: the plain difference from the whole split), corrected
        p-value, significant.
        Behind the chooser: every other column the table has.
    """
    value = f"{measure}_{split}"
    if interval is None:
        default = (f"{value}_ci_low", f"{value}_ci_high")
        interval = default if set(default) <= set(table.columns) else ()
    reference = table.attrs.get("dataset_values", {}).get(value, np.nan)
    one_split = f", split {table.attrs['splits']['shown']}" if aggregated_effects(table) else ""
    # shown where the headline's rules said something of a row (a failure, or why a significant row is none)
    judged = table["failure"].fillna(False).astype(bool) | table["significant"].fillna(False).astype(bool) \
        if "failure" in table.columns else pd.Series(dtype=bool)  # fmt: skip
    columns = [
        Column("rank", "#", rank_cell, help="rank by quality on the search split (1 = best)"),
        Column("description", "conditions",
               description_cell(table.attrs.get("mode", "worse"), value, reference, measure,
                                measure_kind(measure, table.attrs)),
               text=True,
               help="the subgroup: rows meeting every condition"),
        Column(f"size_{split}", f"size ({split})", size_cell(f"size_{split}", n_rows),
               help=f"rows of the {split} split in the subgroup (and their share)"),
        Column(value, f"{measure} ({split}{one_split})" + (" [interval]" if interval else ""),
               value_cell(value, interval),
               help=f"{measure} on the {split} split" + (
                   f", with its interval ({interval[0]} to {interval[1]})" if interval else "") + (
                   f"; of one split (the column split: {table.attrs['splits']['shown']} for the rows it "
                   "describes), while Δ, its interval and significant are the aggregate over "
                   f"{table.attrs['splits']['n']} splits" if one_split else "")),
        *([Column(f"expected_{value}", "promised", number_cell(f"expected_{value}", three_digits),
                  help=f"the {measure} the subgroup's own scores promise: its expected {measure} if "
                       "the scores were the true probabilities (whole split: "
                       f"{table.attrs.get('dataset_values', {}).get(f'expected_{value}', np.nan):.3f})")]
          if f"expected_{value}" in table.columns else []),
        Column("delta", "Δ [interval]", effect_cell,
               help=f"{measure} of the subgroup minus that of the whole {split} split "
                    f"({reference:.3f}), positive = {effect_meaning(table.attrs)}, with its "
                    "interval (delta_ci_low to delta_ci_high; see the note under the table)")
        if has_effects(table) else
        Column("delta", "Δ whole data", delta_cell(value, reference),
               help=f"{measure} of the subgroup minus that of the whole {split} split "
                    f"({reference:.3f})"),
        Column("p_value_corrected", "p (corrected)", p_value_cell,
               help=f"p-value of the test, corrected for testing every subgroup; {STOPPED}"),
        Column("significant", "significant", verdict_cell,
               help="the test rejects at alpha (and, with intervals='fcr', the effect's interval lies "
                    "beyond min_delta); 'note': the test and the interval disagree (listed under the table)"),
        *([Column("failure", "headline", failure_cell(table.attrs), text=True, shown=bool(judged.any()),
                  help="what the headline's rules said of the row: a failure it names (its row is marked), or "
                       "why a significant row is none (variant #k, explained #k: of the failure ranked k; "
                       "range restriction, ...; the whole note is the column failure_note)")]
          if "failure" in table.columns else []),
    ]  # fmt: skip
    optional = [
        ("quality", "quality", "the quality that ranked the subgroup (search split)"),
        ("overlap", "overlap", "largest Jaccard index with a better-ranked subgroup, and which"),
    ]
    for key, header, help_ in optional:
        if key in table.columns:
            cell = overlap_cell if key == "overlap" else number_cell(key)
            columns.append(Column(key, header, cell, shown=False, help=help_))
    listed = {c.key for c in columns} | set(interval) | set(EFFECT_COLUMNS) | {
        "subgroup", "description", "alternatives", "overlaps_with", "rank", "testable", "statistic",
        "complement_of", "failure",
    }  # fmt: skip
    for name in table.columns:
        if name in listed or not pd.api.types.is_numeric_dtype(table[name]):
            continue
        fmt = format_p_value if name.startswith("p_value") else format_number
        columns.append(Column(name, name.replace("_", " "), number_cell(name, fmt), shown=False))
    return columns


def forest_section(table, *, n_rows=None, value=None, interval=None, reference=None, size=None):
    """HTML: the forest plot of the top :data:`FOREST_ROWS` subgroups, all of them one click away.

    Parameters
    ----------
    table : pandas.DataFrame
    n_rows : int, optional
        Rows of the split (sizes are shown as shares too).
    value, interval, reference, size
        As in :func:`~subroc_ext.plot_forest` (interval columns are a
        parameter so that other intervals, e.g. of effect sizes, plug in).

    Returns
    -------
    Html
    """
    if len(table) == 0:
        return Html("")
    settings = dict(value=value, interval=interval, reference=reference, n_rows=n_rows, size=size)
    top = embedded_figure(plot_forest(table, top=FOREST_ROWS, **settings), "forest plot")
    rest = ""
    if len(table) > FOREST_ROWS:
        everything = embedded_figure(plot_forest(table, top=None, **settings), "forest plot of all subgroups")
        rest = Html("<details><summary>All {:,} subgroups</summary>{}</details>").format(len(table), everything)
    aggregated = aggregated_effects(table)
    column = value or ("delta" if aggregated else f"{table.attrs.get('measure')}_validation")  # plot_forest's
    has_interval = bool(interval) or {f"{column}_ci_low", f"{column}_ci_high"} <= set(table.columns)
    line = " with its interval (line)" if has_interval else ""
    reference = 0.0 if reference is None and column == "delta" else reference
    dashed = ("the whole split's value" if reference is None
              else f"{format_number(reference)}" + (" (no difference from the whole split)"
                                                    if column == "delta" and reference == 0 else ""))  # fmt: skip
    splits = table.attrs.get("splits") or {}
    one_split = Html(
        " Dots, lines and colours are the aggregate over the {n} splits, as in the table's <em>Δ [interval]</em> "
        "and <em>significant</em>: each row's median Δ over the splits that tested it, their intervals "
        "aggregated, e-BH's verdict. The sizes on the right, like the table's {measure} column, are one "
        "split's: the split whose failures agree best with the aggregate (<code>split</code> {shown}; a row "
        "named only by other splits, that of the first which named it)."
    ).format(n=splits.get("n"), measure=table.attrs.get("measure", "measure"), shown=splits.get("shown")) \
        if aggregated and column == "delta" else Html("")  # fmt: skip
    promised = (
        Html(" Blue diamonds: <code>expected_{}</code>, what the subgroup's own scores "
             "promise (its {} if the scores were the true probabilities; the dotted line: the whole "
             "split's); a dot far from its diamond on the worse side is a model doing worse than its scores "
             "promise, a dot near it a subgroup where every model would do as badly.").format(
            column, measure_title(table.attrs.get("measure", "roc_auc")))
        if f"expected_{column}" in table.columns else Html("")
    )  # fmt: skip
    return Html("""{top}{rest}
<p class="note">Each row is a subgroup, best first: its <code>{column}</code>
(dot){line}; filled red dots are significant. The dashed line is {dashed}; on
the right, each subgroup's size (and share of the rows).{one_split}{promised}</p>""").format(
        top=top, rest=rest, column=column, line=line, dashed=dashed, one_split=one_split, promised=promised)


def settings_html(attrs, runtime=None):
    """The search and test settings of ``table.attrs`` (and the runtime) as a table,
    then each measure on the whole search and validation splits."""
    rows = [
        [key, str(value) if isinstance(value, (bool, np.bool_)) else format_number(value)]
        for key, value in attrs.items()
        if key != "dataset_values"
    ]
    if runtime is not None:
        rows.append(["runtime", f"{runtime:.1f} s"])
    settings = (html_table(["setting", "value"], rows, text_columns=2) if rows
                else Html('<p class="note">No settings recorded.</p>'))  # fmt: skip
    values = attrs.get("dataset_values", {})
    if not values:
        return settings
    measures = dict.fromkeys(key.rsplit("_", 1)[0] for key in values)
    rows = [
        [name, format_number(values.get(f"{name}_search", np.nan)),
         format_number(values.get(f"{name}_validation", np.nan))]
        for name in measures
    ]  # fmt: skip
    return settings + Html("<h3>The whole data</h3>") + html_table(["measure", "search split", "validation split"], rows)


def _rates_note(rates, source, split="validation"):
    whole = rates.iloc[0]
    return Html(
        '<p class="note">At the threshold {:.3g} (score ≥ threshold predicts positive; {}) the whole '
        "{} split has a false-positive rate of {:.3f}, a false-negative rate of {:.3f} and a "
        "precision of {:.3f}; each subgroup's are the columns <em>false positive rate</em>, "
        '<em>false negative rate</em> and <em>precision</em> (under "Columns").</p>'
    ).format(whole["threshold"], source, split, whole["false_positive_rate"], whole["false_negative_rate"],
             whole["precision"])  # fmt: skip


def _beside(function, *args, **kwargs):
    """``function(*args, **kwargs)`` started in a thread of its own: its future (the
    thread ends with it; its error is raised by ``result()``)."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="subroc-ext-report")
    future = pool.submit(function, *args, **kwargs)
    pool.shutdown(wait=False)
    return future


def write_report(
    table, data, out_dir, *, label, score, positive_label=1, measure="roc_auc", top=5,
    title=None, runtime=None, split="validation", search=None, threshold=None,
    interval=None, value=None,
):  # fmt: skip
    """Write a table of subgroups as CSV, their curves as PNG, and an HTML report.

    Parameters
    ----------
    table : pandas.DataFrame
        A table returned by :func:`~subroc_ext.find_subgroups` (its
        ``attrs`` give the settings shown in the report).
    data : pandas.DataFrame
        Rows on which the curves, rates and cross AUCs are computed, usually
        the validation split.
    out_dir : str or pathlib.Path
        Directory for the files; created if needed, files overwritten.
    label, score : str
        Label and score columns of ``data``.
    positive_label : object, default=1
        Label value of the positive class.
    measure : str or Measure, default='roc_auc'
        The measure searched for (its name, or the measure itself): PR curves
        are drawn for ``'pr_auc'``, ROC curves otherwise; its columns lead the
        HTML table and the forest plot.
    top : int, default=5
        Number of distinct subgroups whose curves are drawn (a subgroup
        whose rows overlap a drawn one's by a Jaccard index above 0.8 is
        skipped), and of subgroups in the cross AUC and diagnostics sections.
    title : str, optional
        Heading of the HTML page (default: ``'SubROC report'``).
    runtime : float, optional
        Seconds the analysis took, shown with the settings.
    split : str, default='validation'
        Which split ``data`` is, named with the curves.
    search : pandas.DataFrame, optional
        The search split: with it the report adds Roberts et al.'s
        generalization diagnostics of the top subgroups (search vs. ``data``),
        and the default threshold is the search split's Youden threshold.
    threshold : float, optional
        The operating point (score ≥ threshold predicts positive) of the
        false-positive rate, false-negative rate and precision of each
        subgroup; default the Youden threshold of the whole search split
        (of ``data`` without it).
    interval : pair of str, optional
        Interval columns of the forest plot (default ``<value>_ci_low`` and
        ``_ci_high`` when present, e.g. DeLong's for the ROC AUC), and of the
        table's measure when ``value`` is that measure.
    value : str, optional
        Column of the forest plot: default ``<measure>_validation`` (with
        DeLong's interval for the ROC AUC); ``'delta'`` plots the effects
        with their simultaneous intervals around 0.

    Returns
    -------
    ReportFiles
        Paths of ``subgroups.csv`` (the table without the ``subgroup`` column
        of description objects), ``curves.png`` and ``report.html`` (a single
        self-contained file).

    Examples
    --------
    >>> table = subroc_ext.find_subgroups(search, label="y", score="p", validation=held_out)  # doctest: +SKIP
    >>> write_report(table, held_out, "report", label="y", score="p").html  # doctest: +SKIP
    PosixPath('report/report.html')
    """
    measure = getattr(measure, "name", measure)  # a Measure of one's own: its columns carry its name
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out_dir / "subgroups.csv", out_dir / "curves.png", out_dir / "report.html")

    # Roberts et al.'s diagnostics are mostly NumPy loops that release the GIL: computed beside the figures
    diagnostics = None if search is None else _beside(
        top_diagnostics, table, search, data, label=label, score=score, positive_label=positive_label, top=top)
    plot = plot_pr_curves if measure == "pr_auc" else plot_roc_curves
    figure = plot(
        table, data, label=label, score=score, positive_label=positive_label, top=top, split=split,
        max_overlap=CURVE_MAX_OVERLAP,
        names=[readable_description(sg) for sg in table["subgroup"]] if "subgroup" in table else None,
    )  # fmt: skip
    import matplotlib.pyplot as plt  # imported by the plot function above

    try:
        figure.savefig(files.png, dpi=100)
    finally:
        plt.close(figure)
    write_csv(table.drop(columns="subgroup", errors="ignore"), files.csv)

    shown = table.assign(rank=np.arange(1, len(table) + 1))
    rates_note = ""
    if "subgroup" in table.columns and len(table):
        source = "the user's threshold"
        if threshold is None:
            basis = data if search is None else search
            threshold = youden_threshold(positive_mask(basis[label], positive_label, label),
                                         finite_scores(basis[score], score))  # fmt: skip
            source = "the Youden threshold of the whole " + ("search split" if search is not None else "data")
        rates = threshold_rates(
            list(table["subgroup"]), data, label=label, score=score, positive_label=positive_label,
            threshold=threshold,
        )  # fmt: skip
        for name in RATE_COLUMNS:
            shown[name] = rates[name].to_numpy()[1:]
        rates_note = _rates_note(rates, source, split)

    title = title or "SubROC report"
    n_significant, by_promise = significant_count(table)
    created = datetime.datetime.now().isoformat(timespec="seconds")
    shown_split = "validation" if table.attrs.get("holdout", True) else "search"  # no holdout: all rows
    measure_column = f"{measure}_{shown_split}"
    # many splits: the effects and verdicts are the aggregate's, the measure columns one split's
    value = value or ("delta" if aggregated_effects(table) else measure_column if measure_column in table.columns
                      else None)  # fmt: skip
    columns = result_columns(shown, measure, n_rows=len(data), split=shown_split,
                             interval=interval if value == measure_column else None)  # fmt: skip
    curves = Html(
        '{image}<p class="note">Drawn on the {split} split ({rows:,} rows): the thick dark curve is the '
        "whole {split} split; the sizes in the legend are those of the {split} rows. Near-copies (rows "
        "overlapping a drawn subgroup's by a Jaccard index above {overlap}) are skipped.</p>"
    ).format(image=png_image(files.png.read_bytes(), f"curves of the whole {split} split and the top subgroups"),
             split=split, rows=len(data), overlap=CURVE_MAX_OVERLAP)  # fmt: skip
    kind = "Precision-recall" if measure == "pr_auc" else "ROC"
    summary = Html('<p class="note">{:,} distinct subgroups, {:,} of them significant{}. Created {}{}; the full '
                   "table is in <code>{}</code>.</p>").format(len(table), n_significant, by_promise, created,
                                                             f" in {runtime:.1f} s" if runtime is not None else "",
                                                             files.csv.name)  # fmt: skip
    plotted = measure_title(measure) if value in (None, measure_column) else value
    plotted = f"Δ {measure_title(measure)}" if value == "delta" else plotted
    over = f" (the aggregate over {table.attrs['splits']['n']} splits)" if value == "delta" and aggregated_effects(
        table) else ""  # fmt: skip
    sections = [
        findings_section(table, n_rows=len(data)),
        Section(f"{plotted[:1].upper()}{plotted[1:]} of each subgroup{over}", forest_section(
            shown, n_rows=len(data), value=value, interval=interval,
            reference=0.0 if value == "delta" else None), "forest"),
        Section("Subgroups", subgroups_table(shown, columns) + effect_note(table, shown_split)
                + verdict_notes(table) + rates_note, "subgroups"),
        *([reliability_section(table, data, label=label, score=score, positive_label=positive_label,
                               split=split)] if measure in CALIBRATION_MEASURE_NAMES else []),
        Section(f"{kind} curves of the top {top} distinct subgroups on the {split} split", curves, "curves"),
        Section("Cross AUCs", cross_auc_section(table, data, label=label, score=score,
                                                positive_label=positive_label, top=top), "cross-auc"),
        Section("Will it hold on new data?", "" if diagnostics is None else diagnostics_section(
            diagnostics.result(), top=top), "diagnostics"),
        Section("How to read this", how_to_read(table.attrs, measure, has_effects(table)), "how-to-read"),
        Section("Settings", settings_html(table.attrs, runtime), "settings"),
    ]  # fmt: skip
    files.html.write_text(render_page(title, summary, sections), encoding="utf-8")
    return files
