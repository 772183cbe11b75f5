"""One answer whatever the seed: the audit on many random splits, its
evidence aggregated per pattern.

One random search/validation split makes the answer a lottery: another
``random_state``, another headline (the "p-value lottery" of Meinshausen,
Meier & Bühlmann). :func:`audit_many_splits` runs the single-split audit
(:func:`~subroc_ext.workflow.single_split.audit_one_split`: search, test,
the headline's rules) on B random splits of the same rows, each at the
level ``gamma * alpha``, and aggregates what each split rejects with
compound e-values and e-BH, which control the false discovery rate under
any dependence between the splits:

* the hypotheses are fixed before any split: every pattern of one search
  space, whose conditions come from all rows' attributes (never labels or
  scores); a pattern a split does not reject gets the e-value 0 there;
* split b's rejection set R_b (its significant rows, and separately its
  headline failures) gives each pattern ``e_b = m 1{j in R_b} / (gamma
  alpha |R_b|)``; their mean over the splits planned is an e-value, and e-BH at
  ``alpha`` rejects the k largest where k is the largest with ``e_(k) >= m /
  (alpha k)`` (m cancels: a pattern needs ``mean_b 1{j in R_b} / |R_b| >=
  gamma / k``, about a share ``gamma`` of the splits);
* each row reports in how many splits it was found, significant and named;
  its effect is the median over the splits that tested it and its interval
  the quantile aggregation of theirs (the ``1 - gamma`` quantile of the low
  ends, the ``gamma`` quantile of the high ends, a split that did not test
  it counting as unbounded), which excludes 0 exactly when a share
  ``gamma`` of the splits' intervals do;
* one idea, one line: the splits name one failure by different
  descriptions, so an aggregated failure sharing most of its rows with one
  named in more splits is its variant (:func:`one_line_per_idea`).

The table is that of the split whose failures agree best with the
aggregate (its measures, counts and notes), with the aggregate's verdicts;
a pattern the aggregate names that this split did not keep is added from
the first split that named it (``split`` says which split describes a row).

``splits='auto'`` runs :data:`FIRST_SPLITS` splits and more, up to
:data:`MAX_SPLITS`, until each decision is settled (:func:`_settled`).
Since how many run depends on what they found, a mean over those would not
be an e-value (nor would a share of their intervals keep its coverage): the
aggregate is over the :data:`MAX_SPLITS` planned, each split not run
rejecting nothing and its interval unbounded (:func:`aggregate`'s
``planned``), valid whatever the rule that stopped them. Ctrl-C (SIGTERM on
the command line) stops the splits still running and keeps those that
finished (:class:`~subroc_ext.exceptions.InterruptedSplits`): their
aggregate, over the B splits planned in the same way.

References
----------
Meinshausen, N., Meier, L. & Bühlmann, P. (2009). p-Values for
high-dimensional regression. *JASA* 104, 1671-1681.
Wang, R. & Ramdas, A. (2022). False discovery rate control with e-values.
*JRSS B* 84, 822-852.
Ren, Z. & Barber, R. F. (2024). Derandomised knockoffs: leveraging
e-values for false discovery rate control. *JRSS B* 86, 122-154.
Meinshausen, N. & Bühlmann, P. (2010). Stability selection. *JRSS B* 72,
417-473.
"""

import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from scipy import stats

from ..exceptions import InterruptedSplits
from ..inference.failures import renumbered
from ..inference.note_words import FINDING_NOUN
from ..utils.interrupts import StoppableCalls
from ..utils.progress import progress_bar
from .single_split import audit_one_split

__all__ = ["FIRST_SPLITS", "LEVEL_SHARE", "MAX_SPLITS", "aggregate", "audit_many_splits", "e_bh", "one_line_per_idea",
           "planned_text", "split_seeds"]  # fmt: skip

#: gamma: each split tests at ``gamma * alpha``; a pattern needs about this share of the splits.
LEVEL_SHARE = 0.3
#: ``splits='auto'``: the splits run first, and at most.
FIRST_SPLITS, MAX_SPLITS = 4, 16
#: ``splits='auto'``: a named pattern not yet a failure is settled once its share is this sure to lie below gamma.
SETTLED = 0.9


def planned_text(n, planned, interrupted=False):
    """How an aggregate of ``n`` splits was tested, in words: e-BH over the
    ``planned`` splits, those that did not run (``interrupted``: did not
    finish) counting as rejecting nothing (:func:`aggregate`'s ``planned``).

    Examples
    --------
    >>> planned_text(8, 8)
    'e-BH over 8 random splits'
    >>> planned_text(6, 16)
    'e-BH over the 16 random splits planned (settled after 6: the 10 not run count as rejecting nothing)'
    >>> planned_text(4, 8, interrupted=True)
    'e-BH over the 8 random splits planned (interrupted after 4: the 4 unfinished count as rejecting nothing)'
    """
    if n == planned and not interrupted:
        return f"e-BH over {n} random splits"
    why, rest = ("interrupted", "unfinished") if interrupted else ("settled", "not run")
    return f"e-BH over the {planned} random splits planned ({why} after {n}: the {planned - n} {rest} count as " \
           "rejecting nothing)"  # fmt: skip


def split_seeds(random_state, n):
    """``n`` independent integer seeds from ``random_state`` (an int, a
    Generator or None for fresh entropy), the same for the same int."""
    if isinstance(random_state, np.random.Generator):
        entropy = int(random_state.integers(2**63))
    else:
        entropy = random_state
    return [int(s.generate_state(1, np.uint64)[0] >> np.uint64(1)) for s in np.random.SeedSequence(entropy).spawn(n)]


def e_bh(rejected, alpha, level):
    """Which patterns e-BH at ``alpha`` rejects, from each split's rejections.

    Parameters
    ----------
    rejected : pandas.DataFrame of bool
        One row per pattern, one column per split: in that split's rejection set.
    alpha : float
        The aggregate's level.
    level : float
        The level each split rejected at (``gamma * alpha``).

    Returns
    -------
    (pandas.Series of bool, pandas.Series of float)
        Rejected, and the smallest ``alpha`` at which e-BH would reject the
        pattern with these e-values (1 at most; ``<= alpha`` exactly when rejected).

    Examples
    --------
    Two splits at the level 0.015; the first pattern is rejected by both, the
    second by the second split only (beside the first):

    >>> r = pd.DataFrame({0: [True, False], 1: [True, True]}, index=["a", "b"])
    >>> rejected, adjusted = e_bh(r, 0.05, 0.015)
    >>> rejected.tolist(), adjusted.round(4).tolist()
    ([True, True], [0.02, 0.03])
    """
    sizes = rejected.sum(axis=0).clip(lower=1)
    # the mean e-value over m: (1/B) sum_b 1{j in R_b} / (level |R_b|)
    e_over_m = (rejected / sizes).mean(axis=1) / level
    order = np.argsort(-e_over_m.to_numpy(), kind="stable")
    sorted_e = e_over_m.to_numpy()[order]
    k = np.arange(1, len(sorted_e) + 1)
    with np.errstate(divide="ignore"):
        needed = 1.0 / (k * sorted_e)  # e_(k) >= m / (alpha k)  <=>  alpha >= 1 / (k e_(k) / m)
    adjusted_sorted = np.minimum(1.0, np.minimum.accumulate(needed[::-1])[::-1])
    adjusted = pd.Series(np.empty(len(order)), index=rejected.index)
    adjusted.iloc[order] = adjusted_sorted
    return adjusted <= alpha, adjusted


def _interval(lows, highs, gamma):
    """The quantile aggregation of the splits' intervals (NaN: not tested there, unbounded)."""
    low = np.nanquantile(np.where(np.isnan(lows), -np.inf, lows), 1 - gamma, axis=1, method="lower")
    high = np.nanquantile(np.where(np.isnan(highs), np.inf, highs), gamma, axis=1, method="higher")
    return np.where(np.isfinite(low), low, np.nan), np.where(np.isfinite(high), high, np.nan)


def _per_split(tables, column, fill):
    """One column of every split's table, one row per pattern (by description), one column per split."""
    return pd.concat([t.set_index("description")[column].rename(b) for b, t in enumerate(tables)], axis=1).fillna(fill)


def _unfinished(frame, planned, fill):
    """``frame`` (one column per finished split) with a column ``fill`` for each of the ``planned`` that did not."""
    if planned == frame.shape[1]:
        return frame
    return pd.concat([frame, pd.DataFrame(fill, index=frame.index, columns=range(frame.shape[1], planned))], axis=1)


def aggregate(tables, alpha, gamma=LEVEL_SHARE, planned=None):
    """The aggregate of the splits' tables: per pattern (by description) its
    counts, e-BH verdicts, effect and interval.

    Parameters
    ----------
    tables : list of pandas.DataFrame
        :func:`~subroc_ext.find_subgroups`' table of each split (judged).
    alpha : float
    gamma : float, default=LEVEL_SHARE
    planned : int, optional
        The number of splits fixed before any ran (default ``len(tables)``),
        when fewer ran (``splits='auto'`` stopped early, or a run was
        interrupted): each split that did not run rejects nothing (its
        e-values 0) and its interval is unbounded. An average over the splits
        that ran would not be an e-value when their number depends on their
        results ('auto' stops on them; when a run is cut can depend on them
        too: a split's running time does, and the progress line shows them
        finishing), and a mean of e-values stopped at a time chosen so is not
        one (stopped after a first e-value of 2 whose chance is 1/2, else
        after a second, the mean's expectation is 5/4). The sum over those
        that ran divided by ``planned`` is at most the mean of all
        ``planned`` splits' e-values (they are nonnegative), whichever ran:
        its expectation is at most 1, and e-BH stays valid. So do the
        intervals: each aggregated interval misses the effect only where a
        share ``gamma`` of the ``planned`` splits' intervals miss it (on one
        side), whose chance is at most ``(gamma alpha) / gamma = alpha`` by
        Markov's inequality over the ``planned``, whichever ran; a share of
        the splits that ran, their number chosen by what they found, has no
        such bound.

    Returns
    -------
    pandas.DataFrame
        Indexed by description: ``splits_found``, ``splits_significant``,
        ``splits_named``, ``significant``, ``p_value_corrected`` (e-BH's
        adjusted level), ``failure``, ``delta``, ``delta_ci_low``, ``delta_ci_high``.

    Examples
    --------
    A pattern that each of 2 splits rejects alone, when 4 were planned: e-BH
    needs a share 0.3 of the 4, which 2 of 4 are; when 8 were, 2 of 8 are not:

    >>> tables = [pd.DataFrame({"description": ["a"], "quality": [1.0], "significant": [True],
    ...                         "failure": [True], "delta": [0.2], "delta_ci_low": [0.1],
    ...                         "delta_ci_high": [0.3]})] * 2
    >>> [bool(aggregate(tables, 0.05, planned=planned).loc["a", "significant"]) for planned in (4, 8)]
    [True, False]
    """
    planned = len(tables) if planned is None else planned
    if planned < len(tables):
        raise ValueError(f"planned must be at least the {len(tables)} splits given, got {planned}")
    found = pd.concat([t.set_index("description")["quality"].notna().rename(b) for b, t in enumerate(tables)],
                      axis=1).fillna(False).astype(bool)  # fmt: skip
    significant = _per_split(tables, "significant", False).astype(bool)
    named = _per_split(tables, "failure", False).astype(bool)
    level = gamma * alpha
    is_significant, adjusted = e_bh(_unfinished(significant, planned, False), alpha, level)
    is_failure, _ = e_bh(_unfinished(named, planned, False), alpha, level)
    deltas = _per_split(tables, "delta", np.nan).to_numpy(dtype=float)
    low, high = _interval(_unfinished(_per_split(tables, "delta_ci_low", np.nan), planned, np.nan).to_numpy(float),
                          _unfinished(_per_split(tables, "delta_ci_high", np.nan), planned, np.nan).to_numpy(float),
                          gamma)  # fmt: skip
    tested = ~np.isnan(deltas).all(axis=1)
    delta = np.full(len(deltas), np.nan)
    delta[tested] = np.nanmedian(deltas[tested], axis=1)
    return pd.DataFrame({
        "splits_found": found.sum(axis=1), "splits_significant": significant.sum(axis=1),
        "splits_named": named.sum(axis=1), "significant": is_significant, "p_value_corrected": adjusted,
        "failure": is_failure & is_significant, "delta": delta, "delta_ci_low": low, "delta_ci_high": high,
    }, index=found.index)  # fmt: skip


def _representative(tables, verdicts):
    """The split whose headline failures agree best with the aggregate's (Jaccard; the first on ties)."""
    named = set(verdicts.index[verdicts["failure"]])

    def agreement(table):
        own = set(table.loc[table["failure"].fillna(False).astype(bool), "description"])
        return len(own & named) / max(1, len(own | named))

    return int(np.argmax([agreement(t) for t in tables]))


def _with_verdicts(table, verdicts, n_splits, planned, noun):
    """``table`` (one split's) with the aggregate's verdicts, counts, effects and notes."""
    v = verdicts.reindex(table["description"]).set_index(table.index)
    table = table.assign(**{c: v[c] for c in ("splits_found", "splits_significant", "splits_named")})
    was_failure = table["failure"].fillna(False).astype(bool)
    for column in ("significant", "p_value_corrected", "failure", "delta", "delta_ci_low", "delta_ci_high"):
        table[column] = v[column].to_numpy()
    table["verdict"] = np.where(table["significant"], "significant", "not significant")
    table["p_value_exact"] = True  # e-BH's level of these e-values, not a stopped test's bound
    dropped = was_failure & ~table["failure"] & table["significant"]
    of = f"{n_splits}" if planned == n_splits else f"the {planned} planned ({n_splits} ran)"
    table.loc[dropped, "failure_note"] = [
        f"{noun} in too few splits: named in {k} of {of}" for k in table.loc[dropped, "splits_named"]]
    table.loc[~table["significant"], ["failure_note", "failure_of"]] = ["", np.nan]
    return table


def one_line_per_idea(table, masks, n_splits, noun):
    """``table`` with each aggregated failure that shares its rows with a
    failure named in more splits made that failure's variant: one idea, one
    line, as the single split's walk names it
    (:func:`~subroc_ext.inference.failures.judge_failures`, rule 4).

    The splits name the same failure by different descriptions (a narrower
    cut here, the broader one there), and e-BH may reject several of them.
    Walking the aggregated failures by the splits that named them (most
    first, then the larger effect), a failure sharing at least half of the
    rows of the smaller of the two with a failure kept before it (every
    row, where one holds the other) becomes a variant of the one it shares
    most with, and the rows that belonged to it (its variants, the rows it
    explained) belong to that failure. Its verdict stays significant; only
    the headline's line goes.

    Parameters
    ----------
    table : pandas.DataFrame
        With the aggregate's ``failure``, ``splits_named``, ``delta``,
        ``failure_of`` and ``failure_note``.
    masks : numpy.ndarray of bool, shape (len(table), n_rows)
        Each row's rows among all rows.
    n_splits : int
    noun : str
        What a failure is called in the mode ("failure", "finding").

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    The first row, named in 3 of 6 splits, holds two of the second's three
    rows (named in 5): its variant; the fourth row, explained by the first,
    now belongs to the second:

    >>> table = pd.DataFrame({"failure": [True, True, True, False], "splits_named": [3, 5, 2, 0],
    ...                       "delta": [0.1, 0.2, 0.3, 0.1], "failure_of": pd.array([None, None, None, 1]),
    ...                       "failure_note": ["", "", "", "explained by #1: its rows outside it ..."]})
    >>> masks = np.array([[1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1], [1, 1, 0, 1, 0, 0]],
    ...                  dtype=bool)
    >>> merged = one_line_per_idea(table, masks, 6, "failure")
    >>> merged["failure"].tolist(), merged["failure_of"].tolist()
    ([False, True, True, False], [2, <NA>, <NA>, 2])
    >>> merged.loc[0, "failure_note"]
    'variant of #2: the same failure named by other splits (in 3 of 6, #2 in 5)'
    >>> merged.loc[3, "failure_note"]
    'explained by #2: its rows outside it ...'
    """
    failing = np.flatnonzero(table["failure"].to_numpy(dtype=bool))
    belongs = table["failure_of"].to_numpy(dtype=float, na_value=np.nan) - 1
    named, delta = table["splits_named"].to_numpy(), np.abs(table["delta"].to_numpy(dtype=float))
    sizes = masks.sum(axis=1)
    table = table.copy()
    kept = []
    for i in sorted(failing, key=lambda i: (-named[i], -np.nan_to_num(delta[i], nan=-1.0), i)):
        shared = [(masks[i] & masks[k]).sum() / max(1, min(sizes[i], sizes[k])) for k in kept]
        if shared and max(shared) >= 0.5:
            parent = kept[int(np.argmax(shared))]
            for j in np.flatnonzero(belongs == i):  # its rows are the parent's (its variants were tested against it)
                note = str(table["failure_note"].iloc[j])
                note = f"variant of #{parent + 1}: a variant of #{i + 1}, the same {noun}" \
                    if note.startswith("variant") else renumbered(note, i, parent)  # fmt: skip
                table.loc[table.index[j], ["failure_of", "failure_note"]] = [parent + 1, note]
            table.loc[table.index[i], ["failure", "failure_of", "failure_note"]] = [
                False, parent + 1, f"variant of #{parent + 1}: the same {noun} named by other splits "
                                   f"(in {named[i]} of {n_splits}, #{parent + 1} in {named[parent]})"]
        else:
            kept.append(i)
    return table


def _settled(tables, alpha, gamma=LEVEL_SHARE, planned=MAX_SPLITS, confidence=SETTLED):
    """Whether every pattern some split named is settled: already a failure
    of the aggregate over the ``planned`` splits with an interval beyond 0
    (more splits only add to its e-values, and e-BH never takes a rejection
    back when e-values grow; they only bound more of its intervals, which
    narrows the aggregated one), or named in a share of the splits clearly
    below ``gamma`` (its Clopper-Pearson interval at ``confidence``). Which
    rule stops the splits does not matter for the aggregate's guarantee
    (:func:`aggregate`'s ``planned``), only for its power and its cost."""
    verdicts = aggregate(tables, alpha, gamma, planned)
    named = verdicts["splits_named"].to_numpy()
    n, tail = len(tables), (1 - confidence) / 2
    high = np.where(named < n, stats.beta.ppf(1 - tail, named + 1, n - named), 1.0)
    lows, highs = verdicts["delta_ci_low"].to_numpy(float), verdicts["delta_ci_high"].to_numpy(float)
    no_interval = np.isnan([_per_split(tables, end, np.nan).reindex(verdicts.index).to_numpy(float)
                            for end in ("delta_ci_low", "delta_ci_high")]).all(axis=(0, 2))  # fmt: skip
    failure = verdicts["failure"].to_numpy(bool) & ((lows > 0) | (highs < 0) | no_interval)  # none to wait for
    return bool(np.all((named == 0) | failure | (high < gamma)))


def _split_tables(whole, settings, seeds, *, validation, min_support, thresholds, nbins, first, workers):
    """Each split's table, in the order of ``seeds``, until every decision
    is settled (:func:`_settled`, the aggregate over all ``seeds``; at least
    ``first`` splits): ``workers`` splits at a time, in threads (the kernels release
    the GIL); the splits run beyond the stop are not used, so the answer does
    not depend on ``workers``.

    Returns
    -------
    (dict of int to pandas.DataFrame, KeyboardInterrupt or None)
        The tables of the splits that finished, by their position in
        ``seeds``, and the interrupt that ended the splits early (Ctrl-C, or a
        split's own ``KeyboardInterrupt``): then the splits still running
        were stopped (:class:`~subroc_ext.utils.interrupts.StoppableCalls`)
        and those not started never start; every finished one is kept.
    """
    one = dataclasses.replace(settings, alpha=LEVEL_SHARE * settings.alpha, progress=False, n_jobs=1)

    def audit(seed):
        return audit_one_split(whole.split(validation, seed), dataclasses.replace(one, random_state=seed),
                               min_support=min_support, thresholds=thresholds, nbins=nbins)  # fmt: skip

    calls, tables, batch = StoppableCalls(), {}, []
    with ThreadPoolExecutor(workers) as pool:
        def in_batches():
            for start in range(0, len(seeds), workers):
                batch[:] = [(b, pool.submit(calls.call, audit, seeds[b]))
                            for b in range(start, min(start + workers, len(seeds)))]  # fmt: skip
                for b, future in batch:
                    tables[b] = future.result()
                    yield tables[b]

        try:
            for _ in progress_bar(in_batches(), enabled=settings.progress, desc="splits", total=len(seeds)):
                if len(tables) >= first and _settled(list(tables.values()), settings.alpha, LEVEL_SHARE, len(seeds)):
                    break
        except KeyboardInterrupt as interrupt:  # Ctrl-C (in this thread) or a split's own
            calls.stop([future for _, future in batch])
            tables.update((b, future.result()) for b, future in batch
                          if b not in tables and not future.cancelled() and future.exception() is None)  # fmt: skip
            return dict(sorted(tables.items())), interrupt
        except BaseException:  # an error in a split: the others stop too
            calls.stop([future for _, future in batch])
            raise
    return tables, None


def audit_many_splits(whole, settings, *, validation, min_support, thresholds=True, nbins=5):
    """:func:`~subroc_ext.find_subgroups` on many random splits, aggregated.

    Parameters
    ----------
    whole : ValidatedData
        All rows, checked once, without a holdout, with the search space of all rows.
    settings : AuditSettings
        ``settings.splits``: B, the number of splits (at least 2), or 'auto':
        :data:`FIRST_SPLITS` and more, up to :data:`MAX_SPLITS`, until
        every pattern a split named is a failure of the aggregate (with
        its interval beyond 0) or named in a share of the splits clearly
        below ``gamma`` (:func:`_settled`); aggregated over the
        :data:`MAX_SPLITS` planned, each not run rejecting nothing.
    validation : float
        The fraction held out in each split.
    min_support, thresholds, nbins
        As :func:`~subroc_ext.workflow.single_split.audit_one_split`'s.

    Returns
    -------
    pandas.DataFrame
        The representative split's table with the aggregate's verdicts
        (``significant``, ``p_value_corrected``, ``failure``, ``delta`` and
        its interval), ``splits_found``, ``splits_significant``,
        ``splits_named`` and ``split``; ``attrs['splits']`` says how (``n``
        the splits that ran, ``planned`` those the aggregate is over).

    Raises
    ------
    InterruptedSplits
        Ctrl-C after a split finished: the splits still running are stopped,
        and its ``table`` is the aggregate of the finished ones, with e-BH
        over the B planned (:data:`MAX_SPLITS` for 'auto'), each unfinished
        split counted as rejecting nothing (:func:`aggregate`'s
        ``planned``; its ``how`` says so, :func:`planned_text`); when only
        one finished, that split's own table.
    KeyboardInterrupt
        Ctrl-C before any split finished.
    """
    auto = settings.splits == "auto"
    seeds = split_seeds(settings.random_state, MAX_SPLITS if auto else settings.splits)
    workers = settings.n_jobs if settings.n_jobs > 1 else min(os.cpu_count() or 1, FIRST_SPLITS)
    tables, interrupt = _split_tables(whole, settings, seeds, validation=validation, min_support=min_support,
                                      thresholds=thresholds, nbins=nbins, first=FIRST_SPLITS if auto else len(seeds),
                                      workers=workers)  # fmt: skip
    if interrupt is None:
        return _aggregated(whole, settings, list(tables.values()), seeds[:len(tables)], validation=validation,
                           planned=len(seeds))  # fmt: skip
    if not tables:
        raise KeyboardInterrupt from interrupt  # nothing finished: nothing to keep
    if len(tables) == 1:
        raise InterruptedSplits(next(iter(tables.values())), 1, len(seeds), at_most=auto) from interrupt
    table = _aggregated(whole, settings, list(tables.values()), [seeds[b] for b in tables], validation=validation,
                        planned=len(seeds), interrupted=True)  # fmt: skip
    raise InterruptedSplits(table, len(tables), len(seeds), at_most=auto,
                            how=planned_text(len(tables), len(seeds), interrupted=True)) from interrupt


def _aggregated(whole, settings, tables, seeds, *, validation, planned, interrupted=False):
    """The table of :func:`audit_many_splits` from the splits' ``tables`` (run
    with ``seeds``), aggregated over the ``planned`` splits fixed in advance
    (:func:`aggregate`); ``interrupted``: fewer ran because a run was cut."""
    gamma = LEVEL_SHARE
    n_splits = len(tables)
    verdicts = aggregate(tables, settings.alpha, gamma, planned)
    chosen = _representative(tables, verdicts)
    table = tables[chosen].assign(split=chosen)
    missing = [d for d in verdicts.index[verdicts["failure"]] if d not in set(table["description"])]
    for description in missing:
        b = next(b for b, t in enumerate(tables) if description in set(t.loc[t["failure"].astype(bool), "description"]))
        row = tables[b].loc[tables[b]["description"] == description].assign(split=b, failure_of=np.nan)
        table = pd.concat([table, row], ignore_index=True)
    noun = FINDING_NOUN[settings.mode if settings.mode in FINDING_NOUN else "worse"]
    table = _with_verdicts(table, verdicts, n_splits, planned, noun)
    table = one_line_per_idea(table, whole.search.masks_of(list(table["subgroup"])), n_splits, noun)
    table.attrs = dict(tables[chosen].attrs)
    table.attrs.update(
        alpha=settings.alpha,
        splits={"n": n_splits, "planned": planned, "asked": settings.splits, "level_share": gamma,
                "split_alpha": gamma * settings.alpha, "validation": validation, "seeds": list(seeds), "shown": chosen,
                "aggregation": "e-BH", **({"interrupted": True} if interrupted else {})},
        counts={**table.attrs["counts"], "rows": len(table), "significant": int(table["significant"].sum())},
    )  # fmt: skip
    return table
