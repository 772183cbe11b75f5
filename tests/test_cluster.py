"""Tests of the search, the randomization test and ``find_subgroups`` on a
Dask cluster: a ``LocalCluster`` of two worker processes, one per module,
shared with the smoke run of benchmarks/bench_distributed.py (skipped without
``dask.distributed``).

* The same results, statistics, tables and p-values as one process, for every
  measure, with and without weights and generalization awareness.
* A worker killed in the middle of a search or a test is replaced by Dask and
  the result is still the same; so it is when the cluster loses the shared data.
"""

import collections
import importlib.util
import itertools
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from search_helpers import (
    SCORES,
    TARGET,
    assert_identical,
    listed,
    make_qf,
    make_task,
    tie_at_cutoff,
)  # fmt: skip
from synthetic import multiclass_frame, scored_frame

import subroc_ext
from subroc_ext.scoring import measures

#: A longer check (real tables, scripts, a cluster): `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

distributed = pytest.importorskip("distributed")

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_distributed.py"


@pytest.fixture(scope="module")
def bench():
    """benchmarks/bench_distributed.py, imported. Importing it sets a default
    ``OMP_NUM_THREADS=1`` (for the worker processes it starts); that setting
    lasts for this module only."""
    with pytest.MonkeyPatch.context() as patch:
        if "OMP_NUM_THREADS" in os.environ:
            patch.setenv("OMP_NUM_THREADS", os.environ["OMP_NUM_THREADS"])
        else:
            patch.delenv("OMP_NUM_THREADS", raising=False)
        spec = importlib.util.spec_from_file_location("bench_distributed", BENCHMARK)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module


@pytest.fixture(scope="module")
def cluster_and_client(bench):
    """One LocalCluster of two worker processes for the module, started (and
    warmed up with a find_subgroups run on it) by the benchmark's own
    ``start_cluster``, which :func:`test_benchmark_smoke_run_agrees` then
    reuses rather than starting a second cluster."""
    cluster, started, _ = bench.start_cluster(2)
    with cluster, started:
        yield cluster, started


@pytest.fixture
def client(cluster_and_client):
    return cluster_and_client[1]


CASES = [
    ("roc", (1, 1), True),
    ("roc", (0, 0), False),
    ("pr", (1, 1), True),
    ("arl", (0.5, 1), False),
    ("attribution", (1, 1), True),
    ("attribution", (0, 0), True),
]


@pytest.mark.parametrize("score, weights, generalization_aware", CASES)
def test_search_on_a_cluster_equals_one_process(client, score, weights, generalization_aware):
    data = scored_frame(11, 800, attributes=6, ties="some")
    qf = make_qf(score, weights=weights, generalization_aware=generalization_aware)
    task = make_task(data, qf, depth=3, min_support=10, k=12)
    expected = subroc_ext.FastSearch().execute(task)
    search = subroc_ext.FastSearch(client=client, parts_per_worker=3)
    found = search.execute(task)
    assert_identical(listed(found), listed(expected), task)
    if not tie_at_cutoff(task):
        for (_, _, ours), (_, _, theirs) in zip(found.results, expected.results):
            assert ours == theirs  # the same statistics
    parts = search.parts
    assert list(parts["part"]) == list(range(-1, 6))  # the depth-2 pilot, then 3 per worker
    assert parts.loc[0, "worker"] == "client"
    assert set(parts["worker"].iloc[1:]) <= set(client.scheduler_info()["workers"])
    assert search.candidates_counted == parts["counted"].sum() > 0
    assert (parts["start_threshold"].iloc[1:] > -np.inf).all()  # from the pilot's k-th best


def test_each_part_goes_to_a_worker_without_one(client, monkeypatch):
    """A part is sent to a worker that runs none (left to itself, the
    scheduler may queue it behind a busy worker's while the other idles), and
    runs there."""
    from subroc_ext.engine.parallel_search import search_part

    sent = []
    submit = client.submit

    def spy(function, *args, **kwargs):
        if function is search_part:
            sent.append(kwargs.get("workers"))
        return submit(function, *args, **kwargs)

    monkeypatch.setattr(client, "submit", spy)
    data = scored_frame(12, 800, attributes=6, ties="some")
    task = make_task(data, make_qf("roc", weights=(1, 1), generalization_aware=True), depth=3, min_support=10,
                     k=12)  # fmt: skip
    search = subroc_ext.FastSearch(client=client, parts_per_worker=4)
    search.execute(task)
    workers = set(client.scheduler_info()["workers"])
    assert len(sent) == 8 and all(to is not None and len(to) == 1 and to[0] in workers for to in sent)
    assert {to[0] for to in sent[:2]} == workers  # one part each to start
    parts = search.parts[search.parts["part"] >= 0]
    assert list(parts["worker"]) == [to[0] for to in sent]


def test_randomization_test_on_a_cluster_equals_one_process(client):
    data = scored_frame(12, 900, attributes=6, ties="some")
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    patterns = [ps.Conjunction([s]) for s in selectors] + [
        ps.Conjunction([a, b]) for a, b in itertools.combinations(selectors[:6], 2)
    ]
    for score in SCORES:
        qf = make_qf(score)
        expected = subroc_ext.randomization_test(patterns, data, qf, target=TARGET,
                                                 n_samples=300, random_state=4)  # fmt: skip
        found = subroc_ext.randomization_test(patterns, data, qf, target=TARGET, n_samples=300,
                                              random_state=4, client=client)  # fmt: skip
        pd.testing.assert_frame_equal(found, expected)
        assert expected["size"].nunique() > 5


def test_adaptive_randomization_test_on_a_cluster_equals_one_process(client):
    data = scored_frame(12, 900, attributes=6, ties="some")
    data.loc[data["a0"] == data["a0"].iloc[0], "score"] = 0.5  # a finding: every row tied
    selectors = ps.create_selectors(data, ignore=["label", "score"])
    patterns = [ps.Conjunction([s]) for s in selectors]
    qf = make_qf("roc")
    expected = subroc_ext.randomization_test(patterns, data, qf, target=TARGET, random_state=4)
    found = subroc_ext.randomization_test(patterns, data, qf, target=TARGET, random_state=4,
                                          client=client)  # fmt: skip
    pd.testing.assert_frame_equal(found, expected)
    assert found.attrs == expected.attrs
    assert expected["null_samples"].max() > 4 * 128  # several rounds
    assert expected["significant"].any() and not expected["significant"].all()


def test_multiclass_randomization_test_on_a_cluster_equals_one_process(client):
    data, mapping = multiclass_frame(16, n=600)
    target = subroc_ext.MultiClassTarget("grade", mapping)
    patterns = [ps.Conjunction([s]) for s in ps.create_selectors(data, ignore=["grade", *mapping.values()])]
    expected = subroc_ext.randomization_test(patterns, data, subroc_ext.AUCMuQF("grade", mapping),
                                             target=target, n_samples=200, random_state=3)  # fmt: skip
    found = subroc_ext.randomization_test(patterns, data, subroc_ext.AUCMuQF("grade", mapping),
                                          target=target, n_samples=200, random_state=3,
                                          client=client)  # fmt: skip
    pd.testing.assert_frame_equal(found, expected)
    assert "count_mid" in found.columns and found["testable"].all()


@pytest.mark.parametrize("generalization_aware", [False, True])
def test_multiclass_search_twice_then_test_on_a_cluster_equal_one_process(client, generalization_aware):
    """The README's workflow on one AUCMuQF: a distributed search, the same
    search again, then a distributed test of its result. pysubgroup's
    selectors pickle only once (one object per description), so a quality
    function that keyed a cache by selector objects failed on the second
    call ('Could not serialize object of type AUCMuQF')."""
    data, mapping = multiclass_frame(17, n=500)
    target = subroc_ext.MultiClassTarget("grade", mapping)

    def make_task_():
        qf = subroc_ext.AUCMuQF("grade", mapping, 1, 1)
        qf = subroc_ext.GeneralizationAwareQF(qf) if generalization_aware else qf
        selectors = ps.create_selectors(data, ignore=["grade", *mapping.values()])
        return ps.SubgroupDiscoveryTask(data, target, selectors, qf, result_set_size=8, depth=3)

    def tested(task):  # the test takes the AUCMuQF itself (the one the search used)
        return task.qf.qf if generalization_aware else task.qf

    alone_task = make_task_()
    expected = subroc_ext.FastSearch().execute(alone_task)
    patterns = [subgroup for _, subgroup, _ in expected.results]
    expected_test = subroc_ext.randomization_test(patterns, data, tested(alone_task), target=target,
                                                  n_samples=100, random_state=5)  # fmt: skip
    task = make_task_()
    for _ in range(2):
        found = subroc_ext.FastSearch(client=client, parts_per_worker=2).execute(task)
        assert_identical(listed(found), listed(expected), task)
    found_test = subroc_ext.randomization_test(
        [subgroup for _, subgroup, _ in found.results], data, tested(task), target=target,
        n_samples=100, random_state=5, client=client,
    )  # fmt: skip
    pd.testing.assert_frame_equal(found_test, expected_test)
    assert found_test["p_value"].min() < 0.05  # the planted failure (a0 == 'p') is found


def test_find_subgroups_on_a_cluster_equals_one_process(client):
    data = scored_frame(13, 1200, attributes=6, ties="some")
    settings_ = {"label": "label", "score": "score", "depth": 2, "result_set_size": 15,
                 "n_samples": 200, "random_state": 2, "progress": False}  # fmt: skip
    expected = subroc_ext.find_subgroups(data, **settings_)
    found = subroc_ext.find_subgroups(data, client=client, **settings_)
    pd.testing.assert_frame_equal(found, expected)
    with pytest.raises(ValueError, match="client= or n_jobs="):
        subroc_ext.find_subgroups(data, client=client, n_jobs=2, **settings_)
    with pytest.raises(ValueError, match="n_jobs must be a positive integer"):
        subroc_ext.find_subgroups(data, n_jobs=0, **settings_)


@pytest.mark.parametrize("kind", ["single", "drift"])
def test_the_permutation_test_on_a_cluster_equals_one_process(client, kind):
    """validation=None: the permuted searches run on the workers, one task
    each, with the same p-values as here (on one thread or two)."""
    data = scored_frame(14, 900, attributes=4)
    settings_ = {"label": "label", "score": "score", "depth": 2, "validation": None, "random_state": 5,
                 "progress": False}  # fmt: skip
    if kind == "drift":
        def find(**extra):
            return subroc_ext.find_drift(data.iloc[:400], data.iloc[400:], **settings_, **extra)
    else:
        def find(**extra):
            return subroc_ext.find_subgroups(data, **settings_, **extra)
    expected = find()
    found = find(client=client)
    threads = find(n_jobs=2)
    for other in (found, threads):
        pd.testing.assert_frame_equal(other.drop(columns="subgroup"), expected.drop(columns="subgroup"))
        assert other.attrs["null_samples_drawn"] == expected.attrs["null_samples_drawn"] > 0


@pytest.mark.parametrize("drift", [False, True])
def test_comparisons_on_a_cluster_equal_one_process(client, drift):
    """find_regressions / find_drift: the search (FastSearch on the workers)
    and the paired / unpaired randomization test give the same table."""
    data = scored_frame(6, n=1200)
    data["old"] = np.random.default_rng(6).random(len(data)) * 0.3 + 0.7 * (data["y"] == 1)
    settings = {"label": "y", "score": "p", "depth": 2, "result_set_size": 10, "n_samples": 300,
                "random_state": 0, "progress": False}  # fmt: skip
    if drift:
        def find(**extra):
            return subroc_ext.find_drift(data.iloc[:500], data.iloc[500:], **settings, **extra)
    else:
        def find(**extra):
            return subroc_ext.find_regressions(data, baseline="old", **settings, **extra)
    alone, on_cluster = find(), find(client=client)
    pd.testing.assert_frame_equal(alone.drop(columns="subgroup"), on_cluster.drop(columns="subgroup"))
    assert len(alone) == 10


def test_a_client_must_be_a_dask_client():
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
        subroc_ext.FastSearch(client="tcp://127.0.0.1:8786").execute(
            make_task(scored_frame(0, 100, attributes=6), make_qf("roc"), 2, 1, 3)
        )


class DyingROCAUC(measures.ROCAUC):
    """ROC AUC (evaluated in Python by the search) whose first call on a
    worker kills that worker's process, once per marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def _die_once(self):
        try:
            distributed.get_worker()
        except ValueError:
            return  # in this process
        try:  # atomic: of workers calling at the same time, only one dies
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        os._exit(1)

    def value(self, cover):
        self._die_once()
        return super().value(cover)

    def null_values(self, *args, **kwargs):
        self._die_once()
        return super().null_values(*args, **kwargs)


def test_a_worker_killed_mid_search_is_retried_with_the_same_result(client, tmp_path):
    marker = tmp_path / "killed"
    data = scored_frame(14, 600, attributes=6, ties="some")
    qf = subroc_ext.GeneralizationAwareQF(
        subroc_ext.SoftClassifierQF(DyingROCAUC(marker), "label", size_weight=1, balance_weight=1)
    )
    task = make_task(data, qf, depth=3, min_support=10, k=10)
    expected = subroc_ext.FastSearch().execute(task)
    assert not marker.exists()
    search = subroc_ext.FastSearch(client=client, parts_per_worker=2)
    found = search.execute(task)
    assert marker.exists()  # a worker died evaluating a part
    assert_identical(listed(found), listed(expected), task)
    assert len(search.parts) == 1 + 4
    client.wait_for_workers(2, timeout=60)


def test_a_worker_killed_mid_test_is_retried_with_the_same_p_values(client, tmp_path):
    marker = tmp_path / "killed"
    data = scored_frame(15, 700, attributes=6)
    patterns = [ps.Conjunction([s]) for s in ps.create_selectors(data, ignore=["label", "score"])]
    qf = subroc_ext.SoftClassifierQF(DyingROCAUC(marker), "label")
    expected = subroc_ext.randomization_test(patterns, data, qf, target=TARGET, n_samples=200,
                                             random_state=1)  # fmt: skip
    found = subroc_ext.randomization_test(patterns, data, qf, target=TARGET, n_samples=200,
                                          random_state=1, client=client)  # fmt: skip
    assert marker.exists()
    pd.testing.assert_frame_equal(found, expected)
    client.wait_for_workers(2, timeout=60)


@pytest.mark.parametrize("work", ["search", "test", "permutation test"])
def test_shared_data_the_cluster_loses_is_shared_again_with_the_same_result(client, monkeypatch, work):
    """When the last copy of the data on the workers is lost (two workers
    dying one after the other can take it: a replacement starts without
    one), the scheduler cancels the tasks that need it; they run again on
    the data shared anew. The loss is made here by cancelling the shared
    data once its third task is submitted (find_subgroups without a holdout
    shares data twice: for the search and the permuted searches; the
    headline's promise draws its labels over its family in this process,
    :mod:`~subroc_ext.inference.promise_family`)."""
    from subroc_ext.utils.cluster import Shared

    submit, submitted = Shared.submit, collections.Counter()  # tasks of each Shared

    def losing(self, function, *args, **options):
        future = submit(self, function, *args, **options)
        submitted[self] += 1
        if submitted[self] == 3:
            self.client.cancel(self.future, force=True)
        return future

    monkeypatch.setattr(Shared, "submit", losing)
    data = scored_frame(16, 700, attributes=5, ties="some")
    if work == "search":
        task = make_task(data, make_qf("roc", weights=(1, 1), generalization_aware=True), depth=3, min_support=10,
                         k=12)  # fmt: skip

        def run(**on):
            return listed(subroc_ext.FastSearch(**on, parts_per_worker=3).execute(task))
    elif work == "test":
        patterns = [ps.Conjunction([s]) for s in ps.create_selectors(data, ignore=["label", "score"])]

        def run(**on):
            return subroc_ext.randomization_test(patterns, data, make_qf("roc"), target=TARGET, n_samples=200,
                                                 random_state=2, **on)  # fmt: skip
    else:
        def run(**on):
            return subroc_ext.find_subgroups(data, label="label", score="score", depth=2, validation=None,
                                             random_state=5, progress=False, **on).drop(columns="subgroup")

    expected, found = run(), run(client=client)
    assert len(submitted) == (2 if work == "permutation test" else 1)
    for shared, tasks in submitted.items():
        assert shared.losses == 1 and tasks > 3  # lost once, and tasks ran after it
    if work == "search":
        assert_identical(found, expected, task)
    else:
        pd.testing.assert_frame_equal(found, expected)


def _first_plus(value, number):
    return value[0] + number


def test_shared_data_lost_at_every_try_raises_dasks_error(client, monkeypatch):
    """Shared.results runs a task again after each loss of its data, up to
    Shared.renewals losses; the next loss raises Dask's cancellation."""
    distributed = pytest.importorskip("distributed")
    from subroc_ext.utils.cluster import Shared

    values = Shared(client, (10, 20))
    assert dict(values.results(_first_plus, ((n, (n,)) for n in range(4)))) == {0: 10, 1: 11, 2: 12, 3: 13}
    assert values.losses == 0
    submit, tries = Shared.submit, []

    def losing(self, function, *args, **options):
        self.client.cancel(self.future, force=True)  # before: a finished task could not lose it
        future = submit(self, function, *args, **options)
        tries.append(future)
        return future

    monkeypatch.setattr(Shared, "submit", losing)
    with pytest.raises(distributed.client.FutureCancelledError):
        dict(values.results(_first_plus, [("a", (1,))]))
    assert values.losses == Shared.renewals and len(tries) == Shared.renewals + 1


def test_command_line_scheduler_and_jobs_give_the_same_report(client, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from subroc_ext.cli import main

    scored_frame(0).to_csv(tmp_path / "data.csv", index=False)
    arguments = ["run", str(tmp_path / "data.csv"), "--label", "y", "--score", "p", "--quiet",
                 "--samples", "200", "--depth", "2", "--top", "20"]  # fmt: skip
    tables = {}
    for name, extra in [("alone", []), ("scheduler", ["--scheduler", client.scheduler.address]),
                        ("jobs", ["--jobs", "1"])]:  # fmt: skip
        assert main([*arguments, *extra, "--out", str(tmp_path / name)]) == 0
        tables[name] = pd.read_csv(tmp_path / name / "subgroups.csv")
    assert 15 <= len(tables["alone"]) <= 20  # the distinct ones among all patterns of quality > 0
    pd.testing.assert_frame_equal(tables["scheduler"], tables["alone"])
    pd.testing.assert_frame_equal(tables["jobs"], tables["alone"])
    capsys.readouterr()
    assert main([*arguments, "--jobs", "0"]) == 2
    assert "--jobs: expected a positive integer" in capsys.readouterr().err
    assert main([*arguments, "--jobs", "2", "--scheduler", "tcp://x:1"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_benchmark_smoke_run_agrees(bench, cluster_and_client, tmp_path, capsys, monkeypatch):
    """benchmarks/bench_distributed.py --smoke, run in this process (its main)
    on the module's cluster (started by the benchmark's start_cluster)."""
    cluster, client = cluster_and_client
    for started in (cluster, client):  # the module closes them, not the benchmark
        monkeypatch.setattr(started, "close", lambda *args, **kwargs: None)

    def start_cluster(n_workers):
        assert n_workers == 2
        client.wait_for_workers(2, timeout=60)
        return cluster, client, 0.0

    monkeypatch.setattr(bench, "start_cluster", start_cluster)
    markdown = tmp_path / "distributed.md"
    status = bench.main(["--smoke", "--workers", "2", "--markdown", str(markdown)])
    printed = capsys.readouterr()
    assert status == 0, printed.out + printed.err
    assert "agreement check: OK" in printed.out
    report = markdown.read_text()
    assert "| 2 worker(s) |" in report and "| yes |" in report and "| NO |" not in report
    assert "### Projection of the search" in report


@pytest.mark.parametrize("multiclass", [False, True])
def test_adaptive_test_and_effects_on_a_cluster_equal_one_process(client, multiclass):
    """Issue 18 item 4: with the defaults (adaptive p-values, effects with
    simultaneous intervals) a cluster gives the same table for the same seed."""
    if multiclass:
        data, mapping = multiclass_frame(18, n=800)

        def find(**extra):
            return subroc_ext.find_multiclass_subgroups(
                data, label="grade", score_columns=mapping, result_set_size=8, random_state=1,
                progress=False, **extra,
            )  # fmt: skip
    else:
        data = scored_frame(14, 1500, attributes=6, ties="some")

        def find(**extra):
            return subroc_ext.find_subgroups(data, label="label", score="score", result_set_size=8,
                                             random_state=1, progress=False, **extra)  # fmt: skip
    alone, on_cluster = find(), find(client=client)
    pd.testing.assert_frame_equal(alone.drop(columns="subgroup"), on_cluster.drop(columns="subgroup"))
    assert alone.attrs["n_samples"] == "adaptive"
    assert alone[["delta", "delta_ci_low", "delta_ci_high"]].notna().all().all()
