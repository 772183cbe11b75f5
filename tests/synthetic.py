"""Synthetic scored data for the tests: one generator for binary labels,
:func:`scored_frame`, one for K classes, :func:`multiclass_frame`, and one
whose scores are the true probabilities of a strong predictor, :func:`risk_frame`
(and :func:`halved_risk_frame`, miscalibrated in a random share of its rows,
with :func:`true_gap_difference`, the calibration gaps it truly has).

Every test that needs a data set with a binary label and a classifier's score
draws it here, seeded, so that the data of a test can be named by its
arguments (``scored_frame(1, n=240, attributes=6, ties="some")``) rather than
by a local generator. :func:`messy` and :data:`INDEXES` change the encoding
of a frame that exists already (to check that a result does not depend on it).
"""

import numpy as np
import pandas as pd

__all__ = ["INDEXES", "halved_risk_frame", "messy", "multiclass_frame", "risk_frame", "scored_frame", "true_gap_difference"]

#: Index variants, from the number of rows: 0..n-1, a permutation of it,
#: labels that are not positions, strings, and each label twice.
INDEXES = {
    "range": lambda n: pd.RangeIndex(n),
    "permuted": lambda n: np.random.default_rng(5).permutation(n),
    "offset": lambda n: np.arange(n) + 1000,
    "string": lambda n: [f"row-{i}" for i in range(n)],
    "duplicated": lambda n: np.arange(n) // 2,
}

#: Rounding of the scores: continuous, to 0.1, or to three values 0, 0.5, 1.
TIES = {
    "none": lambda score: score,
    "some": lambda score: np.round(score, 1),
    "heavy": lambda score: np.digitize(score, [0.4, 0.6]) / 2.0,
}


def scored_frame(
    seed,
    n=2000,
    *,
    attributes="audit",
    ties="none",
    positive_share=None,
    labels=(1, 0),
    index="range",
    label=None,
    score=None,
):
    """A seeded data set: attributes, a binary label and a classifier's score
    that is planted to fail on a known subgroup.

    Parameters
    ----------
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same arguments give the
        same frame.
    n : int, default 2000
        Number of rows.
    attributes : "audit" or int, default "audit"
        The attribute columns and the planted failure:

        * ``"audit"``: ``region`` (north, south, east, west), ``age``
          (18-79) and ``plan`` (basic, premium); the model ranks no better
          than chance where ``region == 'east'`` (scores uniform there).
          Label and score columns default to ``y`` and ``p``.
        * an int ``k``: ``k`` categorical columns ``a0..a{k-1}`` with 2, 3,
          4, 2, ... values (``p``, ``q``, ``r``, ``s``); the model ranks
          *inversely* where ``a0 == 'p' and a1 == 'q'`` and at random where
          ``a3 == 'r'`` (if ``k >= 4``), and positives are more frequent
          where ``a2 == 'p'`` (if ``k >= 3``). Label and score columns
          default to ``label`` and ``score``.
    ties : {"none", "some", "heavy"}, default "none"
        Continuous scores, scores rounded to 0.1, or three distinct scores.
    positive_share : float, optional
        Share of positive rows (before the ``a2 == 'p'`` boost); 0.4 for
        "audit", 0.25 otherwise.
    labels : tuple, default (1, 0)
        The values of the label column for positives and negatives (e.g.
        ``("yes", "no")``).
    index : str, default "range"
        A key of :data:`INDEXES`: the frame's index.
    label, score : str, optional
        Names of the label and score columns.

    Returns
    -------
    pandas.DataFrame
        The attribute columns, then the label and the score column.

    Examples
    --------
    >>> frame = scored_frame(0, n=5)
    >>> list(frame.columns)
    ['region', 'age', 'plan', 'y', 'p']
    >>> frame = scored_frame(0, n=50, attributes=2, ties="heavy", labels=("yes", "no"))
    >>> list(frame.columns), sorted(frame["score"].unique()), sorted(frame["label"].unique())
    (['a0', 'a1', 'label', 'score'], [0.0, 0.5, 1.0], ['no', 'yes'])
    """
    rng = np.random.default_rng(seed)
    if attributes == "audit":
        frame = pd.DataFrame(
            {
                "region": rng.choice(["north", "south", "east", "west"], n),
                "age": rng.integers(18, 80, n),
                "plan": rng.choice(["basic", "premium"], n),
            }
        )
        is_positive = rng.random(n) < (0.4 if positive_share is None else positive_share)
        noise = rng.normal(0, 1, n)
        probability = 1 / (1 + np.exp(-(2.5 * is_positive - 1.2 + noise)))
        east = (frame["region"] == "east").to_numpy()
        probability[east] = rng.random(east.sum())
        label, score = label or "y", score or "p"
    else:
        frame = pd.DataFrame(
            {f"a{i}": rng.choice(list("pqrs")[: 2 + i % 3], size=n) for i in range(attributes)}
        )
        share = np.full(n, 0.25 if positive_share is None else positive_share)
        if attributes >= 3:
            share += 0.25 * (frame["a2"] == "p").to_numpy()
        is_positive = rng.random(n) < share
        signal = rng.normal(size=n) + 1.5 * is_positive
        if attributes >= 2:
            swapped = ((frame["a0"] == "p") & (frame["a1"] == "q")).to_numpy()
            signal[swapped] = -signal[swapped]
        if attributes >= 4:
            noisy = (frame["a3"] == "r").to_numpy()
            signal[noisy] = rng.normal(size=noisy.sum())
        probability = 1.0 / (1.0 + np.exp(-signal))
        label, score = label or "label", score or "score"
    positive, negative = labels
    frame[label] = np.where(is_positive, positive, negative)
    frame[score] = TIES[ties](probability)
    frame.index = INDEXES[index](n)
    return frame


def messy(data, label="label"):
    """``data`` with its rows shuffled, a string index and labels 'yes'/'no'
    (for a 0/1 label column)."""
    shuffled = data.sample(frac=1.0, random_state=7)
    shuffled.index = [f"row-{i}" for i in shuffled.index]
    return shuffled.assign(**{label: np.where(shuffled[label] == 1, "yes", "no")})


def multiclass_frame(seed=0, n=240, n_classes=3):
    """Categorical attributes ``a0..a3`` (2-4 values), a label ``grade``
    (``low``, ``mid``, ``high``, the first ``n_classes``), one probability
    column ``p_<class>`` per class, and an index ``1000 + n - 1, ..., 1000``.
    The model is wrong (logits negated) where ``a0 == 'p'``.

    Returns
    -------
    (pandas.DataFrame, dict)
        The frame and the mapping of class to score column.
    """
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({f"a{i}": rng.choice(list("pqrs")[: 2 + i % 3], size=n) for i in range(4)})
    codes = rng.integers(0, n_classes, n)
    logits = rng.normal(size=(n, n_classes))
    logits[np.arange(n), codes] += 1.5
    wrong = (data["a0"] == "p").to_numpy()
    logits[wrong] = -logits[wrong]
    probs = np.exp(np.round(logits, 1))
    probs /= probs.sum(axis=1, keepdims=True)
    names = ["low", "mid", "high"][:n_classes]
    for k, name in enumerate(names):
        data[f"p_{name}"] = probs[:, k]
    data["grade"] = np.array(names, dtype=object)[codes]
    data.index = np.arange(n)[::-1] + 1000
    return data, {name: f"p_{name}" for name in names}


def risk_frame(seed, n=3000, *, planted=False):
    """Scores ``p`` that *are* the true probabilities, driven by a strong
    predictor ``age`` (20-90; ``p = 1 / (1 + exp(-(age - 55) / 8))``), three
    attributes of noise ``g`` (a-c), ``h`` (x-z), ``k`` (u, v) and labels
    ``y`` drawn from ``p``. Every slice of ``age`` ranks worse than the whole
    data, for any model. ``planted``: the scores are shuffled inside ``g ==
    'c' AND h == 'x'`` (the labels stay): a real failure of the model there.
    """
    rng = np.random.default_rng([29, seed])
    data = pd.DataFrame({"age": rng.uniform(20, 90, n).round(), "g": rng.choice(list("abc"), n),
                         "h": rng.choice(list("xyz"), n), "k": rng.choice(list("uv"), n)})  # fmt: skip
    p = 1 / (1 + np.exp(-(data["age"].to_numpy() - 55) / 8))
    data["y"] = (rng.random(n) < p).astype(int)
    if planted:
        failing = ((data["g"] == "c") & (data["h"] == "x")).to_numpy()
        p = p.copy()
        p[failing] = rng.permutation(p[failing])
    data["p"] = p
    return data


def halved_risk_frame(seed, n=4000, *, share=0.08):
    """:func:`risk_frame` with the promised risk halved in a random ``share``
    of the rows (``m == 'yes'``, independent of everything else).

    Returns
    -------
    data : pandas.DataFrame
        ``risk_frame``'s columns and ``m``; ``p`` is halved where ``m == 'yes'``.
    truth : numpy.ndarray
        The true probabilities of the labels (``p`` before halving).
    """
    data = risk_frame(seed, n)
    truth = data["p"].to_numpy().copy()
    bad = np.random.default_rng([44, seed]).random(n) < share
    data["m"] = np.where(bad, "yes", "no")
    data.loc[bad, "p"] = data.loc[bad, "p"] / 2
    return data, truth


def true_gap_difference(subgroups, population, truth, *, mode="both"):
    """The calibration gap each subgroup truly has beyond the whole data's:
    ``g(S) - g(D)`` with ``g = mean (truth - p)`` over the rows of a large
    ``population`` drawn like the data (``|g(S) - g(D)|`` for mode 'both'),
    the value a row's interval of ``delta`` should cover."""
    residual = truth - population["p"].to_numpy()
    masks = np.array([np.asarray(subgroup.covers(population), dtype=bool) for subgroup in subgroups])
    difference = masks @ residual / masks.sum(1) - residual.mean()
    return np.abs(difference) if mode == "both" else difference
