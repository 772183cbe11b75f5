"""Text for a terminal: the data's control characters shown, never obeyed.

A value or a column name is the user's data, and data can hold characters a
terminal obeys rather than shows: ``ESC`` sequences that clear the screen,
move the cursor, recolour the text or set the window title (``"\\x1b[2J"``,
``"\\x1b]0;title\\x07"``), carriage returns that overwrite a line, and
Unicode's bidirectional controls (U+202E right-to-left override), which
reorder what follows them. :func:`visible` is the one place that turns text
bound for a terminal into text that shows each such character as its escape
(``\\x1b``, ``\\u202e``), as Python's ``repr`` does; the command line's
streams (:class:`~subroc_ext.cli.streams.GuardedStream`) pass everything
they write through it, keeping only the line breaks the program writes, and
the console formats the data's text through it before it prints (where a
newline in a value is the data's, not the program's).

Pure Python, no NumPy: the streams of ``--help`` load nothing else.
"""

import unicodedata

__all__ = ["LINE_WIDTH", "clipped", "escaped", "one_line", "visible"]


#: The escapes Python's ``repr`` writes for the usual whitespace controls.
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escaped(char):
    """``char`` as Python's ``repr`` writes it: ``\\n``, ``\\x1b``, ``\\u202e``, ``\\U000e0001``."""
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shown(char):
    """Whether a terminal shows ``char`` as itself: a printable character
    (``str.isprintable``: not a control, format, separator other than space,
    surrogate, private-use or unassigned character) or a space (U+00A0, ...)."""
    return char.isprintable() or unicodedata.category(char) == "Zs"


def visible(text, keep=""):
    """``text`` with every character a terminal would obey shown as its escape.

    Escaped are the C0 and C1 control characters and DEL (``ESC`` as
    ``\\x1b``, a tab as ``\\t``), the bidirectional controls (U+061C,
    U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and every other format
    character (zero-width joiners, ...), line and paragraph separators,
    surrogates, private-use and unassigned characters: everything
    ``str.isprintable`` rejects except spaces.

    Parameters
    ----------
    text : object
        The text (anything else as its ``str``).
    keep : str, default=''
        Characters written as they are: the program's own line breaks
        (``"\\n"``), never the data's.

    Returns
    -------
    str

    Examples
    --------
    >>> print(visible("\\x1b[2Jall good\\u202e"))
    \\x1b[2Jall good\\u202e
    >>> visible("two\\nlines"), visible("two\\nlines", keep="\\n")
    ('two\\\\nlines', 'two\\nlines')
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(char if char in keep or _shown(char) else escaped(char) for char in text)


#: The longest line :func:`one_line` gives (a message naming a column of 10,000 characters).
LINE_WIDTH = 2000


def one_line(text):
    """``text`` as one line for a terminal: its runs of whitespace (line
    breaks, tabs) as one space, then :func:`visible` (a warning's or an
    error's message, which may name a column), at most :data:`LINE_WIDTH`
    characters (:func:`clipped`)."""
    return clipped(visible(" ".join(str(text).split())), LINE_WIDTH)


def clipped(text, width):
    """``text`` cut in its middle to at most ``width`` characters, ``…`` where
    the cut is: its start and its end stay (a condition on a column named by
    10,000 characters keeps its operator and value), so that a line of the
    console or a cell of a report keeps its width. The files keep the full text.

    Examples
    --------
    >>> clipped("r" * 10_000 + "=='east'", 24)
    "rrrrrrrrrrrr…rrr=='east'"
    >>> clipped("age >= 38", 24)
    'age >= 38'
    """
    if len(text) <= width:
        return text
    end = (width - 1) // 2
    return text[: width - 1 - end] + "\u2026" + text[len(text) - end :]

