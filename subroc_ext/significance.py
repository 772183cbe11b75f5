"""The SubROC randomization test: is a pattern's exceptionality real?

Each pattern is re-evaluated on held-out (validation) data, and its raw
relative quality ``q`` (the test statistic) is compared with that of random
subsets of the validation data with the same size and the same number of
negatives. The empirical p-value ``(1 + #{q_b >= q}) / (1 + B)`` is valid at
any number of samples ``B`` and never 0. All p-values are then corrected
together (Benjamini-Yekutieli by default).

The null distribution depends only on ``(size, negatives)``; it is cached by
that key and drawn by :func:`subroc_ext.null_sampling.null_values` (compiled
for the built-in measures, memory-bounded batches for the others). Each
sample is a uniformly random subset with those class counts and its statistic
is computed exactly (ties included).

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (the randomization test).
.. [2] B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
   Statistical Applications in Genetics and Molecular Biology 9(1), 2010.
"""

import numpy as np
import pandas as pd
import pysubgroup as ps
from statsmodels.stats.multitest import multipletests, multitest_alias

from ._progress import progress_bar
from .cluster import check_client, require_distributed, share
from .null_sampling import null_values
from .quality import SoftClassifierQF
from .subsets import sample_subsets  # public here since 0.1

__all__ = ["base_seed", "check_test_settings", "null_rng", "randomization_test", "sample_subsets"]

def base_seed(random_state):
    """The seed from which every null distribution's generator is derived.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None``: fresh entropy from the operating system; an int (>= 0) is
        the seed itself; a Generator gives one draw (so it advances).

    Returns
    -------
    int
    """
    if random_state is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    raise TypeError(
        f"random_state must be None, an int or a numpy.random.Generator, got "
        f"{type(random_state).__name__}"
    )


def null_rng(seed, key):
    """The generator of the null distribution of ``key``, derived from ``seed``
    (see :func:`base_seed`).

    ``key`` is what the distribution depends on: ``(size, negatives)``, or
    the count of every class for an AUCMuQF. Each distribution has its own
    stream (``numpy.random.SeedSequence`` of ``(seed, *key)``), so a p-value
    does not depend on which other subgroups are tested, in which order, or
    on which worker of a cluster.
    """
    return np.random.default_rng(np.random.SeedSequence([seed, *(int(n) for n in key)]))


def _null_distribution(qf, whole, key, n_samples, seed, batch_elements):
    """Raw qualities of ``n_samples`` random subsets with the class counts of
    ``key``: ``(size, negatives)`` of the cover ``whole``, or (``whole`` is
    None) the class counts of an AUCMuQF."""
    rng = null_rng(seed, key)
    if whole is None:
        return qf.null_raw_qualities(key, n_samples, rng, batch_elements=batch_elements)
    size, negatives = key
    values = null_values(
        qf.prepared_measure, whole, size - negatives, negatives, n_samples, rng,
        batch_elements=batch_elements,
    )
    return qf.raw_quality(np.asarray(values, dtype=float))


def _shared_null_distribution(shared, key, n_samples, seed, batch_elements):
    """:func:`_null_distribution` on a worker, from the shared ``(qf, whole)``."""
    qf, whole = shared
    return _null_distribution(qf, whole, key, n_samples, seed, batch_elements)


def _null_distributions(qf, dataset, keys, n_samples, seed, batch_elements, client, progress):
    """The null distribution of each key, here or on the workers of ``client``."""
    if client is None:
        return {
            key: _null_distribution(qf, dataset, key, n_samples, seed, batch_elements)
            for key in progress_bar(keys, enabled=progress, desc="testing")
        }
    distributed = require_distributed("client")
    shared = share(client, (qf, dataset))
    futures = {
        client.submit(_shared_null_distribution, shared, key, n_samples, seed, batch_elements,
                      pure=False): key
        for key in keys
    }  # fmt: skip
    nulls = {}
    try:
        done = distributed.as_completed(futures)
        for future in progress_bar(done, enabled=progress, desc="testing", total=len(keys)):
            nulls[futures[future]] = future.result()
    finally:
        client.cancel(list(futures))
        client.cancel(shared)
    return nulls


def check_test_settings(n_samples, method, alpha):
    """Raise ``ValueError`` unless the randomization test's settings are usable."""
    if method not in multitest_alias:  # statsmodels' own table of names and aliases
        raise ValueError(
            f"method must be one of statsmodels' multipletests methods "
            f"{sorted(multitest_alias)}, got {method!r}"
        )
    if not (isinstance(n_samples, (int, np.integer)) and n_samples >= 1):
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")


def _descriptions_iv(subgroups, target):
    """Descriptions and target from a pysubgroup result or a list of descriptions."""
    if isinstance(subgroups, ps.SubgroupDiscoveryResult):
        descriptions = [description for _, description, *_ in subgroups.results]
        target = subgroups.task.target if target is None else target
    else:
        descriptions = list(subgroups)
    if target is None:
        raise ValueError(
            "pass target=subroc_ext.SoftClassifierTarget(label_column, prediction_column) "
            "when subgroups is not a pysubgroup result"
        )
    return descriptions, target


def randomization_test(
    subgroups,
    data,
    qf,
    *,
    target=None,
    n_samples=10_000,
    method="fdr_by",
    alpha=0.05,
    random_state=None,
    batch_elements=4_000_000,
    progress=False,
    client=None,
):
    """Test each subgroup's exceptionality on held-out data against random subsets.

    Parameters
    ----------
    subgroups : pysubgroup.SubgroupDiscoveryResult or list of descriptions
        The patterns to test (e.g. the top-k of a search on another split).
    data : pandas.DataFrame
        The held-out validation split.
    qf : SoftClassifierQF or AUCMuQF
        Defines the statistic: the raw relative quality ``q`` of its measure
        and mode on ``data`` (weights are not used). For an AUCMuQF the null
        subsets keep the count of every class.
    target : subroc_ext.SoftClassifierTarget, optional
        Label and prediction columns; taken from ``subgroups.task`` when it
        is a pysubgroup result.
    n_samples : int, default=10_000
        Random subsets per distinct ``(size, negatives)``.
    method : str, default='fdr_by'
        Multiple-testing correction, any method of
        ``statsmodels.stats.multitest.multipletests``.
    alpha : float, default=0.05
        Family-wise error rate or false discovery rate.
    random_state : int or numpy.random.Generator, optional
        Seed for reproducible p-values. The null distribution of each
        ``(size, negatives)`` (each tuple of class counts for an AUCMuQF) is
        drawn from its own generator derived from the seed and that key
        (:func:`null_rng`), so a subgroup's p-value
        does not depend on the other subgroups or their order. ``None`` draws
        fresh entropy once; a Generator gives one seed (and advances).
    batch_elements : int, default=4_000_000
        Upper bound on the number of sampled rows held in memory at once.
    progress : bool, default=False
        Show a progress bar.
    client : dask.distributed.Client, optional
        Draw the null distributions on this cluster's workers, one task per
        key (the validation data is sent to each worker once). The p-values are the same as without it.

    Returns
    -------
    pandas.DataFrame
        One row per subgroup, in input order: ``subgroup`` (description),
        ``size``, ``positives``, ``negatives`` (for an AUCMuQF one
        ``count_<class>`` column per class instead), ``measure`` (on ``data``),
        ``statistic``, ``p_value``, ``p_value_corrected``, ``significant``
        and ``testable`` (False where the measure is undefined on the
        subgroup's validation cover; such rows get p = 1).

    Examples
    --------
    >>> table = randomization_test(result, validation, subroc_ext.ROCAUCQF("label"),
    ...                            n_samples=1000, random_state=0)  # doctest: +SKIP
    """
    multiclass = hasattr(qf, "null_raw_qualities")  # AUCMuQF: keep every class count
    if not (isinstance(qf, SoftClassifierQF) or multiclass):
        raise TypeError(
            f"qf must be a subroc_ext SoftClassifierQF or AUCMuQF, got {type(qf).__name__}"
        )
    check_test_settings(n_samples, method, alpha)
    descriptions, target = _descriptions_iv(subgroups, target)
    if len(data) == 0:
        raise ValueError("the validation data is empty")
    seed = base_seed(random_state)
    if client is not None:
        check_client(client)
    qf.calculate_constant_statistics(data, target)
    if multiclass:
        null_key, count_record, whole = qf.null_key, qf.count_record, None
    else:
        whole = qf.dataset.cover()

        def null_key(stats):
            return (stats.size_sg, stats.negatives_count)

        def count_record(stats):
            return {"positives": stats.positives_count, "negatives": stats.negatives_count}

    statistics = [qf.calculate_statistics(d, target, data) for d in descriptions]
    testable = [bool(np.isfinite(stats.raw_quality)) for stats in statistics]
    keys = list(dict.fromkeys(null_key(stats) for stats, ok in zip(statistics, testable) if ok))
    nulls = _null_distributions(qf, whole, keys, n_samples, seed, batch_elements, client, progress)
    records = []
    for description, stats, ok in zip(descriptions, statistics, testable):
        p_value = 1.0
        if ok:
            # Null values equal to the statistic count as extreme; they may
            # differ from it in the last bits (sums in another order), by
            # much less than this relative to the measure's magnitude.
            scale = max(abs(stats.measure), abs(qf.dataset_value))
            tolerance = 100 * np.finfo(float).eps * scale
            null = nulls[null_key(stats)]
            extreme = np.count_nonzero(null >= stats.raw_quality - tolerance)
            p_value = (1 + extreme) / (1 + n_samples)
        records.append(
            {
                "subgroup": description,
                "size": stats.size_sg,
                **count_record(stats),
                "measure": stats.measure,
                "statistic": stats.raw_quality,
                "p_value": p_value,
                "testable": ok,
            }
        )
    counts = list(count_record(qf.calculate_statistics(slice(None), target, data)))
    table = pd.DataFrame.from_records(
        records,
        columns=["subgroup", "size", *counts, "measure", "statistic", "p_value", "testable"],
    )
    if len(table):
        rejected, corrected, _, _ = multipletests(table["p_value"], alpha=alpha, method=method)
    else:
        rejected, corrected = np.zeros(0, dtype=bool), np.zeros(0)
    after_p = table.columns.get_loc("p_value") + 1
    table.insert(after_p, "p_value_corrected", corrected)
    table.insert(after_p + 1, "significant", rejected & table["testable"].to_numpy())
    return table
