"""Case mix in the pipelines: what the scores promise, next to what the model does.

* :func:`split_probabilities`: each split's scores read as probabilities (a
  monotone map fitted once on the search split,
  :mod:`subroc_ext.inputs.probabilities`), in the data's row order; for
  both splits of a run, with the map: :func:`fitted_probabilities`;
* :func:`own_maps`: each pattern's map fitted on the search split without
  its rows (the headline's promise of its held-out rows is read through it);
* :func:`case_mix_data`: the splits with those probabilities as a column, the
  :class:`~subroc_ext.objective.case_mix.CaseMixTarget` and the quality
  functions of ``find_subgroups(case_mix=True)`` (search and test by
  ``q_cm``, SPEC's "Case mix");
* :func:`search_shortfall`: each row's shortfall from its promise on the search split, beyond
  the whole data's (the weights of the promise tests);
* :func:`range_restriction`: for every reported row, how much of its observed
  ROC AUC change the scores promise (``expected_share``), and whether that is
  at least half of it (``range_restricted``): the drop is then mostly the
  narrower spread of risk inside the subgroup, which every model, the true
  probabilities included, would show;
* :func:`check_case_mix`: the measures ``case_mix=True`` cannot search, refused with the reason;
* :func:`complements`: rows that are the two sides of one cut (``age < 66``
  and ``age >= 66``); when both are "worse", neither side is a failure of its
  own: each has a narrower spread of risk than the whole.
"""

import functools

import numpy as np
import pandas as pd

from ..inference.whole_calibration import whole_calibration
from ..inputs.probabilities import fit_probabilities, maps_without
from ..objective.case_mix import CaseMixQF, CaseMixTarget
from ..objective.generalization import GeneralizationAwareQF
from ..scoring import bitset
from ..scoring.measures import RowMeanMeasure
from .diversity import cover_words

__all__ = [
    "SHARE_OF_DROP",
    "split_probabilities",
    "fitted_probabilities",
    "own_maps",
    "case_mix_data",
    "with_probabilities",
    "case_mix_functions",
    "range_restriction",
    "search_shortfall",
    "complements",
    "check_case_mix",
]

#: A row's ROC AUC change is "mostly what its scores promise" when the
#: expected change is at least this share of the observed one.
SHARE_OF_DROP = 0.5


def split_probabilities(dataset, probabilities):
    """The probability of each row of a split, in its data's row order.

    Parameters
    ----------
    dataset : SortedDataset
    probabilities : Probabilities
        The map from scores to probabilities
        (:func:`~subroc_ext.inputs.probabilities.fit_probabilities`).

    Returns
    -------
    numpy.ndarray of float
        Non-decreasing in the score (a running maximum over the sorted rows
        guards the last bit of a fitted map), so rows keep their score order.
    """
    in_order = np.maximum.accumulate(probabilities(dataset.scores)) if len(dataset) else np.zeros(0)
    values = np.empty(len(dataset))
    values[dataset.order] = in_order
    return values


def fitted_probabilities(checked, calibrate, required):
    """Which scores are read as probabilities (a sentence), the map fitted on
    the search split (None if none could be) and each split's probabilities
    (data row order; None for no validation split).

    Parameters
    ----------
    checked : ValidatedData
    calibrate : {'auto', 'none', 'isotonic', 'sigmoid'}
        :func:`~subroc_ext.inputs.probabilities.fit_probabilities`'s.
    required : bool
        ``case_mix``: a score that cannot be read as a probability is an
        error; without, it gives NaN expected AUCs.

    Returns
    -------
    (str, Probabilities or None, (numpy.ndarray or None, numpy.ndarray or None))
    """
    search = checked.search
    try:
        probabilities = fit_probabilities(search.scores, search.is_positive, calibrate, checked.score)
    except ValueError as error:
        if required:
            raise
        return f"none: {error}", None, (None, None)
    splits = (search, checked.validation)
    return probabilities.description, probabilities, tuple(
        None if split is None else split_probabilities(split, probabilities) for split in splits
    )


def own_maps(search, calibrate, fitted):
    """Each pattern's own map from scores to probabilities: the map of
    ``calibrate`` fitted on the search split's rows outside the pattern
    (:func:`~subroc_ext.inputs.probabilities.maps_without`), so that a
    failure on the search split does not bend the map its held-out promise
    is read through. No held-out label is in the map: the held-out tests stay
    valid.

    With ``calibrate='auto'`` all search rows decide whether scores in [0, 1]
    are read as given: where the calibration check of
    :func:`~subroc_ext.inputs.probabilities.fit_probabilities` passes them
    and Cox's test does not reject
    (:func:`~subroc_ext.inference.whole_calibration.whole_calibration`, the
    global fix's decision too). Spiegelhalter's test, the check's, is nearly
    blind to a shift of the risk (``logit p + 0.4``), which the label draws
    of a large slice of held-out rows then find as its failure.

    Parameters
    ----------
    search : SortedDataset
    calibrate : {'auto', 'none', 'isotonic', 'sigmoid'}
    fitted : Probabilities
        The map of ``calibrate`` fitted on all of ``search``
        (:func:`fitted_probabilities`): with 'auto', whether its check read the
        scores as given (not fitted and checked again here).

    Returns
    -------
    callable
        A pysubgroup description to its
        :class:`~subroc_ext.inputs.probabilities.Probabilities` (a map, kept
        as a few numbers: a caller keeping probabilities of a million
        held-out rows for 100 patterns held 800 MB).
    """
    as_given = None
    if calibrate == "auto" and len(search) and search.scores.min() >= 0 and search.scores.max() <= 1:
        as_given = fitted.method == "none" and whole_calibration(search.is_positive, search.scores).calibrated
    maps = maps_without(search.scores, search.is_positive, calibrate, search.columns[1], as_given=as_given)
    return lambda subgroup: maps(search.mask_of(subgroup))


def _column(columns):
    """A column name for the probabilities that no input column has."""
    name = "probability"
    while name in columns:
        name = "_" + name
    return name


def case_mix_data(search, held_out, probabilities, label, score):
    """The search and validation frames with a probability column, and their target.

    Parameters
    ----------
    search : SortedDataset
    held_out : SortedDataset or None
        None without a holdout.
    probabilities : (numpy.ndarray, numpy.ndarray or None)
        :func:`split_probabilities` of each.
    label, score : str

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame or None, CaseMixTarget)
    """
    splits = [d for d in (search, held_out) if d is not None]
    column = _column([c for d in splits for c in d.data.columns])
    frames = [None if d is None else d.data.assign(**{column: p}) for d, p in zip((search, held_out), probabilities)]
    return (*frames, CaseMixTarget(label, score, column))


def with_probabilities(frame, probabilities, label, score):
    """``frame`` with a column of ``probabilities`` (named apart from its
    columns), and the :class:`CaseMixTarget` that reads it."""
    column = _column(frame.columns)
    return frame.assign(**{column: probabilities}), CaseMixTarget(label, score, column)


def case_mix_functions(label, *, positive_label, size_weight, balance_weight, mode, generalization_aware,
                       measure=None):  # fmt: skip
    """The search's quality function (weighted, maybe generalization-aware) and the test's (unweighted),
    of ``measure`` (:class:`CaseMixQF`'s; the ROC AUC by default)."""
    qf = CaseMixQF(label, positive_label=positive_label, size_weight=size_weight,
                   balance_weight=balance_weight, mode=mode, measure=measure)  # fmt: skip
    statistic_qf = CaseMixQF(label, positive_label=positive_label, mode=mode, measure=measure)
    return (GeneralizationAwareQF(qf) if generalization_aware else qf), statistic_qf


def range_restriction(table, dataset_values, mode, split="validation", measure=None):
    """How much of each row's change of the measure its scores promise.

    Parameters
    ----------
    table : pandas.DataFrame
        With ``<measure>_<split>`` and ``expected_<measure>_<split>``, and
        ``null_<measure>_<split>`` where the change is taken against the
        test's own null (the ARL's, whose whole-split values are then scaled
        by ``null / whole``: :meth:`~subroc_ext.Measure.reference`).
    dataset_values : dict
        The whole split's values of both (``table.attrs['dataset_values']``).
    mode : {'worse', 'better', 'both'}
        The direction of a change that counts ('both': the observed one).
    split : str, default='validation'
    measure : Measure, optional
        The measure (a loss's drop is a rise); the ROC AUC by default.

    Returns
    -------
    pandas.DataFrame
        ``expected_share``: the expected change (``mbc(V) - mbc(S)`` for a
        drop) over the observed one (``AUC(V) - AUC(S)``), NaN where the row
        has no change in the mode's direction or a measure is undefined;
        ``range_restricted``: ``expected_share >= SHARE_OF_DROP``.

    Examples
    --------
    >>> table = pd.DataFrame({"roc_auc_validation": [0.70, 0.70, 0.85],
    ...                       "expected_roc_auc_validation": [0.74, 0.80, 0.80]})
    >>> whole = {"roc_auc_validation": 0.80, "expected_roc_auc_validation": 0.82}
    >>> range_restriction(table, whole, "worse")
       expected_share  range_restricted
    0             0.8              True
    1             0.2             False
    2             NaN             False
    """
    name, kind = ("roc_auc", "score") if measure is None else (measure.name, measure.kind)
    flip = 1.0 if kind == "score" else -1.0
    whole = dataset_values[f"{name}_{split}"]
    # the change against the test's own null where the table has it (the ARL's: N(S)/N(V) of the whole's)
    scale = table[f"null_{name}_{split}"].to_numpy(dtype=float) / whole if f"null_{name}_{split}" in table else 1.0
    observed = flip * (scale * whole - table[f"{name}_{split}"].to_numpy(dtype=float))
    expected = flip * (scale * dataset_values[f"expected_{name}_{split}"]
                       - table[f"expected_{name}_{split}"].to_numpy(dtype=float))  # fmt: skip
    sign = {"worse": 1.0, "better": -1.0}.get(mode)
    sign = np.sign(observed) if sign is None else sign
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(sign * observed > 0, expected / observed, np.nan)
    share = np.round(share, 12)  # 0.5 is 0.5, not 0.49999999999999994
    return pd.DataFrame({"expected_share": share, "range_restricted": share >= SHARE_OF_DROP})


def complements(subgroups, search):
    """For each row, the rank (1 = first row) of the row that is its other
    side of one cut: the same columns, no row in common, and together every
    search row where those columns are not missing (``age < 66`` and
    ``age >= 66``); missing where none.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
        The table's rows, best first.
    search : SortedDataset
        The search split.

    Returns
    -------
    pandas.array of Int64
    """
    covers = cover_words(subgroups, search)  # bitsets: a row per subgroup in n / 8 bytes
    columns = [frozenset(s.attribute_name for s in getattr(sg, "selectors", ())) for sg in subgroups]
    partner = np.full(len(subgroups), -1)
    present = {}  # the rows where the columns are not missing, by column set
    for i, j in zip(*np.triu_indices(len(subgroups), 1)):
        if partner[i] >= 0 or partner[j] >= 0 or not columns[i] or columns[i] != columns[j]:
            continue
        if columns[i] not in present:
            known = search.data[sorted(columns[i])].notna().all(axis=1).to_numpy()
            present[columns[i]] = bitset.pack(known[search.order])
        if not (covers[i] & covers[j]).any() and ((covers[i] | covers[j]) == present[columns[i]]).all():
            partner[i], partner[j] = j, i
    return pd.array(np.where(partner >= 0, partner + 1, None), dtype="Int64")


def search_shortfall(table, dataset_values, measure):
    """Each row's shortfall on the search split: how much further its ``measure``
    fell short of its scores' promise there than the whole data's, higher
    worse (a loss's rise; None without a promise)."""
    name, sign = measure.name, (1.0 if measure.kind == "score" else -1.0)
    if f"expected_{name}_search" not in table or f"expected_{name}_search" not in dataset_values:
        return None
    whole = dataset_values[f"expected_{name}_search"] - dataset_values[f"{name}_search"]
    return sign * ((table[f"expected_{name}_search"] - table[f"{name}_search"]).to_numpy(dtype=float) - whole)


def check_case_mix(name, measure, case_mix, validation):
    """Refuse ``case_mix`` for a measure whose shortfall from its promise cannot be searched, saying why
    (``name``: the measure as given, ``measure``: the :class:`~subroc_ext.Measure`)."""
    if not case_mix or name == "roc_auc" or isinstance(measure, RowMeanMeasure):
        return
    if name in ("pr_auc", "pr_auc_normalized"):
        if validation is not None:
            return
        raise ValueError(f"case_mix=True for measure {name!r} needs a holdout (validation): its search ranks by "
                         "a ratio of expectations that only approximates the promise, and without a holdout the "
                         "test would have to permute that whole search; without case_mix its headline tests the "
                         "promise by label draws")  # fmt: skip
    why = ("its size-free value, the ARL per negative, is 1 - ROC AUC, so its shortfall from the promise is the "
           "ROC AUC's exactly: measure='roc_auc' with case_mix=True searches and tests that") if name == "arl" \
        else "it has no promise the search can compute"  # fmt: skip
    raise ValueError(f"case_mix=True searches by the shortfall from the promise, of the ROC AUC, the PR AUCs or a "
                     f"row mean (attribution_mean, calibration_gap, brier, log_loss, a RowMeanMeasure), not of "
                     f"measure {name!r}: {why}; without case_mix its headline tests the promise")  # fmt: skip
