"""The whole SubROC framework in one call: :func:`find_subgroups`.

1. split off held-out validation data (or take the one given),
2. build the search space (numeric columns binned, label and score excluded),
3. search the top patterns with a weighted, generalization-aware quality
   function and exact optimistic-estimate pruning (:class:`~subroc_ext.FastSearch`,
   or any pysubgroup algorithm),
4. test every pattern on the validation data against random subsets of the
   same size and class balance, correcting for multiple testing,
5. return one tidy row per pattern with its performance on both splits.
"""

import math
import numbers

import numpy as np
import pandas as pd
import pysubgroup as ps

from . import diversity as _diversity
from . import measures as _measures
from ._validation import (
    check_columns,
    check_mode,
    check_weights,
    finite_scores,
    positive_mask,
    quoted_values,
)
from .cluster import local_client
from .confidence import delong_interval
from .cross_auc import subgroup_bias_aucs
from .dataset import SortedDataset
from .generalization import GeneralizationAwareQF
from .quality import SoftClassifierQF
from .search import FastSearch
from .significance import check_test_settings, randomization_test
from .target import SoftClassifierTarget

__all__ = [
    "MEASURES",
    "find_subgroups",
    "make_quality_function",
    "describe_subgroups",
    "split_validation",
]

#: Built-in measures by name.
MEASURES = {
    "roc_auc": _measures.ROCAUC,
    "pr_auc": _measures.PRAUC,
    "arl": _measures.AverageRankingLoss,
    "attribution_mean": _measures.attribution_mean,
}


def _measure(measure):
    if isinstance(measure, _measures.Measure):
        return measure
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {sorted(MEASURES)} or a Measure, got {measure!r}")
    return MEASURES[measure]()


def make_quality_function(
    measure, label, *, positive_label=1, size_weight=0.0, balance_weight=0.0,
    mode="worse", generalization_aware=False,
):  # fmt: skip
    """A quality function for a measure given by name or as a :class:`~subroc_ext.Measure`.

    Parameters
    ----------
    measure : {'roc_auc', 'pr_auc', 'arl', 'attribution_mean'} or Measure
    label : str
        Label column.
    positive_label : object, default=1
    size_weight, balance_weight : float, default=0
    mode : {'worse', 'better', 'both'}, default='worse'
    generalization_aware : bool, default=False
        Wrap the function in :class:`~subroc_ext.GeneralizationAwareQF`.

    Returns
    -------
    SoftClassifierQF or GeneralizationAwareQF
    """
    qf = SoftClassifierQF(
        _measure(measure), label, positive_label=positive_label, size_weight=size_weight,
        balance_weight=balance_weight, mode=mode,
    )  # fmt: skip
    return GeneralizationAwareQF(qf) if generalization_aware else qf


def _default_positive_label(labels, name):
    distinct = pd.unique(labels.dropna())
    if len(distinct) > 2:
        positive_mask(labels, distinct[0], name)  # raises: the labels are not binary
    values = set(distinct)
    for candidate in (True, 1):
        if values <= {0, 1} and candidate in values:
            return candidate
    raise ValueError(
        f"label column {name!r} has values {quoted_values(values)}; pass "
        "positive_label to say which one is the positive class"
    )


def _check_split(frame, label, score, positive_label, split):
    if len(frame) == 0:
        raise ValueError(f"the {split} split is empty")
    check_columns(frame, [label, score], what=f"the {split} split")
    is_positive = positive_mask(frame[label], positive_label, label)
    finite_scores(frame[score], score)
    for present, kind in ((is_positive.any(), "positives"), ((~is_positive).any(), "negatives")):
        if not present:
            raise ValueError(
                f"the {split} split has no {kind} in label column {label!r} (positive label "
                f"{positive_label!r}); the measures need both classes"
            )


def _min_support_count(min_support, n_rows):
    """A minimum support given as a count or a fraction of ``n_rows``, as a count.

    Parameters
    ----------
    min_support : int or float
        A number of rows (integer >= 0) or a fraction of the rows in (0, 1).
    n_rows : int
        Number of rows the fraction refers to.

    Returns
    -------
    int
        ``min_support`` itself, or ``ceil(min_support * n_rows)``.
    """
    is_number = isinstance(min_support, numbers.Real) and not isinstance(
        min_support, (bool, np.bool_)
    )
    if is_number and isinstance(min_support, numbers.Integral) and min_support >= 0:
        return int(min_support)
    if is_number and 0 < min_support < 1:
        return math.ceil(round(min_support * n_rows, 9))  # 0.1 * 100 is 10, not 11
    raise ValueError(
        "min_support must be a number of rows (an integer >= 0) or a fraction of the "
        f"search rows in (0, 1), got {min_support!r}"
    )


def split_validation(data, validation, random_state=None):
    """Split ``data`` into search and validation parts.

    Parameters
    ----------
    data : pandas.DataFrame
    validation : pandas.DataFrame or float
        A held-out frame (then ``data`` is returned whole as the search
        part) or the fraction of ``data`` to hold out at random.
    random_state : int or numpy.random.Generator, optional

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The search and validation parts, rows in their original order.
    """
    if isinstance(validation, pd.DataFrame):
        return data, validation
    if not (
        isinstance(validation, numbers.Real)
        and not isinstance(validation, bool)
        and 0 < validation < 1
    ):
        raise ValueError(
            f"validation must be a DataFrame or a fraction in (0, 1), got {validation!r}"
        )
    shuffled = np.random.default_rng(random_state).permutation(len(data))
    cut = int(round(len(data) * (1 - validation)))
    return data.iloc[np.sort(shuffled[:cut])], data.iloc[np.sort(shuffled[cut:])]


def _search(search, target, selectors, qf, depth, min_support, result_set_size, algorithm, progress,
            client):  # fmt: skip
    task = ps.SubgroupDiscoveryTask(
        search, target, selectors, qf, result_set_size=result_set_size, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    if algorithm is None:
        algorithm = FastSearch(progress=progress, client=client)
    return algorithm.execute(task)


def describe_subgroups(subgroups, data, target, *, positive_label=1, mode="worse", suffix=""):
    """Size, class counts and every built-in measure of each subgroup on ``data``.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
    data : pandas.DataFrame
    target : subroc_ext.SoftClassifierTarget
    positive_label : object, default=1
    mode : str, default='worse'
        Only used for the relative qualities, which are not reported here.
    suffix : str, default=''
        Appended to every column name (e.g. ``'_validation'``).

    Returns
    -------
    pandas.DataFrame
        Columns ``size``, ``positives``, ``negatives``, ``ncr`` (negatives /
        size) and ``roc_auc``, ``pr_auc``, ``arl``, ``attribution_mean``
        (NaN where undefined), then ``bpsn_auc`` and ``bnsp_auc`` (Borkan et
        al.'s bias AUCs against the rows outside the subgroup, see
        :func:`subroc_ext.subgroup_bias_aucs`), one row per subgroup.
    """
    dataset = SortedDataset(data, target.label_column, target.prediction_column, positive_label)
    covers = [dataset.cover(dataset.mask_of(subgroup)) for subgroup in subgroups]
    columns = {
        "size": [len(cover.rows) for cover in covers],
        "positives": [cover.positives for cover in covers],
        "negatives": [cover.negatives for cover in covers],
    }
    for name, measure in _prepared_measures(dataset).items():
        columns[name] = [
            measure.value(cover) if measure and measure.is_defined(cover.positives, cover.negatives)
            else np.nan
            for cover in covers
        ]  # fmt: skip
    table = pd.DataFrame(columns, index=range(len(subgroups)))
    with np.errstate(invalid="ignore", divide="ignore"):
        table.insert(3, "ncr", table["negatives"] / table["size"])
    bias = subgroup_bias_aucs(
        subgroups, data, label=target.label_column, score=target.prediction_column,
        positive_label=positive_label,
    )  # fmt: skip
    table[["bpsn_auc", "bnsp_auc"]] = bias[["bpsn_auc", "bnsp_auc"]].to_numpy()
    return table.add_suffix(suffix)


def find_subgroups(
    data,
    *,
    label,
    score,
    measure="roc_auc",
    positive_label=None,
    mode="worse",
    validation=0.5,
    size_weight=1.0,
    balance_weight=1.0,
    generalization_aware=True,
    depth=2,
    min_support=20,
    nbins=5,
    ignore=(),
    result_set_size=100,
    collapse_identical=True,
    max_overlap=None,
    n_samples=10_000,
    method="fdr_by",
    alpha=0.05,
    random_state=None,
    algorithm=None,
    progress=True,
    client=None,
    n_jobs=None,
):
    """Find subgroups where a classifier performs exceptionally, and test them.

    Parameters
    ----------
    data : pandas.DataFrame
        Rows with attributes, a binary label and the model's score. When
        ``validation`` is a DataFrame, ``data`` is the search split.
    label, score : str
        Label and score columns.
    measure : {'roc_auc', 'pr_auc', 'arl', 'attribution_mean'} or Measure, default='roc_auc'
    positive_label : object, optional
        The positive class; inferred for {0, 1} and boolean labels.
    mode : {'worse', 'better', 'both'}, default='worse'
    validation : pandas.DataFrame or float, default=0.5
        Held-out data for the significance test, or the fraction of ``data``
        to split off for it.
    size_weight, balance_weight : float, default=1
        Weight exponents alpha and beta (SubROC's full framework: 1 and 1;
        the basic setting: 0 and 0).
    generalization_aware : bool, default=True
        Penalise patterns by their best generalization's quality.
    depth : int, default=2
        Maximum number of conditions per pattern.
    min_support : int or float, default=20
        Minimum cover size on the search split: a number of rows, or a
        fraction of the search split's rows (``0.01``: 1 %, rounded up).
    nbins : int, default=5
        Quantile bins per numeric column (a positive integer).
    ignore : sequence of str, default=()
        Further columns not to use in patterns.
    result_set_size : int, default=100
        Number of patterns to search; at most this many are tested.
    collapse_identical : bool, default=True
        Report patterns with the same cover on the search split as one row:
        the best-ranked, its other descriptions in ``alternatives``.
    max_overlap : float, optional
        Keep a diverse set: drop each pattern whose cover on the search split
        has a Jaccard index above ``max_overlap`` (in [0, 1]) with a
        better-ranked kept one, before the test (fewer tests, more power).
    n_samples : int, default=10_000
        Random subsets per null distribution.
    method : str, default='fdr_by'
        Multiple-testing correction (statsmodels ``multipletests``).
    alpha : float, default=0.05
    random_state : int, optional
        Seeds the validation split and the randomization test.
    algorithm : object, optional
        The search algorithm, anything with pysubgroup's ``execute(task)``
        (e.g. ``ps.BestFirstSearch()``); by default :class:`~subroc_ext.FastSearch`,
        which returns the same subgroups much faster.
    progress : bool, default=True
        Show progress bars.
    client : dask.distributed.Client, optional
        Run the search (with the default algorithm) and the randomization
        test on this Dask cluster; the table is the same as without it.
    n_jobs : int, optional
        Start a local Dask cluster with this many worker processes for the
        call (instead of ``client``) and close it afterwards. Both need the
        optional extra ``dask`` (``pip install 'subroc-ext[dask]'``).

    Returns
    -------
    pandas.DataFrame
        Sorted by ``quality`` (descending), one row per pattern: ``subgroup``
        (the pysubgroup description), ``description`` (readable),
        ``alternatives`` (other descriptions of the same rows, ``'; '``-joined,
        empty if none), ``quality``, ``overlap`` (largest Jaccard index of
        the search cover with that of a better-ranked row; NaN for the first)
        and ``overlaps_with`` (that row's rank, 1 = first row), size, class
        counts, ``ncr`` and all built-in measures on the search split (suffix
        ``_search``) and the validation split (suffix ``_validation``),
        ``roc_auc_validation_ci_low`` and ``roc_auc_validation_ci_high`` (the
        DeLong 95 % confidence interval, see
        :func:`~subroc_ext.roc_auc_confidence_interval`), ``statistic`` (the
        test statistic on the validation split), ``p_value``,
        ``p_value_corrected``, ``significant``, ``testable``. ``table.attrs``
        holds the dataset values of the measures and the settings.

    Examples
    --------
    >>> from subroc_ext import datasets, modelling
    >>> frame = datasets.load_german_credit()                      # doctest: +SKIP
    >>> train, rest = modelling.split_parts(frame, 2, random_state=0)  # doctest: +SKIP
    >>> (rest,) = modelling.fit_and_score(train, "class", "bad", rest)  # doctest: +SKIP
    >>> find_subgroups(rest, label="class", score="score", positive_label="bad")  # doctest: +SKIP
    """
    check_columns(data, [label, score, *ignore])
    if len(data) == 0:
        raise ValueError("data is empty")
    if positive_label is None:
        positive_label = _default_positive_label(data[label], label)
    check_mode(mode)
    check_weights(size_weight, balance_weight)
    check_test_settings(n_samples, method, alpha)
    search, held_out = split_validation(data, validation, random_state)
    _check_split(search, label, score, positive_label, "search")
    _check_split(held_out, label, score, positive_label, "validation")
    missing = [c for c in search.columns if c not in held_out.columns and c not in ignore]
    if missing:
        raise KeyError(f"validation data lacks column(s) {missing!r} of the search data")
    if not (isinstance(depth, (int, np.integer)) and depth >= 1):
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    if not (isinstance(result_set_size, (int, np.integer)) and result_set_size >= 1):
        raise ValueError(f"result_set_size must be a positive integer, got {result_set_size!r}")
    if not (isinstance(nbins, (int, np.integer)) and not isinstance(nbins, bool) and nbins >= 1):
        raise ValueError(
            f"nbins must be a positive integer (quantile bins per numeric column), got {nbins!r}"
        )
    min_support = _min_support_count(min_support, len(search))
    if max_overlap is not None and not (
        isinstance(max_overlap, numbers.Real) and 0 <= max_overlap <= 1
    ):
        raise ValueError(f"max_overlap must be None or a number in [0, 1], got {max_overlap!r}")

    target = SoftClassifierTarget(label, score)
    qf = make_quality_function(
        measure, label, positive_label=positive_label, size_weight=size_weight,
        balance_weight=balance_weight, mode=mode, generalization_aware=generalization_aware,
    )  # fmt: skip
    selectors = ps.create_selectors(search, nbins=nbins, ignore=[label, score, *ignore])
    with local_client(client, n_jobs) as cluster:
        result = _search(
            search, target, selectors, qf, depth, min_support, result_set_size, algorithm, progress,
            cluster,
        )  # fmt: skip
        ranked = sorted(result.results, key=lambda entry: -entry[0])
        subgroups = [description for _, description, *_ in ranked]
        qualities = [quality for quality, *_ in ranked]
        covers = _diversity.cover_matrix(subgroups, search)
        alternatives = [[] for _ in subgroups]
        if collapse_identical:
            kept, same = _diversity.collapse_identical(covers)
            alternatives = [[str(subgroups[other]) for other in rows] for rows in same]
            subgroups, qualities, covers = _take(kept, subgroups, qualities, covers)
        if max_overlap is not None:
            kept = _diversity.select_diverse(covers, max_overlap)
            subgroups, qualities, covers, alternatives = _take(
                kept, subgroups, qualities, covers, alternatives
            )
        overlap, partner = _diversity.overlap_with_better(covers)

        statistic_qf = make_quality_function(measure, label, positive_label=positive_label, mode=mode)
        tested = randomization_test(
            subgroups, held_out, statistic_qf, target=target, n_samples=n_samples, method=method,
            alpha=alpha, random_state=random_state, progress=progress, client=cluster,
        )  # fmt: skip
    table = pd.concat(
        [
            pd.DataFrame(
                {
                    "subgroup": subgroups,
                    "description": [str(sg) for sg in subgroups],
                    "alternatives": ["; ".join(texts) for texts in alternatives],
                    "quality": qualities,
                    "overlap": overlap,
                    "overlaps_with": pd.array(np.where(partner >= 0, partner + 1, None), dtype="Int64"),
                }
            ),
            describe_subgroups(subgroups, search, target, positive_label=positive_label, suffix="_search"),
            describe_subgroups(subgroups, held_out, target, positive_label=positive_label, suffix="_validation"),
            _roc_auc_intervals(subgroups, held_out, label, score, positive_label, "_validation"),
            tested[["statistic", "p_value", "p_value_corrected", "significant", "testable"]],
        ],
        axis=1,
    )
    table.attrs.update(
        measure=statistic_qf.measure.name, mode=mode, label=label, score=score,
        positive_label=positive_label, size_weight=size_weight, balance_weight=balance_weight,
        generalization_aware=generalization_aware, depth=depth, min_support=min_support,
        collapse_identical=collapse_identical, max_overlap=max_overlap,
        n_samples=n_samples, method=method, alpha=alpha,
        dataset_values=_dataset_values(search, held_out, target, positive_label),
    )  # fmt: skip
    return table


def _take(rows, *sequences):
    """Keep ``rows`` of each list or array in ``sequences``."""
    return tuple(
        sequence[rows] if isinstance(sequence, np.ndarray) else [sequence[r] for r in rows]
        for sequence in sequences
    )


def _roc_auc_intervals(subgroups, data, label, score, positive_label, suffix):
    """DeLong 95 % interval of each subgroup's ROC AUC on ``data`` (NaN where undefined)."""
    is_positive = positive_mask(data[label], positive_label, label)
    scores = finite_scores(data[score], score)
    intervals = [
        delong_interval(is_positive[cover], scores[cover])
        for cover in _diversity.cover_matrix(subgroups, data)
    ]
    return pd.DataFrame(
        {
            f"roc_auc{suffix}_ci_low": [interval.low for interval in intervals],
            f"roc_auc{suffix}_ci_high": [interval.high for interval in intervals],
        },
        index=range(len(subgroups)),
    )


def _prepared_measures(dataset):
    """Every built-in measure prepared on ``dataset`` (None where it is undefined there)."""
    whole = dataset.cover()
    prepared = {}
    for name, make in MEASURES.items():
        measure = make()
        if measure.dataset_is_defined(whole.positives, whole.negatives):
            prepared[name] = measure.prepare(whole)
        else:
            prepared[name] = None
    return prepared


def _dataset_values(search, held_out, target, positive_label):
    """Each built-in measure on the whole search and validation splits."""
    values = {}
    for split, frame in (("search", search), ("validation", held_out)):
        dataset = SortedDataset(frame, target.label_column, target.prediction_column, positive_label)
        whole = dataset.cover()
        for name, measure in _prepared_measures(dataset).items():
            values[f"{name}_{split}"] = measure.value(whole) if measure else np.nan
    return values
