"""``findings.json``: a result as a release pipeline reads it.

The console and the HTML report are for people; a pipeline needs the same
answer as data. :func:`findings_document` turns a result table into one JSON
object whose layout is versioned (``schema_version``,
:data:`~subroc_ext.inputs.findings_file.SCHEMA_VERSION`) and described by
the JSON Schema ``subroc_ext/data/findings.schema.json``:

* ``tool``: ``{"name": "subroc-ext", "version": ...}``;
* ``kind``: ``single`` (one model), ``paired`` (``compare``) or ``drift``;
* ``settings``: the search's and the test's settings (measure, mode, label,
  score, alpha, method, intervals, interval_level, min_delta, ...);
* ``data``: rows and positives of each split, and the measures on the whole
  of each (``whole``);
* ``headline``: the headline's text and ``failures``, the ranks of the rows
  it calls failures (:func:`~subroc_ext.reporting.findings.failure_rows`;
  a gate fails exactly when this is not empty);
* ``findings``: one object per row of the table, in its order: ``rank``,
  ``description``, ``conditions`` (column, operator, value: the condition
  objects as data, :mod:`subroc_ext.inputs.condition_records`), ``effect``
  (``delta``, ``ci_low``, ``ci_high``), ``p_value``, ``p_value_corrected``,
  ``p_value_exact``, ``significant``, ``verdict``, ``verdict_note``,
  ``failure``, ``flags`` (``range_restricted``, ``complement_of``,
  ``testable``, where the table has them) and ``columns`` (every other
  column of the table: nothing of ``subgroups.csv`` is left out).

Numbers that are not defined (NaN) are ``null``: the file is strict JSON.
"""

import json

import numpy as np
import pandas as pd

from ..inputs.condition_records import encode_value, subgroup_records
from ..inputs.findings_file import SCHEMA_VERSION
from ..utils.atomic import atomic_path
from ..utils.names import VERSION
from ..utils.validation import positive_mask
from .findings import failure_rows, headline, result_kind

__all__ = ["FINDINGS_FILE", "findings_document", "findings_json", "json_records", "write_findings"]

#: The file's name beside ``subgroups.csv``.
FINDINGS_FILE = "findings.json"

#: The table's columns that a finding holds as its own fields, not under ``columns``.
_STRUCTURED = {
    "subgroup", "description", "delta", "delta_ci_low", "delta_ci_high", "p_value", "p_value_corrected",
    "p_value_exact", "significant", "verdict", "verdict_note", "range_restricted", "complement_of",
    "testable",
}  # fmt: skip

#: The flags of a finding, where the table has them.
_FLAGS = ("range_restricted", "complement_of", "testable")

#: Attributes of a result that are data, counts or notes rather than settings.
_NOT_SETTINGS = {"dataset_values", "n_rows", "counts", "search_space", "null_samples_drawn", "probabilities",
                 "whole_calibration", "global_fix"}


def _json_safe(value):
    """``value`` (a setting: a scalar, or a list or dict of them) as JSON; what
    JSON cannot hold as a value is written as its text."""
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    try:
        return encode_value(value)
    except TypeError:
        return str(value)


def _cell(value):
    """One cell of the table as JSON (``pd.NA``, NaN: null)."""
    return None if pd.isna(value) else encode_value(value.item() if isinstance(value, np.generic) else value)


def json_records(table):
    """The rows of ``table`` as a list of dicts of JSON values (NaN and missing: None),
    every float as it is (``DataFrame.to_json`` rounds to 10 digits)."""
    return [{str(name): _cell(value) for name, value in record.items()} for record in table.to_dict("records")]


def _splits_summary(splits, attrs):
    """Rows and positives of each split (``positives`` null without a positive label)."""
    label, positive = attrs.get("label"), attrs.get("positive_label")
    summary = {}
    for name, frame in splits.items():
        positives = None
        if positive is not None and label in frame.columns:
            positives = int(positive_mask(frame[label], positive, label).sum())
        summary[name] = {"rows": len(frame), "positives": positives}
    return summary


def _finding(rank, record, failures):
    """One row of the table as a finding."""
    effect = {"delta": _cell(record.get("delta", record.get("statistic", np.nan))),
              "ci_low": _cell(record.get("delta_ci_low", np.nan)),
              "ci_high": _cell(record.get("delta_ci_high", np.nan))}  # fmt: skip
    return {
        "rank": rank,
        "description": str(record["description"]),
        "conditions": subgroup_records(record["subgroup"]),
        "effect": effect,
        **{name: _cell(record.get(name, np.nan)) for name in (
            "p_value", "p_value_corrected", "p_value_exact", "significant", "verdict", "verdict_note")},
        "failure": rank in failures,
        "flags": {name: _cell(record[name]) for name in _FLAGS if name in record},
        "columns": {name: _cell(value) for name, value in record.items() if name not in _STRUCTURED},
    }  # fmt: skip


def findings_document(table, *, splits=None):
    """A result table as the ``findings.json`` document (see the module notes).

    Parameters
    ----------
    table : pandas.DataFrame
        A ``find_subgroups``, ``find_regressions`` or ``find_drift`` table
        with its ``attrs`` (multi-class tables too: no positives).
    splits : dict of str to pandas.DataFrame, optional
        The data of each split (``{"search": ..., "validation": ...}``), for
        the rows and positives of ``data.splits``; without it, the rows from
        the table's ``attrs`` (``n_rows``) and no positives.

    Returns
    -------
    dict
        Strict JSON: ``json.dumps(document, allow_nan=False)`` writes it.

    Examples
    --------
    >>> import subroc_ext, numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west", "north"], 900),
    ...                      "label": rng.integers(0, 2, 900)})
    >>> data["score"] = np.where(data["region"] == "east", rng.random(900),
    ...                          0.5 * data["label"] + 0.5 * rng.random(900))
    >>> table = subroc_ext.find_subgroups(data, label="label", score="score", depth=1,
    ...                                   progress=False)
    >>> document = findings_document(table)
    >>> document["headline"]["failures"], document["findings"][0]["conditions"]
    ([1], [{'column': 'region', 'operator': '==', 'value': 'east', 'text': "region=='east'"}])
    """
    attrs = table.attrs
    failures = {position + 1 for position in failure_rows(table.reset_index(drop=True)).index}  # ranks
    records = table.to_dict("records")
    splits_summary = (
        _splits_summary(splits, attrs) if splits is not None
        else {name: {"rows": int(rows), "positives": None} for name, rows in attrs.get("n_rows", {}).items()}
    )  # fmt: skip
    said = headline(table)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "subroc-ext", "version": VERSION},
        "kind": result_kind(table),
        "settings": {key: _json_safe(value) for key, value in attrs.items() if key not in _NOT_SETTINGS},
        "data": {"splits": splits_summary, "whole": _json_safe(attrs.get("dataset_values", {})),
                 **({"calibration": {**_json_safe(attrs["whole_calibration"]), "text": said.calibration}}
                    if attrs.get("whole_calibration") else {})},  # fmt: skip
        "search": _json_safe({key: attrs[key] for key in ("counts", "search_space", "null_samples_drawn",
                                                          "probabilities") if key in attrs}
                             | ({"global_fix": attrs["global_fix"]["description"]} if attrs.get("global_fix")
                                else {})),  # fmt: skip
        "headline": {"summary": said.summary, "text": said.text(),
                     "failures": sorted(failures)},  # fmt: skip
        "findings": [_finding(rank, record, failures) for rank, record in enumerate(records, 1)],
    }


def findings_json(table, *, splits=None):
    """:func:`findings_document` as JSON text (indented, strict, ending in a newline)."""
    return json.dumps(findings_document(table, splits=splits), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_findings(table, path, *, splits=None):
    """Write the findings document (``findings.json``) to ``path``, whole or not at all.

    Parameters
    ----------
    table : pandas.DataFrame
    path : str or pathlib.Path
    splits : dict of str to pandas.DataFrame, optional
        As in :func:`findings_document`.
    """
    text = findings_json(table, splits=splits)
    with atomic_path(path) as part:
        part.write_text(text, encoding="utf-8")
