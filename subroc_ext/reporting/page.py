"""The HTML page of a report, made of sections: style, script, tables, figures.

Every report of subroc-ext (binary, multi-class, and any later one such as a
comparison or drift report) is a title, a one-paragraph summary and a list
of :class:`Section` objects rendered by :func:`render_page` into one
self-contained file: figures are embedded PNGs drawn at the size they are
shown (:func:`embedded_png`), the subgroups table is sortable, filterable and
has a column chooser (:func:`subgroups_table`), all in plain JavaScript
inside the page, no server, no network. The page is at most 80em (1280 px)
wide and never wider than the window: wide tables scroll inside their box.
"""

import base64
import html
import io
import math
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

from .conditions import condition_texts

__all__ = [
    "CELL_STYLE",
    "Column",
    "conditions_html",
    "Section",
    "embedded_png",
    "format_number",
    "format_p_value",
    "heatmap_table",
    "html_table",
    "name_chips",
    "png_image",
    "render_page",
    "subgroups_table",
]

#: Styles of the cells' pieces (condition chips, intervals): classes only, so that a
#: notebook can use them without restyling its own tables.
CELL_STYLE = """
.cond { display: inline-block; white-space: nowrap; background: #eef2f7; border-radius: 3px;
        padding: 0 0.3em; margin: 0.05em 0.3em 0.05em 0; }
.ci { color: #666; font-size: 0.9em; }
"""

#: Resolution of every embedded figure: a figure w inches wide is 100 w pixels on the page.
DPI = 100

STYLE = """
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 80em; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
nav { font-size: 0.9em; color: #555; } nav a { margin-right: 1em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.5em; text-align: right;
         vertical-align: top; }
th { background: #f3f3f3; vertical-align: bottom; }
td.text, th.text { text-align: left; }
td.text { min-width: 12em; }
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
.note { color: #555; font-size: 0.9em; max-width: 60em; }
.scroll { overflow-x: auto; max-width: 100%; }
.results table { width: 100%; }
.results th { cursor: pointer; position: sticky; top: 0; }
.results th[aria-sort=ascending]::after { content: " \\25B2"; }
.results th[aria-sort=descending]::after { content: " \\25BC"; }
.results td { white-space: nowrap; }
.results td.text { white-space: normal; min-width: 16em; }
.results tr.significant td { background: #fff1c2; }
.also { color: #555; font-size: 0.9em; }
.controls { display: flex; gap: 1.5em; align-items: center; flex-wrap: wrap; }
.controls input[type=search] { width: 20em; padding: 0.2em; }
details.columns { font-size: 0.9em; }
details.columns label { display: inline-block; margin-right: 1em; white-space: nowrap; }
table.heatmap td { text-align: center; min-width: 4.5em; }
.headline { font-size: 1.1em; font-weight: 600; max-width: 60em; }
ol.findings li { margin: 0.3em 0; max-width: 60em; }
table.heatmap td.text { text-align: left; }
""" + CELL_STYLE

#: Sorting (click a header; again to reverse), filtering and the column chooser
#: of every ``div.results`` on the page.
SCRIPT = """
document.querySelectorAll("div.results").forEach(function (box) {
  var table = box.querySelector("table");
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var text = box.querySelector("input[type=search]");
  var significant = box.querySelector("input.significant-only");
  var count = box.querySelector(".count");
  var hiding = box.querySelector("style");
  function filter() {
    var words = text.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var haystack = row.getAttribute("data-text");
      var ok = words.every(function (w) { return haystack.indexOf(w) >= 0; }) &&
               (!significant || !significant.checked || row.classList.contains("significant"));
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
  var headers = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(headers, function (th, column) {
    th.addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(headers, function (other) { other.removeAttribute("aria-sort"); });
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
  var choosers = box.querySelectorAll("details.columns input");
  function columns() {
    var hidden = [];
    choosers.forEach(function (box) {
      if (!box.checked) { hidden.push('[data-col="' + box.value + '"]'); }
    });
    hiding.textContent = hidden.length ? hidden.join(",") + " { display: none; }" : "";
  }
  choosers.forEach(function (box) { box.addEventListener("change", columns); });
  text.addEventListener("input", filter);
  if (significant) { significant.addEventListener("change", filter); }
  columns();
  filter();
});
"""


class Section(NamedTuple):
    """One section of a report page: a heading and its HTML body.

    ``anchor`` is the section's ``id`` (linked from the page's contents).
    """

    title: str
    body: str
    anchor: str


class Column(NamedTuple):
    """A column of :func:`subgroups_table`.

    ``cell(record)`` returns the cell's HTML (already escaped) and the value
    it sorts by (a float, NaN if missing, or None to sort by its text);
    ``shown`` says whether the column is visible before the reader chooses;
    ``help`` is the header's tooltip.
    """

    key: str
    header: str
    cell: Callable
    shown: bool = True
    help: str = ""
    text: bool = False


def format_number(value):
    """A table cell: thousands separators for integers, 4 significant digits for floats."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    if isinstance(value, (float, np.floating)):
        return "–" if math.isnan(value) else f"{value:.4g}"
    if value is None or value is pd.NA:
        return "–"
    return str(value)


def format_p_value(p):
    """One format for every p-value: two significant digits, never scientific.

    >>> [format_p_value(p) for p in (0.04123, 0.0005726, 9.999e-05, 1.0)]
    ['0.041', '0.00057', '0.00010', '1.0']
    """
    if p is None or p is pd.NA or (isinstance(p, float) and math.isnan(p)):
        return "–"
    rounded = float(f"{float(p):.2g}")
    if rounded == 0:
        return "0"
    return f"{rounded:.{max(1, 1 - math.floor(math.log10(rounded)))}f}"


def conditions_html(subgroup):
    """A description as one chip per condition (wrapping only between conditions)."""
    return "".join(f'<span class="cond">{html.escape(text)}</span>' for text in condition_texts(subgroup)) or (
        '<span class="cond">whole data</span>'
    )


def name_chips(name):
    """A readable group name (conditions joined by ``' & '``) as one chip per condition."""
    return "".join(f'<span class="cond">{html.escape(part)}</span>' for part in str(name).split(" & "))


def embedded_png(figure, alt):
    """The figure as an ``<img>`` of a base64 PNG at :data:`DPI` (the figure is closed).

    Width and height are given, so the page shows the figure at the size it
    was drawn (or smaller on a narrow window), never blown up.
    """
    import matplotlib.pyplot as plt  # imported by the plot functions

    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=DPI)
    finally:
        plt.close(figure)
    return png_image(buffer.getvalue(), alt)


def png_image(data, alt):
    """PNG bytes as an ``<img>`` with its pixel width and height (read from the PNG header)."""
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    image = base64.b64encode(data).decode("ascii")
    return (
        f'<img alt="{html.escape(alt)}" width="{width}" height="{height}" '
        f'src="data:image/png;base64,{image}">'
    )


def html_table(header, rows, *, text_columns=1):
    """A plain table of already formatted cells (escaped here), the first columns text."""

    def cell(tag, index, value):
        css = ' class="text"' if index < text_columns else ""
        return f"<{tag}{css}>{html.escape(str(value))}</{tag}>"

    head = "".join(cell("th", i, name) for i, name in enumerate(header))
    body = ["<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>" for row in rows]
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def heatmap_table(frame, *, tooltips=None, fmt="{:.3f}", vmin=0.0, vmax=1.0):
    """A DataFrame of values in [vmin, vmax] as a table of coloured cells.

    The index names the rows (conditions joined by ``' & '`` are shown as
    one chip each).

    Colours follow matplotlib's ``RdYlGn`` map (red low, green high) as in
    :func:`~subroc_ext.plot_cross_auc`; ``tooltips`` (a frame of the same
    shape) are shown on hover, so that the cells stay short.
    """
    from matplotlib import colormaps, colors

    cmap = colormaps["RdYlGn"]
    head = '<th class="text"></th>' + "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for i, (name, values) in enumerate(frame.iterrows()):
        cells = [f'<td class="text">{name_chips(name)}</td>']
        for j, value in enumerate(values):
            tip = "" if tooltips is None else f' title="{html.escape(str(tooltips.iat[i, j]))}"'
            if pd.isna(value):
                cells.append(f"<td{tip}>–</td>")
                continue
            shade = colors.to_hex(cmap((float(value) - vmin) / (vmax - vmin)))
            cells.append(f'<td style="background:{shade}"{tip}>{fmt.format(value)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="scroll"><table class="heatmap"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def subgroups_table(table, columns, *, interactive=True, rows=None):
    """The subgroups of a ``find_subgroups`` table as an HTML table, best first.

    Parameters
    ----------
    table : pandas.DataFrame
    columns : list of Column
    interactive : bool, default=True
        Add the filter, the "significant only" switch and the column chooser
        (the page's :data:`SCRIPT` runs them); without, only the shown
        columns (e.g. for a notebook).
    rows : int, optional
        Show only the first ``rows`` subgroups.

    Returns
    -------
    str
    """
    if not interactive:
        columns = [column for column in columns if column.shown]
    shown_table = table if rows is None else table.head(rows)

    def th(column):
        css = ' class="text"' if column.text else ""
        tip = f' title="{html.escape(column.help)}"' if column.help else ""
        return f'<th data-col="{column.key}"{css}{tip}>{column.header}</th>'

    body = []
    for _, record in shown_table.iterrows():
        cells = []
        for column in columns:
            text, value = column.cell(record)
            css = ' class="text"' if column.text else ""
            sort = "" if value is None else f' data-value="{float(value)!r}"'
            cells.append(f'<td data-col="{column.key}"{css}{sort}>{text}</td>')
        parts = [record.get("description"), record.get("alternatives"),
                 *condition_texts(record.get("subgroup", record.get("description", "")))]  # fmt: skip
        searchable = " ".join(part for part in parts if isinstance(part, str) and part).lower()
        row_class = ' class="significant"' if bool(record.get("significant", False)) else ""
        body.append(f'<tr{row_class} data-text="{html.escape(searchable)}">{"".join(cells)}</tr>')
    grid = (
        f'<div class="scroll"><table><thead><tr>{"".join(th(c) for c in columns)}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    if not interactive:
        return grid
    chooser = "".join(
        f'<label title="{html.escape(c.help)}"><input type="checkbox" value="{c.key}"'
        f'{" checked" if c.shown else ""}> {c.header}</label>'
        for c in columns
    )
    significant = (
        '<label><input type="checkbox" class="significant-only"> significant only</label>'
        if "significant" in table.columns
        else ""
    )
    return f"""<div class="results"><style></style>
<div class="controls"><label>Filter: <input type="search"
placeholder="words of the conditions, e.g. age married"></label>{significant}
<span class="count note"></span></div>
<details class="columns"><summary>Columns ({sum(c.shown for c in columns)} of {len(columns)}
shown; click a header to sort, again to reverse)</summary>{chooser}</details>
{grid}</div>"""


def render_page(title, summary, sections):
    """A complete, self-contained HTML page: title, summary, contents and sections.

    Parameters
    ----------
    title : str
        Plain text.
    summary : str
        HTML of the paragraph under the title.
    sections : list of Section
        In order; empty bodies are left out.

    Returns
    -------
    str
    """
    sections = [section for section in sections if section.body]
    contents = " ".join(f'<a href="#{s.anchor}">{html.escape(s.title)}</a>' for s in sections)
    parts = "\n".join(
        f'<section id="{s.anchor}"><h2>{html.escape(s.title)}</h2>\n{s.body}</section>'
        for s in sections
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
{summary}
<nav>{contents}</nav>
{parts}
<script>{SCRIPT}</script>
</body></html>
"""
