"""Quality exactly 0 stays 0: no finding made of floating-point rounding.

Two measure values that are equal in exact arithmetic can differ in their
last bits when their sums run in different orders: a subgroup that is an
exact copy of the whole data (the data is two copies of one half) had the
quality 4e-13 for the attribution mean, a refinement that adds nothing to its
generalization 3e-15, a comparison whose Δ is 0 on paper 6e-15 for ARL; each
was reported as a finding. :func:`subroc_ext.scoring.bounds.beyond_rounding`
makes every difference within ``ROUNDING`` of the reference's magnitude zero,
in the quality, the comparisons' Δ, the generalization-aware gain and the
bounds alike (tests/test_estimates.py and test_joint_bounds.py check that
the bounds still hold).
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import subroc_ext
from subroc_ext.scoring.bounds import ROUNDING, beyond_rounding

SETTINGS = {"n_samples": 20, "random_state": 0, "progress": False, "max_overlap": None}


@pytest.fixture(scope="module")
def copies():
    """Two copies of one half (``g`` says which): each copy has exactly the whole data's measures."""
    rng = np.random.default_rng(0)
    n = 300
    half = pd.DataFrame({"y": (rng.random(n) < 0.4).astype(int), "p": np.round(rng.random(n), 1),
                         "old": np.round(rng.random(n), 1), "h": rng.choice(["u", "v", "w"], n)})  # fmt: skip
    return pd.concat([half.assign(g="a"), half.assign(g="b")], ignore_index=True)


def rounding_rows(table):
    return table.loc[table["quality"] < 1e-9, ["description", "quality"]].to_numpy().tolist()


@pytest.mark.parametrize("mode", ["better", "both"])
def test_a_copy_of_the_whole_data_is_no_finding(copies, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", subroc_ext.LowPowerWarning)
        table = subroc_ext.find_subgroups(copies, label="y", score="p", measure="attribution_mean", mode=mode,
                                          validation=copies.copy(), depth=1, min_support=5, result_set_size=50,
                                          generalization_aware=False, **SETTINGS)  # fmt: skip
    assert "g=='a'" not in set(table["description"]) and rounding_rows(table) == []


def test_a_refinement_that_adds_nothing_is_no_finding(copies):
    """``g=='a' AND h=='u'`` has exactly the measure of ``h=='u'``: no gain."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", subroc_ext.LowPowerWarning)
        table = subroc_ext.find_subgroups(copies, label="y", score="p", measure="attribution_mean", mode="both",
                                          validation=copies.copy(), depth=2, min_support=5, result_set_size=100,
                                          **SETTINGS)  # fmt: skip
    assert len(table) > 10 and rounding_rows(table) == []


def test_a_comparison_without_change_is_no_finding(copies):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", subroc_ext.LowPowerWarning)
        compared = subroc_ext.find_regressions(copies, label="y", score="p", baseline="old",
                                               measure="attribution_mean", mode="both", validation=copies.copy(),
                                               depth=2, min_support=5, result_set_size=100, **SETTINGS)  # fmt: skip
        assert "g=='a'" not in set(compared["description"]) and rounding_rows(compared) == []
        rng = np.random.default_rng(0)  # small and tied: ARLs in thirds and quarters
        data = pd.DataFrame({"a": rng.choice(list("pqrs"), 60), "b": rng.choice(list("xyz"), 60),
                             "y": (rng.random(60) < 0.3).astype(int)})  # fmt: skip
        data["old"], data["new"] = rng.integers(0, 5, 60) / 4, rng.integers(0, 5, 60) / 4
        arl = subroc_ext.find_regressions(data, label="y", score="new", baseline="old", measure="arl", mode="both",
                                          validation=data.copy(), depth=2, min_support=3, result_set_size=500,
                                          generalization_aware=False, **{**SETTINGS, "n_samples": 5})  # fmt: skip
    assert len(arl) > 5 and rounding_rows(arl) == []  # b=='y' had the quality 6.3e-15


def test_the_cut_is_monotone_and_leaves_real_differences():
    rng = np.random.default_rng(1)
    scale = 0.8
    differences = np.sort(np.concatenate([rng.normal(0, 1e-9, 500), rng.normal(0, 1, 500), [0.0, np.inf, -np.inf]]))
    cut = np.array([beyond_rounding(d, scale) for d in differences])
    assert np.all(np.diff(cut) >= 0)  # a bound above a quality stays above it
    kept = np.abs(differences) > ROUNDING * scale
    np.testing.assert_array_equal(cut[kept], differences[kept])
    assert np.all(cut[~kept] == 0) and np.isnan(beyond_rounding(np.nan, scale))
