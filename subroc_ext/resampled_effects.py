"""Effect sizes with simultaneous intervals for comparisons and for AUC_mu.

The counterpart of :func:`subroc_ext.effects.effect_intervals` for the
quality functions that are not a single binary measure:

* :class:`~subroc_ext.ComparisonQF` with a :class:`~subroc_ext.ComparisonTarget`
  (:func:`~subroc_ext.find_regressions`, paired): the effect is the raw
  quality's difference ``[m_new(S) - m_new(V)] - [m_base(S) - m_base(V)]``,
  oriented as the mode (for a score and ``mode='worse'`` that is ``Δ(S) =
  [m_base(S) - m_new(S)] - [m_base(V) - m_new(V)]``). The bootstrap resamples
  the validation rows once for both models (within each class), so the
  replicates keep the pairing.
* :class:`~subroc_ext.ComparisonQF` with a :class:`~subroc_ext.DriftTarget`
  (:func:`~subroc_ext.find_drift`, unpaired): ``[m(S ∩ C) - m(C)] - [m(S ∩ R)
  - m(R)]`` for the current period ``C`` and the reference ``R``; each
  period's rows are resampled separately (within each class).
* :class:`~subroc_ext.AUCMuQF`: ``AUC_mu(S ∩ V) - AUC_mu(V)``; the rows are
  resampled within each class.

Each replicate is a data frame of its own, prepared like the validation split
(the measures recomputed on it, attributions included), and the intervals are
the max-t intervals of :func:`subroc_ext.effects.max_t_intervals`, simultaneous
over the subgroups. ``tests/test_resampled_effects.py`` measures their
coverage by seeded simulation.

References
----------
.. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
   Chapman & Hall, 1993 (stratified resampling).
"""

import copy

import numpy as np
import pandas as pd

from .comparison import ComparisonQF, DriftTarget
from .effects import EFFECT_COLUMNS, check_effect_settings, max_t_intervals, oriented
from .multiclass import AUCMuQF
from .significance import base_seed

__all__ = ["resampled_effect_intervals"]


def resampled_effect_intervals(subgroups, data, qf, target, *, confidence=0.95, n_bootstrap=500,
                               random_state=None):  # fmt: skip
    """Each subgroup's effect on ``data`` with simultaneous bootstrap intervals.

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
    random_state : None, int or numpy.random.Generator
        Seeds the bootstrap (see :func:`~subroc_ext.significance.base_seed`).

    Returns
    -------
    pandas.DataFrame
        ``delta``, ``delta_ci_low``, ``delta_ci_high`` (the
        :data:`~subroc_ext.effects.EFFECT_COLUMNS`), one row per subgroup;
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
    >>> qf = subroc_ext.ComparisonQF(subroc_ext.measures.ROCAUC(), "label")
    >>> target = subroc_ext.ComparisonTarget("label", "new", "old")
    >>> resampled_effect_intervals([east], data, qf, target, n_bootstrap=200,
    ...                            random_state=0).round(2)  # east lost 0.25 more AUC
       delta  delta_ci_low  delta_ci_high
    0   0.25          0.22           0.28
    """
    if not isinstance(qf, (ComparisonQF, AUCMuQF)):
        raise TypeError(f"qf must be a ComparisonQF or an AUCMuQF, got {type(qf).__name__}")
    check_effect_settings(confidence, n_bootstrap)
    rng = np.random.default_rng(base_seed(random_state))
    qf = copy.copy(qf)  # prepared on every replicate; the caller's stays as it was
    qf.optimistic_estimates = False
    masks = np.array([np.asarray(s.covers(data), dtype=bool) for s in subgroups], dtype=bool)
    masks = masks.reshape(len(subgroups), len(data))
    data = data[_columns(qf, target)].reset_index(drop=True)
    difference = _differences(qf, target, data, masks)
    codes = _strata(qf, target, data)
    strata = [np.flatnonzero(codes == code) for code in np.unique(codes)]
    replicates = np.full((n_bootstrap, len(subgroups)), np.nan)
    defined = np.flatnonzero(~np.isnan(difference))
    for b in range(n_bootstrap):
        rows = np.sort(np.concatenate([rng.choice(members, len(members)) for members in strata]))
        replicate = data.iloc[rows].reset_index(drop=True)
        try:
            replicates[b, defined] = _differences(qf, target, replicate, masks[defined][:, rows])
        except ValueError:  # the measure is undefined on this replicate's whole split
            continue
    low, high = max_t_intervals(difference, replicates, confidence, rng)
    if qf.mode == "both":
        sign = np.where(difference < 0, -1.0, 1.0)
    else:
        sign = np.full(len(subgroups), _sign(qf))
    return pd.DataFrame(oriented(difference, low, high, sign), columns=EFFECT_COLUMNS)


def _columns(qf, target):
    """The columns a replicate needs."""
    if isinstance(qf, AUCMuQF):
        return [target.label_column, *target.score_columns.values()]
    columns = [target.label_column, target.prediction_column]
    if isinstance(target, DriftTarget):
        return [*columns, target.period_column]
    return [*columns, target.baseline_column]


def _strata(qf, target, data):
    """Integer codes of the strata resampled separately: the classes (and the periods)."""
    if isinstance(qf, AUCMuQF):
        return pd.factorize(data[target.label_column])[0]
    codes = (data[target.label_column] == qf.positive_label).to_numpy(dtype=np.int64)
    if isinstance(target, DriftTarget):
        codes = codes + 2 * (data[target.period_column] == target.current).to_numpy(dtype=np.int64)
    return codes


def _sign(qf):
    """+1 where the oriented effect is the signed difference, -1 where it is its negative."""
    if isinstance(qf, AUCMuQF):
        return -1.0 if qf.mode == "worse" else 1.0
    return float(qf.signs()[0])


def _differences(qf, target, data, masks):
    """The signed differences of the covers ``masks`` (rows of ``data``), NaN where undefined."""
    qf.calculate_constant_statistics(data, target)
    statistics = [qf.calculate_statistics(mask, target, data) for mask in masks]
    if isinstance(qf, AUCMuQF):
        return np.array([s.measure for s in statistics], dtype=float) - qf.dataset_value
    reference_a, reference_b = qf.dataset_values
    return np.array(
        [(s.measure - reference_b) - (s.baseline_measure - reference_a) for s in statistics],
        dtype=float,
    )
