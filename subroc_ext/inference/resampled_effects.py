"""Effect sizes with simultaneous intervals for comparisons and for AUC_mu.

The counterpart of :func:`subroc_ext.inference.effects.effect_intervals` for the
quality functions that are not a single binary measure:

* :class:`~subroc_ext.ComparisonQF` with a :class:`~subroc_ext.ComparisonTarget`
  (:func:`~subroc_ext.find_regressions`, paired): the effect is the raw
  quality's difference ``[m_new(S) - m_new(V)] - [m_base(S) - m_base(V)]``,
  oriented as the mode (for a score and ``mode='worse'`` that is ``Δ(S) =
  [m_base(S) - m_new(S)] - [m_base(V) - m_new(V)]``). The jackknife or
  the bootstrap leaves out or resamples the validation rows once for both
  models (within each class), so they keep the pairing.
* :class:`~subroc_ext.ComparisonQF` with a :class:`~subroc_ext.DriftTarget`
  (:func:`~subroc_ext.find_drift`, unpaired): ``[m(S ∩ C) - m(C)] - [m(S ∩ R)
  - m(R)]`` for the current period ``C`` and the reference ``R``; each
  period's rows are left out or resampled separately (within each class).
* :class:`~subroc_ext.objective.case_mix.CaseMixQF` (``case_mix=True``): the
  paired comparison of the expected ROC AUC of the probabilities and the ROC
  AUC of the scores on the same rows, ``Δ = [mbc(S) - AUC(S)] - [mbc(V) -
  AUC(V)]`` for ``mode='worse'``; jackknifed as a paired ROC AUC comparison,
  the expected AUC's exact delete-one changes in place of the baseline's.
* :class:`~subroc_ext.AUCMuQF`: ``AUC_mu(S ∩ V) - AUC_mu(V)``.

For **ROC AUC comparisons** the effect is a linear combination of four AUCs
on nested row sets, and every row's exact delete-one change of each AUC is
known (:func:`subroc_ext.inference.influence.auc_influence`, DeLong's structural
components [2]_): paired, a row's changes of both models' AUCs enter its
one coordinate (both models share the rows and their classes); unpaired,
each period's rows are their own strata (the periods are independent, so
their covariances add). The class-stratified jackknife [3]_ turns these
into standard errors, and the intervals are ``delta ± c * se`` with
Šidák's critical value ``c`` over the subgroups
(:func:`subroc_ext.inference.effects.jackknife_spread`). No resampling: 0.2 s CPU
for 100 subgroups of a 12,000-row paired split, against 27 s for the
500-replicate bootstrap, whose standard errors were 5-11 % below the real
spread (simultaneous coverage 90 % paired, 93 % drift). In the seeded
simulations of ``tests/test_resampled_effects.py`` (10 patterns, 500
validation splits of 3,000 rows, truth from 1,000,000 rows) the jackknife
intervals covered all true effects at once in 94.4 % (paired; 93 % with the
smaller max-t critical value) and 96.2 % (drift) of the splits.

Comparisons of **other measures** resample: each bootstrap replicate
prepares the measure anew on each side (attributions included), and the
intervals are the simultaneous studentized percentile intervals of
:func:`subroc_ext.inference.effects.bootstrap_spread`.

AUC_mu is the mean of the class pairs' ROC AUCs, so, as for the ROC AUC in
:mod:`subroc_ext.inference.effects`, every row's exact delete-one change of it is known
(the mean of its changes of the pair AUCs): the intervals are the
class-stratified jackknife's max-t intervals on the logit scale of
:class:`subroc_ext.inference.jackknife.ScaledJackknife` (no resampling; 98.4 %
simultaneous coverage in the same simulation).

References
----------
.. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
   Chapman & Hall, 1993 (stratified resampling).
.. [2] E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
   areas under two or more correlated receiver operating characteristic
   curves: a nonparametric approach", Biometrics 44(3), 837-845, 1988.
.. [3] B. Efron and C. Stein, "The jackknife estimate of variance", Annals
   of Statistics 9(3), 586-596, 1981.
"""

import copy

import numpy as np
import pandas as pd  # noqa: F401 (the examples)

from ..objective.comparison import ComparisonQF
from ..objective.multiclass import AUCMuQF
from ..scoring import cover_kernels
from ..scoring.compiled_measures import compiled_kind
from .effects import (
    EffectEstimates,
    NormalSpread,
    bootstrap_spread,
    check_effect_settings,
    jackknife_spread,
    replicate_differences,
    stratified_draw,
)
from .influence import auc_influence, expected_auc_influence
from .jackknife import ScaledJackknife
from .significance import base_seed

__all__ = ["resampled_effect_estimates", "resampled_effect_intervals"]


def resampled_effect_intervals(subgroups, data, qf, target, *, confidence=0.95, n_bootstrap=500,
                               random_state=None):  # fmt: skip
    """Each subgroup's effect on ``data`` with simultaneous intervals.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
        Anything with ``covers(data)``.
    data : pandas.DataFrame
        The validation split (both periods for a DriftTarget).
    qf : ComparisonQF or AUCMuQF
        Its measure and mode define the effect (weights are not used).
    target : ComparisonTarget, DriftTarget or MultiClassTarget
    confidence : float, default=0.95
        Probability that all intervals cover their true effects at once.
    n_bootstrap : int, default=500
        Bootstrap replicates of a comparison of a measure other than ROC
        AUC (ROC AUC comparisons and AUC_mu need none).
    random_state : None, int or numpy.random.Generator
        Seeds the bootstrap (see :func:`~subroc_ext.inference.significance.base_seed`).

    Returns
    -------
    pandas.DataFrame
        ``delta``, ``delta_ci_low``, ``delta_ci_high`` (the
        :data:`~subroc_ext.inference.effects.EFFECT_COLUMNS`), one row per subgroup;
        NaN where the measure is undefined on a cover, NaN bounds where the
        replicates give no spread.

    Examples
    --------
    >>> import pysubgroup as ps, subroc_ext
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west"], 2000),
    ...                      "label": rng.integers(0, 2, 2000)})
    >>> data["old"] = 0.5 * data["label"] + 0.5 * rng.random(2000)
    >>> data["new"] = np.where(data["region"] == "east", rng.random(2000), data["old"])
    >>> east = ps.Conjunction([ps.EqualitySelector("region", "east")])
    >>> qf = subroc_ext.ComparisonQF(subroc_ext.scoring.measures.ROCAUC(), "label")
    >>> target = subroc_ext.ComparisonTarget("label", "new", "old")
    >>> resampled_effect_intervals([east], data, qf, target).round(2)  # east lost 0.25 more AUC
       delta  delta_ci_low  delta_ci_high
    0   0.25          0.23           0.27
    """
    check_effect_settings(confidence, n_bootstrap)
    estimates = resampled_effect_estimates(subgroups, data, qf, target, n_bootstrap=n_bootstrap,
                                           random_state=random_state)  # fmt: skip
    return estimates.simultaneous(confidence)


def resampled_effect_estimates(subgroups, data, qf, target, *, n_bootstrap=500, random_state=None):
    """Each subgroup's effect on ``data`` and what its intervals need.

    The parameters are those of :func:`resampled_effect_intervals` (without
    ``confidence``).

    Returns
    -------
    subroc_ext.inference.effects.EffectEstimates
        ``.simultaneous(confidence)`` is :func:`resampled_effect_intervals`;
        ``.marginal(confidence)`` each row's own interval.
    """
    if not isinstance(qf, (ComparisonQF, AUCMuQF)):
        raise TypeError(f"qf must be a ComparisonQF or an AUCMuQF, got {type(qf).__name__}")
    check_effect_settings(0.5, n_bootstrap)
    rng = np.random.default_rng(base_seed(random_state))
    qf = copy.copy(qf)  # prepared here; the caller's stays as it was
    if isinstance(qf, AUCMuQF):
        difference, spread = _auc_mu_spread(subgroups, data, qf, target, rng)
        method = "jackknife"
    else:
        difference, spread, method = _comparison_spread(subgroups, data, qf, target, n_bootstrap, rng)
    if qf.mode == "both":
        sign = np.where(difference < 0, -1.0, 1.0)
    else:
        sign = np.full(len(subgroups), _sign(qf))
    return EffectEstimates(difference, sign, spread, method)


def _comparison_spread(subgroups, data, qf, target, n_bootstrap, rng):
    """The signed differences of differences, their spread and how it was estimated."""
    qf.optimistic_estimates = False  # the statistics need no bounds
    qf.calculate_constant_statistics(data, target)
    statistics = [qf.calculate_statistics(subgroup, target, data) for subgroup in subgroups]
    reference_a, reference_b = qf.dataset_values
    difference = np.array(
        [(s.measure - reference_b) - (s.baseline_measure - reference_a) for s in statistics],
        dtype=float,
    )
    sides, defined = qf.sides, ~np.isnan(difference)
    masks = np.array([sides.mask_of(subgroup) for subgroup in subgroups], dtype=bool)
    masks = masks.reshape(len(subgroups), len(sides))[defined]
    kinds = [compiled_kind(measure) for measure in qf.measures]
    if kinds[1] == cover_kernels.ROC_AUC and kinds[0] in _INFLUENCE:
        return difference, _roc_auc_jackknife(sides, masks, difference, defined, kinds), "jackknife"
    # each side's covers over its sorted rows, and each side's classes there
    side_masks = [masks[:, index] for index in sides.indices]
    classes = [(np.flatnonzero(d.is_positive), np.flatnonzero(~d.is_positive)) for d in sides.datasets]
    if sides.paired:  # canonical row -> position among each side's sorted rows
        positions = [np.argsort(index) for index in sides.indices]
    replicates = np.full((n_bootstrap, len(subgroups)), np.nan)
    for replicate in range(n_bootstrap):
        if sides.paired:  # the same rows for both models (the canonical order is the new model's)
            rows = stratified_draw(classes[1], rng)
            draws = [np.sort(position[rows]) for position in positions]
        else:  # each period's rows on their own
            draws = [stratified_draw(members, rng) for members in classes]
        side_a, side_b = (
            replicate_differences(measure, dataset, covers, drawn)
            for measure, dataset, covers, drawn in zip(qf.measures, sides.datasets, side_masks, draws)
        )
        replicates[replicate, defined] = side_b - side_a
    return difference, bootstrap_spread(difference, replicates), "bootstrap"


#: The exact delete-one changes of each jackknifed kind on a side's sorted rows.
_INFLUENCE = {
    cover_kernels.ROC_AUC: lambda dataset, mask: auc_influence(dataset.is_positive, dataset.group_ids, mask),
    cover_kernels.EXPECTED_ROC_AUC: lambda dataset, mask: expected_auc_influence(dataset.scores, mask),
}


def _roc_auc_jackknife(sides, masks, difference, defined, kinds):
    """The spread of ROC AUC comparisons from the exact delete-one changes of
    the four AUCs (``masks``: the ``defined`` subgroups' covers; NaN where a
    side's cover has fewer than two rows of a class): each row's change of
    ``[m_B(S) - m_B(V)] - [m_A(S) - m_A(V)]`` over the canonical rows (a row
    of both models when paired, of one period when not). Side A may hold the
    expected ROC AUC instead (``kinds``, the case-mix comparison), whose
    changes come from
    :func:`~subroc_ext.inference.influence.expected_auc_influence`."""
    side_masks = [masks[:, index] for index in sides.indices]
    estimable = np.ones(len(masks), dtype=bool)
    for dataset, covers in zip(sides.datasets, side_masks):
        positives = (covers & dataset.is_positive).sum(axis=1)
        estimable &= (positives >= 2) & (covers.sum(axis=1) - positives >= 2)
    coordinates = np.zeros((len(sides), estimable.sum()))
    strata = []
    for dataset, covers, index, sign, kind in zip(sides.datasets, side_masks, sides.indices, (-1, 1), kinds):
        influence = _INFLUENCE[kind]
        whole = influence(dataset, np.ones(len(dataset), dtype=bool))
        for k, mask in enumerate(covers[estimable]):
            part = influence(dataset, mask)
            coordinates[index, k] += sign * (part[1] - whole[1])
        if not sides.paired or sign == 1:  # paired: both models share the rows and classes
            strata += [np.isin(np.arange(len(sides)), index[members])
                       for members in (dataset.is_positive, ~dataset.is_positive)]  # fmt: skip
    error = np.full(len(difference), np.nan)
    rows = np.flatnonzero(defined)[estimable]
    spread = jackknife_spread(difference[rows], coordinates, strata)
    error[rows] = spread.error
    return NormalSpread(difference, error, spread.simultaneous_critical)


def _auc_mu_spread(subgroups, data, qf, target, rng):
    """AUC_mu's differences and their jackknife spread: AUC_mu
    is the mean of the class pairs' ROC AUCs, so each row's exact delete-one
    change of it is the mean of its changes of the pair AUCs."""
    qf.calculate_constant_statistics(data, target)
    projections = qf.projections
    masks = np.array([qf.mask_of(subgroup) for subgroup in subgroups], dtype=bool)
    masks = masks.reshape(len(subgroups), len(data))
    counts = np.array([projections.class_counts(mask) for mask in masks]).reshape(-1, len(qf.classes))
    estimable = (counts >= 2).all(axis=1)

    def influence(mask):
        value, terms = 0.0, np.zeros(len(mask))
        for rows, is_first, group_ids in projections.pair_rows():
            auc, pair_terms = auc_influence(is_first, group_ids, mask[rows])
            value += auc / len(projections.pairs)
            terms[rows] += pair_terms / len(projections.pairs)
        return value, terms

    whole = influence(np.ones(len(data), dtype=bool))
    difference = np.array([projections.value(mask) for mask in masks]) - qf.dataset_value
    # half a pair of the smallest pair away from 0 and 1
    smallest = np.sort(np.vstack([counts[estimable], projections.class_counts()]), axis=1)
    margins = 0.5 / (smallest[:, 0] * smallest[:, 1])
    strata = [projections.codes == k for k in range(len(qf.classes))]
    def parts():
        return (influence(masks[j]) for j in np.flatnonzero(estimable))

    spread = ScaledJackknife(parts, *whole, margins, strata, rng, rows=estimable)
    return difference, spread


def _sign(qf):
    """+1 where the oriented effect is the signed difference, -1 where it is its negative."""
    if isinstance(qf, AUCMuQF):
        return -1.0 if qf.mode == "worse" else 1.0
    return float(qf.signs()[0])


