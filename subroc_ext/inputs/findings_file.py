"""``findings.json`` read back: a result's findings as a program gets them.

:mod:`subroc_ext.reporting.findings_json` writes the file beside
``subgroups.csv``; its layout is the JSON Schema
``subroc_ext/data/findings.schema.json`` (:func:`findings_schema`), versioned
by ``schema_version`` (:data:`SCHEMA_VERSION`; a reader refuses a version it
does not know). Here it is read back (:func:`read_findings`: read once,
checked against the schema with :mod:`subroc_ext.utils.json_schema`, each
message naming the file and the key) and turned into a table with each
subgroup rebuilt from its conditions (:func:`findings_table`), as
:func:`~subroc_ext.recheck` applies them to new data. A finding's
``description`` must be what its conditions say: an edited file cannot show
one subgroup's name with another's numbers.
"""

import functools
import json
from importlib import resources

import pandas as pd
import pysubgroup as ps

from ..utils.descriptions import describe
from ..utils.json_schema import first_error, key_path, shown_json
from .condition_records import condition_from_record, decode_value, subgroup_from_records

__all__ = ["MAX_BYTES", "MAX_DEPTH", "SCHEMA_VERSION", "FindingsDocument", "findings_schema", "findings_table",
           "read_findings"]  # fmt: skip

#: The version of the layout of ``findings.json`` this release writes and reads:
#: raised whenever a field changes meaning or is removed (a new field keeps it).
SCHEMA_VERSION = 1

#: The fields every document has.
_REQUIRED = ("schema_version", "tool", "kind", "settings", "data", "headline", "findings")

#: The largest file read (a findings.json of 10,000 findings is about 20 MB).
MAX_BYTES = 256 * 2**20

#: How deep a document nests at most (its own layout: 7 levels).
MAX_DEPTH = 32


class FindingsDocument(dict):
    """A ``findings.json`` document as :func:`read_findings` checked it: the
    document (a dict), and ``where``, how messages name it (``findings file
    'audit/findings.json'``). :func:`read_findings` returns one as it is, so a
    document read once is never checked again."""

    def __init__(self, document, where):
        super().__init__(document)
        self.where = where


def findings_schema():
    """The JSON Schema of ``findings.json`` (a dict), from the package's data."""
    return json.loads(_schema_text())


@functools.cache
def _schema_text():
    return resources.files("subroc_ext").joinpath("data/findings.schema.json").read_text(encoding="utf-8")


@functools.cache
def _schema():
    """The schema :func:`read_findings` checks with (read once; not to be changed)."""
    return findings_schema()


def read_findings(source):
    """A ``findings.json`` document, read once and checked against its schema.

    Checked: the JSON Schema (:func:`findings_schema`: every key's type and
    range, e.g. ``settings.interval_level`` in (0, 1); ``true`` is no number),
    the ``schema_version``, each condition rebuilt (a bound of the kind its
    ``domain`` compares, its printed ``value_text`` that bound), and each
    finding's ``description`` being what its conditions say.

    Parameters
    ----------
    source : str, pathlib.Path, dict or FindingsDocument
        The file (read once: a pipe such as ``/dev/stdin`` works), a document
        already parsed, or one this function returned (returned as it is).

    Returns
    -------
    FindingsDocument

    Raises
    ------
    ValueError
        The file cannot be read or is not JSON, or the document breaks its
        schema: one message naming the file, the key and what is wrong
        (``findings file 'f.json': key 'settings.interval_level': 7 is not in (0, 1)``).
    FileNotFoundError
        No such file.
    """
    if isinstance(source, FindingsDocument):
        return source
    where = "findings document" if isinstance(source, dict) else f"findings file '{source}'"
    document = source if isinstance(source, dict) else _parsed(_read_once(source, where), where)
    if not isinstance(document, dict):
        raise ValueError(f"{where}: expected a JSON object, got {shown_json(document)}")
    missing = [name for name in _REQUIRED if name not in document]
    if missing:
        raise ValueError(f"{where} has no {', '.join(missing)} (is it a findings.json of subroc-ext?)")
    version = document["schema_version"]
    if not isinstance(version, bool) and isinstance(version, (int, float)) and version != SCHEMA_VERSION:
        raise ValueError(
            f"{where} has schema_version {version!r}; this release reads version "
            f"{SCHEMA_VERSION} (write it again with this release)"
        )
    _check_depth(document, where)
    error = first_error(document, _schema())
    if error is not None:
        raise ValueError(_at_key(where, *error))
    _check_findings(document, where)
    return FindingsDocument(document, where)


def _at_key(where, path, problem):
    """The one line of a problem at a key."""
    if not path:
        return f"{where}: {problem}"
    return f"{where}: key '{key_path(path)}'{' ' if problem.startswith('is ') else ': '}{problem}"


def _read_once(source, where):
    """The bytes of the file, read once (at most :data:`MAX_BYTES`)."""
    try:
        with open(source, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise FileNotFoundError(f"{where} not found") from None
    except IsADirectoryError:
        raise ValueError(f"{where} is a directory, not a findings.json") from None
    except OSError as error:  # a symbolic link loop, no permission, ...
        raise ValueError(f"cannot read {where}: {error.strerror or error}") from None
    if len(data) > MAX_BYTES:
        raise ValueError(f"{where} is larger than {MAX_BYTES // 2**20} MB (is it a findings.json?)")
    return data


def _parsed(data, where):
    """The JSON of ``data``; NaN and Infinity parse (the schema refuses them by key)."""
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{where} is not UTF-8 text (is it a findings.json?)") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{where} is not JSON: {error}") from None
    except RecursionError:
        raise ValueError(f"{where} nests deeper than {MAX_DEPTH} levels (is it a findings.json?)") from None


def _check_depth(document, where):
    """Refuse a document nested deeper than :data:`MAX_DEPTH` (without recursion)."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"{where} nests deeper than {MAX_DEPTH} levels (is it a findings.json?)")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children)


def _check_findings(document, where):
    """What the schema cannot say: each condition rebuilt, each description its conditions'."""
    try:
        decode_value(document["settings"].get("positive_label"))
    except (ValueError, TypeError, OverflowError) as error:
        raise ValueError(_at_key(where, ("settings", "positive_label"), str(error))) from None
    for rank, finding in enumerate(document["findings"]):
        conditions = []
        for position, record in enumerate(finding["conditions"]):
            try:
                condition = condition_from_record(record)
            except (ValueError, TypeError, OverflowError) as error:
                raise ValueError(_at_key(where, ("findings", rank, "conditions", position), str(error))) from None
            if str(condition) != record["text"]:
                raise ValueError(_at_key(where, ("findings", rank, "conditions", position, "text"),
                                         f"{record['text']!r} is not the condition's text {str(condition)!r}"))
            conditions.append(condition)
        said = describe(ps.Conjunction(conditions))
        if finding["description"] != said:
            raise ValueError(_at_key(where, ("findings", rank, "description"),
                                     f"{finding['description']!r} is not what its conditions say ({said!r}); "
                                     "was the file edited?"))  # fmt: skip


def findings_table(document):
    """The findings of a document as a table, each subgroup rebuilt from its conditions.

    Parameters
    ----------
    document : dict
        As :func:`read_findings` returns it.

    Returns
    -------
    pandas.DataFrame
        One row per finding, in the order of the result: ``subgroup`` (a
        ``pysubgroup.Conjunction`` of the conditions), ``description``,
        ``delta``, ``delta_ci_low``, ``delta_ci_high`` (NaN where there is
        none), ``significant``, ``verdict`` and ``failure`` (named as one by
        the headline).
    """
    rows = [
        {
            "subgroup": subgroup_from_records(finding["conditions"]),
            "description": finding["description"],
            "delta": finding["effect"]["delta"],
            "delta_ci_low": finding["effect"]["ci_low"],
            "delta_ci_high": finding["effect"]["ci_high"],
            "significant": finding["significant"],
            "verdict": finding["verdict"],
            "failure": finding["failure"],
        }
        for finding in document["findings"]
    ]
    columns = ["subgroup", "description", "delta", "delta_ci_low", "delta_ci_high", "significant", "verdict",
               "failure"]  # fmt: skip
    table = pd.DataFrame(rows, columns=columns)
    for name in ("delta", "delta_ci_low", "delta_ci_high"):
        table[name] = table[name].astype(float)  # null: NaN
    return table
