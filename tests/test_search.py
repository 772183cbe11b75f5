"""Search-level tests: subroc-ext quality functions inside every pysubgroup algorithm.

The central guarantee is that pruning with the optimistic estimates never
changes a search result. Every exhaustive pysubgroup algorithm (with pruning)
must return the same top-k as an exhaustive search that never prunes
(``ps.SimpleSearch``, or the same algorithm with an estimate of ``+inf``), for
every quality function, mode and pair of weights, on seeded synthetic data
with and without tied scores. Results are compared by their sorted
qualities, and by their descriptions except for those tied with the k-th
quality (which of several tied subgroups fills the last places is arbitrary).
"""

import functools
import itertools

import numpy as np
import pysubgroup as ps
import pytest
from sklearn.metrics import roc_auc_score as sklearn_roc_auc

import subroc_ext
from search_helpers import (
    EVALUATES_ROOT,
    EXHAUSTIVE,
    TARGET,
    assert_same_top_k,
    brute_force_top_k,
    make_qf,
    run,
    with_root,
)
from synthetic import INDEXES, messy, scored_frame
from subroc_ext.scoring import measures
from subroc_ext.engine.counting import CountingQF

MODES = ("worse", "better", "both")
#: (size_weight alpha, balance_weight beta)
WEIGHTS = [(0, 0), (1, 1), (0.3, 1), (1, 0.3), (2, 0)]
QF_NAMES = ("roc", "pr", "arl", "attribution")



# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------



#: Search settings: untied scores at depth 3, tied scores at depth 2, and
#: heavily tied scores with a positive minimum quality.
CASES = {
    "untied-depth3": dict(data=dict(seed=0, ties="none"), depth=3, min_support=5, k=10),
    "tied-depth2": dict(data=dict(seed=1, ties="some"), depth=2, min_support=10, k=10),
    "heavy-ties-depth2": dict(
        data=dict(seed=2, n=200, ties="heavy"), depth=2, min_support=8, k=15, min_quality=0.0
    ),
}


@functools.lru_cache(maxsize=None)
def case_data(name):
    return scored_frame(**{"n": 300, "attributes": 6, **CASES[name]["data"]})


@functools.lru_cache(maxsize=None)
def case_selectors(name):
    return tuple(ps.create_selectors(case_data(name), ignore=["label", "score"]))


def test_synthetic_data_has_the_intended_ties():
    assert case_data("untied-depth3")["score"].nunique() == 300
    assert case_data("tied-depth2")["score"].nunique() <= 11
    assert sorted(case_data("heavy-ties-depth2")["score"].unique()) == [0.0, 0.5, 1.0]
    assert len(case_selectors("untied-depth3")) == 18


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------




def _infinite_estimate(self, subgroup, target, data, statistics=None):
    """``+inf`` (never prune), element-wise for vectorized Apriori."""
    if statistics is None:
        statistics = self.calculate_statistics(subgroup, target, data)
    return np.full(np.shape(statistics.optimistic_estimate), np.inf)


@functools.lru_cache(maxsize=None)
def _unpruned_class(cls):
    return type(f"Unpruned{cls.__name__}", (cls,), {"optimistic_estimate": _infinite_estimate})


def with_class(qf, cls):
    """A copy of ``qf`` as an instance of ``cls`` (a subclass of its class)."""
    clone = cls.__new__(cls)
    clone.__dict__.update(qf.__dict__)
    return clone


def without_pruning(qf):
    """A copy of ``qf`` whose class never lets pysubgroup prune."""
    return with_class(qf, _unpruned_class(type(qf)))


def run_case(algorithm, qf, case, **execute):
    settings = {key: value for key, value in CASES[case].items() if key != "data"}
    return run(algorithm, qf, case_data(case), case_selectors(case), **settings, **execute)



# ---------------------------------------------------------------------------
# pruning never changes the result
# ---------------------------------------------------------------------------


#: (measure, mode, weights) of the pruning test: each measure with each
#: weighting, the modes in turn, so that every pair of a measure, a mode and a
#: weighting occurs (a covering array of strength 2: 20 searches rather than
#: the 60 of the full product). That the estimate bounds every subgroup's
#: quality for each of the 60 triples is proven by brute force over all
#: subsets in test_estimates.py (``test_estimate_bounds_every_subset``); here
#: each algorithm's pruning protocol meets every measure, mode and weighting.
PRUNING_GRID = [
    (name, MODES[(i + j) % len(MODES)], weights)
    for i, name in enumerate(QF_NAMES)
    for j, weights in enumerate(WEIGHTS)
]


def test_the_pruning_grid_covers_every_pair():
    for first, second in itertools.combinations(range(3), 2):
        pairs = {(str(t[first]), str(t[second])) for t in PRUNING_GRID}
        values = [QF_NAMES, MODES, WEIGHTS]
        assert len(pairs) == len(values[first]) * len(values[second])


@pytest.mark.parametrize(("qf_name", "mode", "weights"), PRUNING_GRID, ids=str)
def test_pruned_search_equals_exhaustive_search(qf_name, mode, weights):
    """Every exhaustive algorithm with pruning == SimpleSearch (never prunes),
    and all algorithms agree with each other."""
    for case, settings in CASES.items():
        k = settings["k"]
        min_quality = settings.get("min_quality", -np.inf)
        qf = make_qf(qf_name, mode, weights)
        reference = run_case(ps.SimpleSearch(show_progress=False), qf, case)
        if min_quality == -np.inf:
            assert reference, "the reference search found nothing: a vacuous comparison"
        results = {}
        for name, algorithm in EXHAUSTIVE.items():
            results[name] = run_case(algorithm(), make_qf(qf_name, mode, weights), case)
            expected = with_root(reference, k, min_quality) if name in EVALUATES_ROOT else reference
            assert_same_top_k(results[name], expected, k)
        # all algorithms against each other
        for first, second in itertools.combinations(EXHAUSTIVE, 2):
            if (first in EVALUATES_ROOT) == (second in EVALUATES_ROOT):
                assert_same_top_k(results[first], results[second], k)


@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_unpruned_variants_of_every_algorithm_agree(qf_name):
    """Each algorithm run with an estimate of +inf (and SimpleDFS without
    estimates) equals the same algorithm with pruning, and SimpleSearch."""
    case = "tied-depth2"
    k = CASES[case]["k"]
    for mode, weights in [("worse", (1, 1)), ("both", (0.3, 1)), ("better", (2, 0))]:
        qf = make_qf(qf_name, mode, weights)
        reference = run_case(ps.SimpleSearch(show_progress=False), qf, case)
        for name, algorithm in EXHAUSTIVE.items():
            pruned = run_case(algorithm(), make_qf(qf_name, mode, weights), case)
            unpruned = run_case(algorithm(), without_pruning(make_qf(qf_name, mode, weights)), case)
            assert_same_top_k(pruned, unpruned, k)
            expected = with_root(reference, k) if name in EVALUATES_ROOT else reference
            assert_same_top_k(unpruned, expected, k)
        no_estimates = run_case(
            ps.SimpleDFS(), make_qf(qf_name, mode, weights), case, use_optimistic_estimates=False
        )
        assert_same_top_k(no_estimates, with_root(reference, k), k)


def test_without_pruning_really_disables_pruning():
    qf = without_pruning(make_qf("roc", "worse", (1, 1)))
    assert isinstance(qf, subroc_ext.ROCAUCQF)
    data = case_data("tied-depth2")
    qf.calculate_constant_statistics(data, TARGET)
    statistics = qf.calculate_statistics(ps.Conjunction([]), TARGET, data)
    assert np.isfinite(statistics.optimistic_estimate)
    assert qf.optimistic_estimate(None, None, None, statistics) == np.inf
    stacked = type(statistics)._make(np.array([v, v]) for v in statistics)
    np.testing.assert_array_equal(qf.optimistic_estimate(None, None, None, stacked), [np.inf] * 2)


#: Settings where pruning must save work on the "untied-depth3" data (where
#: it can't, e.g. ROC AUC "worse" with (0, 0): the top-10 reach the largest
#: possible quality m(D) - 0, and every cover with a misordered pair may too).
PRUNING_CASES = [
    ("roc", "better", (0, 0)),
    ("roc", "worse", (2, 0)),
    ("pr", "worse", (2, 0)),
    ("pr", "better", (1, 1)),
    ("arl", "worse", (0, 0)),
    ("arl", "better", (1, 1)),
    ("attribution", "worse", (1, 1)),
    ("attribution", "both", (2, 0)),
]


@pytest.mark.parametrize(("qf_name", "mode", "weights"), PRUNING_CASES, ids=str)
def test_pruning_saves_work(qf_name, mode, weights):
    """The estimates are useful: best-first search with pruning evaluates
    fewer candidates than without (and finds the same result)."""
    case = "untied-depth3"
    pruned = CountingQF(make_qf(qf_name, mode, weights))
    unpruned = CountingQF(make_qf(qf_name, mode, weights), prune=False)
    pruned_result = run_case(ps.BestFirstSearch(), pruned, case)
    unpruned_result = run_case(ps.BestFirstSearch(), unpruned, case)
    assert_same_top_k(pruned_result, unpruned_result, CASES[case]["k"])
    assert pruned.candidates < unpruned.candidates


# ---------------------------------------------------------------------------
# user-defined measures (the extension point)
# ---------------------------------------------------------------------------


def accuracy_measure():
    """Accuracy at threshold 0.5, no bounds (the quality function cannot prune)."""
    return subroc_ext.KernelMeasure(
        lambda y, s: np.mean((s >= 0.5) == y), kind="score", name="accuracy"
    )


def sklearn_roc_measure():
    """sklearn's ROC AUC with user-given (trivial but valid) extremes."""
    return subroc_ext.KernelMeasure(
        sklearn_roc_auc, kind="score", name="sk_roc_auc",
        lowest=lambda y, s: 0.0, highest=lambda y, s: 1.0,
        min_positives=1, min_negatives=1,
    )  # fmt: skip


def closeness_measure():
    """A user RowMeanMeasure of kind 'score': 1 - |label - score|."""
    return subroc_ext.RowMeanMeasure(
        lambda y, s: 1.0 - np.abs(y - s), kind="score", name="closeness"
    )


CUSTOM_MEASURES = {
    "brier": measures.squared_error,
    "closeness": closeness_measure,
    "accuracy": accuracy_measure,
    "sklearn_roc": sklearn_roc_measure,
}


CUSTOM_CASES = [
    (measure, mode, weights)
    for measure in ("brier", "closeness", "accuracy")
    for mode in MODES
    for weights in [(0, 0), (1, 1), (1, 0.3)]
] + [  # sklearn's roc_auc_score is slow (about 1 ms a call): two combinations, one algorithm
    ("sklearn_roc", "worse", (0, 0)),
    ("sklearn_roc", "both", (1, 0.3)),
]


@pytest.mark.parametrize(("measure_name", "mode", "weights"), CUSTOM_CASES, ids=str)
def test_custom_measure_pruned_search_equals_exhaustive(measure_name, mode, weights):
    size, balance = weights
    case = "tied-depth2"
    k = CASES[case]["k"]

    def qf():
        return subroc_ext.SoftClassifierQF(
            CUSTOM_MEASURES[measure_name](), "label", positive_label=1,
            size_weight=size, balance_weight=balance, mode=mode,
        )  # fmt: skip

    reference = run_case(ps.SimpleSearch(show_progress=False), qf(), case)
    assert reference
    slow = measure_name == "sklearn_roc"
    for name in ("BestFirstSearch",) if slow else ("BestFirstSearch", "DFS", "Apriori"):
        pruned = run_case(EXHAUSTIVE[name](), qf(), case)
        expected = with_root(reference, k) if name in EVALUATES_ROOT else reference
        assert_same_top_k(pruned, expected, k)
    if not slow:
        unpruned = run_case(ps.BestFirstSearch(), without_pruning(qf()), case)
        assert_same_top_k(unpruned, reference, k)


def test_custom_row_mean_measure_prunes():
    """RowMeanMeasure brings an exact bound: the Brier-score search prunes."""
    def qf():
        return subroc_ext.SoftClassifierQF(
            measures.squared_error(), "label", size_weight=1, balance_weight=1
        )

    pruned, unpruned = CountingQF(qf()), CountingQF(qf(), prune=False)
    results = [run_case(ps.BestFirstSearch(), q, "untied-depth3") for q in (pruned, unpruned)]
    assert_same_top_k(results[0], results[1], CASES["untied-depth3"]["k"])
    assert pruned.candidates < unpruned.candidates


# ---------------------------------------------------------------------------
# every pysubgroup algorithm works (on a messy index and string labels)
# ---------------------------------------------------------------------------



ALGORITHMS = {
    **EXHAUSTIVE,
    "BeamSearch": lambda: ps.BeamSearch(beam_width=30),
    "SimpleSearch": lambda: ps.SimpleSearch(show_progress=False),
    "DFS-SetRepresentation": lambda: ps.DFS(ps.SetRepresentation),
    "DFS-NumpySetRepresentation": lambda: ps.DFS(ps.NumpySetRepresentation),
    "Apriori-SetRepresentation": lambda: ps.Apriori(ps.SetRepresentation, use_numba=False),
    "Apriori-NumpySetRepresentation": lambda: ps.Apriori(
        ps.NumpySetRepresentation, use_numba=False
    ),
}


#: Index variants of the representation test: all but 0..n-1.
OTHER_INDEXES = {name: make for name, make in INDEXES.items() if name != "range"}
REPRESENTATIONS = {
    "BitSet": ps.BitSetRepresentation,
    "Set": ps.SetRepresentation,
    "NumpySet": ps.NumpySetRepresentation,
}


def _top_k(data, algorithm, qf_name):
    """(quality, description) of the top 8 at depth 2, min support 15."""
    qf = make_qf(qf_name, "worse", (1, 1))
    task = ps.SubgroupDiscoveryTask(
        data, TARGET, ps.create_selectors(data, ignore=["label", "score"]), qf,
        result_set_size=8, depth=2, constraints=[ps.MinSupportConstraint(15)],
    )  # fmt: skip
    return sorted((round(q, 10), str(sg)) for q, sg, _ in algorithm.execute(task).results)


@pytest.mark.parametrize("index", OTHER_INDEXES)
@pytest.mark.parametrize("representation", REPRESENTATIONS)
@pytest.mark.parametrize("algorithm", ["DFS", "Apriori"])
def test_every_representation_on_any_index(algorithm, representation, index):
    """DFS and Apriori with each representation find, on any index, what
    BestFirstSearch finds on 0..n-1: covers come from positions, never from
    index labels (pysubgroup's SetRepresentation mixes the two)."""
    data = case_data("tied-depth2").reset_index(drop=True)
    expected = _top_k(data, ps.BestFirstSearch(), "roc")
    assert len(expected) == 8
    make = REPRESENTATIONS[representation]
    search = ps.DFS(make) if algorithm == "DFS" else ps.Apriori(make, use_numba=False)
    relabelled = data.set_axis(INDEXES[index](len(data)))
    if (algorithm, representation, index) == ("DFS", "Set", "string"):
        # pysubgroup itself fails building the empty description: its
        # Set_Conjunction turns the index labels into an int array.
        with pytest.raises(ValueError, match="invalid literal for int"):
            _top_k(relabelled, search, "roc")
        return
    assert _top_k(relabelled, search, "roc") == expected



@pytest.mark.parametrize("algorithm_name", ALGORITHMS)
@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_every_algorithm_works(qf_name, algorithm_name):
    data = messy(case_data("tied-depth2"))
    if "-SetRepresentation" in algorithm_name:
        # pysubgroup's Set_Conjunction cannot hold string index labels (see
        # test_every_representation_on_any_index); an offset integer index
        # still tells index labels and positions apart.
        data = data.set_axis(np.arange(len(data)) + 1000)
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    min_support, k, depth = 25, 8, 2
    qf = make_qf(qf_name, "worse", (1, 1), positive="yes")
    task = ps.SubgroupDiscoveryTask(
        data, TARGET, selectors, qf, result_set_size=k, depth=depth,
        constraints=[ps.MinSupportConstraint(min_support)],
    )  # fmt: skip
    result = ALGORITHMS[algorithm_name]().execute(task)

    assert 1 <= len(result.results) <= k
    qualities = [q for q, _, _ in result.results]
    assert qualities == sorted(qualities, reverse=True)
    fresh = make_qf(qf_name, "worse", (1, 1), positive="yes")
    fresh.calculate_constant_statistics(data, TARGET)
    for quality, subgroup, statistics in result.results:
        # statistics: our namedtuple with size_sg, consistent with the cover
        assert isinstance(statistics, subroc_ext.SubgroupStatistics)
        assert statistics._fields[0] == "size_sg"
        cover = np.asarray(subgroup.covers(data), dtype=bool)
        assert statistics.size_sg == cover.sum() >= min_support
        labels = data["label"].to_numpy()[cover]
        assert statistics.positives_count == np.sum(labels == "yes")
        assert statistics.negatives_count == np.sum(labels == "no")
        assert quality == statistics.quality
        plain = ps.Conjunction(list(subgroup.selectors))
        assert np.isclose(quality, fresh.evaluate(plain, TARGET, data))
    descriptions = [frozenset(map(str, sg.selectors)) for _, sg, _ in result.results]
    assert len(set(descriptions)) == len(descriptions)

    frame = result.to_dataframe()
    assert list(frame.columns) == ["quality", "subgroup"]
    np.testing.assert_array_equal(frame["quality"].to_numpy(), qualities)
    assert [str(s) for s in frame["subgroup"]] == [str(sg) for _, sg, _ in result.results]

    # DFS and SimpleDFS evaluate the empty description, BeamSearch starts its
    # beam with it (quality 0).
    include_root = algorithm_name.startswith(("DFS", "SimpleDFS", "BeamSearch"))
    expected = brute_force_top_k(
        make_qf(qf_name, "worse", (1, 1), positive="yes"), data, selectors, depth,
        min_support, k, include_root=include_root,
    )  # fmt: skip
    if algorithm_name != "BeamSearch":  # exhaustive: the exact top-k
        assert_same_top_k(list(zip(qualities, descriptions)), expected, k)
    else:  # heuristic: never better than the exhaustive optimum
        assert qualities[0] <= expected[0][0] + 1e-12


def test_min_support_constraint_changes_the_result():
    """Without the constraint the best subgroups are small: the constraint matters."""
    data = case_data("untied-depth3")
    selectors = case_selectors("untied-depth3")
    small = run(ps.BestFirstSearch(), make_qf("roc"), data, selectors, depth=3, min_support=1, k=5)
    large = run(ps.BestFirstSearch(), make_qf("roc"), data, selectors, depth=3, min_support=40, k=5)
    assert small != large
    qf = make_qf("roc")
    qf.calculate_constant_statistics(data, TARGET)
    for _, description in large:
        conjunction = ps.Conjunction([s for s in selectors if str(s) in description])
        assert qf.calculate_statistics(conjunction, TARGET, data).size_sg >= 40
    assert min(
        qf.calculate_statistics(
            ps.Conjunction([s for s in selectors if str(s) in description]), TARGET, data
        ).size_sg
        for _, description in small
    ) < 40


def test_search_is_index_and_encoding_invariant():
    """A messy copy of the data (shuffled rows, string index, 'yes'/'no'
    labels) gives exactly the search result of the clean data."""
    data = case_data("tied-depth2")  # shuffling reorders tied rows too
    selectors = case_selectors("tied-depth2")
    settings = dict(depth=2, min_support=5, k=10)
    for name in ("BestFirstSearch", "DFS", "Apriori"):
        for qf_name in QF_NAMES:
            qf = make_qf(qf_name, "both", (1, 1))
            clean = run(EXHAUSTIVE[name](), qf, data, selectors, **settings)
            other = run(
                EXHAUSTIVE[name](), make_qf(qf_name, "both", (1, 1), positive="yes"),
                messy(data), selectors, **settings,
            )  # fmt: skip
            assert_same_top_k(other, clean, settings["k"])
