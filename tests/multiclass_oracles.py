"""Brute-force AUC_mu oracle shared by the multi-class tests.

It counts every pair of rows of different classes with the paper's
orientation function (Kleiman & Page, Eq. 3): one-hot label vectors, the
partition matrix's row difference ``v_ij`` and ``I(O)`` with ties 1/2, then
Eq. 4's mean over class pairs. It uses nothing from :mod:`subroc_ext`.
"""

import numpy as np


def oracle_auc_mu(codes, scores, matrix):
    """AUC_mu by counting all pairs of rows of different classes (Eq. 3, 4)."""
    n_classes = scores.shape[1]
    onehot = np.eye(n_classes)
    pair_values = []
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            v = matrix[i] - matrix[j]
            total = 0.0
            rows_i, rows_j = np.flatnonzero(codes == i), np.flatnonzero(codes == j)
            for a in rows_i:
                for b in rows_j:
                    orientation = (v @ (onehot[i] - onehot[j])) * (v @ (scores[a] - scores[b]))
                    total += 1.0 if orientation > 0 else (0.5 if orientation == 0 else 0.0)
            pair_values.append(total / (len(rows_i) * len(rows_j)))
    return float(np.mean(pair_values))


def random_case(rng, n_classes, n_rows, levels):
    """Labels covering every class, integer scores in ``0..levels-1`` (ties)."""
    codes = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_rows - n_classes)])
    rng.shuffle(codes)
    scores = rng.integers(0, levels, size=(n_rows, n_classes)).astype(float)
    return codes, scores


def random_partition_matrix(rng, n_classes):
    """Integer costs 1..5 off the diagonal, 0 on it: a non-argmax matrix."""
    matrix = rng.integers(1, 6, size=(n_classes, n_classes)).astype(float)
    np.fill_diagonal(matrix, 0.0)
    return matrix


def subset_auc_mu(codes, scores, matrix, masks):
    """AUC_mu of every subset (rows of ``masks``), NaN where a class is absent.

    ``W[a, b] = I(O(a, b))`` from Eq. 3 for every pair of rows, then each
    pair of classes averages W over its class-i by class-j rows of a subset.
    """
    n_classes = scores.shape[1]
    onehot = np.eye(n_classes)
    wins = np.zeros((len(codes), len(codes)))
    for a in range(len(codes)):
        for b in range(len(codes)):
            i, j = codes[a], codes[b]
            if i != j:
                v = matrix[i] - matrix[j]
                orientation = (v @ (onehot[i] - onehot[j])) * (v @ (scores[a] - scores[b]))
                wins[a, b] = 1.0 if orientation > 0 else (0.5 if orientation == 0 else 0.0)
    masks = masks.astype(float)
    counts = np.stack([masks[:, codes == k].sum(axis=1) for k in range(n_classes)], axis=1)
    total = np.zeros(len(masks))
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(n_classes):
            for j in range(i + 1, n_classes):
                left, right = masks * (codes == i), masks * (codes == j)
                pair = np.einsum("sa,ab,sb->s", left, wins, right)
                total += pair / (counts[:, i] * counts[:, j])
    values = total / (n_classes * (n_classes - 1) / 2)
    return np.where(counts.min(axis=1) > 0, values, np.nan), counts
