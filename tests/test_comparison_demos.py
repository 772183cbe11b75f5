"""Tests of :mod:`subroc_ext.demo.comparison`: the two Adult models and the
documented shift of the drift demo."""

import numpy as np
from sklearn.metrics import roc_auc_score

from subroc_ext.demo import comparison as demos


def test_two_models_score_the_same_rows_and_the_new_one_lacks_the_household_columns():
    search, validation = demos.adult_two_models(random_state=1)
    assert min(len(search), len(validation)) > 12_000
    y = validation[demos.LABEL] == demos.POSITIVE
    baseline, new = roc_auc_score(y, validation["baseline"]), roc_auc_score(y, validation["new"])
    assert 0.9 < baseline and new < baseline - 0.01  # the dropped columns mattered
    assert not np.allclose(validation["baseline"], validation["new"])


def test_drift_hides_the_capital_columns_of_the_self_employed_in_the_current_period():
    reference, current = demos.adult_drift(random_state=1)
    self_employed = current["workclass"].str.startswith("Self-emp").fillna(False)
    for column in demos.SHIFTED:
        assert current.loc[self_employed, column].isna().all()
        assert current.loc[~self_employed, column].notna().all()
        assert reference[column].notna().all()
    def auc(frame, rows):
        return roc_auc_score(frame[demos.LABEL][rows] == demos.POSITIVE, frame["score"][rows])
    ref_self = reference["workclass"].str.startswith("Self-emp").fillna(False)
    assert auc(current, self_employed) < auc(reference, ref_self) - 0.02
