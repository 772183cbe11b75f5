"""Count a search's candidates, and search without pruning: :class:`CountingQF`.

Benchmarks, experiments and tests compare a pruned search with an unpruned
one and count the candidates each evaluates. One wrapper does both for any
pysubgroup quality function.
"""

import copy

import numpy as np

from ..objective.comparison import ComparisonQF
from ..objective.generalization import GeneralizationAwareQF
from ..objective.quality import SoftClassifierQF

__all__ = ["CountingQF", "without_estimates"]


def without_estimates(qf):
    """A copy of ``qf`` that never computes an optimistic estimate.

    subroc-ext's quality functions compute the estimate together with the
    other statistics (``calculate_statistics``); the copy has
    ``optimistic_estimates = False``, so an unpruned search does not pay for
    it (otherwise it would overstate the speed-up of pruning). The quality of
    every pattern is unchanged. Other quality functions (pysubgroup's own,
    :class:`~subroc_ext.AUCMuQF`) are returned as they are: :class:`CountingQF`
    with ``prune=False`` does not call their ``optimistic_estimate``.

    Parameters
    ----------
    qf : pysubgroup quality function

    Returns
    -------
    pysubgroup quality function
        A shallow copy with estimates off, or ``qf`` itself.

    Examples
    --------
    >>> import subroc_ext
    >>> qf = subroc_ext.ROCAUCQF("label")
    >>> without_estimates(qf).optimistic_estimates, qf.optimistic_estimates
    (False, True)
    """
    if isinstance(qf, GeneralizationAwareQF):
        return GeneralizationAwareQF(without_estimates(qf.qf))
    if isinstance(qf, (SoftClassifierQF, ComparisonQF)):
        qf = copy.copy(qf)
        qf.optimistic_estimates = False
    return qf


class CountingQF:
    """Forward a quality function, counting its ``calculate_statistics`` calls.

    pysubgroup's algorithms call ``calculate_statistics`` once per evaluated
    candidate, so :attr:`candidates` counts the candidates of a search.

    Parameters
    ----------
    qf : pysubgroup quality function
        The quality function searched with.
    prune : bool, default=True
        With ``False``, every optimistic estimate is ``+inf`` (nothing is
        pruned) and none is computed (the wrapped function is
        :func:`without_estimates` of ``qf``). The qualities are unchanged.

    Attributes
    ----------
    qf : pysubgroup quality function
        The wrapped function (a copy without estimates if ``prune=False``).
    candidates : int
        Calls of ``calculate_statistics`` so far.

    Examples
    --------
    >>> import pandas as pd, pysubgroup as ps, subroc_ext
    >>> data = pd.DataFrame({"a": [0, 0, 1, 1] * 5, "label": [0, 1] * 10,
    ...                      "score": [0.1, 0.9, 0.8, 0.2] * 5})
    >>> counting = CountingQF(subroc_ext.ROCAUCQF("label"), prune=False)
    >>> task = ps.SubgroupDiscoveryTask(
    ...     data, subroc_ext.SoftClassifierTarget("label", "score"),
    ...     ps.create_selectors(data, ignore=["label", "score"]), counting,
    ...     result_set_size=1, depth=1)
    >>> result = ps.BestFirstSearch().execute(task)
    >>> counting.candidates
    2
    """

    def __init__(self, qf, prune=True):
        self.qf = qf if prune else without_estimates(qf)
        self.prune = prune
        self.candidates = 0

    def calculate_constant_statistics(self, data, target):
        """Forwarded."""
        return self.qf.calculate_constant_statistics(data, target)

    def calculate_statistics(self, subgroup, target, data, statistics=None):
        """Forwarded and counted."""
        self.candidates += 1
        return self.qf.calculate_statistics(subgroup, target, data, statistics)

    def evaluate(self, subgroup, target, data, statistics=None):
        """Forwarded."""
        return self.qf.evaluate(subgroup, target, data, statistics)

    def optimistic_estimate(self, subgroup, target, data, statistics=None):
        """Forwarded; ``+inf`` (of the statistics' shape) without pruning."""
        if not self.prune:
            return np.full(np.shape(getattr(statistics, "size_sg", None)), np.inf)[()]
        return self.qf.optimistic_estimate(subgroup, target, data, statistics)

    def __repr__(self):
        return f"{type(self).__name__}({self.qf!r}, prune={self.prune})"
