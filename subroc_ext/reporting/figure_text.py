"""Text in figures: drawn as it is spelled, with glyphs the font has, in the room there is.

Every plotting function of subroc-ext returns its figure through
:func:`plain_text` (no mathtext, no LaTeX: ``$0-$25k`` is text), and every
name (a value, a column) enters a figure through :func:`shortened` (an axis
label, a title) or :func:`fitted` (a legend's line), both through
:func:`drawable`: its control characters, and the characters no font of the
figure has a glyph for, drawn as their escapes (``\\t``, ``\\x1b``,
``\\uff21``), never as a missing glyph with a "Glyph ... missing from
font(s)" warning; long names cut with an ellipsis, so that a legend stays in
its figure. matplotlib is imported only when a figure is drawn.
"""

import functools

from ..utils.terminal import escaped, visible
from .conditions import readable_description

__all__ = ["drawable", "fitted", "plain_text", "shortened", "wrapped_name"]


def plain_text(figure):
    """``figure`` with every text drawn as it is spelled: no mathtext, no LaTeX.

    matplotlib reads a text with two ``$`` as math (``revenue_$ & margin_$``
    stops the drawing with a ParseSyntaxException, ``$0-$25k`` is drawn as an
    italic "0−25k") and, under ``text.usetex``, hands it to LaTeX. Every
    plotting function of subroc-ext returns its figure through this one
    function: it turns both off for each text of the figure (titles, axis
    labels, tick labels, legends, annotations, colorbars). ``findobj`` walks
    each axis' ticks through ``get_major_ticks``, which creates the tick
    labels that matplotlib would otherwise create only when drawing.

    Parameters
    ----------
    figure : matplotlib.figure.Figure

    Returns
    -------
    matplotlib.figure.Figure
        The same figure.
    """
    from matplotlib.text import Text

    for text in figure.findobj(Text):
        text.set_parse_math(False)
        text.set_usetex(False)
    return figure


@functools.lru_cache(maxsize=8)
def _glyphs(files):
    """The code points the font ``files`` draw (any of them)."""
    from matplotlib.font_manager import get_font

    return frozenset().union(*(get_font(file).get_charmap() for file in files))


def _font_files():
    """The font files matplotlib draws a default text with: one per family of
    ``rcParams['font.family']`` it finds (it falls back from one to the next)."""
    from matplotlib.font_manager import FontProperties, findfont

    files = []
    for family in FontProperties().get_family():
        try:
            files.append(findfont(FontProperties(family=family), fallback_to_default=False))
        except ValueError:  # a family not installed
            continue
    return tuple(files) or (findfont(FontProperties()),)


def drawable(text):
    """``text`` as a figure can draw it: its control and format characters
    (:func:`~subroc_ext.utils.terminal.visible`), and every character that no
    font of the figure has a glyph for (matplotlib would draw a box and warn
    "Glyph ... missing from font(s)"), written as their escapes.

    Examples
    --------
    >>> drawable("a\\tb \\uff21 ≥ é")
    'a\\\\tb \\\\uff21 ≥ é'
    """
    text = visible(text)
    glyphs = _glyphs(_font_files())
    if all(ord(char) in glyphs for char in text):
        return text
    return "".join(char if ord(char) in glyphs else escaped(char) for char in text)


def wrapped_name(name, width):
    """A group name with one condition per line, each at most ``width`` characters
    (for axis labels and titles)."""
    return "\n".join(shortened(part, width) for part in readable_description(name).split(" & "))


def shortened(text, width):
    """``text`` as a figure can draw it (:func:`drawable`), cut to ``width``
    characters with an ellipsis (figures show the full description in the
    report's table): the way every name enters a figure."""
    text = drawable(text)
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def fitted(name, suffix, ax, size):
    """``name + suffix`` as one line of a legend below ``ax`` in font ``size``,
    the name (:func:`drawable`) cut with an ellipsis so that the line fits into
    the width of the figure right of the axes' left edge (measured with
    matplotlib's font metrics, glyph by glyph: a name of wide letters is cut
    shorter)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    prop, measure = FontProperties(size=size), TextToPath()
    points = ax.figure.get_figwidth() * 72 * (1 - ax.get_position().x0) - 60  # a legend's handle and margins

    def fits(text):
        return measure.get_text_width_height_descent(text + suffix, prop, ismath=False)[0] <= points

    # no spacing glyph is narrower than a sixth of the font size: the longest name that can fit
    text = drawable(name)[: int(points / (prop.get_size_in_points() / 6)) + 1]
    if fits(text):
        return text + suffix
    low, high = 0, len(text) - 1  # the longest prefix that fits with an ellipsis
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(text[:middle].rstrip() + "…") else (low, middle - 1)
    return text[:low].rstrip() + "…" + suffix
