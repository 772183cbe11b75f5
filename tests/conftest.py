"""Fixtures shared by the test modules.

* ``oracle``: brute-force oracles shared by the measure and estimate tests.
  They evaluate a measure on *every* subset of a small cover at once, straight
from the definitions in SPEC.md (pairwise counting, one precision-recall point
per threshold), and use nothing from :mod:`subroc_ext` but its enumeration of
the subsets (:func:`subroc_ext.utils.subsets.all_subsets`).
* ``audit_analysis``: one ``find_subgroups`` analysis with a validation split,
  shared by the report tests; ``failing_analysis``: one whose planted failure
  is significant (the findings file, the gate and recheck tests).

Hooks: with ``SUBROC_EXT_REQUIRE_REFERENCE=1`` (.ci/run's reference
environment) the session fails at its start unless pysubgroup 0.9.0 is
installed, so that its parity tests cannot be skipped there. The notebooks
of test_notebooks.py start in the background as soon as the tests are collected (in one process; with pytest-xdist workers, when the
worker running test_notebooks.py needs them), and the session waits for them
at its end.
"""

import os
import types
from importlib.metadata import version

import numpy as np
import pytest

from synthetic import scored_frame

from subroc_ext.utils.subsets import all_subsets

# The suite's processes compile beside each other: no command line of theirs
# starts a second process to compile (tests/test_warm_up.py turns it on).
os.environ.setdefault("SUBROC_EXT_WARM_UP", "0")


def _notebook_modules(session):
    return {item.module for item in session.items
            if isinstance(item, pytest.Function) and hasattr(item.module, "start_notebooks")}  # fmt: skip


def pytest_sessionstart(session):
    """Where the reference is required (``SUBROC_EXT_REQUIRE_REFERENCE=1``, set by
    .ci/run), end the session at once unless pysubgroup 0.9.0 is installed: its
    parity tests would otherwise be skipped, unnoticed."""
    if os.environ.get("SUBROC_EXT_REQUIRE_REFERENCE") == "1":
        installed = version("pysubgroup")
        if installed != "0.9.0":
            pytest.exit(
                f"SUBROC_EXT_REQUIRE_REFERENCE=1 but pysubgroup {installed} is installed, not "
                "0.9.0: its parity tests would be skipped", returncode=3,
            )  # fmt: skip


def pytest_collection_finish(session):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # every pytest-xdist worker collects every test: the worker that runs
        # test_notebooks.py starts the notebooks from its fixture instead
        return
    for module in _notebook_modules(session):
        module.start_notebooks(session.items)


def pytest_sessionfinish(session):
    for module in _notebook_modules(session):
        module.finish_notebooks()


def pair_wins(scores):
    """``W[i, j] = [s_i > s_j] + 1/2 [s_i = s_j]`` for every pair of rows."""
    difference = scores[:, None] - scores[None, :]
    return (difference > 0) + 0.5 * (difference == 0)


def subset_measures(is_positive, scores, masks):
    """ROC AUC, PR AUC and ARL of every subset, NaN where undefined.

    Parameters
    ----------
    is_positive, scores : numpy.ndarray
        Labels (bool) and scores of the rows, in any order.
    masks : numpy.ndarray of bool, shape (n_subsets, n_rows)
        The subsets.

    Returns
    -------
    dict
        ``roc_auc``, ``pr_auc``, ``arl``, ``positives`` and ``negatives``,
        one entry per subset.
    """
    positive = (masks & is_positive).astype(float)
    negative = (masks & ~is_positive).astype(float)
    n_pos, n_neg = positive.sum(1), negative.sum(1)
    wins = pair_wins(scores)
    # sum over positives i and negatives j of W[i, j], and of W[j, i] (= PEN)
    pair_wins_sum = ((positive @ wins) * negative).sum(1)
    penalty_sum = ((positive @ wins.T) * negative).sum(1)
    # PR curve: one point per threshold t (all rows scored >= t are predicted
    # positive). Thresholds absent from a subset repeat a neighbouring point
    # (or the start point (0, 1)) and add no area.
    thresholds = np.unique(scores)[::-1]
    at_or_above = (scores[:, None] >= thresholds[None, :]).astype(float)
    true_pos, false_pos = positive @ at_or_above, negative @ at_or_above
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(true_pos + false_pos > 0, true_pos / (true_pos + false_pos), 1.0)
        recall = true_pos / n_pos[:, None]
        ones, zeros = np.ones((len(masks), 1)), np.zeros((len(masks), 1))
        precision = np.hstack([ones, precision])
        recall = np.hstack([zeros, recall])
        area = (np.diff(recall, axis=1) * (precision[:, 1:] + precision[:, :-1]) / 2).sum(1)
        return {
            "roc_auc": np.where((n_pos > 0) & (n_neg > 0), pair_wins_sum / (n_pos * n_neg), np.nan),
            "pr_auc": np.where(n_pos > 0, area, np.nan),
            "arl": np.where(n_pos > 0, penalty_sum / n_pos, np.nan),
            "positives": n_pos.astype(int),
            "negatives": n_neg.astype(int),
        }


def attributions(is_positive, scores):
    """SPEC's normalized example attributions of all rows, by pairwise counting."""
    wins = pair_wins(scores)
    n_pos, n_neg = is_positive.sum(), (~is_positive).sum()
    of_positive = 0.5 * wins[:, ~is_positive].sum(1) / n_neg
    of_negative = 0.5 * wins[is_positive, :].sum(0) / n_pos
    return np.where(is_positive, of_positive, of_negative)


@pytest.fixture
def default_sigint():
    """Python's own SIGINT handler for the test, also where pytest runs in the
    background (a shell starts a background job with SIGINT ignored, and
    :func:`~subroc_ext.cli.streams.sigterm_as_interrupt` then rightly leaves
    Ctrl-C alone)."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture(scope="session")
def oracle():
    """The brute-force oracles of this module, as one namespace."""
    return types.SimpleNamespace(
        all_subsets=all_subsets,
        pair_wins=pair_wins,
        subset_measures=subset_measures,
        attributions=attributions,
    )


@pytest.fixture(scope="session")
def audit_analysis():
    """``find_subgroups`` on synthetic audit data (the model is no better than
    chance where ``region == 'east'``), tested on a validation split whose
    index is not 0..n-1: namespace of ``search``, ``validation`` and ``table``
    (treat them as read-only; copy before changing)."""
    from subroc_ext import find_subgroups

    search, validation = scored_frame(0, n=1500), scored_frame(1, n=1500)
    validation.index = np.arange(len(validation))[::-1] * 2  # any index works
    table = find_subgroups(search, label="y", score="p", validation=validation, n_samples=200,
                           result_set_size=10, random_state=0, progress=False)  # fmt: skip
    return types.SimpleNamespace(search=search, validation=validation, table=table)


@pytest.fixture(scope="session")
def failing_analysis():
    """``find_subgroups`` at depth 1 on the audit data with adaptive p-values, so that
    the planted failure (``region == 'east'``) is significant: namespace of
    ``search``, ``validation`` and ``table`` (read-only)."""
    from subroc_ext import find_subgroups

    search, validation = scored_frame(0, n=1500), scored_frame(1, n=1500)
    table = find_subgroups(search, label="y", score="p", validation=validation, depth=1,
                           result_set_size=8, random_state=0, progress=False)  # fmt: skip
    return types.SimpleNamespace(search=search, validation=validation, table=table)
