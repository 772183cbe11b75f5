"""Will a subgroup's performance hold on new data? Roberts et al.'s scores.

For the whole data and each subgroup, on a search split ``S`` and a
validation split ``V`` (Roberts et al. call them validation and test), with
binary labels and scores ``s`` (higher = more positive):

Robustness to a distribution shift ``P^sigma`` (their single-dataset scores)
    ``R = 1 / A(s) * integral over [sigma_min, sigma_max] of A(P^sigma(s)) d sigma``,
    ``A`` the ROC AUC (ties 1/2), the integral by the trapezoidal rule on the
    grid (default ``0, 0.05, ..., 1``, suited to scores in [0, 1]; on that
    range ``R`` is the mean shifted AUC over the AUC).

    * bias: the positives' scores minus ``sigma``, the negatives' unchanged;
    * noise: ``s + sigma Z`` with independent standard normal ``Z``. Its AUC
      is random; we use its expectation, exactly: a positive ``p`` and a
      negative ``q`` are ordered correctly with probability
      ``Phi((s_p - s_q) / (sigma sqrt 2))`` (1/2 for a tie at ``sigma = 0``),
      averaged over all pairs, or over ``max_pairs`` pairs drawn at random
      (with ``random_state``; the same pairs for every ``sigma``) when there
      are more.

Sensitivity and specificity at a threshold ``tau``
    A row is predicted positive when ``s >= tau``. ``tau`` is given, or the
    Youden threshold of the whole search split: the score maximising
    sensitivity + specificity - 1, the highest such score on ties. Both are
    reported on both splits, with the drift ``V - S`` of each and their
    Euclidean distance, and the paper's average drift
    ``D = integral over tau in [0, 1] of |(sens, spec)_V(tau) - (sens, spec)_S(tau)|^2``,
    computed exactly (both are step functions of ``tau``).

2-Wasserstein distances
    Between the four score distributions (class x split), from the quantile
    functions: ``W_2(F, G)^2 = integral over (0, 1) of (F^-1(u) - G^-1(u))^2 du``,
    exactly (empirical quantile functions are step functions). Roberts et
    al. want the two classes far apart within a split and each class close
    to itself across the splits.

Where the authors' code (``testAUC``, their reference [3]) differs from the
paper's text, we follow the text: it computes the "Wasserstein" matrix with
``scipy.stats.wasserstein_distance`` (the 1-Wasserstein distance), adds one
random draw of noise instead of taking the expectation, and averages the
relative AUCs over 20 shifts from 0 to the largest score (by index, not by
``sigma``); on scores in [0, 1] our default grid gives nearly the same
robustness scores.

References
----------
.. [1] M. Roberts, A. Hazan, S. Dittmer, J. H. F. Rudd, C.-B. Schönlieb,
   "The curious case of the test set AUROC", arXiv:2312.16188, 2023
   (``seeds/test_set_auroc_paper.txt``).
"""

import numpy as np
import pandas as pd
from numba import njit
from scipy.integrate import trapezoid
from scipy.special import ndtr

from ..utils.validation import check_columns, finite_scores, positive_mask
from .covers import subgroup_covers
from .kernels import roc_curve

__all__ = [
    "DEFAULT_GRID",
    "generalization_diagnostics",
    "add_generalization_diagnostics",
    "wasserstein2_distance",
    "wasserstein_matrix",
    "youden_threshold",
    "shift_robustness",
    "sens_spec_drift_integral",
]

#: Shifts sigma of both robustness scores: 0, 0.05, ..., 1.
DEFAULT_GRID = np.linspace(0.0, 1.0, 21)
_GROUPS = (("search", False), ("search", True), ("validation", False), ("validation", True))


def _auc(positives, negatives, shifts=(0.0,)):
    """Tie-aware ROC AUC of ``positives - shift`` against ``negatives`` for
    each shift (NaN without a pair): both classes sorted once (cheap when
    they come sorted), then each positive counts the negatives below it twice
    and those tied once, in integers, so the value is exact (that of
    :func:`~subroc_ext.metrics.cross_auc.cross_pair_counts`), in one merge of
    the two sorted classes per shift (:func:`_twice_pairs_below`)."""
    pairs = float(len(positives) * len(negatives))
    if pairs == 0:
        return np.full(len(shifts), np.nan)
    twice = np.empty(len(shifts), dtype=np.int64)
    _twice_pairs_below(np.sort(positives), np.sort(negatives), np.asarray(shifts, dtype=float), twice)
    return (twice / 2) / pairs


@njit(cache=True, nogil=True)
def _twice_pairs_below(keys, ordered, shifts, out):
    """For each shift ``s``: the sum over ``keys`` (ascending) of the number of
    ``ordered`` (ascending) values below ``key - s`` plus those at most
    ``key - s``, into ``out``. Both pointers only move up as the keys grow,
    so a shift costs one pass over both arrays (a bisection per key costs
    ten times more on a million rows); ``key - s`` is the float that
    ``keys - s`` gives."""
    n = len(ordered)
    for k in range(len(shifts)):
        shift = shifts[k]
        below = at_most = total = 0
        for i in range(len(keys)):
            key = keys[i] - shift if shift != 0.0 else keys[i]
            while below < n and ordered[below] < key:
                below += 1
            at_most = max(at_most, below)
            while at_most < n and ordered[at_most] <= key:
                at_most += 1
            total += below + at_most
        out[k] = total


def _expected_noisy_aucs(positives, negatives, grid, rng, max_pairs, base):
    """Expected AUC of scores with N(0, sigma^2) noise for each sigma of ``grid``
    (``base``, the AUC, at sigma 0), over all pairs or (the same) ``max_pairs``
    random pairs for every sigma."""
    values = np.zeros(len(grid))
    zero = grid == 0
    values[zero] = base
    scales = 1.0 / (grid[~zero] * np.sqrt(2))
    if len(positives) * len(negatives) > max_pairs:
        differences = rng.choice(positives, max_pairs) - rng.choice(negatives, max_pairs)
        values[~zero] = [ndtr(differences * scale).mean() for scale in scales]
        return values
    chunk = max(1, max_pairs // 50 // max(len(negatives), 1))
    totals = np.zeros(len(scales))
    for start in range(0, len(positives), chunk):
        differences = positives[start : start + chunk, None] - negatives[None, :]
        totals += [ndtr(differences * scale).sum() for scale in scales]
    values[~zero] = totals / (len(positives) * len(negatives))
    return values


def shift_robustness(positives, negatives, kind, grid=DEFAULT_GRID, *, rng=None, max_pairs=200_000):
    """Roberts et al.'s robustness of the AUC to bias or noise.

    Parameters
    ----------
    positives, negatives : numpy.ndarray of float
        Scores of each class.
    kind : {'bias', 'noise'}
    grid : array-like of float, default=DEFAULT_GRID
        Increasing shifts sigma (at least two).
    rng : numpy.random.Generator, optional
        Draws the pairs for noise when there are more than ``max_pairs``.
    max_pairs : int, default=200_000
        Pairs for the noise; with more, the same random sample of this many
        pairs serves every sigma (an unbiased estimate, standard error below
        ``0.5 / sqrt(max_pairs)``).

    Returns
    -------
    float
        ``trapezoid(A(sigma), grid) / A(0)``; NaN without both classes or when ``A(0) = 0``.
    """
    return _robustness((positives, negatives), (positives, negatives), kind, grid, rng, max_pairs)


def _robustness(classes, drawn, kind, grid, rng, max_pairs):
    """:func:`shift_robustness` of the class scores ``classes`` (positives,
    negatives; sorted is faster), the noise's random pairs drawn from
    ``drawn``, the same scores in the order that fixes which pairs a seed draws."""
    grid = np.asarray(grid, dtype=float)
    base = _auc(*classes)[0]
    if np.isnan(base) or base == 0:
        return np.nan
    if kind == "bias":
        shifted = _auc(*classes, grid)
    else:
        shifted = _expected_noisy_aucs(*drawn, grid, np.random.default_rng(rng), max_pairs, base)
    return float(trapezoid(shifted, grid) / base)


def youden_threshold(is_positive, scores):
    """The score ``tau`` maximising sensitivity + specificity - 1 for ``s >= tau``
    (the highest on ties)."""
    if is_positive.all() or not is_positive.any():
        raise ValueError("the Youden threshold needs both classes in the search split")
    false_positive, sensitivity, thresholds = roc_curve(is_positive, scores, positive_label=True)
    # the first point (threshold inf, nothing predicted positive) is no candidate
    return float(thresholds[1:][np.argmax(sensitivity[1:] - false_positive[1:])])


def _sens_spec(is_positive, scores, threshold):
    predicted = scores >= threshold
    with np.errstate(invalid="ignore"):
        sensitivity = predicted[is_positive].mean() if is_positive.any() else np.nan
        specificity = (~predicted[~is_positive]).mean() if (~is_positive).any() else np.nan
    return float(sensitivity), float(specificity)


def sens_spec_drift_integral(first, second, lower=0.0, upper=1.0):
    """``integral over [lower, upper] of |(sens, spec)_1(tau) - (sens, spec)_2(tau)|^2 dtau``.

    Parameters
    ----------
    first, second : tuple of (positives, negatives) score arrays
        The two splits.
    lower, upper : float
        The range of thresholds.

    Returns
    -------
    float
        Exact: between consecutive scores both curves are constant, so the
        integral is a sum over those intervals (NaN without both classes in
        both splits).
    """
    arrays = [*first, *second]
    if any(len(a) == 0 for a in arrays):
        return np.nan
    inside = np.concatenate([a[(a > lower) & (a < upper)] for a in arrays])
    edges = _distinct(np.concatenate([[lower, upper], inside]))
    midpoints = (edges[1:] + edges[:-1]) / 2

    def curve(positives, negatives):
        sens = 1 - np.searchsorted(np.sort(positives), midpoints, side="left") / len(positives)
        spec = np.searchsorted(np.sort(negatives), midpoints, side="left") / len(negatives)
        return sens, spec

    (sens_1, spec_1), (sens_2, spec_2) = curve(*first), curve(*second)
    squared = (sens_1 - sens_2) ** 2 + (spec_1 - spec_2) ** 2
    return float(np.sum(np.diff(edges) * squared))


def _distinct(values):
    """``numpy.unique(values)``, faster when ``values`` is a few sorted runs
    (a stable sort merges them)."""
    ordered = np.sort(values, kind="stable")
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if len(ordered) else ordered


def wasserstein2_distance(u, v):
    """2-Wasserstein distance between two empirical distributions (1-D).

    ``sqrt(integral over (0, 1) of (F^-1(t) - G^-1(t))^2 dt)`` with the
    quantile functions ``F^-1(t) = x_(ceil(t m))`` of the sorted samples,
    computed exactly on the merged breakpoints ``i/m`` and ``j/n``.

    Returns
    -------
    float
        NaN when a sample is empty.
    """
    u, v = np.sort(np.asarray(u, dtype=float)), np.sort(np.asarray(v, dtype=float))
    if len(u) == 0 or len(v) == 0:
        return np.nan
    edges = _distinct(np.concatenate([np.arange(len(u) + 1) / len(u), np.arange(len(v) + 1) / len(v)]))
    middle = (edges[1:] + edges[:-1]) / 2
    first = u[np.minimum(np.ceil(middle * len(u)).astype(np.intp) - 1, len(u) - 1)]
    second = v[np.minimum(np.ceil(middle * len(v)).astype(np.intp) - 1, len(v) - 1)]
    gaps = first / 2 - second / 2  # halves, scaled by the largest: no overflow at any scale of the scores
    largest = np.abs(gaps).max()
    if largest == 0:
        return 0.0
    return float(2 * largest * np.sqrt(np.sum(np.diff(edges) * (gaps / largest) ** 2)))


def wasserstein_matrix(samples):
    """4 x 4 DataFrame of 2-Wasserstein distances between named samples."""
    names = list(samples)
    values = [[wasserstein2_distance(samples[a], samples[b]) for b in names] for a in names]
    return pd.DataFrame(values, index=names, columns=names)


def _split_arrays(data, label, score, positive_label, name):
    check_columns(data, [label, score])
    return positive_mask(data[label], positive_label, f"{label} ({name})"), finite_scores(
        data[score], f"{score} ({name})"
    )


def generalization_diagnostics(
    subgroups,
    search,
    validation,
    *,
    label,
    score,
    positive_label=1,
    threshold=None,
    bias_grid=DEFAULT_GRID,
    noise_grid=DEFAULT_GRID,
    max_pairs=200_000,
    random_state=None,
):
    """Generalization scores of Roberts et al. for the whole data and each subgroup.

    Parameters
    ----------
    subgroups : pysubgroup result, mapping or sequence of descriptions
        The subgroups (see :func:`subroc_ext.metrics.covers.subgroup_covers`); each
        is applied to both splits.
    search, validation : pandas.DataFrame
        The two splits, with the label and score columns.
    label, score : str
    positive_label : object, default=1
    threshold : float, optional
        Operating point (``s >= threshold`` predicts positive); default the
        Youden threshold of the whole search split.
    bias_grid, noise_grid : array-like of float, default=DEFAULT_GRID
        Shifts sigma of the robustness scores (0 to 1 in steps of 0.05).
    max_pairs : int, default=200_000
        Pairs per expected noisy AUC before it is estimated from a random
        sample (standard error below ``0.5 / sqrt(max_pairs)``, about 0.001).
    random_state : int or numpy.random.Generator, optional
        Seeds that sample.

    Returns
    -------
    pandas.DataFrame
        One row for ``'all'`` (the whole data) and one per subgroup:
        ``subgroup``, ``size_search``, ``size_validation``,
        ``bias_robustness_<split>``, ``noise_robustness_<split>``,
        ``threshold``, ``sensitivity_<split>``, ``specificity_<split>``,
        ``sensitivity_drift`` and ``specificity_drift`` (validation - search),
        ``sens_spec_drift`` (their Euclidean norm), ``sens_spec_drift_integral``
        (the paper's D over thresholds in [0, 1]) and the six distinct
        2-Wasserstein distances ``w2_<split>_<class>__<split>_<class>``
        (class ``neg`` or ``pos``). NaN where a score is undefined (a class
        missing from the subgroup on a split).

    References
    ----------
    .. [1] M. Roberts et al., "The curious case of the test set AUROC",
       arXiv:2312.16188, 2023.
    """
    for name, grid in (("bias_grid", bias_grid), ("noise_grid", noise_grid)):
        values = np.asarray(grid, dtype=float)
        if values.ndim != 1 or len(values) < 2 or not np.all(np.diff(values) > 0) or values[0] < 0:
            raise ValueError(f"{name} must be at least two increasing shifts >= 0, got {grid!r}")
    if not (isinstance(max_pairs, (int, np.integer)) and max_pairs >= 1):
        raise ValueError(f"max_pairs must be a positive integer, got {max_pairs!r}")
    rng = np.random.default_rng(random_state)
    splits = {
        "search": _split_arrays(search, label, score, positive_label, "search"),
        "validation": _split_arrays(validation, label, score, positive_label, "validation"),
    }
    if threshold is None:
        threshold = youden_threshold(*splits["search"])
    elif not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    names, search_masks = subgroup_covers(subgroups, search)
    _, validation_masks = subgroup_covers(subgroups, validation)
    masks = {
        "search": np.vstack([np.ones(len(search), bool), search_masks]),
        "validation": np.vstack([np.ones(len(validation), bool), validation_masks]),
    }
    # each split sorted by score once: every subgroup's class scores then come
    # out sorted, and the sorts and bisections below run on sorted data
    ordered = {split: _by_score(*arrays) for split, arrays in splits.items()}
    records = []
    for row, name in enumerate(["all", *names]):
        record = {"subgroup": name}
        classes = {}
        for split, (is_positive, scores) in splits.items():
            mask = masks[split][row]
            record[f"size_{split}"] = int(mask.sum())
            order, sorted_positive, sorted_scores = ordered[split]
            inside = mask[order]
            classes[split] = (sorted_scores[inside & sorted_positive], sorted_scores[inside & ~sorted_positive])
            record[f"bias_robustness_{split}"] = shift_robustness(*classes[split], "bias", bias_grid)
            # the noise's random pairs are drawn from the rows in the data's order
            drawn = scores[mask & is_positive], scores[mask & ~is_positive]
            record[f"noise_robustness_{split}"] = _robustness(classes[split], drawn, "noise", noise_grid,
                                                              rng, max_pairs)  # fmt: skip
        record["threshold"] = float(threshold)
        for split, (is_positive, scores) in splits.items():
            mask = masks[split][row]
            sens, spec = _sens_spec(is_positive[mask], scores[mask], threshold)
            record[f"sensitivity_{split}"], record[f"specificity_{split}"] = sens, spec
        record["sensitivity_drift"] = record["sensitivity_validation"] - record["sensitivity_search"]
        record["specificity_drift"] = record["specificity_validation"] - record["specificity_search"]
        record["sens_spec_drift"] = float(np.hypot(record["sensitivity_drift"], record["specificity_drift"]))
        record["sens_spec_drift_integral"] = sens_spec_drift_integral(
            classes["search"], classes["validation"]
        )
        samples = _class_samples(classes)
        for first, second in _distinct_pairs(samples):
            record[f"w2_{first}__{second}"] = wasserstein2_distance(samples[first], samples[second])
        records.append(record)
    return pd.DataFrame.from_records(records)


def _by_score(is_positive, scores):
    """The order that sorts ``scores`` (stable), the labels and the scores in it."""
    order = np.argsort(scores, kind="stable")
    return order, is_positive[order], scores[order]


def add_generalization_diagnostics(table, search, validation, **settings):
    """A ``find_subgroups`` table with the generalization diagnostics as columns.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`~subroc_ext.find_subgroups` (its ``subgroup``
        column of descriptions and its ``attrs`` are used).
    search, validation : pandas.DataFrame
        The splits the table was computed on.
    **settings
        Passed to :func:`generalization_diagnostics` (``threshold``, grids,
        ``max_pairs``, ``random_state``); label, score and positive label
        come from ``table.attrs``.

    Returns
    -------
    pandas.DataFrame
        A copy of ``table`` with the diagnostics columns (except the sizes,
        which it already has) appended; ``attrs["generalization_diagnostics"]``
        holds the whole data's row as a dict.
    """
    attrs = table.attrs
    diagnostics = generalization_diagnostics(
        table, search, validation,
        label=attrs["label"], score=attrs["score"], positive_label=attrs["positive_label"],
        **settings,
    )  # fmt: skip
    columns = [c for c in diagnostics.columns if c not in ("subgroup", "size_search", "size_validation")]
    extended = table.copy()
    for column in columns:
        extended[column] = diagnostics[column].to_numpy()[1:]
    extended.attrs = {**attrs, "generalization_diagnostics": diagnostics.iloc[0].to_dict()}
    return extended


def _class_samples(classes):
    """``{'<split>_neg': scores, '<split>_pos': scores}`` from ``{split: (positives, negatives)}``."""
    return {
        f"{split}_{'pos' if positive else 'neg'}": classes[split][0 if positive else 1]
        for split, positive in _GROUPS
    }


def _distinct_pairs(samples):
    keys = list(samples)
    return [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]
