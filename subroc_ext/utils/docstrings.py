"""Text that several docstrings share: one parameter list, written once.

A docstring holds a line ``{name}`` where a shared part goes;
:func:`insert_parts` replaces it by the part, indented as that line. Python
3.13 removes a docstring's common indentation when it compiles it and older
versions keep it, so a part loses its common indentation (it is written
as a block, as inside a docstring) and gets the placeholder's indentation,
whichever it is.
"""

import re
import textwrap

__all__ = ["insert_parts"]

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", flags=re.MULTILINE)


def insert_parts(docstring, **parts):
    """``docstring`` with each line that is only ``{name}`` replaced by ``parts[name]``.

    Parameters
    ----------
    docstring : str
    **parts : str
        Blocks of text; the common indentation of their lines and the blank
        lines around them are removed.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        A placeholder names no part.

    Examples
    --------
    >>> part = '''
    ...     size : int
    ...         Rows.
    ... '''
    >>> print(insert_parts("Parameters\\n    ----------\\n    {size}\\n", size=part))
    Parameters
        ----------
        size : int
            Rows.
    <BLANKLINE>
    """

    def indented(match):
        indentation, lines = match.group(1), textwrap.dedent(parts[match.group(2)]).strip("\n").split("\n")
        return "\n".join(indentation + line if line.strip() else "" for line in lines)

    return _PLACEHOLDER.sub(indented, docstring)
