"""Figures laid out in one cheap pass: an axes placed so that the texts around it fit.

matplotlib's constrained layout measures every artist of a figure (each text
with its font, each line's path) in two passes before the figure is drawn, and
drawing measures the texts again: for the forest plot of 100 subgroups the
layout took twice as long as the drawing. A figure that knows which of its
artists lie outside its axes (a forest plot's names on the left, its sizes on
the right, the legend above, the x axis below) measures only those
(:func:`fit_axes`) and places the axes once; of a column of texts in one font
(a forest plot's 100 names) it measures only the few that may be the widest
(:func:`widest`: matplotlib lays out every glyph of a text to measure it, about
a millisecond a name).
"""

__all__ = ["PAD", "fit_axes", "widest"]

#: The margin around everything drawn, in inches: constrained layout's default.
PAD = 3 / 72


def fit_axes(ax, outside, pad=PAD):
    """Place ``ax`` so that the artists ``outside`` it fit into its figure, ``pad``
    inches from each edge, the axes as large as they allow.

    The artists are measured with the figure's renderer; artists anchored to the
    axes (texts at axes coordinates, a legend, the axes' own x axis) keep their
    offsets to the axes, so a second pass (with the texts' sizes cached) places
    the axes exactly. The figure gets no layout engine, so that nothing is laid
    out again when it is drawn.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    outside : sequence of matplotlib.artist.Artist
        Whatever lies beyond the axes' edges (e.g. ``ax.texts``, the legend,
        ``ax.xaxis``); each is measured with ``get_tightbbox``.
    pad : float, default=PAD

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.
    """
    from matplotlib.transforms import Bbox

    figure = ax.figure
    figure.set_layout_engine("none")
    renderer = figure.canvas.get_renderer()
    width, height = figure.bbox.width, figure.bbox.height
    margin = pad * figure.dpi
    for _ in range(2):
        box = ax.get_window_extent(renderer)
        drawn = Bbox.union([box, *(artist.get_tightbbox(renderer) for artist in outside)])
        left, bottom = box.x0 - drawn.x0 + margin, box.y0 - drawn.y0 + margin
        right, top = drawn.x1 - box.x1 + margin, drawn.y1 - box.y1 + margin
        ax.set_position([left / width, bottom / height, 1 - (left + right) / width, 1 - (bottom + top) / height])
    return ax


def widest(texts, slack=1.0):
    """The texts of ``texts`` (in one font and size) that may be the widest.

    Each text's width is estimated from its glyphs' advances (a table of the
    characters met, no layout); the texts within ``slack`` ems of the largest
    estimate are kept, one of those with the same advances and the same first and
    last characters (a forest plot's sizes, ``n=1,234 (5%)``). A drawn text is as
    wide as its advances but for its first and last glyphs' bearings and the
    kerning, well under half an em in one line of a name, so the widest text is
    among them, or one less than ``slack`` - 1 ems wider is.

    Parameters
    ----------
    texts : sequence of matplotlib.text.Text
    slack : float, default=1.0

    Returns
    -------
    list of matplotlib.text.Text
    """
    from matplotlib.font_manager import findfont, get_font
    from matplotlib.ft2font import LoadFlags

    if len({text.get_fontproperties() for text in texts}) != 1:  # none, or several fonts
        return list(texts)
    font = get_font(findfont(texts[0].get_fontproperties()))
    em = 12 * 65536  # at 12 points and 72 dpi an em is 12 pixels, in 16.16 fixed point
    font.set_size(12, 72)  # matplotlib sets its own size before each use of the font
    advances = {}

    def estimate(text):
        for char in set(text).difference(advances):
            advances[char] = font.load_char(ord(char), flags=LoadFlags.NO_HINTING).linearHoriAdvance
        return sum(advances[char] for char in text)

    kept = {}
    for text in texts:
        spelled = text.get_text()
        kept.setdefault((estimate(spelled), spelled[:1], spelled[-1:]), text)
    largest = max((width for width, _, _ in kept), default=0)
    return [text for (width, _, _), text in kept.items() if width >= largest - slack * em]
