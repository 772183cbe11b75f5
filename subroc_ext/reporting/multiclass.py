"""The HTML report of a :func:`~subroc_ext.find_multiclass_subgroups` table.

The binary report's page (:mod:`subroc_ext.reporting.page`) with multi-class
sections: the headline, the forest plot of each subgroup's AUC_mu effect (Δ, its
difference from the whole data) with its interval,
the subgroups table (class counts behind the column chooser), and the class
pairs: AUC_mu is the mean of one binary AUC per pair of classes (Kleiman &
Page 2019), so a subgroup's low AUC_mu shows which pairs the model confuses
there.
"""

import datetime
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..metrics.covers import subgroup_covers
from ..scoring.auc_mu import PairProjections, check_multiclass_arrays, check_partition_matrix
from ..scoring.measures import ROCAUC
from ..utils.spreadsheet import write_csv
from ..utils.validation import check_columns
from .conditions import readable_description
from .findings import findings_section, significant_count
from .page import Html, Section, heatmap_table, render_page, subgroups_table
from .reading import EFFECT_COLUMNS, effect_note
from .cells import verdict_notes
from .report import forest_section, result_columns, settings_html

__all__ = ["MulticlassReportFiles", "class_pair_aucs", "class_pair_section", "write_multiclass_report"]

#: Subgroups in the class pairs section.
PAIR_ROWS = 10


class MulticlassReportFiles(NamedTuple):
    """Paths of the files written by :func:`write_multiclass_report`."""

    csv: Path
    html: Path


def class_pair_aucs(subgroups, data, *, label, score_columns, partition_matrix=None):
    """The AUC of every class pair (AUC_mu's terms) on the whole data and each subgroup.

    Parameters
    ----------
    subgroups : pysubgroup result, mapping or sequence of descriptions
        See :func:`subroc_ext.metrics.covers.subgroup_covers`.
    data : pandas.DataFrame
    label : str
        The class column.
    score_columns : dict
        ``{class: score column}`` (``table.attrs['score_columns']``).
    partition_matrix : array-like of shape (K, K), optional
        AUC_mu's partition matrix (default: argmax).

    Returns
    -------
    auc : pandas.DataFrame
        Index ``'all'`` and the subgroup names, one column ``'<i> vs <j>'``
        per pair of classes: ``S(i, j)``, the AUC of class i against class j
        on the pair's projected score (NaN where a class of the pair is absent).
    pairs : pandas.DataFrame
        The number of (i, j) row pairs behind each cell.

    References
    ----------
    .. [1] R. Kleiman and D. Page, "AUC_mu: A Performance Metric for
       Multi-Class Machine Learning Models", ICML 2019.
    """
    classes = list(score_columns)
    check_columns(data, [label, *score_columns.values()])
    codes, scores, classes = check_multiclass_arrays(
        data[label], data[list(score_columns.values())], classes, label_name=label
    )
    matrix = check_partition_matrix(partition_matrix, len(classes), classes)
    projections = PairProjections(codes, scores, matrix)
    names, masks = subgroup_covers(subgroups, data)
    masks = np.vstack([np.ones(len(data), dtype=bool), masks])
    columns = [f"{classes[i]} vs {classes[j]}" for i, j in projections.pairs]
    pair_auc = ROCAUC()
    values, counts = [], []
    for mask in masks:
        present = projections.class_counts(mask)
        counts.append([int(present[i] * present[j]) for i, j in projections.pairs])
        values.append([
            pair_auc.value(cover) if pair_auc.is_defined(cover.positives, cover.negatives) else np.nan
            for cover in projections.pair_covers(mask)
        ])  # fmt: skip
    index = pd.Index(["all", *names], name="subgroup")
    return (pd.DataFrame(values, index=index, columns=columns),
            pd.DataFrame(counts, index=index, columns=columns))  # fmt: skip


def class_pair_section(table, data, *, label, score_columns, partition_matrix=None, top=PAIR_ROWS):
    """HTML: the class-pair AUCs of the whole data and the top subgroups, as a coloured table.

    Returns
    -------
    Html
        ``''`` when the table has no subgroup objects or no rows.
    """
    if "subgroup" not in table.columns or len(table) == 0:
        return Html("")
    rows = table.head(top)
    auc, pairs = class_pair_aucs(
        {f"#{rank} {readable_description(sg)}": sg for rank, sg in enumerate(rows["subgroup"], 1)},
        data, label=label,
        score_columns=score_columns, partition_matrix=partition_matrix,
    )  # fmt: skip
    auc = auc.rename(index={"all": "whole data"})
    tips = pairs.map(lambda n: f"{n:,} pairs of rows")
    return Html("""{}
<p class="note">AUC_mu is the mean of one AUC per pair of classes (Kleiman &amp; Page 2019):
cell (subgroup, "i vs j") is the AUC of class i's rows against class j's rows, ranked by the
pair's projected score, on the {:,} validation rows (hover for the number of pairs).
A cell far below the whole data's shows which two classes the model confuses in that
subgroup; "–" where a class of the pair is absent. The whole data and the top {}
subgroups.</p>""").format(heatmap_table(auc, tooltips=tips), len(data), len(rows))


def _how_to_read(attrs):
    mode = attrs.get("mode", "worse")
    adjective = {"worse": "worse", "better": "better"}.get(mode, "different")
    return Html("""<p>Each row is a subgroup found on the <em>search</em> split, best first: where the
model's AUC_mu (the multi-class ROC AUC of Kleiman &amp; Page 2019) is {adjective} than on the
whole data, weighted by size and class balance. The table shows it on the held-out
<em>validation</em> split with its difference from the whole split (Δ), the corrected p-value
of the randomization test (random subsets with the same count of every class) and whether it
is significant; the class counts and the search split are under "Columns".</p>""").format(adjective=adjective)


def write_multiclass_report(
    table, data, out_dir, *, label=None, score_columns=None, partition_matrix=None, title=None,
    runtime=None,
):  # fmt: skip
    """Write a multi-class table of subgroups as CSV and as an HTML report.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`~subroc_ext.find_multiclass_subgroups`.
    data : pandas.DataFrame
        The validation split (the class pairs are computed on it).
    out_dir : str or pathlib.Path
        Directory for the files; created if needed, files overwritten.
    label : str, optional
        The class column (default ``table.attrs['label']``).
    score_columns : dict, optional
        ``{class: score column}`` (default ``table.attrs['score_columns']``).
    partition_matrix : array-like of shape (K, K), optional
        The partition matrix of the search (default: argmax).
    title : str, optional
    runtime : float, optional
        Seconds the analysis took.

    Returns
    -------
    MulticlassReportFiles
        ``subgroups.csv`` and ``report.html`` (self-contained).
    """
    label = label or table.attrs["label"]
    score_columns = dict(score_columns or table.attrs["score_columns"])
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = MulticlassReportFiles(out_dir / "subgroups.csv", out_dir / "report.html")
    write_csv(table.drop(columns="subgroup", errors="ignore"), files.csv)
    shown = table.assign(rank=np.arange(1, len(table) + 1))
    n_significant, by_promise = significant_count(table)
    effects = set(EFFECT_COLUMNS) <= set(table.columns)  # AUC_mu's effect with its interval
    created = datetime.datetime.now().isoformat(timespec="seconds")
    summary = Html(
        '<p class="note">{:,} distinct subgroups, {:,} of them significant{}, by AUC_mu over {} classes ({}). '
        "Created {}{}; the full table is in <code>{}</code>.</p>"
    ).format(len(table), n_significant, by_promise, len(score_columns), ", ".join(map(str, score_columns)), created,
             f" in {runtime:.1f} s" if runtime is not None else "", files.csv.name)  # fmt: skip
    split = "validation" if table.attrs.get("holdout", True) else "search"  # no holdout: all rows
    sections = [
        findings_section(table, n_rows=len(data)),
        Section("Δ AUC_mu of each subgroup" if effects else "AUC_mu of each subgroup", forest_section(
            shown, n_rows=len(data), **(dict(value="delta", interval=EFFECT_COLUMNS[1:], reference=0.0)
                                        if effects else dict(value=f"auc_mu_{split}"))), "forest"),
        Section("Subgroups", subgroups_table(shown, result_columns(shown, "auc_mu", n_rows=len(data), split=split))
                + effect_note(table, split) + verdict_notes(table), "subgroups"),
        Section("Class pairs", class_pair_section(
            table, data, label=label, score_columns=score_columns, partition_matrix=partition_matrix),
            "class-pairs"),
        Section("How to read this", _how_to_read(table.attrs), "how-to-read"),
        Section("Settings", settings_html(table.attrs, runtime), "settings"),
    ]  # fmt: skip
    page = render_page(title or "SubROC multi-class report", summary, sections)
    files.html.write_text(page, encoding="utf-8")
    return files
