"""Demo data for :func:`~subroc_ext.find_regressions` and :func:`~subroc_ext.find_drift`
on UCI Adult (bundled, offline).

* :func:`adult_two_models`: the demo's gradient-boosting model (the
  baseline, in production) and a new model of the same learner trained
  without the household columns ``relationship`` and ``marital_status``
  (dropped, say, after a privacy review), both scoring the same rows.
* :func:`adult_drift`: one model (the demo's) scoring a reference period and a
  current period in which the self-employed's capital gains and losses are no
  longer recorded (missing): a realistic upstream change (a new tax form
  collects them elsewhere) that the model, trained when they were recorded,
  silently absorbs. The model handles missing values, so nothing fails; its
  ranking among the self-employed degrades.
"""

import numpy as np

from .datasets import load_adult
from .modelling import fit_and_score, split_parts

__all__ = ["two_models", "adult_two_models", "adult_drift", "LABEL", "POSITIVE", "DROPPED", "SHIFTED"]

#: Adult's label column and positive class.
LABEL, POSITIVE = "income", ">50K"
#: The columns the new model of :func:`adult_two_models` is trained without.
DROPPED = ("relationship", "marital_status")
#: The columns missing for the self-employed in :func:`adult_drift`'s current period.
SHIFTED = ("capital_gain", "capital_loss")


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
    :data:`SHIFTED` set to missing for the self-employed (``workclass``
    ``Self-emp-not-inc`` or ``Self-emp-inc``, 11 % of rows; the current
    period). Pass ``validation=0.5`` to :func:`~subroc_ext.find_drift` to
    hold out half of each period.

    Parameters
    ----------
    random_state : int, default=0

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The reference and the current period with the model's ``score``.
    """
    train, reference, current, _ = split_parts(load_adult(), 4, random_state=random_state)
    self_employed = current["workclass"].str.startswith("Self-emp").fillna(False).to_numpy()
    current = current.astype({column: float for column in SHIFTED})
    current.loc[self_employed, list(SHIFTED)] = np.nan
    return tuple(fit_and_score(train, LABEL, POSITIVE, reference, current, random_state=random_state))
