"""Cross-subgroup pair AUCs: is a subgroup bad on its own, or against the rest?

ROC AUC is linear over positive-negative pairs (Tafvizi et al., §5.2.1), so
the pairs of the whole data split into crosses ``A_i x A_j``: a positive of
group ``A_i`` with a negative of group ``A_j``. The *cross AUC* of ``(i, j)``
is the mean pair attribution of that cross (their §6.2):

    AUC(i, j) = 1 / (P_i N_j) * sum over positives p in A_i, negatives q in A_j
                of ([s_p > s_q] + 1/2 [s_p = s_q]),

defined when ``P_i N_j > 0``. ``AUC(i, i)`` is the subgroup's own AUC and,
with ``A`` the whole data, ``AUC(all, all)`` the usual AUC. With a subgroup
``S`` and its background ``B`` (the rows outside ``S``), Borkan et al.'s bias
AUCs are two crosses:

* BPSN AUC (background positive, subgroup negative) = ``AUC(B, S)``: low when
  the model scores the subgroup's negatives too high;
* BNSP AUC (background negative, subgroup positive) = ``AUC(S, B)``: low when
  it scores the subgroup's positives too low.

Everything is counted exactly from one sort by score: per tie group, the
negatives of each group, and for each positive the negatives strictly below
plus half of those tied.

References
----------
.. [1] N. Tafvizi, D. Chen, D. Aleman, M. Sundararajan, "Attributing AUC-ROC
   to Analyze Binary Classifier Performance", 2022, §5.2.1 and §6
   (``seeds/auc_attribution_paper.txt``).
.. [2] D. Borkan, L. Dixon, J. Sorensen, N. Thain, L. Vasserman, "Nuanced
   Metrics for Measuring Unintended Bias with Real Data for Text
   Classification", WWW 2019 Companion.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from ..utils.validation import check_columns, finite_scores, positive_mask
from .covers import subgroup_covers
from .kernels import sort_by_score

__all__ = ["CrossAUC", "bias_aucs_of_masks", "cross_auc", "cross_pair_counts", "subgroup_bias_aucs"]

BACKGROUND, ALL = "background", "all"


@dataclass(frozen=True)
class CrossAUC:
    """Cross AUCs between groups of rows, with their pair counts.

    Attributes
    ----------
    auc : pandas.DataFrame
        ``auc.loc[i, j]``: AUC of group i's positives against group j's
        negatives (NaN where there is no such pair). Index and columns are
        the subgroups, then ``'background'`` (rows outside every subgroup)
        and ``'all'`` (the whole data).
    pairs : pandas.DataFrame
        ``pairs.loc[i, j] = P_i * N_j``, the number of pairs of the cross.
    """

    auc: pd.DataFrame
    pairs: pd.DataFrame

    def to_frame(self):
        """The tidy form: one row per cross, columns ``positives``,
        ``negatives`` (group names), ``auc`` and ``pairs``."""
        rows, columns = self.auc.index, self.auc.columns
        return pd.DataFrame(
            {
                "positives": np.repeat(rows.to_numpy(), len(columns)),
                "negatives": np.tile(columns.to_numpy(), len(rows)),
                "auc": self.auc.to_numpy().ravel(),
                "pairs": self.pairs.to_numpy().ravel(),
            }
        )


def cross_pair_counts(is_positive, scores, positive_groups, negative_groups, *, group_ids=None):
    """Correctly ordered pairs (ties 1/2) and pair counts of every cross.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool, shape (n,)
    scores : numpy.ndarray of float, shape (n,)
    positive_groups, negative_groups : numpy.ndarray of bool, shape (g, n) and (h, n)
        Group memberships of the rows (groups may overlap).
    group_ids : numpy.ndarray of int, shape (n,), optional
        The rows' tie-group ids when they are in ascending score order
        already (``SortedDataset.group_ids``): then they are not sorted again.

    Returns
    -------
    wins, pairs : numpy.ndarray of float, shape (g, h)
    """
    if group_ids is None:
        order, group_ids = sort_by_score(scores)
    else:
        order = np.arange(len(group_ids))
    positive = is_positive[order]
    takers = positive_groups[:, order] & positive
    wins = np.zeros((len(positive_groups), len(negative_groups)))
    givers = np.zeros(len(negative_groups))
    if len(order) == 0:
        return wins, wins.copy()
    starts = np.flatnonzero(np.r_[True, group_ids[1:] != group_ids[:-1]])
    for j, group in enumerate(negative_groups):  # one group at a time: a few arrays over the rows
        per_tie = np.add.reduceat(group[order] & ~positive, starts, dtype=np.int64)
        givers[j] = per_tie.sum()
        # each row's credit: the negatives strictly below its tie group + half of those in it
        credit = (np.cumsum(per_tie) - 0.5 * per_tie)[group_ids]
        for i, taken in enumerate(takers):
            wins[i, j] = credit[taken].sum()  # halves of integers: exact in any order below 2**53
    pairs = np.outer(takers.sum(axis=1), givers)
    return wins, pairs


def _labels_and_scores(data, label, score, positive_label):
    check_columns(data, [label, score])
    return positive_mask(data[label], positive_label, label), finite_scores(data[score], score)


def _ratio(wins, pairs):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, wins / pairs, np.nan)


def cross_auc(subgroups, data, *, label, score, positive_label=1):
    """AUC of each group's positives against each group's negatives.

    Parameters
    ----------
    subgroups : pysubgroup result, mapping or sequence
        The subgroups (see :func:`subroc_ext.metrics.covers.subgroup_covers`).
    data : pandas.DataFrame
        Rows with the label and score columns.
    label, score : str
        Binary label and score columns.
    positive_label : object, default=1

    Returns
    -------
    CrossAUC
        Square matrices over the subgroups, ``'background'`` (rows outside
        every subgroup; for a single subgroup, its background) and ``'all'``.
        The subgroup's row against the background column is its BNSP AUC
        and the background row against its column its BPSN AUC (for one
        subgroup; :func:`subgroup_bias_aucs` gives both for many).

    References
    ----------
    .. [1] N. Tafvizi et al., "Attributing AUC-ROC to Analyze Binary
       Classifier Performance", 2022, §6 (crosses ``A_i x A_j``).

    Examples
    --------
    >>> frame = pd.DataFrame({"y": [0, 1, 0, 1], "s": [0.1, 0.2, 0.3, 0.4], "g": list("aabb")})
    >>> cross_auc({"a": frame.g == "a"}, frame, label="y", score="s").auc.loc["a", "background"]
    0.0
    """
    is_positive, scores = _labels_and_scores(data, label, score, positive_label)
    names, masks = subgroup_covers(subgroups, data)
    clash = {BACKGROUND, ALL} & set(names)
    if clash:
        raise ValueError(f"subgroup names {sorted(clash)!r} are reserved for the extra groups")
    groups = np.vstack([masks, ~masks.any(axis=0), np.ones(len(data), dtype=bool)])
    names = [*names, BACKGROUND, ALL]
    wins, pairs = cross_pair_counts(is_positive, scores, groups, groups)
    auc = pd.DataFrame(_ratio(wins, pairs), index=names, columns=names)
    return CrossAUC(auc, pd.DataFrame(pairs.astype(np.int64), index=names, columns=names))


def subgroup_bias_aucs(subgroups, data, *, label, score, positive_label=1):
    """Subgroup AUC, BPSN AUC and BNSP AUC of each subgroup (Borkan et al.).

    Parameters
    ----------
    subgroups : pysubgroup result, mapping or sequence
        The subgroups (see :func:`subroc_ext.metrics.covers.subgroup_covers`).
    data : pandas.DataFrame
    label, score : str
    positive_label : object, default=1

    Returns
    -------
    pandas.DataFrame
        One row per subgroup, in input order: ``subgroup`` (name),
        ``subgroup_auc``, ``bpsn_auc`` (background positives vs subgroup
        negatives), ``bnsp_auc`` (subgroup positives vs background negatives),
        and the pair counts ``bpsn_pairs`` and ``bnsp_pairs``; the AUCs are
        NaN where a cross has no pair. The background is the rows outside
        the subgroup.

    References
    ----------
    .. [1] D. Borkan et al., "Nuanced Metrics for Measuring Unintended Bias
       with Real Data for Text Classification", WWW 2019 Companion.
    """
    is_positive, scores = _labels_and_scores(data, label, score, positive_label)
    names, masks = subgroup_covers(subgroups, data)
    return pd.DataFrame({"subgroup": names, **bias_aucs_of_masks(is_positive, scores, masks)})


def bias_aucs_of_masks(is_positive, scores, masks, *, group_ids=None):
    """The columns of :func:`subgroup_bias_aucs` (without ``subgroup``) from arrays.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool, shape (n,)
    scores : numpy.ndarray of float, shape (n,)
    masks : numpy.ndarray of bool, shape (k, n)
        The subgroups' covers, in the rows' order.
    group_ids : numpy.ndarray of int, optional
        As in :func:`cross_pair_counts` (rows sorted by score already).

    Returns
    -------
    dict of numpy.ndarray
        ``subgroup_auc``, ``bpsn_auc``, ``bnsp_auc``, ``bpsn_pairs``, ``bnsp_pairs``.
    """
    if group_ids is None:
        order, group_ids = sort_by_score(scores)
        masks = np.asarray(masks, dtype=bool)[:, order]
        positive = np.asarray(is_positive, dtype=bool)[order]
    else:
        masks = np.ascontiguousarray(masks, dtype=bool)  # rows read in order by the compiled pass
        positive = np.asarray(is_positive, dtype=bool)
    starts = np.flatnonzero(np.r_[True, group_ids[1:] != group_ids[:-1]]) if len(group_ids) else []

    def twice_credit(rows):
        """Per row: twice the pairs it wins against ``rows`` (those in a lower
        tie group count 2, those in its own 1)."""
        if not len(starts):
            return np.zeros(0, dtype=np.int64)
        per_tie = np.add.reduceat(rows.astype(np.int64), starts)
        return (2 * np.cumsum(per_tie) - per_tie)[group_ids]

    # every positive against all negatives; every negative against all positives
    positives_win = twice_credit(~positive)
    negatives_win = 2 * int(positive.sum()) - twice_credit(positive)  # positives above count 2, tied 1
    columns = {name: np.empty(len(masks)) for name in ("subgroup_auc", "bpsn_auc", "bnsp_auc")}
    pairs = {name: np.zeros(len(masks), dtype=np.int64) for name in ("bpsn_pairs", "bnsp_pairs")}
    total_positives, total_negatives = int(positive.sum()), int((~positive).sum())
    for k, mask in enumerate(masks):  # one subgroup at a time: memory in proportion to the rows
        p, n, own, against_all, from_all = _twice_wins(positive, group_ids, mask, positives_win, negatives_win)
        pairs["bpsn_pairs"][k] = (total_positives - p) * n
        pairs["bnsp_pairs"][k] = p * (total_negatives - n)
        twice = np.array([own, from_all - own, against_all - own], dtype=float)
        counted = np.array([p * n, pairs["bpsn_pairs"][k], pairs["bnsp_pairs"][k]], dtype=float)
        ratios = _ratio(twice / 2, counted)
        columns["subgroup_auc"][k], columns["bpsn_auc"][k], columns["bnsp_auc"][k] = ratios
    return {**columns, **pairs}


@njit(cache=True, nogil=True)
def _twice_wins(positive, group_ids, mask, positives_win, negatives_win):
    """One pass over the rows (sorted by score) of one subgroup ``S``: its
    positives and negatives, twice the pairs ``W(S, S)`` its positives win
    against its negatives (a tied pair counts once), and the sums of
    ``positives_win`` over its positives (twice ``W(S, all)``) and of
    ``negatives_win`` over its negatives (twice ``W(all, S)``), in integers."""
    positives = negatives = own = against_all = from_all = below = 0
    i, n = 0, len(mask)
    while i < n:
        group, group_positives, group_negatives = group_ids[i], 0, 0
        while i < n and group_ids[i] == group:
            if mask[i]:
                if positive[i]:
                    group_positives += 1
                    against_all += positives_win[i]
                else:
                    group_negatives += 1
                    from_all += negatives_win[i]
            i += 1
        own += group_positives * (2 * below + group_negatives)
        below += group_negatives
        positives += group_positives
        negatives += group_negatives
    return positives, negatives, own, against_all, from_all
