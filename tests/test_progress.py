"""Progress: plain lines off a terminal, totals where known, no -inf in the search status."""

import io
import sys

import numpy as np

from subroc_ext import _progress
from subroc_ext._progress import PlainProgress, progress_bar, search_status


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
