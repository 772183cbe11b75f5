"""AUC_mu: the multi-class ROC AUC of Kleiman & Page (2019).

Definition (the paper's Eq. 3 and 4, restated because the text conversion
lost them). Data: rows ``a`` with a true class ``y_a`` in ``{1..K}`` (``K >=
2``) and a score vector ``p_a`` in ``R^K`` (a categorical distribution in the
paper; any finite scores here). ``e_k`` is the k-th unit vector (the class
vertex of the simplex) and ``A`` a ``K x K`` partition matrix, ``A[i, j]`` the
cost of predicting class i for an instance of class j. For classes ``i != j``

* ``v_ij = A[i, :] - A[j, :]`` (the normal of the i/j decision boundary),
* orientation ``O(a, b) = (v_ij . (e_i - e_j)) * (v_ij . (p_a - p_b))`` for
  ``a`` of class i and ``b`` of class j,
* ``I(O) = 1`` if ``O > 0`` (correctly ordered), ``1/2`` if ``O = 0`` (tied),
  ``0`` otherwise,
* ``S(i, j) = 1/(n_i n_j) * sum over a in D_i, b in D_j of I(O(a, b))``,
* ``AUC_mu = 2 / (K (K - 1)) * sum over i < j of S(i, j)``.

``A_max`` (ones off the diagonal, zeros on it) is the default; it gives
``v_ij . p = p_j - p_i`` and ``v_ij . (e_i - e_j) = -2``, so ``S(i, j)`` is the
binary ROC AUC of class i against class j on the score ``p_i - p_j``. In
general ``c_ij = v_ij . (e_i - e_j) = A[i,i] + A[j,j] - A[i,j] - A[j,i]``, and
``S(i, j)`` is the binary AUC of class i against class j on the projected score
``sign(c_ij) * (v_ij . p)``: each of the ``K (K - 1) / 2`` pair AUCs is one
sort and a tie-aware U statistic, as the paper's Appendix A.3 says.

A partition matrix is valid when it is finite, ``K x K`` and ``c_ij != 0``
for every pair (else both class vertices lie on the decision boundary and
every pair would tie). The paper assumes the normal form with a zero diagonal
and non-zero costs off it (O'Brien et al., 2008); any other matrix gives the
same ``AUC_mu`` as its normal form ``A[:, j] - A[j, j]``, because ``v_ij`` is
a difference of rows and does not change when a constant is subtracted from
a column.

AUC_mu is defined when every one of the K classes has at least one row.

References
----------
.. [1] R. Kleiman and D. Page, "AUC_mu: A Performance Metric for Multi-Class
   Machine Learning Models", ICML 2019 (``seeds/auc_mu_paper.txt``).
.. [2] R. O'Brien, M. Gupta and R. Gray, "Cost-sensitive multi-class
   classification from probability estimates", ICML 2008.
"""

import warnings
from itertools import combinations

import numpy as np
import pandas as pd

from ..metrics.kernels import sort_by_score, tie_counts
from ..utils.validation import shown
from .measures import ROCAUC, Cover

__all__ = [
    "auc_mu_score",
    "check_partition_matrix",
    "check_multiclass_arrays",
    "PairProjections",
]

_PAIR_AUC = ROCAUC()


def check_partition_matrix(partition_matrix, n_classes, classes=None):
    """Validate a partition matrix, returning it as a float array (``A_max`` for None).

    Parameters
    ----------
    partition_matrix : array-like or pandas.DataFrame of shape (K, K), or None
        Costs ``A[i, j]`` of predicting class i when the truth is class j,
        rows and columns in class order. A DataFrame is indexed by class
        labels instead (rows: predicted, columns: true class) and reordered
        to ``classes``. None gives the argmax matrix.
    n_classes : int
        K.
    classes : sequence, optional
        The class labels in order, for a DataFrame.

    Returns
    -------
    numpy.ndarray of float, shape (K, K)

    Examples
    --------
    >>> check_partition_matrix(None, 3)
    array([[0., 1., 1.],
           [1., 0., 1.],
           [1., 1., 0.]])
    >>> costs = pd.DataFrame([[0, 2], [1, 0]], index=["no", "yes"], columns=["no", "yes"])
    >>> check_partition_matrix(costs, 2, classes=["yes", "no"])
    array([[0., 1.],
           [2., 0.]])
    """
    if partition_matrix is None:
        return np.ones((n_classes, n_classes)) - np.eye(n_classes)
    if isinstance(partition_matrix, pd.DataFrame) and classes is not None:
        labels = list(classes)
        if set(partition_matrix.index) != set(labels) or set(partition_matrix.columns) != set(labels):
            raise ValueError(
                f"partition_matrix's index and columns must be the classes {labels!r}, got "
                f"{list(partition_matrix.index)!r} and {list(partition_matrix.columns)!r}"
            )
        partition_matrix = partition_matrix.loc[labels, labels]
    try:
        matrix = np.asarray(partition_matrix, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"partition_matrix must be a numeric K x K array: {error}") from None
    if matrix.shape != (n_classes, n_classes):
        raise ValueError(
            f"partition_matrix must have shape ({n_classes}, {n_classes}) for "
            f"{n_classes} classes, got {matrix.shape}"
        )
    if not np.isfinite(matrix).all():
        raise ValueError("partition_matrix contains NaN or infinite values")
    diagonal = np.diag(matrix)
    orientation = diagonal[:, None] + diagonal[None, :] - matrix - matrix.T
    np.fill_diagonal(orientation, 1.0)
    if (orientation == 0).any():
        i, j = np.argwhere(orientation == 0)[0]
        raise ValueError(
            f"partition_matrix is not valid: A[{i},{i}] + A[{j},{j}] - A[{i},{j}] - "
            f"A[{j},{i}] = 0, so classes {i} and {j} lie on their own decision "
            "boundary (use zeros on the diagonal and positive costs off it)"
        )
    return matrix


def check_multiclass_arrays(labels, scores, classes=None, *, label_name="labels"):
    """Validate multi-class labels and scores.

    Parameters
    ----------
    labels : array-like of shape (n,)
        True classes; every value must be one of ``classes``.
    scores : pandas.DataFrame or array-like of shape (n, K)
        One numeric, finite score column per class.
    classes : sequence, optional
        The class label of each score column, in column order. Default: the
        DataFrame's column names, or ``0..K-1`` for an array.
    label_name : str
        Name of the labels in error messages.

    Returns
    -------
    codes : numpy.ndarray of intp, shape (n,)
        Column index of each row's class.
    values : numpy.ndarray of float, shape (n, K)
    classes : list

    Examples
    --------
    >>> scores = pd.DataFrame({"low": [0.7, 0.2, 0.1], "high": [0.3, 0.8, 0.9]})
    >>> codes, values, classes = check_multiclass_arrays(["low", "high", "high"], scores)
    >>> codes.tolist(), values.shape, classes
    ([0, 1, 1], (3, 2), ['low', 'high'])
    """
    if isinstance(scores, pd.DataFrame):
        names = list(scores.columns)
        bad = [c for c in names if not pd.api.types.is_numeric_dtype(scores[c])]
        if bad:
            raise ValueError(f"score column(s) {bad!r} must be numeric")
        values = scores.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = np.asarray(scores)
        if values.ndim != 2:
            raise ValueError(f"scores must be two-dimensional (n, K), got shape {values.shape}")
        if not (np.issubdtype(values.dtype, np.number) or values.dtype == bool):
            raise ValueError(f"scores must be numeric, got dtype {values.dtype}")
        values = values.astype(float)
        names = list(range(values.shape[1]))
    classes = names if classes is None else list(classes)
    if len(classes) != values.shape[1]:
        raise ValueError(
            f"classes has {len(classes)} entries but scores has {values.shape[1]} columns"
        )
    if len(classes) < 2:
        raise ValueError(f"AUC_mu needs K >= 2 score columns, got {len(classes)}")
    if len(set(classes)) != len(classes):
        raise ValueError(f"classes must be distinct, got {classes!r}")
    bad = ~np.isfinite(values)
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise ValueError(
            f"score column {names[column]!r} contains {int(bad[:, column].sum())} NaN or "
            f"infinite value(s), e.g. at position {int(row)}"
        )
    labels = np.asarray(labels, dtype=object)
    if labels.ndim != 1:
        raise ValueError(f"{label_name} must be one-dimensional, got shape {labels.shape}")
    labels = pd.Series(labels)
    if len(labels) != len(values):
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{len(labels)}, {len(values)}]"
        )
    if labels.isna().any():
        raise ValueError(f"{label_name} contains {int(labels.isna().sum())} missing value(s)")
    codes = pd.Index(classes, dtype=object).get_indexer(labels.to_numpy(dtype=object))
    if (codes < 0).any():
        unknown = pd.unique(labels.to_numpy(dtype=object)[codes < 0])
        raise ValueError(
            f"{label_name} has value(s) {', '.join(map(shown, unknown[:5]))} that name no score column; the score "
            f"columns stand for the classes {classes!r} (pass a mapping to relabel)"
        )
    return codes.astype(np.intp), values, classes


class PairProjections:
    """The rows of every class pair, sorted once by the pair's projected score.

    Parameters
    ----------
    codes : numpy.ndarray of int, shape (n,)
        Class index of each row.
    scores : numpy.ndarray of float, shape (n, K)
    partition_matrix : numpy.ndarray of float, shape (K, K)
        A matrix accepted by :func:`check_partition_matrix`.

    Notes
    -----
    For the pair ``(i, j)``, rows of classes i and j get the score
    ``sign(c_ij) * (v_ij . p)`` (see the module docstring), computed per row,
    so rows whose projections are equal floats tie exactly. A subset of the
    rows is a boolean mask in the original row order; each pair's AUC is then
    the ROC AUC of the masked, presorted rows.

    Examples
    --------
    >>> codes = np.array([0, 1, 2, 0, 1, 2])
    >>> scores = np.eye(3)[[0, 1, 2, 1, 0, 2]]  # rows 3 and 4 swap classes 0 and 1
    >>> projections = PairProjections(codes, scores, check_partition_matrix(None, 3))
    >>> projections.pairs
    [(0, 1), (0, 2), (1, 2)]

    Of the pairs of a class-0 and a class-1 row, one is ordered right, two tie
    and one is ordered wrong: ``S(0, 1) = (1 + 1/2 + 1/2 + 0) / 4``.

    >>> projections.pair_aucs().tolist(), round(float(projections.value()), 4)
    ([0.5, 1.0, 1.0], 0.8333)
    >>> float(projections.value(np.array([True, True, True, False, False, True])))
    1.0
    """

    def __init__(self, codes, scores, partition_matrix):
        self.n_classes = scores.shape[1]
        self.codes = codes
        self.pairs = list(combinations(range(self.n_classes), 2))
        self._sorted = []
        self._pair_groups = []
        for i, j in self.pairs:
            direction = partition_matrix[i] - partition_matrix[j]
            orientation = (
                partition_matrix[i, i] + partition_matrix[j, j]
                - partition_matrix[i, j] - partition_matrix[j, i]
            )  # fmt: skip
            rows = np.flatnonzero((codes == i) | (codes == j))
            projected = np.sign(orientation) * (scores[rows] @ direction)
            order, group_ids = sort_by_score(projected)
            rows = rows[order]
            self._sorted.append((rows, codes[rows] == i, projected[order], group_ids))
            self._pair_groups.append(self._pair_tables(len(codes), rows, codes[rows] == i, group_ids))

    @staticmethod
    def _pair_tables(n, rows, is_first, group_ids):
        """Per row of the pair: its tie group, and its pairs won against the
        whole other class (ties 1/2) - for the first class the second-class
        rows below it, for the second class the first-class rows above it."""
        counts = tie_counts(is_first, group_ids)
        groups = np.full(n, -1, dtype=np.int64)
        groups[rows] = group_ids
        second_below = np.cumsum(counts.negatives) - 0.5 * counts.negatives
        first_above = counts.positives.sum() - np.cumsum(counts.positives) + 0.5 * counts.positives
        credit = np.zeros(n)
        credit[rows] = np.where(is_first, second_below[group_ids], first_above[group_ids])
        return groups, credit

    def class_counts(self, mask=None):
        """Rows of each class in ``mask`` (all rows if None)."""
        codes = self.codes if mask is None else self.codes[mask]
        return np.bincount(codes, minlength=self.n_classes)

    def pair_rows(self):
        """Per pair ``(i, j)``: its rows by ascending projected score, whether
        each is of class ``i``, and their tie groups."""
        for rows, is_first, _, group_ids in self._sorted:
            yield rows, is_first, group_ids

    def pair_covers(self, mask=None):
        """One :class:`~subroc_ext.scoring.measures.Cover` per pair (class i positive)."""
        for rows, is_first, projected, group_ids in self._sorted:
            kept = np.arange(len(rows)) if mask is None else np.flatnonzero(mask[rows])
            yield Cover(is_first[kept], projected, group_ids[kept], kept)

    def pair_aucs(self, mask=None):
        """``S(i, j)`` for every pair ``i < j`` in :attr:`pairs` order (all classes present)."""
        return np.array([_PAIR_AUC.value(cover) for cover in self.pair_covers(mask)])

    def value(self, mask=None):
        """AUC_mu of the rows in ``mask``; NaN unless every class is present."""
        if (self.class_counts(mask) == 0).any():
            return np.nan
        return float(self.pair_aucs(mask).mean())

    def batch_values(self, draws):
        """AUC_mu of many random subsets at once.

        Parameters
        ----------
        draws : list of (numpy.ndarray of int, bool), one per class
            ``(rows, left_out)`` with ``rows`` of shape (n_subsets, r): row
            positions of that class, which are the subset's rows of the
            class, or, if ``left_out``, the class's rows *not* in the subset
            (see :func:`subroc_ext.objective.multiclass.sample_class_rows`).

        Returns
        -------
        numpy.ndarray of float, shape (n_subsets,)
            Equal to :meth:`value` of each subset up to rounding.

        Notes
        -----
        The wins ``W(I, J)`` of a pair (pairs of a class-i and a class-j row
        ordered correctly, ties 1/2) are bilinear in the two row sets. Write
        each subset part as the drawn rows ``X`` or the class minus them,
        ``1_I = a 1_Ci + s 1_X`` (``a, s = 0, 1`` or ``1, -1``), and likewise
        ``1_J = b 1_Cj + t 1_Y``; then
        ``W(I, J) = a b W(Ci, Cj) + a t W(Ci, Y) + s b W(X, Cj) + s t W(X, Y)``.
        The first three terms are sums of per-row wins against the whole
        other class, computed once; ``W(X, Y)`` sorts the tie groups of
        ``Y`` and ``X`` and finds each row of ``X`` among those of ``Y`` by
        binary search, one ``searchsorted`` for the whole batch (subsets kept
        apart by offsets).
        Drawing the smaller of a class's subset and its complement keeps the
        cost near ``min(r, n - r) log r`` per class and subset.
        """
        n_subsets = len(draws[0][0])
        sizes = [
            np.count_nonzero(self.codes == k) - rows.shape[1] if left_out else rows.shape[1]
            for k, (rows, left_out) in enumerate(draws)
        ]
        total = np.zeros(n_subsets)
        for (i, j), (groups, credit) in zip(self.pairs, self._pair_groups):
            (x_rows, x_left_out), (y_rows, y_left_out) = draws[i], draws[j]
            a, s = (1, -1) if x_left_out else (0, 1)
            b, t = (1, -1) if y_left_out else (0, 1)
            offset = np.arange(n_subsets)[:, None] * (groups.max() + 1)
            # sorted queries make searchsorted several times faster; the offsets
            # keep each subset's rows in its own block, so the shape survives
            x_groups = np.sort(groups[x_rows] + offset, axis=None).reshape(x_rows.shape)
            y_sorted = np.sort(groups[y_rows] + offset, axis=None)
            base = np.arange(n_subsets)[:, None] * y_rows.shape[1]
            below = np.searchsorted(y_sorted, x_groups, side="left") - base
            at_or_below = np.searchsorted(y_sorted, x_groups, side="right") - base
            cross = (below + at_or_below).sum(axis=1) / 2
            whole = credit[self.codes == i].sum()
            wins = (
                a * b * whole + a * t * credit[y_rows].sum(axis=1)
                + s * b * credit[x_rows].sum(axis=1) + s * t * cross
            )  # fmt: skip
            total += wins / (sizes[i] * sizes[j])
        return total / len(self.pairs)

    def value_and_extremes(self, mask=None):
        """AUC_mu of ``mask`` and the lowest and highest AUC_mu any subset can reach.

        Returns
        -------
        value, lowest, highest : float
            All NaN unless every class is present in ``mask``.

        Notes
        -----
        Every ``S(i, j)`` of a subset lies within the binary ROC AUC extremes
        of the pair (0, 1/2 or 1; see :meth:`subroc_ext.scoring.measures.ROCAUC.extremes`),
        so their means bound AUC_mu on every subset where it is defined.
        The bound is valid, and tight for K = 2; for K > 2 it may be loose
        (the lowest AUC_mu is reached by one row per class, and the pair
        extremes need not be reachable by one choice of rows).
        """
        if (self.class_counts(mask) == 0).any():
            return np.nan, np.nan, np.nan
        values, lowest, highest = [], [], []
        for cover in self.pair_covers(mask):
            values.append(_PAIR_AUC.value(cover))
            low, high = _PAIR_AUC.extremes(cover)
            lowest.append(low)
            highest.append(high)
        return float(np.mean(values)), float(np.mean(lowest)), float(np.mean(highest))


def auc_mu_score(labels, scores, *, partition_matrix=None, classes=None):
    """AUC_mu, the multi-class ROC AUC of Kleiman & Page (ties count one half).

    Parameters
    ----------
    labels : array-like of shape (n,)
        True class of each row.
    scores : pandas.DataFrame or array-like of shape (n, K)
        One score column per class (e.g. predicted probabilities); a
        DataFrame's column names are the classes.
    partition_matrix : array-like of shape (K, K), optional
        Misclassification costs ``A[i, j]`` (predict i, truth j), classes in
        column order, or a DataFrame indexed by the class labels (rows:
        predicted class, columns: true class); default the argmax matrix (0
        on the diagonal, 1 off it).
    classes : sequence, optional
        The class label of each score column, in column order (the mapping
        from labels to columns); default the DataFrame's column names, or
        ``0..K-1`` for an array.

    Returns
    -------
    float
        The mean over class pairs ``i < j`` of the pair's AUC on the
        projection onto the partition matrix's ``v_ij``; NaN (with a warning)
        when a class has no row.

    References
    ----------
    .. [1] R. Kleiman and D. Page, "AUC_mu: A Performance Metric for
       Multi-Class Machine Learning Models", ICML 2019, Eq. 3 and 4.

    Examples
    --------
    >>> auc_mu_score(["a", "b", "c"], pd.DataFrame(
    ...     {"a": [0.6, 0.3, 0.1], "b": [0.2, 0.5, 0.3], "c": [0.2, 0.2, 0.6]}))
    1.0
    """
    codes, values, classes = check_multiclass_arrays(labels, scores, classes)
    matrix = check_partition_matrix(partition_matrix, len(classes), classes)
    projections = PairProjections(codes, values, matrix)
    missing = [c for c, n in zip(classes, projections.class_counts()) if n == 0]
    if missing:
        warnings.warn(
            f"AUC_mu is undefined: class(es) {missing!r} have no row; returning NaN",
            stacklevel=2,
        )
        return float("nan")
    return projections.value()
