"""Demo helper (not part of the SubROC method): a quick model for demos,
benchmarks and experiments.

SubROC audits a classifier on data the model has not seen. These helpers split
a dataset into equal random parts (the paper uses four: training, search,
validation, evaluation) and fit a gradient-boosting model on the training part
to score the others.
"""

import numpy as np
import pandas as pd

from ..utils.deprecation import renamed_keywords
from ..utils.validation import check_columns, positive_mask

__all__ = ["split_parts", "fit_and_score", "fit_and_score_multiclass"]


def split_parts(data, n_parts=4, *, random_state=None):
    """Shuffle ``data`` and cut it into ``n_parts`` parts of (nearly) equal size.

    Parameters
    ----------
    data : pandas.DataFrame
    n_parts : int, default=4
    random_state : int or numpy.random.Generator, optional

    Returns
    -------
    list of pandas.DataFrame
        The parts, each keeping the original index.
    """
    if n_parts < 1 or n_parts > len(data):
        raise ValueError(f"n_parts must be between 1 and {len(data)}, got {n_parts}")
    permutation = np.random.default_rng(random_state).permutation(len(data))
    return [data.iloc[np.sort(chunk)] for chunk in np.array_split(permutation, n_parts)]


def _features(data, label):
    features = data.drop(columns=[label])
    for column in features.columns:
        if not pd.api.types.is_numeric_dtype(features[column]):
            features[column] = features[column].astype("category")
    return features


def _fit_and_predict(train, label, target, to_score, random_state):
    """Fit gradient boosting on ``train``'s features and ``target``; return the
    model's classes and its ``predict_proba`` on each frame of ``to_score``."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_limits

    features = _features(train, label)
    # One OpenMP thread: on a busy machine more threads spin-wait and make
    # the fit and the predictions many times slower, and the data here is small.
    with threadpool_limits(limits=1):
        model = HistGradientBoostingClassifier(
            categorical_features="from_dtype", random_state=random_state
        ).fit(features, target)
        probabilities = []
        for frame in to_score:
            other = _features(frame, label)
            for column in features.columns:
                if isinstance(features[column].dtype, pd.CategoricalDtype):
                    categories = features[column].cat.categories
                    known = other[column].astype(object).where(other[column].isin(categories))
                    other[column] = pd.Categorical(known, categories=categories)
            probabilities.append(model.predict_proba(other))
    return model.classes_, probabilities


@renamed_keywords(score_column="score")
def fit_and_score(train, label, positive_label, *to_score, score="score", random_state=0):
    """Fit a gradient-boosting classifier on ``train`` and score other frames.

    Parameters
    ----------
    train : pandas.DataFrame
        Training rows, including the label column.
    label : str
        The label column.
    positive_label : object
        Label value of the positive class.
    *to_score : pandas.DataFrame
        Frames (same columns) to score.
    score : str, default='score'
        Name of the added column holding the predicted probability of the
        positive class (``score_column`` before 0.2, deprecated).
    random_state : int, default=0

    Returns
    -------
    list of pandas.DataFrame
        Copies of ``to_score`` with the score column added.
    """
    check_columns(train, [label])
    target = positive_mask(train[label], positive_label, label)
    _, probabilities = _fit_and_predict(train, label, target, to_score, random_state)
    return [
        frame.assign(**{score: p[:, 1]}) for frame, p in zip(to_score, probabilities)
    ]


def fit_and_score_multiclass(train, label, *to_score, prefix="p_", random_state=0):
    """Fit a multi-class gradient-boosting classifier and add one probability
    column per class to other frames.

    Parameters
    ----------
    train : pandas.DataFrame
        Training rows, including the label column (no missing labels, at
        least two classes).
    label : str
        The label column.
    *to_score : pandas.DataFrame
        Frames (same columns) to score.
    prefix : str, default='p_'
        The column of class ``c`` is named ``f"{prefix}{c}"``.
    random_state : int, default=0

    Returns
    -------
    score_columns : dict
        ``{class: column}``, for :class:`subroc_ext.AUCMuQF`.
    scored : list of pandas.DataFrame
        Copies of ``to_score`` with those columns added.
    """
    check_columns(train, [label])
    labels = train[label]
    if labels.isna().any():
        raise ValueError(f"label column {label!r} contains {int(labels.isna().sum())} missing value(s)")
    if labels.nunique() < 2:
        raise ValueError(f"label column {label!r} needs at least two classes")
    classes, probabilities = _fit_and_predict(train, label, labels.to_numpy(), to_score, random_state)
    columns = {c: f"{prefix}{c}" for c in classes}
    scored = [
        frame.assign(**{column: p[:, k] for k, column in enumerate(columns.values())})
        for frame, p in zip(to_score, probabilities)
    ]
    return columns, scored
