"""Tests of :mod:`subroc_ext.scoring.shortfall` and ``case_mix=True`` for every
measure: a row mean beyond its promise, searched as a row mean."""

import numpy as np
import pytest
from synthetic import risk_frame

import subroc_ext
from subroc_ext.inference.promise import Promise
from subroc_ext.scoring.calibration import brier_score, log_loss
from subroc_ext.scoring.measures import ROCAUC, attribution_mean
from subroc_ext.scoring.shortfall import shortfall_measure


@pytest.mark.parametrize("make", [brier_score, log_loss, attribution_mean], ids=lambda m: m.__name__)
def test_a_row_mean_beyond_its_promise_promises_nothing_and_falls_short_as_the_measure_does(make):
    rng = np.random.default_rng(2)
    scores = rng.uniform(0.05, 0.95, 200)
    probabilities = np.clip(scores * 0.8 + 0.1, 0, 1)
    y = rng.random(200) < probabilities
    mask = scores > 0.6
    measure, beyond = make(), shortfall_measure(make(), lambda s: np.clip(s * 0.8 + 0.1, 0, 1))
    plain, shifted = Promise(measure, y, scores, probabilities), Promise(beyond, y, scores, probabilities)
    assert shifted.promised(mask) == pytest.approx(0.0, abs=1e-12)
    assert shifted.observed(mask) == pytest.approx(plain.observed(mask) - plain.sign * plain.promised(mask))
    assert beyond.name == f"{measure.name}_beyond_promise" and beyond.kind == measure.kind
    assert measure.name == make().name  # the original is not changed


def test_a_shortfall_of_no_row_mean_is_refused():
    with pytest.raises(TypeError, match="'roc_auc' from its promise is no row mean"):
        shortfall_measure(ROCAUC(), lambda s: s)


def test_case_mix_searches_a_row_mean_by_its_shortfall_and_names_the_plant():
    data = risk_frame(0, n=3000, planted=True)  # scores shuffled where g == 'c' AND h == 'x'
    table = subroc_ext.find_subgroups(data, label="y", score="p", measure="attribution_mean", case_mix=True,
                                      progress=False)  # fmt: skip
    assert table.attrs["measure"] == "attribution_mean_beyond_promise"
    assert "expected_attribution_mean_beyond_promise_validation" in table
    failures = table.loc[table["failure"], "description"].tolist()
    assert failures and all("g=='c'" in f and "h=='x'" in f for f in failures), failures
    assert "\nWhere the attribution mean beyond its promise is worse than on the whole data" in \
        subroc_ext.headline(table).text()  # after the whole data's calibration


@pytest.mark.parametrize("measure, why", [("arl", "measure='roc_auc' with case_mix=True")])
def test_case_mix_of_a_measure_without_a_searchable_promise_says_why_not(measure, why):
    data = risk_frame(0, n=400)
    with pytest.raises(ValueError, match=why):
        subroc_ext.find_subgroups(data, label="y", score="p", measure=measure, case_mix=True)
