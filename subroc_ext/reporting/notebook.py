"""The ``table.subroc`` accessor: a ``find_subgroups`` table that shows itself in Jupyter.

:func:`~subroc_ext.find_subgroups` returns a plain DataFrame of some forty
columns; in a notebook ``table.subroc`` displays the compact view of the
report instead: a summary line, the forest plot of the top subgroups and the
table's default columns (readable conditions, size, measure with interval,
effect Δ with its interval, corrected p-value, significant). The accessor also
gives the report's pieces as methods (``forest``, ``rows``).
"""

import numpy as np
import pandas as pd

from ..metrics.covers import subgroup_membership
from .page import CELL_STYLE, Html, embedded_figure, subgroups_table
from .findings import significant_count
from .plotting import plot_forest
from .reading import effect_note
from .report import result_columns

__all__ = ["SubgroupsAccessor"]

#: Subgroups shown by ``_repr_html_``.
SHOWN = 10


@pd.api.extensions.register_dataframe_accessor("subroc")
class SubgroupsAccessor:
    """``table.subroc``: a ``find_subgroups`` (or ``find_multiclass_subgroups``) table's view.

    Examples
    --------
    >>> table = subroc_ext.find_subgroups(search, label="y", score="p", validation=held_out)  # doctest: +SKIP
    >>> table.subroc            # in Jupyter: forest plot and compact table  # doctest: +SKIP
    >>> table.subroc.rows(held_out)  # row id x subgroup membership          # doctest: +SKIP
    """

    def __init__(self, table):
        if "description" not in table.columns or "measure" not in table.attrs:
            raise AttributeError(
                "the subroc accessor needs a table returned by find_subgroups or "
                "find_multiclass_subgroups (a 'description' column and attrs['measure'])"
            )
        self._table = table

    def __repr__(self):
        return (
            f"<{len(self._table)} subgroups by {self._table.attrs['measure']}: shown as a forest "
            "plot and a compact table in Jupyter>"
        )

    def forest(self, **settings):
        """The forest plot (:func:`~subroc_ext.plot_forest`) of the table."""
        return plot_forest(self._table, **settings)

    def rows(self, data):
        """Row membership of every subgroup on ``data`` (:func:`~subroc_ext.subgroup_membership`)."""
        return subgroup_membership(self._table, data)

    def _repr_html_(self):
        table = self._table
        measure = table.attrs["measure"]
        shown = table.assign(rank=np.arange(1, len(table) + 1))
        n_significant, by_promise = significant_count(table)
        split = "validation" if table.attrs.get("holdout", True) else "search"  # no holdout: all rows
        whole = table.attrs.get("dataset_values", {}).get(f"{measure}_{split}", np.nan)
        summary = Html(
            "<p>{:,} subgroups by {}, {:,} significant{}; the whole {} split's {} is {:.3f}. The "
            "top {} below (the DataFrame itself has every column).</p>"
        ).format(len(table), measure, n_significant, by_promise, split, measure, whole, min(SHOWN, len(table)))
        if len(table) == 0:
            return summary
        figure = embedded_figure(plot_forest(shown, top=SHOWN), "forest plot")
        grid = subgroups_table(shown, result_columns(shown, measure, split=split), interactive=False, rows=SHOWN)
        return Html('<div class="subroc-view"><style>{}</style>{}{}{}{}</div>').format(
            Html(CELL_STYLE), summary, figure, grid, effect_note(table, split))
