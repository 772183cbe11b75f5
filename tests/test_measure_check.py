"""Tests of :func:`subroc_ext.check_measure`.

* Every built-in measure passes, with exact extremes where SPEC.md claims
  them (ROC AUC, PR AUC, ARL, the row means).
* Each check catches a measure broken in its way (a bound too low in one
  mode, a NaN bound, a size-aware bound too low, ``batch_values`` or
  ``null_values`` that disagree with ``value``, an undefined value, a
  ``prepare`` that changes the measure, a method that raises), reported and
  not raised, on the smallest cover.
* The counterexample it reports is checked independently: the subset's value
  recomputed by hand, the claimed bound by calling the measure on the cover.
* Every measure the README and notebook 02 show passes in every mode (the
  code taken from the documents themselves), except those shown as mistakes.
"""

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score

import subroc_ext
from subroc_ext.scoring import measures
from subroc_ext.objective.measure_check import MODES, WEIGHTS, probe_points

BUILT_IN = {
    "roc_auc": measures.ROCAUC,
    "pr_auc": measures.PRAUC,
    "arl": measures.AverageRankingLoss,
    "attribution_mean": measures.attribution_mean,
    "brier": measures.squared_error,
}


class BalancedAccuracy(measures.Measure):
    """The README's example before issue 22: ``extremes`` adds NumPy booleans
    (``np.True_ + np.True_`` is ``True``), so its highest value is 1/2 where
    it should be 1."""

    name, kind = "balanced_accuracy", "score"
    min_positives = min_negatives = 1

    def value(self, cover):
        hit = cover.scores >= 0.5
        return (hit[cover.is_positive].mean() + (~hit[~cover.is_positive]).mean()) / 2

    def extremes(self, cover):
        hit = cover.scores >= 0.5
        hits_positive, hits_negative = hit[cover.is_positive], ~hit[~cover.is_positive]
        return ((hits_positive.all() + hits_negative.all()) / 2,
                (hits_positive.any() + hits_negative.any()) / 2)  # fmt: skip


class FixedBalancedAccuracy(BalancedAccuracy):
    def extremes(self, cover):
        hit = cover.scores >= 0.5
        hits_positive, hits_negative = hit[cover.is_positive], ~hit[~cover.is_positive]
        return ((int(hits_positive.all()) + int(hits_negative.all())) / 2,
                (int(hits_positive.any()) + int(hits_negative.any())) / 2)  # fmt: skip


def checks_of(report):
    return {(violation.check, violation.mode) for violation in report.violations}


@pytest.mark.parametrize("name", list(BUILT_IN))
def test_every_built_in_measure_passes_with_exact_extremes(name):
    report = subroc_ext.check_measure(BUILT_IN[name](), tight=True)
    assert report.ok, repr(report)
    assert report.tight_lowest == report.tight_highest == 1.0
    assert report.datasets == 40 and report.covers > 4000 and report.pairs > 90_000


@pytest.mark.extended  # a measure the documentation shows
def test_the_readme_balanced_accuracy_bound_is_invalid_in_mode_better():
    report = subroc_ext.check_measure(BalancedAccuracy())
    assert not report.ok
    # invalid highest: "better" and "both" lose results; "worse" is only loose
    assert checks_of(report) == {("extremes", None)} | {
        ("optimistic_estimate", mode) for mode in ("better", "both")
    }
    estimates = [v for v in report.violations if v.check == "optimistic_estimate"]
    assert {v.weights for v in estimates if v.mode == "better"} == {
        tuple(map(float, pair)) for pair in WEIGHTS
    }
    [extremes] = [v for v in report.violations if v.check == "extremes"]
    assert extremes.detail.startswith("highest")
    # the counterexample, checked independently: one positive scored >= 0.5
    # and one negative below it (the smallest possible cover) ...
    assert len(extremes.labels) == 2 and sorted(extremes.labels) == [0, 1]
    labels, scores = np.array(extremes.labels, bool), np.array(extremes.scores)
    assert (scores[labels] >= 0.5).all() and (scores[~labels] < 0.5).all()
    subset = list(extremes.subset)
    reached = balanced_accuracy_score(labels[subset], scores[subset] >= 0.5)
    assert extremes.reached == reached == 1.0
    cover = measures.Cover.from_arrays(labels, scores)
    assert extremes.claimed == BalancedAccuracy().extremes(cover)[1] == 0.5
    assert "highest is below the value of a subset" in repr(report)
    assert "claimed 0.5, reached 1.0" in repr(report)
    # a readable repr: a summary line, two lines per violation, at most eight
    lines = repr(report).splitlines()
    assert len(report.violations) == 1 + 2 * len(WEIGHTS)
    assert len(lines) == 1 + 2 * 8 + 1
    assert lines[-1] == f"  ... and {len(report.violations) - 8} more in .violations"


@pytest.mark.extended  # a measure the documentation shows
def test_the_fixed_balanced_accuracy_passes_with_exact_extremes():
    report = subroc_ext.check_measure(FixedBalancedAccuracy(), tight=True)
    assert report.ok, repr(report)
    assert "ok" in repr(report).splitlines()[0]


def test_value_as_its_own_bound_is_caught_where_it_loses_results():
    """The classic mistake of notebook 02: the value on the cover as both extremes."""

    def tpr(y, s):
        return np.mean(s[y] >= 0.5)

    wrong = measures.KernelMeasure(tpr, kind="score", name="tpr", min_positives=1,
                                   lowest=tpr, highest=tpr)  # fmt: skip
    report = subroc_ext.check_measure(wrong, weights=[(0, 0)])
    assert checks_of(report) == {("extremes", None)} | {("optimistic_estimate", m) for m in MODES}
    for violation in report.violations:  # the smallest such cover: two positives
        assert sorted(violation.labels) == [1, 1]


class NaNBound(measures.ROCAUC):
    def extremes(self, cover):
        return np.nan, 1.0


class LowSizeAwareBound(measures.RowMeanMeasure):
    """The attribution mean with SPEC's unclipped size-aware bound halved."""

    def __init__(self):
        template = measures.attribution_mean()
        super().__init__(template.row_values, kind="score", name="low", needs_both_classes=True)

    def size_aware_bound(self, cover, reference, sign, size_weight):
        return super().size_aware_bound(cover, reference, sign, size_weight) - 0.01


class OffDrawnValues(measures.PRAUC):
    """Label draws of a PR AUC that forget the curve's first point."""

    def drawn_values(self, labels, scores):
        return super().drawn_values(labels, scores) * 0.99


class OffRankSums(measures.ROCAUC):
    """Label draws of a ROC AUC from the positives' rank sums that forget the ties' halves."""

    def rank_sum_values(self, rank_sums, positives, negatives):
        return super().rank_sum_values(np.floor(rank_sums), positives, negatives)


class SharedClassValues(measures.RowMeanMeasure):
    """A row mean whose class values swap the classes."""

    def __init__(self):
        super().__init__(lambda y, s: (s - y) ** 2, kind="loss", name="swapped",
                         class_values=lambda y, s: ((s - 0.0) ** 2, (s - 1.0) ** 2))  # fmt: skip


class OffBatchValues(measures.ROCAUC):
    def batch_values(self, dataset, positions):
        return measures.Measure.batch_values(self, dataset, positions) + 1e-6


class FixedNullValues(measures.ROCAUC):
    """Always the same subset: the lowest-scored rows of each class."""

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=0):
        rows = np.sort(np.concatenate([np.flatnonzero(dataset.is_positive)[:positives],
                                       np.flatnonzero(~dataset.is_positive)[:negatives]]))  # fmt: skip
        return np.array([measures.Measure.batch_values(self, dataset, rows[None])[0]] * n_samples)


class WrongCountNullValues(measures.ROCAUC):
    """Random subsets, but one negative too many."""

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=0):
        return super().null_values(dataset, positives, negatives + 1, n_samples, rng)


class InPlacePrepare(measures.RowMeanMeasure):
    """Prepares itself (subroc-ext 0.1 style) and returns itself."""

    def __init__(self):
        super().__init__(lambda y, s: (s - y) ** 2, kind="loss", name="brier")

    def prepare(self, cover):
        self.__dict__.update(vars(super().prepare(cover)))
        return self


class RowOrderARL(measures.AverageRankingLoss):
    """pysubgroup 0.9.0's kind of ARL bound: the lowest positive's penalty
    from the negatives after it in row order, so a negative tied with it but
    sorted before it is missed (SPEC: wrong in 111 of 877 random covers)."""

    def extremes(self, cover):
        lowest_positive = np.flatnonzero(cover.is_positive)[0]
        after = ~cover.is_positive[lowest_positive + 1 :]
        tied = cover.scores[lowest_positive + 1 :] == cover.scores[lowest_positive]
        return 0.0, float(after.sum() - 0.5 * (after & tied).sum())


class ReturnsNone(InPlacePrepare):
    """Prepares itself and returns None (deprecated since subroc-ext 0.2)."""

    def prepare(self, cover):
        super().prepare(cover)


class FailsOnTies(measures.ROCAUC):
    def value(self, cover):
        if len(np.unique(cover.scores)) < len(cover.scores):
            raise ZeroDivisionError("no ties please")
        return super().value(cover)


@pytest.mark.parametrize(
    "measure, check, detail",
    [
        (NaNBound(), "extremes", "lowest is NaN"),
        (RowOrderARL(), "extremes", "highest is below the value of a subset"),
        (LowSizeAwareBound(), "size_aware_bound", "sign="),
        (OffBatchValues(), "batch_values", "differs from value"),
        (OffDrawnValues(), "drawn_values", "differs from value"),
        (OffRankSums(), "rank_sum_values", "differs from value"),
        (SharedClassValues(), "class_values", "differs from its value"),
        (FixedNullValues(), "null_values", "mean of the draws"),
        (WrongCountNullValues(), "null_values", "a value that no subset"),
        (InPlacePrepare(), "prepare", "changed the measure itself"),
        (ReturnsNone(), "prepare", "returned None"),
        (FailsOnTies(), "error", "value raised ZeroDivisionError: no ties please"),
        (measures.KernelMeasure(lambda y, s: np.mean(s[y]), kind="score", name="no_minimum"),
         "value", "is not finite"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, measures.Measure) else None,
)  # fmt: skip
def test_each_check_catches_its_mistake_without_raising(measure, check, detail):
    with np.errstate(invalid="ignore"), pytest.warns() if check == "value" else _nothing():
        report = subroc_ext.check_measure(measure, n_datasets=12)
    assert not report.ok
    assert any(v.check == check and detail in v.detail for v in report.violations), repr(report)
    assert detail in repr(report)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.extended  # a seeded simulation
def test_a_mean_of_the_null_values_is_not_a_false_alarm():
    """The compiled and the batch null samplers of the built-ins pass on many
    seeds: the five-standard-error rule is not a coin flip."""
    for seed in range(5):
        report = subroc_ext.check_measure(measures.PRAUC(), random_state=seed, n_datasets=20,
                                          weights=[(0, 0)], null_samples=1000)  # fmt: skip
        assert report.ok, repr(report)


def test_a_prepared_measure_that_changes_later_is_caught():
    class SharedValues(measures.RowMeanMeasure):
        """Copies itself, but the copies share one per-row array."""

        shared = np.zeros(20)

        def __init__(self):
            super().__init__(lambda y, s: s, kind="score", name="shared")

        def prepare(self, cover):
            prepared = super().prepare(cover)
            SharedValues.shared[: len(cover.rows)] = prepared._values
            prepared._values = SharedValues.shared[: len(cover.rows)]
            return prepared

    report = subroc_ext.check_measure(SharedValues(), n_datasets=6, weights=[(0, 0)],
                                      null_samples=0)  # fmt: skip
    assert ("prepare", None) in checks_of(report)
    assert any("prepared earlier changed" in v.detail for v in report.violations)


@pytest.mark.parametrize(
    "arguments, error, match",
    [
        (dict(measure=len), TypeError, "measure must be a subroc_ext.Measure, got builtin"),
        (dict(max_rows=15), ValueError, "max_rows must be between 4 and 14, got 15"),
        (dict(n_datasets=0), ValueError, "n_datasets must be at least 1, got 0"),
        (dict(modes=["worst"]), ValueError, "mode"),
        (dict(weights=[(-1, 0)]), ValueError, "weight"),
        (dict(weights=[]), ValueError, "at least one"),
    ],
)
def test_settings_are_validated_with_one_message(arguments, error, match):
    arguments = {"measure": measures.ROCAUC(), **arguments}
    with pytest.raises(error, match=match):
        subroc_ext.check_measure(**arguments)


def test_the_report_is_reproducible_and_the_same_for_a_generator():
    # no null samples: the violations compared are the bounds' (on the random datasets)
    settings = {"n_datasets": 8, "null_samples": 0}
    first = subroc_ext.check_measure(BalancedAccuracy(), **settings)
    again = subroc_ext.check_measure(BalancedAccuracy(), **settings)
    generator = subroc_ext.check_measure(BalancedAccuracy(), **settings, random_state=np.random.default_rng(0))
    assert first.violations == again.violations == generator.violations
    assert first.violations and first.datasets == 8


# --------------------------------------------------------------------------
# every measure the documentation shows
# --------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def readme_blocks():
    """The Python code blocks of the guide's "Adding a measure" (once the README's) that
    mention a measure."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "guide" / "adding-a-measure.md").read_text(), re.S)
    return [block for block in blocks if "Measure" in block]


def notebook_blocks():
    """The code cells of notebook 02."""
    notebook = json.loads((ROOT / "notebooks" / "02_add_a_measure.ipynb").read_text())
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


def _defines_measure(statement, namespace):
    """Whether ``statement`` is ``name = SomeMeasure(...)`` (a Measure class)."""
    if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
        return False
    try:
        callee = eval(compile(ast.Expression(statement.value.func), "<docs>", "eval"), namespace)
    except NameError:
        return False
    return isinstance(callee, type) and issubclass(callee, measures.Measure)


def doc_measures(blocks):
    """The measures the code ``blocks`` define, by name: every ``name =
    Measure(...)`` and every Measure subclass that takes no argument (and has
    no such instance). Only imports, definitions and those assignments run,
    in order; what needs the example's data (searches, tables) is skipped."""
    namespace, classes = {}, []
    for block in blocks:
        for statement in ast.parse(block).body:
            definition = isinstance(
                statement, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
            )
            if definition or _defines_measure(statement, namespace):
                exec(compile(ast.Module([statement], []), "<docs>", "exec"), namespace)
            if isinstance(statement, ast.ClassDef):
                classes.append(statement.name)
    found = {name: value for name, value in namespace.items()
             if isinstance(value, measures.Measure)}  # fmt: skip
    instantiated = {type(value) for value in found.values()}
    for name in classes:
        cls = namespace[name]
        if issubclass(cls, measures.Measure) and cls not in instantiated:
            try:
                found[f"{name}()"] = cls()
            except TypeError:  # needs arguments: shown only through its instances
                pass
    return found


DOC_MEASURES = {
    **{f"README: {name}": measure for name, measure in doc_measures(readme_blocks()).items()},
    **{f"notebook 02: {name}": measure for name, measure in doc_measures(notebook_blocks()).items()},
}


def test_the_docs_show_the_measures_we_expect():
    assert {"README: brier", "README: accuracy", "README: BalancedAccuracy()"} <= set(DOC_MEASURES)
    assert {"notebook 02: brier", "notebook 02: tpr", "notebook 02: balanced_accuracy",
            "notebook 02: tpr_wrong", "notebook 02: BrokenBalancedAccuracy()"} <= set(DOC_MEASURES)  # fmt: skip


@pytest.mark.extended  # every measure the documentation shows
@pytest.mark.parametrize("name", sorted(DOC_MEASURES))
def test_every_measure_in_the_docs_passes_check_measure_in_every_mode(name):
    """All but those the docs show as mistakes ('wrong', 'broken'), which fail."""
    report = subroc_ext.check_measure(DOC_MEASURES[name], n_datasets=20)
    shown_as_mistake = "wrong" in name.lower() or "broken" in name.lower()
    assert report.ok != shown_as_mistake, repr(report)


def test_tightness_is_counted_per_side():
    """The row-order ARL bound keeps the exact lowest value (0) but not the
    highest; the README's balanced accuracy loses both, the highest more often
    (wrong whenever a positive and a negative are both hit, loose lowest only
    when all are)."""
    settings = {"weights": [(0, 0)], "null_samples": 0, "n_datasets": 20}
    arl = subroc_ext.check_measure(RowOrderARL(), **settings)
    assert arl.tight_lowest == 1.0 > arl.tight_highest > 0.5
    balanced = subroc_ext.check_measure(BalancedAccuracy(), **settings)
    assert 1.0 > balanced.tight_lowest > balanced.tight_highest > 0.0
    assert f"{balanced.tight_lowest:.0%} (lowest) and {balanced.tight_highest:.0%} (highest)" in repr(
        balanced
    )


class ThresholdSpecificity(measures.Measure):
    """Specificity at 0.3 (``score > 0.3`` predicts positive) whose ``extremes``
    forget that a negative scored exactly 0.3 is predicted negative: a one-row
    cover breaks it, but random scores are never exactly 0.3."""

    name, kind, min_negatives = "specificity_at_0.3", "score", 1

    def value(self, cover):
        return float(np.mean(cover.scores[~cover.is_positive] <= 0.3))

    def extremes(self, cover):
        negatives = cover.scores[~cover.is_positive]
        return (0.0 if (negatives >= 0.3).any() else 1.0), (1.0 if (negatives < 0.3).any() else 0.0)


class FixedThresholdSpecificity(ThresholdSpecificity):
    def extremes(self, cover):
        negatives = cover.scores[~cover.is_positive]
        return (0.0 if (negatives > 0.3).any() else 1.0), (1.0 if (negatives <= 0.3).any() else 0.0)


def test_a_wrong_bound_at_a_threshold_that_is_no_quarter_is_caught():
    """Scores at the measure's jumps (0.3 and the float after it) are in the datasets."""
    points = probe_points(ThresholdSpecificity())
    assert points.tolist() == [0.3, np.nextafter(0.3, 1)]
    # 12 datasets hold 3 with scores at the jumps; the null sampler is not what is checked here
    settings = {"n_datasets": 12, "null_samples": 0}
    report = subroc_ext.check_measure(ThresholdSpecificity(), **settings)
    extremes = [v for v in report.violations if v.check == "extremes"]
    assert len(extremes) == 1 and (extremes[0].labels, extremes[0].scores) == ((0,), (0.3,))
    assert (extremes[0].claimed, extremes[0].reached) == (0.0, 1.0)
    assert subroc_ext.check_measure(FixedThresholdSpecificity(), tight=True, **settings).ok


def test_probe_points_of_rank_measures_and_continuous_ones():
    assert probe_points(measures.ROCAUC()).tolist() == [np.nextafter(0.5, 0), 0.5, np.nextafter(0.5, 1)]  # rank ties
    assert probe_points(measures.squared_error()).tolist() == []  # moves with the score: no threshold
