"""Progress: plain lines off a terminal, totals where known, no -inf in the search status."""

import io
import sys

import numpy as np

from subroc_ext.utils import progress as _progress
from subroc_ext.utils.progress import PlainProgress, progress_bar, search_status


def test_plain_lines_with_the_total_and_one_final_line():
    stream = io.StringIO()
    items = list(PlainProgress(range(3), desc="testing", total=3, stream=stream))
    assert items == [0, 1, 2]
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("testing: 3/3 in ") and "\r" not in stream.getvalue()


def test_updates_postfix_and_intermediate_lines():
    stream = io.StringIO()
    bar = PlainProgress(iter(()), desc="searching", stream=stream, interval=0.0)
    bar.set_postfix_str("2 of 5 results found")
    bar.update(1_234)
    bar.close()
    bar.close()  # once only
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[-1].startswith("searching: 1,234 in ")
    assert lines[-1].endswith("; 2 of 5 results found")


def test_not_a_terminal_gives_plain_lines(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    bar = progress_bar([1, 2], enabled=True, desc="testing")
    assert isinstance(bar, PlainProgress) and bar.total == 2
    assert progress_bar([1, 2], enabled=False) == [1, 2]

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert _progress._interactive(Terminal()) and not _progress._interactive(io.StringIO())


def test_search_status_never_shows_minus_infinity():
    assert search_status(3, 100, -np.inf) == "3 of 100 results found"
    assert search_status(100, 100, 0.51234) == "k-th best quality 0.5123"


def test_time_left_when_the_total_is_known(monkeypatch):
    clock = iter([0.0, 10.0, 10.0, 40.0])  # start; two updates; close
    monkeypatch.setattr(_progress.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    bar = PlainProgress(iter(()), desc="testing", total=4, stream=stream, interval=5.0)
    bar.update(1)  # 1 of 4 after 10 s: 30 s left
    bar.update(3)
    bar.close()
    assert stream.getvalue().splitlines() == [
        "testing: 1/4 in 10.0 s, about 30 s left", "testing: 4/4 in 40.0 s",
    ]  # fmt: skip


def test_the_first_line_comes_after_a_few_seconds_then_every_interval(monkeypatch):
    """A long search had said nothing for its first 30 s."""
    clock = iter([0.0, 4.0, 6.0, 20.0, 37.0, 40.0])  # start; four updates; close
    monkeypatch.setattr(_progress.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    bar = PlainProgress(iter(()), desc="searching", stream=stream)
    for _ in range(4):
        bar.update(1)
    bar.close()
    assert stream.getvalue().splitlines() == [
        "searching: 2 in 6.0 s", "searching: 4 in 37.0 s", "searching: 4 in 40.0 s",
    ]  # fmt: skip
