"""Tests of :mod:`subroc_ext.metrics.diagnostics` against brute-force computations."""

import math

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from scipy.stats import norm
from sklearn import metrics

import subroc_ext
from subroc_ext.metrics.diagnostics import (
    DEFAULT_GRID,
    _twice_pairs_below,
    sens_spec_drift_integral,
    shift_robustness,
    wasserstein2_distance,
    wasserstein_matrix,
    youden_threshold,
)


def oracle_w2(u, v):
    """W_2 from the quantile functions on the common grid k / lcm(m, n):
    both are constant on each cell, so the sum is exact."""
    u, v = np.sort(u), np.sort(v)
    m, n = len(u), len(v)
    cells = math.lcm(m, n)
    total = 0.0
    for k in range(1, cells + 1):  # cell ((k-1)/L, k/L]: quantile index ceil(k m / L) - 1
        total += (u[-(-k * m // cells) - 1] - v[-(-k * n // cells) - 1]) ** 2
    return math.sqrt(total / cells)


def oracle_auc(positives, negatives):
    wins = (positives[:, None] > negatives[None, :]) + 0.5 * (positives[:, None] == negatives[None, :])
    return wins.mean()


def test_wasserstein_matches_quantile_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(200):
        u = rng.integers(0, 6, int(rng.integers(1, 13))) / 5  # ties
        v = rng.random(int(rng.integers(1, 13)))
        assert wasserstein2_distance(u, v) == pytest.approx(oracle_w2(u, v), abs=1e-12)
    assert wasserstein2_distance([0.0], [1.0]) == 1.0
    x = rng.random(17)
    assert wasserstein2_distance(x, x + 0.25) == pytest.approx(0.25)
    assert np.isnan(wasserstein2_distance([], [1.0]))
    with np.errstate(all="raise"):  # scores of 1e300 and 1e-300: their squares had overflowed, or vanished
        for scale in (1e300, 1e-300):
            assert wasserstein2_distance(x * scale, (x + 0.25) * scale) == pytest.approx(0.25 * scale)
    matrix = wasserstein_matrix({"a": x, "b": x + 0.25, "c": x})
    np.testing.assert_allclose(np.diag(matrix), 0.0)
    assert matrix.loc["a", "b"] == matrix.loc["b", "a"] == pytest.approx(0.25)


def test_bias_robustness_matches_pair_counts():
    rng = np.random.default_rng(1)
    for _ in range(30):
        positives = rng.integers(0, 11, int(rng.integers(1, 15))) / 10
        negatives = rng.integers(0, 11, int(rng.integers(1, 15))) / 10
        base = oracle_auc(positives, negatives)
        shifted = [oracle_auc(positives - s, negatives) for s in DEFAULT_GRID]
        expected = np.sum(np.diff(DEFAULT_GRID) * (np.array(shifted[1:]) + shifted[:-1]) / 2) / base
        assert shift_robustness(positives, negatives, "bias") == pytest.approx(expected, nan_ok=True)


def test_shifted_pair_counts_are_the_brute_force_counts():
    """The merge of :func:`_twice_pairs_below` counts, for every shift, twice the
    pairs a shifted positive wins and once those it ties (ties at every shift
    of the grid: scores on a grid of 0.05), as integers."""
    rng = np.random.default_rng(2)
    for _ in range(100):
        positives = np.sort(rng.integers(0, 21, int(rng.integers(1, 30))) / 20)
        negatives = np.sort(rng.integers(0, 21, int(rng.integers(1, 30))) / 20)
        out = np.empty(len(DEFAULT_GRID), dtype=np.int64)
        _twice_pairs_below(positives, negatives, DEFAULT_GRID, out)
        shifted = [positives - s if s else positives for s in DEFAULT_GRID]
        expected = [int(2 * (p[:, None] > negatives).sum() + (p[:, None] == negatives).sum()) for p in shifted]
        assert out.tolist() == expected


def test_noise_robustness_is_the_expected_noisy_auc():
    rng = np.random.default_rng(2)
    positives, negatives = rng.random(12) + 0.2, rng.random(9)
    grid = np.array([0.0, 0.1, 0.5])
    exact = [oracle_auc(positives, negatives)] + [
        norm.cdf((positives[:, None] - negatives[None, :]) / (s * np.sqrt(2))).mean() for s in grid[1:]
    ]
    expected = np.sum(np.diff(grid) * (np.array(exact[1:]) + exact[:-1]) / 2) / exact[0]
    assert shift_robustness(positives, negatives, "noise", grid) == pytest.approx(expected, rel=1e-12)
    # the expectation matches simulated noise
    simulated = np.mean([
        oracle_auc(positives + 0.5 * rng.normal(size=12), negatives + 0.5 * rng.normal(size=9))
        for _ in range(4000)
    ])  # fmt: skip
    assert simulated == pytest.approx(exact[-1], abs=0.01)
    # sampled pairs: an unbiased estimate, close with many pairs
    sampled = shift_robustness(positives, negatives, "noise", grid, rng=0, max_pairs=50)
    assert sampled != pytest.approx(expected, rel=1e-9)
    many_pos, many_neg = rng.random(300) + 0.2, rng.random(300)
    exact_many = shift_robustness(many_pos, many_neg, "noise", grid, max_pairs=100_000)
    sampled_many = shift_robustness(many_pos, many_neg, "noise", grid, rng=0, max_pairs=20_000)
    assert sampled_many != exact_many and sampled_many == pytest.approx(exact_many, rel=0.01)


def test_youden_threshold_matches_sklearn():
    rng = np.random.default_rng(3)
    for _ in range(50):
        labels = rng.random(40) < 0.4
        labels[:2] = [True, False]
        scores = np.round(rng.random(40) + 0.3 * labels, 1)
        fpr, tpr, thresholds = metrics.roc_curve(labels, scores, drop_intermediate=False)
        assert youden_threshold(labels, scores) == thresholds[np.argmax(tpr - fpr)]


def test_drift_integral_matches_riemann_sum():
    rng = np.random.default_rng(4)
    taus = (np.arange(200_000) + 0.5) / 200_000
    for _ in range(5):
        first = (rng.random(15), rng.random(20) * 0.8)
        second = (np.round(rng.random(10), 1), rng.random(12))

        def curve(positives, negatives):
            return (positives[None, :] >= taus[:, None]).mean(1), (negatives[None, :] < taus[:, None]).mean(1)

        (s1, p1), (s2, p2) = curve(*first), curve(*second)
        riemann = np.mean((s1 - s2) ** 2 + (p1 - p2) ** 2)
        assert sens_spec_drift_integral(first, second) == pytest.approx(riemann, abs=1e-4)


def frames():
    rng = np.random.default_rng(5)

    def frame(n, shift):
        data = pd.DataFrame({"g": rng.choice(list("ab"), n), "y": rng.random(n) < 0.4})
        data["s"] = np.clip(0.35 + 0.3 * data.y + 0.15 * rng.normal(size=n) + shift * (data.g == "a"), 0, 1)
        return data

    return frame(120, 0.0), frame(100, 0.2)


def test_diagnostics_table():
    search, validation = frames()
    subgroups = [ps.EqualitySelector("g", "a"), ps.EqualitySelector("g", "b")]
    table = subroc_ext.generalization_diagnostics(
        subgroups, search, validation, label="y", score="s", positive_label=True, random_state=0
    )
    assert table["subgroup"].tolist() == ["all", "g=='a'", "g=='b'"]
    threshold = youden_threshold(search.y.to_numpy(), search.s.to_numpy())
    assert (table["threshold"] == threshold).all()
    for row in table.itertuples():
        masks = {
            split: np.ones(len(frame), bool) if row.subgroup == "all" else (frame.g == row.subgroup[4]).to_numpy()
            for split, frame in (("search", search), ("validation", validation))
        }
        samples = {}
        for split, frame in (("search", search), ("validation", validation)):
            y, s = frame.y.to_numpy()[masks[split]], frame.s.to_numpy()[masks[split]]
            assert getattr(row, f"size_{split}") == masks[split].sum()
            assert getattr(row, f"sensitivity_{split}") == pytest.approx((s[y] >= threshold).mean())
            assert getattr(row, f"specificity_{split}") == pytest.approx((s[~y] < threshold).mean())
            assert getattr(row, f"bias_robustness_{split}") == pytest.approx(shift_robustness(s[y], s[~y], "bias"))
            samples[f"{split}_pos"], samples[f"{split}_neg"] = s[y], s[~y]
        assert row.sensitivity_drift == pytest.approx(row.sensitivity_validation - row.sensitivity_search)
        assert row.sens_spec_drift == pytest.approx(np.hypot(row.sensitivity_drift, row.specificity_drift))
        assert row.w2_search_neg__validation_pos == pytest.approx(oracle_w2(samples["search_neg"], samples["validation_pos"]))
        assert row.w2_search_pos__validation_pos == pytest.approx(oracle_w2(samples["search_pos"], samples["validation_pos"]))
    w2_columns = [c for c in table.columns if c.startswith("w2_")]
    assert len(w2_columns) == 6
    # the validation scores of 'a' are shifted up by 0.2: its classes drift, b's do not
    a, b = table.iloc[1], table.iloc[2]
    assert a.w2_search_neg__validation_neg > 0.15 > b.w2_search_neg__validation_neg
    assert a.specificity_drift < -0.2 and abs(b.specificity_drift) < 0.15
    given = subroc_ext.generalization_diagnostics(
        subgroups, search, validation, label="y", score="s", positive_label=True, threshold=0.5, random_state=0
    )
    assert (given["threshold"] == 0.5).all()


def test_diagnostics_bad_input():
    search, validation = frames()
    kwargs = dict(label="y", score="s", positive_label=True)
    with pytest.raises(ValueError, match="bias_grid"):
        subroc_ext.generalization_diagnostics([], search, validation, bias_grid=[0.5], **kwargs)
    with pytest.raises(ValueError, match="threshold"):
        subroc_ext.generalization_diagnostics([], search, validation, threshold=np.nan, **kwargs)
    with pytest.raises(ValueError, match=r"'s \(validation\)' contains 1 NaN"):
        subroc_ext.generalization_diagnostics([], search, validation.assign(s=validation.s.where(validation.index != 3)), **kwargs)
    with pytest.raises(ValueError, match="both classes"):
        subroc_ext.generalization_diagnostics([], search.assign(y=True), validation, **kwargs)


def test_plot(tmp_path):
    pytest.importorskip("matplotlib")
    search, validation = frames()
    table = subroc_ext.generalization_diagnostics(
        [ps.EqualitySelector("g", "a")], search, validation, label="y", score="s", positive_label=True
    )
    figure = subroc_ext.plot_generalization_diagnostics(table)
    ticks = {t.get_text(): t.get_position()[1] for t in figure.axes[0].get_yticklabels()}
    assert ticks["all"] > ticks["g = a"]  # the whole data on top, conditions made readable
    figure.savefig(tmp_path / "diagnostics.png")
    assert (tmp_path / "diagnostics.png").stat().st_size > 1000


def test_add_to_find_subgroups_table():
    search, validation = frames()
    search = search.assign(y=search.y.astype(int), h=np.arange(len(search)) % 3)
    validation = validation.assign(y=validation.y.astype(int), h=np.arange(len(validation)) % 3)
    table = subroc_ext.find_subgroups(
        search, validation=validation, label="y", score="s", depth=1, min_support=10,
        result_set_size=4, n_samples=50, random_state=0, progress=False,
    )  # fmt: skip
    extended = subroc_ext.metrics.diagnostics.add_generalization_diagnostics(table, search, validation, random_state=0)
    direct = subroc_ext.generalization_diagnostics(
        list(table["subgroup"]), search, validation, label="y", score="s", positive_label=1, random_state=0
    )
    assert list(extended.columns[: len(table.columns)]) == list(table.columns)
    for column in ("bias_robustness_validation", "sens_spec_drift", "w2_search_pos__validation_pos"):
        np.testing.assert_allclose(extended[column], direct[column][1:])
    assert extended.attrs["generalization_diagnostics"]["subgroup"] == "all"
    assert extended.attrs["measure"] == table.attrs["measure"]
