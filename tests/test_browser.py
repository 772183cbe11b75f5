"""The reports in a real browser: headless Chromium at 1280 px.

Each report (binary, multi-class and a comparison of two models, made as the
demos make them, from the UCI Adult data, on fewer rows) is opened with a checking script appended
to a copy of the page (:func:`browser.run_checks`); Chromium runs it (``--dump-dom``) and the script writes
its findings as JSON into the page:

* no dialog and no script error from the first byte of the page to the end
  of the checks;
* the page is no wider than the 1280 px window (nothing scrolls sideways);
* every image has loaded (``complete`` with a natural width), and each is
  shown at most at the size it was drawn (no blown-up, blurred figure);
* the forest plot is there, before the table;
* clicking a header sorts the rows by that column (again: reversed);
* typing in the filter hides the rows without the words, and "significant
  only" keeps only the significant rows;
* ticking a column in the chooser shows that column's cells.

The test installs nothing: without Chromium it is skipped with the reason
(``.ci/run`` installs Debian's ``chromium`` where it can). Reports of hostile
names (script injection) are opened in ``test_html_safety.py``.

Looked at (screenshots at 1280 px of these reports and of the demo's, and
every embedded figure at its drawn size, on 2026-11-23): no cut or
overlapping text in the forest plot (5, 20 and 100 rows), the curves (legend
below the axes), the cross AUC heatmap (two short lines per 0.85-inch cell),
the diagnostics figure (shared labels, legends below the plots) or the
class-pair table; in the comparison report (Adult's two-model demo) the
forest plot of Δ, the table and the panels of both ROC curves (three per row,
titles of up to three lines, near-copies skipped).
"""

import pytest
from browser import WIDTH, needs_browser, run_checks

from subroc_ext import find_multiclass_subgroups, find_regressions, find_subgroups
from subroc_ext.demo import comparison as comparison_demos, datasets
from subroc_ext import write_comparison_report, write_multiclass_report, write_report
from subroc_ext.demo import modelling

pytest.importorskip("matplotlib")
pytestmark = [needs_browser, pytest.mark.extended]  # a headless browser per report (about 20 s)

#: Appended to a copy of the report: checks the page once it has loaded and
#: writes the findings into <pre id="browser-test">.
CHECKS = """
<script>
window.addEventListener("load", function () {
  var found = window.__found;
  var root = document.documentElement;
  found.window_width = window.innerWidth;
  found.page_width = root.scrollWidth;
  var images = Array.prototype.slice.call(document.images);
  found.images = images.length;
  found.images_loaded = images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  found.images_blown_up = images.filter(function (i) {
    return i.getBoundingClientRect().width > i.naturalWidth + 0.5;
  }).length;
  var forest = document.querySelector('img[alt="forest plot"]');
  var table = document.querySelector("div.results table");
  found.forest_before_table = !!forest && !!table &&
    !!(forest.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING);
  var headers = table.tHead.rows[0].cells;
  var sizeColumn = Array.prototype.findIndex.call(headers, function (th) {
    return th.getAttribute("data-col").indexOf("size_") === 0;
  });
  function column(index) {
    return Array.prototype.map.call(table.tBodies[0].rows, function (row) {
      return parseFloat(row.cells[index].getAttribute("data-value"));
    });
  }
  headers[sizeColumn].click();
  found.sorted_ascending = column(sizeColumn);
  headers[sizeColumn].click();
  found.sorted_descending = column(sizeColumn);
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var filter = document.querySelector("div.results input[type=search]");
  var word = rows[rows.length - 1].querySelector(".cond").textContent.split(" ")[0].toLowerCase();
  filter.value = word;
  filter.dispatchEvent(new Event("input"));
  found.filter_word = word;
  found.rows_with_word = rows.filter(function (r) { return r.getAttribute("data-text").indexOf(word) >= 0; }).length;
  found.rows_shown = rows.filter(function (r) { return !r.hidden && r.offsetHeight > 0; }).length;
  found.count_text = document.querySelector("div.results .count").textContent;
  filter.value = "";
  filter.dispatchEvent(new Event("input"));
  var significant = document.querySelector("div.results input.significant-only");
  significant.click();
  found.significant_rows = rows.filter(function (r) { return r.classList.contains("significant"); }).length;
  found.shown_significant_only = rows.filter(function (r) { return !r.hidden; }).length;
  significant.click();
  var quality = document.querySelector('details.columns input[value="quality"]');
  var cell = table.tBodies[0].rows[0].querySelector('td[data-col="quality"]');
  found.hidden_column_displayed = getComputedStyle(cell).display !== "none";
  quality.click();
  found.chosen_column_displayed = getComputedStyle(cell).display !== "none";
  found.page_width_with_column = root.scrollWidth;
  var out = document.createElement("pre");
  out.id = "browser-test";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>
"""


def browser_checks(report, tmp_path):
    """Open ``report`` (with :data:`CHECKS`) in headless Chromium at 1280 px; the findings."""
    return run_checks(report, CHECKS, tmp_path)


def assert_page_works(found, n_rows):
    assert found["dialogs"] == [] and found["errors"] == []
    assert found["window_width"] == WIDTH
    assert found["page_width"] <= WIDTH and found["page_width_with_column"] <= WIDTH
    assert found["images"] >= 1 and found["images_loaded"] == found["images"]
    assert found["images_blown_up"] == 0
    assert found["forest_before_table"]
    assert found["sorted_ascending"] == sorted(found["sorted_ascending"])
    assert found["sorted_descending"] == sorted(found["sorted_ascending"], reverse=True)
    assert len(found["sorted_ascending"]) == n_rows
    assert 1 <= found["rows_with_word"] == found["rows_shown"]
    assert found["count_text"] == f"{found['rows_shown']} of {n_rows} subgroups shown"
    assert found["shown_significant_only"] == found["significant_rows"]
    assert not found["hidden_column_displayed"] and found["chosen_column_displayed"]


@pytest.fixture(scope="module")
def adult():
    """A demo on 8,000 Adult rows: train, search and validation quarters (2,000 each)."""
    pytest.importorskip("threadpoolctl")
    return modelling.split_parts(datasets.load_adult().iloc[:8000], 4, random_state=0)


def test_binary_report_in_the_browser(adult, tmp_path):
    train, search, validation, _ = adult
    search, validation = modelling.fit_and_score(train, "income", ">50K", search, validation)
    table = find_subgroups(
        search, label="income", score="score", positive_label=">50K", validation=validation,
        size_weight=1.0, balance_weight=1.0, depth=2, min_support=20, result_set_size=40,
        n_samples=200, random_state=0, progress=False,
    )  # fmt: skip
    files = write_report(table, validation, tmp_path / "report", label="income", score="score",
                         positive_label=">50K", search=search)  # fmt: skip
    assert_page_works(browser_checks(files.html, tmp_path), len(table))


def test_multiclass_report_in_the_browser(tmp_path):
    pytest.importorskip("threadpoolctl")
    frame = datasets.load_adult_marital_status().iloc[:8000]
    train, search, validation, _ = modelling.split_parts(frame, 4, random_state=0)
    columns, (search, validation) = modelling.fit_and_score_multiclass(
        train, "marital", search, validation, prefix=""
    )
    table = find_multiclass_subgroups(
        search, label="marital", score_columns=list(columns), validation=validation, depth=2,
        result_set_size=30, n_samples=200, random_state=0, progress=False,
    )  # fmt: skip
    files = write_multiclass_report(table, validation, tmp_path / "report")
    found = browser_checks(files.html, tmp_path)
    assert_page_works(found, len(table))
    page = files.html.read_text(encoding="utf-8")
    assert "married vs never-married" in page and 'id="class-pairs"' in page


def test_comparison_report_in_the_browser(tmp_path):
    pytest.importorskip("threadpoolctl")
    search, validation = comparison_demos.two_models(
        datasets.load_adult().iloc[:8000], "income", ">50K", comparison_demos.DROPPED
    )
    table = find_regressions(
        search, label="income", score="new", baseline="baseline", positive_label=">50K",
        validation=validation, depth=2, result_set_size=30, n_samples=200, random_state=0,
        progress=False,
    )  # fmt: skip
    files = write_comparison_report(table, validation, tmp_path / "report")
    found = browser_checks(files.html, tmp_path)
    assert_page_works(found, len(table))
    assert 'alt="ROC curves of both sides of the top subgroups"' in files.html.read_text(encoding="utf-8")


#: The page's width, and each element wider than the window (tag and class).
WIDTH_CHECKS = """
<script>
window.addEventListener("load", function () {
  var found = window.__found;
  found.page_width = document.documentElement.scrollWidth;
  // beyond the window's right edge, and not inside a box that scrolls sideways
  // (a table of many columns scrolls in its own .scroll box: the box must fit)
  found.too_wide = Array.prototype.filter.call(document.querySelectorAll("body *"), function (e) {
    var box = e.parentElement && e.parentElement.closest(".scroll");
    return e.getBoundingClientRect().right > window.innerWidth + 0.5 && !box;
  }).map(function (e) { return e.tagName + "." + e.className; }).slice(0, 5);
  found.scrolled = document.querySelectorAll(".scroll").length;
  // and no cell of the results is widened by the name: it is cut short
  found.widest_text = Math.max.apply(null, Array.prototype.map.call(
    document.querySelectorAll("#subgroups td.text"), function (e) { return e.getBoundingClientRect().width; }));
  var out = document.createElement("pre");
  out.id = "browser-test";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>
"""


def test_a_10000_character_column_name_stays_inside_the_page(tmp_path):
    # issue 59: a column name of 10,000 characters ran off the report's right edge
    from synthetic import scored_frame

    name = "r" * 10_000
    search, validation = (scored_frame(seed, n=1000).rename(columns={"region": name}) for seed in (0, 1))
    table = find_subgroups(search, label="y", score="p", validation=validation, depth=2, result_set_size=10,
                           n_samples=100, random_state=0, progress=False)  # fmt: skip
    assert table["description"].str.contains(name).any()
    files = write_report(table, validation, tmp_path / "report", label="y", score="p", search=search)
    found = run_checks(files.html, WIDTH_CHECKS, tmp_path)
    assert found["errors"] == [] and found["too_wide"] == [] and found["page_width"] <= WIDTH
    assert found["scrolled"] >= 1  # the results table's own box, which fits (it is checked above)
    assert 0 < found["widest_text"] <= WIDTH / 2, found["widest_text"]
