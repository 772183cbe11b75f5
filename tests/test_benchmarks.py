"""Tests of benchmarks/bench_search.py: its smoke mode runs, its check bites.

The benchmark itself is a script, not a timed test; here it only has to run
end to end on a tiny problem and report that all results agree. The smoke
runs call the script's ``main(argv)`` in this process (what its ``__main__``
guard calls, minus an interpreter start); bench_engine.py still runs each
search as a ``python bench_engine.py --run-case`` subprocess, its entry point.
"""

import importlib.util
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pysubgroup as ps
import pytest

from subroc_ext.workflow.steps import SearchResult

#: A longer check (real tables, scripts, a cluster): `python -m pytest -m "extended and not slow"`, run by CI.
pytestmark = pytest.mark.extended

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_search.py"


def load(script):
    """A benchmark script, imported (it is not a package module)."""
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return load(SCRIPT)


def smoke_run(module, tmp_path, capsys):
    """Run a benchmark script's smoke mode (its ``main``, in this process);
    check it agrees; return its markdown table's lines and what it printed."""
    markdown = tmp_path / "table.md"
    status = module.main(["--smoke", "--markdown", str(markdown)])
    printed = capsys.readouterr()
    assert status == 0, printed.out + printed.err
    assert "agreement check: OK" in printed.out
    assert "RESULTS DIFFER" not in printed.out + printed.err
    return markdown.read_text().splitlines(), printed.out


def test_smoke_run_agrees(bench, tmp_path, capsys):
    table, stdout = smoke_run(bench, tmp_path, capsys)
    assert table[0].startswith("| measure | depth |")
    assert len(table) == 2 + 6  # header, rule, 3 measures x depths 1 and 2
    if hasattr(ps, "ROCAUCQF"):
        assert all(line.endswith("| yes | yes |") for line in table[2:])
    else:  # pysubgroup 0.8: nothing to compare with, and the benchmark says so
        assert f"pysubgroup {version('pysubgroup')} has no ROCAUCQF" in stdout
        assert all(line.endswith("| yes | n/a |") for line in table[2:])


def _result(*rows):
    """A search result of (quality, attribute values) rows."""
    return SearchResult(
        subgroups=[ps.Conjunction([ps.EqualitySelector(a, v) for a, v in pairs]) for _, pairs in rows],
        qualities=[quality for quality, _ in rows],
    )


A, B, C, D = ([("x", value)] for value in "abcd")


def test_compare_identical_and_reordered_ties(bench):
    first = _result((0.5, A), (0.3, B), (0.3, C), (0.1, D))
    again = _result((0.5, A), (0.3, C), (0.3 + 1e-15, B), (0.1, D))
    assert bench.compare_results(first, again) == []


def test_compare_allows_other_ties_at_the_cutoff(bench):
    first = _result((0.5, A), (0.3, B))
    other = _result((0.5, A), (0.3, C))
    assert bench.compare_results(first, other) == []


def test_compare_flags_a_different_tied_member_before_the_cutoff(bench):
    first = _result((0.3, A), (0.3, B), (0.1, D))
    other = _result((0.3, A), (0.3, C), (0.1, D))
    (problem,) = bench.compare_results(first, other)
    assert problem.startswith("ranks 1-2")


def test_compare_flags_qualities_and_lengths(bench):
    first = _result((0.5, A), (0.3, B))
    (problem,) = bench.compare_results(first, _result((0.5, A), (0.2, B)))
    assert problem.startswith("rank 2: quality 0.3")
    assert bench.compare_results(first, _result((0.5, A))) == ["2 results vs 1"]


def test_compare_ignores_selector_order(bench):
    both = [("x", "a"), ("y", "b")]
    assert bench.compare_results(_result((0.5, both)), _result((0.5, both[::-1]))) == []


def test_unpruned_runs_use_our_quality_function(bench):
    """'unpruned' is our class, searched with prune=False (CountingQF, tested there)."""
    qf = bench.make_quality_function("arl", "unpruned", 1, 0.5)
    assert type(qf) is bench.subroc_ext.ARLQF
    assert (qf.size_weight, qf.balance_weight, qf.optimistic_estimates) == (1, 0.5, True)


def test_check_reports_differences_loudly(bench, capsys):
    failures = []
    first, other = _result((0.5, A), (0.3, B)), _result((0.5, A), (0.2, B))
    assert bench._check("ROC AUC, depth 2", first, first, failures) == "yes"
    assert bench._check("ROC AUC, depth 2", first, None, failures) == "n/a"
    assert failures == []
    assert bench._check("ROC AUC, depth 2", first, other, failures) == "NO"
    assert failures == ["ROC AUC, depth 2"]
    assert "!!! RESULTS DIFFER: ROC AUC, depth 2" in capsys.readouterr().err


ENGINE_SCRIPT = SCRIPT.with_name("bench_engine.py")


def test_engine_benchmark_smoke_run_agrees(tmp_path, capsys):
    """bench_engine.py: FastSearch and BestFirstSearch, each in its own process."""
    table, _ = smoke_run(load(ENGINE_SCRIPT), tmp_path, capsys)
    assert "FastSearch" in table[3] and "BestFirstSearch" in table[2]
    assert table[3].endswith("| yes |")


def test_engine_benchmark_comparison_bites():
    module = load(ENGINE_SCRIPT)
    top = [(3.0, ["a"]), (2.0, ["b"]), (1.0, ["c"]), (1.0, ["d"])]
    assert module.same_top_k(top, [(3.0, ["a"]), (2.0, ["b"]), (1.0, ["d"]), (1.0, ["c"])])
    assert module.same_top_k(top, [(3.0, ["a"]), (2.0, ["b"]), (1.0, ["c"]), (1.0, ["e"])])
    assert not module.same_top_k(top, [(3.0, ["a"]), (2.0, ["x"]), (1.0, ["c"]), (1.0, ["d"])])
    assert not module.same_top_k(top, [(3.0, ["a"]), (2.5, ["b"]), (1.0, ["c"]), (1.0, ["d"])])
    assert not module.same_top_k(top, top[:3])


def test_comparison_benchmark_runs(capsys):
    """benchmarks/bench_comparison.py on 3,000 Adult rows at depth 2."""
    load(SCRIPT.parent / "bench_comparison.py").main(["--rows", "3000", "--depths", "2"])
    printed = capsys.readouterr().out
    lines = printed.split("vs single")[1].strip().splitlines()
    assert [line.split()[1] for line in lines] == ["single", "paired", "single", "unpaired"]


def test_thread_benchmark_smoke_run_agrees(tmp_path, capsys):
    """bench_threads.py: pairs of 1- and 2-thread runs agree; the ceiling's
    processes start together, run and report."""
    markdown = tmp_path / "table.md"
    bench = load(SCRIPT.with_name("bench_threads.py"))
    status = bench.main(["--smoke", "--ceiling", "1", "--markdown", str(markdown)])
    printed = capsys.readouterr()
    assert status == 0, printed.out + printed.err
    table = markdown.read_text().splitlines()
    pairs = [line for line in table if line.endswith(("| yes |", "| NO |"))]
    assert len(pairs) == 2 and all(line.endswith("| yes |") for line in pairs)
    assert any(line.startswith("Speed-up: median of the pairs") for line in table)
    ceiling = [line for line in table if line.startswith("| 1 |") and line.endswith("x |")]
    assert len(ceiling) == 1  # one round of the ceiling
    assert table[-1] == "agreement check: OK"


def test_bench_permutation_smoke_run(capsys):
    """benchmarks/bench_permutation.py runs end to end on a 3,000-row sample."""
    module = load(SCRIPT.parent / "bench_permutation.py")
    module.main(["--smoke", "--holdout"])
    printed = capsys.readouterr().out
    assert "no holdout, n_jobs=1:" in printed and "permuted searches" in printed
    assert "50/50 holdout, n_jobs=1:" in printed


class _Record:
    """An allocation as memray's reader gives it: a size and a stack, innermost frame first."""

    def __init__(self, size, stack):
        self.size, self._stack = size, stack

    def stack_trace(self, max_stacks):
        return self._stack[:max_stacks]


def test_memory_peak_groups_the_live_allocations_by_our_innermost_frames():
    """benchmarks/memory_peak.py: allocations under the same subroc_ext
    frames add up; others are named by their innermost frame."""
    grouped = load(SCRIPT.parent / "memory_peak.py").grouped
    ours = [("covers", "/x/numpy/core.py", 5), ("describe", "/x/subroc_ext/workflow/steps.py", 377),
            ("find_subgroups", "/x/subroc_ext/workflow/pipeline.py", 413),
            ("main", "/x/subroc_ext/cli/__init__.py", 9)]  # fmt: skip
    pandas = [("read", "/x/pandas/io.py", 3)]
    records = [_Record(100, ours), _Record(50, ours), _Record(7, pandas), _Record(1, [])]
    assert grouped(records, frames=2) == {
        "describe:steps.py:377 < find_subgroups:pipeline.py:413": 150, "read:io.py": 7, "(no stack)": 1,
    }  # fmt: skip


class _Interval:
    def __init__(self, allocated, deallocated, n_bytes):
        self.allocated_before_snapshot, self.deallocated_before_snapshot = allocated, deallocated
        self.n_bytes = n_bytes


def test_memory_peak_at_a_snapshot_counts_what_is_alive_then():
    """--at rss: an allocation counts at snapshot s when it was made before s
    and not freed before s (memray's temporal records)."""
    alive_at = load(SCRIPT.parent / "memory_peak.py").alive_at
    record = _Record(0, [("describe", "/x/subroc_ext/workflow/steps.py", 377)])
    record.intervals = [_Interval(0, 2, 10), _Interval(1, None, 20), _Interval(3, None, 40), _Interval(0, 1, 80)]
    assert [alive.size for alive in alive_at([record], 2)] == [20]
    assert [alive.size for alive in alive_at([record], 1)] == [30]
    assert [alive.size for alive in alive_at([record], 0)] == [90]
    (alive,) = alive_at([record], 3)
    assert alive.size == 60 and alive.stack_trace(5) == record.stack_trace(5)


def test_kernel_replay_renames_each_tree_and_compares_results_exactly(tmp_path):
    replay = load(SCRIPT.parent / "bench_kernel_replay.py")
    tree = tmp_path / "tree" / "subroc_ext"
    tree.mkdir(parents=True)
    (tree / "__init__.py").write_text("from subroc_ext.inner import NAME\n")
    (tree / "inner.py").write_text("NAME = __name__\n")
    (tree / "__pycache__").mkdir()
    (tree / "__pycache__" / "stale.pyc").write_bytes(b"")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        package = replay.renamed_copy(tmp_path / "tree", "replay_test_tree", tmp_path)
    finally:
        sys.path.remove(str(tmp_path))
    assert package.NAME == "replay_test_tree.inner"
    assert not (tmp_path / "replay_test_tree" / "__pycache__").exists()
    same = (np.array([1.0, np.nan]), (np.array([1, 2]), 3))
    assert replay.identical(same, (np.array([1.0, np.nan]), (np.array([1, 2]), 3)))
    assert not replay.identical(same, (np.array([1.0, 0.0]), (np.array([1, 2]), 3)))
    assert not replay.identical(same, (np.array([1.0, np.nan]), (np.array([1, 2]), 4)))
    assert not replay.identical(same, (np.array([1.0, np.nan]), (np.array([1, 2, 3]), 3)))
