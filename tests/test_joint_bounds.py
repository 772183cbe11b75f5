"""Exhaustive tests of :mod:`subroc_ext.scoring.joint_bounds`.

Every subset of small random covers (with and without ties, positives
minority and majority, several label encodings; see ``test_estimates.Case``)
is scored by the brute-force oracle and SPEC's ``w * (q - offset)``; the
joint bound must be >= the best subset with at least ``m`` rows (every mode,
weight pair, minimum support and offset), equal to it where the grid has one
block per count (tight), and a slightly tightened copy must be caught. The
bounds from counts (ROC AUC and ARL) must be >= every subset with the
counts, also as the kernels compute its quality, bit for bit.
"""

import numpy as np
import pytest

from subroc_ext.objective.statistics import relative_quality
from subroc_ext.scoring import bitset, bounds, cover_kernels, joint_bounds
from subroc_ext.scoring.bounds import signs
from subroc_ext.scoring.weights import subgroup_weight
from test_estimates import KINDS, MODES, TARGET, TOL, WEIGHTS, case, prepared_qf

N_DATASETS = 24
MIN_SUPPORTS = (1, 3, 6)
OFFSETS = (0.0, 0.125)


def subset_gains(values, reference, mode, alpha, beta, min_support, offset, name="roc_auc"):
    """``w * (q - offset)`` of every subset by the oracle's measure ``name``,
    ``-inf`` where it is undefined or the subset has fewer than
    ``min_support`` rows."""
    p, n = values["positives"], values["negatives"]
    measure = values[name]
    difference = measure - reference
    raw = np.max([sign * difference for sign in signs(KINDS[name], mode)], axis=0)
    balance = np.minimum(p, n) / np.maximum(np.maximum(p, n), 1)
    weight = np.power(p + n, float(alpha)) * np.power(balance, float(beta))
    return np.where(~np.isnan(measure) & (p + n >= min_support), weight * (raw - offset), -np.inf)


def best_subset(values, reference, mode, alpha, beta, min_support, offset):
    """The largest ``w * (q - offset)`` over the defined subsets of at least
    ``min_support`` rows (``-inf`` if none)."""
    return subset_gains(values, reference, mode, alpha, beta, min_support, offset).max()


def profile(labels, scores):
    """Negatives below each positive's score, and at or below it (ascending)."""
    negatives = np.sort(scores[~labels])
    positives = np.sort(scores[labels])
    below = np.searchsorted(negatives, positives, side="left")
    return below.astype(np.int64), np.searchsorted(negatives, positives, side="right"), len(negatives)


def joint(cover_profile, reference, mode, alpha, beta, min_support, offset, grid=None, floor=-np.inf,
          stop_at=np.inf):  # fmt: skip
    exact_up_to, divisor = grid or (joint_bounds.EXACT_UP_TO, joint_bounds.GRID_DIVISOR)
    directions = signs("score", mode)
    return joint_bounds.roc_auc_joint_bound(
        *cover_profile, reference, offset, -1 in directions, 1 in directions, float(alpha),
        float(beta), min_support, exact_up_to, divisor, floor, stop_at,
    )  # fmt: skip


def settings():
    for mode in MODES:
        for alpha, beta in WEIGHTS:
            for min_support in MIN_SUPPORTS:
                for offset in OFFSETS:
                    yield mode, alpha, beta, min_support, offset


def enumerate_covers(oracle):
    """(cover profile, reference, subset values, context) of every test cover."""
    for seed in range(N_DATASETS):
        test_case = case(oracle, seed)
        labels = np.asarray(test_case.data.label == test_case.positive_label)
        scores = test_case.data.score.to_numpy()
        for mask, _, values in test_case.covers:
            context = f"seed={seed} labels={labels[mask].astype(int).tolist()} scores={scores[mask].tolist()}"
            yield profile(labels[mask], scores[mask]), test_case.reference["roc_auc"], values, context


def violations(claims, tighten):
    """The ``(context, setting, claimed, best)`` of ``claims`` where the bound
    ``tighten(bound)`` is below the best subset."""
    found = []
    for context, setting, bound, best in claims:
        claimed = tighten(bound)
        if np.isfinite(best) and claimed < best - TOL or (best == -np.inf) != (claimed == -np.inf):
            found.append((context, setting, claimed, best))
    return found


def test_joint_bound_is_valid_and_tight(oracle):
    """One block per count (covers of at most 12 rows): exactly the best subset."""
    n_checked = n_strict = 0
    for cover_profile, reference, values, context in enumerate_covers(oracle):
        for setting in settings():
            best = best_subset(values, reference, *setting)
            claimed = joint(cover_profile, reference, *setting)
            assert not np.isnan(claimed), context
            if best == -np.inf:
                assert claimed == -np.inf, (context, setting)
                continue
            assert claimed >= best - TOL, ("INVALID", context, setting, claimed, best)
            assert claimed <= best + TOL, ("loose", context, setting, claimed, best)
            n_checked += 1
            n_strict += setting[3] > 1 and best < joint(cover_profile, reference, *setting[:3], 1, setting[4]) - TOL
    assert n_checked > 3000
    assert n_strict > 100  # the minimum support made the bound smaller


@pytest.mark.parametrize("grid", [(0, 2), (2, 3), (0, 4)])
def test_coarse_grid_is_valid(oracle, grid):
    """Blocks of several counts (forced on small covers): still >= every subset."""
    n_loose = 0
    for cover_profile, reference, values, context in enumerate_covers(oracle):
        for setting in settings():
            best = best_subset(values, reference, *setting)
            claimed = joint(cover_profile, reference, *setting, grid=grid)
            # the early stop returns at least stop_at, the floor at least floor
            stop = claimed / 2
            assert joint(cover_profile, reference, *setting, grid=grid, stop_at=stop) >= min(stop, claimed)
            for floor in (best - 0.05, best + 0.05, 0.0) if np.isfinite(best) else ():
                cut = joint(cover_profile, reference, *setting, grid=grid, floor=floor)
                assert cut >= max(best, floor) - TOL and cut <= max(claimed, floor) + TOL, (context, setting)
            assert not np.isnan(claimed), context
            assert claimed >= best - TOL or claimed == best, ("INVALID", context, setting, claimed, best)
            n_loose += claimed > best + TOL
    assert n_loose > 0  # the blocks do lose something: this grid was exercised


def test_a_tightened_copy_is_caught(oracle):
    """The enumeration catches a bound lowered by 1e-6, or by 1% where it is
    positive, and a bound raised by 1e-6 fails the tightness check."""
    # the bound itself is valid: test_joint_bound_is_valid_and_tight
    claims = [
        (context, setting, joint(cover_profile, reference, *setting), best_subset(values, reference, *setting))
        for cover_profile, reference, values, context in enumerate_covers(oracle)
        for setting in settings()
    ]
    assert violations(claims, lambda bound: bound - 1e-6)
    scaled = violations(claims, lambda bound: bound * 0.99 if bound > 0 else bound)
    assert len(scaled) > 100
    cover_profile, reference, values, _ = next(enumerate_covers(oracle))
    best = best_subset(values, reference, "worse", 1, 1, 1, 0.0)
    assert joint(cover_profile, reference, "worse", 1, 1, 1, 0.0) + 1e-6 > best + TOL


def test_quality_function_estimate_uses_the_joint_bound(oracle):
    """``statistics_of_cover`` and the compiled ``calculate_statistics`` give
    ``min(W_max * raw bound estimate, max(J, quality))`` with the quality
    function's ``min_support``; the joint bound is the smaller on many covers."""
    n_smaller = 0
    for seed in range(0, N_DATASETS, 3):
        test_case = case(oracle, seed)
        for mode in MODES:
            for alpha, beta in ((1, 1), (0.3, 1), (1, 0)):
                for min_support in (1, 4):
                    qf = prepared_qf("roc_auc", test_case, alpha, beta, mode)
                    qf.min_support = min_support
                    for mask, _, _ in test_case.covers:
                        cover = qf.dataset.cover(qf.dataset.mask_of(mask))
                        stats = qf.statistics_of_cover(cover)
                        compiled = qf.calculate_statistics(mask, TARGET, test_case.data)
                        assert compiled == stats or np.array_equal(compiled, stats, equal_nan=True)
                        if stats.quality == -np.inf:
                            continue
                        product = bounds.weighted_bound(
                            True, cover.positives, cover.negatives, stats.raw_bound, np.inf, alpha,
                            beta, True,
                        )  # fmt: skip
                        if stats.raw_bound >= 0:  # subsets within rounding of the reference count 0
                            product = max(product, 0.0)
                        claimed = joint_bounds.roc_auc_joint_bound_of_cover(
                            cover, qf.dataset_value, 0.0, qf.signs(), alpha, beta, min_support
                        )
                        floor = 0.0 if product >= 0 else -np.inf
                        assert stats.optimistic_estimate == min(product, max(claimed, stats.quality, floor))
                        n_smaller += claimed < product - TOL
    assert n_smaller > 50


def kernel_values(qf, kind, mask, masks):
    """The measure kernel's value on every subset of a cover (NaN where undefined)."""
    subsets = np.zeros((len(masks), len(mask)), dtype=bool)
    subsets[:, np.flatnonzero(mask)] = masks
    positive_words, negative_words, group_start, group_end, _, row_values, *_ = qf._kernel_data
    value, lowest, highest = (np.empty(len(masks)) for _ in range(3))
    cover_kernels.measure_children(
        bitset.pack(qf.dataset.mask_of(mask)), bitset.pack(subsets[:, qf.dataset.order]),
        np.arange(len(masks)), positive_words, negative_words, group_start, group_end, kind,
        row_values, False, value, lowest, highest,
    )  # fmt: skip
    return value


@pytest.mark.parametrize("name", ["roc_auc", "arl"])
def test_count_bound_holds_for_every_subset(oracle, name):
    """``count_bounds`` of a cover, at the class counts of each of its subsets,
    is >= that subset's ``w * (q - offset)`` (every subset of every test
    cover, with and without ties, each mode and weight pair, both offsets):
    never below the quality the kernels compute (exactly, no tolerance) and
    within ``TOL`` of the brute-force oracle's, equal to it for the extreme
    subsets; copies lowered by a factor ``1 - 1e-9`` or computed at one
    negative fewer are caught."""
    kind = {"roc_auc": cover_kernels.ROC_AUC, "arl": cover_kernels.ARL}[name]
    assert kind in joint_bounds.COUNT_BOUND_KINDS
    n_tight = n_checked = 0
    caught = {"lowered": 0, "one negative fewer": 0}
    for seed in range(N_DATASETS):
        test_case = case(oracle, seed)
        qf = prepared_qf(name, test_case, 0, 0, "worse")
        reference = qf.dataset_value
        for mask, masks, values in test_case.covers:
            parent = bitset.pack(qf.dataset.mask_of(mask))
            p, n = values["positives"].astype(np.int64), values["negatives"].astype(np.int64)
            value = kernel_values(qf, kind, mask, masks)
            np.testing.assert_allclose(value, values[name], rtol=0, atol=TOL)  # NaN alike
            for mode, alpha, beta, min_support, offset in settings():
                if min_support != 1:
                    continue
                directions = signs(KINDS[name], mode)

                def bound(positives, negatives):
                    out = np.empty(len(positives))
                    joint_bounds.count_bounds(
                        kind, parent, *qf._kernel_data[:4], positives, negatives, reference, offset,
                        -1 in directions, 1 in directions, float(alpha), float(beta), out,
                    )  # fmt: skip
                    return out

                out = bound(p, n)
                # the quality as the search computes it: statistics_kernel's arithmetic
                raw = relative_quality(value, reference, -1 in directions, 1 in directions)
                weight = subgroup_weight(p.astype(float), n.astype(float), float(alpha), float(beta))
                exact = np.where(np.isnan(value), -np.inf, weight * (raw - offset))
                best = subset_gains(values, reference, mode, alpha, beta, 1, offset, name)
                defined = np.isfinite(best)
                context = (name, seed, mode, alpha, beta, offset)
                assert np.array_equal(np.isfinite(out), defined), context
                assert np.array_equal(np.isfinite(exact), defined), context
                assert np.all(out[defined] >= exact[defined]), ("INVALID", context)
                assert np.all(out[defined] >= best[defined] - TOL), ("INVALID (oracle)", context)
                positive = defined & (out > 0)
                caught["lowered"] += np.sum(out[positive] * (1 - 1e-9) < exact[positive])
                fewer = defined & (n > 1)
                caught["one negative fewer"] += np.sum(bound(p[fewer], n[fewer] - 1) < exact[fewer])
                n_tight += np.sum(np.abs(out[defined] - best[defined]) <= TOL)
                n_checked += np.sum(defined)
    assert n_checked > 1_000_000
    assert n_tight > 100_000
    assert caught["lowered"] > 10_000 and caught["one negative fewer"] > 10_000, caught
