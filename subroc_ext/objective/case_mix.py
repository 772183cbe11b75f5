"""Case-mix-aware quality: is the model worse here than its own scores promise?

A subgroup cut on the model's strongest predictor (``age >= 66``) has a
narrower spread of true risks, so any model, the true probabilities
included, ranks worse inside it: the ROC AUC drop ``q(S) = AUC(D) - AUC(S)``
calls that a failure. The expected ROC AUC ``mbc`` (the AUC the scores would
have if they were the true probabilities,
:class:`~subroc_ext.scoring.case_mix.ExpectedROCAUC`) falls with the spread
too, so the case-mix-adjusted quality (SPEC, "Case mix"), for
``mode='worse'``,

    q_cm(S) = [mbc(S) - AUC(S)] - [mbc(D) - AUC(D)],

is how much further the subgroup falls short of what its own scores promise
than the whole data does; ``'better'`` negates it, ``'both'`` takes
``|q_cm|``. It is a paired comparison (:class:`~subroc_ext.ComparisonQF`) of
two measures on the same rows: the expected ROC AUC of the probabilities
(side A, the "baseline") and the ROC AUC of the scores (side B). Everything
else comes with it: the weights and generalization awareness as for ``q``,
the optimistic estimate ``max_T mbc(T) - min_T AUC(T) - [mbc(D) - AUC(D)]``
from each side's extremes over subsets (both exact; ``tests/test_case_mix.py``
proves the bound by enumerating every subset of small covers), the compiled
search, the randomization test's machinery (adaptive p-values, the
correction) and the effect intervals (the jackknife of both measures'
exact delete-one changes). Only the test's null differs: the labels are
drawn from the probabilities (:meth:`CaseMixQF.null_raw_qualities`), not
random subsets as SPEC has it, which are no null for ``q_cm`` (see there).

The method's assumption: the scores are the probabilities up to a monotone
map. The probabilities are a column of the data
(:class:`CaseMixTarget`): the scores themselves when they lie in [0, 1], or a
monotone recalibration of them (:mod:`subroc_ext.inputs.probabilities`); a
monotone map leaves every AUC unchanged and only moves ``mbc``.

References
----------
.. [1] D. van Klaveren, M. Gönen, E. W. Steyerberg and Y. Vergouwe, "A new
   concordance measure for risk prediction models in external validation
   settings", Statistics in Medicine 35(23), 4136-4152, 2016.
"""

import zlib

import numpy as np

from ..scoring.case_mix import expected_measure, simulated_auc_changes
from ..scoring.measures import ROCAUC
from .comparison import ComparisonQF, ComparisonTarget

__all__ = ["CaseMixTarget", "CaseMixQF"]


class CaseMixTarget(ComparisonTarget):
    """Label, score and probability columns: a model against what its scores promise.

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    prediction_column : str
        The model's scores (higher = more likely positive).
    probability_column : str
        The scores as probabilities in [0, 1] (the scores themselves, or a
        monotone recalibration of them).

    Examples
    --------
    >>> CaseMixTarget("y", "score", "p")
    CaseMixTarget('y', 'score', probability='p')
    """

    def __init__(self, label_column, prediction_column, probability_column):
        super().__init__(label_column, prediction_column, probability_column)
        self.probability_column = probability_column

    def __repr__(self):
        return (
            f"CaseMixTarget({self.label_column!r}, {self.prediction_column!r}, "
            f"probability={self.probability_column!r})"
        )


class CaseMixQF(ComparisonQF):
    """Quality function of subgroups where the model falls short of what its scores promise.

    ``w(S) * q_cm(S)`` with the case-mix-adjusted ROC AUC drop ``q_cm`` of the
    module documentation; use it with a :class:`CaseMixTarget`.

    Parameters
    ----------
    label : str
        Label column.
    positive_label : object, default=1
    size_weight, balance_weight : float, default=0
        Weight exponents alpha and beta.
    mode : {'worse', 'better', 'both'}, default='worse'
    measure : Measure, optional
        The ROC AUC (default), the PR AUC or the normalized PR AUC, against
        what its scores promise (:func:`~subroc_ext.scoring.case_mix.expected_measure`:
        ``mbc`` or the PR AUC's ratio of expectations). The test's null
        (:meth:`null_raw_qualities`) is the ROC AUC's; the pipelines test the
        PR AUCs by their label draws
        (:class:`~subroc_ext.inference.promise.Promise`).

    Examples
    --------
    The scores are the true probabilities, except in group ``b``, where they
    are shuffled:

    >>> import numpy as np, pandas as pd, pysubgroup as ps
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(4000)
    >>> data = pd.DataFrame({"g": rng.choice(["a", "b"], 4000), "p": p,
    ...                      "y": (rng.random(4000) < p).astype(int)})
    >>> b = (data["g"] == "b").to_numpy()
    >>> data.loc[b, "p"] = rng.permutation(data.loc[b, "p"].to_numpy())
    >>> qf = CaseMixQF("y")
    >>> target = CaseMixTarget("y", "p", "p")
    >>> stats = qf.calculate_statistics(ps.Conjunction([ps.EqualitySelector("g", "b")]), target, data)
    >>> round(stats.baseline_measure, 2), round(stats.measure, 2), round(stats.raw_quality, 2)
    (0.84, 0.5, 0.16)
    """

    def __init__(self, label, *, positive_label=1, size_weight=0.0, balance_weight=0.0, mode="worse",
                 measure=None):  # fmt: skip
        measure = ROCAUC() if measure is None else measure
        promised = expected_measure(measure)
        if promised is None:
            raise ValueError(f"CaseMixQF compares the ROC AUC, the PR AUC or the normalized PR AUC with its "
                             f"promise, not measure {measure.name!r}")  # fmt: skip
        super().__init__(
            measure, label, positive_label=positive_label, size_weight=size_weight,
            balance_weight=balance_weight, mode=mode, baseline_measure=promised,
        )  # fmt: skip

    def calculate_constant_statistics(self, data, target):
        """Sort ``data`` by score and by probability, check the probabilities,
        and compute ``mbc`` and the AUC on the whole data."""
        if not isinstance(target, CaseMixTarget):
            raise TypeError(f"CaseMixQF needs a CaseMixTarget, got {target!r}")
        super().calculate_constant_statistics(data, target)
        expected = self.prepared_measures[0]
        self._probabilities = expected.prepared_values[np.argsort(self.sides.indices[0])]
        self._null_covers = {}

    # -- the test: labels drawn from the probabilities ----------------------

    def pattern_null_key(self, subgroup):
        """The key of ``subgroup``'s null distribution, which depends on its rows.

        :func:`~subroc_ext.randomization_test` draws one null distribution per
        key; the case-mix test draws labels for the pattern's own rows
        (:meth:`null_raw_qualities`), so each cover has its own key: its size,
        negatives and a CRC-32 of its rows. The cover is remembered for
        :meth:`null_raw_qualities`.
        """
        mask = self.sides.mask_of(subgroup)
        negatives = int((mask & ~self.sides.datasets[1].is_positive).sum())
        key = (int(mask.sum()), negatives, zlib.crc32(np.packbits(mask).tobytes()))
        self._null_covers[key] = mask
        return key

    def null_raw_qualities(self, key, n_samples, rng, *, batch_elements=4_000_000):
        """``q_cm`` of the pattern of ``key`` (:meth:`pattern_null_key`) when the
        labels are drawn from the probabilities.

        Under the method's assumption (the probabilities are the true ones),
        the rows' labels are independent draws ``y_i ~ Bernoulli(p_i)``; each
        sample draws every row's label, and ``q_cm`` is the pattern's
        ``[mbc(S) - AUC*(S)] - [mbc(D) - AUC*(D)]`` with the ROC AUCs ``AUC*``
        of those labels (the expected AUCs do not depend on the labels). A
        sample where the pattern lacks a class counts as ``+inf`` (as extreme
        as any statistic: conservative).

        Notes
        -----
        SPEC's test, random subsets of the same size and class counts, is not
        valid here: a slice of the strongest predictor has a narrower spread
        of probabilities than any random subset, so ``q_cm`` of random subsets
        is centred elsewhere (class-stratified draws change the spread of
        ``p``) and spread less (labels fixed). On data whose scores are the
        true probabilities, 14 of 20 datasets had a significant row with it;
        with labels drawn from the probabilities, the rate is nominal
        (``tests/test_case_mix_simulation.py``).
        """
        if type(self.measure) is not ROCAUC:
            raise ValueError(f"the null of q_cm draws ROC AUCs; test the case mix of {self.measure.name!r} by "
                             "its label draws (subroc_ext.inference.promise.Promise)")  # fmt: skip
        mask = self._null_covers[key]
        expected_change = self._expected_value(mask) - self.dataset_values[0]
        changes = np.empty(n_samples)
        simulated_auc_changes(
            int(rng.integers(2**32)), self._probabilities, self.sides.datasets[1].group_ids, mask, changes
        )
        difference = changes - expected_change
        if self.mode == "both":
            qualities = np.abs(difference)
        else:
            qualities = -difference if self.signs() == (-1,) else difference
        return np.where(np.isnan(qualities), np.inf, qualities)

    def _expected_value(self, mask):
        """``mbc`` of a canonical mask."""
        expected, cover = self.prepared_measures[0], self.sides.covers(mask)[0]
        return expected.value(cover)

    def __repr__(self):
        return (
            f"CaseMixQF(label={self.label!r}, positive_label={self.positive_label!r}, "
            f"size_weight={self.size_weight}, balance_weight={self.balance_weight}, mode={self.mode!r})"
        )
