"""Tests of :mod:`subroc_ext.inference.sequential` and the adaptive randomization test.

* The Besag-Clifford p-values equal a draw-by-draw oracle; the bounds of an
  unfinished pattern hold its final p-value.
* The p-values are super-uniform under the null (binomial bounds, many
  settings of ``h`` and the cap; every measure in the randomization test).
* A lone real finding among 100 null patterns is significant with the
  defaults, at a fraction of the fixed test's cost; the decisions agree with
  a very large fixed sample; the power check warns when nothing can pass.
"""

import gc
import itertools
import warnings

import numpy as np
import pysubgroup as ps
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from test_significance import QUALITY_FUNCTIONS, TARGET, attribute_patterns, null_data

import subroc_ext
from subroc_ext.inference.sequential import SequentialPValues
from subroc_ext.inference.sequential import rejected, round_sizes
from subroc_ext.inference.significance import (
    FIRST_ROUND,
    _adaptive_p_values,
    randomization_test,
    smallest_corrected_p_value,
)


def besag_clifford(exceeds, h, n):
    """The Besag-Clifford p-value of one stream, one draw at a time."""
    count = 0
    for drawn, exceeded in enumerate(exceeds[:n], start=1):
        count += bool(exceeded)
        if count == h:
            return h / drawn
    return (count + 1) / (n + 1)


@pytest.mark.parametrize("h, n", [(1, 50), (3, 40), (10, 1000), (5, 5)])
def test_p_values_and_bounds_match_a_draw_by_draw_oracle(h, n):
    rng = np.random.default_rng(h * n)
    for _ in range(200):
        share = rng.choice([0.0, 0.01, 0.1, 0.5, 1.0])
        stream = rng.random(n + 30) < share
        final = besag_clifford(stream, h, n)
        state = SequentialPValues(1, exceedances=h, max_samples=n)
        cuts = np.sort(rng.integers(0, n + 30, 3))
        for part in np.split(stream, cuts):
            low, high = state.lower()[0], state.p_values()[0]
            assert low <= final <= high  # the bounds hold the final value
            state.add(0, part)
        assert state.finished[0]
        assert state.p_values()[0] == pytest.approx(final, rel=1e-12)
        assert state.drawn[0] == min(n, np.searchsorted(np.cumsum(stream), h) + 1)


@pytest.mark.parametrize("h, n", [(1, 100), (5, 200), (10, 10_000), (20, 500)])
def test_p_values_are_super_uniform_under_the_null(h, n):
    """The statistic is one more draw from the null: P(p <= u) <= u."""
    rng = np.random.default_rng(h + n)
    trials = 4000
    state = SequentialPValues(trials, exceedances=h, max_samples=n)
    statistic = rng.random(trials)
    while not state.finished.all():
        for trial in np.flatnonzero(~state.finished):
            state.add(trial, rng.random(64) >= statistic[trial])
    p_values = state.p_values()
    for u in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.8):
        bound = stats.binom.ppf(0.9999, trials, u)  # over 28 checks: a false alarm < 0.3 %
        assert np.count_nonzero(p_values <= u) <= bound, u


def test_decided_patterns_keep_the_decision_of_the_full_procedure():
    """Stopping decided patterns early gives the decisions of running all to the end."""
    rng = np.random.default_rng(5)
    shares = np.concatenate([np.zeros(3), np.full(3, 2e-4), rng.uniform(0, 1, 24)])
    streams = rng.random((len(shares), 20_000)) < shares[:, None]
    full = np.array([besag_clifford(stream, 10, 20_000) for stream in streams])
    state = SequentialPValues(len(shares), exceedances=10, max_samples=20_000)
    stopped = np.zeros(len(shares), dtype=bool)
    start = 0
    for size in (128, 128, 256, 512, 1024, 2048, 4096, 8192, 3616):
        for pattern in np.flatnonzero(~stopped):
            state.add(pattern, streams[pattern, start : start + size])
        start += size
        stopped |= state.decided("fdr_by", 0.05)
    assert stopped.all() and not state.finished.all()  # some stopped before the end
    assert (state.p_values() >= full - 1e-15).all()  # reported p-values are conservative
    np.testing.assert_array_equal(
        multipletests(state.p_values(), 0.05, "fdr_by")[0], multipletests(full, 0.05, "fdr_by")[0]
    )


# --------------------------------------------------------------------------
# the adaptive randomization test
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(QUALITY_FUNCTIONS))
def test_adaptive_p_values_are_super_uniform_under_the_null(name):
    p_values = []
    for seed in range(3):
        data = null_data(np.random.default_rng(100 * seed + len(name)), n_rows=2000)
        table = randomization_test(attribute_patterns(data), data, QUALITY_FUNCTIONS[name](),
                                   target=TARGET, random_state=seed)  # fmt: skip
        assert not table["significant"].any()
        assert table["null_samples"].median() < 100  # null patterns stop early
        p_values.extend(table["p_value"])
    p_values = np.array(p_values)
    for u in (0.02, 0.05, 0.1, 0.25, 0.5):
        assert np.count_nonzero(p_values <= u) <= stats.binom.ppf(0.999, len(p_values), u), u


def planted_lone_finding(rng, n_rows=6000, n_null=99):
    """A subgroup of 4 % of the rows where the scores are pure noise, among null attributes."""
    data = null_data(rng, n_rows, n_null)
    planted = np.zeros(n_rows, dtype=bool)
    planted[rng.choice(n_rows, n_rows // 25, replace=False)] = True
    data["planted"] = planted
    data.loc[planted, "score"] = rng.random(planted.sum())
    return data, [ps.Conjunction([ps.EqualitySelector("planted", True)]), *attribute_patterns(data)]


@pytest.mark.parametrize("name", list(QUALITY_FUNCTIONS))
def test_a_lone_finding_among_100_is_significant_with_the_defaults(name):
    data, patterns = planted_lone_finding(np.random.default_rng(7))
    table = randomization_test(patterns, data, QUALITY_FUNCTIONS[name](), target=TARGET,
                               random_state=0)  # fmt: skip
    assert table.loc[0, "significant"] and table.loc[0, "p_value_corrected"] <= 0.05
    assert not table.loc[1:, "significant"].any()
    # the fixed test's smallest p-value could not pass
    fixed = randomization_test(patterns[:1], data, QUALITY_FUNCTIONS[name](), target=TARGET,
                               n_samples=10_000, random_state=0)  # fmt: skip
    assert multipletests([fixed.loc[0, "p_value"], *[1] * 99], method="fdr_by")[1][0] > 0.05
    # and cheaper than 10,000 per distinct (size, negatives)
    keys = table[["size", "negatives"]].drop_duplicates()
    assert table.attrs["null_samples_drawn"] < 0.25 * 10_000 * len(keys)
    assert table.loc[0, "null_samples"] == table["null_samples"].max() >= 10_000


def graded_effects(rng, n_rows, n_null):
    """Null attributes and four planted ones with graded effects (strong,
    moderate and none); the data and one pattern per attribute."""
    data = null_data(rng, n_rows, n_attributes=n_null)
    for i, share in enumerate((1.0, 0.6, 0.35, 0.2)):
        rows = rng.random(n_rows) < 0.08
        data[f"e{i}"] = rows
        noisy = rows & (rng.random(n_rows) < share)
        data.loc[noisy, "score"] = rng.random(noisy.sum())
    return data, [ps.Conjunction([ps.EqualitySelector(c, True)]) for c in data.columns[2:]]


@pytest.mark.extended  # a seeded simulation
@pytest.mark.parametrize(
    "n_rows, n_null, fixed_samples",
    [(1000, 6, 50_000), pytest.param(3000, 40, 500_000, marks=pytest.mark.slow)],
)
def test_adaptive_decisions_agree_with_a_very_large_fixed_sample(n_rows, n_null, fixed_samples):
    data, patterns = graded_effects(np.random.default_rng(11), n_rows, n_null)
    qf = subroc_ext.ROCAUCQF("label")
    adaptive = randomization_test(patterns, data, qf, target=TARGET, random_state=1)
    fixed = randomization_test(patterns, data, qf, target=TARGET, n_samples=fixed_samples,
                               random_state=2)  # fmt: skip
    assert adaptive["significant"].sum() >= 2
    np.testing.assert_array_equal(adaptive["significant"], fixed["significant"])
    assert adaptive.attrs["null_samples_drawn"] < fixed.attrs["null_samples_drawn"] / 5


def test_adaptive_p_values_do_not_depend_on_the_order():
    data, patterns = planted_lone_finding(np.random.default_rng(3), n_rows=3000, n_null=20)
    qf = subroc_ext.ARLQF("label", 1)
    table = randomization_test(patterns, data, qf, target=TARGET, random_state=5)
    order = np.random.default_rng(0).permutation(len(patterns))
    shuffled = randomization_test([patterns[i] for i in order], data, qf, target=TARGET,
                                  random_state=5)  # fmt: skip
    np.testing.assert_array_equal(shuffled["p_value"], table["p_value"].to_numpy()[order])
    np.testing.assert_array_equal(shuffled["null_samples"], table["null_samples"].to_numpy()[order])


# --------------------------------------------------------------------------
# the rounds of the adaptive test (significance._adaptive_p_values)
# --------------------------------------------------------------------------


def streamed_draws(null_values, cap):
    """A ``draw`` for ``_adaptive_p_values`` serving each key's fixed stream
    of null values (round ``b`` of a key is block ``b`` of ``round_sizes``),
    and the count of values it served."""
    starts = np.concatenate(([0], np.cumsum(round_sizes(cap, FIRST_ROUND))))
    served = [0]

    def draw(requests, batch):
        served[0] += sum(n for n, _ in requests.values())
        return {
            key: null_values[key][None, starts[batch] : starts[batch] + n] >= np.asarray(cuts)[:, None]
            for key, (n, cuts) in requests.items()
        }

    return draw, served


@pytest.mark.parametrize("method", ["holm", "fdr_by", "bonferroni"])
def test_stopping_keeps_the_decisions_of_the_unstopped_test(method):
    """The adaptive rounds on fixed streams: the decisions of every pattern
    run to ``h`` exceedances or the cap, at a fraction of the draws; Holm
    does not draw every finding to the lone finding's threshold ``alpha / m``."""
    rng = np.random.default_rng(46)
    cap, h = 20_000, 10
    # 30 keys; keys 0-4 hold two patterns each
    keys = [(k, 0) for k in range(30)] + [(k, 0) for k in range(5)]
    shares = np.concatenate([np.zeros(24), [2e-4, 5e-4, 1e-3], rng.uniform(0, 1, 8)])
    shares[[30, 31]] = 0.0  # a second finding on the keys of two others
    null_values = {key: rng.random(cap) for key in set(keys)}
    thresholds = 1 - shares
    full = np.array([besag_clifford(null_values[k] >= t, h, cap) for k, t in zip(keys, thresholds)])
    draw, served = streamed_draws(null_values, cap)
    p_values, drawn, finished = _adaptive_p_values(draw, keys, thresholds, cap, h, method, 0.05, untestable=3)
    expected = multipletests([*full, 1, 1, 1], 0.05, method)[0]
    np.testing.assert_array_equal(multipletests([*p_values, 1, 1, 1], 0.05, method)[0], expected)
    assert expected.sum() >= 12 and not finished.all()
    assert (p_values >= full - 1e-15).all()  # reported p-values are conservative
    # every key in lockstep: 221,568 for Holm and Bonferroni, 55,680 for BY
    # every key in lockstep: 221,696 for Holm and Bonferroni, 55,808 for BY
    assert served[0] <= {"holm": 180_000, "fdr_by": 55_808, "bonferroni": 221_696}[method]


@pytest.mark.parametrize("ties", [False, True])
def test_rejected_is_statsmodels_decision(ties):
    rng = np.random.default_rng(int(ties))
    p_values = rng.uniform(0, 0.01, (100, 40)) ** rng.uniform(0.5, 2, (100, 1))
    if ties:
        p_values = np.round(p_values, 3)
    gc.freeze()  # statsmodels' Holm collects garbage at every call: seconds in this process
    try:
        for method in ("holm", "h", "holm-sidak", "fdr_by", "bonferroni"):
            expected = [multipletests(row, 0.05, method)[0] for row in p_values]
            np.testing.assert_array_equal(rejected(p_values, 0.05, method), expected)
    finally:
        gc.unfreeze()
    assert 10 < rejected(p_values, 0.05, "holm").any(axis=1).sum() < 90  # some rows reject, some not


# --------------------------------------------------------------------------
# the power check
# --------------------------------------------------------------------------


@pytest.mark.parametrize("m", [1, 7, 100, 2500])
def test_smallest_corrected_p_value_is_the_known_formula(m):
    harmonic = sum(1 / i for i in range(1, m + 1))
    assert smallest_corrected_p_value(m, 9999, "fdr_by") == pytest.approx(min(1, m * harmonic / 1e4))
    assert smallest_corrected_p_value(m, 9999, "bonferroni") == pytest.approx(min(1, m / 1e4))
    assert smallest_corrected_p_value(m, 9999, "fdr_bh") == pytest.approx(min(1, m / 1e4))


def test_the_power_check_warns_in_one_line_naming_the_fix():
    data, patterns = planted_lone_finding(np.random.default_rng(7), n_rows=1000, n_null=4)
    patterns = patterns * 20  # 100 tests, 5 null distributions
    qf = subroc_ext.ROCAUCQF("label")
    with pytest.warns(subroc_ext.LowPowerWarning) as caught:
        randomization_test(patterns, data, qf, target=TARGET, n_samples=10_000, random_state=0)
    message = str(caught[0].message)
    assert "\n" not in message
    # B >= m H(m) / alpha - 1 = 10,373.8 for m = 100
    assert "smallest fdr_by-corrected p-value is 0.0519 > alpha=0.05" in message
    assert "n_samples='adaptive' or n_samples >= 10,374" in message
    assert smallest_corrected_p_value(100, 10_374, "fdr_by") <= 0.05 < smallest_corrected_p_value(
        100, 10_373, "fdr_by"
    )
    with pytest.warns(subroc_ext.LowPowerWarning, match="use max_samples >= 10,374"):
        randomization_test(patterns, data, qf, target=TARGET, max_samples=5000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", subroc_ext.LowPowerWarning)
        randomization_test(patterns[:5], data, qf, target=TARGET, n_samples=500, random_state=0)
        randomization_test(patterns, data, qf, target=TARGET, random_state=0)  # the default


def test_round_sizes_double_the_total_up_to_the_cap():
    from subroc_ext.inference.sequential import rejected, round_sizes

    sizes = round_sizes(1_000_000, 128)
    totals = list(itertools.accumulate(sizes))
    assert totals[:4] == [128, 256, 512, 1024] and totals[-1] == 1_000_000
    assert round_sizes(100, 128) == [100]
    assert list(itertools.accumulate(round_sizes(100, 16))) == [16, 32, 64, 100]
