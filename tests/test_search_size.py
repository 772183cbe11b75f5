"""The size of a search before it starts: the candidates' bound against
enumeration, the bitsets against the engine's, and the warning of the two
searches of issue 32 that ran for hours without a word."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from synthetic import scored_frame

import subroc_ext
from subroc_ext import SearchSizeWarning
from subroc_ext.exceptions import SearchMemoryError
from subroc_ext.engine.search import SearchProblem
from subroc_ext.inputs import search_size
from subroc_ext.inputs.search_size import estimate_search_size
from subroc_ext.workflow import steps


def _selectors(counts):
    return [ps.EqualitySelector(f"c{column}", value) for column, k in enumerate(counts) for value in range(k)]


@pytest.mark.parametrize("seed", range(5))
def test_candidates_are_the_conjunctions_with_one_condition_per_column(seed):
    """The bound is exactly the number of patterns pysubgroup's search space holds."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 6, rng.integers(1, 7))
    selectors = _selectors(counts)
    for depth in range(1, 5):
        size = estimate_search_size(selectors, 100, depth)
        expected = [
            sum(len({s.attribute_name for s in combination}) == j
                for combination in itertools.combinations(selectors, j))
            for j in range(1, depth + 1)
        ]  # fmt: skip
        assert list(size.candidates_by_depth) == expected
        assert size.conditions == sum(counts) and size.columns == len(counts)


def test_bitsets_are_what_the_engine_allocates():
    frame = scored_frame(0, 1000, attributes=5)
    space = subroc_ext.make_search_space(frame, ignore=["label", "score"])
    task = ps.SubgroupDiscoveryTask(frame, subroc_ext.SoftClassifierTarget("label", "score"), list(space),
                                    subroc_ext.ROCAUCQF("label"), depth=2)  # fmt: skip
    words = SearchProblem.from_task(task).space.words
    assert estimate_search_size(space, len(frame), 2).bitset_bytes == words.nbytes


def _wide(rows, columns, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(rows, columns)).round(3), columns=[f"x{i}" for i in range(columns)])
    frame["label"] = rng.integers(0, 2, rows)
    frame["score"] = rng.random(rows)
    return frame


def test_depth_6_on_5000_rows_and_46_columns_warns_before_starting():
    """Issue 32: 29 million candidates counted, no estimate or warning first.
    With the warning an error, the search never starts."""
    frame = _wide(5000, 46)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SearchSizeWarning)
        with pytest.raises(SearchSizeWarning, match=r"^a large search: up to .* trillion candidate patterns at depth 6 \("
                           r"\d+ conditions on 46 columns, at most one per column\), .* million at depth 3;"):  # fmt: skip
            subroc_ext.find_subgroups(frame, label="label", score="score", depth=6, progress=False)


def test_ten_thousand_columns_at_depth_2_warn_before_starting():
    frame = _wide(200, 2).drop(columns=["x0", "x1"])
    selectors = _selectors([4] * 10_000)
    frame = pd.concat([frame, pd.DataFrame(np.zeros((200, 10_000), dtype=int), columns=[f"c{i}" for i in range(10_000)])],
                      axis=1)  # fmt: skip
    qf = subroc_ext.make_quality_function("roc_auc", "label")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SearchSizeWarning)
        with pytest.raises(SearchSizeWarning, match=r"up to 800\.0 million candidate patterns at depth 2"):
            steps.search(frame, qf, subroc_ext.SoftClassifierTarget("label", "score"), selectors=selectors, depth=2)


def test_a_small_search_is_quiet_and_records_its_size():
    frame = scored_frame(1, 600)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SearchSizeWarning)
        found = steps.search(frame, subroc_ext.make_quality_function("roc_auc", "y"),
                             subroc_ext.SoftClassifierTarget("y", "p"), depth=2)  # fmt: skip
    assert found.size.candidates >= found.candidates > 0
    assert found.size.rows == 600 and found.size.depth == 2


def test_memory_alone_warns(monkeypatch):
    monkeypatch.setattr(search_size, "LARGE_BYTES", 10_000)
    size = estimate_search_size(_selectors([3, 3]), 100_000, 1)
    assert size.candidates == 6 and size.bitset_bytes == 6 * 8 * 1563
    with pytest.warns(SearchSizeWarning, match=r"6 candidate patterns at depth 1 .*; 73\.3 KB of condition bitsets"):
        assert search_size.warn_if_large(size)


def test_the_command_line_shows_it_as_one_warning_line(tmp_path, capsys, monkeypatch):
    from subroc_ext.cli import main

    monkeypatch.setattr(search_size, "LARGE_CANDIDATES", 10)
    path = tmp_path / "data.csv"
    scored_frame(2, 400).to_csv(path, index=False)
    assert main(["run", str(path), "--label", "y", "--score", "p", "--depth", "1", "--samples", "20",
                 "--quiet", "--out", str(tmp_path / "out")]) == 0  # fmt: skip
    lines = [line for line in capsys.readouterr().err.splitlines() if "large search" in line]
    assert len(lines) == 1
    assert lines[0].startswith("subroc-ext: warning: a large search: up to ")


def test_memory_is_twice_the_bitsets_the_dataset_and_the_search_both_hold():
    """The estimate had counted the bitsets once: 1 M rows with --min-support 2
    were estimated at 7.0 GB and peaked at 15.4 GB. The dataset keeps each
    condition's bitset and the search copies them all into its matrix."""
    frame = scored_frame(0, 1000, attributes=5)
    space = list(subroc_ext.make_search_space(frame, ignore=["label", "score"]))
    qf = subroc_ext.ROCAUCQF("label")
    task = ps.SubgroupDiscoveryTask(frame, subroc_ext.SoftClassifierTarget("label", "score"), space, qf, depth=2)
    matrix = SearchProblem.from_task(task).space.words
    kept = [qf.dataset.selector_words(selector) for selector in space]
    assert all(qf.dataset.selector_words(selector) is words for selector, words in zip(space, kept))  # cached
    size = estimate_search_size(space, len(frame), 2)
    assert size.memory_bytes == sum(w.nbytes for w in kept) + matrix.nbytes + search_size.BYTES_PER_CONDITION * len(space)
    assert "(about 369.9 KB of memory)" in str(estimate_search_size(space, 100_000, 2))


def test_a_search_beyond_the_available_memory_is_refused_unless_allowed(monkeypatch):
    frame = scored_frame(1, 600)
    qf, target = subroc_ext.make_quality_function("roc_auc", "y"), subroc_ext.SoftClassifierTarget("y", "p")
    monkeypatch.setattr(search_size, "available_memory", lambda: 1000)
    with pytest.raises(SearchMemoryError, match=r"^the search would need about .* of memory, more than the 1000 bytes "
                       r"available \(up to .*\): lower the depth, .*; allow_large=True \(--allow-large\) starts it"):  # fmt: skip
        steps.search(frame, qf, target, depth=2)
    assert steps.search(frame, qf, target, depth=2, allow_large=True).subgroups
    search_size.check_memory(estimate_search_size(_selectors([3]), 100, 1), available=10**9)  # fits: no error


def test_available_memory_is_known_here():
    assert search_size.available_memory() > 0


def test_a_wide_table_at_depth_2_warns_by_its_time():
    """300 numeric columns of 50,000 rows at depth 2 ran 83 s without a word:
    5.4 million candidates (under the candidates' threshold), 22 MB of bitsets."""
    size = estimate_search_size(_selectors([11] * 300), 50_000, 2)
    assert size.candidates < search_size.LARGE_CANDIDATES and size.bitset_bytes < search_size.LARGE_BYTES
    with pytest.warns(SearchSizeWarning, match=r"up to 5\.4 million candidate patterns at depth 2 .* would take "
                      r"about 2\.4 minutes of CPU"):  # fmt: skip
        assert search_size.warn_if_large(size)


@pytest.mark.parametrize("command", ["run", "compare"])
def test_the_command_line_refuses_it_in_one_line_and_allows_it(tmp_path, capsys, monkeypatch, command):
    from subroc_ext.cli import main

    monkeypatch.setattr(search_size, "available_memory", lambda: 1000)
    path = tmp_path / "data.csv"
    frame = scored_frame(2, 400)
    frame.assign(old=frame["p"].sample(frac=1, random_state=0).to_numpy()).to_csv(path, index=False)
    arguments = [command, str(path), "--label", "y", "--score", "p", "--depth", "1", "--samples", "20", "--quiet",
                 "--out", str(tmp_path / "out"), *(["--baseline", "old"] if command == "compare" else [])]  # fmt: skip
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert err.startswith("subroc-ext: error: the search would need about ") and err.count("\n") == 1
    assert main([*arguments, "--allow-large"]) == 0
