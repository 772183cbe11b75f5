"""The report's words: what its p-values, effects, intervals and test mean.

The sentences a reader needs beside the numbers, shared by every report
(:mod:`~subroc_ext.reporting.report`, the multi-class and notebook views) and
the command line's summary: :func:`p_value_text` (a p-value, as a bound where
the test stopped early, :data:`STOPPED`), :func:`effect_note` and
:func:`intervals_text` (the Δ column and which intervals it has), and
:func:`how_to_read` (the "How to read this" section: quality, weights, case
mix and the test, with or without a holdout).
"""

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multitest_alias, multitest_methods_names

from ..inference.verdicts import level_text
from ..scoring.shortfall import SUFFIX
from ..workflow.many_splits import planned_text
from .page import Html, format_number, format_p_value

__all__ = [
    "EFFECT_COLUMNS", "STOPPED", "aggregated_effects", "effect_meaning", "effect_note", "effect_text", "has_effects",
    "how_to_read",
    "intervals_text", "p_value_text",
]  # fmt: skip

#: The effect-size columns of :mod:`subroc_ext.inference.effects` (absent from older and multi-class tables).
EFFECT_COLUMNS = ("delta", "delta_ci_low", "delta_ci_high")


def p_value_text(p_value, exact=True):
    """A p-value as a reader should see it: ``'0.031'``, or ``'≤ 0.0097
    (stopped)'`` where the test stopped drawing once its decision was
    settled (``exact`` False: the number is an upper bound, see
    :data:`STOPPED`).

    Examples
    --------
    >>> p_value_text(0.0312), p_value_text(0.00966, False)
    ('0.031', '≤ 0.0097 (stopped)')
    """
    text = format_p_value(p_value)
    if text == "–" or exact is pd.NA or exact is None or exact:
        return text
    return f"≤ {text} (stopped)"


def effect_text(value, sign=False):
    """An effect, or an end of its interval, as every view writes it: three
    decimals, never ``-0.000``, and a value that rounds to zero but is not
    zero with two significant digits, so that an interval beyond 0 never
    reads as touching it (``[+0.00031, +0.257]``, not ``[+0.000, +0.257]``);
    ``'–'`` for NaN.

    Examples
    --------
    >>> effect_text(0.25671, sign=True), effect_text(0.00031, sign=True), effect_text(-0.00004), effect_text(-0.0)
    ('+0.257', '+0.00031', '-0.00004', '0.000')
    """
    if pd.isna(value):
        return "–"
    value = float(value)
    if value == 0:
        return "0.000"
    if round(value, 3) == 0:
        return np.format_float_positional(value, precision=2, unique=False, fractional=False, trim="-", sign=sign)
    return f"{value:+.3f}" if sign else f"{value:.3f}"


#: What ``(stopped)`` after a p-value means.
STOPPED = (
    "'≤ p (stopped)': the test stopped drawing once the decision was settled, so p is an upper "
    "bound (more draws would only lower it; the decision would not change)"
)


def has_effects(table):
    """Whether ``table`` has the effect with its interval (:data:`EFFECT_COLUMNS`)."""
    return set(EFFECT_COLUMNS) <= set(table.columns)


def aggregated_effects(table):
    """Whether ``table`` aggregates many splits (``attrs['splits']``) and has the
    effects: then its ``delta``, interval and verdicts are the aggregate's,
    and its measure columns (``roc_auc_validation``, their intervals, the
    sizes) those of one split, the representative one (its column ``split``)."""
    return bool(table.attrs.get("splits")) and has_effects(table)


def effect_meaning(attrs):
    """What a positive ``delta`` means under the table's mode (e.g. 'lower in the subgroup')."""
    measure, mode = attrs.get("measure", "the measure"), attrs.get("mode", "worse")
    if attrs.get("case_mix"):
        return {"worse": f"{measure} further below what the scores promise in the subgroup than on "
                         "the whole split",
                "better": f"{measure} further above what the scores promise in the subgroup than "
                          "on the whole split"}.get(mode, f"the size of the deviation of {measure} "
                                                          "from what the scores promise")  # fmt: skip
    if measure == "calibration_gap":  # its modes 'under', 'over' and 'both', in words
        side = {"worse": "under", "better": "over"}.get(mode, "under- or over")
        return f"risk more {side}estimated in the subgroup than on the whole split"
    if mode == "both":
        return f"the size of the deviation of {measure}"
    return f"{measure} {mode} in the subgroup than on the whole split"


def effect_note(table, split="validation"):
    """HTML: the one-line note under the table saying what its Δ column is ('' without one).

    Parameters
    ----------
    table : pandas.DataFrame
        A ``find_subgroups`` table; the note needs its ``delta``,
        ``delta_ci_low`` and ``delta_ci_high`` columns.
    split : str, default='validation'
        The split the effects are measured on.

    Returns
    -------
    Html
    """
    if not has_effects(table):
        return Html("")
    attrs = table.attrs
    return Html(
        '<p class="note"><em>Δ [interval]</em>: {measure} on the subgroup\'s {split} rows minus on '
        "the whole {split} split, positive = {meaning}; {intervals}</p>"
    ).format(measure=attrs.get("measure", "the measure"), split=split, meaning=effect_meaning(attrs),
             intervals=intervals_text(attrs, 1 - attrs.get("alpha", 0.05)))  # fmt: skip


def splits_text(attrs):
    """How a table aggregated over many splits was tested (``attrs['splits']``), or ''."""
    splits = attrs.get("splits")
    if not splits:
        return ""
    over = planned_text(splits["n"], splits.get("planned", splits["n"]), splits.get("interrupted", False))
    return f"{over}, each testing at alpha {splits['split_alpha']:g} ({attrs.get('method', 'fdr_by')})"


def intervals_text(attrs, confidence=0.95):
    """One sentence: which intervals a table's Δ column has, and how they relate to ``significant``."""
    kind = attrs.get("intervals", "simultaneous")
    splits = attrs.get("splits")
    if splits:
        share = splits["level_share"]
        n = splits.get("planned", splits["n"])
        unfinished = "" if n == splits["n"] else " or did not finish" if splits.get("interrupted") else " or did not run"
        return (f"each interval aggregates the {n} splits' intervals (the {1 - share:.0%} quantile of "
                f"their low ends, the {share:.0%} quantile of their high ends; a split that did not test the row"
                f"{unfinished} counts as unbounded): it lies beyond 0 where {share:.0%} of the splits' intervals "
                "do.")  # fmt: skip
    if kind == "none":
        return ("no intervals: the subgroups were found and tested on the same rows, whose effects "
                "are biased upwards (the winner's curse); the test is the whole-search permutation test.")  # fmt: skip
    if kind == "fcr":
        beyond = "0" if not attrs.get("min_delta") else f"min_delta = {attrs['min_delta']:g}"
        return (f"each interval is at the {level_text(attrs.get('interval_level', 0.95))} level that matches the "
                "selection (Benjamini-Yekutieli false coverage-statement rate intervals); a row is "
                f"significant only where the test rejects and its interval lies beyond {beyond}.")  # fmt: skip
    return (f"the intervals are {level_text(confidence)} simultaneous over all rows (max-t), so they hold for "
            "any rows you pick; the test alone decides significance.")


def how_to_read(attrs, measure, effects=False):
    """The paragraphs that explain quality, weights, intervals and p-values (and the
    effects' simultaneous intervals when the table has them)."""
    method = multitest_alias.get(attrs.get("method", "fdr_by"))
    method_name = multitest_methods_names.get(method, attrs.get("method"))
    guarantee = {
        "fdr_by": "controls the false discovery rate under any dependence between the tests",
        "fdr_bh": "controls the false discovery rate for independent or positively dependent tests",
        "b": "controls the family-wise error rate under any dependence between the tests",
        "h": "controls the family-wise error rate under any dependence between the tests",
    }.get(method, "is documented with statsmodels' multipletests")
    mode = attrs.get("mode", "worse")
    n_samples = attrs.get("n_samples")
    alpha = attrs.get("alpha", 0.05)
    size_weight = attrs.get("size_weight", "alpha")
    balance_weight = attrs.get("balance_weight", "beta")
    floor = (
        f" (with {n_samples:,} {'label draws' if attrs.get('case_mix') else 'random subsets'} it is at "
        f"least 1/{n_samples + 1:,})"
        if isinstance(n_samples, (int, np.integer))
        else ""
    )
    generalization = (
        " The quality is generalization-aware: it only counts how much more "
        "exceptional a pattern is than its best shorter pattern, so refinements "
        "that add nothing rank low."
        if attrs.get("generalization_aware")
        else ""
    )
    adjective, preposition = {"worse": ("worse", "than"), "better": ("better", "than")}.get(
        mode, ("different", "from")
    )
    interval = (
        " The interval of the ROC AUC is DeLong's 95% confidence interval."
        if measure == "roc_auc" else ""
    )  # fmt: skip
    near_copies = (
        ", and a subgroup whose rows overlap a better one's by a Jaccard index above "
        f"{format_number(attrs['max_overlap'])} is listed under it as a \"near copy\" "
        "instead of taking a row of its own"
        if attrs.get("max_overlap") is not None else ""
    )
    difference = (
        Html("<em>Δ [interval]</em> is the difference from the whole split, positive = {}, with its "
             "interval (the note under the table says which)").format(effect_meaning(attrs))
        if effects else Html("<em>Δ whole data</em> is the difference from the whole split")
    )  # fmt: skip
    return Html("""<p>Each row is a subgroup (a pattern of conditions on the attributes) found on the
<em>search</em> split, best first. Its <strong>quality</strong> measures how much
{adjective} the classifier's <code>{measure}</code> is inside the subgroup
{preposition} on the whole data, multiplied by the weight
<code>size<sup>{size_weight}</sup> &times;
balance<sup>{balance_weight}</sup></code>, where balance is the
ratio of the smaller to the larger class: the weights favour large and balanced
subgroups, whose performance is both reliable and consequential.{generalization}</p>
<p>The table shows each subgroup on the {shown_on}: its size (and
share of the rows), its <code>{measure}</code>, {difference}.{interval} More columns (the search split, the quality,
<code>overlap</code> with better-ranked subgroups, other measures, error rates at the
threshold) are under "Columns". Descriptions of exactly the same rows are one row (the others
listed under it as "same rows"){near_copies}.</p>
{case_mix}
{test}""").format(
        adjective=adjective, measure=measure, preposition=preposition, size_weight=format_number(size_weight),
        balance_weight=format_number(balance_weight), generalization=generalization, interval=interval,
        difference=difference, near_copies=near_copies, case_mix=_case_mix_paragraph(attrs, measure),
        shown_on=Html("held-out <em>validation</em> split" if attrs.get("holdout", True)
                      else "<em>search</em> split (all rows: there is no holdout)"),
        test=_test_text(attrs, floor, method_name, guarantee, alpha))  # fmt: skip


def _case_mix_paragraph(attrs, measure):
    """What 'promised', the range-restriction notes and (with case mix) the quality mean."""
    if measure != "roc_auc" or "probabilities" not in attrs:
        return Html("")
    searched = Html(
        "The search ranked and tested the <strong>case-mix-adjusted</strong> drop instead: how "
        "much further the subgroup's ROC AUC falls short of what its scores promise than the "
        "whole data's does, <code>[promised(S) - AUC(S)] - [promised(D) - AUC(D)]</code>, so such "
        "slices are no finding." if attrs.get("case_mix") else
        "To rank and test by how much further a subgroup falls short of what its scores promise "
        "than the whole data, run with <code>case_mix=True</code> (<code>--case-mix</code>)."
    )  # fmt: skip
    return Html("""<p><em>promised</em> is the ROC AUC the subgroup's own scores promise: the expected
ROC AUC if the scores were the true probabilities (van Klaveren et al.'s model-based concordance;
probabilities: {probabilities}). A subgroup cut on a strong predictor
(an age band) has a narrower spread of risk, so every model, the true probabilities included,
ranks worse inside it: where at least half of a subgroup's drop is what its scores promise, it is
marked <em>mostly range restriction</em>, and two subgroups that are the two sides of one cut are
marked as such. {searched} The assumption: the scores are the probabilities up to a monotone
map.</p>""").format(probabilities=str(attrs["probabilities"]), searched=searched)


def _test_text(attrs, floor, method_name, guarantee, alpha):
    """The paragraph on the test: the holdout's randomization test (or, with case mix, labels
    drawn from the probabilities), or the permutation test without a holdout."""
    stopped = STOPPED[0].upper() + STOPPED[1:] + "."
    if not attrs.get("holdout", True):
        null = ("whose labels were drawn from the probabilities (what they would be if the scores were the "
                "true probabilities)" if attrs.get("case_mix") else
                "whose scores were shuffled within each class")  # fmt: skip
        return Html("""<p>There is no holdout: every subgroup was found and tested on all rows. Its
quality is compared with the best quality of the whole search (the same conditions, weights and
minimum support) on data {null}: the max-T test ({method}), which keeps the family-wise error rate
at most {alpha} over every pattern the search could have found. {stopped}
<strong>Significant</strong> rows have a p-value at most {alpha}.</p>""").format(
            null=null, method=str(attrs.get("method", "max-T")), alpha=format_number(alpha), stopped=stopped)
    null, drawn = (
        ("its quality when the labels are drawn from the probabilities (what it would be if the scores "
         "were the true probabilities)", "draws")
        if attrs.get("case_mix") else
        ("that of random subsets of the same size and class balance", "random subsets")
    )  # fmt: skip
    return Html("""<p>Every subgroup is tested on the validation split: its unweighted quality there is compared
with {null}. The p-value is, essentially, the share of {drawn} at least as exceptional{floor};
<em>p (corrected)</em> corrects all p-values together with the {method_name} method, which
{guarantee}. {stopped} <strong>Significant</strong> rows have a corrected p-value at most {alpha}
{rule}.</p>""").format(
        null=null, drawn=drawn, floor=floor, method_name=method_name, guarantee=guarantee, stopped=stopped,
        alpha=format_number(alpha), rule=_significance_rule(attrs))  # fmt: skip


def _significance_rule(attrs):
    """The interval's part of the decision, in words."""
    if attrs.get("intervals", "simultaneous") != "fcr":
        return ""
    beyond = "0" if not attrs.get("min_delta") else f"min_delta = {attrs['min_delta']:g}"
    return f"and an effect interval (at the false coverage-rate level) beyond {beyond}"


#: How the built-in measures are written in sentences.
_TITLES = {
    "roc_auc": "ROC AUC", "pr_auc": "PR AUC", "pr_auc_normalized": "normalized PR AUC", "arl": "average ranking loss",
    "attribution_mean": "attribution mean", "auc_mu": "AUC_mu", "calibration_gap": "calibration gap",
    "brier": "Brier score", "log_loss": "log loss",
}  # fmt: skip

#: The built-in measures where lower is better.
_LOSSES = frozenset({"arl", "brier", "log_loss", "calibration_gap"})


def measure_kind(measure, attrs=None):
    """``'loss'`` (lower is better) or ``'score'``: the table's ``measure_kind``,
    else the built-in measure's.

    Examples
    --------
    >>> measure_kind("arl"), measure_kind("pr_auc"), measure_kind("mine", {"measure_kind": "loss"})
    ('loss', 'score', 'loss')
    """
    return (attrs or {}).get("measure_kind") or ("loss" if measure in _LOSSES else "score")


def measure_title(measure):
    """A measure's name as written in a sentence (``'roc_auc'`` -> ``'ROC AUC'``,
    ``'brier_beyond_promise'`` -> ``'Brier score beyond its promise'``)."""
    measure = str(measure)
    if measure.endswith(SUFFIX) and measure != SUFFIX:
        return f"{measure_title(measure[:-len(SUFFIX)])} beyond its promise"
    return _TITLES.get(measure, measure)
