"""Demo data for :func:`~subroc_ext.find_regressions` and :func:`~subroc_ext.find_drift`
on UCI Adult (bundled, offline).

* :func:`adult_two_models`: the demo's gradient-boosting model (the
  baseline, in production) and a new model of the same learner trained
  without the household columns ``relationship`` and ``marital_status``
  (dropped, say, after a privacy review), both scoring the same rows.
* :func:`adult_drift`: one model (the demo's) scoring a reference period and a
  current period in which the married's capital gains and losses are no longer
  recorded (missing). A plausible upstream change: the current period's tax
  data feed takes capital gains and losses from individual returns and does
  not link joint returns, on which married couples report them, so for
  everyone with ``marital_status`` ``Married-civ-spouse`` (46 % of rows,
  44 % of them with income >50K) they arrive empty. The model, trained when
  they were recorded, accepts missing values, so nothing fails; but it loses
  a strong sign of a high income (a large capital gain) exactly where high
  incomes are common: its ROC AUC among the married falls from 0.84-0.86 to 0.78-0.79,
  on the whole data from 0.92-0.93 to 0.90 (Δ 0.037-0.048, seeds 0-3).
  :func:`~subroc_ext.find_drift` with its defaults ranks the married first
  and significant.
"""

import numpy as np

from .datasets import load_adult
from .modelling import fit_and_score, split_parts

__all__ = [
    "two_models", "adult_two_models", "adult_drift", "LABEL", "POSITIVE", "DROPPED", "SHIFTED", "SHIFTED_ROWS",
]

#: Adult's label column and positive class.
LABEL, POSITIVE = "income", ">50K"
#: The columns the new model of :func:`adult_two_models` is trained without.
DROPPED = ("relationship", "marital_status")
#: The columns missing for the married in :func:`adult_drift`'s current period.
SHIFTED = ("capital_gain", "capital_loss")
#: The rows of :func:`adult_drift`'s current period whose :data:`SHIFTED` are
#: missing: those with this column equal to this value (the married).
SHIFTED_ROWS = ("marital_status", "Married-civ-spouse")


def two_models(frame, label, positive_label, dropped, random_state=0):
    """Search and validation quarters of ``frame`` scored by two models.

    Parameters
    ----------
    frame : pandas.DataFrame
    label : str
    positive_label : object
    dropped : sequence of str
        Columns the new model is trained without.
    random_state : int, default=0
        Seeds the split into quarters (train, search, validation, evaluation)
        and both models.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Search and validation rows with the columns ``baseline`` (the
        gradient-boosting model of :func:`~subroc_ext.demo.modelling.fit_and_score`
        on every column) and ``new`` (the same learner without ``dropped``).
    """
    train, search, validation, _ = split_parts(frame, 4, random_state=random_state)
    search, validation = fit_and_score(
        train, label, positive_label, search, validation, score="baseline", random_state=random_state
    )
    without = [part.drop(columns=list(dropped)) for part in (train, search, validation)]
    scored = fit_and_score(without[0], label, positive_label, *without[1:], score="new",
                           random_state=random_state)  # fmt: skip
    return tuple(part.assign(new=s["new"]) for part, s in zip((search, validation), scored))


def adult_two_models(random_state=0):
    """:func:`two_models` of Adult, the new model without :data:`DROPPED`.

    Examples
    --------
    >>> search, validation = adult_two_models()                          # doctest: +SKIP
    >>> find_regressions(search, label=LABEL, score="new", baseline="baseline",
    ...                  positive_label=POSITIVE, validation=validation)  # doctest: +SKIP
    """
    return two_models(load_adult(), LABEL, POSITIVE, DROPPED, random_state)


def adult_drift(random_state=0):
    """One model scoring a reference and a current period of Adult.

    The rows are split into four random parts: the model is trained on the
    first and scores the second (the reference period) and the third with
    :data:`SHIFTED` set to missing for the married (:data:`SHIFTED_ROWS`,
    46 % of rows; the current period; the module's docstring tells the
    story). Pass ``validation=0.5`` to :func:`~subroc_ext.find_drift` to
    hold out half of each period (its default).

    Parameters
    ----------
    random_state : int, default=0

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The reference and the current period with the model's ``score``.
    """
    train, reference, current, _ = split_parts(load_adult(), 4, random_state=random_state)
    column, value = SHIFTED_ROWS
    shifted = (current[column] == value).to_numpy()
    current = current.astype({name: float for name in SHIFTED})
    current.loc[shifted, list(SHIFTED)] = np.nan
    return tuple(fit_and_score(train, LABEL, POSITIVE, reference, current, random_state=random_state))
