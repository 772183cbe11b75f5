"""pysubgroup quality functions of the calibration measures.

:class:`CalibrationGapQF`, :class:`BrierQF` and :class:`LogLossQF` take the
arguments of the AUC quality functions (:class:`~subroc_ext.PRAUCQF`) and
score a subgroup by ``n^alpha * cb^beta * q`` with ``q`` the measure's
difference to the whole data (:mod:`subroc_ext.scoring.calibration`). They
read the score column of ``subroc_ext.SoftClassifierTarget(label, score)``
as probabilities and refuse scores outside [0, 1].

Examples
--------
>>> import pandas as pd, pysubgroup as ps, subroc_ext
>>> data = pd.DataFrame({"label": [1, 1, 0, 0, 1, 0], "score": [0.2, 0.2, 0.2, 0.5, 0.5, 0.5],
...                      "group": ["a", "a", "a", "b", "b", "b"]})
>>> qf = CalibrationGapQF("label", 1, mode="under")
>>> target = subroc_ext.SoftClassifierTarget("label", "score")
>>> qf.calculate_constant_statistics(data, target)
>>> stats = qf.calculate_statistics(ps.EqualitySelector("group", "a"), target, data)
>>> round(stats.measure, 3), round(stats.quality, 3)  # observed 2/3, promised 0.2
(0.467, 0.317)
"""

from ..scoring import calibration as _calibration
from .quality import PositiveLabelQF

__all__ = ["CalibrationGapQF", "BrierQF", "LogLossQF"]


class CalibrationGapQF(PositiveLabelQF):
    """Relative calibration gap ``mean (y - p)`` (observed rate minus promised).

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    positive_label_value : object
        Label of the positive class.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the class balance.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    mode : {'under', 'over', 'both'}, default='under'
        'under': the risk is underestimated more than on the whole data
        (``g(S) - g(D)``; also called 'worse'), 'over': overestimated more
        ('better'), 'both': either (``|g(S) - g(D)|``).
    """

    _make_measure = staticmethod(_calibration.calibration_gap)

    def __init__(self, label_column, positive_label_value, subgroup_class_balance_weight=0,
                 subgroup_size_weight=0, *, mode="under"):  # fmt: skip
        super().__init__(label_column, positive_label_value, subgroup_class_balance_weight,
                         subgroup_size_weight, mode=mode)  # fmt: skip


class BrierQF(PositiveLabelQF):
    """Relative Brier score ``mean (y - p)**2`` (a loss).

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    positive_label_value : object
        Label of the positive class.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the class balance.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.
    """

    _make_measure = staticmethod(_calibration.brier_score)


class LogLossQF(PositiveLabelQF):
    """Relative log loss ``mean -[y log p + (1 - y) log(1 - p)]`` (``p``
    clipped to ``[1e-15, 1 - 1e-15]``).

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    positive_label_value : object
        Label of the positive class.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the class balance.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.
    """

    _make_measure = staticmethod(_calibration.log_loss)
