"""Tests of :class:`subroc_ext.GeneralizationAwareQF`.

* The quality ``phi_ga(S) = w(S) * (q(S) - g(S))`` equals an independent
  brute-force computation: ``g(S)`` is the largest raw quality over *every*
  proper subset of the pattern's selectors (the empty pattern with ``q = 0``),
  each evaluated from scratch with a plain quality function.
* The optimistic estimate bounds the quality of the pattern itself and of
  every specialization (all refinements up to depth 3, enumerated).
* Pruning never changes a search result: every exhaustive pysubgroup
  algorithm returns the top-k of an exhaustive search that never prunes
  (``ps.SimpleSearch``, or the same algorithm with an estimate of ``+inf``),
  and of a plain enumeration of all patterns with the brute-force formula.
"""

import functools
import itertools
import pickle

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import roc_auc_score as sklearn_roc_auc

import subroc_ext
from subroc_ext.engine.counting import CountingQF
from search_helpers import EVALUATES_ROOT, EXHAUSTIVE
from synthetic import multiclass_frame

TARGET = subroc_ext.SoftClassifierTarget("label", "score")
QF_NAMES = ("roc", "pr", "arl", "attribution")
#: (size_weight alpha, balance_weight beta)
WEIGHTS = [(0, 0), (1, 1), (0.3, 1)]


# ---------------------------------------------------------------------------
# data and helpers
# ---------------------------------------------------------------------------


def synthetic(seed, n=360, n_attributes=5, ties=False):
    """Categorical attributes ``a0..`` (2-4 values), a numeric ``x``, a 0/1
    label and the score of a classifier that fails where ``a0 == 'p' and
    a1 == 'q'`` (planted effect, scores negated) and is noisy where ``x > 1``."""
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(
        {f"a{i}": rng.choice(list("pqrs")[: 2 + i % 3], size=n) for i in range(n_attributes)}
    )
    data["x"] = rng.normal(size=n)
    label = rng.random(n) < 0.3 + 0.2 * (data["a2"] == "p").to_numpy()
    signal = rng.normal(size=n) + 1.5 * label
    planted = ((data["a0"] == "p") & (data["a1"] == "q")).to_numpy()
    signal[planted] = -signal[planted]
    noisy = (data["x"] > 1).to_numpy()
    signal[noisy] = rng.normal(size=noisy.sum())
    score = 1.0 / (1.0 + np.exp(-signal))
    if ties:
        score = np.round(score, 1)
    data["label"] = label.astype(int)
    data["score"] = score
    return data


def make_plain(name, mode="worse", weights=(0, 0)):
    """A plain (not generalization-aware) built-in quality function."""
    size, balance = weights
    if name == "roc":
        return subroc_ext.ROCAUCQF("label", balance, size, mode=mode)
    cls = {
        "pr": subroc_ext.PRAUCQF,
        "arl": subroc_ext.ARLQF,
        "attribution": subroc_ext.AttributionMeanQF,
    }[name]
    return cls("label", 1, balance, size, mode=mode)


def make_ga(name, mode="worse", weights=(0, 0)):
    return subroc_ext.GeneralizationAwareQF(make_plain(name, mode, weights))


def cover_of(selectors, data):
    mask = np.ones(len(data), dtype=bool)
    for selector in selectors:
        mask &= np.asarray(selector.covers(data), dtype=bool)
    return mask


def direct_weight(mask, data, weights):
    """``n^alpha * cb^beta`` (``0^0 = 1``) from the cover, with plain Python."""
    size_weight, balance_weight = weights
    labels = data["label"].to_numpy()[mask]
    positives, negatives = int(np.sum(labels == 1)), int(np.sum(labels == 0))
    larger = max(positives, negatives)
    balance = min(positives, negatives) / larger if larger else 0.0
    return float(positives + negatives) ** size_weight * balance**balance_weight


class BruteForceGA:
    """``phi_ga`` straight from its definition: ``g`` enumerates every proper
    subset of the selectors, each evaluated by a fresh plain quality function."""

    def __init__(self, name, mode, weights, data):
        self.plain = make_plain(name, mode, (0, 0))
        self.plain.calculate_constant_statistics(data, TARGET)
        self.data = data
        self.weights = weights

    @functools.lru_cache(maxsize=None)
    def raw(self, selectors):
        """``q`` of the pattern with these selectors (a sorted tuple)."""
        if not selectors:
            return 0.0
        conjunction = ps.Conjunction(list(selectors))
        return self.plain.calculate_statistics(conjunction, TARGET, self.data).raw_quality

    def generalization(self, selectors):
        selectors = tuple(sorted(selectors, key=str))
        return max(
            self.raw(subset)
            for size in range(len(selectors))
            for subset in itertools.combinations(selectors, size)
        ) if selectors else 0.0  # the empty pattern: no proper generalization

    def quality(self, selectors):
        selectors = tuple(sorted(selectors, key=str))
        raw = self.raw(selectors)
        if raw == -np.inf:
            return -np.inf
        weight = direct_weight(cover_of(selectors, self.data), self.data, self.weights)
        return weight * (raw - self.generalization(selectors))


def random_patterns(data, rng, count, max_length=3):
    """Random conjunctions of equality selectors on distinct attributes."""
    attributes = [c for c in data.columns if c.startswith("a")]
    patterns = []
    for _ in range(count):
        length = int(rng.integers(1, max_length + 1))
        chosen = rng.choice(attributes, size=length, replace=False)
        patterns.append(
            tuple(ps.EqualitySelector(a, rng.choice(sorted(data[a].unique()))) for a in chosen)
        )
    return patterns


def _infinite_estimate(self, subgroup, target, data, statistics=None):
    """``+inf`` (never prune), element-wise for vectorized Apriori (and not
    NaN for statistics whose quality is ``-inf``)."""
    if statistics is None:
        statistics = self.calculate_statistics(subgroup, target, data)
    return np.full(np.shape(statistics.optimistic_estimate), np.inf)


class UnprunedGA(subroc_ext.GeneralizationAwareQF):
    """Generalization-aware quality function that never lets a search prune."""

    optimistic_estimate = _infinite_estimate




def run(algorithm, qf, data, selectors, *, depth, min_support, k):
    task = ps.SubgroupDiscoveryTask(
        data, TARGET, list(selectors), qf, result_set_size=k, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    result = algorithm.execute(task)
    return sorted(
        ((float(q), frozenset(map(str, sg.selectors))) for q, sg, _ in result.results),
        key=lambda item: -item[0],
    )


def with_root(result, k):
    """The top-k once the empty description (quality 0) competes too."""
    merged = sorted(result + [(0.0, frozenset())], key=lambda item: -item[0])
    return merged[:k]


def assert_same_top_k(found, expected, k):
    """Same sorted qualities; same descriptions except those tied with the
    k-th quality (which of several tied patterns fills the last places is
    arbitrary)."""
    found_q = [q for q, _ in found]
    expected_q = [q for q, _ in expected]
    assert len(found_q) == len(expected_q), (found, expected)
    assert np.allclose(found_q, expected_q, rtol=1e-9, atol=1e-12), (found, expected)
    cutoff = expected_q[-1] if len(expected) == k else np.nan

    def untied(items):
        return {d for q, d in items if not np.isclose(q, cutoff, rtol=1e-9, atol=1e-12)}

    assert untied(found) == untied(expected)


@functools.lru_cache(maxsize=None)
def search_data():
    return synthetic(seed=3, n=360)


@functools.lru_cache(maxsize=None)
def search_selectors():
    return tuple(ps.create_selectors(search_data(), nbins=4, ignore=["label", "score"]))


SEARCH = dict(depth=3, min_support=10, k=10)


# ---------------------------------------------------------------------------
# the quality against brute force
# ---------------------------------------------------------------------------


def test_synthetic_data_is_as_intended():
    data = search_data()
    assert len(data) == 360
    assert data["score"].nunique() == 360
    assert len(search_selectors()) == 18  # 2+3+4+2+3 values, 4 bins of x
    planted = ((data["a0"] == "p") & (data["a1"] == "q")).to_numpy()
    labels, scores = data["label"].to_numpy(), data["score"].to_numpy()
    assert sklearn_roc_auc(labels[planted], scores[planted]) < 0.3
    assert sklearn_roc_auc(labels[~planted], scores[~planted]) > 0.75


@pytest.mark.parametrize("weights", WEIGHTS + [(1, 0.3)], ids=str)
@pytest.mark.parametrize("mode", ["worse", "better", "both"])
@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_quality_equals_brute_force(qf_name, mode, weights):
    """phi_ga, q, g and w of random patterns (up to 3 selectors) against the
    brute-force definition, on random small data with and without ties."""
    for seed, ties in [(10, False), (11, True)]:
        data = synthetic(seed, n=120, ties=ties)
        brute = BruteForceGA(qf_name, mode, weights, data)
        ga = make_ga(qf_name, mode, weights)
        ga.calculate_constant_statistics(data, TARGET)
        patterns = random_patterns(data, np.random.default_rng(seed), 25)
        assert {len(p) for p in patterns} == {1, 2, 3}
        for pattern in patterns:
            statistics = ga.calculate_statistics(ps.Conjunction(list(pattern)), TARGET, data)
            expected = brute.quality(pattern)
            if expected == -np.inf:
                assert statistics.quality == -np.inf
            else:
                assert np.isclose(statistics.quality, expected, rtol=1e-10, atol=1e-12)
            assert np.isclose(statistics.generalization_quality, brute.generalization(pattern))
            expected_raw = brute.raw(tuple(sorted(pattern, key=str)))
            assert statistics.raw_quality == pytest.approx(expected_raw)
            mask = cover_of(pattern, data)
            assert statistics.size_sg == mask.sum()
            if mask.any():
                assert np.isclose(statistics.weight, direct_weight(mask, data, weights))
            assert ga.evaluate(None, None, None, statistics) == statistics.quality


def test_roc_auc_quality_against_sklearn():
    """Fully independent of subroc_ext: q from sklearn's roc_auc_score on the
    covers, g over all proper subsets, w from the counts."""
    data = synthetic(12, n=150)
    labels, scores = data["label"].to_numpy(), data["score"].to_numpy()
    overall = sklearn_roc_auc(labels, scores)

    def q(selectors):
        if not selectors:
            return 0.0
        mask = cover_of(selectors, data)
        if len(np.unique(labels[mask])) < 2:
            return -np.inf
        return overall - sklearn_roc_auc(labels[mask], scores[mask])

    ga = make_ga("roc", "worse", (1, 1))
    checked = 0
    for pattern in random_patterns(data, np.random.default_rng(5), 30):
        g = max(q(s) for r in range(len(pattern)) for s in itertools.combinations(pattern, r))
        statistics = ga.calculate_statistics(ps.Conjunction(list(pattern)), TARGET, data)
        if q(pattern) == -np.inf:
            assert statistics.quality == -np.inf
            continue
        mask = cover_of(pattern, data)
        expected = direct_weight(mask, data, (1, 1)) * (q(pattern) - g)
        assert statistics.quality == pytest.approx(expected, rel=1e-10, abs=1e-12)
        checked += 1
    assert checked >= 20


def test_generalization_penalty_is_visible():
    """On the planted data, the planted pattern's generalization a0 == 'p'
    already underperforms, so the pattern's GA quality is its raw quality
    minus a positive g; a pattern that merely specializes the planted one
    with an irrelevant condition gains little over it."""
    data = search_data()
    ga = make_ga("roc", "worse", (0, 0))
    plain = make_plain("roc", "worse", (0, 0))
    plain.calculate_constant_statistics(data, TARGET)
    p = ps.EqualitySelector("a0", "p")
    q_ = ps.EqualitySelector("a1", "q")
    r = ps.EqualitySelector("a3", "p")

    def raw(*selectors):
        return plain.calculate_statistics(ps.Conjunction(list(selectors)), TARGET, data).raw_quality

    planted = ga.calculate_statistics(ps.Conjunction([p, q_]), TARGET, data)
    assert raw(p) > 0.05
    assert planted.generalization_quality == pytest.approx(max(raw(p), raw(q_), 0.0))
    assert planted.quality == pytest.approx(raw(p, q_) - max(raw(p), raw(q_), 0.0))
    assert planted.quality < raw(p, q_) - 0.05
    specialized = ga.calculate_statistics(ps.Conjunction([p, q_, r]), TARGET, data)
    assert specialized.generalization_quality >= raw(p, q_)
    assert specialized.quality == pytest.approx(
        raw(p, q_, r) - max(raw(p, q_), raw(p, r), raw(q_, r), raw(p), raw(q_), raw(r), 0.0)
    )


def test_empty_pattern_and_plain_masks_have_quality_zero():
    data = search_data()
    for name in QF_NAMES:
        ga = make_ga(name, "worse", (1, 1))
        ga.calculate_constant_statistics(data, TARGET)
        root = ga.calculate_statistics(ps.Conjunction([]), TARGET, data)
        assert root.raw_quality == pytest.approx(0.0, abs=1e-12)
        assert root.generalization_quality == 0.0
        assert root.quality == pytest.approx(0.0, abs=1e-9)
        everything = ga.calculate_statistics(slice(None), TARGET, data)
        assert everything.quality == pytest.approx(0.0, abs=1e-9)
        assert everything.size_sg == len(data)


def test_result_does_not_depend_on_evaluation_order_or_previous_data():
    """The memo of generalization qualities: evaluating specializations first,
    or another dataset first, gives the qualities of a fresh function."""
    data = synthetic(13, n=120)
    other = synthetic(14, n=100)
    patterns = random_patterns(data, np.random.default_rng(1), 20)

    def qualities(qf, order):
        return {
            i: qf.calculate_statistics(ps.Conjunction(list(patterns[i])), TARGET, data)
            for i in order
        }

    fresh = qualities(make_ga("pr", "both", (1, 1)), range(len(patterns)))
    reordered_qf = make_ga("pr", "both", (1, 1))
    reordered_qf.calculate_constant_statistics(other, TARGET)
    for pattern in patterns:  # fill the memo with another dataset's values
        reordered_qf.calculate_statistics(ps.Conjunction(list(pattern)), TARGET, other)
    reordered = qualities(reordered_qf, reversed(range(len(patterns))))
    for index, statistics in fresh.items():
        assert tuple(reordered[index]) == pytest.approx(tuple(statistics), nan_ok=True)


def test_rejects_other_quality_functions():
    with pytest.raises(TypeError, match="SoftClassifierQF"):
        subroc_ext.GeneralizationAwareQF(ps.StandardQF(0.5))


# ---------------------------------------------------------------------------
# the optimistic estimate
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weights", WEIGHTS + [(1, 0.3), (2, 0)], ids=str)
@pytest.mark.parametrize("mode", ["worse", "better", "both"])
@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_estimate_bounds_every_specialization(qf_name, mode, weights):
    """For every pattern S of up to 2 selectors: oe(S) >= phi_ga(T) for S
    itself and for every refinement T of S up to depth 3 (brute force),
    and oe(S) is never NaN."""
    data = synthetic(20 + QF_NAMES.index(qf_name), n=70, n_attributes=4, ties=mode == "both")
    selectors = [s for s in ps.create_selectors(data, nbins=2, ignore=["label", "score"])]
    brute = BruteForceGA(qf_name, mode, weights, data)
    ga = make_ga(qf_name, mode, weights)
    ga.calculate_constant_statistics(data, TARGET)
    patterns = [c for r in range(4) for c in itertools.combinations(selectors, r)]
    quality = {frozenset(p): brute.quality(p) for p in patterns}
    violations, informative = [], 0
    for pattern in patterns:
        if len(pattern) > 2:
            continue
        statistics = ga.calculate_statistics(ps.Conjunction(list(pattern)), TARGET, data)
        estimate = statistics.optimistic_estimate
        assert not np.isnan(estimate)
        assert ga.optimistic_estimate(None, None, None, statistics) == estimate
        key = frozenset(pattern)
        best = max(q for other, q in quality.items() if key <= other)
        if best > estimate + 1e-9 * max(1.0, abs(best)):
            violations.append((pattern, estimate, best))
        informative += estimate < np.inf
    assert not violations, violations[:5]
    assert informative > 0


def test_estimate_prunes_when_generalization_explains_everything():
    """A specialization of the planted pattern can at most reach the raw
    bound minus the planted pattern's own quality: the estimate drops below
    the estimate of the plain weighted quality function."""
    data = search_data()
    planted = ps.Conjunction([ps.EqualitySelector("a0", "p"), ps.EqualitySelector("a1", "q")])
    for weights in [(0, 0), (1, 1)]:
        ga = make_ga("roc", "worse", weights)
        plain = make_plain("roc", "worse", weights)
        plain.calculate_constant_statistics(data, TARGET)
        statistics = ga.calculate_statistics(planted, TARGET, data)
        plain_statistics = plain.calculate_statistics(planted, TARGET, data)
        best_so_far = max(statistics.raw_quality, statistics.generalization_quality)
        margin = max(plain_statistics.raw_bound - best_so_far, 0.0)
        expected = max(plain_statistics.max_weight * margin, statistics.quality)
        assert statistics.optimistic_estimate == pytest.approx(expected)
        assert statistics.optimistic_estimate < plain_statistics.optimistic_estimate


# ---------------------------------------------------------------------------
# searches: pruning never changes the result
# ---------------------------------------------------------------------------

SEARCH_CASES = [
    (name, "worse", weights) for name in QF_NAMES for weights in WEIGHTS
] + [("roc", "both", (0, 0)), ("roc", "both", (1, 1))]


@functools.lru_cache(maxsize=None)
def reference_result(qf_name, mode, weights):
    """Exhaustive search without pruning."""
    return run(
        ps.SimpleSearch(show_progress=False), make_ga(qf_name, mode, weights),
        search_data(), search_selectors(), **SEARCH,
    )  # fmt: skip


@pytest.mark.parametrize(("qf_name", "mode", "weights"), SEARCH_CASES, ids=str)
def test_pruned_search_equals_exhaustive_search(qf_name, mode, weights):
    reference = reference_result(qf_name, mode, weights)
    assert len(reference) == SEARCH["k"]
    assert all(np.isfinite(q) for q, _ in reference)
    if qf_name != "arl":  # the ARL of a subgroup is mostly below that of the data
        assert reference[0][0] > 0
    k = SEARCH["k"]
    for name, algorithm in EXHAUSTIVE.items():
        qf = make_ga(qf_name, mode, weights)
        found = run(algorithm(), qf, search_data(), search_selectors(), **SEARCH)
        expected = with_root(reference, k) if name in EVALUATES_ROOT else reference
        assert_same_top_k(found, expected, k)


@pytest.mark.parametrize("algorithm_name", EXHAUSTIVE)
def test_pruned_search_equals_same_algorithm_without_pruning(algorithm_name):
    """Each algorithm with the estimate == the same algorithm with +inf."""
    k = SEARCH["k"]
    settings = [("roc", "worse", (1, 1)), ("arl", "worse", (0.3, 1)), ("pr", "both", (0, 0))]
    for qf_name, mode, weights in settings:
        pruned = run(
            EXHAUSTIVE[algorithm_name](), make_ga(qf_name, mode, weights),
            search_data(), search_selectors(), **SEARCH,
        )  # fmt: skip
        unpruned = run(
            EXHAUSTIVE[algorithm_name](), UnprunedGA(make_plain(qf_name, mode, weights)),
            search_data(), search_selectors(), **SEARCH,
        )  # fmt: skip
        assert_same_top_k(pruned, unpruned, k)


def test_unpruned_class_never_prunes():
    data = search_data()
    qf = UnprunedGA(make_plain("roc", "worse", (1, 1)))
    qf.calculate_constant_statistics(data, TARGET)
    statistics = [
        qf.calculate_statistics(ps.Conjunction(list(p)), TARGET, data)
        for p in [(), (ps.EqualitySelector("a0", "p"),), (ps.EqualitySelector("a0", "zzz"),)]
    ]
    assert statistics[2].quality == -np.inf
    stacked = type(statistics[0])._make(np.array(v) for v in zip(*statistics))
    assert np.array_equal(qf.optimistic_estimate(None, None, None, stacked), [np.inf] * 3)
    assert qf.optimistic_estimate(None, None, None, statistics[2]) == np.inf


@pytest.mark.parametrize(
    ("qf_name", "mode", "weights"), [("arl", "better", (0, 0)), ("roc", "worse", (2, 0))], ids=str
)
def test_pruning_saves_work(qf_name, mode, weights):
    """The estimate is useful: with pruning, best-first search evaluates fewer
    candidates (and finds the same top-k)."""
    calls, found = {}, {}
    for pruning in (True, False):
        counting = CountingQF(subroc_ext.GeneralizationAwareQF(make_plain(qf_name, mode, weights)), pruning)
        found[pruning] = run(
            ps.BestFirstSearch(), counting, search_data(), search_selectors(), depth=3,
            min_support=10, k=3,
        )  # fmt: skip
        calls[pruning] = counting.candidates
    assert_same_top_k(found[True], found[False], 3)
    assert calls[True] < 0.5 * calls[False]


@pytest.mark.parametrize("qf_name", ["roc", "attribution"])
def test_search_equals_brute_force_enumeration(qf_name):
    """DFS and BestFirstSearch return the top-k of an enumeration of every
    pattern of distinct selectors, scored by the brute-force formula."""
    data, selectors = search_data(), search_selectors()
    weights, k = (1, 1), SEARCH["k"]
    brute = BruteForceGA(qf_name, "worse", weights, data)
    every = []
    for size in range(1, SEARCH["depth"] + 1):
        for pattern in itertools.combinations(selectors, size):
            if cover_of(pattern, data).sum() >= SEARCH["min_support"]:
                quality = brute.quality(pattern)
                if quality > -np.inf:
                    every.append((quality, frozenset(map(str, pattern))))
    every.sort(key=lambda item: -item[0])
    expected = every[:k]
    best_first = run(ps.BestFirstSearch(), make_ga(qf_name, "worse", weights), data, selectors, **SEARCH)
    assert_same_top_k(best_first, expected, k)
    dfs = run(ps.DFS(), make_ga(qf_name, "worse", weights), data, selectors, **SEARCH)
    assert_same_top_k(dfs, with_root(expected, k), k)
    # the planted pattern is among the best
    assert frozenset({"a0=='p'", "a1=='q'"}) in [d for _, d in expected[:3]]


def test_result_to_dataframe():
    data, selectors = search_data(), search_selectors()
    task = ps.SubgroupDiscoveryTask(
        data, TARGET, list(selectors), make_ga("roc", "worse", (1, 1)), result_set_size=5,
        depth=2, constraints=[ps.MinSupportConstraint(10)],
    )  # fmt: skip
    result = ps.BestFirstSearch().execute(task)
    frame = result.to_dataframe()
    assert list(frame.columns) == ["quality", "subgroup"]
    assert len(frame) == 5
    qualities = [q for q, _, _ in result.results]
    assert np.array_equal(frame["quality"].to_numpy(), qualities)
    assert qualities == sorted(qualities, reverse=True)
    assert [str(s) for s in frame["subgroup"]] == [str(sg) for _, sg, _ in result.results]
    for _, subgroup, statistics in result.results:
        assert isinstance(statistics, subroc_ext.objective.generalization.GeneralizationAwareStatistics)
        assert statistics.size_sg == np.asarray(subgroup.covers(data), dtype=bool).sum() >= 10


def _multiclass_task(generalization_aware):
    data, mapping = multiclass_frame(3, n=300)
    qf = subroc_ext.AUCMuQF("grade", mapping, 1, 1)
    target = subroc_ext.MultiClassTarget("grade", mapping)
    selectors = ps.create_selectors(data, ignore=["grade", *mapping.values()])
    qf = subroc_ext.GeneralizationAwareQF(qf) if generalization_aware else qf
    return ps.SubgroupDiscoveryTask(data, target, selectors, qf, result_set_size=6, depth=2)


def _binary_task(generalization_aware):
    data = synthetic(4)
    qf = (make_ga if generalization_aware else make_plain)("roc", weights=(1, 1))
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    return ps.SubgroupDiscoveryTask(data, TARGET, selectors, qf, result_set_size=6, depth=2)


@pytest.mark.parametrize("generalization_aware", [False, True])
@pytest.mark.parametrize("make_task", [_binary_task, _multiclass_task], ids=["binary", "multiclass"])
def test_quality_functions_pickle_any_number_of_times_after_a_search(make_task, generalization_aware):
    """After a pysubgroup search filled their caches, the quality functions
    pickle again and again (a cluster receives them once per distributed
    call), and a copy gives the same statistics. pysubgroup's selectors
    pickle only once, so no cache may hold them: the multi-class selector
    covers and the generalization memo are keyed by description."""
    task = make_task(generalization_aware)
    result = ps.BestFirstSearch().execute(task)
    for _ in range(3):
        copy = pickle.loads(pickle.dumps(task.qf))
    for _, subgroup, statistics in result.results:
        assert copy.calculate_statistics(subgroup, task.target, task.data) == statistics
