"""The class-stratified jackknife of measures with exact delete-one changes.

Each row's exact change of a measure when that row alone is left out
(:mod:`subroc_ext.inference.influence`) gives the jackknife covariance of
several such measures at once [1]_, strata (the classes) apart. Here: that
covariance, computed in blocks of rows (memory in proportion to a block),
and :class:`ScaledJackknife`, the intervals of ``m(S) - m(V)`` that
:mod:`subroc_ext.inference.effects` gives for the ROC AUC, PR AUC and ARL,
simultaneous ones from the max-t critical value [2]_ (the module notes of
:mod:`subroc_ext.inference.effects` say how they are built and how well
they cover).

References
----------
.. [1] B. Efron and C. Stein, "The jackknife estimate of variance", Annals
   of Statistics 9(3), 586-596, 1981.
.. [2] T. Hothorn, F. Bretz and P. Westfall, "Simultaneous inference in
   general parametric models", Biometrical Journal 50(3), 346-363, 2008
   (max-t simultaneous intervals).
"""

import functools

import numpy as np
from scipy import stats

__all__ = ["ScaledJackknife", "StratumTerms", "stratified_jackknife_covariance"]

# Normal vectors drawn for the max-t critical value.
_NORMAL_DRAWS = 20_000
# Points of the whole split's logit interval where the ROC AUC effects' bounds are searched.
_WHOLE_GRID = 41


def _scaled(values, margins):
    """The measure on the logit scale (kept ``margins`` away from 0 and 1),
    its derivative and the inverse."""
    values = np.clip(values, margins, 1 - margins)
    return np.log(values / (1 - values)), 1 / (values * (1 - values)), _expit


def _expit(x):
    return 1 / (1 + np.exp(-x))


class ScaledJackknife:
    """Intervals of ``m(S) - m(V)`` from exact delete-one changes (the
    jackknife), on the logit scale (measures in (0, 1): the AUCs).

    An interval at ``± c`` is the range of ``m(S) - m(V)`` over the box of
    the transformed difference and the whole split's transformed value,
    each ``± c`` standard errors (see :mod:`subroc_ext.inference.effects`). Simultaneous: ``c``
    the max-t critical value over every coordinate (Hothorn, Bretz and
    Westfall 2008); one interval at level
    ``1 - gamma``: Šidák's two-sided value for its two coordinates
    (:func:`subroc_ext.inference.effects.sidak_critical`, valid for any correlation).

    Parameters
    ----------
    parts : callable
        Returns, for each subgroup with an interval, ``m(S)`` and the change
        of ``m(S)`` when each row of ``V`` is left out (0 for rows outside
        ``S``), one subgroup at a time. Called once for the standard errors,
        each subgroup's changes dropped once its variance is known (memory
        of one subgroup), and once more only if simultaneous intervals are
        asked for: their correlations keep every subgroup's nonzero changes
        (:attr:`covariance`).
    whole_value : float
        ``m(V)``.
    whole_terms : numpy.ndarray
        The change of ``m(V)`` when each row is left out.
    margins : numpy.ndarray
        How far each value (the subgroups', then the whole split's) is kept
        from 0 and 1 before the transformation.
    strata : sequence of numpy.ndarray of bool
        The rows of each stratum of the jackknife (the classes).
    rng : numpy.random.Generator
        For the max-t critical value.
    rows : numpy.ndarray of bool, optional
        Which subgroups ``parts`` are (all by default); the others get NaN ends.
    """

    def __init__(self, parts, whole_value, whole_terms, margins, strata, rng, *, rows=None):
        self.parts, self.rng = parts, rng
        self.strata_rows = [np.flatnonzero(members) for members in strata]  # once, not once per subgroup
        whole_scaled, whole_slope, self.inverse = _scaled(whole_value, margins[-1])
        self.whole_coordinate = whole_slope * whole_terms
        values, slopes, variances = [], [], []
        for j, (value, changes) in enumerate(parts()):
            _, slope, _ = _scaled(np.array([value], dtype=float), margins[j : j + 1])
            values.append(value)
            slopes.append(slope[0])
            variances.append(self._variance(lambda rows: slope[0] * changes[rows] - self.whole_coordinate[rows]))
        self.rows = np.ones(len(values), dtype=bool) if rows is None else rows
        self.error = np.zeros(1)
        if not len(values):
            return
        variances.append(self._variance(lambda rows: self.whole_coordinate[rows]))
        self.error = np.sqrt(variances)
        self.varies = self.error > 0  # not a subgroup covering the whole split, say
        self.scaled, _, _ = _scaled(np.asarray(values, dtype=float), margins[:-1])
        self.whole, self.slopes = whole_scaled, np.asarray(slopes)

    def _variance(self, coordinate):
        """The jackknife variance of one coordinate, ``coordinate(rows)`` its
        values at those positions."""
        return _stratified_covariance(lambda stratum, start, rows: coordinate(rows)[:, None], 1,
                                      self.strata_rows)[0, 0]  # fmt: skip

    @functools.cached_property
    def covariance(self):
        """The jackknife covariance of every coordinate (the subgroups', then
        the whole split's): ``parts`` a second time, keeping each
        subgroup's nonzero changes (:class:`StratumTerms`), so the memory
        grows with the subgroups' sizes, not with their number times the
        rows."""
        terms = StratumTerms(self.strata_rows)
        for _, changes in self.parts():
            terms.append(changes)
        n_statistics = len(self.slopes) + 1

        def coordinates(stratum, start, rows):
            """The subgroups' coordinates and, last, the whole split's transformed value."""
            block, whole_rows = np.zeros((len(rows), n_statistics)), self.whole_coordinate[rows]
            terms.scatter(stratum, start, self.slopes, block[:, :-1])
            block[:, :-1] -= whole_rows[:, None]
            block[:, -1] = whole_rows
            return block

        return _stratified_covariance(coordinates, n_statistics, self.strata_rows)

    def simultaneous_critical(self, confidence):
        """The max-t critical value of all coordinates (NaN when none varies)."""
        if not self.error[:-1].any():
            return np.nan
        covariance = self.covariance[np.ix_(self.varies, self.varies)]
        error = np.sqrt(np.diag(covariance))
        correlation = covariance / np.outer(error, error)
        return _max_t_critical(correlation, confidence, self.rng)

    @staticmethod
    def marginal_critical(levels):
        """Šidák's two-sided critical value of two coordinates at each level."""
        return stats.norm.ppf((1 + np.sqrt(np.asarray(levels))) / 2)

    def ends(self, critical):
        """The low and high ends at ``± critical`` (one per subgroup); NaN
        where the subgroup has none or its difference has no spread."""
        low, high = np.full(len(self.rows), np.nan), np.full(len(self.rows), np.nan)
        if not self.error[:-1].any():
            return low, high
        critical = np.asarray(critical, dtype=float)[self.rows, None]
        # the box of both coordinates mapped back: the difference at every whole-split value in it
        whole = self.whole + critical * self.error[-1] * np.linspace(-1, 1, _WHOLE_GRID)
        difference, error = (self.scaled - self.whole)[:, None], self.error[:-1, None]
        inverse = self.inverse
        low[self.rows] = np.where(
            self.varies[:-1], (inverse(whole + difference - critical * error) - inverse(whole)).min(axis=1), np.nan
        )  # fmt: skip
        high[self.rows] = np.where(
            self.varies[:-1], (inverse(whole + difference + critical * error) - inverse(whole)).max(axis=1), np.nan
        )  # fmt: skip
        return low, high


class StratumTerms:
    """Delete-one changes of several statistics, kept per stratum as their
    nonzero entries only (a subgroup's changes are 0 outside its rows).

    Parameters
    ----------
    strata_rows : sequence of numpy.ndarray of int
        The positions of each stratum's rows, ascending.

    Examples
    --------
    >>> terms = StratumTerms([np.array([0, 2]), np.array([1, 3])])
    >>> terms.append(np.array([0.5, 0.0, 0.0, -1.0]))
    >>> block = np.zeros((2, 1))
    >>> terms.scatter(1, 0, np.array([2.0]), block)  # the second stratum's rows 1 and 3, times 2
    >>> block.ravel().tolist()
    [0.0, -2.0]
    """

    def __init__(self, strata_rows):
        self.strata_rows = strata_rows
        self.kept = [[] for _ in strata_rows]

    def append(self, changes):
        """Keep one statistic's changes (an array over all rows)."""
        for rows, kept in zip(self.strata_rows, self.kept):
            within = changes[rows]
            where = np.flatnonzero(within)
            # positions in 4 bytes where they fit: 12 bytes per change kept, not 16
            kept.append((where.astype(np.int32) if len(rows) < 2**31 else where, within[where]))

    def scatter(self, stratum, start, scales, out):
        """Write each statistic's changes times its scale into the columns of
        ``out`` (zeros), whose rows are the stratum's rows ``start`` onwards."""
        stop = start + len(out)
        for column, (where, values) in enumerate(self.kept[stratum]):
            first, last = np.searchsorted(where, (start, stop))
            out[where[first:last] - start, column] = scales[column] * values[first:last]


def stratified_jackknife_covariance(coordinates, strata):
    """The class-stratified jackknife covariance of statistics from each row's
    exact delete-one change of them (Efron and Stein 1981).

    Parameters
    ----------
    coordinates : numpy.ndarray, shape (n_rows, n_statistics)
        The change of each statistic when each row is left out (centred
        within each stratum here; the AUCs' changes already sum to zero).
    strata : sequence of numpy.ndarray of bool
        The rows of each stratum (the classes; the classes of each period for
        independent periods, whose covariances then add).

    Returns
    -------
    numpy.ndarray, shape (n_statistics, n_statistics)

    Examples
    --------
    >>> changes = np.array([[1.0], [3.0], [-2.0], [2.0]])
    >>> first = np.array([True, True, False, False])  # two strata of two rows
    >>> stratified_jackknife_covariance(changes, [first, ~first])  # 1/2 * (1 + 1) + 1/2 * (4 + 4)
    array([[5.]])
    """
    strata_rows = [np.flatnonzero(members) for members in strata]
    return _stratified_covariance(lambda stratum, start, rows: coordinates[rows], coordinates.shape[1], strata_rows)


#: Rows of the coordinates held at once by :func:`_stratified_covariance`.
_BLOCK_ROWS = 1 << 15


def _stratified_covariance(coordinates_of, n_statistics, strata_rows):
    """:func:`stratified_jackknife_covariance` from ``coordinates_of(stratum,
    start, rows)``, the coordinates of the rows at those positions (the
    stratum's rows from its ``start``-th on), asked for in blocks of
    :data:`_BLOCK_ROWS` rows: memory in proportion to a block, not to all
    rows times the statistics. ``strata_rows``: the positions of each
    stratum's rows."""
    covariance = np.zeros((n_statistics, n_statistics))
    for stratum, rows in enumerate(strata_rows):
        if not len(rows):
            continue
        blocks = [(start, rows[start : start + _BLOCK_ROWS]) for start in range(0, len(rows), _BLOCK_ROWS)]
        mean = sum(coordinates_of(stratum, *block).sum(axis=0) for block in blocks) / len(rows)
        products = np.zeros_like(covariance)
        for block in blocks:
            centred = coordinates_of(stratum, *block) - mean
            products += centred.T @ centred
        covariance += (len(rows) - 1) / len(rows) * products
    return covariance


def _max_t_critical(correlation, confidence, rng):
    """The ``confidence`` quantile of ``max_j |Z_j|``, ``Z`` standard normal with this correlation."""
    eigenvalues, eigenvectors = np.linalg.eigh(correlation)
    root = eigenvectors * np.sqrt(np.clip(eigenvalues, 0, None))
    largest = np.abs(rng.standard_normal((_NORMAL_DRAWS, len(correlation))) @ root.T).max(axis=1)
    return float(np.quantile(largest, confidence))
