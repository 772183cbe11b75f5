"""The tests without a holdout: every pattern found on all rows, tested against the whole search.

* :func:`test_without_holdout`: the table's test, the max-T of the whole
  search with the scores permuted within each class
  (:mod:`~subroc_ext.inference.permutation`), or, for the case-mix quality,
  with the labels drawn from the probabilities
  (:mod:`~subroc_ext.inference.promise_max_t`);
* :func:`promise_without_holdout`: the headline's promise rule, each row
  that could be a failure tested by the studentised max-T over every
  pattern with enough expected cases (ROC AUC;
  :mod:`~subroc_ext.inference.promise_family`);
  :func:`label_draws_without_holdout`: the same rule for every other
  measure, each row's label draws corrected over the whole search space;
  :func:`drift_promise_without_holdout`: the same for a drift's current
  period.
"""

import numpy as np
import pandas as pd

from ..inference.permutation import MAX_T, permutation_test
from ..inference.promise import promise_test
from ..inference.promise_family import promise_family, promise_family_test
from ..inference.promise_max_t import METHOD as MAX_T_LABEL_DRAWS
from ..inference.promise_max_t import promise_max_t
from ..inference.significance import base_seed
from ..inference.verdicts import same_rows_verdicts
from ..inputs.probabilities import maps_without
from ..inputs.search_size import estimate_search_size
from ..inputs.sorted_data import SortedDataset
from ..objective.case_mix import CaseMixQF
from ..utils.descriptions import describe as description_of
from .case_mix import case_mix_data, with_probabilities
from .steps import empty_test_columns, joined_test_columns, use_dataset

__all__ = ["drift_promise_without_holdout", "label_draws_without_holdout", "promise_without_holdout",
           "test_without_holdout"]


def test_without_holdout(found, subgroups, data, quality_function, statistic_qf, target, *, alpha=0.05,
                         max_permutations=10_000, step_down=True, random_state=None, progress=False,
                         client=None, n_jobs=1):  # fmt: skip
    """The whole-search max-T test of patterns found on all of ``data``.

    A thin step with the columns of :func:`~subroc_ext.workflow.steps.test` over
    :func:`~subroc_ext.inference.permutation.permutation_test` (the scores
    permuted within each class), or, for the case-mix quality, over
    :func:`~subroc_ext.inference.promise_max_t.promise_max_t` (the labels
    drawn from the probabilities: permuting scores is no null of a promise).

    Parameters
    ----------
    found : SearchResult
        The search on ``data`` (its subgroups, qualities, selectors, depth
        and minimum support).
    subgroups : list of pysubgroup descriptions
        Those of ``found.subgroups`` to report (e.g. after merging identical covers).
    data : pandas.DataFrame or SortedDataset
        The searched rows.
    quality_function : pysubgroup quality function
        The search's.
    statistic_qf : SoftClassifierQF, ComparisonQF, CaseMixQF or AUCMuQF
        Without weights: each row's ``delta`` is its raw quality on ``data``.
    target
    alpha, max_permutations, step_down, random_state, progress, client, n_jobs
        As in :func:`~subroc_ext.inference.permutation.permutation_test`
        (``max_permutations`` caps the label draws; they have no step-down).

    Returns
    -------
    pandas.DataFrame
        The :data:`TEST_COLUMNS`: ``statistic`` is the quality the search
        ranks by, the p-values are max-T adjusted, ``delta`` is the effect on
        all rows, without an interval (``verdict_note`` says why). ``attrs``:
        ``null_samples_drawn`` (permuted searches), ``method``,
        ``permutations``.
    """
    if not len(subgroups):  # nothing found: no test, but its name for the table's settings
        empty = empty_test_columns()
        empty.attrs["method"] = MAX_T_LABEL_DRAWS if isinstance(statistic_qf, CaseMixQF) else MAX_T
        return empty
    use_dataset(quality_function, data)
    use_dataset(statistic_qf, data)
    data = data.data if isinstance(data, SortedDataset) else data
    rank = {description_of(subgroup): i for i, subgroup in enumerate(found.subgroups)}
    rows = [rank[description_of(sg)] for sg in subgroups]
    if isinstance(statistic_qf, CaseMixQF):  # the null of the promise: labels drawn from the probabilities
        tested = promise_max_t(
            subgroups, data, target, positive_label=statistic_qf.positive_label, selectors=found.selectors,
            depth=found.depth, min_support=found.min_support, quality_function=quality_function,
            statistics=[found.qualities[i] for i in rows], alpha=alpha, max_draws=max_permutations,
            random_state=base_seed(random_state), progress=progress, client=client, n_jobs=n_jobs,
        )  # fmt: skip
    else:
        tested = permutation_test(
            found.subgroups, found.qualities, data, quality_function, target, selectors=found.selectors,
            depth=found.depth, min_support=found.min_support, rows=rows, max_permutations=max_permutations,
            alpha=alpha, step_down=step_down, random_state=base_seed(random_state), progress=progress,
            client=client, n_jobs=n_jobs,
        )  # fmt: skip
    statistic_qf.calculate_constant_statistics(data, target)
    delta = [statistic_qf.calculate_statistics(sg, target, data).raw_quality for sg in subgroups]
    table = joined_test_columns(tested, same_rows_verdicts(tested, delta))
    table.attrs["null_samples_drawn"] = tested.attrs["null_searches"]
    return table


def promise_without_holdout(table, subgroups, search, probabilities, *, label, score, positive_label, mode, found,
                            rules, progress, client, n_jobs, calibrate="auto"):  # fmt: skip
    """Without a holdout, the promise of each row that could be a failure tested
    over the whole search: the ``whole_search_promise`` of
    :func:`~subroc_ext.inference.failures.judge_failures`.

    The test is the studentised max-T over every pattern of the space with
    enough expected cases (:mod:`~subroc_ext.inference.promise_family`),
    every label draw one pass over the family's covers; where the family
    is too large to hold, the max-T of a case-mix search per draw
    (:func:`~subroc_ext.inference.promise_max_t.promise_max_t`).

    A row the table's test finds significant is tested for falling short of
    its promise by more than the whole data does (with ``mode='better'``:
    exceeding it). Any other row is tested for that and for ranking worse
    than the whole data at once (``beyond_whole``): found so, it is a
    failure by its promise, so that a failure too narrow for the table's
    size-weighted test is still found. Only rows that could be failures are
    tested (a positive effect, enough of each class).

    Each row's promise is read from the scores through a map fitted on the
    rows outside it (:func:`_fitted_without`, with ``calibrate``), so that
    its own failure can neither make ``calibrate='auto'`` recalibrate nor
    bend the map towards its labels; the label draws come from
    ``probabilities``, the map of all rows. ``progress``, ``client`` and
    ``n_jobs`` serve the fallback's searches (the family's draws run on
    the compiled kernels' threads).
    """
    significant = table["significant"].fillna(False).to_numpy(dtype=bool)
    enough = table[["positives_search", "negatives_search"]].min(axis=1).to_numpy() >= rules.min_class_count
    rows = np.flatnonzero((table["delta"].to_numpy(dtype=float) > 0) & enough)
    whole = pd.DataFrame({"p_value": 1.0, "significant": False}, index=table.index)
    if not len(rows):  # no row could be a failure: nothing to test
        return whole
    p = np.asarray(probabilities, dtype=float)[search.order]  # score order
    family = promise_family([search.selector_mask(selector) for selector in found.selectors], search.group_ids, p,
                            depth=found.depth, min_support=found.min_support)  # fmt: skip
    if family is None:
        frame, _, target = case_mix_data(search, None, (probabilities, None), label, score)
        tested = promise_max_t(
            [subgroups[i] for i in rows], frame, target, positive_label=positive_label, selectors=found.selectors,
            depth=found.depth, min_support=found.min_support, mode=mode, beyond_whole=~significant[rows],
            alpha=rules.alpha, random_state=rules.random_state, progress=progress, client=client, n_jobs=n_jobs,
        )  # fmt: skip
    else:
        masks = [search.mask_of(subgroups[i]) for i in rows]
        tested = promise_family_test(
            masks, family, search.is_positive, search.group_ids, p,
            own_probabilities=_fitted_without(search, masks, calibrate), mode=mode,
            beyond_whole=~significant[rows], alpha=rules.alpha, random_state=rules.random_state,
        )  # fmt: skip
    whole.iloc[rows, [0, 1]] = tested[["p_value", "significant"]].to_numpy()
    whole["significant"] = whole["significant"].astype(bool)
    return whole


def _fitted_without(search, masks, calibrate):
    """The probabilities of every row of ``search`` (score order) through the map
    of ``calibrate`` fitted on the rows outside each of ``masks`` (score
    order; :func:`~subroc_ext.inputs.probabilities.maps_without`: a row
    holding more than half of the rows of any tenth of the scores, or whose
    outside fits no map, reads the map of all rows)."""
    maps = maps_without(search.scores, search.is_positive, calibrate, search.columns[1])
    # non-decreasing in the score, as split_probabilities
    return [np.maximum.accumulate(maps(mask)(search.scores)) for mask in masks]


def label_draws_without_holdout(table, subgroups, rows, *, mode, found, rules):
    """Without a holdout, the promise of each significant row of a measure other
    than the ROC AUC (PR AUC, ARL, attribution mean, Brier, log loss,
    calibration gap, a user's; of a drift, on its current period's rows):
    its label-draw test on the searched rows
    (:func:`~subroc_ext.inference.promise.promise_test`), Bonferroni over
    every pattern of the search space.

    The rows that chose a pattern also test it here, but the family is fixed
    before the labels are seen: every pattern the search could have found
    (the bound on its candidates, :func:`~subroc_ext.inputs.search_size.estimate_search_size`).
    Each pattern's label-draw p-value is valid when the probabilities are the
    truth, so rejecting where ``p <= alpha / candidates`` keeps the
    family-wise error at most ``alpha`` whichever patterns the search chose
    (the ROC AUC's whole-search max-T, :func:`promise_without_holdout`, is
    sharper: it knows which patterns a draw's search finds).

    Returns
    -------
    pandas.DataFrame
        ``p_value`` (Bonferroni-corrected over the space) and ``significant``
        per row of ``table``: the ``whole_search_promise`` of
        :func:`~subroc_ext.inference.failures.judge_failures`; rows not
        significant in ``table`` are not tested (p 1).
    """
    tested_rows = np.flatnonzero(table["significant"].fillna(False).to_numpy(dtype=bool))
    whole = pd.DataFrame({"p_value": 1.0, "significant": False}, index=table.index)
    if len(tested_rows):
        family = max(len(tested_rows), found.size.candidates if found.size is not None else
                     estimate_search_size(found.selectors, len(rows.frame), found.depth).candidates)  # fmt: skip
        within = slice(None) if rows.promise_rows is None else rows.promise_rows  # a drift: its current period
        # Bonferroni over the family: each p at most alpha / family (over the rows tested, alpha * rows / family)
        tested = promise_test(
            [np.asarray(rows.cover(subgroups[i]), dtype=bool)[within] for i in tested_rows], *rows.promise,
            measure=rows.measure, mode=mode, method="bonferroni", alpha=rules.alpha * len(tested_rows) / family,
            random_state=base_seed(rules.random_state),
        )  # fmt: skip
        whole.iloc[tested_rows, 0] = np.minimum(tested["p_value"].to_numpy() * family, 1)
        whole.iloc[tested_rows, 1] = tested["significant"].to_numpy()
    whole["significant"] = whole["significant"].astype(bool)
    return whole


def drift_promise_without_holdout(table, subgroups, search, target, probabilities, *, positive_label, mode, found,
                                  rules, progress, client, n_jobs):  # fmt: skip
    """Without a holdout, a drift's promise rule (its current period's rows
    beyond what their own scores promise) tested over the whole case-mix
    search of the current period, not on the rows that chose each pattern:
    the ``whole_search_promise`` of
    :func:`~subroc_ext.inference.failures.judge_failures`.

    The significant rows are tested; the null searches take every pattern of
    the space whose current-period rows are at least as many as the fewest
    of a tested row (the search's minimum support counts both periods), so
    each tested row is among the patterns of every null maximum.

    Parameters
    ----------
    table : pandas.DataFrame
        The drift's table (its ``significant`` column).
    subgroups : list of pysubgroup descriptions
        Its rows' patterns.
    search : pandas.DataFrame
        The searched rows of both periods.
    target : DriftTarget
    probabilities : callable
        The current period's probabilities of its scores (fitted on the
        reference period).
    positive_label, mode, found, rules, progress, client, n_jobs
        As in :func:`promise_without_holdout`.
    """
    is_current = (search[target.period_column] == target.current).to_numpy(dtype=bool)
    current = search.loc[is_current]
    frame, case_mix = with_probabilities(current, probabilities(current[target.prediction_column].to_numpy(float)),
                                         target.label_column, target.prediction_column)  # fmt: skip
    rows = np.flatnonzero(table["significant"].fillna(False).to_numpy(dtype=bool))
    whole = pd.DataFrame({"p_value": 1.0, "significant": False}, index=table.index)
    sizes = [int(np.asarray(subgroups[i].covers(current)).sum()) for i in rows]
    if not len(rows) or min(sizes) == 0:
        return whole
    tested = promise_max_t(
        [subgroups[i] for i in rows], frame, case_mix, positive_label=positive_label, selectors=found.selectors,
        depth=found.depth, min_support=min(found.min_support, *sizes), mode=mode, alpha=rules.alpha,
        random_state=rules.random_state, progress=progress, client=client, n_jobs=n_jobs,
    )  # fmt: skip
    whole.iloc[rows, [0, 1]] = tested[["p_value", "significant"]].to_numpy()
    whole["significant"] = whole["significant"].astype(bool)
    return whole


test_without_holdout.__test__ = False  # a pipeline step, not a pytest test
