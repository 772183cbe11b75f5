"""The audit on many splits: e-BH on the splits' compound e-values, the
aggregated intervals, the seeds, and ``find_subgroups(splits=B)``."""

import numpy as np
import pandas as pd
import pytest

from subroc_ext import find_subgroups
from subroc_ext.reporting.findings import headline
from subroc_ext.workflow.many_splits import LEVEL_SHARE, _interval, aggregate, e_bh, one_line_per_idea, split_seeds


def _e_bh_by_definition(rejected, alpha, level):
    """e-BH from its definition (Wang & Ramdas 2022): with m hypotheses and
    e-values e_j, reject the k largest for the largest k with e_(k) >= m / (alpha k)."""
    m = len(rejected)
    sizes = np.maximum(rejected.sum(axis=0), 1)
    e = m * (rejected / sizes).mean(axis=1) / level
    order = np.argsort(-e, kind="stable")
    k_star = max([k for k in range(1, m + 1) if e[order[k - 1]] >= m / (alpha * k)], default=0)
    chosen = np.zeros(m, bool)
    chosen[order[:k_star]] = True
    return chosen


@pytest.mark.parametrize("seed", range(40))
def test_e_bh_agrees_with_its_definition(seed):
    rng = np.random.default_rng(seed)
    m, b = rng.integers(1, 12), rng.integers(1, 9)
    rejected = rng.random((m, b)) < rng.uniform(0.05, 0.8)
    frame = pd.DataFrame(rejected)
    chosen, adjusted = e_bh(frame, 0.05, 0.015)
    np.testing.assert_array_equal(chosen.to_numpy(), _e_bh_by_definition(rejected, 0.05, 0.015))
    # the adjusted level is the smallest alpha rejecting: rejected at it, not just below it
    for j in range(m):
        level = adjusted.iloc[j]
        if level < 1:
            assert _e_bh_by_definition(rejected, level * (1 + 1e-9), 0.015)[j]
            assert not _e_bh_by_definition(rejected, level * (1 - 1e-6), 0.015)[j]


def test_e_bh_needs_about_a_share_gamma_of_the_splits():
    # one pattern, each split rejecting it alone: rejected once named in a share 0.3 of 10 splits
    for named, expected in ((3, True), (2, False)):
        rejected = pd.DataFrame([[k < named for k in range(10)]])
        assert e_bh(rejected, 0.05, LEVEL_SHARE * 0.05)[0].iloc[0] == expected


def test_the_aggregated_interval_excludes_zero_as_a_share_gamma_of_the_splits_do():
    rng = np.random.default_rng(3)
    for _ in range(200):
        b = rng.integers(2, 12)
        lows = rng.normal(0, 1, (1, b))
        lows[rng.random((1, b)) < 0.2] = np.nan  # not tested in that split
        highs = lows + rng.uniform(0.1, 2, (1, b))
        low, _ = _interval(lows, highs, LEVEL_SHARE)
        share = np.sum(np.nan_to_num(lows, nan=-1) > 0) / b
        # the 1 - gamma quantile ("lower") of the lows is above 0 exactly when more than a share gamma are
        k = int(np.floor((1 - LEVEL_SHARE) * (b - 1)))  # numpy's 'lower' position
        assert (np.nan_to_num(low, nan=-np.inf)[0] > 0) == (share * b >= b - k)


def test_split_seeds_are_reproducible_and_distinct():
    assert split_seeds(0, 5) == split_seeds(0, 5)
    assert split_seeds(0, 5) != split_seeds(1, 5)
    assert len(set(split_seeds(7, 20))) == 20
    assert split_seeds(0, 3)[:2] == split_seeds(0, 2)


def _planted(n=1600, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"region": rng.choice(["east", "west", "north", "south"], n, p=[0.15, 0.35, 0.25, 0.25]),
                          "age": rng.integers(18, 80, n)})
    risk = 1 / (1 + np.exp(-(frame["age"] - 50) / 8))
    frame["label"] = (rng.random(n) < risk).astype(int)
    frame["score"] = np.where(frame["region"] == "east", rng.random(n), risk)
    return frame


def test_many_splits_name_the_plant_and_carry_the_aggregate():
    frame = _planted()
    table = find_subgroups(frame, label="label", score="score", splits=3, depth=1, progress=False, random_state=0)
    splits = table.attrs["splits"]
    assert splits["n"] == 3 and splits["split_alpha"] == pytest.approx(LEVEL_SHARE * 0.05)
    assert table.attrs["n_rows"] == {"search": 800, "validation": 800}
    failures = table.loc[table["failure"], "description"].tolist()
    assert failures == ["region=='east'"]
    east = table.set_index("description").loc["region=='east'"]
    assert east["splits_named"] == 3 and east["splits_found"] == 3 and east["delta_ci_low"] > 0
    # one verdict per row: significant exactly where e-BH's adjusted level is at most alpha
    np.testing.assert_array_equal(table["significant"], table["p_value_corrected"] <= 0.05)
    assert set(table["verdict"]) <= {"significant", "not significant"}
    # the aggregate of the splits' own tables
    assert (table["splits_significant"] <= table["splits_found"]).all()


@pytest.mark.parametrize("seed", range(30))
def test_one_line_per_idea(seed):
    """Random aggregated failures over random covers: afterwards no two failures
    share half of the smaller's rows; each variant points to a failure named in
    at least as many splits that shares half of the variant's or its own rows;
    a failure apart from every other stays one."""
    rng = np.random.default_rng(seed)
    n, rows = 8, 40
    masks = rng.random((n, 1)) > rng.random((n, rows))  # covers of different sizes
    masks[rng.integers(n)] = False
    masks[rng.integers(n), :5] = True
    table = pd.DataFrame({"failure": rng.random(n) < 0.8, "splits_named": rng.integers(1, 9, n),
                          "delta": rng.random(n), "failure_of": pd.array([None] * n, dtype="Int64"),
                          "failure_note": ""})
    merged = one_line_per_idea(table, masks, 8, "failure")
    sizes = masks.sum(axis=1)

    def shared(i, k):
        return (masks[i] & masks[k]).sum() / max(1, min(sizes[i], sizes[k]))

    failing = np.flatnonzero(merged["failure"])
    assert all(shared(i, k) < 0.5 for i in failing for k in failing if i < k)
    for i in np.flatnonzero(table["failure"] & ~merged["failure"]):
        parent = merged.loc[i, "failure_of"] - 1
        assert merged.loc[parent, "failure"] and shared(i, parent) >= 0.5
        assert table.loc[parent, "splits_named"] >= table.loc[i, "splits_named"]
        assert merged.loc[i, "failure_note"].startswith(f"variant of #{parent + 1}: ")
    for i in np.flatnonzero(table["failure"]):
        if all(shared(i, k) < 0.5 for k in np.flatnonzero(table["failure"]) if k != i):
            assert merged.loc[i, "failure"]
    assert (merged["failure"] <= table["failure"]).all()  # never a new failure


def test_many_splits_name_one_idea_once():
    """Depth 2 over the planted data: the refinements of the plant named by
    some splits are its variants, not more failures."""
    frame = _planted(seed=1)
    table = find_subgroups(frame, label="label", score="score", splits=4, depth=2, progress=False, random_state=0)
    failing = table.loc[table["failure"]]
    assert failing["description"].str.contains("region=='east'").all() and len(failing) == 1
    variants = table["failure_note"].str.startswith("variant of")
    assert (table.loc[variants, "failure_of"] == failing.index[0] + 1).all()
    # no note names a row that is no longer a failure
    assert set(table["failure_of"].dropna()) <= set(failing.index + 1)
    intro = headline(table).findings[0].variants_intro()
    assert intro == "variants (named by other splits, or not significantly worse than it): "


def test_aggregate_counts_each_split():
    def split_table(failing, delta_low):
        return pd.DataFrame({"description": ["a", "b"], "quality": [1.0, 0.5], "significant": [True, failing],
                             "failure": [True, failing], "delta": [0.2, 0.1], "delta_ci_low": [0.1, delta_low],
                             "delta_ci_high": [0.3, 0.2]})
    tables = [split_table(True, 0.05), split_table(False, -0.05), split_table(False, -0.02)]
    verdicts = aggregate(tables, alpha=0.05)
    assert verdicts.loc["a", "splits_named"] == 3 and verdicts.loc["b", "splits_named"] == 1
    assert verdicts.loc["a", "failure"] and verdicts.loc["b", "failure"]  # b: 1 of 3 >= 0.3, beside a
    assert verdicts.loc["b", "delta"] == pytest.approx(0.1)


@pytest.mark.parametrize("validation", [None, "table"])
def test_many_splits_need_a_fraction_held_out(validation):
    frame = _planted(400)
    held_out = frame if validation == "table" else None
    with pytest.raises(ValueError, match="validation must be the fraction"):
        find_subgroups(frame, label="label", score="score", splits=3, validation=held_out, progress=False)


@pytest.mark.parametrize("splits", [0, 2.5, True])
def test_splits_must_be_a_positive_integer(splits):
    with pytest.raises(ValueError, match="splits must be a positive integer or .auto."):
        find_subgroups(_planted(400), label="label", score="score", splits=splits, progress=False)


def _named_tables(counts, n, interval=(0.1, 0.3)):
    """``n`` split tables in which pattern i is named (alone or beside the
    others named there), with ``interval``, in the first ``counts[i]``."""
    return [pd.DataFrame({"description": [f"p{i}" for i in range(len(counts))], "quality": 1.0,
                          "significant": [b < c for c in counts], "failure": [b < c for c in counts],
                          "delta": 0.2, "delta_ci_low": [interval[0] if b < c else -0.1 for c in counts],
                          "delta_ci_high": [interval[1] if b < c else 0.3 for c in counts]}) for b in range(n)]


def test_settled_when_every_named_pattern_is_a_failure_or_clearly_below():
    from subroc_ext.workflow.many_splits import _settled

    assert _settled(_named_tables([0, 0], 4), 0.05)  # nothing named: nothing to settle
    # named by all: a failure only once 5 of the 16 planned name it, its interval beyond 0 once 6 of 16 do
    assert not _settled(_named_tables([4], 4), 0.05)
    assert not _settled(_named_tables([5], 5), 0.05)
    assert _settled(_named_tables([6], 6), 0.05)
    assert _settled(_named_tables([5], 5, interval=(np.nan, np.nan)), 0.05)  # no interval to wait for
    assert _settled(_named_tables([4], 4), 0.05, planned=4)  # B = 4: 4 of 4
    assert not _settled(_named_tables([6, 1], 6), 0.05)  # once in six: could be either side
    assert not _settled(_named_tables([2], 6), 0.05)
    assert _settled(_named_tables([16, 1], 16), 0.05)  # once in 16: below


def test_auto_splits_do_not_depend_on_the_threads():
    frame = _planted(800)
    tables = [find_subgroups(frame, label="label", score="score", splits="auto", depth=1, progress=False,
                             random_state=0, n_jobs=jobs) for jobs in (1, 2)]
    assert 4 <= tables[0].attrs["splits"]["n"] <= 16
    assert tables[0].attrs["splits"]["n"] == tables[1].attrs["splits"]["n"]
    pd.testing.assert_frame_equal(tables[0], tables[1])


def _cut_at(monkeypatch, seeds, k, signal_name=None):
    """``audit_one_split`` of the many splits, whose split ``k`` (its position in
    ``seeds``) raises a ``KeyboardInterrupt`` at once (or, given ``signal_name``,
    sends this process that signal, as Ctrl-C or ``kill`` would, and runs on),
    and whose splits after it run until interrupted (at most 60 s); the
    finished splits' tables by position, and the positions interrupted while
    running."""
    import os
    import signal
    import threading
    import time

    from subroc_ext.workflow import many_splits

    real, tables, stopped, beside = many_splits.audit_one_split, {}, [], threading.Event()

    def audit(checked, settings, **kwargs):
        b = seeds.index(settings.random_state)
        if b == k:
            beside.wait(10)  # the split after it (the same batch of 2 threads) is running
            if signal_name is None:
                raise KeyboardInterrupt
            os.kill(os.getpid(), getattr(signal, signal_name))
        if b < k:
            tables[b] = real(checked, settings, **kwargs)
            return tables[b]
        try:
            if b > k:
                beside.set()
            for _ in range(6000):  # a long split
                time.sleep(0.01)
        except KeyboardInterrupt:
            stopped.append(b)
            raise
        return real(checked, settings, **kwargs)

    monkeypatch.setattr(many_splits, "audit_one_split", audit)
    return tables, stopped


def _interrupted(call):
    """What ``call()`` raised (a ``KeyboardInterrupt`` is caught here, not by pytest), and the seconds it took."""
    import time

    start = time.perf_counter()
    try:
        call()
    except KeyboardInterrupt as raised:
        return raised, time.perf_counter() - start
    raise AssertionError("not interrupted")


@pytest.mark.parametrize("splits, k", [(8, 4), ("auto", 2)])
def test_ctrl_c_keeps_the_aggregate_of_the_finished_splits(monkeypatch, splits, k):
    """Ctrl-C during split 5 of 8 (3 of at most 16): the 4 (2) finished are aggregated
    with e-BH over the 8 (16) planned, the unfinished rejecting nothing; the split
    running beside it is stopped at once, no thread is left running."""
    import threading

    from subroc_ext import InterruptedSplits
    from subroc_ext.workflow.many_splits import MAX_SPLITS

    planned = 8 if splits == 8 else MAX_SPLITS
    seeds = split_seeds(0, planned)
    tables, stopped = _cut_at(monkeypatch, seeds, k)
    threads = threading.active_count()
    frame = _planted(800)
    raised, seconds = _interrupted(lambda: find_subgroups(
        frame, label="label", score="score", splits=splits, depth=1, progress=False, random_state=0, n_jobs=2))
    assert isinstance(raised, InterruptedSplits) and raised.aggregated
    assert (raised.finished, raised.planned) == (k, planned) and stopped == [k + 1]
    assert threading.active_count() == threads and seconds < 60
    table = raised.table
    assert table.attrs["splits"] | {"shown": 0} == table.attrs["splits"] | {
        "n": k, "planned": planned, "interrupted": True, "seeds": seeds[:k], "shown": 0}
    # e-BH over the planned splits, the unfinished ones' e-values 0
    finished = [tables[b] for b in range(k)]
    verdicts = aggregate(finished, 0.05, planned=planned).reindex(table["description"])
    for column in ("significant", "p_value_corrected", "failure", "delta", "delta_ci_low", "delta_ci_high"):
        np.testing.assert_array_equal(table[column].to_numpy(float), verdicts[column].to_numpy(float))
    as_if_b_were_k = aggregate(finished, 0.05).reindex(table["description"])["p_value_corrected"]
    assert (verdicts["p_value_corrected"] >= as_if_b_were_k).all()
    assert (verdicts["p_value_corrected"] > as_if_b_were_k).any()
    text = headline(table).text()
    assert f"e-BH over the {planned} random splits planned (interrupted after {k}: the {planned - k} unfinished " \
           "count as rejecting nothing)" in text  # fmt: skip


def test_ctrl_c_after_one_split_keeps_it_before_any_keeps_nothing(monkeypatch):
    from subroc_ext import InterruptedSplits

    frame = _planted(800)
    seeds = split_seeds(0, 4)
    run = dict(label="label", score="score", splits=4, depth=1, progress=False, random_state=0, n_jobs=2)
    tables, _ = _cut_at(monkeypatch, seeds, 1)
    raised, _ = _interrupted(lambda: find_subgroups(frame, **run))
    assert isinstance(raised, InterruptedSplits) and not raised.aggregated and raised.finished == 1
    pd.testing.assert_frame_equal(raised.table, tables[0])  # that split's own table, at its own level
    assert raised.table.attrs["alpha"] == pytest.approx(LEVEL_SHARE * 0.05) and "splits" not in raised.table.attrs
    _, stopped = _cut_at(monkeypatch, seeds, 0)
    raised, _ = _interrupted(lambda: find_subgroups(frame, **run))
    assert type(raised) is KeyboardInterrupt and stopped == [1]  # nothing finished: nothing kept


def test_aggregate_over_the_planned_splits_counts_the_unfinished_as_rejecting_nothing():
    def split_table(significant):
        return pd.DataFrame({"description": ["a", "b"], "quality": [1.0, 0.5], "significant": [True, significant],
                             "failure": [True, False], "delta": [0.2, 0.1], "delta_ci_low": [0.1, -0.1],
                             "delta_ci_high": [0.3, 0.2]})
    tables = [split_table(True), split_table(False)]
    finished = aggregate(tables, 0.05)
    planned = aggregate(tables, 0.05, planned=5)
    # the same as 5 splits of which the last 3 reject nothing and test nothing
    empty = pd.DataFrame({"description": ["a", "b"], "quality": [1.0, 0.5], "significant": False, "failure": False,
                          "delta": np.nan, "delta_ci_low": np.nan, "delta_ci_high": np.nan})
    padded = aggregate([*tables, empty, empty, empty], 0.05)
    pd.testing.assert_frame_equal(planned.drop(columns=["splits_found", "delta"]),
                                  padded.drop(columns=["splits_found", "delta"]))
    assert (planned["splits_found"] == 2).all() and planned["delta"].tolist() == finished["delta"].tolist()
    assert (planned["p_value_corrected"] >= finished["p_value_corrected"]).all()
    with pytest.raises(ValueError, match="planned must be at least the 2 splits"):
        aggregate(tables, 0.05, planned=1)


def _scripted(monkeypatch, named_in, stop=None):
    """``audit_one_split`` of the many splits (``random_state=0``) replaced by a
    script: each split's table is the first split's real one with nothing
    significant but its first row, ``'a'``, which split b (by its position
    among the seeds) names alone, with an interval above 0, exactly when
    ``named_in(b)``; given ``stop`` (a function of the tables that ran), it
    decides when 'auto' stops instead of its own rule. Returns the
    description of ``'a'`` (filled in at the first split)."""
    import threading

    from subroc_ext.workflow import many_splits

    real, seeds, lock, template = many_splits.audit_one_split, split_seeds(0, 16), threading.Lock(), {}

    def audit(checked, settings, **kwargs):
        with lock:
            if "table" not in template:
                template["table"] = real(checked, settings, **kwargs)
        table = template["table"].copy()
        table.attrs = template["table"].attrs
        named = named_in(seeds.index(settings.random_state))
        a = np.arange(len(table)) == 0
        table["significant"], table["failure"] = a & named, a & named
        table["failure_of"], table["failure_note"] = np.nan, ""
        table.loc[a, ["delta", "delta_ci_low", "delta_ci_high"]] = [0.2, 0.1, 0.3] if named else [0.05, -0.1, 0.2]
        template["a"] = table["description"].iloc[0]
        return table

    monkeypatch.setattr(many_splits, "audit_one_split", audit)
    if stop is not None:
        monkeypatch.setattr(many_splits, "_settled", lambda tables, *args, **kwargs: stop(tables))
    return template


def _auto(monkeypatch, named_in, stop=None):
    """The 'auto' table of :func:`_scripted`'s splits, and the row of ``'a'``."""
    template = _scripted(monkeypatch, named_in, stop)
    table = find_subgroups(_planted(800), label="label", score="score", splits="auto", depth=1, progress=False,
                           random_state=0)  # fmt: skip
    return table, table.set_index("description").loc[template["a"]]


def test_auto_aggregates_over_the_sixteen_planned_whenever_it_stops(monkeypatch):
    """A pattern named in the first 4 splits and never again: its share of the
    4 that ran is 1, of the 16 planned 0.25, under e-BH's 0.3: 'auto' (whose
    number of splits depends on what they found) must not name it. Named in
    every split, it is named once its e-values summed over those that ran
    reach e-BH's bar as a share of 16 (5 splits alone) and its interval
    excludes 0 (6 of 16 intervals): then more splits cannot change either,
    and 'auto' stops there, the 10 not run counting as rejecting nothing."""
    from subroc_ext.workflow.many_splits import MAX_SPLITS

    table, a = _auto(monkeypatch, lambda b: b < 4)
    assert not a["failure"] and not a["significant"] and a["splits_named"] == 4
    assert table.attrs["splits"]["planned"] == MAX_SPLITS
    assert a["p_value_corrected"] == pytest.approx(LEVEL_SHARE * 0.05 * MAX_SPLITS / 4)  # 1 / (e / m), e summed / 16
    table, a = _auto(monkeypatch, lambda b: True)
    assert a["failure"] and a["splits_named"] == 6 and a["delta_ci_low"] == pytest.approx(0.1)
    splits = table.attrs["splits"]
    assert (splits["n"], splits["planned"]) == (6, MAX_SPLITS) and "interrupted" not in splits
    assert a["p_value_corrected"] == pytest.approx(LEVEL_SHARE * 0.05 * MAX_SPLITS / 6)
    said = "e-BH over the 16 random splits planned (settled after 6: the 10 not run count as rejecting nothing)"
    assert said in headline(table).text()


def test_auto_keeps_the_false_discovery_rate_under_the_worst_stopping_rule(monkeypatch):
    """The complete null, exactly: each split names the one pattern 'a' with the
    chance 0.3 alpha (its own false discovery rate at its level), the splits
    dependent so that, in 5 disjoint events of that chance each, it is named
    by the splits 1-2, 3-4, 5-6, 7-9 or 10-13 (each split in one event: its
    chance is 0.3 alpha), else by none. A rule stopping as soon as the mean
    over the splits that ran would reject (after 4, 4, 6, 9 and 13 splits)
    made that mean name 'a' with the chance 5 x 0.015 = 0.075 > alpha, and
    its expected e-value 1.97 > 1. Whatever the rule, 'auto' names it with a
    chance at most alpha at every level: the e-values summed over the splits
    that ran and divided by the 16 planned."""
    chance = LEVEL_SHARE * 0.05
    events = [range(0, 2), range(2, 4), range(4, 6), range(6, 9), range(9, 13)]

    def mean_rejects(tables):  # the adversary: stop once the mean over those that ran names it
        return bool(aggregate(tables, 0.05)["failure"].any())

    levels = []
    for event in [*events, range(0)]:
        _, a = _auto(monkeypatch, lambda b: b in event, stop=mean_rejects)
        levels.append(a["p_value_corrected"])  # e-BH's level: the smallest alpha at which it is named
        monkeypatch.undo()
    weights = np.array([chance] * len(events) + [1 - chance * len(events)])
    for alpha in sorted({0.05, *levels}):  # P(named at the level alpha) <= alpha, at every level
        assert weights[np.array(levels) <= alpha].sum() <= alpha + 1e-12
