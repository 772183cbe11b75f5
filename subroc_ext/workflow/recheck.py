"""Last month's findings on this month's data: the same subgroups measured again.

:func:`recheck` reads a ``findings.json`` (:mod:`subroc_ext.inputs.findings_file`),
rebuilds each subgroup from its conditions
(:mod:`subroc_ext.inputs.condition_records`), and measures it on a new
table with the machinery of the pipeline: the effect and its interval
(:func:`~subroc_ext.inference.effects.effect_estimates`, the intervals at
the confidence the findings had) and the subgroup's size, class counts and
measure (:func:`~subroc_ext.workflow.steps.describe`). No search and no new
test: the subgroups are fixed in advance, so each effect is measured without
the winner's curse. On the data the findings were tested on, the effects
and intervals are the findings' own (``tests/test_recheck.py``).
"""

import numbers

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..inference.effects import effect_estimates
from ..inputs.condition_records import decode_value
from ..inputs.findings_file import findings_table, read_findings
from ..inputs.labels import infer_positive_label
from ..inputs.selectors import PointCondition, RangeCondition, ValueCondition, comparable_values
from ..inputs.sorted_data import SortedDataset
from ..inputs.target import SoftClassifierTarget
from ..utils.names import CALIBRATION_MEASURE_NAMES, MEASURE_NAMES, REQUESTED_MEASURE_NAMES
from ..utils.validation import check_columns
from . import steps
from .pipeline import make_quality_function

__all__ = ["RECHECK_COLUMNS", "recheck"]

#: The columns of :func:`recheck`'s table, after the measure's own.
RECHECK_COLUMNS = ["rank", "description", "failure_before", "delta_before", "size", "positives", "negatives",
                   "delta", "delta_ci_low", "delta_ci_high", "change", "trend", "credible"]  # fmt: skip


def _check_rechecked(document, where):
    """Refuse the findings :func:`recheck` cannot measure again, saying why."""
    settings = document["settings"]
    if document["kind"] != "single":
        raise ValueError(f"{where}: recheck measures one model's findings (subroc-ext run); these compare "
                         f"{'two models' if document['kind'] == 'paired' else 'two periods'}")  # fmt: skip
    if settings.get("case_mix"):
        raise ValueError(f"{where}: recheck does not measure case-mix findings (their effect needs the "
                         "probabilities fitted on the search split)")  # fmt: skip
    if settings["measure"] == "auc_mu":
        raise ValueError(f"{where}: recheck measures a binary model's findings, not a multi-class one's (AUC_mu)")
    known = (*MEASURE_NAMES, *REQUESTED_MEASURE_NAMES, *CALIBRATION_MEASURE_NAMES)
    if settings["measure"] not in known:
        raise ValueError(f"{where}: key 'settings.measure': {settings['measure']!r} is not a measure recheck "
                         f"knows ({', '.join(known)})")  # fmt: skip


def _column_of(settings, key, given, where):
    """The label or score column: ``given``, else the findings'."""
    if given is not None:
        return given
    if settings.get(key) is None:
        raise ValueError(f"{where}: key 'settings.{key}' is missing; name the {key} column (--{key}, {key}=)")
    return settings[key]


#: A column's values in words, by kind.
_KIND_WORDS = {"text": "text", "number": "numbers", "bool": "true/false values", "datetime": "datetimes",
               "timedelta": "durations"}  # fmt: skip


def _value_kind(value):
    """``'text'``, ``'bool'``, ``'number'``, ``'datetime'``, ``'timedelta'`` or None (another kind)."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (numbers.Number, np.number)):
        return "number"
    if isinstance(value, (pd.Timestamp, np.datetime64)):
        return "datetime"
    if isinstance(value, (pd.Timedelta, np.timedelta64)):
        return "timedelta"
    return None


def _column_kinds(column):
    """The kinds of the values of a column with some present (see :func:`_value_kind`)."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return {_value_kind(value) for value in dtype.categories}
    if pd.api.types.is_bool_dtype(dtype):
        return {"bool"}
    if pd.api.types.is_numeric_dtype(dtype):
        return {"number"}
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return {"datetime"}
    if pd.api.types.is_timedelta64_dtype(dtype):
        return {"timedelta"}
    return {_value_kind(value) for value in pd.unique(column.dropna())}


def _check_condition_columns(data, subgroups):
    """Refuse a column the findings' conditions cannot be measured on: missing in
    every row, or holding another kind of values than its conditions compare
    (``region`` now integers, ``age`` now text), naming the column and the condition."""
    conditions = {}
    for subgroup in subgroups:
        for condition in subgroup.selectors:
            conditions.setdefault(condition.attribute_name, {})[str(condition)] = condition
    for name, on_column in conditions.items():
        column = data[name]
        texts = ", ".join(list(on_column)[:3]) + (", ..." if len(on_column) > 3 else "")
        if column.isna().all():
            raise ValueError(f"column {name!r} is missing in every row of the data; the findings' conditions on "
                             f"it ({texts}) cannot be measured")  # fmt: skip
        kinds = _column_kinds(column)
        for text, condition in on_column.items():
            expected = _condition_kind(condition)
            if expected is None or expected in kinds or _comparable(column, expected):
                continue
            found = " and ".join(sorted(_KIND_WORDS.get(kind, "other values") for kind in kinds))
            raise ValueError(f"column {name!r} holds {found} ({column.dtype}) in the data, but the findings' "
                             f"condition {text} compares it with {_KIND_WORDS[expected]}")  # fmt: skip


def _condition_kind(condition):
    """The kind of values a condition compares (None: any, as ``is missing``)."""
    if isinstance(condition, ps.IntervalSelector):
        return "number"
    if isinstance(condition, (RangeCondition, PointCondition)):
        return condition.domain
    if isinstance(condition, (ValueCondition, ps.EqualitySelector)):
        return _value_kind(condition.attribute_value)
    return None


def _comparable(column, domain):
    """Whether a column of other values can be compared as ``domain`` (ISO date text as datetimes)."""
    if domain not in ("datetime", "timedelta") or pd.api.types.is_bool_dtype(column.dtype):
        return False
    try:
        comparable_values(column, domain)
    except (ValueError, TypeError, AttributeError, OverflowError):
        return False
    return True


def recheck(findings, data, *, label=None, score=None, positive_label=None, random_state=0):
    """Measure the subgroups of a ``findings.json`` again on new data.

    Parameters
    ----------
    findings : str, pathlib.Path, dict or FindingsDocument
        A ``findings.json`` of ``subroc-ext run`` or :func:`~subroc_ext.findings_document`
        of a :func:`~subroc_ext.find_subgroups` table (one model), read once and
        checked against its schema
        (:func:`~subroc_ext.inputs.findings_file.read_findings`; a document it
        returned is not checked again).
    data : pandas.DataFrame
        The new rows: the label, the score and every column a condition names.
    label, score : str, optional
        The label and score columns; default the findings'.
    positive_label : object, optional
        Default the findings' (or, when they have none, inferred as
        :func:`~subroc_ext.find_subgroups` infers it).
    random_state : int, default=0
        Seeds the bootstrap of measures without an exact jackknife (the
        attribution mean, a user's measure).

    Returns
    -------
    pandas.DataFrame
        One row per finding, in the findings' order: :data:`RECHECK_COLUMNS`
        and the measure on the subgroup's new rows (named as the measure).
        ``delta`` is the effect on ``data`` as the findings define it (the
        measure on the subgroup minus on all of ``data``, positive in the
        direction of ``mode``), with its interval at the findings'
        ``interval_level`` (FCR or simultaneous as they were; ``1 - alpha``
        without one); ``change`` is ``delta - delta_before``; ``trend`` says
        whether the effect grew (``'worse'`` for ``mode='worse'`` findings:
        the failure is larger), shrank (``'better'``), stayed
        (``'unchanged'``) or is undefined on the new rows (``'undefined'``);
        ``credible``: the new interval lies beyond ``min_delta``. ``attrs``:
        the findings' ``settings`` and ``whole`` (the measure on all of ``data``).

    Raises
    ------
    ValueError
        Findings that break their schema or were edited (a description that is
        not its conditions), of a comparison, of case mix or of a multi-class
        model, each message naming the key; a column of ``data`` that holds
        another kind of values than its conditions compare, or is missing in
        every row; a bad label or score column.
    KeyError
        A column missing in ``data``.

    Examples
    --------
    >>> import subroc_ext, numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> def scored(n):
    ...     data = pd.DataFrame({"region": rng.choice(["east", "west", "north"], n),
    ...                          "label": rng.integers(0, 2, n)})
    ...     data["score"] = np.where(data["region"] == "east", rng.random(n),
    ...                              0.5 * data["label"] + 0.5 * rng.random(n))
    ...     return data
    >>> table = subroc_ext.find_subgroups(scored(900), label="label", score="score", depth=1,
    ...                                   progress=False)
    >>> again = subroc_ext.recheck(subroc_ext.findings_document(table), scored(900))
    >>> again[["description", "delta_before", "delta", "trend"]].round(3)
          description  delta_before  delta  trend
    0  region=='east'         0.323  0.351  worse
    """
    document = read_findings(findings)
    _check_rechecked(document, document.where)
    settings = document["settings"]
    before = findings_table(document)
    label = _column_of(settings, "label", label, document.where)
    score = _column_of(settings, "score", score, document.where)
    columns = sorted({record["column"] for finding in document["findings"] for record in finding["conditions"]})
    check_columns(data, [label, score, *columns])
    _check_condition_columns(data, before["subgroup"])
    if positive_label is None:
        known = decode_value(settings.get("positive_label"))
        positive_label = infer_positive_label(data[label], label) if known is None else known
    dataset = SortedDataset(data, label, score, positive_label)
    target = SoftClassifierTarget(label, score)
    qf = make_quality_function(settings["measure"], label, positive_label=positive_label, mode=settings["mode"])
    qf.use_dataset(dataset)
    subgroups = list(before["subgroup"])
    with np.errstate(invalid="ignore", divide="ignore"):  # a subgroup of one class: NaN, trend 'undefined'
        effects = _effects(effect_estimates(subgroups, data, qf, target, random_state=random_state), settings)
        described = steps.describe(subgroups, dataset, target, measure=qf.measure)
    measure = settings["measure"]
    table = pd.DataFrame({
        "rank": np.arange(1, len(before) + 1), "description": before["description"],
        "failure_before": before["failure"].astype(bool), "delta_before": before["delta"],
        **{name: described[name].to_numpy() for name in ("size", "positives", "negatives", measure)},
        **{name: effects[name].to_numpy() for name in ("delta", "delta_ci_low", "delta_ci_high")},
    })  # fmt: skip
    table["change"] = table["delta"] - table["delta_before"]
    table["trend"] = np.select(
        [table["change"].isna(), table["change"] > 0, table["change"] < 0], ["undefined", "worse", "better"],
        "unchanged",
    )  # fmt: skip
    table["credible"] = (table["delta_ci_low"] > settings.get("min_delta", 0.0)).to_numpy()
    table = table[[*RECHECK_COLUMNS[:7], measure, *RECHECK_COLUMNS[7:]]]
    table.attrs.update(settings=settings, whole=steps.dataset_values(dataset, target, measure=qf.measure)[measure],
                       label=label, score=score, positive_label=positive_label)  # fmt: skip
    return table


def _effects(estimates, settings):
    """The effects' table with intervals as the findings had them (at ``1 - alpha`` without a level)."""
    level = settings.get("interval_level")
    level = 1 - settings["alpha"] if level is None else level
    if settings.get("intervals") == "simultaneous":
        return estimates.simultaneous(level)
    return estimates.marginal(level)
