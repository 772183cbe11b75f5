"""Search and test subgroups of a multi-class model in one call (AUC_mu).

The multi-class counterpart of :func:`subroc_ext.find_subgroups`: the same
steps (split, search with :class:`~subroc_ext.FastSearch`, randomization test on
the validation split, one tidy table), with :class:`~subroc_ext.AUCMuQF` as
the quality function.
"""

import numpy as np
import pandas as pd

from ..exceptions import InterruptedTest
from ..inference.failures import FailureRules, JudgedRows, judge_failures
from ..inference.significance import check_test_settings
from ..inputs.search_space import make_search_space
from ..inputs.validated import as_frame, split_validation
from ..objective.generalization import GeneralizationAwareQF
from ..objective.multiclass import AUCMuQF, MultiClassTarget
from ..scoring.auc_mu import check_partition_matrix
from ..utils.cluster import parallelism
from ..utils.validation import check_columns, check_mode, check_weights, min_support_count
from . import diversity, steps
from .settings import check_holdout_settings
from .single_split import describing, search_keep_test, test_columns

__all__ = ["find_multiclass_subgroups", "describe_multiclass_subgroups"]


def describe_multiclass_subgroups(subgroups, data, qf, target, *, suffix=""):
    """Size, class counts and AUC_mu of each subgroup on ``data``.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
    data : pandas.DataFrame
    qf : AUCMuQF
    target : MultiClassTarget
    suffix : str, default=''
        Appended to every column name.

    Returns
    -------
    pandas.DataFrame
        ``size``, ``count_<class>`` per class and ``auc_mu`` (NaN where a
        class is absent), one row per subgroup.
    """
    qf.calculate_constant_statistics(data, target)
    records = []
    for subgroup in subgroups:
        stats = qf.calculate_statistics(subgroup, target, data)
        records.append({"size": stats.size_sg, **qf.count_record(stats), "auc_mu": stats.measure})
    columns = ["size", *(f"count_{c}" for c in qf.classes), "auc_mu"]
    return pd.DataFrame.from_records(records, columns=columns).add_suffix(suffix)


def find_multiclass_subgroups(
    data,
    *,
    label,
    score_columns,
    partition_matrix=None,
    mode="worse",
    validation=0.5,
    size_weight=1.0,
    balance_weight=1.0,
    generalization_aware=True,
    depth=2,
    min_support=20,
    nbins=5,
    ignore=(),
    thresholds=True,
    keep_ids=False,
    min_quality=0.0,
    result_set_size=100,
    collapse_identical=True,
    max_overlap=0.8,
    n_samples="adaptive",
    max_samples=1_000_000,
    method="fdr_by",
    alpha=0.05,
    intervals="fcr",
    min_delta=0.0,
    random_state=0,
    progress=True,
    client=None,
    n_jobs=None,
    allow_large=False,
):
    """Find subgroups where a multi-class model's AUC_mu is exceptional, and test them.

    Parameters
    ----------
    data : pandas.DataFrame
        Rows with attributes, the true class and one score column per class.
        When ``validation`` is a DataFrame, ``data`` is the search split.
    label : str
        The class column.
    score_columns : list of str or dict
        One score column per class, named like the classes or as a mapping
        ``{class: column}``.
    partition_matrix : array-like of shape (K, K), optional
        AUC_mu's partition matrix (default: argmax).
    mode : {'worse', 'better', 'both'}, default='worse'
    validation : pandas.DataFrame, float or None, default=0.5
        Held-out data for the significance test, or the fraction of ``data``
        to split off for it; None: no holdout (the whole search tested by
        permutations within each class, as in :func:`subroc_ext.find_subgroups`).
    size_weight, balance_weight : float, default=1
        Exponents of the size and of the K-class balance (min / max class count).
    generalization_aware : bool, default=True
    depth, min_support, nbins, ignore, thresholds, keep_ids, min_quality, result_set_size
        Search settings and search space, as in :func:`subroc_ext.find_subgroups`
        (only patterns of quality above ``min_quality``, default 0).
    collapse_identical, max_overlap
        Redundancy filters, as in :func:`subroc_ext.find_subgroups`.
    n_samples, max_samples, method, alpha, intervals, min_delta
        Test settings, as in :func:`subroc_ext.find_subgroups`; the null subsets keep every class count.
    random_state : int, numpy.random.Generator or None, default=0
        Seeds the split and the test, as in :func:`subroc_ext.find_subgroups`.
    progress : bool, default=True
    client, n_jobs
        Run the search and the test on a Dask cluster or on threads, as in
        :func:`subroc_ext.find_subgroups`.
    allow_large : bool, default=False
        Start a search estimated to need more memory than is available, as in
        :func:`subroc_ext.find_subgroups`.

    Returns
    -------
    pandas.DataFrame
        Sorted by ``quality``: ``subgroup``, ``description``,
        ``alternatives``, ``quality``, ``overlap``, ``overlaps_with`` (as in
        :func:`subroc_ext.find_subgroups`), ``size``, ``count_<class>`` and
        ``auc_mu`` on each split (suffixes ``_search`` and ``_validation``),
        ``statistic``, ``p_value``, ``p_value_corrected``, ``significant``,
        ``testable``, ``null_samples``, ``delta``, ``delta_ci_low``,
        ``delta_ci_high`` (AUC_mu's effect with its simultaneous interval,
        :func:`~subroc_ext.inference.resampled_effects.resampled_effect_intervals`),
        and the headline's decision (``failure``, ``failure_note``,
        ``failure_of``, ``promise_p_value``: as in
        :func:`~subroc_ext.find_subgroups`; a failure needs at least 10 rows
        of every class). ``table.attrs`` holds AUC_mu of both whole splits and
        the settings.

    Raises
    ------
    InterruptedTest
        Ctrl-C during the significance test (a ``KeyboardInterrupt``): its
        ``table`` holds the searched patterns, untested.

    Examples
    --------
    >>> from subroc_ext.demo import datasets, modelling
    >>> frame = datasets.load_adult_marital_status()                       # doctest: +SKIP
    >>> train, rest = modelling.split_parts(frame, 2, random_state=0)      # doctest: +SKIP
    >>> columns, (rest,) = modelling.fit_and_score_multiclass(train, "marital", rest)  # doctest: +SKIP
    >>> find_multiclass_subgroups(rest, label="marital", score_columns=columns)  # doctest: +SKIP
    """
    data = as_frame(data)
    if hasattr(validation, "to_pandas") and not isinstance(validation, pd.DataFrame):
        validation = as_frame(validation, "validation")
    target = MultiClassTarget(label, score_columns)
    check_columns(data, [label, *target.score_columns.values(), *ignore])
    check_mode(mode)
    check_weights(size_weight, balance_weight)
    check_partition_matrix(partition_matrix, len(target.score_columns), list(target.score_columns))
    check_test_settings(n_samples, method, alpha, max_samples)
    check_holdout_settings(validation, intervals, min_delta)
    if not (isinstance(depth, (int, np.integer)) and depth >= 1):
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    if not (isinstance(result_set_size, (int, np.integer)) and result_set_size >= 1):
        raise ValueError(f"result_set_size must be a positive integer, got {result_set_size!r}")
    diversity.check_max_overlap(max_overlap)
    search, held_out = split_validation(data, validation, random_state)
    min_support = min_support_count(min_support, len(search))

    def make_qf(alpha_, beta_):
        return AUCMuQF(
            label, target.score_columns, beta_, alpha_, partition_matrix=partition_matrix, mode=mode
        )

    qf = make_qf(size_weight, balance_weight)
    if generalization_aware:
        qf = GeneralizationAwareQF(qf)
    statistic_qf = make_qf(0, 0)
    statistic_qf.calculate_constant_statistics(search if held_out is None else held_out, target)  # early
    space = make_search_space(
        search, ignore=[label, *target.score_columns.values(), *ignore], nbins=nbins,
        thresholds=thresholds, keep_ids=keep_ids, min_support=min_support, held_out=held_out,
    )  # fmt: skip
    client, n_jobs = parallelism(client, n_jobs)
    found, kept, tested = search_keep_test(
        search, held_out, qf, statistic_qf, target, selectors=space, depth=depth,
        min_support=min_support, result_set_size=result_set_size, min_quality=min_quality,
        collapse_identical=collapse_identical, max_overlap=max_overlap, n_samples=n_samples,
        max_samples=max_samples, method=method, alpha=alpha, intervals=intervals, min_delta=min_delta,
        random_state=random_state, progress=progress, client=client, n_jobs=n_jobs, allow_large=allow_large,
    )  # fmt: skip
    with describing(kept, tested):  # Ctrl-C or an error: the searched (and tested) table goes with it
        describer = make_qf(0, 0)
        splits = [("search", search)] + ([] if held_out is None else [("validation", held_out)])
        table = pd.concat(
            [
                kept.frame(),
                *(describe_multiclass_subgroups(kept.subgroups, frame, describer, target, suffix=f"_{split}")
                  for split, frame in splits),  # fmt: skip
                test_columns(kept, tested),
            ],
            axis=1,
        )
        judged_on = search if held_out is None else held_out
        classes = judged_on[label].to_numpy()
        rows = JudgedRows(
            judged_on, target, lambda: make_qf(0, 0),
            pd.DataFrame({f"rows of class {c!r}": classes == c for c in target.score_columns}),
            lambda subgroup: subgroup.covers(judged_on),
        )  # fmt: skip
        rules = FailureRules(method=method, alpha=alpha, random_state=random_state, holdout=held_out is not None)
        table = pd.concat([table, judge_failures(table, kept.subgroups, rows, mode, rules=rules)], axis=1)
        describer.calculate_constant_statistics(search, target)
        table.attrs.update(
            measure="auc_mu", mode=mode, label=label, score_columns=dict(target.score_columns),
            size_weight=size_weight, balance_weight=balance_weight,
            generalization_aware=generalization_aware, depth=depth, min_support=min_support,
            collapse_identical=collapse_identical, max_overlap=max_overlap,
            n_samples=n_samples, max_samples=max_samples, alpha=alpha, min_delta=min_delta,
            **steps.test_settings(tested, held_out, method, intervals),
            dataset_values={
                "auc_mu_search": describer.dataset_value,
                **({} if held_out is None else {"auc_mu_validation": statistic_qf.dataset_value}),
            },
            n_rows={split: len(frame) for split, frame in splits},
            search_space=steps.space_summary(space, found),
        )  # fmt: skip
    if tested is None:
        raise InterruptedTest(table)
    return table
