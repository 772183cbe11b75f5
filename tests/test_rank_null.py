"""Tests of :mod:`subroc_ext.scoring.rank_null` and the randomization test's
refined path (:func:`subroc_ext.scoring.null_sampling.null_exceedances`).

* The hypergeometric sampler follows SciPy's probabilities.
* The rank sampler's values follow the ten-line reference sampler (KS tests
  on seeded draws, with and without ties, ROC AUC and ARL) and equal the
  measure bit for bit when every row is drawn.
* Its answers ("does this draw reach the threshold?") are those of
  comparing the very draw's exact value, for every mode, and one threshold's
  answers do not depend on the others asked with it.
* The randomization test decides as on the exact path (every null value
  computed in full by the bitset sampler) on the cases of
  ``test_significance.py`` and ``test_sequential.py``.
"""

import itertools

import numpy as np
import pysubgroup as ps
import pytest
from numba import njit
from scipy import stats
from sklearn.metrics import roc_auc_score

import subroc_ext
from subroc_ext.scoring import cover_kernels, null_sampling
from subroc_ext.scoring.measures import AverageRankingLoss, Cover, ROCAUC
from subroc_ext.scoring.null_sampling import (
    null_exceedances,
    rank_null_values,
    reference_null_values,
)
from subroc_ext.metrics.kernels import roc_auc_from_counts
from subroc_ext.scoring.rank_null import hypergeometric, log_reach_bound
from test_sequential import graded_effects
from test_significance import TARGET, attribute_patterns, null_data, planted_data

MEASURES = {"roc_auc": ROCAUC, "arl": AverageRankingLoss}
RANK_CUTS = null_sampling.rank_cuts
TIES = pytest.mark.parametrize("ties", [True, False], ids=["ties", "continuous"])


@njit
def _hypergeometric_draws(seed, good, bad, sample, count):
    state = np.full(1, np.uint64(seed), dtype=np.uint64)
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = hypergeometric(state, good, bad, sample)
    return out


@pytest.mark.parametrize(
    "good, bad, sample",
    [(5, 7, 4), (50, 70, 30), (1000, 30, 500), (30_000, 70_000, 40_000), (20, 100_000, 99_990),
     (100, 100, 95), (7, 3, 10), (0, 9, 4), (40_000, 60_000, 12), (3, 1_000_000, 500_000)],
)  # fmt: skip
def test_hypergeometric_follows_scipy(good, bad, sample):
    draws = _hypergeometric_draws(good * 7 + sample, good, bad, sample, 40_000)
    assert draws.min() >= max(0, sample - bad) and draws.max() <= min(good, sample)
    support = np.arange(draws.min(), draws.max() + 1)
    observed = np.bincount(draws - draws.min())
    expected = stats.hypergeom.pmf(support, good + bad, good, sample) * len(draws)
    enough = expected >= 5
    if enough.sum() < 2:  # (nearly) one value
        assert observed.max() >= 0.99 * len(draws)
        return
    statistic = ((observed[enough] - expected[enough]) ** 2 / expected[enough]).sum()
    assert stats.chi2.sf(statistic, enough.sum() - 1) > 1e-3
    assert abs(draws.mean() - stats.hypergeom.mean(good + bad, good, sample)) < 5 * draws.std() / 200 + 1e-9


def random_cover(rng, size, ties, share=0.3):
    is_positive = rng.random(size) < share
    is_positive[:2] = [True, False]
    scores = rng.integers(0, 6, size) / 5 if ties else rng.random(size) + 0.4 * is_positive
    return Cover.from_arrays(is_positive, scores)


@TIES
@pytest.mark.parametrize("name", list(MEASURES))
def test_rank_null_values_follow_the_reference_sampler(name, ties):
    rng = np.random.default_rng(11 + 3 * ties + len(name))
    cover = random_cover(rng, 500, ties)
    measure = MEASURES[name]().prepare(cover)
    for positives, negatives in [(30, 70), (1, 200), (cover.positives - 3, 5), (12, cover.negatives)]:
        fast = rank_null_values(measure, cover, positives, negatives, 3000, np.random.default_rng(1))
        reference = reference_null_values(measure, cover, positives, negatives, 3000, np.random.default_rng(2))
        assert stats.ks_2samp(fast, reference).pvalue > 1e-3, (positives, negatives)


@TIES
@pytest.mark.parametrize("name", list(MEASURES))
def test_every_row_drawn_gives_the_measure_bit_for_bit(name, ties):
    rng = np.random.default_rng(5 + ties)
    for size in (2, 3, 17, 300):
        cover = random_cover(rng, size, ties, share=0.5)
        measure = MEASURES[name]().prepare(cover)
        values = rank_null_values(measure, cover, cover.positives, cover.negatives, 4, rng)
        assert values.tolist() == [measure.value(cover)] * 4


def qualities(reference):
    """The relative quality of each mode (``SoftClassifierQF.raw_quality``)."""
    from subroc_ext.objective.statistics import relative_quality

    return {
        (down, up): (lambda v, d=down, u=up: relative_quality(np.asarray(v, float), reference, d, u))
        for down, up in [(True, False), (False, True), (True, True)]
    }


@TIES
@pytest.mark.parametrize("name", list(MEASURES))
def test_answers_are_those_of_the_exact_values(name, ties):
    rng = np.random.default_rng(23 + ties + len(name))
    cover = random_cover(rng, 400, ties)
    measure = MEASURES[name]().prepare(cover)
    positives, negatives = 25, 90
    values = rank_null_values(measure, cover, positives, negatives, 2000, np.random.default_rng(7))
    for mode, quality in qualities(measure.value(cover)).items():
        q = quality(values)
        thresholds = np.concatenate([
            np.quantile(q, [0.0, 0.05, 0.5, 0.95, 1.0]),
            np.sort(q)[[3, 1000, -4]],  # values drawn: equal counts as reached
            np.sort(q)[[3, 1000, -4]] + 1e-13, [q.max() + 1, q.min() - 1, 0.0],
        ])  # fmt: skip
        reached = null_exceedances(
            measure, cover, positives, negatives, 2000, np.random.default_rng(7), quality, thresholds
        )  # fmt: skip
        assert (reached == (q[None, :] >= thresholds[:, None])).all(), mode
        # one threshold's answers do not depend on the others asked with it
        alone = null_exceedances(
            measure, cover, positives, negatives, 2000, np.random.default_rng(7), quality, thresholds[5:6]
        )  # fmt: skip
        assert (alone[0] == reached[5]).all()


@TIES
def test_the_reach_bound_holds_over_every_subset(ties):
    """``log_reach_bound`` against the exact chance, every subset of small
    data enumerated, every cut of ``2U`` from 0 to ``2PN``: never below it."""
    rng = np.random.default_rng(1 + ties)
    for size, positives, negatives in [(10, 2, 3), (11, 3, 3), (12, 1, 5), (12, 4, 4)]:
        cover = random_cover(rng, size, ties, share=0.5)
        pools = np.flatnonzero(cover.is_positive), np.flatnonzero(~cover.is_positive)
        if len(pools[0]) < positives or len(pools[1]) < negatives:
            continue
        auc = roc_auc_from_counts(cover.counts)
        assert auc == pytest.approx(roc_auc_score(cover.is_positive, cover.scores))
        twice = np.array([
            2 * ROCAUC().prepare(cover).value(cover.subset(np.sort(np.r_[a, b]))) * positives * negatives
            for a in itertools.combinations(pools[0], positives) for b in itertools.combinations(pools[1], negatives)
        ]).round().astype(int)  # fmt: skip
        top = 2 * positives * negatives
        for cut in range(-1, top + 2):
            low, high = np.array([cut]), np.array([top + 1])
            bound = np.exp(log_reach_bound(auc, positives, negatives, low, high))
            assert (twice <= cut).mean() <= bound + 1e-12, (size, cut)
            low, high = np.array([-1]), np.array([cut])
            bound = np.exp(log_reach_bound(auc, positives, negatives, low, high))
            assert (twice >= cut).mean() <= bound + 1e-12, (size, cut)


def test_draws_far_from_every_cut_are_not_drawn_and_answer_alike(monkeypatch):
    """A subset count whose cuts lie far in its null's tail: no draw is drawn
    (the bound decides), and the answers are those of drawing them all."""
    rng = np.random.default_rng(4)
    cover = random_cover(rng, 20_000, ties=False)  # scores rank the classes well: the data's AUC near 0.6
    measure = ROCAUC().prepare(cover)
    quality = qualities(measure.value(cover))[(True, False)]  # mode worse: the whole data's AUC less the subset's
    thresholds = np.array([0.25, 0.3])  # an AUC 0.25 below the data's, in subsets of 2,000 rows
    calls = []
    drawing = null_sampling.rank_null_draws
    monkeypatch.setattr(null_sampling, "rank_null_draws", lambda *args: calls.append(1) or drawing(*args))
    screened = null_exceedances(measure, cover, 600, 1400, 4096, np.random.default_rng(7), quality, thresholds)
    assert not calls and not screened.any()
    monkeypatch.setattr(null_sampling, "LOG_UNREACHED", -np.inf)  # every draw drawn
    drawn = null_exceedances(measure, cover, 600, 1400, 4096, np.random.default_rng(7), quality, thresholds)
    assert calls and (drawn == screened).all()
    near = null_exceedances(measure, cover, 600, 1400, 512, np.random.default_rng(7), quality, np.array([0.0]))
    assert 0.2 < near.mean() < 0.8  # a cut at the null's centre is drawn


@pytest.mark.parametrize("cores", [2, 3])
def test_draws_cut_in_parts_are_the_draws_in_one(cores, monkeypatch):
    """The draws of one call cut in parts, one a core (each draw has its own
    stream): the same values and the same answers as in one part."""
    rng = np.random.default_rng(3)
    cover = random_cover(rng, 400, ties=True)
    measure = ROCAUC().prepare(cover)
    quality = qualities(measure.value(cover))[(True, False)]
    thresholds = np.array([0.0, 0.05, -0.05])

    def draws():
        return (rank_null_values(measure, cover, 25, 90, 301, np.random.default_rng(7)),
                null_exceedances(measure, cover, 25, 90, 301, np.random.default_rng(7), quality, thresholds))

    values, reached = draws()
    monkeypatch.setattr(null_sampling, "cores", lambda: cores)
    monkeypatch.setattr(null_sampling, "PART_WORK", 1)  # cut even these small calls
    parts = draws()
    assert parts[0].tolist() == values.tolist() and (parts[1] == reached).all()
    assert 0 < reached[0].mean() < 1


@pytest.mark.parametrize("kind", sorted(null_sampling.RANK_KINDS))
@pytest.mark.parametrize("positives, negatives", [(1, 1), (3, 40), (25, 90), (130, 70)])
def test_the_cuts_split_every_2u_as_its_value_does(kind, positives, negatives):
    """Brute force over every ``2U`` of ``[0, 2PN]``: ``rank_cuts``' cuts say
    which values reach each threshold, in every mode, for thresholds at,
    between and beyond the values."""
    top = 2 * positives * negatives
    every = np.arange(top + 1)
    measured = cover_kernels.rank_measures(kind, every, positives, negatives)
    for mode, quality in qualities(float(np.median(measured)) + 0.01).items():
        q = np.asarray(quality(measured), dtype=float)
        thresholds = np.concatenate([np.unique(q)[:: max(len(np.unique(q)) // 7, 1)], [q.min() - 1, q.max() + 1],
                                     np.quantile(q, [0.3, 0.7]) + 1e-13])  # fmt: skip
        low, high = null_sampling.rank_cuts(kind, positives, negatives, quality, thresholds)
        said = (every[None, :] <= low[:, None]) | (every[None, :] >= high[:, None])
        assert (said == (q[None, :] >= thresholds[:, None])).all(), mode


def test_a_cut_memo_gives_the_same_answers_and_finds_each_cut_once(monkeypatch):
    """The rounds of one test ask the same thresholds again: with a memo the
    cuts are found once per class counts and thresholds, the answers the same."""
    rng = np.random.default_rng(5)
    cover = random_cover(rng, 300, True)
    measure = ROCAUC().prepare(cover)
    quality = qualities(measure.value(cover))[(True, False)]
    asked = [(20, 60, [0.1, 0.2]), (20, 60, [0.1, 0.2]), (20, 61, [0.1, 0.2]), (20, 60, [0.1]), (20, 60, [0.1, 0.2])]

    def answers(**memo):
        return [null_exceedances(measure, cover, positives, negatives, 300, np.random.default_rng(9), quality,
                                 thresholds, **memo) for positives, negatives, thresholds in asked]  # fmt: skip

    fresh = answers()
    found = []
    monkeypatch.setattr(null_sampling, "rank_cuts", lambda *a: found.append(a[1:3]) or RANK_CUTS(*a))
    memo = {}
    assert all((kept == alone).all() for kept, alone in zip(answers(cut_memo=memo), fresh))
    assert found == [(20, 60), (20, 61), (20, 60)] and len(memo) == 3


# --------------------------------------------------------------------------
# the randomization test decides as on the exact path
# --------------------------------------------------------------------------


def both_paths(monkeypatch, *args, **kwargs):
    refined = subroc_ext.randomization_test(*args, **kwargs)
    with monkeypatch.context() as patch:
        patch.setattr(null_sampling, "RANK_KINDS", frozenset())  # every value in full
        exact = subroc_ext.randomization_test(*args, **kwargs)
    return refined, exact


@pytest.mark.filterwarnings("ignore::subroc_ext.exceptions.LowPowerWarning")
@pytest.mark.parametrize("name", ["roc_auc", "arl"])
@pytest.mark.parametrize("n_samples", ["adaptive", 500])
def test_the_test_decides_as_on_the_exact_path(monkeypatch, name, n_samples):
    qf = {"roc_auc": lambda: subroc_ext.ROCAUCQF("label"), "arl": lambda: subroc_ext.ARLQF("label", 1)}[name]
    rng = np.random.default_rng(7)
    data = planted_data(rng)  # test_significance: one planted weak subgroup
    patterns = [ps.Conjunction([ps.EqualitySelector("planted", True)]), *attribute_patterns(data)]
    refined, exact = both_paths(monkeypatch, patterns, data, qf(), target=TARGET, n_samples=n_samples,
                                random_state=0)  # fmt: skip
    assert refined["significant"].tolist() == exact["significant"].tolist()
    assert refined.loc[0, "significant"]
    # under the null (test_significance's uniformity case): nothing either way
    data = null_data(np.random.default_rng(2024 + len(name)), n_attributes=40)
    refined, exact = both_paths(monkeypatch, attribute_patterns(data), data, qf(), target=TARGET,
                                n_samples=n_samples, random_state=1)  # fmt: skip
    assert refined["significant"].tolist() == exact["significant"].tolist()
    assert stats.ks_2samp(refined["p_value"], exact["p_value"]).pvalue > 1e-3


@pytest.mark.parametrize("n_rows, n_null", [(1000, 6), (3000, 40)])
def test_adaptive_decisions_with_graded_findings_match_the_exact_path(monkeypatch, n_rows, n_null):
    """test_sequential's case: graded real effects among null patterns."""
    data, patterns = graded_effects(np.random.default_rng(11), n_rows, n_null)
    qf = subroc_ext.ROCAUCQF("label")
    refined, exact = both_paths(monkeypatch, patterns, data, qf, target=TARGET, random_state=1)
    assert refined["significant"].tolist() == exact["significant"].tolist()
    assert refined["significant"].any()
