"""The cells of the reports' subgroup tables, one function per kind of cell.

Each cell function takes a table row (a ``dict``-like record) and returns
``(shown, sort key)`` for a :class:`~subroc_ext.reporting.page.Column`: the
shown text or :class:`~subroc_ext.reporting.page.Html` markup (a subgroup's
conditions with its near copies and notes, a measure with its interval, an
effect, a p-value as a bound where the test stopped early, a verdict with its
note) and the number it sorts by. The ``*_cell(column, ...)`` factories
return such a function for a given column. Shared by the single-model,
multi-class and comparison reports.
"""

import dataclasses
import functools
import re

import numpy as np
import pandas as pd

from ..inference.note_words import BY_PROMISE, FINDING_NOUN, note_words, promised_share
from ..utils.descriptions import split_descriptions
from .conditions import readable_description
from .findings import finding_noun
from .page import Html, conditions_html, format_number, with_interval
from .reading import EFFECT_COLUMNS, effect_text, p_value_text

__all__ = [
    "NEAR_COPIES_SHOWN", "delta_cell", "description_cell", "effect_cell", "failure_cell", "failure_label", "has_note",
    "number_cell", "overlap_cell", "p_value_cell", "rank_cell", "size_cell", "three_digits", "value_cell",
    "verdict_cell", "verdict_notes",
]  # fmt: skip

#: Near copies named under a subgroup's conditions (all are in the CSV).
NEAR_COPIES_SHOWN = 3


def p_value_cell(record):
    """The corrected p-value, as a bound where the test stopped early."""
    value = record["p_value_corrected"]
    text = p_value_text(value, record.get("p_value_exact", True))
    return text, float("nan") if pd.isna(value) else float(value)


def verdict_cell(record):
    """significant / not significant; a row with a note (listed under the table) is marked."""
    significant = record["significant"]
    shown = Html("–" if pd.isna(significant) else ("yes" if significant else "no"))
    if has_note(record.get("verdict_note")):
        shown += Html(' <sup title="{}">note</sup>').format(record["verdict_note"])
    return shown, float("nan") if pd.isna(significant) else float(bool(significant))


def has_note(note):
    """Whether a verdict note says something about this row (not what every row of a
    table without a holdout says)."""
    return isinstance(note, str) and bool(note) and not note.startswith("no interval: chosen and tested")


def verdict_notes(table):
    """HTML: the rows whose test and interval seem to disagree, one line each ('' if none)."""
    if "verdict_note" not in table.columns:
        return Html("")
    lines = [Html("<li>#{}: {}</li>").format(rank, note)
             for rank, note in enumerate(table["verdict_note"], 1) if has_note(note)]  # fmt: skip
    if not lines:
        return Html("")
    return Html('<div class="note"><p>Notes (where the test and the interval disagree):</p><ul>{}</ul></div>').format(
        Html("").join(lines))


def number_cell(column, fmt=format_number):
    """A :class:`Column` cell function showing ``record[column]`` (sorts by its value)."""

    def cell(record):
        value = record[column]
        sort = float("nan") if pd.isna(value) else float(value)
        return fmt(value), sort

    return cell


def three_digits(value):
    return "–" if pd.isna(value) else f"{value:.3f}"


def description_cell(mode="worse", value=None, reference=np.nan, measure="roc_auc", kind="score"):
    """A :class:`Column` cell function: the conditions, their other
    descriptions and near copies, and the case-mix notes in the words of the
    table's ``mode`` and ``measure`` (in mode 'both', of the side the row's
    ``value`` column lies on against the whole split's ``reference``; a
    ``kind`` 'loss' is worse above it)."""
    return functools.partial(_description, mode=mode, value=value, reference=reference, measure=measure,
                             kind=kind)  # fmt: skip


def _description(record, mode, value, reference, measure, kind):
    if mode == "both" and value in record and np.isfinite(reference) and pd.notna(record[value]):
        mode = "worse" if (record[value] < reference) == (kind == "score") else "better"
    words = note_words(mode, measure)
    subgroup = record.get("subgroup", record["description"])
    text = conditions_html(subgroup)
    alternatives = record.get("alternatives") or ""
    if alternatives:
        text += Html('<div class="also">same rows: {}</div>').format(
            "; ".join(readable_description(a) for a in split_descriptions(alternatives)))
    copies = [item.rsplit(" (Jaccard ", 1) for item in split_descriptions(record.get("near_copies") or "")]
    if copies:
        shown = "; ".join(
            f"{readable_description(description)} ({jaccard.rstrip(')')})"
            for description, jaccard in copies[:NEAR_COPIES_SHOWN]
        )
        more = f"; … {len(copies):,} in all" if len(copies) > NEAR_COPIES_SHOWN else ""
        text += Html('<div class="also">near copies (Jaccard index): {}{}</div>').format(shown, more)
    return text + _case_mix_notes(record, words, note_words("worse", measure).slice), None


def _case_mix_notes(record, words, slice_):
    """The notes under a subgroup: its change is mostly range restriction
    (in mode 'better', a wider spread of risk); the other side of its cut."""
    notes = Html("")
    if record.get("range_restricted") is True or record.get("range_restricted") is np.True_:
        said = promised_share(record["expected_share"], dataclasses.replace(words, slice=words.slice or slice_),
                              failure=record.get("failure") in (True, np.True_), article="this")  # fmt: skip
        notes += Html('<div class="also">{}</div>').format(said)
    partner = record.get("complement_of")
    if partner is not None and not pd.isna(partner):
        notes += Html('<div class="also">the other side of this cut is #{}</div>').format(int(partner))
    return notes


def size_cell(column, n_rows):
    def cell(record):
        size = record[column]
        share = f" ({size / n_rows:.0%})" if n_rows else ""
        return f"{int(size):,}{share}", float(size)

    return cell


def value_cell(value, interval):
    """The measure with its interval underneath (sorts by the measure)."""

    def cell(record):
        shown = "–" if pd.isna(record[value]) else f"{record[value]:.3f}"
        if interval and not pd.isna(record[interval[0]]):
            low, high = record[interval[0]], record[interval[1]]
            shown = with_interval(shown, f"{low:.3f}", f"{high:.3f}")
        return shown, float(record[value])

    return cell


def delta_cell(value, reference):
    def cell(record):
        delta = record[value] - reference
        return effect_text(delta, sign=True), float(delta)

    return cell


def effect_cell(record):
    """``delta`` with its simultaneous interval (sorts by ``delta``)."""
    delta, low, high = (record[c] for c in EFFECT_COLUMNS)
    if pd.isna(delta):
        return "–", float("nan")
    shown = effect_text(delta, sign=True)
    if not (pd.isna(low) or pd.isna(high)):
        shown = with_interval(shown, effect_text(low, sign=True), effect_text(high, sign=True))
    return shown, float(delta)


def failure_label(record, attrs):
    """What the headline's rules said of a row, in two or three words, the
    same in every view: ``'failure'``, ``'variant #4'``, ``'explained #4'``
    (the rank of the failure it belongs to, its ``failure_of``), ``'range
    restriction'``, ...; ``''`` for a row they did not judge. ``attrs``: the
    table's (its mode and measure word the noun, :func:`~subroc_ext.reporting.findings.finding_noun`)."""
    if "failure" not in record or pd.isna(record["failure"]):
        return ""
    noun, rules_noun = finding_noun(attrs), FINDING_NOUN[attrs.get("mode", "worse")]
    note = str(record.get("failure_note", ""))
    if bool(record["failure"]):
        return f"{noun} {BY_PROMISE}" if note.startswith(BY_PROMISE) else noun
    of = record.get("failure_of")
    kind = re.sub(r" (of|by) (row |#)\d+$", "", note.split(":")[0])  # "explained by row 4" (or "by #4")
    if kind in ("variant", "explained", f"beside a {rules_noun}") and not pd.isna(of):
        return f"{kind.replace(rules_noun, noun)} #{int(of)}"
    return kind


def failure_cell(attrs):
    """A :class:`Column` cell function: :func:`failure_label` (sorts failures first)."""

    def cell(record):
        flag = record.get("failure", False)
        return failure_label(record, attrs), float(False if pd.isna(flag) else bool(flag))

    return cell


def rank_cell(record):
    return f"{record['rank']}", float(record["rank"])


def overlap_cell(record):
    value, partner = record["overlap"], record.get("overlaps_with")
    shown = "–" if pd.isna(value) else f"{value:.2f} with #{int(partner)}"
    return shown, float(value)
