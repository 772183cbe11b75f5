"""Optional sections of the HTML report: cross AUCs of the top subgroups.

Kept apart from :mod:`subroc_ext.report` so that the report only needs one
call per section; each function returns a self-contained HTML fragment
(figures embedded as PNG).
"""

import base64
import io

from .cross_auc import cross_auc
from .plotting import plot_cross_auc

__all__ = ["cross_auc_section"]


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
    figure = plot_cross_auc(cross)
    import matplotlib.pyplot as plt  # imported by plot_cross_auc

    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=100)
    finally:
        plt.close(figure)
    image = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"""<h2>Cross AUCs of the top {len(rows)} subgroups</h2>
<img alt="cross AUC heatmap" src="data:image/png;base64,{image}">
<p class="note">Cell (row, column): the AUC of the row group's positives against the
column group's negatives, on {len(data):,} rows, with the number of such pairs.
<code>background</code> is the rows outside every subgroup shown, <code>all</code> the
whole data. A low cell in a subgroup's row and the background column (its BNSP AUC)
means its positives are scored too low; a low cell in the background row and its
column (BPSN AUC), that its negatives are scored too high. (Tafvizi et al. 2022, §6;
Borkan et al. 2019.)</p>"""
