"""The HTML page of a report, made of sections: style, script, tables, figures.

Every report of subroc-ext (binary, multi-class, and any later one such as a
comparison or drift report) is a title, a one-paragraph summary and a list
of :class:`Section` objects rendered by :func:`render_page` into one
self-contained file: figures are embedded SVGs drawn at the size they are
shown, their text left to the browser (:func:`embedded_figure`), the subgroups table is sortable, filterable and
has a column chooser (:func:`subgroups_table`), all in plain JavaScript
inside the page, no server, no network. The page is at most 80em (1280 px)
wide and never wider than the window: wide tables scroll inside their box.

Escaping happens here and only here (no other module imports :mod:`html`):
every ``str`` given to this module's builders (a title, a section body, a
cell, a header, a column key, a tooltip, an ``alt`` text) is *text* and is
escaped by :func:`escape`; markup is an :class:`Html` string, made by these
builders or by :meth:`Html.format`, which escapes what it fills in (as
Jinja2's autoescape and MarkupSafe's ``Markup`` do). A column named
``<img src=x onerror=alert(1)>`` or a class named ``<script>`` is thus
shown as it is spelled, never run.
"""

import base64
import io
import math
import re
import string
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

from ..utils.terminal import clipped
from .conditions import condition_texts

__all__ = [
    "CELL_STYLE",
    "Column",
    "Html",
    "conditions_html",
    "Section",
    "embedded_figure",
    "escape",
    "format_number",
    "format_p_value",
    "heatmap_table",
    "html_table",
    "name_chips",
    "png_image",
    "render_page",
    "subgroups_table",
    "with_interval",
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
       color: #222; line-height: 1.4; overflow-wrap: break-word; }
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
.check { background: #fff4e5; border-left: 4px solid #e8a33d; padding: 0.4em 0.8em; max-width: 60em; }
.calibration { border-left: 4px solid #8a9bb0; padding: 0.4em 0.8em; max-width: 60em; }
.scroll { overflow-x: auto; max-width: 100%; }
.results table { width: 100%; }
.results th { cursor: pointer; position: sticky; top: 0; }
.results th[aria-sort=ascending]::after { content: " \\25B2"; }
.results th[aria-sort=descending]::after { content: " \\25BC"; }
.results td { white-space: nowrap; }
.results td.text { white-space: normal; min-width: 16em; }
.results tr.significant td { background: #fff1c2; }
.results tr.failure td { background: #ffd9d9; font-weight: 600; }
.results tr.failure td:first-child { box-shadow: inset 4px 0 #b00020; }
.also { color: #555; font-size: 0.9em; }
.controls { display: flex; gap: 1.5em; align-items: center; flex-wrap: wrap; }
.controls input[type=search] { width: 20em; padding: 0.2em; }
details.columns { font-size: 0.9em; }
details.columns label { display: inline-block; margin-right: 1em; white-space: nowrap; }
table.heatmap td { text-align: center; min-width: 4.5em; }
.headline { font-size: 1.1em; font-weight: 600; max-width: 60em; }
ul.findings { list-style: none; padding-left: 1em; }
ul.findings li { margin: 0.3em 0; max-width: 60em; }
.rank { font-weight: 600; color: #b00020; }
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
               (!significant || !significant.checked || row.classList.contains("significant")
                || row.classList.contains("failure"));
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
      if (!box.checked) { hidden.push('[data-col="' + CSS.escape(box.value) + '"]'); }
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


class Html(str):
    """Markup that the page inserts as it is; any other ``str`` is text and is escaped.

    ``Html("<p>{}</p>").format(name)`` escapes ``name`` (unless it is
    ``Html`` itself); ``+`` and :meth:`join` escape their plain-``str``
    operands the same way, so markup only grows by markup. Wrap only
    literals written in this package's code, never a value from the data.

    Examples
    --------
    >>> Html("<td>{}</td>").format("<b>x</b>")
    '<td>&lt;b&gt;x&lt;/b&gt;</td>'
    >>> Html("<p>") + "a & b" + Html("</p>")
    '<p>a &amp; b</p>'
    """

    __slots__ = ()

    def __add__(self, other):
        return Html(str.__add__(self, escape(other)))

    def __radd__(self, other):
        return Html(str.__add__(escape(other), self))

    def join(self, parts):
        """The parts (text escaped) joined by this markup."""
        return Html(str.join(self, map(escape, parts)))

    def format(self, *args, **kwargs):
        """This markup with its ``{}`` fields filled in, each escaped unless it is ``Html``."""
        return Html(_ESCAPING_FORMATTER.vformat(self, args, kwargs))


class _EscapingFormatter(string.Formatter):
    """``str.format`` that escapes each formatted field (``Html`` fields without a spec pass)."""

    def format_field(self, value, format_spec):
        if isinstance(value, Html) and not format_spec:
            return value
        return escape(format(value, format_spec))


_ESCAPING_FORMATTER = _EscapingFormatter()


#: ``&``, ``<``, ``>`` and ``"`` as entities: text is then inert both between tags and
#: inside an attribute (every attribute this module writes is double-quoted, so an
#: apostrophe can stay as it is and the page's source stays readable).
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def escape(value):
    """``value`` as HTML: ``Html`` as it is, anything else as escaped text.

    The one escaping function of the reports: every builder of this module
    passes each piece through it.

    >>> escape('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    if isinstance(value, Html):
        return value
    return Html(str(value).translate(_ENTITIES))


class Section(NamedTuple):
    """One section of a report page: a heading and its body.

    ``title`` and ``anchor`` (the section's ``id``, linked from the page's
    contents) are text; ``body`` is :class:`Html` (a plain ``str`` is shown
    as text).
    """

    title: str
    body: str
    anchor: str


class Column(NamedTuple):
    """A column of :func:`subgroups_table`.

    ``cell(record)`` returns the cell's content (text, escaped by
    :func:`subgroups_table`, or :class:`Html`) and the value it sorts by (a
    float, NaN if missing, or None to sort by its text); ``shown`` says
    whether the column is visible before the reader chooses; ``help`` is the
    header's tooltip. ``key``, ``header`` and ``help`` are text (a table
    column's or a class's name may be any string).
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


#: The longest condition a chip shows whole (a longer one is cut in its middle, whole in its tooltip).
CHIP_WIDTH = 60


def _chip(text):
    if len(text) <= CHIP_WIDTH:
        return Html('<span class="cond">{}</span>').format(text)
    return Html('<span class="cond" title="{}">{}</span>').format(text, clipped(text, CHIP_WIDTH))


def _chips(texts):
    return Html("").join(_chip(text) for text in texts)


def conditions_html(subgroup):
    """A description as one chip per condition (wrapping only between conditions)."""
    return _chips(condition_texts(subgroup) or ["whole data"])


def name_chips(name):
    """A readable group name (conditions joined by ``' & '``) as one chip per condition."""
    return _chips(str(name).split(" & "))


def with_interval(value, low, high):
    """A cell: ``value`` (text) with the interval ``[low, high]`` (text) in small grey type."""
    return Html('{} <span class="ci">[{}, {}]</span>').format(value, low, high)


def embedded_figure(figure, alt):
    """The figure as an ``<img>`` of a base64 SVG shown at :data:`DPI` (the figure is closed).

    Width and height are given, so the page shows the figure at the size it
    was drawn (or smaller on a narrow window), never blown up. Texts are SVG
    text that the browser draws (``svg.fonttype='none'``): matplotlib then
    neither rasterizes nor compresses, which made a forest plot of 100
    subgroups as PNG take seconds; the text stays sharp at any zoom. Inside
    an ``<img>``, an SVG runs no script and loads nothing.
    """
    import matplotlib
    import matplotlib.pyplot as plt  # imported by the plot functions

    buffer = io.BytesIO()
    width, height = (round(inches * DPI) for inches in figure.get_size_inches())
    try:
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "subroc-ext"}):
            figure.savefig(buffer, format="svg", metadata={"Date": None})
    finally:
        plt.close(figure)
    # the SVG's own size in pixels, the size it is shown at (matplotlib writes points: 4/3 px each,
    # and a browser would take the image as drawn smaller than shown)
    svg = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', rf'<svg\1 width="{width}px" height="{height}px"',
                 buffer.getvalue().decode("utf-8"), count=1)
    image = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return Html('<img alt="{}" width="{}" height="{}" src="data:image/svg+xml;base64,{}">').format(
        alt, width, height, image
    )


def png_image(data, alt):
    """PNG bytes as an ``<img>`` with its pixel width and height (read from the PNG header)."""
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    image = base64.b64encode(data).decode("ascii")
    return Html('<img alt="{}" width="{}" height="{}" src="data:image/png;base64,{}">').format(
        alt, width, height, image
    )


def html_table(header, rows, *, text_columns=1):
    """A plain table of formatted cells (text, escaped here, or :class:`Html`), the first columns text."""

    def cell(tag, index, value):
        css = Html(' class="text"') if index < text_columns else ""
        return Html("<{}{}>{}</{}>").format(Html(tag), css, value, Html(tag))

    def row(tag, values):
        return Html("<tr>{}</tr>").format(Html("").join(cell(tag, i, v) for i, v in enumerate(values)))

    return Html('<div class="scroll"><table><thead>{}</thead><tbody>{}</tbody></table></div>').format(
        row("th", header), Html("").join(row("td", values) for values in rows)
    )


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
    head = Html('<th class="text"></th>') + Html("").join(Html("<th>{}</th>").format(c) for c in frame.columns)
    body = []
    for i, (name, values) in enumerate(frame.iterrows()):
        cells = [Html('<td class="text">{}</td>').format(name_chips(name))]
        for j, value in enumerate(values):
            tip = "" if tooltips is None else Html(' title="{}"').format(tooltips.iat[i, j])
            if pd.isna(value):
                cells.append(Html("<td{}>–</td>").format(tip))
                continue
            shade = colors.to_hex(cmap((float(value) - vmin) / (vmax - vmin)))
            cells.append(Html('<td style="background:{}"{}>{}</td>').format(shade, tip, fmt.format(value)))
        body.append(Html("<tr>{}</tr>").format(Html("").join(cells)))
    return Html(
        '<div class="scroll"><table class="heatmap"><thead><tr>{}</tr></thead><tbody>{}</tbody></table></div>'
    ).format(head, Html("").join(body))


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

    text_css = {True: Html(' class="text"'), False: ""}

    def th(column):
        tip = Html(' title="{}"').format(column.help) if column.help else ""
        return Html('<th data-col="{}"{}{}>{}</th>').format(column.key, text_css[column.text], tip, column.header)

    body = []
    for _, record in shown_table.iterrows():
        cells = []
        for column in columns:
            content, value = column.cell(record)
            sort = "" if value is None else Html(' data-value="{!r}"').format(float(value))
            cells.append(Html('<td data-col="{}"{}{}>{}</td>').format(column.key, text_css[column.text], sort, content))
        parts = [record.get("description"), record.get("alternatives"),
                 *condition_texts(record.get("subgroup", record.get("description", "")))]  # fmt: skip
        searchable = " ".join(part for part in parts if isinstance(part, str) and part).lower()
        marks = [name for name in ("significant", "failure") if _flagged(record.get(name))]
        row_class = Html(' class="{}"').format(" ".join(marks)) if marks else ""
        body.append(Html('<tr{} data-text="{}">{}</tr>').format(row_class, searchable, Html("").join(cells)))
    grid = Html('<div class="scroll"><table><thead><tr>{}</tr></thead><tbody>{}</tbody></table></div>').format(
        Html("").join(th(c) for c in columns), Html("").join(body)
    )
    if not interactive:
        return grid
    chooser = Html("").join(
        Html('<label title="{}"><input type="checkbox" value="{}"{}> {}</label>').format(
            c.help, c.key, Html(" checked") if c.shown else "", c.header)
        for c in columns
    )  # fmt: skip
    significant = (
        Html('<label><input type="checkbox" class="significant-only"> significant only</label>')
        if "significant" in table.columns
        else ""
    )
    return Html("""<div class="results"><style></style>
<div class="controls"><label>Filter: <input type="search"
placeholder="words of the conditions, e.g. age married"></label>{}
<span class="count note"></span></div>
<details class="columns"><summary>Columns ({} of {}
shown; click a header to sort, again to reverse)</summary>{}</details>
{}</div>""").format(significant, sum(c.shown for c in columns), len(columns), chooser, grid)


def _flagged(value):
    """Whether a row's flag (``significant``, ``failure``: True, False or missing) is set."""
    return not pd.isna(value) and bool(value)


def render_page(title, summary, sections):
    """A complete, self-contained HTML page: title, summary, contents and sections.

    Parameters
    ----------
    title : str
        Plain text.
    summary : Html
        The paragraph under the title (a plain ``str`` is shown as text).
    sections : list of Section
        In order; empty bodies are left out.

    Returns
    -------
    Html
    """
    sections = [section for section in sections if section.body]
    contents = Html(" ").join(Html('<a href="#{}">{}</a>').format(s.anchor, s.title) for s in sections)
    parts = Html("\n").join(
        Html('<section id="{}"><h2>{}</h2>\n{}</section>').format(s.anchor, s.title, s.body) for s in sections
    )
    return Html("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style></head><body>
<h1>{title}</h1>
{summary}
<nav>{contents}</nav>
{parts}
<script>{script}</script>
</body></html>
""").format(title=title, style=Html(STYLE), summary=summary, contents=contents, parts=parts, script=Html(SCRIPT))
