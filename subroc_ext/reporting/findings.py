"""The headline of a result: where the model fails, how badly and how sure.

A result table is ranked by the search's weighted quality, which answers
"which patterns are worth testing", not "where is the model worst". The
headline answers the reader's question first, as statsmodels' ``summary()``
puts the estimate before the settings: one line with the verdict, then the
few distinct significant findings ordered by their effect, one sentence each
that a reader can repeat to a colleague::

    marital_status = Married-civ-spouse (46 % of held-out rows): ROC AUC 0.847 vs 0.922
    overall, 0.075 lower [0.057, 0.096]

and an honest line when nothing is significant, or when a comparison shows
no overall degradation. The console (``subroc-ext``) and every HTML report
print the same :class:`Headline`.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..inference.note_words import CASE_MIX_WORDS, FINDING_NOUN, NOTE_WORDS, SLICE_WORDS, note_words, promised_share
from ..utils.names import CALIBRATION_MEASURE_NAMES
from .conditions import readable_description
from .page import Html, Section, conditions_html
from .reading import effect_text, measure_kind, measure_title, splits_text
from .whole_calibration import calibration_sentence

__all__ = ["CHECK_PREFIX", "HEADLINE_ROWS", "RANKS", "Finding", "Headline", "failure_rows", "findings_section",
           "finding_noun", "headline", "headline_html", "measure_title", "result_kind", "shown_positions",
           "significant_count", "than_words"]

#: How each data check (a possible leak, a code cut as a number) begins, before the results.
CHECK_PREFIX = "Check the data:"
#: Findings named in the headline; the rest are in the table.
HEADLINE_ROWS = 5

#: Variants named under a finding.
_VARIANTS_SHOWN = 3

#: The one numbering of every view, said once in each legend: a row's rank in the table.
RANKS = "#k = the row's rank in the table and in subgroups.csv (1 = its first row)"

def finding_noun(attrs):
    """What the headline calls a row it names, for a table's ``attrs``: a
    *failure* where the model does worse, and where its risks are
    miscalibrated either way (the calibration gap's modes 'under' and
    'over'); else a *finding* (a model doing better fails nowhere).

    Examples
    --------
    >>> finding_noun({"mode": "better"}), finding_noun({"mode": "better", "measure": "calibration_gap"})
    ('finding', 'failure')
    """
    return "failure" if attrs.get("measure") == "calibration_gap" else FINDING_NOUN[attrs.get("mode", "worse")]


#: The calibration gap's modes in words (the headline's comparison).
_MISCALIBRATION = {"worse": "underestimated more than", "better": "overestimated more than"}


def than_words(attrs):
    """How a row compares with another in the table's direction, for its
    ``attrs``: ``'worse than'``, ``'better than'``; the calibration gap's
    ``'more overestimated than'`` (mode 'over': no model does *better* by
    overestimating risks more).

    Examples
    --------
    >>> than_words({"mode": "better"}), than_words({"mode": "better", "measure": "calibration_gap"})
    ('better than', 'more overestimated than')
    """
    mode = attrs.get("mode", "worse")
    if attrs.get("measure") == "calibration_gap":
        return {"worse": "more underestimated than", "better": "more overestimated than"}.get(
            mode, "more miscalibrated than")
    return NOTE_WORDS[mode].than


@dataclass
class Finding:
    """One sentence of a headline: the subgroup, then what was found in it.

    Attributes
    ----------
    subgroup : pysubgroup description or str
    description : str
        The subgroup in the table's notation (``age >= 38 AND sex=='Male'``).
    text : str
        The rest of the sentence: ``" (46 % of held-out rows): ROC AUC 0.847 vs ..."``.
    rank : int
        Its row in the table (1 = the first row): the number every view gives it.
    variants : list of tuple
        Its variants, each as ``(subgroup, description, rank)``.
    than : str
        How its variants compare with it, in the table's mode: not
        significantly ``than`` it ("worse than", "better than", ...).
    many_splits : bool
        The table aggregates many splits, whose variants are also the same
        failure named by other splits.
    """

    subgroup: object
    description: str
    text: str
    rank: int
    variants: list = field(default_factory=list)
    than: str = "worse than"
    many_splits: bool = False

    def sentence(self, readable=False):
        """The whole sentence; ``readable``: the conditions as reports write them
        (``age ≥ 38 & sex = Male``)."""
        return (readable_description(self.subgroup) if readable else self.description) + self.text

    def variants_intro(self):
        """The words before the variants: ``'variants, not significantly worse than it: '``."""
        if self.many_splits:
            return f"variants (named by other splits, or not significantly {self.than} it): "
        return f"variants, not significantly {self.than} it: "

    def variants_shown(self):
        """The variants listed by name: the first :data:`_VARIANTS_SHOWN`."""
        return self.variants[:_VARIANTS_SHOWN]

    def variants_more(self):
        """How many variants are not listed by name (``'; and 4 more'``, or ``''``)."""
        hidden = len(self.variants) - _VARIANTS_SHOWN
        return f"; and {hidden:,} more" if hidden > 0 else ""

    def variants_text(self):
        """The variants listed under the finding, in the table's notation (``''`` if none)."""
        if not self.variants:
            return ""
        shown = "; ".join(f"#{rank} {description}" for _, description, rank in self.variants_shown())
        return f"{self.variants_intro()}{shown}{self.variants_more()}"


@dataclass
class Headline:
    """What a result says, in words.

    Attributes
    ----------
    summary : str
        The verdict in one or two sentences (how many significant findings,
        or that there are none; for a comparison, the change on the whole
        data first).
    findings : list of Finding
        One per distinct significant finding, the largest effect first (at
        most :data:`HEADLINE_ROWS`), each numbered by its rank in the table.
    more : str
        What the findings leave out (``''`` if nothing).
    checks : list of str
        What to know about the data first (``table.attrs['data_checks']``).
    calibration : str
        The whole data's calibration in one sentence, before the findings
        (:func:`~subroc_ext.reporting.whole_calibration.calibration_sentence`):
        always in a search of a calibration measure, in any other where the
        scores are miscalibrated; ``''`` otherwise, and where the scores are
        no probabilities.
    """

    summary: str
    findings: list = field(default_factory=list)
    more: str = ""
    checks: list = field(default_factory=list)
    calibration: str = ""

    def text(self):
        """The headline as plain text lines (the console's first lines)."""
        lines = [f"{CHECK_PREFIX} {check}" for check in self.checks] + [self.calibration] * bool(self.calibration)
        lines.append(self.summary)
        for finding in self.findings:
            lines.append(f"  #{finding.rank} {finding.sentence()}")
            if finding.variants:
                lines.append(f"     {finding.variants_text()}")
        if self.more:
            lines.append(f"  {self.more}")
        return "\n".join(lines)


def result_kind(table):
    """What a result table compares: 'paired' (two models), 'drift' (two periods) or 'single' (one model)."""
    if "baseline" in table.attrs:
        return "paired"
    if f"{table.attrs.get('measure')}_reference_{_split(table.attrs)}" in table.columns:
        return "drift"
    return "single"


def _share(size, total, attrs):
    """`` (46% of held-out rows)``: of the rows the effects are measured on."""
    rows = "held-out rows" if attrs.get("holdout", True) else "rows"
    return "" if not total or pd.isna(size) else f" ({size / total:.0%} of {rows})"


def _subgroups(count):
    return f"{count:,} subgroup{'' if count == 1 else 's'}"


def _interval(record):
    low, high = record.get("delta_ci_low", np.nan), record.get("delta_ci_high", np.nan)
    return "" if pd.isna(low) or pd.isna(high) else f" [{effect_text(low)}, {effect_text(high)}]"


def _split(attrs):
    """The split the effects are measured on: the validation split, or (no holdout) all rows."""
    return "validation" if attrs.get("holdout", True) else "search"


def _single_text(record, attrs, total):
    measure, split = attrs["measure"], _split(attrs)
    value = record[f"{measure}_{split}"]
    overall = attrs["dataset_values"][f"{measure}_{split}"]
    if attrs.get("case_mix"):  # the effect is the shortfall from what the scores promise
        relation = {"worse": "further below", "better": "further above"}.get(attrs.get("mode"), "further from")
        return (
            f"{_share(record[f'size_{split}'], total, attrs)}: {measure_title(measure)} {value:.3f} where "
            f"its scores promise {record[f'expected_{measure}_{split}']:.3f}, {effect_text(record['delta'])} "
            f"{relation} its promise than overall{_interval(record)}"
        )
    if measure == "calibration_gap":
        return _calibration_text(record, attrs, overall, split, total)
    # a measure that grows with the rows (the ARL) is compared with random rows of its class counts
    reference = record.get(f"null_{measure}_{split}", np.nan)
    against = "overall" if pd.isna(reference) else "in random rows of its class counts"
    overall = overall if pd.isna(reference) else reference
    direction = "lower" if value < overall else "higher"
    worse = (value < overall) == (measure_kind(measure, attrs) == "score")  # a loss is worse where it is higher
    words, share = note_words("worse" if worse else "better", measure), record.get("expected_share", np.nan)
    restricted = "" if not bool(record.get("range_restricted", False)) else \
        f"; {promised_share(share, words, failure=record.get('failure') in (True, np.True_))}"  # fmt: skip
    effect = effect_text(abs(value - overall))
    if attrs.get("splits"):  # the value of one split; the effect of all that tested the row
        effect = f"{effect_text(abs(record['delta']))} {direction} (median of the splits)"
        direction = ""
    return (
        f"{_share(record[f'size_{split}'], total, attrs)}: {measure_title(measure)} {value:.3f} vs "
        f"{overall:.3f} {against}, {effect}{' ' * bool(direction)}{direction}{_interval(record)}{restricted}"
    )


def _calibration_text(record, attrs, overall, split, total):
    """``(9% of held-out rows): risk underestimated by 14 points (promised 11%, observed
    25%), 13 points [8, 18] more underestimated than on the whole data``:
    the gap ``observed - promised`` of the subgroup, then the effect (the
    difference to the whole data's gap, in the direction of the mode) with
    its interval; after the global fix (``attrs['global_fix']``) the promise
    is the fixed one."""
    mode, gap, fixed = attrs.get("mode", "worse"), record[f"calibration_gap_{split}"], attrs.get("global_fix")
    observed = record[f"positives_{split}"] / record[f"size_{split}"]
    low, high = record.get("delta_ci_low", np.nan), record.get("delta_ci_high", np.nan)
    interval = "" if pd.isna(low) or pd.isna(high) else f" [{100 * low:.0f}, {100 * high:.0f}]"
    # delta > 0: the gap lies beyond the whole data's gap in the mode's direction
    # (for 'both' the direction the subgroup's gap deviates in)
    upward = {"worse": True, "better": False}.get(mode, gap >= overall)
    own = "under" if gap >= 0 else "over"
    # beyond the whole data's gap toward its own sign: more so; back toward 0 (a subgroup
    # overestimated by 4 points where the whole data is by 11): less so
    further = f"more {own}" if upward == (gap >= 0) else f"less {own}"
    return (
        f"{_share(record[f'size_{split}'], total, attrs)}: risk {own}estimated by {_points(100 * abs(gap))} "
        f"(promised {observed - gap:.0%}{' after the global fix' if fixed else ''}, observed {observed:.0%}), "
        f"{_points(100 * record['delta'])}{interval} {further}estimated than on the whole data"
    )


def _points(value):
    """``'1 point'``, ``'14 points'`` (rounded to whole points)."""
    return f"{value:.0f} point{'' if round(value) == 1 else 's'}"


def _paired_text(record, attrs, total):
    measure, split = attrs["measure"], _split(attrs)
    new, old = record[f"{measure}_{split}"], record[f"{measure}_baseline_{split}"]
    return (
        f"{_share(record[f'size_{split}'], total, attrs)}: {measure_title(measure)} {new:.3f} (new) "
        f"vs {old:.3f} (baseline), a change {effect_text(record['delta'])} {_direction(attrs)} than on "
        f"the whole data{_interval(record)}"
    )


def _drift_text(record, attrs, total):
    measure, split = attrs["measure"], _split(attrs)
    old, new = record[f"{measure}_reference_{split}"], record[f"{measure}_current_{split}"]
    return (
        f"{_share(record[f'size_current_{split}'], total, attrs)}: {measure_title(measure)} {old:.3f} "
        f"(reference) -> {new:.3f} (current), a change {effect_text(record['delta'])} "
        f"{_direction(attrs)} than on the whole data{_interval(record)}"
    )


def _direction(attrs):
    return {"worse": "worse", "better": "better"}.get(attrs.get("mode", "worse"), "larger")


_TEXTS = {"single": _single_text, "paired": _paired_text, "drift": _drift_text}


def _overall_change(table, kind):
    """For a comparison: the change on the whole validation data in words
    (whether the new model, or the current period, is worse at all)."""
    attrs = table.attrs
    measure, values = attrs["measure"], attrs["dataset_values"]
    old_name, new_name = ("baseline", "new") if kind == "paired" else ("reference", "current")
    split = _split(attrs)
    old, new = values[f"{measure}_{old_name}_{split}"], values[f"{measure}_{new_name}_{split}"]
    subject = "the new model" if kind == "paired" else "the current period"
    # a loss (ARL) is worse when higher, every other built-in measure when lower
    worse = new > old if measure_kind(measure) == "loss" else new < old
    verb = {True: "worse", False: "not worse"}[bool(worse)]
    text = (
        f"On the whole {'validation ' if split == 'validation' else ''}data {subject} is {verb}: {measure_title(measure)} "
        f"{new:.3f} vs {old:.3f} ({'the baseline' if kind == 'paired' else 'the reference period'})."
    )
    return text


def significant_count(table):
    """How many rows of ``table`` are significant, as every heading counts them.

    A row is counted when the table's test finds it significant, or when it
    is a failure *by its promise* (without a holdout: significant by the
    promise's test, not the table's).

    Returns
    -------
    count : int
        The significant rows.
    note : str
        ``" (k by their promise)"`` when k of them are failures by their
        promise (``" (1 by its promise)"``), else ``""``.

    Examples
    --------
    >>> significant_count(pd.DataFrame({"significant": [True, False, False], "failure": [True, True, False]}))
    (2, ' (1 by its promise)')
    >>> significant_count(pd.DataFrame({"significant": [False, False, False], "failure": [True, True, False]}))
    (2, ' (2 by their promise)')
    >>> significant_count(pd.DataFrame({"significant": [True, False]}))
    (1, '')
    """
    if "significant" not in table.columns:
        return 0, ""
    significant = table["significant"].fillna(False).astype(bool)
    failed = table["failure"].fillna(False).astype(bool) if "failure" in table.columns else significant
    by_promise = int((failed & ~significant).sum())
    whose = "its" if by_promise == 1 else "their"
    return int(significant.sum()) + by_promise, f" ({by_promise:,} by {whose} promise)" if by_promise else ""


def failure_rows(table):
    """The rows a headline calls failures, the surest (or largest effect) first.

    The one rule every reader of a result shares: the headline names these
    rows, and a release gate (``--fail-on``,
    :func:`~subroc_ext.assert_no_failures`) fails exactly when there is one.
    In a table judged by :func:`~subroc_ext.inference.failures.judge_failures`
    (a ``failure`` column) they are its failures, ordered by the
    conservative end of their interval; otherwise (compare, drift,
    multi-class) the significant rows (their verdict; with ``min_delta``,
    an interval beyond it), the largest effect first.

    Parameters
    ----------
    table : pandas.DataFrame
        A result table (``significant`` and ``delta``, or ``statistic`` for a
        table of before 0.3).

    Returns
    -------
    pandas.DataFrame
        Those rows of ``table`` (index kept), in the headline's order; empty
        when nothing was found or tested.
    """
    return table.iloc[_failure_positions(table)]


def _failure_positions(table):
    """The positions of :func:`failure_rows` in ``table``, in the headline's order."""
    if len(table) == 0 or "significant" not in table.columns or table["significant"].isna().all():
        return np.zeros(0, dtype=int)
    effect = (table["delta"] if "delta" in table.columns else table["statistic"]).to_numpy(dtype=float)
    if "failure" in table.columns:  # judged: the failures, surest first (how bad at least)
        rows = np.flatnonzero(table["failure"].fillna(False).to_numpy(dtype=bool))
        low = table["delta_ci_low"].to_numpy(dtype=float) if "delta_ci_low" in table.columns else effect
        low = np.where(np.isnan(low), effect, low)
        return rows[np.lexsort((-effect[rows], -low[rows]))]
    rows = np.flatnonzero(table["significant"].fillna(False).to_numpy(dtype=bool))
    return rows[np.argsort(-effect[rows], kind="stable")]  # NaN effects last


def shown_positions(table, top):
    """The rows a view of the first ``top`` rows shows (the console's table, the
    forest plot): those, then every headline failure ranked below them, in
    table order, so that no failure the headline names is out of view.

    The failures are those of a table judged by
    :func:`~subroc_ext.inference.failures.judge_failures` (a ``failure``
    column: every pipeline's); a table without one shows its first rows.

    Parameters
    ----------
    table : pandas.DataFrame
    top : int or None
        The first rows shown (None: all).

    Returns
    -------
    numpy.ndarray of int
        Positions in ``table``, ascending.

    Examples
    --------
    >>> table = pd.DataFrame({"significant": [False, True, False, True], "delta": 0.1,
    ...                       "failure": [False, False, False, True]})
    >>> shown_positions(table, 2).tolist()
    [0, 1, 3]
    """
    if top is None:
        return np.arange(len(table))
    failures = _failure_positions(table) if "failure" in table.columns else []
    return np.union1d(np.arange(min(top, len(table))), failures).astype(int)


def headline(table, *, top=HEADLINE_ROWS, n_rows=None):
    """The headline of a ``find_subgroups`` (multi-class, ``find_regressions``,
    ``find_drift``) table.

    Parameters
    ----------
    table : pandas.DataFrame
        A result table with its ``attrs`` (``measure``, ``mode``,
        ``dataset_values``, ``method``, ``alpha``).
    top : int, default=HEADLINE_ROWS
        Findings named at most.
    n_rows : int, optional
        Rows of the validation split (of the current period for a drift), to
        give each finding's share; default ``table.attrs["n_rows"]``.

    Returns
    -------
    Headline

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
    >>> print(headline(table).text())
    Where the ROC AUC is worse than on the whole data and than its scores promise: 1 failure among 1 significant of 1 subgroup (fdr_by, alpha 0.05), surest first:
      #1 region=='east' (30% of held-out rows): ROC AUC 0.558 vs 0.881 overall, 0.323 lower [0.204, 0.444]
    """
    said = _headline(table, top=top, n_rows=n_rows)
    said.checks = list(table.attrs.get("data_checks", []))
    whole, fixed = table.attrs.get("whole_calibration"), table.attrs.get("global_fix")
    # a calibration search says it always; any other, where the scores are miscalibrated (a warning)
    if whole and (table.attrs.get("measure") in CALIBRATION_MEASURE_NAMES or not whole["calibrated"]):
        said.calibration = calibration_sentence(whole, fixed and "the subgroups are searched after a global fix, "
                                                + fixed["description"])  # fmt: skip
    return said


def _headline(table, *, top, n_rows):
    """The headline, without the data checks."""
    attrs = table.attrs
    kind = result_kind(table)
    measure = measure_title(attrs.get("measure"))
    mode = attrs.get("mode", "worse")
    comparison = {"worse": "worse than", "better": "better than"}.get(mode, "different than")
    if attrs.get("case_mix"):  # the quality is the shortfall from what the scores promise
        comparison = {"worse": "further below what its scores promise than", "better": "further above "
                      "what its scores promise than"}.get(mode, "further from what its scores promise than")  # fmt: skip
    if attrs.get("measure") == "calibration_gap":
        measure, comparison = "risk", _MISCALIBRATION.get(mode, "miscalibrated more than")
        if attrs.get("global_fix"):  # the gaps a monotone map of the scores leaves
            comparison = comparison.replace(" more than", " after a global fix more than")
    prefix = "" if kind == "single" else _overall_change(table, kind) + " "
    if len(table) == 0:
        return Headline(f"{prefix}No subgroup found.".strip())
    if "significant" not in table.columns or table["significant"].isna().all():
        return Headline(f"{prefix}{_subgroups(len(table))} found, not tested.".strip())
    n_rows = attrs.get("n_rows", {}).get(_split(attrs)) if n_rows is None else n_rows
    if "delta" not in table.columns:  # a table of before 0.3: the test statistic is the effect
        table = table.assign(delta=table["statistic"])
    test = splits_text(attrs) or f"{attrs.get('method', 'fdr_by')}, alpha {attrs.get('alpha', 0.05):g}"
    subject = "the change" if kind != "single" else f"the {measure}"
    if "failure" in table.columns and significant_count(table)[0]:  # failures by their promise too
        return _failures_headline(table, attrs, kind, top, n_rows, prefix, subject, comparison, test)
    significant = _failure_positions(table)
    if len(significant) == 0:
        best = table.sort_values("delta", ascending=False, kind="stable").iloc[0]
        return Headline(
            f"{prefix}No subgroup where {subject} is significantly {comparison} the whole data: "
            f"0 of {_subgroups(len(table))} significant ({test}). The largest observed effect, "
            f"{best['description']} (delta {best['delta']:.3f}), may be chance."
        )
    text = _TEXTS[kind]
    findings = [
        Finding(record["subgroup"], record["description"], text(record, attrs, n_rows), position + 1)
        for position, record in ((position, table.iloc[position]) for position in significant[:top])
    ]
    more = ""
    if len(significant) > top:
        more = f"... and {len(significant) - top:,} more significant in the table."
    summary = (
        f"{prefix}Where {subject} is {comparison} on the whole data: {len(significant):,} of "
        f"{_subgroups(len(table))} significant ({test}), largest effect first:"
    )
    return Headline(summary, findings, more)


#: How the notes of :func:`~subroc_ext.inference.failures.judge_failures` begin, and what
#: the headline calls such rows.
_NOT_FAILURES = {
    "range restriction": ("slice where every model ranks worse (range restriction)",
                          "slices where every model ranks worse (range restriction)"),
    "change of population": ("row whose drop its own scores promise (its rows or their inputs changed)",
                             "rows whose drop their own scores promise (their rows or inputs changed)"),
    "wider spread of risk": ("slice where every model ranks better (a wider spread of risk)",
                             "slices where every model ranks better (a wider spread of risk)"),
    "not shown worse than promised": ("row not shown worse than its scores promise",
                                      "rows not shown worse than their scores promise"),
    "not shown better than promised": ("row not shown better than its scores promise",
                                       "rows not shown better than their scores promise"),
    "not shown different from promised": ("row not shown other than its scores promise",
                                          "rows not shown other than their scores promise"),
    "variant": ("variant of a {noun}", "variants of the {noun}s"),
    "explained": ("row explained by a {noun}", "rows explained by the {noun}s"),
    "beside a {noun}": ("row beside a {noun}, exceptional only by holding it",
                        "rows beside the {noun}s, exceptional only by holding them"),
    "little evidence": ("row with too few positives or negatives", "rows with too few positives or negatives"),
    "no interval": ("row without an interval", "rows without an interval"),
}  # fmt: skip


#: The same for the slices other measures' own scores explain (:data:`~subroc_ext.inference.note_words.SLICE_WORDS`).
_SLICES = {
    words[0]: (f"slice its own scores explain ({words[0]})", f"slices their own scores explain ({words[0]})")
    for words in [CASE_MIX_WORDS, *(w for sides in SLICE_WORDS.values() for w in sides.values())]
}


def _not_failures(notes, noun, said):
    """One sentence counting the significant rows that are no failures, by kind:
    ``notes`` begin with the rules' ``noun`` (the mode's), the sentence says
    :func:`finding_noun` (``said``)."""
    parts = []
    for start, (one, many) in {**_NOT_FAILURES, **_SLICES}.items():
        count = int(notes.str.startswith(start.format(noun=noun)).sum())
        if count:
            parts.append(f"{count:,} {(one if count == 1 else many).format(noun=said)}")
    return f"Not {said}s: {', '.join(parts)}; in the table with their notes." if parts else ""


def _failures_headline(table, attrs, kind, top, n_rows, prefix, subject, comparison, test):
    """The headline of a table judged by :func:`~subroc_ext.inference.failures.judge_failures`:
    only its failures, surest first (the conservative end of the interval),
    each with its variants."""
    failed = table["failure"].fillna(False).astype(bool)
    significant = table["significant"].fillna(False).astype(bool)
    failures = _failure_positions(table)
    # searched by the case mix, the comparison is already with the promise
    promised = table["promise_p_value"].notna().any() and not attrs.get("case_mix")
    than = f"{comparison} on the whole data" + (" and than its scores promise" if promised else "")
    count, by_promise = significant_count(table)
    flagged = f"{count:,} significant{by_promise}"
    plural, noun = "" if len(failures) == 1 else "s", finding_noun(attrs)
    counted = f"{len(failures):,} {noun}{plural} among {flagged} of {_subgroups(len(table))} ({test})"
    rest = _not_failures(table.loc[significant & ~failed, "failure_note"].astype(str),
                         FINDING_NOUN[attrs.get("mode", "worse")], noun)  # fmt: skip
    if len(failures) == 0:
        return Headline(f"{prefix}No subgroup where {subject} is {than}: {counted}.", more=rest)
    text = _TEXTS[kind]
    ranks = table["failure_of"].to_numpy(dtype=float, na_value=np.nan)
    variants = table["failure_note"].astype(str).str.startswith("variant").to_numpy()
    findings = [
        Finding(record["subgroup"], record["description"], text(record, attrs, n_rows), position + 1,
                variants=[(table["subgroup"].iloc[j], table["description"].iloc[j], j + 1)
                          for j in np.flatnonzero(variants & (ranks == position + 1))],
                than=than_words(attrs), many_splits=bool(attrs.get("splits")))
        for position, record in ((position, table.iloc[position]) for position in failures[:top])
    ]  # fmt: skip
    more = rest
    if len(failures) > top:
        more = f"... and {len(failures) - top:,} more {noun}s in the table. " + rest
    summary = f"{prefix}Where {subject} is {than}: {counted}, surest first:"
    return Headline(summary, findings, more.strip())


def _variants_html(finding):
    """The variants under a finding, each as its chips (as the finding above them)."""
    shown = Html("; ").join(Html("#{} {}").format(rank, conditions_html(subgroup))
                            for subgroup, _, rank in finding.variants_shown())  # fmt: skip
    return Html('<br><span class="note">{}{}{}</span>').format(finding.variants_intro(), shown, finding.variants_more())


def headline_html(table, **keywords):
    """The headline as the HTML body of a report's first section (``id="findings"``),
    the data checks (possible leaks, codes cut as numbers) first.

    Parameters
    ----------
    table : pandas.DataFrame
    **keywords
        Passed to :func:`headline`.

    Returns
    -------
    Html
    """
    said = headline(table, **keywords)
    items = Html("").join(
        Html('<li><span class="rank">#{}</span> {}{}{}</li>').format(
            finding.rank, conditions_html(finding.subgroup), finding.text,
            _variants_html(finding) if finding.variants else "",
        )
        for finding in said.findings
    )  # fmt: skip
    findings = Html('<ul class="findings">{}</ul><p class="note">{}.</p>').format(items, RANKS) if items else ""
    more = Html('<p class="note">{}</p>').format(said.more) if said.more else ""
    checks = Html("").join(Html('<p class="check"><strong>{}</strong> {}</p>').format(CHECK_PREFIX, check)
                           for check in said.checks)  # fmt: skip
    if said.calibration:
        checks += Html('<p class="calibration">{}</p>').format(said.calibration)
    return Html('{}<p class="headline">{}</p>{}{}').format(checks, said.summary, findings, more)


def findings_section(table, **keywords):
    """The first section of every report: :func:`headline_html` under "Findings" (``id="findings"``)."""
    return Section("Findings", headline_html(table, **keywords), "findings")
