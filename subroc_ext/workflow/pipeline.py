"""The whole SubROC framework in one call: :func:`find_subgroups`.

1. check the input once and split off held-out validation data (or take the
   one given), each split sorted by score once (:mod:`subroc_ext.inputs.validated`),
2. build the search space (:mod:`subroc_ext.inputs.search_space`),
3. search the top patterns with a weighted, generalization-aware quality
   function and exact optimistic-estimate pruning (:class:`~subroc_ext.FastSearch`,
   or any pysubgroup algorithm),
4. test every pattern on the validation data against random subsets of the
   same size and class balance, correcting for multiple testing,
5. return one tidy row per pattern with its performance on both splits: only
   real findings (quality above ``min_quality``, by default 0), never the
   whole split.
"""

import numbers
import warnings

import numpy as np
import pandas as pd

from ..exceptions import InterruptedTest, keeping
from ..inference.calibration import calibration_check
from ..inference.failures import FailureRules, dataset_rows, judge_failures
from ..inference.significance import check_test_settings
from ..inference.verdicts import check_verdict_settings
from ..inputs.data_checks import data_checks
from ..inputs.probabilities import check_calibrate
from ..inputs.validated import split_validation, validate_data
from ..objective.generalization import GeneralizationAwareQF
from ..objective.quality import SoftClassifierQF
from ..scoring import measures as _measures
from ..scoring.shortfall import shortfall_measure
from ..utils.cluster import parallelism
from ..utils.deprecation import REMOVED_IN
from ..utils.validation import check_mode, check_weights, min_support_count
from . import case_mix as _case_mix
from . import diversity as _diversity
from . import steps, without_holdout
from .global_fix import calibration_first, default_mode, fixed_probabilities
from .steps import CALIBRATION_MEASURES, MEASURES

__all__ = [
    "MEASURES",
    "find_subgroups",
    "make_quality_function",
    "describe_subgroups",
    "split_validation",
    "min_support_count",
    "search_keep_test",
    "check_holdout_settings",
]


def _measure(measure):
    if isinstance(measure, _measures.Measure):
        return measure
    named = {**MEASURES, **CALIBRATION_MEASURES}
    if measure not in named:
        raise ValueError(f"measure must be one of {sorted(named)} or a Measure, got {measure!r}")
    return named[measure]()


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
        pysubgroup, SubROC's basic setting; :func:`find_subgroups` defaults to
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
        :func:`find_subgroups` searches size-free.

    Returns
    -------
    SoftClassifierQF or GeneralizationAwareQF
    """
    measure = _measure(measure)
    qf = SoftClassifierQF(
        measure.size_free_measure() if size_free else measure, label, positive_label=positive_label, size_weight=size_weight,
        balance_weight=balance_weight, mode=mode,
    )  # fmt: skip
    return GeneralizationAwareQF(qf) if generalization_aware else qf


def describe_subgroups(subgroups, data, target, *, positive_label=1, mode="worse", suffix=""):
    """Deprecated: use :func:`subroc_ext.workflow.steps.describe` (``mode`` was never used)."""
    warnings.warn(
        f"describe_subgroups() is deprecated and will be removed in subroc-ext {REMOVED_IN}; "
        "use subroc_ext.workflow.steps.describe()",
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
    mode=None,
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
    selectors=None,
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
    algorithm=None,
    progress=True,
    client=None,
    n_jobs=None,
    case_mix=False,
    calibrate="auto",
    allow_large=False,
):
    """Find subgroups where a classifier performs exceptionally, and test them.

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        Rows with attributes, a binary label and the model's score. When
        ``validation`` is a table, ``data`` is the search split.
    label, score : str
        Label and score columns.
    measure : {'roc_auc', 'pr_auc', 'arl', 'attribution_mean', 'calibration_gap', 'brier', \
'log_loss'} or Measure, default='roc_auc'
        The calibration measures (:mod:`~subroc_ext.scoring.calibration`) read the
        scores as probabilities (scores outside [0, 1] are refused); their
        table adds, on the split the effects are measured on, ``promised``
        (mean score), ``observed`` (share of positives) and the absolute
        check of calibration ``calibration_z``, ``calibration_p``
        (:func:`~subroc_ext.inference.calibration.calibration_check`).
        The ARL, which grows with the negatives a subgroup holds, is
        searched by its value per negative, ``1 - AUC`` (``size_free`` of
        :func:`make_quality_function`: the ``quality`` column is the ROC
        AUC's), and its effect is ``ARL(S)`` minus its mean over random
        subsets of ``S``'s class counts, ``N(S) (AUC(V) - AUC(S))``
        (``null_arl_<split>``, the test's own null); the paper's ARL search,
        ``ARL(S) - ARL(D)``, is :func:`make_quality_function`'s default.
    positive_label : object, optional
        The positive class; inferred only for labels {0, 1}, {-1, 1} and
        booleans (as ``1`` / ``True``, see
        :func:`~subroc_ext.inputs.labels.infer_positive_label`), otherwise required.
    mode : {'worse', 'better', 'both'}, optional
        Default 'worse'; for ``measure='calibration_gap'`` 'both' (the risk
        under- or overestimated), 'under' (underestimated: 'worse') or 'over'.
    validation : pandas.DataFrame, float or None, default=0.5
        Held-out data for the significance test, or the fraction of ``data``
        to split off for it. ``None``: no holdout - search all rows and test
        the whole search by permutations
        (:func:`~subroc_ext.inference.permutation.permutation_test`: max-T,
        family-wise error ``alpha`` over every pattern of the search space,
        more power on small data; no intervals, see ``verdict_note``).
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
    thresholds : bool, default=True
        Numeric and time columns give thresholds (``age < 38``,
        ``age >= 38``) and bins; ``False``: the SubROC paper's bins-only
        space (pysubgroup's ``create_selectors``). See
        :func:`~subroc_ext.make_search_space`.
    keep_ids : bool, default=False
        Keep ID-like columns in the search space.
    selectors : sequence of pysubgroup selectors, optional
        Search these conditions instead (``nbins``, ``thresholds`` and
        ``keep_ids`` are then not used).
    min_quality : float, default=0
        Report only patterns of quality above this: by default those where
        the model really is worse (better) than on the whole split, and
        with weights, of non-zero weight. ``-numpy.inf`` keeps every pattern
        of the top ``result_set_size``, as the paper's protocol does.
    result_set_size : int, default=100
        Number of patterns to report and test (at most).
    collapse_identical : bool, default=True
        Report patterns with the same cover on the search split as one row:
        the best-ranked, its other descriptions in ``alternatives``.
    max_overlap : float or None, default=0.8
        Report a diverse set of ``result_set_size`` distinct findings: walking
        down the ranking, a pattern is kept only if the Jaccard index of its
        search-split cover with every kept one is at most ``max_overlap`` (in
        [0, 1]); the others are listed as ``near_copies`` of the kept pattern
        they overlap most. The search is repeated for twice as many patterns
        until ``result_set_size`` are kept (or the space holds no more), so
        the result is exactly the greedy rule on the complete ranking
        (:func:`~subroc_ext.workflow.diversity.search_distinct`). ``None``:
        the exact top ``result_set_size`` (identical covers still merged),
        as before 0.3 and in the paper's protocol.
    n_samples : 'adaptive' or int, default='adaptive'
        Random subsets per null distribution: drawn until each pattern's
        corrected decision is known (at most ``max_samples``), or this many
        (the default before 0.3 was 10,000); see
        :func:`~subroc_ext.randomization_test`. Without a holdout an int
        caps the permuted searches.
    max_samples : int, default=1_000_000
        Without a holdout: the cap on permuted searches (the test stops
        long before, once each decision is settled).
    method : str, default='fdr_by'
        Multiple-testing correction (statsmodels ``multipletests``; not
        used without a holdout, where max-T corrects).
    alpha : float, default=0.05
    intervals : {'fcr', 'simultaneous'}, default='fcr'
        The effect interval shown beside the decision: ``'fcr'`` matches it
        (false coverage-statement rate intervals of the selected rows; a row
        is significant only if the test rejects and the interval excludes
        ``min_delta``); ``'simultaneous'``: intervals simultaneous over all
        rows at ``1 - alpha`` and the test alone decides (before 0.3). See
        :mod:`subroc_ext.inference.verdicts`.
    min_delta : float, default=0
        Significant only if the effect is credibly larger: the interval's
        near end beyond ``min_delta`` (needs a holdout).
    random_state : int, numpy.random.Generator or None, default=0
        Seeds the validation split and the randomization test (the same
        table on every call, as the command line's ``--seed 0``); pass
        another integer for another draw, or None for fresh entropy.
    algorithm : object, optional
        The search algorithm, anything with pysubgroup's ``execute(task)``
        (e.g. ``ps.BestFirstSearch()``); by default :class:`~subroc_ext.FastSearch`,
        which returns the same subgroups much faster.
    progress : bool, default=True
        Show progress bars.
    client : dask.distributed.Client, optional
        Run the search (with the default algorithm) and the randomization
        test on this Dask cluster (the optional extra ``dask``: ``pip
        install 'subroc-ext[dask]'``); the table is the same as without it.
    n_jobs : int, optional
        Threads for the search (with the default algorithm) and the
        randomization test, in this process (not with ``client``); the
        table is the same for any number. It used to start a local Dask
        cluster of worker processes; for that, pass ``client=``.
    case_mix : bool, default=False
        Search, rank and test by the case-mix-adjusted ROC AUC drop
        ``q_cm(S) = [mbc(S) - AUC(S)] - [mbc(D) - AUC(D)]`` (``measure``
        must be ``'roc_auc'``): how much further the subgroup falls short of
        the ROC AUC its own scores promise (``mbc``, the expected ROC AUC)
        than the whole data does. A slice of the strongest predictor, where
        every model ranks worse because the risks spread less, is then no
        finding (:class:`~subroc_ext.objective.case_mix.CaseMixQF`). The test's
        statistic and ``delta`` are ``q_cm`` on the validation split; without
        a holdout, the search's quality is tested by the max-T of the whole
        search on labels drawn from the probabilities
        (:func:`~subroc_ext.inference.promise_max_t.promise_max_t`). Assumes
        the scores are the probabilities up to a monotone map. With a row
        mean (``'attribution_mean'``, ``'calibration_gap'``, ``'brier'``,
        ``'log_loss'``, a :class:`~subroc_ext.scoring.measures.RowMeanMeasure`)
        the measure searched is that row mean beyond its promise, row by row
        (``<measure>_beyond_promise``, :func:`~subroc_ext.scoring.shortfall.shortfall_measure`;
        ``attrs['case_mix']`` stays False: it is a plain search of that
        measure); other measures are refused, saying why.
    calibrate : {'auto', 'none', 'isotonic', 'sigmoid'}, default='auto'
        How the scores become the probabilities of the expected ROC AUC:
        'auto' uses scores in [0, 1] as given where they are calibrated on
        the search split, a sigmoid of their logit fitted there where they
        are not, and a sigmoid of any other scores; 'none' uses them as
        given (an error if they are not in [0, 1] and ``case_mix``);
        'isotonic' and 'sigmoid' always fit that monotone map on the search
        split (:func:`~subroc_ext.inputs.probabilities.fit_probabilities`).
        ``measure='calibration_gap'``: the global fix, the map the gaps are
        measured after ('auto': isotonic, cross-fitted on the search split,
        where the scores are miscalibrated there; 'none': the scores as
        given, each gap against the whole data's;
        :mod:`~subroc_ext.workflow.global_fix`).
    allow_large : bool, default=False
        Start a search estimated to need more memory than the machine has
        available; by default it is refused with a
        :class:`~subroc_ext.exceptions.SearchMemoryError` before it starts
        (:func:`~subroc_ext.inputs.search_size.check_memory`).

    Returns
    -------
    pandas.DataFrame
        Sorted by ``quality`` (descending), one row per pattern: ``subgroup``
        (the pysubgroup description), ``description`` (readable),
        ``alternatives`` (other descriptions of the same rows, ``'; '``-joined,
        empty if none), ``near_copies`` (patterns dropped as near copies of
        this one, each with its Jaccard index, ``'; '``-joined), ``quality``, ``overlap`` (largest Jaccard index of
        the search cover with that of a better-ranked row; NaN for the first)
        and ``overlaps_with`` (that row's rank, 1 = first row), size, class
        counts, ``ncr`` and all built-in measures on the search split (suffix
        ``_search``) and the validation split (suffix ``_validation``),
        ``roc_auc_validation_ci_low`` and ``roc_auc_validation_ci_high`` (the
        DeLong 95 % confidence interval, see
        :func:`~subroc_ext.roc_auc_confidence_interval`), ``statistic`` (the
        test statistic on the validation split), ``p_value``,
        ``p_value_corrected``, ``significant``, ``testable``,
        ``expected_roc_auc_search`` and ``expected_roc_auc_validation`` (the
        ROC AUC the subgroup's scores promise, next to ``roc_auc_*``; NaN if
        the scores could not be read as probabilities), ``expected_share``
        (the share of the subgroup's ROC AUC change on the validation split
        that its scores promise, NaN where it changed against the mode) and
        ``range_restricted`` (``expected_share >= 0.5``: the drop is mostly
        the narrower spread of risk inside the subgroup, see
        :func:`~subroc_ext.workflow.case_mix.range_restriction`),
        ``complement_of`` (the rank of the row that is the other side of the
        same cut, e.g. ``age < 66`` for ``age >= 66``; missing if none),
        ``failure`` (the headline may call the row a failure of the model:
        significant, with enough evidence, worse than its own scores promise
        and not explained by a better failure), ``failure_note`` (why a
        significant row is none: range restriction, a variant or explained
        by another row, too little evidence), ``failure_of`` (the rank of
        the failure such a row belongs to) and ``promise_p_value`` (the
        label-draw test's corrected p-value, weighted by the search split; see
        :func:`~subroc_ext.inference.failures.judge_failures`),
        ``null_samples`` (random subsets behind the p-value), ``delta`` (the
        effect: the measure on the subgroup's validation rows minus on the
        whole validation split, positive in the direction of ``mode``) and
        ``delta_ci_low``, ``delta_ci_high`` (its interval, see ``intervals``),
        ``p_value_exact`` (False where the adaptive test stopped once the
        decision was settled: the p-value is an upper bound), ``verdict``
        ('significant', 'not significant', 'untestable') and
        ``verdict_note`` (why the test and the interval seem to disagree,
        or empty). Without a holdout there are no ``_validation`` columns
        and the split ``_search`` is all rows. ``table.attrs``
        holds the dataset values of the measures, ``n_rows`` (rows of the
        search and validation splits), the settings,
        ``search_space`` (``conditions``: how many; ``rare_values``: per
        column, the values under the minimum support that got no condition;
        ``notes``: what the search space's warnings said;
        ``candidates_bound``: the patterns the search could have had to
        evaluate, before pruning; ``left_out``: the
        columns without conditions and why), ``case_mix``, ``calibrate``,
        ``probabilities`` (which scores were read as probabilities: as given
        or which map, fitted where) and ``counts``:
        ``candidates`` (patterns the searches evaluated), ``searched`` (the
        number of top patterns each search asked for: several when the
        diverse set needed a longer ranking), ``found`` (of the last
        search's top patterns, those of quality above ``min_quality``),
        ``rows`` (after merging identical covers and dropping near copies:
        the table's rows) and ``significant``; ``holdout`` (False without
        one), ``intervals``, ``interval_level`` (the confidence of the
        intervals shown) and ``min_delta``.

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

    >>> from subroc_ext.demo import datasets, modelling
    >>> frame = datasets.load_adult()                                        # doctest: +SKIP
    >>> train, search, validation, _ = modelling.split_parts(frame, 4, random_state=0)  # doctest: +SKIP
    >>> search, validation = modelling.fit_and_score(train, "income", ">50K", search, validation)  # doctest: +SKIP
    >>> find_subgroups(search, label="income", score="score", positive_label=">50K",
    ...                validation=validation)                                # doctest: +SKIP
    """
    mode = check_mode(default_mode(_measure(measure)) if mode is None else mode, _measure(measure).mode_aliases)
    check_weights(size_weight, balance_weight)
    check_test_settings(n_samples, method, alpha, max_samples)
    check_holdout_settings(validation, intervals, min_delta)
    if not (isinstance(depth, (int, np.integer)) and depth >= 1):
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    if not (isinstance(result_set_size, (int, np.integer)) and result_set_size >= 1):
        raise ValueError(f"result_set_size must be a positive integer, got {result_set_size!r}")
    if not (isinstance(min_quality, numbers.Real) and not np.isnan(min_quality)):
        raise ValueError(f"min_quality must be a number (or -inf), got {min_quality!r}")
    _diversity.check_max_overlap(max_overlap)
    check_calibrate(calibrate)
    _check_case_mix(measure, case_mix)
    checked = validate_data(
        data, label=label, score=score, positive_label=positive_label, validation=validation,
        random_state=random_state, ignore=ignore, nbins=nbins, thresholds=thresholds,
        keep_ids=keep_ids, min_support=min_support, selectors=selectors,
    )  # fmt: skip
    positive_label = checked.positive_label
    search, held_out = checked.search, checked.validation
    min_support = min_support_count(min_support, len(search))
    # the whole data's calibration; for the calibration gap the gaps a global fix leaves (a promise of 0)
    search, held_out, whole_calibration, global_fix = calibration_first(search, held_out, _measure(measure),
                                                                        calibrate, random_state)  # fmt: skip
    target = checked.target
    probabilities, fitted, p_values = fixed_probabilities(search, held_out, global_fix) if global_fix else \
        _case_mix.fitted_probabilities(checked, calibrate, case_mix)  # fmt: skip
    if case_mix and measure != "roc_auc":  # a row mean beyond its promise is a row mean: searched as one
        measure, case_mix = shortfall_measure(_measure(measure), fitted), False
    if case_mix:
        searched, tested_on, case_mix_target = _case_mix.case_mix_data(search, held_out, p_values, label, score)
        qf, statistic_qf = _case_mix.case_mix_functions(
            label, positive_label=positive_label, size_weight=size_weight, balance_weight=balance_weight,
            mode=mode, generalization_aware=generalization_aware,
        )  # fmt: skip
    else:
        searched, tested_on, case_mix_target = search, held_out, target
        qf = make_quality_function(
            measure, label, positive_label=positive_label, size_weight=size_weight,
            balance_weight=balance_weight, mode=mode, generalization_aware=generalization_aware, size_free=True,
        )  # fmt: skip
        statistic_qf = make_quality_function(measure, label, positive_label=positive_label, mode=mode)
    client, n_jobs = parallelism(client, n_jobs)
    found, kept, tested = search_keep_test(
        searched, tested_on, qf, statistic_qf, case_mix_target, selectors=checked.space, depth=depth,
        min_support=min_support, result_set_size=result_set_size, min_quality=min_quality,
        algorithm=algorithm, collapse_identical=collapse_identical, max_overlap=max_overlap,
        n_samples=n_samples, max_samples=max_samples, method=method, alpha=alpha,
        intervals=intervals, min_delta=min_delta, random_state=random_state, progress=progress,
        client=client, n_jobs=n_jobs, allow_large=allow_large,
    )  # fmt: skip
    with describing(kept, tested):  # Ctrl-C or an error: the searched (and tested) table goes with it
        splits = [("search", search, p_values[0])]
        if held_out is not None:
            splits.append(("validation", held_out, p_values[1]))
        table = pd.concat(
            [
                kept.frame(),
                *(
                    steps.describe(kept.subgroups, dataset, target, positive_label=positive_label,
                                   intervals=split == "validation", suffix=f"_{split}",
                                   measure=statistic_qf.measure, probabilities=p)
                    for split, dataset, p in splits
                ),  # fmt: skip
                test_columns(kept, tested),
            ],
            axis=1,
        )
        if statistic_qf.measure.reads_probabilities:  # the absolute check where the effects are measured
            split, dataset, _ = splits[-1]
            checked_rows = calibration_check(dataset.masks_of(kept.subgroups), dataset.is_positive,
                                             dataset.scores, suffix=f"_{split}")  # fmt: skip
            table = pd.concat([table, checked_rows], axis=1)
        dataset_values = {}
        for split, dataset, p in splits:
            for name, value in steps.dataset_values(dataset, target, measure=statistic_qf.measure,
                                                    probabilities=p).items():  # fmt: skip
                dataset_values[f"{name}_{split}"] = value
        table = _with_null_references(table, splits, dataset_values, statistic_qf.measure)
        table = _with_case_mix_flags(table, kept.subgroups, search, dataset_values, mode, split=splits[-1][0],
                                     measure=statistic_qf.measure)  # fmt: skip
        if tested is not None:
            split, dataset, p = splits[-1]
            rules = FailureRules(method=method, alpha=alpha, random_state=random_state, holdout=held_out is not None)
            # searched by the case mix: the verdict is the promise's test, and "worse" is of the measure
            rows = dataset_rows(dataset, statistic_qf.measure, mode, probabilities=None if case_mix else p)
            whole_search_promise = None
            if held_out is None and rows.promise is not None and statistic_qf.measure.name == "roc_auc":
                whole_search_promise = without_holdout.promise_without_holdout(
                    table, kept.subgroups, search, p, label=label, score=score, positive_label=positive_label,
                    mode=mode, found=found, rules=rules, progress=progress, client=client, n_jobs=n_jobs,
                )  # fmt: skip
            elif held_out is None and rows.promise is not None:
                whole_search_promise = without_holdout.label_draws_without_holdout(
                    table, kept.subgroups, rows, mode=mode, found=found, rules=rules)  # fmt: skip
            judged = judge_failures(table, kept.subgroups, rows, mode,
                                    search_shortfall=_case_mix.search_shortfall(table, dataset_values,
                                                                                statistic_qf.measure),
                                    whole_search_promise=whole_search_promise, rules=rules)  # fmt: skip
            table = pd.concat([table, judged], axis=1)
        table.attrs.update(
            measure=statistic_qf.measure.name, measure_kind=statistic_qf.measure.kind, mode=mode, label=label,
            score=score,
            positive_label=positive_label, size_weight=size_weight, balance_weight=balance_weight,
            generalization_aware=generalization_aware, depth=depth, min_support=min_support,
            collapse_identical=collapse_identical, max_overlap=max_overlap,
            n_samples=n_samples, max_samples=max_samples, alpha=alpha, min_delta=min_delta,
            **steps.test_settings(tested, held_out, method, intervals),
            dataset_values=dataset_values,
            n_rows={"search": len(search), **({} if held_out is None else {"validation": len(held_out)})},
            min_quality=min_quality, thresholds=thresholds, nbins=nbins,
            search_space=steps.space_summary(checked.space, found),
            case_mix=case_mix, calibrate=calibrate, probabilities=probabilities,
            whole_calibration=whole_calibration, global_fix=global_fix,
            data_checks=data_checks(search, checked.space, label=label, positive_label=positive_label),
            counts={
                "candidates": found.candidates, "searched": found.result_set_sizes,
                "found": len(found.subgroups), "rows": len(table),
                "significant": int(table["significant"].sum()),
            },
        )  # fmt: skip
    if tested is None:
        raise InterruptedTest(table)
    return table


def _check_case_mix(measure, case_mix):
    """Refuse ``case_mix`` for a measure whose shortfall from its promise cannot be searched, saying why."""
    if not case_mix or measure == "roc_auc" or isinstance(_measure(measure), _measures.RowMeanMeasure):
        return
    why = ("its size-free value, the ARL per negative, is 1 - ROC AUC: measure='roc_auc' with case_mix=True "
           "searches exactly that") if measure == "arl" else \
        "its promise has no formula, so every candidate of the search would need label draws"  # fmt: skip
    raise ValueError(f"case_mix=True searches by the shortfall from the promise, of the ROC AUC or of a row mean "
                     f"(attribution_mean, calibration_gap, brier, log_loss, a RowMeanMeasure), not of measure "
                     f"{measure!r}: {why}; without case_mix its headline tests the promise")  # fmt: skip


def _with_null_references(table, splits, dataset_values, measure):
    """``table`` with ``null_<measure>_<split>`` for a measure whose effect is
    taken against the test's own null (:meth:`~subroc_ext.Measure.reference`:
    the ARL's mean over random subsets of the split with the row's class
    counts); ``table`` itself for the others."""
    if type(measure).reference is _measures.Measure.reference:
        return table
    columns = {}
    for split, dataset, _ in splits:
        whole = dataset.cover()
        columns[f"null_{measure.name}_{split}"] = measure.reference(
            dataset_values[f"{measure.name}_{split}"], table[f"positives_{split}"].to_numpy(dtype=float),
            table[f"negatives_{split}"].to_numpy(dtype=float), whole.positives, whole.negatives,
        )  # fmt: skip
    return table.assign(**columns)


def _with_case_mix_flags(table, subgroups, search, dataset_values, mode, split, measure):
    """``table`` with ``expected_share``, ``range_restricted`` (of the searched
    ``measure`` on ``split``: how much of its change the scores promise) and
    ``complement_of``."""
    expected = f"expected_{measure.name}_{split}"
    if expected in table.columns and expected in dataset_values:
        flags = _case_mix.range_restriction(table, dataset_values, mode, split=split, measure=measure)
    else:
        flags = pd.DataFrame({"expected_share": np.nan, "range_restricted": False}, index=table.index)
    if f"expected_roc_auc_{split}" not in table.columns:  # the scores could not be read as probabilities
        table = table.assign(**{f"expected_roc_auc_{name}": np.nan for name in ("search", split)})
    table = pd.concat([table, flags.set_index(table.index)], axis=1)
    table["complement_of"] = _case_mix.complements(subgroups, search)
    return table


def check_holdout_settings(validation, intervals, min_delta):
    """Raise one ``ValueError`` naming a bad ``intervals`` or ``min_delta``,
    or ``min_delta`` without a holdout (``validation=None``: no interval to
    show an effect beyond it, and the permutation null says nothing about
    effect sizes)."""
    check_verdict_settings(intervals, min_delta)
    if validation is None and min_delta > 0:
        raise ValueError(
            "min_delta needs a holdout (validation): without one the effects are measured on the "
            "rows that chose them (the winner's curse) and get no interval"
        )


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


def search_keep_test(
    search, held_out, quality_function, statistic_qf, target, *, selectors, depth, min_support,
    result_set_size, min_quality, collapse_identical, max_overlap, n_samples, max_samples, method,
    alpha, random_state, progress, client, n_jobs=1, algorithm=None, nbins=5, ignore=(),
    intervals="fcr", min_delta=0.0, allow_large=False,
):  # fmt: skip
    """Search a diverse top-k, test it: the core of
    :func:`find_subgroups`, :func:`~subroc_ext.find_multiclass_subgroups`,
    :func:`~subroc_ext.find_regressions` and :func:`~subroc_ext.find_drift`.

    The keywords are those of :func:`~subroc_ext.workflow.steps.search`,
    :func:`~subroc_ext.workflow.diversity.search_distinct` and :func:`~subroc_ext.workflow.steps.test`;
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
                kept.subgroups, held_out, statistic_qf, target, n_samples=n_samples,
                max_samples=max_samples, method=method, alpha=alpha, intervals=intervals,
                min_delta=min_delta, random_state=random_state, progress=progress, client=client,
                n_jobs=n_jobs,
            )  # fmt: skip
    except KeyboardInterrupt:  # keep the searched patterns, untested
        tested = None
    return found, kept, tested
