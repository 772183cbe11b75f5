"""No script injection: hostile names reach every page as text, never as markup.

Column names, category values, class names, label values, score columns, a
table's extra column, an attrs entry, the title and the split's name are all
payloads (:data:`PAYLOADS`: tags with event handlers, a ``<script>``, a
quote that leaves an attribute, an ``</style></script>`` escape, a CSS
selector breaker and text that looks like an entity). Every page (single
model, multi-class by the API and by the CLI's ``--score-columns``, two
models compared, drift, and the notebook view) is then

* parsed: only the tags, attributes and one script the page builders write,
  every image an embedded PNG, every link an anchor, and each payload shown
  as it is spelled (in the text or an attribute's value);
* opened in headless Chromium (:mod:`browser`) with a listener, installed
  before the page's first byte, that records every dialog and script error
  while a script clicks every header twice, types every payload into the
  filter and toggles every column of the chooser (whose cells must hide and
  show again): none may occur. A deliberately injected page shows that the
  listener sees both.
"""

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from browser import needs_browser, run_checks
from synthetic import multiclass_frame, scored_frame

import subroc_ext
from subroc_ext.cli import main
from subroc_ext.reporting import page as page_module

pytest.importorskip("matplotlib")

PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(2)</script>",
    '"><svg onload=alert(3)>',
    "'><b onmouseover=alert(4)>x",
    "</style></script><script>alert(5)</script>",
    'k"]{} *{color:red}',
    "x & y &lt;z&gt;",
]
#: Every tag and attribute the page builders write.
TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "nav", "a", "section",
        "div", "table", "thead", "tbody", "tr", "th", "td", "span", "img", "details", "summary", "label",
        "input", "code", "em", "strong", "sup", "sub", "ul", "li", "script"}  # fmt: skip
ATTRIBUTES = {"lang", "charset", "name", "content", "href", "id", "class", "style", "title", "alt",
              "width", "height", "src", "type", "value", "checked", "placeholder", "data-col",
              "data-value", "data-text"}  # fmt: skip
SETTINGS = {"depth": 2, "result_set_size": 8, "n_samples": 50, "random_state": 0, "progress": False}


def hostile_audit(seed, n=1200):
    """:func:`synthetic.scored_frame` with every name and category value a payload
    (the label ``PAYLOADS[3]``, positive value ``PAYLOADS[6]``; the score ``PAYLOADS[4]``)."""
    frame = scored_frame(seed, n=n)
    frame["region"] = frame["region"].map(dict(zip(["north", "south", "east", "west"], PAYLOADS)))
    frame["plan"] = frame["plan"].map({"basic": PAYLOADS[4], "premium": PAYLOADS[5]})
    frame["y"] = np.where(frame["y"] == 1, PAYLOADS[6], "negative")
    names = {"region": PAYLOADS[0], "plan": PAYLOADS[1], "age": PAYLOADS[2], "y": PAYLOADS[3], "p": PAYLOADS[4]}
    return frame.rename(columns=names)


def hostile_multiclass(seed):
    """:func:`synthetic.multiclass_frame` with payload attribute names, values, classes and score columns."""
    frame, _ = multiclass_frame(seed, n=900)
    classes = dict(zip(["low", "mid", "high"], PAYLOADS[:3]))
    frame["grade"] = frame["grade"].map(classes)
    frame["a0"] = frame["a0"].map(dict(zip("pq", PAYLOADS[5:7])))
    names = {f"p_{name}": PAYLOADS[3 + i] for i, name in enumerate(classes)}
    return frame.rename(columns={**names, "a0": PAYLOADS[6], "a1": PAYLOADS[0]}), {
        classes[name]: names[f"p_{name}"] for name in classes
    }


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """``{kind: path of report.html}`` of every kind of page, made from hostile data."""
    out = tmp_path_factory.mktemp("hostile")
    label, score, positive = PAYLOADS[3], PAYLOADS[4], PAYLOADS[6]
    search, validation = hostile_audit(0), hostile_audit(1)
    table = subroc_ext.find_subgroups(search, label=label, score=score, positive_label=positive,
                                      validation=validation, **SETTINGS)  # fmt: skip
    assert len(table) > 3 and PAYLOADS[0] in table["description"].iloc[0]
    table[PAYLOADS[5]] = 1.0  # an extra column: a key and header of the column chooser
    table.attrs[PAYLOADS[0]] = PAYLOADS[1]
    found = {"single": subroc_ext.write_report(
        table, validation, out / "single", label=label, score=score, positive_label=positive,
        title=PAYLOADS[2], search=search, split=PAYLOADS[1]).html}  # fmt: skip
    (out / "notebook").mkdir()
    view = table.subroc._repr_html_()
    found["notebook"] = out / "notebook" / "report.html"
    found["notebook"].write_text(page_module.render_page("view", "", [page_module.Section("view", view, "v")]))

    frame, score_columns = hostile_multiclass(2)
    multiclass = subroc_ext.find_multiclass_subgroups(frame, label="grade", score_columns=score_columns,
                                                      **SETTINGS)  # fmt: skip
    assert len(multiclass) > 3
    found["multiclass"] = subroc_ext.write_multiclass_report(multiclass, frame, out / "multiclass",
                                                             title=PAYLOADS[0]).html  # fmt: skip

    classes = ["<script>alert(6)</script>", "</style></script><script>alert(7)</script>", "x & y &lt;z&gt;"]
    cli_frame, _ = multiclass_frame(3, n=900)
    cli_frame = cli_frame.rename(columns=dict(zip(["p_low", "p_mid", "p_high"], classes)))
    cli_frame["grade"] = cli_frame["grade"].map(dict(zip(["low", "mid", "high"], classes)))
    cli_frame.to_csv(out / "multiclass.csv", index=False)
    code = main(["run", str(out / "multiclass.csv"), "--label", "grade", "--score-columns", ",".join(classes),
                 "--samples", "50", "--top", "8", "--depth", "2", "--quiet", "--out", str(out / "cli")])  # fmt: skip
    assert code == 0
    found["cli-multiclass"] = out / "cli" / "report.html"

    both = hostile_audit(4, n=2400)
    both[PAYLOADS[5]] = np.clip(both[score] + np.random.default_rng(0).normal(0, 0.1, len(both)), 0, 1)
    compared = subroc_ext.find_regressions(both, label=label, score=score, baseline=PAYLOADS[5],
                                           positive_label=positive, **SETTINGS)  # fmt: skip
    held = both.iloc[len(both) // 2:]  # fmt: skip
    compared[PAYLOADS[0]] = 2.0
    found["compare"] = subroc_ext.write_comparison_report(compared, held, out / "compare", title=PAYLOADS[1]).html

    reference, current = hostile_audit(5), hostile_audit(6)
    drift = subroc_ext.find_drift(reference, current, label=label, score=score, positive_label=positive,
                                  validation=(hostile_audit(7), hostile_audit(8)), **SETTINGS)  # fmt: skip
    drift[PAYLOADS[5]] = 3.0
    found["drift"] = subroc_ext.write_comparison_report(drift, hostile_audit(7), out / "drift",
                                                        current=hostile_audit(8)).html  # fmt: skip
    return found


class ParsedPage(HTMLParser):
    """The start tags, attributes, scripts and text (entities decoded) of a page."""

    def __init__(self, page):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.scripts, self.text = [], [], [], []
        self._in_script = False
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend((tag, name, value) for name, value in attrs)
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.text).append(data)


KINDS = ["single", "notebook", "multiclass", "cli-multiclass", "compare", "drift"]
#: The payloads each page must show (default: all); the notebook view has only the top
#: subgroups' conditions, the CLI's classes are named on the command line.
SHOWN = {"notebook": PAYLOADS[:1], "cli-multiclass": ["<script>alert(6)</script>", "x & y &lt;z&gt;"]}


@pytest.mark.parametrize("kind", KINDS)
def test_payloads_are_text_in_every_page(pages, kind):
    page = pages[kind].read_text(encoding="utf-8")
    parsed = ParsedPage(page)
    assert set(parsed.tags) <= TAGS, set(parsed.tags) - TAGS
    names = {name for _, name, _ in parsed.attributes}
    assert names <= ATTRIBUTES, names - ATTRIBUTES
    assert parsed.scripts == [page_module.SCRIPT] and parsed.tags.count("script") == 1
    for tag, name, value in parsed.attributes:
        if name == "src":
            # an image, inert: an SVG inside <img> runs no script and loads nothing
            assert tag == "img" and re.match(r"data:image/(png|svg\+xml);base64,", value)
        if name == "href":
            assert re.fullmatch(r"#[a-z-]+", value)
        if name == "style":
            assert re.fullmatch(r"background:#[0-9a-f]{6}", value)
    shown = "\n".join(parsed.text + [value or "" for _, _, value in parsed.attributes])
    for payload in SHOWN.get(kind, PAYLOADS):
        assert payload in shown, payload  # shown as it is spelled


def test_every_builder_escapes_text_and_passes_markup():
    Html, payload = page_module.Html, PAYLOADS[0]
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    assert page_module.escape(payload) == escaped and page_module.escape(Html("<b>")) == "<b>"
    assert Html("<td>{}</td>").format(payload) == f"<td>{escaped}</td>"
    assert Html("<td>{!r}</td>").format('"') == "<td>&#x27;&quot;&#x27;</td>".replace("&#x27;", "'")
    assert Html("<p>") + payload == f"<p>{escaped}" and payload + Html("<p>") == f"{escaped}<p>"
    assert Html("<br>").join([payload, Html("<i>")]) == f"{escaped}<br><i>"
    column = page_module.Column(payload, PAYLOADS[1], lambda r: (PAYLOADS[2], 1.0), help=PAYLOADS[5])
    table = page_module.subgroups_table(pd.DataFrame({"description": [PAYLOADS[4]]}), [column])
    assert "<img" not in table and "<script" not in table and "<svg" not in table
    page = page_module.render_page(payload, payload, [page_module.Section(payload, payload, payload)])
    assert "<img" not in page and page.count("<script>") == 1
    assert "<img" not in page_module.html_table([payload], [[payload]])
    assert "<img" not in page_module.heatmap_table(
        pd.DataFrame([[0.5]], index=[payload], columns=[payload]), tooltips=pd.DataFrame([[payload]]))


def test_only_the_page_module_escapes():
    """One place: the other report modules build markup through page.Html, never html.escape."""
    import pathlib

    folder = pathlib.Path(page_module.__file__).parent
    for path in folder.glob("*.py"):
        if path.name != "page.py":
            source = path.read_text(encoding="utf-8")
            assert "import html" not in source and "escape(" not in source, path.name


#: Appended to a copy of a hostile page: exercises every control, then reports.
EXERCISE = """
<script>
window.addEventListener("load", function () {
  var found = window.__found;
  found.tables = 0;
  found.chooser = [];
  document.querySelectorAll("div.results").forEach(function (box) {
    found.tables += 1;
    var table = box.querySelector("table");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) { th.click(); th.click(); });
    var filter = box.querySelector("input[type=search]");
    PAYLOADS.forEach(function (payload) {
      filter.value = payload;
      filter.dispatchEvent(new Event("input"));
    });
    filter.value = "";
    filter.dispatchEvent(new Event("input"));
    box.querySelectorAll("details.columns input").forEach(function (input) {
      var cells = Array.prototype.slice.call(
        table.querySelectorAll('[data-col="' + CSS.escape(input.value) + '"]'));
      function shown() {
        return cells.filter(function (c) { return getComputedStyle(c).display !== "none"; }).length;
      }
      var before = shown();
      input.click();
      var toggled = shown();
      input.click();
      found.chooser.push({key: input.value, cells: cells.length, before: before, toggled: toggled,
                          after: shown(), checked: input.checked});
    });
  });
  var out = document.createElement("pre");
  out.id = "browser-test";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>
"""


@needs_browser
@pytest.mark.parametrize("kind", KINDS)
def test_no_dialog_and_no_script_error_in_the_browser(pages, kind, tmp_path):
    import json

    # "</" as "<\/" inside the script: "</script>" in a payload would end it
    checks = EXERCISE.replace("PAYLOADS.forEach", json.dumps(PAYLOADS).replace("</", "<\\/") + ".forEach")
    found = run_checks(pages[kind], checks, tmp_path)
    assert found["dialogs"] == [] and found["errors"] == []
    assert found["tables"] == (0 if kind == "notebook" else 1)
    for column in found["chooser"]:
        assert column["cells"] >= 2, column  # header and at least one row
        hidden, shown = (0, column["cells"])
        assert (column["before"], column["toggled"]) == ((shown, hidden) if column["checked"] else (hidden, shown))
        assert column["after"] == column["before"], column
    if kind == "single":
        assert PAYLOADS[5] in {column["key"] for column in found["chooser"]}


@needs_browser
def test_the_listener_sees_an_injected_script(tmp_path):
    """The browser checks can fail: a page with a raw payload and a throwing script is caught."""
    (tmp_path / "bad").mkdir()
    bad = tmp_path / "bad" / "report.html"
    bad.write_text(page_module.render_page("bad", page_module.Html(
        PAYLOADS[0] + '<script>throw new Error("boom")</script>'), []))  # fmt: skip
    found = run_checks(bad, EXERCISE.replace("PAYLOADS", "[]"), tmp_path)
    assert found["dialogs"] == ["alert: 1"] and found["errors"] == ["Uncaught Error: boom"]
