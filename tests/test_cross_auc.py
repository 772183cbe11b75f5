"""Tests of :mod:`subroc_ext.cross_auc` against brute-force pair counts."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn import metrics

import subroc_ext
from subroc_ext.metrics.cross_auc import subgroup_bias_aucs
from synthetic import scored_frame


def oracle_cross(is_positive, scores, first, second):
    """Wins and pairs of positives in ``first`` vs negatives in ``second``, pair by pair."""
    wins = pairs = 0.0
    for p in np.flatnonzero(first & is_positive):
        for q in np.flatnonzero(second & ~is_positive):
            pairs += 1
            wins += 1.0 if scores[p] > scores[q] else (0.5 if scores[p] == scores[q] else 0.0)
    return (wins / pairs if pairs else np.nan), pairs


def random_frame(seed, n):
    """Few distinct scores (ties), labels 'bad'/'good', attributes ``a0``
    (p, q) and ``a1`` (p, q, r), and a permuted index."""
    return scored_frame(seed, n, attributes=2, ties="heavy", labels=("bad", "good"), index="permuted",
                        label="y", score="s")  # fmt: skip


def test_matrix_matches_brute_force():
    for seed in range(15):
        frame = random_frame(seed, 5 + 2 * seed)
        subgroups = [ps.EqualitySelector("a0", "p"), ps.Conjunction([ps.EqualitySelector("a1", "q")])]
        result = subroc_ext.cross_auc(subgroups, frame, label="y", score="s", positive_label="bad")
        is_positive, scores = (frame.y == "bad").to_numpy(), frame.s.to_numpy()
        masks = [(frame.a0 == "p").to_numpy(), (frame.a1 == "q").to_numpy()]
        groups = masks + [~(masks[0] | masks[1]), np.ones(len(frame), bool)]
        names = ["a0=='p'", "a1=='q'", "background", "all"]
        assert list(result.auc.index) == names and list(result.auc.columns) == names
        for i, first in enumerate(groups):
            for j, second in enumerate(groups):
                auc, pairs = oracle_cross(is_positive, scores, first, second)
                assert result.pairs.iat[i, j] == pairs
                if pairs:
                    assert result.auc.iat[i, j] == pytest.approx(auc, abs=1e-12)
                else:
                    assert np.isnan(result.auc.iat[i, j])
        if 0 < is_positive.sum() < len(frame):
            assert result.auc.loc["all", "all"] == pytest.approx(metrics.roc_auc_score(is_positive, scores))
        tidy = result.to_frame()
        assert len(tidy) == 16 and list(tidy.columns) == ["positives", "negatives", "auc", "pairs"]
        row = tidy[(tidy.positives == "a0=='p'") & (tidy.negatives == "all")].iloc[0]
        assert row.pairs == result.pairs.loc["a0=='p'", "all"]


def test_bias_aucs_match_brute_force():
    for seed in range(15):
        frame = random_frame(100 + seed, 40 - 2 * seed)
        masks = {"p": (frame.a0 == "p").to_numpy(), "q-or-r": ((frame.a0 == "q") | (frame.a1 == "r")).to_numpy()}
        table = subgroup_bias_aucs(masks, frame, label="y", score="s", positive_label="bad")
        is_positive, scores = (frame.y == "bad").to_numpy(), frame.s.to_numpy()
        assert list(table.subgroup) == ["p", "q-or-r"]
        for row, mask in zip(table.itertuples(), masks.values()):
            own, _ = oracle_cross(is_positive, scores, mask, mask)
            bpsn, bpsn_pairs = oracle_cross(is_positive, scores, ~mask, mask)
            bnsp, bnsp_pairs = oracle_cross(is_positive, scores, mask, ~mask)
            np.testing.assert_allclose(
                [row.subgroup_auc, row.bpsn_auc, row.bnsp_auc], [own, bpsn, bnsp], atol=1e-12
            )
            assert (row.bpsn_pairs, row.bnsp_pairs) == (bpsn_pairs, bnsp_pairs)


def test_single_subgroup_background_is_its_complement_and_bias_cells():
    frame = pd.DataFrame({"y": [0, 1, 0, 1, 1, 0], "s": [0.1, 0.2, 0.3, 0.4, 0.3, 0.9], "g": list("aabbba")})
    result = subroc_ext.cross_auc({"a": frame.g == "a"}, frame, label="y", score="s")
    bias = subgroup_bias_aucs({"a": frame.g == "a"}, frame, label="y", score="s")
    assert result.auc.loc["background", "a"] == bias.bpsn_auc[0]
    assert result.auc.loc["a", "background"] == bias.bnsp_auc[0]
    # a's positive (0.2) vs b's negative (0.3): 0; b's positives (0.4, 0.3) vs a's negatives (0.1, 0.9): 2/4
    assert result.auc.loc["a", "background"] == 0.0
    assert result.auc.loc["background", "a"] == 0.5


def test_bad_input():
    frame = pd.DataFrame({"y": [0, 1], "s": [0.1, np.nan]})
    with pytest.raises(ValueError, match="'s' contains 1 NaN"):
        subroc_ext.cross_auc([np.array([True, False])], frame, label="y", score="s")
    frame = pd.DataFrame({"y": [0, 1], "s": [0.1, 0.2]})
    with pytest.raises(ValueError, match="covers .* rows, but data has 2"):
        subroc_ext.cross_auc([np.array([True])], frame, label="y", score="s")
    with pytest.raises(ValueError, match="reserved"):
        subroc_ext.cross_auc({"all": np.array([True, False])}, frame, label="y", score="s")
    with pytest.raises(KeyError, match="'label'"):
        subroc_ext.cross_auc([], frame, label="label", score="s")


def test_heatmap(tmp_path):
    pytest.importorskip("matplotlib")
    frame = random_frame(2, 60)
    result = subroc_ext.cross_auc([ps.EqualitySelector("a0", "p")], frame, label="y", score="s", positive_label="bad")
    figure = subroc_ext.plot_cross_auc(result)
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert len(texts) == 9 and texts[-1].startswith(f"{result.auc.loc['all', 'all']:.2f}")
    figure.savefig(tmp_path / "cross.png")
    assert (tmp_path / "cross.png").stat().st_size > 1000


def test_bias_aucs_of_masks_equal_the_crosses_bit_for_bit():
    """Counted one subgroup at a time, the bias AUCs are the crosses of
    :func:`cross_pair_counts` over the subgroups and their backgrounds."""
    from subroc_ext.metrics.cross_auc import _ratio, bias_aucs_of_masks, cross_pair_counts
    from subroc_ext.metrics.kernels import sort_by_score

    rng = np.random.default_rng(0)
    for trial in range(120):
        n = int(rng.integers(0, 60))
        is_positive = rng.random(n) < rng.random()
        scores = rng.integers(0, 5, n) / 4 if trial % 2 else rng.random(n)
        masks = rng.random((int(rng.integers(0, 5)), n)) < rng.random()
        group_ids = None
        if trial % 3 == 0:  # presorted
            order, group_ids = sort_by_score(scores)
            is_positive, scores, masks = is_positive[order], scores[order], masks[:, order]
        groups = np.vstack([masks, ~masks])
        wins, pairs = cross_pair_counts(is_positive, scores, groups, groups, group_ids=group_ids)
        inside, outside = np.arange(len(masks)), np.arange(len(masks)) + len(masks)
        got = bias_aucs_of_masks(is_positive, scores, masks, group_ids=group_ids)
        want = {
            "subgroup_auc": _ratio(wins[inside, inside], pairs[inside, inside]),
            "bpsn_auc": _ratio(wins[outside, inside], pairs[outside, inside]),
            "bnsp_auc": _ratio(wins[inside, outside], pairs[inside, outside]),
            "bpsn_pairs": pairs[outside, inside].astype(np.int64),
            "bnsp_pairs": pairs[inside, outside].astype(np.int64),
        }
        for name, values in want.items():
            assert np.array_equal(got[name], values, equal_nan=True), (trial, name)
