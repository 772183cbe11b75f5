"""Figures laid out once (reporting.layout) and the plotting stack imported beside the work (reporting.preload)."""

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from test_plotting import forest_table  # noqa: E402

from subroc_ext import plot_forest  # noqa: E402
from subroc_ext.reporting.layout import PAD, fit_axes, widest  # noqa: E402
from subroc_ext.reporting.preload import preload_plotting  # noqa: E402


def names_table(names):
    """A forest table of one row per name, the names as its descriptions."""
    table = forest_table(len(names)).drop(columns="subgroup")
    table["description"] = names
    return table


def test_the_widest_text_is_among_the_few_measured():
    """Of 60 names the estimate keeps a few, and the widest drawn one is among them,
    though narrow letters make a name of more characters the narrower one."""
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    names = ["".join(rng.choice(list("iljt.WMmw@ _=<≥"), rng.integers(5, 40))) for _ in range(60)]
    names += ["i" * 45, "W" * 30]  # most characters, narrowest; fewer characters, widest
    figure, ax = plt.subplots()
    texts = [ax.text(0, 0, name, fontsize="small") for name in names]
    renderer = figure.canvas.get_renderer()
    widths = [text.get_window_extent(renderer).width for text in texts]
    kept = widest(texts)
    assert len(kept) < 10 and texts[int(np.argmax(widths))] in kept
    assert texts[-2] not in kept  # 45 i's: the most characters, far from the widest
    # equal advances, the same first and last characters: measured once
    sizes = [ax.text(0, 0, f"n={n:,} ({n / 9000:.0%})", fontsize="small") for n in range(100, 9000, 100)]
    # of 89: one per advance within an em of the widest (a digit and a comma are 0.95 em)
    assert [text.get_text() for text in widest(sizes)] == ["n=900 (10%)", "n=1,000 (11%)"]
    plt.close(figure)


def test_an_empty_forest_plot_is_drawn():
    """No row: nothing beside the axes to measure (it raised IndexError)."""
    figure = plot_forest(names_table([]), n_rows=10)
    assert not figure.axes[0].texts and figure.get_figheight() == pytest.approx(1.3 + 0.27)
    assert widest([]) == []


@pytest.mark.parametrize("rows", [1, 20, 100])
def test_the_forest_plot_is_laid_out_once_with_every_text_inside(rows):
    """The forest plot has no layout engine (nothing is measured again when it is
    drawn); its names, sizes, legend and x axis lie inside the figure, the
    widest of them PAD from the edges."""
    names = [f"#{i} " + "x = 1 & " * (i % 7) + "long_column_name ≥ 12,345" for i in range(rows)]
    table = names_table(names)
    figure = plot_forest(table, top=None, n_rows=10_000)
    assert figure.get_layout_engine() is None
    renderer = figure.canvas.get_renderer()
    (ax,) = figure.axes
    boxes = [artist.get_window_extent(renderer) for artist in [*ax.texts, ax.get_legend()]]
    boxes.append(ax.xaxis.get_tightbbox(renderer))
    margin = PAD * figure.dpi
    x0, x1 = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
    y0, y1 = min(b.y0 for b in boxes), max(b.y1 for b in boxes)
    assert x0 == pytest.approx(margin, abs=0.5) and figure.bbox.width - x1 == pytest.approx(margin, abs=0.5)
    assert y0 == pytest.approx(margin, abs=0.5) and figure.bbox.height - y1 == pytest.approx(margin, abs=0.5)


def test_fit_axes_keeps_a_figure_of_ones_own_as_it_is():
    """A forest plot drawn into one's own axes leaves their place and layout alone."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(layout="constrained")
    position = ax.get_position().bounds
    plot_forest(names_table(["a", "b"]), ax=ax)
    assert figure.get_layout_engine() is not None and ax.get_position().bounds == position
    plt.close(figure)
    figure, ax = plt.subplots()
    ax.set_xlabel("x")
    assert fit_axes(ax, [ax.xaxis]) is ax and figure.get_layout_engine() is None
    plt.close(figure)


def test_preload_imports_pyplot_in_a_thread_and_leaves_errors_to_the_drawing(monkeypatch):
    thread = preload_plotting()
    assert thread.daemon
    thread.join(timeout=60)
    assert not thread.is_alive() and "matplotlib.pyplot" in sys.modules
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # not installed: the thread ends quietly
    thread = preload_plotting()
    thread.join(timeout=60)
    assert not thread.is_alive()


WARN_WHILE_PRELOADING = """
import sys, time, warnings
shown = []
warnings.showwarning = lambda message, *rest: shown.append(str(message))
warnings.simplefilter("always")
from subroc_ext.reporting.preload import preload_plotting
thread = preload_plotting()
sent = 0
while thread.is_alive():
    warnings.warn(f"warning {sent}")
    sent += 1
    time.sleep(0.0002)
thread.join()
print(sent, sent - len(set(shown)))
"""


def test_warnings_raised_while_preloading_reach_their_handler():
    """The main thread's warnings while the plotting stack is imported beside it
    reach the command's handler, none taken by matplotlib's style reader (it
    records warnings with ``warnings.catch_warnings(record=True)``, global
    state, and logs them as problems of a style file). A fresh interpreter, so
    that matplotlib is not imported yet."""
    process = subprocess.run([sys.executable, "-c", WARN_WHILE_PRELOADING], capture_output=True, text=True,
                             timeout=300, check=True)  # fmt: skip
    sent, lost = map(int, process.stdout.split())
    assert sent > 0 and lost == 0, process.stderr
