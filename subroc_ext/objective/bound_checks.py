"""The checks behind :func:`subroc_ext.objective.measure_check.check_measure`.

:class:`Checker` prepares the measure on one small dataset after another,
computes ``value`` on every subset of its rows and checks every cover (every
set of rows) against every subset of it: ``extremes``, the size-aware bound,
the quality function's optimistic estimate, ``batch_values``,
``null_values``, the promise's hooks (``drawn_values`` and
``rank_sum_values`` on every label vector of the dataset, a row mean's
``class_values`` against the measure prepared with the row relabelled) and that ``prepare`` leaves the measure
alone. It keeps the
smallest :class:`Violation` of each kind; :class:`MeasureCheck` is the report.

The best value over the subsets of every cover comes from one pass over the
bits of the subset codes (the "sum over subsets" recursion, with max in place
of the sum), so all ``3**n`` (cover, subset) pairs of an ``n``-row dataset
cost ``n * 2**n`` operations.
"""

import copy
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ..inputs.sorted_data import SortedDataset
from ..inputs.target import SoftClassifierTarget
from ..scoring.measures import Measure
from ..utils.subsets import all_subsets
from .quality import SoftClassifierQF

__all__ = ["Checker", "MeasureCheck", "Violation"]

_TARGET = SoftClassifierTarget("label", "score")
_TOLERANCE = 1e-9  # relative to the magnitude of the numbers compared
_SHOWN = 8  # violations a report's repr lists


def _short(number):
    """A number with six significant digits, for reading (``1.0``, ``-0.133333``)."""
    return repr(float(f"{number:.6g}"))


@dataclass(frozen=True)
class Violation:
    """One broken promise of a measure, shown on the smallest cover found.

    Attributes
    ----------
    check : str
        What failed: ``'value'``, ``'batch_values'``, ``'null_values'``,
        ``'extremes'``, ``'size_aware_bound'``, ``'optimistic_estimate'``,
        ``'prepare'`` or ``'error'`` (a method raised).
    detail : str
        Which part, e.g. ``'highest'``, ``'sign=-1, alpha=1'``, and what is wrong.
    mode : str or None
        The mode, for ``optimistic_estimate``.
    weights : tuple or None
        ``(size_weight, balance_weight)``, for ``optimistic_estimate``.
    labels, scores : tuple
        The cover (labels 1 = positive, 0 = negative), in ascending score order.
    subset : tuple of int or None
        The rows of the cover (positions in ``labels``) of the subset that
        reaches ``reached``.
    claimed, reached : float
        What the measure claims (a bound, or ``value``) and what the subset
        reaches (or the hook returned).
    dataset_labels, dataset_scores : tuple
        The whole dataset the cover is part of (the measure was prepared on
        it and its value there is the reference of the quality).
    """

    check: str
    detail: str
    mode: str = None
    weights: tuple = None
    labels: tuple = ()
    scores: tuple = ()
    subset: tuple = None
    claimed: float = np.nan
    reached: float = np.nan
    dataset_labels: tuple = ()
    dataset_scores: tuple = ()

    def __str__(self):
        where = self.check
        if self.mode is not None:
            alpha, beta = self.weights
            where += f" (mode={self.mode!r}, size_weight={alpha:g}, balance_weight={beta:g})"
        text = f"{where}: {self.detail}"
        if self.labels:
            scores = [float(score) for score in self.scores]
            text += f"\n    cover labels={list(self.labels)} scores={scores}"
            if self.subset is not None:
                text += f", subset rows={list(self.subset)}"
            text += f": claimed {_short(self.claimed)}, reached {_short(self.reached)}"
        return text


@dataclass
class MeasureCheck:
    """What :func:`check_measure` found.

    Attributes
    ----------
    measure : Measure
        The measure checked.
    violations : list of Violation
        One per broken promise (and mode and weights), each on the smallest
        cover that shows it; empty when the measure passed.
    datasets, covers, pairs : int
        Random datasets used, covers on which the measure is defined, and
        (cover, defined subset) pairs checked.
    tight_lowest, tight_highest : float
        Share of the covers on which ``extremes`` is exact (reached by a
        subset): 1.0 for an exact bound, lower for a valid but loose one
        (pruning less), NaN without covers.
    """

    measure: object
    violations: list = field(default_factory=list)
    datasets: int = 0
    covers: int = 0
    pairs: int = 0
    tight_lowest: float = np.nan
    tight_highest: float = np.nan

    @property
    def ok(self):
        """Whether no violation was found."""
        return not self.violations

    def __repr__(self):
        verdict = "ok" if self.ok else f"{len(self.violations)} violation(s)"
        lines = [
            f"MeasureCheck({self.measure!r}: {verdict}; {self.datasets} datasets, "
            f"{self.covers:,} covers, {self.pairs:,} (cover, subset) pairs; extremes exact on "
            f"{self.tight_lowest:.0%} (lowest) and {self.tight_highest:.0%} (highest) of covers)"
        ]
        shown = self.violations[:_SHOWN]
        lines += [f"  {violation}".replace("\n", "\n  ") for violation in shown]
        if len(self.violations) > _SHOWN:
            lines.append(f"  ... and {len(self.violations) - _SHOWN} more in .violations")
        return "\n".join(lines)


def _snapshot(measure):
    """A deep copy of the measure's attributes, or None if they do not copy."""
    try:
        return copy.deepcopy(vars(measure))
    except Exception:  # an attribute that refuses to be copied: not checked
        return None


def _same(a, b):
    """Whether two attribute snapshots are equal (arrays by value)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.array_equal(a, b, equal_nan=True))
    try:
        return bool(a == b) or a is b
    except Exception:
        return a is b


def _close(claimed, reached):
    """``claimed`` equals ``reached`` up to rounding, element-wise (NaN never does)."""
    with np.errstate(invalid="ignore"):
        scale = np.maximum(1.0, np.maximum(np.abs(claimed), np.abs(reached)))
        return (claimed == reached) | (np.abs(claimed - reached) <= _TOLERANCE * scale)


def _exceeds(reached, claimed):
    """``reached`` above ``claimed`` beyond rounding, element-wise (NaN claims exceed)."""
    magnitude = np.maximum(np.abs(np.nan_to_num(claimed)), np.abs(np.nan_to_num(reached)))
    scale = np.maximum(1.0, magnitude)
    with np.errstate(invalid="ignore"):
        return np.isnan(claimed) | (reached > claimed + _TOLERANCE * scale)


def _max_over_subsets(values, size):
    """For every code (set of ``size`` rows), the largest of ``values`` over
    its subsets and the code of a subset reaching it."""
    best = values.copy()
    where = np.arange(len(values))
    codes = np.arange(len(values))
    for bit in range(size):
        holding = codes[(codes >> bit) & 1 == 1]
        without = holding ^ (1 << bit)
        better = best[without] > best[holding]
        best[holding] = np.where(better, best[without], best[holding])
        where[holding] = np.where(better, where[without], where[holding])
    return best, where


def _count_over_subsets(flags, size):
    """For every code, how many of its subsets are flagged."""
    counts = flags.astype(np.int64)
    codes = np.arange(len(flags))
    for bit in range(size):
        holding = codes[(codes >> bit) & 1 == 1]
        counts[holding] += counts[holding ^ (1 << bit)]
    return counts


class _Reported(Exception):
    """A method of the measure raised on some covers; reported already."""


class _Dataset:
    """One random dataset: its class counts on every subset (indexed by
    subset code) and, once :meth:`prepare` ran, the prepared measure and the
    covers on which it is defined."""

    def __init__(self, labels, scores):
        self.labels, self.scores = labels, scores
        self.size = len(labels)
        self.frame = pd.DataFrame({"label": labels, "score": scores})
        self.sorted = SortedDataset(self.frame, "label", "score", True)  # rows already in order
        self.whole = self.sorted.cover()
        masks = np.vstack([np.zeros((1, self.size), bool), all_subsets(self.size)])
        self.masks = masks
        self.positives = masks.sum(1, where=labels, initial=0)
        self.negatives = masks.sum(1) - self.positives
        self.sizes = masks.sum(1)
        # smallest covers first, so that the first violation found is the smallest
        self.order = np.lexsort((np.arange(len(masks)), self.sizes))
        self.prepared, self.defined, self.covers = None, None, {}

    def prepare(self, prepared):
        """Use the measure ``prepared`` on this dataset."""
        self.prepared = prepared
        self.defined = np.asarray(prepared.is_defined(self.positives, self.negatives), bool)
        self.covers = {
            code: self.sorted.cover(self.masks[code]) for code in np.flatnonzero(self.defined)
        }

    def first(self, flags):
        """The smallest flagged code (as a list of at most one)."""
        return list(self.order[flags[self.order]][:1])

    def violation(self, check, detail, cover, subset, claimed, reached, **setting):
        rows = np.flatnonzero(self.masks[cover])
        inside = None
        if subset is not None:
            inside = tuple(int(i) for i in np.flatnonzero(self.masks[subset][rows]))
        return Violation(
            check, detail, setting.get("mode"), setting.get("weights"),
            tuple(int(v) for v in self.labels[rows]), tuple(float(v) for v in self.scores[rows]),
            inside, float(claimed), float(reached),
            tuple(int(v) for v in self.labels), tuple(float(v) for v in self.scores),
        )  # fmt: skip


class Checker:
    """The checks of :func:`check_measure`, accumulating the smallest
    violation per kind."""

    def __init__(self, measure, modes, weights, tight, null_samples, rng):
        self.measure = measure
        self.modes, self.weights = modes, weights
        self.tight = tight
        self.null_samples = null_samples
        self.rng = rng
        self.found = {}  # (check, detail, mode, weights) -> Violation
        self.datasets = self.covers = self.pairs = 0
        self.tight_counts = np.zeros(2)

    def report(self, violation, kind=None):
        """Keep ``violation`` if it is the first or smallest of its kind (by
        default its check, detail, mode and weights)."""
        kind = violation.detail if kind is None else kind
        key = (violation.check, kind, violation.mode, violation.weights)
        known = self.found.get(key)
        if known is None or len(violation.labels) < len(known.labels):
            self.found[key] = violation

    def result(self):
        order = ["error", "prepare", "value", "batch_values", "null_values", "drawn_values", "rank_sum_values",
                 "class_values",
                 "extremes", "size_aware_bound", "optimistic_estimate"]  # fmt: skip
        violations = sorted(
            self.found.values(),
            key=lambda v: (order.index(v.check), v.detail, str(v.mode), str(v.weights)),
        )
        shares = self.tight_counts / self.covers if self.covers else np.full(2, np.nan)
        return MeasureCheck(self.measure, violations, self.datasets, self.covers, self.pairs,
                            float(shares[0]), float(shares[1]))  # fmt: skip

    # -- one dataset ---------------------------------------------------------

    def check_dataset(self, labels, scores):
        """Every check on one dataset; returns what :meth:`check_still_prepared`
        needs later (None if the measure cannot be used on it)."""
        data = _Dataset(labels, scores)
        if not self.measure.dataset_is_defined(data.whole.positives, data.whole.negatives):
            return None
        stage = "prepare"
        try:
            before = _snapshot(self.measure)
            prepared = self.measure.prepare(data.whole)
            if before is not None and not _same(before, _snapshot(self.measure)):
                self.report(data.violation(
                    "prepare", "changed the measure itself; it must return a prepared copy",
                    len(data.masks) - 1, None, np.nan, np.nan,
                ), kind="changed")  # fmt: skip
            if prepared is None:
                self.report(
                    Violation("prepare", "returned None; it must return the prepared measure")
                )
                prepared = self.measure
            data.prepare(prepared)
            self.datasets += 1
            values = self._per_cover(data, "value", prepared.value)
            stage = "value"
            reference = prepared.value(data.whole)
            self._check_values(data, values)
            stage = "batch_values"
            self._check_batch_values(data, values)
            stage = "null_values"
            self._check_null_values(data, values)
            lowest, highest = self._check_extremes(data, values)
            size_aware = self._check_size_aware(data, values, reference)
            stage = "the quality function"
            self._check_estimates(data, values, lowest, highest, size_aware)
            stage = "the promise's hooks"
            self._check_promise(data, prepared)
            return prepared, data.whole, reference
        except _Reported:
            return None
        except Exception as error:  # the measure's own code failed: report, go on
            self.report(data.violation(
                "error", f"{stage} raised {type(error).__name__}: {error}",
                len(data.masks) - 1, None, np.nan, np.nan,
            ))  # fmt: skip
            return None

    def _per_cover(self, data, method, evaluate, width=1):
        """``evaluate(cover)`` on every defined cover, as an array over codes
        (NaN elsewhere, and where it raised: reported on the smallest cover)."""
        results = np.full((len(data.masks), width), np.nan)
        raised = False
        for code in data.order:
            cover = data.covers.get(code)
            if cover is None:
                continue
            try:
                results[code] = np.asarray(evaluate(cover), dtype=float).reshape(width)
            except Exception as error:
                raised = True
                self.report(data.violation(
                    "error", f"{method} raised {type(error).__name__}: {error}",
                    code, None, np.nan, np.nan,
                ), kind=f"{method} raised {type(error).__name__}")  # fmt: skip
        if raised:  # the other checks of this dataset would only repeat it
            raise _Reported
        return results[:, 0] if width == 1 else results.T

    def check_still_prepared(self, prepared, whole, reference):
        """A measure prepared before still gives its value after more preparations."""
        try:
            again = prepared.value(whole)
        except Exception:  # e.g. per-row values of another dataset
            again = np.nan
        if not _close(reference, again):
            self.report(Violation(
                "prepare", "a measure prepared earlier changed when the measure was prepared "
                "on other data (prepare must return a copy)",
                labels=tuple(int(v) for v in whole.is_positive),
                scores=tuple(float(v) for v in whole.scores), claimed=reference, reached=again,
            ))  # fmt: skip

    def _check_values(self, data, values):
        """``value`` is finite on every defined subset."""
        for code in data.first(data.defined & ~np.isfinite(values)):
            self.report(data.violation(
                "value", "is not finite on a subset where the measure is defined (is_defined, "
                "min_positives, min_negatives)", code, code, np.nan, values[code],
            ))  # fmt: skip

    def _check_batch_values(self, data, values):
        positions = data.whole.rows
        for size in range(1, data.size + 1):
            codes = np.flatnonzero(data.defined & (data.sizes == size))
            if not len(codes):
                continue
            subsets = np.array([positions[data.masks[code]] for code in codes])
            got = np.asarray(data.prepared.batch_values(data.whole, subsets), dtype=float)
            if got.shape != (len(codes),):
                self.report(data.violation(
                    "batch_values", f"returned shape {got.shape} for {len(codes)} subsets",
                    codes[0], None, len(codes), np.nan,
                ))  # fmt: skip
                continue
            for code, value in zip(codes, got):
                if not _close(values[code], value):
                    self.report(data.violation(
                        "batch_values", "differs from value", code, code, values[code], value
                    ))  # fmt: skip
                    break

    def _check_null_values(self, data, values):
        if not self.null_samples:
            return
        full = len(data.masks) - 1
        pairs = sorted(
            {(int(data.positives[c]), int(data.negatives[c])) for c in data.covers if c != full}
        )
        for index in self.rng.permutation(len(pairs))[:2]:  # two class-count pairs per dataset
            positives, negatives = pairs[index]
            if data.prepared.null_by_size:  # random subsets of the same size, any classes
                with_counts = data.positives + data.negatives == positives + negatives
            else:
                with_counts = (data.positives == positives) & (data.negatives == negatives)
            exact = values[with_counts & data.defined]
            rng = np.random.default_rng(self.rng.integers(2**63))
            drawn = data.prepared.null_values(
                data.whole, positives, negatives, self.null_samples, rng
            )
            drawn = np.asarray(drawn, dtype=float)
            detail = f"positives={positives}, negatives={negatives}: "
            if drawn.shape != (self.null_samples,):
                self.report(data.violation(
                    "null_values", detail + f"returned shape {drawn.shape}",
                    full, None, self.null_samples, np.nan,
                ), kind="shape")  # fmt: skip
                continue
            distance = np.abs(drawn[:, None] - exact[None, :]).min(1)
            outside = distance > _TOLERANCE * np.maximum(1.0, np.abs(drawn))
            if outside.any():
                self.report(data.violation(
                    "null_values", detail + "a value that no subset with these class counts has",
                    full, None, np.nan, drawn[outside][0],
                ), kind="outside")  # fmt: skip
                continue
            error = 5 * exact.std() / np.sqrt(self.null_samples)
            if abs(drawn.mean() - exact.mean()) > error + _TOLERANCE * max(1.0, abs(exact.mean())):
                self.report(data.violation(
                    "null_values", detail + "mean of the draws is more than five standard errors "
                    "from the mean over all such subsets (not uniform?)",
                    full, None, exact.mean(), drawn.mean(),
                ), kind="mean")  # fmt: skip

    def _check_promise(self, data, prepared):
        """The promise's hooks (:mod:`subroc_ext.inference.promise`): a row mean's
        ``class_values`` are, for each row and label, its value in the measure
        prepared on the dataset with that row so labelled; any other measure's
        ``drawn_values`` on every label vector of the dataset, and
        ``rank_sum_values`` where the measure has it, equal ``value`` (NaN
        where it is undefined)."""
        full = len(data.masks) - 1
        if hasattr(prepared, "class_values"):
            classes = prepared.class_values(data.labels.astype(bool), data.scores)
            for row in range(data.size):
                for label, values in zip((True, False), classes):
                    relabelled = data.labels.astype(bool).copy()
                    relabelled[row] = label
                    if not self.measure.dataset_is_defined(relabelled.sum(), data.size - relabelled.sum()):
                        continue
                    whole = SortedDataset(data.frame.assign(label=relabelled), "label", "score", True).cover()
                    expected = self.measure.prepare(whole).prepared_values[row]
                    if not _close(expected, values[row]):
                        self.report(data.violation(
                            "class_values", f"row {row} labelled {int(label)}: differs from its value in the "
                            "measure prepared with the row so labelled", full, None, values[row], expected,
                        ))  # fmt: skip
                        return
            return
        labels = all_subsets(data.size)  # every label vector of the rows but the all-negative one
        hooks = {"drawn_values": np.asarray(prepared.drawn_values(labels, data.scores), dtype=float)}
        if type(prepared).rank_sum_values is not Measure.rank_sum_values:
            positives = labels.sum(axis=1)
            hooks["rank_sum_values"] = np.asarray(prepared.rank_sum_values(
                labels @ rankdata(data.scores), positives, data.size - positives), dtype=float)  # fmt: skip
        for row, labelled in enumerate(labels):
            cover = SortedDataset(data.frame.assign(label=labelled), "label", "score", True).cover()
            defined = prepared.is_defined(cover.positives, cover.negatives)
            expected = prepared.value(cover) if defined else np.nan
            for hook, values in list(hooks.items()):
                got = values[row]
                if not (_close(expected, got) or (np.isnan(expected) and np.isnan(got))):
                    self.report(data.violation(
                        hook, f"labels {labelled.astype(int).tolist()}: differs from value", full, None, got,
                        expected,
                    ))  # fmt: skip
                    del hooks[hook]  # its first violation only
            if not hooks:
                return

    def _check_extremes(self, data, values):
        """``extremes`` of every cover against every subset; returns them."""
        lowest, highest = self._per_cover(data, "extremes", data.prepared.extremes, width=2)
        defined = data.defined
        self.covers += int(defined.sum())
        self.pairs += int(_count_over_subsets(defined, data.size)[defined].sum())
        for side, claimed, sign in (("lowest", lowest, -1.0), ("highest", highest, 1.0)):
            best, where = _max_over_subsets(np.where(defined, sign * values, -np.inf), data.size)
            reached = sign * best
            bad = defined & _exceeds(best, sign * claimed)
            for code in data.first(bad):
                relation = "above" if side == "lowest" else "below"
                problem = f"is {relation} the value of a subset"
                if np.isnan(claimed[code]):
                    problem = "is NaN (a NaN bound prunes everything)"
                self.report(data.violation(
                    "extremes", f"{side} {problem}",
                    code, where[code], claimed[code], reached[code],
                ))  # fmt: skip
            exact = defined & _close(claimed, reached)
            self.tight_counts[int(side == "highest")] += exact.sum()
            if self.tight:
                for code in data.first(defined & ~exact & ~bad):
                    self.report(data.violation(
                        "extremes", f"{side} is not reached by any subset (tight=True)",
                        code, where[code], claimed[code], reached[code],
                    ))  # fmt: skip
        return lowest, highest

    def _check_size_aware(self, data, values, reference):
        """The hook per sign and size weight; returns {(sign, alpha): bounds}."""
        bounds = {}
        for alpha in sorted({alpha for alpha, _ in self.weights if alpha > 0}):
            for sign in (1, -1):
                claimed = self._per_cover(
                    data, "size_aware_bound",
                    lambda cover: data.prepared.size_aware_bound(cover, reference, sign, alpha),
                )  # fmt: skip
                with np.errstate(invalid="ignore"):
                    weighted = data.sizes**alpha * sign * (values - reference)
                weighted = np.where(data.defined, weighted, -np.inf)
                best, where = _max_over_subsets(weighted, data.size)
                bad = data.defined & _exceeds(best, claimed)
                for code in data.first(bad):
                    problem = "below |T|**size_weight * sign * (value(T) - reference) of a subset T"
                    if np.isnan(claimed[code]):
                        problem = "is NaN (a NaN bound prunes everything)"
                    self.report(data.violation(
                        "size_aware_bound", f"sign={sign}, size_weight={alpha:g}: {problem}",
                        code, where[code], claimed[code], best[code],
                    ), kind=f"sign={sign}, size_weight={alpha:g}")  # fmt: skip
                bounds[sign, alpha] = claimed
        return bounds

    def _check_estimates(self, data, values, lowest, highest, size_aware):
        """The quality function's estimate of every cover against the quality
        of every subset, per mode and weights."""
        for mode in self.modes:
            for alpha, beta in self.weights:
                qf = SoftClassifierQF(
                    self.measure, "label", positive_label=True,
                    size_weight=alpha, balance_weight=beta, mode=mode,
                )  # fmt: skip
                with warnings.catch_warnings():  # prepare returning None is reported above
                    warnings.simplefilter("ignore", FutureWarning)
                    qf.calculate_constant_statistics(data.frame, _TARGET)
                aware = np.full(len(data.masks), np.inf)
                if alpha > 0:
                    aware = np.max([size_aware[sign, alpha] for sign in qf.signs()], axis=0)
                stats = qf.statistics_of_counts(
                    data.positives, data.negatives, values, lowest, highest, aware
                )
                best, where = _max_over_subsets(np.asarray(stats.quality, dtype=float), data.size)
                estimate = np.asarray(stats.optimistic_estimate, dtype=float)
                bad = data.defined & _exceeds(best, estimate)
                for code in data.first(bad):
                    self.report(data.violation(
                        "optimistic_estimate", "below the quality of a subset: pruning loses it",
                        code, where[code], estimate[code], best[code],
                        mode=mode, weights=(alpha, beta),
                    ))  # fmt: skip
