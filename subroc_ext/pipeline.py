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
import warnings

import numpy as np
import pandas as pd

from . import diversity as _diversity
from . import measures as _measures
from . import steps
from ._validation import check_columns, check_mode, check_weights, finite_scores, positive_mask
from .cluster import local_client
from .deprecation import REMOVED_IN
from .exceptions import InterruptedTest
from .generalization import GeneralizationAwareQF
from .labels import infer_positive_label
from .quality import SoftClassifierQF
from .significance import check_test_settings
from .steps import MEASURES
from .target import SoftClassifierTarget

__all__ = [
    "MEASURES",
    "find_subgroups",
    "make_quality_function",
    "describe_subgroups",
    "split_validation",
]


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
        Weight exponents alpha and beta. The defaults (0, 0, no generalization
        awareness) are those of the drop-in quality functions and of
        pysubgroup, SubROC's basic setting; :func:`find_subgroups` defaults to
        the full framework (1, 1, generalization-aware).
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


def min_support_count(min_support, n_rows):
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


def describe_subgroups(subgroups, data, target, *, positive_label=1, mode="worse", suffix=""):
    """Deprecated: use :func:`subroc_ext.steps.describe` (``mode`` was never used)."""
    warnings.warn(
        f"describe_subgroups() is deprecated and will be removed in subroc-ext {REMOVED_IN}; "
        "use subroc_ext.steps.describe()",
        FutureWarning,
        stacklevel=2,
    )
    return steps.describe(subgroups, data, target, positive_label=positive_label, suffix=suffix)


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
        The positive class; inferred only for labels {0, 1}, {-1, 1} and
        booleans (as ``1`` / ``True``, see
        :func:`~subroc_ext.labels.infer_positive_label`), otherwise required.
    mode : {'worse', 'better', 'both'}, default='worse'
    validation : pandas.DataFrame or float, default=0.5
        Held-out data for the significance test, or the fraction of ``data``
        to split off for it.
    size_weight, balance_weight : float, default=1
        Weight exponents alpha and beta of ``w = n^alpha * cb^beta``. The
        defaults are SubROC's full framework (1 and 1, with
        ``generalization_aware=True``): without the weights the top patterns
        are tiny and extremely unbalanced, and without generalization
        awareness they repeat one exceptional pattern with extra conditions.
        The drop-in quality functions (:class:`~subroc_ext.ROCAUCQF` etc.)
        default to 0 and 0 like pysubgroup's, which is SubROC's basic setting.
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

    Raises
    ------
    InterruptedTest
        Ctrl-C during the significance test (a ``KeyboardInterrupt``): its
        ``table`` holds the searched patterns, untested.

    Examples
    --------
    A model that ranks no better than chance in the east:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west", "north"], 900),
    ...                      "label": rng.integers(0, 2, 900)})
    >>> data["score"] = np.where(data["region"] == "east", rng.random(900),
    ...                          0.5 * data["label"] + 0.5 * rng.random(900))
    >>> table = find_subgroups(data, label="label", score="score", depth=1, n_samples=200,
    ...                        random_state=0, progress=False)
    >>> table[["description", "roc_auc_validation", "significant"]].head(1).round(2)
          description  roc_auc_validation  significant
    0  region=='east'                0.56         True

    On a model of real data (UCI Adult, bundled):

    >>> from subroc_ext import datasets, modelling
    >>> frame = datasets.load_adult()                                        # doctest: +SKIP
    >>> train, search, validation, _ = modelling.split_parts(frame, 4, random_state=0)  # doctest: +SKIP
    >>> search, validation = modelling.fit_and_score(train, "income", ">50K", search, validation)  # doctest: +SKIP
    >>> find_subgroups(search, label="income", score="score", positive_label=">50K",
    ...                validation=validation)                                # doctest: +SKIP
    """
    check_columns(data, [label, score, *ignore])
    if len(data) == 0:
        raise ValueError("data is empty")
    if positive_label is None:
        positive_label = infer_positive_label(data[label], label)
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
    min_support = min_support_count(min_support, len(search))
    _diversity.check_max_overlap(max_overlap)

    target = SoftClassifierTarget(label, score)
    qf = make_quality_function(
        measure, label, positive_label=positive_label, size_weight=size_weight,
        balance_weight=balance_weight, mode=mode, generalization_aware=generalization_aware,
    )  # fmt: skip
    statistic_qf = make_quality_function(measure, label, positive_label=positive_label, mode=mode)
    with local_client(client, n_jobs) as cluster:
        found = steps.search(
            search, qf, target, nbins=nbins, ignore=ignore, depth=depth, min_support=min_support,
            result_set_size=result_set_size, algorithm=algorithm, progress=progress, client=cluster,
        )  # fmt: skip
        kept = _diversity.keep_patterns(
            found.subgroups, found.qualities, search, collapse=collapse_identical,
            max_overlap=max_overlap,
        )  # fmt: skip
        try:
            tested = steps.test(
                kept.subgroups, held_out, statistic_qf, target, n_samples=n_samples, method=method,
                alpha=alpha, random_state=random_state, progress=progress, client=cluster,
            )  # fmt: skip
        except KeyboardInterrupt:  # keep the searched patterns, untested
            tested = None
    table = pd.concat(
        [
            kept.frame(),
            steps.describe(kept.subgroups, search, target, positive_label=positive_label, suffix="_search"),
            steps.describe(
                kept.subgroups, held_out, target, positive_label=positive_label, intervals=True,
                suffix="_validation",
            ),  # fmt: skip
            steps.untested(len(kept.subgroups)) if tested is None else tested,
        ],
        axis=1,
    )
    dataset_values = {}
    for split, frame in (("search", search), ("validation", held_out)):
        for name, value in steps.dataset_values(frame, target, positive_label).items():
            dataset_values[f"{name}_{split}"] = value
    table.attrs.update(
        measure=statistic_qf.measure.name, mode=mode, label=label, score=score,
        positive_label=positive_label, size_weight=size_weight, balance_weight=balance_weight,
        generalization_aware=generalization_aware, depth=depth, min_support=min_support,
        collapse_identical=collapse_identical, max_overlap=max_overlap,
        n_samples=n_samples, method=method, alpha=alpha, dataset_values=dataset_values,
    )  # fmt: skip
    if tested is None:
        raise InterruptedTest(table)
    return table
