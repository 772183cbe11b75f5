"""The SubROC randomization test: is a pattern's exceptionality real?

Each pattern is re-evaluated on held-out (validation) data, and its raw
relative quality ``q`` (the test statistic) is compared with that of random
subsets of the validation data with the same size and the same number of
negatives. With a fixed number of samples ``B`` the empirical p-value
``(1 + #{q_b >= q}) / (1 + B)`` is valid and never 0. By default
(``n_samples='adaptive'``) the null values are drawn in rounds and each
pattern stops as soon as its corrected decision is known
(:mod:`subroc_ext.inference.sequential`: Besag-Clifford p-values, valid too). All
p-values are then corrected together (Benjamini-Yekutieli by default).
Before drawing, :func:`smallest_corrected_p_value` checks that the settings
can make a pattern significant at all and warns (:class:`LowPowerWarning`)
if not.

The null distribution depends only on ``(size, negatives)`` (a quality
function with a ``pattern_null_key``, the case-mix one, has one per pattern:
:meth:`~subroc_ext.objective.case_mix.CaseMixQF.null_raw_qualities`); it is drawn
once per key for all patterns of that key by
:func:`subroc_ext.scoring.null_sampling.null_exceedances` (compiled for the
built-in measures, memory-bounded batches for the others). Each sample is a
uniformly random subset with those class counts, and whether its statistic
reaches each pattern's is decided exactly (ties included). For ROC AUC and
ARL the subsets are drawn over the tie groups, top-down, only until that
answer is known (:mod:`subroc_ext.scoring.rank_null`): a draw far from the
statistic costs a few dozen hypergeometric draws however many rows the
validation split has.

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (the randomization test).
.. [2] B. Phipson and G. K. Smyth, "Permutation p-values should never be zero",
   Statistical Applications in Genetics and Molecular Biology 9(1), 2010.
"""

import functools
import math
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pysubgroup as ps
from statsmodels.stats.multitest import multipletests, multitest_alias

from ..exceptions import LowPowerWarning
from ..objective.quality import SoftClassifierQF
from ..scoring.compiled_measures import compiled_kind
from ..scoring.measures import Measure
from ..scoring.null_sampling import null_exceedances
from ..utils.cluster import parallelism
from ..utils.cluster import shared as shared_on_workers
from ..utils.interrupts import kernel_interrupts
from ..utils.progress import progress_bar
from ..utils.subsets import sample_subsets  # public here since 0.1
from .sequential import SequentialPValues, round_sizes

__all__ = [
    "base_seed",
    "check_test_settings",
    "has_reference",
    "null_rng",
    "randomization_test",
    "sample_subsets",
    "smallest_corrected_p_value",
]

#: Null values per key in the first round of the adaptive test; each later
#: round doubles the key's total.
FIRST_ROUND = 128

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


def null_rng(seed, key, batch=None):
    """The generator of the null distribution of ``key``, derived from ``seed``
    (see :func:`base_seed`).

    ``key`` is what the distribution depends on: ``(size, negatives)``, or
    the count of every class for an AUCMuQF. Each distribution has its own
    stream (``numpy.random.SeedSequence`` of ``(seed, *key)``), so a p-value
    does not depend on which other subgroups are tested, in which order, or
    on which worker of a cluster. The adaptive test draws round ``batch`` of
    a key from that sequence's child number ``batch``
    (``SeedSequence.spawn``), so its values do not depend on the rounds
    either.
    """
    sequence = np.random.SeedSequence([seed, *(int(n) for n in key)])
    if batch is not None:
        sequence = np.random.SeedSequence(sequence.entropy, spawn_key=(int(batch),))
    return np.random.default_rng(sequence)


def _null_exceedances(qf, whole, key, thresholds, n_samples, seed, batch_elements, batch=None, cut_memo=None):
    """Whether the raw quality of each of ``n_samples`` random subsets with the
    class counts of ``key`` reaches each of ``thresholds`` (bool, shape
    ``(len(thresholds), n_samples)``): ``key`` is ``(size, negatives)`` of the
    cover ``whole``, or (``whole`` is None) the class counts of an AUCMuQF or
    a ComparisonQF; from :func:`null_rng` of ``batch`` (``cut_memo``: that of
    :func:`~subroc_ext.scoring.null_sampling.null_exceedances`, for ``qf``)."""
    rng = null_rng(seed, key, batch)
    thresholds = np.asarray(thresholds, dtype=float)
    if whole is None:
        values = qf.null_raw_qualities(key, n_samples, rng, batch_elements=batch_elements)
        return np.asarray(values, dtype=float) >= thresholds[:, None]
    size, negatives = key
    quality = functools.partial(qf.raw_quality, positives=size - negatives, negatives=negatives) \
        if against_reference(qf) else qf.raw_quality  # fmt: skip
    return null_exceedances(
        qf.prepared_measure, whole, size - negatives, negatives, n_samples, rng, quality,
        thresholds, batch_elements=batch_elements, cut_memo=cut_memo,
    )  # fmt: skip


def has_reference(measure):
    """Whether ``measure`` is compared with its own
    :meth:`~subroc_ext.Measure.reference` of a subset's class counts (the
    ARL's: its mean over random subsets of them, the test's own null), not
    with the whole data's value: its effect, interval and test are then all
    taken against that reference."""
    return isinstance(measure, Measure) and type(measure).reference is not Measure.reference


def against_reference(qf):
    """Whether the statistic of ``qf`` (a SoftClassifierQF) is taken against its
    measure's reference (:func:`has_reference`): then the statistic and the
    null's are both against the same reference, which changes the test in
    mode 'both' only (in 'worse' and 'better' a constant of the class counts
    moves statistic and null alike)."""
    return has_reference(getattr(qf, "prepared_measure", None))


def _shared_null_exceedances(shared, key, thresholds, n_samples, seed, batch_elements, batch):
    """:func:`_null_exceedances` on a worker, from the shared ``(qf, whole)``."""
    qf, whole = shared
    return _null_exceedances(qf, whole, key, thresholds, n_samples, seed, batch_elements, batch)


def _own_code(qf):
    """Whether drawing the null values of ``qf`` runs only subroc-ext's code
    (built-in measures), which threads may share; a user measure's may not be
    thread-safe."""
    if hasattr(qf, "prepared_measures"):  # ComparisonQF
        measures = qf.prepared_measures
    else:  # AUCMuQF has no measure object
        measures = [qf.prepared_measure] if hasattr(qf, "prepared_measure") else []
    return all(compiled_kind(measure) is not None for measure in measures)


def _progress_label(draws, batch, by_size=False):
    """What a round of the test draws, for its progress line: ``testing round 2,
    256 random subsets per group of equal size and class counts`` (``by_size``:
    of equal size)."""
    sizes = sorted({n for n, _ in draws.values()})
    each = f"{sizes[0]:,}" if len(sizes) == 1 else f"{sizes[0]:,}-{sizes[-1]:,}"
    step = "testing" if batch is None else f"testing round {batch + 1}"
    return f"{step}, {each} random subsets per group of equal size{'' if by_size else ' and class counts'}"


@kernel_interrupts()
def _null_distributions(qf, whole, draws, seed, batch_elements, client, shared, progress, batch=None,
                        threads=1, cut_memo=None):  # fmt: skip
    """:func:`_null_exceedances` of each key of ``draws`` (``{key: (number of
    values, thresholds)}``), here (on ``threads`` threads, one key at a time
    each; with ``cut_memo``) or on the workers of ``client``; the progress
    line names the round (``batch``) and counts the keys."""
    desc = _progress_label(draws, batch, getattr(getattr(qf, "measure", None), "null_by_size", False))
    if client is None and threads > 1 and len(draws) > 1 and _own_code(qf):
        with ThreadPoolExecutor(threads) as pool:
            futures = {
                key: pool.submit(_null_exceedances, qf, whole, key, cuts, n, seed, batch_elements, batch, cut_memo)
                for key, (n, cuts) in draws.items()
            }  # fmt: skip
            try:
                items = progress_bar(futures.items(), enabled=progress, desc=desc)
                return {key: future.result() for key, future in items}
            finally:
                pool.shutdown(cancel_futures=True)  # Ctrl-C: only the running keys finish
    if client is None:
        return {
            key: _null_exceedances(qf, whole, key, cuts, n, seed, batch_elements, batch, cut_memo)
            for key, (n, cuts) in progress_bar(draws.items(), enabled=progress, desc=desc)
        }
    jobs = ((key, (key, cuts, n, seed, batch_elements, batch)) for key, (n, cuts) in draws.items())
    done = shared.results(_shared_null_exceedances, jobs)
    return dict(progress_bar(done, enabled=progress, desc=desc, total=len(draws)))


def _patterns_of(keys):
    """``{key: [patterns with that key]}``, in the order of first appearance."""
    patterns_of = {}
    for pattern, key in enumerate(keys):
        patterns_of.setdefault(key, []).append(pattern)
    return patterns_of


def _fixed_p_values(draw, keys, thresholds, n_samples):
    """``(1 + #{null >= statistic}) / (1 + n_samples)`` of each pattern."""
    patterns_of = _patterns_of(keys)
    nulls = draw({key: (n_samples, thresholds[patterns]) for key, patterns in patterns_of.items()}, None)
    extreme = np.zeros(len(keys))
    for key, patterns in patterns_of.items():
        extreme[patterns] = np.count_nonzero(nulls[key], axis=1)
    return (1 + extreme) / (1 + n_samples), np.full(len(keys), n_samples), np.ones(len(keys), dtype=bool)


def _adaptive_p_values(draw, keys, thresholds, max_samples, exceedances, method, alpha, untestable):
    """Sequential p-values (:class:`~subroc_ext.inference.sequential.SequentialPValues`)
    drawn in rounds. Each key's null values are one stream of blocks
    (:func:`~subroc_ext.inference.sequential.round_sizes`, block ``b`` from
    :func:`null_rng` of ``batch=b``); in a round a key draws its next block
    for its undecided patterns when one of them is
    :meth:`~subroc_ext.inference.sequential.SequentialPValues.wanted`, so
    the p-values are those of the same streams whichever keys wait."""
    state = SequentialPValues(len(keys), exceedances=exceedances, max_samples=max_samples)
    patterns_of = _patterns_of(keys)
    sizes = round_sizes(max_samples, FIRST_ROUND)
    blocks = dict.fromkeys(patterns_of, 0)  # blocks drawn per key
    order = np.empty(len(keys), dtype=np.int64)  # ties broken by (key, statistic), not position
    order[sorted(range(len(keys)), key=lambda p: (keys[p], thresholds[p]))] = np.arange(len(keys))
    stopped = np.zeros(len(keys), dtype=bool)
    while not stopped.all():
        wanted = state.wanted(stopped, method, alpha, untestable=untestable, order=order)
        due = {}  # block -> {key: its undecided patterns}
        for key, patterns in patterns_of.items():
            active = [p for p in patterns if not stopped[p]]
            if wanted[active].any():
                due.setdefault(blocks[key], {})[key] = active
        for batch, group in sorted(due.items()):
            nulls = draw({key: (sizes[batch], thresholds[active]) for key, active in group.items()}, batch)
            for key, active in group.items():
                blocks[key] += 1
                for row, pattern in enumerate(active):
                    state.add(pattern, nulls[key][row])
        stopped |= state.decided(method, alpha, untestable=untestable)
    return state.p_values(), state.drawn, state.finished


def smallest_corrected_p_value(n_tests, n_samples, method):
    """The smallest corrected p-value a randomization test can give.

    The smallest p-value of a test with at most ``n_samples`` null values is
    ``1 / (1 + n_samples)``; the smallest corrected one is that of a lone
    pattern at this value among ``n_tests - 1`` with p = 1. With the
    Benjamini-Yekutieli correction it is ``n_tests * H(n_tests) / (1 +
    n_samples)`` (``H`` the harmonic number), so ``n_samples >= n_tests *
    H(n_tests) / alpha - 1`` is needed for any pattern to be significant.

    Parameters
    ----------
    n_tests : int
        Patterns tested together.
    n_samples : int
        Null values per pattern at most (``max_samples`` of the adaptive test).
    method : str
        A ``statsmodels.stats.multitest.multipletests`` method.

    Returns
    -------
    float

    Examples
    --------
    >>> round(smallest_corrected_p_value(100, 10_000, "fdr_by"), 4)
    0.0519
    >>> round(smallest_corrected_p_value(100, 1_000_000, "fdr_by"), 6)
    0.000519
    """
    if n_tests < 1:
        return np.nan
    p_values = np.ones(n_tests)
    p_values[0] = 1 / (1 + n_samples)
    return float(multipletests(p_values, method=method)[1][0])


def _check_power(n_tests, n_samples, adaptive, method, alpha):
    """Warn in one line (:class:`LowPowerWarning`) when a pattern cannot be
    significant alone (with BH or BY it can still be, among many findings)."""
    smallest = smallest_corrected_p_value(n_tests, n_samples, method)
    if not smallest > alpha:
        return
    needed = math.ceil(smallest * (1 + n_samples) / alpha) - 1  # exact for linear corrections
    while smallest_corrected_p_value(n_tests, needed, method) > alpha:
        needed += max(1, needed // 100)
    setting = "max_samples" if adaptive else "n_samples"
    fix = f"max_samples >= {needed:,}" if adaptive else f"n_samples='adaptive' or n_samples >= {needed:,}"
    warnings.warn(
        f"a lone finding cannot be significant: with {n_tests} tests and {setting}={n_samples:,} "
        f"the smallest {method}-corrected p-value is {smallest:.3g} > alpha={alpha}; use {fix}, "
        "or test fewer subgroups",
        LowPowerWarning,
        stacklevel=3,
    )


def _is_count(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1


def check_test_settings(n_samples, method, alpha, max_samples=1_000_000, exceedances=10):
    """Raise ``ValueError`` unless the randomization test's settings are usable."""
    if method not in multitest_alias:  # statsmodels' own table of names and aliases
        raise ValueError(
            f"method must be one of statsmodels' multipletests methods "
            f"{sorted(multitest_alias)}, got {method!r}"
        )
    if not (_is_count(n_samples) or (isinstance(n_samples, str) and n_samples == "adaptive")):
        raise ValueError(f"n_samples must be 'adaptive' or a positive integer, got {n_samples!r}")
    if not _is_count(max_samples):
        raise ValueError(f"max_samples must be a positive integer, got {max_samples!r}")
    if not _is_count(exceedances):
        raise ValueError(f"exceedances must be a positive integer, got {exceedances!r}")
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
    n_samples="adaptive",
    max_samples=1_000_000,
    exceedances=10,
    method="fdr_by",
    alpha=0.05,
    random_state=None,
    batch_elements=4_000_000,
    progress=False,
    client=None,
    n_jobs=None,
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
    n_samples : 'adaptive' or int, default='adaptive'
        ``'adaptive'``: random subsets are drawn in rounds (128 per
        ``(size, negatives)``, then doubling the total) and each pattern
        stops once its corrected decision is known or ``exceedances`` null
        values reached its statistic (:mod:`subroc_ext.inference.sequential`), at most
        ``max_samples``. An int: that many random subsets per distinct
        ``(size, negatives)`` and ``p = (1 + #{q_b >= q}) / (1 + n_samples)``,
        as before 0.3 (whose default was 10,000).
    max_samples : int, default=1_000_000
        The cap of the adaptive test: its smallest p-value is
        ``1 / (1 + max_samples)``.
    exceedances : int, default=10
        ``h`` of the Besag-Clifford p-value ``h / L`` of the adaptive test.
    method : str, default='fdr_by'
        Multiple-testing correction, any method of
        ``statsmodels.stats.multitest.multipletests``. The adaptive test
        needs a monotone one (all step-up and step-down methods are).
    alpha : float, default=0.05
        Family-wise error rate or false discovery rate. A
        :class:`~subroc_ext.LowPowerWarning` says when the settings cannot
        reach it (:func:`smallest_corrected_p_value`).
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
    n_jobs : int, optional
        Draw the null distributions on this many threads in this process,
        one key at a time each (not with ``client``; a measure of your own,
        evaluated by its Python methods, is drawn on one thread). The
        p-values are the same for any number.

    Returns
    -------
    pandas.DataFrame
        One row per subgroup, in input order: ``subgroup`` (description),
        ``size``, ``positives``, ``negatives`` (for an AUCMuQF one
        ``count_<class>`` column per class instead), ``measure`` (on ``data``),
        ``statistic``, ``p_value``, ``p_value_corrected``, ``significant``,
        ``testable`` (False where the measure is undefined on the
        subgroup's validation cover; such rows get p = 1) and
        ``null_samples`` (the random subsets the p-value counted; 0 where
        untestable) and ``p_value_exact`` (False where the adaptive test
        stopped once the decision was settled: the p-value is an upper
        bound, see :func:`~subroc_ext.reporting.report.p_value_text`). ``table.attrs['null_samples_drawn']`` is the number of
        random subsets drawn in all (a distribution serves every pattern of
        its ``(size, negatives)``).

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
    check_test_settings(n_samples, method, alpha, max_samples, exceedances)
    descriptions, target = _descriptions_iv(subgroups, target)
    if len(data) == 0:
        raise ValueError("the validation data is empty")
    seed = base_seed(random_state)
    client, threads = parallelism(client, n_jobs)
    qf.calculate_constant_statistics(data, target)
    if multiclass:
        null_key, count_record, whole = qf.null_key, qf.count_record, None
    else:
        whole = qf.dataset.cover()

        by_size = qf.measure.null_by_size  # one distribution per size, whatever the classes

        def null_key(stats):
            return (stats.size_sg, 0 if by_size else stats.negatives_count)

        def count_record(stats):
            return {"positives": stats.positives_count, "negatives": stats.negatives_count}

    statistics = [qf.calculate_statistics(d, target, data) for d in descriptions]
    testable = np.array([bool(np.isfinite(stats.raw_quality)) for stats in statistics], dtype=bool)
    tested = [stats for stats, ok in zip(statistics, testable) if ok]
    if hasattr(qf, "pattern_null_key"):  # CaseMixQF: a null distribution per pattern
        keys = [qf.pattern_null_key(d) for d, ok in zip(descriptions, testable) if ok]
    else:
        keys = [null_key(stats) for stats in tested]
    values = np.array([stats.raw_quality for stats in tested], dtype=float)
    if not multiclass and against_reference(qf):  # the test asks the effect's question (the table's
        # ``statistic`` stays the raw relative quality, as the paper's experiments record it)
        values = np.array([float(qf.raw_quality(stats.measure, stats.positives_count, stats.negatives_count))
                           for stats in tested], dtype=float)  # fmt: skip
    # Null values equal to the statistic count as extreme; they may differ
    # from it in the last bits (sums in another order), by much less than
    # this relative to the measure's magnitude.
    tolerances = np.array(
        [100 * np.finfo(float).eps * max(abs(s.measure), abs(qf.dataset_value)) for s in tested]
    )
    thresholds = values - tolerances
    adaptive = isinstance(n_samples, str)
    _check_power(len(descriptions), max_samples if adaptive else n_samples, adaptive, method, alpha)
    drawn = {}
    cut_memo = {}  # the rounds ask each pattern's thresholds again, of this one qf

    with shared_on_workers(client, (qf, whole)) as shared:

        def draw(requests, batch):
            for key, (n, _) in requests.items():
                drawn[key] = drawn.get(key, 0) + n
            return _null_distributions(
                qf, whole, requests, seed, batch_elements, client, shared, progress, batch, threads, cut_memo
            )

        if adaptive:
            p_tested, used, finished = _adaptive_p_values(
                draw, keys, thresholds, max_samples, exceedances, method, alpha,
                untestable=int((~testable).sum()),
            )  # fmt: skip
        else:
            p_tested, used, finished = _fixed_p_values(draw, keys, thresholds, n_samples)
    p_values = np.ones(len(descriptions))
    p_values[testable] = p_tested
    null_samples = np.zeros(len(descriptions), dtype=np.int64)
    null_samples[testable] = used
    exact = np.ones(len(descriptions), dtype=bool)
    exact[testable] = finished
    records = [
        {
            "subgroup": description,
            "size": stats.size_sg,
            **count_record(stats),
            "measure": stats.measure,
            "statistic": stats.raw_quality,
        }
        for description, stats in zip(descriptions, statistics)
    ]
    counts = list(count_record(qf.calculate_statistics(slice(None), target, data)))
    table = pd.DataFrame.from_records(
        records, columns=["subgroup", "size", *counts, "measure", "statistic"]
    )
    table["p_value"] = p_values
    if len(table):
        rejected, corrected, _, _ = multipletests(p_values, alpha=alpha, method=method)
    else:
        rejected, corrected = np.zeros(0, dtype=bool), np.zeros(0)
    table["p_value_corrected"] = corrected
    table["significant"] = rejected & testable
    table["testable"] = testable
    table["null_samples"] = null_samples
    table["p_value_exact"] = exact
    table.attrs["null_samples_drawn"] = int(sum(drawn.values()))
    return table
