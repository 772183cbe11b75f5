"""Tests of :mod:`subroc_ext.objective.multiclass`: AUCMuQF's quality and optimistic
estimate by enumerating every subset of small random covers, searches with
every exhaustive pysubgroup algorithm against a search that never prunes,
generalization awareness against a brute-force definition, and the K-class
randomization test.
"""

import itertools

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest

import subroc_ext
from multiclass_oracles import random_partition_matrix, subset_auc_mu
from search_helpers import EVALUATES_ROOT, EXHAUSTIVE
from synthetic import multiclass_frame
from subroc_ext.scoring.auc_mu import PairProjections, check_partition_matrix
from subroc_ext.objective.multiclass import sample_class_rows
from subroc_ext.utils.subsets import all_subsets

TOL = 1e-9
MODES = ("worse", "better", "both")
WEIGHTS = [(0, 0), (0, 1), (1, 1), (0.3, 1), (1, 0.3), (0.5, 0.5), (2, 0)]  # (alpha, beta)


def oracle_quality(values, counts, reference, mode, alpha, beta):
    """``n^alpha * (min count / max count)^beta * q``, ``-inf`` where undefined."""
    difference = values - reference
    raw = {"worse": -difference, "better": difference, "both": np.abs(difference)}[mode]
    balance = np.where(counts.max(axis=1) > 0, counts.min(axis=1) / counts.max(axis=1), 0.0)
    weight = np.power(counts.sum(axis=1), float(alpha)) * np.power(balance, float(beta))
    return np.where(np.isnan(values), -np.inf, weight * raw)


def random_frame(rng, n_classes, n_rows, ties):
    """Labels 'c0'.. (every class present), one score column per class, and a
    shuffled non-default index."""
    codes = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_rows - n_classes)])
    rng.shuffle(codes)
    if ties:
        scores = rng.integers(0, 3, size=(n_rows, n_classes)).astype(float)
    else:
        scores = rng.random((n_rows, n_classes))
    columns = [f"c{k}" for k in range(n_classes)]
    frame = pd.DataFrame(scores, columns=columns)
    frame["y"] = np.array(columns, dtype=object)[codes]
    frame.index = rng.permutation(n_rows) * 3 + 7
    return frame, codes, scores, columns


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "no-ties"])
def test_estimate_bounds_every_subset(ties):
    rng = np.random.default_rng(1 if ties else 2)
    checked = tight_k2 = 0
    for case in range(24):
        n_classes = 2 + case % 3
        frame, codes, scores, columns = random_frame(rng, n_classes, 14, ties)
        matrix = random_partition_matrix(rng, n_classes) if case % 4 == 3 else None
        matrix_values = check_partition_matrix(matrix, n_classes)
        target = subroc_ext.MultiClassTarget("y", columns)
        reference = subset_auc_mu(codes, scores, matrix_values, np.ones((1, len(codes)), bool))[0][0]
        covers = []
        for _ in range(2):
            cover = np.flatnonzero(rng.random(len(codes)) < 0.6)[:10]
            mask = np.zeros(len(codes), dtype=bool)
            mask[cover] = True
            covers.append((mask, *subset_auc_mu(codes[cover], scores[cover], matrix_values,
                                                all_subsets(len(cover)))))  # fmt: skip
        for mode, (alpha, beta) in itertools.product(MODES, WEIGHTS):
            qf = subroc_ext.AUCMuQF("y", columns, beta, alpha, partition_matrix=matrix, mode=mode)
            for mask, values, counts in covers:  # one quality function, both covers
                stats = qf.calculate_statistics(mask, target, frame)
                assert qf.dataset_value == pytest.approx(reference, abs=1e-12)
                qualities = oracle_quality(values, counts, reference, mode, alpha, beta)
                assert not np.isnan(stats.optimistic_estimate)
                assert stats.optimistic_estimate >= qualities.max() - TOL, (case, mode, alpha, beta)
                assert stats.quality == pytest.approx(qualities[-1], abs=1e-12)  # whole cover
                checked += 1
                if n_classes == 2 and (alpha, beta) == (0, 0) and np.isfinite(qualities.max()):
                    assert stats.optimistic_estimate == pytest.approx(qualities.max(), abs=1e-12)
                    tight_k2 += 1
    assert checked > 1000 and tight_k2 > 10


def test_quality_of_every_subset_matches_oracle():
    rng = np.random.default_rng(5)
    for n_classes in (3, 4):
        frame, codes, scores, columns = random_frame(rng, n_classes, 9, ties=True)
        subsets = all_subsets(len(codes))
        values, counts = subset_auc_mu(codes, scores, check_partition_matrix(None, n_classes), subsets)
        qf = subroc_ext.AUCMuQF("y", columns, 1, 0.5, mode="both")
        qf.calculate_constant_statistics(frame, subroc_ext.MultiClassTarget("y", columns))
        expected = oracle_quality(values, counts, values[-1], "both", 0.5, 1)
        found = [qf.statistics_of_mask(mask).quality for mask in subsets]
        np.testing.assert_allclose(found, expected, atol=1e-12)
        # the counts per class, in score-column order
        assert qf.statistics_of_mask(subsets[-1]).class_counts == tuple(np.bincount(codes))


# ---------------------------------------------------------------------------
# searches
# ---------------------------------------------------------------------------


def unpruned(qf):
    """``qf`` with an estimate of +inf: pysubgroup never prunes."""

    class Unpruned(type(qf)):
        def optimistic_estimate(self, subgroup, target, data, statistics=None):
            if statistics is None:
                statistics = self.calculate_statistics(subgroup, target, data)
            return np.full(np.shape(statistics.optimistic_estimate), np.inf)

    clone = Unpruned.__new__(Unpruned)
    clone.__dict__.update(qf.__dict__)
    return clone


def top_qualities(algorithm, qf, data, mapping, k=8, depth=2):
    target = subroc_ext.MultiClassTarget("grade", mapping)
    selectors = ps.create_selectors(data, ignore=["grade", *mapping.values()])
    task = ps.SubgroupDiscoveryTask(
        data, target, selectors, qf, result_set_size=k, depth=depth,
        constraints=[ps.MinSupportConstraint(10)],
    )  # fmt: skip
    result = algorithm.execute(task)
    return sorted((float(q) for q, _, _ in result.results), reverse=True), result


@pytest.mark.parametrize("mode, weights", [("worse", (0, 0)), ("worse", (1, 1)), ("both", (0.3, 1)), ("better", (2, 0))])
def test_every_algorithm_equals_unpruned_search(mode, weights):
    data, mapping = multiclass_frame()
    alpha, beta = weights

    def make():
        return subroc_ext.AUCMuQF("grade", mapping, beta, alpha, mode=mode)

    reference, _ = top_qualities(ps.SimpleSearch(show_progress=False), make(), data, mapping)
    assert len(reference) == 8
    for name, algorithm in EXHAUSTIVE.items():
        found, result = top_qualities(algorithm(), make(), data, mapping)
        expected = reference
        if name in EVALUATES_ROOT:
            expected = sorted(reference + [0.0], reverse=True)[:8]
        np.testing.assert_allclose(found, expected, rtol=1e-9, atol=1e-12, err_msg=name)
        unpruned_found, _ = top_qualities(algorithm(), unpruned(make()), data, mapping)
        np.testing.assert_allclose(found, unpruned_found, rtol=1e-9, atol=1e-12, err_msg=name)
    table = result.to_dataframe()
    assert {"quality", "subgroup"} <= set(table.columns)


@pytest.mark.parametrize("generalization_aware", [False, True])
@pytest.mark.parametrize("mode, weights", [("worse", (0, 0)), ("worse", (1, 1)), ("both", (0.3, 1)), ("better", (2, 0))])
def test_fast_search_equals_best_first_search(mode, weights, generalization_aware):
    """subroc_ext.FastSearch runs AUCMuQF (and GA around it) with the same
    result as ps.BestFirstSearch, on any index, at depths 2 and 3."""
    data, mapping = multiclass_frame(seed=1)
    alpha, beta = weights

    def make():
        qf = subroc_ext.AUCMuQF("grade", mapping, beta, alpha, mode=mode)
        return subroc_ext.GeneralizationAwareQF(qf) if generalization_aware else qf

    for depth in (2, 3):
        expected, reference = top_qualities(ps.BestFirstSearch(), make(), data, mapping, k=12, depth=depth)
        found, result = top_qualities(subroc_ext.FastSearch(), make(), data, mapping, k=12, depth=depth)
        assert found == expected  # bit-identical qualities
        cutoff = expected[-1]

        def untied(res):
            return {str(sg) for q, sg, _ in res.results if q != cutoff}

        assert untied(result) == untied(reference)
        assert all(isinstance(stats, subroc_ext.objective.multiclass.MultiClassStatistics if not generalization_aware
                              else subroc_ext.objective.multiclass.MultiClassGeneralizationAwareStatistics)
                   for _, _, stats in result.results)  # fmt: skip


def test_search_finds_the_planted_subgroup():
    data, mapping = multiclass_frame()
    _, result = top_qualities(ps.BestFirstSearch(), subroc_ext.AUCMuQF("grade", mapping, 1, 1), data, mapping)
    best = result.results[0][1]
    assert str(best) == "a0=='p'"
    stats = result.results[0][2]
    assert stats.measure < 0.3 < result.task.qf.dataset_value


# ---------------------------------------------------------------------------
# generalization awareness
# ---------------------------------------------------------------------------


def test_generalization_aware_matches_definition_and_search():
    data, mapping = multiclass_frame(seed=3)
    target = subroc_ext.MultiClassTarget("grade", mapping)
    qf = subroc_ext.AUCMuQF("grade", mapping, 1, 1)
    ga = subroc_ext.GeneralizationAwareQF(subroc_ext.AUCMuQF("grade", mapping, 1, 1))
    selectors = ps.create_selectors(data, ignore=["grade", *mapping.values()])
    qf.calculate_constant_statistics(data, target)
    raw = {(): 0.0}
    for sels in itertools.chain(itertools.combinations(selectors, 1), itertools.combinations(selectors, 2)):
        raw[frozenset(sels)] = qf.calculate_statistics(ps.Conjunction(list(sels)), target, data).raw_quality
    for sels in itertools.combinations(selectors[:6], 2):
        generalizations = [raw[frozenset([s])] for s in sels] + [0.0]
        stats = ga.calculate_statistics(ps.Conjunction(list(sels)), target, data)
        plain = qf.calculate_statistics(ps.Conjunction(list(sels)), target, data)
        assert stats.generalization_quality == max(generalizations)
        if np.isfinite(plain.raw_quality):
            assert stats.quality == pytest.approx(plain.weight * (plain.raw_quality - max(generalizations)))
        assert stats.class_counts == plain.class_counts
    # pruning with its estimate changes nothing
    def make():
        return subroc_ext.GeneralizationAwareQF(subroc_ext.AUCMuQF("grade", mapping, 1, 1))

    found = {}
    for name, algorithm in [("dfs", ps.DFS), ("bfs", ps.BestFirstSearch)]:
        found[name], _ = top_qualities(algorithm(), make(), data, mapping)
        reference, _ = top_qualities(algorithm(), unpruned(make()), data, mapping)
        np.testing.assert_allclose(found[name], reference, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------
# randomization test
# ---------------------------------------------------------------------------


def as_masks(draws, codes):
    """Boolean masks (n_subsets, n) of the subsets of :func:`sample_class_rows`."""
    masks = np.zeros((len(draws[0][0]), len(codes)), dtype=bool)
    for k, (rows, left_out) in enumerate(draws):
        if left_out:
            masks[:, codes == k] = True
        masks[np.arange(len(rows))[:, None], rows] = not left_out
    return masks


def test_sample_class_rows_uniform_with_exact_counts():
    rng = np.random.default_rng(0)
    codes = np.array([0, 1, 0, 2, 1, 0, 2, 0, 2])
    counts = (3, 1, 1)  # 3 of 4 rows of class 0: drawn as the row left out
    draws = sample_class_rows(rng, codes, counts, 36_000)
    assert [left_out for _, left_out in draws] == [True, False, False]
    for k, (rows, _) in enumerate(draws):
        assert (codes[rows] == k).all()
    masks = as_masks(draws, codes)
    np.testing.assert_array_equal(
        np.stack([masks[:, codes == k].sum(axis=1) for k in range(3)], axis=1),
        np.tile(counts, (len(masks), 1)),
    )
    # every one of the C(4,3) * 2 * 3 = 24 subsets about equally often
    _, frequencies = np.unique(np.packbits(masks, axis=1), axis=0, return_counts=True)
    assert len(frequencies) == 24
    assert np.abs(frequencies / 1500 - 1).max() < 0.12


@pytest.mark.parametrize("ties", [True, False])
def test_batch_values_equal_one_at_a_time(ties):
    """Every mix of drawn and left-out classes gives the subsets' exact AUC_mu."""
    rng = np.random.default_rng(4)
    _, codes, scores, _ = random_frame(rng, 4, 60, ties=ties)
    projections = PairProjections(codes, scores, check_partition_matrix(random_partition_matrix(rng, 4), 4))
    sizes = np.bincount(codes)
    for counts in [(3, 5, 2, 4), tuple(sizes - 1), (1, sizes[1] - 2, 2, sizes[3])]:
        draws = sample_class_rows(rng, codes, counts, 50)
        expected = [projections.value(m) for m in as_masks(draws, codes)]
        np.testing.assert_allclose(projections.batch_values(draws), expected, atol=1e-12)


def test_randomization_test_keeps_every_class_count():
    data, mapping = multiclass_frame(seed=1, n=400)
    search, validation = data.iloc[:200], data.iloc[200:]
    qf = subroc_ext.AUCMuQF("grade", mapping, 1, 1)
    _, result = top_qualities(ps.BestFirstSearch(), qf, search, mapping, k=5)
    table = subroc_ext.randomization_test(result, validation, subroc_ext.AUCMuQF("grade", mapping), n_samples=300, random_state=0)
    assert list(table.columns) == [
        "subgroup", "size", "count_low", "count_mid", "count_high", "measure", "statistic",
        "p_value", "p_value_corrected", "significant", "testable", "null_samples", "p_value_exact",
    ]  # fmt: skip
    assert table["subgroup"].map(str).iloc[0] == "a0=='p'"
    assert table["significant"].iloc[0] and table["p_value"].iloc[0] == pytest.approx(1 / 301)
    again = subroc_ext.randomization_test(result, validation, subroc_ext.AUCMuQF("grade", mapping), n_samples=300, random_state=0)
    pd.testing.assert_frame_equal(table, again)
    # the null of a subgroup: same class counts, statistic from AUC_mu of those rows
    qf = subroc_ext.AUCMuQF("grade", mapping)
    qf.calculate_constant_statistics(validation, result.task.target)
    nulls = qf.null_raw_qualities((5, 6, 7), 200, np.random.default_rng(9))
    codes = qf._projections.codes
    masks = as_masks(sample_class_rows(np.random.default_rng(9), codes, (5, 6, 7), 200), codes)
    labels, scores = validation["grade"].to_numpy(), validation[list(mapping.values())]
    expected = [
        qf.dataset_value - subroc_ext.auc_mu_score(labels[m], scores[m], classes=list(mapping))
        for m in masks
    ]
    np.testing.assert_allclose(nulls, expected, atol=1e-12)


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, make_qf, error, message",
    [
        (lambda d: d.drop(columns="p_mid"), None, KeyError, "p_mid"),
        (lambda d: d.assign(p_mid="x"), None, ValueError, "p_mid.*numeric"),
        (lambda d: d.assign(p_low=np.nan), None, ValueError, "'p_low' contains 240 NaN"),
        (lambda d: d.assign(grade="top"), None, ValueError, "'top'.*name no score column"),
        (lambda d: d[d.grade != "mid"], None, ValueError, r"class\(es\) \['mid'\] have no row"),
        (lambda d: d, lambda m: subroc_ext.AUCMuQF("other", m), ValueError, "label column"),
    ],
)
def test_bad_input_is_reported(change, make_qf, error, message):
    data, mapping = multiclass_frame()
    qf = make_qf(mapping) if make_qf else subroc_ext.AUCMuQF("grade", mapping)
    with pytest.raises(error, match=message):
        qf.calculate_constant_statistics(change(data), subroc_ext.MultiClassTarget("grade", mapping))


def test_bad_arguments():
    with pytest.raises(ValueError, match="K >= 2"):
        subroc_ext.AUCMuQF("y", ["a"])
    with pytest.raises(TypeError, match="not a string"):
        subroc_ext.MultiClassTarget("y", "abc")
    with pytest.raises(ValueError, match="repeats"):
        subroc_ext.AUCMuQF("y", {"a": "s", "b": "s"})
    with pytest.raises(ValueError, match="mode"):
        subroc_ext.AUCMuQF("y", ["a", "b"], mode="bad")
    with pytest.raises(ValueError, match="size_weight"):
        subroc_ext.AUCMuQF("y", ["a", "b"], 0, -1)
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        subroc_ext.AUCMuQF("y", ["a", "b"], partition_matrix=np.ones((3, 3)))
