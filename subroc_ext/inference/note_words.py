"""The words of the headline's notes: how a row's direction, its slice of the
risk and its finding are said, by mode and by measure (the rules themselves:
:mod:`~subroc_ext.inference.failures`)."""

import dataclasses
from dataclasses import dataclass

__all__ = ["BY_PROMISE", "CASE_MIX_WORDS", "FINDING_NOUN", "NOTE_WORDS", "SLICE_WORDS", "NoteWords", "note_words",
           "promised_share"]

#: How the note of a failure "by its promise" (without a holdout) begins.
BY_PROMISE = "by its promise"


@dataclass(frozen=True)
class NoteWords:
    """How the notes word a direction: the comparison, a failure by its
    promise, the slice its scores explain (how its note begins, and what
    every model does there), a row beyond its promise, and its change."""

    than: str
    beyond: str = ""
    slice: str = ""
    every: str = ""
    gap: str = ""
    change: str = ""


#: The notes' words by direction ('both': neutral, where a row's side is not known).
NOTE_WORDS = {
    "worse": NoteWords(
        "worse than", "falls short both of what its own scores promise and of the whole data's ranking",
        "range restriction", "every model ranks worse in such a slice, whose risks spread less",
        "its scores promise more than it delivers", "drop"),
    "better": NoteWords(
        "better than", "exceeds both what its own scores promise and the whole data's ranking",
        "wider spread of risk", "every model ranks better in such a slice",
        "it delivers more than its scores promise", "gain"),
    "both": NoteWords(
        "different from", "differs both from what its own scores promise and from the whole data", "case mix",
        "its own scores promise this change", "it delivers other than its scores promise", "change"),
}  # fmt: skip

#: The slice a measure's own scores explain, by measure and direction: how its
#: note begins, and what every model does there (the ROC AUC's and the ARL's,
#: ``1 - AUC`` per negative: :data:`NOTE_WORDS`; a user's measure: :data:`CASE_MIX_WORDS`).
SLICE_WORDS = {
    "pr_auc": {
        "worse": ("lower prevalence", "every model's PR AUC is lower in such a slice, whose positives are rarer or "
                  "whose risks spread less"),
        "better": ("higher prevalence", "every model's PR AUC is higher in such a slice, whose positives are more "
                   "common or whose risks spread more"),
    },
    "attribution_mean": {
        "worse": ("case mix", "the true probabilities would earn such rows no more credit"),
        "better": ("case mix", "the true probabilities would earn such rows as much credit"),
    },
    "calibration_gap": {
        "worse": ("global miscalibration", "the scores recalibrated on the whole search split promise this gap"),
        "better": ("global miscalibration", "the scores recalibrated on the whole search split promise this gap"),
    },
    **{name: {
        "worse": ("risks nearer one half", f"every model's {title} is larger where the risks are nearer one half"),
        "better": ("risks nearer 0 or 1", f"every model's {title} is smaller where the risks are nearer 0 or 1"),
    } for name, title in (("brier", "Brier score"), ("log_loss", "log loss"))},
}  # fmt: skip
#: The same for a measure :data:`SLICE_WORDS` does not know.
CASE_MIX_WORDS = ("case mix", "its own scores promise this much: the true probabilities would do no better here")


def note_words(mode, measure="roc_auc"):
    """The :class:`NoteWords` of a direction (``mode``) for the named
    ``measure``: :data:`NOTE_WORDS` with the slice its scores explain in the
    measure's words.

    Examples
    --------
    >>> note_words("worse", "pr_auc").slice, note_words("worse", "arl").slice
    ('lower prevalence', 'range restriction')
    """
    words = NOTE_WORDS[mode]
    if measure in ("roc_auc", "arl") or mode == "both":
        return words
    slice_, every = SLICE_WORDS.get(measure, {}).get(mode, CASE_MIX_WORDS)
    return dataclasses.replace(words, slice=slice_, every=every)


def promised_share(share, words, failure, article="the"):
    """How much of a row's change its own scores promise (``share``, the
    expected ROC AUC's share of the drop), in ``words``: a failure's rest is
    the model's ("not the other 40%"); any other row's change is mostly, or
    all, the slice its scores explain. ``article``: "the" in the headline's
    sentence, "this" in the report's table cell beside the row.

    Examples
    --------
    >>> worse = note_words("worse")
    >>> promised_share(0.6, worse, failure=True)
    'its scores promise 60% of the drop (range restriction), not the other 40%'
    >>> promised_share(0.6, worse, failure=False, article="this")
    'mostly range restriction (its scores promise 60% of this drop)'
    >>> promised_share(1.15, worse, failure=False)
    'all range restriction (its scores promise a larger drop, 115% of it)'
    """
    if share <= 1 and failure:
        rest = f"not the other {1 - share:.0%}"
        return f"its scores promise {share:.0%} of {article} {words.change} ({words.slice}), {rest}"
    if share <= 1:
        return f"mostly {words.slice} (its scores promise {share:.0%} of {article} {words.change})"
    return f"all {words.slice} (its scores promise a larger {words.change}, {share:.0%} of it)"


#: What the headline calls a row the rules keep, by mode: a finding where the
#: model does better is no failure of it ('both': either side).
FINDING_NOUN = {"worse": "failure", "better": "finding", "both": "finding"}
