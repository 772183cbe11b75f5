"""Exhaustive tests of the optimistic estimates of :mod:`subroc_ext.objective.quality`.

For every built-in quality function, mode and weight pair, on random small
datasets (with and without ties, several label encodings): the optimistic
estimate of a cover must be >= the weighted quality of every subset of the
cover (all ``2**k`` of them), never NaN, and equal to the best subset where
SPEC.md claims tightness. Subset qualities come from the brute-force oracles
of ``conftest.py`` and the SPEC's formula ``n^alpha * cb^beta * q``; a second
set of tests checks that the package's own ``statistics_of_cover(...).quality``
agrees with that formula on every subset of smaller covers and with
scikit-learn on sampled ones.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

import subroc_ext
from search_helpers import make_qf

TOL = 1e-9
N_DATASETS = 40
COVERS_PER_DATASET = 3
MODES = ("worse", "better", "both")
WEIGHTS = [(0, 0), (0, 1), (1, 1), (0.3, 1), (1, 0.3), (0.5, 0.5), (2, 0)]  # (alpha, beta)
KINDS = {"roc_auc": "score", "pr_auc": "score", "arl": "loss", "attribution_mean": "score"}
TARGET = subroc_ext.SoftClassifierTarget("label", "score")
# (negative label, positive label): positive label 0, strings, bool, {-1, 1}
ENCODINGS = [(0, 1), (1, 0), ("ham", "spam"), ("yes", "no"), (False, True), (-1, 1)]


def oracle_quality(values, positives, negatives, reference, kind, mode, alpha, beta):
    """SPEC's weighted quality ``n^alpha * cb^beta * q``, ``-inf`` where the
    measure value is NaN (undefined)."""
    difference = values - reference
    if mode == "both":
        raw = np.abs(difference)
    elif (kind == "score") == (mode == "worse"):
        raw = -difference
    else:
        raw = difference
    larger = np.maximum(positives, negatives)
    with np.errstate(invalid="ignore", divide="ignore"):
        balance = np.where(larger > 0, np.minimum(positives, negatives) / larger, 0.0)
    weight = np.power(positives + negatives, float(alpha)) * np.power(balance, float(beta))
    return np.where(np.isnan(values), -np.inf, weight * raw)


class Case:
    """A random dataset, covers of it, and oracle values of every measure on
    every subset of each cover.

    Attributes
    ----------
    data : pandas.DataFrame
        Columns ``label`` and ``score``, a shuffled non-default index.
    positive_label : object
    reference : dict
        Each measure on the whole data.
    covers : list of (mask, masks, values)
        ``mask`` selects the cover's rows of ``data``; ``masks`` the subsets
        (over the cover's rows, ``masks[-1]`` is the whole cover); ``values``
        maps each measure (and ``positives``, ``negatives``) to an array over
        the subsets.
    """

    def __init__(self, oracle, seed, n_covers, max_cover=12):
        rng = np.random.default_rng(seed)
        size = int(rng.integers(12, 21))
        ties = seed % 2 == 0
        is_positive = rng.random(size) < rng.uniform(0.15, 0.85)
        first, second = rng.permutation(size)[:2]
        is_positive[first], is_positive[second] = True, False
        if ties:
            scores = rng.integers(0, rng.integers(2, 6), size) / 4
        else:
            scores = rng.random(size)
        negative_label, self.positive_label = ENCODINGS[(seed // 2) % len(ENCODINGS)]
        labels = np.where(is_positive, self.positive_label, negative_label)
        if isinstance(self.positive_label, bool):
            labels = labels.astype(bool)
        self.data = pd.DataFrame(
            {"label": labels, "score": scores, "other": rng.random(size)},
            index=rng.permutation(size) * 3 + 7,
        )
        whole = oracle.subset_measures(is_positive, scores, np.ones((1, size), bool))
        attributions = oracle.attributions(is_positive, scores)
        self.reference = {name: whole[name][0] for name in ("roc_auc", "pr_auc", "arl")}
        self.reference["attribution_mean"] = attributions.mean()
        self.covers = []
        for _ in range(n_covers):
            k = int(rng.choice([rng.integers(1, max_cover + 1), max_cover, max_cover - 1]))
            rows = np.sort(rng.choice(size, k, replace=False))
            if rng.random() < 0.2:  # a cover that holds only one class now and then
                rows = rows[is_positive[rows] == (rng.random() < 0.5)] if k > 1 else rows
                rows = rows if len(rows) else np.array([first])
            mask = np.zeros(size, dtype=bool)
            mask[rows] = True
            masks = oracle.all_subsets(len(rows))
            values = oracle.subset_measures(is_positive[rows], scores[rows], masks)
            values["attribution_mean"] = masks @ attributions[rows] / masks.sum(1)
            self.covers.append((mask, masks, values))


_CASES = {}


def case(oracle, seed, n_covers=COVERS_PER_DATASET, max_cover=12):
    """The (cached) :class:`Case` of a seed."""
    key = (seed, n_covers, max_cover)
    if key not in _CASES:
        _CASES[key] = Case(oracle, seed, n_covers, max_cover)
    return _CASES[key]


def prepared_qf(name, test_case, alpha, beta, mode):
    """A quality function prepared on the case's data."""
    qf = make_qf(name, mode, (alpha, beta), test_case.positive_label)
    qf.calculate_constant_statistics(test_case.data, TARGET)
    assert qf.dataset_value == pytest.approx(test_case.reference[name], abs=1e-12)
    return qf


def statistics(qf, mask):
    """The quality function's statistics of the rows ``mask`` selects."""
    return qf.statistics_of_cover(qf.dataset.cover(qf.dataset.mask_of(mask)))


# --------------------------------------------------------------------------
# validity (and tightness) of the optimistic estimates, all subsets
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("alpha, beta", WEIGHTS)
def test_estimate_bounds_every_subset(oracle, name, mode, alpha, beta):
    tight = (alpha, beta) == (0, 0) or (name == "attribution_mean" and beta == 0)
    n_negative_best = 0
    for seed in range(N_DATASETS):
        test_case = case(oracle, seed)
        qf = prepared_qf(name, test_case, alpha, beta, mode)
        for mask, masks, values in test_case.covers:
            qualities = oracle_quality(
                values[name], values["positives"], values["negatives"],
                test_case.reference[name], KINDS[name], mode, alpha, beta,
            )  # fmt: skip
            stats = statistics(qf, mask)
            estimate, best = stats.optimistic_estimate, qualities.max()
            context = (
                f"seed={seed} labels={test_case.data.label[mask].tolist()} "
                f"scores={test_case.data.score[mask].tolist()} estimate={estimate} best={best}"
            )
            assert not np.isnan(estimate), context
            assert stats.quality == pytest.approx(qualities[-1], abs=TOL) or (
                stats.quality == qualities[-1] == -np.inf
            ), context
            assert estimate >= best - TOL, "INVALID estimate: " + context
            if tight:
                assert estimate == best or abs(estimate - best) <= TOL, "loose estimate: " + context
            n_negative_best += np.isfinite(best) and best < 0
    # the case "every subset has negative quality" was exercised where it can
    # occur: not for 'both' (q >= 0), nor when a one-class subset weighs 0
    # (beta > 0, single-class subsets defined), nor for PR AUC and ARL
    # 'better' (positives alone reach the best value)
    can_occur = mode != "both" and (beta == 0 or name == "roc_auc")
    if can_occur and not (mode == "better" and name in ("pr_auc", "arl")):
        assert n_negative_best > 0


# --------------------------------------------------------------------------
# the package's subset qualities: every subset of smaller covers
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("alpha, beta", WEIGHTS)
def test_package_subset_qualities_match_formula(oracle, name, mode, alpha, beta):
    """``statistics_of_cover(subset).quality`` equals ``n^a cb^b q`` for every
    subset of 8-row covers, and the cover's estimate bounds them all."""
    for seed in (1000, 1001):
        test_case = case(oracle, seed, n_covers=1, max_cover=8)
        qf = prepared_qf(name, test_case, alpha, beta, mode)
        mask, masks, values = test_case.covers[0]
        expected = oracle_quality(
            values[name], values["positives"], values["negatives"],
            test_case.reference[name], KINDS[name], mode, alpha, beta,
        )  # fmt: skip
        rows = np.flatnonzero(mask)
        qualities = np.empty(len(masks))
        for index, subset in enumerate(masks):
            subset_mask = np.zeros(len(mask), dtype=bool)
            subset_mask[rows[subset]] = True
            qualities[index] = statistics(qf, subset_mask).quality
        finite = np.isfinite(expected)
        np.testing.assert_array_equal(np.isfinite(qualities), finite)
        np.testing.assert_allclose(qualities[finite], expected[finite], rtol=0, atol=TOL)
        assert statistics(qf, mask).optimistic_estimate >= qualities.max() - TOL


def sklearn_measure(name, is_positive, scores, attributions):
    """The measure on one subset, via scikit-learn or a per-row loop."""
    if name == "roc_auc":
        return metrics.roc_auc_score(is_positive, scores)
    if name == "pr_auc":
        precision, recall, _ = metrics.precision_recall_curve(is_positive, scores)
        return metrics.auc(recall, precision)
    if name == "arl":
        negatives = scores[~is_positive]
        return np.mean([(negatives > s).sum() + 0.5 * (negatives == s).sum() for s in scores[is_positive]])
    return attributions.mean()


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("mode", MODES)
def test_subset_quality_against_sklearn(name, mode):
    """Independent check of sampled subsets: ``n^alpha * cb^beta * q`` with
    the measure from scikit-learn (attributions from a loop over rows)."""
    rng = np.random.default_rng(77)
    for dataset in range(4):
        size = int(rng.integers(12, 21))
        is_positive = rng.random(size) < 0.5
        is_positive[:2] = True, False
        scores = rng.integers(0, 4, size) / 3 if dataset % 2 else rng.random(size)
        data = pd.DataFrame({"label": np.where(is_positive, "pos", "neg"), "score": scores})
        pair = (scores[:, None] > scores[None, :]) + 0.5 * (scores[:, None] == scores[None, :])
        attributions = np.where(
            is_positive,
            0.5 * pair[:, ~is_positive].mean(1),
            0.5 * pair[is_positive, :].mean(0),
        )
        reference = sklearn_measure(name, is_positive, scores, attributions)
        for alpha, beta in WEIGHTS:
            qf = make_qf(name, mode, (alpha, beta), "pos")
            qf.calculate_constant_statistics(data, TARGET)
            for _ in range(6):
                subset = rng.random(size) < rng.uniform(0.2, 0.9)
                subset[rng.integers(size)] = True
                y, s = is_positive[subset], scores[subset]
                quality = statistics(qf, subset).quality
                defined = {"roc_auc": y.any() and not y.all(), "pr_auc": y.any(), "arl": y.any()}
                if not defined.get(name, True):
                    assert quality == -np.inf
                    continue
                difference = sklearn_measure(name, y, s, attributions[subset]) - reference
                raw = {
                    "both": abs(difference),
                    "worse": -difference if KINDS[name] == "score" else difference,
                    "better": difference if KINDS[name] == "score" else -difference,
                }[mode]
                n_pos, n_neg = int(y.sum()), int((~y).sum())
                balance = min(n_pos, n_neg) / max(n_pos, n_neg)
                expected = (n_pos + n_neg) ** alpha * balance**beta * raw
                assert quality == pytest.approx(expected, abs=TOL)


# --------------------------------------------------------------------------
# specific claims of SPEC.md
# --------------------------------------------------------------------------


@pytest.mark.parametrize("alpha, beta", [(1, 1), (0.3, 1), (1, 0.3), (0.5, 0.5), (2, 1)])
def test_size_aware_attribution_bound_needs_clipping_at_zero(alpha, beta):
    """SPEC: the size-aware attribution bound ``max_k k^a (m(D) - mean of the k
    smallest)`` "stays valid with beta > 0". Not when it is negative: single
    rows then weigh 0 (cb = 0), so the best quality is 0 > the bound. The
    package clips it at 0, which is valid and here tight.

    Data: positives scored 1 and 3, negatives 0 and 2, AUC 3/4, m(D) = 3/8;
    the cover {positive at 3, negative at 0} has attributions 1/2 and 1/2.
    """
    data = pd.DataFrame({"label": [0, 1, 0, 1], "score": [0.0, 1.0, 2.0, 3.0]})
    qf = subroc_ext.AttributionMeanQF("label", 1, beta, alpha)
    qf.calculate_constant_statistics(data, TARGET)
    assert qf.dataset_value == 3 / 8
    cover = np.array([True, False, False, True])
    subsets = {  # subset -> weighted quality
        (0,): 1**alpha * 0**beta * (3 / 8 - 1 / 2),
        (3,): 1**alpha * 0**beta * (3 / 8 - 1 / 2),
        (0, 3): 2**alpha * 1**beta * (3 / 8 - 1 / 2),
    }
    for rows, expected in subsets.items():
        mask = np.isin(np.arange(4), rows)
        assert statistics(qf, mask).quality == pytest.approx(expected, abs=1e-15)
    best = max(subsets.values())
    assert best == 0.0
    spec_bound = max(k**alpha * (3 / 8 - 1 / 2) for k in (1, 2))
    assert spec_bound < best  # the unclipped SPEC bound is invalid here
    assert statistics(qf, cover).optimistic_estimate == 0.0


def test_estimate_with_negative_raw_bound_uses_smallest_weight(oracle):
    """When every subset has negative raw quality, the weight bound times the
    raw bound is NOT an upper bound (a lighter subset is less negative): the
    estimate must use the smallest weight. A ROC AUC example: the cover holds
    only correctly ordered pairs on data with AUC < 1."""
    data = pd.DataFrame({"label": [1, 0, 0, 1, 0, 1, 1, 0], "score": np.arange(8.0)})
    cover = np.array([False, True, True, False, False, True, True, False])  # neg 1,2 < pos 5,6
    qf = subroc_ext.ROCAUCQF("label", 1, 1)
    qf.calculate_constant_statistics(data, TARGET)
    stats = statistics(qf, cover)
    assert stats.raw_bound < 0
    qualities = []
    for subset in oracle.all_subsets(4):
        mask = np.zeros(8, dtype=bool)
        mask[np.flatnonzero(cover)[subset]] = True
        qualities.append(statistics(qf, mask).quality)
    best = max(qualities)
    assert stats.max_weight * stats.raw_bound < best  # the naive product is invalid
    assert stats.optimistic_estimate >= best
    assert stats.optimistic_estimate == pytest.approx(best)  # and the estimate is tight here


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("alpha, beta", [(0, 0), (1, 1), (0.3, 1)])
def test_estimate_ignores_the_order_of_tied_rows(oracle, name, alpha, beta):
    """The same cover in a row-shuffled data frame gets the same estimate."""
    rng = np.random.default_rng(31)
    for seed in range(0, 40, 2):  # even seeds have ties
        test_case = case(oracle, seed)
        for mode in MODES:
            qf = prepared_qf(name, test_case, alpha, beta, mode)
            permutation = rng.permutation(len(test_case.data))
            shuffled = test_case.data.iloc[permutation]
            shuffled_qf = make_qf(name, mode, (alpha, beta), test_case.positive_label)
            shuffled_qf.calculate_constant_statistics(shuffled, TARGET)
            for mask, _, _ in test_case.covers:
                expected = statistics(qf, mask).optimistic_estimate
                got = statistics(shuffled_qf, mask[permutation]).optimistic_estimate
                assert got == pytest.approx(expected, abs=1e-12) or got == expected
