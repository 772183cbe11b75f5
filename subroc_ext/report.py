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
import pandas as pd
from statsmodels.stats.multitest import multitest_alias, multitest_methods_names

from .plotting import plot_pr_curves, plot_roc_curves
from .report_sections import cross_auc_section, diagnostics_section

__all__ = ["ReportFiles", "write_report"]

#: Columns of the HTML table, ``{measure}`` filled in; missing ones are skipped.
_HTML_COLUMNS = (
    "description", "quality", "overlap", "size_search", "ncr_search", "{measure}_search",
    "size_validation", "ncr_validation", "{measure}_validation", "roc_auc_validation_ci",
    "bpsn_auc_validation", "bnsp_auc_validation", "p_value", "p_value_corrected", "significant",
)  # fmt: skip
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em;
       color: #222; }
table { border-collapse: collapse; font-size: 0.82em; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.5em; text-align: right; }
th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
tr.significant td { background: #fff1c2; }
img { max-width: 100%; }
.note { color: #555; }
.scroll { overflow-x: auto; max-width: 100%; }
#subgroups th { cursor: pointer; position: sticky; top: 0; vertical-align: bottom; }
#subgroups th[aria-sort=ascending]::after { content: " \\25B2"; }
#subgroups th[aria-sort=descending]::after { content: " \\25BC"; }
#subgroups td { white-space: nowrap; }
#subgroups td.text { white-space: normal; min-width: 12em; max-width: 24em; }
.also { color: #555; font-size: 0.9em; }
.controls { display: flex; gap: 1.5em; align-items: center; flex-wrap: wrap; }
.controls input[type=search] { width: 22em; padding: 0.2em; }
"""
#: Sorting (click a header; again to reverse) and filtering of the subgroups
#: table in the browser: plain JavaScript inside the page, no server, no network.
_SCRIPT = """
(function () {
  var table = document.getElementById("subgroups");
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var text = document.getElementById("filter-text");
  var significant = document.getElementById("filter-significant");
  var count = document.getElementById("filter-count");
  function filter() {
    var words = text.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var haystack = row.getAttribute("data-text");
      var ok = words.every(function (w) { return haystack.indexOf(w) >= 0; }) &&
               (!significant.checked || row.classList.contains("significant"));
      row.hidden = !ok;
      shown += ok ? 1 : 0;
    });
    count.textContent = shown + " of " + rows.length + " subgroups shown";
  }
  function key(row, column) {
    var cell = row.cells[column];
    var value = cell.getAttribute("data-value");
    return value === null ? cell.textContent.toLowerCase() : parseFloat(value);
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
    th.addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
        other.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = key(a, column), y = key(b, column);
        var missing = (typeof x === "number" && isNaN(x)) - (typeof y === "number" && isNaN(y));
        if (missing) { return missing; }  // missing values last
        return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
  text.addEventListener("input", filter);
  significant.addEventListener("change", filter);
  filter();
})();
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


def _html_table(header, rows):
    """An HTML table of already formatted cells (escaped here), the first column text."""

    def cell(tag, index, value):
        css = ' class="text"' if index == 0 else ""
        return f"<{tag}{css}>{html.escape(str(value))}</{tag}>"

    head = "".join(cell("th", i, name) for i, name in enumerate(header))
    body = ["<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>" for row in rows]
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _sort_value(value):
    """The ``data-value`` a cell sorts by: a number (NaN if missing), or None for text."""
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    if value is None or value is pd.NA:
        return float("nan")
    return None


def _results_cells(record, columns):
    """``(text, sort value)`` of each shown column of one row of the table."""
    cells = []
    for column in columns:
        if column == "description":
            alternatives = record.get("alternatives") or ""
            text = html.escape(str(record["description"]))
            if alternatives:
                also = "; ".join(html.escape(a) for a in alternatives.split("; "))
                text += f'<div class="also">same rows: {also}</div>'
            cells.append((text, None))
        elif column == "overlap":
            partner = record.get("overlaps_with")
            value = record["overlap"]
            shown = "–" if pd.isna(value) else f"{value:.2f} with #{int(partner)}"
            cells.append((html.escape(shown), _sort_value(value)))
        elif column == "roc_auc_validation_ci":
            low, high = record["roc_auc_validation_ci_low"], record["roc_auc_validation_ci_high"]
            shown = "–" if pd.isna(low) else f"{low:.3f}–{high:.3f}"
            cells.append((html.escape(shown), _sort_value(low)))
        else:
            cells.append((html.escape(_format(record[column])), _sort_value(record[column])))
    return cells


_HEADERS = {
    "overlap": "overlap (Jaccard, search)",
    "roc_auc_validation_ci": "roc_auc_validation 95% CI",
}


def _header(column):
    """A column's header, allowed to wrap after underscores so that the table fits."""
    return html.escape(_HEADERS.get(column, column)).replace("_", "_<wbr>")


def _results_html(table, measure):
    """The key columns of ``table`` as a sortable, filterable table, significant rows highlighted."""
    available = set(table.columns)
    if {"roc_auc_validation_ci_low", "roc_auc_validation_ci_high"} <= available:
        available.add("roc_auc_validation_ci")
    columns = [c.format(measure=measure) for c in _HTML_COLUMNS]
    columns = list(dict.fromkeys(c for c in columns if c in available))
    text_class = ' class="text"'
    head = "<th>#</th>" + "".join(
        f"<th{text_class if c == 'description' else ''}>{_header(c)}</th>" for c in columns
    )
    body = []
    for rank, (_, record) in enumerate(table.iterrows(), start=1):
        searchable = f"{record['description']} {record.get('alternatives') or ''}".lower()
        cells = [f'<td data-value="{rank}">{rank}</td>']
        for column, (text, value) in zip(columns, _results_cells(record, columns)):
            css = text_class if column == "description" else ""
            sort = "" if value is None else f' data-value="{value!r}"'
            cells.append(f"<td{css}{sort}>{text}</td>")
        row_class = ' class="significant"' if bool(record.get("significant", False)) else ""
        body.append(f'<tr{row_class} data-text="{html.escape(searchable)}">{"".join(cells)}</tr>')
    controls = (
        '<div class="controls"><label>Filter: <input type="search" id="filter-text" '
        'placeholder="words in the description, e.g. age married"></label>'
        '<label><input type="checkbox" id="filter-significant"> significant only</label>'
        '<span id="filter-count" class="note"></span></div>'
        '<p class="note">Click a column header to sort (again to reverse).</p>'
    )
    return (
        f'{controls}<div class="scroll"><table id="subgroups"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


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
    method = multitest_alias.get(attrs.get("method", "fdr_by"))
    method_name = multitest_methods_names.get(method, attrs.get("method"))
    guarantee = {
        "fdr_by": "controls the false discovery rate under any dependence between the tests",
        "fdr_bh": "controls the false discovery rate for independent or positively dependent tests",
        "b": "controls the family-wise error rate under any dependence between the tests",
        "h": "controls the family-wise error rate under any dependence between the tests",
    }.get(method, "is documented with statsmodels' multipletests")
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
<code>ncr</code> is the share of negatives; columns ending in <code>_search</code> and
<code>_validation</code> are measured on that split. Descriptions of exactly the same rows
are one row (the others listed under it as "same rows"); <code>overlap</code> is the
largest share of rows (Jaccard index on the search split) a subgroup has in common
with a better-ranked one, and which one (#rank): high values mark near-copies.
<code>roc_auc_validation 95% CI</code> is DeLong's confidence interval of the
subgroup's ROC AUC on the validation split.</p>
<p>Every subgroup is then tested on the held-out <em>validation</em> split: its
unweighted quality there is compared with that of random subsets of the same size
and class balance. <code>p_value</code> is, essentially, the share of random subsets at least as
exceptional{floor}; <code>p_value_corrected</code> corrects all p-values together
with the {html.escape(method_name)} method, which {guarantee}. Highlighted rows are
<strong>significant</strong> (corrected p-value at most {_format(alpha)}).</p>"""


def write_report(
    table, data, out_dir, *, label, score, positive_label=1, measure="roc_auc", top=5,
    title=None, runtime=None, split="validation", search=None,
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
    split : str, default='validation'
        Which split ``data`` is, named with the curves.
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
    figure = plot(
        table, data, label=label, score=score, positive_label=positive_label, top=top, split=split
    )
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
<h2>Curves of the top {min(top, len(table))} subgroups on the {html.escape(split)} split</h2>
<img alt="curves of the whole {html.escape(split)} split and the top subgroups"
src="data:image/png;base64,{image}">
<p class="note">Drawn on the {html.escape(split)} split ({len(data):,} rows): the curves and
the sizes in the legend are those of the {html.escape(split)} rows; the thick dark curve is
the whole {html.escape(split)} split.</p>
{_how_to_read(table.attrs, measure)}
<h2>Subgroups</h2>
{_results_html(table, measure)}
{cross_auc_section(table, data, label=label, score=score, positive_label=positive_label, top=top)}
{"" if search is None else diagnostics_section(table, search, data, label=label, score=score,
                                                positive_label=positive_label, top=top)}
<h2>Settings</h2>
{_settings_html(table.attrs, runtime)}
{_dataset_values_html(table.attrs.get("dataset_values", {}))}
<script>{_SCRIPT}</script>
</body></html>
"""
    files.html.write_text(page, encoding="utf-8")
    return files
