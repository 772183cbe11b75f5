"""The whole SubROC framework in one call: :func:`find_subgroups`.

Its body is a composition of named steps: the settings checked once
(:class:`~subroc_ext.workflow.settings.AuditSettings`), the table checked
once (:func:`~subroc_ext.inputs.validated.validate_data`), then one split's
audit (:func:`~subroc_ext.workflow.single_split.audit_one_split`):

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

import warnings

from ..inputs.validated import split_validation, validate_data
from ..utils.deprecation import REMOVED_IN
from ..utils.validation import min_support_count
from . import steps
from .many_splits import audit_many_splits
from .settings import AuditSettings, check_holdout_settings, validation_kind
from .single_split import audit_one_split, make_quality_function, search_keep_test
from .steps import MEASURES

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
    splits=1,
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
    splits : int or 'auto', default=1
        Random search/validation splits of ``data`` (``validation`` the
        fraction held out in each): 1 is one split, seeded by
        ``random_state``; B > 1 runs the whole audit on B splits of the same
        rows ('auto': 4, and more up to 16 until each decision is settled,
        aggregated over the 16 planned, those not run rejecting nothing),
        each at the level ``0.3 * alpha``, in threads, and aggregates what they
        reject (e-BH on the splits' compound e-values: the false discovery
        rate at most ``alpha`` under any dependence between the splits), so
        that another seed gives the same answer
        (:mod:`~subroc_ext.workflow.many_splits`). The table is that of
        the split agreeing best with the aggregate, with the aggregate's
        ``significant``, ``failure``, ``delta`` and interval, and
        ``splits_found``, ``splits_significant``, ``splits_named`` (in how
        many splits each row was found, significant, a headline failure)
        and ``split`` (which split's rows describe it).

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
    settings = AuditSettings(
        measure_name=measure, mode=mode, size_weight=size_weight, balance_weight=balance_weight,
        generalization_aware=generalization_aware, depth=depth, min_support=min_support,
        min_quality=min_quality, result_set_size=result_set_size, collapse_identical=collapse_identical,
        max_overlap=max_overlap, n_samples=n_samples, max_samples=max_samples, method=method, alpha=alpha,
        intervals=intervals, min_delta=min_delta, random_state=random_state, algorithm=algorithm,
        progress=progress, client=client, n_jobs=n_jobs, case_mix=case_mix, calibrate=calibrate,
        allow_large=allow_large, splits=splits, validation_kind=validation_kind(validation),
    )  # fmt: skip
    space = dict(ignore=ignore, nbins=nbins, thresholds=thresholds, keep_ids=keep_ids, selectors=selectors)
    if splits == 1:
        checked = validate_data(data, label=label, score=score, positive_label=positive_label, validation=validation,
                                random_state=random_state, min_support=min_support, **space)  # fmt: skip
        return audit_one_split(checked, settings, min_support=min_support, thresholds=thresholds, nbins=nbins)
    # every split searches the same patterns: the conditions of all rows (a fraction of support: of a search split)
    whole = validate_data(data, label=label, score=score, positive_label=positive_label, validation=None,
                          min_support=min_support * (1 - validation) if min_support < 1 else min_support, **space)
    return audit_many_splits(whole, settings, validation=validation, min_support=min_support, thresholds=thresholds,
                             nbins=nbins)  # fmt: skip


