"""Known truth on real tables: a planted failure, and how a headline is judged against it.

:func:`plant_failure` turns any real attribute table into a scored data set
whose truth is known (issue 43's protocol): the label is drawn from a
logistic risk of three of the table's own numeric columns (the *risk
columns*), the score is that true probability (optionally made over- or
under-confident by a monotone map, which keeps the ranking), and, when
``planted``, the scores are shuffled among the rows of one subgroup of the
table's other columns (one or two conditions covering 5-15 % of the rows):
the only place where the model really fails. The plant is a pattern of the
search space ``find_subgroups`` searches by default (its conditions, from
:func:`subroc_ext.make_search_space`, cut on all rows), so a miss is the
headline's and not the search space's: a range of 5 % of a numeric column
would fall inside one of its quintile bins. The same seed with
``planted=False`` gives the same table, labels and scores without the
shuffle (the null).

:func:`headline_failures` is the one place that says which rows of a result
table the headline calls failures (the table's boolean ``failure`` column
when it has one, else the findings of :func:`subroc_ext.headline`), and
:func:`judge` scores them against the plant on the whole data. The
benchmark ``benchmarks/bench_headline.py`` and the tests use both.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

import subroc_ext
from subroc_ext import SearchSpaceWarning, make_search_space
from subroc_ext.inputs.selectors import MissingCondition
from subroc_ext.metrics.covers import subgroup_covers
from subroc_ext.metrics.expected_auc import expected_roc_auc

__all__ = ["KINDS", "Planted", "headline_failures", "judge", "plant_failure", "risk_like_columns"]

#: What a headline finding is, as :func:`judge` sorts it.
KINDS = ("true", "partial", "risk", "restricted", "other")
#: Share of the rows the planted subgroup covers.
PLANT_SHARE = (0.05, 0.15)
#: Range of the expected ROC AUC of the true probabilities (drawn uniformly per table).
TARGET_AUC = (0.75, 0.9)
#: Range of the share of positives (drawn uniformly per table).
PREVALENCE = (0.2, 0.5)
#: A finding is "mostly inside" the plant when at least this share of its rows are planted.
PURITY = 0.5
#: A plant is "named" when a finding mostly inside it covers at least this share of it.
COVERAGE = 0.5
#: A finding is a slice of columns correlated with the risk when the true probabilities promise this much less ROC AUC.
RESTRICTED = 0.05
#: A column is a copy of a risk column (``agesq`` of ``age``) when their rank correlation reaches this.
COPY_CORRELATION = 0.9


@dataclass
class Planted:
    """A real table with a known truth.

    Attributes
    ----------
    data : pandas.DataFrame
        The table's own columns (as they came, rows possibly sampled, index
        0..n-1), then ``label`` (0/1) and ``score``.
    label, score : str
        The names of those two columns.
    planted : numpy.ndarray of bool
        The rows of the planted subgroup (its scores shuffled only when
        ``is_planted``; the same rows in the null).
    is_planted : bool
    plant : str
        The planted subgroup's conditions (``educ < 12 AND married==1``).
    plant_columns : list of str
        Their columns.
    risk_columns : list of str
        The columns of the true logistic risk.
    probability : numpy.ndarray
        The true probabilities the labels were drawn from.
    confidence : float
        The factor on the logit of the scores (1: calibrated; > 1 over-,
        < 1 under-confident).
    """

    data: pd.DataFrame
    label: str
    score: str
    planted: np.ndarray
    is_planted: bool
    plant: str
    plant_columns: list
    risk_columns: list
    probability: np.ndarray
    confidence: float


def _logit(p):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p / (1 - p))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _numeric(column):
    """The column as floats, or None if it is not numeric."""
    if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
        return None
    return column.astype(float)


def _risk_candidates(table, columns, min_values=5):
    """Numeric ``columns`` with at least ``min_values`` distinct values, at most 25 % missing."""
    out = []
    for name in columns:
        values = _numeric(table[name])
        if values is not None and values.isna().mean() <= 0.25 and values.nunique() >= min_values:
            out.append(name)
    return out


def _risk_columns(table, columns, rng, count=3):
    """``count`` candidate columns drawn at random, no one a copy of another
    (:func:`risk_like_columns`); columns with few values only if too few others."""
    chosen = []
    for min_values in (5, 2):
        for name in rng.permutation(_risk_candidates(table, columns, min_values)):
            if len(chosen) < count and name not in risk_like_columns(table[[*chosen, name]], chosen):
                chosen.append(str(name))
    if len(chosen) < count:
        raise ValueError(f"fewer than {count} numeric columns to build a risk of: {chosen}")
    return sorted(chosen)


def risk_like_columns(table, risk_columns, threshold=COPY_CORRELATION):
    """The risk columns and the columns whose rank correlation with one of them
    reaches ``threshold`` (``agesq`` with ``age``, ``lwage`` with ``wage``)."""
    like = set(risk_columns)
    ranks = {name: table[name].rank() for name in risk_columns}
    for name in table.columns:
        values = _numeric(table[name])
        if name in like or values is None or values.nunique() < 3:
            continue
        rank = values.rank()
        if any(abs(rank.corr(other)) >= threshold for other in ranks.values()):
            like.add(name)
    return sorted(like)


def _true_probability(z, rng):
    """A logistic risk of the standardised columns ``z``: random directions and
    sizes, scaled so that the expected ROC AUC hits a target in
    :data:`TARGET_AUC`, the intercept so that the mean hits :data:`PREVALENCE`."""
    weights = rng.uniform(0.5, 1.5, z.shape[1]) * rng.choice([-1, 1], z.shape[1])
    direction = z @ weights
    direction = (direction - direction.mean()) / (direction.std() or 1.0)
    target_auc, prevalence = rng.uniform(*TARGET_AUC), rng.uniform(*PREVALENCE)

    def probability(scale):
        low, high = -20.0, 20.0
        for _ in range(60):  # the intercept: mean probability = prevalence
            middle = (low + high) / 2
            low, high = (middle, high) if _sigmoid(middle + scale * direction).mean() < prevalence else (low, middle)
        return _sigmoid((low + high) / 2 + scale * direction)

    low, high = 0.0, 20.0
    for _ in range(40):  # the scale: expected ROC AUC = target (it grows with the scale)
        middle = (low + high) / 2
        low, high = (middle, high) if expected_roc_auc(probability(middle)) < target_auc else (low, middle)
    return probability((low + high) / 2)


def _conditions(space, table, excluded):
    """The conditions of a search space (missing-value conditions left out) on
    columns not ``excluded``, as (column, text, mask) of ``table``."""
    return [
        (condition.attribute_name, str(condition), np.asarray(condition.covers(table), dtype=bool))
        for condition in space
        if condition.attribute_name not in excluded and not isinstance(condition, MissingCondition)
    ]


def _choose_plant(conditions, rng):
    """One or two of the ``conditions`` (chosen at random) whose conjunction covers a share
    of the rows in :data:`PLANT_SHARE`; the other kind when the chosen one has none."""
    low, high = PLANT_SHARE
    singles = [(text, mask, [column]) for column, text, mask in conditions if low <= mask.mean() <= high]
    broad = [condition for condition in conditions if condition[2].mean() > high]
    pairs = []
    for _ in range(2000 if len(broad) > 1 else 0):
        (column_a, a, first), (column_b, b, second) = (broad[i] for i in rng.choice(len(broad), 2, replace=False))
        both = first & second
        if column_a != column_b and low <= both.mean() <= high:
            pairs.append((f"{a} AND {b}", both, [column_a, column_b]))
            if len(pairs) >= 50:
                break
    kinds = [singles, pairs] if rng.random() < 0.5 else [pairs, singles]
    for options in kinds:
        if options:
            return options[rng.integers(len(options))]
    columns = sorted({column for column, _, _ in conditions})
    raise ValueError(f"no condition, nor two, of the columns {columns} covers {low:.0%}-{high:.0%} of the rows")


def plant_failure(table, seed, *, planted=True, confidence=1.0, max_rows=None, label="label", score="score"):
    """A real table with a label, a score and (``planted``) one known failure.

    Parameters
    ----------
    table : pandas.DataFrame
        Attribute columns as they come; at least three numeric columns of
        the search space (:func:`subroc_ext.make_search_space`: no ID-like
        or constant column) with at most 25 % missing (the risk columns
        are drawn from these, those of five or more values first; missing
        values count as the mean). The plant's conditions are the search
        space's on the other columns, less copies of the risk columns.
    seed : int or sequence of int
        Seeds everything (rows sampled, risk columns and coefficients,
        labels, the plant and its shuffle); the same seed with
        ``planted=False`` gives the null of the same table.
    planted : bool, default=True
        Shuffle the scores among the rows of the planted subgroup.
    confidence : float, default=1.0
        Multiply the logit of the scores by this (1.5: over-confident, 0.6:
        under-confident; the ranking and so every ROC AUC stays).
    max_rows : int, optional
        Sample this many rows (without replacement) from a larger table.
    label, score : str, default 'label', 'score'
        Names of the new columns (the table must not have them).

    Returns
    -------
    Planted
    """
    rng = np.random.default_rng(seed)
    for name in (label, score):
        if name in table.columns:
            raise ValueError(f"table already has a column {name!r}; pass another name")
    if max_rows is not None and len(table) > max_rows:
        table = table.iloc[np.sort(rng.choice(len(table), max_rows, replace=False))]
    data = table.reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SearchSpaceWarning)  # the columns left out are left out here too
        space = make_search_space(data)
    usable = list(space.used)
    risk_columns = _risk_columns(data, usable, rng)
    z = data[risk_columns].astype(float)
    z = ((z - z.mean()) / z.std()).fillna(0.0).to_numpy()
    probability = _true_probability(z, rng)
    labels = (rng.random(len(data)) < probability).astype(int)
    scores = _sigmoid(confidence * _logit(probability))
    excluded = set(risk_like_columns(data, risk_columns))
    plant, mask, plant_columns = _choose_plant(_conditions(space, data, excluded), rng)
    shuffled = scores.copy()
    shuffled[mask] = rng.permutation(scores[mask])  # drawn in the null too: the same stream after it
    data[label] = labels
    data[score] = shuffled if planted else scores
    return Planted(data, label, score, mask, planted, plant, plant_columns, risk_columns, probability, confidence)


def headline_failures(table):
    """The rows of a ``find_subgroups`` table that the headline calls failures.

    The table's boolean ``failure`` column when it has one (the rule of
    SPEC "What the headline may call a failure"); otherwise the findings
    :func:`subroc_ext.headline` names, matched to the table by description.

    Parameters
    ----------
    table : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        Those rows, in the table's order.
    """
    if "failure" in table.columns:
        return table[table["failure"].fillna(False).astype(bool)]
    named = {finding.description for finding in subroc_ext.headline(table).findings}
    return table[table["description"].isin(named)]


def judge(table, truth):
    """Each headline failure of ``table`` against the plant, on the whole data.

    Parameters
    ----------
    table : pandas.DataFrame
        A ``find_subgroups`` table of ``truth.data`` (with its ``subgroup`` column).
    truth : Planted

    Returns
    -------
    findings : pandas.DataFrame
        One row per headline failure: ``description``, ``share`` (of all
        rows), ``purity`` (share of its rows that are planted), ``coverage``
        (share of the plant it covers), ``true`` (``is_planted`` and purity
        >= :data:`PURITY`), ``kind``: ``'true'``, ``'partial'`` (purity at
        least 0.2, less than :data:`PURITY`), ``'risk'`` (a condition on a
        risk column or a copy of one: a slice of the strongest predictors,
        where every model ranks worse), ``'restricted'`` (no such condition,
        but the true probabilities promise a ROC AUC at least
        :data:`RESTRICTED` lower there than on the whole data: a slice of
        columns correlated with the risk), ``'other'``; ``promised_drop``
        (that promise's drop: the expected ROC AUC of the true
        probabilities on all rows minus on the finding's).
    named : bool
        The plant is named: a true finding covers at least :data:`COVERAGE` of it.
    """
    rows = headline_failures(table)
    data = truth.data
    _, masks = subgroup_covers(list(rows["subgroup"]), data) if len(rows) else ([], np.zeros((0, len(data)), bool))
    inside = masks & truth.planted
    size = masks.sum(axis=1)
    purity = inside.sum(axis=1) / np.maximum(size, 1)
    coverage = inside.sum(axis=1) / max(truth.planted.sum(), 1)
    true = truth.is_planted & (purity >= PURITY)
    risk_like = set(risk_like_columns(data, truth.risk_columns))
    uses_risk = np.array([
        any(s.attribute_name in risk_like for s in getattr(subgroup, "selectors", ())) for subgroup in rows["subgroup"]
    ], dtype=bool)  # a boolean mask (subroc_ext.subgroup_covers takes those too) names no column
    promised = expected_roc_auc(truth.probability)
    promised_drop = np.array([promised - expected_roc_auc(truth.probability[mask]) for mask in masks])
    kind = np.select(
        [true, truth.is_planted & (purity >= 0.2), uses_risk, promised_drop >= RESTRICTED],
        KINDS[:-1], KINDS[-1],
    )  # fmt: skip
    findings = pd.DataFrame({
        "description": rows["description"].to_numpy(), "share": size / len(data), "purity": purity,
        "coverage": coverage, "promised_drop": promised_drop, "true": true, "kind": kind,
    })  # fmt: skip
    return findings, bool((true & (coverage >= COVERAGE)).any())
