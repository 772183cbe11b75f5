"""Where did it get worse? :func:`find_regressions` and :func:`find_drift` in one call.

The comparison counterparts of :func:`subroc_ext.find_subgroups`, made of
the same steps: split off validation data, search with
:class:`~subroc_ext.FastSearch` (:func:`subroc_ext.workflow.steps.search`), drop
redundant patterns (:func:`subroc_ext.workflow.diversity.keep_patterns`), describe each
pattern on both splits (:func:`subroc_ext.workflow.steps.describe`, once per model or
period) and test it on the validation split
(:func:`subroc_ext.workflow.steps.test`), with :class:`~subroc_ext.ComparisonQF` as
the quality function:

* :func:`find_regressions`: a new model against a baseline on the same rows;
  the test draws random subsets of the validation rows with the pattern's
  size and negatives and evaluates both models on each;
* :func:`find_drift`: one model in a reference and a current period; the test
  draws random subsets of each period's validation rows with the pattern's
  size and negatives in that period.
"""


import numpy as np
import pandas as pd

from ..inference.failures import FailureRules, JudgedRows, class_kinds, judge_failures
from ..inference.significance import check_test_settings
from ..inputs.labels import infer_positive_label
from ..inputs.probabilities import fit_probabilities
from ..inputs.search_space import make_search_space
from ..inputs.target import SoftClassifierTarget
from ..inputs.validated import split_validation
from ..metrics.expected_auc import expected_roc_auc
from ..objective.comparison import ComparisonQF, ComparisonTarget, DriftTarget
from ..objective.generalization import GeneralizationAwareQF
from ..utils.cluster import parallelism
from ..utils.docstrings import insert_parts
from ..utils.validation import (
    check_columns,
    check_distinct_columns,
    check_mode,
    check_search_settings,
    check_weights,
    min_support_count,
    positive_mask,
)
from . import diversity as _diversity
from . import steps, without_holdout
from .settings import check_holdout_settings
from .single_split import describing, make_quality_function, search_keep_test

__all__ = ["find_regressions", "find_drift", "describe_comparison", "split_periods"]

#: The values of the period column :func:`find_drift` adds.
PERIODS = ("reference", "current")


def _period_column(columns):
    """A column name for the period that no input column has."""
    name = "period"
    while name in columns:
        name = "_" + name
    return name


def split_periods(reference, current, fraction, random_state):
    """The search and validation splits of each period, as :func:`find_drift` draws them.

    Returns
    -------
    [(reference search, reference validation), (current search, current validation)]
    """
    rng = np.random.default_rng(random_state)
    return [split_validation(frame, fraction, rng) for frame in (reference, current)]


def describe_comparison(subgroups, data, target, *, positive_label=1, suffix="", probabilities=None,
                        measure=None):  # fmt: skip
    """Size, class counts and every built-in measure of each subgroup on both sides.

    Parameters
    ----------
    subgroups : list of pysubgroup descriptions
    data : pandas.DataFrame
    target : ComparisonTarget or DriftTarget
    positive_label : object, default=1
    suffix : str, default=''
        Appended to every column name.
    probabilities : dict, optional
        ``{score column: Probabilities}``
        (:func:`~subroc_ext.inputs.probabilities.fit_probabilities`): adds each
        side's ``expected_roc_auc`` (the ROC AUC its scores promise) and
        ``expected_<measure>``.
    measure : Measure, optional
        The compared measure: one not described in every table (a
        calibration measure, a user's) gets its columns too.

    Returns
    -------
    pandas.DataFrame
        Paired: :func:`subroc_ext.workflow.steps.describe` of the new model (columns
        ``size``, ``roc_auc``, ...) and the baseline's measures (``roc_auc_baseline``,
        ...). Unpaired: :func:`~subroc_ext.workflow.steps.describe` of each period
        (``size_reference``, ``roc_auc_current``, ...). Then the suffix.
    """
    label, score = target.label_column, target.prediction_column
    probabilities = probabilities or {}

    def probability(frame, column):
        fitted = probabilities.get(column)
        return None if fitted is None else fitted(frame[column].to_numpy(dtype=float))

    if isinstance(target, DriftTarget):
        is_current = (data[target.period_column] == target.current).to_numpy(dtype=bool)
        parts = [
            steps.describe(subgroups, data[rows], SoftClassifierTarget(label, score),
                           positive_label=positive_label, suffix=f"_{name}{suffix}", measure=measure,
                           probabilities=probability(data[rows], score))
            for rows, name in ((~is_current, PERIODS[0]), (is_current, PERIODS[1]))
        ]  # fmt: skip
    else:
        new = steps.describe(subgroups, data, SoftClassifierTarget(label, score),
                             positive_label=positive_label, suffix=suffix, measure=measure,
                             probabilities=probability(data, score))  # fmt: skip
        baseline = steps.describe(
            subgroups, data, SoftClassifierTarget(label, target.baseline_column),
            positive_label=positive_label, suffix=f"_baseline{suffix}", measure=measure,
            probabilities=probability(data, target.baseline_column),
        )  # fmt: skip
        counts = [f"{c}_baseline{suffix}" for c in ("size", "positives", "negatives", "ncr")]
        parts = [new, baseline.drop(columns=counts)]
    return pd.concat(parts, axis=1)


def _side_probabilities(qf):
    """Each score column's probabilities (:func:`~subroc_ext.inputs.probabilities.fit_probabilities`,
    'auto'), fitted on the search split (a drift's on its reference period);
    a column whose scores cannot be read as probabilities has none."""
    fitted = {}
    for dataset in qf.sides.datasets:
        column = dataset.columns[1]
        if column not in fitted:
            try:
                fitted[column] = fit_probabilities(dataset.scores, dataset.is_positive, "auto", column)
            except ValueError:
                fitted[column] = None
    return {column: p for column, p in fitted.items() if p is not None}


def _prepared(qf, data, target, split):
    """``qf`` prepared on ``data``; errors name the split."""
    try:
        qf.calculate_constant_statistics(data, target)
    except ValueError as error:
        raise ValueError(f"the {split} split: {error}") from error
    return qf


def _search_space(search, held_out, target, nbins, ignore, min_support):
    """The conditions of a comparison, built on the attributes of all its rows
    (search and held out); in a drift, columns that tell the periods apart
    are left out (a condition on one would compare a period with itself, or
    with nothing)."""
    periods = None
    if isinstance(target, DriftTarget):
        rows = [search] if held_out is None else [search, held_out]
        periods = np.concatenate([(part[target.period_column] == target.current).to_numpy(dtype=bool)
                                  for part in rows])  # fmt: skip
    return make_search_space(
        search, ignore=[*target.get_attributes(), *ignore], nbins=nbins, min_support=min_support,
        periods=periods, held_out=held_out,
    )  # fmt: skip


def _find(search, held_out, target, *, positive_label, measure, mode, size_weight, balance_weight,
          generalization_aware, depth, min_support, nbins, ignore, result_set_size,
          collapse_identical, max_overlap, n_samples, method, alpha, intervals, min_delta, random_state,
          algorithm, progress, client, n_jobs, support_rows, allow_large=False):  # fmt: skip
    """Search, filter, test and describe: the steps both public functions share
    (only patterns of quality > 0 are reported, as by :func:`~subroc_ext.find_subgroups`;
    ``held_out`` None: no holdout, the whole search tested by permutations)."""
    check_mode(mode)
    check_weights(size_weight, balance_weight)
    check_test_settings(n_samples, method, alpha)
    check_holdout_settings(held_out, intervals, min_delta)
    check_search_settings(depth, result_set_size, nbins)
    _diversity.check_max_overlap(max_overlap)
    label = target.label_column
    measure = make_quality_function(measure, label).measure  # a name or a Measure, checked

    def make_qf(alpha_, beta_):
        return ComparisonQF(measure, label, positive_label=positive_label, size_weight=alpha_,
                            balance_weight=beta_, mode=mode)  # fmt: skip

    on_search = _prepared(make_qf(0, 0), search, target, "search")
    statistic_qf = on_search if held_out is None else _prepared(make_qf(0, 0), held_out, target, "validation")
    min_support = min_support_count(min_support, support_rows)
    qf = make_qf(size_weight, balance_weight)
    if generalization_aware:
        qf = GeneralizationAwareQF(qf)
    space = _search_space(search, held_out, target, nbins, ignore, min_support)
    client, n_jobs = parallelism(client, n_jobs)
    found, kept, tested = search_keep_test(
        search, held_out, qf, statistic_qf, target, selectors=space, depth=depth,
        min_support=min_support, result_set_size=result_set_size, min_quality=0.0,
        algorithm=algorithm, collapse_identical=collapse_identical,
        max_overlap=max_overlap, n_samples=n_samples, max_samples=1_000_000, method=method,
        alpha=alpha, intervals=intervals, min_delta=min_delta, random_state=random_state,
        progress=progress, client=client, n_jobs=n_jobs, allow_large=allow_large,
    )  # fmt: skip
    with describing(kept, tested):  # Ctrl-C or an error: the searched (and tested) table goes with it
        if tested is None:
            raise KeyboardInterrupt  # the test was cut: InterruptedTest with the searched patterns
        delta = [on_search.calculate_statistics(sg, target, search).raw_quality for sg in kept.subgroups]
        probabilities = _side_probabilities(on_search)
        columns = {"delta_search": np.array(delta, dtype=float)}
        splits = [("search", search, on_search)]
        if held_out is not None:
            columns["delta_validation"] = tested["statistic"].to_numpy(dtype=float)
            splits.append(("validation", held_out, statistic_qf))
        table = pd.concat(
            [
                kept.frame().assign(**columns),
                *(describe_comparison(kept.subgroups, frame, target, positive_label=positive_label,
                                      suffix=f"_{split}", probabilities=probabilities, measure=measure)
                  for split, frame, _ in splits),
                tested,
            ],
            axis=1,
        )  # fmt: skip
        sides = PERIODS if isinstance(target, DriftTarget) else ("baseline", "new")
        dataset_values = {
            f"{measure.name}_{side}_{split}": value
            for split, _, prepared in splits
            for side, value in zip(sides, prepared.dataset_values)
        }
        for split, _, prepared in splits:
            for side, dataset in zip(sides, prepared.sides.datasets):
                fitted = probabilities.get(dataset.columns[1])
                if fitted is not None:
                    dataset_values[f"expected_roc_auc_{side}_{split}"] = expected_roc_auc(fitted(dataset.scores))
        judged_on = search if held_out is None else held_out
        rules = FailureRules(method=method, alpha=alpha, random_state=random_state, holdout=held_out is not None)
        rows = _judged_rows(judged_on, target, make_qf, positive_label, probabilities, measure)
        whole_search_promise = None
        if held_out is None and rows.promise is not None and measure.name != "roc_auc":
            whole_search_promise = without_holdout.label_draws_without_holdout(
                table, kept.subgroups, rows, mode=mode, found=found, rules=rules)  # fmt: skip
        elif held_out is None and rows.promise is not None:  # a drift's promise, not on the rows that chose it
            whole_search_promise = without_holdout.drift_promise_without_holdout(
                table, kept.subgroups, search, target, probabilities[target.prediction_column],
                positive_label=positive_label, mode=mode, found=found, rules=rules, progress=progress,
                client=client, n_jobs=n_jobs,
            )  # fmt: skip
        table = pd.concat([table, judge_failures(table, kept.subgroups, rows, mode, rules=rules,
                                                 whole_search_promise=whole_search_promise)], axis=1)  # fmt: skip
        if probabilities:
            table.attrs["probabilities"] = "; ".join(f"{c}: {p.description}" for c, p in probabilities.items())
        table.attrs.update(
            measure=measure.name, mode=mode, label=label, score=target.prediction_column,
            positive_label=positive_label, size_weight=size_weight, balance_weight=balance_weight,
            generalization_aware=generalization_aware, depth=depth, min_support=min_support,
            collapse_identical=collapse_identical, max_overlap=max_overlap, n_samples=n_samples,
            alpha=alpha, dataset_values=dataset_values, holdout=held_out is not None, min_delta=min_delta,
            method=method if held_out is not None else tested.attrs["method"],
            intervals=intervals if held_out is not None else "none",
            interval_level=tested.attrs.get("interval_level", np.nan),
            null_samples_drawn=tested.attrs.get("null_samples_drawn", 0),
            search_space=steps.space_summary(space, found),
        )  # fmt: skip
    if isinstance(target, DriftTarget):  # the rows of the current period

        def rows(frame):
            return int((frame[target.period_column] == target.current).sum())
    else:
        table.attrs["baseline"] = target.baseline_column
        rows = len
    table.attrs["n_rows"] = {split: rows(frame) for split, frame, _ in splits}
    return table


def _judged_rows(frame, target, make_qf, positive_label, probabilities, measure):
    """The rows the headline's rules judge a comparison on
    (:class:`~subroc_ext.inference.failures.JudgedRows`): a failure needs
    enough positives and negatives in each period of a drift (both ROC AUCs
    are measured), in the rows of both models when paired. A drift's
    current period must fall short of its own scores' promise of
    ``measure`` (``probabilities``, fitted on the reference period's search
    rows); paired models share their rows and are not checked."""
    label, score = target.label_column, target.prediction_column
    is_positive = positive_mask(frame[label], positive_label, label)

    def cover(subgroup):
        return subgroup.covers(frame)

    if not isinstance(target, DriftTarget):
        return JudgedRows(frame, target, lambda: make_qf(0, 0), class_kinds(is_positive), cover)
    is_current = (frame[target.period_column] == target.current).to_numpy(dtype=bool)
    kinds = pd.concat([class_kinds(is_positive, f" of the {name} period", within=rows)
                       for name, rows in zip(PERIODS, (~is_current, is_current))], axis=1)  # fmt: skip
    promise = None
    if probabilities.get(score) is not None:
        scores = frame[score].to_numpy(dtype=float)[is_current]
        promise = (is_positive[is_current], scores, probabilities[score](scores))
    return JudgedRows(frame, target, lambda: make_qf(0, 0), kinds, cover, promise,
                      None if promise is None else is_current, measure)


_SHARED_PARAMETERS = """
    measure : {'roc_auc', 'pr_auc', 'arl', 'attribution_mean'} or Measure, default='roc_auc'
    positive_label : object, optional
        The positive class; inferred for labels {0, 1}, {-1, 1} and booleans
        (:func:`~subroc_ext.inputs.labels.infer_positive_label`), otherwise required.
    mode : {'worse', 'better', 'both'}, default='worse'
        ``'worse'``: where the new model (current period) falls behind.
    size_weight, balance_weight : float, default=1
        Weight exponents alpha and beta (of the rows the pattern covers, see
        :class:`~subroc_ext.ComparisonQF`).
    generalization_aware : bool, default=True
    depth, nbins, ignore, result_set_size, collapse_identical, max_overlap
        As in :func:`~subroc_ext.find_subgroups`.
    n_samples, method, alpha, intervals, min_delta
        Test settings, as in :func:`~subroc_ext.find_subgroups`
        (adaptive p-values by default).
    random_state : int, numpy.random.Generator or None, default=0
        Seeds the validation split(s) and the randomization test.
    algorithm, progress, client, n_jobs
        As in :func:`~subroc_ext.find_subgroups` (the search and the test run
        on the Dask cluster or on threads with the same result).
    allow_large : bool, default=False
        Start a search estimated to need more memory than is available, as in
        :func:`~subroc_ext.find_subgroups`."""


def find_regressions(
    data, *, label, score, baseline, measure="roc_auc", positive_label=None, mode="worse",
    validation=0.5, size_weight=1.0, balance_weight=1.0, generalization_aware=True, depth=2,
    min_support=20, nbins=5, ignore=(), result_set_size=100, collapse_identical=True,
    max_overlap=0.8, n_samples="adaptive", method="fdr_by", alpha=0.05, intervals="fcr",
    min_delta=0.0, random_state=0, algorithm=None, progress=True, client=None, n_jobs=None,
    allow_large=False,
):  # fmt: skip
    """Find subgroups where a new model falls behind a baseline on the same rows, and test them.

    The quality of a subgroup ``S`` (score-type measure, ``mode='worse'``) is
    ``Δ(S) = [m_baseline(S) - m_new(S)] - [m_baseline(D) - m_new(D)]``,
    weighted and generalization-aware as in :func:`~subroc_ext.find_subgroups`
    (see :class:`~subroc_ext.ComparisonQF`).

    Parameters
    ----------
    data : pandas.DataFrame
        Attributes, a binary label and both models' scores. When
        ``validation`` is a DataFrame, ``data`` is the search split.
    label, score, baseline : str
        The label, the new model's score and the baseline model's score columns.
    validation : pandas.DataFrame, float or None, default=0.5
        Held-out data for the test, or the fraction of ``data`` to split off;
        None: no holdout (the whole search tested by permutations, both
        models' scores of a row moving together, as in
        :func:`~subroc_ext.find_subgroups`).
    min_support : int or float, default=20
        Minimum cover size on the search split (a fraction: of its rows).
    {shared}

    Returns
    -------
    pandas.DataFrame
        Sorted by ``quality``: ``subgroup``, ``description``,
        ``alternatives``, ``quality``, ``overlap``, ``overlaps_with``,
        ``delta_search`` and ``delta_validation`` (the unweighted ``Δ`` on
        each split), the new model's size, class counts and measures
        (``roc_auc_search``, ...) and the baseline's measures
        (``roc_auc_baseline_search``, ...) on both splits, and the test's
        ``statistic`` (``Δ`` on the validation split), ``p_value``,
        ``p_value_corrected``, ``significant``, ``testable``,
        ``null_samples``, and ``delta`` (``Δ`` on the validation split
        again) with ``delta_ci_low``, ``delta_ci_high``, its interval at
        confidence ``1 - alpha``, simultaneous over the rows (the rows
        resampled once for both models,
        :func:`~subroc_ext.inference.resampled_effects.resampled_effect_intervals`),
        and the headline's decision (``failure``, ``failure_note``,
        ``failure_of``, ``promise_p_value``: as in
        :func:`~subroc_ext.find_subgroups`, the promise not checked).
        ``table.attrs`` holds the settings, each model's measure on both
        splits, ``baseline`` (the baseline's column) and ``search_space`` (as
        :func:`~subroc_ext.find_subgroups`' does).

    Examples
    --------
    The new model ranks at random in the east, the baseline does not:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west", "north"], 900),
    ...                      "label": rng.integers(0, 2, 900)})
    >>> data["old"] = 0.5 * data["label"] + 0.5 * rng.random(900)
    >>> data["new"] = np.where(data["region"] == "east", rng.random(900), data["old"])
    >>> table = find_regressions(data, label="label", score="new", baseline="old", depth=1,
    ...                          n_samples=200, random_state=0, progress=False)
    >>> table[["description", "delta_validation", "significant"]].head(1).round(2)
          description  delta_validation  significant
    0  region=='east'              0.37         True
    """
    check_distinct_columns(label=label, score=score, baseline=baseline)
    check_columns(data, [label, score, baseline, *ignore])
    if len(data) == 0:
        raise ValueError("data is empty")
    if positive_label is None:
        positive_label = infer_positive_label(data[label], label)
    search, held_out = split_validation(data, validation, random_state)
    target = ComparisonTarget(label, score, baseline)
    return _find(
        search, held_out, target, positive_label=positive_label, measure=measure, mode=mode,
        size_weight=size_weight, balance_weight=balance_weight,
        generalization_aware=generalization_aware, depth=depth, min_support=min_support,
        nbins=nbins, ignore=ignore, result_set_size=result_set_size,
        collapse_identical=collapse_identical, max_overlap=max_overlap, n_samples=n_samples,
        method=method, alpha=alpha, intervals=intervals, min_delta=min_delta,
        random_state=random_state, algorithm=algorithm,
        progress=progress, client=client, n_jobs=n_jobs, support_rows=len(search),
        allow_large=allow_large,
    )  # fmt: skip


def find_drift(
    reference, current, *, label, score, measure="roc_auc", positive_label=None, mode="worse",
    validation=0.5, size_weight=1.0, balance_weight=1.0, generalization_aware=True, depth=2,
    min_support=20, nbins=5, ignore=(), result_set_size=100, collapse_identical=True,
    max_overlap=0.8, n_samples="adaptive", method="fdr_by", alpha=0.05, intervals="fcr",
    min_delta=0.0, random_state=0, algorithm=None, progress=True, client=None, n_jobs=None,
    allow_large=False,
):  # fmt: skip
    """Find subgroups where a model's ranking degraded from a reference to a current period.

    The quality of a subgroup ``S`` (score-type measure, ``mode='worse'``) is
    ``Δ(S) = [m(S ∩ R) - m(S ∩ C)] - [m(R) - m(C)]`` for the reference ``R``
    and the current period ``C``, weighted and generalization-aware as in
    :func:`~subroc_ext.find_subgroups` (see :class:`~subroc_ext.ComparisonQF`).

    Parameters
    ----------
    reference, current : pandas.DataFrame
        Each period's attributes, binary label and the model's score (the
        same columns). When ``validation`` is a pair of DataFrames, these are
        the search splits.
    label, score : str
        Label and score columns.
    validation : (pandas.DataFrame, pandas.DataFrame), float or None, default=0.5
        Held-out data of each period for the test, or the fraction of each
        period to split off; None: no holdout (the whole search tested by
        permutations within each period and class).
    min_support : int or float, default=20
        Minimum cover size in *each* period's search split (a fraction: of
        the smaller period's search rows).
    {shared}

    Returns
    -------
    pandas.DataFrame
        Sorted by ``quality``: as :func:`find_regressions`, with each
        period's size, class counts and measures (``size_reference_search``,
        ``roc_auc_current_validation``, ...; the effect's interval resamples
        each period's validation rows on their own; a failure needs at least
        10 positives and 10 negatives in each period, and for ROC AUC the
        current period falling short of its own scores' promise).
        ``table.attrs`` holds the
        settings, the measure on each period's splits and ``search_space`` (as
        :func:`~subroc_ext.find_subgroups`' does).

    Notes
    -----
    Selectors come from both periods' search rows together (numeric columns
    binned at their pooled quantiles), so a condition means the same in
    both periods.

    Examples
    --------
    The model's ranking broke down in the east in the current period:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> def period(broken):
    ...     frame = pd.DataFrame({"region": rng.choice(["east", "west", "north"], 900),
    ...                          "label": rng.integers(0, 2, 900)})
    ...     frame["p"] = 0.5 * frame["label"] + 0.5 * rng.random(900)
    ...     if broken:
    ...         frame.loc[frame["region"] == "east", "p"] = rng.random((frame["region"] == "east").sum())
    ...     return frame
    >>> table = find_drift(period(False), period(True), label="label", score="p", depth=1,
    ...                    n_samples=200, random_state=0, progress=False)
    >>> table[["description", "roc_auc_current_validation", "significant"]].head(1).round(2)
          description  roc_auc_current_validation  significant
    0  region=='east'                        0.49         True
    """
    check_distinct_columns(label=label, score=score)
    for frame, name in ((reference, "reference"), (current, "current")):
        check_columns(frame, [label, score, *ignore], what=f"the {name} data")
        if len(frame) == 0:
            raise ValueError(f"the {name} data is empty")
    missing = [c for c in reference.columns if c not in current.columns and c not in ignore]
    if missing:
        raise KeyError(f"the current data lacks column(s) {missing!r} of the reference data")
    if positive_label is None:
        positive_label = infer_positive_label(pd.concat([reference[label], current[label]]), label)
    if isinstance(validation, (tuple, list)):
        if len(validation) != 2 or not all(isinstance(v, pd.DataFrame) for v in validation):
            raise ValueError(
                "validation must be a fraction in (0, 1) or a pair of DataFrames "
                "(reference validation, current validation)"
            )
        splits = [(reference, validation[0]), (current, validation[1])]
    elif validation is None:
        splits = [(reference, None), (current, None)]
    else:
        if isinstance(validation, pd.DataFrame):
            raise ValueError(
                "validation must be a fraction in (0, 1) or a pair of DataFrames (reference "
                "validation, current validation), not one DataFrame"
            )
        splits = split_periods(reference, current, validation, random_state)
    columns = [*reference.columns, *current.columns]
    period = _period_column(columns)
    combined = [
        None if parts[0] is None else pd.concat(
            [part.assign(**{period: name}) for part, name in zip(parts, PERIODS)], ignore_index=True
        )
        for parts in zip(*splits)
    ]  # fmt: skip
    target = DriftTarget(label, score, period, current=PERIODS[1])
    return _find(
        *combined, target, positive_label=positive_label, measure=measure, mode=mode,
        size_weight=size_weight, balance_weight=balance_weight,
        generalization_aware=generalization_aware, depth=depth, min_support=min_support,
        nbins=nbins, ignore=ignore, result_set_size=result_set_size,
        collapse_identical=collapse_identical, max_overlap=max_overlap, n_samples=n_samples,
        method=method, alpha=alpha, intervals=intervals, min_delta=min_delta,
        random_state=random_state, algorithm=algorithm,
        progress=progress, client=client, n_jobs=n_jobs,
        support_rows=min(len(splits[0][0]), len(splits[1][0])), allow_large=allow_large,
    )  # fmt: skip


find_regressions.__doc__ = insert_parts(find_regressions.__doc__, shared=_SHARED_PARAMETERS)
find_drift.__doc__ = insert_parts(find_drift.__doc__, shared=_SHARED_PARAMETERS)
