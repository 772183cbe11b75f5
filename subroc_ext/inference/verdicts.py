"""One verdict per row: the test's decision and the interval shown beside it agree.

The randomization test (:mod:`subroc_ext.inference.significance`) selects
patterns by a Benjamini-Yekutieli (or another) correction; simultaneous
intervals (:meth:`~subroc_ext.inference.effects.EffectEstimates.simultaneous`)
cover all rows at once. Two error rates give two answers: a row can be
significant while its interval includes 0, or not significant while it
excludes 0. A reader cannot act on that.

**The matching interval** (``intervals='fcr'``, the default): Benjamini and
Yekutieli's false coverage-statement rate intervals [1]_. If ``R`` of ``m``
tested rows are selected, each row gets its own (marginal) interval at level

* ``1 - R alpha / (m H(m))`` for ``method='fdr_by'`` (``H`` the harmonic
  number; FCR <= alpha under any dependence, for any selection rule),
* ``1 - R alpha / m`` for the other FDR methods (BH and its variants; under
  independence or positive dependence),
* ``1 - alpha / m`` for the family-wise methods (Bonferroni, Holm, ...):
  simultaneous by Bonferroni,

and ``R`` is taken as 1 when nothing is selected (the level the first
selection would need). A row is **significant** when the test rejects *and*
its interval lies beyond ``min_delta`` (``delta_ci_low > min_delta``; 0 by
default). That rule selects fewer rows, which widens every interval (a
smaller ``R``), so it is applied until ``R`` no longer changes (a fixed
point, reached from above). The FCR guarantee holds for any selection rule,
so it holds for this one; and since a selected row whose true effect is at
most ``min_delta`` has an interval that misses it, the rate of such false
findings among the selected is at most the FCR, that is at most ``alpha``
(``tests/test_verdicts.py`` checks both by simulation).

Where the test and the interval cannot be made dual - the test is an exact
Monte Carlo test against random subsets, the interval a jackknife (or
bootstrap) normal approximation - a row whose interval excludes 0 but whose
test does not reject stays not significant, and ``verdict_note`` says so;
so does a row with no interval (too few rows of a class), where the test
alone decides (with ``min_delta = 0``).

With ``intervals='simultaneous'`` the test alone decides, as before 0.3
(plus ``min_delta``), the intervals are the simultaneous ones at ``1 -
alpha``, and ``verdict_note`` flags every row where they disagree.

References
----------
.. [1] Y. Benjamini and D. Yekutieli, "False discovery rate-adjusted multiple
   confidence intervals for selected parameters", Journal of the American
   Statistical Association 100(469), 71-81, 2005.
"""

import math
import numbers

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multitest_alias

from ..utils.names import INTERVALS
from .effects import EFFECT_COLUMNS

__all__ = [
    "INTERVALS",
    "UNTESTABLE",
    "VERDICT_COLUMNS",
    "check_verdict_settings",
    "interval_level",
    "level_text",
    "same_rows_verdicts",
    "verdicts",
]


#: The columns :func:`verdicts` adds.
VERDICT_COLUMNS = ["verdict", "verdict_note"]

#: The verdict of a row whose measure is undefined on the rows it is tested on.
UNTESTABLE = "untestable"

#: Why a no-holdout row has no interval.
SAME_ROWS = "no interval: chosen and tested on the same rows (the winner's curse biases the effect upwards)"


def check_verdict_settings(intervals, min_delta):
    """Raise one ``ValueError`` naming a bad ``intervals`` or ``min_delta``."""
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {list(INTERVALS)}, got {intervals!r}")
    if not (isinstance(min_delta, numbers.Real) and not isinstance(min_delta, bool)
            and math.isfinite(min_delta) and min_delta >= 0):  # fmt: skip
        raise ValueError(f"min_delta must be a finite number >= 0, got {min_delta!r}")


def interval_level(method, alpha, n_tests, n_selected):
    """The confidence of each interval that matches a selection (see the module notes).

    Parameters
    ----------
    method : str
        The ``multipletests`` method of the selection.
    alpha : float
    n_tests : int
        ``m``: rows tested together (the correction's family).
    n_selected : int
        ``R``: rows selected (1 is used when 0).

    Returns
    -------
    float

    Examples
    --------
    >>> round(interval_level("fdr_by", 0.05, 100, 10), 5)  # 1 - 10 * 0.05 / (100 * H(100))
    0.99904
    >>> interval_level("fdr_bh", 0.05, 100, 10), interval_level("holm", 0.05, 100, 10)
    (0.995, 0.9995)
    """
    family = multitest_alias[method]
    n_tests = max(int(n_tests), 1)
    if family in ("b", "s", "h", "hs", "sh", "ho"):  # family-wise: Bonferroni's simultaneous level
        return 1 - alpha / n_tests
    share = max(int(n_selected), 1) * alpha / n_tests
    if family == "fdr_by":
        share /= np.sum(1 / np.arange(1, n_tests + 1))
    return 1 - share


def level_text(level):
    """A confidence level in percent with the digits that tell it from 100 %.

    Examples
    --------
    >>> level_text(0.95), level_text(0.993953), level_text(0.9990367)
    ('95%', '99.4%', '99.90%')
    """
    decimals = max(0, math.ceil(-math.log10(max(1 - level, 1e-12))) - 2) if level < 1 else 0
    return f"{level:.{decimals}%}"


def _fcr_selection(rejected, estimates, method, alpha, min_delta):
    """The FCR intervals and the selection at their fixed point (module notes)."""
    n_tests, selected = len(rejected), rejected.copy()
    while True:
        level = interval_level(method, alpha, n_tests, selected.sum())
        effects = estimates.marginal(level)
        low = effects["delta_ci_low"].to_numpy(dtype=float)
        credible = low > min_delta
        if min_delta == 0:
            credible |= np.isnan(low)  # no interval: the test alone decides
        now = rejected & credible
        if now.sum() == selected.sum():
            return effects, now, level
        selected = now


def verdicts(tested, estimates, *, method, alpha, min_delta=0.0, intervals="fcr"):
    """Each row's effect, interval, decision and what a reader should know.

    Parameters
    ----------
    tested : pandas.DataFrame
        The test's table: ``p_value_corrected``, ``significant`` (its own
        decision) and ``testable``, one row per subgroup.
    estimates : subroc_ext.inference.effects.EffectEstimates
        The effects of the same rows.
    method : str
        The test's ``multipletests`` method.
    alpha : float
    min_delta : float, default=0
        Significant only if the interval lies beyond this effect.
    intervals : {'fcr', 'simultaneous'}, default='fcr'
        See the module notes.

    Returns
    -------
    pandas.DataFrame
        The :data:`~subroc_ext.inference.effects.EFFECT_COLUMNS`,
        ``significant`` (the verdict's) and the :data:`VERDICT_COLUMNS`:
        ``verdict`` ('significant', 'not significant' or 'untestable') and
        ``verdict_note`` (empty, or why the test and the interval seem to
        disagree). ``attrs``: ``intervals``, ``interval_level`` (the
        confidence of every interval) and ``min_delta``.
    """
    check_verdict_settings(intervals, min_delta)
    rejected = tested["significant"].to_numpy(dtype=bool)
    if intervals == "fcr":
        effects, significant, level = _fcr_selection(rejected, estimates, method, alpha, min_delta)
        kind = f"{level_text(level)} FCR interval"
    else:
        level = 1 - alpha
        effects = estimates.simultaneous(level)
        low = effects["delta_ci_low"].to_numpy(dtype=float)
        significant = rejected & ((low > min_delta) | (min_delta == 0))
        kind = f"{level_text(level)} simultaneous interval"
    table = effects.copy()
    table["significant"] = significant
    verdict = np.where(significant, "significant", "not significant")
    testable = tested["testable"].to_numpy(dtype=bool)
    table["verdict"] = np.where(testable, verdict, UNTESTABLE)
    table["verdict_note"] = [
        _note(*row, kind=kind, method=estimates.method, min_delta=min_delta)
        for row in zip(rejected, significant, testable, tested["p_value_corrected"],
                       effects["delta_ci_low"], effects["delta_ci_high"])
    ]  # fmt: skip
    table.attrs.update(intervals=intervals, interval_level=level, min_delta=min_delta)
    return table


def _note(rejected, significant, testable, p_value, low, high, *, kind, method, min_delta):
    """Why a row's test and interval seem to disagree ('' when they agree)."""
    if not testable:
        return "untestable: the measure is undefined on the subgroup's validation rows"
    target = "0" if min_delta == 0 else f"min_delta = {min_delta:g}"
    if np.isnan(low):
        if not rejected:
            return ""
        if significant:
            return "no interval (fewer than two rows of a class, or no spread): the test alone decides"
        return f"the test rejects, but there is no interval to show the effect exceeds {target}"
    beyond = low > min_delta
    if rejected and not beyond:
        outcome = "significant by the test" if significant else "not credibly beyond it"
        return f"the test rejects (corrected p {p_value:.2g}) but the {kind} reaches {target}: {outcome}"
    if not rejected and beyond:
        return (
            f"the {kind} excludes {target} but the test does not reject (corrected p {p_value:.2g}); "
            f"the test decides (the interval is a {method} approximation)"
        )
    if not rejected and high < 0:
        return f"the {kind} lies below 0: the effect points the other way on these rows"
    return ""


def same_rows_verdicts(tested, delta):
    """The verdict columns of a test without a holdout (no interval: the
    winner's curse); ``delta`` is each row's effect on all rows.

    Returns
    -------
    pandas.DataFrame
        The :data:`~subroc_ext.inference.effects.EFFECT_COLUMNS` (NaN
        interval ends) and the :data:`VERDICT_COLUMNS`.
    """
    table = pd.DataFrame({"delta": np.asarray(delta, dtype=float)})
    table["delta_ci_low"] = table["delta_ci_high"] = np.nan
    table = table[EFFECT_COLUMNS]
    table["verdict"] = np.where(tested["significant"].to_numpy(dtype=bool), "significant", "not significant")
    table["verdict_note"] = SAME_ROWS
    table.attrs.update(intervals="none", interval_level=np.nan, min_delta=0.0)
    return table
