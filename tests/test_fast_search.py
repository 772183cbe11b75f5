"""FastSearch returns exactly what pysubgroup's exhaustive searches return.

The compiled kernels are checked against the quality functions' own
computation on random covers (bit for bit), and the whole search against
``ps.BestFirstSearch``, ``ps.DFS`` and brute-force enumeration on random
tasks: every measure, mode and weighting, with and without generalization
awareness, tied scores, tied qualities, minimum supports from 1 to 50,
depths 1 to 3, interval and negated selectors and any DataFrame index.
"""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subroc_ext
from search_helpers import TARGET, assert_same_top_k, brute_force_top_k, make_qf, run, with_root
from synthetic import messy, scored_frame
from subroc_ext.scoring import bitset, bounds, measures
from subroc_ext.engine.search import FastSearch

QF_NAMES = ("roc", "pr", "arl", "attribution")
EXPONENTS = (0, 0.3, 1, 2)


# ---------------------------------------------------------------------------
# bitsets and compiled kernels
# ---------------------------------------------------------------------------


@given(st.lists(st.booleans(), min_size=0, max_size=300))
@settings(max_examples=100, derandomize=True, deadline=None)
def test_pack_unpack_round_trip(values):
    mask = np.array(values, dtype=bool)
    words = bitset.pack(mask)
    assert words.dtype == np.uint64 and len(words) == -(-len(mask) // 64)
    np.testing.assert_array_equal(bitset.unpack(words, len(mask)), mask)
    prefix = np.empty(len(words) + 1, dtype=np.int64)
    assert bitset.prefix_counts(words, prefix) == mask.sum()
    np.testing.assert_array_equal(prefix, [mask[: 64 * w].sum() for w in range(len(words) + 1)])


@pytest.mark.parametrize("n, density", [(1, 1.0), (64, 0.5), (65, 0.0), (300, 0.1), (300, 1.0)])
def test_permute_moves_each_row_to_its_position(n, density):
    rng = np.random.default_rng(n)
    mask = rng.random(n) < density
    position = rng.permutation(n)
    out = np.full(-(-n // 64), np.uint64(2**64 - 1))  # overwritten, also past the last row
    bitset.permute(bitset.pack(mask), position, out)
    expected = np.zeros(n, dtype=bool)
    expected[position[mask]] = True
    np.testing.assert_array_equal(out, bitset.pack(expected))


@pytest.mark.parametrize("parent_density", [0.0, 0.001, 0.02, 0.3, 1.0])
def test_count_children_counts_each_class_of_each_child(parent_density):
    """Class counts of ``parent AND selector`` against NumPy, for parents from
    empty through sparse (rows in a few words: the gathered loop) to full
    (every word read in order), over 1,000 rows (16 words, the last partial)."""
    from subroc_ext.scoring import cover_kernels

    rng = np.random.default_rng(int(parent_density * 1000))
    n = 1000
    is_positive = rng.random(n) < 0.3
    selectors = rng.random((30, n)) < rng.choice([0.0, 0.01, 0.2, 0.7, 1.0], (30, 1))
    parent = rng.random(n) < parent_density
    candidates = rng.permutation(30)[:25].astype(np.int64)
    positives, negatives = np.full(25, -1, np.int64), np.full(25, -1, np.int64)
    cover_kernels.count_children(
        bitset.pack(parent), bitset.pack(selectors), candidates, bitset.pack(is_positive),
        bitset.pack(~is_positive), positives, negatives,
    )  # fmt: skip
    children = parent & selectors[candidates]
    np.testing.assert_array_equal(positives, (children & is_positive).sum(axis=1))
    np.testing.assert_array_equal(negatives, (children & ~is_positive).sum(axis=1))


@pytest.mark.parametrize("ties", ["none", "some", "heavy"])
@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_compiled_kernels_equal_the_quality_function_bit_for_bit(qf_name, ties):
    """Class counts, measure, extremes, size-aware bound and statistics of
    random covers: the engine's one call per node gives exactly the floats of
    the quality function's own path (the measure's methods and
    :func:`statistics_kernel`)."""
    from subroc_ext.objective.statistics import statistics_kernel

    data = scored_frame(5, 157, attributes=6, ties=ties)  # not a multiple of 64 rows
    for mode in ("worse", "better", "both"):
        qf = make_qf(qf_name, mode, (1, 0.3))
        qf.calculate_constant_statistics(data, TARGET)
        dataset = qf.dataset
        rng = np.random.default_rng(0)
        masks = rng.random((60, len(data))) < rng.uniform(0.02, 0.9, size=(60, 1))
        space_words = bitset.pack(masks)
        parent = bitset.pack(np.ones(len(data), dtype=bool))
        evaluator = subroc_ext.engine.evaluators.evaluator(qf, _Space(space_words, dataset))
        candidates = np.arange(len(masks), dtype=np.int64)
        children, stats = evaluator.children(parent, candidates, np.inf, -np.inf, 1, True)
        value, lowest, highest = evaluator.measure(parent, candidates)
        unbounded_value, no_lowest, no_highest = evaluator.measure(parent, candidates, extremes=False)
        np.testing.assert_array_equal(unbounded_value, value)  # pruning off: the same values,
        assert np.isnan(no_lowest).all() and np.isnan(no_highest).all()  # no extremes computed
        checked = 0
        for i, mask in enumerate(masks):
            cover = dataset.cover(mask)
            if not qf.measure.is_defined(cover.positives, cover.negatives):
                assert i not in children
                continue
            j = checked
            assert children[j] == i
            checked += 1
            measure = qf.prepared_measure
            assert value[i] == measure.value(cover)
            assert (lowest[i], highest[i]) == measure.extremes(cover)
            size_aware = np.inf
            if qf.size_weight > 0:
                size_aware = bounds.size_aware_bound(measure, cover, qf.dataset_value, qf.signs(), qf.size_weight)
            expected = statistics_kernel(
                cover.positives, cover.negatives, True, measure.value(cover), *measure.extremes(cover),
                size_aware, *qf._settings(),
            )  # fmt: skip
            assert (stats.positives_count[j], stats.negatives_count[j]) == (cover.positives, cover.negatives)
            assert tuple(field[j] for field in stats[3:]) == expected
        assert checked >= 40


class _Space:
    """The part of the search space the evaluators read: selector words and classes."""

    def __init__(self, words, dataset):
        self.words = words
        self.n_rows = len(dataset)
        self.all_rows = bitset.pack(np.ones(len(dataset), dtype=bool))
        self.positive_words = bitset.pack(dataset.is_positive)
        self.negative_words = bitset.pack(~dataset.is_positive)


def test_kernels_iterate_the_smaller_class_correctly():
    """ROC AUC from the positives' side and from the negatives' side agree
    with sklearn on covers where either class is the smaller one."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    for share in (0.05, 0.5, 0.95):
        labels = rng.random(500) < share
        labels[:2] = [True, False]
        scores = np.round(rng.normal(size=500) + labels, 1)
        data = pd.DataFrame({"label": labels.astype(int), "score": scores})
        qf = subroc_ext.ROCAUCQF("label")
        qf.calculate_constant_statistics(data, TARGET)
        dataset = qf.dataset
        evaluator = subroc_ext.engine.evaluators.evaluator(qf, _Space(bitset.pack(np.ones((1, 500), bool)), dataset))
        value, _, _ = evaluator.measure(bitset.pack(np.ones(500, bool)), np.array([0]))
        assert value[0] == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)


# ---------------------------------------------------------------------------
# the search equals pysubgroup's
# ---------------------------------------------------------------------------


def _task_data(seed, ties, index):
    """Search data with a numeric column ``num``; index 'messy' shuffles the
    rows and gives them string labels."""
    data = scored_frame(seed, 240, attributes=6, ties=ties, index="range" if index == "messy" else index)
    data["num"] = np.random.default_rng(seed).normal(size=len(data)).round(1)
    if index == "messy":
        data = messy(data).assign(label=lambda f: (f["label"] == "yes").astype(int))
    return data


def _selectors(data, negated):
    selectors = ps.create_selectors(data, nbins=4, ignore=["label", "score"])
    if negated:  # (pysubgroup 0.9.0 cannot print a negated IntervalSelector)
        selectors += [ps.NegatedSelector(s) for s in selectors if s.attribute_name in ("a0", "a4")]
    return selectors


#: Every setting of a search task, for the property tests against pysubgroup.
TASKS = given(
    name=st.sampled_from(QF_NAMES),
    mode=st.sampled_from(("worse", "better", "both")),
    alpha=st.sampled_from(EXPONENTS),
    beta=st.sampled_from(EXPONENTS),
    generalization_aware=st.booleans(),
    min_support=st.sampled_from((1, 5, 20, 50)),
    depth=st.integers(1, 3),
    k=st.sampled_from((1, 5, 10, 25)),
    ties=st.sampled_from(("none", "some", "heavy")),
    index=st.sampled_from(("range", "messy", "duplicated")),
    negated=st.booleans(),
    seed=st.integers(0, 3),
)


def check_fast_search_equals_best_first_search_and_dfs(
    name, mode, alpha, beta, generalization_aware, min_support, depth, k, ties, index, negated, seed
):
    data = _task_data(seed, ties, index)
    selectors = _selectors(data, negated)
    settings_ = {"depth": depth, "min_support": min_support, "k": k}

    def qf():
        return make_qf(name, mode, (alpha, beta), generalization_aware=generalization_aware)

    fast = run(FastSearch(), qf(), data, selectors, **settings_)
    best_first = run(ps.BestFirstSearch(), qf(), data, selectors, **settings_)
    assert_same_top_k(fast, best_first, k)
    # bit-identical qualities, not merely close
    assert [q for q, _ in fast] == [q for q, _ in best_first]
    if depth <= 2:
        dfs = run(ps.DFS(), qf(), data, selectors, **settings_)
        assert_same_top_k(with_root(fast, k), dfs, k)


@TASKS
@settings(max_examples=80, derandomize=True, deadline=None)
def test_fast_search_equals_best_first_search_and_dfs(**task):
    check_fast_search_equals_best_first_search_and_dfs(**task)


@pytest.mark.extended  # the same property on more tasks
@TASKS
@settings(max_examples=400, derandomize=True, deadline=None)
def test_fast_search_equals_best_first_search_and_dfs_on_more_tasks(**task):
    check_fast_search_equals_best_first_search_and_dfs(**task)


@pytest.mark.parametrize("generalization_aware", [False, True])
@pytest.mark.parametrize("qf_name", QF_NAMES)
def test_fast_search_equals_brute_force(qf_name, generalization_aware):
    """Every conjunction of selectors of distinct attributes, evaluated."""
    data = _task_data(1, "some", "range")
    selectors = _selectors(data, negated=False)
    for weights in [(0, 0), (1, 1), (2, 0.3)]:
        fast = run(
            FastSearch(), make_qf(qf_name, "both", weights, generalization_aware=generalization_aware), data, selectors,
            depth=3, min_support=10, k=15,
        )  # fmt: skip
        expected = brute_force_top_k(
            make_qf(qf_name, "both", weights, generalization_aware=generalization_aware), data, selectors, depth=3,
            min_support=10, k=15, include_root=False,
        )  # fmt: skip
        assert_same_top_k(fast, expected, 15)


def test_tied_qualities_keep_the_top_and_the_cut_off():
    """Heavily tied scores and weights 0: many patterns share the best quality."""
    data = scored_frame(2, 200, attributes=6, ties="heavy")
    selectors = _selectors(data, negated=False)
    fast = run(FastSearch(), make_qf("roc"), data, selectors, depth=3, min_support=2, k=10)
    best_first = run(ps.BestFirstSearch(), make_qf("roc"), data, selectors, depth=3, min_support=2, k=10)
    qualities = [q for q, _ in best_first]
    assert qualities.count(qualities[-1]) > 1, "the case must have ties at the cut-off"
    assert_same_top_k(fast, best_first, 10)


@pytest.mark.parametrize("seed", range(4))
def test_offers_in_batches_keep_what_offers_one_by_one_keep(seed):
    """The result heap and its threshold after offers in batches of any size
    (small ones one heap operation each, large ones merged) are those of the
    same offers one at a time: the k best by quality and, among equal
    qualities, by pattern; ties and the minimum quality included."""
    from subroc_ext.engine.search import SearchProblem
    from subroc_ext.engine.search_run import SearchRun

    rng = np.random.default_rng(seed)
    data = scored_frame(seed, 120, attributes=4)
    task = ps.SubgroupDiscoveryTask(data, TARGET, _selectors(data, negated=False), make_qf("roc"),
                                    result_set_size=7, depth=3, min_quality=0.05)  # fmt: skip
    problem = SearchProblem.from_task(task)
    patterns = [tuple(sorted(rng.choice(30, size=rng.integers(1, 4), replace=False).tolist()))
                for _ in range(300)]
    patterns = list(dict.fromkeys(patterns))  # each pattern once, as in a search
    qualities = rng.choice([0.0, 0.05, 0.1, 0.2, 0.3], size=len(patterns)) + rng.choice([0, 1e-3], len(patterns))
    one, batches = (SearchRun(problem, 3, problem.min_quality) for _ in range(2))
    for quality, pattern in zip(qualities, patterns):
        one.offer_all([quality], [pattern])
    start = 0
    while start < len(patterns):
        stop = start + int(rng.choice([1, 3, SearchRun.merge_from, 40]))
        batches.offer_all(qualities[start:stop].tolist(), patterns[start:stop])
        start = stop
    assert sorted(batches.results) == sorted(one.results) and len(one.results) == 7
    assert batches.cut == one.cut and batches.live[0] == one.live[0]


def test_min_quality_is_honoured():
    data = scored_frame(0, 300, attributes=6)
    selectors = _selectors(data, negated=False)
    for min_quality in (0.0, 0.05):
        settings_ = {"depth": 2, "min_support": 5, "k": 50, "min_quality": min_quality}
        fast = run(FastSearch(), make_qf("roc"), data, selectors, **settings_)
        best_first = run(ps.BestFirstSearch(), make_qf("roc"), data, selectors, **settings_)
        assert fast and all(q > min_quality for q, _ in fast)
        assert_same_top_k(fast, best_first, 50)


# ---------------------------------------------------------------------------
# user measures, user selectors
# ---------------------------------------------------------------------------


class _Closeness(measures.Measure):
    """A subclass measure with its own extremes: mean of 1 - |y - s|."""

    name = "closeness"
    min_positives = 1

    def value(self, cover):
        return float(np.mean(1 - np.abs(cover.is_positive - cover.scores)))

    def extremes(self, cover):
        values = 1 - np.abs(cover.is_positive - cover.scores)
        return float(values.min()), float(values.max())


USER_MEASURES = {
    "brier (compiled row mean)": measures.squared_error,
    "kernel, no bounds": lambda: subroc_ext.KernelMeasure(
        lambda y, s: np.mean((s >= 0.5) == y), kind="score", name="accuracy"
    ),
    "kernel with bounds": lambda: subroc_ext.KernelMeasure(
        lambda y, s: float(np.mean(s[y])) if y.any() else 0.0, kind="score", name="mean_pos",
        lowest=lambda y, s: float(s[y].min()), highest=lambda y, s: float(s[y].max()),
        min_positives=1,
    ),  # fmt: skip
    "Measure subclass": _Closeness,
}


@pytest.mark.parametrize("measure", USER_MEASURES)
def test_user_measures(measure):
    data = _task_data(0, "some", "messy")
    selectors = _selectors(data, negated=True)
    for weights, mode, ga in [((0, 0), "worse", False), ((1, 1), "both", True), ((1, 0.3), "better", False)]:

        def qf():
            inner = subroc_ext.SoftClassifierQF(
                USER_MEASURES[measure](), "label", size_weight=weights[0],
                balance_weight=weights[1], mode=mode,
            )  # fmt: skip
            return subroc_ext.GeneralizationAwareQF(inner) if ga else inner

        settings_ = {"depth": 2, "min_support": 10, "k": 10}
        fast = run(FastSearch(), qf(), data, selectors, **settings_)
        assert fast
        assert_same_top_k(fast, run(ps.BestFirstSearch(), qf(), data, selectors, **settings_), 10)
        unpruned = qf()
        _without_bounds((unpruned.qf if ga else unpruned))
        assert_same_top_k(run(FastSearch(), unpruned, data, selectors, **settings_), fast, 10)


class _PlainRowMean(measures.RowMeanMeasure):
    """A row mean evaluated through its own methods (a subclass has no compiled code)."""


def test_a_generalization_aware_search_computes_no_size_aware_bound_of_children(monkeypatch):
    """Its children's estimates are built from the raw bound and the largest
    weight: the size-aware bound (an ``O(rows)`` walk per child) is never read."""
    from subroc_ext.engine.evaluators import PythonEvaluator

    calls = []
    size_aware = PythonEvaluator.size_aware
    monkeypatch.setattr(PythonEvaluator, "size_aware", lambda self, *args: calls.append(1) or size_aware(self, *args))
    data = _task_data(0, "some", "messy")
    selectors = _selectors(data, negated=True)
    settings_ = {"depth": 3, "min_support": 10, "k": 10}

    def qf(aware):
        gap = _PlainRowMean(lambda y, s: y - s, kind="loss", name="gap")
        inner = subroc_ext.SoftClassifierQF(gap, "label", size_weight=1, balance_weight=1)
        return subroc_ext.GeneralizationAwareQF(inner) if aware else inner

    for aware, called in ((False, True), (True, False)):
        calls.clear()
        fast = run(FastSearch(), qf(aware), data, selectors, **settings_)
        assert bool(calls) == called, len(calls)
        assert_same_top_k(fast, run(ps.BestFirstSearch(), qf(aware), data, selectors, **settings_), 10)


def _without_bounds(qf):
    """Switch ``qf``'s optimistic estimates off and make any bound computation fail."""

    def forbidden(*args, **kwargs):
        raise AssertionError("a bound was computed with optimistic_estimates=False")

    qf.optimistic_estimates = False
    for measure in (qf.measure, qf.prepared_measure):  # prepared_measure: None before a search
        if measure is not None:
            measure.extremes = measure.size_aware_bound = forbidden


class _AtLeast(ps.SelectorBase):
    """A user selector: ``column >= threshold``, defined by ``covers`` alone."""

    def __init__(self, attribute_name, threshold):
        super().__init__()

    def set_descriptions(self, attribute_name, threshold):
        self._attribute_name = attribute_name
        self.threshold = threshold
        self._repr = f"{attribute_name}>={threshold}"
        self._hash = hash(self._repr)

    @property
    def attribute_name(self):
        return self._attribute_name

    @property
    def selectors(self):
        return (self,)

    def covers(self, data):
        return data[self._attribute_name].to_numpy() >= self.threshold

    def __repr__(self):
        return self._repr

    def __str__(self, open_brackets="", closing_brackets=""):
        return self._repr


def test_user_selectors_with_covers():
    data = _task_data(2, "none", "messy")
    selectors = [s for s in _selectors(data, negated=False) if s.attribute_name != "num"]
    selectors += [_AtLeast("num", t) for t in (-1.0, 0.0, 0.5)]
    settings_ = {"depth": 2, "min_support": 5, "k": 10}
    fast = run(FastSearch(), make_qf("roc", "both", (1, 1)), data, selectors, **settings_)
    assert any("num>=" in str(d) for _, d in fast)
    assert_same_top_k(fast, run(ps.BestFirstSearch(), make_qf("roc", "both", (1, 1)), data, selectors, **settings_), 10)


# ---------------------------------------------------------------------------
# the result object, progress, errors
# ---------------------------------------------------------------------------


def test_result_is_a_pysubgroup_result_with_our_statistics():
    data = _task_data(0, "some", "messy")
    selectors = _selectors(data, negated=False)
    qf = subroc_ext.GeneralizationAwareQF(make_qf("pr", "worse", (1, 1)))
    task = ps.SubgroupDiscoveryTask(
        data, TARGET, selectors, qf, result_set_size=7, depth=2,
        constraints=[ps.MinSupportConstraint(15)],
    )  # fmt: skip
    result = FastSearch().execute(task)
    assert isinstance(result, ps.SubgroupDiscoveryResult) and len(result.results) == 7
    frame = result.to_dataframe()
    assert list(frame["quality"]) == sorted(frame["quality"], reverse=True)
    for quality, subgroup, statistics in result.results:
        assert isinstance(subgroup, ps.Conjunction)
        assert statistics.quality == quality
        assert statistics.size_sg == np.asarray(subgroup.covers(data)).sum() >= 15


def test_progress_bar_on_and_off(capsys):
    data = scored_frame(0, 300, attributes=6)
    selectors = _selectors(data, negated=False)
    for progress in (False, True):
        search = FastSearch(progress=progress)
        run(search, make_qf("roc"), data, selectors, depth=2, min_support=5, k=5)
        err = capsys.readouterr().err
        assert ("candidates" in err) == progress
        assert search.candidates_counted >= search.candidates_evaluated > 0


def test_pruning_skips_work():
    data = scored_frame(0, 300, attributes=6)
    selectors = _selectors(data, negated=False)
    search = FastSearch()
    run(search, make_qf("roc", "worse", (1, 1)), data, selectors, depth=3, min_support=5, k=5)
    n_patterns = len(brute_force_top_k(make_qf("roc", "worse", (1, 1)), data, selectors, 3, 1, 10**9, False))
    assert search.candidates_evaluated < n_patterns / 2


def test_interrupt_propagates_and_closes_the_bar(capsys):
    calls = []

    def kernel(y, s):
        calls.append(1)
        if len(calls) > 20:
            raise KeyboardInterrupt
        return float(np.mean(s))

    qf = subroc_ext.SoftClassifierQF(
        subroc_ext.KernelMeasure(kernel, kind="score", name="mean"), "label"
    )
    data = scored_frame(0, 300, attributes=6)
    with pytest.raises(KeyboardInterrupt):
        run(FastSearch(progress=True), qf, data, _selectors(data, False), depth=2, min_support=1, k=5)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda task: setattr(task, "qf", ps.StandardQF(0.5)), "StandardQF"),
        (lambda task: setattr(task, "constraints", [ps.MinSupportConstraint(5), object()]), "object"),
        (lambda task: setattr(task, "depth", 0), "depth"),
        (lambda task: setattr(task, "result_set_size", 2.5), "result_set_size"),
        (lambda task: task.search_space.append(object()), "attribute_name"),
    ],
)
def test_unsupported_tasks_are_rejected_by_name(change, message):
    data = scored_frame(0, 300, attributes=6)
    task = ps.SubgroupDiscoveryTask(
        data, TARGET, _selectors(data, False), make_qf("roc"), result_set_size=5, depth=2,
    )  # fmt: skip
    change(task)
    with pytest.raises((TypeError, ValueError), match=message):
        FastSearch().execute(task)
