"""The steps of :func:`~subroc_ext.find_subgroups`, each usable alone.

* :func:`search`: the top-k patterns of a quality function on the search
  split (any pysubgroup algorithm, :class:`~subroc_ext.FastSearch` by
  default), timed and with the evaluated candidates counted;
* :func:`describe`: size, class counts and every built-in measure of each
  pattern on a split, one tidy row per pattern;
* :func:`test`: the randomization test of each pattern on the validation
  split, corrected for multiple testing, and its effect with the interval
  that matches the decision (:mod:`subroc_ext.inference.verdicts`);
* without a holdout, :func:`~subroc_ext.workflow.without_holdout.test_without_holdout`.

``find_subgroups`` is these steps plus input validation and the
redundancy filters; experiments and benchmarks call the steps directly.
"""

import contextlib
import signal
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..engine.counting import CountingQF
from ..engine.search import FastSearch
from ..inference.effects import clip_to_range, effect_estimates
from ..inference.promise import Promise
from ..inference.resampled_effects import resampled_effect_estimates
from ..inference.significance import base_seed, randomization_test
from ..inference.verdicts import VERDICT_COLUMNS, check_verdict_settings, verdicts
from ..inputs.search_size import check_memory, estimate_search_size, warn_if_large
from ..inputs.search_space import make_search_space
from ..inputs.sorted_data import SortedDataset
from ..metrics.confidence import delong_interval_of_sorted
from ..metrics.cross_auc import bias_aucs_of_masks
from ..metrics.expected_auc import expected_auc_of_sorted
from ..objective.quality import SoftClassifierQF
from ..scoring import calibration as _calibration
from ..scoring import measures as _measures
from ..scoring.normalized_pr_auc import NormalizedPRAUC

__all__ = [
    "MEASURES", "REQUESTED_MEASURES", "CALIBRATION_MEASURES", "SearchResult", "TEST_COLUMNS", "describe", "empty_test_columns", "joined_test_columns", "search", "test", "use_dataset",
    "untested",
]  # fmt: skip

#: Built-in measures by name.
MEASURES = {
    "roc_auc": _measures.ROCAUC,
    "pr_auc": _measures.PRAUC,
    "arl": _measures.AverageRankingLoss,
    "attribution_mean": _measures.attribution_mean,
}

#: Built-in measures searched on request, described in a table only when searched.
REQUESTED_MEASURES = {
    "pr_auc_normalized": NormalizedPRAUC,
}

#: The calibration measures by name: searched on request, not described in every table.
CALIBRATION_MEASURES = {
    "calibration_gap": _calibration.calibration_gap,
    "brier": _calibration.brier_score,
    "log_loss": _calibration.log_loss,
}

#: The columns of :func:`test`'s table.
TEST_COLUMNS = [
    "statistic", "p_value", "p_value_corrected", "significant", "testable", "null_samples",
    "p_value_exact", "delta", "delta_ci_low", "delta_ci_high", *VERDICT_COLUMNS,
]  # fmt: skip


@dataclass
class SearchResult:
    """What :func:`search` found, and what it cost.

    Attributes
    ----------
    subgroups : list of pysubgroup descriptions
        The top patterns, best first.
    qualities : list of float
        Their qualities, in the same order.
    candidates : int
        Candidates evaluated (``FastSearch.candidates_evaluated``, or the
        quality function's ``calculate_statistics`` calls for other algorithms).
    seconds, cpu_seconds : float
        Wall and CPU time of the search (CPU time hardly grows when other
        processes compete for the cores).
    finished : bool
        False if the search was stopped after ``timeout`` seconds; then
        ``subgroups`` is empty and ``candidates`` counts up to the stop.
    result_set_sizes : list of int
        The number of patterns asked for (several, summed over in
        ``candidates`` and the times, after
        :func:`~subroc_ext.workflow.diversity.search_distinct` searched again).
    size : SearchSize or None
        The search's size estimated before it started
        (:func:`~subroc_ext.inputs.search_size.estimate_search_size`).
    selectors : list
        The search space searched.
    depth, min_support : int
        The search's maximum depth and minimum support.
    """

    subgroups: list = field(default_factory=list)
    qualities: list = field(default_factory=list)
    candidates: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    finished: bool = True
    result_set_sizes: list = field(default_factory=list)
    size: object = None
    selectors: list = field(default_factory=list)
    depth: int = 0
    min_support: int = 0


class _Timeout(Exception):
    """The search ran out of its time budget."""


def _raise_timeout(signum, frame):
    raise _Timeout


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise :class:`_Timeout` in the block after ``seconds`` (None: no limit)."""
    if seconds is None:
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _sorted(data, target, positive_label):
    """``data`` as a :class:`~subroc_ext.inputs.sorted_data.SortedDataset` (sorted once, or as given)."""
    if isinstance(data, SortedDataset):
        return data
    return SortedDataset(data, target.label_column, target.prediction_column, positive_label)


def use_dataset(quality_function, data):
    """Let the quality function inside any wrappers reuse a sorted split."""
    if not isinstance(data, SortedDataset):
        return
    inner = quality_function
    while hasattr(inner, "qf"):  # GeneralizationAwareQF, CountingQF
        inner = inner.qf
    if hasattr(inner, "use_dataset"):
        inner.use_dataset(data)


def search(
    data, quality_function, target, *, selectors=None, nbins=5, ignore=(), depth=2,
    min_support=20, result_set_size=100, min_quality=-np.inf, prune=True, algorithm=None,
    timeout=None, progress=False, client=None, n_jobs=1, allow_large=False,
):  # fmt: skip
    """The top patterns of ``quality_function`` on ``data``.

    Parameters
    ----------
    data : pandas.DataFrame or SortedDataset
        The search split (a :class:`~subroc_ext.inputs.sorted_data.SortedDataset`, e.g.
        ``ValidatedData.search``, is used as sorted).
    quality_function : pysubgroup quality function
        E.g. from :func:`~subroc_ext.make_quality_function`.
    target : SoftClassifierTarget or MultiClassTarget
        The label and score column(s).
    selectors : list of pysubgroup selectors, optional
        The search space; by default :func:`~subroc_ext.make_search_space`
        of every column except the target's and ``ignore``.
    nbins : int, default=5
    ignore : sequence of str, default=()
    depth : int, default=2
        Maximum number of conditions per pattern.
    min_support : int, default=20
        Minimum cover size (rows).
    result_set_size : int, default=100
    min_quality : float, default=-inf
        Patterns of lower quality are not returned.
    prune : bool, default=True
        Optimistic-estimate pruning; ``False`` searches everything and
        computes no estimate (:class:`~subroc_ext.engine.counting.CountingQF`).
    algorithm : object, optional
        Anything with pysubgroup's ``execute(task)``; by default
        :class:`~subroc_ext.FastSearch` (with ``progress``, ``client`` and ``n_jobs``).
    timeout : float, optional
        Stop after this many seconds (``SIGALRM``: Unix, main thread only)
        and return an unfinished result.
    progress : bool, default=False
    client : dask.distributed.Client, optional
    n_jobs : int, default=1
        Threads of the default algorithm.
    allow_large : bool, default=False
        Start a search estimated to need more memory than is available.

    Returns
    -------
    SearchResult

    Raises
    ------
    SearchMemoryError
        Before a search estimated to need more memory than is available
        (:func:`~subroc_ext.inputs.search_size.check_memory`), unless ``allow_large``.

    Warns
    -----
    SearchSizeWarning
        Before a large search (:func:`~subroc_ext.inputs.search_size.warn_if_large`).

    Examples
    --------
    >>> import subroc_ext
    >>> from subroc_ext.workflow import steps
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west"], 400),
    ...                      "label": rng.integers(0, 2, 400)})
    >>> data["score"] = np.where(data["region"] == "east", rng.random(400),  # east: chance
    ...                          0.5 * data["label"] + 0.5 * rng.random(400))
    >>> qf = subroc_ext.make_quality_function("roc_auc", "label")
    >>> found = steps.search(data, qf, subroc_ext.SoftClassifierTarget("label", "score"),
    ...                      depth=1, result_set_size=1)
    >>> print(found.subgroups[0], found.finished)
    region=='east' True
    """
    if algorithm is None:
        algorithm = FastSearch(progress=progress, client=client, n_jobs=n_jobs)
    use_dataset(quality_function, data)
    data = data.data if isinstance(data, SortedDataset) else data
    if selectors is None:
        excluded = [*target.get_target_columns(data.iloc[:0]).columns, *ignore]
        selectors = make_search_space(data, nbins=nbins, ignore=excluded, min_support=min_support)
    selectors = list(selectors)
    size = estimate_search_size(selectors, len(data), depth)
    warn_if_large(size)
    check_memory(size, allow_large)
    counting = CountingQF(quality_function, prune)
    # FastSearch runs subroc-ext's quality functions only (not the wrapper)
    # and counts its evaluated candidates itself.
    fast = isinstance(algorithm, FastSearch)
    task = ps.SubgroupDiscoveryTask(
        data, target, selectors, counting.qf if fast else counting,
        result_set_size=result_set_size, depth=depth, min_quality=min_quality,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    found = SearchResult(result_set_sizes=[result_set_size], size=size, selectors=selectors, depth=depth,
                         min_support=min_support)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        with _time_limit(timeout):
            ranked = sorted(algorithm.execute(task).results, key=lambda entry: -entry[0])
        found.subgroups = [description for _, description, *_ in ranked]
        found.qualities = [float(quality) for quality, *_ in ranked]
    except _Timeout:
        found.finished = False
    found.seconds, found.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    found.candidates = algorithm.candidates_evaluated if fast else counting.candidates
    return found


def _prepared_measures(dataset, measure=None):
    """Every built-in measure prepared on ``dataset`` (None where it is undefined
    there), once per dataset; then ``measure``, the searched one, if it is none
    of them."""
    prepared = dataset.cached(("prepared measures",), lambda: _prepare_measures(dataset, MEASURES.values()))
    if measure is None or measure.name in prepared:
        return prepared
    return {**prepared, **_prepare_measures(dataset, [lambda: measure])}


def _prepare_measures(dataset, makers):
    whole = dataset.cover()
    prepared = {}
    for make in makers:
        measure = make()
        defined = measure.dataset_is_defined(whole.positives, whole.negatives)
        prepared[measure.name] = measure.prepare(whole) if defined else None
    return prepared


def dataset_values(data, target, positive_label=1, measure=None, *, probabilities=None):
    """Each built-in measure on the whole of ``data`` (NaN where undefined).

    Parameters
    ----------
    data : pandas.DataFrame or SortedDataset
    target : SoftClassifierTarget
    positive_label : object, default=1
        Not used for a SortedDataset (sorted with its own).
    measure : Measure, optional
        The searched measure: one of the user's is added (by its name).
    probabilities : numpy.ndarray, optional
        Each row's probability (data's row order): adds ``expected_roc_auc``
        and ``expected_<measure>`` of the searched ``measure``.

    Returns
    -------
    dict
        ``{measure name: value}``.
    """
    dataset = _sorted(data, target, positive_label)
    whole = dataset.cover()
    values = {
        name: prepared.value(whole) if prepared else np.nan
        for name, prepared in _prepared_measures(dataset, measure).items()
    }
    if probabilities is not None:
        ascending = _ascending_probabilities(dataset, probabilities)
        values["expected_roc_auc"] = _expected_aucs(dataset, ascending, [np.ones(len(dataset), bool)])[0]
        values.update(_promised(_promise(dataset, measure, probabilities), dataset,
                                [np.ones(len(dataset), bool)]).iloc[0].to_dict())  # fmt: skip
    return values


def _promise(dataset, measure, probabilities):
    """The :class:`~subroc_ext.inference.promise.Promise` of the searched ``measure``
    on the sorted rows of ``dataset`` (``probabilities`` in the data's row
    order); None for the ROC AUC (``expected_roc_auc`` is always there) or
    without a measure or probabilities."""
    if measure is None or probabilities is None or measure.name == "roc_auc":
        return None
    return Promise(measure, dataset.is_positive, dataset.scores, np.asarray(probabilities, dtype=float)[dataset.order])


def _promised(promise, dataset, masks):
    """``expected_<measure>`` of each cover (a mask over the sorted rows) where the
    measure is defined (NaN elsewhere); no column without a ``promise``."""
    if promise is None:
        return pd.DataFrame(index=range(len(masks)))
    positives = np.array([dataset.is_positive[mask].sum() for mask in masks], dtype=int)
    sizes = np.array([mask.sum() for mask in masks], dtype=int)
    defined = promise.measure.is_defined(positives, sizes - positives)
    return pd.DataFrame({f"expected_{promise.measure.name}": [promise.promised(mask) if ok else np.nan
                                                              for mask, ok in zip(masks, defined)]})  # fmt: skip


def _ascending_probabilities(dataset, probabilities):
    """``(order, ascending)``: ``ascending`` the probabilities (given in the
    data's row order) sorted, ``order`` the positions of the score-sorted rows
    that sort them, or None when they rise with the scores already (the
    scores themselves, say). A cover's probabilities in ascending order are
    then ``ascending[mask[order]]`` (or ``ascending[mask]``), in time linear
    in the rows."""
    in_order = np.asarray(probabilities, dtype=float)[dataset.order]
    if not np.any(in_order[1:] < in_order[:-1]):
        return None, in_order
    order = np.argsort(in_order, kind="stable")
    return order, in_order[order]


def _expected_aucs(dataset, ascending, masks):
    """The expected ROC AUC of each cover (a mask over the sorted rows) where
    its ROC AUC is defined, NaN elsewhere (:mod:`subroc_ext.metrics.expected_auc`);
    ``ascending`` from :func:`_ascending_probabilities`."""
    order, probabilities = ascending
    values = np.full(len(masks), np.nan)
    for j, mask in enumerate(masks):
        if dataset.is_positive[mask].any() and not dataset.is_positive[mask].all():
            values[j] = expected_auc_of_sorted(probabilities[mask if order is None else mask[order]])
    return values


def _roc_auc_intervals(dataset, masks):
    """DeLong 95 % interval of each cover's ROC AUC (NaN where undefined)."""
    intervals = [delong_interval_of_sorted(dataset.is_positive[mask], dataset.group_ids[mask]) for mask in masks]
    return {
        "roc_auc_ci_low": [interval.low for interval in intervals],
        "roc_auc_ci_high": [interval.high for interval in intervals],
    }


def describe(subgroups, data, target, *, positive_label=1, intervals=False, suffix="", measure=None,
             probabilities=None):
    """Size, class counts and every built-in measure of each subgroup on ``data``.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
    data : pandas.DataFrame or SortedDataset
        A SortedDataset (e.g. ``ValidatedData.validation``) is used as sorted.
    target : SoftClassifierTarget
    positive_label : object, default=1
        Not used for a SortedDataset.
    intervals : bool, default=False
        Add the DeLong 95 % confidence interval of the ROC AUC
        (``roc_auc_ci_low``, ``roc_auc_ci_high``, see
        :func:`~subroc_ext.roc_auc_confidence_interval`).
    suffix : str, default=''
        Appended to every column name (e.g. ``'_validation'`` gives
        ``size_validation``, ``roc_auc_validation`` and
        ``roc_auc_validation_ci_low``).
    measure : Measure, optional
        The searched measure: one of the user's gets a column of its own
        (named as the measure), after the built-in ones.
    probabilities : numpy.ndarray, optional
        Each row's score as a probability (data's row order;
        :func:`~subroc_ext.workflow.case_mix.split_probabilities`): adds
        ``expected_roc_auc`` after ``roc_auc``, the ROC AUC the subgroup's
        scores promise (:func:`~subroc_ext.expected_roc_auc`), and
        ``expected_<measure>`` after the searched ``measure``, its promise
        (:class:`~subroc_ext.inference.promise.Promise`).

    Returns
    -------
    pandas.DataFrame
        Columns ``size``, ``positives``, ``negatives``, ``ncr`` (negatives /
        size) and ``roc_auc``, ``pr_auc``, ``arl``, ``attribution_mean``
        (and ``measure``'s; NaN where undefined), then ``bpsn_auc`` and ``bnsp_auc`` (Borkan et
        al.'s bias AUCs against the rows outside the subgroup, see
        :func:`subroc_ext.subgroup_bias_aucs`), one row per subgroup.

    Examples
    --------
    >>> import pysubgroup as ps, subroc_ext
    >>> from subroc_ext.workflow import steps
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west"], 400),
    ...                      "label": rng.integers(0, 2, 400)})
    >>> data["score"] = np.where(data["region"] == "east", rng.random(400),  # east: chance
    ...                          0.5 * data["label"] + 0.5 * rng.random(400))
    >>> east = ps.Conjunction([ps.EqualitySelector("region", "east")])
    >>> table = steps.describe([east], data, subroc_ext.SoftClassifierTarget("label", "score"))
    >>> table[["size", "roc_auc"]].round(2)
       size  roc_auc
    0   179      0.5
    """
    dataset, subgroups = _sorted(data, target, positive_label), list(subgroups)
    measures = _prepared_measures(dataset, measure)
    ascending = None if probabilities is None else _ascending_probabilities(dataset, probabilities)
    promise = _promise(dataset, measure, probabilities)
    starts = range(0, max(len(subgroups), 1), _DESCRIBED_AT_ONCE)  # one (empty) part for no subgroups
    parts = []
    for start in starts:
        masks = dataset.masks_of(subgroups[start : start + _DESCRIBED_AT_ONCE])
        part = _describe_covers(dataset, masks, measures, ascending, intervals)
        promised = _promised(promise, dataset, masks).set_index(part.index)  # after the searched measure
        for name in promised:
            part.insert(part.columns.get_loc(measure.name) + 1, name, promised[name])
        parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    # the suffix goes after the measure: roc_auc_validation_ci_low
    return table.rename(columns=lambda name: name.replace("roc_auc_ci", f"roc_auc{suffix}_ci")
                        if name.startswith("roc_auc_ci") else name + suffix)  # fmt: skip


#: Subgroups whose covers :func:`describe` holds at once (a row each).
_DESCRIBED_AT_ONCE = 16


def _describe_covers(dataset, masks, measures, ascending, intervals):
    """:func:`describe`'s columns (without the suffix) for covers over the sorted rows
    (``ascending``: the probabilities from :func:`_ascending_probabilities`, or None)."""
    columns = {name: [] for name in ["size", "positives", "negatives", *measures]}
    for mask in masks:  # one cover at a time: memory in proportion to the rows
        cover = dataset.cover(mask)
        columns["size"].append(len(cover.rows))
        columns["positives"].append(cover.positives)
        columns["negatives"].append(cover.negatives)
        for name, prepared in measures.items():
            defined = prepared and prepared.is_defined(cover.positives, cover.negatives)
            columns[name].append(prepared.value(cover) if defined else np.nan)
    table = pd.DataFrame(columns, index=range(len(masks)))
    if ascending is not None:
        table.insert(4, "expected_roc_auc", _expected_aucs(dataset, ascending, masks))
    with np.errstate(invalid="ignore", divide="ignore"):
        table.insert(3, "ncr", table["negatives"] / table["size"])
    bias = bias_aucs_of_masks(dataset.is_positive, dataset.scores, masks, group_ids=dataset.group_ids)
    table["bpsn_auc"], table["bnsp_auc"] = bias["bpsn_auc"], bias["bnsp_auc"]
    if intervals:
        for name, values in _roc_auc_intervals(dataset, masks).items():
            table[name] = values
    return table


def test_settings(tested, held_out, method, intervals):
    """The test's settings as a table's ``attrs``: the correction the rows got
    (the permutation test's own without a holdout), whether there was a holdout,
    the intervals, their level and the null values drawn (``tested`` None: the
    test was cut short)."""
    return {
        "method": method if held_out is not None or tested is None else tested.attrs["method"],
        "holdout": held_out is not None, "intervals": intervals if held_out is not None else "none",
        "interval_level": np.nan if tested is None else tested.attrs.get("interval_level", np.nan),
        "null_samples_drawn": 0 if tested is None else tested.attrs.get("null_samples_drawn", 0),
    }


def space_summary(space, found):
    """The search space as a table's ``attrs['search_space']``: its number of
    conditions, the columns left out and why, the values rarer than the
    minimum support (per column), its notes, and the bound on the candidates
    before pruning (None when not estimated)."""
    return {
        "conditions": len(space), "left_out": dict(space.left_out), "rare_values": dict(space.rare_values),
        "notes": list(space.notes), "candidates_bound": None if found.size is None else found.size.candidates,
    }


def test(subgroups, data, quality_function, target, *, n_samples="adaptive", max_samples=1_000_000,
         method="fdr_by", alpha=0.05, intervals="fcr", min_delta=0.0, random_state=None, progress=False,
         client=None, n_jobs=1):  # fmt: skip
    """The randomization test of each subgroup on ``data``, corrected, and its
    effect with the interval that matches the decision.

    A thin step over :func:`~subroc_ext.randomization_test`, the effects
    (:func:`~subroc_ext.inference.effects.effect_estimates`) and
    :func:`~subroc_ext.inference.verdicts.verdicts`, that also takes an empty
    list of subgroups.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
    data : pandas.DataFrame or SortedDataset
        The validation split (a SortedDataset is used as sorted).
    quality_function : SoftClassifierQF, ComparisonQF or AUCMuQF
        Defines the statistic (its measure and mode; weights are not used).
    target : SoftClassifierTarget, ComparisonTarget, DriftTarget or MultiClassTarget
    n_samples, max_samples, method, alpha, random_state, progress, client, n_jobs
        As in :func:`~subroc_ext.randomization_test`.
    intervals : {'fcr', 'simultaneous'}, default='fcr'
        ``'fcr'``: each row's interval at the false coverage-rate level of
        the selection, and significant only where the test rejects and the
        interval excludes ``min_delta``; ``'simultaneous'``: intervals
        simultaneous over all rows at ``1 - alpha``, and the test decides
        (as before 0.3). See :mod:`subroc_ext.inference.verdicts`.
    min_delta : float, default=0
        Significant only where the effect's interval lies beyond this.

    Returns
    -------
    pandas.DataFrame
        The :data:`TEST_COLUMNS` (``statistic``, ``p_value``,
        ``p_value_corrected``, ``significant``, ``testable``,
        ``null_samples``, ``p_value_exact``, ``delta``, ``delta_ci_low``,
        ``delta_ci_high``, ``verdict``, ``verdict_note``), one row per
        subgroup in input order (the effects of a ComparisonQF or an AUCMuQF
        from :func:`~subroc_ext.inference.resampled_effects.resampled_effect_estimates`).
        ``attrs``: ``null_samples_drawn`` as in
        :func:`~subroc_ext.randomization_test`, and ``intervals``,
        ``interval_level``, ``min_delta`` (:func:`~subroc_ext.inference.verdicts.verdicts`).

    Examples
    --------
    >>> import pysubgroup as ps, subroc_ext
    >>> from subroc_ext.workflow import steps
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west"], 400),
    ...                      "label": rng.integers(0, 2, 400)})
    >>> data["score"] = np.where(data["region"] == "east", rng.random(400),  # east: chance
    ...                          0.5 * data["label"] + 0.5 * rng.random(400))
    >>> east = ps.Conjunction([ps.EqualitySelector("region", "east")])
    >>> statistic = subroc_ext.make_quality_function("roc_auc", "label")
    >>> tested = steps.test([east], data, statistic, subroc_ext.SoftClassifierTarget("label", "score"),
    ...                     n_samples=200, random_state=0)
    >>> bool(tested["significant"][0])
    True
    """
    check_verdict_settings(intervals, min_delta)
    if not len(subgroups):
        return empty_test_columns()
    seed = base_seed(random_state)
    use_dataset(quality_function, data)
    data = data.data if isinstance(data, SortedDataset) else data
    tested = randomization_test(
        subgroups, data, quality_function, target=target, n_samples=n_samples,
        max_samples=max_samples, method=method, alpha=alpha, random_state=seed,
        progress=progress, client=client, n_jobs=n_jobs,
    )  # fmt: skip
    single = isinstance(quality_function, SoftClassifierQF)
    estimate = effect_estimates if single else resampled_effect_estimates
    estimates = estimate(subgroups, data, quality_function, target, random_state=seed)
    judged = verdicts(tested, estimates, method=method, alpha=alpha, min_delta=min_delta, intervals=intervals)
    if single:  # an interval inside the values the effect can take
        judged = clip_to_range(judged, quality_function)
    return joined_test_columns(tested, judged)


def joined_test_columns(tested, judged):
    """The test's columns and the verdict's, as :data:`TEST_COLUMNS`, with both attrs."""
    table = pd.concat([tested.drop(columns=judged.columns, errors="ignore"), judged], axis=1)[TEST_COLUMNS]
    table.attrs.update({**tested.attrs, **judged.attrs})
    return table


def empty_test_columns():
    """The :data:`TEST_COLUMNS` of no subgroup."""
    empty = pd.DataFrame({column: [] for column in TEST_COLUMNS}).astype(float)
    empty = empty.astype({"significant": bool, "testable": bool, "null_samples": np.int64,
                          "p_value_exact": bool, "verdict": object, "verdict_note": object})  # fmt: skip
    empty.attrs["null_samples_drawn"] = 0
    return empty


test.__test__ = False  # a pipeline step, not a pytest test


def untested(n_subgroups):
    """The :data:`TEST_COLUMNS` of ``n_subgroups`` patterns that were not tested.

    The test statistic, p-values and effects are NaN, ``significant``,
    ``testable`` and ``null_samples`` missing (``pd.NA``): unknown, not
    ``False`` or 0.

    Examples
    --------
    >>> from subroc_ext.workflow import steps
    >>> steps.untested(1)[["p_value", "significant", "null_samples", "delta"]]
       p_value  significant  null_samples  delta
    0      NaN         <NA>          <NA>    NaN
    """
    unknown = {"significant": "boolean", "testable": "boolean", "null_samples": "Int64",
               "p_value_exact": "boolean", "verdict": "string", "verdict_note": "string"}  # fmt: skip
    return pd.DataFrame(
        {
            column: pd.array([pd.NA] * n_subgroups, dtype=unknown[column])
            if column in unknown else np.full(n_subgroups, np.nan)
            for column in TEST_COLUMNS
        }
    )
