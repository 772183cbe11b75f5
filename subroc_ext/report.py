"""A shareable report of a :func:`~subroc_ext.find_subgroups` table.

:func:`write_report` writes three files into one directory: the tidy table as
CSV, the ROC (or precision-recall) curves of the top subgroups as PNG, and a
self-contained HTML page (the PNG embedded) that explains how to read them.
"""

import base64
import datetime
import html
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .plotting import plot_pr_curves, plot_roc_curves
from .report_sections import cross_auc_section, diagnostics_section

__all__ = ["ReportFiles", "write_report"]

#: Readable names of the statsmodels multiple-testing methods.
_METHOD_NAMES = {
    "fdr_by": "Benjamini–Yekutieli",
    "fdr_bh": "Benjamini–Hochberg",
    "bonferroni": "Bonferroni",
    "holm": "Holm",
}
#: Columns of the HTML table, ``{measure}`` filled in; missing ones are skipped.
_HTML_COLUMNS = (
    "description", "quality", "size_search", "ncr_search", "{measure}_search",
    "size_validation", "ncr_validation", "{measure}_validation", "bpsn_auc_validation",
    "bnsp_auc_validation", "p_value",
    "p_value_corrected", "significant",
)  # fmt: skip
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
table { border-collapse: collapse; font-size: 0.9em; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
tr.significant td { background: #fff1c2; }
img { max-width: 100%; }
.note { color: #555; }
"""


class ReportFiles(NamedTuple):
    """Paths of the files written by :func:`write_report`."""

    csv: Path
    png: Path
    html: Path


def _format(value):
    """A table cell: thousands separators for integers, 4 significant digits for floats."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    if isinstance(value, (float, np.floating)):
        return "–" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def _html_table(header, rows, row_classes=None, text_columns=(0,)):
    """An HTML table of already formatted cells (escaped here)."""

    def cell(tag, index, value):
        css = ' class="text"' if index in text_columns else ""
        return f"<{tag}{css}>{html.escape(str(value))}</{tag}>"

    head = "".join(cell("th", i, name) for i, name in enumerate(header))
    body = []
    for number, row in enumerate(rows):
        css = f' class="{row_classes[number]}"' if row_classes and row_classes[number] else ""
        body.append(f"<tr{css}>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _results_html(table, measure):
    """The key columns of ``table``, significant rows highlighted."""
    columns = [c.format(measure=measure) for c in _HTML_COLUMNS]
    columns = [c for c in columns if c in table.columns]
    rows = [[_format(v) for v in record] for record in table[columns].itertuples(index=False)]
    significant = table["significant"] if "significant" in table.columns else [False] * len(table)
    classes = ["significant" if flag else "" for flag in significant]
    return _html_table(columns, rows, classes)


def _settings_html(attrs, runtime):
    """The search and test settings of ``table.attrs`` (and the runtime) as a table."""
    rows = [
        [key, str(value) if isinstance(value, (bool, np.bool_)) else _format(value)]
        for key, value in attrs.items()
        if key != "dataset_values"
    ]
    if runtime is not None:
        rows.append(["runtime", f"{runtime:.1f} s"])
    if not rows:
        return '<p class="note">No settings recorded.</p>'
    return _html_table(["setting", "value"], rows)


def _dataset_values_html(values):
    """Each measure on the whole search and validation splits."""
    if not values:
        return ""
    measures = dict.fromkeys(key.rsplit("_", 1)[0] for key in values)
    rows = [
        [name, _format(values.get(f"{name}_search", np.nan)),
         _format(values.get(f"{name}_validation", np.nan))]
        for name in measures
    ]  # fmt: skip
    header = ["measure", "search split", "validation split"]
    return "<h2>The whole data</h2>" + _html_table(header, rows)


def _how_to_read(attrs, measure):
    """The paragraph that explains quality, weights and p-values."""
    method = attrs.get("method", "fdr_by")
    method = _METHOD_NAMES.get(method, method)
    mode = attrs.get("mode", "worse")
    n_samples = attrs.get("n_samples")
    alpha = attrs.get("alpha", 0.05)
    size_weight = attrs.get("size_weight", "alpha")
    balance_weight = attrs.get("balance_weight", "beta")
    floor = (
        f" (with {n_samples:,} random subsets it is at least 1/{n_samples + 1:,})"
        if isinstance(n_samples, (int, np.integer))
        else ""
    )
    generalization = (
        " The quality is generalization-aware: it only counts how much more "
        "exceptional a pattern is than its best shorter pattern, so refinements "
        "that add nothing rank low."
        if attrs.get("generalization_aware")
        else ""
    )
    adjective, preposition = {"worse": ("worse", "than"), "better": ("better", "than")}.get(
        mode, ("different", "from")
    )
    return f"""<h2>How to read this</h2>
<p>Each row is a subgroup (a pattern of conditions on the attributes) found on the
<em>search</em> split, best first. Its <strong>quality</strong> measures how much
{adjective} the classifier's <code>{html.escape(measure)}</code> is inside the subgroup
{preposition} on the whole data, multiplied by the weight
<code>size<sup>{html.escape(_format(size_weight))}</sup> &times;
balance<sup>{html.escape(_format(balance_weight))}</sup></code>, where balance is the
ratio of the smaller to the larger class: the weights favour large and balanced
subgroups, whose performance is both reliable and consequential.{generalization}
<code>ncr</code> is the share of negatives.</p>
<p>Every subgroup is then tested on the held-out <em>validation</em> split: its
unweighted quality there is compared with that of random subsets of the same size
and class balance. <code>p_value</code> is, essentially, the share of random subsets at least as
exceptional{floor}; <code>p_value_corrected</code> corrects all p-values together
with the {html.escape(method)} method, which controls the false discovery rate
under any dependence between the tests. Highlighted rows are
<strong>significant</strong> (corrected p-value at most {_format(alpha)}).</p>"""


def write_report(
    table, data, out_dir, *, label, score, positive_label=1, measure="roc_auc", top=5,
    title=None, runtime=None, search=None,
):  # fmt: skip
    """Write a table of subgroups as CSV, their curves as PNG, and an HTML report.

    Parameters
    ----------
    table : pandas.DataFrame
        A table returned by :func:`~subroc_ext.find_subgroups` (its
        ``attrs`` give the settings shown in the report).
    data : pandas.DataFrame
        Rows on which the curves are drawn, usually the validation split.
    out_dir : str or pathlib.Path
        Directory for the files; created if needed, files overwritten.
    label, score : str
        Label and score columns of ``data``.
    positive_label : object, default=1
        Label value of the positive class.
    measure : str, default='roc_auc'
        The measure searched for: PR curves are drawn for ``'pr_auc'``, ROC
        curves otherwise; its columns are shown in the HTML table.
    top : int, default=5
        Number of subgroups whose curves are drawn.
    title : str, optional
        Heading of the HTML page (default: ``'SubROC report'``).
    runtime : float, optional
        Seconds the analysis took, shown with the settings.
    search : pandas.DataFrame, optional
        The search split: with it the report adds Roberts et al.'s
        generalization diagnostics of the top subgroups (search vs. ``data``).

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
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out_dir / "subgroups.csv", out_dir / "curves.png", out_dir / "report.html")

    plot = plot_pr_curves if measure == "pr_auc" else plot_roc_curves
    figure = plot(table, data, label=label, score=score, positive_label=positive_label, top=top)
    import matplotlib.pyplot as plt  # imported by the plot function above

    try:
        figure.savefig(files.png, dpi=110)
    finally:
        plt.close(figure)
    table.drop(columns="subgroup", errors="ignore").to_csv(files.csv, index=False)

    title = title or "SubROC report"
    image = base64.b64encode(files.png.read_bytes()).decode("ascii")
    n_significant = int(table["significant"].sum()) if "significant" in table.columns else 0
    created = datetime.datetime.now().isoformat(timespec="seconds")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{len(table):,} subgroups, {n_significant:,} of them significant.
Created {created}{f' in {runtime:.1f} s' if runtime is not None else ''}; the full
table is in <code>{files.csv.name}</code>.</p>
<h2>Curves of the top {min(top, len(table))} subgroups</h2>
<img alt="curves of the whole data and the top subgroups" src="data:image/png;base64,{image}">
<p class="note">Drawn on {len(data):,} rows; the thick dark curve is the whole data.</p>
{_how_to_read(table.attrs, measure)}
<h2>Subgroups</h2>
{_results_html(table, measure)}
{cross_auc_section(table, data, label=label, score=score, positive_label=positive_label, top=top)}
{"" if search is None else diagnostics_section(table, search, data, label=label, score=score,
                                                positive_label=positive_label, top=top)}
<h2>Settings</h2>
{_settings_html(table.attrs, runtime)}
{_dataset_values_html(table.attrs.get("dataset_values", {}))}
</body></html>
"""
    files.html.write_text(page, encoding="utf-8")
    return files
