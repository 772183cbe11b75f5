"""How big a search is before it starts: :func:`estimate_search_size`.

A pattern has at most one condition per column, so with ``c_1, ..., c_m``
conditions on ``m`` columns the patterns of exactly ``j`` conditions number
``e_j(c_1, ..., c_m)``, the ``j``-th elementary symmetric polynomial (sum over
all ``j``-subsets of columns of the product of their counts); the candidates
up to depth ``d`` are ``e_1 + ... + e_d``. That is an upper bound: pruning by
optimistic estimates and the minimum support usually evaluates a small part
of it (Census-Income at depth 4: 1.5 % of it). Each condition's cover is one
bitset of ``ceil(n / 64)`` words, and a candidate costs about
:data:`SECONDS_PER_CANDIDATE` plus :data:`SECONDS_PER_CANDIDATE_ROW` per row
(measured with :class:`~subroc_ext.FastSearch` on one core of the
development machine, ROC AUC, 5,000 to 500,000 rows).

:func:`warn_if_large` emits one :class:`~subroc_ext.SearchSizeWarning` line
when the bound passes :data:`LARGE_CANDIDATES` or the bitsets
:data:`LARGE_BYTES`.
"""

import warnings
from dataclasses import dataclass

from ..exceptions import SearchSizeWarning
from ..utils.callers import user_stacklevel

__all__ = [
    "LARGE_BYTES",
    "LARGE_CANDIDATES",
    "SECONDS_PER_CANDIDATE",
    "SECONDS_PER_CANDIDATE_ROW",
    "SearchSize",
    "estimate_search_size",
    "warn_if_large",
]

#: Candidates (upper bound) above which a search is announced as large.
LARGE_CANDIDATES = 50_000_000
#: Bytes of condition bitsets above which a search is announced as large.
LARGE_BYTES = 4 * 2**30
#: Rough cost of one candidate, and of each of its rows, in CPU seconds.
SECONDS_PER_CANDIDATE = 1e-6
SECONDS_PER_CANDIDATE_ROW = 5e-10


@dataclass(frozen=True)
class SearchSize:
    """The size of a search, known before it starts.

    Attributes
    ----------
    conditions, columns, rows, depth : int
        Conditions of the search space, the columns they are on, the rows
        searched and the maximum depth.
    candidates_by_depth : tuple of int
        Upper bound of the patterns with 1, 2, ..., ``depth`` conditions.
    bitset_bytes : int
        Memory of the conditions' covers as bitsets.
    seconds : float
        Rough CPU time to evaluate every candidate (without pruning).
    """

    conditions: int
    columns: int
    rows: int
    depth: int
    candidates_by_depth: tuple
    bitset_bytes: int
    seconds: float

    @property
    def candidates(self):
        """Upper bound of the candidates up to ``depth``."""
        return sum(self.candidates_by_depth)

    @property
    def large(self):
        """Whether the bound or the bitsets pass :data:`LARGE_CANDIDATES` / :data:`LARGE_BYTES`."""
        return self.candidates > LARGE_CANDIDATES or self.bitset_bytes > LARGE_BYTES

    def __str__(self):
        text = (
            f"up to {_count(self.candidates)} candidate patterns at depth {self.depth} "
            f"({self.conditions:,} conditions on {self.columns:,} columns, at most one per column)"
        )
        smaller = [(d, c) for d, c in enumerate(self.candidates_by_depth[:-1], 1) if c <= LARGE_CANDIDATES]
        if self.candidates > LARGE_CANDIDATES and smaller and len(self.candidates_by_depth) > 1:
            depth = smaller[-1][0]
            text += f", {_count(sum(self.candidates_by_depth[:depth]))} at depth {depth}"
        return (
            f"{text}; {_bytes(self.bitset_bytes)} of condition bitsets for {self.rows:,} rows; "
            f"evaluating every candidate would take about {_duration(self.seconds)} of CPU"
        )


def estimate_search_size(selectors, n_rows, depth):
    """The size of a search over ``selectors`` on ``n_rows`` rows to ``depth``.

    Parameters
    ----------
    selectors : iterable of pysubgroup selectors
        Each with ``attribute_name`` (a pattern holds at most one per column).
    n_rows : int
    depth : int

    Returns
    -------
    SearchSize

    Examples
    --------
    Three columns with 2, 3 and 4 conditions: 9 patterns of one condition,
    2*3 + 2*4 + 3*4 = 26 of two, 2*3*4 = 24 of three:

    >>> import pysubgroup as ps
    >>> selectors = [ps.EqualitySelector(column, v) for column, k in zip("abc", (2, 3, 4))
    ...              for v in range(k)]
    >>> size = estimate_search_size(selectors, 1000, 3)
    >>> size.candidates_by_depth, size.candidates, size.bitset_bytes
    ((9, 26, 24), 59, 1152)
    """
    per_column = {}
    for selector in selectors:
        name = getattr(selector, "attribute_name", selector)
        per_column[name] = per_column.get(name, 0) + 1
    sums = [1] + [0] * depth  # elementary symmetric polynomials, exact integers
    for count in per_column.values():
        for j in range(depth, 0, -1):
            sums[j] += sums[j - 1] * count
    by_depth = tuple(sums[1:])
    conditions = sum(per_column.values())
    seconds = float(sum(by_depth)) * (SECONDS_PER_CANDIDATE + SECONDS_PER_CANDIDATE_ROW * n_rows)
    return SearchSize(conditions, len(per_column), n_rows, depth, by_depth, conditions * 8 * -(-n_rows // 64),
                      seconds)  # fmt: skip


def warn_if_large(size):
    """One :class:`~subroc_ext.SearchSizeWarning` line if ``size`` is large.

    Returns
    -------
    bool
        Whether it warned.
    """
    if not size.large:
        return False
    warnings.warn(
        f"a large search: {size}; pruning skips most of them, but it may not finish: "
        "lower the depth, raise the minimum support or leave out columns",
        SearchSizeWarning,
        stacklevel=user_stacklevel(),
    )  # fmt: skip
    return True


def _count(number):
    """``123,456``; ``12.3 million``; ``4.5e+15``."""
    if number < 1_000_000:
        return f"{number:,}"
    for scale, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if number >= scale:
            return f"{number / scale:.1f} {word}" if number < 1e15 else f"{float(number):.1e}"
    return f"{number:,}"  # pragma: no cover


def _bytes(number):
    for scale, unit in ((2**40, "TB"), (2**30, "GB"), (2**20, "MB"), (2**10, "KB")):
        if number >= scale:
            return f"{number / scale:.1f} {unit}"
    return f"{number} bytes"


def _duration(seconds):
    for scale, unit in ((365.25 * 86400, "years"), (86400, "days"), (3600, "hours"), (60, "minutes")):
        if seconds >= scale:
            value = seconds / scale
            return f"{value:,.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"
    return f"{seconds:.0f} seconds" if seconds >= 1 else "under a second"
