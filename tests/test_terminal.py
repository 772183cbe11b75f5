"""The data never drives the terminal: control and bidirectional characters in
values and column names are printed as escapes (subroc_ext.utils.terminal,
through the command line's streams and its formatted text)."""

import io
import subprocess
import sys
import warnings

import pytest
from synthetic import scored_frame

from subroc_ext.cli import main
from subroc_ext.cli.output import DESCRIPTION_WIDTH, fail
from subroc_ext.cli.streams import GuardedStream
from subroc_ext.utils.terminal import LINE_WIDTH, clipped, one_line, visible

pytest.importorskip("matplotlib")

#: A value that clears the screen and prints a fake verdict in green, reversed by U+202E.
FAKE_VERDICT = "\x1b[2J\x1b[H\x1b[32mALL GOOD: no subgroups found\u202edab\r\n\t"
#: A column name that sets the window title (OSC 0).
TITLE = "region\x1b]0;pwned\x07"
#: What the terminal must never receive.
RAW = ["\x1b", "\x07", "\u202e", "\x00", "\r", "\t"]


@pytest.mark.parametrize(
    "char, escape",
    [("\x1b", "\\x1b"), ("\x00", "\\x00"), ("\x7f", "\\x7f"), ("\x9b", "\\x9b"), ("\t", "\\t"),
     ("\n", "\\n"), ("\r", "\\r"), ("\u202a", "\\u202a"), ("\u202e", "\\u202e"), ("\u2066", "\\u2066"),
     ("\u2069", "\\u2069"), ("\u200e", "\\u200e"), ("\u200f", "\\u200f"), ("\u061c", "\\u061c"),
     ("\u200b", "\\u200b"), ("\u2028", "\\u2028"), ("\U000e0001", "\\U000e0001")],
)  # fmt: skip
def test_each_control_character_is_shown_as_its_escape(char, escape):
    assert visible(f"a{char}b") == f"a{escape}b"


def test_printable_text_is_unchanged():
    text = "Zürich ≥ 3 & 東京 == 'a b' \u00a0(no-break space) $0-$25k \\x1b"
    assert visible(text) is text or visible(text) == text


def test_kept_line_breaks_and_one_line():
    assert visible("a\nb\r\x1b", keep="\n") == "a\nb\\r\\x1b"
    assert one_line(f"column {TITLE}\n  is odd\t") == "column region\\x1b]0;pwned\\x07 is odd"


def test_guarded_stream_escapes_all_but_kept():
    stream = io.StringIO()
    guarded = GuardedStream(stream, keep="\n\r")
    assert guarded.write(f"{FAKE_VERDICT}\x00\n") == len(FAKE_VERDICT) + 2
    assert stream.getvalue() == "\\x1b[2J\\x1b[H\\x1b[32mALL GOOD: no subgroups found\\u202edab\r\n\\t\\x00\n"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """data.csv whose most common region is FAKE_VERDICT, in a column named TITLE."""
    path = tmp_path_factory.mktemp("terminal") / "data.csv"
    frame = scored_frame(0, n=1500)
    frame["region"] = frame["region"].replace("east", FAKE_VERDICT)
    frame.rename(columns={"region": TITLE}).to_csv(path, index=False)
    return path


def assert_escaped(text):
    assert not [char for char in RAW if char in text]
    assert "\\x1b[2J\\x1b[H\\x1b[32mALL GOOD: no subgroups found\\u202edab\\r\\n\\t" in text
    assert "region\\x1b]0;pwned\\x07" in text


def test_the_printed_results_show_the_escapes(hostile, tmp_path, capsys):
    """The table and the headline: the value and the column name as escapes, the table one row a line."""
    assert main(["run", str(hostile), "--label", "y", "--score", "p", "--depth", "1", "--samples", "20",
                 "--out", str(tmp_path), "--quiet"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    assert_escaped(captured.out)
    rows = [line for line in captured.out.splitlines() if line.startswith(("1 ", "2 ", "3 "))]
    assert len(rows) == 3 and all(row.rstrip().endswith(("yes", "no", "range-restricted")) for row in rows)


def test_warnings_and_errors_show_the_escapes(hostile, capsys, monkeypatch):
    """A warning naming a column, and an error naming one: one line each, escaped."""
    def warn(args):
        warnings.warn(f"column {TITLE!s} value {FAKE_VERDICT!s}", UserWarning)
        return fail(KeyError(f"column {TITLE!s} not found"))

    monkeypatch.setattr("subroc_ext.cli.commands.run_command", warn)
    assert main(["run", str(hostile), "--label", "y", "--score", "p"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert [line.split(":")[:2] for line in lines] == [["subroc-ext", " warning"], ["subroc-ext", " error"]]
    assert not [char for char in RAW if char in captured.err]
    assert "column region\\x1b]0;pwned\\x07 value \\x1b[2J" in lines[0]
    assert lines[1] == "subroc-ext: error: column region\\x1b]0;pwned\\x07 not found"


@pytest.mark.extended  # the command line in a subprocess (about 10 s)
def test_a_subprocess_prints_no_control_character(hostile, tmp_path):
    """What a terminal would receive, stdout and stderr, with the status lines and
    with --quiet: no raw escape, and no figure warning (a missing glyph) either."""
    command = [sys.executable, "-m", "subroc_ext.cli", "run", str(hostile), "--label", "y", "--score", "p",
               "--depth", "1", "--samples", "20", "--out", str(tmp_path)]  # fmt: skip
    loud = subprocess.run(command, capture_output=True, text=True, timeout=600)
    quiet = subprocess.run([*command, "--quiet"], capture_output=True, text=True, timeout=600)
    assert loud.returncode == quiet.returncode == 0
    assert_escaped(loud.stdout)
    assert not [char for char in RAW if char in loud.stderr]
    assert not [char for char in RAW if char in quiet.stdout]
    assert "Glyph" not in loud.stderr  # the figures draw the escapes, warning of no missing glyph
    assert [line for line in quiet.stderr.splitlines() if "a lone finding cannot be significant" not in line] == []


def test_a_column_name_of_10000_characters_keeps_the_lines_short(tmp_path, capsys):
    # issue 59: it made console lines of 30,000 characters
    name = "r" * 10_000
    path = tmp_path / "long.csv"
    scored_frame(0, n=1500).rename(columns={"region": name}).to_csv(path, index=False)
    assert main(["run", str(path), "--label", "y", "--score", "p", "--depth", "2", "--samples", "20",
                 "--out", str(tmp_path / "out"), "--quiet"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) < 1000 and name not in out
    assert clipped(name + "=='east'", DESCRIPTION_WIDTH) + "  " in out  # the table's row: the start and the value
    assert main(["run", str(path), "--label", name + "y", "--score", "p", "--quiet"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert len(line) == len("subroc-ext: error: ") + LINE_WIDTH and line.endswith("'y', 'p']")


def test_clipped_keeps_the_start_and_the_end():
    assert clipped("abcdefghij", 5) == "ab\u2026ij" and clipped("abcde", 5) == "abcde"
    assert one_line("a\n" + "b" * 5000) == clipped("a " + "b" * 5000, LINE_WIDTH)
