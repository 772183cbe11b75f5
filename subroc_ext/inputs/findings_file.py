"""``findings.json`` read back: a result's findings as a program gets them.

:mod:`subroc_ext.reporting.findings_json` writes the file beside
``subgroups.csv``; its layout is the JSON Schema
``subroc_ext/data/findings.schema.json`` (:func:`findings_schema`), versioned
by ``schema_version`` (:data:`SCHEMA_VERSION`; a reader refuses a version it
does not know). Here it is read back (:func:`read_findings`) and turned into
a table with each subgroup rebuilt from its conditions
(:func:`findings_table`), as :func:`~subroc_ext.recheck` applies them to new
data.
"""

import json
from importlib import resources
from pathlib import Path

import pandas as pd

from .condition_records import subgroup_from_records

__all__ = ["SCHEMA_VERSION", "findings_schema", "findings_table", "read_findings"]

#: The version of the layout of ``findings.json`` this release writes and reads:
#: raised whenever a field changes meaning or is removed (a new field keeps it).
SCHEMA_VERSION = 1

#: The fields every document has.
_REQUIRED = ("schema_version", "tool", "kind", "settings", "data", "headline", "findings")


def findings_schema():
    """The JSON Schema of ``findings.json`` (a dict), from the package's data."""
    text = resources.files("subroc_ext").joinpath("data/findings.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def read_findings(source):
    """A ``findings.json`` document, checked for the fields and the version this release reads.

    Parameters
    ----------
    source : str, pathlib.Path or dict
        The file, or a document already read.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        The file is not JSON, misses a field, or has another ``schema_version``
        (each message names the file and the problem).
    FileNotFoundError
        No such file.
    """
    where = "findings document" if isinstance(source, dict) else f"findings file '{source}'"
    if isinstance(source, dict):
        document = source
    else:
        try:
            document = json.loads(Path(source).read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ValueError(f"{where} is not JSON: {error}") from None
        except UnicodeDecodeError:
            raise ValueError(f"{where} is not UTF-8 text (is it a findings.json?)") from None
    if not isinstance(document, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(document).__name__}")
    missing = [name for name in _REQUIRED if name not in document]
    if missing:
        raise ValueError(f"{where} has no {', '.join(missing)} (is it a findings.json of subroc-ext?)")
    if document["schema_version"] != SCHEMA_VERSION:
        raise ValueError(
            f"{where} has schema_version {document['schema_version']!r}; this release reads version "
            f"{SCHEMA_VERSION} (write it again with this release)"
        )
    return document


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
