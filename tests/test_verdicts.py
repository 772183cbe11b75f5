"""One verdict per row: the interval beside the decision matches it.

* The false coverage-rate level of a selection, the fixed point of "the test
  rejects and the interval lies beyond min_delta", and a note on every row
  where the test and the interval disagree.
* Seeded simulation with a known truth (ROC AUC of normal scores, exact per
  cell): the false discovery rate and the false coverage-statement rate of
  the significant rows are at most alpha (500 validation splits with ``-m
  slow``; 10 by default), where the unadjusted 95 % intervals of the same
  rows miss more often.
* Real tables (the bundled Adult, German credit, Titanic): no row where
  significance and the interval disagree without saying so.
"""

import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from scipy import stats

import subroc_ext
from subroc_ext.inference.effects import EffectEstimates, NormalSpread, effect_estimates
from subroc_ext.inference.verdicts import interval_level, verdicts
from subroc_ext.reporting.reading import p_value_text
from subroc_ext.workflow import steps

sys.path.insert(0, str(Path(__file__).parent))
from test_corpus import TABLES, labelled  # noqa: E402

TARGET = subroc_ext.SoftClassifierTarget("label", "score")


def test_interval_levels_of_each_kind_of_correction():
    harmonic = sum(1 / k for k in range(1, 41))
    assert interval_level("fdr_by", 0.05, 40, 4) == pytest.approx(1 - 4 * 0.05 / (40 * harmonic))
    assert interval_level("fdr_by", 0.05, 40, 0) == interval_level("fdr_by", 0.05, 40, 1)  # R = 0: as for 1
    assert interval_level("fdrcorr", 0.05, 40, 4) == interval_level("fdr_by", 0.05, 40, 4)  # an alias
    assert interval_level("fdr_bh", 0.1, 40, 4) == pytest.approx(1 - 4 * 0.1 / 40)
    for method in ("bonferroni", "holm", "hommel", "sidak"):
        assert interval_level(method, 0.05, 40, 7) == pytest.approx(1 - 0.05 / 40)


def _estimates(delta, error):
    """Effects ``delta`` (oriented, all positive-sign) with normal intervals."""
    delta, error = np.asarray(delta, dtype=float), np.asarray(error, dtype=float)
    return EffectEstimates(delta, np.ones(len(delta)), NormalSpread(delta, error, lambda c: 2.0), "jackknife")


def _tested(rejected, p_values=None, testable=None):
    rejected = np.asarray(rejected, dtype=bool)
    return pd.DataFrame({
        "p_value_corrected": np.where(rejected, 0.01, 0.5) if p_values is None else p_values,
        "significant": rejected,
        "testable": np.ones(len(rejected), bool) if testable is None else testable,
    })  # fmt: skip


def test_significant_rows_are_rejected_with_an_interval_beyond_min_delta_at_the_fixed_point():
    # row 3 is rejected but reaches 0 at the level of 3 selections: dropping it widens the others
    delta = [0.30, 0.20, 0.11, 0.04, 0.25, 0.02]
    error = [0.05, 0.05, 0.025, 0.02, 0.05, 0.01]
    rejected = [True, True, True, True, False, False]
    table = verdicts(_tested(rejected), _estimates(delta, error), method="fdr_by", alpha=0.05)
    level = table.attrs["interval_level"]
    significant = table["significant"].to_numpy()
    assert level == pytest.approx(interval_level("fdr_by", 0.05, 6, significant.sum()))
    z = stats.norm.ppf((1 + level) / 2)
    np.testing.assert_allclose(table["delta_ci_low"], np.array(delta) - z * np.array(error))
    assert significant.tolist() == [True, True, True, False, False, False]
    assert (table["delta_ci_low"][significant] > 0).all()
    assert table["verdict"].tolist()[:4] == ["significant"] * 3 + ["not significant"]
    notes = table["verdict_note"].tolist()
    assert notes[:3] == ["", "", ""]
    assert "the test rejects" in notes[3] and "not credibly beyond it" in notes[3]
    assert "excludes 0 but the test does not reject" in notes[4]  # row 4: the interval alone
    assert notes[5] == ""
    # min_delta: only row 0's interval lies beyond 0.1 (at the level of one selection)
    raised = verdicts(_tested(rejected), _estimates(delta, error), method="fdr_by", alpha=0.05, min_delta=0.1)
    assert raised["significant"].tolist() == [True, False, False, False, False, False]
    assert raised.attrs["interval_level"] == interval_level("fdr_by", 0.05, 6, 1)
    assert "min_delta = 0.1" in raised["verdict_note"][1]


def test_simultaneous_intervals_leave_the_decision_to_the_test_and_note_disagreements():
    delta, error = [0.30, 0.04, 0.20], [0.05, 0.05, 0.05]
    table = verdicts(_tested([True, True, False]), _estimates(delta, error), method="fdr_by", alpha=0.05,
                     intervals="simultaneous")  # fmt: skip
    assert table.attrs["interval_level"] == 0.95
    assert table["delta_ci_low"].tolist() == pytest.approx([0.2, -0.06, 0.1])  # the stub's critical value 2
    assert table["significant"].tolist() == [True, True, False]
    assert "significant by the test" in table["verdict_note"][1]
    assert "does not reject" in table["verdict_note"][2]


def test_rows_without_an_interval_or_untestable_say_so():
    delta, error = [0.3, 0.2, np.nan, -0.3], [np.nan, np.nan, np.nan, 0.05]
    tested = _tested([True, True, False, False], testable=np.array([True, True, False, True]))
    table = verdicts(tested, _estimates(delta, error), method="fdr_bh", alpha=0.05)
    assert table["significant"].tolist() == [True, True, False, False]
    assert "the test alone decides" in table["verdict_note"][0]
    assert table["verdict"][2] == "untestable" and "undefined" in table["verdict_note"][2]
    assert "points the other way" in table["verdict_note"][3]
    assert verdicts(tested, _estimates(delta, error), method="fdr_bh", alpha=0.05,
                    min_delta=0.05)["significant"].tolist() == [False] * 4  # fmt: skip
    with pytest.raises(ValueError, match="intervals must be one of"):
        verdicts(tested, _estimates(delta, error), method="fdr_bh", alpha=0.05, intervals="max-t")
    with pytest.raises(ValueError, match="min_delta must be a finite number >= 0"):
        verdicts(tested, _estimates(delta, error), method="fdr_bh", alpha=0.05, min_delta=-0.1)


def test_p_values_that_stopped_early_read_as_bounds():
    assert p_value_text(0.0096618, False) == "≤ 0.0097 (stopped)"
    assert p_value_text(0.4, True) == "0.40" and p_value_text(3.2e-6, False).startswith("≤ 0.0000032")
    assert p_value_text(np.nan, False) == "–"
    assert p_value_text(0.02, pd.NA) == "0.020"  # untested: no bound known


# -- the error rates, by simulation -------------------------------------------

LEVELS = {"a": "pqr", "b": "pq", "c": "pqrs"}
CELLS = pd.DataFrame(list(itertools.product(*map(list, LEVELS.values()))), columns=list(LEVELS))
#: How much worse the scores separate the classes in each of the 24 cells (fixed once).
SHIFT = pd.Series(np.random.default_rng(12345).normal(0, 0.6, len(CELLS)), index=pd.MultiIndex.from_frame(CELLS))


def _separation(frame):
    return 1.0 - SHIFT.reindex(pd.MultiIndex.from_frame(frame[list(LEVELS)])).to_numpy()


def cell_frame(seed, n):
    """Three independent uniform attributes; in each cell the positives'
    scores are normal with the cell's mean, the negatives' standard normal."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({name: rng.choice(list(values), n) for name, values in LEVELS.items()})
    frame["label"] = (rng.random(n) < 0.3).astype(int)
    return frame.assign(score=_separation(frame) * frame["label"] + rng.normal(size=n))


def cell_patterns():
    """Every pattern of one or two conditions (35), fixed before the data."""
    selectors = {name: [ps.EqualitySelector(name, v) for v in values] for name, values in LEVELS.items()}
    patterns = [ps.Conjunction([s]) for group in selectors.values() for s in group]
    for first, second in itertools.combinations(selectors.values(), 2):
        patterns += [ps.Conjunction([s, t]) for s in first for t in second]
    return patterns


def true_effects(patterns):
    """The exact ROC AUC effects: a positive of cell g outscores a negative
    with probability ``Phi(mean_g / sqrt(2))``, and the cells are equally likely."""
    auc = stats.norm.cdf(_separation(CELLS) / np.sqrt(2))
    return np.array([auc.mean() - auc[np.asarray(p.covers(CELLS), bool)].mean() for p in patterns])


def _error_rates(n_splits, n=3000):
    """Mean false discovery and false coverage proportions of the significant
    rows, and the latter for unadjusted 95 % intervals of the same rows."""
    patterns = cell_patterns()
    truth = true_effects(patterns)
    qf = subroc_ext.make_quality_function("roc_auc", "label")
    rates = []
    for seed in range(n_splits):
        data = cell_frame(seed, n)
        table = steps.test(patterns, data, qf, TARGET, random_state=seed)
        significant = table["significant"].to_numpy(bool)
        missed = ~((table["delta_ci_low"] <= truth) & (truth <= table["delta_ci_high"])).to_numpy()
        naive = effect_estimates(patterns, data, qf, TARGET, random_state=seed).marginal(0.95)
        naive_missed = ~((naive["delta_ci_low"] <= truth) & (truth <= naive["delta_ci_high"])).to_numpy()
        found = max(significant.sum(), 1)
        rates.append([(significant & (truth <= 0)).sum() / found, (significant & missed).sum() / found,
                      (significant & naive_missed).sum() / found, significant.sum()])  # fmt: skip
    return np.array(rates)


@pytest.mark.extended  # a seeded simulation
def test_false_discovery_and_coverage_rates_are_at_most_alpha():
    rates = _error_rates(10)
    fdr, fcr, naive, selected = rates.mean(axis=0)
    assert selected >= 2  # the test finds something
    assert fdr <= 0.05 and fcr <= 0.05


@pytest.mark.slow
def test_false_discovery_and_coverage_rates_of_500_splits():
    rates = _error_rates(500)
    means, errors = rates.mean(axis=0), rates.std(axis=0, ddof=1) / np.sqrt(len(rates))
    print(f"FDR {means[0]:.4f} ± {errors[0]:.4f}, FCR {means[1]:.4f} ± {errors[1]:.4f}, "
          f"unadjusted 95 % intervals {means[2]:.4f} ± {errors[2]:.4f}, mean selected {means[3]:.2f}")  # fmt: skip
    assert means[0] <= 0.05 + 2 * errors[0] and means[1] <= 0.05 + 2 * errors[1]
    assert means[2] > means[1]  # the adjustment is what keeps the selected rows covered


# -- real tables ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["adult", "credit_g", "titanic"])
def test_no_row_where_significance_and_the_interval_disagree_without_saying_so(name):
    frame = labelled(TABLES[name]())
    if len(frame) > 3000:  # Adult: 16 significant rows, 13 with a note
        frame = frame.sample(3000, random_state=0)
    table = subroc_ext.find_subgroups(frame, label="label", score="score", progress=False)
    low, high = table["delta_ci_low"].to_numpy(), table["delta_ci_high"].to_numpy()
    significant = table["significant"].astype(bool).to_numpy()
    excludes = (low > 0) | (high < 0)
    said = table["verdict_note"].str.len().to_numpy() > 0
    assert not (significant & ~(low > 0) & ~said).any()  # significant: interval beyond 0, or a note
    assert not (~significant & excludes & ~said).any()  # not significant: includes 0, or a note
    assert (table["verdict"] == np.where(significant, "significant", "not significant")).all() or (
        ~table["testable"]
    ).any()


def test_command_line_names_the_rows_whose_test_and_interval_disagree():
    """Under the printed table, one line per such row with its rank; nothing when no row has
    a note, or every row has the same (no holdout: no interval at all)."""
    from subroc_ext.cli import output

    note = "the test rejects (corrected p 0.04) but the 99.96% FCR interval reaches 0: not credibly beyond it"
    table = pd.DataFrame({"description": ["a", "b", "c"], "verdict_note": ["", note, None]})
    ranks = np.arange(1, 4)
    assert output._verdict_notes(table, ranks) == f"\nWhere the test and the interval disagree:\n  #2: {note}"
    assert output._verdict_notes(table.assign(verdict_note=""), ranks) == ""
    assert output._verdict_notes(table.assign(verdict_note="no interval: chosen and tested"), ranks) == ""
    assert output._verdict_notes(table.iloc[[0, 2]], [1, 3]) == ""  # the noted row is not among the printed ones
    # a row printed after the top rows (a failure ranked below them) is named by its own rank
    assert output._verdict_notes(table.iloc[[0, 1]], [1, 65]).endswith(f"#65: {note}")
