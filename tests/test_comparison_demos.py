"""Tests of :mod:`subroc_ext.demo.comparison`: the two Adult models and the
documented shift of the drift demo, which ``find_drift`` finds."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import subroc_ext
from subroc_ext.demo import comparison as demos
from subroc_ext.workflow.comparison import split_periods


def auc(frame, rows=slice(None)):
    """ROC AUC of the demo's score in ``rows`` of ``frame`` (all by default)."""
    return roc_auc_score(frame[demos.LABEL][rows] == demos.POSITIVE, frame["score"][rows])


def shifted_rows(frame):
    column, value = demos.SHIFTED_ROWS
    return (frame[column] == value).to_numpy()


def test_two_models_score_the_same_rows_and_the_new_one_lacks_the_household_columns():
    search, validation = demos.adult_two_models(random_state=1)
    assert min(len(search), len(validation)) > 12_000
    y = validation[demos.LABEL] == demos.POSITIVE
    baseline, new = roc_auc_score(y, validation["baseline"]), roc_auc_score(y, validation["new"])
    assert 0.9 < baseline and new < baseline - 0.01  # the dropped columns mattered
    assert not np.allclose(validation["baseline"], validation["new"])


def test_drift_hides_the_capital_columns_of_the_married_in_the_current_period():
    reference, current = demos.adult_drift(random_state=1)
    married = shifted_rows(current)
    assert 0.4 < married.mean() < 0.5  # a large group
    for column in demos.SHIFTED:
        assert current.loc[married, column].isna().all()
        assert current.loc[~married, column].notna().all()
        assert reference[column].notna().all()
    drop_married = auc(reference, shifted_rows(reference)) - auc(current, married)
    drop_everyone = auc(reference) - auc(current)
    assert drop_married > 0.05 and drop_married - drop_everyone > 0.03


def found_drift(random_state, **keywords):
    """find_drift on the demo with the validation halves drawn as find_drift
    draws them (``validation=0.5``), to recompute Δ by hand."""
    reference, current = demos.adult_drift(random_state=random_state)
    (ref_search, ref_validation), (cur_search, cur_validation) = split_periods(reference, current, 0.5, random_state)
    table = subroc_ext.find_drift(
        ref_search, cur_search, label=demos.LABEL, score="score", positive_label=demos.POSITIVE,
        validation=(ref_validation, cur_validation), random_state=random_state, progress=False, **keywords,
    )
    return table, ref_validation, cur_validation


def check_married_first(table, ref_validation, cur_validation):
    column, value = demos.SHIFTED_ROWS
    first = table.iloc[0]
    assert first["description"] == f"{column}=='{value}'"
    assert first["significant"] and first["p_value_corrected"] < 0.05
    # Δ on the validation halves, recomputed with scikit-learn
    in_married = auc(ref_validation, shifted_rows(ref_validation)) - auc(cur_validation, shifted_rows(cur_validation))
    by_hand = in_married - (auc(ref_validation) - auc(cur_validation))
    assert first["delta_validation"] == pytest.approx(by_hand, abs=1e-9)
    assert by_hand > 0.02
    # no unrelated group ahead: the runner-up lies within the married rows (the
    # married men, or a part of the married with one more condition)
    runner_up = np.asarray(table.iloc[1]["subgroup"].covers(ref_validation), dtype=bool)
    assert runner_up.any() and shifted_rows(ref_validation)[runner_up].mean() > 0.99


def test_find_drift_ranks_the_married_first_and_significant():
    # the notebook's settings (depth 2, 20 subgroups tested)
    check_married_first(*found_drift(1, result_set_size=20))


@pytest.mark.slow
@pytest.mark.parametrize("random_state", [0, 1, 2, 3])
def test_find_drift_with_its_defaults_ranks_the_married_first_and_significant(random_state):
    check_married_first(*found_drift(random_state))
