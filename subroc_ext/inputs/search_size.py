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

The search's memory is about twice its bitsets (the dataset keeps each
condition's bitset for later searches and the search copies them into one
matrix) plus :data:`BYTES_PER_CONDITION`: measured as the peak resident
memory a search added, 1.9 to 2.2 times the bitsets for 5,000 to 20,000
conditions on 100,000 to 400,000 rows (1 M rows with ``--min-support 2``:
7.0 GB of bitsets, 15.4 GB at the peak, the data included).

:func:`warn_if_large` emits one :class:`~subroc_ext.SearchSizeWarning` line
when the bound passes :data:`LARGE_CANDIDATES`, the bitsets
:data:`LARGE_BYTES` or the CPU time :data:`LARGE_SECONDS`;
:func:`check_memory` refuses a search whose memory passes what the machine
has available (:func:`available_memory`), unless ``allow_large``.
"""

import os
import warnings
from dataclasses import dataclass

from ..exceptions import SearchMemoryError, SearchSizeWarning
from ..utils.callers import user_stacklevel

__all__ = [
    "BYTES_PER_CONDITION",
    "LARGE_BYTES",
    "LARGE_CANDIDATES",
    "LARGE_SECONDS",
    "SECONDS_PER_CANDIDATE",
    "SECONDS_PER_CANDIDATE_ROW",
    "SearchSize",
    "available_memory",
    "check_memory",
    "estimate_search_size",
    "warn_if_large",
]

#: Candidates (upper bound) above which a search is announced as large.
LARGE_CANDIDATES = 50_000_000
#: Bytes of condition bitsets above which a search is announced as large.
LARGE_BYTES = 4 * 2**30
#: Estimated CPU seconds (every candidate evaluated) above which a search is announced as large.
LARGE_SECONDS = 60.0
#: Memory of a condition besides its bitsets (Python objects, caches), in bytes.
BYTES_PER_CONDITION = 2048
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
    memory_bytes : int
        Memory the search adds (:data:`BYTES_PER_CONDITION` and twice the
        bitsets: the dataset's and the search's copy).
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
    def memory_bytes(self):
        """Memory the search adds: twice the bitsets, and :data:`BYTES_PER_CONDITION` each."""
        return 2 * self.bitset_bytes + BYTES_PER_CONDITION * self.conditions

    @property
    def large(self):
        """Whether the bound, the bitsets or the CPU time pass :data:`LARGE_CANDIDATES`,
        :data:`LARGE_BYTES` / :data:`LARGE_SECONDS`."""
        return self.candidates > LARGE_CANDIDATES or self.bitset_bytes > LARGE_BYTES or self.seconds > LARGE_SECONDS

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
            f"{text}; {_bytes(self.bitset_bytes)} of condition bitsets for {self.rows:,} rows "
            f"(about {_bytes(self.memory_bytes)} of memory); evaluating every candidate would take "
            f"about {_duration(self.seconds)} of CPU"
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


def available_memory():
    """Bytes of memory available to a new allocation, or None if unknown.

    Linux' ``MemAvailable`` (``/proc/meminfo``: free memory and the caches
    the kernel can drop), else ``os.sysconf``'s available physical pages.
    """
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(size, allow_large=False, available=None):
    """Refuse a search whose memory passes what is available (unless ``allow_large``).

    Parameters
    ----------
    size : SearchSize
    allow_large : bool, default=False
        Start it anyway.
    available : int, optional
        Bytes available; by default :func:`available_memory`.

    Raises
    ------
    SearchMemoryError
        One line: the estimate, what is available, and the ways out.
    """
    available = available_memory() if available is None else available
    if allow_large or available is None or size.memory_bytes <= available:
        return
    raise SearchMemoryError(
        f"the search would need about {_bytes(size.memory_bytes)} of memory, more than the "
        f"{_bytes(available)} available ({size}): lower the depth, raise the minimum support or "
        "leave out columns; allow_large=True (--allow-large) starts it anyway"
    )


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
