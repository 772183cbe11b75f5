"""Tests of :mod:`subroc_ext.scoring.weights` against brute force over all class counts.

A subset of a cover with ``P`` positives and ``N`` negatives can hold any
``p <= P`` positives and ``q <= N`` negatives, so the largest and smallest
weight over subsets is a maximum / minimum over that grid.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subroc_ext.scoring import weights

EXPONENTS = (0.0, 0.1, 0.3, 0.5, 1.0, 1.5, 2.0, 3.0)
RTOL = 1e-12


def brute_force_weights(positives, negatives, alpha, beta, needs_both_classes):
    """Weights ``(p + q)^alpha * cb^beta`` (``0^0 = 1``) of every subset class
    count ``(p, q)``, ``p <= positives``, ``q <= negatives``, that is a defined,
    non-empty subset (holding both classes if ``needs_both_classes``)."""
    result = []
    for p in range(positives + 1):
        for q in range(negatives + 1):
            if p + q == 0 or (needs_both_classes and (p == 0 or q == 0)):
                continue
            balance = min(p, q) / max(p, q)
            result.append(math.pow(p + q, alpha) * math.pow(balance, beta))
    return np.array(result)


def random_exponent(rng):
    """An exponent from a fixed pool (with 0) or uniform on [0, 3]."""
    return float(rng.choice(EXPONENTS)) if rng.random() < 0.6 else float(rng.uniform(0, 3))


def test_power_convention():
    assert math.pow(0.0, 0.0) == 1.0  # the oracle's 0^0 = 1


@pytest.mark.parametrize(
    "positives, negatives, alpha, beta, expected",
    [
        (3, 0, 1.0, 0.0, 3.0),  # cb = 0, beta = 0: 0^0 = 1
        (3, 0, 1.0, 1.0, 0.0),
        (3, 0, 0.0, 0.0, 1.0),
        (2, 2, 1.0, 1.0, 4.0),
        (1, 3, 2.0, 1.0, 16 / 3),
        (1, 3, 0.0, 0.5, math.sqrt(1 / 3)),
    ],
)
def test_subgroup_weight_by_hand(positives, negatives, alpha, beta, expected):
    assert weights.subgroup_weight(positives, negatives, alpha, beta) == pytest.approx(expected, rel=RTOL)
    vectorized = weights.subgroup_weight(np.array([positives]), np.array([negatives]), alpha, beta)
    assert vectorized == pytest.approx([expected], rel=RTOL)


def test_subgroup_weight_scalar_and_vectorized_paths_agree():
    rng = np.random.default_rng(11)
    p, q = rng.integers(0, 30, 500), rng.integers(0, 30, 500)
    p[:20] = 0
    q[20:40] = 0
    for _ in range(20):
        alpha, beta = random_exponent(rng), random_exponent(rng)
        vectorized = weights.subgroup_weight(p, q, alpha, beta)
        scalar = [weights.subgroup_weight(int(a), int(b), alpha, beta) for a, b in zip(p, q)]
        with np.errstate(divide="ignore", invalid="ignore"):
            balance = np.where(np.maximum(p, q) > 0, np.minimum(p, q) / np.maximum(p, q), 0.0)
        expected = np.array([math.pow(a + b, alpha) * math.pow(c, beta) for a, b, c in zip(p, q, balance)])
        np.testing.assert_allclose(vectorized, expected, rtol=RTOL)
        np.testing.assert_allclose(scalar, expected, rtol=RTOL)


def test_class_balance():
    assert weights.class_balance(3, 6) == 0.5
    assert weights.class_balance(6, 3) == 0.5
    assert weights.class_balance(0, 5) == 0.0
    assert weights.class_balance(0, 0) == 0.0
    np.testing.assert_array_equal(weights.class_balance([1, 4, 0], [2, 2, 0]), [0.5, 0.5, 0.0])


def check_max_weight(positives, negatives, alpha, beta):
    """``max_weight`` equals the largest brute-force weight (valid and tight)."""
    expected = brute_force_weights(positives, negatives, alpha, beta, False).max()
    assert weights.max_weight(positives, negatives, alpha, beta) == pytest.approx(
        expected, rel=RTOL
    ), (positives, negatives, alpha, beta)


def check_min_weight(positives, negatives, alpha, beta):
    """``min_weight`` equals the smallest brute-force weight of a defined subset,
    for one-class-defined measures and (if both classes exist) two-class ones."""
    for needs_both in (False, True):
        if needs_both and (positives == 0 or negatives == 0):
            continue  # no defined subset
        expected = brute_force_weights(positives, negatives, alpha, beta, needs_both).min()
        assert weights.min_weight(positives, negatives, alpha, beta, needs_both) == pytest.approx(
            expected, rel=RTOL, abs=1e-300
        ), (positives, negatives, alpha, beta, needs_both)


def test_max_and_min_weight_against_brute_force_random():
    rng = np.random.default_rng(12)
    for _ in range(3000):
        positives, negatives = (int(x) for x in rng.integers(0, 31, 2))
        if positives + negatives == 0:
            continue
        alpha, beta = random_exponent(rng), random_exponent(rng)
        check_max_weight(positives, negatives, alpha, beta)
        check_min_weight(positives, negatives, alpha, beta)


@pytest.mark.parametrize("alpha", EXPONENTS)
@pytest.mark.parametrize("beta", EXPONENTS)
def test_max_and_min_weight_against_brute_force_grid(alpha, beta):
    """Every exponent pair of the pool (including 0) on every (P, N) up to 12."""
    for positives in range(13):
        for negatives in range(13):
            if positives + negatives:
                check_max_weight(positives, negatives, alpha, beta)
                check_min_weight(positives, negatives, alpha, beta)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    positives=st.integers(0, 60),
    negatives=st.integers(0, 60),
    alpha=st.floats(0, 4),
    beta=st.floats(0, 4),
)
def test_max_and_min_weight_hypothesis(positives, negatives, alpha, beta):
    """Near-equal exponents put the turning point of ``min_weight`` anywhere."""
    if positives + negatives:
        check_max_weight(positives, negatives, alpha, beta)
        check_min_weight(positives, negatives, alpha, beta)


@pytest.mark.parametrize("alpha, beta", [(1.0, 0.9), (2.0, 1.5), (1.0, 0.5), (3.0, 1.0), (0.51, 0.5)])
def test_min_weight_interior_minimum(alpha, beta):
    """When alpha > beta the two-class minimum sits at ``beta / (alpha - beta)``."""
    for largest in range(1, 120):
        check_min_weight(1, largest, alpha, beta)
        check_min_weight(largest, 1, alpha, beta)


def test_weights_are_libm_powers_bit_for_bit_on_scalars_arrays_and_in_compiled_code():
    """Each weight function is one compiled definition: on scalars, on arrays
    and called from compiled code it gives the floats of the formula written
    with ``math.pow`` (the C library's ``pow``, as Python's ``**``), bit for
    bit. ``numpy.power`` would not: with AVX-512 it differs in the last bit
    for about a tenth to a quarter of these arguments."""
    from numba import njit

    @njit
    def compiled(p, n, alpha, beta):
        return weights.subgroup_weight(p, n, alpha, beta), weights.max_weight(p, n, alpha, beta)

    rng = np.random.default_rng(12)
    p, q = rng.integers(0, 5000, 300), rng.integers(0, 5000, 300)
    p[:10], q[10:20] = 0, 0
    for alpha, beta in [(0.3, 1.0), (1.0, 0.3), (2.0, 2.0), (1.7, 0.1), (0.0, 0.5)]:
        expected_weight, expected_max = [], []
        for a, b in zip(p.tolist(), q.tolist()):
            small, large = min(a, b), max(a, b)
            balance = small / large if large else 0.0
            expected_weight.append(math.pow(a + b, alpha) * math.pow(balance, beta))
            expected_max.append(
                (0.0 if beta > 0 else math.pow(large, alpha)) if small == 0 else
                max(math.pow(2 * small, alpha), math.pow(small + large, alpha) * math.pow(small / large, beta))
            )  # fmt: skip
        np.testing.assert_array_equal(weights.subgroup_weight(p, q, alpha, beta), expected_weight)
        np.testing.assert_array_equal(weights.max_weight(p, q, alpha, beta), expected_max)
        for i in range(0, 300, 7):
            a, b = int(p[i]), int(q[i])
            assert weights.subgroup_weight(a, b, alpha, beta) == expected_weight[i]
            assert compiled(a, b, alpha, beta) == (expected_weight[i], expected_max[i])


def test_power_is_the_c_pow_of_python_bit_for_bit():
    """``power`` in compiled code gives the float of Python's ``**`` (C's
    ``pow``), also where it skips the call (exponents 0 and 1), for bases
    from 0 to large, and the weights built on it equal their formulas."""
    from numba import njit

    @njit
    def powers(bases, exponents):
        out = np.empty((len(bases), len(exponents)))
        for i in range(len(bases)):
            for j in range(len(exponents)):
                out[i, j] = weights.power(bases[i], exponents[j])
        return out

    bases = np.array([0.0, 1e-300, 0.05263157894736842, 0.3, 1.0, 2.0, 7.0, 20.0, 49_881.0, 1e100])
    exponents = np.array([*EXPONENTS, -0.5, -1.0, 0.7])
    got = powers(bases, exponents)
    for i, base in enumerate(bases):
        for j, exponent in enumerate(exponents):
            expected = math.inf if base == 0.0 and exponent < 0 else float(base) ** float(exponent)
            assert got[i, j] == expected or (math.isnan(got[i, j]) and math.isnan(expected)), (base, exponent)
    assert weights.subgroup_weight(3.0, 7.0, 0.5, 1.5) == 10.0**0.5 * (3 / 7) ** 1.5
    assert weights.subgroup_weight(3.0, 7.0, 1.0, 1.0) == 10.0 * (3 / 7)
    assert weights.max_weight(3.0, 7.0, 2.0, 1.0) == max(6.0**2.0, 10.0**2.0 * (3 / 7))
