"""What the headline may call a failure: one rule, for every pipeline.

A result table lists every pattern the search ranked, and a row can be
significantly worse than the whole data and still be no failure of the
model. SPEC ("What the headline may call a failure") names a row a
*failure* only when all of these hold, on the held-out rows:

1. **worse than the whole data**: its verdict is significant (the
   randomization test and the interval agree, :mod:`~subroc_ext.inference.verdicts`;
   of a model against its baseline, or of one period against another, in
   ``compare`` and ``drift``);
2. **enough evidence**: at least :data:`MIN_CLASS_COUNT` positives and as
   many negatives (in each period of a drift; of every class of a
   multi-class table), and an interval (where the run has intervals);
3. **worse than its own scores promise** (a single model's ROC AUC, or a
   drift's current period, where a drop its own scores promise is a change
   of population, not of the model: the distinction of confidence-based
   performance estimation; the paired comparison's models share their rows
   and are not checked): the case-mix statistic
   ``q_cm = [mbc(S) - AUC(S)] - [mbc(D) - AUC(D)]`` is significant by its
   label-draw test (:func:`~subroc_ext.inference.promise.promise_test`,
   labels drawn from the probabilities of a map fitted without the row's
   search rows), corrected over the rows that reach this step
   (:class:`FailureRules`). A row that passes 1 and not 3 is a slice where
   every model, the true probabilities included, ranks worse (range restriction);
4. **not explained by a better failure** (independently productive, [1]_,
   [2]_): walking the rows that fall furthest short of their promise first
   (without a promise: surest first, by the conservative end of the
   interval; the headline lists its failures surest first either way), a
   row inside a failure already named (every one of its rows
   is one of the failure's: a refinement ``S AND c``, or a narrower cut of
   the same column) stands only if it is significantly worse than the rest
   of that failure's rows (a *variant* otherwise); a row overlapping named
   failures stands only if its rows outside all of them are a failure on
   their own (tested the same way, 1 and 3; too few rows there: *explained*),
   and a row apart from every named failure stands only if it is a failure
   on its own too. *On its own* is against all held-out rows and against
   those outside the failures, as if they were mended: against all rows
   alone, which hold the failures, the other side of a failure's cut looks
   exceptional in mode 'both' (``g == 'a'`` and ``g == 'b'`` when only
   ``g == 'c'`` is miscalibrated: the whole data's mean is moved by ``c``);
   against the rows outside alone, a slice beside a failure that is worse
   than the whole data only by holding part of it stands more easily in
   one direction.
   A broader row that stands makes each named failure inside it that is
   not significantly worse than its other rows its variant: one idea, one
   line, named by its broadest failing description (a broader row whose
   rows beside the failures inside it are too few to test is that idea);
   the variants of such a failure are tested again, against the broader
   row's other rows. Last, each failure
   (the least sure first) must still be one on its rows outside every other
   failure that overlaps it without either holding the other: a failure named first and explained by a
   later one (a slice of the strongest predictor that holds part of the
   real failure) is *explained* too, and so are its variants (no
   refinements of the later failure, and never tested against it). Every test of the walk ("on its own",
   "worse than the rest") is at ``alpha`` over the rows it judges
   (Bonferroni): it is asked of many overlapping rows, and uncorrected one
   in twenty slices of a failure would stand beside it by chance.

Without a holdout the rows that chose a row would also test its promise,
so rule 3 is the max-T test of the promise over the whole search (of
the ROC AUC: the studentised max-T over every pattern with enough
expected cases, :mod:`~subroc_ext.inference.promise_family`, passed in as
``whole_search_promise``). A row the table's test does not find
significant is tested there for falling short of its promise and of the
whole data at once: found so, it passes rule 1 *by its promise* even where
the table's size-weighted test cannot tell it from chance.

Where the scores keep their promise everywhere every failure is a
rejection of 3's test: corrected over a family fixed before the held-out
labels are read (``FailureRules(promise_family='table')``) the headline
names one with probability at most ``alpha``; over the rows 1 chose by
those labels (the default), as far as their choice does not follow the
promise tests' statistics (it does, in part: a slice whose held-out labels
fall short by chance is worse than the whole data and short of its
promise at once; measured: ``benchmarks/RESULTS.md``, issue 55). Without a
holdout every failure passes the promise's max-T test, of family-wise
error at most ``alpha`` when the scores are calibrated.

:func:`judge_failures` returns the decision per row, for ``run``,
``compare``, ``drift`` and the multi-class search alike (each gives it its
:class:`JudgedRows`); the console, the reports and the release gate only
word it.

References
----------
.. [1] G. I. Webb, "Discovering significant patterns", Machine Learning
   68(1), 1-33, 2007.
.. [2] G. I. Webb and J. Vreeken, "Efficient discovery of the most
   interesting associations", ACM Transactions on Knowledge Discovery from
   Data 8(3), 2014.
"""

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..inputs.sorted_data import SortedDataset
from ..objective.quality import SoftClassifierQF
from ..objective.statistics import Columns
from ..scoring import bitset
from ..scoring.measures import ROCAUC
from .note_words import BY_PROMISE, FINDING_NOUN, note_words
from .promise import Promise
from .significance import base_seed, randomization_test

__all__ = ["FAILURE_COLUMNS", "MIN_CLASS_COUNT", "FailureRules", "JudgedRows", "class_kinds", "dataset_rows",
           "judge_failures", "promise_weights", "renumbered"]

#: The fewest positives, and negatives, of a headline failure's held-out rows.
MIN_CLASS_COUNT = 10

#: What a promise test's weight adds to the row's shortfall on the search split (ROC AUC points).
WEIGHT_FLOOR = 0.01

#: The columns :func:`judge_failures` adds.
FAILURE_COLUMNS = ["failure", "failure_note", "failure_of", "promise_p_value"]


@dataclass(frozen=True)
class FailureRules:
    """The settings of the rules: the test's correction and level, the seed,
    the fewest rows of each kind, whether the run tested on held-out rows
    (without, the effects have no interval to require and the rules' tests
    run on the searched rows), and the family rule 3's test is corrected
    over: the rows that reach it ('tested'), or every row of the table
    ('table', the others with p-value 1: fixed before the held-out labels
    chose the rows, so that where the scores keep their promise the
    headline names a failure with probability at most ``alpha``)."""

    method: str = "fdr_by"
    alpha: float = 0.05
    random_state: object = 0
    min_class_count: int = MIN_CLASS_COUNT
    holdout: bool = True
    promise_family: str = "tested"


@dataclass(frozen=True)
class JudgedRows:
    """The rows the rules run on (the held-out rows; without a holdout the
    searched ones) and what the rules need of them, for any pipeline.

    Attributes
    ----------
    frame : pandas.DataFrame
        The rows.
    target : object
        The verdict's target on ``frame`` (its label and score columns).
    make_qf : callable
        A new unweighted quality function of the verdict's measure and mode
        (a fresh one per "worse than" test of a subset).
    kinds : pandas.DataFrame of bool
        One column per kind of row a failure needs at least
        ``min_class_count`` of, named as a note says it ("positives",
        "negatives"; per period in a drift, per class in a multi-class table).
    cover : callable
        A pattern's rows: a boolean mask over ``frame``.
    promise : tuple of numpy.ndarray, optional
        ``(is_positive, scores, probabilities)`` of the rows whose measure
        must fall short of its promise (rule 3): ``frame``'s, or those of
        ``promise_rows``; None: not checked.
    promise_rows : numpy.ndarray of bool, optional
        The rows of ``frame`` that ``promise`` describes: a drift's current
        period, where a drop its own scores promise is a change of
        population, not of the model. None: all rows.
    measure : Measure, optional
        The measure whose promise is checked
        (:class:`~subroc_ext.inference.promise.Promise`); the ROC AUC by default.
    own_maps : callable, optional
        A pattern to the map from scores to probabilities fitted on the
        search split without its rows (no judged label in it;
        :func:`~subroc_ext.workflow.case_mix.own_maps`): its tests read its
        promise through it and draw labels from it. None: ``promise``'s
        probabilities.
    sorted_rows : SortedDataset, optional
        ``frame``'s rows sorted by score (a single model's, the one its table
        was tested on): the "worse than" tests against all rows run on it,
        and take their other subsets of rows in its order, so that the test's
        sort of each finds them sorted (a 2 M-row run sorted a million rows
        for each of its 150 tests, benchmarks/RESULTS.md). None: subsets in
        ``frame``'s order.
    """

    frame: pd.DataFrame
    target: object
    make_qf: object
    kinds: pd.DataFrame
    cover: object
    promise: tuple = None
    promise_rows: np.ndarray = None
    measure: object = None
    own_maps: object = None
    sorted_rows: SortedDataset = None


def class_kinds(is_positive, of="", within=None):
    """The :attr:`JudgedRows.kinds` of a binary label: its positives and
    negatives (among the rows ``within`` only, named ``of`` them: " of the
    current period")."""
    is_positive = np.asarray(is_positive, dtype=bool)
    within = np.ones(len(is_positive), dtype=bool) if within is None else within
    return pd.DataFrame({f"positives{of}": is_positive & within, f"negatives{of}": ~is_positive & within})


def dataset_rows(dataset, measure, mode, probabilities=None, own_maps=None):
    """The :class:`JudgedRows` of a single model's rows (a ``SortedDataset``);
    ``probabilities`` (data row order) for the promise of its ``measure``,
    ``own_maps`` each pattern's map (:attr:`JudgedRows.own_maps`)."""
    label, score = dataset.columns
    is_positive = _data_order(dataset, dataset.is_positive)  # the dataset's one positive-label rule
    promise = None
    if probabilities is not None:
        promise = (is_positive, _data_order_values(dataset, dataset.scores), probabilities)
    return JudgedRows(
        dataset.data[[label, score]], Columns(label, score),
        lambda: SoftClassifierQF(measure, label, positive_label=dataset.positive_label, mode=mode),
        class_kinds(is_positive), lambda subgroup: _data_order(dataset, dataset.mask_of(subgroup)), promise,
        measure=measure, own_maps=None if promise is None else own_maps, sorted_rows=dataset,
    )  # fmt: skip


def _data_order(dataset, sorted_mask):
    """A mask over ``dataset``'s score-sorted rows in its data's row order."""
    return _data_order_values(dataset, sorted_mask).astype(bool)


def _data_order_values(dataset, sorted_values):
    """Values of ``dataset``'s score-sorted rows in its data's row order."""
    values = np.empty(len(dataset), dtype=np.asarray(sorted_values).dtype)
    values[dataset.order] = sorted_values
    return values


class _Tests:
    """The judged rows and the tests the rules run on subsets of them."""

    def __init__(self, rows, mode, rules, subgroups=()):
        self.rows, self.mode, self.rules, self.subgroups = rows, mode, rules, subgroups
        self._readings = {}  # :meth:`reading`'s maps, by table row
        self.seed = base_seed(rules.random_state)
        self.kinds = rows.kinds.to_numpy(dtype=bool)
        self.promised = rows.promise is not None
        self.measure = ROCAUC() if rows.measure is None else rows.measure
        self.promise_rows = rows.promise_rows
        self._last = None, None  # :meth:`_taken` of the last rows other than all: their bits, its answer

    def fewest(self, mask):
        """The kind of row ``mask`` holds fewest of, and how many."""
        counts = self.kinds[mask].sum(axis=0)
        return self.rows.kinds.columns[int(np.argmin(counts))], int(counts.min())

    def enough(self, mask):
        return self.fewest(mask)[1] >= self.rules.min_class_count

    def words(self, mask):
        """The notes' :class:`NoteWords` of the rows of ``mask``: the mode's, or in
        mode 'both' the side their measure lies on against all rows (where a
        promise is checked on all rows; in a drift, whose side is between
        periods, without a promise, or of a measure whose sides have names of
        their own, the calibration gap's 'under' and 'over': the neutral
        'different from')."""
        if self.mode != "both" or not self.promised or self.rows.promise_rows is not None or \
                self.measure.mode_aliases:  # fmt: skip
            return note_words(self.mode, self.measure.name)
        lower = self._promise.observed(mask) < self._promise.observed(np.ones(len(mask), dtype=bool))
        return note_words("worse" if lower else "better", self.measure.name)

    def promised_rows(self, mask):
        """``mask`` over the rows the promise describes (:attr:`JudgedRows.promise_rows`;
        ``mask`` itself, not a copy, where it describes them all)."""
        return mask if self.promise_rows is None else mask[self.promise_rows]

    @functools.cached_property
    def _promise(self):
        """The promise of the measure on the promise's rows (built once)."""
        return Promise(self.measure, *self.rows.promise, seed=self.seed)

    def reading(self, owner):
        """The promise table row ``owner``'s rows (and the walk's subsets of them)
        are read through: :attr:`JudgedRows.own_maps`, or all rows'
        (:meth:`Promise.reading`: its map kept, the probabilities of the rows
        asked made when asked)."""
        if owner is None or self.rows.own_maps is None:
            return self._promise
        if owner not in self._readings:
            self._readings[owner] = self._promise.reading(self.rows.own_maps(self.subgroups[owner]))
        return self._readings[owner]

    def sharpness(self, mask, owner=None):
        """How far the rows of ``mask`` fall short of their scores' promise (read
        as ``owner``'s), in the direction of the mode: of two descriptions of
        one failure, the one holding fewer rows that keep their promise falls shorter."""
        mask = self.promised_rows(mask)
        reading = self.reading(owner)
        gap = reading.expected(mask) - reading.observed(mask)
        return {"worse": gap, "better": -gap}.get(self.mode, abs(gap))

    def promise(self, masks, method=None, weights=None, alpha=None, owners=None, untested=0):
        """Each mask's label-draw test of its promise (``masks``: any iterable),
        read as ``owners[k]``'s, in a correction of ``untested`` more:
        (corrected p-values, rejected)."""
        readings = None if owners is None else (self.reading(i) for i in owners)  # one at a time, as the masks
        tested = self._promise.test(
            (self.promised_rows(mask) for mask in masks), mode=self.mode, method=method or self.rules.method,
            alpha=alpha or self.rules.alpha, weights=weights, readings=readings, untested=untested,
        )  # fmt: skip
        return tested["p_value_corrected"].to_numpy(), tested["significant"].to_numpy(dtype=bool)

    def worse(self, mask, within=None, alpha=None):
        """The p-value of ``mask`` being worse than random subsets of ``within``
        (all judged rows if None) of its size and class counts (drawn until it
        is known on which side of ``alpha``, the rules' by default, it lies)."""
        rows = np.ones(len(mask), dtype=bool) if within is None else within
        if not (rows & ~mask).any():  # no other rows: the same as all of them
            return 1.0
        taken, data, qf = self._taken(within)
        tested = randomization_test(
            [mask[taken]], data, qf, target=self.rows.target,
            method="bonferroni", alpha=alpha or self.rules.alpha, random_state=self.seed,
        )  # fmt: skip
        return float(tested["p_value"].iloc[0])

    def _taken(self, within):
        """The rows ``within`` (all if None) as the "worse than" tests take
        them: their positions (in score order where known), their frame and a
        quality function prepared on it, for all rows and the last other rows
        asked for: a walk tests against the same rows again and again (150
        tests of a 2 M-row run spent 13 s preparing them)."""
        if within is None:
            return self._all_rows
        key = np.packbits(within).tobytes()
        if self._last[0] != key:
            self._last = None, None  # not two sets of rows held at once
            self._last = key, self._prepared(within)
        return self._last[1]

    @functools.cached_property
    def _all_rows(self):
        """:meth:`_taken` of all rows: where they are sorted already, their data and its sort."""
        sorted_rows = self.rows.sorted_rows
        if sorted_rows is None:
            return self._prepared(np.ones(len(self.kinds), dtype=bool))
        return slice(None), sorted_rows.data, self.rows.make_qf().use_dataset(sorted_rows)

    def _prepared(self, within):
        sorted_rows = self.rows.sorted_rows
        taken = np.flatnonzero(within) if sorted_rows is None else sorted_rows.order[within[sorted_rows.order]]
        data, qf = self.rows.frame.iloc[taken], self.rows.make_qf()
        if sorted_rows is not None:  # sorted once for every test on these rows
            qf.use_dataset(SortedDataset(data, *sorted_rows.columns, sorted_rows.positive_label))
        return taken, data, qf

    def failure_alone(self, mask, outside, level, owner=None):
        """Whether the rows of ``mask`` are a failure on their own (rules 1 and
        3): worse than all judged rows and than the rows ``outside`` the
        failures it is judged beside (as if those were mended), and than their
        promise, each at ``level`` (the walk's: ``alpha`` over the rows it
        judges, Bonferroni, as it asks this of many overlapping rows, and
        uncorrected one in twenty rows that hold part of a failure would stand
        by chance; its promise read as table row ``owner``'s)."""
        if not self.enough(mask) or any(self.worse(mask, rows, alpha=level) >= level for rows in (None, outside)):
            return False
        return not self.promised or bool(self.promise([mask], method="bonferroni", alpha=level, owners=[owner])[1][0])


def judge_failures(table, subgroups, rows, mode, *, search_shortfall=None, whole_search_promise=None,
                   rules=FailureRules()):  # fmt: skip
    """Which rows of a tested table the headline may call failures, and why not the others.

    Parameters
    ----------
    table : pandas.DataFrame
        The tested rows (``significant``, ``delta_ci_low``), best first, one
        per subgroup.
    subgroups : list of pysubgroup descriptions
        The table's patterns.
    rows : JudgedRows
        The rows the test ran on (:func:`dataset_rows` for a single model).
    mode : {"worse", "better", "both"}
        The verdict's direction.
    search_shortfall : numpy.ndarray of float, optional
        Each row's ``q_cm`` on the search split (how much further it fell
        short of its scores' promise than the whole data there): with a
        holdout, the promise tests are weighted by it (:func:`promise_weights`),
        so that a row the search split already found short of its promise
        needs less evidence on the held-out rows than a slice that was not.
    whole_search_promise : pandas.DataFrame, optional
        Without a holdout: each row's promise tested over the whole search
        (:func:`~subroc_ext.workflow.without_holdout.promise_without_holdout`;
        its ``p_value`` and ``significant``), of a row the table's test did not
        find significant together with ranking worse (better) than the whole
        data (its ``beyond_whole``), so that significant it is both. It
        replaces the label-draw test on the rows that chose the row (rule
        3), and such a row passes rule 1 even where the table's test
        (weighted for the size of the search's ranking) cannot tell it from
        chance ("by its promise").
    rules : FailureRules

    Returns
    -------
    pandas.DataFrame
        :data:`FAILURE_COLUMNS`, one row per table row: ``failure`` (the
        headline may call it one), ``failure_note`` (why a significant row
        is not, empty otherwise), ``failure_of`` (the rank, 1 = first row,
        of the failure a variant or an explained row belongs to) and
        ``promise_p_value`` (the label-draw test's corrected p-value, of the
        weighted p-value with a search split; NaN where it did not run).
    """
    n = len(table)
    failure = np.zeros(n, dtype=bool)
    notes = np.full(n, "", dtype=object)
    belongs = np.full(n, -1)
    promise_p = np.full(n, np.nan)
    significant = table["significant"].fillna(False).to_numpy(dtype=bool) if n else np.zeros(0, bool)
    by_promise = np.zeros(n, dtype=bool)
    if whole_search_promise is not None:
        shown = whole_search_promise["significant"].to_numpy(dtype=bool)
        by_promise = shown & ~significant  # tested with its margin: short of its promise and worse than D
        significant = significant | by_promise
    tests = _Tests(rows, mode, rules, subgroups)
    masks = bitset.PackedMasks((i, np.asarray(rows.cover(subgroups[i]), dtype=bool))
                               for i in np.flatnonzero(significant))  # fmt: skip
    where = "held-out rows" if rules.holdout else "rows"
    candidates = []
    for i, mask in masks.items():
        kind, count = tests.fewest(mask)
        if count < rules.min_class_count and by_promise[i]:  # the table does not call it significant
            by_promise[i] = False
        elif count < rules.min_class_count:
            notes[i] = f"little evidence: {count} {kind} in the {where} (fewer than {rules.min_class_count})"
        elif rules.holdout and pd.isna(table["delta_ci_low"].iloc[i]):
            notes[i] = "no interval: the effect's size is unknown"
        else:
            candidates.append(i)
    if whole_search_promise is not None and candidates:
        promise_p[candidates] = whole_search_promise["p_value"].to_numpy(dtype=float)[candidates]
        kept = whole_search_promise["significant"].to_numpy(dtype=bool)[candidates]
    elif tests.promised and candidates:
        family = candidates if rules.promise_family == "tested" else np.arange(n)  # weights averaging 1 over it
        weights = None if search_shortfall is None or not rules.holdout else \
            pd.Series(promise_weights(np.asarray(search_shortfall, dtype=float)[family]), index=family)[candidates]
        promise_p[candidates], kept = tests.promise((masks[i] for i in candidates), owners=candidates,
                                                    weights=None if weights is None else weights.to_numpy(),
                                                    untested=len(family) - len(candidates))  # fmt: skip
    if (whole_search_promise is not None or tests.promised) and candidates:
        restricted = table["range_restricted"].fillna(True).to_numpy(dtype=bool) if "range_restricted" in table \
            else np.ones(n, dtype=bool)  # fmt: skip
        for i, ok in zip(candidates, kept):
            if not ok:
                notes[i] = _unpromised(promise_p[i], restricted[i], tests.words(masks[i]),
                                       drift=rows.promise_rows is not None)  # fmt: skip
        candidates = [i for i, ok in zip(candidates, kept) if ok]
    named = []
    level = rules.alpha / max(len(candidates), 1)  # of each test of the walk: "on its own", "worse than the rest"
    for i in _walk_order(table, candidates, masks, tests):
        mask = masks[i]
        parents = [j for j in named if not (mask & ~masks[j]).any()]
        if parents:  # a refinement or a narrower cut of a named failure
            parent = min(parents, key=lambda j: masks[j].sum())
            p = tests.worse(mask, within=masks[parent], alpha=level)
            if p >= level:
                notes[i], belongs[i] = _variant(parent, p, tests.words(mask)), parent
                continue
        elif named:  # its rows outside the failures, against all rows outside them
            outside = ~np.logical_or.reduce([masks[j] for j in named])
            rest = mask & outside
            overlapping = [j for j in named if (mask & masks[j]).any()]
            inside_only = overlapping and all(not (masks[j] & ~mask).any() for j in overlapping)
            # too few rows beside the failures inside it to tell: the same idea, broader
            same_idea = inside_only and not tests.enough(rest)
            if not same_idea and not tests.failure_alone(rest, outside, level, owner=i):
                if overlapping:
                    most = max(overlapping, key=lambda j: (mask & masks[j]).sum())
                    notes[i], belongs[i] = _explained(most, rest, where, FINDING_NOUN[mode], len(named)), most
                else:  # apart from every failure: worse only against a whole data that holds them
                    most = max(named, key=lambda j: masks[j].sum())
                    notes[i], belongs[i] = _other_side(most, where, tests.words(mask), FINDING_NOUN[mode]), most
                continue
        for j in [j for j in named if j != i and not (masks[j] & ~mask).any()]:  # narrower failures inside it
            p = tests.worse(masks[j], within=mask, alpha=level)
            if p >= level:  # one idea: the broader failure names it
                named.remove(j)
                failure[j], notes[j], belongs[j] = False, _variant(i, p, tests.words(masks[j])), i
                _adopt(j, i, notes, belongs, masks, tests, level)
        named.append(i)
        failure[i] = True
        if by_promise[i]:
            notes[i] = _by_promise(promise_p[i], table["p_value"].iloc[i], tests.words(mask))
    for i in reversed(list(named)):  # named before a failure that overlaps it: still one on its own?
        overlapping = [j for j in named if j != i and _overlap_only(masks[i], masks[j])]
        if not overlapping:
            continue
        outside = ~np.logical_or.reduce([masks[j] for j in overlapping])
        rest = masks[i] & outside
        if not tests.failure_alone(rest, outside, level, owner=i):
            most = max(overlapping, key=lambda j: (masks[i] & masks[j]).sum())
            named.remove(i)
            failure[i], notes[i], belongs[i] = False, _explained(most, rest, where, FINDING_NOUN[mode],
                                                                 len(overlapping)), most
            for j in np.flatnonzero(belongs == i):  # its variants: the idea is explained, not a variant of row most
                notes[j] = _explained_variant(most, i, where, FINDING_NOUN[mode]) if notes[j].startswith("variant") \
                    else renumbered(notes[j], i, most)
                belongs[j] = most
    return pd.DataFrame({
        "failure": failure, "failure_note": notes,
        "failure_of": pd.array(np.where(belongs >= 0, belongs + 1, None), dtype="Int64"),
        "promise_p_value": promise_p,
    }, index=table.index)  # fmt: skip


def promise_weights(search_shortfall, floor=WEIGHT_FLOOR):
    """The weights of the promise tests: each row's shortfall beyond its promise
    on the search split (at least 0) plus ``floor``, scaled to average 1.

    The search split is independent of the held-out rows the tests run on,
    so the weighted correction keeps its guarantee
    (:func:`~subroc_ext.inference.sequential.weighted_p_values`); the slices
    of a strong predictor, which fall short of their promise only by chance,
    give way to a row that already fell far short on the search split.

    Examples
    --------
    >>> promise_weights(np.array([0.29, 0.0, -0.02, 0.05])).round(2).tolist()
    [3.16, 0.11, 0.11, 0.63]
    """
    weights = np.maximum(np.nan_to_num(search_shortfall, nan=0.0), 0.0) + floor
    return weights / weights.mean()


def _unpromised(p_value, restricted, words, drift=False):
    """Why a row no further from the whole data than its own scores promise
    is no failure (its direction's ``words``): in a ``drift``, a change of
    population; else a slice of the risk (``restricted``: its scores promise
    at least half of its change) or too little evidence of more."""
    if drift:
        return (f"change of population: the current period's own scores promise its {words.change} (case-mix p "
                f"{p_value:.2g}); its rows, or their inputs, changed, not how the model ranks them")  # fmt: skip
    if restricted:
        return (f"{words.slice}: no {words.than} its own scores promise (case-mix p {p_value:.2g}); "
                f"{words.every}")  # fmt: skip
    return (f"not shown {words.than} promised: {words.gap}, but the label-draw test cannot tell that from "
            f"chance (case-mix p {p_value:.2g})")  # fmt: skip


def _by_promise(promise_p, p_value, words):
    """Why a failure the table's test did not find significant is one."""
    return (f"{BY_PROMISE}: it {words.beyond}, by more than chance explains anywhere in the search (whole-search "
            f"case-mix p {promise_p:.2g}); the table's test, weighted by size, cannot tell it from chance (p "
            f"{p_value:.2g})")


def _overlap_only(first, second):
    """The two covers share rows and neither holds the other (containment is the refinement rule's)."""
    return bool((first & second).any() and (first & ~second).any() and (second & ~first).any())


def _explained(other, rest, where, noun, beside):
    """``beside``: how many failures its rows were judged outside of."""
    outside = f"the {noun} named before it" if beside == 1 else f"the {beside:,} {noun}s named before it"
    return (f"explained by #{other + 1}: its {int(rest.sum()):,} {where} outside {outside} are not a {noun} "
            "on their own")  # fmt: skip


def _explained_variant(other, parent, where, noun):
    return (f"explained by #{other + 1}: a variant of #{parent + 1}, whose {where} outside the other "
            f"{noun}s are not a {noun} on their own")  # fmt: skip


def renumbered(note, old, new):
    """A note that named failure ``old`` naming ``new``, the failure its row now belongs to
    (its ``failure_of``): ``old`` became ``new``'s variant, or was explained by it
    (``old`` and ``new`` are positions: the note says ``#old + 1``).

    >>> renumbered("explained by #16: its 40 held-out rows outside ...", 15, 4)
    'explained by #5: its 40 held-out rows outside ...'
    """
    return note.replace(f"#{old + 1}", f"#{new + 1}", 1)


def _adopt(old, new, notes, belongs, masks, tests, level):
    """The rows that belonged to failure ``old``, now a variant of the broader
    failure ``new``, belong to ``new``. Its variants were tested against the
    rest of ``old``: each is tested again against the rest of ``new`` and
    becomes its variant when not significantly worse there; one that is stays
    the variant of ``old`` (its note true as written), and is not listed under
    ``new`` as "not significantly worse than it"."""
    for j in np.flatnonzero(belongs == old):
        if notes[j].startswith("variant"):
            p = tests.worse(masks[j], within=masks[new], alpha=level)
            if p < level:
                continue
            notes[j] = _variant(new, p, tests.words(masks[j]))
        else:  # explained by, or beside, old: old's rows are new's too
            notes[j] = renumbered(notes[j], old, new)
        belongs[j] = new


def _other_side(other, where, words, noun):
    return (f"beside a {noun}: {words.than} the whole data only because #{other + 1}'s rows are in it, "
            f"not significantly {words.than} the {where} outside the {noun}s")


def _variant(parent, p_value, words):
    return f"variant of #{parent + 1}: not significantly {words.than} the rest of it (p {p_value:.2g})"


def _walk_order(table, rows, masks, tests):
    """The order in which the rows are judged: with a promise, the row that falls
    furthest short of it first (a slice of the risk that holds half of a real
    failure, ``48 <= age < 62 AND g=='c'`` beside ``g=='c' AND h=='x'``, falls
    less short than the failure and is judged after it, so it cannot explain
    the failure away; its interval, wider from range restriction, would put
    it first); without, :func:`_surest_first`."""
    if not tests.promised:
        return _surest_first(table, rows)
    sharpness = {i: tests.sharpness(masks[i], owner=i) for i in rows}
    return sorted(rows, key=lambda i: (-sharpness[i], i))


def _surest_first(table, rows):
    """``rows`` by the conservative end of their interval (how bad at least;
    the effect where there is none), then by rank."""
    column = "delta_ci_low" if "delta_ci_low" in table else "delta"
    low = table[column].to_numpy(dtype=float)
    low = np.where(np.isnan(low), table["delta"].to_numpy(dtype=float), low)
    return sorted(rows, key=lambda i: (-low[i], i))
