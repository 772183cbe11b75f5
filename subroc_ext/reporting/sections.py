"""Optional sections of the HTML report: cross AUCs and generalization diagnostics.

Kept apart from :mod:`subroc_ext.reporting.report` so that the report only needs one
call per section; each function returns the body of a
:class:`~subroc_ext.reporting.page.Section` (figures embedded as SVG), or ``''``
when there is nothing to show.
"""

from ..metrics.cross_auc import cross_auc
from ..metrics.diagnostics import generalization_diagnostics
from .conditions import readable_description
from .page import Html, embedded_figure, html_table, name_chips
from .plotting import plot_cross_auc, plot_generalization_diagnostics

__all__ = ["cross_auc_section", "diagnostics_section", "top_diagnostics"]


def cross_auc_section(table, data, *, label, score, positive_label=1, top=5):
    """HTML: the cross AUC heatmap of the top subgroups of a ``find_subgroups`` table.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`~subroc_ext.find_subgroups` (its ``subgroup`` and
        ``description`` columns are used).
    data : pandas.DataFrame
        Rows on which the cross AUCs are computed (usually the validation split).
    label, score : str
    positive_label : object, default=1
    top : int, default=5

    Returns
    -------
    Html
        The heatmap and how to read it, or ``''`` when the table has no
        subgroup objects (e.g. read back from CSV) or no rows.
    """
    if "subgroup" not in table.columns or len(table) == 0:
        return Html("")
    rows = table.head(top)
    subgroups = {f"#{rank} {readable_description(sg)}": sg for rank, sg in enumerate(rows["subgroup"], 1)}
    cross = cross_auc(subgroups, data, label=label, score=score, positive_label=positive_label)
    return Html("""<p class="note">The top {} subgroups.</p>
{}
<p class="note">Cell (row, column): the AUC of the row group's positives against the
column group's negatives, on {:,} rows, with the number of such pairs
(k = thousand, M = million).
<code>background</code> is the rows outside every subgroup shown, <code>all</code> the
whole data. A low cell in a subgroup's row and the background column (its BNSP AUC)
means its positives are scored too low; a low cell in the background row and its
column (BPSN AUC), that its negatives are scored too high. (Tafvizi et al. 2022, §6;
Borkan et al. 2019.)</p>""").format(len(rows), embedded_figure(plot_cross_auc(cross), "cross AUC heatmap"), len(data))


def top_diagnostics(table, search, validation, *, label, score, positive_label=1, top=5):
    """Roberts et al.'s generalization diagnostics of the top ``top`` subgroups.

    Mostly NumPy loops over pairs of scores that release the GIL, so that
    :func:`~subroc_ext.reporting.report.write_report` computes them in a thread
    beside its figures.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`~subroc_ext.find_subgroups`.
    search, validation : pandas.DataFrame
        The two splits.
    label, score : str
    positive_label : object, default=1
    top : int, default=5

    Returns
    -------
    pandas.DataFrame or None
        :func:`~subroc_ext.generalization_diagnostics` of the whole data and
        the subgroups, or None when the table has no subgroup objects or no rows.
    """
    if "subgroup" not in table.columns or len(table) == 0:
        return None
    rows = table.head(top)
    return generalization_diagnostics(
        {f"#{rank} {readable_description(sg)}": sg for rank, sg in enumerate(rows["subgroup"], 1)},
        search, validation, label=label,
        score=score, positive_label=positive_label, random_state=0,
    )  # fmt: skip


def diagnostics_section(diagnostics, *, top=5):
    """HTML: the generalization diagnostics of :func:`top_diagnostics` (``''`` for None).

    Parameters
    ----------
    diagnostics : pandas.DataFrame or None
    top : int, default=5

    Returns
    -------
    Html
        The plot and the key columns.
    """
    if diagnostics is None:
        return Html("")
    columns = {"bias_robustness_search": "bias robustness, search",
               "bias_robustness_validation": "bias robustness, validation",
               "noise_robustness_search": "noise robustness, search",
               "noise_robustness_validation": "noise robustness, validation",
               "sensitivity_drift": "sensitivity drift", "specificity_drift": "specificity drift",
               "w2_search_neg__search_pos": "W2 negatives vs positives (search)",
               "w2_search_neg__validation_neg": "W2 negatives, search vs validation",
               "w2_search_pos__validation_pos": "W2 positives, search vs validation"}  # fmt: skip
    shown = html_table(
        ["subgroup", *columns.values()],
        [[name_chips(record["subgroup"]), *(f"{record[c]:.3f}" for c in columns)]
         for _, record in diagnostics.iterrows()],
    )  # fmt: skip
    threshold = diagnostics["threshold"].iloc[0]
    return Html("""<p class="note">The whole data and the top {} subgroups.</p>
{}
{}
<p class="note">Roberts et al. (2023): robustness of the AUC to a bias subtracted from the
positives' scores and to Gaussian noise (shifts 0 to 1; 1 = no loss), sensitivity and
specificity at the search split's Youden threshold {:.3g} and their drift from the
search to the validation split, and 2-Wasserstein distances (W2) between the class score
distributions (large between the classes, small for one class across the splits is good).</p>""").format(
        len(diagnostics) - 1, embedded_figure(plot_generalization_diagnostics(diagnostics, top=top),
                                              "generalization diagnostics"),
        shown, threshold)  # fmt: skip
