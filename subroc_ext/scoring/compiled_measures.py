"""The glue between a built-in :class:`~subroc_ext.Measure` and the compiled
kernels of :mod:`~subroc_ext.scoring.cover_kernels`: which kernel code
evaluates a measure on bitsets, the per-row values those kernels read, and
the compiled sampler of random subsets with fixed class counts.
"""

import numpy as np

from . import cover_kernels

__all__ = ["compiled_kind", "compiled_null_values", "compiled_row_values"]


def compiled_kind(measure):
    """The :mod:`~subroc_ext.scoring.cover_kernels` code that evaluates ``measure`` on
    bitsets (the search engine's kernels and the compiled null sampler), or
    None.

    Only the built-in classes themselves have one, the ``compiled_code``
    attribute set in their own class body (not inherited): a subclass may
    change :meth:`~subroc_ext.Measure.value` or :meth:`~subroc_ext.Measure.extremes`, so it is
    evaluated through its own methods.

    Examples
    --------
    >>> from subroc_ext.scoring.measures import KernelMeasure, ROCAUC
    >>> compiled_kind(ROCAUC()) == cover_kernels.ROC_AUC
    True
    >>> compiled_kind(KernelMeasure(len, kind="score", name="size")) is None
    True
    """
    return vars(type(measure)).get("compiled_code")


def compiled_row_values(measure):
    """The per-row values the compiled kernels read for a prepared built-in
    measure, in its dataset's order: a :class:`~subroc_ext.scoring.measures.RowMeanMeasure`'s values, the
    probabilities of :class:`~subroc_ext.scoring.case_mix.ExpectedROCAUC`
    (their ``prepared_values``); None for the others (the kernels are then
    compiled without the code of the per-row measures)."""
    values = getattr(measure, "prepared_values", None)
    return None if values is None else np.ascontiguousarray(values, dtype=float)


def compiled_null_values(kind, measure, dataset, positives, negatives, n_samples, rng, pools=None):
    """:func:`subroc_ext.scoring.cover_kernels.null_values` for a built-in measure, seeded from ``rng``.

    ``kind`` is :func:`compiled_kind` of ``measure``; ``pools``: the positive
    and the negative rows (positions in ``dataset``) to draw from, in the
    order the draws index them; by default ascending.
    """
    if pools is None:
        positions = np.arange(len(dataset.rows), dtype=np.int64)
        pools = positions[dataset.is_positive], positions[~dataset.is_positive]
    group_start, group_end = cover_kernels.tie_group_bounds(dataset.group_ids)
    row_values = compiled_row_values(measure)
    if row_values is not None:
        row_values = np.ascontiguousarray(row_values[dataset.rows])
    out = np.empty(n_samples)
    cover_kernels.null_values(
        kind, int(rng.integers(2**63)), *pools, int(positives), int(negatives), group_start,
        group_end, row_values, out,
    )  # fmt: skip
    return out
