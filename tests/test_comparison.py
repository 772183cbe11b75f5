"""Exhaustive tests of :mod:`subroc_ext.objective.comparison`: the paired (two models,
same rows) and unpaired (one model, two periods) qualities and their
optimistic estimates.

The oracle is SPEC's definition evaluated with the brute-force measures of
``conftest.py`` (nothing from :mod:`subroc_ext`) on *every* subset of small
covers (paired) and every pair of subsets of the two periods' covers
(unpaired), with and without ties, for every built-in measure, a user
measure (the Brier score), every mode and several weight pairs; ROC AUC and
PR AUC are also checked against scikit-learn.
"""

import itertools

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn import metrics

import subroc_ext
from search_helpers import EVALUATES_ROOT, EXHAUSTIVE, assert_same_top_k, with_root
from subroc_ext import FastSearch
from subroc_ext.objective.comparison import ComparisonQF, ComparisonTarget, DriftTarget
from subroc_ext.scoring.measures import KernelMeasure, squared_error
from subroc_ext.workflow.pipeline import MEASURES
from synthetic import TIES, scored_frame

TOL = 1e-9
MODES = ("worse", "better", "both")
WEIGHTS = [(0, 0), (0, 1), (1, 1), (0.5, 0.3), (2, 0)]  # (alpha, beta)
NAMES = ["roc_auc", "pr_auc", "arl", "attribution_mean", "brier"]
KINDS = {"roc_auc": "score", "pr_auc": "score", "arl": "loss", "attribution_mean": "score", "brier": "loss"}
N_CASES = 16
PAIRED = ComparisonTarget("label", "new", "old")
DRIFT = DriftTarget("label", "score", "period", current="now")


def make_measure(name):
    return squared_error() if name == "brier" else MEASURES[name]()


def subset_values(oracle, name, is_positive, scores, masks, whole_is_positive, whole_scores, rows):
    """The measure ``name`` on each subset (rows of ``masks``) of the cover
    ``rows`` of a dataset, NaN where undefined, from the oracles."""
    if name == "attribution_mean":
        attributions = oracle.attributions(whole_is_positive, whole_scores)[rows]
        return masks @ attributions / masks.sum(1)
    if name == "brier":
        errors = (scores - is_positive) ** 2
        return masks @ errors / masks.sum(1)
    return oracle.subset_measures(is_positive, scores, masks)[name]


def whole_value(oracle, name, is_positive, scores):
    every = np.ones((1, len(scores)), dtype=bool)
    return subset_values(oracle, name, is_positive, scores, every, is_positive, scores,
                         np.arange(len(scores)))[0]  # fmt: skip


def oracle_quality(value_a, value_b, reference_a, reference_b, kind, mode, positives, negatives,
                   alpha, beta):  # fmt: skip
    """SPEC: ``Δ = [m_A(S) - m_B(S)] - [m_A(D) - m_B(D)]`` for scores and
    mode 'worse', signs flipped for losses, negated for 'better', ``|Δ|``
    for 'both'; times ``n^alpha * cb^beta``; ``-inf`` where undefined."""
    delta = (value_a - value_b) - (reference_a - reference_b)
    if kind == "loss":
        delta = -delta
    raw = {"worse": delta, "better": -delta, "both": np.abs(delta)}[mode]
    larger = np.maximum(positives, negatives)
    with np.errstate(invalid="ignore", divide="ignore"):
        balance = np.where(larger > 0, np.minimum(positives, negatives) / larger, 0.0)
    weight = np.power(positives + negatives, float(alpha)) * np.power(balance, float(beta))
    return np.where(np.isnan(value_a) | np.isnan(value_b), -np.inf, weight * raw)


def labelled_scores(rng, size, ties):
    is_positive = rng.random(size) < rng.uniform(0.2, 0.8)
    is_positive[:2] = True, False
    scores = rng.integers(0, 4, size) / 4 if ties else rng.random(size)
    return is_positive, scores


# --------------------------------------------------------------------------
# paired: two models on the same rows
# --------------------------------------------------------------------------


def paired_case(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(10, 17))
    is_positive, new = labelled_scores(rng, size, ties=seed % 2 == 0)
    old = rng.integers(0, 4, size) / 4 if seed % 4 == 0 else rng.random(size)
    data = pd.DataFrame(
        {"label": is_positive.astype(int), "new": new, "old": old},
        index=rng.permutation(size) * 3 + 5,  # any index works
    )
    k = int(rng.integers(3, 10))
    rows = np.sort(rng.choice(size, k, replace=False))
    return data, is_positive, new, old, rows


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_paired_estimate_bounds_every_subset_and_quality_is_the_definition(oracle, name, mode):
    n_tight = []
    for seed in range(N_CASES):
        data, is_positive, new, old, rows = paired_case(seed)
        masks = oracle.all_subsets(len(rows))
        values = {}
        for side, scores in (("old", old), ("new", new)):
            values[side] = subset_values(oracle, name, is_positive[rows], scores[rows], masks,
                                         is_positive, scores, rows)  # fmt: skip
            values[side + "_whole"] = whole_value(oracle, name, is_positive, scores)
        positives = masks.astype(int) @ is_positive[rows]
        negatives = masks.sum(1) - positives
        for alpha, beta in WEIGHTS:
            qf = ComparisonQF(make_measure(name), "label", size_weight=alpha, balance_weight=beta,
                              mode=mode)  # fmt: skip
            qf.calculate_constant_statistics(data, PAIRED)
            np.testing.assert_allclose(qf.dataset_values, (values["old_whole"], values["new_whole"]))
            qualities = oracle_quality(
                values["old"], values["new"], values["old_whole"], values["new_whole"],
                KINDS[name], mode, positives, negatives, alpha, beta,
            )  # fmt: skip
            cover = np.zeros(len(data), dtype=bool)
            cover[rows] = True
            stats = qf.statistics_of_mask(qf.sides.mask_of(cover))
            context = f"seed={seed} weights={alpha, beta} {stats}"
            assert not np.isnan(stats.optimistic_estimate), context
            assert stats.optimistic_estimate >= qualities.max() - TOL, "INVALID: " + context
            if np.isfinite(qualities[-1]):
                assert stats.quality == pytest.approx(qualities[-1], abs=TOL), context
            else:
                assert stats.quality == -np.inf, context
            assert stats.size_sg == len(rows)
            if (name, mode, alpha, beta) == ("roc_auc", "worse", 0, 0) and discordant_pair(
                is_positive[rows], old[rows], new[rows]
            ):
                # a positive above a negative for the baseline and below it for
                # the new model: that pair alone reaches the bound (1 - 0), so
                # no tighter raw bound exists for ROC AUC
                assert stats.optimistic_estimate == pytest.approx(qualities.max(), abs=TOL)
                n_tight.append(seed)
    if (name, mode) == ("roc_auc", "worse"):
        assert len(n_tight) >= 3


def discordant_pair(is_positive, old, new):
    above_old = old[is_positive][:, None] > old[~is_positive][None, :]
    below_new = new[is_positive][:, None] < new[~is_positive][None, :]
    return bool((above_old & below_new).any())


def test_paired_quality_of_every_subset_is_the_definition(oracle):
    """``statistics_of_mask`` of every subset of one cover, not only the cover."""
    data, is_positive, new, old, rows = paired_case(3)
    masks = oracle.all_subsets(len(rows))
    for name in NAMES:
        qf = ComparisonQF(make_measure(name), "label", size_weight=1, balance_weight=1)
        qf.calculate_constant_statistics(data, PAIRED)
        value = {side: subset_values(oracle, name, is_positive[rows], s[rows], masks, is_positive, s, rows)
                 for side, s in (("old", old), ("new", new))}  # fmt: skip
        positives = masks.astype(int) @ is_positive[rows]
        expected = oracle_quality(value["old"], value["new"], *qf.dataset_values, KINDS[name],
                                  "worse", positives, masks.sum(1) - positives, 1, 1)  # fmt: skip
        found = []
        for subset in masks:
            mask = np.zeros(len(data), dtype=bool)
            mask[rows[subset]] = True
            found.append(qf.statistics_of_mask(qf.sides.mask_of(mask)).quality)
        found = np.array(found)
        np.testing.assert_array_equal(np.isfinite(found), np.isfinite(expected))
        np.testing.assert_allclose(found[np.isfinite(found)], expected[np.isfinite(expected)], atol=TOL)


# --------------------------------------------------------------------------
# unpaired: one model, a reference and a current period
# --------------------------------------------------------------------------


def drift_case(seed):
    rng = np.random.default_rng(100 + seed)
    sizes = rng.integers(8, 14, 2)
    frames, parts = [], []
    for period, size in zip(("then", "now"), sizes):
        is_positive, scores = labelled_scores(rng, int(size), ties=seed % 2 == 0)
        rows = np.sort(rng.choice(size, int(rng.integers(2, 7)), replace=False))
        frames.append(pd.DataFrame({"label": np.where(is_positive, "yes", "no"), "score": scores,
                                    "period": period}))  # fmt: skip
        parts.append((is_positive, scores, rows))
    data = pd.concat(frames, ignore_index=True)
    data.index = np.arange(len(data))[::-1] + 10  # any index works
    return data, parts


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_unpaired_estimate_bounds_every_pair_of_subsets(oracle, name, mode):
    for seed in range(N_CASES):
        data, parts = drift_case(seed)
        sides = []
        for is_positive, scores, rows in parts:
            masks = oracle.all_subsets(len(rows))
            value = subset_values(oracle, name, is_positive[rows], scores[rows], masks, is_positive,
                                  scores, rows)  # fmt: skip
            positives = masks.astype(int) @ is_positive[rows]
            sides.append((value, positives, masks.sum(1) - positives,
                          whole_value(oracle, name, is_positive, scores)))  # fmt: skip
        (value_a, pos_a, neg_a, whole_a), (value_b, pos_b, neg_b, whole_b) = sides
        # every pair (T_A, T_B): A's subsets along rows, B's along columns
        cover = np.zeros(len(data), dtype=bool)
        cover[parts[0][2]] = True
        cover[len(parts[0][0]) + parts[1][2]] = True
        for alpha, beta in WEIGHTS:
            qf = ComparisonQF(make_measure(name), "label", positive_label="yes", size_weight=alpha,
                              balance_weight=beta, mode=mode)  # fmt: skip
            qf.calculate_constant_statistics(data, DRIFT)
            np.testing.assert_allclose(qf.dataset_values, (whole_a, whole_b))
            qualities = oracle_quality(
                value_a[:, None], value_b[None, :], whole_a, whole_b, KINDS[name], mode,
                pos_a[:, None] + pos_b[None, :], neg_a[:, None] + neg_b[None, :], alpha, beta,
            )  # fmt: skip
            stats = qf.statistics_of_mask(qf.sides.mask_of(cover))
            context = f"seed={seed} weights={alpha, beta} {stats}"
            assert not np.isnan(stats.optimistic_estimate), context
            assert stats.optimistic_estimate >= qualities.max() - TOL, "INVALID: " + context
            if np.isfinite(qualities[-1, -1]):
                assert stats.quality == pytest.approx(qualities[-1, -1], abs=TOL), context
            else:
                assert stats.quality == -np.inf, context
            assert stats.size_sg == min(len(parts[0][2]), len(parts[1][2]))


# --------------------------------------------------------------------------
# scikit-learn as the oracle of the AUCs, on subgroups of larger data
# --------------------------------------------------------------------------


def _sklearn_pr_auc(y, s):
    precision, recall, _ = metrics.precision_recall_curve(y, s)
    return metrics.auc(recall, precision)


@pytest.mark.parametrize("name, score", [("roc_auc", metrics.roc_auc_score), ("pr_auc", _sklearn_pr_auc)])
def test_qualities_equal_sklearn(name, score):
    rng = np.random.default_rng(7)
    n = 400
    data = pd.DataFrame({"g": rng.choice(list("abcd"), n), "label": rng.integers(0, 2, n)})
    data["new"] = np.round(rng.random(n) + 0.3 * data["label"], 1)
    data["old"] = np.round(rng.random(n) + 0.6 * data["label"], 2)
    data["period"] = np.where(rng.random(n) < 0.4, "now", "then")
    data["score"] = data["new"]
    for target in (PAIRED, DRIFT):
        qf = ComparisonQF(MEASURES[name](), "label", size_weight=0.5, balance_weight=1)
        for group in "abcd":
            subgroup = ps.Conjunction([ps.EqualitySelector("g", group)])
            stats = qf.calculate_statistics(subgroup, target, data)
            inside = (data["g"] == group).to_numpy()
            if target is PAIRED:
                sides = [(np.ones(n, bool), "old"), (np.ones(n, bool), "new")]
            else:
                now = (data["period"] == "now").to_numpy()
                sides = [(~now, "score"), (now, "score")]
            m = [score(data["label"][in_side & inside], data[column][in_side & inside])
                 for in_side, column in sides]  # fmt: skip
            whole = [score(data["label"][in_side], data[column][in_side]) for in_side, column in sides]
            delta = (m[0] - m[1]) - (whole[0] - whole[1])
            counts = [(data["label"][in_side & inside] == 1).sum() for in_side, _ in sides]
            positives = counts[1] if target is PAIRED else sum(counts)
            size = inside.sum()
            weight = size**0.5 * min(positives, size - positives) / max(positives, size - positives)
            assert (stats.baseline_measure, stats.measure) == pytest.approx(m, abs=1e-12)
            assert stats.quality == pytest.approx(weight * delta, abs=1e-12)


# --------------------------------------------------------------------------
# generalization awareness, validation
# --------------------------------------------------------------------------


def test_generalization_aware_wraps_the_comparison():
    data, *_ = paired_case(5)
    data["g"] = np.arange(len(data)) % 2
    data["h"] = np.arange(len(data)) % 3 == 0
    qf = ComparisonQF(MEASURES["arl"](), "label", size_weight=1, balance_weight=0)
    ga = subroc_ext.GeneralizationAwareQF(qf)
    g, h = ps.EqualitySelector("g", 1), ps.EqualitySelector("h", True)
    both = ga.calculate_statistics(ps.Conjunction([g, h]), PAIRED, data)
    raw = [qf.calculate_statistics(ps.Conjunction(s), PAIRED, data).raw_quality for s in ([g], [h])]
    assert both.generalization_quality == max(0.0, *raw)
    assert both.quality == pytest.approx(both.weight * (both.raw_quality - max(0.0, *raw)))


def test_invalid_targets_and_data_are_named():
    data, *_ = paired_case(1)
    qf = ComparisonQF(MEASURES["roc_auc"](), "label")
    with pytest.raises(TypeError, match="ComparisonTarget or a DriftTarget"):
        qf.calculate_constant_statistics(data, subroc_ext.SoftClassifierTarget("label", "new"))
    with pytest.raises(ValueError, match="current period has no rows"):
        qf.calculate_constant_statistics(data.assign(period="x", score=data["new"]), DRIFT)
    one_class = data.assign(label=1)
    with pytest.raises(ValueError, match="undefined on the baseline data"):
        qf.calculate_constant_statistics(one_class, PAIRED)


# --------------------------------------------------------------------------
# searches: FastSearch == ps.BestFirstSearch == brute force
# --------------------------------------------------------------------------


def comparison_frame(seed, ties="none", n=240):
    """Attributes, a label, a new score ``score`` (fails where a0 == 'p' and
    a1 == 'q'), an older score ``old``, and a period column."""
    data = scored_frame(seed, n, attributes=5, ties=ties)
    rng = np.random.default_rng(seed + 50)
    signal = rng.normal(size=n) + 1.2 * data["label"].to_numpy()
    data["old"] = TIES[ties](1 / (1 + np.exp(-signal)))
    data["period"] = rng.choice(["then", "now"], n)
    data["num"] = rng.normal(size=n).round(1)
    return data


TARGETS = {
    "paired": ComparisonTarget("label", "score", "old"),
    "drift": DriftTarget("label", "score", "period", current="now"),
}


def search_measure(name):
    if name == "unbounded":  # a user measure without extremes: the Python path, no pruning
        return KernelMeasure(lambda y, s: float(np.mean(s[y])), kind="score", name="mean_positive",
                             min_positives=1)  # fmt: skip
    return make_measure(name)


def run_search(algorithm, qf, target, data, selectors, depth, min_support, k):
    task = ps.SubgroupDiscoveryTask(
        data, target, selectors, qf, result_set_size=k, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    result = algorithm.execute(task)
    return [(float(q), frozenset(map(str, sg.selectors))) for q, sg, _ in result.results]


def brute_force(qf, target, data, selectors, depth, min_support, k):
    found = []
    for size in range(1, depth + 1):
        for combination in itertools.combinations(selectors, size):
            stats = qf.calculate_statistics(ps.Conjunction(list(combination)), target, data)
            if stats.size_sg >= min_support and stats.quality > -np.inf:
                found.append((stats.quality, frozenset(map(str, combination))))
    return sorted(found, key=lambda item: -item[0])[:k]


def assert_fast_search_is_exact(qf, target, data, selectors, depth, min_support, k):
    """FastSearch finds BestFirstSearch's top k, qualities bit for bit, and brute force's
    (``qf()`` makes a fresh quality function for each run)."""
    fast = run_search(FastSearch(), qf(), target, data, selectors, depth, min_support, k)
    best_first = run_search(ps.BestFirstSearch(), qf(), target, data, selectors, depth, min_support, k)
    assert_same_top_k(fast, best_first, k)
    assert [q for q, _ in fast] == [q for q, _ in best_first]  # bit-identical
    assert_same_top_k(fast, brute_force(qf(), target, data, selectors, depth, min_support, k), k)
    assert len(fast) == k


SEARCH_CASES = [  # (mode, (alpha, beta), generalization aware, ties)
    ("worse", (1, 1), True, "some"),
    ("better", (0, 0), False, "none"),
    ("both", (0.5, 1), True, "heavy"),
    ("worse", (2, 0), False, "some"),
]


@pytest.mark.parametrize("target_name", list(TARGETS))
@pytest.mark.parametrize("name", NAMES + ["unbounded"])
@pytest.mark.parametrize("case_index", range(len(SEARCH_CASES)))
def test_fast_search_equals_best_first_search_and_brute_force(target_name, name, case_index):
    mode, (alpha, beta), aware, ties = SEARCH_CASES[case_index]
    data = comparison_frame(case_index, ties)
    target = TARGETS[target_name]
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score", "old", "period"])
    depth, min_support, k = (2, 10, 12) if name == "unbounded" else (3, 8, 15)

    def qf():
        function = ComparisonQF(search_measure(name), "label", size_weight=alpha,
                                balance_weight=beta, mode=mode)  # fmt: skip
        return subroc_ext.GeneralizationAwareQF(function) if aware else function

    assert_fast_search_is_exact(qf, target, data, selectors, depth, min_support, k)


def test_compiled_and_python_evaluators_agree_bit_for_bit():
    """A subclass of a built-in measure runs through its own methods; the
    qualities are the compiled kernels' to the last bit."""

    class SlowROCAUC(subroc_ext.scoring.measures.ROCAUC):
        pass

    data = comparison_frame(3, "some")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score", "old", "period"])
    for target in TARGETS.values():
        found = [
            run_search(FastSearch(), ComparisonQF(measure, "label", size_weight=1, balance_weight=1),
                       target, data, selectors, 2, 5, 30)
            for measure in (MEASURES["roc_auc"](), SlowROCAUC())
        ]  # fmt: skip
        assert found[0] == found[1]


def test_pruning_skips_work_and_drift_min_support_applies_to_both_periods():
    data = comparison_frame(2, "some", n=600)
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score", "old", "period"])
    for target_name, target in TARGETS.items():
        searches = []
        for prune in (True, False):
            qf = ComparisonQF(MEASURES["roc_auc"](), "label", size_weight=1, balance_weight=1)
            qf.optimistic_estimates = prune
            search = FastSearch()
            searches.append((run_search(search, qf, target, data, selectors, 3, 20, 5), search))
        assert searches[0][0] == searches[1][0]
        pruned, unpruned = (search.candidates_evaluated for _, search in searches)
        # unpaired, the bound is exact over pairs of subsets (each period's
        # extremes are independent) and prunes little here; paired it prunes
        assert pruned < unpruned if target_name == "paired" else pruned <= unpruned
    qf = ComparisonQF(MEASURES["roc_auc"](), "label")
    found = FastSearch().execute(ps.SubgroupDiscoveryTask(
        data, TARGETS["drift"], selectors, qf, result_set_size=50, depth=2,
        constraints=[ps.MinSupportConstraint(40)],
    ))  # fmt: skip
    for _, subgroup, stats in found.results:
        assert min(stats.baseline_positives + stats.baseline_negatives,
                   stats.positives_count + stats.negatives_count) == stats.size_sg >= 40  # fmt: skip


@pytest.mark.parametrize("algorithm", ["DFS", "Apriori", "Apriori-unvectorized", "SimpleDFS"])
def test_pysubgroups_other_algorithms_agree(algorithm):
    """DFS and Apriori pass bitset descriptions (and vectorized Apriori stacked
    statistics): the same top-k as FastSearch, paired and unpaired."""
    data = comparison_frame(5, "some")
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score", "old", "period"])
    for target in TARGETS.values():
        def qf():
            return ComparisonQF(MEASURES["pr_auc"](), "label", size_weight=0.5, balance_weight=1)

        fast = run_search(FastSearch(), qf(), target, data, selectors, 2, 10, 10)
        other = run_search(EXHAUSTIVE[algorithm](), qf(), target, data, selectors, 2, 10, 10)
        if algorithm in EVALUATES_ROOT:
            fast = with_root(fast, 10)
        assert_same_top_k(other, fast, 10)


def test_pickles_any_number_of_times_after_a_search():
    """pysubgroup selectors pickle only once: the selector cache is not pickled."""
    import pickle

    data = comparison_frame(1)
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score", "old", "period"])
    for target in TARGETS.values():
        qf = subroc_ext.GeneralizationAwareQF(ComparisonQF(MEASURES["roc_auc"](), "label"))
        expected = run_search(ps.BestFirstSearch(), qf, target, data, selectors, 2, 10, 5)
        for _ in range(3):
            qf = pickle.loads(pickle.dumps(qf))
        assert run_search(FastSearch(), qf, target, data, selectors, 2, 10, 5) == expected


def test_both_periods_reach_the_measure_kernel_with_the_group_bounds_of_one_dataset(monkeypatch):
    """Unpaired, the second period's tie-group bounds are shifted past the
    first's rows; they keep the dtype :func:`tie_group_bounds` gives every
    other search (int32), so numba compiles ``measure_children`` once."""
    from subroc_ext.engine import evaluators
    from subroc_ext.scoring import cover_kernels

    dtypes = set()
    kernel = cover_kernels.measure_children

    def spy(parent, words, candidates, positive, negative, start, end, *rest):
        dtypes.add((start.dtype, end.dtype))
        return kernel(parent, words, candidates, positive, negative, start, end, *rest)

    monkeypatch.setattr(evaluators.cover_kernels, "measure_children", spy)
    data = comparison_frame(2, "some")
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score", "old", "period"])
    qf = ComparisonQF(MEASURES["roc_auc"](), "label")
    FastSearch().execute(ps.SubgroupDiscoveryTask(data, TARGETS["drift"], selectors, qf, result_set_size=5, depth=2))
    single = cover_kernels.tie_group_bounds(np.arange(len(data)))[0].dtype
    assert dtypes == {(single, single)}
