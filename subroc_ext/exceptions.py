"""Warnings and exceptions of subroc-ext, as classes users can filter or catch;
what a run had computed when it was cut (:class:`Partial`, :func:`keeping`)."""

import contextlib

__all__ = ["InterruptedRun", "InterruptedSplits", "InterruptedTest", "LowPowerWarning", "Partial", "SearchMemoryError", "SearchSizeWarning",
           "UndefinedMeasureWarning", "keeping"]


class Partial:
    """What a run had computed when something ended it during ``stage``.

    Attributes
    ----------
    table : pandas.DataFrame
        The result table so far, one row per searched pattern: the columns of
        the stages not reached are missing or marked unknown.
    stage : {'test', 'describe', 'splits', 'report', 'print'}
        The stage that was cut: the significance test, the description of each
        pattern on each split, the audits of many random splits
        (:class:`InterruptedSplits`), the writing of the files (the command
        line), or the printing after every file was written.
    kept : str
        What the table holds, in words ('searched', 'searched and tested').
    missing : str
        What it lacks, in words ('untested (no p-values)').
    when : str or None
        When the run was cut, in words, where the stage does not say it all
        ('after 1 of 8 splits'); None: during the stage.
    """

    def __init__(self, table, stage, kept, missing, when=None):
        self.table, self.stage, self.kept, self.missing, self.when = table, stage, kept, missing, when


class InterruptedRun(KeyboardInterrupt):
    """Ctrl-C after the search of :func:`~subroc_ext.find_subgroups`,
    :func:`~subroc_ext.find_multiclass_subgroups`, :func:`~subroc_ext.find_regressions`
    or :func:`~subroc_ext.find_drift`: a ``KeyboardInterrupt`` (so an interrupted
    call ends as before) that carries what was finished.

    Attributes
    ----------
    partial : Partial
        The table so far, the stage cut and what the table lacks.
    table : pandas.DataFrame
        ``partial.table``.
    """

    def __init__(self, partial):
        super().__init__(f"interrupted during the {partial.stage}; the {partial.kept} table is kept")
        self.partial = partial

    @property
    def table(self):
        """The table so far (``partial.table``)."""
        return self.partial.table


class InterruptedTest(InterruptedRun):
    """Ctrl-C during the significance test: the search had finished.

    Its ``table`` holds the searched patterns, untested: ``statistic`` and
    the p-values NaN, ``significant`` and ``testable`` missing (``pd.NA``).
    """

    def __init__(self, table, missing="untested (no p-values)"):
        super().__init__(Partial(table, "test", "searched", missing))


class InterruptedSplits(InterruptedRun):
    """Ctrl-C while :func:`subroc_ext.find_subgroups` ran many splits
    (``splits=B`` or ``'auto'``) after at least one had finished: what the
    finished splits found.

    With two or more finished, ``table`` is their aggregate as the run's
    (the same columns and ``attrs``), with e-BH over the ``planned`` splits
    fixed before any ran, each that did not finish counted as rejecting
    nothing (:func:`~subroc_ext.workflow.many_splits.aggregate`: an average
    over the splits that happened to finish would not be valid); its
    ``attrs['splits']`` says so (``'planned'``, ``'interrupted'``). With
    one, ``table`` is that split's own table: its test at the split's level
    (``attrs['alpha']``, ``0.3 * alpha``), not aggregated.

    Attributes
    ----------
    finished, planned : int
        The splits that finished, and those planned (B; for ``'auto'`` its
        largest number of splits, ``at_most``).
    aggregated : bool
        Whether ``table`` is the aggregate (two or more finished).

    Parameters
    ----------
    how : str, optional
        The aggregate's test in words, as its headline says it
        (:func:`~subroc_ext.workflow.many_splits.planned_text`); with two
        or more finished.
    """

    def __init__(self, table, finished, planned, at_most=False, how=None):
        self.finished, self.planned = finished, planned
        when = f"after {finished} of {'at most ' * at_most}{planned} splits"
        if self.aggregated:
            kept, missing = f"aggregated ({finished} splits)", how
        else:
            alpha = table.attrs.get("alpha")
            level = "" if alpha is None else f" (its test at alpha {alpha:g})"
            kept, missing = "tested", f"that split's own{level}, not aggregated"
        super().__init__(Partial(table, "splits", kept, missing, when))
        self.args = (f"interrupted {when}; the {kept} table is kept: {missing}",)

    @property
    def aggregated(self):
        """Whether ``table`` aggregates the finished splits (two or more)."""
        return self.finished >= 2


@contextlib.contextmanager
def keeping(table, stage, kept, missing):
    """Run ``stage`` of a run that has computed ``table``: whatever ends it
    carries the table (:class:`Partial`), so that the caller can keep it.

    Ctrl-C (a ``KeyboardInterrupt``) is raised as :class:`InterruptedRun`
    (:class:`InterruptedTest` for ``stage='test'``); an error is raised as it
    is, with the :class:`Partial` as its ``partial`` attribute and a note
    saying so. An inner stage's record wins over an outer one's: ``with
    keeping(...)`` blocks nest.
    """
    partial = Partial(table, stage, kept, missing)
    try:
        yield partial
    except InterruptedRun:
        raise
    except KeyboardInterrupt as interrupt:
        raise (InterruptedTest(table, missing) if stage == "test" else InterruptedRun(partial)) from interrupt
    except Exception as error:
        if getattr(error, "partial", None) is None:
            error.partial = partial
            error.add_note(f"(the {kept} table is kept in this error's partial.table)")
        raise


class UndefinedMeasureWarning(UserWarning):
    """A measure is undefined on the given rows (e.g. ROC AUC with one class only).

    The measure is then NaN (or the curve is not drawn). Like scikit-learn's
    ``UndefinedMetricWarning``, it can be silenced or turned into an error:

    >>> import warnings
    >>> from subroc_ext import UndefinedMeasureWarning, roc_auc_confidence_interval
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", UndefinedMeasureWarning)
    ...     roc_auc_confidence_interval([1, 1], [0.2, 0.7]).roc_auc
    nan
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", UndefinedMeasureWarning)
    ...     roc_auc_confidence_interval([1, 1], [0.2, 0.7])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    subroc_ext.exceptions.UndefinedMeasureWarning: ROC AUC is undefined: ... holds only one class; returning NaN
    """


class LowPowerWarning(UserWarning):
    """The randomization test's settings cannot make a lone finding significant.

    Its smallest p-value is ``1 / (1 + n_samples)``; after correcting for
    many tests it can still be above ``alpha`` (see
    :func:`subroc_ext.inference.significance.smallest_corrected_p_value`): then a
    subgroup can be significant only together with many others (with the
    Benjamini-Hochberg or -Yekutieli corrections), or not at all (e.g.
    Bonferroni). The message names the setting that fixes it.
    """


class SearchMemoryError(MemoryError):
    """A search would need more memory than the machine has available
    (:func:`subroc_ext.inputs.search_size.check_memory`), refused before it
    starts: one line with the estimate and the ways out (``allow_large=True``
    starts it anyway)."""


class SearchSizeWarning(UserWarning):
    """A search is large before it starts: its candidates (an upper bound
    from the conditions per column, at most one per column) or the memory of
    its condition bitsets or its CPU time pass a threshold
    (:func:`subroc_ext.inputs.search_size.estimate_search_size`). One line
    with the estimate; the search still runs."""
