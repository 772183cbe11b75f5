"""Exhaustive tests of the case-mix quality (:mod:`subroc_ext.objective.case_mix`).

The oracle is SPEC's ``q_cm = [mbc(S) - AUC(S)] - [mbc(D) - AUC(D)]`` (mode
"worse"; negated for "better", ``|.|`` for "both"), with ``mbc`` summed pair by
pair and the AUC from ``conftest.py``'s brute-force measures, on *every* subset
of small covers, with and without ties, probabilities that are the scores,
a monotone map of them (ties merged, zeros and ones) or unrelated to them,
every mode and several weights. A deliberately tightened copy of the bound
must fail the same check. Searches: FastSearch (compiled and through the
measures' own methods) == ps.BestFirstSearch == brute force, with and without
generalization awareness.
"""

import itertools

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

import subroc_ext
from search_helpers import assert_same_top_k
from subroc_ext import FastSearch
from subroc_ext.objective.case_mix import CaseMixQF, CaseMixTarget
from subroc_ext.objective.comparison import ComparisonQF
from subroc_ext.scoring.case_mix import ExpectedROCAUC
from subroc_ext.scoring.measures import ROCAUC
from test_comparison import SEARCH_CASES, assert_fast_search_is_exact, run_search
from test_expected_auc import brute_force as mbc_brute_force

TOL = 1e-9
MODES = ("worse", "better", "both")
WEIGHTS = [(0, 0), (0, 1), (1, 1), (0.5, 0.3), (2, 0)]  # (alpha, beta)
TARGET = CaseMixTarget("label", "score", "p")


def probabilities_of(score, kind, rng):
    if kind == "scores":
        return score
    if kind == "merged":  # a monotone map with flat steps, exact zeros and ones
        return np.clip(np.floor(score * 3) / 2 - 0.25, 0, 1)
    return np.round(rng.random(len(score)), 1)  # unrelated to the scores: the bound must still hold


def case(seed, kind):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(9, 15))
    is_positive = rng.random(size) < rng.uniform(0.25, 0.75)
    is_positive[:2] = True, False
    score = rng.integers(0, 5, size) / 4 if seed % 2 == 0 else rng.random(size)
    data = pd.DataFrame({"label": is_positive.astype(int), "score": score,
                         "p": probabilities_of(score, kind, rng)},
                        index=rng.permutation(size) * 7 + 3)  # any index works  # fmt: skip
    rows = np.sort(rng.choice(size, int(rng.integers(3, 10)), replace=False))
    return data, is_positive, rows


def subset_mbc(oracle, p, masks):
    """SPEC's mbc of every subset at once: the pairwise sums as quadratic forms
    (self-pairs left out), 1/2 where the denominator is 0, NaN below two rows."""
    weight = p[:, None] * (1 - p[None, :])
    np.fill_diagonal(weight, 0.0)
    chosen = masks.astype(float)
    numerator = ((chosen @ (weight * oracle.pair_wins(p))) * chosen).sum(1)
    denominator = ((chosen @ weight) * chosen).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mbc = np.where(denominator > 0, numerator / denominator, 0.5)
    return np.where(masks.sum(1) >= 2, mbc, np.nan)


def test_the_vectorized_oracle_is_the_pair_loop(oracle):
    rng = np.random.default_rng(4)
    p = np.round(rng.random(8), 1)
    p[:2] = 0.0
    masks = oracle.all_subsets(8)
    np.testing.assert_allclose(subset_mbc(oracle, p, masks), [mbc_brute_force(p[m]) for m in masks], atol=1e-12)


def oracle_qualities(oracle, data, is_positive, rows, mode, alpha, beta):
    """q_cm, weighted, of every subset of the cover ``rows`` (``-inf`` where the AUC is undefined)."""
    score, p = data["score"].to_numpy(), data["p"].to_numpy()
    masks = oracle.all_subsets(len(rows))
    auc = oracle.subset_measures(is_positive[rows], score[rows], masks)["roc_auc"]
    mbc = subset_mbc(oracle, p[rows], masks)
    every = np.ones((1, len(score)), dtype=bool)
    whole = mbc_brute_force(p) - oracle.subset_measures(is_positive, score, every)["roc_auc"][0]
    delta = (mbc - auc) - whole
    raw = {"worse": delta, "better": -delta, "both": np.abs(delta)}[mode]
    positives = masks.astype(int) @ is_positive[rows]
    negatives = masks.sum(1) - positives
    larger = np.maximum(positives, negatives)
    with np.errstate(invalid="ignore", divide="ignore"):
        balance = np.where(larger > 0, np.minimum(positives, negatives) / larger, 0.0)
    weight = np.power(positives + negatives, float(alpha)) * np.power(balance, float(beta))
    return np.where(np.isnan(auc), -np.inf, weight * raw)


def violations(oracle, make_qf, kinds=("scores", "merged", "unrelated"), n_cases=12):
    """Covers (context strings) where the estimate falls below a subset's quality,
    or the quality differs from the definition; and the tight cases."""
    found, tight = [], 0
    for kind, seed, mode, (alpha, beta) in itertools.product(kinds, range(n_cases), MODES, WEIGHTS):
        data, is_positive, rows = case(seed, kind)
        qf = make_qf(mode, alpha, beta)
        qf.calculate_constant_statistics(data, TARGET)
        qualities = oracle_qualities(oracle, data, is_positive, rows, mode, alpha, beta)
        cover = np.zeros(len(data), dtype=bool)
        cover[rows] = True
        stats = qf.statistics_of_mask(qf.sides.mask_of(cover))
        context = f"{kind} seed={seed} {mode} weights={alpha, beta}"
        if np.isnan(stats.optimistic_estimate) or stats.optimistic_estimate < qualities.max() - TOL:
            found.append("INVALID " + context)
        if np.isfinite(qualities[-1]) != np.isfinite(stats.quality) or (
            np.isfinite(stats.quality) and abs(stats.quality - qualities[-1]) > TOL
        ):
            found.append("QUALITY " + context)
        tight += bool(np.isclose(stats.optimistic_estimate, qualities.max(), atol=TOL))
    return found, tight


def test_estimate_bounds_every_subset_and_quality_is_the_definition(oracle):
    found, tight = violations(
        oracle, lambda mode, alpha, beta: CaseMixQF("label", size_weight=alpha, balance_weight=beta, mode=mode)
    )
    assert found == []
    assert tight >= 50  # reached where the extreme rows are a low-scored positive and a high-scored negative


class TightenedExpected(ExpectedROCAUC):
    """A wrong bound: assumes no subset promises more than the cover itself."""

    def extremes(self, cover):
        lowest, _ = super().extremes(cover)
        return lowest, self.value(cover)


class SlightlyTightened(ExpectedROCAUC):
    """A wrong bound: the true highest value, less 0.01."""

    def extremes(self, cover):
        lowest, highest = super().extremes(cover)
        return lowest, highest - 0.01


@pytest.mark.parametrize("measure", [TightenedExpected, SlightlyTightened])
def test_a_tightened_copy_of_the_bound_is_caught(oracle, measure):
    def make_qf(mode, alpha, beta):
        return ComparisonQF(ROCAUC(), "label", size_weight=alpha, balance_weight=beta, mode=mode,
                            baseline_measure=measure())  # fmt: skip

    found, _ = violations(oracle, make_qf, kinds=("scores", "unrelated"), n_cases=6)
    assert any(entry.startswith("INVALID") for entry in found)


def test_quality_of_every_subset_and_sklearn():
    """The pysubgroup path (calculate_statistics of a description) is the
    definition with scikit-learn's AUC, on a frame with ties."""
    from sklearn.metrics import roc_auc_score

    from subroc_ext.metrics.expected_auc import expected_roc_auc

    rng = np.random.default_rng(9)
    data = pd.DataFrame({"g": rng.choice(list("abcd"), 500), "label": rng.integers(0, 2, 500)})
    data["score"] = np.round(rng.random(500) * 0.7 + 0.3 * data["label"], 1)
    data["p"] = data["score"]
    qf = CaseMixQF("label", size_weight=0.5, balance_weight=1, mode="both")
    whole = expected_roc_auc(data["p"]) - roc_auc_score(data["label"], data["score"])
    for group in "abcd":
        inside = data["g"] == group
        stats = qf.calculate_statistics(ps.Conjunction([ps.EqualitySelector("g", group)]), TARGET, data)
        mbc, auc = expected_roc_auc(data["p"][inside]), roc_auc_score(data["label"][inside], data["score"][inside])
        positives = data["label"][inside].sum()
        weight = inside.sum() ** 0.5 * min(positives, inside.sum() - positives) / max(positives, inside.sum() - positives)
        assert (stats.baseline_measure, stats.measure) == pytest.approx((mbc, auc), abs=1e-12)
        assert stats.quality == pytest.approx(weight * abs((mbc - auc) - whole), abs=1e-12)


def test_the_target_is_checked_and_the_probabilities_too():
    data, _, _ = case(0, "scores")
    qf = CaseMixQF("label")
    with pytest.raises(TypeError, match="CaseMixQF needs a CaseMixTarget"):
        qf.calculate_constant_statistics(data, subroc_ext.ComparisonTarget("label", "score", "p"))
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        qf.calculate_constant_statistics(data.assign(p=data["p"] + 1), TARGET)
    assert repr(qf) == "CaseMixQF(label='label', positive_label=1, size_weight=0.0, balance_weight=0.0, mode='worse')"


# --------------------------------------------------------------------------
# searches
# --------------------------------------------------------------------------


def search_frame(seed, ties, n=300):
    """Scores that are the probabilities, a strong predictor ``x`` and a
    planted failure (scores shuffled where a0 == 'p' and a1 == 'q')."""
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({f"a{k}": rng.choice(list("pqr"), n) for k in range(4)})
    data["x"] = rng.normal(size=n).round(1)
    p = 1 / (1 + np.exp(-(2 * data["x"] + rng.normal(size=n))))
    data["label"] = (rng.random(n) < p).astype(int)
    failing = ((data["a0"] == "p") & (data["a1"] == "q")).to_numpy()
    p = p.to_numpy().copy()
    p[failing] = rng.permutation(p[failing])
    data["score"] = {"none": p, "some": np.round(p, 1), "heavy": np.digitize(p, [0.3, 0.7]) / 2}[ties]
    data["p"] = data["score"]
    return data


@pytest.mark.parametrize("case_index", range(len(SEARCH_CASES)))
def test_fast_search_equals_best_first_search_and_brute_force(case_index):
    mode, (alpha, beta), aware, ties = SEARCH_CASES[case_index]
    data = search_frame(case_index, ties)
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score", "p"])
    depth, min_support, k = 3, 8, 15

    def qf():
        function = CaseMixQF("label", size_weight=alpha, balance_weight=beta, mode=mode)
        return subroc_ext.GeneralizationAwareQF(function) if aware else function

    assert_fast_search_is_exact(qf, TARGET, data, selectors, depth, min_support, k)


def test_compiled_and_python_evaluators_agree_bit_for_bit_and_pruning_works():
    """Subclasses of the built-in measures run through their own methods (the
    Python evaluator): the same qualities to the last bit; pruning changes
    nothing but the work."""

    class SlowExpected(ExpectedROCAUC):
        pass

    class SlowAUC(ROCAUC):
        pass

    data = search_frame(7, "some", n=600)
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score", "p"])
    compiled = run_search(FastSearch(), CaseMixQF("label", size_weight=1, balance_weight=1), TARGET, data,
                          selectors, 2, 5, 30)  # fmt: skip
    python_qf = ComparisonQF(SlowAUC(), "label", size_weight=1, balance_weight=1, baseline_measure=SlowExpected())
    assert run_search(FastSearch(), python_qf, TARGET, data, selectors, 2, 5, 30) == compiled
    searches = []
    for prune in (True, False):
        qf = CaseMixQF("label", size_weight=1, balance_weight=1)
        qf.optimistic_estimates = prune
        search = FastSearch()
        searches.append((run_search(search, qf, TARGET, data, selectors, 3, 20, 5), search.candidates_evaluated))
    assert searches[0][0] == searches[1][0]
    assert searches[0][1] < searches[1][1]


def test_simulated_auc_changes_are_the_auc_of_the_drawn_labels():
    """With probabilities 0 and 1 the labels are fixed: each draw is the
    change of scikit-learn's AUC exactly; one class only is NaN; and the
    values are a function of the seed."""
    from sklearn.metrics import roc_auc_score

    from subroc_ext.metrics.kernels import sort_by_score
    from subroc_ext.scoring.case_mix import simulated_auc_changes

    rng = np.random.default_rng(5)
    scores = np.sort(np.round(rng.random(300), 1))  # ties
    _, group_ids = sort_by_score(scores)
    labels = rng.random(300) < scores
    mask = rng.random(300) < 0.3
    out = np.empty(3)
    simulated_auc_changes(0, labels.astype(float), group_ids, mask, out)
    expected = roc_auc_score(labels[mask], scores[mask]) - roc_auc_score(labels, scores)
    assert out.tolist() == pytest.approx([expected] * 3, abs=1e-12)
    simulated_auc_changes(0, np.ones(300), group_ids, mask, out)
    assert np.isnan(out).all()
    first, second = np.empty(50), np.empty(50)
    for out in (first, second):
        simulated_auc_changes(7, np.clip(scores, 0.1, 0.9), group_ids, mask, out)
    assert first.tolist() == second.tolist() and first.std() > 0


@pytest.mark.extended  # a seeded simulation
def test_the_null_draws_labels_from_the_probabilities():
    """Each pattern has its own null: q_cm of its rows with labels drawn from
    the probabilities, as a plain simulation with scikit-learn gives it; it
    is centred near 0 for a slice whose spread is narrow (where random
    subsets of its size and class counts are centred far below)."""
    from scipy import stats
    from sklearn.metrics import roc_auc_score

    from subroc_ext.metrics.expected_auc import expected_roc_auc

    data = search_frame(3, "some", n=400)
    data["p"] = np.clip(data["score"], 0.01, 0.99)
    qf = CaseMixQF("label", mode="both")
    qf.calculate_constant_statistics(data, TARGET)
    narrow = ps.Conjunction([ps.IntervalSelector("x", 0.0, 1.0)])
    key = qf.pattern_null_key(narrow)
    assert key == qf.pattern_null_key(narrow) != qf.pattern_null_key(ps.Conjunction([ps.EqualitySelector("a0", "p")]))
    got = qf.null_raw_qualities(key, 2000, np.random.default_rng(1))
    inside = ((data["x"] >= 0) & (data["x"] < 1)).to_numpy()
    p, score = data["p"].to_numpy(), data["score"].to_numpy()
    rng = np.random.default_rng(2)
    want = []
    for _ in range(800):
        labels = rng.random(len(p)) < p
        difference = (roc_auc_score(labels[inside], score[inside]) - roc_auc_score(labels, score)) - (
            expected_roc_auc(p[inside]) - expected_roc_auc(p)
        )
        want.append(abs(difference))
    assert stats.ks_2samp(got, want).pvalue > 1e-3
    worse = CaseMixQF("label")
    worse.calculate_constant_statistics(data, TARGET)
    centred = worse.null_raw_qualities(worse.pattern_null_key(narrow), 2000, np.random.default_rng(3))
    assert abs(np.median(centred)) < 0.02


@pytest.mark.parametrize("mode", MODES)
def test_the_expected_auc_alone_searches_compiled_as_any_built_in_measure(mode):
    """SoftClassifierQF(ExpectedROCAUC()): where the scores promise the least
    (most); FastSearch (compiled) == BestFirstSearch == brute force."""
    from search_helpers import brute_force_top_k, run

    data = search_frame(11, "some").drop(columns="p")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])

    def qf():
        return subroc_ext.SoftClassifierQF(ExpectedROCAUC(), "label", size_weight=1, balance_weight=1, mode=mode)

    settings = dict(depth=2, min_support=10, k=12)
    fast = run(FastSearch(), qf(), data, selectors, **settings)
    assert_same_top_k(fast, run(ps.BestFirstSearch(), qf(), data, selectors, **settings), 12)
    assert_same_top_k(fast, brute_force_top_k(qf(), data, selectors, 2, 10, 12, include_root=False), 12)
