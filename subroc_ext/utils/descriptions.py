"""Subgroup descriptions: the one writer and the one reader of condition texts.

A description says exactly one thing: its conditions, joined by ``' AND '``
(``occupation=='Transport-moving' AND relationship=='Husband'``), each written
so that no column name or value can forge another condition.

- A text value is quoted with ``'`` and escaped as in Python's ``repr``: the
  quote and the backslash get a backslash (``a=='b\\' AND c==\\'d'`` is one
  condition), and characters that print as nothing or move the text
  (control characters, U+202E and other format characters, line breaks) are
  written visibly (``\\x1b``, ``\\n``, ``\\u202e``). Ordinary values are
  written as they are.
- A column name that is not a plain name (letters, digits and ``_``, not
  starting with a digit; ``-`` and ``.`` inside, as in ``marital-status``) is
  quoted with backticks, as pandas' ``DataFrame.query`` does, with the same
  escapes (`` `a AND b`=='x' ``).
- Numbers are written as numbers (``grade==4``, ``age < 38``), exactly.

Conditions are sorted by their text, so the same conditions in any order get
the same description. :func:`describe` writes a pysubgroup description,
:func:`condition_text` one condition (also in the readable notation of the
reports: ``age ≥ 38``, ``sex = Female``); :func:`split_conditions`,
:func:`parse_condition` and :func:`literal_value` read them back, and
:func:`join_descriptions` / :func:`split_descriptions` write and read the
``'; '``-joined lists of the ``alternatives`` and ``near_copies`` columns.
"""

import math
import re
from typing import NamedTuple

import pysubgroup as ps

__all__ = [
    "AND",
    "ParsedCondition",
    "condition_text",
    "describe",
    "join_descriptions",
    "literal_value",
    "name_text",
    "parse_condition",
    "selector_text",
    "split_conditions",
    "split_descriptions",
    "value_text",
]

#: Between the conditions of a description.
AND = " AND "
#: Between the descriptions of a list (``alternatives``, ``near_copies``).
LIST_SEPARATOR = "; "
#: The description of the whole data (pysubgroup's).
WHOLE_DATA = "Dataset"

_PLAIN_NAME = re.compile(r"[^\W\d](?:[\w.\-]*\w)?")
_PLAIN_VALUE = re.compile(r"[\w.:+\-/]+")
_NAMED_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
#: What a value shown unquoted in the readable notation may not hold: quotes,
#: separators, spaces at its ends; a name may not hold an operator either.
_NOT_READABLE_VALUE = re.compile(r"['\"`\\]|\s(?:AND|&)\s|;|^\s|\s$")
_NOT_READABLE_NAME = re.compile(rf"{_NOT_READABLE_VALUE.pattern}|[=<>≤≥≠!]")


def _escaped(text, quote):
    """``text`` between ``quote`` characters, escaped as Python's ``repr`` does."""
    out = []
    for char in text:
        if char in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[char])
        elif char == quote:
            out.append("\\" + char)
        elif not char.isprintable():
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    return quote + "".join(out) + quote


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)
_UNESCAPED = {"n": "\n", "t": "\t", "r": "\r"}


def _unescaped(quoted):
    """The text of a quoted token (its quotes removed, its escapes read)."""

    def one(match):
        code = match.group(1)
        return chr(int(code[1:], 16)) if len(code) > 1 else _UNESCAPED.get(code, code)

    return _ESCAPE.sub(one, quoted[1:-1])


def _exact_number(value):
    """A number as written in a description: ``4`` for 4.0, else the shortest exact text."""
    value = float(value)
    return f"{value:.0f}" if value.is_integer() and abs(value) < 1e15 else repr(value)


def _rounded_number(value):
    """A number as shown in a readable text: ``114`` rather than ``114.0``, 6 digits."""
    value = float(value)
    return f"{value:.0f}" if value.is_integer() and abs(value) < 1e15 else f"{value:g}"


def name_text(name, readable=False):
    """A column name as written: as it is if plain, else in escaped backticks.

    In the readable notation (``readable=True``) any name without quotes,
    operators, separators or invisible characters is shown as it is.

    Examples
    --------
    >>> name_text("age"), name_text("a AND b"), name_text("hours per week", readable=True)
    ('age', '`a AND b`', 'hours per week')
    """
    text = str(name)
    if _PLAIN_NAME.fullmatch(text) or (readable and _is_readable(text, _NOT_READABLE_NAME)):
        return text
    return _escaped(text, "`")


def _is_readable(text, refused=_NOT_READABLE_VALUE):
    return bool(text) and text.isprintable() and not refused.search(text)


def value_text(value, readable=False, exact=False):
    """A value of a column as written after ``==``.

    Text is quoted and escaped (``'east'``, ``'b\\' AND c==\\'d'``); booleans
    and numbers are written as such (``True``, ``4`` for 4.0, ``0.25``);
    other objects as their text, quoted unless it is a plain word
    (``2021-03``). ``exact=True`` adds the type of such an object
    (``Period('2021-03')``), for two values of one column written alike.
    ``readable=True``: text without quotes, operators, separators or
    invisible characters is shown as it is (``sex = Female``), a float
    with 6 significant digits (``mtr = 0.7215``).

    Examples
    --------
    >>> value_text("east"), value_text(4.0), value_text("b' AND c=='d")
    ("'east'", '4', "'b\\\\' AND c==\\\\'d'")
    """
    if isinstance(value, str):
        return value if readable and _is_readable(value) else _escaped(value, "'")
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):  # a mass point of a float column: 6 digits to read, all to parse
        return _rounded_number(value) if readable else _exact_number(value)
    text = str(value)
    if exact:
        return f"{type(value).__name__}({_escaped(text, chr(39))})"
    if _PLAIN_VALUE.fullmatch(text) or (readable and _is_readable(text)):
        return text
    return _escaped(text, "'")


#: Readable signs of the written operators.
_SIGNS = {"<": "<", ">=": "≥", "==": "=", "!=": "≠"}


def condition_text(name, op, operands=(), readable=False):
    """One condition, written (or, ``readable=True``, in the reports' notation).

    Parameters
    ----------
    name : object
        The column.
    op : str
        ``'value'`` (``column == operands[0]``, a value of the column;
        ``'exact value'``: written with its type, :func:`value_text`),
        ``'missing'``, ``'not missing'``, ``'isnull'`` (pysubgroup's
        ``column.isnull()``), ``'<'``, ``'>='``, ``'=='``, ``'!='`` (against
        ``operands[0]``, a bound's text), ``'range'`` (``operands``: the
        lower and upper bound's texts), ``'interval'`` (pysubgroup's
        ``[lower:upper[``, numbers, ``±inf`` for none).
    operands : tuple
    readable : bool, default=False

    Returns
    -------
    str

    Examples
    --------
    >>> condition_text("age", "range", ("38", "52")), condition_text("age", ">=", ("38",), readable=True)
    ('38 <= age < 52', 'age ≥ 38')
    """
    written = name_text(name, readable)
    if op in ("value", "exact value"):
        if readable:
            return f"{written} = {value_text(operands[0], readable=True)}"
        return f"{written}=={value_text(operands[0], exact=op == 'exact value')}"
    if op in ("missing", "not missing") or (op == "isnull" and readable):
        return f"{written} is {'not ' if op == 'not missing' else ''}missing"
    if op == "isnull":
        return f"{written}.isnull()"
    if op in _SIGNS:
        return f"{written} {_SIGNS[op] if readable else op} {operands[0]}"
    if op == "range":
        low, high = operands
        return f"{low} {'≤' if readable else '<='} {written} < {high}"
    if op == "interval":
        return _interval_text(written, *operands, readable)
    raise ValueError(f"unknown condition operator {op!r}")


def _interval_text(written, low, high, readable):
    """pysubgroup's interval ``[low:high[`` (``age<45``, ``age>=30``, ``age: [30:45[``)."""
    if readable:
        if math.isinf(low) and math.isinf(high):
            return f"{written} is not missing"
        if math.isinf(low):
            return f"{written} < {_rounded_number(high)}"
        if math.isinf(high):
            return f"{written} ≥ {_rounded_number(low)}"
        return f"{_rounded_number(low)} ≤ {written} < {_rounded_number(high)}"
    if math.isinf(low) and not math.isinf(high):
        return f"{written}<{_exact_number(high)}"
    if math.isinf(high) and not math.isinf(low):
        return f"{written}>={_exact_number(low)}"
    return f"{written}: [{_exact_number(low)}:{_exact_number(high)}["


def selector_text(selector, readable=False):
    """One selector's condition: a condition of
    :func:`~subroc_ext.make_search_space` (its ``parts``), pysubgroup's
    equality, interval and negated selectors, or any other selector's ``str``."""
    parts = getattr(selector, "parts", None)
    if parts is not None:
        return condition_text(*parts, readable=readable)
    if isinstance(selector, ps.EqualitySelector):
        value = selector.attribute_value
        missing = isinstance(value, float) and math.isnan(value)
        return condition_text(selector.attribute_name, "isnull" if missing else "value", (value,), readable)
    if isinstance(selector, ps.IntervalSelector):
        bounds = (float(selector.lower_bound), float(selector.upper_bound))
        return condition_text(selector.attribute_name, "interval", bounds, readable)
    if isinstance(selector, ps.NegatedSelector):
        inner = selector_text(selector._selector, readable)
        return f"not ({inner})" if readable else f"NOT {inner}"
    return str(selector)


def describe(subgroup):
    """The description of a subgroup: its conditions written, sorted and
    joined by ``' AND '`` (``'Dataset'`` without conditions).

    Parameters
    ----------
    subgroup : pysubgroup description or selector
        A ``ps.Conjunction`` (anything with ``selectors``); anything else is
        written as its ``str``.

    Returns
    -------
    str
    """
    selectors = getattr(subgroup, "selectors", None)
    if selectors is None:
        return str(subgroup)
    return AND.join(sorted(selector_text(s) for s in selectors)) or WHOLE_DATA


# --------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------

_QUOTED = r"'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`"


def _split(text, separator):
    """``text`` split at ``separator`` wherever it is outside quotes."""
    parts, start = [], 0
    for match in re.finditer(rf"{_QUOTED}|(?P<sep>{re.escape(separator)})", text, re.DOTALL):
        if match.group("sep"):
            parts.append(text[start : match.start()])
            start = match.end()
    return [*parts, text[start:]]


def split_conditions(description):
    """The conditions of a written description (none for the whole data)."""
    return [] if description in ("", WHOLE_DATA) else _split(description, AND)


def join_descriptions(descriptions):
    """Descriptions joined by ``'; '`` (the ``alternatives`` column)."""
    return LIST_SEPARATOR.join(descriptions)


def split_descriptions(joined):
    """The descriptions of a ``'; '``-joined list (none if empty)."""
    return _split(joined, LIST_SEPARATOR) if joined else []


class ParsedCondition(NamedTuple):
    """A condition read back: the column's name, the operator of
    :func:`condition_text`, and its operands (``'value'``: the value read,
    :func:`literal_value`; ``'interval'``: floats; otherwise the texts)."""

    name: str
    op: str
    operands: tuple = ()

    def text(self, readable=False):
        """The condition written again (:func:`condition_text`)."""
        return condition_text(self.name, self.op, self.operands, readable)


_NAME = rf"(?P<name>`(?:[^`\\]|\\.)*`|{_PLAIN_NAME.pattern})"
_NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf)"
_BOUND = r"[^<>=`'\\\n]+?"
_FORMS = [
    (re.compile(rf"(?P<a>{_BOUND}) <= {_NAME} < (?P<b>{_BOUND})", re.DOTALL), "range"),
    (re.compile(rf"{_NAME}\.isnull\(\)", re.DOTALL), "isnull"),
    (re.compile(rf"{_NAME} is missing", re.DOTALL), "missing"),
    (re.compile(rf"{_NAME} is not missing", re.DOTALL), "not missing"),
    (re.compile(rf"{_NAME}==(?P<a>{_QUOTED}|[^\s'`].*)", re.DOTALL), "value"),
    (re.compile(rf"{_NAME} (?P<op><|>=|==|!=) (?P<a>{_BOUND})", re.DOTALL), "compared"),
    (re.compile(rf"{_NAME}: \[(?P<a>{_NUMBER}):(?P<b>{_NUMBER})\[", re.DOTALL), "interval"),
    (re.compile(rf"{_NAME}<(?P<b>{_NUMBER})", re.DOTALL), "interval"),
    (re.compile(rf"{_NAME}>=(?P<a>{_NUMBER})", re.DOTALL), "interval"),
]


def literal_value(text):
    """A value as written after ``==``: text (quoted), a boolean, a number, or the text as is."""
    if text[:1] == "'" and re.fullmatch(_QUOTED, text, re.DOTALL):
        return _unescaped(text)
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def parse_condition(text):
    """A written condition read back, or None if it is in no notation of :func:`condition_text`.

    Examples
    --------
    >>> parse_condition("`a AND b`=='x\\\\'y'")
    ParsedCondition(name='a AND b', op='value', operands=("x'y",))
    >>> parse_condition("38 <= age < 52")
    ParsedCondition(name='age', op='range', operands=('38', '52'))
    """
    for pattern, op in _FORMS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        name = match["name"]
        name = _unescaped(name) if name[:1] == "`" else name
        groups = match.groupdict()
        if op == "value":
            return ParsedCondition(name, op, (literal_value(match["a"]),))
        if op == "compared":
            return ParsedCondition(name, match["op"], (match["a"],))
        if op == "range":
            return ParsedCondition(name, op, (match["a"], match["b"]))
        if op == "interval":
            low, high = groups.get("a") or "-inf", groups.get("b") or "inf"
            return ParsedCondition(name, op, (float(low), float(high)))
        return ParsedCondition(name, op)
    return None
