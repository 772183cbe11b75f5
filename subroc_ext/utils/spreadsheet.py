"""CSV files that a spreadsheet opens as data, never as formulas.

A spreadsheet program runs a cell that starts with ``=``, ``+``, ``-`` or
``@`` (or a tab or carriage return) as a formula ("CSV injection", OWASP):
a category value ``=HYPERLINK("http://…", "click")`` becomes a link, a
description ``-0.23 <= x < 0.229`` an error. Every CSV file subroc-ext
writes goes through :func:`write_csv`, which puts an apostrophe (the sign
spreadsheets read as "this cell is text") before each such *text* cell and
column name. Numbers are never changed: numeric columns are left as they
are, and so is text that is a plain decimal number (``-5``, ``+1.5e3``),
which a spreadsheet reads as that number. Read back with pandas, a changed
cell keeps its apostrophe: ``.str.removeprefix("'")`` removes it.

References
----------
.. [1] OWASP, "CSV Injection", https://owasp.org/www-community/attacks/CSV_Injection
"""

import re

import pandas as pd

__all__ = ["FORMULA_STARTS", "spreadsheet_text", "spreadsheet_safe", "write_csv"]

#: A text cell starting with one of these is a formula to a spreadsheet.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_text(value):
    """``value`` with an apostrophe in front if a spreadsheet would run it as a formula.

    Only strings change, and only those starting with one of
    :data:`FORMULA_STARTS` that are not a plain decimal number.

    Examples
    --------
    >>> [spreadsheet_text(v) for v in ["=1+1", "-0.23 <= x < 0.229", "@SUM(A1)", "age < 30", "-5", -5]]
    ["'=1+1", "'-0.23 <= x < 0.229", "'@SUM(A1)", 'age < 30', '-5', -5]
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_safe(frame):
    """A copy of ``frame`` whose text cells and column names :func:`spreadsheet_text` has made safe.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        Numeric and boolean columns unchanged (also columns of equal names,
        which are handled by position).
    """
    safe = frame.copy(deep=False)
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if not pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_datetime64_any_dtype(column):
            safe.isetitem(position, column.astype(object).map(spreadsheet_text))
    safe.columns = [spreadsheet_text(name) for name in frame.columns]
    return safe


def write_csv(frame, path):
    """Write ``frame`` (without its index) as CSV to ``path``, safe to open in a spreadsheet.

    Parameters
    ----------
    frame : pandas.DataFrame
    path : str or pathlib.Path

    Examples
    --------
    >>> write_csv(pd.DataFrame({"description": ["-1 <= x < 2"], "delta": [-0.5]}), tmp / "t.csv")  # doctest: +SKIP
    >>> print((tmp / "t.csv").read_text())  # doctest: +SKIP
    description,delta
    '-1 <= x < 2,-0.5
    """
    spreadsheet_safe(frame).to_csv(path, index=False)
