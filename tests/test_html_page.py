"""The report page's pieces: formats, figures at their drawn size, sections, tables."""

import base64
import math

import numpy as np
import pandas as pd
import pytest

from subroc_ext.reporting.page import (
    Column,
    Section,
    embedded_figure,
    format_number,
    format_p_value,
    heatmap_table,
    render_page,
    subgroups_table,
)

plt = pytest.importorskip("matplotlib.pyplot")


def test_one_p_value_format_two_significant_digits_never_scientific():
    values = (9.999e-05, 0.0005726, 0.0027, 0.04123, 0.5, 1.0, 0.0, np.nan)
    assert [format_p_value(p) for p in values] == [
        "0.00010", "0.00057", "0.0027", "0.041", "0.50", "1.0", "0", "–",
    ]  # fmt: skip
    for p in np.geomspace(1e-6, 1, 50):  # the text reads back as p to two digits
        text = format_p_value(p)
        assert "e" not in text and float(text) == pytest.approx(p, rel=0.05)


def test_number_format():
    assert [format_number(v) for v in (1234567, np.int64(5), 0.123456, np.nan, True, None)] == [
        "1,234,567", "5", "0.1235", "–", "yes", "–",
    ]  # fmt: skip


def test_figures_are_embedded_at_their_drawn_size():
    figure = plt.figure(figsize=(4.5, 2.0))
    figure.text(0.5, 0.5, "<b>text & more</b>")
    tag = embedded_figure(figure, 'a "quoted" figure')
    assert 'width="450" height="200"' in tag and 'alt="a &quot;quoted&quot; figure"' in tag
    assert tag.startswith("<img ") and "data:image/svg+xml;base64," in tag
    data = base64.b64decode(tag.split("base64,")[1].split('"')[0]).decode()
    assert data.startswith("<?xml") and "<svg " in data
    # the text is text for the browser to draw, escaped
    assert "&lt;b&gt;text &amp; more&lt;/b&gt;</text>" in data and "<b>" not in data
    assert not plt.fignum_exists(figure.number)  # closed (other tests' figures are theirs)


def test_page_lists_its_non_empty_sections():
    page = render_page("A <title>", "<p>summary</p>", [
        Section("First", "<p>one</p>", "first"), Section("Empty", "", "empty"),
        Section("Second", "<p>two</p>", "second"),
    ])  # fmt: skip
    assert "<title>A &lt;title&gt;</title>" in page
    assert '<a href="#first">First</a> <a href="#second">Second</a>' in page
    assert 'id="empty"' not in page and page.index('id="first"') < page.index('id="second"')
    assert '<meta name="viewport"' in page and "max-width: 80em" in page


def test_table_cells_carry_sort_values_and_hidden_columns_are_chosen():
    table = pd.DataFrame({"description": ["a=='x'", "b=='<y>'"], "n": [3, 10], "significant": [True, False]})
    columns = [
        Column("description", "conditions", lambda r: (r["description"], None), text=True),
        Column("n", "n", lambda r: (str(r["n"]), float(r["n"]))),
        Column("hidden", "more", lambda r: ("x", math.nan), shown=False),
    ]
    html = subgroups_table(table, columns)
    assert '<td data-col="n" data-value="10.0">10</td>' in html
    assert '<td data-col="hidden" data-value="nan">x</td>' in html
    assert '<input type="checkbox" value="hidden"> more' in html and 'value="n" checked>' in html
    assert html.count('<tr class="significant"') == 1 and "data-text=\"b=='&lt;y&gt;' b = &lt;y&gt;\"" in html
    static = subgroups_table(table, columns, interactive=False, rows=1)
    assert "hidden" not in static and static.count("<tr") == 2  # header and one row


def test_heatmap_cells_are_coloured_with_tooltips():
    frame = pd.DataFrame([[0.0, np.nan], [1.0, 0.5]], index=["#1 a = x & b < 2", "all"], columns=["p", "q"])
    tips = pd.DataFrame([["t1", "t2"], ["t3", "t4"]])
    html = heatmap_table(frame, tooltips=tips)
    assert '<td style="background:#a50026" title="t1">0.000</td>' in html  # RdYlGn at 0
    assert '<td style="background:#006837" title="t3">1.000</td>' in html  # and at 1
    assert '<td title="t2">–</td>' in html
    assert '<span class="cond">#1 a = x</span><span class="cond">b &lt; 2</span>' in html
