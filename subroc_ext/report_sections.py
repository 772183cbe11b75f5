"""Optional sections of the HTML report: cross AUCs and generalization diagnostics.

Kept apart from :mod:`subroc_ext.report` so that the report only needs one
call per section; each function returns a self-contained HTML fragment
(figures embedded as PNG).
"""

import base64
import io

from .cross_auc import cross_auc
from .diagnostics import generalization_diagnostics
from .plotting import plot_cross_auc, plot_generalization_diagnostics

__all__ = ["cross_auc_section", "diagnostics_section"]


def _embedded_png(figure, alt):
    """The figure as a base64 PNG ``<img>`` (the figure is closed)."""
    import matplotlib.pyplot as plt  # imported by the plot functions

    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=100)
    finally:
        plt.close(figure)
    image = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{alt}" src="data:image/png;base64,{image}">'


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
    str
        An ``<h2>`` section with the heatmap, or ``''`` when the table has no
        subgroup objects (e.g. read back from CSV) or no rows.
    """
    if "subgroup" not in table.columns or len(table) == 0:
        return ""
    rows = table.head(top)
    subgroups = dict(zip(rows["description"], rows["subgroup"]))
    cross = cross_auc(subgroups, data, label=label, score=score, positive_label=positive_label)
    return f"""<h2>Cross AUCs of the top {len(rows)} subgroups</h2>
{_embedded_png(plot_cross_auc(cross), "cross AUC heatmap")}
<p class="note">Cell (row, column): the AUC of the row group's positives against the
column group's negatives, on {len(data):,} rows, with the number of such pairs.
<code>background</code> is the rows outside every subgroup shown, <code>all</code> the
whole data. A low cell in a subgroup's row and the background column (its BNSP AUC)
means its positives are scored too low; a low cell in the background row and its
column (BPSN AUC), that its negatives are scored too high. (Tafvizi et al. 2022, §6;
Borkan et al. 2019.)</p>"""


def diagnostics_section(table, search, validation, *, label, score, positive_label=1, top=5):
    """HTML: Roberts et al.'s generalization diagnostics of the top subgroups.

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
    str
        An ``<h2>`` section with the plot and the key columns, or ``''`` when
        the table has no subgroup objects or no rows.
    """
    if "subgroup" not in table.columns or len(table) == 0:
        return ""
    rows = table.head(top)
    diagnostics = generalization_diagnostics(
        dict(zip(rows["description"], rows["subgroup"])), search, validation, label=label,
        score=score, positive_label=positive_label, random_state=0,
    )  # fmt: skip
    columns = ["subgroup", "bias_robustness_search", "bias_robustness_validation",
               "noise_robustness_search", "noise_robustness_validation",
               "sensitivity_drift", "specificity_drift", "w2_search_neg__search_pos",
               "w2_search_neg__validation_neg", "w2_search_pos__validation_pos"]  # fmt: skip
    shown = diagnostics[columns].to_html(index=False, float_format=lambda v: f"{v:.3f}")
    threshold = diagnostics["threshold"].iloc[0]
    return f"""<h2>Will it hold on new data? (top {len(rows)} subgroups)</h2>
{_embedded_png(plot_generalization_diagnostics(diagnostics, top=top), "generalization diagnostics")}
{shown}
<p class="note">Roberts et al. (2023): robustness of the AUC to a bias subtracted from the
positives' scores and to Gaussian noise (shifts 0 to 1; 1 = no loss), sensitivity and
specificity at the search split's Youden threshold {threshold:.3g} and their drift from the
search to the validation split, and 2-Wasserstein distances between the class score
distributions (large between the classes, small for one class across the splits is good).</p>"""
