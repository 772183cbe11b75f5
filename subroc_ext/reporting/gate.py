"""A release gate in a test suite: fail when the headline names a failure.

The command line's ``--fail-on failure`` and :func:`assert_no_failures` ask
one question, answered in one place
(:func:`~subroc_ext.reporting.findings.failure_rows`, where the headline gets
its rows): does the headline name a failure? A minimum effect is
``min_delta`` of the search (``--min-delta``): a row is a failure only if its
interval lies beyond it.
"""

from .findings import HEADLINE_ROWS, failure_rows, headline

__all__ = ["assert_no_failures", "gate_reason"]


def gate_reason(table):
    """Why a gate fails on ``table`` in one line, or None when it passes.

    Parameters
    ----------
    table : pandas.DataFrame
        A ``find_subgroups``, ``find_regressions`` or ``find_drift`` table.

    Returns
    -------
    str or None
        ``'3 failures: region=='east' (delta 0.392), ...'`` (in the headline's order).
    """
    failures = failure_rows(table)
    if len(failures) == 0:
        return None
    named = ", ".join(f"{row['description']} (delta {row['delta']:.3f})"
                      for _, row in failures.head(HEADLINE_ROWS).iterrows())  # fmt: skip
    more = f", ... and {len(failures) - HEADLINE_ROWS:,} more" if len(failures) > HEADLINE_ROWS else ""
    return f"{len(failures):,} failure{'' if len(failures) == 1 else 's'}: {named}{more}"


def assert_no_failures(table, *, top=HEADLINE_ROWS):
    """Raise ``AssertionError`` when the headline of ``table`` names a failure.

    For a test suite that gates a release on a model's audit, as
    ``subroc-ext run ... --fail-on failure`` does on the command line: the
    same rows (:func:`~subroc_ext.reporting.findings.failure_rows`), the
    headline as the message.

    Parameters
    ----------
    table : pandas.DataFrame
        A ``find_subgroups``, ``find_regressions`` or ``find_drift`` table
        (``min_delta`` there sets the smallest effect that is a failure).
    top : int, default=HEADLINE_ROWS
        Findings the message names at most.

    Raises
    ------
    AssertionError
        The headline names at least one failure; the message is the
        headline's text.

    Examples
    --------
    >>> import subroc_ext, numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({"region": rng.choice(["east", "west", "north"], 900),
    ...                      "label": rng.integers(0, 2, 900)})
    >>> data["score"] = np.where(data["region"] == "east", rng.random(900),
    ...                          0.5 * data["label"] + 0.5 * rng.random(900))
    >>> table = subroc_ext.find_subgroups(data, label="label", score="score", depth=1,
    ...                                   progress=False)
    >>> subroc_ext.assert_no_failures(table)
    Traceback (most recent call last):
    ...
    AssertionError: Where the ROC AUC is worse than on the whole data and than its scores promise: 1 failure among 1 significant of 1 subgroup (fdr_by, alpha 0.05), surest first:
      #1 region=='east' (30% of held-out rows): ROC AUC 0.558 vs 0.881 overall, 0.323 lower [0.204, 0.444]
    """
    if len(failure_rows(table)):
        raise AssertionError(headline(table, top=top).text())
