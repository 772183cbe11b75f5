"""One split's audit, as named steps: read the scores, search, keep, test,
describe, judge.

:func:`audit_one_split` is :func:`~subroc_ext.find_subgroups` on one
search/validation split (or on all rows without a holdout), given the table
checked once (:class:`~subroc_ext.inputs.validated.ValidatedData`) and the
settings checked once (:class:`~subroc_ext.workflow.settings.AuditSettings`):

1. :func:`prepare` - the whole data's calibration first, the scores read as
   probabilities, the measure searched and the quality functions
   (:class:`Prepared`);
2. :func:`search_keep_test` - the search's diverse top-k and its test (shared
   with the comparison and multi-class pipelines);
3. :func:`describe_table` - each kept pattern on each split, beside the test;
4. :func:`judge` - the headline's rules (which rows are failures of the model);
5. :func:`table_attrs` - the settings and counts the table carries.

Ctrl-C or an error after the search keeps the searched table
(:func:`describing`).
"""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pandas as pd
import pysubgroup as ps

from ..exceptions import InterruptedTest, keeping
from ..inference.calibration import calibration_check
from ..inference.failures import FailureRules, dataset_rows, judge_failures
from ..inference.significance import has_reference
from ..inputs.data_checks import data_checks
from ..objective.generalization import GeneralizationAwareQF
from ..objective.quality import SoftClassifierQF
from ..scoring.shortfall import shortfall_measure
from ..utils.memory import release_free_memory
from ..utils.validation import min_support_count
from . import case_mix as _case_mix
from . import diversity as _diversity
from . import steps, without_holdout
from .global_fix import calibration_first, fixed_probabilities
from .settings import measure_of

__all__ = ["Prepared", "audit_one_split", "describing", "make_quality_function", "prepare", "search_keep_test",
           "test_columns"]  # fmt: skip


def make_quality_function(
    measure, label, *, positive_label=1, size_weight=0.0, balance_weight=0.0,
    mode="worse", generalization_aware=False, size_free=False,
):  # fmt: skip
    """A quality function for a measure given by name or as a :class:`~subroc_ext.Measure`.

    Parameters
    ----------
    measure : {'roc_auc', 'pr_auc', 'arl', 'attribution_mean', 'calibration_gap', 'brier', \
'log_loss'} or Measure
    label : str
        Label column.
    positive_label : object, default=1
    size_weight, balance_weight : float, default=0
        Weight exponents alpha and beta. The defaults (0, 0, no generalization
        awareness) are those of the drop-in quality functions and of
        pysubgroup, SubROC's basic setting; :func:`~subroc_ext.find_subgroups` defaults to
        the full framework (1, 1, generalization-aware).
    mode : {'worse', 'better', 'both'}, default='worse'
    generalization_aware : bool, default=False
        Wrap the function in :class:`~subroc_ext.GeneralizationAwareQF`.
    size_free : bool, default=False
        Rank by the measure's size-free value
        (:meth:`~subroc_ext.Measure.size_free_measure`): for the ARL, which
        grows with the negatives a subgroup holds, its value per negative,
        ``1 - AUC``, so the ROC AUC's quality, whose mean over random subsets
        of any size and class counts is 0 (the test's own null), with the
        ROC AUC's proven bounds; the size preference is then the weights'
        alone. The same function for every other built-in measure. False
        (the paper's ARL, ``ARL(S) - ARL(D)``) by default;
        :func:`~subroc_ext.find_subgroups` searches size-free.

    Returns
    -------
    SoftClassifierQF or GeneralizationAwareQF
    """
    measure = measure_of(measure)
    qf = SoftClassifierQF(
        measure.size_free_measure() if size_free else measure, label, positive_label=positive_label,
        size_weight=size_weight,
        balance_weight=balance_weight, mode=mode,
    )  # fmt: skip
    return GeneralizationAwareQF(qf) if generalization_aware else qf


@dataclass(frozen=True)
class Prepared:
    """One split's audit before its search: the rows, how the scores are read
    and what is searched and tested.

    Attributes
    ----------
    search, held_out : SortedDataset
        The splits (after a global fix of the calibration gap); ``held_out``
        None without a holdout.
    whole_calibration, global_fix : dict or None
        :func:`~subroc_ext.workflow.global_fix.calibration_first`'s record.
    probabilities : str
        Which scores are read as probabilities (a sentence).
    fitted : Probabilities or None
        The map that reads them, fitted on the search split (None where none).
    p_values : (numpy.ndarray or None, numpy.ndarray or None)
        Each split's probabilities (data row order; None where none).
    case_mix : bool
        Searched and tested by the ROC AUC's case-mix statistic.
    ranked_by_promise : bool
        The PR AUCs searched by their shortfall from the promise (a ratio of
        expectations), tested as without the case mix.
    searched, tested_on : SortedDataset or pandas.DataFrame
        The rows the search and the test run on (with a probability column
        for the case mix).
    search_target, test_target : object
        The targets of ``searched`` and ``tested_on`` (apart for the PR AUCs
        searched by their case mix and tested as without it).
    qf, statistic_qf
        The search's quality function (weighted) and the test's (unweighted).
    """

    search: object
    held_out: object
    whole_calibration: object
    global_fix: object
    probabilities: str
    fitted: object
    p_values: tuple
    case_mix: bool
    ranked_by_promise: bool
    searched: object
    tested_on: object
    search_target: object
    test_target: object
    qf: object
    statistic_qf: object

    @property
    def splits(self):
        """``(name, dataset, probabilities)`` of the search split and the held-out one (if any)."""
        named = [("search", self.search, self.p_values[0])]
        if self.held_out is not None:
            named.append(("validation", self.held_out, self.p_values[1]))
        return named


def prepare(checked, settings):
    """The whole data's calibration, the scores read as probabilities and the
    quality functions of one split's audit.

    Parameters
    ----------
    checked : ValidatedData
    settings : AuditSettings

    Returns
    -------
    Prepared
    """
    measure, case_mix, label, positive_label = settings.measure, settings.case_mix, checked.label, \
        checked.positive_label  # fmt: skip
    # the whole data's calibration; for the calibration gap the gaps a global fix leaves (a promise of 0)
    search, held_out, whole_calibration, global_fix = calibration_first(
        checked.search, checked.validation, measure, settings.calibrate, settings.random_state)  # fmt: skip
    probabilities, fitted, p_values = fixed_probabilities(search, held_out, global_fix) if global_fix else \
        _case_mix.fitted_probabilities(checked, settings.calibrate, case_mix)  # fmt: skip
    weights = dict(size_weight=settings.size_weight, balance_weight=settings.balance_weight, mode=settings.mode,
                   generalization_aware=settings.generalization_aware)  # fmt: skip
    statistic_qf = make_quality_function(measure, label, positive_label=positive_label, mode=settings.mode)
    searched, tested_on, search_target, test_target = search, held_out, checked.target, checked.target
    ranked_by_promise = case_mix and measure.name in ("pr_auc", "pr_auc_normalized")
    if ranked_by_promise:  # searched by the shortfall from the promise, tested as without case_mix
        case_mix = False
        searched, search_target = _case_mix.with_probabilities(search.data, p_values[0], label, checked.score)
        qf = _case_mix.case_mix_functions(label, positive_label=positive_label, measure=measure, **weights)[0]
    elif case_mix and measure.name == "roc_auc":
        searched, tested_on, search_target = _case_mix.case_mix_data(search, held_out, p_values, label,
                                                                     checked.score)  # fmt: skip
        test_target = search_target
        qf, statistic_qf = _case_mix.case_mix_functions(label, positive_label=positive_label, **weights)
    else:
        if case_mix:  # a row mean beyond its promise is a row mean: searched and tested as one
            measure, case_mix = shortfall_measure(measure, fitted), False
            statistic_qf = make_quality_function(measure, label, positive_label=positive_label, mode=settings.mode)
        qf = make_quality_function(measure, label, positive_label=positive_label, size_free=True, **weights)
    return Prepared(search, held_out, whole_calibration, global_fix, probabilities, fitted, p_values, case_mix,
                    ranked_by_promise, searched, tested_on, search_target, test_target, qf, statistic_qf)  # fmt: skip


def search_keep_test(
    search, held_out, quality_function, statistic_qf, target, *, selectors, depth, min_support,
    result_set_size, min_quality, collapse_identical, max_overlap, n_samples, max_samples, method,
    alpha, random_state, progress, client, n_jobs=1, algorithm=None, nbins=5, ignore=(),
    intervals="fcr", min_delta=0.0, allow_large=False, test_target=None,
):  # fmt: skip
    """Search a diverse top-k, test it: the core of
    :func:`~subroc_ext.find_subgroups`, :func:`~subroc_ext.find_multiclass_subgroups`,
    :func:`~subroc_ext.find_regressions` and :func:`~subroc_ext.find_drift`.

    The keywords are those of :func:`~subroc_ext.workflow.steps.search`,
    :func:`~subroc_ext.workflow.diversity.search_distinct` and :func:`~subroc_ext.workflow.steps.test`;
    ``test_target``: the test's target where it differs from the search's
    (the PR AUCs searched by their case mix, tested as without it);
    ``held_out=None`` tests without a holdout
    (:func:`~subroc_ext.workflow.without_holdout.test_without_holdout`, ``max_samples``
    or an integer ``n_samples`` capping the permutations).

    Returns
    -------
    (SearchResult, KeptPatterns, pandas.DataFrame or None)
        What the search found, the patterns kept, and the test's table - None
        if Ctrl-C stopped the test (the caller keeps the patterns, untested,
        and raises :class:`~subroc_ext.InterruptedTest`).
    """
    def search_top(size):
        return steps.search(
            search, quality_function, target, selectors=selectors, nbins=nbins, ignore=ignore,
            depth=depth, min_support=min_support, result_set_size=size, min_quality=min_quality,
            algorithm=algorithm, progress=progress, client=client, n_jobs=n_jobs, allow_large=allow_large,
        )  # fmt: skip

    found, kept = _diversity.search_distinct(
        search_top, result_set_size, search, collapse=collapse_identical, max_overlap=max_overlap
    )
    try:
        if held_out is None:
            tested = without_holdout.test_without_holdout(
                found, kept.subgroups, search, quality_function, statistic_qf, target, alpha=alpha,
                max_permutations=max_samples if n_samples == "adaptive" else n_samples,
                random_state=random_state, progress=progress, client=client, n_jobs=n_jobs,
            )  # fmt: skip
        else:
            tested = steps.test(
                kept.subgroups, held_out, statistic_qf, target if test_target is None else test_target,
                n_samples=n_samples,
                max_samples=max_samples, method=method, alpha=alpha, intervals=intervals,
                min_delta=min_delta, random_state=random_state, progress=progress, client=client,
                n_jobs=n_jobs,
            )  # fmt: skip
    except KeyboardInterrupt:  # keep the searched patterns, untested
        tested = None
    return found, kept, tested


def test_columns(kept, tested):
    """The test's columns of the ``kept`` patterns: ``tested``, or :func:`steps.untested` (None: cut)."""
    return steps.untested(len(kept.subgroups)) if tested is None else tested


def describing(kept, tested):
    """The block that describes the ``kept`` patterns after their test (``tested``
    None: the test was cut): whatever ends it, Ctrl-C or an error, carries the
    table of the searched (and tested) patterns, without the described
    columns (:func:`~subroc_ext.exceptions.keeping`)."""
    searched = pd.concat([kept.frame(), test_columns(kept, tested)], axis=1)
    if tested is None:
        return keeping(searched, "test", "searched", "untested and undescribed (no p-values, no measures per split)")
    return keeping(searched, "describe", "searched and tested",
                   "undescribed (no sizes, class counts, measures or intervals per split)")  # fmt: skip


def describe_table(checked, prepared, kept, tested):
    """The kept patterns on each split beside their test, the absolute check of
    calibration where the effects are measured (a measure that reads
    probabilities), and the dataset values of the measures.

    Returns
    -------
    (pandas.DataFrame, dict)
        The table and ``{f"{measure}_{split}": value}``.
    """
    measure, target = prepared.statistic_qf.measure, checked.target
    splits = prepared.splits

    def described(part):
        split, dataset, p = part
        return steps.describe(kept.subgroups, dataset, target, positive_label=checked.positive_label,
                              intervals=split == "validation", suffix=f"_{split}", measure=measure, probabilities=p)

    with ThreadPoolExecutor(len(splits)) as pool:  # each split's rows apart; NumPy's sorts and sums free the GIL
        columns = list(pool.map(described, splits))
    table = pd.concat([kept.frame(), *columns, test_columns(kept, tested)], axis=1)
    split, dataset, _ = splits[-1]
    if measure.reads_probabilities:  # the absolute check where the effects are measured
        checked_rows = calibration_check(dataset.masks_of(kept.subgroups), dataset.is_positive, dataset.scores,
                                         suffix=f"_{split}")  # fmt: skip
        table = pd.concat([table, checked_rows], axis=1)
    dataset_values = {
        f"{name}_{split}": value
        for split, dataset, p in splits
        for name, value in steps.dataset_values(dataset, target, measure=measure, probabilities=p).items()
    }
    return with_null_references(table, splits, dataset_values, measure), dataset_values


def with_null_references(table, splits, dataset_values, measure):
    """``table`` with ``null_<measure>_<split>`` for a measure whose effect is
    taken against the test's own null (:meth:`~subroc_ext.Measure.reference`:
    the ARL's mean over random subsets of the split with the row's class
    counts); ``table`` itself for the others."""
    if not has_reference(measure):
        return table
    columns = {}
    for split, dataset, _ in splits:
        whole = dataset.cover()
        columns[f"null_{measure.name}_{split}"] = measure.reference(
            dataset_values[f"{measure.name}_{split}"], table[f"positives_{split}"].to_numpy(dtype=float),
            table[f"negatives_{split}"].to_numpy(dtype=float), whole.positives, whole.negatives,
        )  # fmt: skip
    return table.assign(**columns)


def with_case_mix_flags(table, subgroups, search, dataset_values, mode, split, measure):
    """``table`` with ``expected_share``, ``range_restricted`` (of the searched
    ``measure`` on ``split``: how much of its change the scores promise) and
    ``complement_of``."""
    expected = f"expected_{measure.name}_{split}"
    if expected in table.columns and expected in dataset_values:
        flags = _case_mix.range_restriction(table, dataset_values, mode, split=split, measure=measure)
    else:
        flags = pd.DataFrame({"expected_share": float("nan"), "range_restricted": False}, index=table.index)
    if f"expected_roc_auc_{split}" not in table.columns:  # the scores could not be read as probabilities
        table = table.assign(**{f"expected_roc_auc_{name}": float("nan") for name in ("search", split)})
    table = pd.concat([table, flags.set_index(table.index)], axis=1)
    table["complement_of"] = _case_mix.complements(subgroups, search)
    return table


def judge(table, checked, prepared, settings, found, kept, dataset_values):
    """The headline's rules on the tested ``table``
    (:func:`~subroc_ext.inference.failures.judge_failures`): its promise on the
    held-out rows, or over the whole search without a holdout.

    Returns
    -------
    pandas.DataFrame
        ``table`` with the judged columns.
    """
    split, dataset, p = prepared.splits[-1]
    measure, mode, holdout = prepared.statistic_qf.measure, settings.mode, prepared.held_out is not None
    rules = FailureRules(method=settings.method, alpha=settings.alpha, random_state=settings.random_state,
                         holdout=holdout)  # fmt: skip
    # searched by the case mix: the verdict is the promise's test, and "worse" is of the measure; with a holdout
    # each pattern's promise read through the map fitted on the search split without its rows (not after a
    # global fix, whose fixed scores are the probabilities)
    own = _case_mix.own_maps(prepared.search, settings.calibrate, prepared.fitted) \
        if holdout and prepared.global_fix is None and p is not None else None  # fmt: skip
    if own is not None:  # the whole data's promise (its shortfall) read through the same decision, all rows' map
        p = _case_mix.split_probabilities(dataset, own(ps.Conjunction([])))
    rows = dataset_rows(dataset, measure, mode, probabilities=None if prepared.case_mix else p, own_maps=own)
    whole_search_promise = None
    if not holdout and rows.promise is not None and measure.name == "roc_auc":
        whole_search_promise = without_holdout.promise_without_holdout(
            table, kept.subgroups, prepared.search, p, label=checked.label, score=checked.score,
            positive_label=checked.positive_label, mode=mode, found=found, rules=rules,
            progress=settings.progress, client=settings.client, n_jobs=settings.n_jobs, calibrate=settings.calibrate,
        )  # fmt: skip
    elif not holdout and rows.promise is not None:
        whole_search_promise = without_holdout.label_draws_without_holdout(
            table, kept.subgroups, rows, mode=mode, found=found, rules=rules)  # fmt: skip
    judged = judge_failures(table, kept.subgroups, rows, mode,
                            search_shortfall=_case_mix.search_shortfall(table, dataset_values, measure),
                            whole_search_promise=whole_search_promise, rules=rules)  # fmt: skip
    return pd.concat([table, judged], axis=1)


def table_attrs(table, checked, prepared, settings, found, tested, dataset_values, *, min_support, thresholds,
                nbins):  # fmt: skip
    """What ``table.attrs`` carries: the settings, the dataset values, the
    search space and the counts (see :func:`~subroc_ext.find_subgroups`)."""
    s, search, held_out = settings, prepared.search, prepared.held_out
    return dict(
        measure=prepared.statistic_qf.measure.name, measure_kind=prepared.statistic_qf.measure.kind, mode=s.mode,
        label=checked.label, score=checked.score, positive_label=checked.positive_label,
        size_weight=s.size_weight, balance_weight=s.balance_weight, generalization_aware=s.generalization_aware,
        depth=s.depth, min_support=min_support, collapse_identical=s.collapse_identical,
        max_overlap=s.max_overlap, n_samples=s.n_samples, max_samples=s.max_samples, alpha=s.alpha,
        min_delta=s.min_delta, **steps.test_settings(tested, held_out, s.method, s.intervals),
        dataset_values=dataset_values,
        n_rows={"search": len(search), **({} if held_out is None else {"validation": len(held_out)})},
        min_quality=s.min_quality, thresholds=thresholds, nbins=nbins,
        search_space=steps.space_summary(checked.space, found),
        case_mix=prepared.case_mix or prepared.ranked_by_promise, calibrate=s.calibrate,
        probabilities=prepared.probabilities,
        whole_calibration=prepared.whole_calibration, global_fix=prepared.global_fix,
        data_checks=data_checks(search, checked.space, label=checked.label, positive_label=checked.positive_label),
        counts={
            "candidates": found.candidates, "searched": found.result_set_sizes, "found": len(found.subgroups),
            "rows": len(table), "significant": int(table["significant"].sum()),
        },
    )  # fmt: skip


def audit_one_split(checked, settings, *, min_support, thresholds=True, nbins=5):
    """:func:`~subroc_ext.find_subgroups` on the splits of ``checked``.

    Parameters
    ----------
    checked : ValidatedData
    settings : AuditSettings
    min_support : int or float
        The search's minimum support (rows, or a fraction of the search split).
    thresholds : bool, default=True
    nbins : int, default=5
        Recorded in ``attrs`` (the search space is ``checked.space``).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InterruptedTest
        Ctrl-C during the test: its ``table`` holds the searched patterns, untested.
    """
    s = settings
    prepared = prepare(checked, s)
    min_support = min_support_count(min_support, len(prepared.search))
    release_free_memory()  # each step's arrays given back before the next (the peak of 2 M rows)
    found, kept, tested = search_keep_test(
        prepared.searched, prepared.tested_on, prepared.qf, prepared.statistic_qf, prepared.search_target,
        selectors=checked.space, depth=s.depth, min_support=min_support, result_set_size=s.result_set_size,
        min_quality=s.min_quality, algorithm=s.algorithm, collapse_identical=s.collapse_identical,
        max_overlap=s.max_overlap, n_samples=s.n_samples, max_samples=s.max_samples, method=s.method,
        alpha=s.alpha, intervals=s.intervals, min_delta=s.min_delta, random_state=s.random_state,
        progress=s.progress, client=s.client, n_jobs=s.n_jobs, allow_large=s.allow_large,
        test_target=prepared.test_target,
    )  # fmt: skip
    with describing(kept, tested):  # Ctrl-C or an error: the searched (and tested) table goes with it
        release_free_memory()
        table, dataset_values = describe_table(checked, prepared, kept, tested)
        table = with_case_mix_flags(table, kept.subgroups, prepared.search, dataset_values, s.mode,
                                    split=prepared.splits[-1][0], measure=prepared.statistic_qf.measure)  # fmt: skip
        if tested is not None:
            release_free_memory()
            table = judge(table, checked, prepared, s, found, kept, dataset_values)
        release_free_memory()
        table.attrs.update(table_attrs(table, checked, prepared, s, found, tested, dataset_values,
                                       min_support=min_support, thresholds=thresholds, nbins=nbins))  # fmt: skip
    release_free_memory()  # before the report
    if tested is None:
        raise InterruptedTest(table)
    return table
